/* gst-clvideo: clcolorlowpass
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
/**
 * SECTION:element-clcolorlowpass
 * @title: clcolorlowpass
 *
 * Converts packed 8-bit RGB to YCbCr on an OpenCL device, with a lowpass
 * filter on luma and an anti-alias filter on chroma before 4:2:0
 * decimation, all in one kernel pass: each frame is read once and the
 * planes are written once. The matrix and range follow the negotiated
 * colorimetry of the output (BT.601, BT.709 or BT.2020; full or limited
 * range) unless the "matrix" and "range" properties set them. GRAY8 output
 * is the luma plane alone.
 *
 * Any size works, odd ones included; the 4:2:0 chroma planes are
 * ceil(width/2) x ceil(height/2), sited between the luma samples as MPEG-1
 * expects.
 *
 * 4:2:0 YCbCr input (I420, NV12), decoded video for instance, is not
 * converted: the same luma lowpass applies to its luma, 4:2:0 output
 * carries its chroma samples unchanged, Y444 output upsamples them
 * (bilinear between chroma samples sited as MPEG-1 sites them with
 * "chroma-filter" triangle, replicated with box) and GRAY8 output is the
 * luma alone. The output has the input's colorimetry (and, 4:2:0, its
 * chroma siting); "matrix" and "range" do not apply. With the luma filter
 * off the element still runs (a device copy), it is never passthrough.
 *
 * ## Example launch lines
 * |[
 * gst-launch-1.0 videotestsrc num-buffers=60 ! video/x-raw,format=RGBx,width=1280,height=720 ! clcolorlowpass luma-filter=gaussian-5x5 ! video/x-raw,format=I420 ! videoconvert ! autovideosink
 * ]|
 * |[
 * gst-launch-1.0 videotestsrc num-buffers=100 ! video/x-raw,format=NV12,width=640,height=480,framerate=25/1 ! clcolorlowpass luma-strength=0.5 ! clmpegenc ! filesink location=out.m1v
 * ]|
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include "gstclcolorlowpass.h"
#include "gstclvideoenum.h"
#include "gstclvideokernels.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

GST_DEBUG_CATEGORY_STATIC (gst_cl_color_lowpass_debug);
#define GST_CAT_DEFAULT gst_cl_color_lowpass_debug

#define RGB_FORMATS "RGB, BGR, RGBx, BGRx, xRGB, xBGR, RGBA, BGRA, ARGB, ABGR"
#define YUV_FORMATS "I420, NV12"
#define SINK_FORMATS RGB_FORMATS ", " YUV_FORMATS
#define SRC_FORMATS "I420, NV12, Y444, GRAY8"

/* the kernel's IN_FMT */
enum
{
  IN_RGB,
  IN_I420,
  IN_NV12,
};

#define DEFAULT_LUMA_FILTER GST_CL_LUMA_FILTER_BINOMIAL_3X3
#define DEFAULT_LUMA_STRENGTH 1.0
#define DEFAULT_CHROMA_FILTER GST_CL_CHROMA_FILTER_TRIANGLE
#define DEFAULT_MATRIX GST_CL_MATRIX_AUTO
#define DEFAULT_RANGE GST_CL_RANGE_AUTO

enum
{
  PROP_0,
  PROP_LUMA_FILTER,
  PROP_LUMA_STRENGTH,
  PROP_CHROMA_FILTER,
  PROP_MATRIX,
  PROP_RANGE,
};

struct _GstClColorLowpass
{
  GstClFilter parent;

  /* properties */
  GstClLumaFilter luma_filter;
  gdouble luma_strength;
  GstClChromaFilter chroma_filter;
  GstClMatrix matrix;
  GstClRange range;

  /* per negotiation */
  gint in_fmt;
  gint in_bpp, in_r, in_g, in_b;
  gint out_fmt;
  cl_int ky[4], kcb[4], kcr[4];
  guint tile_items, tile_rows;

  /* CPU devices run the row-band variant of the kernel */
  gboolean row_bands;
  guint band_rows, workers;
  cl_mem scratch;

  cl_kernel kernel;
  gchar *kernel_options;        /* the options @kernel was built with */
};

G_DEFINE_TYPE_WITH_CODE (GstClColorLowpass, gst_cl_color_lowpass,
    GST_TYPE_CL_FILTER,
    GST_DEBUG_CATEGORY_INIT (gst_cl_color_lowpass_debug, "clcolorlowpass", 0,
        "OpenCL RGB to YCbCr conversion, or 4:2:0 YCbCr, with lowpass "
        "filter"));

#define GST_TYPE_CL_LUMA_FILTER (gst_cl_luma_filter_get_type ())
static GType
gst_cl_luma_filter_get_type (void)
{
  static GType type = 0;
  static const GEnumValue values[] = {
    {GST_CL_LUMA_FILTER_NONE, "No filter", "none"},
    {GST_CL_LUMA_FILTER_BINOMIAL_3X3, "3x3 binomial [1 2 1]", "binomial-3x3"},
    {GST_CL_LUMA_FILTER_GAUSSIAN_5X5, "5x5 Gaussian [1 4 6 4 1]",
        "gaussian-5x5"},
    {0, NULL, NULL}
  };
  return gst_cl_video_enum_type (&type, "GstClLumaFilter", values);
}

#define GST_TYPE_CL_CHROMA_FILTER (gst_cl_chroma_filter_get_type ())
static GType
gst_cl_chroma_filter_get_type (void)
{
  static GType type = 0;
  static const GEnumValue values[] = {
    {GST_CL_CHROMA_FILTER_BOX, "2x2 average", "box"},
    {GST_CL_CHROMA_FILTER_TRIANGLE, "4x4 triangle [1 3 3 1]", "triangle"},
    {0, NULL, NULL}
  };
  return gst_cl_video_enum_type (&type, "GstClChromaFilter", values);
}

#define GST_TYPE_CL_MATRIX (gst_cl_matrix_get_type ())
static GType
gst_cl_matrix_get_type (void)
{
  static GType type = 0;
  static const GEnumValue values[] = {
    {GST_CL_MATRIX_AUTO, "From the output colorimetry", "auto"},
    {GST_CL_MATRIX_BT601, "ITU-R BT.601", "bt601"},
    {GST_CL_MATRIX_BT709, "ITU-R BT.709", "bt709"},
    {GST_CL_MATRIX_BT2020, "ITU-R BT.2020", "bt2020"},
    {0, NULL, NULL}
  };
  return gst_cl_video_enum_type (&type, "GstClMatrix", values);
}

#define GST_TYPE_CL_RANGE (gst_cl_range_get_type ())
static GType
gst_cl_range_get_type (void)
{
  static GType type = 0;
  static const GEnumValue values[] = {
    {GST_CL_RANGE_AUTO, "From the output colorimetry", "auto"},
    {GST_CL_RANGE_FULL, "Full range (0-255)", "full"},
    {GST_CL_RANGE_LIMITED, "Limited range (16-235, chroma 16-240)",
        "limited"},
    {0, NULL, NULL}
  };
  return gst_cl_video_enum_type (&type, "GstClRange", values);
}

/* ---- colour ---- */

static GstVideoColorMatrix
resolve_matrix (GstClColorLowpass * self, const GstVideoInfo * out)
{
  switch (self->matrix) {
    case GST_CL_MATRIX_BT601:
      return GST_VIDEO_COLOR_MATRIX_BT601;
    case GST_CL_MATRIX_BT709:
      return GST_VIDEO_COLOR_MATRIX_BT709;
    case GST_CL_MATRIX_BT2020:
      return GST_VIDEO_COLOR_MATRIX_BT2020;
    default:
      break;
  }
  switch (out->colorimetry.matrix) {
    case GST_VIDEO_COLOR_MATRIX_BT709:
    case GST_VIDEO_COLOR_MATRIX_BT2020:
    case GST_VIDEO_COLOR_MATRIX_BT601:
      return out->colorimetry.matrix;
    default:
      /* GStreamer's own default: SD is BT.601, HD BT.709 */
      return GST_VIDEO_INFO_HEIGHT (out) > 576 ?
          GST_VIDEO_COLOR_MATRIX_BT709 : GST_VIDEO_COLOR_MATRIX_BT601;
  }
}

static gboolean
resolve_full_range (GstClColorLowpass * self, const GstVideoInfo * out)
{
  if (self->range != GST_CL_RANGE_AUTO)
    return self->range == GST_CL_RANGE_FULL;
  if (out->colorimetry.range == GST_VIDEO_COLOR_RANGE_0_255)
    return TRUE;
  if (out->colorimetry.range == GST_VIDEO_COLOR_RANGE_16_235)
    return FALSE;
  return GST_VIDEO_INFO_FORMAT (out) == GST_VIDEO_FORMAT_GRAY8;
}

/* Coefficients * 65536 for values in 1/16 steps (see kernels/colorlowpass.cl).
 * G's weight is derived from R's and B's so that a grey input gives exactly
 * the neutral chroma and the luma of the equal weights. */
static void
compute_coefficients (GstVideoColorMatrix matrix, gboolean full,
    cl_int ky[4], cl_int kcb[4], cl_int kcr[4])
{
  gdouble kr, kb, ys, cs, yoff;
  const gdouble one = 65536.0;

  gst_video_color_matrix_get_Kr_Kb (matrix, &kr, &kb);
  ys = full ? 1.0 : 219.0 / 255.0;
  cs = full ? 1.0 : 224.0 / 255.0;
  yoff = full ? 0.0 : 16.0;

  ky[0] = lround (kr * ys * one);
  ky[2] = lround (kb * ys * one);
  ky[1] = lround (ys * one) - ky[0] - ky[2];
  ky[3] = lround (yoff * one) + 2048;

  /* Cb = (B - Y) / (2 (1 - Kb)), Cr = (R - Y) / (2 (1 - Kr)) */
  kcb[0] = lround (-kr * cs * one / (2.0 * (1.0 - kb)));
  kcb[2] = lround ((1.0 - kb) * cs * one / (2.0 * (1.0 - kb)));
  kcb[1] = -kcb[0] - kcb[2];
  kcb[3] = 128 * 65536 + 2048;

  kcr[0] = lround ((1.0 - kr) * cs * one / (2.0 * (1.0 - kr)));
  kcr[2] = lround (-kb * cs * one / (2.0 * (1.0 - kr)));
  kcr[1] = -kcr[0] - kcr[2];
  kcr[3] = 128 * 65536 + 2048;
}

/* ---- caps ---- */

/* @s with its "format" the comma-separated @formats; without its
 * colorimetry and chroma siting unless @keep_colorimetry and
 * @keep_siting say so */
static void
append_mapped (GstCaps * caps, const GstStructure * s, const gchar * formats,
    gboolean keep_colorimetry, gboolean keep_siting)
{
  GstStructure *copy = gst_structure_copy (s);
  GValue list = G_VALUE_INIT;
  gchar **names = g_strsplit (formats, ", ", -1);
  guint i;

  gst_value_list_init (&list, 0);
  for (i = 0; names[i]; i++) {
    GValue v = G_VALUE_INIT;
    g_value_init (&v, G_TYPE_STRING);
    g_value_set_string (&v, names[i]);
    gst_value_list_append_and_take_value (&list, &v);
  }
  g_strfreev (names);
  gst_structure_take_value (copy, "format", &list);
  if (!keep_colorimetry)
    gst_structure_remove_field (copy, "colorimetry");
  if (!keep_siting)
    gst_structure_remove_field (copy, "chroma-site");
  gst_caps_append_structure (caps, copy);
}

static gboolean
is_yuv_input (const gchar * format)
{
  return g_strcmp0 (format, "I420") == 0 || g_strcmp0 (format, "NV12") == 0;
}

/* The formats of @s (a string or a list): *@n in all, *@n_yuv of them
 * 4:2:0; *@n 0 when the field is absent (any format) */
static void
count_formats (const GstStructure * s, guint * n, guint * n_yuv)
{
  const GValue *v = gst_structure_get_value (s, "format");
  guint i;

  *n = *n_yuv = 0;
  if (v && G_VALUE_HOLDS_STRING (v)) {
    *n = 1;
    *n_yuv = is_yuv_input (g_value_get_string (v));
  } else if (v && GST_VALUE_HOLDS_LIST (v)) {
    *n = gst_value_list_get_size (v);
    for (i = 0; i < *n; i++) {
      const GValue *f = gst_value_list_get_value (v, i);
      *n_yuv += G_VALUE_HOLDS_STRING (f) &&
          is_yuv_input (g_value_get_string (f));
    }
  }
}

/* RGB input: any output format, its colorimetry chosen by the element.
 * 4:2:0 input is not converted: the output carries the input's
 * colorimetry, and 4:2:0 output its chroma siting too (the samples are the
 * input's). */
static GstCaps *
gst_cl_color_lowpass_transform_video_caps (GstClFilter * filter G_GNUC_UNUSED,
    GstPadDirection direction, GstCaps * caps)
{
  GstCaps *res = gst_caps_new_empty ();
  guint i, n, n_yuv;

  for (i = 0; i < gst_caps_get_size (caps); i++) {
    const GstStructure *s = gst_caps_get_structure (caps, i);

    count_formats (s, &n, &n_yuv);
    if (direction == GST_PAD_SRC) {
      /* no conversion first, where upstream can do either */
      append_mapped (res, s, YUV_FORMATS, TRUE, n > 0 && n_yuv == n);
      append_mapped (res, s, RGB_FORMATS, FALSE, FALSE);
      continue;
    }
    if (n_yuv < n || n == 0)
      append_mapped (res, s, SRC_FORMATS, FALSE, FALSE);
    if (n_yuv > 0) {
      /* the input's own format first */
      append_mapped (res, s, g_strcmp0 (gst_structure_get_string (s,
                  "format"), "NV12") == 0 ? "NV12, I420" : YUV_FORMATS, TRUE,
          TRUE);
      append_mapped (res, s, "Y444, GRAY8", TRUE, FALSE);
    }
  }
  return gst_caps_simplify (res);
}

static GstCaps *
gst_cl_color_lowpass_fixate_caps (GstBaseTransform * trans,
    GstPadDirection direction, GstCaps * caps, GstCaps * othercaps)
{
  GstClColorLowpass *self = GST_CL_COLOR_LOWPASS (trans);
  GstVideoInfo in, info;
  GstStructure *s;
  gchar *str = NULL;

  othercaps = gst_caps_truncate (othercaps);
  othercaps = gst_caps_make_writable (othercaps);
  s = gst_caps_get_structure (othercaps, 0);
  if (direction != GST_PAD_SINK ||
      gst_structure_has_field_typed (s, "colorimetry", G_TYPE_STRING))
    return gst_caps_fixate (othercaps);

  /* say what the output is, where downstream left it open: 4:2:0 input's
   * own colorimetry (as GStreamer reads it, so that GRAY8 does not take
   * its full-range default), else what the properties choose */
  if (gst_video_info_from_caps (&in, caps) &&
      is_yuv_input (GST_VIDEO_INFO_NAME (&in))) {
    str = gst_video_colorimetry_to_string (&in.colorimetry);
  } else if (self->matrix != GST_CL_MATRIX_AUTO ||
      self->range != GST_CL_RANGE_AUTO) {
    GstCaps *fixed = gst_caps_fixate (gst_caps_ref (othercaps));
    if (gst_video_info_from_caps (&info, fixed)) {
      GstVideoColorimetry cinfo = info.colorimetry;
      cinfo.matrix = resolve_matrix (self, &info);
      cinfo.range = resolve_full_range (self, &info) ?
          GST_VIDEO_COLOR_RANGE_0_255 : GST_VIDEO_COLOR_RANGE_16_235;
      str = gst_video_colorimetry_to_string (&cinfo);
    }
    gst_caps_unref (fixed);
  }
  if (str)
    gst_structure_set (s, "colorimetry", G_TYPE_STRING, str, NULL);
  g_free (str);
  return gst_caps_fixate (othercaps);
}

/* ---- kernels ---- */

static gboolean
gst_cl_color_lowpass_set_info (GstClFilter * filter, GstVideoInfo * in,
    GstVideoInfo * out, GError ** error G_GNUC_UNUSED)
{
  GstClColorLowpass *self = GST_CL_COLOR_LOWPASS (filter);
  GstClContext *ctx = gst_cl_filter_get_context (filter);
  const GstVideoFormatInfo *finfo = in->finfo;
  static const gchar *matrix_names[] = { "unknown", "rgb", "fcc",
    "bt709", "bt601", "smpte240m", "bt2020"
  };
  GstVideoColorMatrix matrix;
  gboolean full;

  switch (GST_VIDEO_INFO_FORMAT (in)) {
    case GST_VIDEO_FORMAT_I420:
      self->in_fmt = IN_I420;
      break;
    case GST_VIDEO_FORMAT_NV12:
      self->in_fmt = IN_NV12;
      break;
    default:
      self->in_fmt = IN_RGB;
      self->in_bpp = GST_VIDEO_FORMAT_INFO_PSTRIDE (finfo, 0);
      self->in_r = GST_VIDEO_FORMAT_INFO_POFFSET (finfo, GST_VIDEO_COMP_R);
      self->in_g = GST_VIDEO_FORMAT_INFO_POFFSET (finfo, GST_VIDEO_COMP_G);
      self->in_b = GST_VIDEO_FORMAT_INFO_POFFSET (finfo, GST_VIDEO_COMP_B);
      break;
  }

  switch (GST_VIDEO_INFO_FORMAT (out)) {
    case GST_VIDEO_FORMAT_I420:
      self->out_fmt = 0;
      break;
    case GST_VIDEO_FORMAT_NV12:
      self->out_fmt = 1;
      break;
    case GST_VIDEO_FORMAT_Y444:
      self->out_fmt = 2;
      break;
    default:
      self->out_fmt = 3;
      break;
  }

  if (self->in_fmt != IN_RGB) {
    gchar *colorimetry = gst_video_colorimetry_to_string (&in->colorimetry);
    GST_INFO_OBJECT (self, "%s -> %s, colorimetry %s kept",
        GST_VIDEO_INFO_NAME (in), GST_VIDEO_INFO_NAME (out),
        GST_STR_NULL (colorimetry));
    GST_OBJECT_LOCK (self);
    if (self->matrix != GST_CL_MATRIX_AUTO || self->range != GST_CL_RANGE_AUTO)
      GST_DEBUG_OBJECT (self, "matrix and range ignored: YCbCr input is not "
          "converted");
    GST_OBJECT_UNLOCK (self);
    g_free (colorimetry);
  } else {
    GST_OBJECT_LOCK (self);
    matrix = resolve_matrix (self, out);
    full = resolve_full_range (self, out);
    GST_OBJECT_UNLOCK (self);
    compute_coefficients (matrix, full, self->ky, self->kcb, self->kcr);
    GST_INFO_OBJECT (self, "%s -> %s, matrix %s, %s range",
        GST_VIDEO_INFO_NAME (in), GST_VIDEO_INFO_NAME (out),
        matrix_names[matrix], full ? "full" : "limited");
  }

  /* GPUs: local-memory tiles, many groups in flight. CPUs: a few
   * work-items walking bands of rows with vectorisable inner loops. */
  self->tile_items = 128;
  self->tile_rows = 8;
  {
    /* development knob for tuning on a new device: "ITEMSxROWS" */
    const gchar *tile = g_getenv ("GST_CL_COLORLOWPASS_TILE");
    guint items, rows;
    if (tile && sscanf (tile, "%ux%u", &items, &rows) == 2 && items >= 1 &&
        items <= ctx->max_work_group_size && rows >= 2 && rows % 2 == 0) {
      self->tile_items = items;
      self->tile_rows = rows;
    }
  }
  self->row_bands = ctx->cpu_layout;
  if (self->row_bands) {
    guint n_bands;
    self->band_rows = 16;
    n_bands = (GST_VIDEO_INFO_HEIGHT (out) + self->band_rows - 1) /
        self->band_rows;
    self->workers = MIN (n_bands, MAX (ctx->compute_units, 1) * 4);
  }
  return TRUE;
}

static void
gst_cl_color_lowpass_release (GstClFilter * filter)
{
  GstClColorLowpass *self = GST_CL_COLOR_LOWPASS (filter);
  gst_cl_video_clear_kernels (&self->kernel, NULL);
  if (self->scratch)
    clReleaseMemObject (self->scratch);
  self->scratch = NULL;
  g_clear_pointer (&self->kernel_options, g_free);
}

static gboolean
gst_cl_color_lowpass_process (GstClFilter * filter, GstClFrame * in,
    GstClFrame * out, GError ** error)
{
  GstClColorLowpass *self = GST_CL_COLOR_LOWPASS (filter);
  GstClContext *ctx = gst_cl_filter_get_context (filter);
  gint width = GST_VIDEO_INFO_WIDTH (&out->info);
  gint height = GST_VIDEO_INFO_HEIGHT (&out->info);
  gboolean aligned;
  gint luma_taps, chroma_taps, strength;
  gchar *options, *in_options;
  size_t global[2], local[2];
  guint arg = 0;

  aligned = self->in_bpp == 4 && in->info.offset[0] % 4 == 0 &&
      in->info.stride[0] % 4 == 0;
  GST_OBJECT_LOCK (self);
  luma_taps = self->luma_filter;
  chroma_taps = self->chroma_filter;
  strength = (gint) lround (self->luma_strength * 256.0);
  GST_OBJECT_UNLOCK (self);

  /* properties may change while playing: rebuild when the options do */
  if (self->in_fmt == IN_RGB)
    in_options = g_strdup_printf ("-DIN_BPP=%d -DIN_R=%d -DIN_G=%d "
        "-DIN_B=%d -DSRC_ALIGNED4=%d", self->in_bpp, self->in_r, self->in_g,
        self->in_b, aligned);
  else
    in_options = g_strdup_printf ("-DIN_FMT=%d", self->in_fmt);
  options = g_strdup_printf ("%s -DOUT_FMT=%d -DLUMA_TAPS=%d "
      "-DCHROMA_TAPS=%d -DLX=%u -DTH=%u", in_options, self->out_fmt,
      luma_taps, chroma_taps, self->tile_items, self->tile_rows);
  g_free (in_options);
  if (!self->kernel || g_strcmp0 (options, self->kernel_options) != 0) {
    gst_cl_color_lowpass_release (filter);
    self->kernel = gst_cl_context_create_kernel (ctx, "colorlowpass",
        options, self->row_bands ? "colorlowpass_rows" : "colorlowpass",
        error);
    if (!self->kernel) {
      g_free (options);
      return FALSE;
    }
    self->kernel_options = options;
  } else {
    g_free (options);
  }

  if (!gst_cl_kernel_set_frame_args (self->kernel, &arg, in, error) ||
      !gst_cl_kernel_set_frame_args (self->kernel, &arg, out, error) ||
      !gst_cl_kernel_set_arg (self->kernel, &arg, sizeof (cl_int), &width,
          error) ||
      !gst_cl_kernel_set_arg (self->kernel, &arg, sizeof (cl_int), &height,
          error) ||
      !gst_cl_kernel_set_arg (self->kernel, &arg, sizeof (cl_int4), self->ky,
          error) ||
      !gst_cl_kernel_set_arg (self->kernel, &arg, sizeof (cl_int4), self->kcb,
          error) ||
      !gst_cl_kernel_set_arg (self->kernel, &arg, sizeof (cl_int4), self->kcr,
          error) ||
      !gst_cl_kernel_set_arg (self->kernel, &arg, sizeof (cl_int), &strength,
          error))
    return FALSE;

  if (self->row_bands) {
    /* rings of 5 rows of Y, Cb, Cr and filtered Y; 2 x 4 chroma rows */
    gsize per_item = 4 * 5 * (gsize) width + 8 * (gsize) ((width + 1) / 2);
    cl_int band_rows = self->band_rows;
    cl_int ret;
    if (!self->scratch) {
      self->scratch = clCreateBuffer (ctx->context, CL_MEM_READ_WRITE,
          per_item * self->workers * sizeof (cl_ushort), NULL, &ret);
      if (!gst_cl_check (ret, "clCreateBuffer", error))
        return FALSE;
    }
    if (!gst_cl_kernel_set_arg (self->kernel, &arg, sizeof (cl_mem),
            &self->scratch, error) ||
        !gst_cl_kernel_set_arg (self->kernel, &arg, sizeof (cl_int),
            &band_rows, error))
      return FALSE;
    global[0] = self->workers;
    local[0] = 1;
    return gst_cl_context_enqueue_kernel (ctx, self->kernel, "colorlowpass",
        1, global, local, error);
  }

  local[0] = self->tile_items;
  local[1] = 1;
  global[0] = (size_t) ((width + 2 * self->tile_items - 1) /
      (2 * self->tile_items)) * self->tile_items;
  global[1] = (height + self->tile_rows - 1) / self->tile_rows;
  return gst_cl_context_enqueue_kernel (ctx, self->kernel, "colorlowpass", 2,
      global, local, error);
}

/* ---- GObject ---- */

static void
gst_cl_color_lowpass_set_property (GObject * object, guint prop_id,
    const GValue * value, GParamSpec * pspec)
{
  GstClColorLowpass *self = GST_CL_COLOR_LOWPASS (object);

  GST_OBJECT_LOCK (self);
  switch (prop_id) {
    case PROP_LUMA_FILTER:
      self->luma_filter = g_value_get_enum (value);
      break;
    case PROP_LUMA_STRENGTH:
      self->luma_strength = g_value_get_double (value);
      break;
    case PROP_CHROMA_FILTER:
      self->chroma_filter = g_value_get_enum (value);
      break;
    case PROP_MATRIX:
      self->matrix = g_value_get_enum (value);
      break;
    case PROP_RANGE:
      self->range = g_value_get_enum (value);
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
      break;
  }
  GST_OBJECT_UNLOCK (self);
}

static void
gst_cl_color_lowpass_get_property (GObject * object, guint prop_id,
    GValue * value, GParamSpec * pspec)
{
  GstClColorLowpass *self = GST_CL_COLOR_LOWPASS (object);

  GST_OBJECT_LOCK (self);
  switch (prop_id) {
    case PROP_LUMA_FILTER:
      g_value_set_enum (value, self->luma_filter);
      break;
    case PROP_LUMA_STRENGTH:
      g_value_set_double (value, self->luma_strength);
      break;
    case PROP_CHROMA_FILTER:
      g_value_set_enum (value, self->chroma_filter);
      break;
    case PROP_MATRIX:
      g_value_set_enum (value, self->matrix);
      break;
    case PROP_RANGE:
      g_value_set_enum (value, self->range);
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
      break;
  }
  GST_OBJECT_UNLOCK (self);
}

static void
gst_cl_color_lowpass_class_init (GstClColorLowpassClass * klass)
{
  GObjectClass *gobject_class = G_OBJECT_CLASS (klass);
  GstElementClass *element_class = GST_ELEMENT_CLASS (klass);
  GstClFilterClass *filter_class = GST_CL_FILTER_CLASS (klass);
  const GParamFlags flags = G_PARAM_READWRITE | G_PARAM_STATIC_STRINGS |
      GST_PARAM_CONTROLLABLE | GST_PARAM_MUTABLE_PLAYING;

  gobject_class->set_property = gst_cl_color_lowpass_set_property;
  gobject_class->get_property = gst_cl_color_lowpass_get_property;

  g_object_class_install_property (gobject_class, PROP_LUMA_FILTER,
      g_param_spec_enum ("luma-filter", "Luma filter",
          "Lowpass filter applied to luma", GST_TYPE_CL_LUMA_FILTER,
          DEFAULT_LUMA_FILTER, flags));
  g_object_class_install_property (gobject_class, PROP_LUMA_STRENGTH,
      g_param_spec_double ("luma-strength", "Luma filter strength",
          "Blend of the filtered (1.0) and unfiltered (0.0) luma", 0.0, 1.0,
          DEFAULT_LUMA_STRENGTH, flags));
  g_object_class_install_property (gobject_class, PROP_CHROMA_FILTER,
      g_param_spec_enum ("chroma-filter", "Chroma filter",
          "Anti-alias filter applied before 4:2:0 chroma decimation of RGB "
          "input; for Y444 output of 4:2:0 input, the upsampling (triangle: "
          "bilinear, box: replication)",
          GST_TYPE_CL_CHROMA_FILTER, DEFAULT_CHROMA_FILTER, flags));
  g_object_class_install_property (gobject_class, PROP_MATRIX,
      g_param_spec_enum ("matrix", "Matrix",
          "YCbCr matrix of RGB input (auto: from the output caps' "
          "colorimetry); YCbCr input keeps its own",
          GST_TYPE_CL_MATRIX, DEFAULT_MATRIX,
          G_PARAM_READWRITE | G_PARAM_STATIC_STRINGS |
          GST_PARAM_MUTABLE_READY));
  g_object_class_install_property (gobject_class, PROP_RANGE,
      g_param_spec_enum ("range", "Range",
          "Output value range of RGB input (auto: from the output caps' "
          "colorimetry); YCbCr input keeps its own",
          GST_TYPE_CL_RANGE, DEFAULT_RANGE,
          G_PARAM_READWRITE | G_PARAM_STATIC_STRINGS |
          GST_PARAM_MUTABLE_READY));

  gst_element_class_set_static_metadata (element_class,
      "OpenCL RGB to YCbCr with lowpass filter", "Filter/Converter/Video",
      "Converts RGB to YCbCr (I420, NV12, Y444, GRAY8) with a luma lowpass "
      "and chroma anti-alias filter, in one OpenCL kernel; filters the luma "
      "of I420 and NV12 input alike, without conversion",
      "gst-clvideo developers");
  gst_cl_filter_class_add_pad_templates (element_class, SINK_FORMATS,
      SRC_FORMATS, TRUE, TRUE, TRUE, TRUE);

  GST_BASE_TRANSFORM_CLASS (klass)->fixate_caps =
      gst_cl_color_lowpass_fixate_caps;
  filter_class->transform_video_caps =
      gst_cl_color_lowpass_transform_video_caps;
  filter_class->set_info = gst_cl_color_lowpass_set_info;
  filter_class->process = gst_cl_color_lowpass_process;
  filter_class->release = gst_cl_color_lowpass_release;

  gst_type_mark_as_plugin_api (GST_TYPE_CL_LUMA_FILTER, 0);
  gst_type_mark_as_plugin_api (GST_TYPE_CL_CHROMA_FILTER, 0);
  gst_type_mark_as_plugin_api (GST_TYPE_CL_MATRIX, 0);
  gst_type_mark_as_plugin_api (GST_TYPE_CL_RANGE, 0);
  gst_type_mark_as_plugin_api (GST_TYPE_CL_FILTER, 0);
}

static void
gst_cl_color_lowpass_init (GstClColorLowpass * self)
{
  self->luma_filter = DEFAULT_LUMA_FILTER;
  self->luma_strength = DEFAULT_LUMA_STRENGTH;
  self->chroma_filter = DEFAULT_CHROMA_FILTER;
  self->matrix = DEFAULT_MATRIX;
  self->range = DEFAULT_RANGE;
}
