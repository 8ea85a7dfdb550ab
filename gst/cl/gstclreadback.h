/* gst-clvideo: non-blocking reads of small device results
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#pragma once

#include <gst/cl/cl-prelude.h>
#include <gst/cl/gstclcontext.h>

G_BEGIN_DECLS

/**
 * GstClReadbackFunc:
 * @s: (transfer full): the structure given to gst_cl_readback_push()
 * @data: the bytes read, valid during the call
 * @size: their number
 * @user_data: as given to gst_cl_readback_new()
 *
 * Called (from gst_cl_readback_poll()) once a read has completed.
 */
typedef void (*GstClReadbackFunc) (GstStructure * s, gconstpointer data,
    gsize size, gpointer user_data);

/**
 * GstClReadback:
 *
 * A queue of non-blocking reads from the device into host memory, each
 * with a structure describing it (for elements that post what kernels
 * computed without stalling on the device: they enqueue the read behind
 * the kernels and pick up the result at a later frame). Reads complete in
 * order on the context's in-order queue. Each read counts as a download.
 */
typedef struct _GstClReadback GstClReadback;

GST_CL_API
GstClReadback *gst_cl_readback_new (GstClContext * ctx,
    GstClReadbackFunc func, gpointer user_data);
/* Waits for the pending reads and drops them. */
GST_CL_API
void gst_cl_readback_free (GstClReadback * rb);

/* Enqueues a read of @size bytes of @mem from @offset; @s (taken) goes to
 * the callback with the data. */
GST_CL_API
gboolean gst_cl_readback_push (GstClReadback * rb, cl_mem mem, gsize offset,
    gsize size, GstStructure * s, GError ** error);

/* Calls back for the reads that have completed, oldest first; with @wait,
 * waits for all of them. */
GST_CL_API
gboolean gst_cl_readback_poll (GstClReadback * rb, gboolean wait,
    GError ** error);

/* Waits for the pending reads and drops them without calling back. */
GST_CL_API
void gst_cl_readback_clear (GstClReadback * rb);

GST_CL_API
guint gst_cl_readback_get_n_pending (GstClReadback * rb);

/* A new element-message structure @name describing the frame @buf:
 * "timestamp" (its PTS), "stream-time" and "running-time" (in @segment),
 * "duration" (@duration), all guint64 nanoseconds, GST_CLOCK_TIME_NONE
 * when unknown. */
GST_CL_API
GstStructure *gst_cl_frame_message_structure_new (const gchar * name,
    const GstSegment * segment, GstBuffer * buf, GstClockTime duration);

/* Whether a frame of @duration completes an @interval of messages, the
 * frame time since the last being in *@elapsed: durations add up, and
 * the frame at which the sum reaches the interval completes it (the
 * excess carries over). A frame of unknown duration counts as a whole
 * interval, and interval 0 means every frame. */
GST_CL_API
gboolean gst_cl_interval_complete (GstClockTime * elapsed,
    GstClockTime duration, guint64 interval);

G_END_DECLS
