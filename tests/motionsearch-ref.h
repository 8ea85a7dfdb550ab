/* gst-clvideo: plain C full-search motion estimation, the reference of
 * the motion search tests
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#pragma once

#include <glib.h>
#include <gst/cl/gstclmotionvector.h>

G_BEGIN_DECLS

/* half-pel refinement: none, by SAD, by SATD */
enum
{
  REF_SUBPEL_NONE,
  REF_SUBPEL_SAD,
  REF_SUBPEL_SATD,
};

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
 * refinement (MPEG-1 interpolation, luma SAD; REF_SUBPEL_SATD: whole 16 x
 * 16 blocks choose by the SATD of their 8 x 8 blocks plus their SAD, the
 * vector keeping its SAD). @out gets
 * ceil(w / bs) * ceil(h / bs) vectors in raster order. */
void ref_motion_search (const RefPlane * cur, const RefPlane * ref,
    const RefPlane * cur_chroma, const RefPlane * ref_chroma, gint csx,
    gint csy, guint weight_q, gint bs, gint range, gint subpel,
    GstClMotionVector * out);

/* The hierarchical search (method "hierarchical"), luma only. @cur and
 * @ref decimated by 2 and 4 (rounded means, coordinates past the edges
 * clamped). The 16x16 areas of the picture (whatever @bs) search the
 * window [-range, range - 1] scaled to level 2 (range / 4 rounded down,
 * (range - 1) / 4 rounded down), and with @history (the vectors of the
 * previous search, NULL for none) the same window around the vector of
 * the block holding the area's first sample there, scaled to level 2
 * (rounded down), and around the global motion where that lies outside
 * the window: the shifts (within half the picture and the limit) that
 * best match the level-2 pictures' column sums, and their row sums, by
 * mean absolute difference. At level 1 they take the best of their level-2 vector
 * and their neighbours' (left, top, right, bottom), doubled, and the
 * history's vector at level 1, and the 3x3 square around it. At full
 * resolution each block takes the best of its area's level-1 vector, the
 * area's neighbours', doubled, zero and its own history vector, and the
 * 3x3 square around it again until that is the square's centre, three
 * times at most; then, in a second pass, a neighbouring block's vector
 * where that one is better. That is @effort 1; effort 0 takes one square
 * and no neighbour's vector, effort 2 up to six squares and two passes
 * of neighbours' vectors. A candidate counts where its full-resolution
 * displacement is at most GST_CL_MOTION_SEARCH_LIMIT in each direction
 * and keeps the area or block inside the picture; ranked as the full
 * search's (SAD at the level, |dx| + |dy|, raster order), except that
 * at level 1 and at full resolution each candidate's cost is its SAD
 * plus @price / 16 (rounded down) for each bit of its components (in
 * samples of the level): 1 for 0, else 2 floor (log2 |c|) + 4; the
 * vectors keep their SAD. With @subpel, the same half-pel refinement as
 * ref_motion_search(), except that with REF_SUBPEL_SATD the cost of each
 * position has twice @price / 16 (rounded down) added for each bit of
 * its components in half-pel units; with REF_SUBPEL_SATD the last pass
 * of neighbours' vectors also ranks the candidates of a whole 16 x 16
 * block (its own vector and its neighbours') by the SATD of their
 * full-pel residual plus 3 times their price, the same ties, the vector
 * keeping its SAD. */
void ref_motion_search_hierarchical (const RefPlane * cur,
    const RefPlane * ref, gint bs, gint range, gint subpel, gint effort,
    guint price, const GstClMotionVector * history, GstClMotionVector * out);

/* The search from seed vectors, blocks of 16, as
 * gst_cl_motion_search_run_seeded(): the vectors @seed (half-pel units)
 * times @num / @den (to the nearest, halves away from zero), each
 * component within 2 GST_CL_MOTION_SEARCH_LIMIT, are
 * the previous search's (@history above); with @whole, then
 * ref_motion_search_hierarchical(); without, those rounded to the
 * nearest level-1 sample (half up) are the level-1 vectors, and the
 * passes at full resolution of ref_motion_search_hierarchical() follow. */
void ref_motion_search_seeded (const RefPlane * cur, const RefPlane * ref,
    gint range, gint subpel, gint effort, guint price,
    const GstClMotionVector * seed, gint num, gint den, gboolean whole,
    GstClMotionVector * out);

G_END_DECLS
