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
 * Called (from gst_cl_readback_poll()) once a read has completed, in the
 * thread that polls.
 *
 * Since: 0.1
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
 *
 * A readback is not MT safe: one thread at a time uses it (an element's
 * streaming thread, or its state change with streaming stopped).
 *
 * Since: 0.1
 */
typedef struct _GstClReadback GstClReadback;

GST_CL_API
GstClReadback *gst_cl_readback_new (GstClContext * ctx,
    GstClReadbackFunc func, gpointer user_data);
GST_CL_API
void gst_cl_readback_free (GstClReadback * rb);

GST_CL_API
gboolean gst_cl_readback_push (GstClReadback * rb, cl_mem mem, gsize offset,
    gsize size, GstStructure * s, GError ** error);

GST_CL_API
gboolean gst_cl_readback_poll (GstClReadback * rb, gboolean wait,
    GError ** error);

GST_CL_API
void gst_cl_readback_clear (GstClReadback * rb);

GST_CL_API
guint gst_cl_readback_get_n_pending (GstClReadback * rb);

GST_CL_API
GstStructure *gst_cl_frame_message_structure_new (const gchar * name,
    const GstSegment * segment, GstBuffer * buf, GstClockTime duration);

GST_CL_API
gboolean gst_cl_interval_complete (GstClockTime * elapsed,
    GstClockTime duration, guint64 interval);

G_END_DECLS
