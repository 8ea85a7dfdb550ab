/* gst-clvideo: small helpers that several kernel files share, whose
 * sources include this file
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */

#ifndef GST_CL_COMMON_CL
#define GST_CL_COMMON_CL

/* byte k (0..3, in memory order) of a 32-bit word w loaded from bytes */
#ifdef __ENDIAN_LITTLE__
#define BYTE_OF(w, k) (((w) >> (8 * (k))) & 0xffu)
#else
#define BYTE_OF(w, k) (((w) >> (8 * (3 - (k)))) & 0xffu)
#endif

/* Smallest of the nt (a power of 2) work-items' keys, for all of them;
 * @keys holds nt. Every work-item of the group must call it. */
static inline ulong
group_min (ulong v, local ulong * keys, int lid, int nt)
{
  keys[lid] = v;
  barrier (CLK_LOCAL_MEM_FENCE);
  for (int n = nt / 2; n > 0; n >>= 1) {
    if (lid < n)
      keys[lid] = min (keys[lid], keys[lid + n]);
    barrier (CLK_LOCAL_MEM_FENCE);
  }
  v = keys[0];
  /* everyone has read it before @keys is written again */
  barrier (CLK_LOCAL_MEM_FENCE);
  return v;
}

/* WARP_PTX (NVIDIA's compiler, where the 32 work-items of a warp are
 * consecutive in a one-dimensional work-group): the work-items of a warp
 * exchange values through its registers, with no barrier and no local
 * memory. A group of one warp per task then needs no barrier at all, and
 * several such tasks share a work-group without waiting on each other. */
#ifndef WARP_PTX
#define WARP_PTX 0
#endif
#if WARP_PTX
#define WARP_SIZE 32

/* @v of the work-item whose lane is this one's XOR @mask; every work-item
 * of the warp must call it together */
static inline uint
warp_xor (uint v, int mask)
{
  uint r;
  asm volatile ("shfl.sync.bfly.b32 %0, %1, %2, 31, 0xffffffff;" : "=r" (r)
      : "r" (v), "r" (mask));
  return r;
}

/* The smallest of the warp's keys, for all of its work-items */
static inline ulong
warp_min (ulong v)
{
  #pragma unroll
  for (int m = WARP_SIZE / 2; m > 0; m >>= 1)
    v = min (v, ((ulong) warp_xor ((uint) (v >> 32), m) << 32) |
        warp_xor ((uint) v, m));
  return v;
}

/* The sum of @v over the n (a power of 2 up to WARP_SIZE) consecutive
 * work-items from a multiple of n that hold this one, for each of them */
static inline uint
warp_sum (uint v, int n)
{
  for (int m = 1; m < n; m <<= 1)
    v += warp_xor (v, m);
  return v;
}
#endif

/* Inclusive prefix sum of the nt (a power of 2) work-items' values,
 * each work-item's own in @sums[lid] (Hillis-Steele: log2 nt steps);
 * @sums holds nt. Every work-item of the group must call it. (Inlined:
 * POCL loses values across the barriers of a call that is not.) */
__attribute__ ((always_inline)) static inline uint
group_prefix (uint v, local uint * sums, int lid, int nt)
{
  sums[lid] = v;
  barrier (CLK_LOCAL_MEM_FENCE);
  for (int d = 1; d < nt; d <<= 1) {
    const uint add = lid >= d ? sums[lid - d] : 0;
    barrier (CLK_LOCAL_MEM_FENCE);
    sums[lid] += add;
    barrier (CLK_LOCAL_MEM_FENCE);
  }
  return sums[lid];
}

#endif /* GST_CL_COMMON_CL */
