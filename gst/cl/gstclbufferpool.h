/* gst-clvideo: buffer pool of GstClMemory video frames
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#pragma once

#include <gst/cl/cl-prelude.h>
#include <gst/video/video.h>
#include <gst/cl/gstclmemory.h>

G_BEGIN_DECLS

/**
 * GST_TYPE_CL_BUFFER_POOL:
 *
 * The #GType of #GstClBufferPool.
 *
 * Since: 0.1
 */
#define GST_TYPE_CL_BUFFER_POOL (gst_cl_buffer_pool_get_type ())
GST_CL_API
G_DECLARE_FINAL_TYPE (GstClBufferPool, gst_cl_buffer_pool, GST,
    CL_BUFFER_POOL, GstBufferPool)

/**
 * GstClBufferPool:
 *
 * A pool of video frames in #GstClMemory of one context, each with a
 * #GstVideoMeta. A buffer that returns to the pool has undefined content.
 *
 * Since: 0.1
 */
struct _GstClBufferPool
{
  GstBufferPool parent;

  /*< private >*/
  GstClContext *context;
  GstAllocator *allocator;
  GstVideoInfo info;
};

GST_CL_API
GstBufferPool *gst_cl_buffer_pool_new (GstClContext * ctx);

GST_CL_API
GstBufferPool *gst_cl_buffer_pool_new_for_caps (GstClContext * ctx,
    GstCaps * caps, guint min_buffers);

GST_CL_API
GstBufferPool *gst_cl_buffer_pool_new_sized (GstClContext * ctx, gsize size,
    guint min_buffers, GError ** error);

G_END_DECLS
