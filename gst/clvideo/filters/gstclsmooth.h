/* gst-clvideo: clsmooth
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#pragma once

#include <gst/cl/gstclfilter.h>

G_BEGIN_DECLS

#define GST_TYPE_CL_SMOOTH (gst_cl_smooth_get_type ())
G_DECLARE_FINAL_TYPE (GstClSmooth, gst_cl_smooth, GST, CL_SMOOTH, GstClFilter)

typedef enum {
  GST_CL_SMOOTH_KERNEL_BOX,
  GST_CL_SMOOTH_KERNEL_GAUSSIAN,
} GstClSmoothKernel;

typedef enum {
  GST_CL_SMOOTH_PLANES_LUMA,
  GST_CL_SMOOTH_PLANES_ALL,
} GstClSmoothPlanes;

G_END_DECLS
