/* gst-clvideo: plain C reference of clcolorlowpass, for the tests
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#pragma once

#include <gst/video/video.h>

G_BEGIN_DECLS

typedef struct
{
  GstVideoColorMatrix matrix;   /* BT601, BT709 or BT2020 */
  gboolean full_range;
  gint luma_taps;               /* 1 (none), 3 or 5 */
  gint strength;                /* 0..256 */
  gint chroma_taps;             /* 2 (box) or 4 (triangle) */
} RefParams;

/* Converts one frame as the element's specification says.
 * @src: packed RGB, @src_stride bytes a row, @bpp bytes a pixel with red,
 *   green and blue at bytes @r_idx, @g_idx, @b_idx of each pixel.
 * @out_info: output format (I420, NV12, Y444 or GRAY8), size and plane
 *   layout; @out holds out_info->size bytes. */
void ref_colorlowpass (const guint8 * src, gint src_stride, gint bpp,
    gint r_idx, gint g_idx, gint b_idx, const GstVideoInfo * out_info,
    guint8 * out, const RefParams * params);

/* The integer coefficients (r, g, b, offset) of the specification, exposed
 * so that tests can print them when a comparison fails. */
void ref_coefficients (GstVideoColorMatrix matrix, gboolean full_range,
    gint ky[4], gint kcb[4], gint kcr[4]);

G_END_DECLS
