/* gst-clvideo: plain copy, the bandwidth yardstick of the benchmarks.
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
__kernel void
copy_words (__global const uint4 * src, __global uint4 * dst, uint n)
{
  for (size_t i = get_global_id (0); i < n; i += get_global_size (0))
    dst[i] = src[i];
}

/* CPU layout: each work-item copies one contiguous run (a vectorised
 * memcpy-like loop), as CPUs prefer. */
__kernel __attribute__ ((reqd_work_group_size (1, 1, 1)))
void
copy_runs (__global const uint4 * restrict src, __global uint4 * restrict dst,
    uint n)
{
  const size_t per = (n + get_global_size (0) - 1) / get_global_size (0);
  const size_t start = get_global_id (0) * per;
  const size_t end = min ((size_t) n, start + per);
  for (size_t i = start; i < end; i++)
    dst[i] = src[i];
}
