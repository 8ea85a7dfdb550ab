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
 */
#define GST_CAPS_FEATURE_MEMORY_CL "memory:OpenCL"
#define GST_CL_MEMORY_ALLOCATOR_NAME "ClMemory"

typedef struct {
  GstMemory mem;
  GstClContext *context;        /* owned */
  cl_mem buffer;                /* whole allocation, shared by sub-memories */
  /* Content undefined (fresh, or returned to its pool): a write-only map
   * need not copy device data to the host. */
  gboolean content_undefined;
  /* The host mapping, shared by every map of this memory and of its
   * sub-memories (kept on the root): OpenCL leaves overlapping mappings
   * for writing undefined, and a GstVideoFrame maps once per plane. */
  GMutex map_lock;
  gpointer map_ptr;
  guint map_count;
  cl_map_flags map_flags;
} GstClMemory;

#define GST_TYPE_CL_ALLOCATOR (gst_cl_allocator_get_type ())
GST_CL_API
G_DECLARE_FINAL_TYPE (GstClAllocator, gst_cl_allocator, GST, CL_ALLOCATOR,
    GstAllocator)

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
/* TRUE when @buffer is a single GstClMemory of @ctx. */
GST_CL_API
gboolean gst_buffer_is_cl (GstBuffer * buffer, GstClContext * ctx);
/* Marks device content as defined, after a kernel wrote it. */
GST_CL_API
void gst_cl_memory_mark_written (GstMemory * mem);

/* One video frame in an OpenCL buffer: offsets and strides come from the
 * buffer's GstVideoMeta when present. */
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
 */
typedef struct {
  cl_mem mem;
  gsize offset;
  guint stride;
  guint width, height;
  guint pixel_stride;
} GstClPlane;

/* Component @comp (GST_VIDEO_COMP_Y, _U, _V, ...) of @frame, which must
 * be an 8-bit component. */
GST_CL_API
void gst_cl_frame_get_plane (const GstClFrame * frame, guint comp,
    GstClPlane * plane);

/* Copies the cl buffer @src into a system-memory @dst frame (counted as a
 * download). */
GST_CL_API
gboolean gst_cl_frame_download (GstClContext * ctx, GstVideoFrame * dst,
    GstClFrame * src, GError ** error);

/* Maps the system-memory buffer @src as an @info frame and uploads it
 * into the cl buffer @dst (counted as an upload); a clear error when
 * @src does not hold such a frame. */
GST_CL_API
gboolean gst_cl_frame_upload_buffer (GstClContext * ctx, GstClFrame * dst,
    const GstVideoInfo * info, GstBuffer * src, GError ** error);

/* A system-memory @inbuf (an @info frame) copied into a buffer of
 * *@pool (created on first use: cl buffers for @info); *@staged receives
 * that buffer, to unref once its readers are enqueued, and @frame
 * describes it. */
GST_CL_API
gboolean gst_cl_stage_frame (GstClContext * ctx, GstBufferPool ** pool,
    const GstVideoInfo * info, GstBuffer * inbuf, GstBuffer ** staged,
    GstClFrame * frame, GError ** error);

/* TRUE when @buffer holds a whole @info frame where its GstVideoMeta, if
 * any, places the planes: format and plane count as @info's, and every
 * row the transfers and kernels read of each plane (rows of its widest
 * component at the meta's stride) inside the buffer. Else FALSE with a
 * GST_STREAM_ERROR_FORMAT @error that names what is wrong (the plane,
 * its stride or offset, the sizes). */
GST_CL_API
gboolean gst_cl_frame_check_buffer (const GstVideoInfo * info,
    GstBuffer * buffer, GError ** error);

/* gst_cl_frame_check_buffer() for an element's input: posts its error
 * as a GST_ELEMENT_ERROR (STREAM, FORMAT) of @element. */
GST_CL_API
gboolean gst_cl_element_check_input_frame (GstElement * element,
    const GstVideoInfo * info, GstBuffer * buffer);

/* On a CPU device, @frame over the samples of the system-memory @inbuf
 * (an @info frame, one memory) with no copy: @frame->mem is a new cl
 * buffer on its mapping, to release once its readers are enqueued; the
 * mapping lasts until the device has done with it. Kernels must read
 * only the frame's planes. FALSE where this cannot be (another device,
 * several memories, planes outside the buffer): stage it instead. */
GST_CL_API
gboolean gst_cl_frame_borrow (GstClContext * ctx, const GstVideoInfo * info,
    GstBuffer * inbuf, GstClFrame * frame);

/* Enqueues a device-side copy of every plane of @src into @dst (same
 * format and size, any layouts); not a host transfer. */
GST_CL_API
gboolean gst_cl_frame_copy (GstClContext * ctx, GstClFrame * dst,
    const GstClFrame * src, GError ** error);

G_END_DECLS
