/* gst-clvideo: per-frame motion vectors on the device, as a GstMeta
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
/**
 * SECTION:gstclmotionmeta
 * @title: GstClMotionMeta
 * @short_description: per-frame motion vectors on the device
 *
 * `clmotionsearch` attaches a #GstClMotionMeta to each frame that has a
 * previous frame: one #GstClMotionVector per block, kept on the device.
 * C code may hand them to other kernels on the same queue, or read or map
 * them with gst_cl_motion_meta_read() and gst_cl_motion_meta_map();
 * gst_cl_motion_meta_read_vectors() reads them for GObject introspection.
 *
 * Since: 0.1
 */
#include <gst/cl/gstclmotionmeta.h>
#include <gst/cl/gstclmemory.h>

/**
 * gst_cl_motion_method_get_type:
 *
 * Returns: the enum #GType of #GstClMotionMethod
 *
 * Since: 0.1
 */
GType
gst_cl_motion_method_get_type (void)
{
  static GType type = 0;
  static const GEnumValue values[] = {
    {GST_CL_MOTION_METHOD_FULL, "Exhaustive search of every displacement "
          "in the window", "full"},
    {GST_CL_MOTION_METHOD_HIERARCHICAL, "Coarse to fine: the whole window "
          "at a quarter of the resolution, around zero, the previous "
          "vectors and the global motion, then refinements around the best "
          "of the own and the neighbours' vectors at half and full "
          "resolution, and the neighbours' vectors once more; follows "
          "motion past the window; luma only, many times faster",
      "hierarchical"},
    {GST_CL_MOTION_METHOD_AUTO, "Hierarchical on every device: only it "
          "follows motion past the window", "auto"},
    {0, NULL, NULL}
  };
  if (g_once_init_enter (&type)) {
    GType t = g_enum_register_static ("GstClMotionMethod", values);
    g_once_init_leave (&type, t);
  }
  return type;
}

/**
 * gst_cl_motion_meta_api_get_type:
 *
 * Returns: the #GType of the #GstClMotionMeta API
 *
 * Since: 0.1
 */
GType
gst_cl_motion_meta_api_get_type (void)
{
  static GType type = 0;
  /* the vectors describe where pixels moved: they stay true through
   * colour changes, not through scaling, cropping or rotation */
  static const gchar *tags[] = { "video", "size", "orientation", NULL };

  if (g_once_init_enter (&type)) {
    GType t = gst_meta_api_type_register ("GstClMotionMetaAPI", tags);
    g_once_init_leave (&type, t);
  }
  return type;
}

static gboolean
gst_cl_motion_meta_init (GstMeta * meta, gpointer params G_GNUC_UNUSED,
    GstBuffer * buffer G_GNUC_UNUSED)
{
  GstClMotionMeta *mm = (GstClMotionMeta *) meta;

  mm->context = NULL;
  mm->vectors = NULL;
  mm->storage = NULL;
  mm->blocks_x = mm->blocks_y = 0;
  mm->block_size = mm->search_range = 0;
  mm->subpel = FALSE;
  mm->lambda = 0;
  mm->chroma_weight = 0.0;
  mm->method = GST_CL_MOTION_METHOD_FULL;
  mm->reference_pts = GST_CLOCK_TIME_NONE;
  return TRUE;
}

static void
gst_cl_motion_meta_free (GstMeta * meta, GstBuffer * buffer G_GNUC_UNUSED)
{
  GstClMotionMeta *mm = (GstClMotionMeta *) meta;

  if (mm->vectors)
    clReleaseMemObject (mm->vectors);
  gst_clear_buffer (&mm->storage);
  gst_clear_object (&mm->context);
}

static GstClMotionSearchParams
meta_params (const GstClMotionMeta * mm)
{
  GstClMotionSearchParams p;

  p.block_size = mm->block_size;
  p.search_range = mm->search_range;
  p.subpel = mm->subpel;
  p.lambda = mm->lambda;
  p.chroma_weight = mm->chroma_weight;
  p.method = mm->method;
  return p;
}

static gboolean
gst_cl_motion_meta_transform (GstBuffer * dest, GstMeta * meta,
    GstBuffer * buffer G_GNUC_UNUSED, GQuark type, gpointer data)
{
  GstClMotionMeta *mm = (GstClMotionMeta *) meta;

  /* a copy of the whole buffer holds the same motion: share the device
   * vectors; a region does not (left out on purpose, not a failure) */
  if (GST_META_TRANSFORM_IS_COPY (type)) {
    GstMetaTransformCopy *copy = data;
    GstClMotionSearchParams p = meta_params (mm);
    if (copy->region)
      return TRUE;
    return gst_buffer_add_cl_motion_meta (dest, mm->context, mm->storage, &p,
        mm->blocks_x, mm->blocks_y, mm->reference_pts) != NULL;
  }
  return FALSE;
}

/**
 * gst_cl_motion_meta_get_info: (skip)
 *
 * Returns: (transfer none): the #GstMetaInfo of #GstClMotionMeta
 *
 * Since: 0.1
 */
const GstMetaInfo *
gst_cl_motion_meta_get_info (void)
{
  static const GstMetaInfo *info = NULL;

  if (g_once_init_enter ((GstMetaInfo **) & info)) {
    const GstMetaInfo *mi = gst_meta_register (GST_CL_MOTION_META_API_TYPE,
        "GstClMotionMeta", sizeof (GstClMotionMeta),
        gst_cl_motion_meta_init, gst_cl_motion_meta_free,
        gst_cl_motion_meta_transform);
    g_once_init_leave ((GstMetaInfo **) & info, (GstMetaInfo *) mi);
  }
  return info;
}

/**
 * gst_buffer_add_cl_motion_meta: (skip)
 * @buffer: a writable buffer
 * @context: the context of the vectors
 * @storage: a buffer of one #GstClMemory of @context holding the vectors
 *   from its start (kept alive with the meta, so that it returns to its
 *   pool only when no frame refers to it any more)
 * @params: the search that produced them
 * @blocks_x: blocks per row
 * @blocks_y: block rows
 * @reference_pts: timestamp of the reference frame
 *
 * Attaches motion vectors computed on the device to @buffer.
 *
 * Returns: (transfer none) (nullable): the new meta, or %NULL when the
 *   vectors' buffer cannot be retained
 *
 * Since: 0.1
 */
GstClMotionMeta *
gst_buffer_add_cl_motion_meta (GstBuffer * buffer, GstClContext * context,
    GstBuffer * storage, const GstClMotionSearchParams * params,
    guint blocks_x, guint blocks_y, GstClockTime reference_pts)
{
  GstClMotionMeta *mm;
  GstMemory *mem;
  cl_mem vectors;

  g_return_val_if_fail (GST_IS_BUFFER (buffer), NULL);
  g_return_val_if_fail (GST_IS_CL_CONTEXT (context), NULL);
  g_return_val_if_fail (GST_IS_BUFFER (storage), NULL);
  g_return_val_if_fail (gst_buffer_is_cl (storage, context), NULL);
  g_return_val_if_fail (params != NULL, NULL);
  g_return_val_if_fail (gst_buffer_get_size (storage) >=
      (gsize) blocks_x * blocks_y * sizeof (GstClMotionVector), NULL);

  mem = gst_buffer_peek_memory (storage, 0);
  /* the vectors start at the memory's first byte */
  g_return_val_if_fail (mem->offset == 0, NULL);
  vectors = ((GstClMemory *) mem)->buffer;
  if (clRetainMemObject (vectors) != CL_SUCCESS) {
    GST_WARNING ("clRetainMemObject failed: not a valid vector buffer");
    return NULL;
  }
  mm = (GstClMotionMeta *) gst_buffer_add_meta (buffer,
      GST_CL_MOTION_META_INFO, NULL);
  if (!mm) {
    clReleaseMemObject (vectors);
    return NULL;
  }
  mm->context = gst_object_ref (context);
  mm->vectors = vectors;
  mm->storage = gst_buffer_ref (storage);
  mm->blocks_x = blocks_x;
  mm->blocks_y = blocks_y;
  mm->block_size = params->block_size;
  mm->search_range = params->search_range;
  mm->subpel = params->subpel;
  mm->lambda = params->lambda;
  mm->chroma_weight = params->chroma_weight;
  mm->method = params->method;
  mm->reference_pts = reference_pts;
  return mm;
}

/**
 * gst_buffer_get_cl_motion_meta:
 * @buffer: a #GstBuffer
 *
 * Returns: (transfer none) (nullable): the #GstClMotionMeta of @buffer,
 *   or %NULL when it has none (as the first frame of a stream)
 *
 * Since: 0.1
 */
GstClMotionMeta *
gst_buffer_get_cl_motion_meta (GstBuffer * buffer)
{
  g_return_val_if_fail (GST_IS_BUFFER (buffer), NULL);
  return (GstClMotionMeta *) gst_buffer_get_meta (buffer,
      GST_CL_MOTION_META_API_TYPE);
}

/**
 * gst_cl_motion_meta_read: (skip)
 * @meta: a #GstClMotionMeta
 * @vectors: (out caller-allocates): room for blocks_x * blocks_y vectors
 * @error: return location for a #GError
 *
 * Reads the vectors to the host, waiting for the device (counted as a
 * download in the context's transfer counts). MT safe.
 *
 * Returns: %TRUE on success, else %FALSE with @error set
 *
 * Since: 0.1
 */
gboolean
gst_cl_motion_meta_read (GstClMotionMeta * meta, GstClMotionVector * vectors,
    GError ** error)
{
  cl_int ret;

  g_return_val_if_fail (meta != NULL && vectors != NULL, FALSE);
  ret = clEnqueueReadBuffer (meta->context->queue, meta->vectors, CL_TRUE, 0,
      (gsize) meta->blocks_x * meta->blocks_y * sizeof (GstClMotionVector),
      vectors, 0, NULL, NULL);
  if (!gst_cl_check (ret, "clEnqueueReadBuffer", error))
    return FALSE;
  GST_CL_COUNT_DOWNLOAD (meta->context);
  return TRUE;
}

/**
 * gst_cl_motion_meta_read_components:
 * @meta: a #GstClMotionMeta
 * @dx: (out) (array length=n_blocks) (transfer full) (optional): each
 *   block's horizontal displacement, in half-pel units
 * @dy: (out) (array length=n_blocks) (transfer full) (optional): each
 *   block's vertical displacement, in half-pel units
 * @sad: (out) (array length=n_blocks) (transfer full) (optional): each
 *   block's SAD
 * @n_blocks: (out): blocks_x * blocks_y
 * @error: return location for a #GError
 *
 * Reads the vectors to the host, waiting for the device (counted as a
 * download), as one array per component in raster order of the blocks:
 * the form that GObject introspection hands on best (C code reads whole
 * #GstClMotionVector with gst_cl_motion_meta_read()). MT safe.
 *
 * Returns: (skip): %TRUE on success, else %FALSE with @error set (and the
 *   arrays %NULL)
 *
 * Since: 0.1
 */
gboolean
gst_cl_motion_meta_read_components (GstClMotionMeta * meta, gint16 ** dx,
    gint16 ** dy, guint32 ** sad, guint * n_blocks, GError ** error)
{
  GstClMotionVector *vectors;
  guint n, i;

  g_return_val_if_fail (meta != NULL && n_blocks != NULL, FALSE);
  *n_blocks = 0;
  n = meta->blocks_x * meta->blocks_y;
  vectors = g_new (GstClMotionVector, MAX (n, 1));
  if (!gst_cl_motion_meta_read (meta, vectors, error)) {
    g_free (vectors);
    if (dx)
      *dx = NULL;
    if (dy)
      *dy = NULL;
    if (sad)
      *sad = NULL;
    return FALSE;
  }
  if (dx)
    *dx = g_new (gint16, MAX (n, 1));
  if (dy)
    *dy = g_new (gint16, MAX (n, 1));
  if (sad)
    *sad = g_new (guint32, MAX (n, 1));
  for (i = 0; i < n; i++) {
    if (dx)
      (*dx)[i] = vectors[i].dx;
    if (dy)
      (*dy)[i] = vectors[i].dy;
    if (sad)
      (*sad)[i] = vectors[i].sad;
  }
  g_free (vectors);
  *n_blocks = n;
  return TRUE;
}

/**
 * gst_cl_motion_meta_map: (skip)
 * @meta: a #GstClMotionMeta
 * @info: (out caller-allocates): the mapping; info->data holds
 *   blocks_x * blocks_y #GstClMotionVector
 *
 * Maps the vectors for reading on the host (waiting for the device; on a
 * CPU device no copy is made). Undo with gst_cl_motion_meta_unmap().
 *
 * Returns: %TRUE when mapped
 *
 * Since: 0.1
 */
gboolean
gst_cl_motion_meta_map (GstClMotionMeta * meta, GstMapInfo * info)
{
  g_return_val_if_fail (meta != NULL && info != NULL, FALSE);
  return gst_buffer_map (meta->storage, info, GST_MAP_READ);
}

/**
 * gst_cl_motion_meta_unmap: (skip)
 * @meta: a #GstClMotionMeta
 * @info: the mapping of gst_cl_motion_meta_map()
 *
 * Ends a mapping of gst_cl_motion_meta_map().
 *
 * Since: 0.1
 */
void
gst_cl_motion_meta_unmap (GstClMotionMeta * meta, GstMapInfo * info)
{
  g_return_if_fail (meta != NULL && info != NULL);
  gst_buffer_unmap (meta->storage, info);
}
