/* gst-clvideo: clmotionsearch
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
/**
 * SECTION:element-clmotionsearch
 * @title: clmotionsearch
 *
 * Block-matching motion estimation on an OpenCL device. Each frame's luma
 * is cut into blocks of `block-size` (the blocks at the right and bottom
 * edges may be partial) and every block is searched in the previous frame
 * over displacements of -`search-range` to `search-range` - 1 samples,
 * among those whose reference block lies inside the picture. The vectors
 * (in half-pel units, with `subpel` refined to half-pel with the MPEG-1
 * interpolation) and their SADs are attached to the frame as a
 * #GstClMotionMeta, which stays on the device: `clmpegenc` downstream
 * codes them instead of searching again. Ties go to the shortest vector,
 * then to the first in raster order, so every device finds the same
 * vectors.
 *
 * `method` says how the window is searched:
 * - `full` tries every displacement: the least SAD there is.
 * - `hierarchical` searches coarse to fine, many times faster (about 10x
 *   at 1080p and range 16 on a CPU): the luma of both frames decimated by
 *   2 and 4 (rounded means), a search of the whole window at a quarter of
 *   the resolution for every 16x16 area, then at half resolution the best
 *   of the area's vector and its four neighbours' (doubled) refined by a
 *   sample, at full resolution the best of those vectors (doubled) and
 *   zero refined by one sample per block, again around the best while it
 *   moves (three times at most), and a last pass in which a
 *   block takes a neighbour's vector where that one is better. Each area
 *   also searches the window around its vector of the previous frame and
 *   around the picture's global motion (from its column and row sums),
 *   and each block tries that vector: a pan is found from its first
 *   frame, and motion that speeds up gradually followed, up to 511
 *   samples, past the window. Luma only
 *   (`chroma-weight` does not apply). It finds the full search's vector
 *   for most blocks of natural content and a slightly larger SAD for the
 *   rest; on noise, which has no coarse structure, it finds little.
 * - `auto` (the default) is `hierarchical` on every device: only it follows motion
 *   past the window. On GPUs `full` is the faster (on an H200, 0.11
 *   against 0.27 ms per 1080p frame) where the window holds the motion.
 *
 * `subpel-cost=satd`, the default, ranks the nine half-pel positions of
 * whole 16x16 blocks by the SATD of the residual (the sum of the
 * magnitudes of its four 8x8 Hadamard transforms) plus its SAD instead
 * of the SAD alone, plus, in the hierarchical search, twice
 * `vector-cost`'s price of the half-pel vector's bits: closer to what a
 * transform coder spends on the residual and the vector, as `clmpegenc`
 * does with `rdo`. The vector keeps its SAD. `sad` ranks them by SAD, at
 * a fraction of the refinement's cost.
 *
 * With `lambda` above 0 the search is rate-constrained: each block takes
 * the least SAD + lambda * (bits MPEG-1 spends on the vector's difference
 * to the vector of the block on its left, 0 at the start of a row), as
 * defined in gst/clvideo/motionsearch/gstclmotionlambda.h; full-pel, luma only, exhaustive
 * whatever `method` says.
 *
 * The reference is a device copy of the previous input frame. The first
 * frame, and the first after a discont, a flush or a caps change, has no
 * reference and carries no meta.
 *
 * The frames pass through unchanged (in place, no copy), except with
 * `draw-vectors=true`: then each block's vector is drawn onto the luma as
 * a line from where its content was in the previous frame to the block's
 * centre, which is marked by a 2x2 dot; drawn samples become white on dark
 * and black on light content. The frame is mapped on the host for that,
 * so it is meant for looking, not for speed.
 *
 * With `post-messages=true` an element message named "clmotionsearch" is
 * posted for every frame with vectors: "timestamp", "stream-time",
 * "running-time", "duration" (as clhistogram's), "blocks" (guint),
 * "mean-magnitude" (gdouble, mean vector length in samples), "mean-sad"
 * (gdouble, mean SAD per block) and "zero-share" (gdouble, share of zero
 * vectors, 0 to 1). The vectors are read back without stalling the
 * device; a message comes a frame or so late, at the latest at EOS.
 *
 * ## Example launch lines
 * |[
 * gst-launch-1.0 -m videotestsrc pattern=ball num-buffers=30 ! video/x-raw,format=I420,width=320,height=240 ! clmotionsearch post-messages=true ! fakesink
 * ]| Posts the statistics of each frame's vectors.
 * |[
 * gst-launch-1.0 videotestsrc pattern=zone-plate kx2=20 ky2=20 kt=1 horizontal-speed=4 num-buffers=10 ! video/x-raw,format=I420,width=320,height=240 ! clmotionsearch block-size=8 draw-vectors=true ! videoconvert ! pngenc ! multifilesink location=vectors-%02d.png
 * ]| Writes the frames with their vector fields drawn on them as PNG images
 * (pipelines/motion-vectors.sh does the same for any clip).
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <math.h>
#include <string.h>

#include "gstclmotionsearch.h"
#include "gstclvideoenum.h"
#include <gst/cl/gstclmotionmeta.h>
#include "gstclmotionsearchcompute.h"
#include "gstclmotionlambda.h"
#include <gst/cl/gstclreadback.h>

GST_DEBUG_CATEGORY_STATIC (gst_cl_motion_search_debug);
#define GST_CAT_DEFAULT gst_cl_motion_search_debug

#define FORMATS "I420, NV12, Y444, GRAY8"

#define DEFAULT_BLOCK_SIZE GST_CL_MOTION_BLOCK_SIZE_16
#define DEFAULT_SEARCH_RANGE 16
#define DEFAULT_METHOD GST_CL_MOTION_METHOD_AUTO
#define DEFAULT_CHROMA_WEIGHT 0.0
#define MAX_CHROMA_WEIGHT 16.0
#define DEFAULT_SUBPEL TRUE
#define DEFAULT_SUBPEL_COST GST_CL_MOTION_SUBPEL_COST_SATD
#define DEFAULT_LAMBDA 0
#define DEFAULT_VECTOR_COST 0.0
#define MAX_VECTOR_COST (GST_CL_MOTION_VECTOR_PRICE_MAX / 16.0)
#define DEFAULT_DRAW_VECTORS FALSE
#define DEFAULT_POST_MESSAGES FALSE


enum
{
  PROP_0,
  PROP_BLOCK_SIZE,
  PROP_SEARCH_RANGE,
  PROP_METHOD,
  PROP_CHROMA_WEIGHT,
  PROP_SUBPEL,
  PROP_SUBPEL_COST,
  PROP_DRAW_VECTORS,
  PROP_POST_MESSAGES,
  PROP_LAMBDA,
  PROP_VECTOR_COST,
};

struct _GstClMotionSearchElement
{
  GstClFilter parent;

  /* properties */
  GstClMotionSearchParams props;
  GstClMotionSubpelCost subpel_cost;
  gdouble vector_cost;
  gboolean draw_vectors;
  gboolean post_messages;

  /* per negotiation */
  GstVideoInfo info;

  /* device objects */
  GstClMotionSearch *search;
  GstClMotionLambda *lambda;    /* the search when lambda > 0 */
  GstBufferPool *vectors_pool;
  GstBuffer *ref_buffer;        /* the previous frame, default layout */
  gboolean have_ref;
  gboolean ref_has_chroma;
  GstClockTime ref_pts;
  /* the reference was the current frame of self->search's last search,
   * which keeps its decimated levels */
  gboolean ref_searched;
};

/* Registered by hand rather than by G_DEFINE_TYPE: GstObject names an
 * element after its type (GstClMotionSearch: clmotionsearch0, ...), while
 * the C type needs a name of its own, GstClMotionSearch being the device
 * search that clmpegenc shares. */
static gpointer gst_cl_motion_search_element_parent_class;

static void gst_cl_motion_search_element_class_init
    (GstClMotionSearchElementClass * klass);
static void gst_cl_motion_search_element_init (GTypeInstance * instance,
    gpointer klass);

static void
gst_cl_motion_search_element_class_intern_init (gpointer klass,
    gpointer data G_GNUC_UNUSED)
{
  gst_cl_motion_search_element_parent_class =
      g_type_class_peek_parent (klass);
  gst_cl_motion_search_element_class_init (klass);
}

GType
gst_cl_motion_search_element_get_type (void)
{
  static gsize type = 0;

  if (g_once_init_enter (&type)) {
    GType t = g_type_register_static_simple (GST_TYPE_CL_FILTER,
        g_intern_static_string ("GstClMotionSearch"),
        sizeof (GstClMotionSearchElementClass),
        gst_cl_motion_search_element_class_intern_init,
        sizeof (GstClMotionSearchElement),
        gst_cl_motion_search_element_init, 0);
    GST_DEBUG_CATEGORY_INIT (gst_cl_motion_search_debug, "clmotionsearch", 0,
        "OpenCL motion search");
    g_once_init_leave (&type, t);
  }
  return type;
}

#define GST_TYPE_CL_MOTION_BLOCK_SIZE (gst_cl_motion_block_size_get_type ())
static GType
gst_cl_motion_block_size_get_type (void)
{
  static GType type = 0;
  static const GEnumValue values[] = {
    {GST_CL_MOTION_BLOCK_SIZE_16, "16x16 blocks (MPEG macroblocks)", "16"},
    {GST_CL_MOTION_BLOCK_SIZE_8, "8x8 blocks", "8"},
    {0, NULL, NULL}
  };
  return gst_cl_video_enum_type (&type, "GstClMotionBlockSize", values);
}

#define GST_TYPE_CL_MOTION_SUBPEL_COST (gst_cl_motion_subpel_cost_get_type ())
static GType
gst_cl_motion_subpel_cost_get_type (void)
{
  static GType type = 0;
  static const GEnumValue values[] = {
    {GST_CL_MOTION_SUBPEL_COST_SAD, "Sum of absolute differences", "sad"},
    {GST_CL_MOTION_SUBPEL_COST_SATD, "Sum of the magnitudes of the "
          "residual's 8x8 Hadamard transforms, plus its SAD and the "
          "vector's bits",
        "satd"},
    {0, NULL, NULL}
  };
  return gst_cl_video_enum_type (&type, "GstClMotionSubpelCost", values);
}

/* ---- statistics for the messages ---- */

static void
gst_cl_motion_search_fill_message (GstClFilter * filter G_GNUC_UNUSED,
    GstStructure * s, gconstpointer data, gsize size)
{
  const GstClMotionVector *v = data;
  guint i, n = size / sizeof (GstClMotionVector), zero = 0;
  gdouble mag = 0.0, sad = 0.0;

  for (i = 0; i < n; i++) {
    mag += sqrt ((gdouble) v[i].dx * v[i].dx + (gdouble) v[i].dy * v[i].dy);
    sad += v[i].sad;
    if (v[i].dx == 0 && v[i].dy == 0)
      zero++;
  }
  /* half-pel units to samples */
  gst_structure_set (s, "blocks", G_TYPE_UINT, n,
      "mean-magnitude", G_TYPE_DOUBLE, n ? mag / 2.0 / n : 0.0,
      "mean-sad", G_TYPE_DOUBLE, n ? sad / n : 0.0,
      "zero-share", G_TYPE_DOUBLE, n ? (gdouble) zero / n : 0.0, NULL);
}

/* ---- drawing ---- */

static void
put (guint8 * mask, gint w, gint h, gint x, gint y)
{
  if (x >= 0 && y >= 0 && x < w && y < h)
    mask[(gsize) y * w + x] = 1;
}

/* Each block: a line from where its content was (the centre displaced
 * by the vector) to its centre, and a 2x2 dot on the centre. */
static void
draw_vectors (guint8 * data, gint stride, gint w, gint h, guint bs,
    guint blocks_x, guint blocks_y, const GstClMotionVector * v)
{
  guint8 *mask = g_malloc0 ((gsize) w * h);
  guint bx, by;
  gint x, y;

  for (by = 0; by < blocks_y; by++) {
    for (bx = 0; bx < blocks_x; bx++) {
      const GstClMotionVector *mv = &v[by * blocks_x + bx];
      gint x0 = bx * bs, y0 = by * bs;
      gint cx = x0 + MIN ((gint) bs, w - x0) / 2;
      gint cy = y0 + MIN ((gint) bs, h - y0) / 2;
      /* the tail to the nearest sample (half-pel units, rounded) */
      gint tx = cx + (mv->dx >= 0 ? (mv->dx + 1) / 2 : -((-mv->dx + 1) / 2));
      gint ty = cy + (mv->dy >= 0 ? (mv->dy + 1) / 2 : -((-mv->dy + 1) / 2));
      gint n = MAX (ABS (tx - cx), ABS (ty - cy)), i, dx, dy;

      for (i = 0; i < n; i++) {
        /* rounded steps along the longer axis */
        gint lx = tx + ((cx - tx) * 2 * i + (cx >= tx ? n : -n)) / (2 * n);
        gint ly = ty + ((cy - ty) * 2 * i + (cy >= ty ? n : -n)) / (2 * n);
        put (mask, w, h, lx, ly);
      }
      for (dy = 0; dy < 2; dy++)
        for (dx = 0; dx < 2; dx++)
          put (mask, w, h, cx - dx, cy - dy);
    }
  }
  /* white on dark, black on light, so the lines show on any picture */
  for (y = 0; y < h; y++)
    for (x = 0; x < w; x++)
      if (mask[(gsize) y * w + x]) {
        guint8 *p = &data[(gsize) y * stride + x];
        *p = *p < 128 ? 255 : 0;
      }
  g_free (mask);
}

/* Draws the vectors of @meta onto @buffer's luma, on the host. */
static gboolean
draw_on_buffer (GstClMotionSearchElement * self, GstBuffer * buffer,
    GstClMotionMeta * meta, GError ** error)
{
  GstVideoFrame vframe;
  GstMapInfo vmap;
  guint i;

  /* the memory may be shared with another buffer: draw on a copy */
  for (i = 0; i < gst_buffer_n_memory (buffer); i++) {
    GstMemory *mem = gst_buffer_peek_memory (buffer, i);
    if (!gst_memory_is_writable (mem)) {
      GstMemory *copy = gst_memory_copy (mem, 0, -1);
      if (!copy) {
        g_set_error (error, GST_CL_ERROR, GST_CL_ERROR_CALL,
            "Cannot copy a shared frame to draw the vectors on");
        return FALSE;
      }
      gst_buffer_replace_memory (buffer, i, copy);
    }
  }
  if (!gst_cl_motion_meta_map (meta, &vmap)) {
    g_set_error (error, GST_CL_ERROR, GST_CL_ERROR_CALL,
        "Cannot map the motion vectors for drawing");
    return FALSE;
  }
  if (!gst_video_frame_map (&vframe, &self->info, buffer,
          GST_MAP_READWRITE)) {
    gst_cl_motion_meta_unmap (meta, &vmap);
    g_set_error (error, GST_CL_ERROR, GST_CL_ERROR_CALL,
        "Cannot map the frame to draw the vectors on");
    return FALSE;
  }
  draw_vectors (GST_VIDEO_FRAME_COMP_DATA (&vframe, 0),
      GST_VIDEO_FRAME_COMP_STRIDE (&vframe, 0),
      GST_VIDEO_FRAME_COMP_WIDTH (&vframe, 0),
      GST_VIDEO_FRAME_COMP_HEIGHT (&vframe, 0), meta->block_size,
      meta->blocks_x, meta->blocks_y, (const GstClMotionVector *) vmap.data);
  gst_video_frame_unmap (&vframe);
  gst_cl_motion_meta_unmap (meta, &vmap);
  return TRUE;
}

/* ---- processing ---- */

/* (the search's vectors of the last frame go too: the next search
 * follows nothing from before the cut) */
static void
drop_reference (GstClMotionSearchElement * self)
{
  self->have_ref = FALSE;
  self->ref_searched = FALSE;
  self->ref_pts = GST_CLOCK_TIME_NONE;
  if (self->search)
    gst_cl_motion_search_forget (self->search);
}

static gboolean
gst_cl_motion_search_set_info (GstClFilter * filter, GstVideoInfo * in,
    GstVideoInfo * out G_GNUC_UNUSED, GError ** error G_GNUC_UNUSED)
{
  GstClMotionSearchElement *self = GST_CL_MOTION_SEARCH_ELEMENT (filter);

  /* a new format or size: the previous frame is no reference */
  self->info = *in;
  drop_reference (self);
  return TRUE;
}

static void
gst_cl_motion_search_release (GstClFilter * filter)
{
  GstClMotionSearchElement *self = GST_CL_MOTION_SEARCH_ELEMENT (filter);

  g_clear_pointer (&self->search, gst_cl_motion_search_free);
  g_clear_pointer (&self->lambda, gst_cl_motion_lambda_free);
  gst_clear_buffer (&self->ref_buffer);
  drop_reference (self);
  if (self->vectors_pool) {
    /* buffers still held by metas are freed when they come back */
    gst_buffer_pool_set_active (self->vectors_pool, FALSE);
    gst_clear_object (&self->vectors_pool);
  }
}

static gboolean
ensure_device_objects (GstClMotionSearchElement * self, GstClContext * ctx,
    const GstClMotionSearchParams * params, GError ** error)
{
  const GstClMotionSearchParams *cur;

  if (self->search) {
    cur = gst_cl_motion_search_get_params (self->search);
    if (cur->block_size != params->block_size ||
        cur->search_range != params->search_range ||
        cur->subpel != params->subpel ||
        cur->chroma_weight != params->chroma_weight ||
        cur->method != params->method)
      g_clear_pointer (&self->search, gst_cl_motion_search_free);
  }
  if (!self->search) {
    GstClMotionSearchParams plain = *params;
    plain.lambda = 0;           /* rate-constrained: self->lambda searches */
    self->search = gst_cl_motion_search_new (ctx, &plain, error);
    if (!self->search)
      return FALSE;
  }
  if (self->lambda && !gst_cl_motion_lambda_matches (self->lambda,
          params->block_size, params->search_range, params->lambda))
    g_clear_pointer (&self->lambda, gst_cl_motion_lambda_free);
  if (params->lambda && !self->lambda) {
    self->lambda = gst_cl_motion_lambda_new (ctx, params->block_size,
        params->search_range, params->lambda, error);
    if (!self->lambda)
      return FALSE;
  }

  if (!self->vectors_pool) {
    /* room for the smallest blocks, whatever the block size becomes */
    gsize size = (gsize) ((GST_VIDEO_INFO_WIDTH (&self->info) + 7) / 8) *
        ((GST_VIDEO_INFO_HEIGHT (&self->info) + 7) / 8) *
        sizeof (GstClMotionVector);

    self->vectors_pool = gst_cl_buffer_pool_new_sized (ctx, size, 2, error);
    if (!self->vectors_pool)
      return FALSE;
  }

  if (!self->ref_buffer) {
    GstAllocator *alloc = gst_cl_allocator_new (ctx);
    GstMemory *mem = gst_cl_allocator_alloc_memory (alloc, self->info.size,
        error);
    gst_object_unref (alloc);
    if (!mem)
      return FALSE;
    self->ref_buffer = gst_buffer_new ();
    gst_buffer_append_memory (self->ref_buffer, mem);
    drop_reference (self);
  }
  return TRUE;
}

static gboolean
drop_motion_meta (GstBuffer * buffer G_GNUC_UNUSED, GstMeta ** meta,
    gpointer user_data G_GNUC_UNUSED)
{
  if ((*meta)->info->api == GST_CL_MOTION_META_API_TYPE)
    *meta = NULL;
  return TRUE;
}

/* Searches @frame against the reference; adds the meta. */
static GstClMotionMeta *
search_frame (GstClMotionSearchElement * self, GstClContext * ctx,
    GstBuffer * buffer, GstClFrame * frame, GstClFrame * ref,
    const GstClMotionSearchParams * params, GError ** error)
{
  GstClPlane cur_y, ref_y, cur_c[2], ref_c[2];
  gboolean chroma = params->chroma_weight > 0.0 && self->ref_has_chroma;
  GstBuffer *storage = NULL;
  GstClMotionMeta *meta;
  guint bx, by, i;
  cl_mem vectors;

  if (gst_buffer_pool_acquire_buffer (self->vectors_pool, &storage, NULL) !=
      GST_FLOW_OK) {
    g_set_error (error, GST_CL_ERROR, GST_CL_ERROR_CALL,
        "Cannot allocate an OpenCL buffer for the motion vectors (out of "
        "device memory?)");
    return NULL;
  }
  vectors = ((GstClMemory *) gst_buffer_peek_memory (storage, 0))->buffer;

  gst_cl_frame_get_plane (frame, GST_VIDEO_COMP_Y, &cur_y);
  gst_cl_frame_get_plane (ref, GST_VIDEO_COMP_Y, &ref_y);
  if (chroma) {
    for (i = 0; i < 2; i++) {
      gst_cl_frame_get_plane (frame, GST_VIDEO_COMP_U + i, &cur_c[i]);
      gst_cl_frame_get_plane (ref, GST_VIDEO_COMP_U + i, &ref_c[i]);
    }
  }
  gst_cl_motion_search_set_reference_is_last (self->search,
      self->ref_searched && !self->lambda);
  /* (this frame is the next one's reference) */
  self->ref_searched = !self->lambda;
  if (self->lambda ? !gst_cl_motion_lambda_run (self->lambda, &cur_y, &ref_y,
          vectors, error) :
      !gst_cl_motion_search_run_with_chroma (self->search, &cur_y, &ref_y,
          chroma ? cur_c : NULL, chroma ? ref_c : NULL, vectors, error)) {
    self->ref_searched = FALSE;
    gst_buffer_unref (storage);
    return NULL;
  }
  gst_cl_memory_mark_written (gst_buffer_peek_memory (storage, 0));

  /* a shallow copy of a buffer an upstream clmotionsearch saw may carry
   * its meta: the new one replaces it */
  gst_buffer_foreach_meta (buffer, drop_motion_meta, NULL);
  gst_cl_motion_search_grid (self->search, cur_y.width, cur_y.height, &bx,
      &by);
  meta = gst_buffer_add_cl_motion_meta (buffer, ctx, storage, params, bx,
      by, self->ref_pts);
  gst_buffer_unref (storage);
  if (!meta)
    g_set_error (error, GST_CL_ERROR, GST_CL_ERROR_CALL,
        "Cannot attach the motion vectors to the frame");
  return meta;
}

static gboolean
gst_cl_motion_search_process_ip (GstClFilter * filter, GstBuffer * buffer,
    GstClFrame * frame, GError ** error)
{
  GstClMotionSearchElement *self = GST_CL_MOTION_SEARCH_ELEMENT (filter);
  GstClContext *ctx = gst_cl_filter_get_context (filter);
  GstClMotionSearchParams params;
  GstClMotionMeta *meta = NULL;
  gboolean draw, post, gray, satd;
  guint price;
  GstClFrame ref;

  GST_OBJECT_LOCK (self);
  params = self->props;
  satd = self->subpel_cost == GST_CL_MOTION_SUBPEL_COST_SATD;
  price = (guint) lround (self->vector_cost * 16);
  draw = self->draw_vectors;
  post = self->post_messages;
  GST_OBJECT_UNLOCK (self);
  params.method = gst_cl_motion_method_resolve (params.method);

  gray = GST_VIDEO_INFO_IS_GRAY (&self->info);
  if (gray)
    params.chroma_weight = 0.0;
  if (params.lambda) {
    /* the rate-constrained search is full-pel on luma, exhaustive */
    params.subpel = FALSE;
    params.chroma_weight = 0.0;
    params.method = GST_CL_MOTION_METHOD_FULL;
  }
  if (params.method == GST_CL_MOTION_METHOD_HIERARCHICAL)
    params.chroma_weight = 0.0;     /* luma only */
  if (GST_BUFFER_FLAG_IS_SET (buffer, GST_BUFFER_FLAG_DISCONT)) {
    GST_DEBUG_OBJECT (self, "discont: starting over");
    drop_reference (self);
  }
  if (!ensure_device_objects (self, ctx, &params, error))
    return FALSE;
  gst_cl_motion_search_set_subpel_satd (self->search, satd);
  gst_cl_motion_search_set_vector_price (self->search, price);
  gst_cl_frame_init (&ref, &self->info, self->ref_buffer);

  if (self->have_ref) {
    meta = search_frame (self, ctx, buffer, frame, &ref, &params, error);
    if (!meta)
      return FALSE;
  } else {
    /* no reference: vectors of an earlier search do not apply */
    gst_buffer_foreach_meta (buffer, drop_motion_meta, NULL);
    self->ref_searched = FALSE;
  }

  /* this frame is the next one's reference; the in-order queue runs the
   * search above before the copy overwrites the old reference */
  if (!gst_cl_frame_copy (ctx, &ref, frame, error))
    return FALSE;
  self->have_ref = TRUE;
  self->ref_has_chroma = !gray;
  self->ref_pts = GST_BUFFER_PTS (buffer);

  if (meta && post && !gst_cl_filter_read_message (filter, meta->vectors, 0,
          (gsize) meta->blocks_x * meta->blocks_y * sizeof (GstClMotionVector),
          gst_cl_frame_message_structure_new ("clmotionsearch",
              &GST_BASE_TRANSFORM (self)->segment, buffer,
              gst_cl_filter_get_frame_duration (filter, buffer)), error))
    return FALSE;

  if (meta && draw && !draw_on_buffer (self, buffer, meta, error))
    return FALSE;
  return TRUE;
}

/* after a flush or a restart the last frame is no reference */
static void
gst_cl_motion_search_reset (GstClFilter * filter)
{
  drop_reference (GST_CL_MOTION_SEARCH_ELEMENT (filter));
}

/* ---- GObject ---- */

static void
gst_cl_motion_search_set_property (GObject * object, guint prop_id,
    const GValue * value, GParamSpec * pspec)
{
  GstClMotionSearchElement *self = GST_CL_MOTION_SEARCH_ELEMENT (object);

  GST_OBJECT_LOCK (self);
  switch (prop_id) {
    case PROP_BLOCK_SIZE:
      self->props.block_size = g_value_get_enum (value);
      break;
    case PROP_SEARCH_RANGE:
      self->props.search_range = g_value_get_uint (value);
      break;
    case PROP_METHOD:
      self->props.method = g_value_get_enum (value);
      break;
    case PROP_CHROMA_WEIGHT:
      self->props.chroma_weight = g_value_get_double (value);
      break;
    case PROP_SUBPEL:
      self->props.subpel = g_value_get_boolean (value);
      break;
    case PROP_SUBPEL_COST:
      self->subpel_cost = g_value_get_enum (value);
      break;
    case PROP_VECTOR_COST:
      self->vector_cost = g_value_get_double (value);
      break;
    case PROP_DRAW_VECTORS:
      self->draw_vectors = g_value_get_boolean (value);
      break;
    case PROP_POST_MESSAGES:
      self->post_messages = g_value_get_boolean (value);
      break;
    case PROP_LAMBDA:
      self->props.lambda = g_value_get_uint (value);
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
      break;
  }
  GST_OBJECT_UNLOCK (self);
}

static void
gst_cl_motion_search_get_property (GObject * object, guint prop_id,
    GValue * value, GParamSpec * pspec)
{
  GstClMotionSearchElement *self = GST_CL_MOTION_SEARCH_ELEMENT (object);

  GST_OBJECT_LOCK (self);
  switch (prop_id) {
    case PROP_BLOCK_SIZE:
      g_value_set_enum (value, self->props.block_size);
      break;
    case PROP_SEARCH_RANGE:
      g_value_set_uint (value, self->props.search_range);
      break;
    case PROP_METHOD:
      g_value_set_enum (value, self->props.method);
      break;
    case PROP_CHROMA_WEIGHT:
      g_value_set_double (value, self->props.chroma_weight);
      break;
    case PROP_SUBPEL:
      g_value_set_boolean (value, self->props.subpel);
      break;
    case PROP_SUBPEL_COST:
      g_value_set_enum (value, self->subpel_cost);
      break;
    case PROP_VECTOR_COST:
      g_value_set_double (value, self->vector_cost);
      break;
    case PROP_DRAW_VECTORS:
      g_value_set_boolean (value, self->draw_vectors);
      break;
    case PROP_POST_MESSAGES:
      g_value_set_boolean (value, self->post_messages);
      break;
    case PROP_LAMBDA:
      g_value_set_uint (value, self->props.lambda);
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
      break;
  }
  GST_OBJECT_UNLOCK (self);
}

static void
gst_cl_motion_search_element_class_init (GstClMotionSearchElementClass *
    klass)
{
  GObjectClass *gobject_class = G_OBJECT_CLASS (klass);
  GstElementClass *element_class = GST_ELEMENT_CLASS (klass);
  GstClFilterClass *filter_class = GST_CL_FILTER_CLASS (klass);
  const GParamFlags flags = G_PARAM_READWRITE | G_PARAM_STATIC_STRINGS |
      GST_PARAM_MUTABLE_PLAYING;

  gobject_class->set_property = gst_cl_motion_search_set_property;
  gobject_class->get_property = gst_cl_motion_search_get_property;

  /**
   * GstClMotionSearchElement:block-size:
   *
   * Size of the square blocks searched: 16 (MPEG macroblocks) or 8.
   */
  g_object_class_install_property (gobject_class, PROP_BLOCK_SIZE,
      g_param_spec_enum ("block-size", "Block size",
          "Size of the square blocks searched", GST_TYPE_CL_MOTION_BLOCK_SIZE,
          DEFAULT_BLOCK_SIZE, flags));
  /**
   * GstClMotionSearchElement:search-range:
   *
   * Full-pel displacements from -range to range - 1 in both directions.
   */
  g_object_class_install_property (gobject_class, PROP_SEARCH_RANGE,
      g_param_spec_uint ("search-range", "Search range",
          "Displacements searched: -range to range - 1 samples in x and y",
          1, GST_CL_MOTION_SEARCH_MAX_RANGE, DEFAULT_SEARCH_RANGE, flags));
  /**
   * GstClMotionSearchElement:method:
   *
   * How the window is searched: `full` tries every displacement;
   * `hierarchical` searches coarse to fine over decimated luma, many times
   * faster, luma only.
   */
  g_object_class_install_property (gobject_class, PROP_METHOD,
      g_param_spec_enum ("method", "Method", "How the window is searched: "
          "full (every displacement) or hierarchical (coarse to fine over "
          "luma decimated by 2 and 4, many times faster, near the full "
          "search's vectors on natural content, following motion past the "
          "window; luma only, chroma-weight does not apply) or auto "
          "(hierarchical)", GST_TYPE_CL_MOTION_METHOD, DEFAULT_METHOD,
          flags));
  /**
   * GstClMotionSearchElement:chroma-weight:
   *
   * Weight of the chroma SAD in the full-pel cost (0: luma only): the
   * cost is luma SAD + weight * (U SAD + V SAD), the chroma block
   * displaced by the luma vector scaled to the chroma plane, rounded down.
   * Ignored for GRAY8 and by the hierarchical method.
   */
  g_object_class_install_property (gobject_class, PROP_CHROMA_WEIGHT,
      g_param_spec_double ("chroma-weight", "Chroma weight",
          "Weight of the chroma SAD in the search cost (0: luma only)", 0.0,
          MAX_CHROMA_WEIGHT, DEFAULT_CHROMA_WEIGHT, flags));
  /**
   * GstClMotionSearchElement:subpel:
   *
   * Refine each vector to half-pel precision (MPEG-1 interpolation).
   */
  g_object_class_install_property (gobject_class, PROP_SUBPEL,
      g_param_spec_boolean ("subpel", "Half-pel",
          "Refine the vectors to half-pel precision (MPEG-1 interpolation)",
          DEFAULT_SUBPEL, flags));
  /**
   * GstClMotionSearchElement:subpel-cost:
   *
   * How the half-pel positions are compared: `sad`, or `satd` (the SATD
   * of the residual, the sum of the magnitudes of the 8x8 Hadamard
   * transforms of its four luma blocks, plus its SAD, plus, in the
   * hierarchical search, twice `vector-cost`'s price of the half-pel
   * vector's bits; whole 16x16 blocks only, others keep the SAD). The
   * SATD follows what a transform coder spends on the residual, at
   * several times the refinement's cost; the vector keeps its SAD. The
   * default is that of `clmpegenc` with `rdo`.
   */
  g_object_class_install_property (gobject_class, PROP_SUBPEL_COST,
      g_param_spec_enum ("subpel-cost", "Half-pel cost",
          "How the half-pel positions are compared: sad, or satd (the SATD "
          "and SAD of the residual plus the vector's bits; whole 16x16 "
          "blocks only)",
          GST_TYPE_CL_MOTION_SUBPEL_COST, DEFAULT_SUBPEL_COST, flags));
  /**
   * GstClMotionSearchElement:vector-cost:
   *
   * SAD units that each bit of a vector costs in the hierarchical
   * search's ranking at its finer levels (0: the least SAD; in steps of
   * 1/16). A component c is counted as 1 bit when 0, else 2 floor (log2
   * |c|) + 4, about what MPEG's vector codes spend: a long vector is
   * then taken only where it matches clearly better than a short one,
   * which in grain and flat areas gives a smoother field that codes in
   * fewer bits. The vectors keep their SAD. `clmpegenc` prices its own
   * searches by their quantiser. The full search ignores it.
   */
  g_object_class_install_property (gobject_class, PROP_VECTOR_COST,
      g_param_spec_double ("vector-cost", "Vector cost",
          "SAD units a bit of a vector costs in the hierarchical search "
          "(0: the least SAD)", 0.0, MAX_VECTOR_COST, DEFAULT_VECTOR_COST,
          flags));
  /**
   * GstClMotionSearchElement:draw-vectors:
   *
   * Draw the vectors onto the outgoing frames' luma.
   */
  g_object_class_install_property (gobject_class, PROP_DRAW_VECTORS,
      g_param_spec_boolean ("draw-vectors", "Draw vectors",
          "Draw the vectors onto the outgoing frames' luma", DEFAULT_DRAW_VECTORS,
          flags));
  /**
   * GstClMotionSearchElement:post-messages:
   *
   * Post a "clmotionsearch" element message with statistics of the
   * vectors of every frame that has them.
   */
  g_object_class_install_property (gobject_class, PROP_POST_MESSAGES,
      g_param_spec_boolean ("post-messages", "Post messages",
          "Post a \"clmotionsearch\" element message with statistics of "
          "each frame's vectors", DEFAULT_POST_MESSAGES, flags));
  /**
   * GstClMotionSearchElement:lambda:
   *
   * Weight of the vector's coding cost in bits in the search cost (0: plain
   * SAD). The rate-constrained search is exhaustive, full-pel and luma
   * only: `method`, `subpel` and `chroma-weight` do not apply while it is
   * above 0.
   */
  g_object_class_install_property (gobject_class, PROP_LAMBDA,
      g_param_spec_uint ("lambda", "Lambda",
          "Weight of the vector's bits in the search cost (0: plain SAD)", 0,
          GST_CL_MOTION_LAMBDA_MAX, DEFAULT_LAMBDA, flags));

  gst_element_class_set_static_metadata (element_class,
      "OpenCL motion search", "Filter/Analyzer/Video",
      "Finds block motion vectors on an OpenCL device and attaches them to "
      "the frames", "gst-clvideo developers");
  gst_cl_filter_class_add_pad_templates (element_class, FORMATS, FORMATS,
      TRUE, TRUE, TRUE, TRUE);

  filter_class->set_info = gst_cl_motion_search_set_info;
  filter_class->process_ip = gst_cl_motion_search_process_ip;
  filter_class->release = gst_cl_motion_search_release;
  filter_class->reset = gst_cl_motion_search_reset;
  filter_class->fill_message = gst_cl_motion_search_fill_message;

  gst_type_mark_as_plugin_api (GST_TYPE_CL_MOTION_BLOCK_SIZE, 0);
  gst_type_mark_as_plugin_api (GST_TYPE_CL_MOTION_METHOD, 0);
  gst_type_mark_as_plugin_api (GST_TYPE_CL_MOTION_SUBPEL_COST, 0);
}

static void
gst_cl_motion_search_element_init (GTypeInstance * instance,
    gpointer klass G_GNUC_UNUSED)
{
  GstClMotionSearchElement *self = (GstClMotionSearchElement *) instance;

  self->props.block_size = DEFAULT_BLOCK_SIZE;
  self->props.search_range = DEFAULT_SEARCH_RANGE;
  self->props.subpel = DEFAULT_SUBPEL;
  self->subpel_cost = DEFAULT_SUBPEL_COST;
  self->vector_cost = DEFAULT_VECTOR_COST;
  self->props.lambda = DEFAULT_LAMBDA;
  self->props.chroma_weight = DEFAULT_CHROMA_WEIGHT;
  self->props.method = DEFAULT_METHOD;
  self->draw_vectors = DEFAULT_DRAW_VECTORS;
  self->post_messages = DEFAULT_POST_MESSAGES;
  self->ref_pts = GST_CLOCK_TIME_NONE;
  /* the frames go through untouched unless vectors are drawn */
  gst_base_transform_set_in_place (GST_BASE_TRANSFORM (self), TRUE);
}
