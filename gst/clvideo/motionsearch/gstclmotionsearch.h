/* gst-clvideo: clmotionsearch
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#pragma once

#include <gst/cl/gstclfilter.h>
#include "gstclmotionsearchcompute.h"

G_BEGIN_DECLS

#define GST_TYPE_CL_MOTION_SEARCH_ELEMENT (gst_cl_motion_search_element_get_type ())
G_DECLARE_FINAL_TYPE (GstClMotionSearchElement, gst_cl_motion_search_element,
    GST, CL_MOTION_SEARCH_ELEMENT, GstClFilter)

typedef enum {
  GST_CL_MOTION_BLOCK_SIZE_8 = 8,
  GST_CL_MOTION_BLOCK_SIZE_16 = 16,
} GstClMotionBlockSize;

/* how the half-pel positions are compared (subpel-cost) */
typedef enum {
  GST_CL_MOTION_SUBPEL_COST_SAD,
  GST_CL_MOTION_SUBPEL_COST_SATD,
} GstClMotionSubpelCost;

/* GstClMotionMethod: gstclmotionsearchcompute.h, shared with clmpegenc */

G_END_DECLS
