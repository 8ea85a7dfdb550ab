/* gst-clvideo: block-matching motion search on the device
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#pragma once

#include "gstclcontext.h"
#include "gstclmemory.h"

G_BEGIN_DECLS

/* Label of the search kernels in the context's profiling statistics. */
#define GST_CL_MOTION_SEARCH_LABEL "motionsearch"
/* ... and of the half-pel refinement where it runs on its own (GPUs) */
#define GST_CL_MOTION_SEARCH_REFINE_LABEL "motionsearch-refine"

/* Largest search range the kernels take. */
#define GST_CL_MOTION_SEARCH_MAX_RANGE 128

/**
 * GstClMotionVector:
 * @dx: horizontal displacement in half-pel units
 * @dy: vertical displacement in half-pel units
 * @sad: sum of absolute luma differences between the block and its
 *   prediction, over the block's visible samples
 *
 * The motion of one block: the block whose top-left sample is (x, y) in
 * the current picture is predicted from position (x + dx / 2, y + dy / 2)
 * of the reference picture (half-pel positions interpolated with the
 * MPEG-1 rule). A full-pel search gives even @dx and @dy. 8 bytes, also
 * the layout of the vectors of a #GstClMotionMeta.
 */
typedef struct {
  gint16 dx, dy;
  guint32 sad;
} GstClMotionVector;

G_STATIC_ASSERT (sizeof (GstClMotionVector) == 8);

/**
 * GstClMotionMethod:
 * @GST_CL_MOTION_METHOD_FULL: exhaustive: every displacement of the window
 * @GST_CL_MOTION_METHOD_HIERARCHICAL: coarse to fine: the whole window
 *   searched for every 16x16 area in the luma decimated by 4, then at half
 *   and at full resolution (per block) the square around the best of the
 *   area's and its neighbours' vectors doubled (and zero), and a last pass
 *   that takes a neighbouring block's vector where it is better; luma
 *   only
 * @GST_CL_MOTION_METHOD_AUTO: hierarchical on devices of the CPU layout,
 *   exhaustive on GPUs, where the exhaustive search is the faster of the
 *   two
 *
 * How a #GstClMotionSearch looks for the best vector. One enum type for
 * every element that has a motion search method property.
 */
typedef enum {
  GST_CL_MOTION_METHOD_FULL,
  GST_CL_MOTION_METHOD_HIERARCHICAL,
  GST_CL_MOTION_METHOD_AUTO,
} GstClMotionMethod;

/* The method that @method stands for on @ctx's device (AUTO resolved). */
GstClMotionMethod gst_cl_motion_method_resolve (GstClMotionMethod method,
    GstClContext * ctx);

GType gst_cl_motion_method_get_type (void);
#define GST_TYPE_CL_MOTION_METHOD (gst_cl_motion_method_get_type ())

/**
 * GstClMotionSearchParams:
 * @block_size: 16 or 8
 * @search_range: full-pel candidates dx, dy lie in [-range, range - 1]
 *   (the classic -16..15 window for 16: 32 x 32 candidates); 1 to
 *   GST_CL_MOTION_SEARCH_MAX_RANGE. Half-pel refinement may move the
 *   result one half-pel further, so an encoder picks its f_code from the
 *   vectors it actually codes.
 * @subpel: refine the full-pel result to half-pel: the 9 half-pel
 *   positions around it, interpolated with the MPEG-1 rule ((a + b + 1)
 *   >> 1 between two samples, (a + b + c + d + 2) >> 2 between four)
 * @lambda: rate-constrained cost weight; 0 = plain SAD (the only value
 *   this implementation takes so far)
 * @chroma_weight: 0 = luma only. Otherwise the full-pel cost is luma SAD
 *   + chroma_weight * (SAD of U + SAD of V), the chroma block displaced by
 *   the luma vector scaled to the chroma plane and rounded down
 *   (floor (dx / subsampling)), which always lies inside the chroma plane
 *   when the luma block does. Half-pel refinement looks at luma only.
 *   Must be 0 with the hierarchical method.
 * @method: how the window is searched (#GST_CL_MOTION_METHOD_FULL when
 *   zeroed)
 *
 * What to search for; fixed for the life of a #GstClMotionSearch.
 */
typedef struct {
  guint block_size;
  guint search_range;
  gboolean subpel;
  guint lambda;
  gdouble chroma_weight;
  GstClMotionMethod method;
} GstClMotionSearchParams;

/**
 * GstClMotionSearch:
 *
 * Block-matching search of kernels/motionsearch.cl, exhaustive or
 * hierarchical, in the layout the context asks for (CPU or GPU). Every
 * block of the picture is searched, partial blocks at the right and bottom
 * edges included (their visible samples only). Only candidates whose whole
 * reference block lies inside the picture count (MPEG-1 vectors may not
 * point outside it); the zero vector always does. The best candidate has
 * the least cost; ties go to the smaller |dx| + |dy|, then to the first in
 * raster order (dy, then dx, ascending), so that every device and a plain
 * C search agree to the bit.
 *
 * The hierarchical method decimates both pictures (rounded means of 2x2
 * and 4x4 samples) into device buffers of its own, allocated on first use
 * and again when the picture size changes, searches the whole window at
 * the coarsest level (16x16 areas, 4x4 decimated samples) and refines
 * level by level; see kernels/motionsearch.cl for the exact candidates.
 * Each step is one launch, with no dependency between the blocks of a
 * step.
 *
 * Kernels are built on first use and kept. Not thread-safe: one per
 * element.
 */
typedef struct _GstClMotionSearch GstClMotionSearch;

GstClMotionSearch *gst_cl_motion_search_new (GstClContext * ctx,
    const GstClMotionSearchParams * params, GError ** error);
void gst_cl_motion_search_free (GstClMotionSearch * ms);

const GstClMotionSearchParams *gst_cl_motion_search_get_params (const
    GstClMotionSearch * ms);

/* Grid for a plane of width x height: ceil (w / block) x ceil (h / block). */
void gst_cl_motion_search_grid (const GstClMotionSearch * ms, guint width,
    guint height, guint * blocks_x, guint * blocks_y);

/**
 * gst_cl_motion_search_run:
 * @ms: the search
 * @cur: the current picture's luma; its width and height are the
 *   picture's
 * @ref: the reference picture's luma, at least as large as @cur (only its
 *   first width x height samples are read: an encoder may pass a plane
 *   padded to whole macroblocks)
 * @vectors: device buffer of at least blocks_x * blocks_y
 *   #GstClMotionVector
 * @error: where a failed OpenCL call is reported
 *
 * Enqueues the search of @cur against @ref on the context's in-order
 * queue and returns without waiting; @vectors receives one vector per
 * block in raster order. Planes must have a pixel stride of 1.
 */
gboolean gst_cl_motion_search_run (GstClMotionSearch * ms,
    const GstClPlane * cur, const GstClPlane * ref, cl_mem vectors,
    GError ** error);

/**
 * gst_cl_motion_search_run_with_chroma:
 * @cur_chroma: (nullable): the current picture's U and V planes (in one
 *   buffer, same pixel stride; subsampled by 1 or 2 in each direction)
 * @ref_chroma: (nullable): the reference picture's U and V planes
 *
 * As gst_cl_motion_search_run(), with the chroma planes weighed into the
 * full-pel cost when the parameters' chroma_weight is above 0 (without
 * them, or at weight 0, the same as gst_cl_motion_search_run()).
 */
gboolean gst_cl_motion_search_run_with_chroma (GstClMotionSearch * ms,
    const GstClPlane * cur, const GstClPlane * ref,
    const GstClPlane * cur_chroma, const GstClPlane * ref_chroma,
    cl_mem vectors, GError ** error);

G_END_DECLS
