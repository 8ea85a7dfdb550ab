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

/**
 * gst_cl_readback_new:
 * @ctx: the context whose queue runs the reads
 * @func: called for each completed read, until @rb is freed
 * @user_data: passed to @func
 *
 * A new, empty queue of reads. It holds a reference to @ctx.
 *
 * Returns: (transfer full): the readback; free it with
 *   gst_cl_readback_free()
 *
 * Since: 0.1
 */
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

/**
 * gst_cl_readback_clear:
 * @rb: a #GstClReadback
 *
 * Waits for the pending reads and drops them without calling back (their
 * structures are freed). Blocks until the device has written them.
 *
 * Since: 0.1
 */
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

/**
 * gst_cl_readback_free:
 * @rb: (transfer full) (nullable): a #GstClReadback
 *
 * Waits for the pending reads, drops them without calling back, and frees
 * @rb. Does nothing for %NULL.
 *
 * Since: 0.1
 */
void
gst_cl_readback_free (GstClReadback * rb)
{
  if (!rb)
    return;
  gst_cl_readback_clear (rb);
  gst_object_unref (rb->ctx);
  g_free (rb);
}

/**
 * gst_cl_readback_get_n_pending:
 * @rb: a #GstClReadback
 *
 * How many reads are in flight: enqueued, and neither called back nor
 * dropped yet.
 *
 * Returns: the number of pending reads
 *
 * Since: 0.1
 */
guint
gst_cl_readback_get_n_pending (GstClReadback * rb)
{
  return g_queue_get_length (&rb->pending);
}

/**
 * gst_cl_readback_poll:
 * @rb: a #GstClReadback
 * @wait: wait for all pending reads
 * @error: return location for a #GError, or %NULL
 *
 * Calls back for the reads that have completed, oldest first; with @wait,
 * waits for all of them. Without @wait it still waits for the oldest
 * reads while more than 16 are pending, which bounds the host memory when
 * the device falls behind. A failed read is dropped without calling back.
 *
 * Returns: %FALSE, with @error naming the failed call and the CL_* code,
 *   when a read or the wait failed
 *
 * Since: 0.1
 */
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

/**
 * gst_cl_readback_push:
 * @rb: a #GstClReadback
 * @mem: the device buffer to read
 * @offset: where to start in @mem, in bytes
 * @size: how many bytes to read
 * @s: (transfer full): describes the read; handed to the callback with the
 *   data
 * @error: return location for a #GError, or %NULL
 *
 * Enqueues a non-blocking read of @size bytes of @mem from @offset on the
 * context's queue (behind the commands already enqueued) and submits it.
 *
 * Returns: %FALSE, with @error set, when the read cannot be enqueued or
 *   submitted (@s is freed when it cannot be enqueued)
 *
 * Since: 0.1
 */
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

/**
 * gst_cl_frame_message_structure_new:
 * @name: the structure's name
 * @segment: the segment @buf belongs to
 * @buf: the frame
 * @duration: the frame's duration, or %GST_CLOCK_TIME_NONE
 *
 * A new element-message structure @name describing the frame @buf:
 * "timestamp" (its PTS), "stream-time" and "running-time" (in @segment),
 * "duration" (@duration), all guint64 nanoseconds, %GST_CLOCK_TIME_NONE
 * when unknown. MT safe.
 *
 * Returns: (transfer full): the structure
 *
 * Since: 0.1
 */
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

/**
 * gst_cl_interval_complete:
 * @elapsed: (inout): the frame time since the last message
 * @duration: the frame's duration, or %GST_CLOCK_TIME_NONE
 * @interval: the time between messages; 0 for every frame
 *
 * Whether a frame of @duration completes an @interval of messages, the
 * frame time since the last message being in *@elapsed: durations add up,
 * and the frame at which the sum reaches the interval completes it (the
 * excess carries over). A frame of unknown duration counts as a whole
 * interval. MT safe (for distinct @elapsed).
 *
 * Returns: %TRUE when the frame completes the interval (and a message is
 *   due)
 *
 * Since: 0.1
 */
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
