/* gst-clvideo: block-matching motion search, exhaustive and hierarchical.
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * For every BS x BS block of the current luma plane (partial blocks at the
 * right and bottom edges too, their visible samples only), the full-pel
 * displacement (dx, dy), both in [-RANGE, RANGE - 1], whose reference
 * block lies inside the plane and has the least cost. The cost is the SAD
 * of the luma samples, or with CHROMA 256 * luma SAD + WQ * (U SAD + V
 * SAD), the chroma block displaced by (dx >> CSX, dy >> CSY). Candidates
 * are ranked by one 64-bit key: cost, then |dx| + |dy|, then raster index
 * (dy, then dx): the smallest key wins, the same on every device.
 *
 * With SUBPEL the result is refined over the 9 half-pel positions around
 * it (MPEG-1 interpolation, luma SAD, the same tie rules in half-pel
 * units), again only where every sample read lies inside the plane. With
 * SATD as well, whole 16 x 16 blocks rank those positions by the SATD of
 * their residual instead (the magnitudes of its four 8 x 8 Hadamard
 * transforms summed): closer to what the DCT then codes than the SAD,
 * which still comes with the vector.
 *
 * Vectors are written in half-pel units with the luma SAD of the chosen
 * prediction, one per block in raster order.
 *
 * Layouts:
 * - motion_search_blocks (CPU devices, and every partial block): one
 *   work-item per block. A whole block keeps its rows in vector
 *   registers and runs over the candidates row by row with uchar16 /
 *   uchar8 loads, each row's sum of absolute differences one SIMD
 *   instruction where the CPU has one (sad.cl).
 * - motion_search_tiles (GPUs, whole blocks): one work-group of NT
 *   work-items per block. The search area (the window plus the block) is
 *   staged in local memory as four copies of 32-bit words, copy s holding
 *   the row shifted by s bytes, so that the four samples at any column
 *   are one aligned word. A work-item owns one dx and K consecutive dy:
 *   it walks the K + BS - 1 area rows once, and each word it reads
 *   serves the K candidates against the block row it meets there; the
 *   block itself sits in registers. A word of 4 absolute differences is
 *   one instruction where the device has one (SAD_PTX: NVIDIA's
 *   vabsdiff4). Candidates outside the plane are masked; the keys are
 *   reduced in local memory. Built with PARTIAL, the same kernel serves
 *   the partial blocks at the right and bottom edges: the samples past
 *   the block's visible part are zero in the block and masked to zero in
 *   the area words, so they add nothing. SUBPEL refinement then runs in
 *   motion_refine_groups.
 *
 * The hierarchical search (motion_decimate, motion_global_profiles and
 * motion_global_shifts or motion_global_motion, then motion_search_level
 * for level 2, level 1 and two passes at full resolution; see there)
 * ranks its candidates by the same key and refines to half-pel the same
 * way; it only tries far fewer of them. Its steps run one work-item per run
 * of BPW blocks on CPUs, one work-group of HNT per block on GPUs (the
 * candidates spread over the work-items, the keys reduced in local
 * memory).
 *
 * Build options: BS (16 | 8), RANGE (1..128), SUBPEL (0 | 1), SATD (0 |
 * 1; with BS 16); TILES with
 * NT, K, SAD_PTX and PARTIAL for the GPU kernels; CHROMA
 * (0 | 1) with CSX, CSY (chroma subsampling shifts), CPS (chroma pixel
 * stride) and WQ (chroma weight in 1/256); LEVEL (2 | 1 | 0) with PASS
 * (1 | 2 | 3 at level 0), LBS (the side of a whole block at that level),
 * SQUARES (the most squares at level 0) and NEIGHBOURS (0 | 4, taken in
 * passes 2 and 3), and HNT (GPUs) or BPW (CPUs) for the hierarchical
 * steps, which take the range as an argument instead of RANGE;
 * WARP_PTX (NVIDIA: the warp's work-items reduce in registers) and
 * GROUP_BLOCKS (blocks a work-group, a warp each, with WARP_PTX and an
 * HNT of 32) with HNT.
 */

#ifndef BS
#define BS 16
#endif
#ifndef RANGE
#define RANGE 16
#endif
#ifndef SUBPEL
#define SUBPEL 0
#endif
#ifndef CHROMA
#define CHROMA 0
#endif
#ifndef CSX
#define CSX 1
#endif
#ifndef CSY
#define CSY 1
#endif
#ifndef CPS
#define CPS 1
#endif
#ifndef WQ
#define WQ 0
#endif
#ifndef SATD
#define SATD 0
#endif

#define SPAN (2 * RANGE)

#include "gstclvideotypes.h"
#include "common.cl"
#include "sad.cl"
#include "pairs.cl"
#include "satd.cl"

#ifndef SAD_PTX
#define SAD_PTX 0
#endif

#if SAD_PTX
/* c + the 4 absolute byte differences of a and b, in one instruction */
static inline uint
sad4 (uint a, uint b, uint c)
{
  uint d;
  asm ("vabsdiff4.u32.u32.u32.add %0, %1, %2, %3;" : "=r" (d) : "r" (a),
      "r" (b), "r" (c));
  return d;
}
#else
static inline uint
sad4 (uint a, uint b, uint c)
{
  uchar4 d = abs_diff (as_uchar4 (a), as_uchar4 (b));
  return c + d.x + d.y + d.z + d.w;
}
#endif

#if SAD_PTX
/* @acc plus the SAD of the @n words @c against the bytes at @r (any
 * address): r's words read aligned, each funnel-shifted out of two, four
 * differences an instruction, where a row of bytes took a load and a few
 * instructions a byte. (Where r is not aligned the last word read holds
 * up to 3 bytes past the row: of the same aligned word, so inside the
 * allocation, and shifted out.) */
static inline uint
sad_words (const uint * c, int n, global const uchar * r, uint acc)
{
  const uint mis = (uint) ((size_t) r & 3), sh = 8 * mis;
  global const uint *w = (global const uint *) (r - mis);
  uint lo = w[0];
  #pragma unroll
  for (int i = 0; i < n; i++) {
    uint hi = i + 1 < n || sh ? w[i + 1] : 0;
    acc = sad4 ((uint) (upsample (hi, lo) >> sh), c[i], acc);
    lo = hi;
  }
  return acc;
}
#endif

/* ranking key of a full-pel candidate in the window of @range */
#define KEY_IN(cost, dx, dy, range)                                         \
  (((ulong) (cost) << 32) | ((ulong) (abs (dx) + abs (dy)) << 16) |         \
      (ulong) (((dy) + (range)) * 2 * (range) + (dx) + (range)))
#define KEY(cost, dx, dy) KEY_IN (cost, dx, dy, RANGE)

typedef struct
{
  global const uchar *cur, *ref;
  int cur_stride, ref_stride;
  int width, height;
} planes_t;

/* LBS: the side of a whole block at the level searched (BS for the full
 * search). Its rows stay in vector registers, LROWS of LVEC; 4 x 4 blocks
 * are packed into one uchar16. */
#ifndef LBS
#define LBS BS
#endif
#if LBS == 16
#define LVEC uchar16
#define LROWS 16
#define SAD_ADD sad_add16
#define LOAD_ROW_ANY LOAD16_ANY
#elif LBS == 8
#define LVEC uchar8
#define LROWS 8
#define SAD_ADD sad_add8
#define LOAD_ROW_ANY LOAD8_ANY
#else
#define LVEC uchar16
#define LROWS 1
#define SAD_ADD sad_add16
#endif

/* row y of a whole block at p (for 4 x 4 blocks: all of it) */
static inline LVEC
load_row (global const uchar * p, int stride, int y)
{
#if LBS == 16 || LBS == 8
  return LOAD_ROW_ANY (p + y * stride);
#else
  return (uchar16) (vload4 (0, p), vload4 (0, p + stride),
      vload4 (0, p + 2 * stride), vload4 (0, p + 3 * stride));
#endif
}

#if SAD_PTX && (LBS == 16 || LBS == 8)
/* @acc plus the SAD of @row against the bytes at r (see sad_words) */
static inline uint
sad_row_words (LVEC row, global const uchar * r, uint acc)
{
#if LBS == 16
  const uint4 v = as_uint4 (row);
  const uint c[4] = { v.x, v.y, v.z, v.w };
#else
  const uint2 v = as_uint2 (row);
  const uint c[2] = { v.x, v.y };
#endif
  return sad_words (c, LBS / 4, r, acc);
}
#endif

/* SAD of the first @n of the rows @rows of a whole block (4 x 4 blocks:
 * @n 1, all of it) against those at r */
static inline uint
sad_first_rows (const LVEC * rows, int n, global const uchar * r, int rs)
{
#if SAD_PTX && (LBS == 16 || LBS == 8)
  uint s = 0;
  #pragma unroll
  for (int y = 0; y < n; y++)
    s = sad_row_words (rows[y], r + y * rs, s);
  return s;
#elif SAD_PTX
  /* the four 4-byte rows of a 4 x 4 block */
  const uint4 v = as_uint4 (rows[0]);
  const uint c[4] = { v.x, v.y, v.z, v.w };
  uint s = 0;
  #pragma unroll
  for (int y = 0; y < 4; y++)
    s = sad_words (c + y, 1, r + y * rs, s);
  return s;
#else
  sad_acc_t acc = SAD_ZERO;
  #pragma unroll
  for (int y = 0; y < n; y++)
    acc = SAD_ADD (acc, rows[y], load_row (r, rs, y));
  return sad_total (acc);
#endif
}

/* SAD of the whole block held in @rows against the one at r */
static inline uint
sad_rows (const LVEC * rows, global const uchar * r, int rs)
{
  return sad_first_rows (rows, LROWS, r, rs);
}

#if LBS == 8
#define LAVG2(a, b) half_avg2 ((uchar16) (a, (uchar8) 0),                  \
      (uchar16) (b, (uchar8) 0)).lo
#define LAVG4(a, b, c, d) half_avg4 ((uchar16) (a, (uchar8) 0),            \
      (uchar16) (b, (uchar8) 0), (uchar16) (c, (uchar8) 0),                 \
      (uchar16) (d, (uchar8) 0)).lo
#else
#define LAVG2 half_avg2
#define LAVG4 half_avg4
#endif

/* SAD of the whole block at c against the half-pel prediction at integer
 * part r, fractions hx, hy (0 | 1), with the MPEG-1 rounding: between
 * four samples where both are set, else between r and its neighbour (r
 * itself where neither is) */
static inline uint
sad_half_rows (global const uchar * c, int cs, global const uchar * r,
    int rs, int hx, int hy)
{
  sad_acc_t acc = SAD_ZERO;
  if (hx && hy) {
    global const uchar *r1 = r + rs;
    #pragma unroll
    for (int y = 0; y < LROWS; y++)
      acc = SAD_ADD (acc, load_row (c, cs, y), LAVG4 (load_row (r, rs, y),
              load_row (r + 1, rs, y), load_row (r1, rs, y),
              load_row (r1 + 1, rs, y)));
  } else {
    global const uchar *o = r + hx + hy * rs;
    #pragma unroll
    for (int y = 0; y < LROWS; y++)
      acc = SAD_ADD (acc, load_row (c, cs, y), LAVG2 (load_row (r, rs, y),
              load_row (o, rs, y)));
  }
  return sad_total (acc);
}

/* SAD of a bw x bh block, any size */
static uint
sad_any (global const uchar * c, int cs, global const uchar * r, int rs,
    int bw, int bh)
{
  uint s = 0;
  for (int y = 0; y < bh; y++)
    for (int x = 0; x < bw; x++)
      s += abs_diff (c[y * cs + x], r[y * rs + x]);
  return s;
}

#if CHROMA
/* SAD of the chroma samples of a block (pixel stride CPS) */
static uint
sad_chroma (global const uchar * c, int cs, global const uchar * r, int rs,
    int bw, int bh)
{
  uint s = 0;
  for (int y = 0; y < bh; y++)
    for (int x = 0; x < bw; x++)
      s += abs_diff (c[y * cs + x * CPS], r[y * rs + x * CPS]);
  return s;
}
#endif

/* The MPEG-1 half-pel prediction of one sample, its integer part at q,
 * fractions hx, hy (0 | 1): the rounded mean of four samples where both
 * are set, of q and its neighbour where one is, q where neither is (the
 * four-sample mean of a pair taken twice, or of q four times, is theirs) */
static inline uint
half_pred (global const uchar * q, int rs, int hx, int hy)
{
  return ((uint) q[0] + q[hx] + q[hy * rs] + q[hy * rs + hx] + 2) >> 2;
}

/* SAD against the half-pel prediction at integer part r, fractions hx,
 * hy (0 | 1), with the MPEG-1 rounding */
static uint
sad_half (global const uchar * c, int cs, global const uchar * r, int rs,
    int bw, int bh, int hx, int hy)
{
  uint s = 0;
  for (int y = 0; y < bh; y++)
    for (int x = 0; x < bw; x++)
      s += abs_diff ((uint) c[y * cs + x], half_pred (r + y * rs + x, rs, hx,
              hy));
  return s;
}

/* The bits a displacement component @c is priced at: about those of
 * MPEG's vector codes, 1 for zero, else 2 more each time |c| doubles */
static inline uint
component_bits (int c)
{
  return c ? 2 * (32 - clz ((uint) abs (c))) + 2 : 1;
}

/* The ranking key of half-pel position @h (see half_key), vector (@vx,
 * @vy), SAD @s: the SAD, then the shorter vector, then the position */
static ulong
half_rank (uint s, int vx, int vy, int h)
{
  return ((ulong) s << 32) | ((ulong) (abs (vx) + abs (vy)) << 16) |
      (ulong) h;
}

/* What half-pel vector v adds to its SATD in the refinement:
 * HALF_PRICE_FACTOR times @price (sixteenths of a unit) a bit of its
 * components in half-pel units. A SATD runs from one to eight times the
 * SAD of the same residual; on the real-content set 2 gains 0.06% over 1
 * and 3 loses jellyfish's grain. */
#define HALF_PRICE_FACTOR 2
static inline uint
half_price (uint price, int2 v)
{
  return (HALF_PRICE_FACTOR * price * (component_bits (v.x) +
          component_bits (v.y))) >> 4;
}

/* The vector of half-pel position h (0..8: (hy + 1) * 3 + hx + 1) around
 * the full-pel vector (fx, fy), in half-pel units */
static inline int2
half_vector (int fx, int fy, int h)
{
  return (int2) (2 * fx + h % 3 - 1, 2 * fy + h / 3 - 1);
}

/* Whether the half-pel vector (vx, vy) of the bw x bh block at (x0, y0)
 * reads only samples inside the plane */
static inline int
half_inside (int vx, int vy, int x0, int y0, int bw, int bh, int width,
    int height)
{
  int ix = vx >> 1, iy = vy >> 1;
  return x0 + ix >= 0 && y0 + iy >= 0 && x0 + ix + bw + (vx & 1) <= width &&
      y0 + iy + bh + (vy & 1) <= height;
}

/* Ranking key of half-pel position h (0..8: (hy + 1) * 3 + hx + 1) around
 * the full-pel vector (fx, fy) of the block at (x0, y0) whose SAD there is
 * full_sad; ULONG_MAX where the prediction reads outside the plane. */
static ulong
half_key (global const uchar * cur, int cs, global const uchar * ref,
    int rs, int width, int height, int x0, int y0, int bw, int bh, int fx,
    int fy, uint full_sad, int h)
{
  int2 v = half_vector (fx, fy, h);
  int vx = v.x, vy = v.y;
  int ix = vx >> 1, iy = vy >> 1, fxh = vx & 1, fyh = vy & 1;
  uint s = full_sad;

  if (h != 4) {
    if (!half_inside (vx, vy, x0, y0, bw, bh, width, height))
      return ULONG_MAX;
    global const uchar *c = cur + y0 * cs + x0;
    global const uchar *r = ref + (y0 + iy) * rs + x0 + ix;
    s = bw == LBS && bh == LBS ? sad_half_rows (c, cs, r, rs, fxh, fyh) :
        sad_half (c, cs, r, rs, bw, bh, fxh, fyh);
  }
  return half_rank (s, vx, vy, h);
}

/* the vector of the best half_key around (fx, fy) */
static GstClMotionVector
half_result (int fx, int fy, ulong best)
{
  int2 v = half_vector (fx, fy, (int) (best & 0xffff));
  GstClMotionVector mv;
  mv.dx = (short) v.x;
  mv.dy = (short) v.y;
  mv.sad = (uint) (best >> 32);
  return mv;
}

#if LBS == 16
/* Between four samples from the means of their pairs: with h = (a + b +
 * 1) >> 1 and x = a ^ b for the pair above, h', x' for the pair below,
 * (a + b + c + d + 2) >> 2 = ((h + h' + 1) >> 1) - ((x | x') & (h ^ h') &
 * 1): the pairs' means round up only where their sums are odd (bit 0 of
 * x), and the mean of the means then lies one above just where h + h' is
 * odd as well. Bytes throughout: pavgb and a few logical operations on
 * x86. */
static inline uchar16
half_avg_means (uchar16 h, uchar16 x, uchar16 h1, uchar16 x1)
{
  return half_avg2 (h, h1) - ((x | x1) & (h ^ h1) & (uchar) 1);
}

/* The SADs of the 16 x 16 block at @c against its eight half-pel
 * neighbours of the full-pel position @r (all inside the plane) into
 * @sad, in half_key's order without the centre: one pass over the rows.
 * Each reference row is loaded once and the means of its horizontal
 * pairs formed once; the prediction between two rows serves the row
 * above (displaced down) and the row below (displaced up). The same
 * predictions as sad_half_rows, position by position. */
static void
sad_half_ring (global const uchar * c, int cs, global const uchar * r,
    int rs, uint * sad)
{
  sad_acc_t acc[8];
  /* the reference row above the current one: the means and the xors of
   * its pairs left of x and right of it, and its own samples */
  uchar16 hl0, hr0, xl0, xr0, b0;

  for (int h = 0; h < 8; h++)
    acc[h] = SAD_ZERO;
  r -= rs;
  {
    uchar16 a = LOAD16_ANY (r - 1), c0 = LOAD16_ANY (r + 1);
    b0 = LOAD16_ANY (r);
    hl0 = half_avg2 (a, b0);
    hr0 = half_avg2 (b0, c0);
    xl0 = a ^ b0;
    xr0 = b0 ^ c0;
  }
  for (int y = 0; y <= 16; y++) {
    global const uchar *n = r + (y + 1) * rs;
    uchar16 a1 = LOAD16_ANY (n - 1), b1 = LOAD16_ANY (n);
    uchar16 c1 = LOAD16_ANY (n + 1);
    uchar16 hl1 = half_avg2 (a1, b1), hr1 = half_avg2 (b1, c1);
    uchar16 xl1 = a1 ^ b1, xr1 = b1 ^ c1;
    uchar16 el = half_avg_means (hl0, xl0, hl1, xl1);
    uchar16 er = half_avg_means (hr0, xr0, hr1, xr1);
    uchar16 ev = half_avg2 (b0, b1);

    if (y > 0) {
      /* block row y - 1 against the predictions below it, between
       * reference rows y - 1 and y: (-1, 1), (0, 1), (1, 1) */
      uchar16 o = LOAD16_ANY (c + (y - 1) * cs);
      acc[5] = sad_add16 (acc[5], o, el);
      acc[6] = sad_add16 (acc[6], o, ev);
      acc[7] = sad_add16 (acc[7], o, er);
    }
    if (y < 16) {
      /* block row y: the predictions above it, between rows y - 1 and y,
       * and those on its own row y */
      uchar16 o = LOAD16_ANY (c + y * cs);
      acc[0] = sad_add16 (acc[0], o, el);
      acc[1] = sad_add16 (acc[1], o, ev);
      acc[2] = sad_add16 (acc[2], o, er);
      acc[3] = sad_add16 (acc[3], o, hl1);
      acc[4] = sad_add16 (acc[4], o, hr1);
    }
    b0 = b1;
    hl0 = hl1;
    hr0 = hr1;
    xl0 = xl1;
    xr0 = xr1;
  }
  for (int h = 0; h < 8; h++)
    sad[h] = sad_total (acc[h]);
}
#endif

#if SATD
/* The SATD of the 8 x 8 residual @d (transformed in place) */
static uint
satd8_residual (int *d)
{
  uint total = 0;
  /* the rows' butterflies, then the columns' (step 1: along a row) */
  #pragma unroll
  for (int step = 1; step <= 8; step *= 8) {
    #pragma unroll
    for (int s = 1; s < 8; s <<= 1) {
      #pragma unroll
      for (int i = 0; i < 8; i++) {
        if (i & s)
          continue;
        #pragma unroll
        for (int j = 0; j < 8; j++) {
          int k = step == 1 ? 8 * j + i : 8 * i + j;
          int a = d[k], b = d[k + s * step];
          d[k] = a + b;
          d[k + s * step] = a - b;
        }
      }
    }
  }
  #pragma unroll
  for (int i = 0; i < 64; i++)
    total += abs (d[i]);
  return total;
}

/* The SATD of the 8 x 8 block at c against the block at r (a full-pel
 * prediction), and the SAD of the same residual into *@sad */
static uint
satd8_full (global const uchar * c, int cs, global const uchar * r, int rs,
    uint * sad)
{
  int d[64];
  uint s = 0;
  #pragma unroll
  for (int y = 0; y < 8; y++) {
    #pragma unroll
    for (int x = 0; x < 8; x++) {
      d[8 * y + x] = (int) c[y * cs + x] - (int) r[y * rs + x];
      s += abs (d[8 * y + x]);
    }
  }
  *sad = s;
  return satd8_residual (d);
}
#endif

#if SATD && LBS == 16
/* SATD of the 16 x 16 block at c against the half-pel prediction at
 * integer part r, fractions hx, hy (0 | 1), MPEG-1 rounding; the SAD of
 * the same residual into *@sad */
static uint
satd_half_rows (global const uchar * c, int cs, global const uchar * r,
    int rs, int hx, int hy, uint * sad)
{
  short16 d[16];
  ushort16 m = 0;               /* (16 x 255 fits) */
  /* the prediction stays in 16-bit lanes, where the residual is taken
   * (no narrowing to bytes and widening back), and each case has a loop
   * of its own: no test of the fractions per row */
#define WIDE(p) convert_short16 (LOAD16_ANY (p))
  if (hx && hy) {
    /* each row's horizontal pair sums serve two predicted rows */
    short16 above = WIDE (r) + WIDE (r + 1);
    #pragma unroll
    for (int y = 0; y < 16; y++) {
      global const uchar *n = r + (y + 1) * rs;
      short16 below = WIDE (n) + WIDE (n + 1);
      d[y] = WIDE (c + y * cs) - ((above + below + (short) 2) >> (short) 2);
      above = below;
    }
  } else if (hx || hy) {
    global const uchar *o = r + hx + hy * rs;
    #pragma unroll
    for (int y = 0; y < 16; y++)
      d[y] = WIDE (c + y * cs) - ((WIDE (r + y * rs) + WIDE (o + y * rs) +
              (short) 1) >> (short) 1);
  } else {
    #pragma unroll
    for (int y = 0; y < 16; y++)
      d[y] = WIDE (c + y * cs) - WIDE (r + y * rs);
  }
#undef WIDE
  #pragma unroll
  for (int y = 0; y < 16; y++)
    m += as_ushort16 (max (d[y], -d[y]));
  *sad = (uint) sum16 (convert_int16 (m));
  return satd16 (d);
}

/* The best of the nine half-pel positions around (fx, fy) of the whole
 * block at (x0, y0) that read inside the plane, by SATD plus SAD plus
 * @price (sixteenths of a unit) a bit of the half-pel vector's
 * components, with its SAD. SAD alone misranks the positions: a diagonal
 * one averages four samples and smooths noise, which SAD rewards beyond
 * what the coded residual gains, and it ignores that a half-pel
 * component costs more bits than a whole one. SATD alone loses on still
 * cameras (office-talkinghead +0.5%): the SAD keeps the residual's
 * spread in sight. @full_sad and @full_satd are those at (fx, fy)
 * (@full_satd UINT_MAX where the caller has not got it). */
static GstClMotionVector
satd_best (global const uchar * cur, int cs, global const uchar * ref,
    int rs, int width, int height, int x0, int y0, int fx, int fy,
    uint full_sad, uint full_satd, uint price)
{
  global const uchar *c = cur + y0 * cs + x0;
  ulong best = ULONG_MAX;
  uint sad[9];
  for (int h = 0; h < 9; h++) {
    int2 v = half_vector (fx, fy, h);
    if (h != 4 && !half_inside (v.x, v.y, x0, y0, 16, 16, width, height))
      continue;
    uint t = full_satd;
    sad[h] = full_sad;
    if (h != 4 || full_satd == UINT_MAX)
      t = satd_half_rows (c, cs, ref + (y0 + (v.y >> 1)) * rs + x0 +
          (v.x >> 1), rs, v.x & 1, v.y & 1, &sad[h]);
    best = min (best, half_rank (t + sad[h] + half_price (price, v), v.x,
            v.y, h));
  }
  GstClMotionVector mv = half_result (fx, fy, best);
  mv.sad = sad[best & 0xffff];
  return mv;
}
#endif

/* Half-pel refinement around the full-pel vector (fx, fy) of the block at
 * (x0, y0), whose SAD is @full_sad and SATD @full_satd (UINT_MAX: not
 * known), the vector's bits at @price where ranked by SATD (see
 * satd_best); returns the vector in half-pel units and its SAD. */
static GstClMotionVector
refine_half (global const uchar * cur, int cs, global const uchar * ref,
    int rs, int width, int height, int x0, int y0, int bw, int bh, int fx,
    int fy, uint full_sad, uint full_satd, uint price)
{
  ulong keys[9], best = ULONG_MAX;
  int ring = 0;
#if SATD && LBS == 16
  if (bw == 16 && bh == 16)
    return satd_best (cur, cs, ref, rs, width, height, x0, y0, fx, fy,
        full_sad, full_satd, price);
#endif
#if LBS == 16
  ring = bw == 16 && bh == 16 && x0 + fx >= 1 && y0 + fy >= 1 &&
      x0 + fx + 17 <= width && y0 + fy + 17 <= height;
  if (ring) {
    uint sad[8];
    sad_half_ring (cur + y0 * cs + x0, cs, ref + (y0 + fy) * rs + x0 + fx,
        rs, sad);
    /* (unrolled: each position's offsets are constants) */
    #pragma unroll
    for (int h = 0; h < 9; h++) {
      int2 v = half_vector (fx, fy, h);
      keys[h] = half_rank (h == 4 ? full_sad : sad[h - (h > 4)], v.x, v.y, h);
    }
  }
#endif
  if (!ring)
    for (int h = 0; h < 9; h++)
      keys[h] = half_key (cur, cs, ref, rs, width, height, x0, y0, bw, bh,
          fx, fy, full_sad, h);
  for (int h = 0; h < 9; h++)
    best = min (best, keys[h]);
  return half_result (fx, fy, best);
}

/* Full search of the block at (x0, y0) of size bw x bh. */
static GstClMotionVector
search_block (global const uchar * cur, int cs, global const uchar * ref,
    int rs, int width, int height, int x0, int y0, int bw, int bh
#if CHROMA
    , global const uchar * cu, global const uchar * cv, int cus, int cvs,
    global const uchar * ru, global const uchar * rv, int rus, int rvs
#endif
    )
{
  /* candidates whose reference block lies inside the plane */
  int dx0 = max (-RANGE, -x0), dx1 = min (RANGE - 1, width - bw - x0);
  int dy0 = max (-RANGE, -y0), dy1 = min (RANGE - 1, height - bh - y0);
  global const uchar *c = cur + y0 * cs + x0;
  ulong best = ULONG_MAX;

#if !CHROMA
  if (bw == BS && bh == BS) {
    /* the block's rows stay in registers */
    LVEC rows[LROWS];
    for (int y = 0; y < LROWS; y++)
      rows[y] = load_row (c, cs, y);
    for (int dy = dy0; dy <= dy1; dy++) {
      global const uchar *r = ref + (y0 + dy) * rs + x0;
      for (int dx = dx0; dx <= dx1; dx++)
        best = min (best, KEY (sad_rows (rows, r + dx, rs), dx, dy));
    }
  } else
#endif
  {
#if CHROMA
    int cx0 = x0 >> CSX, cy0 = y0 >> CSY;
    int cbw = ((x0 + bw + (1 << CSX) - 1) >> CSX) - cx0;
    int cbh = ((y0 + bh + (1 << CSY) - 1) >> CSY) - cy0;
#endif
    for (int dy = dy0; dy <= dy1; dy++) {
      for (int dx = dx0; dx <= dx1; dx++) {
        uint s = sad_any (c, cs, ref + (y0 + dy) * rs + x0 + dx, rs, bw, bh);
#if CHROMA
        int rx = (cx0 + (dx >> CSX)) * CPS, ry = cy0 + (dy >> CSY);
        uint sc = sad_chroma (cu + cy0 * cus + cx0 * CPS, cus,
            ru + ry * rus + rx, rus, cbw, cbh) +
            sad_chroma (cv + cy0 * cvs + cx0 * CPS, cvs, rv + ry * rvs + rx,
            rvs, cbw, cbh);
        s = 256 * s + WQ * sc;
#endif
        best = min (best, KEY (s, dx, dy));
      }
    }
  }

  int idx = (int) (best & 0xffff);
  int fx = idx % SPAN - RANGE, fy = idx / SPAN - RANGE;
  uint sad = (uint) (best >> 32);
#if CHROMA
  sad = sad_any (c, cs, ref + (y0 + fy) * rs + x0 + fx, rs, bw, bh);
#endif
#if SUBPEL
  /* (the full search prices no vector) */
  return refine_half (cur, cs, ref, rs, width, height, x0, y0, bw, bh, fx,
      fy, sad, UINT_MAX, 0);
#else
  GstClMotionVector mv;
  mv.dx = (short) (2 * fx);
  mv.dy = (short) (2 * fy);
  mv.sad = sad;
  return mv;
#endif
}

/* (the full search's programs only: a program compiles all its kernels,
 * used or not) */
#if !defined (LEVEL) && !defined (REFINE_ITEMS)
kernel void
motion_search_blocks (global const uchar * cur, global const uchar * ref,
    global const uchar * chroma_cur, global const uchar * chroma_ref,
    global GstClMotionVector * vectors, const GstClMotionSearchArgs args)
{
  int bx = get_global_id (0) + args.first_bx;
  int by = get_global_id (1) + args.first_by;
  int blocks_x = (args.width + BS - 1) / BS;
  int blocks_y = (args.height + BS - 1) / BS;

  if (bx >= blocks_x || by >= blocks_y)
    return;
  int x0 = bx * BS, y0 = by * BS;
  int bw = min (BS, (int) args.width - x0);
  int bh = min (BS, (int) args.height - y0);

  vectors[by * blocks_x + bx] = search_block (cur + args.cur.offset,
      (int) args.cur.stride, ref + args.ref.offset, (int) args.ref.stride,
      (int) args.width, (int) args.height, x0, y0, bw, bh
#if CHROMA
      , chroma_cur + args.cur_chroma[0].offset,
      chroma_cur + args.cur_chroma[1].offset, (int) args.cur_chroma[0].stride,
      (int) args.cur_chroma[1].stride, chroma_ref + args.ref_chroma[0].offset,
      chroma_ref + args.ref_chroma[1].offset, (int) args.ref_chroma[0].stride,
      (int) args.ref_chroma[1].stride
#endif
      );
}
#endif


/* ---- hierarchical search ---- */

/* work-items per block: 0 for one work-item per run of BPW blocks
 * (CPUs: fewer, longer work-items keep the per-group overhead small) */
#ifndef HNT
#define HNT 0
#endif
#ifndef BPW
#define BPW 8
#endif

/* Decimated luma: the level-l sample (x, y), l = 1 or 2, is the rounded
 * mean of the 2^l x 2^l samples it covers, (sum + 2^(2l - 1)) >> 2l, with
 * coordinates past the last column or row clamped to it. A level-l plane
 * has ceil (w / 2^l) x ceil (h / 2^l) samples in packed rows. */

/* Level-2 sample (x2, y2) and the level-1 samples under it. */
static void
decimate_one (global const uchar * p, int stride, int w, int h, int x2,
    int y2, global uchar * l1, global uchar * l2)
{
  int w1 = (w + 1) >> 1, h1 = (h + 1) >> 1, w2 = (w + 3) >> 2;
  /* the 2 x 2 sums of the four level-1 samples */
  uint s[4] = { 0, 0, 0, 0 };
  for (int j = 0; j < 4; j++) {
    global const uchar *row = p + min (4 * y2 + j, h - 1) * stride;
    for (int i = 0; i < 4; i++)
      s[(j >> 1) * 2 + (i >> 1)] += row[min (4 * x2 + i, w - 1)];
  }
  for (int k = 0; k < 4; k++) {
    int x1 = 2 * x2 + (k & 1), y1 = 2 * y2 + (k >> 1);
    if (x1 < w1 && y1 < h1)
      l1[y1 * w1 + x1] = (uchar) ((s[k] + 2) >> 2);
  }
  l2[y2 * w2 + x2] = (uchar) ((s[0] + s[1] + s[2] + s[3] + 8) >> 4);
}

#if !HNT
/* the sums of the byte pairs of the 32 samples at @q */
#if defined(CPU_CLANG_BUILTINS) && defined(__AVX2__) && \
    __has_builtin(__builtin_ia32_pmaddubsw256)
typedef uchar uchar32_t __attribute__ ((ext_vector_type (32)));
typedef uchar32_t uchar32_any __attribute__ ((aligned (1)));
static inline ushort16
pair_sums (global const uchar * q)
{
  /* one pmaddubsw: each pair times one, added */
  typedef char bytes_t __attribute__ ((vector_size (32)));
  return as_ushort16 (__builtin_ia32_pmaddubsw256 ((bytes_t) *
          (global const uchar32_any *) q, (bytes_t) (uchar32_t) (1)));
}
#else
static inline ushort16
pair_sums (global const uchar * q)
{
  uchar16 a = LOAD16_ANY (q), b = LOAD16_ANY (q + 16);
  return convert_ushort16 ((uchar16) (a.even, b.even)) +
      convert_ushort16 ((uchar16) (a.odd, b.odd));
}
#endif

/* sums of 2^shift samples to their rounded means */
static inline uchar16
rounded_mean (ushort16 sum, ushort shift)
{
  return convert_uchar16 ((sum + (ushort) (1 << (shift - 1))) >> shift);
}
#endif

/* (level 2's program only) */
#if defined (LEVEL) && LEVEL == 2
/* GPUs: one work-item per level-2 sample. CPUs: one per run of 16
 * level-2 samples of a row, in vectors where the run's 64 x 4 samples lie
 * inside the plane. */
kernel void
motion_decimate (global const uchar * src, global uchar * dst,
    global int *global_work, const GstClMotionDecimateArgs args)
{
  int w = (int) args.width, h = (int) args.height;
  int stride = (int) args.src.stride;
  int w2 = (w + 3) >> 2, h2 = (h + 3) >> 2;
  int y2 = get_global_id (1);
  global const uchar *p = src + args.src.offset;
  global uchar *l1 = dst + args.l1_offset, *l2 = dst + args.l2_offset;

  /* the global motion's keys at their largest, its sums at zero (where
   * both pictures are decimated, twice: the same) */
  for (int i = y2 * get_global_size (0) + get_global_id (0);
      i < GST_CL_MOTION_GLOBAL_VALUES (w2, h2);
      i += get_global_size (0) * get_global_size (1))
    global_work[i] = i < GST_CL_MOTION_GLOBAL_PROFILES ? -1 : 0;

#if HNT
  int x2 = get_global_id (0);
  if (x2 < w2 && y2 < h2)
    decimate_one (p, stride, w, h, x2, y2, l1, l2);
#else
  int run = get_global_id (0);
  if (y2 >= h2 || 16 * run >= w2)
    return;
  if (64 * (run + 1) <= w && 4 * y2 + 3 < h) {
    int w1 = (w + 1) >> 1;
    global const uchar *r = p + 4 * y2 * stride + 64 * run;
    /* horizontal pair sums of the four rows, 32 per row */
    ushort16 hs[4][2];
    for (int j = 0; j < 4; j++) {
      global const uchar *q = r + j * stride;
      hs[j][0] = pair_sums (q);
      hs[j][1] = pair_sums (q + 32);
    }
    ushort16 t0 = hs[0][0] + hs[1][0], t1 = hs[0][1] + hs[1][1];
    ushort16 b0 = hs[2][0] + hs[3][0], b1 = hs[2][1] + hs[3][1];
    global uchar *o1 = l1 + 2 * y2 * w1 + 32 * run;
    STORE16_ANY (rounded_mean (t0, 2), o1);
    STORE16_ANY (rounded_mean (t1, 2), o1 + 16);
    STORE16_ANY (rounded_mean (b0, 2), o1 + w1);
    STORE16_ANY (rounded_mean (b1, 2), o1 + w1 + 16);
    ushort16 q0 = t0 + b0, q1 = t1 + b1;
    STORE16_ANY (rounded_mean ((ushort16) (q0.even, q1.even) +
            (ushort16) (q0.odd, q1.odd), 4), l2 + y2 * w2 + 16 * run);
  } else {
    for (int x2 = 16 * run; x2 < min (w2, 16 * run + 16); x2++)
      decimate_one (p, stride, w, h, x2, y2, l1, l2);
  }
#endif
}
#endif

/* The work-items of a block: HNT in the hierarchical steps on GPUs,
 * REFINE_ITEMS in the half-pel refinement's own kernel */
#if HNT
#define BLOCK_ITEMS HNT
#elif defined (REFINE_ITEMS)
#define BLOCK_ITEMS REFINE_ITEMS
#else
#define BLOCK_ITEMS 0
#endif

#if BLOCK_ITEMS
/* A block a warp where its work-items exchange values in registers
 * (WARP_PTX, a block of one warp): no barrier, no local memory, and
 * GROUP_BLOCKS blocks a work-group, which keeps more warps on the device
 * than a group a block could. Elsewhere they exchange them through local
 * memory, a block a work-group. */
#if WARP_PTX && BLOCK_ITEMS == WARP_SIZE
#define WARP_STEPS 1
#else
#define WARP_STEPS 0
#endif
#ifndef GROUP_BLOCKS
#define GROUP_BLOCKS 1
#endif
#if GROUP_BLOCKS > 1 && !WARP_STEPS
#error "blocks that share a work-group take a warp each"
#endif

/* The least of the block's work-items' keys, for each of them; every
 * work-item of the block calls it together (@keys holds BLOCK_ITEMS) */
__attribute__ ((always_inline)) static inline ulong
block_min (ulong v, local ulong * keys, int lid)
{
#if WARP_STEPS
  return warp_min (v);
#else
  return group_min (v, keys, lid, BLOCK_ITEMS);
#endif
}

/* The sum of @v over the n (a power of 2) consecutive work-items from a
 * multiple of n that hold this one, for each of them; every work-item of
 * the block calls it together (@partial holds BLOCK_ITEMS) */
__attribute__ ((always_inline)) static inline uint
block_sum (uint v, int n, local uint * partial, int lid)
{
#if WARP_STEPS
  return warp_sum (v, n);
#else
  uint sum = 0;
  partial[lid] = v;
  barrier (CLK_LOCAL_MEM_FENCE);
  for (int i = 0; i < n; i++)
    sum += partial[(lid & -n) + i];
  /* everyone has read @partial before it is written again */
  barrier (CLK_LOCAL_MEM_FENCE);
  return sum;
#endif
}

/* @v of the block's work-item @lid XOR @mask (@mask below BLOCK_ITEMS);
 * every work-item of the block calls it together (@partial holds
 * BLOCK_ITEMS) */
__attribute__ ((always_inline)) static inline int8
block_xor8 (int8 v, int mask, local int8 * partial, int lid)
{
#if WARP_STEPS
  const uint8 u = as_uint8 (v);
  return as_int8 ((uint8) (warp_xor (u.s0, mask), warp_xor (u.s1, mask),
          warp_xor (u.s2, mask), warp_xor (u.s3, mask), warp_xor (u.s4,
              mask), warp_xor (u.s5, mask), warp_xor (u.s6, mask),
          warp_xor (u.s7, mask)));
#else
  partial[lid] = v;
  barrier (CLK_LOCAL_MEM_FENCE);
  const int8 other = partial[lid ^ mask];
  barrier (CLK_LOCAL_MEM_FENCE);
  return other;
#endif
}
#endif

/* ---- half-pel refinement on GPUs: motion_refine_groups, and the last
 * pass at full resolution of the hierarchical search ---- */

#if BLOCK_ITEMS == 32 && (defined (REFINE_ITEMS) || \
    (defined (LEVEL) && LEVEL == 0 && PASS == 2 && SUBPEL))
#if BS == 16 && SATD
/* This work-item's shares of the SATD and the SAD of the nine half-pel
 * positions around the full-pel vector (fx, fy) of the whole 16 x 16
 * block at c (r: the reference at the block's place), into @satd and
 * @sad. Work-item @lane takes 8 samples of a row of one 8 x 8 quarter and
 * the reference's 3 x 10 samples that their predictions read, clamped to
 * the plane (only positions not tried read outside it); each row of the
 * quarter's residual is transformed in the work-item, its columns across
 * the quarter's 8 work-items. (Two 16-bit coefficients an exchange, half
 * the exchanges, made the step slower on the H100: the 16-bit arithmetic
 * cost more than the exchanges saved.) One work-item a quarter and a
 * position held 64 samples and waited on the others. */
__attribute__ ((always_inline)) static inline void
refine_satd_lanes (global const uchar * c, int cs, global const uchar * r,
    int rs, int x0, int y0, int width, int height, int fx, int fy, int lane,
    local int8 * exchange, uint * satd, uint * sad)
{
  const int q = lane / 8, row = lane % 8;
  const int qx = q % 2 * 8, y = q / 2 * 8 + row;
  int8 cur;
  /* reference samples from (x0 + qx + fx - 1, y0 + y + fy - 1) */
  int a[3][10];

  cur = convert_int8 (vload8 (0, c + y * cs + qx));
  #pragma unroll
  for (int j = 0; j < 3; j++) {
    const int ry = clamp (y0 + y + fy - 1 + j, 0, height - 1);
    #pragma unroll
    for (int i = 0; i < 10; i++)
      a[j][i] = r[(ry - y0) * rs + clamp (x0 + qx + fx - 1 + i, 0,
              width - 1) - x0];
  }
  #pragma unroll
  for (int h = 0; h < 9; h++) {
    /* the position's integer part against (fx - 1, fy - 1), and its
     * fractions (half_vector) */
    const int ox = h % 3 != 0, hx = h % 3 != 1;
    const int oy = h / 3 != 0, hy = h / 3 != 1;
    int p[8];
    #pragma unroll
    for (int x = 0; x < 8; x++)
      p[x] = (a[oy][ox + x] + a[oy][ox + x + hx] + a[oy + hy][ox + x] +
          a[oy + hy][ox + x + hx] + 2) >> 2;
    int8 e = cur - (int8) (p[0], p[1], p[2], p[3], p[4], p[5], p[6], p[7]);
    const uint s = sum8 (as_int8 (abs (e)));
    /* the row's butterflies (each round pairs neighbours, sums then
     * differences: three rounds make the transform, its outputs in
     * another order, the same in every work-item), then the column's
     * across the quarter */
    #pragma unroll
    for (int k = 0; k < 3; k++) {
      const int4 u = e.even, w = e.odd;
      e = (int8) (u + w, u - w);
    }
    #pragma unroll
    for (int k = 1; k < 8; k <<= 1) {
      const int8 other = block_xor8 (e, k, exchange, lane);
      e = row & k ? other - e : e + other;
    }
    satd[h] = sum8 (as_int8 (abs (e)));
    sad[h] = s;
  }
}
#endif

/* Half-pel refinement of the vector @mv (half-pel units, its full-pel
 * SAD) of the block (bx, by) by its 32 work-items, @lane this one's index
 * among them and its place in @exchange (local memory only where a block
 * is a work-group), ranked as refine_half ranks them (the same vectors);
 * the vectors' bits at @price. A whole
 * block ranked by SATD takes each position's SAD and SATD from
 * refine_satd_lanes, and sums only their sum, then the winner's SAD;
 * others sum the differences from the eight half-pel predictions around
 * the vector, a share of the samples a work-item. */
__attribute__ ((always_inline)) static inline GstClMotionVector
refine_lanes (global const uchar * c, int cs, global const uchar * r,
    int rs, int width, int height, int bx, int by, GstClMotionVector mv,
    uint price, int lane, local int8 * exchange)
{
  const int x0 = bx * BS, y0 = by * BS;
  const int bw = min (BS, width - x0), bh = min (BS, height - y0);
  const int fx = mv.dx / 2, fy = mv.dy / 2;
  ulong best = ULONG_MAX;

  c += y0 * cs + x0;
  r += y0 * rs + x0;
#if BS == 16 && SATD
  if (bw == 16 && bh == 16) {
    uint satd[9], sad[9], best_sad = 0;
    refine_satd_lanes (c, cs, r, rs, x0, y0, width, height, fx, fy, lane,
        exchange, satd, sad);
    #pragma unroll
    for (int h = 0; h < 9; h++) {
      const int2 v = half_vector (fx, fy, h);
      /* (the centre's SAD the search's) */
      const uint cost = block_sum (satd[h] + (h == 4 ? 0 : sad[h]), 32,
          (local uint *) exchange, lane) + (h == 4 ? mv.sad : 0);
      const ulong key = half_rank (cost + half_price (price, v), v.x, v.y,
          h);
      if ((h == 4 || half_inside (v.x, v.y, x0, y0, 16, 16, width, height))
          && key < best) {
        best = key;
        best_sad = sad[h];
      }
    }
    /* (the same winner in every work-item) */
    GstClMotionVector out = half_result (fx, fy, best);
    out.sad = (best & 0xffff) == 4 ? mv.sad : block_sum (best_sad, 32,
        (local uint *) exchange, lane);
    return out;
  }
#endif
  /* position h, h != 4: vector v[h], its prediction read from offset[h]
   * of the sample's place */
  int2 v[9];
  int offset[9], inside[9];
  uint acc[9];
  #pragma unroll
  for (int h = 0; h < 9; h++) {
    v[h] = half_vector (fx, fy, h);
    offset[h] = (v[h].y >> 1) * rs + (v[h].x >> 1);
    inside[h] = h != 4 && half_inside (v[h].x, v[h].y, x0, y0, bw, bh,
        width, height);
    acc[h] = 0;
  }
  for (int s = lane; s < BS * BS; s += 32) {
    const int x = s % BS, y = s / BS;
    if (x >= bw || y >= bh)
      continue;
    const uint cv = c[y * cs + x];
    #pragma unroll
    for (int h = 0; h < 9; h++)
      if (inside[h])
        acc[h] += abs_diff (cv, half_pred (r + y * rs + x + offset[h], rs,
                v[h].x & 1, v[h].y & 1));
  }
  #pragma unroll
  for (int h = 0; h < 9; h++) {
    /* (every work-item sums, each block's the same positions) */
    const uint sum = h == 4 ? mv.sad : block_sum (acc[h], 32,
        (local uint *) exchange, lane);
    if (h == 4 || inside[h])
      best = min (best, half_rank (sum, v[h].x, v[h].y, h));
  }
  return half_result (fx, fy, best);
}
#endif


#ifdef LEVEL

#ifndef PASS
#define PASS 1
#endif

/* The levels above full resolution search the 16 x 16 areas of the
 * picture (its macroblocks, whatever BS is): 4 x 4 samples at level 2,
 * 8 x 8 at level 1. Full resolution searches the BS blocks. */
#define CBS 16
#if LEVEL > 0
#define GBS CBS
#else
#define GBS BS
#endif

/* Level 1 and the first pass at full resolution take the best of a few
 * predictors (the vector of the area, or of the area holding the block,
 * at the coarser level, those of its left, top, right and bottom
 * neighbours there, all doubled, and at full resolution the zero
 * vector), then look around it within RADIUS: one sample at level 1,
 * where the decimation leaves the match within about a sample of the
 * doubled vector. At full resolution the square is taken again around
 * its best until that is its centre, SQUARES squares at most (3: as
 * good as one 5 x 5 square, with fewer displacements where the best lies
 * near the predictor, as it mostly does). */
#define RADIUS 1
#ifndef SQUARES
#define SQUARES 3
#endif
#ifndef NEIGHBOURS
#define NEIGHBOURS 4
#endif
#define SQUARE_STEPS (LEVEL ? 1 : SQUARES)
#define SIDE (2 * RADIUS + 1)
#define NSQUARE (SIDE * SIDE)
#define NPRED (LEVEL ? 6 : 7)
/* a displacement outside every window: no candidate */
#define NO_CAND ((int2) (1 << 20, 1 << 20))

/* The last propagation at full resolution, where the half-pel positions
 * are ranked by SATD (SATD: whole 16 x 16 blocks), ranks its candidates
 * by the SATD of their residual too, plus SATD_PRICE_FACTOR times their
 * price (the SATD of a residual runs about three times its SAD): the
 * vector whose residual transforms into the fewest coefficients wins,
 * where the least SAD often favours a smooth but costlier one. The
 * vector keeps its SAD. */
#define SATD_PROPAGATION (LEVEL == 0 && PASS == 2 && SATD && LBS == 16)
#define SATD_PRICE_FACTOR 3
#if SATD_PROPAGATION && HNT && HNT < 4 * (1 + NEIGHBOURS)
#error "the SATD propagation takes four work-items a candidate"
#endif

/* the shift (level-2 samples) in the key of the global motion along an
 * axis (shift_key) */
#define GLOBAL_SHIFT(key) ((int) ((key) & 1023) - 512)

typedef struct
{
  global const uchar *c, *r;    /* the block, its reference at (0, 0) */
  int cs, rs;
  int bw, bh;                   /* the block's size at this level */
  int cx0, cx1, cy0, cy1;       /* the displacements allowed here */
  int whole;                    /* LBS x LBS: rows in registers */
  uint price;                   /* see vector_price; 0 at level 2 */
} level_block_t;

/* What displacement v adds to its SAD in the ranking at level 1 and at
 * full resolution: the price (sixteenths of a SAD unit) of its bits. A
 * long vector must match clearly better than a short one: in grain and
 * flat areas the least SAD is often far away, where its bits buy
 * nothing. Level 2 ranks by SAD alone, its window seeds the finer
 * levels. */
static inline uint
vector_price (const level_block_t * b, int2 v)
{
  return (b->price * (component_bits (v.x) + component_bits (v.y))) >> 4;
}

/* What every block of a step shares */
typedef struct
{
  int width, height;            /* the full-resolution picture */
  int range;                    /* the window of level 2 */
  global const GstClMotionVector *history;      /* see temporal_vector */
  int hbs;
  int2 global_vector;           /* the global motion's, at level 2 */
  uint price;                   /* see vector_price */
} level_search_t;

/* Ranking key of displacement (dx, dy) of a level: cost, |dx| + |dy|,
 * then raster order (dy, then dx), as KEY, in fields wide enough for any
 * displacement up to GST_CL_MOTION_SEARCH_LIMIT */
#define LKEY(cost, dx, dy)                                                  \
  (((ulong) (cost) << 32) | ((ulong) (abs (dx) + abs (dy)) << 20) |         \
      (ulong) ((((dy) + 512) << 10) | ((dx) + 512)))

/* Whether displacement v is allowed at this level */
static inline int
level_allowed (const level_block_t * b, int2 v)
{
  return v.x >= b->cx0 && v.x <= b->cx1 && v.y >= b->cy0 && v.y <= b->cy1;
}

/* Key of displacement v at this level, ULONG_MAX if not allowed
 * (inlined: a call cost a fifth of a whole block's SAD) */
__attribute__ ((always_inline)) static ulong
level_key (const level_block_t * b, const LVEC * rows, int2 v)
{
  if (!level_allowed (b, v))
    return ULONG_MAX;
  global const uchar *r = b->r + v.y * b->rs + v.x;
  uint s = b->whole ? sad_rows (rows, r, b->rs) :
      sad_any (b->c, b->cs, r, b->rs, b->bw, b->bh);
  return LKEY (s + vector_price (b, v), v.x, v.y);
}

#if SATD_PROPAGATION && !HNT
/* Key of displacement v of a whole block by SATD_PROPAGATION's cost,
 * ULONG_MAX if not allowed (@rows unused: level_key's arguments) */
static ulong
satd_key (const level_block_t * b, const LVEC * rows, int2 v)
{
  if (!level_allowed (b, v))
    return ULONG_MAX;
  uint sad;
  uint t = satd_half_rows (b->c, b->cs, b->r + v.y * b->rs + v.x, b->rs, 0,
      0, &sad);
  return LKEY (t + SATD_PRICE_FACTOR * vector_price (b, v), v.x, v.y);
}
#endif

#if HNT && LEVEL < 2
#if LBS != 16 && LBS != 8
#error "level 1 and full resolution search blocks of 16 or 8"
#endif
/* GPUs at level 1 and at full resolution: SPLIT work-items share a
 * candidate, each the SAD of SPLIT_ROWS rows of the block (only those
 * rows in its registers), summed in local memory. The few candidates of
 * a step (a square has eight) then keep all HNT work-items busy, a
 * quarter of a block's rows each, where one work-item a candidate left
 * most of them idle and walked all the rows. The same keys. */
#define SPLIT 4
#define SPLIT_ROWS (LROWS / SPLIT)
#define SPLIT_CANDS (HNT / SPLIT)

/* The key of displacement @v (NO_CAND: none) for the first work-item of
 * its SPLIT, from the rows @mine of share @part of each; ULONG_MAX for
 * the others. Every work-item of the group calls it together. (Inlined:
 * POCL lost the partial SADs of a call with barriers inside.) */
__attribute__ ((always_inline)) static ulong
split_key (const level_block_t * b, const LVEC * mine, int2 v, int part,
    local uint * partial, int lid)
{
  const int allowed = level_allowed (b, v);
  const int y0 = part * SPLIT_ROWS;
  uint s = 0;
  ulong key = ULONG_MAX;

  if (allowed) {
    global const uchar *r = b->r + (v.y + y0) * b->rs + v.x;
    if (b->whole) {
      s = sad_first_rows (mine, SPLIT_ROWS, r, b->rs);
    } else if (y0 < b->bh) {
      s = sad_any (b->c + y0 * b->cs, b->cs, r, b->rs, b->bw,
          min (SPLIT_ROWS, b->bh - y0));
    }
  }
  const uint sum = block_sum (s, SPLIT, partial, lid);
  if (allowed && part == 0)
    key = LKEY (sum + vector_price (b, v), v.x, v.y);
  return key;
}
#endif

#if (LBS == 16 || LBS == 8) && !HNT
/* The best key of the square of displacements p + (-RADIUS .. RADIUS)^2,
 * every one allowed, of a whole block: for each row of the square its
 * SIDE displacements together, each row of the block taken once for
 * them, with no call and no window test per displacement. */
static ulong
square_best (const level_block_t * b, const LVEC * rows, int2 p)
{
  ulong best = ULONG_MAX;
  for (int dy = -RADIUS; dy <= RADIUS; dy++) {
    global const uchar *r = b->r + (p.y + dy) * b->rs + p.x - RADIUS;
    sad_acc_t acc[SIDE];
    #pragma unroll
    for (int i = 0; i < SIDE; i++)
      acc[i] = SAD_ZERO;
    #pragma unroll
    for (int y = 0; y < LROWS; y++)
      #pragma unroll
      for (int i = 0; i < SIDE; i++)
        acc[i] = SAD_ADD (acc[i], rows[y], LOAD_ROW_ANY (r + i + y * b->rs));
    for (int i = 0; i < SIDE; i++) {
      int2 v = (int2) (p.x - RADIUS + i, p.y + dy);
      best = min (best, LKEY (sad_total (acc[i]) + vector_price (b, v), v.x,
              v.y));
    }
  }
  return best;
}
#endif

/* the displacement of an LKEY */
static int2
key_vector (ulong key)
{
  int idx = (int) (key & 0xfffff);
  return (int2) ((idx & 1023) - 512, (idx >> 10) - 512);
}

/* Vector of the neighbour n (0..3: left, top, right, bottom) of block
 * (bx, by) in a grid of gx x gy, scaled by @scale, or NO_CAND. */
static int2
neighbour (global const GstClMotionVector * v, int bx, int by, int gx,
    int gy, int n, int scale)
{
  int nx = bx + (n == 2) - (n == 0), ny = by + (n == 3) - (n == 1);
  if (nx < 0 || ny < 0 || nx >= gx || ny >= gy)
    return NO_CAND;
  GstClMotionVector m = v[ny * gx + nx];
  return (int2) (scale * m.dx, scale * m.dy);
}

/* best becomes the best of itself and the few candidates CAND (t), t =
 * known to n - 1, across the group with HNT; candidates 0 to known - 1
 * are in best already */
#if defined (SPLIT)
#define BEST_OF(best, known, n, CAND)                                       \
  do {                                                                      \
    for (int base = (known); base < (n); base += SPLIT_CANDS) {             \
      int t = base + lid / SPLIT;                                           \
      best = min (best, split_key (&b, rows, t < (n) ? (CAND) : NO_CAND,    \
              lid % SPLIT, partial, lid));                                  \
    }                                                                       \
    best = block_min (best, keys, lid);                                     \
  } while (0)
#else
/* (n at most 8) vector fields are smooth, the predictors often the same:
 * each is tried once */
#define BEST_OF(best, known, n, CAND) BEST_BY (best, known, n, CAND, level_key)
/* ... by the keys of function KEY (level_key's arguments) */
#define BEST_BY(best, known, n, CAND, KEY)                                  \
  do {                                                                      \
    int2 tried[8];                                                          \
    for (int t = 0; t < (n); t++) {                                         \
      int2 v = CAND;                                                        \
      int seen = t < (known);                                               \
      for (int i = 0; i < t; i++)                                           \
        seen |= all (tried[i] == v);                                        \
      tried[t] = v;                                                         \
      if (!seen)                                                            \
        best = min (best, KEY (&b, rows, v));                               \
    }                                                                       \
  } while (0)
#endif

/* predictor t of level 1 or of the first pass at full resolution: the
 * coarser level's vector of the area, its neighbours', zero (full
 * resolution), then the block's vector in the previous search (@tv) */
static int2
predictor (global const GstClMotionVector * coarse, int px, int py, int gx,
    int gy, int t, int2 tv)
{
  if (t == 0)
    return (int2) (2 * coarse[py * gx + px].dx, 2 * coarse[py * gx + px].dy);
  if (t <= 4)
    return neighbour (coarse, px, py, gx, gy, t - 1, 2);
  return t == NPRED - 1 ? tv : (int2) (0, 0);
}

/* The vector that the previous search found for the block holding
 * full-resolution sample (x0, y0) (a grid of @hbs blocks, half-pel
 * units), in samples of this level; NO_CAND without one (@hbs 0). */
static int2
temporal_vector (const level_search_t * s, int x0, int y0)
{
  if (!s->hbs)
    return NO_CAND;
  int hgx = (s->width + s->hbs - 1) / s->hbs;
  GstClMotionVector h = s->history[(y0 / s->hbs) * hgx + x0 / s->hbs];
  return (int2) (h.dx >> (1 + LEVEL), h.dy >> (1 + LEVEL));
}

#if LEVEL == 2
/* The best key of the window [x0, x1] x [y0, y1] (displacements of this
 * level) of block @b, clipped to those allowed: every one tried (with
 * HNT, work-item @lid's share of them; without, @lid is 0) */
static ulong
window_best (const level_block_t * b, const LVEC * rows, int x0, int x1,
    int y0, int y1, int lid)
{
  ulong best = ULONG_MAX;
  x0 = max (x0, b->cx0);
  x1 = min (x1, b->cx1);
  y0 = max (y0, b->cy0);
  y1 = min (y1, b->cy1);
#if HNT
  int nx = x1 - x0 + 1, n = x1 < x0 ? 0 : nx * max (y1 - y0 + 1, 0);
  for (int t = lid; t < n; t += HNT)
    best = min (best, level_key (b, rows, (int2) (x0 + t % nx, y0 + t / nx)));
#else
#if defined (SAD_MPSADBW) && LBS == 4
  if (b->whole) {
    /* eight displacements along a row at once: each row of the 4 x 4
     * block against 16 reference bytes, one mpsadbw (the reads past the
     * last allowed displacement stay inside the pyramid's buffer, which
     * has room for them) */
    uchar16 c[4];
    for (int y = 0; y < 4; y++)
      c[y] = (uchar16) (vload4 (0, b->c + y * b->cs), (uchar4) 0, (uchar8) 0);
    ulong8 best8 = (ulong8) ULONG_MAX;
    for (int cy = y0; cy <= y1; cy++) {
      global const uchar *r = b->r + cy * b->rs;
      for (int cx = x0; cx <= x1; cx += 8) {
        ushort8 s = (ushort8) 0;
        for (int y = 0; y < 4; y++)
          s += sad4_at8 (LOAD16_ANY (r + cx + y * b->rs), c[y]);
        /* the eight keys side by side, those past x1 none */
        int8 dx = cx + (int8) (0, 1, 2, 3, 4, 5, 6, 7);
        uint8 mag = abs (dx) + abs (cy);
        int8 idx = ((cy + 512) << 10) | (dx + 512);
        ulong8 k = (convert_ulong8 (s) << 32) | (convert_ulong8 (mag) << 20) |
            convert_ulong8 (as_uint8 (idx));
        best8 = min (best8, select (k, (ulong8) ULONG_MAX,
                convert_long8 (dx > x1)));
      }
    }
    return min (min (min (best8.s0, best8.s1), min (best8.s2, best8.s3)),
        min (min (best8.s4, best8.s5), min (best8.s6, best8.s7)));
  }
#endif
  /* no division per candidate on CPUs */
  for (int cy = y0; cy <= y1; cy++)
    for (int cx = x0; cx <= x1; cx++)
      best = min (best, level_key (b, rows, (int2) (cx, cy)));
#endif
  return best;
}
#endif

/* The step for block or area (bx, by) of the gx x gy grid; see
 * motion_search_level. */
static GstClMotionVector
level_step (global const uchar * cur, global const uchar * ref, int cs,
    int rs, const level_search_t * s, int bx, int by, int gx, int gy,
    global const GstClMotionVector * coarse
#if HNT
    , local ulong * keys, local uint * partial, int lid
#endif
    )
{
  const int width = s->width, height = s->height;
  int x0 = bx * GBS, y0 = by * GBS;
  int bw = min (GBS, width - x0), bh = min (GBS, height - y0);
  int limit = GST_CL_MOTION_SEARCH_LIMIT >> LEVEL;
  level_block_t b;

  b.cs = cs;
  b.rs = rs;
  b.c = cur + (y0 >> LEVEL) * cs + (x0 >> LEVEL);
  b.r = ref + (y0 >> LEVEL) * rs + (x0 >> LEVEL);
  b.bw = (bw + (1 << LEVEL) - 1) >> LEVEL;
  b.bh = (bh + (1 << LEVEL) - 1) >> LEVEL;
  b.cx0 = max (-limit, -(x0 >> LEVEL));
  b.cx1 = min (limit, (width - bw - x0) >> LEVEL);
  b.cy0 = max (-limit, -(y0 >> LEVEL));
  b.cy1 = min (limit, (height - bh - y0) >> LEVEL);
  b.whole = b.bw == LBS && b.bh == LBS;
  b.price = LEVEL == 2 ? 0 : s->price;

#if defined (SPLIT)
  /* this work-item's share of the rows */
  LVEC rows[SPLIT_ROWS];
  if (b.whole)
    for (int y = 0; y < SPLIT_ROWS; y++)
      rows[y] = load_row (b.c, cs, (lid % SPLIT) * SPLIT_ROWS + y);
#else
  LVEC rows[LROWS];
  if (b.whole)
    for (int y = 0; y < LROWS; y++)
      rows[y] = load_row (b.c, cs, y);
#if LEVEL == 0
  /* the next line of the rows, which the blocks to the right read (the
   * decimated levels' rows are short and stay in the caches) */
  prefetch_next_lines (b.c, cs, LROWS, 0);
#endif
#endif

  ulong best = ULONG_MAX;
#if LEVEL == 0 && PASS == 2 && !HNT
  /* the winner's SATD where the last pass ranks by it */
  uint full_satd = UINT_MAX;
#endif
#if LEVEL == 2
  /* the window around zero, and the same around the area's vector of the
   * previous search where that moved: motion is followed however fast */
  int lo = -(s->range >> LEVEL), hi = (s->range - 1) >> LEVEL;
  int2 tv = temporal_vector (s, x0, y0);
  /* and around the picture's global motion where the zero window misses
   * it: a pan is found from its first picture on */
  int2 gv = s->global_vector;
  int global_far = gv.x < lo || gv.x > hi || gv.y < lo || gv.y > hi;
#if HNT
  const int item = lid;
#else
  const int item = 0;
#endif
  best = window_best (&b, rows, lo, hi, lo, hi, item);
  if (s->hbs && (tv.x | tv.y))
    best = min (best, window_best (&b, rows, tv.x + lo, tv.x + hi,
            tv.y + lo, tv.y + hi, item));
  if (global_far)
    best = min (best, window_best (&b, rows, gv.x + lo, gv.x + hi,
            gv.y + lo, gv.y + hi, item));
#if HNT
  best = block_min (best, keys, lid);
#endif
#elif PASS == 1
  /* the coarser level's area: this one, or the one holding the block */
  int cgx = (width + CBS - 1) / CBS, cgy = (height + CBS - 1) / CBS;
  int2 tv = temporal_vector (s, x0, y0);
  BEST_OF (best, 0, NPRED, predictor (coarse, x0 / CBS, y0 / CBS, cgx, cgy,
          t, tv));
  int2 p = key_vector (best);
  for (int step = 0; step < SQUARE_STEPS; step++) {
    /* (best is the same across the group) */
    if (step) {
      int2 moved = key_vector (best);
      if (all (moved == p))
        break;
      p = moved;
    }
#if defined (SPLIT)
    /* the eight around the centre, which is in already */
    for (int base = 0; base < NSQUARE - 1; base += SPLIT_CANDS) {
      int c = base + lid / SPLIT, t = c + (c >= NSQUARE / 2);
      best = min (best, split_key (&b, rows, c < NSQUARE - 1 ? p +
              (int2) (t % SIDE - RADIUS, t / SIDE - RADIUS) : NO_CAND,
              lid % SPLIT, partial, lid));
    }
    best = block_min (best, keys, lid);
#else
#if LBS == 16 || LBS == 8
    /* (the centre's key is the best so far: taking it again changes
     * nothing) */
    if (b.whole && p.x - RADIUS >= b.cx0 && p.x + RADIUS <= b.cx1 &&
        p.y - RADIUS >= b.cy0 && p.y + RADIUS <= b.cy1)
      best = min (best, square_best (&b, rows, p));
    else
#endif
      for (int dy = -RADIUS; dy <= RADIUS; dy++)
        for (int dx = -RADIUS; dx <= RADIUS; dx++)
          if (dx | dy)
            best = min (best, level_key (&b, rows, p + (int2) (dx, dy)));
#endif
  }
#else
  /* the block's own vector, whose SAD pass 1 found, then its neighbours' */
  GstClMotionVector own = coarse[by * gx + bx];
#define PROPAGATED(t) (t ? neighbour (coarse, bx, by, gx, gy, t - 1, 1) :     \
      (int2) (own.dx, own.dy))
#if SATD_PROPAGATION
  if (b.whole) {
#if HNT
    /* four work-items a candidate, an 8 x 8 quarter of the block each */
    int t = lid / 4, qx = lid % 2 * 8, qy = lid / 2 % 2 * 8;
    int2 v = t <= NEIGHBOURS ? PROPAGATED (t) : NO_CAND;
    int allowed = level_allowed (&b, v), first = allowed && lid % 4 == 0;
    uint quarter_sad = 0;
    uint quarter_satd = allowed ? satd8_full (b.c + qy * cs + qx, cs,
        b.r + (v.y + qy) * rs + v.x + qx, rs, &quarter_sad) : 0;
    uint satd = block_sum (quarter_satd, 4, partial, lid);
    uint sad = block_sum (quarter_sad, 4, partial, lid);
    int2 f = key_vector (block_min (first ? LKEY (satd + SATD_PRICE_FACTOR *
                vector_price (&b, v), v.x, v.y) : ULONG_MAX, keys, lid));
    /* the chosen vector's SAD, from its quarters, as the other passes
     * rank it */
    best = block_min (first && all (v == f) ? LKEY (sad + vector_price (&b,
                f), f.x, f.y) : ULONG_MAX, keys, lid);
#else
    BEST_BY (best, 0, 1 + NEIGHBOURS, PROPAGATED (t), satd_key);
    /* (the refinement ranks the winner by this SATD again) */
    const int2 w = key_vector (best);
    full_satd = (uint) (best >> 32) - SATD_PRICE_FACTOR * vector_price (&b,
        w);
    best = level_key (&b, rows, w);
#endif
  } else
#endif
  {
    best = LKEY (own.sad + vector_price (&b, (int2) (own.dx, own.dy)),
        own.dx, own.dy);
    BEST_OF (best, 1, 1 + NEIGHBOURS, PROPAGATED (t));
  }
#undef PROPAGATED
#endif

  int2 f = key_vector (best);
  uint sad = (uint) (best >> 32) - vector_price (&b, f);
  GstClMotionVector mv;
#if LEVEL == 0 && PASS == 2 && SUBPEL && !HNT
  /* (GPUs refine in motion_search_level, by refine_lanes) */
  mv = refine_half (cur, cs, ref, rs, width, height, x0, y0, bw, bh, f.x,
      f.y, sad, full_satd, b.price);
#else
  /* half-pel units only at the end */
#if LEVEL == 0 && PASS == 2
  f *= 2;
#endif
  mv.dx = (short) f.x;
  mv.dy = (short) f.y;
  mv.sad = sad;
#endif
  return mv;
}

#if LEVEL == 2
#define GM_ITEMS GST_CL_MOTION_GLOBAL_SHIFTS
#define GM_SHIFT_ITEMS GST_CL_MOTION_GLOBAL_SHIFT_ITEMS


/* The part of shift d's sum from every @step-th difference, from the
 * @first: the sum of |c'[i] - r'[i + d]| where both exist, c' and r' the
 * differences from one value to the next of profiles @c and @r (@n
 * values each, in @work: edges count, not shading) */
static ulong
shift_sum (global const uint * c, global const uint * r, int n, int d,
    int first, int step)
{
  int i0 = max (0, -d), i1 = min (n - 1, n - 1 - d);
  ulong sum = 0;
  for (int i = i0 + first; i < i1; i += step)
    sum += abs (((int) c[i + 1] - (int) c[i]) -
        ((int) r[i + d + 1] - (int) r[i + d]));
  return sum;
}

/* The key of shift d with @sum (shift_sum): the mean difference,
 * weighted by (64 + |d|) / 64, then the shorter shift, then the lower
 * (the least key is the best) */
static ulong
shift_key (ulong sum, int n, int d)
{
  int i0 = max (0, -d), i1 = min (n - 1, n - 1 - d);
  ulong mean = (sum << 8) / (ulong) max (i1 - i0, 1);
  /* periodic structure matches at several shifts: the shorter wins
   * unless a longer one is clearly better */
  mean = mean * (64 + abs (d)) >> 6;
  return (mean << 20) | ((ulong) abs (d) << 10) | (ulong) (d + 512);
}

/* The profile of @axis (0: columns, 1: rows) of the current picture, or
 * of the @reference, in @work (GST_CL_MOTION_GLOBAL_PROFILES) */
static inline global uint *
gm_profile (global int *work, int w, int h, int axis, int reference)
{
  return (global uint *) work + GST_CL_MOTION_GLOBAL_PROFILES + (axis ?
      2 * w + reference * h : reference * w);
}

/* The profiles of the global motion: the column sums of the current
 * level-2 picture, the reference's, then the row sums of each, in @work,
 * which motion_decimate zeroed. Each tile of GM_TILE x GM_TILE samples
 * adds its share to each sum (integer atomics: the order does not change
 * the result): on GPUs a work-group a tile, a work-item a sample of each
 * picture, the tile's sums taken in local memory; on CPUs a work-item a
 * tile, its rows as vectors. */
#define GM_TILE 16

#if HNT
__kernel __attribute__ ((reqd_work_group_size (GM_TILE, GM_TILE, 1)))
void
motion_global_profiles (global const uchar * cur, global const uchar * ref,
    global int *work, const GstClMotionSearchArgs args)
{
  local uint samples[2][GM_TILE][GM_TILE + 1];
  const int w = (args.width + 3) / 4, h = (args.height + 3) / 4;
  const int lx = get_local_id (0), ly = get_local_id (1);
  const int x0 = get_group_id (0) * GM_TILE, y0 = get_group_id (1) * GM_TILE;
  const int x = x0 + lx, y = y0 + ly;
  const int inside = x < w && y < h;

  samples[0][ly][lx] = inside ? cur[args.cur.offset + y * args.cur.stride +
      x] : 0;
  samples[1][ly][lx] = inside ? ref[args.ref.offset + y * args.ref.stride +
      x] : 0;
  barrier (CLK_LOCAL_MEM_FENCE);
  /* rows 0 and 1 of the group: the sums of row lx of each picture; rows 2
   * and 3: of column lx */
  if (ly < 4) {
    const int picture = ly % 2, columns = ly >= 2;
    const int at = (columns ? x0 : y0) + lx;
    uint sum = 0;
    for (int i = 0; i < GM_TILE; i++)
      sum += columns ? samples[picture][i][lx] : samples[picture][lx][i];
    if (at < (columns ? w : h))
      atomic_add ((volatile global uint *) gm_profile (work, w, h,
              !columns, picture) + at, sum);
  }
}
#else
__kernel void
motion_global_profiles (global const uchar * cur, global const uchar * ref,
    global int *work, const GstClMotionSearchArgs args)
{
  const int w = (args.width + 3) / 4, h = (args.height + 3) / 4;
  const int x0 = get_global_id (0) * GM_TILE, y0 = get_global_id (1) * GM_TILE;
  volatile global uint *cc = gm_profile (work, w, h, 0, 0);
  volatile global uint *rc = gm_profile (work, w, h, 0, 1);
  volatile global uint *cr = gm_profile (work, w, h, 1, 0);
  volatile global uint *rr = gm_profile (work, w, h, 1, 1);
  global const uchar *c = cur + args.cur.offset, *r = ref + args.ref.offset;

  if (x0 >= w || y0 >= h)
    return;
  int tw = min (GM_TILE, w - x0), th = min (GM_TILE, h - y0);
  uint col_c[GM_TILE], col_r[GM_TILE];
  if (tw == GM_TILE) {
    /* whole rows of the tile as vectors */
    uint16 vc = 0, vr = 0;
    for (int y = y0; y < y0 + th; y++) {
      uint16 a = convert_uint16 (vload16 (0, c + y * args.cur.stride + x0));
      uint16 b = convert_uint16 (vload16 (0, r + y * args.ref.stride + x0));
      uint8 a8 = a.lo + a.hi, b8 = b.lo + b.hi;
      uint4 a4 = a8.lo + a8.hi, b4 = b8.lo + b8.hi;
      vc += a;
      vr += b;
      atomic_add (&cr[y], a4.x + a4.y + a4.z + a4.w);
      atomic_add (&rr[y], b4.x + b4.y + b4.z + b4.w);
    }
    vstore16 (vc, 0, col_c);
    vstore16 (vr, 0, col_r);
  } else {
    for (int i = 0; i < tw; i++)
      col_c[i] = col_r[i] = 0;
    for (int y = y0; y < y0 + th; y++) {
      uint sc = 0, sr = 0;
      for (int i = 0; i < tw; i++) {
        uint a = c[y * args.cur.stride + x0 + i];
        uint b = r[y * args.ref.stride + x0 + i];
        sc += a;
        sr += b;
        col_c[i] += a;
        col_r[i] += b;
      }
      atomic_add (&cr[y], sc);
      atomic_add (&rr[y], sr);
    }
  }
  for (int i = 0; i < tw; i++) {
    atomic_add (&cc[x0 + i], col_c[i]);
    atomic_add (&rc[x0 + i], col_r[i]);
  }
}
#endif

#if HNT && defined (cl_khr_int64_extended_atomics)
#pragma OPENCL EXTENSION cl_khr_int64_extended_atomics : enable
/* GPUs: the shifts of the column profiles (work-groups 0 to 2 reach),
 * then of the row profiles, a work-group of GM_SHIFT_ITEMS per shift,
 * each shift's key kept where it is its axis's least so far (a 64-bit
 * atomic minimum: no launch to rank them, whatever order the work-groups
 * run in) */
__kernel __attribute__ ((reqd_work_group_size (GM_SHIFT_ITEMS, 1, 1)))
void
motion_global_shifts (global int *work, const GstClMotionSearchArgs args)
{
  local ulong sums[GM_SHIFT_ITEMS];
  const int lid = get_local_id (0), g = get_group_id (0);
  const int w = (args.width + 3) / 4, h = (args.height + 3) / 4;
  const int nx = 2 * GST_CL_MOTION_GLOBAL_REACH (w) + 1;
  const int ny = 2 * GST_CL_MOTION_GLOBAL_REACH (h) + 1;
  const int axis = g >= nx, n = axis ? h : w;
  /* this axis's shift */
  const int d = (axis ? g - nx : g) - GST_CL_MOTION_GLOBAL_REACH (n);

  if (g >= nx + ny)
    return;
  sums[lid] = shift_sum (gm_profile (work, w, h, axis, 0),
      gm_profile (work, w, h, axis, 1), n, d, lid, GM_SHIFT_ITEMS);
  barrier (CLK_LOCAL_MEM_FENCE);
  for (int k = GM_SHIFT_ITEMS / 2; k > 0; k >>= 1) {
    if (lid < k)
      sums[lid] += sums[lid + k];
    barrier (CLK_LOCAL_MEM_FENCE);
  }
  if (lid == 0)
    atom_min ((volatile global ulong *) work + axis, shift_key (sums[0], n,
            d));
}
#endif

/* The global motion of the picture, in level-2 samples: the shifts with
 * the least keys, those that best match the column sums (and the row
 * sums) of the current level-2 picture with the reference's
 * (motion_global_profiles), over about half of them at least and within
 * the search's limit. A pan moves both profiles as a whole, whatever the
 * window. One work-group of GM_ITEMS, a work-item weighing each shift:
 * CPUs (where a work-group a shift, motion_global_shifts, cost 25 times
 * more than the shifts' work), and GPUs without 64-bit atomics. */
__kernel __attribute__ ((reqd_work_group_size (GM_ITEMS, 1, 1)))
void
motion_global_motion (global int *work, const GstClMotionSearchArgs args)
{
  local ulong keys[GM_ITEMS];
  const int lid = get_local_id (0);
  const int w = (args.width + 3) / 4, h = (args.height + 3) / 4;

  for (int axis = 0; axis < 2; axis++) {
    const int n = axis ? h : w, reach = GST_CL_MOTION_GLOBAL_REACH (n);
    ulong best = ULONG_MAX;
    for (int d = lid - reach; d <= reach; d += GM_ITEMS)
      best = min (best, shift_key (shift_sum (gm_profile (work, w, h, axis,
                      0), gm_profile (work, w, h, axis, 1), n, d, 0, 1), n,
              d));
    best = group_min (best, keys, lid, GM_ITEMS);
    if (lid == 0)
      ((global ulong *) work)[axis] = best;
  }
}
#endif

/* One step of the hierarchical search, LEVEL 2, 1 or 0 (PASS 1 to 3):
 * cur and ref are that level's planes (full resolution at level 0),
 * width and height the full-resolution picture's. An area or block of
 * bw x bh samples at full resolution is ceil (bw / 2^l) x ceil (bh / 2^l)
 * at level l, and its displacements count level samples. A displacement
 * d is allowed where 2^l d lies in the full search's window and the area
 * displaced by 2^l d at full resolution lies inside the picture (then its
 * decimated reference lies inside the level's plane); candidates are
 * ranked by the full search's key, their cost at level 1 and at full
 * resolution the SAD plus the price of their bits (vector_price).
 * - Level 2 tries every allowed displacement.
 * - Level 1 and pass 1: the predictors from coarse (the level above, in
 *   its samples), then the square around the best of them.
 * - Pass 2 propagates: each block keeps its pass-1 vector (from coarse)
 *   unless one of its NEIGHBOURS' pass-1 vectors is better for it, then
 *   SUBPEL refines it (GPUs: refine_lanes, its 32 work-items).
 *   Blocks that missed the match take it from a neighbour that found it.
 *   With SATD, whole blocks rank these candidates by SATD
 *   (SATD_PROPAGATION), in both layouts.
 *   Pass 3, where it runs, propagates so too (by SAD) between passes 1 and
 *   2, so that a match travels two blocks.
 * vectors receives level samples, or half-pel units after pass 2. One
 * work-group of HNT per block or area (with WARP_STEPS, GROUP_BLOCKS
 * blocks of a row a work-group, a warp each), or (CPUs) one work-item per
 * run of BPW of them along a row. The window's range is an argument here, not
 * RANGE: one program serves every range. */
kernel void
motion_search_level (global const uchar * cur, global const uchar * ref,
    global const GstClMotionVector * coarse, global GstClMotionVector * vectors,
    global GstClMotionVector * history, global const ulong * global_motion,
    const GstClMotionSearchArgs args)
{
  int gx = (args.width + GBS - 1) / GBS, gy = (args.height + GBS - 1) / GBS;
  global const uchar *c = cur + args.cur.offset, *r = ref + args.ref.offset;
  /* the last pass's vectors are also the search's history, which only
   * level 2 and pass 1 read: no copy command of their own */
#if LEVEL == 0 && PASS == 2
#define STORE_RESULT(at, mv) (vectors[at] = history[at] = (mv))
#else
#define STORE_RESULT(at, mv) (vectors[at] = (mv))
#endif
  level_search_t s = { (int) args.width, (int) args.height, (int) args.range,
    history, (int) args.history_block,
    (int2) (GLOBAL_SHIFT (global_motion[0]), GLOBAL_SHIFT (global_motion[1])),
    args.vector_price
  };
#if HNT
  local ulong keys[HNT];
  local uint partial[HNT];
#if LEVEL == 0 && PASS == 2 && SUBPEL
  local int8 exchange[HNT];
#endif
  int lid = get_local_id (0) % HNT;
  int bx = get_group_id (0) * GROUP_BLOCKS + get_local_id (0) / HNT;
  int by = get_group_id (1);

  if (bx >= gx || by >= gy)
    return;
  GstClMotionVector mv = level_step (c, r, (int) args.cur.stride,
      (int) args.ref.stride, &s, bx, by, gx, gy, coarse, keys, partial, lid);
#if LEVEL == 0 && PASS == 2 && SUBPEL
  /* (the same vector in every work-item) */
  mv = refine_lanes (c, (int) args.cur.stride, r, (int) args.ref.stride,
      (int) args.width, (int) args.height, bx, by, mv, args.vector_price,
      lid, exchange);
#endif
  if (lid == 0)
    STORE_RESULT (by * gx + bx, mv);
#else
  int by = get_global_id (1), first = get_global_id (0) * BPW;

  if (by >= gy)
    return;
  for (int bx = first; bx < min (gx, first + BPW); bx++) {
    GstClMotionVector mv = level_step (c, r, (int) args.cur.stride,
        (int) args.ref.stride, &s, bx, by, gx, gy, coarse);
    STORE_RESULT (by * gx + bx, mv);
  }
#endif
#undef STORE_RESULT
}


#if LEVEL == 0 && PASS == 1
/* A search seeded by the vectors @seed of another (half-pel units, the
 * same grid of 16 x 16 blocks; an upstream search between neighbouring
 * frames, or a picture's further apart) times @num / @den (@den > 0;
 * the frames between the pictures searched over those between the
 * seed's, negative towards a later one), rounded to the nearest (halves
 * away from zero): into @history, whose vectors the search follows (the
 * first pass at full resolution takes them as its temporal predictors),
 * and into @coarse, level-1 vectors (half the samples, halves rounded
 * up), whose vector and neighbours a search at full resolution only
 * takes as its others. Each within the search's limit. */
kernel void
motion_seed (global const GstClMotionVector * seed,
    global GstClMotionVector * history, global GstClMotionVector * coarse,
    int num, int den, uint n)
{
  const int limit = 2 * GST_CL_MOTION_SEARCH_LIMIT;
  uint i = get_global_id (0);
  GstClMotionVector s, h, c;

  if (i >= n)
    return;
  s = seed[i];
  int x = s.dx * num, y = s.dy * num;
  x = (x + (x < 0 ? -(den / 2) : den / 2)) / den;
  y = (y + (y < 0 ? -(den / 2) : den / 2)) / den;
  h.dx = (short) clamp (x, -limit, limit);
  h.dy = (short) clamp (y, -limit, limit);
  h.sad = 0;
  /* half-pel units to level-1 samples, to the nearest */
  c.dx = (short) ((h.dx + 2) >> 2);
  c.dy = (short) ((h.dy + 2) >> 2);
  c.sad = 0;
  history[i] = h;
  coarse[i] = c;
}
#endif

#endif /* LEVEL */

/* ---- GPU layout ---- */

#ifdef TILES

#ifndef NT
#define NT 128
#endif
#ifndef K
#define K 8
#endif
#ifndef PARTIAL
#define PARTIAL 0
#endif

/* words per block row; dy groups; area rows and words per area row */
#define WPR (BS / 4)
#define NDY ((SPAN + K - 1) / K)
#define AR (NDY * K + BS - 1)
#define AW ((SPAN + BS - 1 + 3) / 4)
#define ACOLS (4 * AW + 4)
#define NTASKS (SPAN * NDY)


kernel void
motion_search_tiles (global const uchar * cur, global const uchar * ref,
    global GstClMotionVector * vectors, const GstClMotionSearchArgs args)
{
  local uchar raw[AR * ACOLS];
  local uint area[4 * AR * AW];
  local uint block[BS * WPR];
  local ulong keys[NT];

  int lid = get_local_id (0);
  int bx = get_group_id (0) + args.first_bx;
  int by = get_group_id (1) + args.first_by;
  int blocks_x = (args.width + BS - 1) / BS;
  int x0 = bx * BS, y0 = by * BS;
#if PARTIAL
  int bw = min (BS, (int) args.width - x0);
  int bh = min (BS, (int) args.height - y0);
#else
  const int bw = BS, bh = BS;
#endif
  int ax = x0 - RANGE, ay = y0 - RANGE;
  global const uchar *c = cur + args.cur.offset;
  global const uchar *r = ref + args.ref.offset;

  /* the area, clamped to the plane (what lies outside is masked) */
  for (int i = lid; i < AR * ACOLS; i += NT) {
    int y = clamp (ay + i / ACOLS, 0, (int) args.height - 1);
    int x = clamp (ax + i % ACOLS, 0, (int) args.width - 1);
    raw[i] = r[y * (int) args.ref.stride + x];
  }
  for (int i = lid; i < BS * WPR; i += NT) {
    int y = i / WPR, w = i % WPR;
#if PARTIAL
    uchar4 b = (uchar4) (0);
    global const uchar *p = c + (y0 + y) * (int) args.cur.stride + x0 + 4 * w;
    if (y < bh) {
      b.x = 4 * w < bw ? p[0] : 0;
      b.y = 4 * w + 1 < bw ? p[1] : 0;
      b.z = 4 * w + 2 < bw ? p[2] : 0;
      b.w = 4 * w + 3 < bw ? p[3] : 0;
    }
    block[i] = as_uint (b);
#else
    block[i] = as_uint (vload4 (0, c + (y0 + y) * (int) args.cur.stride + x0 +
            4 * w));
#endif
  }
  barrier (CLK_LOCAL_MEM_FENCE);
  for (int i = lid; i < 4 * AR * AW; i += NT) {
    int s = i / (AR * AW), rw = i % (AR * AW);
    int row = rw / AW, w = rw % AW;
    area[i] = as_uint (vload4 (0, raw + row * ACOLS + 4 * w + s));
  }
  barrier (CLK_LOCAL_MEM_FENCE);

  uint cb[BS][WPR];
  for (int y = 0; y < BS; y++)
    for (int w = 0; w < WPR; w++)
      cb[y][w] = block[y * WPR + w];
#if PARTIAL
  /* the visible bytes of each word of a row */
  uint cm[WPR];
  for (int w = 0; w < WPR; w++) {
    int n = clamp (bw - 4 * w, 0, 4);
    cm[w] = n == 4 ? 0xffffffffu : as_uint ((uchar4) (n > 0 ? 0xff : 0,
            n > 1 ? 0xff : 0, n > 2 ? 0xff : 0, 0));
  }
#endif

  /* valid displacements */
  int dx0 = max (-RANGE, -x0);
  int dx1 = min (RANGE - 1, (int) args.width - bw - x0);
  int dy0 = max (-RANGE, -y0);
  int dy1 = min (RANGE - 1, (int) args.height - bh - y0);
  ulong best = ULONG_MAX;

  for (int t = lid; t < NTASKS; t += NT) {
    int dx = t % SPAN - RANGE, g = t / SPAN;
    int col = dx + RANGE;
    local const uint *a = area + (col & 3) * AR * AW + g * K * AW +
        (col >> 2);
    uint acc[K];
    for (int k = 0; k < K; k++)
      acc[k] = 0;
#pragma unroll
    for (int row = 0; row < K + BS - 1; row++) {
      uint rw[WPR];
      for (int w = 0; w < WPR; w++)
        rw[w] = a[row * AW + w];
#pragma unroll
      for (int k = 0; k < K; k++) {
        int y = row - k;
        if (y >= 0 && y < BS) {
          for (int w = 0; w < WPR; w++)
#if PARTIAL
            acc[k] = sad4 (y < bh ? rw[w] & cm[w] : 0, cb[y][w], acc[k]);
#else
            acc[k] = sad4 (rw[w], cb[y][w], acc[k]);
#endif
        }
      }
    }
    for (int k = 0; k < K; k++) {
      int dy = g * K + k - RANGE;
      if (dx >= dx0 && dx <= dx1 && dy >= dy0 && dy <= dy1)
        best = min (best, KEY (acc[k], dx, dy));
    }
  }

  best = group_min (best, keys, lid, NT);
  if (lid == 0) {
    ulong key = best;
    int idx = (int) (key & 0xffff);
    GstClMotionVector mv;
    mv.dx = (short) (2 * (idx % SPAN - RANGE));
    mv.dy = (short) (2 * (idx / SPAN - RANGE));
    mv.sad = (uint) (key >> 32);
    vectors[by * blocks_x + bx] = mv;
  }
}

#endif /* TILES */

/* ---- the half-pel refinement's own kernel on GPUs ---- */

#ifdef REFINE_ITEMS
#if REFINE_ITEMS != 32
#error "the refinement takes 32 work-items a block"
#endif
/* Half-pel refinement of the full search's full-pel vectors (in half-pel
 * units) of the blocks [first_bx, end_bx) x [first_by, end_by), in place,
 * REFINE_ITEMS work-items per block (refine_lanes), GROUP_BLOCKS blocks
 * of a row a work-group. */
__kernel __attribute__ ((reqd_work_group_size (REFINE_ITEMS * GROUP_BLOCKS,
            1, 1)))
void
motion_refine_groups (global const uchar * cur, global const uchar * ref,
    global GstClMotionVector * vectors, const GstClMotionSearchArgs args)
{
  local int8 exchange[REFINE_ITEMS];
  const int lane = get_local_id (0) % REFINE_ITEMS;
  const int bx = get_group_id (0) * GROUP_BLOCKS + get_local_id (0) /
      REFINE_ITEMS + args.first_bx;
  const int by = get_group_id (1) + args.first_by;
  const int width = args.width, height = args.height;

  /* (a whole block, or a whole group where blocks exchange through local
   * memory) */
  if (bx >= (int) args.end_bx || by >= (int) args.end_by)
    return;
  const int at = by * ((width + BS - 1) / BS) + bx;
  GstClMotionVector mv = refine_lanes (cur + args.cur.offset,
      (int) args.cur.stride, ref + args.ref.offset, (int) args.ref.stride,
      width, height, bx, by, vectors[at], args.vector_price, lane, exchange);
  if (lane == 0)
    vectors[at] = mv;
}
#endif /* REFINE_ITEMS */
