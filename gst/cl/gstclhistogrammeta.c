/* gst-clvideo: per-frame histograms on the device, as a GstMeta
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
/**
 * SECTION:gstclhistogrammeta
 * @title: GstClHistogramMeta
 * @short_description: per-frame histograms on the device
 *
 * `clhistogram` attaches a #GstClHistogramMeta to each frame: 256-bin
 * histograms of its channels, kept on the device. C code may hand the
 * bins to other kernels on the same queue; gst_cl_histogram_meta_read()
 * and, for GObject introspection, gst_cl_histogram_meta_get_bins() read
 * them to the host.
 *
 * Since: 0.1
 */
#include <gst/cl/gstclhistogrammeta.h>

#include <string.h>

/**
 * gst_cl_histogram_meta_api_get_type:
 *
 * Returns: the #GType of the #GstClHistogramMeta API
 *
 * Since: 0.1
 */
GType
gst_cl_histogram_meta_api_get_type (void)
{
  static GType type = 0;
  /* tags of what the counts depend on: an element that changes any of
   * these and does not know this meta drops it */
  static const gchar *tags[] = { "video", "colorspace", "size",
    "orientation", NULL
  };

  if (g_once_init_enter (&type)) {
    GType t = gst_meta_api_type_register ("GstClHistogramMetaAPI", tags);
    g_once_init_leave (&type, t);
  }
  return type;
}

static gboolean
gst_cl_histogram_meta_init (GstMeta * meta, gpointer params G_GNUC_UNUSED,
    GstBuffer * buffer G_GNUC_UNUSED)
{
  GstClHistogramMeta *hm = (GstClHistogramMeta *) meta;

  hm->context = NULL;
  hm->bins = NULL;
  hm->storage = NULL;
  hm->n_channels = 0;
  memset (hm->channels, 0, sizeof (hm->channels));
  memset (hm->pixels, 0, sizeof (hm->pixels));
  return TRUE;
}

static void
gst_cl_histogram_meta_free (GstMeta * meta, GstBuffer * buffer G_GNUC_UNUSED)
{
  GstClHistogramMeta *hm = (GstClHistogramMeta *) meta;

  if (hm->bins)
    clReleaseMemObject (hm->bins);
  gst_clear_buffer (&hm->storage);
  gst_clear_object (&hm->context);
}

static gboolean
gst_cl_histogram_meta_transform (GstBuffer * dest, GstMeta * meta,
    GstBuffer * buffer G_GNUC_UNUSED, GQuark type, gpointer data)
{
  GstClHistogramMeta *hm = (GstClHistogramMeta *) meta;

  /* a copy of the whole buffer holds the same pixels: share the device
   * histograms. A region does not (left out on purpose, not a failure),
   * nor does any other transform (a scaled frame, ...). */
  if (GST_META_TRANSFORM_IS_COPY (type)) {
    GstMetaTransformCopy *copy = data;
    if (copy->region)
      return TRUE;
    return gst_buffer_add_cl_histogram_meta (dest, hm->context, hm->bins,
        hm->storage, hm->n_channels, hm->channels, hm->pixels) != NULL;
  }
  return FALSE;
}

/**
 * gst_cl_histogram_meta_get_info: (skip)
 *
 * Returns: (transfer none): the #GstMetaInfo of #GstClHistogramMeta
 *
 * Since: 0.1
 */
const GstMetaInfo *
gst_cl_histogram_meta_get_info (void)
{
  static const GstMetaInfo *info = NULL;

  if (g_once_init_enter ((GstMetaInfo **) & info)) {
    const GstMetaInfo *mi = gst_meta_register (GST_CL_HISTOGRAM_META_API_TYPE,
        "GstClHistogramMeta", sizeof (GstClHistogramMeta),
        gst_cl_histogram_meta_init, gst_cl_histogram_meta_free,
        gst_cl_histogram_meta_transform);
    g_once_init_leave ((GstMetaInfo **) & info, (GstMetaInfo *) mi);
  }
  return info;
}

/**
 * gst_buffer_add_cl_histogram_meta: (skip)
 * @buffer: a writable buffer
 * @context: the context of @bins
 * @bins: @n_channels * 256 cl_uint on the device (retained)
 * @storage: (nullable): a buffer kept alive as long as any meta uses
 *   @bins, e.g. the pooled buffer that owns it, so that it returns to its
 *   pool only when no frame refers to it any more
 * @n_channels: 1 to #GST_CL_HISTOGRAM_MAX_CHANNELS
 * @channels: (array length=n_channels): what each histogram counts
 * @pixels: (array length=n_channels): samples counted in each
 *
 * Attaches histograms computed on the device to @buffer.
 *
 * Returns: (transfer none) (nullable): the new meta, or %NULL when @bins
 *   cannot be retained
 *
 * Since: 0.1
 */
GstClHistogramMeta *
gst_buffer_add_cl_histogram_meta (GstBuffer * buffer, GstClContext * context,
    cl_mem bins, GstBuffer * storage, guint n_channels,
    const GstClHistogramChannel * channels, const guint64 * pixels)
{
  GstClHistogramMeta *hm;
  guint i;

  g_return_val_if_fail (GST_IS_BUFFER (buffer), NULL);
  g_return_val_if_fail (GST_IS_CL_CONTEXT (context), NULL);
  g_return_val_if_fail (bins != NULL, NULL);
  g_return_val_if_fail (n_channels >= 1 &&
      n_channels <= GST_CL_HISTOGRAM_MAX_CHANNELS, NULL);
  g_return_val_if_fail (channels != NULL && pixels != NULL, NULL);

  if (clRetainMemObject (bins) != CL_SUCCESS) {
    GST_WARNING ("clRetainMemObject failed: not a valid histogram buffer");
    return NULL;
  }
  hm = (GstClHistogramMeta *) gst_buffer_add_meta (buffer,
      GST_CL_HISTOGRAM_META_INFO, NULL);
  if (!hm) {
    clReleaseMemObject (bins);
    return NULL;
  }
  hm->context = gst_object_ref (context);
  hm->bins = bins;
  if (storage)
    hm->storage = gst_buffer_ref (storage);
  hm->n_channels = n_channels;
  for (i = 0; i < n_channels; i++) {
    hm->channels[i] = channels[i];
    hm->pixels[i] = pixels[i];
  }
  return hm;
}

/**
 * gst_buffer_get_cl_histogram_meta:
 * @buffer: a #GstBuffer
 *
 * Returns: (transfer none) (nullable): the #GstClHistogramMeta of
 *   @buffer, or %NULL when it has none
 *
 * Since: 0.1
 */
GstClHistogramMeta *
gst_buffer_get_cl_histogram_meta (GstBuffer * buffer)
{
  g_return_val_if_fail (GST_IS_BUFFER (buffer), NULL);
  return (GstClHistogramMeta *) gst_buffer_get_meta (buffer,
      GST_CL_HISTOGRAM_META_API_TYPE);
}

/**
 * gst_cl_histogram_meta_find_channel:
 * @meta: a #GstClHistogramMeta
 * @channel: a channel
 *
 * Returns: the index of @channel's histogram in @meta, or -1 when @meta
 *   has none of it
 *
 * Since: 0.1
 */
gint
gst_cl_histogram_meta_find_channel (GstClHistogramMeta * meta,
    GstClHistogramChannel channel)
{
  guint i;

  g_return_val_if_fail (meta != NULL, -1);
  for (i = 0; i < meta->n_channels; i++)
    if (meta->channels[i] == channel)
      return i;
  return -1;
}

/**
 * gst_cl_histogram_meta_get_channel:
 * @meta: a #GstClHistogramMeta
 * @index: below @meta's n_channels
 *
 * Returns: the channel that histogram @index counts
 *
 * Since: 0.1
 */
GstClHistogramChannel
gst_cl_histogram_meta_get_channel (GstClHistogramMeta * meta, guint index)
{
  g_return_val_if_fail (meta != NULL, GST_CL_HISTOGRAM_CHANNEL_Y);
  g_return_val_if_fail (index < meta->n_channels, GST_CL_HISTOGRAM_CHANNEL_Y);
  return meta->channels[index];
}

/**
 * gst_cl_histogram_meta_get_pixels:
 * @meta: a #GstClHistogramMeta
 * @channel: a channel
 *
 * Returns: the samples counted in @channel's histogram (its plane's width
 *   x height: subsampled chroma counts fewer than luma), 0 when @meta has
 *   none of @channel
 *
 * Since: 0.1
 */
guint64
gst_cl_histogram_meta_get_pixels (GstClHistogramMeta * meta,
    GstClHistogramChannel channel)
{
  gint i = gst_cl_histogram_meta_find_channel (meta, channel);

  return i < 0 ? 0 : meta->pixels[i];
}

/**
 * gst_cl_histogram_meta_read: (skip)
 * @meta: a #GstClHistogramMeta
 * @bins: (out caller-allocates): room for n_channels * 256 values, in the
 *   order of the device buffer (channel-major)
 * @error: return location for a #GError
 *
 * Reads all histograms to the host, waiting for the device (counted as a
 * download in the context's transfer counts). MT safe.
 *
 * Returns: %TRUE on success, else %FALSE with @error set
 *
 * Since: 0.1
 */
gboolean
gst_cl_histogram_meta_read (GstClHistogramMeta * meta, guint32 * bins,
    GError ** error)
{
  cl_int ret;

  g_return_val_if_fail (meta != NULL && bins != NULL, FALSE);
  ret = clEnqueueReadBuffer (meta->context->queue, meta->bins, CL_TRUE, 0,
      (gsize) meta->n_channels * GST_CL_HISTOGRAM_BINS * sizeof (cl_uint),
      bins, 0, NULL, NULL);
  if (!gst_cl_check (ret, "clEnqueueReadBuffer", error))
    return FALSE;
  GST_CL_COUNT_DOWNLOAD (meta->context);
  return TRUE;
}

/**
 * gst_cl_histogram_meta_get_bins:
 * @meta: a #GstClHistogramMeta
 * @channel: the channel to read
 * @n_bins: (out): the number of bins, #GST_CL_HISTOGRAM_BINS
 * @error: return location for a #GError
 *
 * Reads the histogram of @channel to the host, waiting for the device
 * (counted as a download): bin v counts the samples of value v. MT safe.
 *
 * Returns: (array length=n_bins) (transfer full) (nullable): the bins, or
 *   %NULL with @error set (#GST_CL_ERROR_NOT_FOUND when @meta has no
 *   histogram of @channel, #GST_CL_ERROR_CALL when the read failed)
 *
 * Since: 0.1
 */
guint32 *
gst_cl_histogram_meta_get_bins (GstClHistogramMeta * meta,
    GstClHistogramChannel channel, guint * n_bins, GError ** error)
{
  gint index;
  guint32 *bins;
  cl_int ret;

  g_return_val_if_fail (meta != NULL && n_bins != NULL, NULL);
  *n_bins = 0;
  index = gst_cl_histogram_meta_find_channel (meta, channel);
  if (index < 0) {
    g_set_error (error, GST_CL_ERROR, GST_CL_ERROR_NOT_FOUND,
        "The histogram meta holds no %s histogram",
        gst_cl_histogram_channel_get_name (channel));
    return NULL;
  }
  bins = g_new (guint32, GST_CL_HISTOGRAM_BINS);
  ret = clEnqueueReadBuffer (meta->context->queue, meta->bins, CL_TRUE,
      (gsize) index * GST_CL_HISTOGRAM_BINS * sizeof (cl_uint),
      GST_CL_HISTOGRAM_BINS * sizeof (cl_uint), bins, 0, NULL, NULL);
  if (!gst_cl_check (ret, "clEnqueueReadBuffer", error)) {
    g_free (bins);
    return NULL;
  }
  GST_CL_COUNT_DOWNLOAD (meta->context);
  *n_bins = GST_CL_HISTOGRAM_BINS;
  return bins;
}

/**
 * gst_cl_histogram_channel_get_name:
 * @channel: a channel
 *
 * Returns: (transfer none): "Y", "U", "V", "R", "G" or "B"
 *
 * Since: 0.1
 */
const gchar *
gst_cl_histogram_channel_get_name (GstClHistogramChannel channel)
{
  static const gchar *names[] = { "Y", "U", "V", "R", "G", "B" };

  g_return_val_if_fail ((guint) channel < G_N_ELEMENTS (names), NULL);
  return names[channel];
}
