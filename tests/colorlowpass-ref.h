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

/* Filters one 4:2:0 frame as the specification says, without any colour
 * conversion: luma as ref_colorlowpass() with Y16 = 16 * Y, 4:2:0 chroma
 * copied, Y444 chroma upsampled (params->chroma_taps 4: bilinear between
 * chroma samples sited between the luma samples; 2: replicated), GRAY8
 * luma alone.
 * @in_format: I420 or NV12; @in: the first sample of its Y, U and V (NV12:
 *   UV) planes, each @in_stride bytes a row (in[2] and in_stride[2] unused
 *   for NV12).
 * @out_info: as for ref_colorlowpass(). */
void ref_colorlowpass_yuv (GstVideoFormat in_format, const guint8 * const
    in[3], const gint in_stride[3], const GstVideoInfo * out_info,
    guint8 * out, const RefParams * params);

/* The integer coefficients (r, g, b, offset) of the specification, exposed
 * so that tests can print them when a comparison fails. */
void ref_coefficients (GstVideoColorMatrix matrix, gboolean full_range,
    gint ky[4], gint kcb[4], gint kcr[4]);

G_END_DECLS
