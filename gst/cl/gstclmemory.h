/* gst-clvideo: GstMemory holding an OpenCL buffer
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#pragma once

#include <gst/cl/cl-prelude.h>
#include <gst/gst.h>
#include <gst/video/video.h>
#include <gst/cl/gstclcontext.h>

G_BEGIN_DECLS

/**
 * GST_CAPS_FEATURE_MEMORY_CL:
 *
 * Caps feature of buffers whose memory is a GstClMemory of the shared
 * context: adjacent cl elements negotiate it so frames stay on the device.
 *
 * Since: 0.1
 */
#define GST_CAPS_FEATURE_MEMORY_CL "memory:OpenCL"
/**
 * GST_CL_MEMORY_ALLOCATOR_NAME:
 *
 * The name (and memory type) of #GstClAllocator.
 *
 * Since: 0.1
 */
#define GST_CL_MEMORY_ALLOCATOR_NAME "ClMemory"

/**
 * GstClMemory:
 * @mem: the parent
 * @context: the context of @buffer (a reference is held)
 * @buffer: the whole OpenCL allocation, shared by sub-memories
 * @content_undefined: the content is undefined (fresh, or returned to its
 *   pool): a write-only map need not copy device data to the host
 *
 * A #GstMemory holding an OpenCL buffer. The host mapping is shared by
 * every map of the memory and of its sub-memories (kept on the root):
 * OpenCL leaves overlapping mappings for writing undefined, and a
 * #GstVideoFrame maps once per plane.
 *
 * Since: 0.1
 */
typedef struct {
  GstMemory mem;
  GstClContext *context;
  cl_mem buffer;
  gboolean content_undefined;

  /*< private >*/
  GMutex map_lock;
  gpointer map_ptr;
  guint map_count;
  cl_map_flags map_flags;
} GstClMemory;

/**
 * GST_TYPE_CL_ALLOCATOR:
 *
 * The #GType of #GstClAllocator.
 *
 * Since: 0.1
 */
#define GST_TYPE_CL_ALLOCATOR (gst_cl_allocator_get_type ())
GST_CL_API
G_DECLARE_FINAL_TYPE (GstClAllocator, gst_cl_allocator, GST, CL_ALLOCATOR,
    GstAllocator)

/**
 * GstClAllocator:
 * @parent: the parent
 * @context: the context its memories belong to (a reference is held)
 *
 * Allocates #GstClMemory on one context's device. MT safe.
 *
 * Since: 0.1
 */
struct _GstClAllocator
{
  GstAllocator parent;
  GstClContext *context;
};

GST_CL_API
GstAllocator *gst_cl_allocator_new (GstClContext * ctx);
GST_CL_API
GstMemory *gst_cl_allocator_alloc_memory (GstAllocator * allocator,
    gsize size, GError ** error);

GST_CL_API
gboolean gst_is_cl_memory (GstMemory * mem);
GST_CL_API
gboolean gst_buffer_is_cl (GstBuffer * buffer, GstClContext * ctx);
GST_CL_API
void gst_cl_memory_mark_written (GstMemory * mem);

/**
 * GstClFrame:
 * @buffer: the buffer holding the frame (not owned)
 * @mem: its OpenCL buffer
 * @info: the frame's layout: offsets and strides from the buffer's
 *   #GstVideoMeta when present
 *
 * One video frame in an OpenCL buffer, as kernels take it.
 *
 * Since: 0.1
 */
typedef struct {
  GstBuffer *buffer;
  cl_mem mem;
  GstVideoInfo info;
} GstClFrame;

GST_CL_API
gboolean gst_cl_frame_init (GstClFrame * frame, const GstVideoInfo * info,
    GstBuffer * buffer);

/**
 * GstClPlane:
 * @mem: the buffer holding the samples (not owned)
 * @offset: bytes from the start of @mem to sample (0, 0)
 * @stride: bytes from one row to the next
 * @width: samples per row
 * @height: rows
 * @pixel_stride: bytes from one sample to the next in a row: 1 for a
 *   plane of its own, 2 for the interleaved chroma of NV12
 *
 * Where the 8-bit samples of one component of a frame lie on the device,
 * for kernels that work on one component at a time.
 *
 * Since: 0.1
 */
typedef struct {
  cl_mem mem;
  gsize offset;
  guint stride;
  guint width, height;
  guint pixel_stride;
} GstClPlane;

GST_CL_API
void gst_cl_frame_get_plane (const GstClFrame * frame, guint comp,
    GstClPlane * plane);

GST_CL_API
gboolean gst_cl_frame_download (GstClContext * ctx, GstVideoFrame * dst,
    GstClFrame * src, GError ** error);

GST_CL_API
gboolean gst_cl_frame_upload_buffer (GstClContext * ctx, GstClFrame * dst,
    const GstVideoInfo * info, GstBuffer * src, GError ** error);

GST_CL_API
gboolean gst_cl_stage_frame (GstClContext * ctx, GstBufferPool ** pool,
    const GstVideoInfo * info, GstBuffer * inbuf, GstBuffer ** staged,
    GstClFrame * frame, GError ** error);

GST_CL_API
gboolean gst_cl_frame_check_buffer (const GstVideoInfo * info,
    GstBuffer * buffer, GError ** error);

GST_CL_API
gboolean gst_cl_element_check_input_frame (GstElement * element,
    const GstVideoInfo * info, GstBuffer * buffer);

GST_CL_API
gboolean gst_cl_frame_borrow (GstClContext * ctx, const GstVideoInfo * info,
    GstBuffer * inbuf, GstClFrame * frame);

GST_CL_API
gboolean gst_cl_frame_copy (GstClContext * ctx, GstClFrame * dst,
    const GstClFrame * src, GError ** error);

G_END_DECLS
