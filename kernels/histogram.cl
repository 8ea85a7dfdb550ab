/* gst-clvideo: 256-bin histogram of one 8-bit channel of a frame.
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * The channel is rows of `width` samples, `stride` bytes apart, starting
 * at byte `off`; consecutive samples of a row are PS bytes apart (1 for a
 * plane of its own, 2 for NV12 chroma, 3 or 4 for packed RGB) and the
 * sample is byte CH of its pixel. Only the visible width counts: padding
 * bytes and other channels are never added.
 *
 * The work is cut into chunks of 4 samples in a row, read as PS 4-byte
 * words when rows are 4-byte aligned (ALIGNED). A few work-groups add
 * their chunks into sub-histograms in local memory, reduce them, and add
 * the non-zero bins into the result with global atomics: `bins` must be
 * zero before the launch. Counts are exact on every device.
 *
 * Two layouts of the same computation:
 * - histogram: GPUs. LS work-items per group, a few groups per compute
 *   unit; consecutive work-items read consecutive chunks (coalesced) and
 *   step by the global size. The group's histogram is replicated NC times
 *   and each work-item adds to copy (lid % NC), so work-items of one SIMD
 *   issue rarely hit the same word or bank. Each work-item also counts
 *   runs of equal samples in registers and adds a run with one atomic:
 *   a flat image, where all atomics would hit one bin, then costs fewer
 *   atomics than a noisy one.
 * - histogram_flat: GPUs, planes of their own (PS 1); see below.
 * - histogram_runs: CPUs. One work-item per group walks one contiguous
 *   run of chunks, a cache-friendly stream. Sample i of each chunk goes to
 *   sub-histogram i, so the increments form four independent chains
 *   and a flat image does not serialise on one counter.
 *
 * Build options: PS (1..4), CH (0..PS-1), ALIGNED (0|1), LS (work-items
 * per group) and NC (copies of the histogram) for the GPU layout.
 */

#define NBINS 256

#ifndef PS
#define PS 1
#endif
#ifndef CH
#define CH 0
#endif
#ifndef ALIGNED
#define ALIGNED 0
#endif
#ifndef LS
#define LS 256
#endif
#ifndef NC
#define NC 16
#endif

#include "common.cl"

/* byte of sample i (0..3) within a chunk */
#define POS(i) (CH + PS * (i))
#define SAMPLE(w, i) BYTE_OF (w[POS (i) >> 2], POS (i) & 3)

/* The four samples of the chunk whose first pixel is at @p (4-byte
 * aligned): PS word loads, the samples picked out with constant shifts. */
inline uint4
load_chunk (__global const uchar * p)
{
  __global const uint *wp = (__global const uint *) p;
  uint w[PS];
#pragma unroll
  for (int k = 0; k < PS; k++)
    w[k] = wp[k];
  return (uint4) (SAMPLE (w, 0), SAMPLE (w, 1), SAMPLE (w, 2), SAMPLE (w, 3));
}

/* The group's NC copies summed, one bin per work-item, and the non-zero
 * sums added into @bins; starting at a different copy in each work-item
 * keeps neighbours off the same bank. */
inline void
reduce_copies (__local const uint * sub, __global uint * bins, uint lid)
{
  for (uint b = lid; b < NBINS; b += LS) {
    uint sum = 0;
    for (uint k = 0; k < NC; k++)
      sum += sub[b * NC + (k + lid) % NC];
    if (sum)
      atomic_add (&bins[b], sum);
  }
}

__kernel __attribute__ ((reqd_work_group_size (LS, 1, 1)))
void
histogram (__global const uchar * src, uint off, uint stride, uint width,
    uint height, __global uint * bins, uint bins_off)
{
  __local uint sub[NBINS * NC];
  const uint lid = get_local_id (0);
  const uint copy = lid % NC;

  for (uint i = lid; i < NBINS * NC; i += LS)
    sub[i] = 0;
  barrier (CLK_LOCAL_MEM_FENCE);

  const uint cpr = (width + 3) >> 2;    /* chunks per row */
  const uint n_chunks = cpr * height;
  const uint step = get_global_size (0);
  const uint step_rows = step / cpr, step_cols = step - step_rows * cpr;
  uint c = get_global_id (0);
  uint row = c / cpr, col = c - row * cpr;
  uint cur = 0, run = 0;

  /* one atomic per run of equal samples; the first flush adds 0 */
#define ADD(v)                                                          \
  do {                                                                  \
    const uint v_ = (v);                                                \
    if (v_ != cur) {                                                    \
      atomic_add (&sub[cur * NC + copy], run);                          \
      cur = v_;                                                         \
      run = 0;                                                          \
    }                                                                   \
    run++;                                                              \
  } while (0)

  for (; c < n_chunks; c += step) {
    __global const uchar *p = src + off + (size_t) row * stride +
        (size_t) col * (4 * PS);
    const uint x = col * 4;
    if (ALIGNED && x + 4 <= width) {
      const uint4 s = load_chunk (p);
      ADD (s.x);
      ADD (s.y);
      ADD (s.z);
      ADD (s.w);
    } else {
      const uint n = min (4u, width - x);
      for (uint i = 0; i < n; i++)
        ADD (p[CH + PS * i]);
    }
    col += step_cols;
    row += step_rows;
    if (col >= cpr) {
      col -= cpr;
      row++;
    }
  }
  atomic_add (&sub[cur * NC + copy], run);
#undef ADD
  barrier (CLK_LOCAL_MEM_FENCE);

  reduce_copies (sub, bins + bins_off, lid);
}

/* GPUs, for a plane of its own (PS 1): the plane is taken as one run of
 * bytes from its first sample to its last, padding included, read as
 * 16-byte vectors, consecutive work-items on consecutive vectors (one
 * coalesced 512-byte request a warp), stepping by the global size. A
 * work-item tracks the column of its vector incrementally; vectors wholly
 * inside a row (nearly all) add their 16 samples with no test, the others
 * send the bytes outside the visible width to an extra bin NBINS that is
 * never reduced. Copy (lid % NC) of the sub-histogram is laid out bin-major
 * (sub[bin * NC + copy]): work-items of one SIMD issue that add the same
 * value hit different words in different banks, so a flat image costs no
 * more than a noisy one and needs no run counting. The head and tail bytes
 * that do not fill a
 * vector are added one by one by the first work-items. `step_col` is
 * (16 * global size) % stride, from the host. */
#define NBX (NBINS + 1)

__kernel __attribute__ ((reqd_work_group_size (LS, 1, 1)))
void
histogram_flat (__global const uchar * src, uint off, uint stride,
    uint width, uint height, __global uint * bins, uint bins_off,
    uint step_col)
{
  __local uint sub[NBX * NC];
  const uint lid = get_local_id (0);
  __local uint *mine = sub + lid % NC;

  for (uint i = lid; i < NBX * NC; i += LS)
    sub[i] = 0;
  barrier (CLK_LOCAL_MEM_FENCE);

  const uint base = off & ~15u;
  const uint end = off + (height - 1) * stride + width;
  const uint n_vec = (end - base) >> 4;
  const uint step = get_global_size (0);
  __global const uint4 *vec = (__global const uint4 *) (src + base);
  uint i = get_global_id (0);
  /* column of the vector's first byte; negative only before the plane */
  int col;
  {
    const uint pos = base + 16 * i;
    col = pos >= off ? (int) ((pos - off) % stride) : (int) pos - (int) off;
  }

#define ADD_WORD(w)                                                     \
  do {                                                                  \
    atomic_inc (mine + BYTE_OF (w, 0) * NC);                            \
    atomic_inc (mine + BYTE_OF (w, 1) * NC);                            \
    atomic_inc (mine + BYTE_OF (w, 2) * NC);                            \
    atomic_inc (mine + BYTE_OF (w, 3) * NC);                            \
  } while (0)

  for (; i < n_vec; i += step) {
    const uint4 v = vec[i];
    if (col >= 0 && col + 16 <= (int) width) {
      ADD_WORD (v.x);
      ADD_WORD (v.y);
      ADD_WORD (v.z);
      ADD_WORD (v.w);
    } else {
      const uint w[4] = { v.x, v.y, v.z, v.w };
#pragma unroll
      for (int k = 0; k < 16; k++) {
        const int c = col + k;
        const bool in = c >= 0 && (uint) c % stride < width;
        atomic_inc (mine + (in ? BYTE_OF (w[k >> 2], k & 3) : NBINS) * NC);
      }
    }
    col += (int) step_col;
    if (col >= (int) stride)
      col -= (int) stride;
    else if (col < 0)
      col += (int) stride;
  }
#undef ADD_WORD

  /* the bytes after the last whole vector */
  if (get_group_id (0) == 0) {
    const uint pos = base + 16 * n_vec + lid;
    if (lid < 16 && pos < end && pos >= off && (pos - off) % stride < width)
      atomic_inc (mine + src[pos] * NC);
  }
  barrier (CLK_LOCAL_MEM_FENCE);

  reduce_copies (sub, bins + bins_off, lid);
}

__kernel __attribute__ ((reqd_work_group_size (1, 1, 1)))
void
histogram_runs (__global const uchar * src, uint off, uint stride,
    uint width, uint height, __global uint * bins, uint bins_off)
{
  __local uint sub[4 * NBINS];

  for (uint i = 0; i < 4 * NBINS; i++)
    sub[i] = 0;

  const uint cpr = (width + 3) >> 2;
  const uint n_chunks = cpr * height;
  const uint per = (n_chunks + get_global_size (0) - 1) / get_global_size (0);
  uint c = get_global_id (0) * per;
  const uint end = min (n_chunks, c + per);
  uint row = c / cpr, col = c - row * cpr;

  while (c < end) {
    /* the chunks of this row that belong to the run */
    const uint n = min (cpr - col, end - c);
    /* the last chunk of a row may be partial */
    const uint full = ((col + n) * 4 <= width) ? n : n - 1;
    __global const uchar *p = src + off + (size_t) row * stride +
        (size_t) col * (4 * PS);
    uint k = 0;

    if (ALIGNED) {
      for (; k < full; k++, p += 4 * PS) {
        const uint4 s = load_chunk (p);
        sub[s.x]++;
        sub[NBINS + s.y]++;
        sub[2 * NBINS + s.z]++;
        sub[3 * NBINS + s.w]++;
      }
    }
    for (; k < n; k++, p += 4 * PS) {
      const uint m = min (4u, width - (col + k) * 4);
      for (uint i = 0; i < m; i++)
        sub[i * NBINS + p[CH + PS * i]]++;
    }
    c += n;
    col = 0;
    row++;
  }

  bins += bins_off;
  for (uint b = 0; b < NBINS; b++) {
    const uint sum = sub[b] + sub[NBINS + b] + sub[2 * NBINS + b] +
        sub[3 * NBINS + b];
    if (sum)
      atomic_add (&bins[b], sum);
  }
}
