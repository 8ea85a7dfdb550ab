/* gst-clvideo: smoothing of 8-bit planes with a (2R+1) x (2R+1) box or
 * binomial (Gaussian) kernel.
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * A plane is rows of `width` pixels of BPP interleaved 8-bit channels
 * (GRAY8 and planar Y, U, V: 1; NV12's UV: 2; packed RGB: 3 or 4). Each
 * channel is filtered on its own; channel PASS (the x or alpha byte of
 * 4-byte RGB) is copied unchanged.
 *
 * Arithmetic is integer and exact; tests/smooth-ref.c is the reference.
 * Over the (2R+1)^2 neighbours, coordinates clamped to the plane (edges
 * replicated):
 *   box:      S = (2R+1)^2,             out = (sum(p) + S/2) / S
 *   binomial: w_i = C(2R, i), S = 2^4R, out = (sum(w_i w_j p) + S/2) >> 4R
 * Both kernels are separable and integer partial sums are exact, so a
 * horizontal pass followed by a vertical pass gives the same result.
 * Bounds: a horizontal sum is at most (2R+1) * 255 (box) or 2^2R * 255
 * (binomial, < 2^24); the box total at most 17^2 * 255; the binomial total
 * 2^4R * 255 + 2^(4R-1), which fits 32 bits up to R = 6 and takes 64 bits
 * for R = 7 and 8.
 *
 * Build options: R (radius, 1..8), GAUSS (0 box, 1 binomial), BPP (1..4),
 * PASS (byte of a pixel copied unchanged, -1 for none), ALIGNED4 (source
 * and destination rows start at multiples of 4 bytes), and for the tiled
 * kernel LX (work-items per group) and TH (tile rows).
 */

#ifndef PASS
#define PASS (-1)
#endif
#ifndef LX
#define LX 64
#endif
#ifndef TH
#define TH 16
#endif

#define TAPS (2 * R + 1)

#if GAUSS
#define LOG2S (4 * R)
#if R == 1
#define BINOM 1, 2, 1
#elif R == 2
#define BINOM 1, 4, 6, 4, 1
#elif R == 3
#define BINOM 1, 6, 15, 20, 15, 6, 1
#elif R == 4
#define BINOM 1, 8, 28, 56, 70, 56, 28, 8, 1
#elif R == 5
#define BINOM 1, 10, 45, 120, 210, 252, 210, 120, 45, 10, 1
#elif R == 6
#define BINOM 1, 12, 66, 220, 495, 792, 924, 792, 495, 220, 66, 12, 1
#elif R == 7
#define BINOM 1, 14, 91, 364, 1001, 2002, 3003, 3432, 3003, 2002, 1001, 364, \
    91, 14, 1
#elif R == 8
#define BINOM 1, 16, 120, 560, 1820, 4368, 8008, 11440, 12870, 11440, 8008, \
    4368, 1820, 560, 120, 16, 1
#else
#error "R must be 1..8"
#endif
__constant uint binom[TAPS] = { BINOM };
#define WEIGHT(i) binom[i]
#if R >= 7
typedef ulong acc_t;
typedef ulong4 acc4_t;
#define convert_acc4 convert_ulong4
#else
typedef uint acc_t;
typedef uint4 acc4_t;
#define convert_acc4 convert_uint4
#endif
#define NORMALISE(v) (((v) + ((acc_t) 1 << (LOG2S - 1))) >> LOG2S)
#else /* box */
#if R < 1 || R > 8
#error "R must be 1..8"
#endif
#define WEIGHT(i) 1u
#define S ((uint) (TAPS * TAPS))
#define NORMALISE(v) (((v) + S / 2) / S)
#endif

/* ---- GPU layout: a tile and its apron in local memory ----
 *
 * A work-group of LX work-items smooths a tile 4 * LX bytes wide and TH
 * rows high. It first loads the tile with an apron of R rows above and
 * below and APB bytes (R pixels, rounded up to whole words) left and right
 * into local memory; tiles clear of the plane's edges (nearly all) load it
 * straight, the others clamp every coordinate. The choice is uniform per
 * work-group, so the interior path carries no edge checks at all. Then
 * each work-item walks down 4 adjacent bytes of the tile: per row it forms
 * 4 horizontal sums from local memory and keeps the last 2R+1 of them in
 * registers (the unrolled loop renames them), from which each output row
 * takes its vertical sum: a running sum for the box, the weighted sum for
 * the binomial kernel.
 */

#define APB ((R * BPP + 3) & ~3)        /* apron bytes on either side */
#define TWB (4 * LX)                    /* tile width in bytes */
#define LWB (TWB + 2 * APB)             /* local row in bytes */
#define LWW (LWB / 4)                   /* local row in words */
#define LH (TH + 2 * R)                 /* local rows */
#define SEGW (1 + APB / 2)              /* words a work-item reads a row */

#include "common.cl"

/* byte j of a work-item's row segment; byte APB + k is its own byte k */
#define SEGB(j) BYTE_OF (seg[(j) >> 2], (j) & 3)

/* The horizontal sums of a work-item's 4 bytes in one local row. */
inline uint4
hsums (const uint * seg)
{
  uint h[4];
#pragma unroll
  for (int k = 0; k < 4; k++) {
#if !GAUSS
    /* the window of the byte BPP to the left, moved on by one pixel */
    if (k >= BPP) {
      h[k] = h[k - BPP] + SEGB (APB + k + R * BPP) -
          SEGB (APB + k - BPP - R * BPP);
      continue;
    }
#endif
    uint s = 0;
#pragma unroll
    for (int i = 0; i < TAPS; i++)
      s += WEIGHT (i) * SEGB (APB + k + (i - R) * BPP);
    h[k] = s;
  }
  return (uint4) (h[0], h[1], h[2], h[3]);
}

__kernel __attribute__ ((reqd_work_group_size (LX, 1, 1)))
void
smooth (__global const uchar * src, int src_off, int src_stride,
    __global uchar * dst, int dst_off, int dst_stride, int width, int height)
{
  __local uint tile[LH * LWW];
  __local uchar *tile_bytes = (__local uchar *) tile;
  const int lid = get_local_id (0);
  const int row_bytes = width * BPP;
  const int tx0 = get_group_id (0) * TWB;
  const int ty0 = get_group_id (1) * TH;
  const bool interior = tx0 >= APB && tx0 + TWB + APB <= row_bytes &&
      ty0 >= R && ty0 + TH + R <= height;

  /* 1. the tile and its apron into local memory */
  if (interior) {
    __global const uchar *base = src + src_off +
        (size_t) (ty0 - R) * src_stride + (tx0 - APB);
#if ALIGNED4
    /* a constant trip count, so that all loads can be in flight at once */
#pragma unroll
    for (int n = 0; n < (LH * LWW + LX - 1) / LX; n++) {
      const int i = lid + n * LX;
      const int r = i / LWW, c = i - r * LWW;
      if (i < LH * LWW)
        tile[i] = *(__global const uint *) (base + (size_t) r * src_stride +
            4 * c);
    }
#else
    for (int i = lid; i < LH * LWB; i += LX) {
      const int r = i / LWB, c = i - r * LWB;
      tile_bytes[i] = base[(size_t) r * src_stride + c];
    }
#endif
  } else {
    for (int i = lid; i < LH * LWB; i += LX) {
      const int r = i / LWB, c = i - r * LWB;
      const int gy = clamp (ty0 - R + r, 0, height - 1);
      /* the pixel (rounded down; gb >= -APB) and channel of byte gb */
      const int gb = tx0 - APB + c;
      const int px = (gb + BPP * APB) / BPP - APB;
      const int ch = gb - px * BPP;
      tile_bytes[i] = src[src_off + (size_t) gy * src_stride +
          clamp (px, 0, width - 1) * BPP + ch];
    }
  }
  barrier (CLK_LOCAL_MEM_FENCE);

  /* 2. walk down 4 bytes */
  const int x0 = tx0 + 4 * lid;
  if (x0 >= row_bytes)
    return;
  const bool whole = x0 + 4 <= row_bytes;
  __global uchar *out = dst + dst_off + x0;
  uint4 ring[TAPS];             /* horizontal sums, rows r - 2R .. r */
#pragma unroll
  for (int j = 0; j < TAPS; j++)
    ring[j] = 0;
#if !GAUSS
  uint4 vsum = 0;
#endif

#pragma unroll
  for (int r = 0; r < LH; r++) {
    uint seg[SEGW];
#pragma unroll
    for (int w = 0; w < SEGW; w++)
      seg[w] = tile[r * LWW + lid + w];
    const uint4 h = hsums (seg);
#if !GAUSS
    const uint4 old = ring[0];
#endif
#pragma unroll
    for (int j = 0; j < TAPS - 1; j++)
      ring[j] = ring[j + 1];
    ring[TAPS - 1] = h;
#if !GAUSS
    vsum += h;
    if (r >= TAPS)
      vsum -= old;
#endif
    if (r < 2 * R)
      continue;

    const int gy = ty0 + r - 2 * R;
    if (gy < height) {
#if GAUSS
      acc4_t v = 0;
#pragma unroll
      for (int j = 0; j < TAPS; j++)
        v += (acc_t) binom[j] * convert_acc4 (ring[j]);
      uchar4 o = convert_uchar4 (NORMALISE (v));
#else
      uchar4 o = convert_uchar4 (NORMALISE (vsum));
#endif
#if PASS >= 0
      {
        const uint centre = tile[(r - R) * LWW + lid + APB / 4];
#if PASS == 0
        o.s0 = BYTE_OF (centre, 0);
#elif PASS == 1
        o.s1 = BYTE_OF (centre, 1);
#elif PASS == 2
        o.s2 = BYTE_OF (centre, 2);
#else
        o.s3 = BYTE_OF (centre, 3);
#endif
      }
#endif
      __global uchar *p = out + (size_t) gy * dst_stride;
      if (whole) {
#if ALIGNED4
        *(__global uint *) p = as_uint (o);
#else
        vstore4 (o, 0, p);
#endif
      } else {
        /* the last, partial word of a row */
        p[0] = o.s0;
        if (x0 + 1 < row_bytes)
          p[1] = o.s1;
        if (x0 + 2 < row_bytes)
          p[2] = o.s2;
      }
    }
  }
}

/* ---- CPU layout: bands of rows ----
 *
 * CPUs want long unit-stride loops that the compiler vectorises, and no
 * barriers. Each work-item smooths one band of rows. For each output row
 * it first forms the vertical sums of all bytes of the row into scratch
 * memory of its own (col), then the horizontal sums of those. The box uses
 * sliding-window sums both ways, so its cost does not grow with R: col is
 * updated with the row entering and the row leaving the window, and the
 * horizontal window sums are differences of prefix sums of col, P[x + 2R +
 * 1] - P[x], where the prefix runs over the row extended by R replicated
 * pixels on either side. Only the prefix is serial (one add a pixel, or
 * for 1-byte planes one a vector of 4); the rest vectorises.
 */

/* vertical sums: box at most 17 * 255, binomial 2^2R * 255 */
#if !GAUSS || R <= 4
typedef ushort col_t;
#else
typedef uint col_t;
#endif

/* Scratch words a work-item uses for a row of row_bytes (the host sizes
 * the buffer with the same formula): col, and the box's prefix sums of
 * row_bytes + (2R + 1) * BPP words. */
#define SCRATCH_WORDS(row_bytes) (2 * (size_t) (row_bytes) + 17 * 4)

/* Writes byte b of an output row: the filtered value v, or for the copied
 * channel the centre row's byte. Both are loaded and one selected, rather
 * than a conditional load or a second, strided loop, so that the loops
 * vectorise. Indices into the rows are pointer offsets plus b, which the
 * compiler sees as consecutive. */
#if PASS >= 0
#define PUT(b, v)                                                          \
  do {                                                                     \
    const uchar kept = centre[b], filtered = (uchar) (v);                  \
    out[b] = ((b) & 3) == PASS ? kept : filtered;                          \
  } while (0)
#else
#define PUT(b, v) (out[b] = (uchar) (v))
#endif

#if !GAUSS

/* One pixel of col as a vector of its channels. */
#if BPP == 1
typedef uint pix_t;
#define LOAD_PIX(p, x) ((uint) (p)[x])
#define STORE_PIX(v, p, x) ((p)[x] = (v))
#elif BPP == 2
typedef uint2 pix_t;
#define LOAD_PIX(p, x) convert_uint2 (vload2 ((x), (p)))
#define STORE_PIX(v, p, x) vstore2 ((v), (x), (p))
#elif BPP == 3
typedef uint3 pix_t;
#define LOAD_PIX(p, x) convert_uint3 (vload3 ((x), (p)))
#define STORE_PIX(v, p, x) vstore3 ((v), (x), (p))
#else
typedef uint4 pix_t;
#define LOAD_PIX(p, x) convert_uint4 (vload4 ((x), (p)))
#define STORE_PIX(v, p, x) vstore4 ((v), (x), (p))
#endif

inline void
box_row (__global const col_t * restrict col, __global uint * restrict prefix,
    __global const uchar * restrict centre, __global uchar * restrict out,
    int width)
{
  const int row_bytes = width * BPP;
  const pix_t first = LOAD_PIX (col, 0), last = LOAD_PIX (col, width - 1);
  __global const uint *ahead = prefix + TAPS * BPP;
  pix_t s = 0;
  int k = 0;

  /* prefix[k] sums extended pixels 0 .. k-1 */
  STORE_PIX (s, prefix, k++);
  for (int i = 0; i < R; i++) {
    s += first;
    STORE_PIX (s, prefix, k++);
  }
  int x = 0;
#if BPP == 1
  /* 4 at a time, scanned inside the vector by shifting it one and two
   * lanes: only the carry (kept in all lanes, never leaving the vector
   * unit) is on the serial path */
  uint4 carry = s;
  for (; x + 4 <= width; x += 4, k += 4) {
    uint4 v = convert_uint4 (vload4 (0, col + x));
    v += shuffle2 (v, (uint4) 0, (uint4) (4, 0, 1, 2));
    v += shuffle2 (v, (uint4) 0, (uint4) (4, 5, 0, 1));
    v += carry;
    vstore4 (v, 0, prefix + k);
    carry = v.s3333;
  }
  s = carry.s0;
#endif
  for (; x < width; x++) {
    s += LOAD_PIX (col, x);
    STORE_PIX (s, prefix, k++);
  }
  for (int i = 0; i < R; i++) {
    s += last;
    STORE_PIX (s, prefix, k++);
  }

  /* the window of byte b: extended pixels x .. x + 2R */
  for (int b = 0; b < row_bytes; b++)
    PUT (b, NORMALISE (ahead[b] - prefix[b]));
}

#else

/* The binomial sum of channel c of pixel x, the columns clamped. */
inline acc_t
gauss_clamped (__global const col_t * col, int x, int c, int width)
{
  acc_t s = 0;
#pragma unroll
  for (int i = 0; i < TAPS; i++)
    s += (acc_t) WEIGHT (i) * col[clamp (x + i - R, 0, width - 1) * BPP + c];
  return s;
}

inline void
gauss_row (__global const col_t * restrict col,
    __global const uchar * restrict centre, __global uchar * restrict out,
    int width)
{
  /* the pixels whose window lies inside the row, then the rest */
  const int first = min (R, width), last = max (width - R, first);
  for (int b = first * BPP; b < last * BPP; b++) {
    acc_t s = 0;
#pragma unroll
    for (int i = 0; i < TAPS; i++)
      s += (acc_t) WEIGHT (i) * (col + (i - R) * BPP)[b];
    PUT (b, NORMALISE (s));
  }
  for (int x = 0; x < first; x++)
    for (int c = 0; c < BPP; c++)
      PUT (x * BPP + c, NORMALISE (gauss_clamped (col, x, c, width)));
  for (int x = last; x < width; x++)
    for (int c = 0; c < BPP; c++)
      PUT (x * BPP + c, NORMALISE (gauss_clamped (col, x, c, width)));
}

#endif

__kernel __attribute__ ((reqd_work_group_size (1, 1, 1)))
void
smooth_rows (__global const uchar * restrict src, int src_off, int src_stride,
    __global uchar * restrict dst, int dst_off, int dst_stride, int width,
    int height, __global uint * restrict scratch, int band_rows)
{
  const int row_bytes = width * BPP;
  const int y0 = get_global_id (0) * band_rows;
  const int y1 = min (y0 + band_rows, height);
  __global uint *mine = scratch +
      get_global_id (0) * SCRATCH_WORDS (row_bytes);
  __global col_t *restrict col = (__global col_t *) mine;
  __global uint *restrict prefix = mine + row_bytes;
  __global const uchar *plane = src + src_off;

#define ROW(y) (plane + (size_t) clamp ((y), 0, height - 1) * src_stride)

#if !GAUSS
  /* the window of row y0, rows clamped */
  {
    __global const uchar *in = ROW (y0 - R);
    for (int b = 0; b < row_bytes; b++)
      col[b] = in[b];
  }
  for (int dy = 1 - R; dy <= R; dy++) {
    __global const uchar *in = ROW (y0 + dy);
    for (int b = 0; b < row_bytes; b++)
      col[b] += in[b];
  }
#endif

  for (int y = y0; y < y1; y++) {
    __global uchar *out = dst + dst_off + (size_t) y * dst_stride;
    __global const uchar *centre = plane + (size_t) y * src_stride;

#if !GAUSS
    if (y > y0) {
      __global const uchar *enter = ROW (y + R);
      __global const uchar *leave = ROW (y - R - 1);
      /* at the edges the same clamped row enters and leaves */
      if (enter != leave)
        for (int b = 0; b < row_bytes; b++)
          col[b] += enter[b] - leave[b];
    }
    box_row (col, prefix, centre, out, width);
#else
    {
      size_t off[TAPS];
#pragma unroll
      for (int j = 0; j < TAPS; j++)
        off[j] = (size_t) clamp (y + j - R, 0, height - 1) * src_stride;
      for (int b = 0; b < row_bytes; b++) {
        uint s = 0;
#pragma unroll
        for (int j = 0; j < TAPS; j++)
          s += WEIGHT (j) * plane[off[j] + b];
        col[b] = (col_t) s;
      }
    }
    gauss_row (col, centre, out, width);
#endif
  }
#undef ROW
}
