/* gst-clvideo: block-matching motion search on the device
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#pragma once

#include <gst/cl/gstclcontext.h>
#include <gst/cl/gstclmemory.h>
#include <gst/cl/gstclmotionmeta.h>

G_BEGIN_DECLS

/* Label of the search kernels in the context's profiling statistics. */
#define GST_CL_MOTION_SEARCH_LABEL "motionsearch"
/* ... and of the half-pel refinement where it runs on its own (GPUs) */
#define GST_CL_MOTION_SEARCH_REFINE_LABEL "motionsearch-refine"

/* Largest search range the kernels take. */
#define GST_CL_MOTION_SEARCH_MAX_RANGE 128

/* How much the hierarchical method does at full resolution: LOW one
 * square around the best predictor and no propagation from the
 * neighbours, MEDIUM (the default) up to three squares and one
 * propagation pass, HIGH up to six squares and two passes. */
typedef enum
{
  GST_CL_MOTION_EFFORT_LOW,
  GST_CL_MOTION_EFFORT_MEDIUM,
  GST_CL_MOTION_EFFORT_HIGH,
} GstClMotionEffort;

/* The method that @method stands for (AUTO resolved). */
GstClMotionMethod gst_cl_motion_method_resolve (GstClMotionMethod method);

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
 * step. The hierarchical method follows motion: it keeps the vectors of
 * its last search, and each area searches the window around the vector
 * its block had there as well as the one around zero, and takes that
 * vector as a predictor at the finer levels; it also finds the global
 * motion of the decimated pictures (from their column and row sums) and
 * searches the window around it where the one around zero misses it.
 * So its vectors reach up to GST_CL_MOTION_SEARCH_LIMIT samples whatever
 * the range.
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

/**
 * gst_cl_motion_search_run_seeded:
 * @seed: vectors of another search on the same grid (an upstream
 *   clmotionsearch's, between neighbouring frames, or a picture's
 *   further apart), half-pel units
 * @num: with @den, what they are multiplied by: the frames between @cur
 *   and @ref (negative where @ref comes later) over those between the
 *   seed's pictures
 * @den: above 0
 * @whole: the whole search, or full resolution only
 *
 * As gst_cl_motion_search_run(), the hierarchical method with blocks of
 * 16 only, the scaled seed vectors (to the nearest half-pel, halves
 * away from zero; each component within twice
 * GST_CL_MOTION_SEARCH_LIMIT) taking the place of the last search's
 * vectors, which the search follows. With @whole, the whole search
 * around them. Without, at full resolution only: instead of the levels
 * above it, each block starts from the scaled seed (its own, its
 * neighbours', rounded to even samples as level 1 gives them, and its
 * own as it is) and zero, then takes the passes at full resolution of
 * the effort set; where the seed follows the motion (neighbouring
 * frames) as good as the whole search, and cheaper.
 */
gboolean gst_cl_motion_search_run_seeded (GstClMotionSearch * ms,
    const GstClPlane * cur, const GstClPlane * ref, cl_mem seed,
    gint num, gint den, gboolean whole, cl_mem vectors, GError ** error);

/* The hierarchical method's effort from the next search on (the other
 * method ignores it). */
void gst_cl_motion_search_set_effort (GstClMotionSearch * ms,
    GstClMotionEffort effort);

/* From the next search on, the half-pel refinement of whole blocks of 16
 * ranks its positions by the SATD of the residual (8 x 8 Hadamard
 * transforms) instead of its SAD; the vectors still carry their SAD.
 * Off at first; without half-pel refinement or with blocks of 8 it
 * changes nothing. */
void gst_cl_motion_search_set_subpel_satd (GstClMotionSearch * ms,
    gboolean satd);

/* The most gst_cl_motion_search_set_vector_price() takes: 256 SAD units
 * a bit, far past any use */
#define GST_CL_MOTION_VECTOR_PRICE_MAX (256 * 16)

/* From the next search on, the hierarchical method ranks the candidates
 * of level 1 and of full resolution by their SAD plus @price / 16 for
 * each bit of their displacement (at that level; a component c costs 1
 * bit when 0, else 2 floor (log2 |c|) + 4): the search then takes a long
 * vector only where it matches clearly better than a short one, as a
 * coder that pays for its bits would. The vectors still carry their
 * SAD. 0 at first: the least SAD. The other method ignores it. */
void gst_cl_motion_search_set_vector_price (GstClMotionSearch * ms,
    guint price);

/* Drops the vectors of the last search (a cut, a seek): the next
 * hierarchical search follows nothing from before (the windows around
 * zero and the global motion only). */
void gst_cl_motion_search_forget (GstClMotionSearch * ms);

/* Whether the next search's reference holds the samples of the last
 * hierarchical search's current picture, as a stream searched frame
 * after frame has them: that search's decimated levels of it then serve
 * instead of being made again, with the same vectors. For the next
 * search only; where the last one made no such levels (another method,
 * a new size, gst_cl_motion_search_forget()), the reference is
 * decimated as usual. */
void gst_cl_motion_search_set_reference_is_last (GstClMotionSearch * ms,
    gboolean is_last);

G_END_DECLS
