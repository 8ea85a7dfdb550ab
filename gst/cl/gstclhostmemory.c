/* gst-clvideo: page-locked host memory that devices read by DMA
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
/**
 * SECTION:gstclhostmemory
 * @title: GstClHostMemory
 * @short_description: page-locked host memory for uploads
 *
 * Ordinary host memory to its users (mapping it costs nothing, and no
 * caps feature goes with it), allocated by the OpenCL driver as a
 * CL_MEM_ALLOC_HOST_PTR buffer and kept mapped for its whole life: on
 * devices with memory of their own that is page-locked memory, which the
 * device reads by DMA at the bus's full speed. The cl elements propose a
 * pool of it upstream on such devices (gst_cl_upload_pool_new()), so that
 * a producer writes its frames where the upload reads them: the element
 * then writes them to the device without a copy by the CPU and without
 * waiting (the upload from pageable memory copies each frame into
 * page-locked memory first).
 *
 * Since: 0.1
 */
#include <gst/cl/gstclhostmemory.h>
#include <gst/cl/gstclbufferpool.h>
#include <gst/cl/gstclerror.h>

GST_DEBUG_CATEGORY_STATIC (gst_cl_host_memory_debug);
#define GST_CAT_DEFAULT gst_cl_host_memory_debug

/* A share of the root's mapping: every memory of one allocation has the
 * root's buffer and mapped address; the root owns them. */
typedef struct
{
  GstMemory mem;
  GstClContext *context;
  cl_mem buffer;
  guint8 *data;
} GstClHostMemory;

struct _GstClHostAllocator
{
  GstAllocator parent;
  GstClContext *context;
};

G_DEFINE_TYPE_WITH_CODE (GstClHostAllocator, gst_cl_host_allocator,
    GST_TYPE_ALLOCATOR,
    GST_DEBUG_CATEGORY_INIT (gst_cl_host_memory_debug, "clhostmemory", 0,
        "OpenCL page-locked host memory"));

static GstClHostMemory *
host_memory_new (GstAllocator * alloc, GstMemory * parent,
    GstClContext * ctx, cl_mem buffer, guint8 * data, gsize maxsize,
    gsize align, gsize offset, gsize size)
{
  GstClHostMemory *mem = g_new0 (GstClHostMemory, 1);

  gst_memory_init (GST_MEMORY_CAST (mem),
      parent ? GST_MEMORY_FLAGS (parent) & GST_MEMORY_FLAG_READONLY : 0,
      alloc, parent, maxsize, align, offset, size);
  mem->context = gst_object_ref (ctx);
  mem->buffer = buffer;
  mem->data = data;
  return mem;
}

static GstMemory *
gst_cl_host_allocator_alloc (GstAllocator * allocator, gsize size,
    GstAllocationParams * params)
{
  GstClHostAllocator *self = GST_CL_HOST_ALLOCATOR (allocator);
  GstClContext *ctx = self->context;
  gsize align = params->align, maxsize, offset;
  cl_mem buffer;
  guint8 *data;
  cl_int ret;

  /* room to move the start to the alignment asked for, as system memory
   * does */
  maxsize = params->prefix + size + params->padding + align;
  buffer = clCreateBuffer (ctx->context, CL_MEM_READ_WRITE |
      CL_MEM_ALLOC_HOST_PTR, maxsize, NULL, &ret);
  if (ret != CL_SUCCESS) {
    GST_ERROR_OBJECT (self, "clCreateBuffer of %" G_GSIZE_FORMAT " bytes of "
        "page-locked host memory failed: %s (%d)", maxsize,
        gst_cl_error_name (ret), ret);
    return NULL;
  }
  data = clEnqueueMapBuffer (ctx->queue, buffer, CL_TRUE, CL_MAP_READ |
      CL_MAP_WRITE, 0, maxsize, 0, NULL, NULL, &ret);
  if (ret != CL_SUCCESS) {
    GST_ERROR_OBJECT (self, "clEnqueueMapBuffer of %" G_GSIZE_FORMAT
        " bytes failed: %s (%d)", maxsize, gst_cl_error_name (ret), ret);
    clReleaseMemObject (buffer);
    return NULL;
  }
  offset = params->prefix;
  if (align && ((guintptr) data + offset) & align)
    offset += (align + 1) - (((guintptr) data + offset) & align);
  return GST_MEMORY_CAST (host_memory_new (allocator, NULL, ctx, buffer, data,
          maxsize, align, offset, size));
}

static void
gst_cl_host_allocator_free (GstAllocator * allocator G_GNUC_UNUSED,
    GstMemory * memory)
{
  GstClHostMemory *mem = (GstClHostMemory *) memory;

  if (!memory->parent) {
    /* (an upload that reads it holds its buffer until it completes) */
    cl_int ret = clEnqueueUnmapMemObject (mem->context->queue, mem->buffer,
        mem->data, 0, NULL, NULL);
    if (ret != CL_SUCCESS)
      GST_ERROR ("clEnqueueUnmapMemObject failed: %s (%d)",
          gst_cl_error_name (ret), ret);
    clReleaseMemObject (mem->buffer);
  }
  gst_object_unref (mem->context);
  g_free (mem);
}

static gpointer
host_mem_map (GstMemory * memory, gsize maxsize G_GNUC_UNUSED,
    GstMapFlags flags G_GNUC_UNUSED)
{
  return ((GstClHostMemory *) memory)->data;
}

static void
host_mem_unmap (GstMemory * memory G_GNUC_UNUSED)
{
}

static GstMemory *
host_mem_share (GstMemory * memory, gssize offset, gssize size)
{
  GstClHostMemory *mem = (GstClHostMemory *) memory;
  GstMemory *parent = memory->parent ? memory->parent : memory;

  if (size == -1)
    size = memory->size - offset;
  return GST_MEMORY_CAST (host_memory_new (memory->allocator, parent,
          mem->context, mem->buffer, mem->data, memory->maxsize,
          memory->align, memory->offset + offset, size));
}

static gboolean
host_mem_is_span (GstMemory * mem1, GstMemory * mem2, gsize * offset)
{
  GstClHostMemory *a = (GstClHostMemory *) mem1, *b = (GstClHostMemory *) mem2;

  if (a->data != b->data || mem1->offset + mem1->size != mem2->offset)
    return FALSE;
  if (offset)
    *offset = mem1->offset;
  return TRUE;
}

static void
gst_cl_host_allocator_dispose (GObject * object)
{
  gst_clear_object (&GST_CL_HOST_ALLOCATOR (object)->context);
  G_OBJECT_CLASS (gst_cl_host_allocator_parent_class)->dispose (object);
}

static void
gst_cl_host_allocator_class_init (GstClHostAllocatorClass * klass)
{
  GstAllocatorClass *alloc_class = GST_ALLOCATOR_CLASS (klass);

  G_OBJECT_CLASS (klass)->dispose = gst_cl_host_allocator_dispose;
  alloc_class->alloc = gst_cl_host_allocator_alloc;
  alloc_class->free = gst_cl_host_allocator_free;
}

static void
gst_cl_host_allocator_init (GstClHostAllocator * self)
{
  GstAllocator *alloc = GST_ALLOCATOR (self);

  alloc->mem_type = GST_CL_HOST_MEMORY_ALLOCATOR_NAME;
  alloc->mem_map = host_mem_map;
  alloc->mem_unmap = host_mem_unmap;
  alloc->mem_share = host_mem_share;
  alloc->mem_is_span = host_mem_is_span;
}

/**
 * gst_cl_host_allocator_new:
 * @ctx: a #GstClContext
 *
 * An allocator of page-locked host memory of @ctx's device. Allocation
 * parameters (alignment, prefix, padding) are honoured as by system
 * memory; a failed OpenCL call is logged and the allocation returns
 * %NULL.
 *
 * Returns: (transfer full): a new allocator
 *
 * Since: 0.1
 */
GstAllocator *
gst_cl_host_allocator_new (GstClContext * ctx)
{
  GstClHostAllocator *self;

  g_return_val_if_fail (GST_IS_CL_CONTEXT (ctx), NULL);
  self = g_object_new (GST_TYPE_CL_HOST_ALLOCATOR, NULL);
  gst_object_ref_sink (self);
  self->context = gst_object_ref (ctx);
  return GST_ALLOCATOR_CAST (self);
}

/**
 * gst_is_cl_host_memory:
 * @mem: a #GstMemory
 *
 * Returns: whether @mem is page-locked host memory of a #GstClHostAllocator
 *
 * Since: 0.1
 */
gboolean
gst_is_cl_host_memory (GstMemory * mem)
{
  return mem && mem->allocator &&
      GST_IS_CL_HOST_ALLOCATOR (mem->allocator);
}

/**
 * gst_cl_host_memory_get_data:
 * @mem: a #GstMemory
 * @ctx: a #GstClContext
 * @data: (out) (transfer none): where the bytes of @mem start
 *
 * The address of @mem's bytes, where @mem is page-locked host memory
 * that @ctx's device reads by DMA (allocated in @ctx's OpenCL context):
 * an upload may read them from there without mapping @mem.
 *
 * Returns: whether @mem is such memory
 *
 * Since: 0.1
 */
gboolean
gst_cl_host_memory_get_data (GstMemory * mem, GstClContext * ctx,
    const guint8 ** data)
{
  GstClHostMemory *hm = (GstClHostMemory *) mem;

  g_return_val_if_fail (GST_IS_CL_CONTEXT (ctx), FALSE);
  if (!gst_is_cl_host_memory (mem) || hm->context->context != ctx->context)
    return FALSE;
  *data = hm->data + mem->offset;
  return TRUE;
}

/**
 * gst_cl_host_buffer_pool_new:
 * @ctx: a #GstClContext
 * @caps: raw video caps
 * @min_buffers: buffers made at activation
 *
 * A #GstVideoBufferPool of frames of @caps in page-locked host memory of
 * @ctx's device, with #GstVideoMeta.
 *
 * Returns: (transfer full) (nullable): the configured pool, or %NULL when
 *   @caps are not video caps
 *
 * Since: 0.1
 */
GstBufferPool *
gst_cl_host_buffer_pool_new (GstClContext * ctx, GstCaps * caps,
    guint min_buffers)
{
  GstBufferPool *pool;
  GstAllocator *alloc;
  GstStructure *config;
  GstVideoInfo info;

  g_return_val_if_fail (GST_IS_CL_CONTEXT (ctx), NULL);
  if (!caps || !gst_video_info_from_caps (&info, caps))
    return NULL;
  pool = gst_video_buffer_pool_new ();
  alloc = gst_cl_host_allocator_new (ctx);
  config = gst_buffer_pool_get_config (pool);
  gst_buffer_pool_config_set_params (config, caps, info.size, min_buffers, 0);
  gst_buffer_pool_config_set_allocator (config, alloc, NULL);
  gst_buffer_pool_config_add_option (config, GST_BUFFER_POOL_OPTION_VIDEO_META);
  gst_object_unref (alloc);
  if (!gst_buffer_pool_set_config (pool, config)) {
    gst_object_unref (pool);
    return NULL;
  }
  return pool;
}

/**
 * gst_cl_upload_pool_new:
 * @ctx: a #GstClContext
 * @caps: raw video caps (system memory)
 * @min_buffers: buffers made at activation
 *
 * The pool that an element which uploads system-memory frames of @caps
 * proposes upstream: on devices with memory of their own, frames in
 * page-locked host memory (gst_cl_host_buffer_pool_new()), which the
 * upload reads by DMA without a copy by the CPU; on devices that share
 * host memory, frames in device buffers (gst_cl_buffer_pool_new_for_caps()),
 * which need no upload at all.
 *
 * Returns: (transfer full) (nullable): the configured pool, or %NULL when
 *   @caps are not video caps
 *
 * Since: 0.1
 */
GstBufferPool *
gst_cl_upload_pool_new (GstClContext * ctx, GstCaps * caps, guint min_buffers)
{
  g_return_val_if_fail (GST_IS_CL_CONTEXT (ctx), NULL);
  return ctx->host_unified ?
      gst_cl_buffer_pool_new_for_caps (ctx, caps, min_buffers) :
      gst_cl_host_buffer_pool_new (ctx, caps, min_buffers);
}
