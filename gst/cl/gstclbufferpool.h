/* gst-clvideo: buffer pool of GstClMemory video frames
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#pragma once

#include <gst/cl/cl-prelude.h>
#include <gst/video/video.h>
#include <gst/cl/gstclmemory.h>

G_BEGIN_DECLS

#define GST_TYPE_CL_BUFFER_POOL (gst_cl_buffer_pool_get_type ())
GST_CL_API
G_DECLARE_FINAL_TYPE (GstClBufferPool, gst_cl_buffer_pool, GST,
    CL_BUFFER_POOL, GstBufferPool)

struct _GstClBufferPool
{
  GstBufferPool parent;
  GstClContext *context;
  GstAllocator *allocator;
  GstVideoInfo info;
};

GST_CL_API
GstBufferPool *gst_cl_buffer_pool_new (GstClContext * ctx);

/* A configured pool for @caps (video meta on), not yet active. */
GST_CL_API
GstBufferPool *gst_cl_buffer_pool_new_for_caps (GstClContext * ctx,
    GstCaps * caps, guint min_buffers);

/* An active pool of plain device buffers of @size bytes (results of
 * kernels kept with a frame's meta, such as histograms or motion vectors),
 * at least @min_buffers of them. */
GST_CL_API
GstBufferPool *gst_cl_buffer_pool_new_sized (GstClContext * ctx, gsize size,
    guint min_buffers, GError ** error);

G_END_DECLS
