/* gst-clvideo: rate-constrained full-search motion estimation
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * Each block takes the candidate of least SAD + lambda * bits, bits being
 * what MPEG-1 spends on the vector's difference to its predictor, the
 * vector just chosen for the block on its left (reset to 0 at the start of
 * every row, which is a slice). Definitions: gst/clvideo/motionsearch/gstclmotionlambda.h.
 *
 * Only the left neighbour is a dependency, so rows are independent chains:
 * the wavefront of this search is a vertical line sweeping left to right.
 * GPU layout, in two launches per band of block rows:
 *   lambda_sads   one work-group per block computes the SAD of every
 *                 candidate (no dependency: the whole device is busy) into
 *                 a surface of 16-bit SADs;
 *   lambda_rows   persistent work-groups take rows cyclically and walk
 *                 each from left to right: per block, the rate of every
 *                 candidate for the predictor now known, added to the
 *                 stored SAD, and a reduction in local memory.
 * CPU layout: one work-item per row does both, block after block.
 *
 * Build options: B (block size), R (range), and for the GPU layout LS
 * (work-group size, a power of two) and STRIP (candidate rows per pass
 * over the search area in local memory).
 */
#define SPAN (2 * R)            /* candidates per row of the window */
#define NCAND (SPAN * SPAN)
#define INVALID 0xffff

#include "gstclvideotypes.h"
#include "common.cl"

/* motion_code VLC lengths for |motion_code| 0..16, without the sign */
__constant uchar motion_code_length[17] = {
  1, 2, 3, 4, 6, 7, 7, 7, 9, 9, 9, 10, 10, 10, 10, 10, 10
};

/* Bits of one vector component whose differential is @delta half-pels */
inline uint
component_bits (int delta, int f_code)
{
  const int f = 1 << (f_code - 1);
  int code;

  /* the differential is coded modulo 32f */
  if (delta < -16 * f)
    delta += 32 * f;
  else if (delta >= 16 * f)
    delta -= 32 * f;
  if (delta == 0)
    return motion_code_length[0];
  code = ((int) abs (delta) - 1) / f + 1;
  /* sign bit and f_code - 1 bits of motion_r */
  return motion_code_length[code] + (uint) f_code;
}

inline int
candidate_valid (int x0, int y0, int dx, int dy, int bw, int bh, int w,
    int h)
{
  return x0 + dx >= 0 && y0 + dy >= 0 && x0 + dx + bw <= w &&
      y0 + dy + bh <= h;
}

/* Cost, then |dx| + |dy|, then raster index: the least key wins */
inline ulong
candidate_key (uint cost, int c)
{
  const uint manh = abs (c % SPAN - R) + abs (c / SPAN - R);
  return ((ulong) cost << 32) | ((ulong) manh << 20) | (ulong) c;
}

#if GST_CL_CPU_LAYOUT

#include "sad.cl"

/* a block row as one vector */
#if B == 16
#define vload_row vload16
#define sad_add_row sad_add16
#else
#define vload_row vload8
#define sad_add_row sad_add8
#endif

inline uint
block_sad (__global const uchar * c, uint cs, __global const uchar * p,
    uint ps, int bw, int bh)
{
  uint sad = 0;
  if (bw == B) {
    /* whole rows: unit-stride vectors */
    sad_acc_t acc = SAD_ZERO;
    for (int r = 0; r < bh; r++)
      acc = sad_add_row (acc, vload_row (0, c + r * cs),
          vload_row (0, p + r * ps));
    sad = sad_total (acc);
  } else {
    for (int r = 0; r < bh; r++)
      for (int x = 0; x < bw; x++)
        sad += abs_diff (c[r * cs + x], p[r * ps + x]);
  }
  return sad;
}

__kernel __attribute__ ((reqd_work_group_size (1, 1, 1)))
void
lambda_rows_cpu (__global const uchar * cur, __global const uchar * ref,
    __global GstClMotionVector * out, const GstClMotionLambdaArgs args)
{
  const int by = get_global_id (0);
  const int w = args.width, h = args.height;
  const int y0 = by * B, bh = min (B, h - y0);
  uint rate_x[SPAN], rate_y[SPAN];
  int px = 0, py = 0;

  for (int bx = 0; bx < (int) args.blocks_x; bx++) {
    const int x0 = bx * B, bw = min (B, w - x0);
    __global const uchar *c = cur + args.cur.offset + y0 * args.cur.stride +
        x0;
    ulong best = ULONG_MAX;
    int idx;
    GstClMotionVector v;

    for (int i = 0; i < SPAN; i++) {
      rate_x[i] = args.lambda * component_bits (2 * (i - R) - px,
          args.f_code);
      rate_y[i] = args.lambda * component_bits (2 * (i - R) - py,
          args.f_code);
    }
    /* the candidates whose reference block lies inside the plane */
    for (int dy = max (-R, -y0); dy <= min (R - 1, h - bh - y0); dy++) {
      for (int dx = max (-R, -x0); dx <= min (R - 1, w - bw - x0); dx++) {
        __global const uchar *p = ref + args.ref.offset +
            (y0 + dy) * args.ref.stride + x0 + dx;
        const uint sad = block_sad (c, args.cur.stride, p, args.ref.stride,
            bw, bh);
        best = min (best, candidate_key (sad + rate_x[dx + R] +
                rate_y[dy + R], (dy + R) * SPAN + dx + R));
      }
    }
    idx = (int) (best & 0xfffff);
    v.dx = (short) (2 * (idx % SPAN - R));
    v.dy = (short) (2 * (idx / SPAN - R));
    v.sad = (uint) (best >> 32) - rate_x[idx % SPAN] - rate_y[idx / SPAN];
    out[by * args.blocks_x + bx] = v;
    px = v.dx;
    py = v.dy;
  }
}

#else /* GPU layout */

#define AREA_W (SPAN + B - 1)
#define AREA_H (STRIP + B - 1)

__kernel __attribute__ ((reqd_work_group_size (LS, 1, 1)))
void
lambda_sads (__global const uchar * cur, __global const uchar * ref,
    __global ushort * surface, const GstClMotionLambdaArgs args)
{
  __local uchar area[AREA_H * AREA_W];
  __local uchar block[B * B];
  const int lid = get_local_id (0);
  const int blk = args.first_block + get_group_id (0);
  const int w = args.width, h = args.height;
  const int x0 = (blk % args.blocks_x) * B, y0 = (blk / args.blocks_x) * B;
  const int bw = min (B, w - x0), bh = min (B, h - y0);
  __global ushort *out = surface + (size_t) get_group_id (0) * NCAND;

  /* clamped coordinates: what lies outside is read only by candidates
   * that are not valid */
  for (int i = lid; i < B * B; i += LS)
    block[i] = cur[args.cur.offset +
        min (y0 + i / B, h - 1) * args.cur.stride + min (x0 + i % B, w - 1)];

  for (int s0 = 0; s0 < SPAN; s0 += STRIP) {
    const int rows = min (STRIP, SPAN - s0);
    barrier (CLK_LOCAL_MEM_FENCE);
    for (int i = lid; i < (rows + B - 1) * AREA_W; i += LS) {
      const int gy = clamp (y0 - R + s0 + i / AREA_W, 0, h - 1);
      const int gx = clamp (x0 - R + i % AREA_W, 0, w - 1);
      area[i] = ref[args.ref.offset + gy * args.ref.stride + gx];
    }
    barrier (CLK_LOCAL_MEM_FENCE);
#if SPAN % 4 == 0
    if (bw == B && bh == B) {
      /* whole blocks: four neighbouring candidates per work-item, so each
       * search-area sample loaded serves four SADs */
      for (int i = lid; i < rows * (SPAN / 4); i += LS) {
        const int ay = i / (SPAN / 4), cx = i % (SPAN / 4) * 4;
        const int dy = s0 + ay - R;
        uint4 sad = 0;
        for (int r = 0; r < B; r++) {
          __local const uchar *a = area + (ay + r) * AREA_W + cx;
          __local const uchar *b = block + r * B;
          uchar p0 = a[0], p1 = a[1], p2 = a[2];
#pragma unroll
          for (int x = 0; x < B; x++) {
            const uchar p3 = a[x + 3], c = b[x];
            sad += (uint4) (abs_diff (c, p0), abs_diff (c, p1),
                abs_diff (c, p2), abs_diff (c, p3));
            p0 = p1;
            p1 = p2;
            p2 = p3;
          }
        }
        if (!candidate_valid (x0, y0, cx - R, dy, bw, bh, w, h))
          sad.x = INVALID;
        if (!candidate_valid (x0, y0, cx + 1 - R, dy, bw, bh, w, h))
          sad.y = INVALID;
        if (!candidate_valid (x0, y0, cx + 2 - R, dy, bw, bh, w, h))
          sad.z = INVALID;
        if (!candidate_valid (x0, y0, cx + 3 - R, dy, bw, bh, w, h))
          sad.w = INVALID;
        vstore4 (convert_ushort4 (sad), 0, out + (s0 + ay) * SPAN + cx);
      }
      continue;
    }
#endif
    for (int i = lid; i < rows * SPAN; i += LS) {
      const int ay = i / SPAN, cx = i % SPAN;
      uint sad = INVALID;
      if (candidate_valid (x0, y0, cx - R, s0 + ay - R, bw, bh, w, h)) {
        sad = 0;
        for (int r = 0; r < bh; r++)
          for (int x = 0; x < bw; x++)
            sad += abs_diff (block[r * B + x], area[(ay + r) * AREA_W + cx +
                    x]);
      }
      out[s0 * SPAN + i] = (ushort) sad;
    }
  }
}

__kernel __attribute__ ((reqd_work_group_size (LS, 1, 1)))
void
lambda_rows (__global const ushort * surface, __global GstClMotionVector * out,
    const GstClMotionLambdaArgs args)
{
  __local uint rate_x[SPAN], rate_y[SPAN];
  __local ulong keys[LS];
  const int lid = get_local_id (0);

  /* persistent groups, rows dealt out cyclically; a row's blocks are the
   * only dependency chain, so no group ever waits for another */
  for (uint row = get_group_id (0); row < args.rows;
      row += get_num_groups (0)) {
    int px = 0, py = 0;
    for (uint bx = 0; bx < args.blocks_x; bx++) {
      __global const ushort *s = surface +
          ((size_t) row * args.blocks_x + bx) * NCAND;
      ulong best = ULONG_MAX;
      int idx;

      for (int i = lid; i < SPAN; i += LS) {
        rate_x[i] = args.lambda * component_bits (2 * (i - R) - px,
            args.f_code);
        rate_y[i] = args.lambda * component_bits (2 * (i - R) - py,
            args.f_code);
      }
      barrier (CLK_LOCAL_MEM_FENCE);
      for (int c = lid; c < NCAND; c += LS) {
        const uint sad = s[c];
        if (sad != INVALID)
          best = min (best, candidate_key (sad + rate_x[c % SPAN] +
                  rate_y[c / SPAN], c));
      }
      idx = (int) (group_min (best, keys, lid, LS) & 0xfffff);
      px = 2 * (idx % SPAN - R);
      py = 2 * (idx / SPAN - R);
      if (lid == 0) {
        GstClMotionVector v;
        v.dx = (short) px;
        v.dy = (short) py;
        v.sad = s[idx];
        out[(args.first_row + row) * args.blocks_x + bx] = v;
      }
    }
  }
}

#endif
