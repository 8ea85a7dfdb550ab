/* gst-clvideo: block-matching motion search on the device
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * Shared by clmotionsearch and clmpegenc (which searches itself when no
 * upstream clmotionsearch left vectors on the buffer).
 */
#include "gstclvideokernels.h"
#include "gstclmotionsearchcompute.h"
#include "gstclvideotypes.h"
#include <gst/cl/gstclfilter.h>

#include <math.h>
#include <string.h>

/* chroma weight in 1/256, and its largest value (keeps costs in 32 bits) */
#define WEIGHT_ONE 256
#define MAX_CHROMA_WEIGHT 16.0

/* GPU layout: candidates (dy) per work-item, and the most work-items per
 * group */
#define TILE_K 8
#define TILE_MAX_NT 128
#define TILE_MIN_NT 32

/* GPU layout of the hierarchical levels: work-items per block for the
 * refinements (their 30 candidates at most) and for the coarsest level's
 * search (64 candidates at range 16; a warp, LEVEL_NT, where a warp's
 * work-items reduce in registers) */
#define LEVEL_NT 32
#define LEVEL_TOP_NT 64
/* NVIDIA (a warp of 32 work-items reduces in registers, no barrier):
 * blocks or areas a work-group, a warp each */
#define WARP_ITEMS 32
#define LEVEL_WARP_BLOCKS 4
/* GPU half-pel refinement: work-items per block */
#define REFINE_ITEMS 32
/* hierarchical: the coarsest level, and the areas searched above full
 * resolution (4x4 samples at level 2) */
#define HIER_TOP 2
#define HIER_AREA 16
/* CPU layout: blocks per work-item (a launch of a work-group per block
 * would cost more in dispatch than the refinements' few candidates), and
 * level-2 samples per work-item of the decimation */
#define LEVEL_CPU_RUN 8
#define DECIMATE_CPU_RUN 16

struct _GstClMotionSearch
{
  GstClContext *ctx;
  GstClMotionSearchParams params;
  guint weight_q;               /* chroma weight in 1/256 */
  GHashTable *kernels;          /* name and build options -> cl_kernel */
  GstClMotionEffort effort;     /* hierarchical: full resolution's work */
  gboolean subpel_satd;         /* gst_cl_motion_search_set_subpel_satd */
  guint vector_price;           /* gst_cl_motion_search_set_vector_price */

  /* GPU layout */
  gboolean use_tiles;
  guint tile_nt, tile_k;
  gboolean sad_ptx;             /* NVIDIA's vabsdiff4, until it fails to build */
  gboolean warp_ptx;            /* the same, and its warp shuffles, for the
                                 * hierarchical steps */
  gboolean int64_atomics;       /* 64-bit atomic minimum: the global
                                 * motion's shifts ranked as they are weighed */

  /* hierarchical, for pictures of pyr_width x pyr_height: the decimated
   * pictures (current level 1, level 2, then the reference's), the
   * vectors between the steps */
  cl_mem pyramid, steps[2];
  guint pyr_width, pyr_height;
  /* which of the pyramid's two halves holds the current picture's levels
   * (the other the reference's); whether the other half holds the levels
   * of the last search's current picture; whether the next search's
   * reference is that picture (gst_cl_motion_search_set_reference_is_last) */
  guint pyr_current;
  gboolean pyr_last_kept, reference_is_last;
  /* the hierarchical search's last vectors, which the next one follows */
  cl_mem history;
  gboolean history_valid;
  /* the global motion's keys, then its column and row sums */
  cl_mem global_motion;
};

/* The build option of the half-pel refinement's ranking, for a kernel
 * that refines */
static gint
satd_option (const GstClMotionSearch * ms)
{
  return ms->subpel_satd && ms->params.subpel &&
      ms->params.block_size == 16 ? 1 : 0;
}

GstClMotionMethod
gst_cl_motion_method_resolve (GstClMotionMethod method)
{
  /* hierarchical on every device: only it follows motion past the
   * window (the layout must not change the vectors, and so the stream) */
  return method == GST_CL_MOTION_METHOD_AUTO ?
      GST_CL_MOTION_METHOD_HIERARCHICAL : method;
}

GstClMotionSearch *
gst_cl_motion_search_new (GstClContext * ctx,
    const GstClMotionSearchParams * params, GError ** error)
{
  GstClMotionSearchParams resolved;
  GstClMotionSearch *ms;

  gst_cl_video_register_kernels ();

  g_return_val_if_fail (GST_IS_CL_CONTEXT (ctx), NULL);
  g_return_val_if_fail (params != NULL, NULL);
  resolved = *params;
  resolved.method = gst_cl_motion_method_resolve (params->method);
  params = &resolved;

  if (params->block_size != 16 && params->block_size != 8) {
    g_set_error (error, GST_CL_ERROR, GST_CL_ERROR_CALL,
        "Motion search block size %u is not supported (16 or 8)",
        params->block_size);
    return NULL;
  }
  if (params->search_range < 1 ||
      params->search_range > GST_CL_MOTION_SEARCH_MAX_RANGE) {
    g_set_error (error, GST_CL_ERROR, GST_CL_ERROR_CALL,
        "Motion search range %u is out of range (1 to %u)",
        params->search_range, GST_CL_MOTION_SEARCH_MAX_RANGE);
    return NULL;
  }
  if (params->lambda != 0) {
    g_set_error (error, GST_CL_ERROR, GST_CL_ERROR_CALL,
        "Rate-constrained motion search (lambda %u) is not available",
        params->lambda);
    return NULL;
  }
  if (!(params->chroma_weight >= 0.0 &&
          params->chroma_weight <= MAX_CHROMA_WEIGHT)) {
    g_set_error (error, GST_CL_ERROR, GST_CL_ERROR_CALL,
        "Motion search chroma weight %g is out of range (0 to %g)",
        params->chroma_weight, MAX_CHROMA_WEIGHT);
    return NULL;
  }
  if (params->method != GST_CL_MOTION_METHOD_FULL &&
      params->method != GST_CL_MOTION_METHOD_HIERARCHICAL) {
    g_set_error (error, GST_CL_ERROR, GST_CL_ERROR_CALL,
        "Unknown motion search method %d", params->method);
    return NULL;
  }
  if (params->method == GST_CL_MOTION_METHOD_HIERARCHICAL &&
      params->chroma_weight > 0.0) {
    g_set_error (error, GST_CL_ERROR, GST_CL_ERROR_CALL,
        "The hierarchical motion search is luma only (chroma weight %g)",
        params->chroma_weight);
    return NULL;
  }

  ms = g_new0 (GstClMotionSearch, 1);
  ms->ctx = gst_object_ref (ctx);
  ms->params = *params;
  ms->effort = GST_CL_MOTION_EFFORT_MEDIUM;
  ms->weight_q = (guint) lround (params->chroma_weight * WEIGHT_ONE);
  ms->kernels = g_hash_table_new_full (g_str_hash, g_str_equal, g_free,
      gst_cl_video_release_kernel);

  if (!ctx->cpu_layout) {
    guint span = 2 * params->search_range, bs = params->block_size;
    guint k = MIN (TILE_K, span), ndy = (span + k - 1) / k;
    guint rows = ndy * k + bs - 1, words = (span + bs - 1 + 3) / 4;
    guint64 local = (guint64) rows * (4 * words + 4) +
        (guint64) 4 * rows * words * 4 + bs * bs + TILE_MAX_NT * 8;
    guint nt = TILE_MIN_NT;

    while (nt < TILE_MAX_NT && nt < span * ndy)
      nt *= 2;
    ms->tile_k = k;
    ms->tile_nt = nt;
    /* the widest windows do not fit: the per-block kernel takes them */
    ms->use_tiles = local <= ctx->local_mem_size &&
        nt <= ctx->max_work_group_size;
    ms->sad_ptx = ctx->platform_name &&
        g_strstr_len (ctx->platform_name, -1, "NVIDIA") != NULL;
    ms->warp_ptx = ms->sad_ptx;
    ms->int64_atomics = gst_cl_context_has_extension (ctx,
        "cl_khr_int64_extended_atomics");
  }
  return ms;
}

void
gst_cl_motion_search_free (GstClMotionSearch * ms)
{
  if (!ms)
    return;
  g_hash_table_destroy (ms->kernels);
  if (ms->pyramid)
    clReleaseMemObject (ms->pyramid);
  if (ms->steps[0])
    clReleaseMemObject (ms->steps[0]);
  if (ms->steps[1])
    clReleaseMemObject (ms->steps[1]);
  if (ms->history)
    clReleaseMemObject (ms->history);
  if (ms->global_motion)
    clReleaseMemObject (ms->global_motion);
  gst_object_unref (ms->ctx);
  g_free (ms);
}

const GstClMotionSearchParams *
gst_cl_motion_search_get_params (const GstClMotionSearch * ms)
{
  return &ms->params;
}

void
gst_cl_motion_search_grid (const GstClMotionSearch * ms, guint width,
    guint height, guint * blocks_x, guint * blocks_y)
{
  guint bs = ms->params.block_size;

  *blocks_x = (width + bs - 1) / bs;
  *blocks_y = (height + bs - 1) / bs;
}

/* @name built with @options, from the cache or built now */
static cl_kernel
lookup_kernel (GstClMotionSearch * ms, const gchar * name,
    const gchar * options, GError ** error)
{
  gchar *key = g_strconcat (name, " ", options, NULL);
  cl_kernel kernel = g_hash_table_lookup (ms->kernels, key);

  if (!kernel) {
    kernel = gst_cl_context_create_kernel (ms->ctx, "motionsearch", options,
        name, error);
    if (kernel)
      g_hash_table_insert (ms->kernels, g_strdup (key), kernel);
  }
  g_free (key);
  return kernel;
}

static cl_kernel
get_kernel (GstClMotionSearch * ms, const gchar * name,
    const gchar * extra_options, GError ** error)
{
  gchar *options;
  cl_kernel kernel;

  if (ms->use_tiles)
    options = g_strdup_printf ("-DBS=%u -DRANGE=%u -DSUBPEL=%d -DTILES=1 "
        "-DNT=%u -DK=%u -DSAD_PTX=%d %s", ms->params.block_size,
        ms->params.search_range, ms->params.subpel ? 1 : 0, ms->tile_nt,
        ms->tile_k, ms->sad_ptx ? 1 : 0,
        extra_options ? extra_options : "-DCHROMA=0");
  else
    options = g_strdup_printf ("-DBS=%u -DRANGE=%u -DSUBPEL=%d -DSATD=%d %s",
        ms->params.block_size, ms->params.search_range,
        ms->params.subpel ? 1 : 0, satd_option (ms),
        extra_options ? extra_options : "-DCHROMA=0");
  kernel = lookup_kernel (ms, name, options, error);
  g_free (options);
  return kernel;
}

/* The GPU kernels; the NVIDIA instruction may be refused by a driver,
 * then the portable form serves. */
static cl_kernel
get_tile_kernel (GstClMotionSearch * ms, const gchar * name,
    gboolean partial, GError ** error)
{
  const gchar *options = partial ? "-DCHROMA=0 -DPARTIAL=1" : NULL;
  cl_kernel kernel;
  GError *ptx_error = NULL;

  if (!ms->sad_ptx)
    return get_kernel (ms, name, options, error);
  kernel = get_kernel (ms, name, options, &ptx_error);
  if (kernel)
    return kernel;
  GST_WARNING ("motion search without vabsdiff4: %s", ptx_error->message);
  g_clear_error (&ptx_error);
  ms->sad_ptx = FALSE;
  return get_kernel (ms, name, options, error);
}

static void
kernel_plane (const GstClPlane * p, GstClKernelPlane * k)
{
  k->offset = (guint32) p->offset;
  k->stride = p->stride;
}

/* The arguments of a launch over @cur and @ref (the picture's size that
 * of @cur), the other members zero */
static void
search_args (const GstClPlane * cur, const GstClPlane * ref,
    GstClMotionSearchArgs * args)
{
  memset (args, 0, sizeof (*args));
  kernel_plane (cur, &args->cur);
  kernel_plane (ref, &args->ref);
  args->width = cur->width;
  args->height = cur->height;
}

/* search_args for the blocks [first_x, first_x + n_x) x [first_y,
 * first_y + n_y) */
static void
block_range_args (const GstClPlane * cur, const GstClPlane * ref,
    guint first_x, guint first_y, guint n_x, guint n_y,
    GstClMotionSearchArgs * args)
{
  search_args (cur, ref, args);
  args->first_bx = first_x;
  args->first_by = first_y;
  args->end_bx = first_x + n_x;
  args->end_by = first_y + n_y;
}

/* Sets the arguments of a kernel that takes buffers @mems, then @args. */
static gboolean
set_args (cl_kernel kernel, const cl_mem * mems, guint n_mems,
    const GstClMotionSearchArgs * args, GError ** error)
{
  return gst_cl_video_set_kernel_args (kernel, mems, n_mems, args,
      sizeof (*args), error);
}

static gboolean
plane_ok (const GstClPlane * p, const gchar * what, GError ** error)
{
  /* the kernels index with 32-bit ints */
  if ((guint64) p->offset + (guint64) p->stride * p->height <= G_MAXINT32)
    return TRUE;
  g_set_error (error, GST_CL_ERROR, GST_CL_ERROR_CALL,
      "The %s plane of the motion search lies beyond 2 GiB of its buffer",
      what);
  return FALSE;
}

static gboolean run_blocks (GstClMotionSearch * ms, const GstClPlane * cur,
    const GstClPlane * ref, const GstClPlane * cur_chroma,
    const GstClPlane * ref_chroma, guint first_x, guint first_y, guint n_x,
    guint n_y, cl_mem vectors, GError ** error);
static gboolean run_tiles (GstClMotionSearch * ms, const GstClPlane * cur,
    const GstClPlane * ref, gboolean partial, guint first_x, guint first_y,
    guint n_x, guint n_y, cl_mem vectors, GError ** error);

static gboolean run_hierarchical (GstClMotionSearch * ms,
    const GstClPlane * cur, const GstClPlane * ref, gboolean last_levels,
    cl_mem vectors, GError ** error);

static gboolean
run (GstClMotionSearch * ms, const GstClPlane * cur, const GstClPlane * ref,
    const GstClPlane * cur_chroma, const GstClPlane * ref_chroma,
    cl_mem vectors, GError ** error)
{
  guint width = cur->width, height = cur->height, bx, by;
  gboolean last_levels;

  g_return_val_if_fail (cur->pixel_stride == 1 && ref->pixel_stride == 1,
      FALSE);
  g_return_val_if_fail (ref->width >= cur->width &&
      ref->height >= cur->height, FALSE);
  if (!plane_ok (cur, "current", error) || !plane_ok (ref, "reference",
          error))
    return FALSE;

  if (cur_chroma) {
    guint i;

    for (i = 0; i < 2; i++) {
      g_return_val_if_fail (cur_chroma[i].mem == cur_chroma[0].mem, FALSE);
      g_return_val_if_fail (ref_chroma[i].mem == ref_chroma[0].mem, FALSE);
      g_return_val_if_fail (cur_chroma[i].pixel_stride ==
          cur_chroma[0].pixel_stride, FALSE);
      g_return_val_if_fail (ref_chroma[i].pixel_stride ==
          cur_chroma[0].pixel_stride, FALSE);
      g_return_val_if_fail (ref_chroma[i].width >= cur_chroma[0].width &&
          ref_chroma[i].height >= cur_chroma[0].height, FALSE);
      if (!plane_ok (&cur_chroma[i], "current chroma", error) ||
          !plane_ok (&ref_chroma[i], "reference chroma", error))
        return FALSE;
    }
  }

  gst_cl_motion_search_grid (ms, width, height, &bx, &by);
  last_levels = ms->reference_is_last;
  ms->reference_is_last = FALSE;
  if (ms->params.method == GST_CL_MOTION_METHOD_HIERARCHICAL)
    return run_hierarchical (ms, cur, ref, last_levels, vectors, error);
  ms->pyr_last_kept = FALSE;
  if (ms->use_tiles && !cur_chroma) {
    guint fx = width / ms->params.block_size;
    guint fy = height / ms->params.block_size;

    /* whole blocks, then the partial ones at the right and bottom edges
     * by the masking variant */
    if (fx > 0 && fy > 0 && !run_tiles (ms, cur, ref, FALSE, 0, 0, fx, fy,
            vectors, error))
      return FALSE;
    if (fx < bx && !run_tiles (ms, cur, ref, TRUE, fx, 0, bx - fx, by,
            vectors, error))
      return FALSE;
    if (fy < by && fx > 0 && !run_tiles (ms, cur, ref, TRUE, 0, fy, fx,
            by - fy, vectors, error))
      return FALSE;
    return TRUE;
  }
  return run_blocks (ms, cur, ref, cur_chroma, ref_chroma, 0, 0, bx, by,
      vectors, error);
}

/* motion_search_blocks over blocks [first_x, first_x + n_x) x [first_y,
 * first_y + n_y) */
static gboolean
run_blocks (GstClMotionSearch * ms, const GstClPlane * cur,
    const GstClPlane * ref, const GstClPlane * cur_chroma,
    const GstClPlane * ref_chroma, guint first_x, guint first_y, guint n_x,
    guint n_y, cl_mem vectors, GError ** error)
{
  cl_kernel kernel;
  gchar *chroma_options = NULL;
  GstClMotionSearchArgs args;
  /* without chroma, the chroma buffers are unused: any valid one */
  cl_mem mems[5] = { cur->mem, ref->mem, cur->mem, ref->mem, vectors };
  size_t global[2], local[2];
  guint i;

  if (cur_chroma)
    chroma_options = g_strdup_printf ("-DCHROMA=1 -DCSX=%u -DCSY=%u -DCPS=%u "
        "-DWQ=%u", cur_chroma[0].width < cur->width ? 1 : 0,
        cur_chroma[0].height < cur->height ? 1 : 0,
        cur_chroma[0].pixel_stride, ms->weight_q);
  kernel = get_kernel (ms, "motion_search_blocks", chroma_options, error);
  g_free (chroma_options);
  if (!kernel)
    return FALSE;

  search_args (cur, ref, &args);
  args.first_bx = first_x;
  args.first_by = first_y;
  if (cur_chroma) {
    mems[2] = cur_chroma[0].mem;
    mems[3] = ref_chroma[0].mem;
    for (i = 0; i < 2; i++) {
      kernel_plane (&cur_chroma[i], &args.cur_chroma[i]);
      kernel_plane (&ref_chroma[i], &args.ref_chroma[i]);
    }
  }
  if (!set_args (kernel, mems, G_N_ELEMENTS (mems), &args, error))
    return FALSE;

  global[0] = n_x;
  global[1] = n_y;
  /* one work-item per work-group on CPUs: a block is already SIMD-wide
   * work, and a wider group invites the compiler to vectorise across
   * work-items, which turns the row loads into gathers */
  local[0] = local[1] = 1;
  return gst_cl_context_enqueue_kernel (ms->ctx, kernel,
      GST_CL_MOTION_SEARCH_LABEL, 2, global,
      ms->ctx->cpu_layout ? local : NULL, error);
}

/* @name built with @options; where they ask for NVIDIA's warp
 * instructions (@warp) and the driver refuses them, NULL and a warning,
 * and ms->warp_ptx cleared: the caller asks again without them */
static cl_kernel
lookup_warp_kernel (GstClMotionSearch * ms, const gchar * name,
    const gchar * options, gboolean warp, GError ** error)
{
  GError *ptx_error = NULL;
  cl_kernel kernel = lookup_kernel (ms, name, options, warp ? &ptx_error :
      error);

  if (!kernel && ptx_error) {
    GST_WARNING ("motion search without NVIDIA's warp instructions: %s",
        ptx_error->message);
    g_clear_error (&ptx_error);
    ms->warp_ptx = FALSE;
  }
  return kernel;
}

/* blocks a work-group of a kernel of WARP_ITEMS a block on GPUs: one, or
 * LEVEL_WARP_BLOCKS, a warp each, where a warp's work-items exchange
 * values in registers */
static guint
warp_group_blocks (GstClMotionSearch * ms)
{
  return ms->warp_ptx && LEVEL_WARP_BLOCKS * WARP_ITEMS <=
      ms->ctx->max_work_group_size ? LEVEL_WARP_BLOCKS : 1;
}

/* GPUs, the full search: the half-pel refinement of the full-pel
 * @vectors of blocks [first_x, first_x + n_x) x [first_y, first_y + n_y),
 * REFINE_ITEMS work-items per block, no vector priced (the hierarchical
 * search refines in its last pass) */
static gboolean
refine_groups (GstClMotionSearch * ms, const GstClPlane * cur,
    const GstClPlane * ref, guint first_x, guint first_y, guint n_x,
    guint n_y, cl_mem vectors, GError ** error)
{
  gboolean warp = ms->warp_ptx;
  guint group_blocks = warp_group_blocks (ms);
  gchar *options = g_strdup_printf ("-DBS=%u -DREFINE_ITEMS=%u -DSATD=%d "
      "-DWARP_PTX=%d -DGROUP_BLOCKS=%u", ms->params.block_size,
      REFINE_ITEMS, satd_option (ms), warp ? 1 : 0, group_blocks);
  cl_kernel kernel = lookup_warp_kernel (ms, "motion_refine_groups",
      options, warp, error);
  GstClMotionSearchArgs args;
  const cl_mem mems[3] = { cur->mem, ref->mem, vectors };
  size_t global[2], local[2] = { REFINE_ITEMS * group_blocks, 1 };

  g_free (options);
  if (!kernel && warp)
    return refine_groups (ms, cur, ref, first_x, first_y, n_x, n_y, vectors,
        error);
  if (!kernel)
    return FALSE;
  /* (vector_price zero) */
  block_range_args (cur, ref, first_x, first_y, n_x, n_y, &args);
  if (!set_args (kernel, mems, G_N_ELEMENTS (mems), &args, error))
    return FALSE;
  global[0] = (size_t) (n_x + group_blocks - 1) / group_blocks * local[0];
  global[1] = n_y;
  return gst_cl_context_enqueue_kernel (ms->ctx, kernel,
      GST_CL_MOTION_SEARCH_REFINE_LABEL, 2, global, local, error);
}

/* motion_search_tiles over blocks [first_x, first_x + n_x) x [first_y,
 * first_y + n_y), then their refinement */
static gboolean
run_tiles (GstClMotionSearch * ms, const GstClPlane * cur,
    const GstClPlane * ref, gboolean partial, guint first_x, guint first_y,
    guint n_x, guint n_y, cl_mem vectors, GError ** error)
{
  cl_kernel kernel;
  GstClMotionSearchArgs args;
  const cl_mem mems[3] = { cur->mem, ref->mem, vectors };
  size_t global[2], local[2];

  block_range_args (cur, ref, first_x, first_y, n_x, n_y, &args);
  kernel = get_tile_kernel (ms, "motion_search_tiles", partial, error);
  if (!kernel || !set_args (kernel, mems, G_N_ELEMENTS (mems), &args, error))
    return FALSE;
  global[0] = (size_t) n_x * ms->tile_nt;
  global[1] = n_y;
  local[0] = ms->tile_nt;
  local[1] = 1;
  if (!gst_cl_context_enqueue_kernel (ms->ctx, kernel,
          GST_CL_MOTION_SEARCH_LABEL, 2, global, local, error))
    return FALSE;
  return !ms->params.subpel || refine_groups (ms, cur, ref, first_x,
      first_y, n_x, n_y, vectors, error);
}

/* ---- hierarchical search ---- */

/* The decimated plane of a picture at @level (1 or 2), rows packed. */
static void
level_plane (GstClMotionSearch * ms, guint level, gboolean reference,
    GstClPlane * p)
{
  guint w = ms->pyr_width, h = ms->pyr_height;
  gsize l1 = (gsize) ((w + 1) / 2) * ((h + 1) / 2);
  gsize l2 = (gsize) ((w + 3) / 4) * ((h + 3) / 4);

  p->mem = ms->pyramid;
  p->offset = ((reference ? 1 - ms->pyr_current : ms->pyr_current) ?
      l1 + l2 : 0) + (level == 2 ? l1 : 0);
  p->width = p->stride = (w + (1 << level) - 1) >> level;
  p->height = (h + (1 << level) - 1) >> level;
  p->pixel_stride = 1;
}

/* bytes of ms->global_motion for pictures of @width x @height: the
 * result, a key along each axis, then two column and two row profiles of
 * the level-2 pictures */
static gsize
global_motion_size (guint width, guint height)
{
  return GST_CL_MOTION_GLOBAL_VALUES ((width + 3) / 4,
      (height + 3) / 4) * sizeof (cl_int);
}

/* the shifts motion_global_shifts weighs along a profile of @n values */
static guint
global_shifts (guint n)
{
  return 2 * GST_CL_MOTION_GLOBAL_REACH (n) + 1;
}

/* The buffers for pictures of @width x @height, kept while the size
 * stays: the decimated pictures, and vectors of the areas and blocks
 * between the steps. */
static gboolean
ensure_pyramid (GstClMotionSearch * ms, guint width, guint height,
    GError ** error)
{
  gsize l1 = (gsize) ((width + 1) / 2) * ((height + 1) / 2);
  gsize l2 = (gsize) ((width + 3) / 4) * ((height + 3) / 4);
  guint bx, by, i;
  gsize sizes[5];
  cl_mem *mems[5] = { &ms->pyramid, &ms->steps[0], &ms->steps[1],
    &ms->history, &ms->global_motion
  };
  cl_int ret = CL_SUCCESS;

  if (ms->pyramid && ms->pyr_width == width && ms->pyr_height == height)
    return TRUE;
  gst_cl_motion_search_grid (ms, width, height, &bx, &by);
  /* and 16 bytes after the last plane: the CPU search at level 2 reads
   * whole 16-byte rows past a block's last allowed displacement */
  sizes[0] = 2 * (l1 + l2) + 16;
  /* the blocks' grid is the finer one (8x8 blocks) or the same */
  sizes[1] = sizes[2] = sizes[3] = (gsize) bx * by *
      sizeof (GstClMotionVector);
  sizes[4] = global_motion_size (width, height);
  ms->history_valid = FALSE;
  ms->pyr_last_kept = FALSE;
  for (i = 0; i < G_N_ELEMENTS (mems); i++) {
    if (*mems[i])
      clReleaseMemObject (*mems[i]);
    *mems[i] = NULL;
  }
  for (i = 0; i < G_N_ELEMENTS (mems) && ret == CL_SUCCESS; i++)
    *mems[i] = clCreateBuffer (ms->ctx->context, CL_MEM_READ_WRITE,
        sizes[i], NULL, &ret);
  if (!gst_cl_check (ret, "clCreateBuffer", error)) {
    for (i = 0; i < G_N_ELEMENTS (mems); i++) {
      if (*mems[i])
        clReleaseMemObject (*mems[i]);
      *mems[i] = NULL;
    }
    return FALSE;
  }
  ms->pyr_width = width;
  ms->pyr_height = height;
  return TRUE;
}

/* the grid of @level: 16x16 areas above full resolution */
static guint
level_block (GstClMotionSearch * ms, guint level)
{
  return level > 0 ? HIER_AREA : ms->params.block_size;
}

/* work-items per block of @level's kernel on GPUs */
static guint
level_work_items (GstClMotionSearch * ms, guint level)
{
  if (level == HIER_TOP && !ms->warp_ptx &&
      LEVEL_TOP_NT <= ms->ctx->max_work_group_size)
    return LEVEL_TOP_NT;
  return LEVEL_NT;
}

/* blocks a work-group of @level's kernel on GPUs: one, or a warp each
 * where the warp's work-items reduce in registers */
static guint
level_group_blocks (GstClMotionSearch * ms, guint level)
{
  return level_work_items (ms, level) == WARP_ITEMS ?
      warp_group_blocks (ms) : 1;
}

/* At full resolution, by effort: the most squares of pass 1, and the
 * neighbours that passes 2 and 3 take vectors from */
static const guint effort_squares[] = { 1, 3, 6 };
static const guint effort_neighbours[] = { 0, 4, 4 };

/* @name from the program of @level and @pass (1, or 2: the propagation
 * at full resolution, with the half-pel refinement, or 3: the propagation
 * before it at GST_CL_MOTION_EFFORT_HIGH); motion_decimate comes from
 * level 2's */
static cl_kernel
level_kernel (GstClMotionSearch * ms, const gchar * name, guint level,
    guint pass, GError ** error)
{
  guint nt = ms->ctx->cpu_layout ? 0 : level_work_items (ms, level);
  gchar *options, *hnt;
  gboolean refine, warp;
  cl_kernel kernel;

  if (!nt)
    hnt = g_strdup_printf (" -DBPW=%u", LEVEL_CPU_RUN);
  else if (ms->warp_ptx)
    hnt = g_strdup_printf (" -DHNT=%u -DSAD_PTX=1 -DWARP_PTX=1 "
        "-DGROUP_BLOCKS=%u", nt, level_group_blocks (ms, level));
  else
    hnt = g_strdup_printf (" -DHNT=%u", nt);
  /* the range is an argument, and the coarse levels do not depend on the
   * block size or half-pel refinement: few programs serve all searches */
  refine = pass == 2 && ms->params.subpel;
  /* the last pass ranks its candidates by SATD in both layouts where the
   * refinement ranks by it */
  options = g_strdup_printf ("-DBS=%u -DSUBPEL=%d -DSATD=%d -DCHROMA=0 "
      "-DLEVEL=%u -DPASS=%u -DLBS=%u -DSQUARES=%u -DNEIGHBOURS=%u%s",
      level_block (ms, level), refine ? 1 : 0,
      pass == 2 ? satd_option (ms) : 0, level,
      level > 0 ? 1 : pass, level_block (ms, level) >> level,
      level > 0 ? 1 : effort_squares[ms->effort],
      level > 0 ? 0 : effort_neighbours[ms->effort], hnt);
  warp = nt && ms->warp_ptx;
  kernel = lookup_warp_kernel (ms, name, options, warp, error);
  g_free (options);
  g_free (hnt);
  /* where the driver refused the instructions, the portable forms serve */
  if (!kernel && warp)
    return level_kernel (ms, name, level, pass, error);
  return kernel;
}

static gboolean
decimate (GstClMotionSearch * ms, const GstClPlane * src, gboolean reference,
    GError ** error)
{
  cl_kernel kernel = level_kernel (ms, "motion_decimate", HIER_TOP, 1,
      error);
  GstClPlane l1, l2;
  GstClMotionDecimateArgs args;
  /* the reference may be larger (padded): the picture's size counts */
  guint width = ms->pyr_width, height = ms->pyr_height;
  size_t global[2];
  guint arg = 0;

  if (!kernel)
    return FALSE;
  level_plane (ms, 1, reference, &l1);
  level_plane (ms, 2, reference, &l2);
  kernel_plane (src, &args.src);
  args.width = width;
  args.height = height;
  args.l1_offset = (guint32) l1.offset;
  args.l2_offset = (guint32) l2.offset;
  if (!gst_cl_kernel_set_arg (kernel, &arg, sizeof (cl_mem), &src->mem, error)
      || !gst_cl_kernel_set_arg (kernel, &arg, sizeof (cl_mem), &ms->pyramid,
          error) || !gst_cl_kernel_set_arg (kernel, &arg, sizeof (cl_mem),
          &ms->global_motion, error) || !gst_cl_kernel_set_arg (kernel, &arg,
          sizeof (args), &args, error))
    return FALSE;
  global[0] = (width + 3) / 4;
  if (ms->ctx->cpu_layout)
    global[0] = (global[0] + DECIMATE_CPU_RUN - 1) / DECIMATE_CPU_RUN;
  global[1] = (height + 3) / 4;
  return gst_cl_context_enqueue_kernel (ms->ctx, kernel,
      GST_CL_MOTION_SEARCH_LABEL, 2, global, NULL, error);
}

/* One step: @in holds the previous step's vectors, @out gets this
 * one's. */
static gboolean
search_level (GstClMotionSearch * ms, guint level, guint pass,
    const GstClPlane * cur, const GstClPlane * ref, cl_mem in, cl_mem out,
    GError ** error)
{
  cl_kernel kernel = level_kernel (ms, "motion_search_level", level, pass,
      error);
  guint nt = ms->ctx->cpu_layout ? 1 : level_work_items (ms, level);
  guint bs = level_block (ms, level), gx, group_blocks;
  guint width = ms->pyr_width, height = ms->pyr_height;
  GstClMotionSearchArgs args;
  const cl_mem mems[6] = { cur->mem, ref->mem, in, out, ms->history,
    ms->global_motion
  };
  size_t global[2], local[2];

  if (!kernel)
    return FALSE;
  /* the planes may be decimated: the picture's size counts */
  search_args (cur, ref, &args);
  args.width = width;
  args.height = height;
  args.range = ms->params.search_range;
  args.history_block = ms->history_valid ? ms->params.block_size : 0;
  args.vector_price = ms->vector_price;
  if (!set_args (kernel, mems, G_N_ELEMENTS (mems), &args, error))
    return FALSE;
  /* CPUs: one work-item per group, as in run_blocks, for a run of blocks */
  gx = (width + bs - 1) / bs;
  group_blocks = ms->ctx->cpu_layout ? LEVEL_CPU_RUN :
      level_group_blocks (ms, level);
  gx = (gx + group_blocks - 1) / group_blocks;
  if (!ms->ctx->cpu_layout)
    nt *= group_blocks;
  global[0] = (size_t) gx * nt;
  global[1] = (height + bs - 1) / bs;
  local[0] = nt;
  local[1] = 1;
  return gst_cl_context_enqueue_kernel (ms->ctx, kernel,
      GST_CL_MOTION_SEARCH_LABEL, 2, global, local, error);
}

/* The global motion between the level-2 pictures @cur and @ref, into
 * the first two keys of ms->global_motion (which motion_decimate set
 * up): their profiles summed by tiles, then each shift of them weighed,
 * by a work-group each where the device keeps the least key as they come
 * (GPUs with 64-bit atomics), else by a work-item each of one work-group */
static gboolean
global_motion (GstClMotionSearch * ms, const GstClPlane * cur,
    const GstClPlane * ref, GError ** error)
{
  gboolean by_groups = !ms->ctx->cpu_layout && ms->int64_atomics;
  cl_kernel profiles = level_kernel (ms, "motion_global_profiles", HIER_TOP,
      1, error);
  cl_kernel weigh = profiles ? level_kernel (ms, by_groups ?
      "motion_global_shifts" : "motion_global_motion", HIER_TOP, 1,
      error) : NULL;
  GstClMotionSearchArgs args;
  const cl_mem mems[3] = { cur->mem, ref->mem, ms->global_motion };
  size_t global[2], local;
  const size_t tile[2] = { 16, 16 };

  if (!weigh)
    return FALSE;
  search_args (cur, ref, &args);
  args.width = ms->pyr_width;
  args.height = ms->pyr_height;
  /* tiles of 16 x 16 level-2 samples: a work-item each (CPUs), a
   * work-group (GPUs) */
  global[0] = (cur->width + 15) / 16;
  global[1] = (cur->height + 15) / 16;
  if (!ms->ctx->cpu_layout) {
    global[0] *= 16;
    global[1] *= 16;
  }
  if (!set_args (profiles, mems, G_N_ELEMENTS (mems), &args, error) ||
      !gst_cl_context_enqueue_kernel (ms->ctx, profiles,
          GST_CL_MOTION_SEARCH_LABEL, 2, global, ms->ctx->cpu_layout ? NULL :
          tile, error) ||
      !set_args (weigh, &ms->global_motion, 1, &args, error))
    return FALSE;
  if (by_groups) {
    local = GST_CL_MOTION_GLOBAL_SHIFT_ITEMS;
    global[0] = local * (global_shifts (cur->width) +
        global_shifts (cur->height));
  } else
    global[0] = local = GST_CL_MOTION_GLOBAL_SHIFTS;
  return gst_cl_context_enqueue_kernel (ms->ctx, weigh,
      GST_CL_MOTION_SEARCH_LABEL, 1, global, &local, error);
}

void
gst_cl_motion_search_set_effort (GstClMotionSearch * ms,
    GstClMotionEffort effort)
{
  g_return_if_fail (ms != NULL);
  g_return_if_fail (effort <= GST_CL_MOTION_EFFORT_HIGH);
  ms->effort = effort;
}

void
gst_cl_motion_search_set_subpel_satd (GstClMotionSearch * ms,
    gboolean satd)
{
  g_return_if_fail (ms != NULL);
  ms->subpel_satd = satd;
}

void
gst_cl_motion_search_set_vector_price (GstClMotionSearch * ms, guint price)
{
  g_return_if_fail (ms != NULL);
  g_return_if_fail (price <= GST_CL_MOTION_VECTOR_PRICE_MAX);
  ms->vector_price = price;
}

void
gst_cl_motion_search_forget (GstClMotionSearch * ms)
{
  g_return_if_fail (ms != NULL);
  ms->history_valid = FALSE;
  ms->pyr_last_kept = FALSE;
}

void
gst_cl_motion_search_set_reference_is_last (GstClMotionSearch * ms,
    gboolean is_last)
{
  g_return_if_fail (ms != NULL);
  ms->reference_is_last = is_last;
}

/* The passes at full resolution, from the level-1 vectors in
 * ms->steps[1]: the first, the propagation (two at
 * GST_CL_MOTION_EFFORT_HIGH) with the half-pel refinement; into @vectors
 * and the history. */
static gboolean
run_full_resolution (GstClMotionSearch * ms, const GstClPlane * cur,
    const GstClPlane * ref, cl_mem vectors, GError ** error)
{
  if (!search_level (ms, 0, 1, cur, ref, ms->steps[1], ms->steps[0], error))
    return FALSE;
  /* a second propagation reaches two blocks */
  if (ms->effort == GST_CL_MOTION_EFFORT_HIGH) {
    if (!search_level (ms, 0, 3, cur, ref, ms->steps[0], ms->steps[1],
            error) || !search_level (ms, 0, 2, cur, ref, ms->steps[1],
            vectors, error))
      return FALSE;
  } else if (!search_level (ms, 0, 2, cur, ref, ms->steps[0], vectors,
          error))
    return FALSE;
  ms->history_valid = TRUE;
  return TRUE;
}

/* Decimates both pictures, finds their global motion, then level 2,
 * level 1, and the passes at full resolution, each step's vectors in the
 * buffer the next reads. */
static gboolean
run_hierarchical (GstClMotionSearch * ms, const GstClPlane * cur,
    const GstClPlane * ref, gboolean last_levels, cl_mem vectors,
    GError ** error)
{
  GstClPlane c1, r1, c2, r2;

  /* (a new size: no levels kept) */
  if (!ensure_pyramid (ms, cur->width, cur->height, error))
    return FALSE;
  last_levels = last_levels && ms->pyr_last_kept;
  /* kept again only once this search has made its own */
  ms->pyr_last_kept = FALSE;
  if (!decimate (ms, cur, FALSE, error) || (!last_levels &&
          !decimate (ms, ref, TRUE, error)))
    return FALSE;
  level_plane (ms, 1, FALSE, &c1);
  level_plane (ms, 1, TRUE, &r1);
  level_plane (ms, 2, FALSE, &c2);
  level_plane (ms, 2, TRUE, &r2);
  if (!global_motion (ms, &c2, &r2, error) ||
      !search_level (ms, 2, 1, &c2, &r2, ms->steps[1], ms->steps[0], error)
      || !search_level (ms, 1, 1, &c1, &r1, ms->steps[0], ms->steps[1],
          error) || !run_full_resolution (ms, cur, ref, vectors, error))
    return FALSE;
  /* this picture's levels are the next reference's where it is this one */
  ms->pyr_current = 1 - ms->pyr_current;
  ms->pyr_last_kept = TRUE;
  return TRUE;
}

gboolean
gst_cl_motion_search_run (GstClMotionSearch * ms, const GstClPlane * cur,
    const GstClPlane * ref, cl_mem vectors, GError ** error)
{
  g_return_val_if_fail (ms && cur && ref && vectors, FALSE);
  return run (ms, cur, ref, NULL, NULL, vectors, error);
}

gboolean
gst_cl_motion_search_run_with_chroma (GstClMotionSearch * ms,
    const GstClPlane * cur, const GstClPlane * ref,
    const GstClPlane * cur_chroma, const GstClPlane * ref_chroma,
    cl_mem vectors, GError ** error)
{
  g_return_val_if_fail (ms && cur && ref && vectors, FALSE);
  if (ms->params.chroma_weight <= 0.0 || !cur_chroma || !ref_chroma)
    return run (ms, cur, ref, NULL, NULL, vectors, error);
  return run (ms, cur, ref, cur_chroma, ref_chroma, vectors, error);
}

gboolean
gst_cl_motion_search_run_seeded (GstClMotionSearch * ms,
    const GstClPlane * cur, const GstClPlane * ref, cl_mem seed, gint num,
    gint den, gboolean whole, cl_mem vectors, GError ** error)
{
  cl_kernel kernel;
  guint bx, by, arg = 0;
  cl_uint n;
  size_t global;

  g_return_val_if_fail (ms && cur && ref && seed && vectors, FALSE);
  g_return_val_if_fail (den > 0, FALSE);
  g_return_val_if_fail (ms->params.method ==
      GST_CL_MOTION_METHOD_HIERARCHICAL && ms->params.block_size == 16,
      FALSE);
  g_return_val_if_fail (cur->pixel_stride == 1 && ref->pixel_stride == 1,
      FALSE);
  g_return_val_if_fail (ref->width >= cur->width &&
      ref->height >= cur->height, FALSE);
  if (!plane_ok (cur, "current", error) || !plane_ok (ref, "reference",
          error) || !ensure_pyramid (ms, cur->width, cur->height, error))
    return FALSE;
  kernel = level_kernel (ms, "motion_seed", 0, 1, error);
  if (!kernel)
    return FALSE;
  gst_cl_motion_search_grid (ms, cur->width, cur->height, &bx, &by);
  n = bx * by;
  if (!gst_cl_kernel_set_arg (kernel, &arg, sizeof (cl_mem), &seed, error) ||
      !gst_cl_kernel_set_arg (kernel, &arg, sizeof (cl_mem), &ms->history,
          error) || !gst_cl_kernel_set_arg (kernel, &arg, sizeof (cl_mem),
          &ms->steps[1], error) || !gst_cl_kernel_set_arg (kernel, &arg,
          sizeof (cl_int), &num, error) || !gst_cl_kernel_set_arg (kernel,
          &arg, sizeof (cl_int), &den, error) ||
      !gst_cl_kernel_set_arg (kernel, &arg, sizeof (cl_uint), &n, error))
    return FALSE;
  global = (n + 63) / 64 * 64;
  if (!gst_cl_context_enqueue_kernel (ms->ctx, kernel,
          GST_CL_MOTION_SEARCH_LABEL, 1, &global, NULL, error))
    return FALSE;
  ms->history_valid = TRUE;
  ms->reference_is_last = FALSE;
  if (whole)
    return run_hierarchical (ms, cur, ref, FALSE, vectors, error);
  /* (the current picture's levels are not made) */
  ms->pyr_last_kept = FALSE;
  return run_full_resolution (ms, cur, ref, vectors, error);
}
