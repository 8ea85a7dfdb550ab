/* gst-clvideo: plain C full-search motion estimation, the reference of
 * the motion search tests
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#pragma once

#include <glib.h>

G_BEGIN_DECLS

typedef struct
{
  gint dx, dy;                  /* half-pel units */
  guint sad;                    /* luma SAD of the chosen prediction */
} RefMotionVector;

/* An 8-bit plane: sample (x, y) is data[y * stride + x * pstride]. */
typedef struct
{
  const guint8 *data;
  gint stride, pstride;
  gint width, height;
} RefPlane;

/* Full search of every block of @cur against @ref (same size) for
 * displacements in [-range, range - 1] whose block lies inside the plane;
 * cost = luma SAD, or with @weight_q > 0 and chroma planes (U, V of cur
 * and ref; subsampling shifts @csx, @csy) 256 * luma SAD + weight_q *
 * chroma SAD at the displacement rounded down to the chroma grid. Ties:
 * smaller |dx| + |dy|, then raster order. With @subpel, half-pel
 * refinement (MPEG-1 interpolation, luma SAD). @out gets
 * ceil(w / bs) * ceil(h / bs) vectors in raster order. */
void ref_motion_search (const RefPlane * cur, const RefPlane * ref,
    const RefPlane * cur_chroma, const RefPlane * ref_chroma, gint csx,
    gint csy, guint weight_q, gint bs, gint range, gboolean subpel,
    RefMotionVector * out);

G_END_DECLS
