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
#define ZERO_VECTOR_BIAS 64

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

/* Level of coefficient @F at natural position @pos: intra DC / 8, intra
 * AC against the default matrix (rounding offset 3/8), inter flat 16
 * with the offset -1/4 (a dead zone below 2.5 q: small inter levels cost
 * more bits than they bring). */
static int
quantise (int F, int intra, uint pos, int q)
{
  int a = abs (F), L;
  if (intra && pos == 0)
    return clamp ((F + 4) >> 3, 0, 255);
  /* most levels are zero: no division for them */
  if (intra) {
    int qw = q * INTRA_W[pos], n = 64 * a + 3 * qw;
    L = n < 8 * qw ? 0 : min (n / (8 * qw), 255);
  } else {
    int n = 2 * a - q;
    L = n < 4 * q ? 0 : min (n / (4 * q), 255);
  }
  return F < 0 ? -L : L;
}

/* The decoder's coefficient (11172-2 2.4.4.1, 2.4.4.2): mismatch control
 * makes every non-zero AC value odd. */
static int
dequantise (int L, int intra, uint pos, int q)
{
  int D;
  if (intra && pos == 0)
    return 8 * L;
  if (L == 0)
    return 0;
  if (intra)
    D = (2 * L * q * INTRA_W[pos]) / 16;
  else
    D = ((2 * L + (L > 0 ? 1 : -1)) * q * 16) / 16;
  if ((D & 1) == 0)
    D -= D > 0 ? 1 : -1;
  return clamp (D, -2048, 2047);
}

static void
write_record (__global MbRecord * rec, const int *last, int dx, int dy,
    int intra, int q, int act, int cost)
{
  uchar cbp = 0;
  for (int b = 0; b < 6; b++) {
    rec->last[b] = (uchar) last[b];
    if (last[b])
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

/* TM5 adaptive quantiser: 0.5 .. 2 times the picture's */
static int
mb_quant (uint qscale, uint adaptive, uint act, uint avg_act)
{
  int q = qscale;
  if (adaptive) {
    uint avg = max (avg_act, 1u);
    q = (qscale * (2 * act + avg) + (act + 2 * avg) / 2) / (act + 2 * avg);
  }
  return clamp (q, 1, 31);
}

/* The vector of macroblock @mb, clamped so that the whole prediction
 * (half-pel neighbours included) lies inside the padded picture. */
static int2
mb_vector (__global const MotionVector * vectors, uint mb, uint mbx,
    uint mby, uint W, uint H)
{
  int2 v = (int2) (vectors[mb].dx, vectors[mb].dy);
  v.x = clamp (v.x, -32 * (int) mbx, 2 * ((int) W - 16 - 16 * (int) mbx));
  v.y = clamp (v.y, -32 * (int) mby, 2 * ((int) H - 16 - 16 * (int) mby));
  return v;
}

/* Inter or intra from the SADs of the zero vector (@s0) and of @v (@sv),
 * and the activity: the zero vector unless @v is clearly better (it can
 * be skipped), intra unless the prediction beats the activity by
 * @intra_bias. Returns the vector coded (zero for intra). */
static int2
decide (int s0, int sv, int act, uint intra_bias, int2 v, int *intra,
    int *cost)
{
  int best = sv;
  if (s0 <= sv + ZERO_VECTOR_BIAS) {
    v = (int2) (0, 0);
    best = s0;
  }
  *intra = best > act + (int) intra_bias;
  *cost = *intra ? act : best;
  return *intra ? (int2) (0, 0) : v;
}

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

/* CPU layout: one work-item per chroma row, the two luma rows over it and
 * that chroma row of both planes, in long runs the compiler vectorises. */
__kernel void
mpeg_load_rows (__global const uchar * src, uint y_off, uint y_stride,
    uint u_off, uint u_stride, uint v_off, uint v_stride, uint c_ps,
    uint width, uint height, __global uchar * dst, uint W, uint H)
{
  const uint cy = get_global_id (0);
  const uint CW = W / 2, cw = (width + 1) / 2, ch = (height + 1) / 2;
  __global const uchar *su, *sv;
  __global uchar *du, *dv;
  uint x, i;

  if (cy >= H / 2)
    return;
  for (i = 0; i < 2; i++) {
    uint y = 2 * cy + i;
    __global const uchar *s = src + y_off + min (y, height - 1) * y_stride;
    __global uchar *d = dst + y * W;
    for (x = 0; x < width; x++)
      d[x] = s[x];
    for (; x < W; x++)
      d[x] = s[width - 1];
  }
  su = src + u_off + min (cy, ch - 1) * u_stride;
  sv = src + v_off + min (cy, ch - 1) * v_stride;
  du = dst + W * H + cy * CW;
  dv = dst + W * H + CW * (H / 2) + cy * CW;
  if (c_ps == 1) {
    for (x = 0; x < cw; x++) {
      du[x] = su[x];
      dv[x] = sv[x];
    }
  } else {
    for (x = 0; x < cw; x++) {
      du[x] = su[2 * x];
      dv[x] = sv[2 * x];
    }
  }
  for (; x < CW; x++) {
    du[x] = su[(cw - 1) * c_ps];
    dv[x] = sv[(cw - 1) * c_ps];
  }
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
    uint intra_bias, uint dc_only)
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
    int s0 = 0, sv = 0;
    int2 v = mb_vector (vectors, mb, mbx, mby, W, H);
    dx = v.x;
    dy = v.y;
    for (b = 0; b < 4; b++) {
      int x = bx[b] + c, y = by[b] + r;
      s0 += abs (blk[b][t] - (int) ref[y * W + x]);
      sv += abs (blk[b][t] - predict (ref, W, x, y, dx >> 1, dy >> 1, dx & 1,
              dy & 1));
    }
    s0 = group_sum (red, s0, t);
    sv = group_sum (red, sv, t);
    v = decide (s0, sv, act, intra_bias, v, &intra, &cost);
    dx = v.x;
    dy = v.y;
    if (!intra) {
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

  q = mb_quant (qscale, adaptive, act, avg_act);

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
    int s = 0, L;
    for (int m = 0; m < 8; m++)
      s += DCT_C[r * 8 + m] * tmp[b][m * 8 + c];
    L = quantise ((s + (1 << 16)) >> 17, intra, t, q);
    /* last resort of the rate control: DC only */
    if (dc_only && t != 0)
      L = 0;
    levels[(size_t) mb * 384 + b * 64 + ZIGZAG_OF[t]] = (short) L;
    if (L)
      atomic_max (&last_l[b], ZIGZAG_OF[t] + 1);
    blk[b][t] = dequantise (L, intra, t, q);
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
    int last[6];
    for (b = 0; b < 6; b++)
      last[b] = last_l[b];
    write_record (&records[mb], last, dx, dy, intra, q, act, cost);
  }
}

/* ---- CPU layout: one work-item per macroblock ----
 *
 * The same arithmetic as mpeg_encode_mb, in plain loops without barriers
 * or local memory. The 1-D transforms split the sums of the cosine
 * matrix into their even and odd halves (the matrix rows are symmetric
 * or antisymmetric), which gives the very same integers with a third of
 * the multiplications. */

/* out[k] = (sum_n DCT_C[k][n] in[n] + round) >> shift */
static void
fdct_1d (const int *in, int si, int *out, int so, int shift)
{
  int s0 = in[0] + in[7 * si], s1 = in[si] + in[6 * si];
  int s2 = in[2 * si] + in[5 * si], s3 = in[3 * si] + in[4 * si];
  int d0 = in[0] - in[7 * si], d1 = in[si] - in[6 * si];
  int d2 = in[2 * si] - in[5 * si], d3 = in[3 * si] - in[4 * si];
  const int r = 1 << (shift - 1);

  out[0] = (5793 * (s0 + s1 + s2 + s3) + r) >> shift;
  out[4 * so] = (5793 * (s0 - s1 - s2 + s3) + r) >> shift;
  out[2 * so] = (7568 * (s0 - s3) + 3135 * (s1 - s2) + r) >> shift;
  out[6 * so] = (3135 * (s0 - s3) - 7568 * (s1 - s2) + r) >> shift;
  out[so] = (8035 * d0 + 6811 * d1 + 4551 * d2 + 1598 * d3 + r) >> shift;
  out[3 * so] = (6811 * d0 - 1598 * d1 - 8035 * d2 - 4551 * d3 + r) >> shift;
  out[5 * so] = (4551 * d0 - 8035 * d1 + 1598 * d2 + 6811 * d3 + r) >> shift;
  out[7 * so] = (1598 * d0 - 4551 * d1 + 6811 * d2 - 8035 * d3 + r) >> shift;
}

/* out[n] = (sum_k DCT_C[k][n] in[k] + round) >> shift, clamped to
 * [lo, hi] */
static void
idct_1d (const int *in, int si, int *out, int so, int shift, int lo, int hi)
{
  int a = 5793 * (in[0] + in[4 * si]), b = 5793 * (in[0] - in[4 * si]);
  int c = 7568 * in[2 * si] + 3135 * in[6 * si];
  int d = 3135 * in[2 * si] - 7568 * in[6 * si];
  int e0 = a + c, e3 = a - c, e1 = b + d, e2 = b - d;
  int f1 = in[si], f3 = in[3 * si], f5 = in[5 * si], f7 = in[7 * si];
  int o0 = 8035 * f1 + 6811 * f3 + 4551 * f5 + 1598 * f7;
  int o1 = 6811 * f1 - 1598 * f3 - 8035 * f5 - 4551 * f7;
  int o2 = 4551 * f1 - 8035 * f3 + 1598 * f5 + 6811 * f7;
  int o3 = 1598 * f1 - 4551 * f3 + 6811 * f5 - 8035 * f7;
  const int r = 1 << (shift - 1);

  out[0] = clamp ((e0 + o0 + r) >> shift, lo, hi);
  out[7 * so] = clamp ((e0 - o0 + r) >> shift, lo, hi);
  out[so] = clamp ((e1 + o1 + r) >> shift, lo, hi);
  out[6 * so] = clamp ((e1 - o1 + r) >> shift, lo, hi);
  out[2 * so] = clamp ((e2 + o2 + r) >> shift, lo, hi);
  out[5 * so] = clamp ((e2 - o2 + r) >> shift, lo, hi);
  out[3 * so] = clamp ((e3 + o3 + r) >> shift, lo, hi);
  out[4 * so] = clamp ((e3 - o3 + r) >> shift, lo, hi);
}

__kernel void
mpeg_encode_mb_cpu (__global const uchar * cur, __global const uchar * ref,
    __global uchar * recon, __global const MotionVector * vectors,
    __global MbRecord * records, __global short *levels, uint mbw, uint mbh,
    uint p_picture, uint qscale, uint adaptive, uint avg_act,
    uint intra_bias, uint dc_only)
{
  const uint mb = get_global_id (0);
  const uint mbx = mb % mbw, mby = mb / mbw;
  const uint W = mbw * 16, H = mbh * 16, CW = W / 2;
  int src[6][64], pr[6][64], tmp[64], co[64], last[6];
  int sum = 0, act = 0, intra, dx = 0, dy = 0, q, cost, b, i;
  __global short *lev = levels + (size_t) mb * 384;

  if (mb >= mbw * mbh)
    return;
  for (b = 0; b < 6; b++) {
    __global const uchar *p = b < 4 ?
        cur + (mby * 16 + (b >> 1) * 8) * W + mbx * 16 + (b & 1) * 8 :
        cur + W * H + (b - 4) * CW * (H / 2) + mby * 8 * CW + mbx * 8;
    uint st = b < 4 ? W : CW;
    for (i = 0; i < 64; i++)
      src[b][i] = p[(i >> 3) * st + (i & 7)];
  }
  for (b = 0; b < 4; b++)
    for (i = 0; i < 64; i++)
      sum += src[b][i];
  for (b = 0; b < 4; b++)
    for (i = 0; i < 64; i++)
      act += abs (256 * src[b][i] - sum);
  act >>= 8;

  intra = !p_picture;
  cost = act;
  if (p_picture) {
    int s0 = 0, sv = 0;
    int2 v = mb_vector (vectors, mb, mbx, mby, W, H);
    dx = v.x;
    dy = v.y;
    for (b = 0; b < 4; b++)
      for (i = 0; i < 64; i++) {
        int x = mbx * 16 + (b & 1) * 8 + (i & 7);
        int y = mby * 16 + (b >> 1) * 8 + (i >> 3);
        s0 += abs (src[b][i] - (int) ref[y * W + x]);
        sv += abs (src[b][i] - predict (ref, W, x, y, dx >> 1, dy >> 1,
                dx & 1, dy & 1));
      }
    v = decide (s0, sv, act, intra_bias, v, &intra, &cost);
    dx = v.x;
    dy = v.y;
  }
  if (!intra) {
    int cdx = dx / 2, cdy = dy / 2;
    for (b = 0; b < 6; b++)
      for (i = 0; i < 64; i++) {
        if (b < 4)
          pr[b][i] = predict (ref, W, mbx * 16 + (b & 1) * 8 + (i & 7),
              mby * 16 + (b >> 1) * 8 + (i >> 3), dx >> 1, dy >> 1, dx & 1,
              dy & 1);
        else
          pr[b][i] = predict (ref + W * H + (b - 4) * CW * (H / 2), CW,
              mbx * 8 + (i & 7), mby * 8 + (i >> 3), cdx >> 1, cdy >> 1,
              cdx & 1, cdy & 1);
      }
  } else {
    for (b = 0; b < 6; b++)
      for (i = 0; i < 64; i++)
        pr[b][i] = 0;
  }
  q = mb_quant (qscale, adaptive, act, avg_act);

  for (b = 0; b < 6; b++) {
    __global uchar *o = b < 4 ?
        recon + (mby * 16 + (b >> 1) * 8) * W + mbx * 16 + (b & 1) * 8 :
        recon + W * H + (b - 4) * CW * (H / 2) + mby * 8 * CW + mbx * 8;
    uint st = b < 4 ? W : CW;
    int lst = 0;
    for (i = 0; i < 64; i++)
      co[i] = src[b][i] - pr[b][i];
    for (i = 0; i < 8; i++)
      fdct_1d (co + 8 * i, 1, tmp + 8 * i, 1, 11);
    for (i = 0; i < 8; i++)
      fdct_1d (tmp + i, 8, co + i, 8, 17);
    for (i = 0; i < 64; i++) {
      int L = quantise (co[i], intra, i, q);
      if (dc_only && i != 0)
        L = 0;
      lev[b * 64 + ZIGZAG_OF[i]] = (short) L;
      if (L)
        lst = max (lst, ZIGZAG_OF[i] + 1);
      co[i] = dequantise (L, intra, i, q);
    }
    last[b] = lst;
    if (lst == 0 && !intra) {
      /* nothing coded: the prediction is the reconstruction */
      for (i = 0; i < 64; i++)
        o[(i >> 3) * st + (i & 7)] = (uchar) pr[b][i];
      continue;
    }
    for (i = 0; i < 8; i++)
      idct_1d (co + 8 * i, 1, tmp + 8 * i, 1, 9, -32768, 32767);
    for (i = 0; i < 8; i++)
      idct_1d (tmp + i, 8, co + i, 8, 19, -32768, 32767);
    for (i = 0; i < 64; i++)
      o[(i >> 3) * st + (i & 7)] = (uchar) clamp (pr[b][i] + co[i], 0, 255);
  }
  write_record (&records[mb], last, dx, dy, intra, q, act, cost);
}
