/* gst-clvideo: buffer pool of GstClMemory video frames
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
/**
 * SECTION:gstclbufferpool
 * @title: GstClBufferPool
 * @short_description: pools of video frames and plain buffers on the device
 *
 * Since: 0.1
 */
#include <gst/cl/gstclbufferpool.h>

GST_DEBUG_CATEGORY_STATIC (gst_cl_buffer_pool_debug);
#define GST_CAT_DEFAULT gst_cl_buffer_pool_debug

G_DEFINE_TYPE_WITH_CODE (GstClBufferPool, gst_cl_buffer_pool,
    GST_TYPE_BUFFER_POOL,
    GST_DEBUG_CATEGORY_INIT (gst_cl_buffer_pool_debug, "clbufferpool", 0,
        "OpenCL buffer pool"));

static const gchar **
gst_cl_buffer_pool_get_options (GstBufferPool * pool G_GNUC_UNUSED)
{
  static const gchar *options[] = { GST_BUFFER_POOL_OPTION_VIDEO_META, NULL };
  return options;
}

static gboolean
gst_cl_buffer_pool_set_config (GstBufferPool * pool, GstStructure * config)
{
  GstClBufferPool *self = GST_CL_BUFFER_POOL (pool);
  GstCaps *caps = NULL;
  guint size, min, max;

  if (!gst_buffer_pool_config_get_params (config, &caps, &size, &min, &max) ||
      !caps) {
    GST_WARNING_OBJECT (pool, "no caps in config");
    return FALSE;
  }
  if (!gst_video_info_from_caps (&self->info, caps)) {
    GST_WARNING_OBJECT (pool, "caps %" GST_PTR_FORMAT " are not video", caps);
    return FALSE;
  }
  size = MAX (size, self->info.size);
  gst_buffer_pool_config_set_params (config, caps, size, min, max);
  return GST_BUFFER_POOL_CLASS (gst_cl_buffer_pool_parent_class)->set_config
      (pool, config);
}

static GstFlowReturn
gst_cl_buffer_pool_alloc_buffer (GstBufferPool * pool, GstBuffer ** buffer,
    GstBufferPoolAcquireParams * params G_GNUC_UNUSED)
{
  GstClBufferPool *self = GST_CL_BUFFER_POOL (pool);
  GError *error = NULL;
  GstMemory *mem;
  GstBuffer *buf;

  mem = gst_cl_allocator_alloc_memory (self->allocator, self->info.size,
      &error);
  if (!mem) {
    GST_ERROR_OBJECT (pool, "%s", error->message);
    g_error_free (error);
    return GST_FLOW_ERROR;
  }
  buf = gst_buffer_new ();
  gst_buffer_append_memory (buf, mem);
  /* always described: the frame layout must survive any consumer */
  gst_buffer_add_video_meta_full (buf, GST_VIDEO_FRAME_FLAG_NONE,
      GST_VIDEO_INFO_FORMAT (&self->info), GST_VIDEO_INFO_WIDTH (&self->info),
      GST_VIDEO_INFO_HEIGHT (&self->info),
      GST_VIDEO_INFO_N_PLANES (&self->info), self->info.offset,
      self->info.stride);
  *buffer = buf;
  return GST_FLOW_OK;
}

static void
gst_cl_buffer_pool_reset_buffer (GstBufferPool * pool, GstBuffer * buffer)
{
  GstMemory *mem = gst_buffer_peek_memory (buffer, 0);
  /* whatever a pooled buffer held is stale once it comes back */
  if (gst_is_cl_memory (mem))
    ((GstClMemory *) mem)->content_undefined = TRUE;
  GST_BUFFER_POOL_CLASS (gst_cl_buffer_pool_parent_class)->reset_buffer
      (pool, buffer);
}

static void
gst_cl_buffer_pool_dispose (GObject * object)
{
  GstClBufferPool *self = GST_CL_BUFFER_POOL (object);
  gst_clear_object (&self->allocator);
  gst_clear_object (&self->context);
  G_OBJECT_CLASS (gst_cl_buffer_pool_parent_class)->dispose (object);
}

static void
gst_cl_buffer_pool_class_init (GstClBufferPoolClass * klass)
{
  GstBufferPoolClass *pclass = GST_BUFFER_POOL_CLASS (klass);
  pclass->get_options = gst_cl_buffer_pool_get_options;
  pclass->set_config = gst_cl_buffer_pool_set_config;
  pclass->alloc_buffer = gst_cl_buffer_pool_alloc_buffer;
  pclass->reset_buffer = gst_cl_buffer_pool_reset_buffer;
  G_OBJECT_CLASS (klass)->dispose = gst_cl_buffer_pool_dispose;
}

static void
gst_cl_buffer_pool_init (GstClBufferPool * self G_GNUC_UNUSED)
{
}

/**
 * gst_cl_buffer_pool_new:
 * @ctx: a #GstClContext
 *
 * A pool of video frames on @ctx's device, to configure with caps.
 *
 * Returns: (transfer full): the new pool
 *
 * Since: 0.1
 */
GstBufferPool *
gst_cl_buffer_pool_new (GstClContext * ctx)
{
  GstClBufferPool *self = g_object_new (GST_TYPE_CL_BUFFER_POOL, NULL);
  gst_object_ref_sink (self);
  self->context = gst_object_ref (ctx);
  self->allocator = gst_cl_allocator_new (ctx);
  return GST_BUFFER_POOL_CAST (self);
}

/**
 * gst_cl_buffer_pool_new_for_caps:
 * @ctx: a #GstClContext
 * @caps: video caps
 * @min_buffers: the fewest buffers the pool holds
 *
 * A pool configured for @caps (video meta on), not yet active.
 *
 * Returns: (transfer full) (nullable): the pool, or %NULL when @caps are
 *   not video caps
 *
 * Since: 0.1
 */
GstBufferPool *
gst_cl_buffer_pool_new_for_caps (GstClContext * ctx, GstCaps * caps,
    guint min_buffers)
{
  GstBufferPool *pool = gst_cl_buffer_pool_new (ctx);
  GstStructure *config = gst_buffer_pool_get_config (pool);
  GstVideoInfo info;

  if (!gst_video_info_from_caps (&info, caps)) {
    gst_structure_free (config);
    gst_object_unref (pool);
    return NULL;
  }
  gst_buffer_pool_config_set_params (config, caps, info.size, min_buffers, 0);
  gst_buffer_pool_config_add_option (config,
      GST_BUFFER_POOL_OPTION_VIDEO_META);
  if (!gst_buffer_pool_set_config (pool, config)) {
    gst_object_unref (pool);
    return NULL;
  }
  return pool;
}

/**
 * gst_cl_buffer_pool_new_sized:
 * @ctx: a #GstClContext
 * @size: bytes per buffer
 * @min_buffers: the fewest buffers the pool holds
 * @error: return location for a #GError
 *
 * An active pool of plain device buffers (one #GstClMemory each) of @size
 * bytes, for results of kernels kept with a frame's meta such as
 * histograms or motion vectors.
 *
 * Returns: (transfer full) (nullable): the pool, or %NULL with @error set
 *
 * Since: 0.1
 */
GstBufferPool *
gst_cl_buffer_pool_new_sized (GstClContext * ctx, gsize size,
    guint min_buffers, GError ** error)
{
  GstBufferPool *pool = gst_buffer_pool_new ();
  GstAllocator *alloc = gst_cl_allocator_new (ctx);
  GstStructure *config = gst_buffer_pool_get_config (pool);

  gst_buffer_pool_config_set_params (config, NULL, size, min_buffers, 0);
  gst_buffer_pool_config_set_allocator (config, alloc, NULL);
  gst_object_unref (alloc);
  if (!gst_buffer_pool_set_config (pool, config) ||
      !gst_buffer_pool_set_active (pool, TRUE)) {
    gst_object_unref (pool);
    g_set_error (error, GST_CL_ERROR, GST_CL_ERROR_CALL,
        "Cannot start a pool of OpenCL buffers of %" G_GSIZE_FORMAT " bytes",
        size);
    return NULL;
  }
  return pool;
}
