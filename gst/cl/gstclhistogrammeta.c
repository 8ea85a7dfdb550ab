/* gst-clvideo: per-frame histograms on the device, as a GstMeta
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include <gst/cl/gstclhistogrammeta.h>

#include <string.h>

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

const gchar *
gst_cl_histogram_channel_get_name (GstClHistogramChannel channel)
{
  static const gchar *names[] = { "Y", "U", "V", "R", "G", "B" };

  g_return_val_if_fail ((guint) channel < G_N_ELEMENTS (names), NULL);
  return names[channel];
}
