/* gst-clvideo: RGB -> YCbCr conversion fused with a lowpass filter and
 * (for 4:2:0) chroma decimation; or, from 4:2:0 YCbCr, the same luma
 * lowpass with the chroma carried over or upsampled.
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
 * From 4:2:0 YCbCr (I420, NV12) nothing is converted:
 *   Y16 = 16 * Y, filtered as above (filter off: Y itself)
 *   4:2:0 output: the chroma samples as they are
 *   Y444 output, chroma C16 at luma (x, y), then (C16 + 8) >> 4: with
 *       CHROMA_TAPS 4 the bilinear interpolation between chroma samples
 *       sited as MPEG-1 sites them, 9 * C(x/2, y/2) + 3 * C(x', y/2) +
 *       3 * C(x/2, y') + C(x', y'), where x' = x/2 + 1 for odd x and
 *       x/2 - 1 for even x (y' alike), clamped to the chroma plane; with
 *       CHROMA_TAPS 2 sample replication, 16 * C(x/2, y/2).
 *
 * Build options: IN_FMT (0 packed RGB, 1 I420, 2 NV12), for RGB IN_BPP
 * (3|4), IN_R, IN_G, IN_B (byte index of each channel in a pixel),
 * SRC_ALIGNED4 (pixels are 4-byte aligned words), OUT_FMT (0 I420, 1 NV12,
 * 2 Y444, 3 GRAY8), LUMA_TAPS (1|3|5), CHROMA_TAPS (2|4), LX (work-items
 * per group), TH (tile height, even).
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

#ifndef IN_FMT
#define IN_FMT 0
#endif
#define IN_RGB 0
#define IN_I420 1
#define IN_NV12 2
#define IN_YUV (IN_FMT != IN_RGB)

#define HAS_CHROMA (OUT_FMT != OUT_GRAY8)
#define SUBSAMPLED (OUT_FMT == OUT_I420 || OUT_FMT == OUT_NV12)
/* chroma of every pixel goes through local memory or the row rings:
 * converted from RGB, or upsampled from 4:2:0 for Y444 */
#define PIXEL_CHROMA (HAS_CHROMA && (!IN_YUV || OUT_FMT == OUT_Y444))
/* 4:2:0 output filtered and decimated from per-pixel chroma, or copied
 * from 4:2:0 input */
#define DECIMATES (SUBSAMPLED && !IN_YUV)
#define COPIES_CHROMA (SUBSAMPLED && IN_YUV)

/* The planes after the first one of the source frame and of the
 * destination frame, as kernel arguments (offset and stride each) */
#if IN_FMT == IN_I420
#define SRC_CHROMA_ARGS , int su_off, int su_stride, int sv_off, int sv_stride
#define SRC_CHROMA_PLANES { su_off, su_stride, sv_off, sv_stride }
#define CSTEP 1
#elif IN_FMT == IN_NV12
#define SRC_CHROMA_ARGS , int suv_off, int suv_stride
#define SRC_CHROMA_PLANES { suv_off, suv_stride, suv_off + 1, suv_stride }
#define CSTEP 2
#else
#define SRC_CHROMA_ARGS
#endif

#if OUT_FMT == OUT_NV12
#define DST_CHROMA_ARGS , int uv_off, int uv_stride
#define CB_OUT(cx, cy) dst[uv_off + (size_t) (cy) * uv_stride + 2 * (cx)]
#define CR_OUT(cx, cy) dst[uv_off + (size_t) (cy) * uv_stride + 2 * (cx) + 1]
#elif HAS_CHROMA
#define DST_CHROMA_ARGS , int u_off, int u_stride, int v_off, int v_stride
#define CB_OUT(cx, cy) dst[u_off + (size_t) (cy) * u_stride + (cx)]
#define CR_OUT(cx, cy) dst[v_off + (size_t) (cy) * v_stride + (cx)]
#else
#define DST_CHROMA_ARGS
#endif

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

#if !IN_YUV
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
#if PIXEL_CHROMA
  lc[i] = (uint) chroma16 (kcb, R, G, B) |
      ((uint) chroma16 (kcr, R, G, B) << 16);
#endif
}
#endif

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

#if IN_YUV
/* Cb and Cr of a 4:2:0 source: byte offset and stride of each, samples
 * CSTEP bytes apart in a row */
typedef struct
{
  int cb_off, cb_stride, cr_off, cr_stride;
} ChromaPlanes;

#define CB_IN(cx, cy) \
    src[cp.cb_off + (size_t) (cy) * cp.cb_stride + (cx) * CSTEP]
#define CR_IN(cx, cy) \
    src[cp.cr_off + (size_t) (cy) * cp.cr_stride + (cx) * CSTEP]

/* 16 * the chroma at luma sample (x, y) of the cw x ch plane at @p: chroma
 * sample c lies between luma samples 2c and 2c + 1, so luma x is 1/4 of a
 * chroma step from its own sample x/2 and 3/4 from the one on its side */
inline int
upsample16 (__global const uchar * p, int stride, int x, int y, int cw,
    int ch)
{
  const int c0 = x >> 1, r0 = y >> 1;
#if CHROMA_TAPS == 4
  const int c1 = clamp (c0 + ((x & 1) ? 1 : -1), 0, cw - 1);
  const int r1 = clamp (r0 + ((y & 1) ? 1 : -1), 0, ch - 1);
  __global const uchar *near = p + (size_t) r0 * stride;
  __global const uchar *far = p + (size_t) r1 * stride;
  return 9 * near[c0 * CSTEP] + 3 * (near[c1 * CSTEP] + far[c0 * CSTEP]) +
      far[c1 * CSTEP];
#else
  return p[(size_t) r0 * stride + c0 * CSTEP] << 4;
#endif
}

/* The chroma of luma sample (x, y) as Cb16 | Cr16 << 16 */
inline uint
upsample_pair (__global const uchar * src, ChromaPlanes cp, int x, int y,
    int width, int height)
{
  const int cw = (width + 1) >> 1, ch = (height + 1) >> 1;
  return (uint) upsample16 (src + cp.cb_off, cp.cb_stride, x, y, cw, ch) |
      ((uint) upsample16 (src + cp.cr_off, cp.cr_stride, x, y, cw, ch) << 16);
}

/* Luma sample (x, y) of the frame (and its chroma) into local slot @i */
inline void
yuv_to_local (__global const uchar * src, int y_off, int y_stride,
    ChromaPlanes cp, int x, int y, int width, int height, int i,
    __local ushort * ly, __local uint * lc)
{
  ly[i] = (ushort) (src[y_off + (size_t) y * y_stride + x] << 4);
#if PIXEL_CHROMA
  lc[i] = upsample_pair (src, cp, x, y, width, height);
#endif
}
#endif

__kernel __attribute__ ((reqd_work_group_size (LX, 1, 1)))
void
colorlowpass (__global const uchar * src, int src_off, int src_stride
    SRC_CHROMA_ARGS, __global uchar * dst, int y_off, int y_stride
    DST_CHROMA_ARGS, int width, int height, int4 ky, int4 kcb, int4 kcr,
    int strength)
{
  __local ushort ly[LH * LW];
#if PIXEL_CHROMA
  __local uint lc[LH * LW];
#define LC_ARG lc
#else
#define LC_ARG 0
#endif
  const int lid = get_local_id (0);
  const int tx0 = get_group_id (0) * TW;
  const int ty0 = get_group_id (1) * TH;

  /* 1. load and convert the tile and its apron */
#if IN_YUV
  const ChromaPlanes cp = SRC_CHROMA_PLANES;
  for (int r = 0; r < LH; r++) {
    const int gy = clamp (ty0 - AP + r, 0, height - 1);
    for (int c = lid; c < LW; c += LX)
      yuv_to_local (src, src_off, src_stride, cp, clamp (tx0 - AP + c, 0,
              width - 1), gy, width, height, r * LW + c, ly, LC_ARG);
  }
#else
  /* tiles clear of the frame edges (nearly all) skip the coordinate
   * clamping */
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
#endif
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
#if DECIMATES
  uint w0 = 0, w1 = 0, w2 = 0, w3 = 0;  /* packed chroma, rows r-3..r */
#endif
#if SUBSAMPLED
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
#if DECIMATES
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
#if COPIES_CHROMA
        /* tiles start on even rows: chroma row gy / 2 once */
        if ((t & 1) == 0) {
          CB_OUT (cx, gy >> 1) = CB_IN (cx, gy >> 1);
          CR_OUT (cx, gy >> 1) = CR_IN (cx, gy >> 1);
        }
#endif
      }
    }
#if DECIMATES
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
      CB_OUT (cx, cy) = cb;
      CR_OUT (cx, cy) = cr;
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

#if IN_YUV
/* Row y of the frame: Y16, and with PIXEL_CHROMA the upsampled chroma */
inline void
yuv_row (__global const uchar * src, int y_off, int y_stride,
    ChromaPlanes cp, int y, int width, int height,
    __global ushort * restrict y16, __global ushort * restrict cb16,
    __global ushort * restrict cr16)
{
  __global const uchar *row = src + y_off + (size_t) y * y_stride;
  for (int x = 0; x < width; x++)
    y16[x] = (ushort) (row[x] << 4);
#if PIXEL_CHROMA
  for (int x = 0; x < width; x++) {
    const uint c = upsample_pair (src, cp, x, y, width, height);
    cb16[x] = (ushort) (c & 0xffff);
    cr16[x] = (ushort) (c >> 16);
  }
#endif
}
#else
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
#if PIXEL_CHROMA
    cb16[x] = (ushort) chroma16 (kcb, R, G, B);
    cr16[x] = (ushort) chroma16 (kcr, R, G, B);
#endif
  }
}
#endif

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

#if DECIMATES
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
    int src_stride SRC_CHROMA_ARGS, __global uchar * restrict dst, int y_off,
    int y_stride DST_CHROMA_ARGS, int width, int height, int4 ky, int4 kcb,
    int4 kcr, int strength, __global ushort * restrict scratch,
    int band_rows)
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
#if IN_YUV
  const ChromaPlanes cp = SRC_CHROMA_PLANES;
#endif
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

#if IN_YUV
      yuv_row (src, src_off, src_stride, cp, clamp (r, 0, height - 1), width,
          height, yrow, cbrow, crrow);
#else
      convert_row (src + src_off + (size_t) clamp (r, 0, height - 1) *
          src_stride, width, ky, kcb, kcr, yrow, cbrow, crrow);
#endif
#if LUMA_TAPS > 1
      hfilter_row (yrow, hr + slot * row_words, width);
#endif
#if DECIMATES
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
#if COPIES_CHROMA
      if ((yo & 1) == 0) {
        for (int cx = 0; cx < cw; cx++) {
          CB_OUT (cx, yo >> 1) = CB_IN (cx, yo >> 1);
          CR_OUT (cx, yo >> 1) = CR_IN (cx, yo >> 1);
        }
      }
#endif
#if DECIMATES
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
        for (int cx = 0; cx < cw; cx++) {
#if CHROMA_TAPS == 4
          const int sb = b0[cx] + 3 * b1[cx] + 3 * b2[cx] + b3[cx];
          const int sr = r0[cx] + 3 * r1[cx] + 3 * r2[cx] + r3[cx];
#else
          const int sb = b1[cx] + b2[cx];
          const int sr = r1[cx] + r2[cx];
#endif
          CB_OUT (cx, cy) = round_chroma (sb, cshift);
          CR_OUT (cx, cy) = round_chroma (sr, cshift);
        }
      }
#endif
    }
  }
}
