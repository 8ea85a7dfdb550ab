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
 */
typedef enum {
  GST_CL_HISTOGRAM_CHANNEL_Y,
  GST_CL_HISTOGRAM_CHANNEL_U,
  GST_CL_HISTOGRAM_CHANNEL_V,
  GST_CL_HISTOGRAM_CHANNEL_R,
  GST_CL_HISTOGRAM_CHANNEL_G,
  GST_CL_HISTOGRAM_CHANNEL_B,
} GstClHistogramChannel;

/* Bins of one channel: one per 8-bit value. */
#define GST_CL_HISTOGRAM_BINS 256
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
#define GST_CL_HISTOGRAM_META_API_TYPE (gst_cl_histogram_meta_api_get_type ())

GST_CL_API
const GstMetaInfo *gst_cl_histogram_meta_get_info (void);
#define GST_CL_HISTOGRAM_META_INFO (gst_cl_histogram_meta_get_info ())

/**
 * gst_buffer_add_cl_histogram_meta:
 * @buffer: a writable buffer
 * @context: the context of @bins
 * @bins: n_channels * 256 cl_uint on the device (retained)
 * @storage: (nullable): a buffer kept alive as long as any meta uses
 *   @bins, e.g. the pooled buffer that owns it, so that it returns to its
 *   pool only when no frame refers to it any more
 * @n_channels: 1 to 4
 * @channels: @n_channels entries
 * @pixels: @n_channels entries
 *
 * Returns: (transfer none): the new meta
 */
GST_CL_API
GstClHistogramMeta *gst_buffer_add_cl_histogram_meta (GstBuffer * buffer,
    GstClContext * context, cl_mem bins, GstBuffer * storage,
    guint n_channels, const GstClHistogramChannel * channels,
    const guint64 * pixels);

#define gst_buffer_get_cl_histogram_meta(b) \
    ((GstClHistogramMeta *) gst_buffer_get_meta ((b), \
        GST_CL_HISTOGRAM_META_API_TYPE))

/* Index of @channel in @meta, or -1. */
GST_CL_API
gint gst_cl_histogram_meta_find_channel (GstClHistogramMeta * meta,
    GstClHistogramChannel channel);

/**
 * gst_cl_histogram_meta_read:
 * @meta: the meta
 * @bins: (out caller-allocates): room for n_channels * 256 values
 * @error: where to report a failed OpenCL call
 *
 * Reads the histograms to the host, waiting for the device (counted as a
 * download in the context's transfer counts).
 */
GST_CL_API
gboolean gst_cl_histogram_meta_read (GstClHistogramMeta * meta,
    guint32 * bins, GError ** error);

/* "Y", "U", "V", "R", "G" or "B". */
GST_CL_API
const gchar *gst_cl_histogram_channel_get_name (GstClHistogramChannel channel);

G_END_DECLS
