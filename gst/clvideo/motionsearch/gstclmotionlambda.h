/* gst-clvideo: rate-constrained motion search on the device
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#pragma once

#include <gst/cl/gstclcontext.h>
#include <gst/cl/gstclmemory.h>

G_BEGIN_DECLS

/* Labels of its kernels in the context's profiling statistics: the SAD
 * surfaces and the row walks of the GPU layout, the rows of the CPU one. */
#define GST_CL_MOTION_LAMBDA_SADS_LABEL "motionlambda-sads"
#define GST_CL_MOTION_LAMBDA_ROWS_LABEL "motionlambda-rows"

/* Largest lambda taken: costs stay well inside 32 bits. */
#define GST_CL_MOTION_LAMBDA_MAX 65535
/* Largest search range taken. */
#define GST_CL_MOTION_LAMBDA_MAX_RANGE 128

/**
 * GstClMotionLambda:
 *
 * Full-pel block-matching search whose cost weighs the bits the vector
 * costs to code, as an MPEG-1 encoder codes it, against the SAD:
 *
 *   cost (dx, dy) = SAD (dx, dy) + lambda * (bits (2 dx - px) +
 *                                            bits (2 dy - py))
 *
 * - candidates: full-pel dx, dy in [-range, range - 1] whose reference
 *   block (the block's visible samples, displaced) lies inside the plane;
 *   SAD over the block's visible samples;
 * - the predictor (px, py), in half-pel units, is the vector chosen for
 *   the block on the left in the same block row, and (0, 0) for the first
 *   block of a row: MPEG-1 resets it at the start of every slice, and the
 *   encoder codes one slice per macroblock row;
 * - bits (delta) is the length of one component's code in ISO/IEC 11172-2
 *   with forward_f_code @f_code, f = 2^(f_code - 1): delta (half-pels) is
 *   first wrapped into [-16f, 16f - 1] by adding or subtracting 32f; 0
 *   costs the 1-bit motion_code 0; otherwise motion_code = (|delta| - 1) /
 *   f + 1 (1..16) costs its VLC of Annex B (2, 3, 4, 6, 7, 7, 7, 9, 9, 9,
 *   then 10 bits for 11..16), one sign bit, and f_code - 1 bits of
 *   motion_r;
 * - f_code is gst_cl_motion_lambda_f_code() of the range, the smallest that
 *   codes every vector of the window;
 * - ties: smaller |dx| + |dy|, then the first candidate in raster order.
 *
 * The result is that of visiting the blocks one by one in raster order.
 * A block depends on its left neighbour only, so block rows are
 * independent chains: kernels/motionlambda.cl computes every candidate's
 * SAD in parallel, then walks the rows with persistent work-groups (GPU
 * layout), or gives each row to one work-item (CPU layout). Vectors come
 * out as #GstClMotionVector (even dx, dy; sad is the SAD of the choice,
 * not its cost). Not thread-safe: one per element.
 */
typedef struct _GstClMotionLambda GstClMotionLambda;

/* @block_size 16 or 8, @search_range 1 .. GST_CL_MOTION_LAMBDA_MAX_RANGE,
 * @lambda 1 .. GST_CL_MOTION_LAMBDA_MAX. */
GstClMotionLambda *gst_cl_motion_lambda_new (GstClContext * ctx,
    guint block_size, guint search_range, guint lambda, GError ** error);
void gst_cl_motion_lambda_free (GstClMotionLambda * ml);
/* TRUE when @ml was made for these parameters. */
gboolean gst_cl_motion_lambda_matches (const GstClMotionLambda * ml,
    guint block_size, guint search_range, guint lambda);

/* The f_code the costs assume for @search_range. */
guint gst_cl_motion_lambda_f_code (guint search_range);

/* Enqueues the search of @cur (its width x height is the picture's)
 * against @ref (at least as large; pixel stride 1 for both) and returns
 * without waiting; @vectors (device buffer) receives ceil (width / block)
 * * ceil (height / block) GstClMotionVector in raster order. */
gboolean gst_cl_motion_lambda_run (GstClMotionLambda * ml,
    const GstClPlane * cur, const GstClPlane * ref, cl_mem vectors,
    GError ** error);

G_END_DECLS
