/* gst-clvideo: clcontrast
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#pragma once

#include <gst/cl/gstclfilter.h>

G_BEGIN_DECLS

#define GST_TYPE_CL_CONTRAST (gst_cl_contrast_get_type ())
G_DECLARE_FINAL_TYPE (GstClContrast, gst_cl_contrast, GST, CL_CONTRAST,
    GstClFilter)

typedef enum {
  GST_CL_CONTRAST_MODE_STRETCH,
  GST_CL_CONTRAST_MODE_EQUALIZE,
} GstClContrastMode;

G_END_DECLS
