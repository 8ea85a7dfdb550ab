/* gst-clvideo: rate-constrained motion search on the device
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * Host side of kernels/motionlambda.cl: kernels per layout, the SAD
 * surface of the GPU layout, and the bands of block rows it is filled and
 * walked in.
 */
#include "gstclvideokernels.h"
#include "gstclmotionlambda.h"
#include "gstclmotionsearchcompute.h"
#include "gstclvideotypes.h"
#include <gst/cl/gstclfilter.h>

#include <string.h>

#define MAX_LOCAL_SIZE 256
/* GPU layout: search area bytes kept in local memory per pass, at most */
#define MAX_AREA_BYTES 16384
/* GPU layout: SAD surface bytes, at most (larger pictures go in bands) */
#define MAX_SURFACE_BYTES (64u << 20)
/* GPU layout: persistent row groups per compute unit */
#define ROW_GROUPS_PER_CU 4

struct _GstClMotionLambda
{
  GstClContext *ctx;
  guint block, range, lambda;
  cl_kernel rows_cpu;           /* CPU layout */
  cl_kernel sads, rows;         /* GPU layout */
  guint local_size;
  cl_mem surface;
  gsize surface_size;
};

guint
gst_cl_motion_lambda_f_code (guint search_range)
{
  /* vectors reach -2 range half-pels; f_code n codes down to -16 2^(n-1) */
  guint n = search_range <= 8 ? 1 : g_bit_storage ((2 * search_range - 1)
      / 16) + 1;
  return MIN (n, 7);
}

GstClMotionLambda *
gst_cl_motion_lambda_new (GstClContext * ctx, guint block_size,
    guint search_range, guint lambda, GError ** error)
{
  GstClMotionLambda *ml;
  gchar *options;

  gst_cl_video_register_kernels ();

  if (block_size != 16 && block_size != 8) {
    g_set_error (error, GST_CL_ERROR, GST_CL_ERROR_CALL,
        "motion search: block size %u is not 8 or 16", block_size);
    return NULL;
  }
  if (search_range < 1 || search_range > GST_CL_MOTION_LAMBDA_MAX_RANGE ||
      lambda < 1 || lambda > GST_CL_MOTION_LAMBDA_MAX) {
    g_set_error (error, GST_CL_ERROR, GST_CL_ERROR_CALL,
        "motion search: range %u or lambda %u out of bounds (1..%u, 1..%u)",
        search_range, lambda, GST_CL_MOTION_LAMBDA_MAX_RANGE,
        GST_CL_MOTION_LAMBDA_MAX);
    return NULL;
  }

  ml = g_new0 (GstClMotionLambda, 1);
  ml->ctx = gst_object_ref (ctx);
  ml->block = block_size;
  ml->range = search_range;
  ml->lambda = lambda;

  if (ctx->cpu_layout) {
    options = g_strdup_printf ("-DB=%u -DR=%u", block_size, search_range);
    ml->rows_cpu = gst_cl_context_create_kernel (ctx, "motionlambda",
        options, "lambda_rows_cpu", error);
  } else {
    const guint span = 2 * search_range;
    const guint area_w = span + block_size - 1;
    guint64 area_max = MIN (MAX_AREA_BYTES, ctx->local_mem_size / 2);
    guint strip, ls = MAX_LOCAL_SIZE;

    while (ls > 1 && ls > ctx->max_work_group_size)
      ls /= 2;
    ml->local_size = ls;
    /* candidate rows per pass, so that their search area fits */
    strip = area_max / area_w > block_size ? area_max / area_w -
        (block_size - 1) : 1;
    strip = MIN (strip, span);
    options = g_strdup_printf ("-DB=%u -DR=%u -DLS=%u -DSTRIP=%u",
        block_size, search_range, ls, strip);
    ml->sads = gst_cl_context_create_kernel (ctx, "motionlambda", options,
        "lambda_sads", error);
    if (ml->sads)
      ml->rows = gst_cl_context_create_kernel (ctx, "motionlambda", options,
          "lambda_rows", error);
  }
  g_free (options);
  if (!ml->rows_cpu && !ml->rows) {
    gst_cl_motion_lambda_free (ml);
    return NULL;
  }
  return ml;
}

void
gst_cl_motion_lambda_free (GstClMotionLambda * ml)
{
  if (!ml)
    return;
  gst_cl_video_clear_kernels (&ml->rows_cpu, &ml->sads, &ml->rows, NULL);
  if (ml->surface)
    clReleaseMemObject (ml->surface);
  gst_object_unref (ml->ctx);
  g_free (ml);
}

gboolean
gst_cl_motion_lambda_matches (const GstClMotionLambda * ml, guint block_size,
    guint search_range, guint lambda)
{
  return ml->block == block_size && ml->range == search_range &&
      ml->lambda == lambda;
}

/* Sets @kernel's arguments: the buffers @mems, then @args. */
static gboolean
set_args (cl_kernel kernel, const cl_mem * mems, guint n_mems,
    const GstClMotionLambdaArgs * args, GError ** error)
{
  return gst_cl_video_set_kernel_args (kernel, mems, n_mems, args,
      sizeof (*args), error);
}

static gboolean
ensure_surface (GstClMotionLambda * ml, gsize size, GError ** error)
{
  cl_int ret;

  if (ml->surface && ml->surface_size >= size)
    return TRUE;
  if (ml->surface)
    clReleaseMemObject (ml->surface);
  ml->surface = clCreateBuffer (ml->ctx->context, CL_MEM_READ_WRITE, size,
      NULL, &ret);
  if (!gst_cl_check (ret, "clCreateBuffer", error)) {
    ml->surface = NULL;
    return FALSE;
  }
  ml->surface_size = size;
  return TRUE;
}

gboolean
gst_cl_motion_lambda_run (GstClMotionLambda * ml, const GstClPlane * cur,
    const GstClPlane * ref, cl_mem vectors, GError ** error)
{
  const guint width = cur->width, height = cur->height;
  const guint blocks_x = (width + ml->block - 1) / ml->block;
  const guint blocks_y = (height + ml->block - 1) / ml->block;
  const gsize block_bytes = (gsize) 4 * ml->range * ml->range *
      sizeof (cl_ushort);
  GstClMotionLambdaArgs args;
  guint band, first;

  g_return_val_if_fail (cur->pixel_stride == 1 && ref->pixel_stride == 1,
      FALSE);
  g_return_val_if_fail (ref->width >= cur->width &&
      ref->height >= cur->height, FALSE);

  memset (&args, 0, sizeof (args));
  args.cur.offset = (guint32) cur->offset;
  args.cur.stride = cur->stride;
  args.ref.offset = (guint32) ref->offset;
  args.ref.stride = ref->stride;
  args.width = width;
  args.height = height;
  args.blocks_x = blocks_x;
  args.lambda = ml->lambda;
  args.f_code = gst_cl_motion_lambda_f_code (ml->range);

  if (ml->rows_cpu) {
    const size_t global = blocks_y, local = 1;
    const cl_mem mems[3] = { cur->mem, ref->mem, vectors };
    return set_args (ml->rows_cpu, mems, G_N_ELEMENTS (mems), &args, error)
        && gst_cl_context_enqueue_kernel (ml->ctx, ml->rows_cpu,
        GST_CL_MOTION_LAMBDA_ROWS_LABEL, 1, &global, &local, error);
  }

  /* as many whole block rows as the surface may hold */
  band = MAX (1, MAX_SURFACE_BYTES / (block_bytes * blocks_x));
  band = MIN (band, blocks_y);
  if (!ensure_surface (ml, block_bytes * blocks_x * band, error))
    return FALSE;
  for (first = 0; first < blocks_y; first += band) {
    const cl_mem sads_mems[3] = { cur->mem, ref->mem, ml->surface };
    const cl_mem rows_mems[2] = { ml->surface, vectors };
    const guint rows = MIN (band, blocks_y - first);
    const size_t local = ml->local_size;
    const size_t sads_global = (size_t) rows * blocks_x * local;
    const size_t rows_global = MIN (rows, MAX (ml->ctx->compute_units, 1) *
        ROW_GROUPS_PER_CU) * local;

    args.first_block = first * blocks_x;
    args.first_row = first;
    args.rows = rows;
    if (!set_args (ml->sads, sads_mems, G_N_ELEMENTS (sads_mems), &args,
            error) ||
        !gst_cl_context_enqueue_kernel (ml->ctx, ml->sads,
            GST_CL_MOTION_LAMBDA_SADS_LABEL, 1, &sads_global, &local, error)
        || !set_args (ml->rows, rows_mems, G_N_ELEMENTS (rows_mems), &args,
            error) ||
        !gst_cl_context_enqueue_kernel (ml->ctx, ml->rows,
            GST_CL_MOTION_LAMBDA_ROWS_LABEL, 1, &rows_global, &local, error))
      return FALSE;
  }
  return TRUE;
}
