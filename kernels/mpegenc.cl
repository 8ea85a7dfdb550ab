/* gst-clvideo: MPEG-1 encoder device stages
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * mpeg_load pads an I420/NV12 frame to whole macroblocks (edge samples
 * replicated) into a planar picture: Y (W x H), Cb, Cr (W/2 x H/2).
 *
 * mpeg_encode_mb runs one work-group of 64 work-items per macroblock, one
 * work-item per sample position of the six 8x8 blocks: motion-compensated
 * prediction (half-pel, MPEG-1 averages) from the reconstructed
 * reference, intra/inter decision, forward DCT, quantisation, zigzag,
 * coded block pattern, then the decoder's reconstruction (dequantisation
 * with mismatch control, inverse DCT, clamp) into the next reference.
 * Everything is integer arithmetic, so that every device and the C
 * reference in tests/mpegenc-ref.c agree to the bit.
 */

typedef struct {
  short dx, dy;
  uint sad;
} MotionVector;

/* gst/gstclmpegvlc.h GstClMpegMbRecord */
typedef struct {
  short dx, dy;
  uchar flags, cbp, quant, reserved0;
  uchar last[6];
  ushort reserved1;
  uint activity, cost;
} MbRecord;

#define MB_INTRA 1
#define MB_SKIPPABLE 2
#define ZERO_VECTOR_BIAS 128

/* round (16384 * c(k) / 2 * cos ((2n + 1) k pi / 16)), [k][n] */
__constant int DCT_C[64] = {
  5793, 5793, 5793, 5793, 5793, 5793, 5793, 5793,
  8035, 6811, 4551, 1598, -1598, -4551, -6811, -8035,
  7568, 3135, -3135, -7568, -7568, -3135, 3135, 7568,
  6811, -1598, -8035, -4551, 4551, 8035, 1598, -6811,
  5793, -5793, -5793, 5793, 5793, -5793, -5793, 5793,
  4551, -8035, 1598, 6811, -6811, -1598, 8035, -4551,
  3135, -7568, 7568, -3135, -3135, 7568, -7568, 3135,
  1598, -4551, 6811, -8035, 8035, -6811, 4551, -1598,
};

/* natural position -> zigzag index */
__constant uchar ZIGZAG_OF[64] = {
  0, 1, 5, 6, 14, 15, 27, 28, 2, 4, 7, 13, 16, 26, 29, 42,
  3, 8, 12, 17, 25, 30, 41, 43, 9, 11, 18, 24, 31, 40, 44, 53,
  10, 19, 23, 32, 39, 45, 52, 54, 20, 22, 33, 38, 46, 51, 55, 60,
  21, 34, 37, 47, 50, 56, 59, 61, 35, 36, 48, 49, 57, 58, 62, 63,
};

/* the default intra quantiser matrix, natural order */
__constant uchar INTRA_W[64] = {
  8, 16, 19, 22, 26, 27, 29, 34, 16, 16, 22, 24, 27, 29, 34, 37,
  19, 22, 26, 27, 29, 34, 34, 38, 22, 22, 26, 27, 29, 34, 37, 40,
  22, 26, 27, 29, 32, 35, 40, 48, 26, 27, 29, 32, 35, 40, 48, 58,
  26, 27, 29, 34, 38, 46, 56, 69, 27, 29, 35, 38, 46, 56, 69, 83,
};

__kernel void
mpeg_load (__global const uchar * src, uint y_off, uint y_stride,
    uint u_off, uint u_stride, uint v_off, uint v_stride, uint c_ps,
    uint width, uint height, __global uchar * dst, uint W, uint H)
{
  const uint cx = get_global_id (0), cy = get_global_id (1);
  const uint CW = W / 2, cw = (width + 1) / 2, ch = (height + 1) / 2;
  uint sx, sy, i;

  if (cx >= CW || cy >= H / 2)
    return;
  for (i = 0; i < 4; i++) {
    uint x = 2 * cx + (i & 1), y = 2 * cy + (i >> 1);
    dst[y * W + x] = src[y_off + min (y, height - 1) * y_stride +
        min (x, width - 1)];
  }
  sx = min (cx, cw - 1);
  sy = min (cy, ch - 1);
  dst[W * H + cy * CW + cx] = src[u_off + sy * u_stride + sx * c_ps];
  dst[W * H + CW * (H / 2) + cy * CW + cx] =
      src[v_off + sy * v_stride + sx * c_ps];
}

/* Sum of @v over the work-group (64 items); every item gets it. */
static int
group_sum (__local int *red, int v, uint t)
{
  int s;
  barrier (CLK_LOCAL_MEM_FENCE);
  red[t] = v;
  barrier (CLK_LOCAL_MEM_FENCE);
  for (uint n = 32; n > 0; n >>= 1) {
    if (t < n)
      red[t] += red[t + n];
    barrier (CLK_LOCAL_MEM_FENCE);
  }
  s = red[0];
  return s;
}

static int
predict (__global const uchar * p, uint stride, int x, int y, int fx, int fy,
    int hx, int hy)
{
  __global const uchar *s = p + (y + fy) * (int) stride + x + fx;
  if (hx && hy)
    return (s[0] + s[1] + s[stride] + s[stride + 1] + 2) >> 2;
  if (hx)
    return (s[0] + s[1] + 1) >> 1;
  if (hy)
    return (s[0] + s[stride] + 1) >> 1;
  return s[0];
}

__kernel __attribute__ ((reqd_work_group_size (64, 1, 1)))
void
mpeg_encode_mb (__global const uchar * cur, __global const uchar * ref,
    __global uchar * recon, __global const MotionVector * vectors,
    __global MbRecord * records, __global short *levels, uint mbw, uint mbh,
    uint p_picture, uint qscale, uint adaptive, uint avg_act,
    uint intra_bias)
{
  const uint mb = get_group_id (0);
  const uint mbx = mb % mbw, mby = mb / mbw;
  const uint t = get_local_id (0);
  const uint r = t >> 3, c = t & 7;
  const uint W = mbw * 16, H = mbh * 16, CW = W / 2;
  const uint off[3] = { 0, W * H, W * H + CW * (H / 2) };

  __local int blk[6][64];
  __local int tmp[6][64];
  __local int pr[6][64];
  __local int red[64];
  __local int last_l[6];

  int bx[6], by[6], bc[6];
  int sum, act, intra, dx = 0, dy = 0, q, cost, b;

  for (b = 0; b < 6; b++) {
    bc[b] = b < 4 ? 0 : b - 3;
    bx[b] = b < 4 ? mbx * 16 + (b & 1) * 8 : mbx * 8;
    by[b] = b < 4 ? mby * 16 + (b >> 1) * 8 : mby * 8;
  }
  for (b = 0; b < 6; b++) {
    uint s = b < 4 ? W : CW;
    blk[b][t] = cur[off[bc[b]] + (by[b] + r) * s + bx[b] + c];
    pr[b][t] = 0;
  }
  if (t < 6)
    last_l[t] = 0;

  /* activity: sum of |sample - mean| over the luma, in 1/256 steps */
  sum = group_sum (red, blk[0][t] + blk[1][t] + blk[2][t] + blk[3][t], t);
  act = group_sum (red, abs (256 * blk[0][t] - sum) +
      abs (256 * blk[1][t] - sum) + abs (256 * blk[2][t] - sum) +
      abs (256 * blk[3][t] - sum), t) >> 8;

  intra = !p_picture;
  cost = act;
  if (p_picture) {
    int s0 = 0, sv = 0, best;
    dx = vectors[mb].dx;
    dy = vectors[mb].dy;
    /* keep the whole prediction inside the padded picture */
    dx = clamp (dx, -32 * (int) mbx, 2 * ((int) W - 16 - 16 * (int) mbx));
    dy = clamp (dy, -32 * (int) mby, 2 * ((int) H - 16 - 16 * (int) mby));
    for (b = 0; b < 4; b++) {
      int x = bx[b] + c, y = by[b] + r;
      s0 += abs (blk[b][t] - (int) ref[y * W + x]);
      sv += abs (blk[b][t] - predict (ref, W, x, y, dx >> 1, dy >> 1, dx & 1,
              dy & 1));
    }
    s0 = group_sum (red, s0, t);
    sv = group_sum (red, sv, t);
    if (s0 <= sv + ZERO_VECTOR_BIAS) {
      dx = dy = 0;
      best = s0;
    } else {
      best = sv;
    }
    intra = best > act + (int) intra_bias;
    cost = intra ? act : best;
    if (intra) {
      dx = dy = 0;
    } else {
      /* chroma: half the vector, truncated towards zero */
      int cdx = dx / 2, cdy = dy / 2;
      for (b = 0; b < 6; b++) {
        int x = bx[b] + c, y = by[b] + r;
        if (b < 4)
          pr[b][t] = predict (ref, W, x, y, dx >> 1, dy >> 1, dx & 1, dy & 1);
        else
          pr[b][t] = predict (ref + off[bc[b]], CW, x, y, cdx >> 1,
              cdy >> 1, cdx & 1, cdy & 1);
      }
    }
  }

  q = qscale;
  if (adaptive) {
    /* TM5: 0.5 .. 2 times the picture's quantiser */
    uint a = act, avg = max (avg_act, 1u);
    q = (qscale * (2 * a + avg) + (a + 2 * avg) / 2) / (a + 2 * avg);
  }
  q = clamp (q, 1, 31);

  /* residual, forward DCT rows (3 fractional bits kept) */
  for (b = 0; b < 6; b++)
    blk[b][t] -= pr[b][t];
  barrier (CLK_LOCAL_MEM_FENCE);
  for (b = 0; b < 6; b++) {
    int s = 0;
    for (int n = 0; n < 8; n++)
      s += DCT_C[c * 8 + n] * blk[b][r * 8 + n];
    tmp[b][t] = (s + (1 << 10)) >> 11;
  }
  barrier (CLK_LOCAL_MEM_FENCE);

  /* columns, quantisation, dequantisation with mismatch control */
  for (b = 0; b < 6; b++) {
    int s = 0, F, a, L, D;
    for (int m = 0; m < 8; m++)
      s += DCT_C[r * 8 + m] * tmp[b][m * 8 + c];
    F = (s + (1 << 16)) >> 17;
    a = abs (F);
    if (intra && t == 0) {
      L = clamp ((F + 4) >> 3, 0, 255);
    } else if (intra) {
      int qw = q * INTRA_W[t];
      L = min ((64 * a + 3 * qw) / (8 * qw), 255);
      L = F < 0 ? -L : L;
    } else {
      L = min (a / (2 * q), 255);
      L = F < 0 ? -L : L;
    }
    levels[(size_t) mb * 384 + b * 64 + ZIGZAG_OF[t]] = (short) L;
    if (L)
      atomic_max (&last_l[b], ZIGZAG_OF[t] + 1);
    if (intra && t == 0) {
      D = 8 * L;
    } else if (L == 0) {
      D = 0;
    } else {
      if (intra)
        D = (2 * L * q * INTRA_W[t]) / 16;
      else
        D = ((2 * L + (L > 0 ? 1 : -1)) * q * 16) / 16;
      if ((D & 1) == 0)
        D -= D > 0 ? 1 : -1;
      D = clamp (D, -2048, 2047);
    }
    blk[b][t] = D;
  }
  barrier (CLK_LOCAL_MEM_FENCE);

  /* inverse DCT rows: 5 fractional bits kept, clamped to 16 bits (no
   * dequantised residual of 8-bit samples comes near; the clamp keeps the
   * column sums inside 32 bits whatever the levels) */
  for (b = 0; b < 6; b++) {
    int s = 0;
    for (int k = 0; k < 8; k++)
      s += DCT_C[k * 8 + c] * blk[b][r * 8 + k];
    tmp[b][t] = clamp ((s + (1 << 8)) >> 9, -32768, 32767);
  }
  barrier (CLK_LOCAL_MEM_FENCE);
  for (b = 0; b < 6; b++) {
    int s = 0;
    uint st = b < 4 ? W : CW;
    for (int k = 0; k < 8; k++)
      s += DCT_C[k * 8 + r] * tmp[b][k * 8 + c];
    recon[off[bc[b]] + (by[b] + r) * st + bx[b] + c] =
        (uchar) clamp (pr[b][t] + ((s + (1 << 18)) >> 19), 0, 255);
  }

  if (t == 0) {
    __global MbRecord *rec = &records[mb];
    uchar cbp = 0;
    for (b = 0; b < 6; b++) {
      rec->last[b] = (uchar) last_l[b];
      if (last_l[b])
        cbp |= 32 >> b;
    }
    rec->dx = (short) dx;
    rec->dy = (short) dy;
    rec->cbp = cbp;
    rec->quant = (uchar) q;
    rec->reserved0 = 0;
    rec->reserved1 = 0;
    rec->activity = act;
    rec->cost = cost;
    rec->flags = (intra ? MB_INTRA : 0) |
        (!intra && dx == 0 && dy == 0 && cbp == 0 ? MB_SKIPPABLE : 0);
  }
}
