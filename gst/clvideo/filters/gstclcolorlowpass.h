/* gst-clvideo: clcolorlowpass
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#pragma once

#include <gst/cl/gstclfilter.h>

G_BEGIN_DECLS

#define GST_TYPE_CL_COLOR_LOWPASS (gst_cl_color_lowpass_get_type ())
G_DECLARE_FINAL_TYPE (GstClColorLowpass, gst_cl_color_lowpass, GST,
    CL_COLOR_LOWPASS, GstClFilter)

typedef enum {
  GST_CL_LUMA_FILTER_NONE = 1,
  GST_CL_LUMA_FILTER_BINOMIAL_3X3 = 3,
  GST_CL_LUMA_FILTER_GAUSSIAN_5X5 = 5,
} GstClLumaFilter;

typedef enum {
  GST_CL_CHROMA_FILTER_BOX = 2,
  GST_CL_CHROMA_FILTER_TRIANGLE = 4,
} GstClChromaFilter;

typedef enum {
  GST_CL_MATRIX_AUTO,
  GST_CL_MATRIX_BT601,
  GST_CL_MATRIX_BT709,
  GST_CL_MATRIX_BT2020,
} GstClMatrix;

typedef enum {
  GST_CL_RANGE_AUTO,
  GST_CL_RANGE_FULL,
  GST_CL_RANGE_LIMITED,
} GstClRange;

G_END_DECLS
