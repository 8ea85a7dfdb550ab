/* gst-clvideo: per-frame histograms on the device, as a GstMeta
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#pragma once

#include <gst/cl/cl-prelude.h>
#include <gst/gst.h>
#include <gst/cl/gstclcontext.h>

G_BEGIN_DECLS

/**
 * GstClHistogramChannel:
 * @GST_CL_HISTOGRAM_CHANNEL_Y: luma
 * @GST_CL_HISTOGRAM_CHANNEL_U: Cb
 * @GST_CL_HISTOGRAM_CHANNEL_V: Cr
 * @GST_CL_HISTOGRAM_CHANNEL_R: red
 * @GST_CL_HISTOGRAM_CHANNEL_G: green
 * @GST_CL_HISTOGRAM_CHANNEL_B: blue
 *
 * The colour channel that a histogram counts.
 *
 * Since: 0.1
 */
typedef enum {
  GST_CL_HISTOGRAM_CHANNEL_Y,
  GST_CL_HISTOGRAM_CHANNEL_U,
  GST_CL_HISTOGRAM_CHANNEL_V,
  GST_CL_HISTOGRAM_CHANNEL_R,
  GST_CL_HISTOGRAM_CHANNEL_G,
  GST_CL_HISTOGRAM_CHANNEL_B,
} GstClHistogramChannel;

/**
 * GST_CL_HISTOGRAM_BINS:
 *
 * Bins of one channel's histogram: one per 8-bit value.
 *
 * Since: 0.1
 */
#define GST_CL_HISTOGRAM_BINS 256
/**
 * GST_CL_HISTOGRAM_MAX_CHANNELS:
 *
 * The most histograms one #GstClHistogramMeta holds.
 *
 * Since: 0.1
 */
#define GST_CL_HISTOGRAM_MAX_CHANNELS 4

/**
 * GstClHistogramMeta:
 * @meta: parent
 * @context: the context @bins belongs to (a reference is held)
 * @bins: device buffer of @n_channels * 256 cl_uint, channel-major: the
 *   count of value v in channel i is element i * 256 + v. Retained by the
 *   meta. Written by kernels on @context's in-order queue, so work enqueued
 *   there later sees the final counts without waiting.
 * @n_channels: number of histograms in @bins (1 to 4)
 * @channels: what each histogram counts
 * @pixels: samples counted in each histogram (the channel's plane width x
 *   height: subsampled chroma counts fewer than luma)
 *
 * Histograms of the buffer's pixels, as computed by `clhistogram`. The
 * meta's API carries the tags "video", "colorspace", "size" and
 * "orientation": elements that change the pixels (any GstBaseTransform
 * that does not copy tagged metas, which is the default) drop it, so a
 * meta found on a buffer describes that buffer's frame.
 *
 * The fields do not change once the meta is on a buffer; reading the bins
 * (gst_cl_histogram_meta_read(), gst_cl_histogram_meta_get_bins()) is MT
 * safe.
 *
 * Since: 0.1
 */
typedef struct {
  GstMeta meta;

  GstClContext *context;
  cl_mem bins;
  guint n_channels;
  GstClHistogramChannel channels[GST_CL_HISTOGRAM_MAX_CHANNELS];
  guint64 pixels[GST_CL_HISTOGRAM_MAX_CHANNELS];

  /*< private >*/
  GstBuffer *storage;
} GstClHistogramMeta;

GST_CL_API
GType gst_cl_histogram_meta_api_get_type (void);
/**
 * GST_CL_HISTOGRAM_META_API_TYPE:
 *
 * The #GType of the #GstClHistogramMeta API.
 *
 * Since: 0.1
 */
#define GST_CL_HISTOGRAM_META_API_TYPE (gst_cl_histogram_meta_api_get_type ())

GST_CL_API
const GstMetaInfo *gst_cl_histogram_meta_get_info (void);
/**
 * GST_CL_HISTOGRAM_META_INFO:
 *
 * The #GstMetaInfo of #GstClHistogramMeta.
 *
 * Since: 0.1
 */
#define GST_CL_HISTOGRAM_META_INFO (gst_cl_histogram_meta_get_info ())

GST_CL_API
GstClHistogramMeta *gst_buffer_add_cl_histogram_meta (GstBuffer * buffer,
    GstClContext * context, cl_mem bins, GstBuffer * storage,
    guint n_channels, const GstClHistogramChannel * channels,
    const guint64 * pixels);

GST_CL_API
GstClHistogramMeta *gst_buffer_get_cl_histogram_meta (GstBuffer * buffer);

GST_CL_API
gint gst_cl_histogram_meta_find_channel (GstClHistogramMeta * meta,
    GstClHistogramChannel channel);

GST_CL_API
GstClHistogramChannel gst_cl_histogram_meta_get_channel (GstClHistogramMeta *
    meta, guint index);

GST_CL_API
guint64 gst_cl_histogram_meta_get_pixels (GstClHistogramMeta * meta,
    GstClHistogramChannel channel);

GST_CL_API
gboolean gst_cl_histogram_meta_read (GstClHistogramMeta * meta,
    guint32 * bins, GError ** error);

GST_CL_API
guint32 *gst_cl_histogram_meta_get_bins (GstClHistogramMeta * meta,
    GstClHistogramChannel channel, guint * n_bins, GError ** error);

GST_CL_API
const gchar *gst_cl_histogram_channel_get_name (GstClHistogramChannel channel);

G_END_DECLS
