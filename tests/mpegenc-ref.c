/* gst-clvideo: plain C reference of clmpegenc's device stages
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * Written from ISO/IEC 11172-2 and 13818-2 (prediction, dequantisation
 * and mismatch control: 11172-2 2.4.4, 13818-2 7.4) and the encoder's
 * documented choices (quantiser
 * rounding, intra/inter decision), one macroblock at a time in plain
 * loops, so that the device kernels can be checked against it bit for bit.
 */
#include "mpegenc-ref.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* cosine table: round (16384 * c(k) / 2 * cos ((2n + 1) k pi / 16)) */
static gint dct_c[8][8];

guint mpegref_second_vectors_taken = 0;
guint mpegref_above_vectors_taken = 0;
guint mpegref_second_vectors_passed = 0;
guint mpegref_dual_prime_taken = 0;
guint mpegref_dual_prime_declined = 0;

static void
init_cosines (void)
{
  static gsize done = 0;
  if (g_once_init_enter (&done)) {
    gint k, n;
    for (k = 0; k < 8; k++)
      for (n = 0; n < 8; n++) {
        gdouble ck = k == 0 ? 1.0 / sqrt (2.0) : 1.0;
        dct_c[k][n] = (gint) floor (16384.0 * ck / 2.0 *
            cos ((2 * n + 1) * k * G_PI / 16.0) + 0.5);
      }
    g_once_init_leave (&done, 1);
  }
}

/* |cos ((2j + 1) k pi / 16) / 2| in 2^16 steps, and its sign */
static gint
fdct_cosine (gint k, gint j, gint * sign)
{
  gdouble c = cos ((2 * j + 1) * k * G_PI / 16.0) / 2.0;
  *sign = c < 0 ? -1 : 1;
  return (gint) floor (65536.0 * fabs (c) + 0.5);
}

/* the top half of a 16 x 16-bit product (arithmetic shift) */
static gint
mul_top (gint a, gint c)
{
  g_assert (a >= -32768 && a <= 32767);
  return (a * c) >> 16;
}

/* Coefficient k of the 1-D DCT of @v (8 samples @stride apart), as the
 * encoder computes it in 16-bit lanes: even and odd halves, each product
 * the top half of a 16-bit one; the DC and 4th coefficients from e0 and
 * e1 apart when @split_dc. Every intermediate must fit in 16 bits. */
static gint
fdct_1d (const gint * v, gint stride, gint k, gboolean split_dc)
{
  gint s[4], d[4], e[4], j, sign, c, out = 0;

  for (j = 0; j < 4; j++) {
    s[j] = v[j * stride] + v[(7 - j) * stride];
    d[j] = v[j * stride] - v[(7 - j) * stride];
    g_assert (ABS (s[j]) <= 32767 && ABS (d[j]) <= 32767);
  }
  e[0] = s[0] + s[3];
  e[1] = s[1] + s[2];
  e[2] = s[0] - s[3];
  e[3] = s[1] - s[2];
  if (k % 2) {
    for (j = 0; j < 4; j++) {
      c = fdct_cosine (k, j, &sign);
      out += sign * mul_top (d[j], c);
    }
  } else if (k == 2 || k == 6) {
    for (j = 0; j < 2; j++) {
      c = fdct_cosine (k, j, &sign);
      out += sign * mul_top (e[2 + j], c);
    }
  } else {
    gint m = k == 0 ? 1 : -1;
    c = fdct_cosine (4, 0, &sign);
    out = split_dc ? mul_top (e[0], c) + m * mul_top (e[1], c) :
        mul_top (e[0] + m * e[1], c);
  }
  g_assert (ABS (out) <= 32767);
  return out;
}

/* rows of the residual times 16, halved (rounded), then columns, divided
 * by 8 (rounded) */
void
mpegref_fdct (gint block[64])
{
  gint tmp[64], in[64], i, k;

  for (i = 0; i < 64; i++)
    in[i] = 16 * block[i];
  for (i = 0; i < 8; i++)
    for (k = 0; k < 8; k++)
      tmp[i * 8 + k] = (fdct_1d (in + i * 8, 1, k, FALSE) + 1) >> 1;
  for (k = 0; k < 8; k++)
    for (i = 0; i < 8; i++)
      block[k * 8 + i] = (fdct_1d (tmp + i, 8, k, TRUE) + 4) >> 3;
}

void
mpegref_idct (gint block[64])
{
  gint tmp[64], i, j, k;

  init_cosines ();
  /* rows: 5 fractional bits kept, clamped to 16 bits (a bound no
   * dequantised residual of 8-bit samples comes near; it keeps the column
   * sums inside 32 bits) */
  for (i = 0; i < 8; i++)
    for (j = 0; j < 8; j++) {
      gint s = 0;
      for (k = 0; k < 8; k++)
        s += dct_c[k][j] * block[i * 8 + k];
      tmp[i * 8 + j] = CLAMP ((s + (1 << 8)) >> 9, -32768, 32767);
    }
  for (i = 0; i < 8; i++)
    for (j = 0; j < 8; j++) {
      gint s = 0;
      for (k = 0; k < 8; k++)
        s += dct_c[k][i] * tmp[k * 8 + j];
      block[i * 8 + j] = (s + (1 << 18)) >> 19;
    }
}

/* ---- pictures ---- */

void
mpegref_picture_init_format (MpegRefPicture * pic, guint width,
    guint height, gboolean chroma_422)
{
  pic->mb_width = (width + 15) / 16;
  pic->mb_height = (height + 15) / 16;
  pic->chroma_422 = chroma_422;
  pic->data = g_malloc0 (mpegref_picture_size (pic));
}

void
mpegref_picture_init (MpegRefPicture * pic, guint width, guint height)
{
  mpegref_picture_init_format (pic, width, height, FALSE);
}

gsize
mpegref_picture_size (const MpegRefPicture * pic)
{
  return (gsize) pic->mb_width * pic->mb_height * (pic->chroma_422 ? 512 :
      384);
}

void
mpegref_picture_clear (MpegRefPicture * pic)
{
  g_clear_pointer (&pic->data, g_free);
}

guint8 *
mpegref_plane (const MpegRefPicture * pic, guint comp, guint * stride)
{
  gsize w = pic->mb_width * 16, h = pic->mb_height * 16;
  gsize ch = pic->chroma_422 ? h : h / 2;
  *stride = comp ? w / 2 : w;
  if (comp == 0)
    return pic->data;
  return pic->data + w * h + (comp - 1) * (w / 2) * ch;
}

/* the blocks of a macroblock of @pic */
static guint
mb_blocks (const MpegRefPicture * pic)
{
  return pic->chroma_422 ? GST_CL_MPEG_BLOCKS_422 : GST_CL_MPEG_BLOCKS_420;
}

/* the chroma lines of a macroblock of @pic */
static guint
mb_chroma_rows (const MpegRefPicture * pic)
{
  return pic->chroma_422 ? 16 : 8;
}

/* the plane of block @b: Y0..Y3, then Cb and Cr alternating */
static guint
block_comp (guint b)
{
  return b < 4 ? 0 : 1 + (b & 1);
}

/* The first sample (*@x0, *@y0) of frame block @b of macroblock (@mbx,
 * @mby) of @pic in its plane; 4:2:2's blocks 6 and 7 lie below 4 and 5 */
static void
block_origin (const MpegRefPicture * pic, guint b, guint mbx, guint mby,
    gint * x0, gint * y0)
{
  *x0 = b < 4 ? mbx * 16 + (b & 1) * 8 : mbx * 8;
  *y0 = b < 4 ? mby * 16 + (b >> 1) * 8 :
      mby * mb_chroma_rows (pic) + ((b - 4) >> 1) * 8;
}

/* the chroma vector (*@cdx, *@cdy) of the luma vector (@dx, @dy) of @pic:
 * halved (truncated towards zero) where chroma is subsampled, across
 * always, down in 4:2:0 only (13818-2 7.6.3.7) */
static void
chroma_vector (const MpegRefPicture * pic, gint dx, gint dy, gint * cdx,
    gint * cdy)
{
  *cdx = dx / 2;
  *cdy = pic->chroma_422 ? dy : dy / 2;
}

void
mpegref_load (MpegRefPicture * pic, const guint8 * y, guint y_stride,
    const guint8 * u, guint u_stride, const guint8 * v, guint v_stride,
    guint c_ps, guint width, guint height)
{
  guint W = pic->mb_width * 16, H = pic->mb_height * 16;
  guint CH = pic->chroma_422 ? H : H / 2;
  guint cw = (width + 1) / 2, ch = pic->chroma_422 ? height :
      (height + 1) / 2;
  guint i, j, s;
  guint8 *py, *pu, *pv;

  py = mpegref_plane (pic, 0, &s);
  for (i = 0; i < H; i++)
    for (j = 0; j < W; j++)
      py[i * W + j] = y[MIN (i, height - 1) * y_stride + MIN (j, width - 1)];
  pu = mpegref_plane (pic, 1, &s);
  pv = mpegref_plane (pic, 2, &s);
  for (i = 0; i < CH; i++)
    for (j = 0; j < W / 2; j++) {
      gsize si = MIN (i, ch - 1), sj = MIN (j, cw - 1);
      pu[i * s + j] = u[si * u_stride + sj * c_ps];
      pv[i * s + j] = v[si * v_stride + sj * c_ps];
    }
}

/* ---- macroblocks ---- */

/* a zero vector is taken unless the searched one is this much better */
#define ZERO_VECTOR_BIAS 64
/* a moving candidate needs a SAD this many quantiser steps below the
 * zero vector's */
#define MOVING_MARGIN 4
/* field blocks where the field lines are smoother by this much */
#define FIELD_DCT_MARGIN 256
/* the field search's most one-sample steps towards the least SAD after
 * its full-pel grid (see kernels/mpegenc.cl) */
#define FIELD_STEPS 8
/* a P picture's field prediction is priced at this many bits more than
 * its vectors', and a bit weighs this many times mv_lambda16 / 16 against
 * the SATD plus SAD (see kernels/mpegenc.cl) */
#define FIELD_MOTION_EXTRA_BITS 4
#define FIELD_MOTION_PRICE 16
/* dual prime replaces the fields' own vectors where the SATD plus SAD of
 * its luma residual, a bit at this many times lambda16 / 16, is lower */
#define DUAL_PRIME_PRICE 16
/* the half-pel field vectors are ranked by the SATD plus SAD of the
 * field's luma residual, a bit at this many times lambda16 / 16 */
#define FIELD_HALF_PRICE 16
/* the second moving candidate is coded only where its luma SATD plus
 * SAD, a bit at SECOND_RIVAL_PRICE lambda16 / 16, lies less than
 * SECOND_RIVAL_MARGIN q above the first's */
#define SECOND_RIVAL_MARGIN 128
#define SECOND_RIVAL_PRICE 16

/* Sample (x, y) of a plane displaced by the half-pel vector (hx, hy)
 * split into full-pel (fx, fy) and half flags: the MPEG-1 averages. */
static gint
predict (const guint8 * p, guint stride, gint x, gint y, gint fx, gint fy,
    gint hx, gint hy)
{
  const guint8 *s = p + (gsize) (y + fy) * stride + x + fx;
  if (hx && hy)
    return (s[0] + s[1] + s[stride] + s[stride + 1] + 2) >> 2;
  if (hx)
    return (s[0] + s[1] + 1) >> 1;
  if (hy)
    return (s[0] + s[stride] + 1) >> 1;
  return s[0];
}

/* |decoder's coefficient| of level @l > 0 at natural position @pos,
 * before MPEG-2's mismatch control */
static gint
dequantised_magnitude (gint l, gboolean intra, guint pos, gint q,
    gboolean mpeg2)
{
  gint d = intra ? (2 * l * q * gst_cl_mpeg_default_intra_matrix[pos]) / 16 :
      (2 * l + 1) * q;
  if (!mpeg2 && (d & 1) == 0)
    d--;
  return MIN (d, 2047);
}

/* gst_cl_mpeg_rd_bits (), once */
static const guint8 *
rd_table (void)
{
  static guint8 table[GST_CL_MPEG_RD_BITS_SIZE];
  static gsize init = 0;
  if (g_once_init_enter (&init)) {
    gst_cl_mpeg_rd_bits (table);
    g_once_init_leave (&init, 1);
  }
  return table;
}

/* bits of run-level pair (@run, @l > 0), sign included */
static gint
pair_bits (const guint8 * table, gint run, gint l, gboolean opens_inter,
    gboolean mpeg2)
{
  gint n = 0;
  if (opens_inter && run == 0 && l == 1)
    return 2;                   /* "1s" */
  if (run < GST_CL_MPEG_COEFF_BITS_RUNS && l < GST_CL_MPEG_COEFF_BITS_LEVELS)
    n = table[run * GST_CL_MPEG_COEFF_BITS_LEVELS + l];
  if (n)
    return n;
  /* escape: 6 + 6 bits, then the level in 8 or 16 (MPEG-1), 12 (MPEG-2) */
  return mpeg2 ? 24 : l <= 127 ? 20 : 28;
}

/* MPEG-2's alternate scan (13818-2 figure 7-3): scan index -> natural
 * position */
static const guint8 alternate_scan[64] = {
  0, 8, 16, 24, 1, 9, 2, 10, 17, 25, 32, 40, 48, 56, 57, 49,
  41, 33, 26, 18, 3, 11, 4, 12, 19, 27, 34, 42, 50, 58, 35, 43,
  51, 59, 20, 28, 5, 13, 6, 14, 21, 29, 36, 44, 52, 60, 37, 45,
  53, 61, 22, 30, 7, 15, 23, 31, 38, 46, 54, 62, 39, 47, 55, 63,
};

/* the scan of the levels @prm asks for: scan index -> natural position */
static const guint8 *
levels_scan (const GstClMpegEncodeParams * prm)
{
  return prm->mpeg2 && prm->alternate_scan ? alternate_scan :
      gst_cl_mpeg_zigzag;
}

/* Trellis quantisation of the coefficients @coef (natural order) into
 * @zz (@scan order, AC only for intra): the levels with the least
 * 4 * squared error + @lambda4 * bits, found as a shortest path whose
 * nodes are "last level at scan index i"; a node that costs at least as
 * much as a later one is not extended. */
static gint
trellis_quantise (const gint coef[64], gint16 zz[64], gboolean intra, gint q,
    gint lambda4, gboolean mpeg2, const guint8 * scan, gboolean intra_vlc)
{
  /* intra blocks of an intra_vlc_format picture: table B.15; entry 0 of
   * either table: its end_of_block */
  const guint8 *table = rd_table () + (intra && intra_vlc ?
      GST_CL_MPEG_RD_ONE_BITS : 0);
  const gint eob = table[0];
  const gint first = intra ? 1 : 0;
  /* node n: the last level so far at index n - 1; node first: none */
  gint node_cost[65], node_prev[65], node_level[65], open[65];
  gint n_open = 1, i, j, best_node, best_cost;

  node_cost[first] = 0;
  open[0] = first;
  for (i = first; i < 64; i++) {
    guint pos = scan[i];
    gint a = ABS (coef[pos]), top, l, found = 0;

    zz[i] = 0;
    if (2 * a <= dequantised_magnitude (1, intra, pos, q, mpeg2))
      continue;
    if (intra) {
      gint qw = q * gst_cl_mpeg_default_intra_matrix[pos];
      top = (8 * a + qw - 1) / qw;
    } else {
      top = MAX ((a + q - 1) / (2 * q), 1);
    }
    top = MIN (top, 255);
    for (l = top; l >= 1 && l >= top - 1; l--) {
      gint err = a - dequantised_magnitude (l, intra, pos, q, mpeg2);
      gint gain = 4 * (a * a - err * err);
      if (gain <= 0)
        continue;
      for (j = 0; j < n_open; j++) {
        gint n = open[j];
        gint c = node_cost[n] - gain + lambda4 * pair_bits (table, i - n, l,
            !intra && n == first, mpeg2);
        if (!found || c < node_cost[i + 1]) {
          found = 1;
          node_cost[i + 1] = c;
          node_prev[i + 1] = n;
          node_level[i + 1] = l;
        }
      }
    }
    if (!found)
      continue;
    while (n_open > 0 && node_cost[open[n_open - 1]] >= node_cost[i + 1])
      n_open--;
    open[n_open++] = i + 1;
  }
  /* end_of_block; a non-intra block can also be dropped */
  best_node = first;
  best_cost = intra ? eob * lambda4 : 0;
  for (j = 0; j < n_open; j++)
    if (open[j] > first && node_cost[open[j]] + eob * lambda4 < best_cost) {
      best_cost = node_cost[open[j]] + eob * lambda4;
      best_node = open[j];
    }
  for (j = best_node; j > first; j = node_prev[j])
    zz[j - 1] = coef[scan[j - 1]] < 0 ? -node_level[j] :
        node_level[j];
  return best_cost;
}

/* bits of a vector @dx, @dy from the predictor (@px, @py), forward_f_code
 * 2 assumed */
static gint
vector_bits (gint dx, gint dy, gint px, gint py)
{
  const guint8 *mv = rd_table () + GST_CL_MPEG_RD_MV_BITS;
  return mv[MIN (ABS (dx - px), GST_CL_MPEG_RD_MV_MAX)] +
      mv[MIN (ABS (dy - py), GST_CL_MPEG_RD_MV_MAX)];
}

/* the vector of macroblock (@mbx, @mby) kept inside the padded picture */
static void
clamp_vector (gint * dx, gint * dy, guint mbx, guint mby, guint W, guint H)
{
  *dx = CLAMP (*dx, -32 * (gint) mbx, 2 * ((gint) W - 16 - 16 * (gint) mbx));
  *dy = CLAMP (*dy, -32 * (gint) mby, 2 * ((gint) H - 16 - 16 * (gint) mby));
}

/* ---- forward_f_code (mpeg_fit_vectors) ---- */

#define F_CODES 7
#define OUTLIER_BITS 64

static gint
motion_code_bits (gint m)
{
  const guint8 *mv = rd_table () + GST_CL_MPEG_RD_MV_BITS;
  return m ? mv[2 * m] - 2 : mv[0];
}

/* bits of a component @d from its predictor with forward_f_code @f: the
 * difference brought into [-16 f, 16 f) as the decoder wraps its sum */
static gint
component_bits (gint d, gint f)
{
  gint scale = 1 << (f - 1), range = 32 * scale;

  d = ((d + 16 * scale) % range + range) % range - 16 * scale;
  if (!d)
    return motion_code_bits (0);
  return motion_code_bits ((ABS (d) + scale - 1) / scale) + f;
}

static gboolean
fits_f_code (gint dx, gint dy, gint f)
{
  gint reach = 16 << (f - 1);
  return dx >= -reach && dx < reach && dy >= -reach && dy < reach;
}

guint
mpegref_fit_vectors (GstClMotionVector * vectors, guint mb_width,
    guint mb_height, guint max_f_code)
{
  guint64 cost[F_CODES] = { 0 };
  guint mbx, mby, best = 1;
  gint f, reach;
  const guint W = 16 * mb_width, H = 16 * mb_height;

  for (mby = 0; mby < mb_height; mby++)
    for (mbx = 0; mbx < mb_width; mbx++) {
      const GstClMotionVector *v = &vectors[mby * mb_width + mbx];
      gint dx = v->dx, dy = v->dy, px = 0, py = 0;

      clamp_vector (&dx, &dy, mbx, mby, W, H);
      if (mbx > 0) {
        px = v[-1].dx;
        py = v[-1].dy;
        clamp_vector (&px, &py, mbx - 1, mby, W, H);
      }
      for (f = 1; f <= F_CODES; f++) {
        reach = 16 << (f - 1);
        if (!fits_f_code (dx, dy, f))
          cost[f - 1] += OUTLIER_BITS;
        else
          cost[f - 1] += component_bits (dx - CLAMP (px, -reach, reach - 1),
              f) + component_bits (dy - CLAMP (py, -reach, reach - 1), f);
      }
    }
  for (f = 2; f <= MIN ((gint) max_f_code, F_CODES); f++)
    if (cost[f - 1] < cost[best - 1])
      best = f;
  reach = 16 << (best - 1);
  for (mby = 0; mby < mb_height; mby++)
    for (mbx = 0; mbx < mb_width; mbx++) {
      GstClMotionVector *v = &vectors[mby * mb_width + mbx];
      gint dx = v->dx, dy = v->dy;

      clamp_vector (&dx, &dy, mbx, mby, W, H);
      v->dx = CLAMP (dx, -reach, reach - 1);
      v->dy = CLAMP (dy, -reach, reach - 1);
    }
  return best;
}

/* The prediction of every frame block of macroblock (@mbx, @mby) from
 * @ref with the half-pel vector (@dx, @dy) (chroma: chroma_vector ()). */
static void
predict_mb (const MpegRefPicture * ref, guint mbx, guint mby, gint dx,
    gint dy, gint pred[GST_CL_MPEG_BLOCKS][64])
{
  gint cdx, cdy, b, i;
  chroma_vector (ref, dx, dy, &cdx, &cdy);
  for (b = 0; b < (gint) mb_blocks (ref); b++) {
    guint stride;
    const guint8 *plane = mpegref_plane (ref, block_comp (b), &stride);
    gint x0, y0;
    block_origin (ref, b, mbx, mby, &x0, &y0);
    for (i = 0; i < 64; i++) {
      gint x = x0 + i % 8, y = y0 + i / 8;
      pred[b][i] = b < 4 ?
          predict (plane, stride, x, y, dx >> 1, dy >> 1, dx & 1, dy & 1) :
          predict (plane, stride, x, y, cdx >> 1, cdy >> 1, cdx & 1, cdy & 1);
    }
  }
}

/* luma SAD of @src against the prediction with (@dx, @dy) */
static gint
luma_sad (const gint src[GST_CL_MPEG_BLOCKS][64], const MpegRefPicture * ref,
    guint mbx, guint mby, gint dx, gint dy)
{
  gint pred[GST_CL_MPEG_BLOCKS][64], sad = 0, b, i;
  predict_mb (ref, mbx, mby, dx, dy, pred);
  for (b = 0; b < 4; b++)
    for (i = 0; i < 64; i++)
      sad += ABS (src[b][i] - pred[b][i]);
  return sad;
}

/* macroblock_type bits of coded forward, backward and interpolated
 * macroblocks of a B picture */
#define B_FORWARD_TYPE_BITS 4
#define B_BACKWARD_TYPE_BITS 3
#define B_INTERPOLATED_TYPE_BITS 2

#define B_CANDIDATES 3
/* a bit's weight against the SATD plus SAD of the directions, in
 * lambda16 / 16, and how many times zero_bias favours a single
 * direction's zero vector there (B_DIRECTION_PRICE and
 * B_DIRECTION_ZERO_BIAS of kernels/mpegenc.cl) */
#define B_DIRECTION_PRICE 32
#define B_DIRECTION_ZERO_BIAS 2

/* the entry of the order-8 Hadamard matrix at row @k, column @n: +-1 by
 * the parity of the bits they share */
static gint
hadamard_sign (guint k, guint n)
{
  guint shared = k & n, parity = 0;
  for (; shared; shared >>= 1)
    parity ^= shared & 1;
  return parity ? -1 : 1;
}

/* The SATD (the magnitudes of the Hadamard coefficients of the 8 x 8
 * block of residual @d, summed) plus its SAD */
static gint
block_satd_sad (const gint d[64])
{
  gint total = 0, i;
  guint u, v;
  for (i = 0; i < 64; i++)
    total += ABS (d[i]);
  for (u = 0; u < 8; u++)
    for (v = 0; v < 8; v++) {
      gint c = 0;
      for (i = 0; i < 64; i++)
        c += hadamard_sign (u, i / 8) * hadamard_sign (v, i % 8) * d[i];
      total += ABS (c);
    }
  return total;
}

/* block_satd_sad of each luma block of @src less @p, summed */
static gint
luma_satd_sad (const gint src[GST_CL_MPEG_BLOCKS][64],
    const gint p[GST_CL_MPEG_BLOCKS][64])
{
  gint total = 0, b, i, d[64];
  for (b = 0; b < 4; b++) {
    for (i = 0; i < 64; i++)
      d[i] = src[b][i] - p[b][i];
    total += block_satd_sad (d);
  }
  return total;
}

/* the vector of macroblock @mb of @vec, clamped (MPEG-1: inside the
 * picture), and its left neighbour's, the predictor assumed (clamped for
 * the neighbour) */
static void
b_vector (const GstClMotionVector * vec, guint mb, guint mbx, guint mby,
    guint W, guint H, gint v[2], gint pred[2])
{
  v[0] = vec[mb].dx;
  v[1] = vec[mb].dy;
  clamp_vector (&v[0], &v[1], mbx, mby, W, H);
  pred[0] = pred[1] = 0;
  if (mbx > 0) {
    pred[0] = vec[mb - 1].dx;
    pred[1] = vec[mb - 1].dy;
    clamp_vector (&pred[0], &pred[1], mbx - 1, mby, W, H);
  }
}

/* Of a direction's candidates (the searched vector, the predictor's,
 * zero) the one with the least luma SAD + @lambda16 / 16 x its bits from
 * the predictor @pred (the first on ties) into @v, its prediction into
 * @p. */
static void
b_direction (const gint src[GST_CL_MPEG_BLOCKS][64],
    const MpegRefPicture * ref, const GstClMotionVector * vec, guint mb,
    guint mbx, guint mby, guint W, guint H, guint lambda16, gint zero_bias,
    gint v[2], gint pred[2], gint p[GST_CL_MPEG_BLOCKS][64])
{
  gint c[B_CANDIDATES][2], k, best = 0;
  gint64 j[B_CANDIDATES];

  b_vector (vec, mb, mbx, mby, W, H, c[0], pred);
  c[1][0] = pred[0];
  c[1][1] = pred[1];
  clamp_vector (&c[1][0], &c[1][1], mbx, mby, W, H);
  c[2][0] = c[2][1] = 0;
  for (k = 0; k < B_CANDIDATES; k++) {
    gint sad = luma_sad (src, ref, mbx, mby, c[k][0], c[k][1]);
    if (c[k][0] == 0 && c[k][1] == 0)
      sad -= zero_bias;
    j[k] = 16 * (gint64) sad +
        (gint64) lambda16 * vector_bits (c[k][0], c[k][1], pred[0], pred[1]);
    if (j[k] < j[best])
      best = k;
  }
  v[0] = c[best][0];
  v[1] = c[best][1];
  predict_mb (ref, mbx, mby, v[0], v[1], p);
}

void
mpegref_predict_b (const MpegRefPicture * cur, const MpegRefPicture * fwd,
    const MpegRefPicture * bwd, const GstClMotionVector * fvectors,
    const GstClMotionVector * bvectors, guint lambda16, guint zero_bias,
    MpegRefPicture * pred, GstClMpegBChoice * choices)
{
  guint W = cur->mb_width * 16, H = cur->mb_height * 16, mbx, mby;

  for (mby = 0; mby < cur->mb_height; mby++)
    for (mbx = 0; mbx < cur->mb_width; mbx++) {
      guint mb = mby * cur->mb_width + mbx, stride, b, i;
      gint vf[2], vb[2], pf[2], pb[2];
      gint f[GST_CL_MPEG_BLOCKS][64], bk[GST_CL_MPEG_BLOCKS][64];
      gint src[GST_CL_MPEG_BLOCKS][64], avg[GST_CL_MPEG_BLOCKS][64];
      gint bits_f, bits_b;
      gint64 jf, jb, ji, best, price = B_DIRECTION_PRICE * (gint64) lambda16;
      guint dirs = GST_CL_MPEG_B_FORWARD | GST_CL_MPEG_B_BACKWARD;
      const guint8 *plane = mpegref_plane (cur, 0, &stride);
      GstClMpegBChoice *c = &choices[mb];

      for (b = 0; b < 4; b++)
        for (i = 0; i < 64; i++)
          src[b][i] = plane[(mby * 16 + (b >> 1) * 8 + i / 8) * stride +
              mbx * 16 + (b & 1) * 8 + i % 8];
      b_direction (src, fwd, fvectors, mb, mbx, mby, W, H, lambda16,
          zero_bias, vf, pf, f);
      b_direction (src, bwd, bvectors, mb, mbx, mby, W, H, lambda16,
          zero_bias, vb, pb, bk);
      for (b = 0; b < 4; b++)
        for (i = 0; i < 64; i++)
          avg[b][i] = (f[b][i] + bk[b][i] + 1) >> 1;
      bits_f = vector_bits (vf[0], vf[1], pf[0], pf[1]);
      bits_b = vector_bits (vb[0], vb[1], pb[0], pb[1]);
      jf = 16 * (gint64) (luma_satd_sad (src, f) - (vf[0] || vf[1] ? 0 :
              B_DIRECTION_ZERO_BIAS * (gint) zero_bias)) +
          price * (B_FORWARD_TYPE_BITS + bits_f);
      jb = 16 * (gint64) (luma_satd_sad (src, bk) - (vb[0] || vb[1] ? 0 :
              B_DIRECTION_ZERO_BIAS * (gint) zero_bias)) +
          price * (B_BACKWARD_TYPE_BITS + bits_b);
      ji = 16 * (gint64) luma_satd_sad (src, avg) +
          price * (B_INTERPOLATED_TYPE_BITS + bits_f + bits_b);
      best = ji;
      if (jf < best) {
        dirs = GST_CL_MPEG_B_FORWARD;
        best = jf;
      }
      if (jb < best)
        dirs = GST_CL_MPEG_B_BACKWARD;
      c->directions = dirs;
      c->fdx = dirs & GST_CL_MPEG_B_FORWARD ? vf[0] : 0;
      c->fdy = dirs & GST_CL_MPEG_B_FORWARD ? vf[1] : 0;
      c->bdx = dirs & GST_CL_MPEG_B_BACKWARD ? vb[0] : 0;
      c->bdy = dirs & GST_CL_MPEG_B_BACKWARD ? vb[1] : 0;
      for (b = 0; b < mb_blocks (cur); b++) {
        guint8 *out = mpegref_plane (pred, block_comp (b), &stride);
        gint x0, y0;
        block_origin (cur, b, mbx, mby, &x0, &y0);
        for (i = 0; i < 64; i++)
          out[(y0 + i / 8) * stride + x0 + i % 8] =
              dirs == GST_CL_MPEG_B_FORWARD ? f[b][i] :
              dirs == GST_CL_MPEG_B_BACKWARD ? bk[b][i] :
              (f[b][i] + bk[b][i] + 1) >> 1;
      }
    }
}

/* macroblock_type bits of B directions @dirs */
static gint
b_type_bits (guint dirs)
{
  if (dirs == GST_CL_MPEG_B_FORWARD)
    return B_FORWARD_TYPE_BITS;
  if (dirs == GST_CL_MPEG_B_BACKWARD)
    return B_BACKWARD_TYPE_BITS;
  return B_INTERPOLATED_TYPE_BITS;
}

void
mpegref_choose_b_fields (const MpegRefPicture * cur,
    const GstClMotionVector * fvectors, const GstClMotionVector * bvectors,
    const MpegRefPicture * field_pred[2],
    const GstClMpegFieldChoice * fields[2], guint lambda16, guint zero_bias,
    MpegRefPicture * pred, GstClMpegBChoice * choices)
{
  guint W = cur->mb_width * 16, H = cur->mb_height * 16, mbx, mby;

  for (mby = 0; mby < cur->mb_height; mby++)
    for (mbx = 0; mbx < cur->mb_width; mbx++) {
      guint mb = mby * cur->mb_width + mbx, comp, x, y, stride, dirs;
      GstClMpegBChoice *c = &choices[mb];
      const GstClMpegFieldChoice *ff = &fields[0][mb], *fb = &fields[1][mb];
      gint v[2], pf[2], pb[2], t, b, i;
      gint src[GST_CL_MPEG_BLOCKS][64], p[4][GST_CL_MPEG_BLOCKS][64];
      gint64 costs[4], price = B_DIRECTION_PRICE * (gint64) lambda16;
      guint field = 0, k;

      /* the luma of the source, the frame prediction and the forward,
       * backward and interpolated field predictions */
      for (b = 0; b < 4; b++)
        for (i = 0; i < 64; i++) {
          guint at = (mby * 16 + (b >> 1) * 8 + i / 8) * W + mbx * 16 +
              (b & 1) * 8 + i % 8;
          src[b][i] = cur->data[at];
          p[0][b][i] = pred->data[at];
          p[1][b][i] = field_pred[0]->data[at];
          p[2][b][i] = field_pred[1]->data[at];
          p[3][b][i] = (p[1][b][i] + p[2][b][i] + 1) >> 1;
        }
      /* the frame prediction, weighed as mpeg_predict_b weighs directions */
      b_vector (fvectors, mb, mbx, mby, W, H, v, pf);
      b_vector (bvectors, mb, mbx, mby, W, H, v, pb);
      dirs = c->directions;
      t = luma_satd_sad (src, p[0]);
      if ((dirs == GST_CL_MPEG_B_FORWARD && c->fdx == 0 && c->fdy == 0) ||
          (dirs == GST_CL_MPEG_B_BACKWARD && c->bdx == 0 && c->bdy == 0))
        t -= B_DIRECTION_ZERO_BIAS * (gint) zero_bias;
      costs[0] = 16 * (gint64) t + price * (b_type_bits (dirs) +
          (dirs & GST_CL_MPEG_B_FORWARD ? vector_bits (c->fdx, c->fdy, pf[0],
                  pf[1]) : 0) + (dirs & GST_CL_MPEG_B_BACKWARD ?
              vector_bits (c->bdx, c->bdy, pb[0], pb[1]) : 0));
      /* forward, backward, interpolated field by field */
      costs[1] = 16 * (gint64) luma_satd_sad (src, p[1]) +
          price * (B_FORWARD_TYPE_BITS + ff->bits);
      costs[2] = 16 * (gint64) luma_satd_sad (src, p[2]) +
          price * (B_BACKWARD_TYPE_BITS + fb->bits);
      costs[3] = 16 * (gint64) luma_satd_sad (src, p[3]) +
          price * (B_INTERPOLATED_TYPE_BITS + ff->bits + fb->bits);
      for (k = 1; k < 4; k++)
        if (costs[k] < costs[field])
          field = k;
      if (field == 0)
        continue;
      for (comp = 0; comp < 3; comp++) {
        guint n = comp ? 8 : 16, rows = comp ? mb_chroma_rows (cur) : 16;
        guint8 *out = mpegref_plane (pred, comp, &stride);
        const guint8 *a = mpegref_plane (field_pred[0], comp, &stride);
        const guint8 *b = mpegref_plane (field_pred[1], comp, &stride);
        for (y = mby * rows; y < mby * rows + rows; y++)
          for (x = mbx * n; x < mbx * n + n; x++) {
            guint i = y * stride + x;
            out[i] = field == 1 ? a[i] : field == 2 ? b[i] :
                (a[i] + b[i] + 1) >> 1;
          }
      }
      c->fdx = c->fdy = c->bdx = c->bdy = 0;
      c->directions = field | GST_CL_MPEG_B_FIELD;
    }
}

/* The quantiser from @q up at which every level of the coefficients
 * @coef (natural order; an intra block's DC aside) lies within +-255,
 * the most an MPEG-1 escape carries: intra (64 |F| + 3 q W) / 8 q W
 * and non-intra (2 |F| - q) / 4 q, rounded down, below 256. */
static gint
fitting_quant (const gint coef[GST_CL_MPEG_BLOCKS][64], guint n_blocks,
    gboolean intra, gint q)
{
  gint b, i;
  for (b = 0; b < (gint) n_blocks; b++)
    for (i = intra ? 1 : 0; i < 64; i++) {
      gint a = ABS (coef[b][i]);
      if (intra)
        while (64 * a >= 2045 * q * gst_cl_mpeg_default_intra_matrix[i])
          q++;
      else
        while (2 * a >= 1025 * q)
          q++;
    }
  return q;
}

/* intra DC precision above 8 bits (MPEG-1: none) */
static guint
dc_shift (const GstClMpegEncodeParams * prm)
{
  return prm->mpeg2 ? MIN (prm->dc_shift, 3) : 0;
}

/* intra DC level of the coefficient @F at 8 + @dc_shift bits: F /
 * intra_dc_mult, rounded, within the precision's range (13818-2 7.4.1) */
static gint
intra_dc_level (gint F, guint dc_shift)
{
  return CLAMP ((F + (4 >> dc_shift)) >> (3 - dc_shift), 0,
      (256 << dc_shift) - 1);
}

/* The levels (zigzag order, block by block) of the @n_blocks blocks of
 * @src predicted by @pred, at quantiser *@q or the least above it whose
 * levels MPEG-1 can code (then *@q); with trellis quantisation, at the
 * trade-off @lambda4, also the blocks' summed cost against coding none
 * (*@delta), their coded pattern (*@cbp, as GstClMpegMbRecord's) and 4 x
 * the energy of the coefficients (*@energy). */
static void
code_levels (const gint src[GST_CL_MPEG_BLOCKS][64],
    const gint pred[GST_CL_MPEG_BLOCKS][64], guint n_blocks, gboolean intra,
    gint * q_io, gint lambda4, const GstClMpegEncodeParams * prm,
    gint16 * levels, gint * delta, gint * cbp, gint64 * energy)
{
  gboolean trellis = prm->rd_lambda && !prm->dc_only;
  gint coefs[GST_CL_MPEG_BLOCKS][64], b, i, q;

  *delta = *cbp = 0;
  *energy = 0;
  for (b = 0; b < (gint) n_blocks; b++) {
    for (i = 0; i < 64; i++)
      coefs[b][i] = src[b][i] - pred[b][i];
    mpegref_fdct (coefs[b]);
  }
  if (!prm->dc_only)
    *q_io = fitting_quant (coefs, n_blocks, intra, *q_io);
  q = *q_io;
  for (b = 0; b < (gint) n_blocks; b++) {
    gint16 *zz = levels + b * 64;
    const gint *coef = coefs[b];
    for (i = 0; i < 64; i++) {
      /* an intra DC coefficient: its quantisation error */
      gint err = intra && i == 0 ? coef[0] - (8 >> dc_shift (prm)) *
          intra_dc_level (coef[0], dc_shift (prm)) : coef[i];
      *energy += 4 * err * err;
    }
    if (trellis) {
      gboolean any = FALSE;
      *delta += trellis_quantise (coef, zz, intra, q, lambda4, prm->mpeg2,
          levels_scan (prm), prm->mpeg2 && prm->intra_vlc);
      for (i = intra ? 1 : 0; i < 64; i++)
        any |= zz[i] != 0;
      *cbp |= any ? (1 << (n_blocks - 1)) >> b : 0;
    }
    for (i = 0; i < 64; i++) {
      gint F = coef[i], a = ABS (F), L, z = 0;
      while (levels_scan (prm)[z] != i)
        z++;
      if (intra && i == 0) {
        L = intra_dc_level (F, dc_shift (prm));
      } else if (trellis) {
        L = zz[z];
      } else if (intra) {
        gint qw = q * gst_cl_mpeg_default_intra_matrix[i];
        L = MIN ((64 * a + 3 * qw) / (8 * qw), 255);
        L = F < 0 ? -L : L;
      } else {
        L = MIN (MAX (2 * a - q, 0) / (4 * q), 255);
        L = F < 0 ? -L : L;
      }
      if (prm->dc_only && i != 0)
        L = 0;
      zz[z] = L;
    }
  }
}

/* the lambda of the macroblock decisions: 3/4 of the quantisation's */
static gint64
mode_lambda (gint lambda4)
{
  return lambda4 * 3 / 4;
}

/* bits of the coded_block_pattern @cbp of @n_blocks blocks: in 4:2:2
 * coded_block_pattern_420 of blocks 0-5 (the table's entry 0: the code
 * of none of them, 4:2:2's only), then coded_block_pattern_1's two bits
 * (13818-2 6.3.17.4) */
static gint
cbp_bits (gint cbp, guint n_blocks)
{
  const guint8 *t = rd_table () + GST_CL_MPEG_RD_CBP_BITS;
  return n_blocks == GST_CL_MPEG_BLOCKS_422 ? t[cbp >> 2] + 2 : t[cbp];
}

/* Cost of an inter macroblock with vector (@dx, @dy), predictor (@px,
 * @py): 4 x squared error + lambda x bits, lambda 3/4 of the
 * quantisation's @lambda4. The header: skipped (zero vector) or "no MC,
 * coded" ("01"); "MC, not coded" ("001", the vector) or "MC, coded" ("1",
 * the vector); with a coded_block_pattern (@cbp of @n_blocks blocks) when
 * coded. *@keep: whether coding the levels is the cheaper. */
static gint64
inter_cost (gint64 energy, gint delta, gint cbp, guint n_blocks,
    gint mv_bits, gint lambda4, gboolean * keep)
{
  gint64 lambda = mode_lambda (lambda4);
  gboolean moving = mv_bits >= 0;
  gint64 header = moving ? lambda * (mv_bits + 3) : 0;
  gint64 coded = cbp ? delta + lambda *
      (cbp_bits (cbp, n_blocks) + (moving ? -2 : 2)) : 0;
  *keep = coded < 0;
  return energy + header + (*keep ? coded : 0);
}

/* Cost of an intra macroblock in a P picture (see inter_cost): its
 * @energy (DC errors, AC coefficients) lowered by @delta of its AC levels,
 * mb_type "00011" and the DC differentials of the @n_blocks blocks of
 * @levels, the predictors reset (to the middle of the precision's range)
 * as after a non-intra macroblock, then each of a component's blocks
 * predicted from the one before (4:2:0 has one of each chroma). */
static gint64
intra_cost (gint64 energy, gint delta, const gint16 * levels,
    guint n_blocks, gint lambda4, guint dc_shift)
{
  const guint8 *t = rd_table () + GST_CL_MPEG_RD_DC_BITS;
  const gint reset = 128 << dc_shift;
  /* the predictors of Y, Cb, Cr */
  gint bits = 5, prev[3] = { reset, reset, reset }, b;
  for (b = 0; b < (gint) n_blocks; b++) {
    guint comp = block_comp (b);
    gint d = levels[b * 64] - prev[comp];
    gint size = d ? g_bit_storage (ABS (d)) : 0;
    bits += t[(comp ? GST_CL_MPEG_RD_DC_SIZES : 0) + size] + size;
    prev[comp] = levels[b * 64];
  }
  return energy + delta + mode_lambda (lambda4) * bits;
}

/* Sum of |r (y, x) - r (y + @step, x)| over the macroblock's luma, r the
 * residual @src less @pred (frame blocks) */
static gint
vertical_differences (const gint src[GST_CL_MPEG_BLOCKS][64],
    const gint pred[GST_CL_MPEG_BLOCKS][64], gint step)
{
  gint x, y, sum = 0;
  for (y = 0; y + step < 16; y++)
    for (x = 0; x < 16; x++) {
      gint a = (y >> 3) * 2 + (x >> 3), i = (y & 7) * 8 + (x & 7);
      gint y2 = y + step;
      gint a2 = (y2 >> 3) * 2 + (x >> 3), i2 = (y2 & 7) * 8 + (x & 7);
      sum += ABS ((src[a][i] - pred[a][i]) - (src[a2][i2] - pred[a2][i2]));
    }
  return sum;
}

/* The frame blocks @top and @bottom (the upper and lower eight lines of
 * 16) of @blk as field blocks: @top the lines 0, 2, .. 14, @bottom the
 * lines 1, 3, .. 15 */
static void
to_field_pair (gint blk[GST_CL_MPEG_BLOCKS][64], guint top, guint bottom)
{
  gint frame[2][64], f, i;
  memcpy (frame[0], blk[top], sizeof (frame[0]));
  memcpy (frame[1], blk[bottom], sizeof (frame[1]));
  for (f = 0; f < 2; f++)
    for (i = 0; i < 64; i++) {
      gint y = f + 2 * (i / 8);
      blk[f ? bottom : top][i] = frame[y >> 3][(y & 7) * 8 + i % 8];
    }
}

/* The quantiser (quantiser_scale / 2) the encoder takes for @q with
 * MPEG-2's non-linear scale: the least even quantiser_scale of 13818-2
 * table 7-6 at or above 2 @q (the largest, 112, above it), halved. */
static gint
nonlinear_quant (gint q)
{
  static const guint8 scale[31] = { 1, 2, 3, 4, 5, 6, 7, 8, 10, 12, 14, 16,
    18, 20, 22, 24, 28, 32, 36, 40, 44, 48, 52, 56, 64, 72, 80, 88, 96, 104,
    112
  };
  guint i;

  for (i = 0; i < G_N_ELEMENTS (scale); i++)
    if (scale[i] % 2 == 0 && scale[i] >= 2 * MAX (q, 1))
      return scale[i] / 2;
  return 56;
}

/* The blocks of @blk (frame blocks) as field blocks: Y0 and Y1 the lines
 * 0, 2, .. 14 of the macroblock, Y2 and Y3 the lines 1, 3, .. 15; in
 * 4:2:2 (@n_blocks 8) likewise the chroma, Cb 4 and Cr 5 the even lines,
 * 6 and 7 the odd (4:2:0's chroma stays in frame blocks, 13818-2
 * 6.1.3) */
static void
to_field_blocks (gint blk[GST_CL_MPEG_BLOCKS][64], guint n_blocks)
{
  to_field_pair (blk, 0, 2);
  to_field_pair (blk, 1, 3);
  if (n_blocks == GST_CL_MPEG_BLOCKS_422) {
    to_field_pair (blk, 4, 6);
    to_field_pair (blk, 5, 7);
  }
}

/* prefers_field_dct: see kernels/mpegenc.cl */
static gboolean
prefers_field_dct (const gint src[GST_CL_MPEG_BLOCKS][64],
    const gint pred[GST_CL_MPEG_BLOCKS][64])
{
  return vertical_differences (src, pred, 2) + FIELD_DCT_MARGIN <
      vertical_differences (src, pred, 1);
}

/* The inter candidate @src predicted by @pred_c, its vectors' bits
 * @mv_bits (-1: none), coded with the quantiser @q_base or above; taken
 * where it costs less than *@j: its cost into *@j, whether its levels are
 * worth coding into *@keep, its quantiser into *@q, its prediction and
 * levels into @pred and @levels. Returns whether it was taken. */
static gboolean
take_cheaper (const gint src[GST_CL_MPEG_BLOCKS][64],
    const gint pred_c[GST_CL_MPEG_BLOCKS][64], guint n_blocks, gint q_base,
    gint lambda4, const GstClMpegEncodeParams * prm, gint mv_bits,
    gint64 * j, gboolean * keep, gint * q, gint pred[GST_CL_MPEG_BLOCKS][64],
    gint16 * levels)
{
  gint16 lv[GST_CL_MPEG_MB_LEVELS];
  gint delta, cbp, q_c = q_base;
  gint64 energy, j_c;
  gboolean keep_c;

  code_levels (src, pred_c, n_blocks, FALSE, &q_c, lambda4, prm, lv, &delta,
      &cbp, &energy);
  j_c = inter_cost (energy, delta, cbp, n_blocks, mv_bits, lambda4, &keep_c);
  if (j_c >= *j)
    return FALSE;
  *j = j_c;
  *keep = keep_c;
  *q = q_c;
  memcpy (pred, pred_c, sizeof (gint) * GST_CL_MPEG_BLOCKS * 64);
  memcpy (levels, lv, n_blocks * 64 * sizeof (gint16));
  return TRUE;
}

/* the blocks' places of macroblock (@mbx, @mby): columns @bx, first
 * lines @by and line steps @ys, of frame blocks or, where @field, of
 * field blocks (4:2:2's chroma has the luma's 16 lines a macroblock;
 * 4:2:0's stays in frame blocks) */
static void
block_places (const MpegRefPicture * cur, gboolean field, guint mbx,
    guint mby, gint * bx, gint * by, gint * ys)
{
  guint n_blocks = mb_blocks (cur);
  gint b;
  for (b = 0; b < (gint) n_blocks; b++) {
    block_origin (cur, b, mbx, mby, &bx[b], &by[b]);
    ys[b] = 1;
    if (field && (b < 4 || n_blocks == GST_CL_MPEG_BLOCKS_422)) {
      by[b] = mby * 16 + (b < 4 ? b >> 1 : (b - 4) >> 1);
      ys[b] = 2;
    }
  }
}

static void
encode_mb (const MpegRefPicture * cur, const MpegRefPicture * ref,
    const GstClMotionVector * vectors, const MpegRefPicture * field_pred,
    const GstClMpegFieldChoice * fields, const GstClMpegEncodeParams * prm,
    guint mbx, guint mby, GstClMpegMbRecord * rec, gint16 * levels,
    MpegRefPicture * recon)
{
  gint src[GST_CL_MPEG_BLOCKS][64], pred[GST_CL_MPEG_BLOCKS][64];
  gint pred_m[GST_CL_MPEG_BLOCKS][64], src_in[GST_CL_MPEG_BLOCKS][64];
  gint src_frame[GST_CL_MPEG_BLOCKS][64], pred_frame[GST_CL_MPEG_BLOCKS][64];
  gint pred_m_frame[GST_CL_MPEG_BLOCKS][64];
  const guint8 *plane[3];
  guint8 *out[3];
  guint stride[3], n_blocks = mb_blocks (cur);
  /* the blocks' places: column, first line and line step, plane */
  gint bx[GST_CL_MPEG_BLOCKS], by[GST_CL_MPEG_BLOCKS];
  gint ys[GST_CL_MPEG_BLOCKS], bc[GST_CL_MPEG_BLOCKS];
  gboolean field = FALSE, field_mv = FALSE, field_chosen = FALSE;
  gboolean field_in = FALSE;
  gint alt_bits = -1;
  gint sum = 0, act = 0, b, i, q, intra, dx = 0, dy = 0;
  gint px = 0, py = 0, mx = 0, my = 0, sad_moving = 0;
  gint sec_x = 0, sec_y = 0, sad_second = 0, second_bits = 0;
  gboolean rd = prm->rd_lambda && !prm->dc_only, moving = FALSE;
  gboolean second = FALSE, second_from_above = FALSE;
  gboolean intra_cand = FALSE;
  guint W = cur->mb_width * 16, H = cur->mb_height * 16;

  memset (rec, 0, sizeof (*rec));
  for (b = 0; b < (gint) n_blocks; b++)
    bc[b] = block_comp (b);
  block_places (cur, FALSE, mbx, mby, bx, by, ys);
  for (i = 0; i < 3; i++) {
    plane[i] = mpegref_plane (cur, i, &stride[i]);
    out[i] = mpegref_plane (recon, i, &stride[i]);
  }
  for (b = 0; b < (gint) n_blocks; b++)
    for (i = 0; i < 64; i++)
      src[b][i] = plane[bc[b]][(by[b] + i / 8) * stride[bc[b]] + bx[b] +
          i % 8];

  /* activity: sum of |sample - mean| over the luma, in 1/256 steps */
  for (b = 0; b < 4; b++)
    for (i = 0; i < 64; i++)
      sum += src[b][i];
  for (b = 0; b < 4; b++)
    for (i = 0; i < 64; i++)
      act += ABS (256 * src[b][i] - sum);
  act >>= 8;

  q = prm->qscale;
  if (prm->adaptive) {
    /* TM5: 0.5 .. 2 times the picture's quantiser */
    guint a = act, avg = MAX (prm->avg_activity, 1);
    q = (prm->qscale * (2 * a + avg) + (a + 2 * avg) / 2) / (a + 2 * avg);
  }
  q = prm->mpeg2 && prm->non_linear ? nonlinear_quant (q) : CLAMP (q, 1, 31);

  intra = !prm->p_picture;
  rec->cost = act;
  if (prm->p_picture) {
    gint sad0, sadv;
    if (vectors) {
      dx = vectors[mby * cur->mb_width + mbx].dx;
      dy = vectors[mby * cur->mb_width + mbx].dy;
    }
    /* keep the whole prediction inside the padded picture */
    clamp_vector (&dx, &dy, mbx, mby, W, H);
    sad0 = luma_sad (src, ref, mbx, mby, 0, 0);
    sadv = luma_sad (src, ref, mbx, mby, dx, dy);
    if (rd && prm->mv_lambda) {
      /* the moving candidate: the searched vector or the left
       * neighbour's (the assumed predictor, zero at a row start), by
       * SAD + lambda * bits; it competes with the zero vector below when
       * its SAD is lower by more than MOVING_MARGIN q */
      gint lambda16 = prm->mv_lambda * prm->qscale, wx, wy, sadw;
      guint right;
      const gint sx = dx, sy = dy, sads = sadv;
      if (vectors && mbx > 0) {
        px = vectors[mby * cur->mb_width + mbx - 1].dx;
        py = vectors[mby * cur->mb_width + mbx - 1].dy;
        clamp_vector (&px, &py, mbx - 1, mby, W, H);
      }
      wx = px;
      wy = py;
      clamp_vector (&wx, &wy, mbx, mby, W, H);
      sadw = luma_sad (src, ref, mbx, mby, wx, wy);
      if (16 * sadw + lambda16 * vector_bits (wx, wy, px, py) <
          16 * sadv + lambda16 * vector_bits (dx, dy, px, py)) {
        dx = wx;
        dy = wy;
        sadv = sadw;
      }
      /* the one passed over, coded too where it differs from the one
       * taken and from zero and its SAD is lower by more than
       * MOVING_MARGIN q (progressive pictures) */
      if (dx == wx && dy == wy) {
        sec_x = sx;
        sec_y = sy;
        sad_second = sads;
      } else {
        sec_x = wx;
        sec_y = wy;
        sad_second = sadw;
      }
      second = !prm->field_dct && (sec_x != dx || sec_y != dy) &&
          (sec_x || sec_y) && sad_second + MOVING_MARGIN * q < sad0;
      second_bits = vector_bits (sec_x, sec_y, px, py);
      /* or the searched vector of the macroblock above, then of the one
       * above and to the right, where it is neither zero nor the vector
       * taken nor the second, predicts clearly better than zero and,
       * where there is a second, better by SAD + lambda * bits */
      for (right = 0; right < 2 && !prm->field_dct && vectors && mby > 0;
          right++) {
        gint ax, ay;
        if (mbx + right >= cur->mb_width)
          break;
        ax = vectors[(mby - 1) * cur->mb_width + mbx + right].dx;
        ay = vectors[(mby - 1) * cur->mb_width + mbx + right].dy;
        clamp_vector (&ax, &ay, mbx + right, mby - 1, W, H);
        clamp_vector (&ax, &ay, mbx, mby, W, H);
        if ((ax || ay) && (ax != dx || ay != dy) &&
            !(second && ax == sec_x && ay == sec_y)) {
          const gint sada = luma_sad (src, ref, mbx, mby, ax, ay);
          const gint above_bits = vector_bits (ax, ay, px, py);
          if (sada + MOVING_MARGIN * q < sad0 && (!second ||
                  16 * sada + lambda16 * above_bits <
                  16 * sad_second + lambda16 * second_bits)) {
            second = TRUE;
            sec_x = ax;
            sec_y = ay;
            sad_second = sada;
            second_bits = above_bits;
            second_from_above = TRUE;
          }
        }
      }
      alt_bits = vector_bits (dx, dy, px, py);
      if (second) {
        const gint64 price = SECOND_RIVAL_PRICE * (gint64) lambda16;
        gint p_first[GST_CL_MPEG_BLOCKS][64], p_second[GST_CL_MPEG_BLOCKS][64];
        predict_mb (ref, mbx, mby, dx, dy, p_first);
        predict_mb (ref, mbx, mby, sec_x, sec_y, p_second);
        second = 16 * (gint64) luma_satd_sad (src, p_second) +
            price * second_bits < 16 * ((gint64) luma_satd_sad (src,
                p_first) + SECOND_RIVAL_MARGIN * q) +
            price * (dx || dy ? alt_bits : 0);
        mpegref_second_vectors_passed += !second;
      }
      /* the field prediction instead where it is cheaper */
      if (prm->field_motion) {
        const GstClMpegFieldChoice *f = &fields[mby * cur->mb_width + mbx];
        const gint64 price = FIELD_MOTION_PRICE * (gint64) lambda16;
        gint p_field[GST_CL_MPEG_BLOCKS][64], p_frame[GST_CL_MPEG_BLOCKS][64];
        predict_mb (field_pred, mbx, mby, 0, 0, p_field);
        predict_mb (ref, mbx, mby, dx, dy, p_frame);
        if (16 * (gint64) luma_satd_sad (src, p_field) + price * (f->bits +
                FIELD_MOTION_EXTRA_BITS) <
            16 * (gint64) luma_satd_sad (src, p_frame) + price * alt_bits) {
          field_mv = TRUE;
          sadv = f->sad;
          alt_bits = f->bits;
          dx = dy = 0;
        }
      }
      /* intra competes too where it is plausible at all */
      intra_cand = MIN (sad0, sadv) > act / 4;
      rec->cost = sad0;
      moving = !intra && (field_mv || dx || dy) &&
          sadv + MOVING_MARGIN * q < sad0;
      mx = dx;
      my = dy;
      sad_moving = sadv;
      dx = dy = 0;
    } else {
      gint best;
      if (sad0 <= sadv + ZERO_VECTOR_BIAS) {
        dx = dy = 0;
        best = sad0;
      } else {
        best = sadv;
      }
      intra = best > act + (gint) prm->intra_bias;
      rec->cost = intra ? act : best;
    }
    if (intra)
      dx = dy = 0;
  }
  if (intra)
    memset (pred, 0, sizeof (pred));
  else
    predict_mb (ref, mbx, mby, dx, dy, pred);
  if (moving)
    predict_mb (field_mv ? field_pred : ref, mbx, mby, mx, my, pred_m);
  /* the intra candidate's blocks: frame or field as its samples prefer */
  memcpy (src_in, src, sizeof (src));
  if (prm->field_dct && intra_cand) {
    gint none[GST_CL_MPEG_BLOCKS][64];
    memset (none, 0, sizeof (none));
    field_in = prefers_field_dct (src, none);
    if (field_in)
      to_field_blocks (src_in, n_blocks);
  }
  /* the frame blocks, for the other arrangement's try below */
  memcpy (src_frame, src, sizeof (src));
  memcpy (pred_frame, pred, sizeof (pred));
  if (moving)
    memcpy (pred_m_frame, pred_m, sizeof (pred_m));
  if (prm->field_dct) {
    /* by the residual of the moving candidate where there is one, else
     * of the prediction so far (intra: the samples): the arrangement
     * coded first */
    field = prefers_field_dct (src, moving ? pred_m : pred);
    if (field) {
      to_field_blocks (src, n_blocks);
      to_field_blocks (pred, n_blocks);
      if (moving)
        to_field_blocks (pred_m, n_blocks);
      block_places (cur, TRUE, mbx, mby, bx, by, ys);
    }
  }

  {
    /* (every candidate weighs its bits at the macroblock's quantiser) */
    gint lambda4 = (prm->rd_lambda * q * q + 2) >> 2, q_base = q;
    gint delta, cbp;
    gint64 energy;
    code_levels (src, pred, n_blocks, intra, &q, lambda4, prm, levels, &delta,
        &cbp, &energy);
    if (rd && !intra) {
      gboolean keep;
      gint64 j = inter_cost (energy, delta, cbp, n_blocks, -1, lambda4, &keep);
      gboolean chose_m = FALSE;
      if (moving) {
        /* the moving candidate against the zero vector, both coded */
        if (take_cheaper (src, pred_m, n_blocks, q_base, lambda4, prm,
                alt_bits, &j, &keep, &q, pred, levels)) {
          chose_m = TRUE;
          dx = mx;
          dy = my;
          field_chosen = field_mv;
          rec->cost = sad_moving;
        }
      }
      if (second) {
        /* the second moving candidate against the better of those */
        gint pred_s[GST_CL_MPEG_BLOCKS][64];
        predict_mb (ref, mbx, mby, sec_x, sec_y, pred_s);
        if (take_cheaper (src, pred_s, n_blocks, q_base, lambda4, prm,
                second_bits, &j, &keep, &q, pred, levels)) {
          dx = sec_x;
          dy = sec_y;
          field_chosen = FALSE;
          rec->cost = sad_second;
          mpegref_second_vectors_taken++;
          mpegref_above_vectors_taken += second_from_above;
        }
      }
      /* the prediction chosen in the other arrangement, taken where it
       * costs less */
      if (prm->field_dct && keep) {
        gint src_o[GST_CL_MPEG_BLOCKS][64], pred_o[GST_CL_MPEG_BLOCKS][64];
        gint16 levels_o[GST_CL_MPEG_MB_LEVELS];
        gint delta_o, cbp_o, q_o = q_base;
        gint64 energy_o;
        gboolean keep_o;
        memcpy (src_o, src_frame, sizeof (src_o));
        memcpy (pred_o, chose_m ? pred_m_frame : pred_frame, sizeof (pred_o));
        if (!field) {
          to_field_blocks (src_o, n_blocks);
          to_field_blocks (pred_o, n_blocks);
        }
        code_levels (src_o, pred_o, n_blocks, FALSE, &q_o, lambda4, prm,
            levels_o, &delta_o, &cbp_o, &energy_o);
        gint64 j_o = inter_cost (energy_o, delta_o, cbp_o, n_blocks,
            chose_m ? alt_bits : -1, lambda4, &keep_o);
        if (j_o < j) {
          j = j_o;
          field = !field;
          block_places (cur, field, mbx, mby, bx, by, ys);
          q = q_o;
          memcpy (pred, pred_o, sizeof (pred));
          memcpy (levels, levels_o, n_blocks * 64 * sizeof (gint16));
        }
      }
      if (!keep)
        memset (levels, 0, n_blocks * 64 * sizeof (gint16));
      /* intra only against a prediction whose levels are worth coding */
      if (intra_cand && keep) {
        gint16 levels_i[GST_CL_MPEG_MB_LEVELS];
        gint delta_i, cbp_i, none[GST_CL_MPEG_BLOCKS][64], q_i = q_base;
        gint64 energy_i;
        memset (none, 0, sizeof (none));
        code_levels (src_in, none, n_blocks, TRUE, &q_i, lambda4, prm,
            levels_i, &delta_i, &cbp_i, &energy_i);
        if (intra_cost (energy_i, delta_i, levels_i, n_blocks, lambda4,
                dc_shift (prm)) < j) {
          intra = TRUE;
          field_chosen = FALSE;
          if (field_in != field) {
            field = field_in;
            block_places (cur, field, mbx, mby, bx, by, ys);
          }
          q = q_i;
          dx = dy = 0;
          rec->cost = act;
          memset (pred, 0, sizeof (pred));
          memcpy (levels, levels_i, n_blocks * 64 * sizeof (gint16));
        }
      }
    }
  }

  /* reconstruction */
  for (b = 0; b < (gint) n_blocks; b++) {
    gint last = 0, coef[64], sum = 0;
    for (i = 0; i < 64; i++) {
      gint L, z = 0, D;
      while (levels_scan (prm)[z] != i)
        z++;
      L = levels[b * 64 + z];
      if (L)
        last = MAX (last, z + 1);
      /* dequantisation (11172-2 2.4.4.1, 2.4.4.2; 13818-2 7.4.2) with
       * MPEG-1's mismatch control */
      if (intra && i == 0) {
        D = (8 >> dc_shift (prm)) * L;
      } else if (L == 0) {
        D = 0;
      } else {
        if (intra)
          D = (2 * L * q * gst_cl_mpeg_default_intra_matrix[i]) / 16;
        else
          D = ((2 * L + (L > 0 ? 1 : -1)) * q * 16) / 16;
        if (!prm->mpeg2 && (D & 1) == 0)
          D -= D > 0 ? 1 : -1;
        D = CLAMP (D, -2048, 2047);
      }
      coef[i] = D;
      sum += D;
    }
    /* MPEG-2's (13818-2 7.4.4), on coded blocks */
    if (prm->mpeg2 && (intra || last) && sum % 2 == 0)
      coef[63] ^= 1;
    rec->last[b] = last;
    if (last)
      rec->cbp |= (1 << (n_blocks - 1)) >> b;
    mpegref_idct (coef);
    for (i = 0; i < 64; i++)
      out[bc[b]][(by[b] + ys[b] * (i / 8)) * stride[bc[b]] + bx[b] + i % 8] =
          CLAMP (pred[b][i] + coef[i], 0, 255);
  }
  rec->dx = dx;
  rec->dy = dy;
  rec->quant = q;
  rec->n_blocks = n_blocks;
  rec->activity = act;
  rec->flags = (intra ? GST_CL_MPEG_MB_INTRA : 0) |
      (!intra && !field_chosen && dx == 0 && dy == 0 && rec->cbp == 0 ?
      GST_CL_MPEG_MB_SKIPPABLE : 0) | (field ? GST_CL_MPEG_MB_FIELD_DCT : 0) |
      (field_chosen ? GST_CL_MPEG_MB_FIELD_MOTION : 0);
}

void
mpegref_encode_fields (const MpegRefPicture * cur, const MpegRefPicture * ref,
    const GstClMotionVector * vectors, const MpegRefPicture * field_pred,
    const GstClMpegFieldChoice * fields, const GstClMpegEncodeParams * params,
    GstClMpegMbRecord * records, gint16 * levels, MpegRefPicture * recon)
{
  guint mbx, mby;

  init_cosines ();
  for (mby = 0; mby < cur->mb_height; mby++)
    for (mbx = 0; mbx < cur->mb_width; mbx++) {
      guint n = mby * cur->mb_width + mbx;
      encode_mb (cur, ref, vectors, field_pred, fields, params, mbx, mby,
          &records[n], levels + (gsize) n * GST_CL_MPEG_MB_LEVELS, recon);
    }
}

void
mpegref_encode (const MpegRefPicture * cur, const MpegRefPicture * ref,
    const GstClMotionVector * vectors, const GstClMpegEncodeParams * params,
    GstClMpegMbRecord * records, gint16 * levels, MpegRefPicture * recon)
{
  GstClMpegEncodeParams p = *params;

  p.field_motion = FALSE;
  mpegref_encode_fields (cur, ref, vectors, NULL, NULL, &p, records, levels,
      recon);
}

/* field_vector_fits, field_sad: see kernels/mpegenc.cl */
static gboolean
field_vector_fits (gint vx, gint vy, gint mbx, gint mby, gint W, gint H,
    gint range)
{
  gint x0 = mbx * 16 + (vx >> 1), y0 = mby * 8 + (vy >> 1);
  return vx >= -range && vx < range && vy >= -range && vy < range &&
      x0 >= 0 && x0 + 16 + (vx & 1) <= W && y0 >= 0 &&
      y0 + 8 + (vy & 1) <= H / 2;
}

static gint
field_sad (const guint8 * cur, const guint8 * ref, gint W, gint mbx,
    gint mby, gint p, gint s, gint vx, gint vy)
{
  gint sad = 0, i, x;
  for (i = 0; i < 8; i++)
    for (x = 0; x < 16; x++)
      sad += ABS ((gint) cur[(mby * 16 + 2 * i + p) * W + mbx * 16 + x] -
          predict (ref + s * W, 2 * W, mbx * 16 + x, mby * 8 + i, vx >> 1,
              vy >> 1, vx & 1, vy & 1));
  return sad;
}

/* field_cost, field_neighbours: see kernels/mpegenc.cl; @px, @py the
 * field vector the bits are counted from */
static gint
field_cost (gint sad, gint vx, gint vy, gint px, gint py, gint lambda16)
{
  return 16 * sad + lambda16 * vector_bits (vx, vy, px, py);
}

static gboolean
field_neighbours (const guint8 * cur, const guint8 * ref, gint px, gint py,
    gint lambda16, gint W, gint H, gint mbx, gint mby, gint p, gint s,
    gint range, gint * vx, gint * vy, gint * cost, gint * best)
{
  gint fromx = *vx, fromy = *vy, k;
  for (k = 0; k < 9; k++) {
    gint x = fromx + 2 * (k % 3 - 1), y = fromy + 2 * (k / 3 - 1), sad;
    gint j;
    if (k == 4 || !field_vector_fits (x, y, mbx, mby, W, H, range))
      continue;
    sad = field_sad (cur, ref, W, mbx, mby, p, s, x, y);
    j = field_cost (sad, x, y, px, py, lambda16);
    if (j < *cost) {
      *cost = j;
      *best = sad;
      *vx = x;
      *vy = y;
    }
  }
  return *vx != fromx || *vy != fromy;
}

/* The first least of the half-pel field vectors around (*@vx, *@vy) and
 * itself by the SATD plus SAD of field @p's luma residual (two 8 x 8
 * blocks) from field @s, a bit at FIELD_HALF_PRICE lambda16 / 16: into
 * (*@vx, *@vy), its SAD into *@best */
static void
field_half_by_satd (const guint8 * cur, const guint8 * ref, gint px, gint py,
    gint lambda16, gint W, gint H, gint mbx, gint mby, gint p, gint s,
    gint range, gint * vx, gint * vy, gint * best)
{
  gint fromx = *vx, fromy = *vy, k;
  gint64 least = G_MAXINT64;
  for (k = 0; k < 9; k++) {
    gint x = fromx + k % 3 - 1, y = fromy + k / 3 - 1, d[2][64], i, j;
    gint sad = 0;
    gint64 c;
    if (k != 4 && !field_vector_fits (x, y, mbx, mby, W, H, range))
      continue;
    for (i = 0; i < 8; i++)
      for (j = 0; j < 16; j++) {
        d[j / 8][8 * i + j % 8] = (gint) cur[(mby * 16 + 2 * i + p) * W +
            mbx * 16 + j] - predict (ref + s * W, 2 * W, mbx * 16 + j,
            mby * 8 + i, x >> 1, y >> 1, x & 1, y & 1);
        sad += ABS (d[j / 8][8 * i + j % 8]);
      }
    c = 16 * (gint64) (block_satd_sad (d[0]) + block_satd_sad (d[1])) +
        FIELD_HALF_PRICE * (gint64) lambda16 * vector_bits (x, y, px, py);
    if (c < least) {
      least = c;
      *vx = x;
      *vy = y;
      *best = sad;
    }
  }
}

/* @v of a frame vector spanning @span field periods scaled to @dt of
 * them, rounded half away from zero */
static gint
scale_to_fields (gint v, gint dt, gint span)
{
  gint a = (ABS (v) * dt + span / 2) / span;
  return v < 0 ? -a : a;
}

/* dual prime (13818-2 7.6.3.6), as kernels/mpegenc.cl searches it: the
 * vector to the other parity's reference field for field @p, from the
 * same-parity vector component @v over two field periods, the @m periods
 * between the fields and the differential @d */
static gint
dual_prime_component (gint v, gint m, gint d, gint e)
{
  return ((v * m + (v > 0 ? 1 : 0)) >> 1) + d + e;
}

/* the other parity's vectors of each field for (@vx, @vy) and (@dx,
 * @dy) into @ox, @oy, and whether all predict from inside the fields */
static gboolean
dual_prime_fits (gint vx, gint vy, gint dx, gint dy, gint span, gint order,
    gint mbx, gint mby, gint W, gint H, gint range, gint * ox, gint * oy)
{
  gint p;
  for (p = 0; p < 2; p++) {
    gint m = span + order * (p ? 1 : -1);
    ox[p] = dual_prime_component (vx, m, dx, 0);
    oy[p] = dual_prime_component (vy, m, dy, p ? 1 : -1);
    if (!field_vector_fits (ox[p], oy[p], mbx, mby, W, H, 1 << 20))
      return FALSE;
  }
  return field_vector_fits (vx, vy, mbx, mby, W, H, range);
}

/* the dual prime prediction of sample (@x, line @y of field @p) of a
 * plane whose fields start @line apart, lines @stride apart */
static gint
dual_prime_sample (const guint8 * ref, gint line, gint stride, gint x,
    gint y, gint p, gint vx, gint vy, gint ox, gint oy)
{
  return (predict (ref + p * line, stride, x, y, vx >> 1, vy >> 1, vx & 1,
          vy & 1) + predict (ref + (1 - p) * line, stride, x, y, ox >> 1,
          oy >> 1, ox & 1, oy & 1) + 1) >> 1;
}

/* the cost of dual prime (@vx, @vy), (@dx, @dy) against (@px, @py), its
 * luma SAD in *@sad; G_MAXINT where it does not fit */
static gint
dual_prime_cost (const guint8 * cur, const guint8 * ref, gint vx, gint vy,
    gint dx, gint dy, gint px, gint py, gint lambda16, gint span, gint order,
    gint mbx, gint mby, gint W, gint H, gint range, gint * sad)
{
  gint ox[2], oy[2], p, i, x;
  if (!dual_prime_fits (vx, vy, dx, dy, span, order, mbx, mby, W, H, range,
          ox, oy))
    return G_MAXINT;
  *sad = 0;
  for (p = 0; p < 2; p++)
    for (i = 0; i < 8; i++)
      for (x = 0; x < 16; x++)
        *sad += ABS ((gint) cur[(mby * 16 + 2 * i + p) * W + mbx * 16 + x] -
            dual_prime_sample (ref, W, 2 * W, mbx * 16 + x, mby * 8 + i, p,
                vx, vy, ox[p], oy[p]));
  return field_cost (*sad, vx, vy, px, py, lambda16) + lambda16 *
      ((dx ? 2 : 1) + (dy ? 2 : 1));
}

/* the eight tries around the dual prime vector (@vector) or its
 * differential: the first that costs less than *@cost takes its place */
static void
dual_prime_steps (const guint8 * cur, const guint8 * ref, gboolean vector,
    gint * vx, gint * vy, gint * dx, gint * dy, gint * cost, gint * best,
    gint px, gint py, gint lambda16, gint span, gint order, gint mbx,
    gint mby, gint W, gint H, gint range)
{
  gint x0 = vector ? *vx : *dx, y0 = vector ? *vy : *dy, k, sad, j;

  for (k = 0; k < 9; k++) {
    gint x = x0 + k % 3 - 1, y = y0 + k / 3 - 1;
    if (k == 4)
      continue;
    j = dual_prime_cost (cur, ref, vector ? x : *vx, vector ? y : *vy,
        vector ? *dx : x, vector ? *dy : y, px, py, lambda16, span, order,
        mbx, mby, W, H, range, &sad);
    if (j < *cost) {
      *cost = j;
      *best = sad;
      *(vector ? vx : dx) = x;
      *(vector ? vy : dy) = y;
    }
  }
}

/* Whether dual prime with (@vx, @vy) and (@ddx, @ddy) costs less than
 * the fields' own vectors of @ch (their bits in it): the SATD plus SAD
 * of each one's luma residual in frame blocks, a bit at DUAL_PRIME_PRICE
 * lambda16 / 16 */
static gboolean
dual_prime_pays (const MpegRefPicture * cur, const MpegRefPicture * ref,
    gint mbx, gint mby, gint vx, gint vy, gint ddx, gint ddy,
    const GstClMpegFieldChoice * ch, gint span, gint order, gint range,
    gint px, gint py, gint lambda16)
{
  const gint W = cur->mb_width * 16, H = cur->mb_height * 16;
  const gint64 price = DUAL_PRIME_PRICE * (gint64) lambda16;
  const gint dual_bits = vector_bits (vx, vy, px, py) + (ddx ? 2 : 1) +
      (ddy ? 2 : 1);
  gint src[GST_CL_MPEG_BLOCKS][64], field[GST_CL_MPEG_BLOCKS][64];
  gint dual[GST_CL_MPEG_BLOCKS][64], ox[2], oy[2], x, y;

  dual_prime_fits (vx, vy, ddx, ddy, span, order, mbx, mby, W, H, range, ox,
      oy);
  for (y = 0; y < 16; y++)
    for (x = 0; x < 16; x++) {
      const gint p = y & 1, line = mby * 8 + y / 2, X = mbx * 16 + x;
      const gint b = 2 * (y / 8) + x / 8, k = 8 * (y % 8) + x % 8;
      src[b][k] = cur->data[(mby * 16 + y) * W + X];
      field[b][k] = predict (ref->data + ch->select[p] * W, 2 * W, X, line,
          ch->dx[p] >> 1, ch->dy[p] >> 1, ch->dx[p] & 1, ch->dy[p] & 1);
      dual[b][k] = dual_prime_sample (ref->data, W, 2 * W, X, line, p, vx, vy,
          ox[p], oy[p]);
    }
  return 16 * (gint64) luma_satd_sad (src, dual) + price * dual_bits <
      16 * (gint64) luma_satd_sad (src, field) + price * ch->bits;
}

void
mpegref_field_search (const MpegRefPicture * cur, const MpegRefPicture * ref,
    const GstClMotionVector * vectors, const GstClMotionVector * field_vectors,
    gint range, gint reach, gint seed_reach,
    const GstClMpegFieldTiming * timing, gint lambda16,
    MpegRefPicture * pred, GstClMpegFieldChoice * choices)
{
  gint span = timing ? (gint) timing->span : 0;
  gint order = timing ? timing->order : 0;
  gint W = cur->mb_width * 16, H = cur->mb_height * 16, CW = W / 2;
  /* chroma lines of a macroblock (half of them in each field), of a
   * picture */
  gint CR = mb_chroma_rows (cur), CH = cur->mb_height * CR;
  gint mbx, mby;

  for (mby = 0; mby < (gint) cur->mb_height; mby++)
    for (mbx = 0; mbx < (gint) cur->mb_width; mbx++) {
      gint n = mby * cur->mb_width + mbx, p, c, i, x, total = 0, bits = 2;
      gint ox[2] = { 0, 0 }, oy[2] = { 0, 0 };
      gint fx = vectors[n].dx, fy = vectors[n].dy;
      /* the top fields' vector of the block over the macroblock, as a
       * frame vector; its grids where it differs from the frame vector */
      const GstClMotionVector *tv = field_vectors ?
          &field_vectors[mby / 2 * cur->mb_width + mbx] : NULL;
      const gint seeds[2][2] = { {fx, fy},
      {tv ? tv->dx : fx, tv ? 2 * tv->dy : fy}
      };
      const gint n_seeds = seeds[1][0] != fx || seeds[1][1] != fy ? 2 : 1;
      /* the left neighbour's frame vector as a field vector */
      gint px = mbx ? vectors[n - 1].dx : 0;
      gint py = mbx ? vectors[n - 1].dy >> 1 : 0;
      GstClMpegFieldChoice *ch = &choices[n];

      for (p = 0; p < 2; p++) {
        gint bx = 0, by = 0, bs = p, s, k, dx, dy, m;
        gint best = field_sad (cur->data, ref->data, W, mbx, mby, p, p, 0, 0);
        gint cost = field_cost (best, 0, 0, px, py, lambda16);
        for (m = 0; m < n_seeds * 2; m++) {
          /* the seed scaled to the fields' distance in time */
          const gint r = m / 2 ? seed_reach : reach;
          gint dt, sx, sy, cx, cy;
          s = m % 2;
          dt = span + order * (p - s);
          sx = span ? scale_to_fields (seeds[m / 2][0], dt, span) :
              seeds[m / 2][0];
          sy = span ? scale_to_fields (seeds[m / 2][1], dt, span) :
              seeds[m / 2][1];
          cx = sx & ~1;
          cy = ((sy >> 1) + p - s) & ~1;
          for (dy = -2 * r; dy <= 2 * r; dy += 2)
            for (dx = -2 * r; dx <= 2 * r; dx += 2) {
              gint sad, j;
              if (!field_vector_fits (cx + dx, cy + dy, mbx, mby, W, H,
                      range))
                continue;
              sad = field_sad (cur->data, ref->data, W, mbx, mby, p, s,
                  cx + dx, cy + dy);
              j = field_cost (sad, cx + dx, cy + dy, px, py, lambda16);
              if (j < cost) {
                cost = j;
                best = sad;
                bx = cx + dx;
                by = cy + dy;
                bs = s;
              }
            }
        }
        /* one-sample steps, then the half-pel vectors around the best */
        for (k = 0; k < FIELD_STEPS; k++)
          if (!field_neighbours (cur->data, ref->data, px, py, lambda16, W,
                  H, mbx, mby, p, bs, range, &bx, &by, &cost, &best))
            break;
        field_half_by_satd (cur->data, ref->data, px, py, lambda16, W, H,
            mbx, mby, p, bs, range, &bx, &by, &best);
        ch->dx[p] = bx;
        ch->dy[p] = by;
        ch->select[p] = bs;
        total += best;
        bits += vector_bits (bx, by, px, py);
      }
      ch->bits = bits;
      ch->sad = total;
      ch->dual_prime = 0;
      ch->dmv[0] = ch->dmv[1] = 0;
      ch->reserved = 0;
      if (timing && timing->dual_prime && span == 2) {
        /* each seed (the frame vector as a field vector, each field's
         * vector from the field of its parity, zero) without a
         * differential, the other differentials of the best (the first
         * seed where none fits), then one step of its vector */
        gint seeds[4][2] = { {fx, fy >> 1}, {0, 0}, {0, 0}, {0, 0} };
        gint dcost = G_MAXINT, dsad = 0, vx = fx, vy = fy >> 1, ddx = 0;
        gint ddy = 0, k, sad, j;
        for (p = 0; p < 2; p++)
          if (ch->select[p] == p) {
            seeds[1 + p][0] = ch->dx[p];
            seeds[1 + p][1] = ch->dy[p];
          }
        for (k = 0; k < 4; k++) {
          j = dual_prime_cost (cur->data, ref->data, seeds[k][0],
              seeds[k][1], 0, 0, px, py, lambda16, span, order, mbx, mby, W,
              H, range, &sad);
          if (j < dcost) {
            dcost = j;
            dsad = sad;
            vx = seeds[k][0];
            vy = seeds[k][1];
          }
        }
        dual_prime_steps (cur->data, ref->data, FALSE, &vx, &vy, &ddx, &ddy,
            &dcost, &dsad, px, py, lambda16, span, order, mbx, mby, W, H,
            range);
        if (dcost < G_MAXINT)
          dual_prime_steps (cur->data, ref->data, TRUE, &vx, &vy, &ddx, &ddy,
              &dcost, &dsad, px, py, lambda16, span, order, mbx, mby, W, H,
              range);
        gboolean pays = dcost < G_MAXINT && dual_prime_pays (cur, ref, mbx,
            mby, vx, vy, ddx, ddy, ch, span, order, range, px, py, lambda16);
        mpegref_dual_prime_taken += pays;
        mpegref_dual_prime_declined += dcost < G_MAXINT && !pays;
        if (pays) {
          ch->dual_prime = 1;
          ch->dmv[0] = ddx;
          ch->dmv[1] = ddy;
          ch->dx[0] = ch->dx[1] = vx;
          ch->dy[0] = ch->dy[1] = vy;
          ch->select[0] = 0;
          ch->select[1] = 1;
          ch->sad = dsad;
          ch->bits = vector_bits (vx, vy, px, py) + (ddx ? 2 : 1) +
              (ddy ? 2 : 1);
        }
      }
      /* dual prime: the other parity's vectors of both fields */
      if (ch->dual_prime)
        dual_prime_fits (ch->dx[0], ch->dy[0], ch->dmv[0], ch->dmv[1], span,
            order, mbx, mby, W, H, range, ox, oy);
      for (p = 0; p < 2; p++) {
        gint vx = ch->dx[p], vy = ch->dy[p], cx, cy, cox = 0, coy = 0;
        gint s = ch->select[p];
        gboolean dual = ch->dual_prime;
        chroma_vector (cur, vx, vy, &cx, &cy);
        if (dual)
          chroma_vector (cur, ox[p], oy[p], &cox, &coy);
        for (i = 0; i < 8; i++)
          for (x = 0; x < 16; x++)
            pred->data[(mby * 16 + 2 * i + p) * W + mbx * 16 + x] = dual ?
                dual_prime_sample (ref->data, W, 2 * W, mbx * 16 + x,
                mby * 8 + i, p, vx, vy, ox[p], oy[p]) :
                predict (ref->data + s * W, 2 * W, mbx * 16 + x, mby * 8 + i,
                vx >> 1, vy >> 1, vx & 1, vy & 1);
        for (c = 0; c < 2; c++) {
          gsize off = (gsize) W * H + c * CW * CH;
          for (i = 0; i < CR / 2; i++)
            for (x = 0; x < 8; x++)
              pred->data[off + (mby * CR + 2 * i + p) * CW + mbx * 8 + x] =
                  dual ? dual_prime_sample (ref->data + off, CW, 2 * CW,
                  mbx * 8 + x, mby * CR / 2 + i, p, cx, cy, cox, coy) :
                  predict (ref->data + off + s * CW, 2 * CW, mbx * 8 + x,
                  mby * CR / 2 + i, cx >> 1, cy >> 1, cx & 1, cy & 1);
        }
      }
    }
}

/* the macroblock column or row holding sample @centre + @half_pels / 2,
 * within @n */
static gint
macroblock_at (gint centre, gint half_pels, guint n)
{
  gint sample = centre + (gint) floor (half_pels / 2.0);

  return CLAMP ((gint) floor (sample / 16.0), 0, (gint) n - 1);
}

void
mpegref_follow_vectors (const GstClMotionVector * a,
    const GstClMotionVector * b, GstClMotionVector * out, guint mb_width,
    guint mb_height, gint sign)
{
  const gint reach = 2 * GST_CL_MOTION_SEARCH_LIMIT;
  guint mbx, mby;

  for (mby = 0; mby < mb_height; mby++)
    for (mbx = 0; mbx < mb_width; mbx++) {
      guint i = mby * mb_width + mbx;
      gint tx = a[i].dx - (sign < 0 ? b[i].dx : 0);
      gint ty = a[i].dy - (sign < 0 ? b[i].dy : 0);
      guint j = macroblock_at (16 * mby + 8, ty, mb_height) * mb_width +
          macroblock_at (16 * mbx + 8, tx, mb_width);

      out[i].dx = CLAMP (a[i].dx + sign * b[j].dx, -reach, reach);
      out[i].dy = CLAMP (a[i].dy + sign * b[j].dy, -reach, reach);
      out[i].sad = 0;
    }
}
