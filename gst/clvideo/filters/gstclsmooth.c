/* gst-clvideo: clsmooth
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
/**
 * SECTION:element-clsmooth
 * @title: clsmooth
 *
 * Smooths video frames on an OpenCL device with a (2 radius + 1) square
 * box or binomial (Gaussian) kernel; the default is the 5x5 box. Edges are
 * replicated, and the arithmetic is integer and exact, so every device
 * gives the same result.
 *
 * YUV formats smooth the luma plane, and with planes=all each chroma plane
 * too, at its own resolution (the U and V of NV12 separately); chroma
 * planes that are not smoothed are copied unchanged. Packed RGB formats
 * smooth R, G and B, and copy the fourth (x or alpha) byte unchanged.
 *
 * Frames in OpenCL memory (caps feature memory:OpenCL) are read and
 * written on the device; system memory works too.
 *
 * ## Example launch lines
 * |[
 * gst-launch-1.0 videotestsrc num-buffers=60 ! video/x-raw,format=I420,width=1280,height=720 ! clsmooth radius=3 kernel=gaussian planes=all ! videoconvert ! autovideosink
 * ]|
 * |[
 * gst-launch-1.0 videotestsrc num-buffers=60 ! video/x-raw,format=RGBx,width=1280,height=720 ! clcolorlowpass luma-filter=none ! 'video/x-raw(memory:OpenCL),format=GRAY8' ! clsmooth ! fakesink
 * ]|
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include "gstclsmooth.h"
#include "gstclvideoenum.h"
#include "gstclvideokernels.h"

#include <stdio.h>

GST_DEBUG_CATEGORY_STATIC (gst_cl_smooth_debug);
#define GST_CAT_DEFAULT gst_cl_smooth_debug

#define FORMATS "GRAY8, I420, NV12, Y444, RGB, BGR, RGBx, BGRx, xRGB, " \
    "xBGR, RGBA, BGRA, ARGB, ABGR"

#define MIN_RADIUS 1
#define MAX_RADIUS 8
#define DEFAULT_RADIUS 2
#define DEFAULT_KERNEL GST_CL_SMOOTH_KERNEL_BOX
#define DEFAULT_PLANES GST_CL_SMOOTH_PLANES_LUMA

enum
{
  PROP_0,
  PROP_RADIUS,
  PROP_KERNEL,
  PROP_PLANES,
};

/* One plane as the kernels see it: rows of @width pixels of @bpp
 * interleaved 8-bit channels. */
typedef struct
{
  gint bpp;
  gint pass;                    /* byte of a pixel copied unchanged, or -1 */
  gint width, height;
  gboolean chroma;              /* smoothed only with planes=all */
} PlaneSpec;

struct _GstClSmooth
{
  GstClFilter parent;

  /* properties */
  guint radius;
  GstClSmoothKernel kernel;
  GstClSmoothPlanes planes;

  /* per negotiation */
  guint n_planes;
  PlaneSpec plane[GST_VIDEO_MAX_PLANES];
  gboolean row_bands;           /* CPU layout */
  guint tile_items, tile_rows;  /* GPU layout; tile_rows 0: by radius */
  guint max_workers;            /* CPU layout */

  cl_mem scratch;               /* column sums of the CPU layout */
  gsize scratch_size;
  GHashTable *kernels;          /* build options -> cl_kernel */
};

G_DEFINE_TYPE_WITH_CODE (GstClSmooth, gst_cl_smooth, GST_TYPE_CL_FILTER,
    GST_DEBUG_CATEGORY_INIT (gst_cl_smooth_debug, "clsmooth", 0,
        "OpenCL smoothing filter"));

#define GST_TYPE_CL_SMOOTH_KERNEL (gst_cl_smooth_kernel_get_type ())
static GType
gst_cl_smooth_kernel_get_type (void)
{
  static GType type = 0;
  static const GEnumValue values[] = {
    {GST_CL_SMOOTH_KERNEL_BOX, "Box: the plain average", "box"},
    {GST_CL_SMOOTH_KERNEL_GAUSSIAN,
        "Gaussian: binomial weights C(2 radius, i) both ways", "gaussian"},
    {0, NULL, NULL}
  };
  return gst_cl_video_enum_type (&type, "GstClSmoothKernel", values);
}

#define GST_TYPE_CL_SMOOTH_PLANES (gst_cl_smooth_planes_get_type ())
static GType
gst_cl_smooth_planes_get_type (void)
{
  static GType type = 0;
  static const GEnumValue values[] = {
    {GST_CL_SMOOTH_PLANES_LUMA, "Luma only; chroma copied unchanged", "luma"},
    {GST_CL_SMOOTH_PLANES_ALL, "Luma and chroma", "all"},
    {0, NULL, NULL}
  };
  return gst_cl_video_enum_type (&type, "GstClSmoothPlanes", values);
}

/* ---- negotiation ---- */

static gboolean
gst_cl_smooth_set_info (GstClFilter * filter, GstVideoInfo * in,
    GstVideoInfo * out G_GNUC_UNUSED, GError ** error G_GNUC_UNUSED)
{
  GstClSmooth *self = GST_CL_SMOOTH (filter);
  GstClContext *ctx = gst_cl_filter_get_context (filter);
  const GstVideoFormatInfo *finfo = in->finfo;
  guint p;

  self->n_planes = GST_VIDEO_INFO_N_PLANES (in);
  for (p = 0; p < self->n_planes; p++) {
    PlaneSpec *spec = &self->plane[p];
    gint comp[GST_VIDEO_MAX_COMPONENTS];

    gst_video_format_info_component (finfo, p, comp);
    spec->bpp = GST_VIDEO_INFO_COMP_PSTRIDE (in, comp[0]);
    spec->width = GST_VIDEO_INFO_COMP_WIDTH (in, comp[0]);
    spec->height = GST_VIDEO_INFO_COMP_HEIGHT (in, comp[0]);
    spec->chroma = GST_VIDEO_FORMAT_INFO_IS_YUV (finfo) && p > 0;
    spec->pass = -1;
    if (GST_VIDEO_FORMAT_INFO_IS_RGB (finfo) && spec->bpp == 4) {
      /* the byte that is neither R, G nor B: bytes 0..3 add up to 6 */
      spec->pass = 6 - GST_VIDEO_FORMAT_INFO_POFFSET (finfo, GST_VIDEO_COMP_R)
          - GST_VIDEO_FORMAT_INFO_POFFSET (finfo, GST_VIDEO_COMP_G)
          - GST_VIDEO_FORMAT_INFO_POFFSET (finfo, GST_VIDEO_COMP_B);
    }
    GST_DEBUG_OBJECT (self, "plane %u: %dx%d, %d bytes a pixel%s%s", p,
        spec->width, spec->height, spec->bpp,
        spec->pass >= 0 ? ", one copied" : "", spec->chroma ? ", chroma" : "");
  }

  /* GPUs: tiles in local memory, many groups in flight. CPUs: a few
   * work-items walking bands of rows with vectorisable inner loops. */
  self->row_bands = ctx->cpu_layout;
  self->tile_items = MIN (64, ctx->max_work_group_size);
  self->tile_rows = 0;
  {
    /* development knob for tuning on a new device: "ITEMSxROWS" */
    const gchar *tile = g_getenv ("GST_CL_SMOOTH_TILE");
    guint items, rows;
    if (tile && sscanf (tile, "%ux%u", &items, &rows) == 2 && items >= 1 &&
        items <= ctx->max_work_group_size && rows >= 1 && rows <= 256) {
      self->tile_items = items;
      self->tile_rows = rows;
    }
  }
  self->max_workers = MAX (ctx->compute_units, 1) * 4;
  GST_INFO_OBJECT (self, "%s %dx%d, %s layout", GST_VIDEO_INFO_NAME (in),
      GST_VIDEO_INFO_WIDTH (in), GST_VIDEO_INFO_HEIGHT (in),
      self->row_bands ? "CPU (row bands)" : "GPU (tiles)");
  return TRUE;
}

static void
gst_cl_smooth_release (GstClFilter * filter)
{
  GstClSmooth *self = GST_CL_SMOOTH (filter);

  g_hash_table_remove_all (self->kernels);
  if (self->scratch)
    clReleaseMemObject (self->scratch);
  self->scratch = NULL;
  self->scratch_size = 0;
}

/* ---- processing ---- */

static cl_kernel
get_kernel (GstClSmooth * self, GstClContext * ctx, const gchar * options,
    GError ** error)
{
  cl_kernel kernel = g_hash_table_lookup (self->kernels, options);

  if (kernel)
    return kernel;
  GST_DEBUG_OBJECT (self, "building the kernel with %s", options);
  kernel = gst_cl_context_create_kernel (ctx, "smooth", options,
      self->row_bands ? "smooth_rows" : "smooth", error);
  if (kernel)
    g_hash_table_insert (self->kernels, g_strdup (options), kernel);
  return kernel;
}

/* Tile rows for @radius: taller tiles spread the apron's 2 radius rows
 * over more output rows, shorter ones make more work-groups. */
static guint
tile_rows_for (GstClSmooth * self, GstClContext * ctx, guint radius,
    gint bpp)
{
  guint rows = self->tile_rows ? self->tile_rows : (radius <= 4 ? 16 : 32);
  guint apron = (radius * bpp + 3) & ~3u;
  guint64 row_bytes = 4 * self->tile_items + 2 * apron;

  /* stay inside the device's local memory */
  while (rows > 1 && (rows + 2 * radius) * row_bytes > ctx->local_mem_size)
    rows /= 2;
  return rows;
}

static gboolean
set_int_arg (cl_kernel kernel, guint * arg, gint value, GError ** error)
{
  cl_int v = value;
  return gst_cl_kernel_set_arg (kernel, arg, sizeof (v), &v, error);
}

/* Plane offsets and strides go to the kernels as ints. */
static gboolean
plane_layout (GstClFrame * frame, guint p, gint * offset, gint * stride,
    GError ** error)
{
  if (frame->info.offset[p] > G_MAXINT32 || frame->info.stride[p] <= 0) {
    g_set_error (error, GST_CL_ERROR, GST_CL_ERROR_CALL,
        "Plane %u at offset %" G_GSIZE_FORMAT " with stride %d cannot be "
        "passed to the smoothing kernel", p, frame->info.offset[p],
        frame->info.stride[p]);
    return FALSE;
  }
  *offset = frame->info.offset[p];
  *stride = frame->info.stride[p];
  return TRUE;
}

static gboolean
smooth_plane (GstClSmooth * self, GstClContext * ctx, guint p,
    GstClFrame * in, GstClFrame * out, guint radius, gboolean gaussian,
    GError ** error)
{
  const PlaneSpec *spec = &self->plane[p];
  gint row_bytes = spec->width * spec->bpp;
  gint src_off, src_stride, dst_off, dst_stride;
  guint tile_rows = 0, arg = 0;
  gboolean aligned;
  gchar *options;
  cl_kernel kernel;
  size_t global[2], local[2];

  if (!plane_layout (in, p, &src_off, &src_stride, error) ||
      !plane_layout (out, p, &dst_off, &dst_stride, error))
    return FALSE;

  if (self->row_bands) {
    options = g_strdup_printf ("-DR=%u -DGAUSS=%d -DBPP=%d -DPASS=%d", radius,
        gaussian, spec->bpp, spec->pass);
  } else {
    /* word loads and stores where every row starts on a word */
    aligned = src_off % 4 == 0 && src_stride % 4 == 0 && dst_off % 4 == 0 &&
        dst_stride % 4 == 0;
    tile_rows = tile_rows_for (self, ctx, radius, spec->bpp);
    options = g_strdup_printf ("-DR=%u -DGAUSS=%d -DBPP=%d -DPASS=%d "
        "-DALIGNED4=%d -DLX=%u -DTH=%u", radius, gaussian, spec->bpp,
        spec->pass, aligned, self->tile_items, tile_rows);
  }
  kernel = get_kernel (self, ctx, options, error);
  g_free (options);
  if (!kernel)
    return FALSE;

  if (!gst_cl_kernel_set_arg (kernel, &arg, sizeof (cl_mem), &in->mem, error)
      || !set_int_arg (kernel, &arg, src_off, error)
      || !set_int_arg (kernel, &arg, src_stride, error)
      || !gst_cl_kernel_set_arg (kernel, &arg, sizeof (cl_mem), &out->mem,
          error)
      || !set_int_arg (kernel, &arg, dst_off, error)
      || !set_int_arg (kernel, &arg, dst_stride, error)
      || !set_int_arg (kernel, &arg, spec->width, error)
      || !set_int_arg (kernel, &arg, spec->height, error))
    return FALSE;

  if (self->row_bands) {
    /* one band of rows per work-item: few bands keep the box's start-up
     * sums (2 radius + 1 rows each) rare */
    guint workers = MIN ((guint) spec->height, self->max_workers);
    gint band_rows = (spec->height + workers - 1) / workers;
    gsize need;

    workers = (spec->height + band_rows - 1) / band_rows;
    /* SCRATCH_WORDS of kernels/smooth.cl for each work-item */
    need = (gsize) workers * (2 * (gsize) row_bytes + 17 * 4) *
        sizeof (cl_uint);
    if (need > self->scratch_size) {
      cl_int ret;
      if (self->scratch)
        clReleaseMemObject (self->scratch);
      self->scratch_size = 0;
      self->scratch = clCreateBuffer (ctx->context, CL_MEM_READ_WRITE, need,
          NULL, &ret);
      if (!gst_cl_check (ret, "clCreateBuffer (smoothing scratch)", error)) {
        self->scratch = NULL;
        return FALSE;
      }
      self->scratch_size = need;
    }
    if (!gst_cl_kernel_set_arg (kernel, &arg, sizeof (cl_mem),
            &self->scratch, error)
        || !set_int_arg (kernel, &arg, band_rows, error))
      return FALSE;
    global[0] = workers;
    local[0] = 1;
    return gst_cl_context_enqueue_kernel (ctx, kernel, "smooth", 1, global,
        local, error);
  }

  local[0] = self->tile_items;
  local[1] = 1;
  global[0] = (size_t) ((row_bytes + 4 * self->tile_items - 1) /
      (4 * self->tile_items)) * self->tile_items;
  global[1] = (spec->height + tile_rows - 1) / tile_rows;
  return gst_cl_context_enqueue_kernel (ctx, kernel, "smooth", 2, global,
      local, error);
}

/* A plane that is not smoothed is copied on the device. */
static gboolean
copy_plane (GstClSmooth * self, GstClContext * ctx, guint p, GstClFrame * in,
    GstClFrame * out, GError ** error)
{
  const PlaneSpec *spec = &self->plane[p];
  size_t src_origin[3] = { in->info.offset[p], 0, 0 };
  size_t dst_origin[3] = { out->info.offset[p], 0, 0 };
  size_t region[3] = { (size_t) spec->width * spec->bpp, spec->height, 1 };

  return gst_cl_check (clEnqueueCopyBufferRect (ctx->queue, in->mem,
          out->mem, src_origin, dst_origin, region, in->info.stride[p], 0,
          out->info.stride[p], 0, 0, NULL, NULL),
      "clEnqueueCopyBufferRect (unsmoothed plane)", error);
}

static gboolean
gst_cl_smooth_process (GstClFilter * filter, GstClFrame * in,
    GstClFrame * out, GError ** error)
{
  GstClSmooth *self = GST_CL_SMOOTH (filter);
  GstClContext *ctx = gst_cl_filter_get_context (filter);
  GstClSmoothPlanes planes;
  gboolean gaussian;
  guint radius, p;

  /* the properties may change while playing: take one consistent set */
  GST_OBJECT_LOCK (self);
  radius = self->radius;
  gaussian = self->kernel == GST_CL_SMOOTH_KERNEL_GAUSSIAN;
  planes = self->planes;
  GST_OBJECT_UNLOCK (self);

  for (p = 0; p < self->n_planes; p++) {
    gboolean ok;
    if (self->plane[p].chroma && planes == GST_CL_SMOOTH_PLANES_LUMA)
      ok = copy_plane (self, ctx, p, in, out, error);
    else
      ok = smooth_plane (self, ctx, p, in, out, radius, gaussian, error);
    if (!ok)
      return FALSE;
  }
  return TRUE;
}

/* ---- GObject ---- */

static void
gst_cl_smooth_set_property (GObject * object, guint prop_id,
    const GValue * value, GParamSpec * pspec)
{
  GstClSmooth *self = GST_CL_SMOOTH (object);

  GST_OBJECT_LOCK (self);
  switch (prop_id) {
    case PROP_RADIUS:
      self->radius = g_value_get_uint (value);
      break;
    case PROP_KERNEL:
      self->kernel = g_value_get_enum (value);
      break;
    case PROP_PLANES:
      self->planes = g_value_get_enum (value);
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
      break;
  }
  GST_OBJECT_UNLOCK (self);
}

static void
gst_cl_smooth_get_property (GObject * object, guint prop_id, GValue * value,
    GParamSpec * pspec)
{
  GstClSmooth *self = GST_CL_SMOOTH (object);

  GST_OBJECT_LOCK (self);
  switch (prop_id) {
    case PROP_RADIUS:
      g_value_set_uint (value, self->radius);
      break;
    case PROP_KERNEL:
      g_value_set_enum (value, self->kernel);
      break;
    case PROP_PLANES:
      g_value_set_enum (value, self->planes);
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
      break;
  }
  GST_OBJECT_UNLOCK (self);
}

static void
gst_cl_smooth_finalize (GObject * object)
{
  GstClSmooth *self = GST_CL_SMOOTH (object);

  gst_cl_smooth_release (GST_CL_FILTER (self));
  g_hash_table_unref (self->kernels);
  G_OBJECT_CLASS (gst_cl_smooth_parent_class)->finalize (object);
}

static void
gst_cl_smooth_class_init (GstClSmoothClass * klass)
{
  GObjectClass *gobject_class = G_OBJECT_CLASS (klass);
  GstElementClass *element_class = GST_ELEMENT_CLASS (klass);
  GstClFilterClass *filter_class = GST_CL_FILTER_CLASS (klass);
  const GParamFlags flags = G_PARAM_READWRITE | G_PARAM_STATIC_STRINGS |
      GST_PARAM_CONTROLLABLE | GST_PARAM_MUTABLE_PLAYING;

  gobject_class->set_property = gst_cl_smooth_set_property;
  gobject_class->get_property = gst_cl_smooth_get_property;
  gobject_class->finalize = gst_cl_smooth_finalize;

  /**
   * GstClSmooth:radius:
   *
   * Half the kernel size: the kernel is (2 radius + 1) pixels square, so
   * the default 2 is the 5x5 filter.
   */
  g_object_class_install_property (gobject_class, PROP_RADIUS,
      g_param_spec_uint ("radius", "Radius",
          "Kernel radius: the kernel is (2 radius + 1) pixels square",
          MIN_RADIUS, MAX_RADIUS, DEFAULT_RADIUS, flags));
  /**
   * GstClSmooth:kernel:
   *
   * box: the average of the (2 radius + 1)^2 pixels, rounded. gaussian:
   * binomial weights C(2 radius, i) in both directions, a close
   * approximation of a Gaussian of variance radius / 2.
   */
  g_object_class_install_property (gobject_class, PROP_KERNEL,
      g_param_spec_enum ("kernel", "Kernel", "Smoothing kernel",
          GST_TYPE_CL_SMOOTH_KERNEL, DEFAULT_KERNEL, flags));
  /**
   * GstClSmooth:planes:
   *
   * Which planes of YUV formats are smoothed; the others are copied.
   * Packed RGB always has R, G and B smoothed.
   */
  g_object_class_install_property (gobject_class, PROP_PLANES,
      g_param_spec_enum ("planes", "Planes",
          "YUV planes to smooth (the others are copied unchanged)",
          GST_TYPE_CL_SMOOTH_PLANES, DEFAULT_PLANES, flags));

  gst_element_class_set_static_metadata (element_class,
      "OpenCL smoothing filter", "Filter/Effect/Video",
      "Smooths video with a box or Gaussian kernel of radius 1 to 8, in "
      "OpenCL", "gst-clvideo developers");
  gst_cl_filter_class_add_pad_templates (element_class, FORMATS, FORMATS,
      TRUE, TRUE, TRUE, TRUE);

  filter_class->set_info = gst_cl_smooth_set_info;
  filter_class->process = gst_cl_smooth_process;
  filter_class->release = gst_cl_smooth_release;

  gst_type_mark_as_plugin_api (GST_TYPE_CL_SMOOTH_KERNEL, 0);
  gst_type_mark_as_plugin_api (GST_TYPE_CL_SMOOTH_PLANES, 0);
}

static void
gst_cl_smooth_init (GstClSmooth * self)
{
  self->radius = DEFAULT_RADIUS;
  self->kernel = DEFAULT_KERNEL;
  self->planes = DEFAULT_PLANES;
  self->kernels = g_hash_table_new_full (g_str_hash, g_str_equal, g_free,
      gst_cl_video_release_kernel);
}
