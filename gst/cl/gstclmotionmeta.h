/* gst-clvideo: per-frame motion vectors on the device, as a GstMeta
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#pragma once

#include <gst/cl/cl-prelude.h>
#include <gst/gst.h>
#include <gst/cl/gstclcontext.h>

G_BEGIN_DECLS

#include <gst/cl/gstclmotionvector.h>

/**
 * GstClMotionMethod:
 * @GST_CL_MOTION_METHOD_FULL: exhaustive: every displacement of the window
 * @GST_CL_MOTION_METHOD_HIERARCHICAL: coarse to fine: the whole window
 *   searched for every 16x16 area in the luma decimated by 4, then at half
 *   and at full resolution (per block) the square around the best of the
 *   area's and its neighbours' vectors doubled (and zero), and a last pass
 *   that takes a neighbouring block's vector where it is better; each
 *   area also searches the window around its vector of the previous
 *   search and around the picture's global motion (from its column and
 *   row sums), and each block tries that vector, so that a pan is found
 *   and followed past the window; luma only
 * @GST_CL_MOTION_METHOD_AUTO: hierarchical on every device: only it
 *   follows motion past the window
 *
 * How a #GstClMotionSearch looks for the best vector. One enum type for
 * every element that has a motion search method property.
 *
 * Since: 0.1
 */
typedef enum {
  GST_CL_MOTION_METHOD_FULL,
  GST_CL_MOTION_METHOD_HIERARCHICAL,
  GST_CL_MOTION_METHOD_AUTO,
} GstClMotionMethod;

GST_CL_API
GType gst_cl_motion_method_get_type (void);
/**
 * GST_TYPE_CL_MOTION_METHOD:
 *
 * The enum #GType of #GstClMotionMethod.
 *
 * Since: 0.1
 */
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
 *
 * Since: 0.1
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
 * GstClMotionMeta:
 * @meta: parent
 * @context: the context @vectors belongs to (a reference is held)
 * @vectors: device buffer of @blocks_x * @blocks_y #GstClMotionVector in
 *   raster order of the blocks (retained by the meta). Vectors are in
 *   half-pel units: the block at (x, y) is predicted from (x + dx / 2,
 *   y + dy / 2) of the reference frame, and every vector keeps that block
 *   inside the picture. Written by kernels on @context's in-order queue,
 *   so work enqueued there later sees the final values without waiting.
 * @blocks_x: blocks per row, ceil (width / @block_size)
 * @blocks_y: block rows, ceil (height / @block_size)
 * @block_size: 16 or 8 (blocks at the right and bottom edges may be
 *   partial; their SAD covers their visible samples)
 * @search_range: full-pel search window [-range, range - 1]
 * @subpel: half-pel refined (odd components possible; MPEG-1
 *   interpolation), else every component is even
 * @lambda: rate-constrained cost weight of the search (0: plain SAD)
 * @chroma_weight: chroma weight of the search's cost (0: luma only)
 * @method: how the search looked for the vectors
 * @reference_pts: timestamp of the reference frame (the previous frame
 *   of the stream), GST_CLOCK_TIME_NONE when it had none
 *
 * Motion of the buffer's luma relative to the previous frame of the
 * stream, as found by `clmotionsearch` (see #GstClMotionSearch for the
 * search and its tie rules). A frame with no previous frame to refer to —
 * the first after the element started, a discont, a flush or a caps
 * change — carries no GstClMotionMeta: a consumer treats it as intra.
 *
 * The meta's API carries the tags "video", "size" and "orientation":
 * elements that change the geometry of the pixels drop it.
 *
 * The fields do not change once the meta is on a buffer; reading the
 * vectors is MT safe.
 *
 * Since: 0.1
 */
typedef struct {
  GstMeta meta;

  GstClContext *context;
  cl_mem vectors;
  guint blocks_x, blocks_y;
  guint block_size;
  guint search_range;
  gboolean subpel;
  guint lambda;
  gdouble chroma_weight;
  GstClMotionMethod method;
  GstClockTime reference_pts;

  /*< private >*/
  GstBuffer *storage;
} GstClMotionMeta;

GST_CL_API
GType gst_cl_motion_meta_api_get_type (void);
/**
 * GST_CL_MOTION_META_API_TYPE:
 *
 * The #GType of the #GstClMotionMeta API.
 *
 * Since: 0.1
 */
#define GST_CL_MOTION_META_API_TYPE (gst_cl_motion_meta_api_get_type ())

GST_CL_API
const GstMetaInfo *gst_cl_motion_meta_get_info (void);
/**
 * GST_CL_MOTION_META_INFO:
 *
 * The #GstMetaInfo of #GstClMotionMeta.
 *
 * Since: 0.1
 */
#define GST_CL_MOTION_META_INFO (gst_cl_motion_meta_get_info ())

GST_CL_API
GstClMotionMeta *gst_buffer_add_cl_motion_meta (GstBuffer * buffer,
    GstClContext * context, GstBuffer * storage,
    const GstClMotionSearchParams * params, guint blocks_x, guint blocks_y,
    GstClockTime reference_pts);

GST_CL_API
GstClMotionMeta *gst_buffer_get_cl_motion_meta (GstBuffer * buffer);

GST_CL_API
gboolean gst_cl_motion_meta_read (GstClMotionMeta * meta,
    GstClMotionVector * vectors, GError ** error);

GST_CL_API
gboolean gst_cl_motion_meta_read_components (GstClMotionMeta * meta,
    gint16 ** dx, gint16 ** dy, guint32 ** sad, guint * n_blocks,
    GError ** error);

GST_CL_API
gboolean gst_cl_motion_meta_map (GstClMotionMeta * meta, GstMapInfo * info);
GST_CL_API
void gst_cl_motion_meta_unmap (GstClMotionMeta * meta, GstMapInfo * info);

G_END_DECLS
