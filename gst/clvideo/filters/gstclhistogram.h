/* gst-clvideo: clhistogram
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#pragma once

#include <gst/cl/gstclfilter.h>

G_BEGIN_DECLS

#define GST_TYPE_CL_HISTOGRAM (gst_cl_histogram_get_type ())
G_DECLARE_FINAL_TYPE (GstClHistogram, gst_cl_histogram, GST, CL_HISTOGRAM,
    GstClFilter)

typedef enum {
  GST_CL_HISTOGRAM_CHANNELS_LUMA,
  GST_CL_HISTOGRAM_CHANNELS_ALL,
} GstClHistogramChannels;

G_END_DECLS
