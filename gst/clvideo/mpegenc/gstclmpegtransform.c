/* gst-clvideo: the MPEG-1 encoder's device stages
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "gstclvideokernels.h"
#include "gstclmpegtransform.h"
#include "gstclmpegheaders.h"
#include <gst/cl/gstclfilter.h>

/* Work-items of a group where each takes a macroblock: 64 on GPUs; one
 * on CPUs, where POCL's code for a larger group runs each stretch of the
 * kernel for all its items in turn, each item's private arrays (a
 * macroblock's rows and levels) kept in memory between the stretches:
 * mpeg_encode_mb_cpu took 10 to 16% more CPU time in groups of 64 than
 * of one (1080p driving, with and without B pictures) */
#define ITEM_GROUP_GPU 64
#define ITEM_GROUP_CPU 1
/* the macroblocks each work-item of mpeg_fit_vectors weighs: on GPUs in
 * work-groups of GST_CL_MPEG_FIT_ITEMS, on CPUs of
 * GST_CL_MPEG_FIT_ITEMS_CPU, one (as ITEM_GROUP_CPU: POCL took twice as
 * long over groups of 256, which sum their costs in local memory) */
#define FIT_PER_ITEM_GPU 4
#define FIT_PER_ITEM_CPU 64

struct _GstClMpegTransform
{
  GstClContext *ctx;
  guint width, height;
  guint mb_width, mb_height;
  cl_kernel load, encode, fit_vectors, follow_vectors, predict_b,
      field_search;
  cl_kernel choose_b_fields;
  cl_kernel pack_counts, pack_levels;  /* GPU layout */
  cl_kernel transform_mb, trellis;      /* GPU layout */
  cl_mem jobs;                  /* GPU layout: a GstClMpegTrellisJob per
                                 * macroblock */
  cl_mem rd_bits;               /* gst_cl_mpeg_rd_bits () */
  /* mpeg_fit_vectors' sums, an f_code each, and its count of work-groups
   * done, in two sets (GstClMpegFitArgs): the one zeroed for the next
   * picture, and whether a picture may have left it dirty (a call that
   * failed half-way) */
  cl_mem fit_totals;
  guint fit_next;
  gboolean fit_dirty;
  gboolean cpu_layout;          /* one work-item per macroblock */
  gboolean chroma_422;
};

/* The groups of kernels/mpegenc.cl (its MPEG_KERNELS), each a program of
 * its own: a driver compiles every kernel of a program, and a stream
 * without B pictures or interlace needs none of theirs */
#define KERNELS_CORE 1
#define KERNELS_B 2
#define KERNELS_FIELD 4

/* kernel @name of @group's program; the chroma format is the build's too */
static cl_kernel
create_kernel (GstClMpegTransform * tr, guint group, const gchar * name,
    GError ** error)
{
  gchar *opts = g_strdup_printf ("-DMPEG_KERNELS=%u%s", group,
      tr->chroma_422 ? " -DMPEG_CHROMA_422=1" : "");
  cl_kernel kernel = gst_cl_context_create_kernel (tr->ctx, "mpegenc", opts,
      name, error);

  g_free (opts);
  return kernel;
}

/* *@kernel, created where it is not yet */
static gboolean
ensure_kernel (GstClMpegTransform * tr, cl_kernel * kernel, guint group,
    const gchar * name, GError ** error)
{
  if (!*kernel)
    *kernel = create_kernel (tr, group, name, error);
  return *kernel != NULL;
}

gboolean
gst_cl_mpeg_transform_prepare (GstClMpegTransform * tr, gboolean b_pictures,
    gboolean fields, GError ** error)
{
  if (b_pictures && (!ensure_kernel (tr, &tr->follow_vectors, KERNELS_B,
              "mpeg_follow_vectors", error) || !ensure_kernel (tr,
              &tr->predict_b, KERNELS_B, tr->cpu_layout ?
              "mpeg_predict_b_cpu" : "mpeg_predict_b", error)))
    return FALSE;
  return !fields || (ensure_kernel (tr, &tr->field_search, KERNELS_FIELD,
          "mpeg_field_search", error) && ensure_kernel (tr,
          &tr->choose_b_fields, KERNELS_FIELD, "mpeg_choose_b_fields",
          error));
}

GstClMpegTransform *
gst_cl_mpeg_transform_new (GstClContext * ctx, guint width, guint height,
    gboolean interlaced, GError ** error)
{
  return gst_cl_mpeg_transform_new_format (ctx, width, height, interlaced,
      FALSE, error);
}

GstClMpegTransform *
gst_cl_mpeg_transform_new_format (GstClContext * ctx, guint width,
    guint height, gboolean interlaced, gboolean chroma_422, GError ** error)
{
  GstClMpegTransform *tr = g_new0 (GstClMpegTransform, 1);

  gst_cl_video_register_kernels ();

  tr->ctx = gst_object_ref (ctx);
  tr->width = width;
  tr->height = height;
  tr->mb_width = (width + 15) / 16;
  tr->mb_height = interlaced ? 2 * ((height + 31) / 32) : (height + 15) / 16;
  tr->cpu_layout = ctx->cpu_layout;
  tr->chroma_422 = chroma_422;
  /* GPUs: a work-group of 64 per macroblock; CPUs: one work-item per
   * macroblock walking it in plain loops. Those of B pictures and of the
   * field search come with gst_cl_mpeg_transform_prepare (). */
  tr->load = create_kernel (tr, KERNELS_CORE,
      tr->cpu_layout ? "mpeg_load_rows" : "mpeg_load", error);
  if (tr->load)
    tr->encode = create_kernel (tr, KERNELS_CORE,
        tr->cpu_layout ? "mpeg_encode_mb_cpu" : "mpeg_encode_mb", error);
  if (tr->encode)
    tr->fit_vectors = create_kernel (tr, KERNELS_CORE, "mpeg_fit_vectors",
        error);
  if (tr->fit_vectors && !tr->cpu_layout) {
    tr->pack_counts = create_kernel (tr, KERNELS_CORE, "mpeg_pack_counts",
        error);
    if (tr->pack_counts)
      tr->pack_levels = create_kernel (tr, KERNELS_CORE, "mpeg_pack_levels",
          error);
    if (tr->pack_levels)
      tr->transform_mb = create_kernel (tr, KERNELS_CORE,
          "mpeg_transform_mb", error);
    if (tr->transform_mb)
      tr->trellis = create_kernel (tr, KERNELS_CORE, "mpeg_trellis_blocks",
          error);
    if (tr->trellis)
      tr->jobs = gst_cl_mpeg_transform_alloc (tr, (gsize) tr->mb_width *
          tr->mb_height * sizeof (GstClMpegTrellisJob), error);
  }
  if (tr->fit_vectors && (tr->cpu_layout || tr->jobs)) {
    guint8 bits[GST_CL_MPEG_RD_BITS_SIZE];
    cl_int ret;

    gst_cl_mpeg_rd_bits (bits);
    tr->rd_bits = clCreateBuffer (ctx->context, CL_MEM_READ_ONLY |
        CL_MEM_COPY_HOST_PTR, sizeof (bits), bits, &ret);
    if (ret == CL_SUCCESS)
      tr->fit_totals = clCreateBuffer (ctx->context, CL_MEM_READ_WRITE,
          2 * GST_CL_MPEG_FIT_SET_WORDS * sizeof (cl_uint), NULL, &ret);
    /* (zeroed at the first picture) */
    tr->fit_dirty = TRUE;
    if (!gst_cl_check (ret, "clCreateBuffer", error)) {
      gst_cl_mpeg_transform_free (tr);
      return NULL;
    }
  }
  if (!tr->rd_bits) {
    gst_cl_mpeg_transform_free (tr);
    return NULL;
  }
  return tr;
}

void
gst_cl_mpeg_transform_free (GstClMpegTransform * tr)
{
  if (!tr)
    return;
  gst_cl_video_clear_kernels (&tr->load, &tr->encode,
      &tr->fit_vectors, &tr->follow_vectors, &tr->predict_b,
      &tr->field_search, &tr->choose_b_fields, &tr->pack_counts,
      &tr->pack_levels, &tr->transform_mb, &tr->trellis,
      NULL);
  if (tr->jobs)
    clReleaseMemObject (tr->jobs);
  if (tr->rd_bits)
    clReleaseMemObject (tr->rd_bits);
  if (tr->fit_totals)
    clReleaseMemObject (tr->fit_totals);
  gst_object_unref (tr->ctx);
  g_free (tr);
}

guint
gst_cl_mpeg_transform_mb_width (const GstClMpegTransform * tr)
{
  return tr->mb_width;
}

guint
gst_cl_mpeg_transform_mb_height (const GstClMpegTransform * tr)
{
  return tr->mb_height;
}

gboolean
gst_cl_mpeg_transform_chroma_422 (const GstClMpegTransform * tr)
{
  return tr->chroma_422;
}

/* rows of a chroma plane of the pictures */
static guint
chroma_height (const GstClMpegTransform * tr)
{
  return tr->mb_height * (tr->chroma_422 ? 16 : 8);
}

gsize
gst_cl_mpeg_transform_picture_size (const GstClMpegTransform * tr)
{
  return (gsize) tr->mb_width * tr->mb_height * (tr->chroma_422 ? 512 : 384);
}

gsize
gst_cl_mpeg_transform_records_size (const GstClMpegTransform * tr)
{
  return (gsize) tr->mb_width * tr->mb_height * sizeof (GstClMpegMbRecord);
}

gsize
gst_cl_mpeg_transform_vectors_size (const GstClMpegTransform * tr)
{
  return (gsize) tr->mb_width * tr->mb_height * sizeof (GstClMotionVector);
}

gsize
gst_cl_mpeg_transform_levels_size (const GstClMpegTransform * tr)
{
  return (gsize) tr->mb_width * tr->mb_height * GST_CL_MPEG_MB_LEVELS *
      sizeof (gint16);
}

gsize
gst_cl_mpeg_transform_choices_size (const GstClMpegTransform * tr)
{
  return (gsize) tr->mb_width * tr->mb_height * sizeof (GstClMpegBChoice);
}

gsize
gst_cl_mpeg_transform_field_choices_size (const GstClMpegTransform * tr)
{
  return (gsize) tr->mb_width * tr->mb_height * sizeof (GstClMpegFieldChoice);
}

cl_mem
gst_cl_mpeg_transform_alloc (GstClMpegTransform * tr, gsize size,
    GError ** error)
{
  cl_mem_flags flags = CL_MEM_READ_WRITE;
  cl_int ret;
  cl_mem mem;

  if (tr->ctx->host_unified)
    flags |= CL_MEM_ALLOC_HOST_PTR;
  mem = clCreateBuffer (tr->ctx->context, flags, MAX (size, 1), NULL, &ret);
  if (!gst_cl_check (ret, "clCreateBuffer", error))
    return NULL;
  return mem;
}

void
gst_cl_mpeg_transform_plane (const GstClMpegTransform * tr, cl_mem picture,
    guint comp, GstClPlane * plane)
{
  guint W = tr->mb_width * 16, H = tr->mb_height * 16;

  plane->mem = picture;
  plane->pixel_stride = 1;
  if (comp == 0) {
    plane->offset = 0;
    plane->stride = plane->width = W;
    plane->height = H;
  } else {
    plane->offset = (gsize) W * H + (comp - 1) * (gsize) (W / 2) *
        chroma_height (tr);
    plane->stride = plane->width = W / 2;
    plane->height = chroma_height (tr);
  }
}

gboolean
gst_cl_mpeg_transform_load (GstClMpegTransform * tr, const GstClFrame * frame,
    cl_mem picture, GError ** error)
{
  GstClPlane y, u, v;
  GstClMpegLoadArgs args;
  const cl_mem mems[2] = { frame->mem, picture };
  guint W = tr->mb_width * 16, H = tr->mb_height * 16;
  size_t global[2], local[2];

  gst_cl_frame_get_plane (frame, GST_VIDEO_COMP_Y, &y);
  gst_cl_frame_get_plane (frame, GST_VIDEO_COMP_U, &u);
  gst_cl_frame_get_plane (frame, GST_VIDEO_COMP_V, &v);
  args.y.offset = y.offset;
  args.y.stride = y.stride;
  args.u.offset = u.offset;
  args.u.stride = u.stride;
  args.v.offset = v.offset;
  args.v.stride = v.stride;
  args.chroma_pixel_stride = u.pixel_stride;
  args.width = tr->width;
  args.height = tr->height;
  args.padded_width = W;
  args.padded_height = H;
  if (!gst_cl_video_set_kernel_args (tr->load, mems, G_N_ELEMENTS (mems),
          &args, sizeof (args), error))
    return FALSE;
  if (tr->cpu_layout) {
    /* a work-item per chroma row */
    global[0] = chroma_height (tr);
    return gst_cl_context_enqueue_kernel (tr->ctx, tr->load,
        GST_CL_MPEG_LOAD_LABEL, 1, global, NULL, error);
  }
  /* W / 2 is a multiple of 8, the chroma height too */
  global[0] = W / 2;
  global[1] = chroma_height (tr);
  local[0] = 8;
  local[1] = 8;
  return gst_cl_context_enqueue_kernel (tr->ctx, tr->load,
      GST_CL_MPEG_LOAD_LABEL, 2, global, local, error);
}

gboolean
gst_cl_mpeg_transform_zero_vectors (GstClMpegTransform * tr, cl_mem vectors,
    GError ** error)
{
  const cl_uint zero = 0;
  cl_int ret;

  ret = clEnqueueFillBuffer (tr->ctx->queue, vectors, &zero, sizeof (zero), 0,
      gst_cl_mpeg_transform_vectors_size (tr), 0, NULL, NULL);
  return gst_cl_check (ret, "clEnqueueFillBuffer", error);
}

gboolean
gst_cl_mpeg_transform_copy_vectors (GstClMpegTransform * tr, cl_mem from,
    cl_mem to, GError ** error)
{
  cl_int ret;

  ret = clEnqueueCopyBuffer (tr->ctx->queue, from, to, 0, 0,
      gst_cl_mpeg_transform_vectors_size (tr), 0, NULL, NULL);
  return gst_cl_check (ret, "clEnqueueCopyBuffer", error);
}

/* Enqueues @kernel over the picture's macroblocks: on CPUs (and where
 * @per_item in every layout) one work-item per macroblock (each keeps a
 * macroblock in private memory); on GPUs a work-group of 64 per
 * macroblock */
static gboolean
enqueue_macroblocks (GstClMpegTransform * tr, cl_kernel kernel,
    gboolean per_item, GError ** error)
{
  size_t n = (size_t) tr->mb_width * tr->mb_height, local, global;

  if (tr->cpu_layout || per_item) {
    local = tr->cpu_layout ? ITEM_GROUP_CPU : ITEM_GROUP_GPU;
    global = (n + local - 1) / local * local;
  } else {
    local = 64;
    global = n * local;
  }
  return gst_cl_context_enqueue_kernel (tr->ctx, kernel,
      GST_CL_MPEG_ENCODE_LABEL, 1, &global, &local, error);
}

gboolean
gst_cl_mpeg_transform_fit_vectors (GstClMpegTransform * tr, cl_mem vectors,
    guint max_f_code, GError ** error)
{
  const cl_uint zero = 0;
  const cl_mem mems[3] = { vectors, tr->rd_bits, tr->fit_totals };
  GstClMpegFitArgs args;
  size_t n = (size_t) tr->mb_width * tr->mb_height;
  size_t local = tr->cpu_layout ? GST_CL_MPEG_FIT_ITEMS_CPU :
      GST_CL_MPEG_FIT_ITEMS;
  guint per_item = tr->cpu_layout ? FIT_PER_ITEM_CPU : FIT_PER_ITEM_GPU;
  size_t run = local * per_item;
  size_t global = (n + run - 1) / run * local;
  cl_int ret;

  args.mb_width = tr->mb_width;
  args.mb_height = tr->mb_height;
  args.per_item = per_item;
  args.max_f_code = CLAMP (max_f_code, 1, GST_CL_MPEG_F_CODES);
  args.totals = tr->fit_next;
  /* the totals this picture adds to were zeroed by the picture before,
   * unless it failed half-way */
  if (tr->fit_dirty) {
    ret = clEnqueueFillBuffer (tr->ctx->queue, tr->fit_totals, &zero,
        sizeof (zero), 0, 2 * GST_CL_MPEG_FIT_SET_WORDS * sizeof (cl_uint), 0,
        NULL, NULL);
    if (!gst_cl_check (ret, "clEnqueueFillBuffer", error))
      return FALSE;
  }
  tr->fit_dirty = TRUE;
  /* the sums of runs of macroblocks in parallel, then the clamp */
  if (!gst_cl_video_set_kernel_args (tr->fit_vectors, mems,
          G_N_ELEMENTS (mems), &args, sizeof (args), error) ||
      !gst_cl_context_enqueue_kernel (tr->ctx, tr->fit_vectors,
          GST_CL_MPEG_ENCODE_LABEL, 1, &global, &local, error))
    return FALSE;
  tr->fit_next = 1 - tr->fit_next;
  tr->fit_dirty = FALSE;
  return TRUE;
}

gboolean
gst_cl_mpeg_transform_follow_vectors (GstClMpegTransform * tr, cl_mem a,
    cl_mem b, gint sign, cl_mem out, GError ** error)
{
  const cl_mem mems[3] = { a, b, out };
  const cl_uint mb_width = tr->mb_width, mb_height = tr->mb_height;
  const cl_int s = sign < 0 ? -1 : 1;
  guint arg = G_N_ELEMENTS (mems);

  if (!gst_cl_mpeg_transform_prepare (tr, TRUE, FALSE, error))
    return FALSE;
  if (!gst_cl_video_set_kernel_args (tr->follow_vectors, mems,
          G_N_ELEMENTS (mems), NULL, 0, error) ||
      !gst_cl_kernel_set_arg (tr->follow_vectors, &arg, sizeof (cl_uint),
          &mb_width, error) ||
      !gst_cl_kernel_set_arg (tr->follow_vectors, &arg, sizeof (cl_uint),
          &mb_height, error) ||
      !gst_cl_kernel_set_arg (tr->follow_vectors, &arg, sizeof (cl_int), &s,
          error))
    return FALSE;
  return enqueue_macroblocks (tr, tr->follow_vectors, TRUE, error);
}

gboolean
gst_cl_mpeg_transform_predict_b (GstClMpegTransform * tr, cl_mem cur,
    cl_mem fwd, cl_mem bwd, cl_mem fvectors, cl_mem bvectors, guint lambda16,
    guint zero_bias, cl_mem pred, cl_mem choices, GError ** error)
{
  GstClMpegPredictArgs args;
  const cl_mem mems[8] = { cur, fwd, bwd, fvectors, bvectors, tr->rd_bits,
    pred, choices
  };

  if (!gst_cl_mpeg_transform_prepare (tr, TRUE, FALSE, error))
    return FALSE;
  args.mb_width = tr->mb_width;
  args.mb_height = tr->mb_height;
  args.lambda16 = lambda16;
  args.zero_bias = zero_bias;
  if (!gst_cl_video_set_kernel_args (tr->predict_b, mems, G_N_ELEMENTS (mems),
          &args, sizeof (args), error))
    return FALSE;
  return enqueue_macroblocks (tr, tr->predict_b, FALSE, error);
}

gboolean
gst_cl_mpeg_transform_field_search (GstClMpegTransform * tr, cl_mem cur,
    cl_mem ref, cl_mem vectors, cl_mem field_vectors, guint range,
    guint reach, guint seed_reach, const GstClMpegFieldTiming * timing,
    guint lambda16, cl_mem pred, cl_mem choices, GError ** error)
{
  GstClMpegFieldArgs args;
  /* (without field vectors the kernel reads none: the frame vectors
   * stand in for the argument) */
  const cl_mem mems[7] = { cur, ref, vectors,
    field_vectors ? field_vectors : vectors, tr->rd_bits, pred, choices
  };

  g_return_val_if_fail (reach >= 1 && reach <= GST_CL_MPEG_FIELD_REACH_MAX,
      FALSE);
  g_return_val_if_fail (!field_vectors || (seed_reach >= 1 &&
          seed_reach <= GST_CL_MPEG_FIELD_REACH_MAX), FALSE);
  if (!gst_cl_mpeg_transform_prepare (tr, FALSE, TRUE, error))
    return FALSE;
  args.mb_width = tr->mb_width;
  args.mb_height = tr->mb_height;
  args.range = range;
  args.span = timing ? timing->span : 0;
  args.order = timing ? timing->order : 0;
  args.dual_prime = timing && timing->dual_prime && timing->span == 2;
  args.lambda16 = lambda16;
  args.reach = reach;
  args.seed_reach = field_vectors ? seed_reach : 0;
  if (!gst_cl_video_set_kernel_args (tr->field_search, mems,
          G_N_ELEMENTS (mems), &args, sizeof (args), error))
    return FALSE;
  return enqueue_macroblocks (tr, tr->field_search, FALSE, error);
}

gboolean
gst_cl_mpeg_transform_choose_b_fields (GstClMpegTransform * tr, cl_mem cur,
    cl_mem fvectors, cl_mem bvectors, const cl_mem field_pred[2],
    const cl_mem fields[2], guint lambda16, guint zero_bias, cl_mem pred,
    cl_mem choices, GError ** error)
{
  GstClMpegPredictArgs args;
  const cl_mem mems[10] = { cur, fvectors, bvectors, tr->rd_bits,
    field_pred[0], field_pred[1], fields[0], fields[1], pred, choices
  };

  if (!gst_cl_mpeg_transform_prepare (tr, FALSE, TRUE, error))
    return FALSE;
  args.mb_width = tr->mb_width;
  args.mb_height = tr->mb_height;
  args.lambda16 = lambda16;
  args.zero_bias = zero_bias;
  if (!gst_cl_video_set_kernel_args (tr->choose_b_fields, mems,
          G_N_ELEMENTS (mems), &args, sizeof (args), error))
    return FALSE;
  return enqueue_macroblocks (tr, tr->choose_b_fields, TRUE, error);
}

/* The GPU layout's launches (see GstClMpegTrellisJob): the candidates'
 * transforms, with rate-distortion decisions (@rd) the trellis of all
 * their blocks, then the decisions and the reconstruction; @mems: the
 * encoder's buffers, mpeg_encode_mb's arguments */
static gboolean
encode_in_launches (GstClMpegTransform * tr, const cl_mem * mems,
    guint n_mems, const GstClMpegEncodeArgs * args, gboolean rd,
    GError ** error)
{
  /* cur, ref, vectors, rd_bits, fpred, fields, jobs */
  const cl_mem transform_mems[7] = { mems[0], mems[1], mems[3], mems[6],
    mems[7], mems[8], tr->jobs
  };
  const cl_mem trellis_mems[2] = { tr->jobs, tr->rd_bits };
  size_t local = 64, global = (size_t) GST_CL_MPEG_TRELLIS_CANDIDATES *
      tr->mb_width * tr->mb_height * (tr->chroma_422 ?
      GST_CL_MPEG_BLOCKS_422 : GST_CL_MPEG_BLOCKS_420);

  if (!gst_cl_video_set_kernel_args (tr->transform_mb, transform_mems,
          G_N_ELEMENTS (transform_mems), args, sizeof (*args), error) ||
      !enqueue_macroblocks (tr, tr->transform_mb, FALSE, error))
    return FALSE;
  global = (global + local - 1) / local * local;
  if (rd && (!gst_cl_video_set_kernel_args (tr->trellis, trellis_mems,
              G_N_ELEMENTS (trellis_mems), args, sizeof (*args), error) ||
          !gst_cl_context_enqueue_kernel (tr->ctx, tr->trellis,
              GST_CL_MPEG_ENCODE_LABEL, 1, &global, &local, error)))
    return FALSE;
  if (!gst_cl_video_set_kernel_args (tr->encode, mems, n_mems, args,
          sizeof (*args), error))
    return FALSE;
  return enqueue_macroblocks (tr, tr->encode, FALSE, error);
}

gboolean
gst_cl_mpeg_transform_encode (GstClMpegTransform * tr, cl_mem cur, cl_mem ref,
    cl_mem vectors, cl_mem field_pred, cl_mem fields,
    const GstClMpegEncodeParams * p, cl_mem records, cl_mem levels,
    cl_mem recon, GError ** error)
{
  GstClMpegEncodeArgs args;
  /* (the kernels weigh it in the rate-distortion decisions of P pictures
   * only) */
  gboolean field_motion = p->mpeg2 && p->field_motion && field_pred &&
      fields;
  /* (without field prediction its arguments are not read: any buffer;
   * the jobs are the GPU layout's only) */
  const cl_mem mems[10] = { cur, ref, recon, vectors, records, levels,
    tr->rd_bits, field_motion ? field_pred : cur,
    field_motion ? fields : tr->rd_bits, tr->jobs
  };

  args.mb_width = tr->mb_width;
  args.mb_height = tr->mb_height;
  args.p_picture = p->p_picture ? 1 : 0;
  args.non_linear = p->mpeg2 && p->non_linear ? 1 : 0;
  args.qscale = CLAMP (p->qscale, 1, args.non_linear ?
      GST_CL_MPEG_MAX_QUANT_NON_LINEAR : GST_CL_MPEG_MAX_QUANT);
  args.adaptive = p->adaptive ? 1 : 0;
  args.avg_activity = MAX (p->avg_activity, 1);
  args.intra_bias = p->intra_bias;
  args.dc_only = p->dc_only ? 1 : 0;
  args.mpeg2 = p->mpeg2 ? 1 : 0;
  args.dc_shift = p->mpeg2 ? MIN (p->dc_shift, 3) : 0;
  args.field_dct = p->mpeg2 && p->field_dct ? 1 : 0;
  args.field_motion = field_motion ? 1 : 0;
  args.alternate_scan = p->mpeg2 && p->alternate_scan ? 1 : 0;
  args.intra_vlc = p->mpeg2 && p->intra_vlc ? 1 : 0;
  args.rd_lambda = p->rd_lambda;
  args.mv_lambda = p->mv_lambda;
  if (!tr->cpu_layout)
    return encode_in_launches (tr, mems, G_N_ELEMENTS (mems), &args,
        args.rd_lambda && !args.dc_only, error);
  if (!gst_cl_video_set_kernel_args (tr->encode, mems, G_N_ELEMENTS (mems) -
          1, &args, sizeof (args), error))
    return FALSE;
  return enqueue_macroblocks (tr, tr->encode, FALSE, error);
}

gboolean
gst_cl_mpeg_transform_packs_levels (const GstClMpegTransform * tr)
{
  return !tr->cpu_layout;
}

gsize
gst_cl_mpeg_transform_offsets_size (const GstClMpegTransform * tr)
{
  /* (the kernels see the summary as a uint8; its first word, the runs'
   * totals, is the one mpeg_pack_levels reads) */
  G_STATIC_ASSERT (sizeof (GstClMpegPackSummary) ==
      GST_CL_MPEG_PACK_SUMMARY_WORDS * sizeof (guint32));
  G_STATIC_ASSERT (G_STRUCT_OFFSET (GstClMpegPackSummary, packed_total) == 0);
  return GST_CL_MPEG_PACK_OFFSETS ((gsize) tr->mb_width * tr->mb_height) *
      sizeof (guint32);
}

void
gst_cl_mpeg_transform_pack_summary (const GstClMpegTransform * tr,
    const guint32 * offsets, GstClMpegRecordsSummary * sum)
{
  guint n = tr->mb_width * tr->mb_height, run, k;
  const guint runs = GST_CL_MPEG_PACK_RUNS (n);

  memset (sum, 0, sizeof (*sum));
  sum->vector_reach = 1;
  for (run = 0; run < runs; run++) {
    guint32 words[GST_CL_MPEG_PACK_SUMMARY_WORDS];
    GstClMpegPackSummary part;
    /* (the runs' summaries lie word by word) */
    for (k = 0; k < GST_CL_MPEG_PACK_SUMMARY_WORDS; k++)
      words[k] = offsets[GST_CL_MPEG_PACK_PARTS_AT (n) + k * runs + run];
    memcpy (&part, words, sizeof (part));
    sum->packed_total += part.packed_total;
    sum->intra += part.intra;
    sum->skippable += part.skippable;
    sum->coded += part.coded;
    sum->coded_last_sum += part.coded_last_sum;
    sum->quant_sum += part.quant_sum;
    sum->activity_sum += part.activity_sum;
    sum->vector_reach = MAX (sum->vector_reach, part.vector_reach);
  }
}

gboolean
gst_cl_mpeg_transform_pack (GstClMpegTransform * tr, cl_mem records,
    cl_mem levels, cl_mem offsets, cl_mem packed, GError ** error)
{
  cl_uint n = tr->mb_width * tr->mb_height;
  const cl_mem count_mems[2] = { records, offsets };
  const cl_mem pack_mems[4] = { records, levels, offsets, packed };
  size_t global, local = GST_CL_MPEG_PACK_ITEMS, size = 0;
  cl_int ret;

  g_return_val_if_fail (tr->pack_levels != NULL, FALSE);
  /* (a short buffer would be written past its end) */
  ret = clGetMemObjectInfo (offsets, CL_MEM_SIZE, sizeof (size), &size,
      NULL);
  if (!gst_cl_check (ret, "clGetMemObjectInfo", error))
    return FALSE;
  if (size < gst_cl_mpeg_transform_offsets_size (tr)) {
    g_set_error (error, GST_CL_ERROR, GST_CL_ERROR_CALL,
        "packing the levels: offsets buffer of %" G_GSIZE_FORMAT
        " bytes, %" G_GSIZE_FORMAT " needed", size,
        gst_cl_mpeg_transform_offsets_size (tr));
    return FALSE;
  }
  /* a work-item per macroblock, in runs of PACK_ITEMS */
  global = GST_CL_MPEG_PACK_RUNS (n) * local;
  if (!gst_cl_video_set_kernel_args (tr->pack_counts, count_mems,
          G_N_ELEMENTS (count_mems), &n, sizeof (n), error) ||
      !gst_cl_context_enqueue_kernel (tr->ctx, tr->pack_counts,
          GST_CL_MPEG_PACK_LABEL, 1, &global, &local, error))
    return FALSE;
  if (!gst_cl_video_set_kernel_args (tr->pack_levels, pack_mems,
          G_N_ELEMENTS (pack_mems), &n, sizeof (n), error))
    return FALSE;
  local = 64;
  global = (size_t) n * local;
  return gst_cl_context_enqueue_kernel (tr->ctx, tr->pack_levels,
      GST_CL_MPEG_PACK_LABEL, 1, &global, &local, error);
}
