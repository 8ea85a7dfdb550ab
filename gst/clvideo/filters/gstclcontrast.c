/* gst-clvideo: clcontrast
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
/**
 * SECTION:element-clcontrast
 * @title: clcontrast
 *
 * Enhances the contrast of the luma of each frame on an OpenCL device:
 * a linear stretch between two percentiles of the histogram
 * (`mode=stretch`), or histogram equalisation (`mode=equalize`). Chroma
 * passes unchanged.
 *
 * The histogram is the #GstClHistogramMeta that an upstream `clhistogram`
 * attached, when the frame carries one with luma of the element's OpenCL
 * context; otherwise the element counts it itself. The lookup table is
 * built from it on the device, so nothing goes through the host. For
 * video, `smoothing` keeps the stretch points from jumping between frames.
 *
 * Stretch: with N pixels and cum(v) the number of pixels of value v or
 * less, nlow = floor(N * low-cut / 100) and nhigh = floor(N * high-cut /
 * 100); lo is the smallest v with cum(v) > nlow and hi the largest v with
 * N - cum(v - 1) > nhigh. Values map to
 * clamp(((v - lo) * 510 + (hi - lo)) / (2 * (hi - lo)), 0, 255) in
 * integers; hi <= lo leaves the frame unchanged. Equalize: with cmin the
 * count of the smallest value present, v maps to
 * ((cum(v) - cmin) * 510 + (N - cmin)) / (2 * (N - cmin)). docs/usage.md
 * has the exact definitions, smoothing included.
 *
 * With `post-messages=true` an element message "clcontrast" gives, for
 * every frame, the parameters used; it is read back from the device
 * without stalling it, and posted a frame or so later (at the latest at
 * EOS or a flush).
 *
 * ## Example launch line
 * |[
 * gst-launch-1.0 videotestsrc num-buffers=60 ! video/x-raw,format=I420,width=640,height=480 ! clhistogram ! clcontrast low-cut=1 high-cut=1 smoothing=0.8 ! fakesink
 * ]|
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include "gstclcontrast.h"
#include "gstclvideoenum.h"
#include "gstclhistogramcompute.h"
#include "gstclvideokernels.h"
#include <gst/cl/gstclhistogrammeta.h>
#include <gst/cl/gstclreadback.h>

#include <math.h>

GST_DEBUG_CATEGORY_STATIC (gst_cl_contrast_debug);
#define GST_CAT_DEFAULT gst_cl_contrast_debug

#define FORMATS "GRAY8, I420, NV12, Y444, Y42B"

#define DEFAULT_MODE GST_CL_CONTRAST_MODE_STRETCH
#define DEFAULT_LOW_CUT 0.5
#define DEFAULT_HIGH_CUT 0.5
#define DEFAULT_SMOOTHING 0.0
#define DEFAULT_POST_MESSAGES FALSE

/* GPU apply kernel: work-group, and groups per compute unit */
#define APPLY_LX 64
#define APPLY_LY 4
#define APPLY_GROUPS_PER_CU 8
/* GPU apply kernel over whole planes: groups per compute unit */
#define FLAT_GROUPS_PER_CU 8
/* CPU apply kernel: work-items per compute unit */
#define APPLY_ITEMS_PER_CU 4

/* what contrast_lut writes into params (kernels/contrast.cl) */
enum
{
  P_MODE,
  P_LO,
  P_HI,
  P_FRAME_LO,
  P_FRAME_HI,
  P_MIN,
  P_MAX,
  P_IDENTITY,
  P_STATE_LO,
  P_STATE_HI,
  N_PARAMS
};

enum
{
  PROP_0,
  PROP_MODE,
  PROP_LOW_CUT,
  PROP_HIGH_CUT,
  PROP_SMOOTHING,
  PROP_POST_MESSAGES,
};

struct _GstClContrast
{
  GstClFilter parent;

  /* properties */
  GstClContrastMode mode;
  gdouble low_cut, high_cut;
  gdouble smoothing;
  gboolean post_messages;

  /* stream */
  gboolean reset;               /* next frame restarts the smoothing */
  GstClContrastMode last_mode;

  /* per negotiation */
  GstVideoInfo info;
  gboolean have_info;
  guint64 n_pixels;

  /* device objects */
  GstClHistogramCompute *compute;
  cl_mem hist;                  /* own histogram, when no meta has one */
  cl_mem lut, state, params;
  cl_kernel lut_kernel;
  cl_kernel apply_kernel[3];    /* unaligned, aligned rows; whole plane */
};

G_DEFINE_TYPE_WITH_CODE (GstClContrast, gst_cl_contrast, GST_TYPE_CL_FILTER,
    GST_DEBUG_CATEGORY_INIT (gst_cl_contrast_debug, "clcontrast", 0,
        "OpenCL contrast enhancement"));

#define GST_TYPE_CL_CONTRAST_MODE (gst_cl_contrast_mode_get_type ())
static GType
gst_cl_contrast_mode_get_type (void)
{
  static GType type = 0;
  static const GEnumValue values[] = {
    {GST_CL_CONTRAST_MODE_STRETCH, "Linear stretch between percentiles",
        "stretch"},
    {GST_CL_CONTRAST_MODE_EQUALIZE, "Histogram equalisation", "equalize"},
    {0, NULL, NULL}
  };
  return gst_cl_video_enum_type (&type, "GstClContrastMode", values);
}

static const gchar *
mode_name (gint mode)
{
  return mode == GST_CL_CONTRAST_MODE_EQUALIZE ? "equalize" : "stretch";
}

/* ---- messages ---- */

static void
gst_cl_contrast_fill_message (GstClFilter * filter G_GNUC_UNUSED,
    GstStructure * s, gconstpointer data, gsize size)
{
  const cl_int *p = data;

  g_assert (size >= N_PARAMS * sizeof (cl_int));
  gst_structure_set (s, "mode", G_TYPE_STRING, mode_name (p[P_MODE]),
      "min", G_TYPE_UINT, (guint) p[P_MIN], "max", G_TYPE_UINT,
      (guint) p[P_MAX], "identity", G_TYPE_BOOLEAN, p[P_IDENTITY] != 0, NULL);
  if (p[P_MODE] == GST_CL_CONTRAST_MODE_STRETCH)
    gst_structure_set (s, "lo", G_TYPE_UINT, (guint) p[P_LO], "hi",
        G_TYPE_UINT, (guint) p[P_HI], "frame-lo", G_TYPE_UINT,
        (guint) p[P_FRAME_LO], "frame-hi", G_TYPE_UINT, (guint) p[P_FRAME_HI],
        "smoothed-lo", G_TYPE_UINT, (guint) p[P_STATE_LO], "smoothed-hi",
        G_TYPE_UINT, (guint) p[P_STATE_HI], NULL);
}

/* ---- device objects ---- */

static gboolean
gst_cl_contrast_set_info (GstClFilter * filter, GstVideoInfo * in,
    GstVideoInfo * out G_GNUC_UNUSED, GError ** error G_GNUC_UNUSED)
{
  GstClContrast *self = GST_CL_CONTRAST (filter);

  self->n_pixels = (guint64) GST_VIDEO_INFO_WIDTH (in) *
      GST_VIDEO_INFO_HEIGHT (in);
  /* another size or format is another scene for the smoothing (the same
   * caps sent again are not) */
  if (!self->have_info || !gst_video_info_is_equal (&self->info, in))
    self->reset = TRUE;
  self->info = *in;
  self->have_info = TRUE;
  return TRUE;
}

static void
clear_mem (cl_mem * mem)
{
  if (*mem)
    clReleaseMemObject (*mem);
  *mem = NULL;
}

static void
gst_cl_contrast_release (GstClFilter * filter)
{
  GstClContrast *self = GST_CL_CONTRAST (filter);

  g_clear_pointer (&self->compute, gst_cl_histogram_compute_free);
  clear_mem (&self->hist);
  clear_mem (&self->lut);
  clear_mem (&self->state);
  clear_mem (&self->params);
  gst_cl_video_clear_kernels (&self->lut_kernel, &self->apply_kernel[0],
      &self->apply_kernel[1], &self->apply_kernel[2], NULL);
}

static gboolean
create_mem (GstClContext * ctx, gsize size, cl_mem * mem, GError ** error)
{
  cl_int ret;

  if (*mem)
    return TRUE;
  *mem = clCreateBuffer (ctx->context, CL_MEM_READ_WRITE, size, NULL, &ret);
  if (!gst_cl_check (ret, "clCreateBuffer", error)) {
    *mem = NULL;
    return FALSE;
  }
  return TRUE;
}

static gchar *
apply_options (gboolean aligned)
{
  return g_strdup_printf ("-DALIGNED=%d -DLX=%d -DLY=%d", aligned, APPLY_LX,
      APPLY_LY);
}

static gboolean
ensure_device_objects (GstClContrast * self, GstClContext * ctx,
    GError ** error)
{
  if (!create_mem (ctx, GST_CL_HISTOGRAM_BINS, &self->lut, error) ||
      !create_mem (ctx, 2 * sizeof (cl_int), &self->state, error) ||
      !create_mem (ctx, N_PARAMS * sizeof (cl_int), &self->params, error))
    return FALSE;
  if (!self->lut_kernel) {
    /* from the program of the usual (aligned) apply kernel: one build */
    gchar *options = apply_options (TRUE);
    self->lut_kernel = gst_cl_context_create_kernel (ctx, "contrast", options,
        "contrast_lut", error);
    g_free (options);
    if (!self->lut_kernel)
      return FALSE;
  }
  return TRUE;
}

/* @which: 0, 1 rows (unaligned, aligned), 2 the plane as one run */
static cl_kernel
get_apply_kernel (GstClContrast * self, GstClContext * ctx, guint which,
    GError ** error)
{
  if (!self->apply_kernel[which]) {
    gchar *options = apply_options (which != 0);
    self->apply_kernel[which] = gst_cl_context_create_kernel (ctx,
        "contrast", options, which == 2 ? "contrast_flat" :
        ctx->cpu_layout ? "contrast_rows" : "contrast", error);
    g_free (options);
  }
  return self->apply_kernel[which];
}

/* GPUs, both planes with the same stride and alignment: the plane as one
 * run of bytes, padding included, in 16-byte vectors */
static gboolean
apply_lut_flat (GstClContrast * self, GstClContext * ctx, GstClFrame * in,
    GstClFrame * out, GError ** error)
{
  cl_uint src_off = in->info.offset[0], dst_off = out->info.offset[0];
  guint64 total = (guint64) (GST_VIDEO_INFO_HEIGHT (&in->info) - 1) *
      in->info.stride[0] + GST_VIDEO_INFO_WIDTH (&in->info);
  cl_uint head = MIN ((16 - src_off % 16) % 16, total);
  cl_uint n_vec = (total - head) / 16;
  cl_uint tail = total - head - 16 * (guint64) n_vec;
  cl_kernel kernel = get_apply_kernel (self, ctx, 2, error);
  size_t local = APPLY_LX * APPLY_LY, global;
  guint64 groups;
  guint arg = 0;

  if (!kernel)
    return FALSE;
  groups = (n_vec + local - 1) / local;
  groups = CLAMP (groups, 1, (guint64) MAX (ctx->compute_units, 1) *
      FLAT_GROUPS_PER_CU);
  global = groups * local;
  if (!gst_cl_kernel_set_arg (kernel, &arg, sizeof (cl_mem), &in->mem, error)
      || !gst_cl_kernel_set_arg (kernel, &arg, sizeof (cl_uint), &src_off,
          error)
      || !gst_cl_kernel_set_arg (kernel, &arg, sizeof (cl_mem), &out->mem,
          error)
      || !gst_cl_kernel_set_arg (kernel, &arg, sizeof (cl_uint), &dst_off,
          error)
      || !gst_cl_kernel_set_arg (kernel, &arg, sizeof (cl_uint), &head, error)
      || !gst_cl_kernel_set_arg (kernel, &arg, sizeof (cl_uint), &n_vec, error)
      || !gst_cl_kernel_set_arg (kernel, &arg, sizeof (cl_uint), &tail, error)
      || !gst_cl_kernel_set_arg (kernel, &arg, sizeof (cl_mem), &self->lut,
          error))
    return FALSE;
  return gst_cl_context_enqueue_kernel (ctx, kernel, "contrast", 1, &global,
      &local, error);
}

/* ---- processing ---- */

/* The frame's luma histogram: from the input's meta when it has one of
 * this context that fits the frame, else counted now into self->hist. */
static gboolean
find_histogram (GstClContrast * self, GstClContext * ctx, GstClFrame * in,
    cl_mem * hist, cl_uint * hist_off, gboolean * from_meta, GError ** error)
{
  GstBuffer *inbuf = gst_cl_filter_get_input_buffer (GST_CL_FILTER (self));
  GstClHistogramMeta *meta = gst_buffer_get_cl_histogram_meta (inbuf);
  gint idx = -1;

  if (meta && meta->context == ctx)
    idx = gst_cl_histogram_meta_find_channel (meta,
        GST_CL_HISTOGRAM_CHANNEL_Y);
  if (idx >= 0 && meta->pixels[idx] == self->n_pixels) {
    *hist = meta->bins;
    *hist_off = idx * GST_CL_HISTOGRAM_BINS;
    *from_meta = TRUE;
    return TRUE;
  }

  if (!self->compute)
    self->compute = gst_cl_histogram_compute_new (ctx);
  if (!create_mem (ctx, GST_CL_HISTOGRAM_BINS * sizeof (cl_uint), &self->hist,
          error) ||
      !gst_cl_histogram_compute_clear (self->compute, self->hist, 0, 1, error)
      || !gst_cl_histogram_compute_component (self->compute, in,
          GST_VIDEO_COMP_Y, self->hist, 0, error))
    return FALSE;
  *hist = self->hist;
  *hist_off = 0;
  *from_meta = FALSE;
  return TRUE;
}

static gboolean
apply_lut (GstClContrast * self, GstClContext * ctx, GstClFrame * in,
    GstClFrame * out, GError ** error)
{
  cl_uint src_off = in->info.offset[0], src_stride = in->info.stride[0];
  cl_uint dst_off = out->info.offset[0], dst_stride = out->info.stride[0];
  cl_uint width = GST_VIDEO_INFO_WIDTH (&in->info);
  cl_uint height = GST_VIDEO_INFO_HEIGHT (&in->info);
  gboolean aligned = src_off % 4 == 0 && src_stride % 4 == 0 &&
      dst_off % 4 == 0 && dst_stride % 4 == 0;
  cl_kernel kernel;
  size_t global[2], local[2];
  guint arg = 0;

  if (!ctx->cpu_layout && src_stride == dst_stride &&
      src_off % 16 == dst_off % 16)
    return apply_lut_flat (self, ctx, in, out, error);
  kernel = get_apply_kernel (self, ctx, aligned, error);
  if (!kernel)
    return FALSE;
  if (!gst_cl_kernel_set_arg (kernel, &arg, sizeof (cl_mem), &in->mem, error)
      || !gst_cl_kernel_set_arg (kernel, &arg, sizeof (cl_uint), &src_off,
          error)
      || !gst_cl_kernel_set_arg (kernel, &arg, sizeof (cl_uint), &src_stride,
          error)
      || !gst_cl_kernel_set_arg (kernel, &arg, sizeof (cl_mem), &out->mem,
          error)
      || !gst_cl_kernel_set_arg (kernel, &arg, sizeof (cl_uint), &dst_off,
          error)
      || !gst_cl_kernel_set_arg (kernel, &arg, sizeof (cl_uint), &dst_stride,
          error)
      || !gst_cl_kernel_set_arg (kernel, &arg, sizeof (cl_uint), &width, error)
      || !gst_cl_kernel_set_arg (kernel, &arg, sizeof (cl_uint), &height,
          error)
      || !gst_cl_kernel_set_arg (kernel, &arg, sizeof (cl_mem), &self->lut,
          error))
    return FALSE;

  if (ctx->cpu_layout) {
    global[0] = MIN (height, MAX (ctx->compute_units, 1) * APPLY_ITEMS_PER_CU);
    local[0] = 1;
    return gst_cl_context_enqueue_kernel (ctx, kernel, "contrast", 1, global,
        local, error);
  } else {
    size_t groups_x = ((width + 3) / 4 + APPLY_LX - 1) / APPLY_LX;
    size_t rows_of_groups = (height + APPLY_LY - 1) / APPLY_LY;
    size_t groups_y = (MAX (ctx->compute_units, 1) * APPLY_GROUPS_PER_CU +
        groups_x - 1) / groups_x;
    groups_y = CLAMP (groups_y, 1, rows_of_groups);
    local[0] = APPLY_LX;
    local[1] = APPLY_LY;
    global[0] = groups_x * APPLY_LX;
    global[1] = groups_y * APPLY_LY;
    return gst_cl_context_enqueue_kernel (ctx, kernel, "contrast", 2, global,
        local, error);
  }
}

/* Chroma planes go through unchanged, copied on the device. */
static gboolean
copy_chroma (GstClContext * ctx, GstClFrame * in, GstClFrame * out,
    GError ** error)
{
  const GstVideoInfo *info = &in->info;
  guint p;

  for (p = 1; p < GST_VIDEO_INFO_N_PLANES (info); p++) {
    gint comp[GST_VIDEO_MAX_COMPONENTS];
    size_t src_origin[3] = { in->info.offset[p], 0, 0 };
    size_t dst_origin[3] = { out->info.offset[p], 0, 0 };
    size_t region[3] = { 0, 0, 1 };
    guint i;
    cl_int ret;

    /* the samples of the plane, not its padding */
    gst_video_format_info_component (info->finfo, p, comp);
    for (i = 0; i < GST_VIDEO_MAX_COMPONENTS && comp[i] >= 0; i++) {
      region[0] = MAX (region[0],
          (size_t) GST_VIDEO_INFO_COMP_WIDTH (info, comp[i]) *
          GST_VIDEO_INFO_COMP_PSTRIDE (info, comp[i]));
      region[1] = MAX (region[1],
          (size_t) GST_VIDEO_INFO_COMP_HEIGHT (info, comp[i]));
    }
    ret = clEnqueueCopyBufferRect (ctx->queue, in->mem, out->mem, src_origin,
        dst_origin, region, in->info.stride[p], 0, out->info.stride[p], 0, 0,
        NULL, NULL);
    if (!gst_cl_check (ret, "clEnqueueCopyBufferRect", error))
      return FALSE;
  }
  return TRUE;
}

static gboolean
gst_cl_contrast_process (GstClFilter * filter, GstClFrame * in,
    GstClFrame * out, GError ** error)
{
  GstClContrast *self = GST_CL_CONTRAST (filter);
  GstClContext *ctx = gst_cl_filter_get_context (filter);
  GstBuffer *inbuf = gst_cl_filter_get_input_buffer (filter);
  GstClContrastMode mode;
  gdouble low_cut, high_cut, smoothing;
  gboolean post, from_meta = FALSE;
  cl_uint n, nlow, nhigh, hist_off = 0;
  cl_int cl_mode, sq, reset;
  cl_mem hist = NULL;
  size_t global = GST_CL_HISTOGRAM_BINS, local = GST_CL_HISTOGRAM_BINS;
  guint arg = 0;

  GST_OBJECT_LOCK (self);
  mode = self->mode;
  low_cut = self->low_cut;
  high_cut = self->high_cut;
  smoothing = self->smoothing;
  post = self->post_messages;
  GST_OBJECT_UNLOCK (self);

  if (mode != self->last_mode || GST_BUFFER_IS_DISCONT (inbuf))
    self->reset = TRUE;
  self->last_mode = mode;

  /* the cut counts in double on the host, exact for any frame size */
  n = (cl_uint) self->n_pixels;
  nlow = (cl_uint) floor ((gdouble) n * low_cut / 100.0);
  nhigh = (cl_uint) floor ((gdouble) n * high_cut / 100.0);
  sq = (cl_int) lround (smoothing * 256.0);
  cl_mode = mode;
  reset = self->reset;

  if (!ensure_device_objects (self, ctx, error) ||
      !find_histogram (self, ctx, in, &hist, &hist_off, &from_meta, error))
    return FALSE;
  GST_DEBUG_OBJECT (self, "%s, low-cut %g%% high-cut %g%% of %u pixels: "
      "nlow %u nhigh %u, smoothing %d/256%s, histogram %s", mode_name (mode),
      low_cut, high_cut, n, nlow, nhigh, sq, reset ? " (restarted)" : "",
      from_meta ? "from the meta" : "counted here");

  if (!gst_cl_kernel_set_arg (self->lut_kernel, &arg, sizeof (cl_mem), &hist,
          error) ||
      !gst_cl_kernel_set_arg (self->lut_kernel, &arg, sizeof (cl_uint),
          &hist_off, error) ||
      !gst_cl_kernel_set_arg (self->lut_kernel, &arg, sizeof (cl_uint), &n,
          error) ||
      !gst_cl_kernel_set_arg (self->lut_kernel, &arg, sizeof (cl_uint), &nlow,
          error) ||
      !gst_cl_kernel_set_arg (self->lut_kernel, &arg, sizeof (cl_uint),
          &nhigh, error) ||
      !gst_cl_kernel_set_arg (self->lut_kernel, &arg, sizeof (cl_int),
          &cl_mode, error) ||
      !gst_cl_kernel_set_arg (self->lut_kernel, &arg, sizeof (cl_int), &sq,
          error) ||
      !gst_cl_kernel_set_arg (self->lut_kernel, &arg, sizeof (cl_int), &reset,
          error) ||
      !gst_cl_kernel_set_arg (self->lut_kernel, &arg, sizeof (cl_mem),
          &self->state, error) ||
      !gst_cl_kernel_set_arg (self->lut_kernel, &arg, sizeof (cl_mem),
          &self->lut, error) ||
      !gst_cl_kernel_set_arg (self->lut_kernel, &arg, sizeof (cl_mem),
          &self->params, error) ||
      !gst_cl_context_enqueue_kernel (ctx, self->lut_kernel, "contrast-lut",
          1, &global, &local, error))
    return FALSE;
  self->reset = FALSE;

  if (!apply_lut (self, ctx, in, out, error) ||
      !copy_chroma (ctx, in, out, error))
    return FALSE;

  if (post) {
    GstStructure *s = gst_cl_frame_message_structure_new ("clcontrast",
        &GST_BASE_TRANSFORM (self)->segment, inbuf,
        gst_cl_filter_get_frame_duration (filter, inbuf));

    gst_structure_set (s, "from-meta", G_TYPE_BOOLEAN, from_meta, NULL);
    return gst_cl_filter_read_message (filter, self->params, 0,
        N_PARAMS * sizeof (cl_int), s, error);
  }
  return TRUE;
}

/* the smoothing starts over (a new caps' info is compared with the last
 * one in set_info) */
static void
gst_cl_contrast_reset (GstClFilter * filter)
{
  GST_CL_CONTRAST (filter)->reset = TRUE;
}

/* ---- GObject ---- */

static void
gst_cl_contrast_set_property (GObject * object, guint prop_id,
    const GValue * value, GParamSpec * pspec)
{
  GstClContrast *self = GST_CL_CONTRAST (object);

  GST_OBJECT_LOCK (self);
  switch (prop_id) {
    case PROP_MODE:
      self->mode = g_value_get_enum (value);
      break;
    case PROP_LOW_CUT:
      self->low_cut = g_value_get_double (value);
      break;
    case PROP_HIGH_CUT:
      self->high_cut = g_value_get_double (value);
      break;
    case PROP_SMOOTHING:
      self->smoothing = g_value_get_double (value);
      break;
    case PROP_POST_MESSAGES:
      self->post_messages = g_value_get_boolean (value);
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
      break;
  }
  GST_OBJECT_UNLOCK (self);
}

static void
gst_cl_contrast_get_property (GObject * object, guint prop_id,
    GValue * value, GParamSpec * pspec)
{
  GstClContrast *self = GST_CL_CONTRAST (object);

  GST_OBJECT_LOCK (self);
  switch (prop_id) {
    case PROP_MODE:
      g_value_set_enum (value, self->mode);
      break;
    case PROP_LOW_CUT:
      g_value_set_double (value, self->low_cut);
      break;
    case PROP_HIGH_CUT:
      g_value_set_double (value, self->high_cut);
      break;
    case PROP_SMOOTHING:
      g_value_set_double (value, self->smoothing);
      break;
    case PROP_POST_MESSAGES:
      g_value_set_boolean (value, self->post_messages);
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
      break;
  }
  GST_OBJECT_UNLOCK (self);
}

static void
gst_cl_contrast_class_init (GstClContrastClass * klass)
{
  GObjectClass *gobject_class = G_OBJECT_CLASS (klass);
  GstElementClass *element_class = GST_ELEMENT_CLASS (klass);
  GstClFilterClass *filter_class = GST_CL_FILTER_CLASS (klass);
  const GParamFlags flags = G_PARAM_READWRITE | G_PARAM_STATIC_STRINGS |
      GST_PARAM_CONTROLLABLE | GST_PARAM_MUTABLE_PLAYING;

  gobject_class->set_property = gst_cl_contrast_set_property;
  gobject_class->get_property = gst_cl_contrast_get_property;

  g_object_class_install_property (gobject_class, PROP_MODE,
      g_param_spec_enum ("mode", "Mode",
          "Linear stretch between percentiles, or histogram equalisation",
          GST_TYPE_CL_CONTRAST_MODE, DEFAULT_MODE, flags));
  g_object_class_install_property (gobject_class, PROP_LOW_CUT,
      g_param_spec_double ("low-cut", "Low cut",
          "Stretch: percentage of the darkest pixels that become black",
          0.0, 50.0, DEFAULT_LOW_CUT, flags));
  g_object_class_install_property (gobject_class, PROP_HIGH_CUT,
      g_param_spec_double ("high-cut", "High cut",
          "Stretch: percentage of the brightest pixels that become white",
          0.0, 50.0, DEFAULT_HIGH_CUT, flags));
  /**
   * GstClContrast:smoothing:
   *
   * Temporal smoothing of the stretch points, for video: each frame's
   * points move the running ones by (1 - smoothing) of the difference.
   * 0 follows every frame; 1 keeps those of the first frame. Restarts
   * on a discontinuity, a flush, new caps and a change of mode.
   */
  g_object_class_install_property (gobject_class, PROP_SMOOTHING,
      g_param_spec_double ("smoothing", "Smoothing",
          "Stretch: temporal smoothing of the stretch points (0: none, "
          "1: keep the first frame's)", 0.0, 1.0, DEFAULT_SMOOTHING, flags));
  g_object_class_install_property (gobject_class, PROP_POST_MESSAGES,
      g_param_spec_boolean ("post-messages", "Post messages",
          "Post a \"clcontrast\" element message with the parameters used "
          "for every frame", DEFAULT_POST_MESSAGES,
          G_PARAM_READWRITE | G_PARAM_STATIC_STRINGS |
          GST_PARAM_MUTABLE_PLAYING));

  gst_element_class_set_static_metadata (element_class,
      "OpenCL contrast enhancement", "Filter/Effect/Video",
      "Stretches or equalises the luma histogram of each frame on an OpenCL "
      "device", "gst-clvideo developers");
  gst_cl_filter_class_add_pad_templates (element_class, FORMATS, FORMATS,
      TRUE, TRUE, TRUE, TRUE);

  filter_class->set_info = gst_cl_contrast_set_info;
  filter_class->process = gst_cl_contrast_process;
  filter_class->release = gst_cl_contrast_release;
  filter_class->reset = gst_cl_contrast_reset;
  filter_class->fill_message = gst_cl_contrast_fill_message;

  gst_type_mark_as_plugin_api (GST_TYPE_CL_CONTRAST_MODE, 0);
}

static void
gst_cl_contrast_init (GstClContrast * self)
{
  self->mode = DEFAULT_MODE;
  self->low_cut = DEFAULT_LOW_CUT;
  self->high_cut = DEFAULT_HIGH_CUT;
  self->smoothing = DEFAULT_SMOOTHING;
  self->post_messages = DEFAULT_POST_MESSAGES;
  self->last_mode = DEFAULT_MODE;
  self->reset = TRUE;
}
