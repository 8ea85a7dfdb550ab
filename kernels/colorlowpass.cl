/* gst-clvideo: RGB -> YCbCr conversion fused with a lowpass filter and
 * (for 4:2:0) chroma decimation.
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * A work-group converts a tile plus a 2-pixel apron once into local memory
 * (luma, and Cb|Cr packed in one word), then each work-item slides down
 * the tile over two adjacent columns, keeping the horizontal filter sums of
 * the last rows in registers: every converted value is read from local
 * memory a handful of times and no intermediate image touches global
 * memory.
 *
 * Arithmetic is integer and exact; tests/colorlowpass-ref.c is the
 * reference:
 *   value16 = clamp((k.x*R + k.y*G + k.z*B + k.w) >> 12, 0, 4095)
 *       (value in 1/16 steps; k = coefficient * 65536, k.w holds the
 *        offset * 65536 plus the rounding 2048)
 *   luma, filter off: (Y16 + 8) >> 4
 *   luma, separable kernel K (sum S), strength s in 0..256:
 *       (s * sum(K2D * Y16) + (256 - s) * S*S * Y16c + 2^(n-1)) >> n,
 *       n = 4 + 8 + 2 * log2(S)
 *   4:2:0 chroma at (cx, cy): taps [1 1] over luma 2c..2c+1, or [1 3 3 1]
 *       over luma 2c-1..2c+2 (sited between the luma samples, as MPEG-1
 *       expects), both directions, then rounded
 *   coordinates outside the frame are clamped (edges replicated), and
 *   every 8-bit result saturates at 255 (full-range chroma reaches 255.5).
 *
 * Build options: IN_BPP (3|4), IN_R, IN_G, IN_B (byte index of each
 * channel in a pixel), SRC_ALIGNED4 (pixels are 4-byte aligned words),
 * OUT_FMT (0 I420, 1 NV12, 2 Y444, 3 GRAY8), LUMA_TAPS (1|3|5),
 * CHROMA_TAPS (2|4), LX (work-items per group), TH (tile height, even).
 */

#ifndef LX
#define LX 64
#endif
#ifndef TH
#define TH 16
#endif
#define TW (2 * LX)
#define AP 2
#define LW (TW + 2 * AP)
#define LH (TH + 2 * AP)

#define OUT_I420 0
#define OUT_NV12 1
#define OUT_Y444 2
#define OUT_GRAY8 3

#define HAS_CHROMA (OUT_FMT != OUT_GRAY8)
#define SUBSAMPLED (OUT_FMT == OUT_I420 || OUT_FMT == OUT_NV12)

#if LUMA_TAPS == 5
#define HFILT(p) ((p)[-2] + 4 * (p)[-1] + 6 * (p)[0] + 4 * (p)[1] + (p)[2])
#define VFILT(a, b, c, d, e) ((a) + 4 * (b) + 6 * (c) + 4 * (d) + (e))
#define KLOG2 4
#elif LUMA_TAPS == 3
#define HFILT(p) ((p)[-1] + 2 * (p)[0] + (p)[1])
#define VFILT(a, b, c, d, e) ((b) + 2 * (c) + (d))
#define KLOG2 2
#endif

#if CHROMA_TAPS == 4
#define CHFILT(p) ((p)[-1] + 3 * (p)[0] + 3 * (p)[1] + (p)[2])
#define CLOG2 6
#else
#define CHFILT(p) ((p)[0] + (p)[1])
#define CLOG2 2
#endif

/* The host's coefficients keep luma inside 0..4080 and chroma inside
 * 8..4088 (non-negative luma weights summing to at most 1; chroma offset
 * 128 with weights of at most 127.5 either way), so the reference's clamp
 * to 0..4095 never acts and is left out. */
inline int
luma16 (int4 k, int r, int g, int b)
{
  return (k.x * r + k.y * g + k.z * b + k.w) >> 12;
}

inline int
chroma16 (int4 k, int r, int g, int b)
{
  return (k.x * r + k.y * g + k.z * b + k.w) >> 12;
}

/* The pixel at byte @p as R | G << 8 | B << 16. */
inline uint
load_pixel (__global const uchar * p)
{
#if IN_BPP == 4 && SRC_ALIGNED4
  const uint px = *(__global const uint *) p;
  return ((px >> (8 * IN_R)) & 0xff) | (((px >> (8 * IN_G)) & 0xff) << 8) |
      (((px >> (8 * IN_B)) & 0xff) << 16);
#else
  return p[IN_R] | ((uint) p[IN_G] << 8) | ((uint) p[IN_B] << 16);
#endif
}

/* Converts a loaded pixel into local slot @i. */
inline void
convert_to_local (uint px, int i, int4 ky, int4 kcb, int4 kcr,
    __local ushort * ly, __local uint * lc)
{
  const int R = px & 0xff, G = (px >> 8) & 0xff, B = px >> 16;
  ly[i] = (ushort) luma16 (ky, R, G, B);
#if HAS_CHROMA
  lc[i] = (uint) chroma16 (kcb, R, G, B) |
      ((uint) chroma16 (kcr, R, G, B) << 16);
#endif
}

inline uchar
round16 (int v)
{
  return (uchar) min ((v + 8) >> 4, 255);
}

inline uchar
round_chroma (int sum, int shift)
{
  return (uchar) min ((sum + (1 << (shift - 1))) >> shift, 255);
}

__kernel __attribute__ ((reqd_work_group_size (LX, 1, 1)))
void
colorlowpass (__global const uchar * src, int src_off, int src_stride,
    __global uchar * dst, int y_off, int y_stride
#if OUT_FMT == OUT_NV12
    , int uv_off, int uv_stride
#elif HAS_CHROMA
    , int u_off, int u_stride, int v_off, int v_stride
#endif
    , int width, int height, int4 ky, int4 kcb, int4 kcr, int strength)
{
  __local ushort ly[LH * LW];
#if HAS_CHROMA
  __local uint lc[LH * LW];
#define LC_ARG lc
#else
#define LC_ARG 0
#endif
  const int lid = get_local_id (0);
  const int tx0 = get_group_id (0) * TW;
  const int ty0 = get_group_id (1) * TH;

  /* 1. load and convert the tile and its apron; tiles clear of the frame
   * edges (nearly all) skip the coordinate clamping */
  const bool interior = tx0 >= AP && tx0 - AP + LW <= width &&
      ty0 >= AP && ty0 - AP + LH <= height;
  if (interior) {
    /* all loads first, then all conversions: a work-item keeps LH * NK
     * loads in flight instead of waiting on each in turn */
#define NK ((LW + LX - 1) / LX)
    __global const uchar *base = src + src_off +
        (size_t) (ty0 - AP) * src_stride + (tx0 - AP) * IN_BPP;
    uint px[LH * NK];
#pragma unroll
    for (int r = 0; r < LH; r++) {
#pragma unroll
      for (int k = 0; k < NK; k++) {
        const int c = lid + k * LX;
        px[r * NK + k] = c < LW ?
            load_pixel (base + (size_t) r * src_stride + c * IN_BPP) : 0;
      }
    }
#pragma unroll
    for (int r = 0; r < LH; r++) {
#pragma unroll
      for (int k = 0; k < NK; k++) {
        const int c = lid + k * LX;
        if (c < LW)
          convert_to_local (px[r * NK + k], r * LW + c, ky, kcb, kcr, ly,
              LC_ARG);
      }
    }
  } else {
    for (int r = 0; r < LH; r++) {
      const int gy = clamp (ty0 - AP + r, 0, height - 1);
      __global const uchar *row = src + src_off + (size_t) gy * src_stride;
      for (int c = lid; c < LW; c += LX)
        convert_to_local (load_pixel (row + clamp (tx0 - AP + c, 0,
                    width - 1) * IN_BPP), r * LW + c, ky, kcb, kcr, ly,
            LC_ARG);
    }
  }
  barrier (CLK_LOCAL_MEM_FENCE);

  /* 2. slide down two columns */
  const int c0 = AP + 2 * lid;
  const int x = tx0 + 2 * lid;
  if (x >= width)
    return;
  const bool pair = x + 1 < width;

#if LUMA_TAPS > 1
  int a0 = 0, a1 = 0, a2 = 0, a3 = 0, a4 = 0;   /* column x, rows r-4..r */
  int b0 = 0, b1 = 0, b2 = 0, b3 = 0, b4 = 0;   /* column x + 1 */
  const int keep = (256 - strength) << (2 * KLOG2);
  const int shift = 12 + 2 * KLOG2;
#endif
#if SUBSAMPLED
  uint w0 = 0, w1 = 0, w2 = 0, w3 = 0;  /* packed chroma, rows r-3..r */
  const int cx = x >> 1;
#endif

  /* fully unrolled: the sliding windows become renamed registers and the
   * row conditions constants */
#pragma unroll
  for (int r = 0; r < LH; r++) {
    __local const ushort *yrow = ly + r * LW + c0;
#if LUMA_TAPS > 1
    a0 = a1; a1 = a2; a2 = a3; a3 = a4; a4 = HFILT (yrow);
    b0 = b1; b1 = b2; b2 = b3; b3 = b4; b4 = HFILT (yrow + 1);
#endif
#if SUBSAMPLED
    w0 = w1; w1 = w2; w2 = w3; w3 = CHFILT (lc + r * LW + c0);
#endif
    if (r >= 2 * AP) {
      const int t = r - 2 * AP;         /* tile row of the centre */
      const int gy = ty0 + t;
      if (gy < height) {
        __local const ushort *crow = ly + (r - AP) * LW + c0;
        __global uchar *yout = dst + y_off + (size_t) gy * y_stride + x;
#if LUMA_TAPS > 1
        const int f0 = VFILT (a0, a1, a2, a3, a4);
        const int f1 = VFILT (b0, b1, b2, b3, b4);
        const uchar y0 = (uchar) ((strength * f0 + keep * crow[0] +
                (1 << (shift - 1))) >> shift);
        const uchar y1 = (uchar) ((strength * f1 + keep * crow[1] +
                (1 << (shift - 1))) >> shift);
#else
        const uchar y0 = round16 (crow[0]);
        const uchar y1 = round16 (crow[1]);
#endif
        if (pair)
          vstore2 ((uchar2) (y0, y1), 0, yout);
        else
          yout[0] = y0;
#if OUT_FMT == OUT_Y444
        __local const uint *ccen = lc + (r - AP) * LW + c0;
        __global uchar *uout = dst + u_off + (size_t) gy * u_stride + x;
        __global uchar *vout = dst + v_off + (size_t) gy * v_stride + x;
        uout[0] = round16 (ccen[0] & 0xffff);
        vout[0] = round16 (ccen[0] >> 16);
        if (pair) {
          uout[1] = round16 (ccen[1] & 0xffff);
          vout[1] = round16 (ccen[1] >> 16);
        }
#endif
      }
    }
#if SUBSAMPLED
    /* chroma row t/2 uses luma rows t-1..t+2 (4 taps) or t..t+1 (2 taps),
     * that is local rows r-3..r, or r-1..r */
#if CHROMA_TAPS == 4
    const int t = r - 4;
#else
    const int t = r - 3;
#endif
    if (t >= 0 && t < TH && (t & 1) == 0 && ty0 + t < height) {
#if CHROMA_TAPS == 4
      const int sb = (w0 & 0xffff) + 3 * (w1 & 0xffff) + 3 * (w2 & 0xffff) +
          (w3 & 0xffff);
      const int sr = (w0 >> 16) + 3 * (w1 >> 16) + 3 * (w2 >> 16) + (w3 >> 16);
#else
      const int sb = (w2 & 0xffff) + (w3 & 0xffff);
      const int sr = (w2 >> 16) + (w3 >> 16);
#endif
      const int cshift = 4 + CLOG2;
      const uchar cb = round_chroma (sb, cshift);
      const uchar cr = round_chroma (sr, cshift);
      const int cy = (ty0 + t) >> 1;
#if OUT_FMT == OUT_NV12
      __global uchar *uv = dst + uv_off + (size_t) cy * uv_stride + 2 * cx;
      uv[0] = cb;
      uv[1] = cr;
#else
      dst[u_off + (size_t) cy * u_stride + cx] = cb;
      dst[v_off + (size_t) cy * v_stride + cx] = cr;
#endif
    }
#endif
  }
}

/* ---- the same computation laid out for CPU devices ----
 *
 * CPUs want long unit-stride inner loops that the compiler vectorises, and
 * no barriers. Each work-item walks whole bands of rows: every input row is
 * converted once into a ring of row buffers (in cache-sized scratch memory
 * of its own), filtered horizontally, and combined vertically with the rows
 * before it. Results are identical to the tiled kernel above.
 */

#define RING 5                  /* rows kept: centre row +- 2 */

inline int
clamp_x (int x, int width)
{
  return clamp (x, 0, width - 1);
}

inline void
convert_row (__global const uchar * restrict row, int width, int4 ky,
    int4 kcb, int4 kcr, __global ushort * restrict y16,
    __global ushort * restrict cb16, __global ushort * restrict cr16)
{
  for (int x = 0; x < width; x++) {
    const int R = row[x * IN_BPP + IN_R];
    const int G = row[x * IN_BPP + IN_G];
    const int B = row[x * IN_BPP + IN_B];
    y16[x] = (ushort) luma16 (ky, R, G, B);
#if HAS_CHROMA
    cb16[x] = (ushort) chroma16 (kcb, R, G, B);
    cr16[x] = (ushort) chroma16 (kcr, R, G, B);
#endif
  }
}

#if LUMA_TAPS > 1
inline int
hfilter_clamped (__global const ushort * in, int x, int width)
{
#if LUMA_TAPS == 5
  return in[clamp_x (x - 2, width)] + 4 * in[clamp_x (x - 1, width)] +
      6 * in[x] + 4 * in[clamp_x (x + 1, width)] + in[clamp_x (x + 2, width)];
#else
  return in[clamp_x (x - 1, width)] + 2 * in[x] + in[clamp_x (x + 1, width)];
#endif
}

inline void
hfilter_row (__global const ushort * restrict in, __global ushort * restrict out,
    int width)
{
  const int edge = min (2, width);
  for (int x = 0; x < edge; x++)
    out[x] = (ushort) hfilter_clamped (in, x, width);
  for (int x = 2; x < width - 2; x++)
    out[x] = (ushort) HFILT (in + x);
  for (int x = max (width - 2, edge); x < width; x++)
    out[x] = (ushort) hfilter_clamped (in, x, width);
}
#endif

#if SUBSAMPLED
inline int
chfilter_clamped (__global const ushort * in, int cx, int width)
{
#if CHROMA_TAPS == 4
  return in[clamp_x (2 * cx - 1, width)] + 3 * in[2 * cx] +
      3 * in[clamp_x (2 * cx + 1, width)] + in[clamp_x (2 * cx + 2, width)];
#else
  return in[2 * cx] + in[clamp_x (2 * cx + 1, width)];
#endif
}

/* horizontal chroma filter and decimation of one row */
inline void
chfilter_row (__global const ushort * restrict in,
    __global ushort * restrict out, int width)
{
  const int cw = (width + 1) / 2;
  /* interior: all taps inside, 2cx - 1 >= 0 and 2cx + 2 <= width - 1 */
  const int first = min (1, cw), last = max ((width - 3) / 2 + 1, first);
  for (int cx = 0; cx < first; cx++)
    out[cx] = (ushort) chfilter_clamped (in, cx, width);
  for (int cx = first; cx < last; cx++)
    out[cx] = (ushort) CHFILT (in + 2 * cx);
  for (int cx = last; cx < cw; cx++)
    out[cx] = (ushort) chfilter_clamped (in, cx, width);
}
#endif

__kernel __attribute__ ((reqd_work_group_size (1, 1, 1)))
void
colorlowpass_rows (__global const uchar * restrict src, int src_off,
    int src_stride, __global uchar * restrict dst, int y_off, int y_stride
#if OUT_FMT == OUT_NV12
    , int uv_off, int uv_stride
#elif HAS_CHROMA
    , int u_off, int u_stride, int v_off, int v_stride
#endif
    , int width, int height, int4 ky, int4 kcb, int4 kcr, int strength,
    __global ushort * restrict scratch, int band_rows)
{
  const int cw = (width + 1) / 2;
  const size_t row_words = (size_t) width;
  /* per work-item scratch: Y, Cb, Cr and filtered-Y rings of RING rows,
   * and two chroma rings of 4 decimated rows */
  const size_t per_item = 4 * RING * row_words + 8 * (size_t) cw;
  __global ushort *yr = scratch + get_global_id (0) * per_item;
  __global ushort *cbr = yr + RING * row_words;
  __global ushort *crr = cbr + RING * row_words;
  __global ushort *hr = crr + RING * row_words;
  __global ushort *hcb = hr + RING * row_words;
  __global ushort *hcr = hcb + 4 * (size_t) cw;
  const int n_bands = (height + band_rows - 1) / band_rows;
#if LUMA_TAPS > 1
  const int keep = (256 - strength) << (2 * KLOG2);
  const int shift = 12 + 2 * KLOG2;
#endif

  for (int band = get_global_id (0); band < n_bands;
      band += get_global_size (0)) {
    const int y0 = band * band_rows;
    const int y1 = min (y0 + band_rows, height);

    for (int r = y0 - 2; r <= y1 + 1; r++) {
      const int ri = r - (y0 - 2);
      const int slot = ri % RING;
      __global ushort *yrow = yr + slot * row_words;
      __global ushort *cbrow = cbr + slot * row_words;
      __global ushort *crrow = crr + slot * row_words;

      convert_row (src + src_off + (size_t) clamp (r, 0, height - 1) *
          src_stride, width, ky, kcb, kcr, yrow, cbrow, crrow);
#if LUMA_TAPS > 1
      hfilter_row (yrow, hr + slot * row_words, width);
#endif
#if SUBSAMPLED
      chfilter_row (cbrow, hcb + (ri % 4) * cw, width);
      chfilter_row (crrow, hcr + (ri % 4) * cw, width);
#endif

      /* the centre row r - 2 now has all its neighbours */
      const int yo = r - 2;
      if (yo < y0 || yo >= y1)
        continue;
      const int cslot = (ri - 2) % RING;
      __global const ushort *centre = yr + cslot * row_words;
      __global uchar *yout = dst + y_off + (size_t) yo * y_stride;
#if LUMA_TAPS > 1
      __global const ushort *h0 = hr + ((ri - 4) % RING) * row_words;
      __global const ushort *h1 = hr + ((ri - 3) % RING) * row_words;
      __global const ushort *h2 = hr + cslot * row_words;
      __global const ushort *h3 = hr + ((ri - 1) % RING) * row_words;
      __global const ushort *h4 = hr + slot * row_words;
      for (int x = 0; x < width; x++) {
        const int f = VFILT (h0[x], h1[x], h2[x], h3[x], h4[x]);
        yout[x] = (uchar) ((strength * f + keep * centre[x] +
                (1 << (shift - 1))) >> shift);
      }
#else
      for (int x = 0; x < width; x++)
        yout[x] = round16 (centre[x]);
#endif
#if OUT_FMT == OUT_Y444
      {
        __global const ushort *cbc = cbr + cslot * row_words;
        __global const ushort *crc = crr + cslot * row_words;
        __global uchar *uout = dst + u_off + (size_t) yo * u_stride;
        __global uchar *vout = dst + v_off + (size_t) yo * v_stride;
        for (int x = 0; x < width; x++) {
          uout[x] = round16 (cbc[x]);
          vout[x] = round16 (crc[x]);
        }
      }
#endif
#if SUBSAMPLED
      /* chroma row yo / 2 from luma rows yo - 1 .. yo + 2 */
      if ((yo & 1) == 0) {
        const int cshift = 4 + CLOG2;
        const int cy = yo >> 1;
        __global const ushort *b0 = hcb + ((ri - 3) % 4) * cw;
        __global const ushort *b1 = hcb + ((ri - 2) % 4) * cw;
        __global const ushort *b2 = hcb + ((ri - 1) % 4) * cw;
        __global const ushort *b3 = hcb + (ri % 4) * cw;
        __global const ushort *r0 = hcr + ((ri - 3) % 4) * cw;
        __global const ushort *r1 = hcr + ((ri - 2) % 4) * cw;
        __global const ushort *r2 = hcr + ((ri - 1) % 4) * cw;
        __global const ushort *r3 = hcr + (ri % 4) * cw;
#if OUT_FMT == OUT_NV12
        __global uchar *uv = dst + uv_off + (size_t) cy * uv_stride;
#else
        __global uchar *uout = dst + u_off + (size_t) cy * u_stride;
        __global uchar *vout = dst + v_off + (size_t) cy * v_stride;
#endif
        for (int cx = 0; cx < cw; cx++) {
#if CHROMA_TAPS == 4
          const int sb = b0[cx] + 3 * b1[cx] + 3 * b2[cx] + b3[cx];
          const int sr = r0[cx] + 3 * r1[cx] + 3 * r2[cx] + r3[cx];
#else
          const int sb = b1[cx] + b2[cx];
          const int sr = r1[cx] + r2[cx];
#endif
          const uchar cb = round_chroma (sb, cshift);
          const uchar cr = round_chroma (sr, cshift);
#if OUT_FMT == OUT_NV12
          uv[2 * cx] = cb;
          uv[2 * cx + 1] = cr;
#else
          uout[cx] = cb;
          vout[cx] = cr;
#endif
        }
      }
#endif
    }
  }
}
