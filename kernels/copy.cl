/* gst-clvideo: plain copy, the bandwidth yardstick of the benchmarks.
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
__kernel void
copy_words (__global const uint4 * src, __global uint4 * dst, uint n)
{
  for (size_t i = get_global_id (0); i < n; i += get_global_size (0))
    dst[i] = src[i];
}
