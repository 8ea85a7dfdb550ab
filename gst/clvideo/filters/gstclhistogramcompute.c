/* gst-clvideo: histograms of frame channels on the device
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * Shared by clhistogram and clcontrast (which computes its own histogram
 * when no upstream clhistogram left one on the buffer).
 */
#include "gstclvideokernels.h"
#include "gstclhistogramcompute.h"
#include <gst/cl/gstclhistogrammeta.h>
#include <gst/cl/gstclfilter.h>

#define MAX_LOCAL_SIZE 256
#define MAX_FLAT_LOCAL_SIZE 1024
/* copies of the local histogram (GPU layout) */
#define MAX_COPIES 16
/* GPU: groups per compute unit, and chunks (4 samples) per work-item
 * below which fewer groups are started */
#define GROUPS_PER_CU 4
#define MIN_CHUNKS_PER_ITEM 8
/* GPU, single-channel planes: large groups, a few per compute unit, and
 * vectors (16 samples) per work-item below which fewer groups start */
#define FLAT_GROUPS_PER_CU 3
#define MIN_VECTORS_PER_ITEM 4
/* CPU: work-items per compute unit, and the shortest run worth one */
#define ITEMS_PER_CU 4
#define MIN_CHUNKS_PER_RUN 4096

struct _GstClHistogramCompute
{
  GstClContext *ctx;
  GHashTable *kernels;          /* build options -> cl_kernel */
  guint local_size, copies;     /* GPU layout */
  guint flat_local_size;        /* GPU layout, single-channel planes */
};

GstClHistogramCompute *
gst_cl_histogram_compute_new (GstClContext * ctx)
{
  GstClHistogramCompute *hc = g_new0 (GstClHistogramCompute, 1);
  guint ls = MAX_LOCAL_SIZE;

  gst_cl_video_register_kernels ();

  hc->ctx = gst_object_ref (ctx);
  hc->kernels = g_hash_table_new_full (g_str_hash, g_str_equal, g_free,
      gst_cl_video_release_kernel);
  while (ls > 1 && ls > ctx->max_work_group_size)
    ls /= 2;
  hc->local_size = ls;
  ls = MAX_FLAT_LOCAL_SIZE;
  while (ls > 16 && ls > ctx->max_work_group_size)
    ls /= 2;
  hc->flat_local_size = ls;
  /* at most three quarters of the local memory (the flat kernel's extra
   * bin included), so that the unit's other groups still fit */
  hc->copies = MAX_COPIES;
  while (hc->copies > 1 && (guint64) (GST_CL_HISTOGRAM_BINS + 1) *
      hc->copies * sizeof (cl_uint) > ctx->local_mem_size / 4 * 3)
    hc->copies /= 2;
  return hc;
}

void
gst_cl_histogram_compute_free (GstClHistogramCompute * hc)
{
  if (!hc)
    return;
  g_hash_table_destroy (hc->kernels);
  gst_object_unref (hc->ctx);
  g_free (hc);
}

/* The GPU layout takes a plane of its own (@flat) as one run of bytes. */
static cl_kernel
get_kernel (GstClHistogramCompute * hc, guint pstride, guint poffset,
    gboolean aligned, gboolean flat, GError ** error)
{
  const gchar *name;
  gchar *options;
  cl_kernel kernel;

  if (hc->ctx->cpu_layout) {
    name = "histogram_runs";
    options = g_strdup_printf ("-DPS=%u -DCH=%u -DALIGNED=%d", pstride,
        poffset, aligned);
  } else if (flat) {
    name = "histogram_flat";
    options = g_strdup_printf ("-DPS=1 -DLS=%u -DNC=%u", hc->flat_local_size,
        hc->copies);
  } else {
    name = "histogram";
    options = g_strdup_printf ("-DPS=%u -DCH=%u -DALIGNED=%d -DLS=%u -DNC=%u",
        pstride, poffset, aligned, hc->local_size, hc->copies);
  }
  kernel = g_hash_table_lookup (hc->kernels, options);
  if (kernel) {
    g_free (options);
    return kernel;
  }
  kernel = gst_cl_context_create_kernel (hc->ctx, "histogram", options, name,
      error);
  if (!kernel) {
    g_free (options);
    return NULL;
  }
  g_hash_table_insert (hc->kernels, options, kernel);
  return kernel;
}

gboolean
gst_cl_histogram_compute_clear (GstClHistogramCompute * hc, cl_mem bins,
    guint first, guint n, GError ** error)
{
  const cl_uint zero = 0;
  const gsize hist_size = GST_CL_HISTOGRAM_BINS * sizeof (cl_uint);
  cl_int ret;

  ret = clEnqueueFillBuffer (hc->ctx->queue, bins, &zero, sizeof (zero),
      first * hist_size, n * hist_size, 0, NULL, NULL);
  return gst_cl_check (ret, "clEnqueueFillBuffer", error);
}

gboolean
gst_cl_histogram_compute_component (GstClHistogramCompute * hc,
    GstClFrame * frame, guint comp, cl_mem bins, guint index, GError ** error)
{
  const GstVideoInfo *info = &frame->info;
  const GstVideoFormatInfo *finfo = info->finfo;
  guint plane, pstride, poffset;
  cl_uint off, stride, width, height, bins_off;
  gboolean aligned, flat;
  cl_kernel kernel;
  size_t global, local;
  guint64 n_chunks;
  guint arg = 0;

  g_return_val_if_fail (comp < GST_VIDEO_FORMAT_INFO_N_COMPONENTS (finfo),
      FALSE);
  g_return_val_if_fail (GST_VIDEO_FORMAT_INFO_DEPTH (finfo, comp) == 8,
      FALSE);

  plane = GST_VIDEO_FORMAT_INFO_PLANE (finfo, comp);
  pstride = GST_VIDEO_FORMAT_INFO_PSTRIDE (finfo, comp);
  poffset = GST_VIDEO_FORMAT_INFO_POFFSET (finfo, comp);
  g_return_val_if_fail (pstride >= 1 && pstride <= 4 && poffset < pstride,
      FALSE);
  off = info->offset[plane];
  stride = info->stride[plane];
  width = GST_VIDEO_INFO_COMP_WIDTH (info, comp);
  height = GST_VIDEO_INFO_COMP_HEIGHT (info, comp);
  bins_off = index * GST_CL_HISTOGRAM_BINS;
  /* word loads need rows that start on 4-byte boundaries */
  aligned = off % 4 == 0 && stride % 4 == 0;

  flat = !hc->ctx->cpu_layout && pstride == 1;

  kernel = get_kernel (hc, pstride, poffset, aligned, flat, error);
  if (!kernel)
    return FALSE;
  if (!gst_cl_kernel_set_arg (kernel, &arg, sizeof (cl_mem), &frame->mem,
          error) ||
      !gst_cl_kernel_set_arg (kernel, &arg, sizeof (cl_uint), &off, error) ||
      !gst_cl_kernel_set_arg (kernel, &arg, sizeof (cl_uint), &stride, error)
      || !gst_cl_kernel_set_arg (kernel, &arg, sizeof (cl_uint), &width,
          error) ||
      !gst_cl_kernel_set_arg (kernel, &arg, sizeof (cl_uint), &height, error)
      || !gst_cl_kernel_set_arg (kernel, &arg, sizeof (cl_mem), &bins, error)
      || !gst_cl_kernel_set_arg (kernel, &arg, sizeof (cl_uint), &bins_off,
          error))
    return FALSE;

  n_chunks = (guint64) ((width + 3) / 4) * height;
  if (flat) {
    guint64 n_vec = ((guint64) off % 16 + (guint64) (height - 1) * stride +
        width) / 16;
    guint64 per_group = (guint64) hc->flat_local_size * MIN_VECTORS_PER_ITEM;
    guint64 groups = (n_vec + per_group - 1) / per_group;
    cl_uint step_col;

    groups = CLAMP (groups, 1, (guint64) MAX (hc->ctx->compute_units, 1) *
        FLAT_GROUPS_PER_CU);
    local = hc->flat_local_size;
    global = groups * local;
    step_col = (cl_uint) ((16 * (guint64) global) % stride);
    if (!gst_cl_kernel_set_arg (kernel, &arg, sizeof (cl_uint), &step_col,
            error))
      return FALSE;
  } else if (hc->ctx->cpu_layout) {
    guint64 items = (n_chunks + MIN_CHUNKS_PER_RUN - 1) / MIN_CHUNKS_PER_RUN;
    items = CLAMP (items, 1, (guint64) MAX (hc->ctx->compute_units, 1) *
        ITEMS_PER_CU);
    local = 1;
    global = items;
  } else {
    guint64 per_group = (guint64) hc->local_size * MIN_CHUNKS_PER_ITEM;
    guint64 groups = (n_chunks + per_group - 1) / per_group;
    groups = CLAMP (groups, 1, (guint64) MAX (hc->ctx->compute_units, 1) *
        GROUPS_PER_CU);
    local = hc->local_size;
    global = groups * local;
  }
  return gst_cl_context_enqueue_kernel (hc->ctx, kernel,
      GST_CL_HISTOGRAM_LABEL, 1, &global, &local, error);
}

gboolean
gst_cl_histogram_compute_frame (GstClHistogramCompute * hc,
    GstClFrame * frame, guint n, const guint * comps, cl_mem bins,
    GError ** error)
{
  guint i;

  if (!gst_cl_histogram_compute_clear (hc, bins, 0, n, error))
    return FALSE;
  for (i = 0; i < n; i++)
    if (!gst_cl_histogram_compute_component (hc, frame, comps[i], bins, i,
            error))
      return FALSE;
  return TRUE;
}
