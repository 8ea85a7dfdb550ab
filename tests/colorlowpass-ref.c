/* gst-clvideo: plain C reference of clcolorlowpass, for the tests
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * Written from the element's specification alone, one output sample at a
 * time with clamped coordinates, so that it shares no structure (tiles,
 * caches, vector loads) with the OpenCL kernel it checks.
 */
#include "colorlowpass-ref.h"

#include <math.h>
#include <string.h>

void
ref_coefficients (GstVideoColorMatrix matrix, gboolean full_range,
    gint ky[4], gint kcb[4], gint kcr[4])
{
  gdouble kr, kb, ys, cs, yoff;

  if (!gst_video_color_matrix_get_Kr_Kb (matrix, &kr, &kb))
    g_error ("matrix %d has no Kr/Kb", matrix);

  ys = full_range ? 1.0 : 219.0 / 255.0;
  cs = full_range ? 1.0 : 224.0 / 255.0;
  yoff = full_range ? 0.0 : 16.0;

  ky[0] = lround (kr * ys * 65536.0);
  ky[2] = lround (kb * ys * 65536.0);
  ky[1] = lround (ys * 65536.0) - ky[0] - ky[2];
  ky[3] = lround (yoff * 65536.0) + 2048;

  kcb[0] = lround (-kr * cs * 65536.0 / (2.0 * (1.0 - kb)));
  kcb[2] = lround ((1.0 - kb) * cs * 65536.0 / (2.0 * (1.0 - kb)));
  kcb[1] = -kcb[0] - kcb[2];
  kcb[3] = 128 * 65536 + 2048;

  kcr[0] = lround ((1.0 - kr) * cs * 65536.0 / (2.0 * (1.0 - kr)));
  kcr[2] = lround (-kb * cs * 65536.0 / (2.0 * (1.0 - kr)));
  kcr[1] = -kcr[0] - kcr[2];
  kcr[3] = 128 * 65536 + 2048;
}

/* Floor division by 2^s: the specification's arithmetic shift, spelt out
 * because >> on a negative int is implementation-defined in C. */
static inline gint
shift_floor (gint64 v, gint s)
{
  gint64 d = (gint64) 1 << s;
  return (gint) (v >= 0 ? v / d : -((-v + d - 1) / d));
}

static inline gint
clampi (gint v, gint lo, gint hi)
{
  return v < lo ? lo : (v > hi ? hi : v);
}

/* The specification stops at ">> 4"; full-range chroma of saturated blue or
 * red comes out as 256 there, which an 8-bit plane can only hold as 255. */
static inline guint8
to_u8 (gint v)
{
  return (guint8) clampi (v, 0, 255);
}

static inline gint
v16 (const gint k[4], gint r, gint g, gint b)
{
  return clampi (shift_floor ((gint64) k[0] * r + (gint64) k[1] * g +
          (gint64) k[2] * b + k[3], 12), 0, 4095);
}

/* 1/16-step value of component @c (0 Y, 1 Cb, 2 Cr) at (@x, @y), the
 * coordinates clamped to the frame */
typedef struct
{
  const guint8 *src;
  gint stride, bpp, r_idx, g_idx, b_idx;
  gint width, height;
  gint k[3][4];
} Source;

static inline gint
sample16 (const Source * s, gint c, gint x, gint y)
{
  const guint8 *p;

  x = clampi (x, 0, s->width - 1);
  y = clampi (y, 0, s->height - 1);
  p = s->src + (gsize) y * s->stride + (gsize) x * s->bpp;
  return v16 (s->k[c], p[s->r_idx], p[s->g_idx], p[s->b_idx]);
}

static guint8
luma_at (const Source * s, const RefParams * prm, gint x, gint y)
{
  static const gint k3[3] = { 1, 2, 1 };
  static const gint k5[5] = { 1, 4, 6, 4, 1 };
  const gint *k;
  gint taps, half, log2s, n, i, j;
  gint64 sum = 0, acc;
  gint centre = sample16 (s, 0, x, y);

  if (prm->luma_taps == 1)
    return to_u8 ((centre + 8) >> 4);

  if (prm->luma_taps == 3) {
    k = k3;
    log2s = 2;
  } else {
    g_assert (prm->luma_taps == 5);
    k = k5;
    log2s = 4;
  }
  taps = prm->luma_taps;
  half = taps / 2;

  for (j = 0; j < taps; j++)
    for (i = 0; i < taps; i++)
      sum += (gint64) k[j] * k[i] * sample16 (s, 0, x + i - half, y + j - half);

  acc = prm->strength * sum +
      (gint64) (256 - prm->strength) * (1 << (2 * log2s)) * centre;
  n = 4 + 8 + 2 * log2s;
  return to_u8 ((gint) ((acc + ((gint64) 1 << (n - 1))) >> n));
}

/* 4:2:0 chroma sample (@cx, @cy) of component @c */
static guint8
chroma420_at (const Source * s, const RefParams * prm, gint c, gint cx,
    gint cy)
{
  static const gint box[2] = { 1, 1 };
  static const gint tri[4] = { 1, 3, 3, 1 };
  const gint *w;
  gint taps, first, shift, i, j;
  gint64 sum = 0;

  if (prm->chroma_taps == 2) {
    w = box;
    taps = 2;
    first = 0;                  /* luma 2cx, 2cx+1 */
    shift = 4 + 2;
  } else {
    g_assert (prm->chroma_taps == 4);
    w = tri;
    taps = 4;
    first = -1;                 /* luma 2cx-1 .. 2cx+2 */
    shift = 4 + 6;
  }

  for (j = 0; j < taps; j++)
    for (i = 0; i < taps; i++)
      sum += w[j] * w[i] * sample16 (s, c, 2 * cx + first + i,
          2 * cy + first + j);

  return to_u8 ((gint) ((sum + (1 << (shift - 1))) >> shift));
}

void
ref_colorlowpass (const guint8 * src, gint src_stride, gint bpp,
    gint r_idx, gint g_idx, gint b_idx, const GstVideoInfo * out_info,
    guint8 * out, const RefParams * params)
{
  GstVideoFormat format = GST_VIDEO_INFO_FORMAT (out_info);
  gint width = GST_VIDEO_INFO_WIDTH (out_info);
  gint height = GST_VIDEO_INFO_HEIGHT (out_info);
  gint cw = (width + 1) / 2, ch = (height + 1) / 2;
  Source s;
  gint x, y;

  s.src = src;
  s.stride = src_stride;
  s.bpp = bpp;
  s.r_idx = r_idx;
  s.g_idx = g_idx;
  s.b_idx = b_idx;
  s.width = width;
  s.height = height;
  ref_coefficients (params->matrix, params->full_range, s.k[0], s.k[1],
      s.k[2]);

  for (y = 0; y < height; y++) {
    guint8 *row = out + out_info->offset[0] + (gsize) y * out_info->stride[0];
    for (x = 0; x < width; x++)
      row[x] = luma_at (&s, params, x, y);
  }

  switch (format) {
    case GST_VIDEO_FORMAT_GRAY8:
      break;
    case GST_VIDEO_FORMAT_Y444:
      for (y = 0; y < height; y++) {
        guint8 *u = out + out_info->offset[1] + (gsize) y * out_info->stride[1];
        guint8 *v = out + out_info->offset[2] + (gsize) y * out_info->stride[2];
        for (x = 0; x < width; x++) {
          u[x] = to_u8 ((sample16 (&s, 1, x, y) + 8) >> 4);
          v[x] = to_u8 ((sample16 (&s, 2, x, y) + 8) >> 4);
        }
      }
      break;
    case GST_VIDEO_FORMAT_I420:
      for (y = 0; y < ch; y++) {
        guint8 *u = out + out_info->offset[1] + (gsize) y * out_info->stride[1];
        guint8 *v = out + out_info->offset[2] + (gsize) y * out_info->stride[2];
        for (x = 0; x < cw; x++) {
          u[x] = chroma420_at (&s, params, 1, x, y);
          v[x] = chroma420_at (&s, params, 2, x, y);
        }
      }
      break;
    case GST_VIDEO_FORMAT_NV12:
      for (y = 0; y < ch; y++) {
        guint8 *uv = out + out_info->offset[1] +
            (gsize) y * out_info->stride[1];
        for (x = 0; x < cw; x++) {
          uv[2 * x] = chroma420_at (&s, params, 1, x, y);
          uv[2 * x + 1] = chroma420_at (&s, params, 2, x, y);
        }
      }
      break;
    default:
      g_error ("reference: unsupported output format %s",
          gst_video_format_to_string (format));
  }
}
