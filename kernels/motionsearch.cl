/* gst-clvideo: exhaustive block-matching motion search.
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
 * units), again only where every sample read lies inside the plane.
 *
 * Vectors are written in half-pel units with the luma SAD of the chosen
 * prediction, one per block in raster order.
 *
 * Layouts:
 * - motion_search_blocks (CPU devices, and every partial block): one
 *   work-item per block. A whole block keeps its rows in vector
 *   registers and runs over the candidates row by row with uchar16 /
 *   uchar8 loads, which CPU compilers turn into SIMD absolute differences
 *   and widening adds.
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
 *   motion_refine_blocks.
 *
 * Build options: BS (16 | 8), RANGE (1..128), SUBPEL (0 | 1); TILES with
 * NT, K, SAD_PTX and PARTIAL for the GPU kernels; CHROMA
 * (0 | 1) with CSX, CSY (chroma subsampling shifts), CPS (chroma pixel
 * stride) and WQ (chroma weight in 1/256).
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

typedef struct
{
  short dx, dy;
  uint sad;
} mv_t;

#define SPAN (2 * RANGE)

/* |a - b| of unsigned vectors; POCL's abs_diff on uchar16 is scalarised
 * for some CPU targets (10x slower on AVX-512), max - min is not */
#define ABS_DIFF_U(a, b) (max ((a), (b)) - min ((a), (b)))

/* ranking key of a full-pel candidate */
#define KEY(cost, dx, dy)                                                   \
  (((ulong) (cost) << 32) | ((ulong) (abs (dx) + abs (dy)) << 16) |         \
      (ulong) (((dy) + RANGE) * SPAN + (dx) + RANGE))

typedef struct
{
  global const uchar *cur, *ref;
  int cur_stride, ref_stride;
  int width, height;
} planes_t;

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

/* SAD against the half-pel prediction at integer part r, fractions hx,
 * hy (0 | 1), with the MPEG-1 rounding */
static uint
sad_half (global const uchar * c, int cs, global const uchar * r, int rs,
    int bw, int bh, int hx, int hy)
{
  uint s = 0;
  for (int y = 0; y < bh; y++) {
    global const uchar *r0 = r + y * rs, *r1 = r0 + hy * rs;
    for (int x = 0; x < bw; x++) {
      uint a = r0[x], b = r0[x + hx], cc = r1[x], d = r1[x + hx];
      uint p;
      if (hx && hy)
        p = (a + b + cc + d + 2) >> 2;
      else if (hx)
        p = (a + b + 1) >> 1;
      else
        p = (a + cc + 1) >> 1;
      s += abs_diff ((uint) c[y * cs + x], p);
    }
  }
  return s;
}

/* Half-pel refinement around the full-pel vector (fx, fy) of the block at
 * (x0, y0); returns the vector in half-pel units and its SAD. */
static mv_t
refine_half (global const uchar * cur, int cs, global const uchar * ref,
    int rs, int width, int height, int x0, int y0, int bw, int bh, int fx,
    int fy, uint full_sad)
{
  ulong best = ((ulong) full_sad << 32) |
      ((ulong) (abs (2 * fx) + abs (2 * fy)) << 16) | 4;
  for (int hy = -1; hy <= 1; hy++) {
    for (int hx = -1; hx <= 1; hx++) {
      int vx = 2 * fx + hx, vy = 2 * fy + hy;
      int ix = vx >> 1, iy = vy >> 1, fxh = vx & 1, fyh = vy & 1;
      if ((hx | hy) == 0)
        continue;
      if (x0 + ix < 0 || y0 + iy < 0 || x0 + ix + bw + fxh > width ||
          y0 + iy + bh + fyh > height)
        continue;
      uint s = sad_half (cur + y0 * cs + x0, cs,
          ref + (y0 + iy) * rs + x0 + ix, rs, bw, bh, fxh, fyh);
      ulong key = ((ulong) s << 32) | ((ulong) (abs (vx) + abs (vy)) << 16) |
          (ulong) ((hy + 1) * 3 + hx + 1);
      best = min (best, key);
    }
  }
  int idx = (int) (best & 0xffff);
  mv_t mv;
  mv.dx = (short) (2 * fx + idx % 3 - 1);
  mv.dy = (short) (2 * fy + idx / 3 - 1);
  mv.sad = (uint) (best >> 32);
  return mv;
}

/* Full search of the block at (x0, y0) of size bw x bh. */
static mv_t
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
#if BS == 16
#define VEC uchar16
#define WVEC ushort16
#define VLOAD vload16
#define CONV convert_ushort16
#else
#define VEC uchar8
#define WVEC ushort8
#define VLOAD vload8
#define CONV convert_ushort8
#endif
    VEC rows[BS];
    for (int y = 0; y < BS; y++)
      rows[y] = VLOAD (0, c + y * cs);
    for (int dy = dy0; dy <= dy1; dy++) {
      global const uchar *r = ref + (y0 + dy) * rs + x0;
      for (int dx = dx0; dx <= dx1; dx++) {
        WVEC acc = (WVEC) (0);
        for (int y = 0; y < BS; y++) {
          VEC rv = VLOAD (0, r + y * rs + dx);
          acc += CONV (ABS_DIFF_U (rows[y], rv));
        }
#if BS == 16
        ushort8 a8 = acc.lo + acc.hi;
#else
        ushort8 a8 = acc;
#endif
        ushort4 a4 = a8.lo + a8.hi;
        ushort2 a2 = a4.lo + a4.hi;
        uint s = (uint) a2.x + a2.y;
        best = min (best, KEY (s, dx, dy));
      }
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
  return refine_half (cur, cs, ref, rs, width, height, x0, y0, bw, bh, fx,
      fy, sad);
#else
  mv_t mv;
  mv.dx = (short) (2 * fx);
  mv.dy = (short) (2 * fy);
  mv.sad = sad;
  return mv;
#endif
}

kernel void
motion_search_blocks (global const uchar * cur, uint cur_off,
    uint cur_stride, global const uchar * ref, uint ref_off, uint ref_stride,
    uint width, uint height, global const uchar * chroma_cur,
    uint cur_u_off, uint cur_u_stride, uint cur_v_off, uint cur_v_stride,
    global const uchar * chroma_ref, uint ref_u_off, uint ref_u_stride,
    uint ref_v_off, uint ref_v_stride, uint first_bx, uint first_by,
    global mv_t * vectors)
{
  int bx = get_global_id (0) + first_bx, by = get_global_id (1) + first_by;
  int blocks_x = (width + BS - 1) / BS, blocks_y = (height + BS - 1) / BS;

  if (bx >= blocks_x || by >= blocks_y)
    return;
  int x0 = bx * BS, y0 = by * BS;
  int bw = min (BS, (int) width - x0), bh = min (BS, (int) height - y0);

  vectors[by * blocks_x + bx] = search_block (cur + cur_off,
      (int) cur_stride, ref + ref_off, (int) ref_stride, (int) width,
      (int) height, x0, y0, bw, bh
#if CHROMA
      , chroma_cur + cur_u_off, chroma_cur + cur_v_off, (int) cur_u_stride,
      (int) cur_v_stride, chroma_ref + ref_u_off, chroma_ref + ref_v_off,
      (int) ref_u_stride, (int) ref_v_stride
#endif
      );
}

/* ---- GPU layout ---- */

#ifdef TILES

#ifndef NT
#define NT 128
#endif
#ifndef K
#define K 8
#endif
#ifndef SAD_PTX
#define SAD_PTX 0
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

kernel void
motion_search_tiles (global const uchar * cur, uint cur_off,
    uint cur_stride, global const uchar * ref, uint ref_off, uint ref_stride,
    uint width, uint height, uint first_bx, uint first_by,
    global mv_t * vectors)
{
  local uchar raw[AR * ACOLS];
  local uint area[4 * AR * AW];
  local uint block[BS * WPR];
  local ulong keys[NT];

  int lid = get_local_id (0);
  int bx = get_group_id (0) + first_bx, by = get_group_id (1) + first_by;
  int blocks_x = (width + BS - 1) / BS;
  int x0 = bx * BS, y0 = by * BS;
#if PARTIAL
  int bw = min (BS, (int) width - x0), bh = min (BS, (int) height - y0);
#else
  const int bw = BS, bh = BS;
#endif
  int ax = x0 - RANGE, ay = y0 - RANGE;
  global const uchar *c = cur + cur_off;
  global const uchar *r = ref + ref_off;

  /* the area, clamped to the plane (what lies outside is masked) */
  for (int i = lid; i < AR * ACOLS; i += NT) {
    int y = clamp (ay + i / ACOLS, 0, (int) height - 1);
    int x = clamp (ax + i % ACOLS, 0, (int) width - 1);
    raw[i] = r[y * (int) ref_stride + x];
  }
  for (int i = lid; i < BS * WPR; i += NT) {
    int y = i / WPR, w = i % WPR;
#if PARTIAL
    uchar4 b = (uchar4) (0);
    global const uchar *p = c + (y0 + y) * (int) cur_stride + x0 + 4 * w;
    if (y < bh) {
      b.x = 4 * w < bw ? p[0] : 0;
      b.y = 4 * w + 1 < bw ? p[1] : 0;
      b.z = 4 * w + 2 < bw ? p[2] : 0;
      b.w = 4 * w + 3 < bw ? p[3] : 0;
    }
    block[i] = as_uint (b);
#else
    block[i] = as_uint (vload4 (0, c + (y0 + y) * (int) cur_stride + x0 +
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
  int dx0 = max (-RANGE, -x0), dx1 = min (RANGE - 1, (int) width - bw - x0);
  int dy0 = max (-RANGE, -y0), dy1 = min (RANGE - 1, (int) height - bh - y0);
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

  keys[lid] = best;
  barrier (CLK_LOCAL_MEM_FENCE);
  for (int n = NT / 2; n > 0; n >>= 1) {
    if (lid < n)
      keys[lid] = min (keys[lid], keys[lid + n]);
    barrier (CLK_LOCAL_MEM_FENCE);
  }
  if (lid == 0) {
    ulong key = keys[0];
    int idx = (int) (key & 0xffff);
    mv_t mv;
    mv.dx = (short) (2 * (idx % SPAN - RANGE));
    mv.dy = (short) (2 * (idx / SPAN - RANGE));
    mv.sad = (uint) (key >> 32);
    vectors[by * blocks_x + bx] = mv;
  }
}

/* Half-pel refinement of full-pel vectors found by the tiles, one
 * work-item per block of [first_bx, end_bx) x [first_by, end_by). */
kernel void
motion_refine_blocks (global const uchar * cur, uint cur_off,
    uint cur_stride, global const uchar * ref, uint ref_off, uint ref_stride,
    uint width, uint height, uint first_bx, uint first_by, uint end_bx,
    uint end_by, global mv_t * vectors)
{
  int bx = get_global_id (0) + first_bx, by = get_global_id (1) + first_by;
  int blocks_x = (width + BS - 1) / BS;

  if (bx >= (int) end_bx || by >= (int) end_by)
    return;
  int x0 = bx * BS, y0 = by * BS;
  global mv_t *v = vectors + by * blocks_x + bx;
  mv_t mv = *v;
  *v = refine_half (cur + cur_off, (int) cur_stride, ref + ref_off,
      (int) ref_stride, (int) width, (int) height, x0, y0,
      min (BS, (int) width - x0), min (BS, (int) height - y0), mv.dx / 2,
      mv.dy / 2, mv.sad);
}
#endif /* TILES */
