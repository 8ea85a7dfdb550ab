/* gst-clvideo: non-blocking reads of small device results
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include <gst/cl/gstclreadback.h>

/* Reads in flight before the oldest is waited for: keeps host memory
 * bounded when the device falls behind. */
#define MAX_PENDING 16

typedef struct
{
  cl_event event;
  gpointer data;
  gsize size;
  GstStructure *s;
} Pending;

struct _GstClReadback
{
  GstClContext *ctx;
  GstClReadbackFunc func;
  gpointer user_data;
  GQueue pending;
};

static void
pending_free (Pending * p)
{
  if (p->event)
    clReleaseEvent (p->event);
  if (p->s)
    gst_structure_free (p->s);
  g_free (p->data);
  g_free (p);
}

GstClReadback *
gst_cl_readback_new (GstClContext * ctx, GstClReadbackFunc func,
    gpointer user_data)
{
  GstClReadback *rb = g_new0 (GstClReadback, 1);

  rb->ctx = gst_object_ref (ctx);
  rb->func = func;
  rb->user_data = user_data;
  g_queue_init (&rb->pending);
  return rb;
}

void
gst_cl_readback_clear (GstClReadback * rb)
{
  Pending *p;

  while ((p = g_queue_pop_head (&rb->pending))) {
    /* the host memory may only go once the device is done writing it */
    clWaitForEvents (1, &p->event);
    pending_free (p);
  }
}

void
gst_cl_readback_free (GstClReadback * rb)
{
  if (!rb)
    return;
  gst_cl_readback_clear (rb);
  gst_object_unref (rb->ctx);
  g_free (rb);
}

guint
gst_cl_readback_get_n_pending (GstClReadback * rb)
{
  return g_queue_get_length (&rb->pending);
}

gboolean
gst_cl_readback_poll (GstClReadback * rb, gboolean wait, GError ** error)
{
  Pending *p;

  while ((p = g_queue_peek_head (&rb->pending))) {
    cl_int status = CL_QUEUED, ret;

    if (wait || g_queue_get_length (&rb->pending) > MAX_PENDING) {
      ret = clWaitForEvents (1, &p->event);
      /* a failed read shows in its status below */
      if (ret != CL_SUCCESS &&
          ret != CL_EXEC_STATUS_ERROR_FOR_EVENTS_IN_WAIT_LIST) {
        gst_cl_check (ret, "clWaitForEvents", error);
        g_queue_pop_head (&rb->pending);
        pending_free (p);
        return FALSE;
      }
    }
    ret = clGetEventInfo (p->event, CL_EVENT_COMMAND_EXECUTION_STATUS,
        sizeof (status), &status, NULL);
    if (!gst_cl_check (ret, "clGetEventInfo", error)) {
      g_queue_pop_head (&rb->pending);
      pending_free (p);
      return FALSE;
    }
    if (status < 0) {
      g_queue_pop_head (&rb->pending);
      pending_free (p);
      return gst_cl_check (status, "clEnqueueReadBuffer (execution)", error);
    }
    if (status != CL_COMPLETE)
      break;
    g_queue_pop_head (&rb->pending);
    rb->func (p->s, p->data, p->size, rb->user_data);
    p->s = NULL;
    pending_free (p);
  }
  return TRUE;
}

gboolean
gst_cl_readback_push (GstClReadback * rb, cl_mem mem, gsize offset,
    gsize size, GstStructure * s, GError ** error)
{
  Pending *p = g_new0 (Pending, 1);
  cl_int ret;

  p->data = g_malloc (size);
  p->size = size;
  p->s = s;
  ret = clEnqueueReadBuffer (rb->ctx->queue, mem, CL_FALSE, offset, size,
      p->data, 0, NULL, &p->event);
  if (!gst_cl_check (ret, "clEnqueueReadBuffer", error)) {
    p->event = NULL;
    pending_free (p);
    return FALSE;
  }
  GST_CL_COUNT_DOWNLOAD (rb->ctx);
  g_queue_push_tail (&rb->pending, p);
  /* submit now: polling the event alone need not start the command */
  return gst_cl_check (clFlush (rb->ctx->queue), "clFlush", error);
}

GstStructure *
gst_cl_frame_message_structure_new (const gchar * name,
    const GstSegment * segment, GstBuffer * buf, GstClockTime duration)
{
  GstClockTime pts = GST_BUFFER_PTS (buf);
  GstClockTime running = GST_CLOCK_TIME_NONE, stream = GST_CLOCK_TIME_NONE;

  if (segment->format == GST_FORMAT_TIME && GST_CLOCK_TIME_IS_VALID (pts)) {
    running = gst_segment_to_running_time (segment, GST_FORMAT_TIME, pts);
    stream = gst_segment_to_stream_time (segment, GST_FORMAT_TIME, pts);
  }
  return gst_structure_new (name, "timestamp", G_TYPE_UINT64, pts,
      "stream-time", G_TYPE_UINT64, stream, "running-time", G_TYPE_UINT64,
      running, "duration", G_TYPE_UINT64, duration, NULL);
}

gboolean
gst_cl_interval_complete (GstClockTime * elapsed, GstClockTime duration,
    guint64 interval)
{
  *elapsed += GST_CLOCK_TIME_IS_VALID (duration) ? duration : interval;
  if (*elapsed < interval)
    return FALSE;
  *elapsed = interval ? *elapsed % interval : 0;
  return TRUE;
}
