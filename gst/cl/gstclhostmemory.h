/* gst-clvideo: page-locked host memory that devices read by DMA
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#pragma once

#include <gst/cl/cl-prelude.h>
#include <gst/gst.h>
#include <gst/video/video.h>
#include <gst/cl/gstclcontext.h>

G_BEGIN_DECLS

/**
 * GST_CL_HOST_MEMORY_ALLOCATOR_NAME:
 *
 * The name (and memory type) of #GstClHostAllocator.
 *
 * Since: 0.1
 */
#define GST_CL_HOST_MEMORY_ALLOCATOR_NAME "ClHostMemory"

/**
 * GST_TYPE_CL_HOST_ALLOCATOR:
 *
 * The #GType of #GstClHostAllocator.
 *
 * Since: 0.1
 */
#define GST_TYPE_CL_HOST_ALLOCATOR (gst_cl_host_allocator_get_type ())
GST_CL_API
G_DECLARE_FINAL_TYPE (GstClHostAllocator, gst_cl_host_allocator, GST,
    CL_HOST_ALLOCATOR, GstAllocator)

GST_CL_API
GstAllocator *gst_cl_host_allocator_new (GstClContext * ctx);

GST_CL_API
gboolean gst_is_cl_host_memory (GstMemory * mem);

GST_CL_API
gboolean gst_cl_host_memory_get_data (GstMemory * mem, GstClContext * ctx,
    const guint8 ** data);

GST_CL_API
GstBufferPool *gst_cl_host_buffer_pool_new (GstClContext * ctx,
    GstCaps * caps, guint min_buffers);

GST_CL_API
GstBufferPool *gst_cl_upload_pool_new (GstClContext * ctx, GstCaps * caps,
    guint min_buffers);

G_END_DECLS
