/* gst-clvideo: contrast stretch and histogram equalisation of luma.
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * contrast_lut turns the luma histogram into a 256-entry lookup table on
 * the device (one work-group: a prefix sum in local memory, then one
 * table entry per work-item), so the histogram never visits the host.
 * contrast / contrast_flat / contrast_rows apply the table: a lookup per
 * pixel, no branches on pixel values.
 *
 * Definitions (tests/contrast-ref.c is the reference). N pixels, cum(v)
 * the number of pixels <= v, cum(-1) = 0.
 *   stretch: lo = smallest v with cum(v) > nlow, hi = largest v with
 *     N - cum(v - 1) > nhigh (nlow, nhigh from the host: the cut
 *     percentages of N, rounded down). With smoothing sq (1/256 units),
 *     kept per stream in state[] in 1/256 steps:
 *       first frame: state = x << 8
 *       then:        state = (sq * state + (256 - sq) * (x << 8) + 128) >> 8
 *     and the table uses (state + 128) >> 8 for lo and hi. If hi <= lo
 *     the table is the identity, else
 *       LUT(v) = clamp(((v - lo) * 510 + (hi - lo)) / (2 * (hi - lo)), 0, 255)
 *   equalize: cmin = cum(smallest value present); if N == cmin the
 *     identity, else for v >= that value
 *       LUT(v) = ((cum(v) - cmin) * 510 + (N - cmin)) / (2 * (N - cmin))
 *     in 64 bits, and 0 below it.
 * params[] receives what was used: mode, lo, hi (after smoothing), the
 * frame's own lo and hi, the smallest and largest value present, whether
 * the table is the identity, and the smoothing state.
 *
 * Build options: ALIGNED (0|1: rows 4-byte aligned in both frames, read
 * and written as words), LX, LY (work-group of the GPU apply kernel).
 */

#include "common.cl"

#define NBINS 256

#define MODE_STRETCH 0
#define MODE_EQUALIZE 1

#define P_MODE 0
#define P_LO 1
#define P_HI 2
#define P_FRAME_LO 3
#define P_FRAME_HI 4
#define P_MIN 5
#define P_MAX 6
#define P_IDENTITY 7
#define P_STATE_LO 8
#define P_STATE_HI 9

#ifndef ALIGNED
#define ALIGNED 0
#endif
#ifndef LX
#define LX 64
#endif
#ifndef LY
#define LY 4
#endif

__kernel __attribute__ ((reqd_work_group_size (NBINS, 1, 1)))
void
contrast_lut (__global const uint * hist, uint hist_off, uint n, uint nlow,
    uint nhigh, int mode, int sq, int reset, __global int * state,
    __global uchar * lut, __global int * params)
{
  __local uint cum[NBINS];
  __local int found[4];         /* lo, hi, smallest and largest present */
  __local int used[3];          /* lo, hi, identity */
  const uint v = get_local_id (0);
  const uint h = hist[hist_off + v];

  if (v == 0) {
    found[0] = 0;
    found[1] = NBINS - 1;
    found[2] = 0;
    found[3] = NBINS - 1;
  }
  const uint c = group_prefix (h, cum, v, NBINS);

  /* each search has exactly one work-item where its condition flips */
  const uint prev = v ? cum[v - 1] : 0;
  const uint total = cum[NBINS - 1];
  if (c > nlow && prev <= nlow)
    found[0] = v;
  if (prev < n - nhigh && (v == NBINS - 1 || c >= n - nhigh))
    found[1] = v;
  if (h && prev == 0)
    found[2] = v;
  if (h && c == total)
    found[3] = v;
  barrier (CLK_LOCAL_MEM_FENCE);

  if (v == 0) {
    int lo = found[0], hi = found[1], identity;
    if (mode == MODE_STRETCH) {
      int slo, shi;
      if (reset) {
        slo = lo << 8;
        shi = hi << 8;
      } else {
        slo = (sq * state[0] + (256 - sq) * (lo << 8) + 128) >> 8;
        shi = (sq * state[1] + (256 - sq) * (hi << 8) + 128) >> 8;
      }
      state[0] = slo;
      state[1] = shi;
      params[P_STATE_LO] = slo;
      params[P_STATE_HI] = shi;
      lo = (slo + 128) >> 8;
      hi = (shi + 128) >> 8;
      identity = hi <= lo;
    } else {
      identity = n == cum[found[2]];
    }
    used[0] = lo;
    used[1] = hi;
    used[2] = identity;
    params[P_MODE] = mode;
    params[P_LO] = lo;
    params[P_HI] = hi;
    params[P_FRAME_LO] = found[0];
    params[P_FRAME_HI] = found[1];
    params[P_MIN] = found[2];
    params[P_MAX] = found[3];
    params[P_IDENTITY] = identity;
  }
  barrier (CLK_LOCAL_MEM_FENCE);

  int out;
  if (used[2]) {
    out = v;
  } else if (mode == MODE_STRETCH) {
    const int lo = used[0], range = used[1] - used[0];
    out = clamp ((((int) v - lo) * 510 + range) / (2 * range), 0, 255);
  } else {
    const uint vmin = found[2];
    const ulong cmin = cum[vmin], span = (ulong) n - cmin;
    out = v < vmin ? 0 :
        (int) ((((ulong) c - cmin) * 510 + span) / (2 * span));
  }
  lut[v] = (uchar) out;
}

/* ---- applying the table ---- */

/* GPUs: the table in local memory; a work-item maps 4 pixels of a row
 * (one word each way when aligned) and steps down the rows by the grid
 * height, so that each group loads the table once for many rows. */
__kernel __attribute__ ((reqd_work_group_size (LX, LY, 1)))
void
contrast (__global const uchar * src, uint src_off, uint src_stride,
    __global uchar * dst, uint dst_off, uint dst_stride, uint width,
    uint height, __global const uchar * lut)
{
  __local uchar table[NBINS];
  const uint lid = get_local_id (1) * LX + get_local_id (0);

  for (uint i = lid; i < NBINS; i += LX * LY)
    table[i] = lut[i];
  barrier (CLK_LOCAL_MEM_FENCE);

  const uint x = get_global_id (0) * 4;
  if (x >= width)
    return;
  for (uint y = get_global_id (1); y < height; y += get_global_size (1)) {
    __global const uchar *in = src + src_off + (size_t) y * src_stride + x;
    __global uchar *out = dst + dst_off + (size_t) y * dst_stride + x;
    if (ALIGNED && x + 4 <= width) {
      const uchar4 p = as_uchar4 (*(__global const uint *) in);
      *(__global uint *) out = as_uint ((uchar4) (table[p.s0], table[p.s1],
              table[p.s2], table[p.s3]));
    } else {
      const uint n = min (4u, width - x);
      for (uint i = 0; i < n; i++)
        out[i] = table[in[i]];
    }
  }
}

/* GPUs, when both planes have the same stride and the same offset modulo
 * 16: the plane is mapped as one run of bytes from its first sample to its
 * last (the padding between rows too, which no one reads), 16 bytes a
 * work-item in one vector load and one vector store, stepping by the
 * global size. The bytes before the first and after the last whole vector
 * are mapped one by one by the first work-items. */
#define LOOKUP_WORD(w)                                                  \
  ((uint) table[(w) & 0xffu] | (uint) table[((w) >> 8) & 0xffu] << 8 |  \
      (uint) table[((w) >> 16) & 0xffu] << 16 |                         \
      (uint) table[(w) >> 24] << 24)

__kernel __attribute__ ((reqd_work_group_size (LX * LY, 1, 1)))
void
contrast_flat (__global const uchar * src, uint src_off,
    __global uchar * dst, uint dst_off, uint head, uint n_vec, uint tail,
    __global const uchar * lut)
{
  __local uchar table[NBINS];
  const uint lid = get_local_id (0);

  for (uint i = lid; i < NBINS; i += LX * LY)
    table[i] = lut[i];
  barrier (CLK_LOCAL_MEM_FENCE);

  src += src_off;
  dst += dst_off;
  if (get_group_id (0) == 0 && lid < 32) {
    /* head: bytes 0 .. head-1; tail: the tail bytes after the vectors */
    const uint i = lid < 16 ? lid : head + 16 * n_vec + lid - 16;
    if (lid < 16 ? lid < head : lid - 16 < tail)
      dst[i] = table[src[i]];
  }
  __global const uint4 *in = (__global const uint4 *) (src + head);
  __global uint4 *out = (__global uint4 *) (dst + head);
  for (uint i = get_global_id (0); i < n_vec; i += get_global_size (0)) {
    const uint4 v = in[i];
    out[i] = (uint4) (LOOKUP_WORD (v.x), LOOKUP_WORD (v.y),
        LOOKUP_WORD (v.z), LOOKUP_WORD (v.w));
  }
}

/* CPUs: a few work-items, each mapping a contiguous band of whole rows. */
__kernel __attribute__ ((reqd_work_group_size (1, 1, 1)))
void
contrast_rows (__global const uchar * restrict src, uint src_off,
    uint src_stride, __global uchar * restrict dst, uint dst_off,
    uint dst_stride, uint width, uint height, __global const uchar * lut)
{
  __local uchar table[NBINS];

  for (uint i = 0; i < NBINS; i++)
    table[i] = lut[i];

  const uint per = (height + get_global_size (0) - 1) / get_global_size (0);
  const uint y0 = get_global_id (0) * per;
  const uint y1 = min (height, y0 + per);
  for (uint y = y0; y < y1; y++) {
    __global const uchar *in = src + src_off + (size_t) y * src_stride;
    __global uchar *out = dst + dst_off + (size_t) y * dst_stride;
    for (uint x = 0; x < width; x++)
      out[x] = table[in[x]];
  }
}
