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
