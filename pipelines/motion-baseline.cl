/* gst-clvideo benchmark: the straightforward full search, kept as the
 * baseline the element's motion search is measured against.
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * One 16x16 work-group per 16x16 macroblock, full search over dx, dy in
 * [-16, 15]: the block and its 47x47 search area are loaded into local
 * memory once, then every work-item computes the SAD of 4 candidates
 * straight from local memory and the group reduces to the best one. Same
 * rules as the element: only candidates whose reference block lies inside
 * the plane, SAD over the block's visible samples, ties to the smaller
 * |dx| + |dy|, then to the earlier candidate in raster order.
 */
#define B 16
#define R 16
#define AREA (B + 2 * R)

typedef struct
{
  short dx, dy;                 /* half-pel units */
  uint sad;
} Vector;

__kernel __attribute__ ((reqd_work_group_size (B, B, 1)))
void
motion_baseline (__global const uchar * cur, uint cur_off, uint cur_stride,
    __global const uchar * ref, uint ref_off, uint ref_stride, uint width,
    uint height, __global Vector * out)
{
  __local uchar area[AREA * AREA];
  __local uchar block[B * B];
  __local uint keys[B * B];
  const int lx = get_local_id (0), ly = get_local_id (1);
  const int lid = ly * B + lx;
  const int x0 = get_group_id (0) * B, y0 = get_group_id (1) * B;
  const int w = width, h = height;
  const int bw = min (B, w - x0), bh = min (B, h - y0);
  uint best = 0xffffffffu;

  /* coordinates clamped into the plane: samples outside it are loaded but
   * only ever read by candidates that are skipped */
  block[lid] = cur[cur_off + min (y0 + ly, h - 1) * cur_stride +
      min (x0 + lx, w - 1)];
  for (int i = lid; i < AREA * AREA; i += B * B) {
    const int gy = clamp (y0 - R + i / AREA, 0, h - 1);
    const int gx = clamp (x0 - R + i % AREA, 0, w - 1);
    area[i] = ref[ref_off + gy * ref_stride + gx];
  }
  barrier (CLK_LOCAL_MEM_FENCE);

  for (int j = 0; j < 2; j++) {
    for (int i = 0; i < 2; i++) {
      const int cx = lx + i * B, cy = ly + j * B;
      const int dx = cx - R, dy = cy - R;
      uint sad = 0;
      if (x0 + dx < 0 || y0 + dy < 0 || x0 + dx + bw > w || y0 + dy + bh > h)
        continue;
      for (int r = 0; r < bh; r++)
        for (int c = 0; c < bw; c++)
          sad += abs_diff (block[r * B + c], area[(cy + r) * AREA + cx + c]);
      /* SAD (16 bits), then |dx| + |dy| (6), then raster index (10) */
      best = min (best, (sad << 16) | ((uint) (abs (dx) + abs (dy)) << 10) |
          (uint) (cy * 2 * R + cx));
    }
  }

  keys[lid] = best;
  for (int s = B * B / 2; s > 0; s >>= 1) {
    barrier (CLK_LOCAL_MEM_FENCE);
    if (lid < s)
      keys[lid] = min (keys[lid], keys[lid + s]);
  }
  if (lid == 0) {
    const uint k = keys[0], idx = k & 0x3ff;
    Vector v;
    v.dx = (short) (2 * ((int) (idx % (2 * R)) - R));
    v.dy = (short) (2 * ((int) (idx / (2 * R)) - R));
    v.sad = k >> 16;
    out[get_group_id (1) * get_num_groups (0) + get_group_id (0)] = v;
  }
}
