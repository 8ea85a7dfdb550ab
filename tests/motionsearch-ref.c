/* gst-clvideo: plain C full-search motion estimation
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * Written for clarity, straight from the definitions: every candidate in
 * the window is tried and checked for lying inside the plane.
 */
#include "motionsearch-ref.h"

#include <stdlib.h>

#define PX(p, x, y) ((gint) (p)->data[(y) * (p)->stride + (x) * (p)->pstride])

static guint
block_sad (const RefPlane * cur, const RefPlane * ref, gint x0, gint y0,
    gint bw, gint bh, gint dx, gint dy)
{
  guint s = 0;
  gint x, y;

  for (y = 0; y < bh; y++)
    for (x = 0; x < bw; x++)
      s += abs (PX (cur, x0 + x, y0 + y) - PX (ref, x0 + x + dx, y0 + y + dy));
  return s;
}

/* MPEG-1 half-pel prediction of sample (x, y) displaced by (vx, vy)
 * half-pels */
static gint
half_pel (const RefPlane * ref, gint x, gint y, gint vx, gint vy)
{
  /* floor division: the integer part of a negative half-pel vector */
  gint ix = (vx - (vx & 1)) / 2, iy = (vy - (vy & 1)) / 2;
  gint hx = vx & 1, hy = vy & 1;
  gint a = PX (ref, x + ix, y + iy);

  if (hx && hy)
    return (a + PX (ref, x + ix + 1, y + iy) + PX (ref, x + ix, y + iy + 1) +
        PX (ref, x + ix + 1, y + iy + 1) + 2) >> 2;
  if (hx)
    return (a + PX (ref, x + ix + 1, y + iy) + 1) >> 1;
  if (hy)
    return (a + PX (ref, x + ix, y + iy + 1) + 1) >> 1;
  return a;
}

static gboolean
better (guint64 cost, gint mag, guint64 best_cost, gint best_mag)
{
  /* candidates come in raster order: an equal one never wins */
  return cost < best_cost || (cost == best_cost && mag < best_mag);
}

void
ref_motion_search (const RefPlane * cur, const RefPlane * ref,
    const RefPlane * cur_chroma, const RefPlane * ref_chroma, gint csx,
    gint csy, guint weight_q, gint bs, gint range, gboolean subpel,
    RefMotionVector * out)
{
  gint bx, by, blocks_x = (cur->width + bs - 1) / bs;
  gint blocks_y = (cur->height + bs - 1) / bs;
  gboolean chroma = weight_q > 0 && cur_chroma && ref_chroma;

  for (by = 0; by < blocks_y; by++) {
    for (bx = 0; bx < blocks_x; bx++) {
      gint x0 = bx * bs, y0 = by * bs;
      gint bw = MIN (bs, cur->width - x0), bh = MIN (bs, cur->height - y0);
      guint64 best_cost = G_MAXUINT64;
      gint best_mag = G_MAXINT, fx = 0, fy = 0, dx, dy;
      RefMotionVector *mv = &out[by * blocks_x + bx];

      for (dy = -range; dy < range; dy++) {
        for (dx = -range; dx < range; dx++) {
          guint64 cost;
          if (x0 + dx < 0 || y0 + dy < 0 || x0 + dx + bw > cur->width ||
              y0 + dy + bh > cur->height)
            continue;
          cost = block_sad (cur, ref, x0, y0, bw, bh, dx, dy);
          if (chroma) {
            /* the chroma samples covering the block, displaced by the
             * vector rounded down to the chroma grid */
            gint cx0 = x0 >> csx, cy0 = y0 >> csy;
            gint cx1 = (x0 + bw + (1 << csx) - 1) >> csx;
            gint cy1 = (y0 + bh + (1 << csy) - 1) >> csy;
            gint cdx = dx >= 0 ? dx >> csx : -((-dx + (1 << csx) - 1) >> csx);
            gint cdy = dy >= 0 ? dy >> csy : -((-dy + (1 << csy) - 1) >> csy);
            guint64 sc = 0;
            gint i;
            for (i = 0; i < 2; i++)
              sc += block_sad (&cur_chroma[i], &ref_chroma[i], cx0, cy0,
                  cx1 - cx0, cy1 - cy0, cdx, cdy);
            cost = 256 * cost + weight_q * sc;
          }
          if (better (cost, abs (dx) + abs (dy), best_cost, best_mag)) {
            best_cost = cost;
            best_mag = abs (dx) + abs (dy);
            fx = dx;
            fy = dy;
          }
        }
      }
      mv->dx = 2 * fx;
      mv->dy = 2 * fy;
      mv->sad = block_sad (cur, ref, x0, y0, bw, bh, fx, fy);

      if (subpel) {
        guint64 bsad = G_MAXUINT64;
        gint bmag = G_MAXINT, bvx = 0, bvy = 0, hx, hy;

        for (hy = -1; hy <= 1; hy++) {
          for (hx = -1; hx <= 1; hx++) {
            gint vx = 2 * fx + hx, vy = 2 * fy + hy, x, y;
            gint ix = (vx - (vx & 1)) / 2, iy = (vy - (vy & 1)) / 2;
            guint64 s = 0;
            if (x0 + ix < 0 || y0 + iy < 0 ||
                x0 + ix + bw + (vx & 1) > cur->width ||
                y0 + iy + bh + (vy & 1) > cur->height)
              continue;
            for (y = 0; y < bh; y++)
              for (x = 0; x < bw; x++)
                s += abs (PX (cur, x0 + x, y0 + y) -
                    half_pel (ref, x0 + x, y0 + y, vx, vy));
            if (better (s, abs (vx) + abs (vy), bsad, bmag)) {
              bsad = s;
              bmag = abs (vx) + abs (vy);
              bvx = vx;
              bvy = vy;
            }
          }
        }
        mv->dx = bvx;
        mv->dy = bvy;
        mv->sad = (guint) bsad;
      }
    }
  }
}
