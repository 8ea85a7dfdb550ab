/* gst-clvideo: plain C reference of the rate-constrained motion search
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * Written from the definition alone: every block in raster order, every
 * candidate of its window, SAD summed sample by sample, the rate from
 * the motion_code table of ISO/IEC 11172-2 (Annex B), the predictor carried
 * along the row. No SAD surfaces, no per-row parallelism: the device's
 * layouts are checked against this.
 */
#include "motionlambda-ref.h"

#include <stdlib.h>

/* Length of the motion_code VLC for |motion_code| = 0..16, sign excluded */
static const guint8 motion_code_length[17] = {
  1, 2, 3, 4, 6, 7, 7, 7, 9, 9, 9, 10, 10, 10, 10, 10, 10
};

guint
ref_lambda_f_code (guint range)
{
  guint f_code = 1;

  /* full-pel vectors reach -2 * range half-pels */
  while (f_code < 7 && 16u << (f_code - 1) < 2 * range)
    f_code++;
  return f_code;
}

guint
ref_lambda_component_bits (gint delta, guint f_code)
{
  const gint f = 1 << (f_code - 1);
  gint code;

  if (delta < -16 * f)
    delta += 32 * f;
  else if (delta > 16 * f - 1)
    delta -= 32 * f;
  if (delta == 0)
    return motion_code_length[0];
  code = (abs (delta) - 1) / f + 1;
  g_assert (code <= 16);
  return motion_code_length[code] + 1 + (f_code - 1);
}

static guint32
block_sad (const guint8 * cur, gsize cur_stride, const guint8 * ref,
    gsize ref_stride, guint bw, guint bh)
{
  guint32 sad = 0;
  guint x, y;

  for (y = 0; y < bh; y++)
    for (x = 0; x < bw; x++)
      sad += abs ((gint) cur[y * cur_stride + x] -
          (gint) ref[y * ref_stride + x]);
  return sad;
}

void
ref_lambda_search (const guint8 * cur, gsize cur_stride, const guint8 * ref,
    gsize ref_stride, guint width, guint height, guint block, guint range,
    guint lambda, guint f_code, GstClMotionVector * out)
{
  const guint bx_n = (width + block - 1) / block;
  const guint by_n = (height + block - 1) / block;
  const gint r = range;
  guint bx, by;

  for (by = 0; by < by_n; by++) {
    gint px = 0, py = 0;        /* the slice starts: predictor reset */
    for (bx = 0; bx < bx_n; bx++) {
      const gint x0 = bx * block, y0 = by * block;
      const guint bw = MIN (block, width - x0), bh = MIN (block, height - y0);
      guint64 best_cost = G_MAXUINT64;
      guint best_manh = 0;
      guint32 best_sad = 0;
      gint best_dx = 0, best_dy = 0, dx, dy;
      GstClMotionVector *v = out + (gsize) by * bx_n + bx;

      for (dy = -r; dy < r; dy++)
        for (dx = -r; dx < r; dx++) {
          guint32 sad;
          guint64 cost;
          guint manh;

          if (x0 + dx < 0 || y0 + dy < 0 || x0 + dx + (gint) bw >
              (gint) width || y0 + dy + (gint) bh > (gint) height)
            continue;
          sad = block_sad (cur + (gsize) y0 * cur_stride + x0, cur_stride,
              ref + (gsize) (y0 + dy) * ref_stride + x0 + dx, ref_stride, bw,
              bh);
          cost = sad + (guint64) lambda *
              (ref_lambda_component_bits (2 * dx - px, f_code) +
              ref_lambda_component_bits (2 * dy - py, f_code));
          manh = abs (dx) + abs (dy);
          if (cost < best_cost || (cost == best_cost && manh < best_manh)) {
            best_cost = cost;
            best_manh = manh;
            best_sad = sad;
            best_dx = dx;
            best_dy = dy;
          }
        }
      v->dx = 2 * best_dx;
      v->dy = 2 * best_dy;
      v->sad = best_sad;
      px = v->dx;
      py = v->dy;
    }
  }
}
