/* gst-clvideo: GstMemory holding an OpenCL buffer
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
/**
 * SECTION:gstclmemory
 * @title: GstClMemory
 * @short_description: GstMemory holding an OpenCL buffer
 *
 * A #GstClMemory is one OpenCL buffer of a #GstClContext; the cl elements
 * pass video frames in it under the caps feature
 * #GST_CAPS_FEATURE_MEMORY_CL, all planes in one buffer. Mapping one for
 * the host waits for the work enqueued before on the context's in-order
 * queue; on CPU devices it costs no copy. #GstClAllocator makes them;
 * #GstClFrame describes a frame in one for kernels.
 *
 * Since: 0.1
 */
#include <gst/cl/gstclmemory.h>
#include <gst/cl/gstclbufferpool.h>
#include <gst/cl/gstclhostmemory.h>

#include <string.h>

GST_DEBUG_CATEGORY_STATIC (gst_cl_memory_debug);
#define GST_CAT_DEFAULT gst_cl_memory_debug

G_DEFINE_TYPE_WITH_CODE (GstClAllocator, gst_cl_allocator, GST_TYPE_ALLOCATOR,
    GST_DEBUG_CATEGORY_INIT (gst_cl_memory_debug, "clmemory", 0,
        "OpenCL memory"));

static GstClMemory *
cl_memory_wrap (GstClAllocator * alloc, GstMemory * parent, cl_mem buffer,
    gsize maxsize, gsize offset, gsize size)
{
  GstClMemory *mem = g_new0 (GstClMemory, 1);
  gst_memory_init (GST_MEMORY_CAST (mem),
      parent ? GST_MEMORY_FLAGS (parent) & GST_MEMORY_FLAG_READONLY : 0,
      GST_ALLOCATOR_CAST (alloc), parent, maxsize, 0, offset, size);
  mem->context = gst_object_ref (alloc->context);
  mem->buffer = buffer;
  g_mutex_init (&mem->map_lock);
  return mem;
}

/**
 * gst_cl_allocator_alloc_memory:
 * @allocator: a #GstClAllocator
 * @size: bytes
 * @error: return location for a #GError
 *
 * Allocates a #GstClMemory of @size bytes on the allocator's device,
 * reporting a failed OpenCL call in @error (gst_allocator_alloc() cannot).
 * Its content is undefined until written. MT safe.
 *
 * Returns: (transfer full) (nullable): the memory, or %NULL with @error set
 *
 * Since: 0.1
 */
GstMemory *
gst_cl_allocator_alloc_memory (GstAllocator * allocator, gsize size,
    GError ** error)
{
  GstClAllocator *alloc = GST_CL_ALLOCATOR (allocator);
  GstClContext *ctx = alloc->context;
  cl_mem_flags flags = CL_MEM_READ_WRITE;
  cl_int ret;
  cl_mem buffer;
  GstClMemory *mem;

  /* On a CPU device the host pointer is the device memory: mapping is free */
  if (ctx->host_unified)
    flags |= CL_MEM_ALLOC_HOST_PTR;
  buffer = clCreateBuffer (ctx->context, flags, MAX (size, 1), NULL, &ret);
  if (!gst_cl_check (ret, "clCreateBuffer", error)) {
    if (ret == CL_MEM_OBJECT_ALLOCATION_FAILURE || ret == CL_OUT_OF_RESOURCES
        || ret == CL_INVALID_BUFFER_SIZE)
      g_prefix_error (error, "Out of OpenCL device memory for %"
          G_GSIZE_FORMAT " bytes: ", size);
    return NULL;
  }
  mem = cl_memory_wrap (alloc, NULL, buffer, size, 0, size);
  mem->content_undefined = TRUE;
  return GST_MEMORY_CAST (mem);
}

static GstMemory *
gst_cl_allocator_alloc (GstAllocator * allocator, gsize size,
    GstAllocationParams * params)
{
  GError *error = NULL;
  GstMemory *mem;
  gsize total = size + params->prefix + params->padding;

  mem = gst_cl_allocator_alloc_memory (allocator, total, &error);
  if (!mem) {
    GST_ERROR_OBJECT (allocator, "%s", error->message);
    g_error_free (error);
    return NULL;
  }
  mem->offset = params->prefix;
  mem->size = size;
  return mem;
}

static void
gst_cl_allocator_free (GstAllocator * allocator G_GNUC_UNUSED,
    GstMemory * memory)
{
  GstClMemory *mem = (GstClMemory *) memory;
  clReleaseMemObject (mem->buffer);
  gst_object_unref (mem->context);
  g_mutex_clear (&mem->map_lock);
  g_free (mem);
}

/* the memory that holds the mapping of @memory */
static GstClMemory *
map_root (GstMemory * memory)
{
  return (GstClMemory *) (memory->parent ? memory->parent : memory);
}

static gpointer
cl_mem_map_full (GstMemory * memory, GstMapInfo * info, gsize maxsize)
{
  GstClMemory *mem = (GstClMemory *) memory, *root = map_root (memory);
  cl_map_flags flags = 0;
  cl_int ret = CL_SUCCESS;
  gpointer ptr;

  if (info->flags & GST_MAP_READ)
    flags |= CL_MAP_READ;
  if (info->flags & GST_MAP_WRITE) {
    if (!(info->flags & GST_MAP_READ) && mem->content_undefined &&
        root->content_undefined)
      flags |= CL_MAP_WRITE_INVALIDATE_REGION;
    else
      flags |= CL_MAP_WRITE;
  }

  g_mutex_lock (&root->map_lock);
  if (root->map_count > 0) {
    /* mapped already (another plane of a frame, a sub-memory): the same
     * host copy, if it allows this access */
    gboolean readable = (root->map_flags & CL_MAP_READ) ||
        (root->map_flags & CL_MAP_WRITE);
    gboolean writable = (root->map_flags & (CL_MAP_WRITE |
            CL_MAP_WRITE_INVALIDATE_REGION)) != 0;
    if (((flags & CL_MAP_READ) && !readable) ||
        ((flags & (CL_MAP_WRITE | CL_MAP_WRITE_INVALIDATE_REGION)) &&
            !writable)) {
      g_mutex_unlock (&root->map_lock);
      GST_ERROR ("OpenCL memory is mapped already, without the access now "
          "asked for");
      return NULL;
    }
    root->map_count++;
    ptr = root->map_ptr;
    g_mutex_unlock (&root->map_lock);
    mem->content_undefined = FALSE;
    return ptr;
  }
  /* blocking: the host sees the result of all device work enqueued so far;
   * the whole allocation, so that every sub-memory lies inside */
  ptr = clEnqueueMapBuffer (mem->context->queue, root->buffer, CL_TRUE,
      flags, 0, MAX (maxsize, ((GstMemory *) root)->maxsize), 0, NULL, NULL,
      &ret);
  if (ret != CL_SUCCESS) {
    g_mutex_unlock (&root->map_lock);
    GST_ERROR ("clEnqueueMapBuffer failed: %s (%d)", gst_cl_error_name (ret),
        ret);
    return NULL;
  }
  root->map_ptr = ptr;
  root->map_flags = flags;
  root->map_count = 1;
  g_mutex_unlock (&root->map_lock);
  mem->content_undefined = root->content_undefined = FALSE;
  GST_CL_COUNT_HOST_MAP (mem->context);
  return ptr;
}

static void
cl_mem_unmap_full (GstMemory * memory, GstMapInfo * info G_GNUC_UNUSED)
{
  GstClMemory *root = map_root (memory);
  cl_int ret = CL_SUCCESS;

  g_mutex_lock (&root->map_lock);
  if (root->map_count > 0 && --root->map_count == 0) {
    ret = clEnqueueUnmapMemObject (root->context->queue, root->buffer,
        root->map_ptr, 0, NULL, NULL);
    root->map_ptr = NULL;
  }
  g_mutex_unlock (&root->map_lock);
  if (ret != CL_SUCCESS)
    GST_ERROR ("clEnqueueUnmapMemObject failed: %s (%d)",
        gst_cl_error_name (ret), ret);
}

static GstMemory *
cl_mem_share (GstMemory * memory, gssize offset, gssize size)
{
  GstClMemory *mem = (GstClMemory *) memory;
  GstMemory *parent = memory->parent ? memory->parent : memory;
  GstClMemory *sub;

  if (size == -1)
    size = memory->size - offset;
  clRetainMemObject (mem->buffer);
  sub = cl_memory_wrap (GST_CL_ALLOCATOR (memory->allocator), parent,
      mem->buffer, memory->maxsize, memory->offset + offset, size);
  return GST_MEMORY_CAST (sub);
}

static GstMemory *
cl_mem_copy (GstMemory * memory, gssize offset, gssize size)
{
  GstClMemory *mem = (GstClMemory *) memory;
  GstMemory *copy;
  GError *error = NULL;
  cl_int ret;

  if (size == -1)
    size = memory->size > (gsize) offset ? memory->size - offset : 0;
  copy = gst_cl_allocator_alloc_memory (memory->allocator, size, &error);
  if (!copy) {
    GST_ERROR ("%s", error->message);
    g_error_free (error);
    return NULL;
  }
  if (size > 0) {
    ret = clEnqueueCopyBuffer (mem->context->queue, mem->buffer,
        ((GstClMemory *) copy)->buffer, memory->offset + offset, 0, size, 0,
        NULL, NULL);
    if (ret != CL_SUCCESS) {
      GST_ERROR ("clEnqueueCopyBuffer failed: %s (%d)",
          gst_cl_error_name (ret), ret);
      gst_memory_unref (copy);
      return NULL;
    }
  }
  ((GstClMemory *) copy)->content_undefined = FALSE;
  return copy;
}

static gboolean
cl_mem_is_span (GstMemory * mem1 G_GNUC_UNUSED, GstMemory * mem2 G_GNUC_UNUSED,
    gsize * offset G_GNUC_UNUSED)
{
  return FALSE;
}

static void
gst_cl_allocator_dispose (GObject * object)
{
  GstClAllocator *self = GST_CL_ALLOCATOR (object);
  gst_clear_object (&self->context);
  G_OBJECT_CLASS (gst_cl_allocator_parent_class)->dispose (object);
}

static void
gst_cl_allocator_class_init (GstClAllocatorClass * klass)
{
  GstAllocatorClass *aclass = GST_ALLOCATOR_CLASS (klass);
  aclass->alloc = gst_cl_allocator_alloc;
  aclass->free = gst_cl_allocator_free;
  G_OBJECT_CLASS (klass)->dispose = gst_cl_allocator_dispose;
}

static void
gst_cl_allocator_init (GstClAllocator * self)
{
  GstAllocator *alloc = GST_ALLOCATOR_CAST (self);
  alloc->mem_type = GST_CL_MEMORY_ALLOCATOR_NAME;
  alloc->mem_map_full = cl_mem_map_full;
  alloc->mem_unmap_full = cl_mem_unmap_full;
  alloc->mem_share = cl_mem_share;
  alloc->mem_copy = cl_mem_copy;
  alloc->mem_is_span = cl_mem_is_span;
  GST_OBJECT_FLAG_SET (self, GST_ALLOCATOR_FLAG_CUSTOM_ALLOC);
}

/**
 * gst_cl_allocator_new:
 * @ctx: a #GstClContext
 *
 * Returns: (transfer full): a new allocator of #GstClMemory on @ctx's
 *   device
 *
 * Since: 0.1
 */
GstAllocator *
gst_cl_allocator_new (GstClContext * ctx)
{
  GstClAllocator *self = g_object_new (GST_TYPE_CL_ALLOCATOR, NULL);
  gst_object_ref_sink (self);
  self->context = gst_object_ref (ctx);
  return GST_ALLOCATOR_CAST (self);
}

/**
 * gst_is_cl_memory:
 * @mem: (nullable): a #GstMemory
 *
 * Returns: whether @mem is a #GstClMemory
 *
 * Since: 0.1
 */
gboolean
gst_is_cl_memory (GstMemory * mem)
{
  return mem && mem->allocator && GST_IS_CL_ALLOCATOR (mem->allocator);
}

/**
 * gst_buffer_is_cl:
 * @buffer: a #GstBuffer
 * @ctx: a #GstClContext
 *
 * Returns: whether @buffer holds exactly one #GstClMemory, of @ctx
 *
 * Since: 0.1
 */
gboolean
gst_buffer_is_cl (GstBuffer * buffer, GstClContext * ctx)
{
  GstMemory *mem;
  if (gst_buffer_n_memory (buffer) != 1)
    return FALSE;
  mem = gst_buffer_peek_memory (buffer, 0);
  return gst_is_cl_memory (mem) && ((GstClMemory *) mem)->context == ctx;
}

/**
 * gst_cl_memory_mark_written:
 * @mem: a #GstClMemory
 *
 * Marks the device content of @mem as defined, after a kernel wrote it
 * (a later write-only map must then keep it).
 *
 * Since: 0.1
 */
void
gst_cl_memory_mark_written (GstMemory * mem)
{
  ((GstClMemory *) mem)->content_undefined = FALSE;
}

/* ---- frames ---- */

/**
 * gst_cl_frame_init: (skip)
 * @frame: (out caller-allocates): the frame
 * @info: the frame's format
 * @buffer: a buffer of one #GstClMemory
 *
 * Describes the video frame in @buffer for kernels: its offsets and
 * strides come from the buffer's #GstVideoMeta when present, else from
 * @info. @frame borrows @buffer.
 *
 * Returns: %FALSE when @buffer is not a single #GstClMemory
 *
 * Since: 0.1
 */
gboolean
gst_cl_frame_init (GstClFrame * frame, const GstVideoInfo * info,
    GstBuffer * buffer)
{
  GstVideoMeta *meta;
  GstMemory *mem;
  guint i;

  g_return_val_if_fail (gst_buffer_n_memory (buffer) == 1, FALSE);
  mem = gst_buffer_peek_memory (buffer, 0);
  g_return_val_if_fail (gst_is_cl_memory (mem), FALSE);

  frame->buffer = buffer;
  frame->mem = ((GstClMemory *) mem)->buffer;
  frame->info = *info;
  meta = gst_buffer_get_video_meta (buffer);
  if (meta) {
    for (i = 0; i < meta->n_planes; i++) {
      frame->info.offset[i] = meta->offset[i];
      frame->info.stride[i] = meta->stride[i];
    }
  }
  for (i = 0; i < GST_VIDEO_INFO_N_PLANES (info); i++)
    frame->info.offset[i] += mem->offset;
  return gst_buffer_get_size (buffer) >= info->size || meta != NULL;
}

/**
 * gst_cl_frame_get_plane: (skip)
 * @frame: a #GstClFrame
 * @comp: an 8-bit component of its format (GST_VIDEO_COMP_Y, _U, _V, ...)
 * @plane: (out caller-allocates): where the component's samples lie
 *
 * Since: 0.1
 */
void
gst_cl_frame_get_plane (const GstClFrame * frame, guint comp,
    GstClPlane * plane)
{
  const GstVideoInfo *info = &frame->info;
  guint p;

  g_return_if_fail (comp < GST_VIDEO_INFO_N_COMPONENTS (info));
  g_return_if_fail (GST_VIDEO_INFO_COMP_DEPTH (info, comp) == 8);

  p = GST_VIDEO_INFO_COMP_PLANE (info, comp);
  plane->mem = frame->mem;
  plane->offset = info->offset[p] + GST_VIDEO_INFO_COMP_POFFSET (info, comp);
  plane->stride = info->stride[p];
  plane->width = GST_VIDEO_INFO_COMP_WIDTH (info, comp);
  plane->height = GST_VIDEO_INFO_COMP_HEIGHT (info, comp);
  plane->pixel_stride = GST_VIDEO_INFO_COMP_PSTRIDE (info, comp);
}

static void
plane_extent (const GstVideoInfo * info, guint plane, gsize * row_bytes,
    gsize * rows)
{
  gint comp[GST_VIDEO_MAX_COMPONENTS];
  guint i;

  gst_video_format_info_component (info->finfo, plane, comp);
  *row_bytes = *rows = 0;
  /* the widest component: in packed 4:2:2 (YUY2, UYVY) of odd width, the
   * chroma of the last pixel lies past width * the luma pixel stride */
  for (i = 0; i < GST_VIDEO_MAX_COMPONENTS && comp[i] >= 0; i++) {
    *row_bytes = MAX (*row_bytes,
        (gsize) GST_VIDEO_INFO_COMP_WIDTH (info, comp[i]) *
        GST_VIDEO_INFO_COMP_PSTRIDE (info, comp[i]));
    *rows = MAX (*rows, (gsize) GST_VIDEO_INFO_COMP_HEIGHT (info, comp[i]));
  }
}

/* the bytes [*@first, *@end) that the planes of @info span */
static void
layout_span (const GstVideoInfo * info, gsize * first, gsize * end)
{
  guint p;

  *first = G_MAXSIZE;
  *end = 0;
  for (p = 0; p < GST_VIDEO_INFO_N_PLANES (info); p++) {
    gsize row_bytes, rows;
    plane_extent (info, p, &row_bytes, &rows);
    if (!rows)
      continue;
    *first = MIN (*first, info->offset[p]);
    *end = MAX (*end, info->offset[p] + (rows - 1) *
        (gsize) info->stride[p] + row_bytes);
  }
  *first = MIN (*first, *end);
}

/* whether the planes of @a and @b lie at the same offsets with the same
 * strides and sizes */
static gboolean
same_layout (const GstVideoInfo * a, const GstVideoInfo * b)
{
  guint p;

  if (GST_VIDEO_INFO_FORMAT (a) != GST_VIDEO_INFO_FORMAT (b) ||
      a->width != b->width || a->height != b->height)
    return FALSE;
  for (p = 0; p < GST_VIDEO_INFO_N_PLANES (a); p++)
    if (a->offset[p] != b->offset[p] || a->stride[p] != b->stride[p] ||
        a->stride[p] <= 0)
      return FALSE;
  return TRUE;
}

static gboolean
layout_error (GError ** error, const gchar * format, ...) G_GNUC_PRINTF (2, 3);

/* Sets @error to a format error on the input's layout; returns FALSE. */
static gboolean
layout_error (GError ** error, const gchar * format, ...)
{
  va_list args;
  gchar *what;

  va_start (args, format);
  what = g_strdup_vprintf (format, args);
  va_end (args);
  g_set_error (error, GST_STREAM_ERROR, GST_STREAM_ERROR_FORMAT,
      "The input buffer's video meta does not fit: %s", what);
  g_free (what);
  return FALSE;
}

/* Plane @plane of an @info frame, @offset bytes into a buffer of @size
 * bytes at @stride bytes a row: every row the transfers and kernels read
 * (rows of the widest component) must lie inside the buffer. */
static gboolean
check_plane (const GstVideoInfo * info, guint plane, gsize offset,
    gint stride, gsize size, GError ** error)
{
  gsize row_bytes, rows;
  guint64 last_row;

  plane_extent (info, plane, &row_bytes, &rows);
  if (stride < 0)
    return layout_error (error, "plane %u stride %d is negative", plane,
        stride);
  if ((gsize) stride < row_bytes)
    return layout_error (error, "plane %u stride %d is shorter than a row "
        "of the %dx%d %s frame (%" G_GSIZE_FORMAT " bytes)", plane, stride,
        GST_VIDEO_INFO_WIDTH (info), GST_VIDEO_INFO_HEIGHT (info),
        GST_VIDEO_INFO_NAME (info), row_bytes);
  if (offset >= size)
    return layout_error (error, "plane %u offset %" G_GSIZE_FORMAT " lies "
        "outside the %" G_GSIZE_FORMAT "-byte buffer", plane, offset, size);
  /* in 64 bits with no overflow: rows and stride are below 2^31 */
  last_row = (guint64) (rows - 1) * stride;
  if (last_row + row_bytes > size - offset)
    return layout_error (error, "plane %u (offset %" G_GSIZE_FORMAT
        ", stride %d) puts row %" G_GSIZE_FORMAT " at bytes %"
        G_GUINT64_FORMAT " to %" G_GUINT64_FORMAT ", beyond the %"
        G_GSIZE_FORMAT "-byte buffer", plane, offset, stride, rows - 1,
        offset + last_row, offset + last_row + row_bytes - 1, size);
  return TRUE;
}

/**
 * gst_cl_frame_check_buffer:
 * @info: the negotiated format
 * @buffer: a buffer
 * @error: return location for a #GError
 *
 * Checks that @buffer holds a whole @info frame where its #GstVideoMeta,
 * if any, places the planes: format and plane count as @info's, and every
 * row that the transfers and kernels read of each plane (rows of its
 * widest component at the meta's stride) inside the buffer.
 *
 * Returns: %TRUE when it does, else %FALSE with a GST_STREAM_ERROR_FORMAT
 *   @error that names what is wrong (the plane, its stride or offset, the
 *   sizes)
 *
 * Since: 0.1
 */
gboolean
gst_cl_frame_check_buffer (const GstVideoInfo * info, GstBuffer * buffer,
    GError ** error)
{
  GstVideoMeta *meta = gst_buffer_get_video_meta (buffer);
  gsize size = gst_buffer_get_size (buffer);
  guint p;

  if (!meta) {
    if (size >= info->size)
      return TRUE;
    g_set_error (error, GST_STREAM_ERROR, GST_STREAM_ERROR_FORMAT,
        "The input buffer holds %" G_GSIZE_FORMAT " bytes, too few for a "
        "%dx%d %s frame (%" G_GSIZE_FORMAT " bytes)", size,
        GST_VIDEO_INFO_WIDTH (info), GST_VIDEO_INFO_HEIGHT (info),
        GST_VIDEO_INFO_NAME (info), info->size);
    return FALSE;
  }
  if (meta->format != GST_VIDEO_INFO_FORMAT (info))
    return layout_error (error, "it describes a %s frame, the caps %s",
        gst_video_format_to_string (meta->format), GST_VIDEO_INFO_NAME (info));
  if (meta->n_planes != GST_VIDEO_INFO_N_PLANES (info))
    return layout_error (error, "it describes %u plane%s, %s frames have %u",
        meta->n_planes, meta->n_planes == 1 ? "" : "s",
        GST_VIDEO_INFO_NAME (info), GST_VIDEO_INFO_N_PLANES (info));
  if (meta->width < (guint) GST_VIDEO_INFO_WIDTH (info) ||
      meta->height < (guint) GST_VIDEO_INFO_HEIGHT (info))
    return layout_error (error, "it describes a %ux%u frame, smaller than "
        "the caps' %dx%d", meta->width, meta->height,
        GST_VIDEO_INFO_WIDTH (info), GST_VIDEO_INFO_HEIGHT (info));
  for (p = 0; p < meta->n_planes; p++)
    if (!check_plane (info, p, meta->offset[p], meta->stride[p], size, error))
      return FALSE;
  return TRUE;
}

/**
 * gst_cl_element_check_input_frame:
 * @element: the element
 * @info: its input format
 * @buffer: an input buffer
 *
 * gst_cl_frame_check_buffer() for an element's input: a failure is posted
 * as a GST_ELEMENT_ERROR (STREAM, FORMAT) of @element.
 *
 * Returns: whether @buffer holds a whole @info frame
 *
 * Since: 0.1
 */
gboolean
gst_cl_element_check_input_frame (GstElement * element,
    const GstVideoInfo * info, GstBuffer * buffer)
{
  GError *error = NULL;

  if (gst_cl_frame_check_buffer (info, buffer, &error))
    return TRUE;
  GST_ELEMENT_ERROR (element, STREAM, FORMAT, ("%s", error->message), (NULL));
  g_error_free (error);
  return FALSE;
}

/* Writes @vf into @clf (@upload) or reads it from there, blocking; with
 * @done, an upload does not block, and *@done is the event of its last
 * write (the queue is in order: the others come before it). */
static gboolean
transfer_frame (GstClContext * ctx, GstClFrame * clf, GstVideoFrame * vf,
    gboolean upload, cl_event * done, GError ** error)
{
  guint p, n = GST_VIDEO_FRAME_N_PLANES (vf);
  cl_int ret;

  for (p = 0; p < n; p++) {
    gsize row_bytes, rows;
    size_t buf_origin[3], host_origin[3] = { 0, 0, 0 }, region[3];

    plane_extent (&clf->info, p, &row_bytes, &rows);
    buf_origin[0] = clf->info.offset[p];
    buf_origin[1] = buf_origin[2] = 0;
    region[0] = row_bytes;
    region[1] = rows;
    region[2] = 1;
    if (upload)
      ret = clEnqueueWriteBufferRect (ctx->queue, clf->mem, !done,
          buf_origin, host_origin, region, clf->info.stride[p], 0,
          GST_VIDEO_FRAME_PLANE_STRIDE (vf, p), 0,
          GST_VIDEO_FRAME_PLANE_DATA (vf, p), 0, NULL,
          done && p == n - 1 ? done : NULL);
    else
      ret = clEnqueueReadBufferRect (ctx->queue, clf->mem, CL_TRUE,
          buf_origin, host_origin, region, clf->info.stride[p], 0,
          GST_VIDEO_FRAME_PLANE_STRIDE (vf, p), 0,
          GST_VIDEO_FRAME_PLANE_DATA (vf, p), 0, NULL, NULL);
    if (!gst_cl_check (ret, upload ? "clEnqueueWriteBufferRect" :
            "clEnqueueReadBufferRect", error))
      return FALSE;
  }
  if (upload) {
    GST_CL_COUNT_UPLOAD (ctx);
    gst_cl_memory_mark_written (gst_buffer_peek_memory (clf->buffer, 0));
  } else {
    GST_CL_COUNT_DOWNLOAD (ctx);
  }
  return TRUE;
}

/* Maps @src as an @info frame for reading; a clear error when it is not
 * one. The copies read every plane where its video meta says. */
static gboolean
map_input_frame (GstVideoFrame * frame, const GstVideoInfo * info,
    GstBuffer * src, GError ** error)
{
  if (!gst_cl_frame_check_buffer (info, src, error))
    return FALSE;
  if (gst_video_frame_map (frame, info, src, GST_MAP_READ))
    return TRUE;
  g_set_error (error, GST_CL_ERROR, GST_CL_ERROR_CALL,
      "Cannot map the input buffer (%" G_GSIZE_FORMAT " bytes) as a %dx%d "
      "%s frame", gst_buffer_get_size (src), GST_VIDEO_INFO_WIDTH (info),
      GST_VIDEO_INFO_HEIGHT (info), GST_VIDEO_INFO_NAME (info));
  return FALSE;
}

/**
 * gst_cl_frame_upload_buffer: (skip)
 * @ctx: a #GstClContext
 * @dst: the device frame to write
 * @info: the format of @src
 * @src: a system-memory buffer
 * @error: return location for a #GError
 *
 * Maps @src as an @info frame and uploads it into @dst (counted as an
 * upload).
 *
 * Returns: %TRUE on success, else %FALSE with @error set (a clear one when
 *   @src does not hold such a frame)
 *
 * Since: 0.1
 */
gboolean
gst_cl_frame_upload_buffer (GstClContext * ctx, GstClFrame * dst,
    const GstVideoInfo * info, GstBuffer * src, GError ** error)
{
  GstVideoFrame frame;
  gboolean ok;

  if (!map_input_frame (&frame, info, src, error))
    return FALSE;
  ok = transfer_frame (ctx, dst, &frame, TRUE, NULL, error);
  gst_video_frame_unmap (&frame);
  return ok;
}

/* ---- staging through pinned host memory (discrete devices) ----
 *
 * Uploads from pageable memory run at a fraction of the bus speed, and a
 * blocking one holds the streaming thread for all of it. On devices with
 * their own memory the frame is copied by the CPU into page-locked host
 * memory (a CL_MEM_ALLOC_HOST_PTR buffer, kept mapped) and written from
 * there without blocking: the bus then runs at full speed while the
 * thread goes on, and the in-order queue orders the write before the
 * kernels that read the frame. A few such buffers take turns; each is
 * reused once its last write has completed. */

#define PINNED_SLOTS 3

typedef struct
{
  GstClContext *ctx;
  gsize size;
  cl_mem host[PINNED_SLOTS];
  guint8 *ptr[PINNED_SLOTS];
  cl_event written[PINNED_SLOTS];
  guint next;
} PinnedRing;

static G_DEFINE_QUARK (gst-cl-pinned-ring, pinned_ring);

/* Waits for *@event, if any, and releases it; returns the wait's status. */
static cl_int
finish_event (cl_event * event)
{
  cl_int ret = CL_SUCCESS;

  if (*event) {
    ret = clWaitForEvents (1, event);
    clReleaseEvent (*event);
    *event = NULL;
  }
  return ret;
}

static void
pinned_ring_free (gpointer data)
{
  PinnedRing *ring = data;
  guint i;

  for (i = 0; i < PINNED_SLOTS; i++) {
    finish_event (&ring->written[i]);
    if (ring->ptr[i])
      clEnqueueUnmapMemObject (ring->ctx->queue, ring->host[i], ring->ptr[i],
          0, NULL, NULL);
    if (ring->host[i])
      clReleaseMemObject (ring->host[i]);
  }
  clFinish (ring->ctx->queue);
  gst_object_unref (ring->ctx);
  g_free (ring);
}

/* The ring of @pool for frames of @size bytes, made on first use. */
static PinnedRing *
pinned_ring_get (GstClContext * ctx, GstBufferPool * pool, gsize size,
    GError ** error)
{
  PinnedRing *ring = g_object_get_qdata (G_OBJECT (pool),
      pinned_ring_quark ());
  guint i;
  cl_int ret;

  if (ring && ring->size == size)
    return ring;
  ring = g_new0 (PinnedRing, 1);
  ring->ctx = gst_object_ref (ctx);
  ring->size = size;
  for (i = 0; i < PINNED_SLOTS; i++) {
    ring->host[i] = clCreateBuffer (ctx->context, CL_MEM_READ_ONLY |
        CL_MEM_ALLOC_HOST_PTR, size, NULL, &ret);
    if (!gst_cl_check (ret, "clCreateBuffer", error))
      break;
    ring->ptr[i] = clEnqueueMapBuffer (ctx->queue, ring->host[i], CL_TRUE,
        CL_MAP_WRITE_INVALIDATE_REGION, 0, size, 0, NULL, NULL, &ret);
    if (!gst_cl_check (ret, "clEnqueueMapBuffer", error)) {
      ring->ptr[i] = NULL;
      break;
    }
  }
  if (i < PINNED_SLOTS) {
    g_prefix_error (error, "Cannot allocate %" G_GSIZE_FORMAT " bytes of "
        "page-locked host memory for uploads: ", size);
    pinned_ring_free (ring);
    return NULL;
  }
  /* replaces (and frees) a ring of another size */
  g_object_set_qdata_full (G_OBJECT (pool), pinned_ring_quark (), ring,
      pinned_ring_free);
  return ring;
}

/* The CPU copy into pinned memory is split into bands that a few threads
 * take in turn: one thread alone moves a 1080p RGB frame in about as long
 * as the device needs for all of its stages. */
#define COPY_BANDS 8
#define COPY_HELPERS 3

typedef struct
{
  guint n_planes;
  guint8 *dst[GST_VIDEO_MAX_PLANES];
  const guint8 *src[GST_VIDEO_MAX_PLANES];
  gsize dst_stride[GST_VIDEO_MAX_PLANES], src_stride[GST_VIDEO_MAX_PLANES];
  gsize row_bytes[GST_VIDEO_MAX_PLANES], rows[GST_VIDEO_MAX_PLANES];
  gint next;                    /* the next band (atomic) */
  guint pending;                /* helper tasks not finished */
  GMutex lock;
  GCond cond;
} FrameCopy;

static void
copy_bands (FrameCopy * c)
{
  gint band;
  guint p;

  while ((band = g_atomic_int_add (&c->next, 1)) < COPY_BANDS)
    for (p = 0; p < c->n_planes; p++) {
      gsize r0 = c->rows[p] * band / COPY_BANDS;
      gsize r1 = c->rows[p] * (band + 1) / COPY_BANDS, r;
      if (c->dst_stride[p] == c->src_stride[p] &&
          c->src_stride[p] == c->row_bytes[p])
        memcpy (c->dst[p] + r0 * c->row_bytes[p],
            c->src[p] + r0 * c->row_bytes[p], (r1 - r0) * c->row_bytes[p]);
      else
        for (r = r0; r < r1; r++)
          memcpy (c->dst[p] + r * c->dst_stride[p],
              c->src[p] + r * c->src_stride[p], c->row_bytes[p]);
    }
}

static void
copy_helper (gpointer data, gpointer user_data G_GNUC_UNUSED)
{
  FrameCopy *c = data;

  copy_bands (c);
  g_mutex_lock (&c->lock);
  if (--c->pending == 0)
    g_cond_signal (&c->cond);
  g_mutex_unlock (&c->lock);
}

/* Runs @c on this thread and the shared helpers; returns when every band
 * is copied and every helper is done with @c. */
static void
frame_copy_run (FrameCopy * c)
{
  static GThreadPool *helpers;
  static gsize init = 0;
  guint i, n = 0;

  if (g_once_init_enter (&init)) {
    helpers = g_thread_pool_new (copy_helper, NULL, COPY_HELPERS, FALSE,
        NULL);
    g_once_init_leave (&init, 1);
  }
  g_mutex_init (&c->lock);
  g_cond_init (&c->cond);
  c->next = 0;
  c->pending = 0;
  if (helpers && g_get_num_processors () > 1)
    n = MIN (COPY_HELPERS, g_get_num_processors () - 1);
  g_mutex_lock (&c->lock);
  for (i = 0; i < n; i++)
    if (g_thread_pool_push (helpers, c, NULL))
      c->pending++;
  g_mutex_unlock (&c->lock);
  copy_bands (c);
  g_mutex_lock (&c->lock);
  while (c->pending > 0)
    g_cond_wait (&c->cond, &c->lock);
  g_mutex_unlock (&c->lock);
  g_mutex_clear (&c->lock);
  g_cond_clear (&c->cond);
}

/* Uploads @src (an @info frame) into @dst through the pinned @ring. */
static gboolean
pinned_upload (GstClContext * ctx, PinnedRing * ring, GstClFrame * dst,
    const GstVideoInfo * info, GstBuffer * src, GError ** error)
{
  guint slot = ring->next, p;
  GstVideoFrame vf;
  cl_int ret;

  ring->next = (ring->next + 1) % PINNED_SLOTS;
  if (!gst_cl_check (finish_event (&ring->written[slot]), "clWaitForEvents",
          error))
    return FALSE;
  if (!map_input_frame (&vf, info, src, error))
    return FALSE;
  /* into the device frame's own layout */
  {
    FrameCopy c;
    c.n_planes = GST_VIDEO_FRAME_N_PLANES (&vf);
    for (p = 0; p < c.n_planes; p++) {
      c.src[p] = GST_VIDEO_FRAME_PLANE_DATA (&vf, p);
      c.src_stride[p] = GST_VIDEO_FRAME_PLANE_STRIDE (&vf, p);
      c.dst[p] = ring->ptr[slot] + dst->info.offset[p];
      c.dst_stride[p] = dst->info.stride[p];
      plane_extent (&dst->info, p, &c.row_bytes[p], &c.rows[p]);
    }
    frame_copy_run (&c);
  }
  gst_video_frame_unmap (&vf);
  ret = clEnqueueWriteBuffer (ctx->queue, dst->mem, CL_FALSE, 0,
      MIN (ring->size, dst->info.size), ring->ptr[slot], 0, NULL,
      &ring->written[slot]);
  if (!gst_cl_check (ret, "clEnqueueWriteBuffer", error))
    return FALSE;
  GST_CL_COUNT_UPLOAD (ctx);
  gst_cl_memory_mark_written (gst_buffer_peek_memory (dst->buffer, 0));
  return TRUE;
}

/* ---- frames in page-locked host memory (gstclhostmemory.c) ----
 *
 * Such a frame is written to the device from where it lies, without
 * waiting; the element must hold it until the write has completed. The
 * last one, with the event of its write, is kept on the staging pool and
 * goes when the next one comes, its write long done by then on the
 * in-order queue. One only: a producer whose pool has two buffers must
 * get one back while it fills the other. (No event callbacks: the
 * driver's thread that runs them was starved by many streaming threads
 * waiting on the device, 24 streams on an H200.) */

typedef struct
{
  GstBuffer *buffer;
  cl_event written;
} HeldFrame;

static G_DEFINE_QUARK (gst-cl-held-frame, held_frame);

/* Waits for the held frame's write, then lets the frame go. */
static cl_int
held_frame_release (HeldFrame * held)
{
  cl_int ret = finish_event (&held->written);

  gst_clear_buffer (&held->buffer);
  return ret;
}

static void
held_frame_free (gpointer data)
{
  held_frame_release (data);
  g_free (data);
}

/* Writes @src into @dst straight from the page-locked host memory it
 * lies in, without waiting; @src is held on @pool until the device has
 * read it. Returns 0 where @src is not one memory of such memory of @ctx
 * (nothing done), 1 when enqueued, -1 with @error set. */
static gint
host_memory_upload (GstClContext * ctx, GstBufferPool * pool,
    GstClFrame * dst, const GstVideoInfo * info, GstBuffer * src,
    GError ** error)
{
  HeldFrame *held;
  const guint8 *data;
  GstVideoFrame vf;
  cl_event done = NULL;
  gboolean ok;

  if (gst_buffer_n_memory (src) != 1 ||
      !gst_cl_host_memory_get_data (gst_buffer_peek_memory (src, 0), ctx,
          &data))
    return 0;
  held = g_object_get_qdata (G_OBJECT (pool), held_frame_quark ());
  if (!held) {
    held = g_new0 (HeldFrame, 1);
    g_object_set_qdata_full (G_OBJECT (pool), held_frame_quark (), held,
        held_frame_free);
  }
  if (!gst_cl_check (held_frame_release (held), "clWaitForEvents", error))
    return -1;
  if (!map_input_frame (&vf, info, src, error))
    return -1;
  GST_LOG ("frame written from page-locked host memory at %p", data);
  ok = transfer_frame (ctx, dst, &vf, TRUE, &done, error);
  gst_video_frame_unmap (&vf);
  if (!ok)
    return -1;
  held->buffer = gst_buffer_ref (src);
  held->written = done;
  return 1;
}

/**
 * gst_cl_stage_frame: (skip)
 * @ctx: a #GstClContext
 * @pool: (inout) (nullable): the staging pool, created on first use (cl
 *   buffers for @info)
 * @info: the format of @inbuf
 * @inbuf: a system-memory buffer
 * @staged: (out) (transfer full): the staging buffer, to unref once its
 *   readers are enqueued
 * @frame: (out caller-allocates): describes *@staged
 * @error: return location for a #GError
 *
 * Copies the system-memory frame @inbuf into a device buffer of *@pool.
 *
 * Returns: %TRUE on success, else %FALSE with @error set
 *
 * Since: 0.1
 */
gboolean
gst_cl_stage_frame (GstClContext * ctx, GstBufferPool ** pool,
    const GstVideoInfo * info, GstBuffer * inbuf, GstBuffer ** staged,
    GstClFrame * frame, GError ** error)
{
  *staged = NULL;
  if (!*pool) {
    GstCaps *caps = gst_video_info_to_caps (info);
    *pool = gst_cl_buffer_pool_new_for_caps (ctx, caps, 1);
    gst_caps_unref (caps);
    if (!*pool || !gst_buffer_pool_set_active (*pool, TRUE)) {
      g_set_error (error, GST_CL_ERROR, GST_CL_ERROR_CALL,
          "Cannot start a pool of OpenCL staging buffers");
      return FALSE;
    }
  }
  if (gst_buffer_pool_acquire_buffer (*pool, staged, NULL) != GST_FLOW_OK) {
    g_set_error (error, GST_CL_ERROR, GST_CL_ERROR_CALL,
        "Cannot allocate an OpenCL buffer of %" G_GSIZE_FORMAT " bytes for "
        "the input frame (out of device memory?)", info->size);
    return FALSE;
  }
  gst_cl_frame_init (frame, info, *staged);
  switch (host_memory_upload (ctx, *pool, frame, info, inbuf, error)) {
    case 1:
      return TRUE;
    case -1:
      gst_clear_buffer (staged);
      return FALSE;
    default:
      break;
  }
  if (ctx->cpu_layout) {
    /* CPU devices: host memory is device memory, a plain copy (the GPU
     * layout forced on a CPU device takes the pinned path, which tests it
     * there) */
    if (!gst_cl_frame_upload_buffer (ctx, frame, info, inbuf, error)) {
      gst_clear_buffer (staged);
      return FALSE;
    }
  } else {
    PinnedRing *ring = pinned_ring_get (ctx, *pool, frame->info.size, error);
    if (!ring || !pinned_upload (ctx, ring, frame, info, inbuf, error)) {
      gst_clear_buffer (staged);
      return FALSE;
    }
  }
  return TRUE;
}

/* ---- borrowing host frames (devices that share host memory) ---- */

typedef struct
{
  GstBuffer *buffer;
  GstMapInfo map;
} BorrowedFrame;

/* the device has done with the samples: the mapping may go */
static void CL_CALLBACK
borrowed_frame_release (cl_mem mem G_GNUC_UNUSED, void *user_data)
{
  BorrowedFrame *b = user_data;

  gst_buffer_unmap (b->buffer, &b->map);
  gst_buffer_unref (b->buffer);
  g_free (b);
}

/**
 * gst_cl_frame_borrow: (skip)
 * @ctx: a #GstClContext
 * @info: the format of @inbuf
 * @inbuf: a system-memory buffer of one memory
 * @frame: (out caller-allocates): the frame over @inbuf's samples
 *
 * On a CPU device, a frame over the samples of @inbuf with no copy:
 * @frame->mem is a new cl buffer on its mapping, to release once its
 * readers are enqueued; the mapping lasts until the device has done with
 * it. Kernels must read only the frame's planes.
 *
 * Returns: %FALSE where this cannot be (another device, several
 *   memories, planes outside the buffer): stage the frame instead
 *
 * Since: 0.1
 */
gboolean
gst_cl_frame_borrow (GstClContext * ctx, const GstVideoInfo * info,
    GstBuffer * inbuf, GstClFrame * frame)
{
  GstVideoMeta *meta = gst_buffer_get_video_meta (inbuf);
  BorrowedFrame *b;
  cl_mem mem;
  cl_int ret;
  guint p;

  /* every row a kernel may read lies inside the mapping */
  if (!ctx->host_unified || !ctx->cpu_layout ||
      gst_buffer_n_memory (inbuf) != 1 ||
      gst_is_cl_memory (gst_buffer_peek_memory (inbuf, 0)) ||
      !gst_cl_frame_check_buffer (info, inbuf, NULL))
    return FALSE;
  b = g_new0 (BorrowedFrame, 1);
  if (!gst_buffer_map (inbuf, &b->map, GST_MAP_READ) || !b->map.size) {
    g_free (b);
    return FALSE;
  }
  frame->buffer = NULL;
  frame->info = *info;
  for (p = 0; p < GST_VIDEO_INFO_N_PLANES (info); p++) {
    frame->info.offset[p] = meta ? meta->offset[p] : info->offset[p];
    frame->info.stride[p] = meta ? meta->stride[p] : info->stride[p];
  }
  mem = clCreateBuffer (ctx->context, CL_MEM_READ_ONLY | CL_MEM_USE_HOST_PTR,
      b->map.size, b->map.data, &ret);
  if (ret != CL_SUCCESS) {
    GST_DEBUG ("clCreateBuffer over host samples failed: %s (%d)",
        gst_cl_error_name (ret), ret);
    goto unusable;
  }
  b->buffer = gst_buffer_ref (inbuf);
  ret = clSetMemObjectDestructorCallback (mem, borrowed_frame_release, b);
  if (ret != CL_SUCCESS) {
    GST_DEBUG ("clSetMemObjectDestructorCallback failed: %s (%d)",
        gst_cl_error_name (ret), ret);
    clReleaseMemObject (mem);
    gst_buffer_unref (b->buffer);
    goto unusable;
  }
  frame->mem = mem;
  return TRUE;

unusable:
  gst_buffer_unmap (inbuf, &b->map);
  g_free (b);
  return FALSE;
}

/**
 * gst_cl_frame_download: (skip)
 * @ctx: a #GstClContext
 * @dst: a mapped system-memory frame
 * @src: a device frame of the same format
 * @error: return location for a #GError
 *
 * Copies @src into @dst, waiting for the device (counted as a download).
 *
 * Returns: %TRUE on success, else %FALSE with @error set
 *
 * Since: 0.1
 */
gboolean
gst_cl_frame_download (GstClContext * ctx, GstVideoFrame * dst,
    GstClFrame * src, GError ** error)
{
  return transfer_frame (ctx, src, dst, FALSE, NULL, error);
}

/**
 * gst_cl_frame_copy: (skip)
 * @ctx: a #GstClContext
 * @dst: the device frame to write
 * @src: a device frame of the same format and size (any layouts)
 * @error: return location for a #GError
 *
 * Enqueues a device-side copy of every plane of @src into @dst; not a
 * host transfer.
 *
 * Returns: %TRUE when enqueued, else %FALSE with @error set
 *
 * Since: 0.1
 */
gboolean
gst_cl_frame_copy (GstClContext * ctx, GstClFrame * dst,
    const GstClFrame * src, GError ** error)
{
  guint p;
  cl_int ret;

  g_return_val_if_fail (GST_VIDEO_INFO_FORMAT (&dst->info) ==
      GST_VIDEO_INFO_FORMAT (&src->info), FALSE);
  if (same_layout (&src->info, &dst->info)) {
    /* one command for all planes (and what lies between them) */
    gsize first, end;
    layout_span (&src->info, &first, &end);
    ret = clEnqueueCopyBuffer (ctx->queue, src->mem, dst->mem, first, first,
        end - first, 0, NULL, NULL);
    if (!gst_cl_check (ret, "clEnqueueCopyBuffer", error))
      return FALSE;
    gst_cl_memory_mark_written (gst_buffer_peek_memory (dst->buffer, 0));
    return TRUE;
  }
  for (p = 0; p < GST_VIDEO_INFO_N_PLANES (&src->info); p++) {
    gsize row_bytes, rows;
    size_t src_origin[3], dst_origin[3], region[3];

    plane_extent (&src->info, p, &row_bytes, &rows);
    src_origin[0] = src->info.offset[p];
    dst_origin[0] = dst->info.offset[p];
    src_origin[1] = src_origin[2] = dst_origin[1] = dst_origin[2] = 0;
    region[0] = row_bytes;
    region[1] = rows;
    region[2] = 1;
    ret = clEnqueueCopyBufferRect (ctx->queue, src->mem, dst->mem, src_origin,
        dst_origin, region, src->info.stride[p], 0, dst->info.stride[p], 0, 0,
        NULL, NULL);
    if (!gst_cl_check (ret, "clEnqueueCopyBufferRect", error))
      return FALSE;
  }
  gst_cl_memory_mark_written (gst_buffer_peek_memory (dst->buffer, 0));
  return TRUE;
}
