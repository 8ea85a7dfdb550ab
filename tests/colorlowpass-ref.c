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

/* The input frame: packed RGB (@src, @stride, @bpp and the channels'
 * bytes), or 4:2:0 YCbCr (@yuv: planes @plane[0..2] with @pstride[0..2]
 * bytes a row and @step[0..2] bytes a sample) */
typedef struct
{
  const guint8 *src;
  gint stride, bpp, r_idx, g_idx, b_idx;
  gboolean yuv;
  const guint8 *plane[3];
  gint pstride[3], step[3];
  gint width, height;
  gint k[3][4];
} Source;

/* 1/16-step value of component @c (0 Y, 1 Cb, 2 Cr; YCbCr input: Y only)
 * at (@x, @y), the coordinates clamped to the frame */
static inline gint
sample16 (const Source * s, gint c, gint x, gint y)
{
  const guint8 *p;

  x = clampi (x, 0, s->width - 1);
  y = clampi (y, 0, s->height - 1);
  if (s->yuv) {
    g_assert (c == 0);
    return 16 * s->plane[0][(gsize) y * s->pstride[0] + x];
  }
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

/* Y444 chroma sample (@x, @y) of component @c, from RGB */
static guint8
chroma444_at (const Source * s, const RefParams * prm G_GNUC_UNUSED, gint c,
    gint x, gint y)
{
  return to_u8 ((sample16 (s, c, x, y) + 8) >> 4);
}

/* Chroma sample (@cx, @cy) of component @c of a YCbCr input, clamped to
 * its ceil(W/2) x ceil(H/2) plane */
static gint
input_chroma (const Source * s, gint c, gint cx, gint cy)
{
  cx = clampi (cx, 0, (s->width + 1) / 2 - 1);
  cy = clampi (cy, 0, (s->height + 1) / 2 - 1);
  return s->plane[c][(gsize) cy * s->pstride[c] + (gsize) cx * s->step[c]];
}

static guint8
copied420_at (const Source * s, const RefParams * prm G_GNUC_UNUSED, gint c,
    gint cx, gint cy)
{
  return (guint8) input_chroma (s, c, cx, cy);
}

/* Weight in quarters of chroma column (or row) @c for luma @x. Chroma
 * sample c lies at luma coordinate 2c + 1/2 (between luma 2c and 2c+1, as
 * MPEG-1 sites it). Bilinear: the weight falls linearly from 1 at distance
 * 0 to 0 at one chroma step (two luma steps), 4 - 2|x - 2c - 1/2|.
 * Replication: 1 for the chroma sample whose two luma samples hold x. */
static gint
upsample_weight (gint chroma_taps, gint x, gint c)
{
  if (chroma_taps == 2)
    return x / 2 == c ? 4 : 0;
  return MAX (0, 4 - ABS (2 * x - 4 * c - 1));
}

/* Y444 chroma sample (@x, @y) of component @c, from 4:2:0 input: the
 * weights of the chroma samples around it, both ways, sum to 16 */
static guint8
upsampled444_at (const Source * s, const RefParams * prm, gint c, gint x,
    gint y)
{
  gint cx, cy, sum = 0, total = 0;

  for (cy = y / 2 - 2; cy <= y / 2 + 2; cy++)
    for (cx = x / 2 - 2; cx <= x / 2 + 2; cx++) {
      gint w = upsample_weight (prm->chroma_taps, x, cx) *
          upsample_weight (prm->chroma_taps, y, cy);
      sum += w * input_chroma (s, c, cx, cy);
      total += w;
    }
  g_assert (total == 16);
  return to_u8 ((sum + 8) >> 4);
}

typedef guint8 (*ChromaAt) (const Source * s, const RefParams * prm, gint c,
    gint x, gint y);

/* Every plane of the output: luma filtered, Y444 chroma from @at444 and
 * 4:2:0 chroma from @at420 */
static void
write_frame (const Source * s, const RefParams * params,
    const GstVideoInfo * out_info, guint8 * out, ChromaAt at444,
    ChromaAt at420)
{
  GstVideoFormat format = GST_VIDEO_INFO_FORMAT (out_info);
  gint width = s->width, height = s->height;
  gint cw = (width + 1) / 2, ch = (height + 1) / 2;
  gint x, y;

  for (y = 0; y < height; y++) {
    guint8 *row = out + out_info->offset[0] + (gsize) y * out_info->stride[0];
    for (x = 0; x < width; x++)
      row[x] = luma_at (s, params, x, y);
  }

  switch (format) {
    case GST_VIDEO_FORMAT_GRAY8:
      break;
    case GST_VIDEO_FORMAT_Y444:
      for (y = 0; y < height; y++) {
        guint8 *u = out + out_info->offset[1] + (gsize) y * out_info->stride[1];
        guint8 *v = out + out_info->offset[2] + (gsize) y * out_info->stride[2];
        for (x = 0; x < width; x++) {
          u[x] = at444 (s, params, 1, x, y);
          v[x] = at444 (s, params, 2, x, y);
        }
      }
      break;
    case GST_VIDEO_FORMAT_I420:
      for (y = 0; y < ch; y++) {
        guint8 *u = out + out_info->offset[1] + (gsize) y * out_info->stride[1];
        guint8 *v = out + out_info->offset[2] + (gsize) y * out_info->stride[2];
        for (x = 0; x < cw; x++) {
          u[x] = at420 (s, params, 1, x, y);
          v[x] = at420 (s, params, 2, x, y);
        }
      }
      break;
    case GST_VIDEO_FORMAT_NV12:
      for (y = 0; y < ch; y++) {
        guint8 *uv = out + out_info->offset[1] +
            (gsize) y * out_info->stride[1];
        for (x = 0; x < cw; x++) {
          uv[2 * x] = at420 (s, params, 1, x, y);
          uv[2 * x + 1] = at420 (s, params, 2, x, y);
        }
      }
      break;
    default:
      g_error ("reference: unsupported output format %s",
          gst_video_format_to_string (format));
  }
}

void
ref_colorlowpass (const guint8 * src, gint src_stride, gint bpp,
    gint r_idx, gint g_idx, gint b_idx, const GstVideoInfo * out_info,
    guint8 * out, const RefParams * params)
{
  Source s = { 0, };

  s.src = src;
  s.stride = src_stride;
  s.bpp = bpp;
  s.r_idx = r_idx;
  s.g_idx = g_idx;
  s.b_idx = b_idx;
  s.width = GST_VIDEO_INFO_WIDTH (out_info);
  s.height = GST_VIDEO_INFO_HEIGHT (out_info);
  ref_coefficients (params->matrix, params->full_range, s.k[0], s.k[1],
      s.k[2]);
  write_frame (&s, params, out_info, out, chroma444_at, chroma420_at);
}

void
ref_colorlowpass_yuv (GstVideoFormat in_format, const guint8 * const in[3],
    const gint in_stride[3], const GstVideoInfo * out_info, guint8 * out,
    const RefParams * params)
{
  Source s = { 0, };
  gint c;

  s.yuv = TRUE;
  s.width = GST_VIDEO_INFO_WIDTH (out_info);
  s.height = GST_VIDEO_INFO_HEIGHT (out_info);
  for (c = 0; c < 3; c++) {
    s.plane[c] = in[c];
    s.pstride[c] = in_stride[c];
    s.step[c] = c > 0 && in_format == GST_VIDEO_FORMAT_NV12 ? 2 : 1;
  }
  if (in_format == GST_VIDEO_FORMAT_NV12) {
    /* Cr is the second byte of each UV pair */
    s.plane[2] = in[1] + 1;
    s.pstride[2] = in_stride[1];
  } else {
    g_assert (in_format == GST_VIDEO_FORMAT_I420);
  }
  write_frame (&s, params, out_info, out, upsampled444_at, copied420_at);
}
