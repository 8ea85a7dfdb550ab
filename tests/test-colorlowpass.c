/* gst-clvideo: clcolorlowpass against a plain C reference
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * Frames go through the element in a GstHarness and must come out
 * bit-exact with colorlowpass-ref.c, which is written from the
 * specification. With the luma filter off they must also agree with
 * videoconvert within one step, but for the few cases where videoconvert's
 * own rounding is two steps off (see vc_off_by_two).
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <gst/check/gstcheck.h>
#include <gst/check/gstharness.h>
#include <gst/video/video.h>
#include <math.h>
#include <string.h>

#include <gst/cl/gstclcontext.h>
#include <gst/cl/gstclmemory.h>
#include <gst/cl/gstclhostmemory.h>
#include <gst/cl/gstclbufferpool.h>
#include "colorlowpass-ref.h"
#include "testutil.h"

/* ---- formats ---- */

/* Byte positions written down by hand, not taken from GstVideoFormatInfo
 * as the element does, so that a wrong table on either side shows. */
typedef struct
{
  const gchar *name;
  gint bpp, r, g, b;
} InFormat;

static const InFormat in_formats[] = {
  {"RGB", 3, 0, 1, 2},
  {"BGR", 3, 2, 1, 0},
  {"RGBx", 4, 0, 1, 2},
  {"BGRx", 4, 2, 1, 0},
  {"xRGB", 4, 1, 2, 3},
  {"xBGR", 4, 3, 2, 1},
  {"RGBA", 4, 0, 1, 2},
  {"BGRA", 4, 2, 1, 0},
  {"ARGB", 4, 1, 2, 3},
  {"ABGR", 4, 3, 2, 1},
};

#define N_IN_FORMATS G_N_ELEMENTS (in_formats)

static const gchar *out_formats[] = { "I420", "NV12", "Y444", "GRAY8" };

#define N_OUT_FORMATS G_N_ELEMENTS (out_formats)

static const InFormat *
find_in_format (const gchar * name)
{
  guint i;
  for (i = 0; i < N_IN_FORMATS; i++)
    if (strcmp (in_formats[i].name, name) == 0)
      return &in_formats[i];
  g_assert_not_reached ();
  return NULL;
}

static gboolean
is_gray (const gchar * out_format)
{
  return strcmp (out_format, "GRAY8") == 0;
}

/* ---- input frames ---- */

typedef enum
{
  CONTENT_RANDOM,               /* every byte, padding included */
  CONTENT_NATURAL,              /* gradients, hard edges, noise, colour bars */
} Content;

static const gchar *
content_name (Content c)
{
  return c == CONTENT_RANDOM ? "random" : "natural";
}

static inline guint8
clamp_u8 (gint v)
{
  return v < 0 ? 0 : (v > 255 ? 255 : v);
}

/* Camera-like content: filters and edge handling see smooth areas and
 * sharp steps; the top band holds exact primaries, where full-range chroma
 * saturates. Padding and alpha bytes keep the random values they had. */
static void
fill_natural (guint8 * data, gint stride, const InFormat * f, gint width,
    gint height, guint32 * rng)
{
  static const guint8 bars[8][3] = {
    {0, 0, 0}, {255, 0, 0}, {0, 255, 0}, {0, 0, 255},
    {255, 255, 0}, {0, 255, 255}, {255, 0, 255}, {255, 255, 255}
  };
  gint cx = width / 2, cy = height / 2;
  gint radius = MIN (width, height) / 3;
  gint x, y;

  for (y = 0; y < height; y++) {
    guint8 *row = data + (gsize) y * stride;
    for (x = 0; x < width; x++) {
      guint8 *p = row + x * f->bpp;
      gint r, g, b;

      if (y < height / 8) {
        const guint8 *bar = bars[x * 8 / width];
        r = bar[0];
        g = bar[1];
        b = bar[2];
      } else {
        gint dx = x - cx, dy = y - cy;
        gint noise = (gint) (test_rng_next (rng) % 13) - 6;

        r = width > 1 ? x * 255 / (width - 1) : 128;
        g = height > 1 ? y * 255 / (height - 1) : 128;
        b = (r + g) / 2;
        if (dx * dx + dy * dy < radius * radius) {
          /* a disc of the complementary colour: an edge in every channel */
          r = 255 - r;
          g = 255 - g;
          b = 255 - b;
        }
        if ((x / 4) % 16 == 15)
          r = g = b = (y & 1) ? 250 : 5;        /* thin line pairs */
        r = clamp_u8 (r + noise);
        g = clamp_u8 (g - noise);
        b = clamp_u8 (b + noise / 2);
      }
      p[f->r] = r;
      p[f->g] = g;
      p[f->b] = b;
    }
  }
}

static gint
default_stride (const InFormat * f, gint width)
{
  GstVideoInfo info;
  gst_video_info_set_format (&info, gst_video_format_from_string (f->name),
      width, 1);
  return GST_VIDEO_INFO_PLANE_STRIDE (&info, 0);
}

/* An input frame and where its pixels are, for the reference. */
typedef struct
{
  const InFormat *fmt;
  gint width, height;
  gint stride;
  gsize offset;                 /* of the first pixel in the buffer */
  GstBuffer *buffer;
  gchar *desc;
} Input;

static void
input_clear (Input * in)
{
  gst_clear_buffer (&in->buffer);
  g_clear_pointer (&in->desc, g_free);
}

static void
input_fill (Input * in, guint8 * data, gsize size, Content content,
    guint32 seed)
{
  guint32 rng = seed ? seed : 1;

  test_fill_random (data, size, &rng);
  if (content == CONTENT_NATURAL)
    fill_natural (data + in->offset, in->stride, in->fmt, in->width,
        in->height, &rng);
}

/* A system-memory frame. With @stride 0 the layout is the default one and
 * no GstVideoMeta is attached; otherwise the meta carries @stride and
 * @offset. */
static void
input_make (Input * in, const InFormat * f, gint width, gint height,
    gint stride, gsize offset, Content content, guint32 seed)
{
  gboolean meta = stride != 0;
  GstMapInfo map;
  gsize size;

  in->fmt = f;
  in->width = width;
  in->height = height;
  in->stride = meta ? stride : default_stride (f, width);
  in->offset = meta ? offset : 0;
  size = in->offset + (gsize) in->stride * height;
  if (meta)
    size += 3;                  /* trailing bytes the element must not need */
  in->buffer = gst_buffer_new_allocate (NULL, size, NULL);
  fail_unless (gst_buffer_map (in->buffer, &map, GST_MAP_WRITE));
  input_fill (in, map.data, size, content, seed);
  gst_buffer_unmap (in->buffer, &map);

  if (meta) {
    gsize offsets[GST_VIDEO_MAX_PLANES] = { offset, };
    gint strides[GST_VIDEO_MAX_PLANES] = { stride, };
    gst_buffer_add_video_meta_full (in->buffer, GST_VIDEO_FRAME_FLAG_NONE,
        gst_video_format_from_string (f->name), width, height, 1, offsets,
        strides);
  }
  in->desc = g_strdup_printf ("%s %dx%d %s seed 0x%08x stride %d offset %"
      G_GSIZE_FORMAT "%s", f->name, width, height, content_name (content),
      seed, in->stride, in->offset, meta ? " (meta)" : "");
}

static gchar *
in_caps_string (const InFormat * f, gint width, gint height)
{
  return g_strdup_printf ("video/x-raw,format=%s,width=%d,height=%d,"
      "framerate=30/1", f->name, width, height);
}

static void
set_input_caps (GstHarness * h, const Input * in)
{
  gchar *caps = in_caps_string (in->fmt, in->width, in->height);
  gst_harness_set_src_caps_str (h, caps);
  g_free (caps);
}

/* ---- running and comparing ---- */

static void
output_info (GstHarness * h, GstVideoInfo * info)
{
  GstCaps *caps = gst_pad_get_current_caps (h->sinkpad);
  fail_unless (caps != NULL);
  fail_unless (gst_video_info_from_caps (info, caps));
  gst_caps_unref (caps);
}

/* Bytes and rows of @plane that carry samples, from the specification:
 * 4:2:0 chroma is ceil(W/2) x ceil(H/2), NV12 interleaves U and V. */
static void
plane_extent (GstVideoFormat format, guint plane, gint width, gint height,
    gint * bytes, gint * rows)
{
  *bytes = width;
  *rows = height;
  if (plane == 0 || format == GST_VIDEO_FORMAT_Y444)
    return;
  *bytes = (width + 1) / 2 * (format == GST_VIDEO_FORMAT_NV12 ? 2 : 1);
  *rows = (height + 1) / 2;
}

static const gchar *
plane_name (GstVideoFormat format, guint plane)
{
  static const gchar *yuv[] = { "Y", "U", "V" };
  if (format == GST_VIDEO_FORMAT_NV12 && plane == 1)
    return "UV";
  return yuv[plane];
}

/* Compares the element's frame with the expected planes (laid out as
 * @exp_info says); TRUE when every sample is within @tolerance. */
static gboolean
compare_frame (GstBuffer * buffer, const GstVideoInfo * info,
    const GstVideoInfo * exp_info, const guint8 * expected, gint tolerance,
    guint n_planes, GString * report)
{
  GstVideoFormat format = GST_VIDEO_INFO_FORMAT (exp_info);
  gint width = GST_VIDEO_INFO_WIDTH (exp_info);
  gint height = GST_VIDEO_INFO_HEIGHT (exp_info);
  GstVideoFrame frame;
  gboolean ok = TRUE;
  guint p;

  if (GST_VIDEO_INFO_FORMAT (info) != format ||
      GST_VIDEO_INFO_WIDTH (info) != width ||
      GST_VIDEO_INFO_HEIGHT (info) != height) {
    g_string_append_printf (report, "output is %s %dx%d, expected %s %dx%d",
        GST_VIDEO_INFO_NAME (info), GST_VIDEO_INFO_WIDTH (info),
        GST_VIDEO_INFO_HEIGHT (info), GST_VIDEO_INFO_NAME (exp_info), width,
        height);
    return FALSE;
  }
  if (!gst_video_frame_map (&frame, (GstVideoInfo *) info, buffer,
          GST_MAP_READ)) {
    g_string_append (report, "cannot map the output frame");
    return FALSE;
  }

  for (p = 0; p < n_planes; p++) {
    const guint8 *got = GST_VIDEO_FRAME_PLANE_DATA (&frame, p);
    gint got_stride = GST_VIDEO_FRAME_PLANE_STRIDE (&frame, p);
    gint bytes, rows, x, y, first_x = -1, first_y = -1, first_exp = 0;
    gint first_got = 0, max_diff = 0;
    guint64 bad = 0;

    plane_extent (format, p, width, height, &bytes, &rows);
    for (y = 0; y < rows; y++) {
      const guint8 *e = expected + exp_info->offset[p] +
          (gsize) y * exp_info->stride[p];
      const guint8 *g = got + (gsize) y * got_stride;
      for (x = 0; x < bytes; x++) {
        gint d = ABS ((gint) g[x] - (gint) e[x]);
        if (d <= tolerance)
          continue;
        if (bad++ == 0) {
          first_x = x;
          first_y = y;
          first_exp = e[x];
          first_got = g[x];
        }
        max_diff = MAX (max_diff, d);
      }
    }
    if (bad) {
      g_string_append_printf (report, "\n  plane %s: %" G_GUINT64_FORMAT
          " of %d samples off by more than %d (max %d); first at byte "
          "x=%d y=%d: expected %d, got %d", plane_name (format, p), bad,
          bytes * rows, tolerance, max_diff, first_x, first_y, first_exp,
          first_got);
      ok = FALSE;
    }
  }
  gst_video_frame_unmap (&frame);
  return ok;
}

static const gchar *
matrix_name (GstVideoColorMatrix m)
{
  switch (m) {
    case GST_VIDEO_COLOR_MATRIX_BT601:
      return "bt601";
    case GST_VIDEO_COLOR_MATRIX_BT709:
      return "bt709";
    case GST_VIDEO_COLOR_MATRIX_BT2020:
      return "bt2020";
    default:
      return "?";
  }
}

/* Runs the reference on the input (@in_buffer, mapped) into @expected, a
 * frame laid out as @exp_info says */
typedef void (*RefRun) (gconstpointer in, const guint8 * data,
    const GstVideoInfo * exp_info, guint8 * expected, const RefParams * prm);

/* Checks the element's @out, from @in_buffer (@in_desc) of @width x
 * @height, bit-exact against what @ref makes of it; @colour names the
 * colour conversion, if any. */
static void
check_against (GstHarness * h, GstBuffer * out, RefRun ref, gconstpointer in,
    GstBuffer * in_buffer, const gchar * in_desc, gint width, gint height,
    const RefParams * prm, const gchar * colour, const gchar * what)
{
  GstVideoInfo info, exp_info;
  GstMapInfo map;
  GString *report = g_string_new (NULL);
  guint8 *expected;
  gboolean ok;

  output_info (h, &info);
  gst_video_info_set_format (&exp_info, GST_VIDEO_INFO_FORMAT (&info),
      width, height);
  expected = g_malloc0 (exp_info.size);
  fail_unless (gst_buffer_map (in_buffer, &map, GST_MAP_READ));
  ref (in, map.data, &exp_info, expected, prm);
  gst_buffer_unmap (in_buffer, &map);

  ok = compare_frame (out, &info, &exp_info, expected, 0,
      GST_VIDEO_INFO_N_PLANES (&exp_info), report);
  fail_unless (ok, "%s: %s -> %s (%sluma %d taps strength %d/256, chroma "
      "%d taps) differs from the reference:%s", what, in_desc,
      GST_VIDEO_INFO_NAME (&exp_info), colour, prm->luma_taps, prm->strength,
      prm->chroma_taps, report->str);
  g_string_free (report, TRUE);
  g_free (expected);
}

static void
ref_run_rgb (gconstpointer input, const guint8 * data,
    const GstVideoInfo * exp_info, guint8 * expected, const RefParams * prm)
{
  const Input *in = input;
  ref_colorlowpass (data + in->offset, in->stride, in->fmt->bpp, in->fmt->r,
      in->fmt->g, in->fmt->b, exp_info, expected, prm);
}

/* Converts @in with the reference and checks the element's @out against
 * it, bit-exact. */
static void
check_output (GstHarness * h, GstBuffer * out, const Input * in,
    const RefParams * prm, const gchar * what)
{
  gchar *colour = g_strdup_printf ("%s %s range, ", matrix_name (prm->matrix),
      prm->full_range ? "full" : "limited");
  check_against (h, out, ref_run_rgb, in, in->buffer, in->desc, in->width,
      in->height, prm, colour, what);
  g_free (colour);
}

static void
ref_params_init (RefParams * p, GstVideoColorMatrix matrix, gboolean full,
    gint luma_taps, gint strength, gint chroma_taps)
{
  p->matrix = matrix;
  p->full_range = full;
  p->luma_taps = luma_taps;
  p->strength = strength;
  p->chroma_taps = chroma_taps;
}

/* What the element chooses for sink caps without colorimetry and all
 * properties at their defaults: GStreamer fills in its default colorimetry
 * (YUV: BT.601 up to 576 lines, BT.709 above, limited; GRAY8: BT.601,
 * full), which the element then follows. */
static void
default_params (RefParams * p, const gchar * out_format, gint height)
{
  if (is_gray (out_format))
    ref_params_init (p, GST_VIDEO_COLOR_MATRIX_BT601, TRUE, 3, 256, 4);
  else
    ref_params_init (p, height > 576 ? GST_VIDEO_COLOR_MATRIX_BT709 :
        GST_VIDEO_COLOR_MATRIX_BT601, FALSE, 3, 256, 4);
}

static gchar *
out_caps_string (const gchar * out_format, const gchar * colorimetry)
{
  return g_strdup_printf ("video/x-raw,format=%s%s%s", out_format,
      colorimetry ? ",colorimetry=" : "", colorimetry ? colorimetry : "");
}

static GstHarness *
new_harness (const gchar * props, const gchar * out_format,
    const gchar * colorimetry)
{
  GstHarness *h = test_harness_new ("clcolorlowpass", props);
  gchar *caps;

  caps = out_caps_string (out_format, colorimetry);
  gst_harness_set_sink_caps_str (h, caps);
  g_free (caps);
  return h;
}

/* The same through gst_harness_new_parse(), with the element's own
 * context and a bin around it. */
static GstHarness *
new_harness_parse (const gchar * props, const gchar * out_format,
    const gchar * colorimetry)
{
  gchar *desc = g_strdup_printf ("clcolorlowpass %s", props ? props : "");
  gchar *caps = out_caps_string (out_format, colorimetry);
  GstHarness *h = gst_harness_new_parse (desc);

  test_attach_bus (h->element);
  gst_harness_set_sink_caps_str (h, caps);
  g_free (desc);
  g_free (caps);
  return h;
}

/* One frame through @h, checked against the reference. */
static void
run_and_check (GstHarness * h, Input * in, const RefParams * prm,
    const gchar * what)
{
  GstBuffer *out;

  out = test_push_and_pull (h, in->buffer, in->desc);
  check_output (h, out, in, prm, what);
  gst_buffer_unref (out);
}

/* ---- every input format to every output format ---- */

static const struct
{
  gint width, height;
} format_sizes[] = {
  {1, 1}, {17, 9}, {640, 480}, {1918, 1078}, {2048, 2048},
};

/* One harness per format pair, taking every size in turn (renegotiating
 * in between), with the default properties. */
GST_START_TEST (test_formats)
{
  const InFormat *f = &in_formats[__i__ / N_OUT_FORMATS];
  const gchar *out_format = out_formats[__i__ % N_OUT_FORMATS];
  GstHarness *h = new_harness_parse (NULL, out_format, NULL);
  guint s, c;

  for (s = 0; s < G_N_ELEMENTS (format_sizes); s++) {
    gint w = format_sizes[s].width, ht = format_sizes[s].height;
    RefParams prm;

    default_params (&prm, out_format, ht);
    for (c = 0; c < 2; c++) {
      Input in = { 0, };
      input_make (&in, f, w, ht, 0, 0, c, test_seed (f->name, __i__ * 16 + s));
      set_input_caps (h, &in);
      run_and_check (h, &in, &prm, "formats");
      input_clear (&in);
    }
  }
  test_harness_teardown (h);
}

GST_END_TEST;

/* ---- filters ---- */

static const gchar *luma_names[] = { "none", "binomial-3x3", "gaussian-5x5" };
static const gint luma_taps[] = { 1, 3, 5 };
static const gchar *chroma_names[] = { "box", "triangle" };
static const gint chroma_taps[] = { 2, 4 };
static const gchar *strengths[] = { "0.0", "0.3", "0.5", "1.0" };
/* lround (strength * 256) */
static const gint strength_256[] = { 0, 77, 128, 256 };

#define N_FILTER_CASES (3 * 2)

/* Every filter setting, each output format, on odd and tiny sizes so that
 * the clamped edges and the last half-covered chroma column and row show. */
GST_START_TEST (test_filters)
{
  guint luma = __i__ / 2, chroma = __i__ % 2;
  static const struct
  {
    gint w, h;
  } sizes[] = { {67, 45}, {2, 2}, {3, 7}, {130, 3}, {1, 6} };
  guint o, st, s, c;

  for (o = 0; o < N_OUT_FORMATS; o++) {
    const InFormat *f = &in_formats[(__i__ * 4 + o) % N_IN_FORMATS];

    for (st = 0; st < G_N_ELEMENTS (strengths); st++) {
      gchar *props = g_strdup_printf ("luma-filter=%s luma-strength=%s "
          "chroma-filter=%s matrix=bt709 range=limited", luma_names[luma],
          strengths[st], chroma_names[chroma]);
      GstHarness *h = new_harness (props, out_formats[o], NULL);
      RefParams prm;

      ref_params_init (&prm, GST_VIDEO_COLOR_MATRIX_BT709, FALSE,
          luma_taps[luma], strength_256[st], chroma_taps[chroma]);
      for (s = 0; s < G_N_ELEMENTS (sizes); s++) {
        for (c = 0; c < 2; c++) {
          Input in = { 0, };
          input_make (&in, f, sizes[s].w, sizes[s].h, 0, 0, c,
              test_seed (props, o * 64 + s * 2 + c));
          set_input_caps (h, &in);
          run_and_check (h, &in, &prm, props);
          input_clear (&in);
        }
      }
      test_harness_teardown (h);
      g_free (props);
    }
  }
}

GST_END_TEST;

/* luma-strength is mutable while playing: a change applies to the next
 * frame without renegotiation. */
GST_START_TEST (test_strength_change)
{
  GstHarness *h = new_harness ("luma-filter=gaussian-5x5 matrix=bt601 "
      "range=full", "I420", NULL);
  GstElement *e = gst_harness_find_element (h, "clcolorlowpass");
  const InFormat *f = find_in_format ("BGRx");
  Input in = { 0, };
  RefParams prm;
  guint i;

  input_make (&in, f, 67, 45, 0, 0, CONTENT_NATURAL, 7);
  set_input_caps (h, &in);
  for (i = 0; i < G_N_ELEMENTS (strengths); i++) {
    g_object_set (e, "luma-strength", g_ascii_strtod (strengths[i], NULL),
        NULL);
    ref_params_init (&prm, GST_VIDEO_COLOR_MATRIX_BT601, TRUE, 5,
        strength_256[i], 4);
    run_and_check (h, &in, &prm, strengths[i]);
  }
  gst_util_set_object_arg (G_OBJECT (e), "luma-filter", "binomial-3x3");
  gst_util_set_object_arg (G_OBJECT (e), "chroma-filter", "box");
  ref_params_init (&prm, GST_VIDEO_COLOR_MATRIX_BT601, TRUE, 3, 256, 2);
  run_and_check (h, &in, &prm, "filters changed while playing");

  input_clear (&in);
  gst_object_unref (e);
  test_harness_teardown (h);
}

GST_END_TEST;

/* ---- matrix and range ---- */

typedef struct
{
  const gchar *props;
  const gchar *colorimetry;     /* of the output caps; NULL: none */
  gint height;
  /* expected, for YUV and for GRAY8 output */
  GstVideoColorMatrix matrix_yuv, matrix_gray;
  gboolean full_yuv, full_gray;
} ColourCase;

#define BT601 GST_VIDEO_COLOR_MATRIX_BT601
#define BT709 GST_VIDEO_COLOR_MATRIX_BT709
#define BT2020 GST_VIDEO_COLOR_MATRIX_BT2020

static const ColourCase colour_cases[] = {
  /* the properties, downstream open */
  {"matrix=bt601 range=full", NULL, 45, BT601, BT601, TRUE, TRUE},
  {"matrix=bt601 range=limited", NULL, 45, BT601, BT601, FALSE, FALSE},
  {"matrix=bt709 range=full", NULL, 45, BT709, BT709, TRUE, TRUE},
  {"matrix=bt709 range=limited", NULL, 45, BT709, BT709, FALSE, FALSE},
  {"matrix=bt2020 range=full", NULL, 45, BT2020, BT2020, TRUE, TRUE},
  {"matrix=bt2020 range=limited", NULL, 45, BT2020, BT2020, FALSE, FALSE},
  /* one property set, the other auto from GStreamer's default caps */
  {"matrix=bt2020", NULL, 45, BT2020, BT2020, FALSE, TRUE},
  {"range=full", NULL, 45, BT601, BT601, TRUE, TRUE},
  {"range=limited", NULL, 600, BT709, BT601, FALSE, FALSE},
  /* the properties win over the caps */
  {"matrix=bt709", "bt601", 45, BT709, BT709, FALSE, FALSE},
  {"range=full", "bt709", 45, BT709, BT709, TRUE, TRUE},
  {"matrix=bt601 range=limited", "1:6:0:0", 45, BT601, BT601, FALSE, FALSE},
  /* auto, from the output caps */
  {NULL, "bt601", 45, BT601, BT601, FALSE, FALSE},
  {NULL, "bt709", 45, BT709, BT709, FALSE, FALSE},
  {NULL, "bt2020", 45, BT2020, BT2020, FALSE, FALSE},
  {NULL, "1:4:0:0", 45, BT601, BT601, TRUE, TRUE},
  {NULL, "1:3:0:0", 45, BT709, BT709, TRUE, TRUE},
  {NULL, "1:6:0:0", 45, BT2020, BT2020, TRUE, TRUE},
  {NULL, "2:6:0:0", 45, BT2020, BT2020, FALSE, FALSE},
  {NULL, "2:4:0:0", 1080, BT601, BT601, FALSE, FALSE},
  /* An unknown matrix is invalid for YUV: GstVideoInfo (and so every
   * element reading these caps) replaces the whole colorimetry, range
   * included, with its default for the size. GRAY8 keeps it, and the
   * element picks the matrix by height. An unknown range: limited, except
   * GRAY8. */
  {NULL, "1:0:0:0", 45, BT601, BT601, FALSE, TRUE},
  {NULL, "1:0:0:0", 576, BT601, BT601, FALSE, TRUE},
  {NULL, "1:0:0:0", 577, BT709, BT709, FALSE, TRUE},
  {NULL, "0:3:0:0", 45, BT709, BT709, FALSE, TRUE},
  {NULL, "0:0:0:0", 577, BT709, BT709, FALSE, TRUE},
  {NULL, "0:0:0:0", 9, BT601, BT601, FALSE, TRUE},
  /* no colorimetry at all: GStreamer's defaults for the caps (1.22: YUV
   * BT.709 above 576 lines, even at 2160; GRAY8 BT.601 full range at any
   * size) */
  {NULL, NULL, 45, BT601, BT601, FALSE, TRUE},
  {NULL, NULL, 600, BT709, BT601, FALSE, TRUE},
  {NULL, NULL, 2160, BT709, BT601, FALSE, TRUE},
};

GST_START_TEST (test_colour)
{
  const gchar *out_format = out_formats[__i__];
  gboolean gray = is_gray (out_format);
  guint i, c;

  for (i = 0; i < G_N_ELEMENTS (colour_cases); i++) {
    const ColourCase *cc = &colour_cases[i];
    const InFormat *f = &in_formats[(i + __i__) % 3 * 3];
    gchar *what = g_strdup_printf ("props \"%s\", colorimetry %s",
        GST_STR_NULL (cc->props), GST_STR_NULL (cc->colorimetry));
    GstHarness *h = new_harness (cc->props, out_format, cc->colorimetry);
    RefParams prm;

    ref_params_init (&prm, gray ? cc->matrix_gray : cc->matrix_yuv,
        gray ? cc->full_gray : cc->full_yuv, 3, 256, 4);
    for (c = 0; c < 2; c++) {
      Input in = { 0, };
      input_make (&in, f, 67, cc->height, 0, 0, c, test_seed (what, i * 2 + c));
      set_input_caps (h, &in);
      run_and_check (h, &in, &prm, what);
      input_clear (&in);
    }
    test_harness_teardown (h);
    g_free (what);
  }
}

GST_END_TEST;

/* Exact values for flat colours, worked out by hand from the
 * specification: they pin down the coefficients and the rounding, where
 * the reference and the element could otherwise agree on a mistake. */
typedef struct
{
  const gchar *colorimetry;
  guint8 rgb[3];
  guint8 yuv[3];
} KnownValue;

static const KnownValue known_values[] = {
  {"bt601", {0, 0, 0}, {16, 128, 128}},
  {"bt601", {255, 255, 255}, {235, 128, 128}},
  {"bt601", {128, 128, 128}, {126, 128, 128}},
  /* Y is 81.48: 1303.7 in 1/16 steps rounds to 1304, which rounds up */
  {"bt601", {255, 0, 0}, {82, 90, 240}},
  {"bt601", {0, 255, 0}, {145, 54, 34}},
  {"bt601", {0, 0, 255}, {41, 240, 110}},
  {"bt709", {255, 0, 0}, {63, 102, 240}},
  {"bt709", {0, 0, 255}, {32, 240, 118}},
  {"bt2020", {0, 255, 0}, {165, 47, 25}},
  /* full range: saturated Cb and Cr are 255.5, stored as 255 */
  {"1:4:0:0", {255, 255, 255}, {255, 128, 128}},
  {"1:4:0:0", {0, 0, 255}, {29, 255, 107}},
  {"1:4:0:0", {255, 0, 0}, {76, 85, 255}},
  {"1:4:0:0", {255, 255, 0}, {226, 1, 149}},
  {"1:3:0:0", {0, 0, 255}, {18, 255, 116}},
  {"1:6:0:0", {255, 0, 255}, {82, 220, 245}},
};

GST_START_TEST (test_known_values)
{
  GString *report = g_string_new (NULL);
  guint i, o;

  for (i = 0; i < G_N_ELEMENTS (known_values); i++) {
    const KnownValue *kv = &known_values[i];
    const InFormat *f = &in_formats[(i % 3) * 4];

    for (o = 0; o < 3; o++) {   /* I420, NV12, Y444 */
      GstHarness *h = new_harness ("luma-filter=gaussian-5x5", out_formats[o],
          kv->colorimetry);
      Input in = { 0, };
      GstVideoInfo info;
      GstVideoFrame frame;
      GstBuffer *out;
      GstMapInfo map;
      gint x, y, p;

      input_make (&in, f, 9, 5, 0, 0, CONTENT_RANDOM, i + 1);
      fail_unless (gst_buffer_map (in.buffer, &map, GST_MAP_WRITE));
      for (y = 0; y < 5; y++)
        for (x = 0; x < 9; x++) {
          guint8 *px = map.data + y * in.stride + x * f->bpp;
          px[f->r] = kv->rgb[0];
          px[f->g] = kv->rgb[1];
          px[f->b] = kv->rgb[2];
        }
      gst_buffer_unmap (in.buffer, &map);
      set_input_caps (h, &in);
      out = test_push_and_pull (h, in.buffer, in.desc);
      output_info (h, &info);
      fail_unless (gst_video_frame_map (&frame, &info, out, GST_MAP_READ));
      for (p = 0; p < 3; p++) {
        /* component p, whatever the plane layout */
        gint cw = p == 0 || o == 2 ? 9 : 5, chh = p == 0 || o == 2 ? 5 : 3;
        guint bad = 0;
        gint first = -1;

        for (y = 0; y < chh; y++)
          for (x = 0; x < cw; x++) {
            const guint8 *row =
                (const guint8 *) GST_VIDEO_FRAME_COMP_DATA (&frame, p) +
                y * GST_VIDEO_FRAME_COMP_STRIDE (&frame, p);
            gint v = row[x * GST_VIDEO_FRAME_COMP_PSTRIDE (&frame, p)];
            if (v != kv->yuv[p] && bad++ == 0)
              first = v;
          }
        if (bad)
          g_string_append_printf (report, "\n  %s rgb %d,%d,%d -> %s: "
              "component %c is %d in %u of %d samples, expected %d",
              kv->colorimetry, kv->rgb[0], kv->rgb[1], kv->rgb[2],
              out_formats[o], "YUV"[p], first, bad, cw * chh, kv->yuv[p]);
      }
      gst_video_frame_unmap (&frame);
      gst_buffer_unref (out);
      input_clear (&in);
      test_harness_teardown (h);
    }
  }
  fail_unless (report->len == 0, "flat colours:%s", report->str);
  g_string_free (report, TRUE);
}

GST_END_TEST;

/* Saturation belongs at the very end: near-saturated chroma is filtered in
 * 1/16 steps that may exceed 255.0 (pure blue's Cb16 is 4088, 255.5), and
 * only the rounded 8-bit result is clamped. A 4x2 frame, columns 0-1 pure
 * blue, 2-3 yellow, BT.601 full range, triangle filter: the chroma sample
 * (0, 0) covers x = 0, 0, 1, 2 with weights 1 3 3 1, so Cb = (7 * 4088 +
 * 8) * 8 / 1024 = 223.56 (+ 0.5) -> 224 (exactly: 223.625). Clamping Cb16
 * to 4080 first would give 223. */
GST_START_TEST (test_chroma_saturation)
{
  static const gchar *outs[] = { "I420", "NV12" };
  const InFormat *f = find_in_format ("RGBx");
  guint o;

  for (o = 0; o < G_N_ELEMENTS (outs); o++) {
    GstHarness *h = new_harness ("chroma-filter=triangle", outs[o],
        "1:4:0:0");
    Input in = { 0, };
    GstVideoInfo info;
    GstVideoFrame frame;
    GstBuffer *out;
    GstMapInfo map;
    RefParams prm;
    gint x, y, cb, cr;

    input_make (&in, f, 4, 2, 0, 0, CONTENT_RANDOM, 11);
    fail_unless (gst_buffer_map (in.buffer, &map, GST_MAP_WRITE));
    for (y = 0; y < 2; y++)
      for (x = 0; x < 4; x++) {
        guint8 *px = map.data + y * in.stride + x * f->bpp;
        px[f->r] = x < 2 ? 0 : 255;
        px[f->g] = x < 2 ? 0 : 255;
        px[f->b] = x < 2 ? 255 : 0;
      }
    gst_buffer_unmap (in.buffer, &map);
    set_input_caps (h, &in);
    out = test_push_and_pull (h, in.buffer, in.desc);
    output_info (h, &info);
    fail_unless (gst_video_frame_map (&frame, &info, out, GST_MAP_READ));
    cb = *(const guint8 *) GST_VIDEO_FRAME_COMP_DATA (&frame, 1);
    cr = *(const guint8 *) GST_VIDEO_FRAME_COMP_DATA (&frame, 2);
    gst_video_frame_unmap (&frame);
    fail_unless (cb == 224 && cr == 112, "%s: chroma (0,0) is Cb %d Cr %d, "
        "expected Cb 224 Cr 112", outs[o], cb, cr);

    /* and the reference agrees */
    ref_params_init (&prm, GST_VIDEO_COLOR_MATRIX_BT601, TRUE, 3, 256, 4);
    run_and_check (h, &in, &prm, "saturation");

    gst_buffer_unref (out);
    input_clear (&in);
    test_harness_teardown (h);
  }
}

GST_END_TEST;

/* ---- against videoconvert ---- */

typedef struct
{
  const gchar *colorimetry;     /* NULL: none in the caps */
  GstVideoColorMatrix matrix;
  gboolean full_yuv, full_gray;
} VcCase;

static const VcCase vc_cases[] = {
  {NULL, BT601, FALSE, TRUE},
  {"bt601", BT601, FALSE, FALSE},
  {"bt709", BT709, FALSE, FALSE},
  {"bt2020", BT2020, FALSE, FALSE},
  {"1:4:0:0", BT601, TRUE, TRUE},
  {"1:3:0:0", BT709, TRUE, TRUE},
  {"1:6:0:0", BT2020, TRUE, TRUE},
};

/* Where a difference of 2 from videoconvert cannot be helped. Run over all
 * 2^24 colours, videoconvert 1.22 (8-bit path: coefficients rounded to
 * 1/256, the sum truncated, not rounded) is up to 2 below the exactly
 * rounded value for BT.709 limited Cb and BT.709 full-range Y; and for
 * BT.601 limited Cb, 11 colours (e.g. 203,0,254) meet its -1 with the +1 of
 * the specification's two-step rounding. Everywhere else both are within
 * one step of each other over all colours. */
static const struct
{
  GstVideoColorMatrix matrix;
  gboolean full;
  guint component;
} vc_off_by_two[] = {
  {BT709, FALSE, 1}, {BT709, TRUE, 0}, {BT601, FALSE, 1},
};

static gboolean
vc_may_be_off_by_two (GstVideoColorMatrix matrix, gboolean full,
    guint component)
{
  guint i;
  for (i = 0; i < G_N_ELEMENTS (vc_off_by_two); i++)
    if (vc_off_by_two[i].matrix == matrix && vc_off_by_two[i].full == full &&
        vc_off_by_two[i].component == component)
      return TRUE;
  return FALSE;
}

/* Component @c of R'G'B' in Y'CbCr, from the textbook formula in floating
 * point, rounded: nothing in common with the element's integer scheme. */
static gint
exact_component (GstVideoColorMatrix matrix, gboolean full, guint c, gint r,
    gint g, gint b)
{
  gdouble kr, kb, y, v;

  gst_video_color_matrix_get_Kr_Kb (matrix, &kr, &kb);
  y = kr * r + (1.0 - kr - kb) * g + kb * b;
  if (c == 0)
    v = full ? y : 16.0 + y * 219.0 / 255.0;
  else {
    v = c == 1 ? (b - y) / (2.0 * (1.0 - kb)) : (r - y) / (2.0 * (1.0 - kr));
    v = 128.0 + (full ? v : v * 224.0 / 255.0);
  }
  return CLAMP ((gint) floor (v + 0.5), 0, 255);
}

/* Per-pixel planes (Y444, GRAY8, the Y of I420) of the element and of
 * videoconvert: within 1 of each other, or within 2 where the table above
 * allows it and the element is within 1 of the exact value (so the other
 * step is videoconvert's). The element is always within 1 of the exact
 * value. */
static gboolean
compare_with_videoconvert (GstBuffer * cl_buf, const GstVideoInfo * cl_info,
    GstBuffer * vc_buf, const GstVideoInfo * vc_info, const Input * in,
    GstVideoColorMatrix matrix, gboolean full, guint n_planes,
    GString * report)
{
  GstVideoFrame cf, vf;
  GstMapInfo map;
  gboolean ok = TRUE;
  guint p;

  fail_unless (gst_video_frame_map (&cf, (GstVideoInfo *) cl_info, cl_buf,
          GST_MAP_READ));
  fail_unless (gst_video_frame_map (&vf, (GstVideoInfo *) vc_info, vc_buf,
          GST_MAP_READ));
  fail_unless (gst_buffer_map (in->buffer, &map, GST_MAP_READ));

  for (p = 0; p < n_planes; p++) {
    gboolean two_ok = vc_may_be_off_by_two (matrix, full, p);
    guint64 bad = 0, twos = 0;
    gint x, y;

    for (y = 0; y < in->height; y++) {
      const guint8 *src = map.data + in->offset + (gsize) y * in->stride;
      const guint8 *crow = (const guint8 *) GST_VIDEO_FRAME_PLANE_DATA (&cf,
          p) + (gsize) y * GST_VIDEO_FRAME_PLANE_STRIDE (&cf, p);
      const guint8 *vrow = (const guint8 *) GST_VIDEO_FRAME_PLANE_DATA (&vf,
          p) + (gsize) y * GST_VIDEO_FRAME_PLANE_STRIDE (&vf, p);

      for (x = 0; x < in->width; x++) {
        const guint8 *px = src + x * in->fmt->bpp;
        gint e = exact_component (matrix, full, p, px[in->fmt->r],
            px[in->fmt->g], px[in->fmt->b]);
        gint d = ABS ((gint) crow[x] - (gint) vrow[x]);
        gint de = ABS ((gint) crow[x] - e);

        if (d == 2 && two_ok && de <= 1)
          twos++;
        else if (d > 1 || de > 1) {
          if (bad++ == 0)
            g_string_append_printf (report, "\n  plane %s: first at x=%d "
                "y=%d, rgb %d,%d,%d: clcolorlowpass %d, videoconvert %d, "
                "exact %d", plane_name (GST_VIDEO_INFO_FORMAT (cl_info), p),
                x, y, px[in->fmt->r], px[in->fmt->g], px[in->fmt->b], crow[x],
                vrow[x], e);
        }
      }
    }
    if (bad) {
      g_string_append_printf (report, "; %" G_GUINT64_FORMAT " of %d "
          "samples", bad, in->width * in->height);
      ok = FALSE;
    }
    GST_DEBUG ("plane %u: %" G_GUINT64_FORMAT " samples 2 off videoconvert",
        p, twos);
  }

  gst_buffer_unmap (in->buffer, &map);
  gst_video_frame_unmap (&vf);
  gst_video_frame_unmap (&cf);
  return ok;
}

/* With the luma filter off, Y444 and GRAY8 agree with videoconvert in
 * every plane, I420 in luma (its chroma is filtered differently by
 * design). */
GST_START_TEST (test_videoconvert)
{
  static const gchar *outs[] = { "Y444", "GRAY8", "I420" };
  static const gchar *ins[] = { "RGBx", "BGR", "ARGB", "xBGR" };
  const gchar *out_format = outs[__i__];
  gboolean gray = is_gray (out_format);
  guint k, i, c;

  for (k = 0; k < G_N_ELEMENTS (vc_cases); k++) {
    const VcCase *vcc = &vc_cases[k];
    gboolean full = gray ? vcc->full_gray : vcc->full_yuv;

    for (i = 0; i < G_N_ELEMENTS (ins); i++) {
      const InFormat *f = find_in_format (ins[i]);
      GstHarness *cl = new_harness ("luma-filter=none", out_format,
          vcc->colorimetry);
      GstHarness *vc = gst_harness_new_parse ("videoconvert");
      gchar *caps = out_caps_string (out_format, vcc->colorimetry);

      gst_harness_set_sink_caps_str (vc, caps);
      g_free (caps);
      for (c = 0; c < 2; c++) {
        Input in = { 0, };
        GstBuffer *out_cl, *out_vc;
        GstVideoInfo info_cl, info_vc;
        GString *report = g_string_new (NULL);

        input_make (&in, f, 320, 240, 0, 0, c,
            test_seed (out_format, (k * 8 + i) * 2 + c));
        set_input_caps (cl, &in);
        set_input_caps (vc, &in);
        out_cl = test_push_and_pull (cl, in.buffer, in.desc);
        out_vc = test_push_and_pull (vc, in.buffer, in.desc);
        output_info (cl, &info_cl);
        output_info (vc, &info_vc);
        fail_unless (GST_VIDEO_INFO_FORMAT (&info_vc) ==
            GST_VIDEO_INFO_FORMAT (&info_cl));

        fail_unless (compare_with_videoconvert (out_cl, &info_cl, out_vc,
                &info_vc, &in, vcc->matrix, full,
                gray || strcmp (out_format, "I420") == 0 ? 1 : 3, report),
            "%s -> %s colorimetry %s (%s %s range): clcolorlowpass "
            "luma-filter=none vs videoconvert:%s", in.desc, out_format,
            GST_STR_NULL (vcc->colorimetry), matrix_name (vcc->matrix),
            full ? "full" : "limited", report->str);

        g_string_free (report, TRUE);
        gst_buffer_unref (out_cl);
        gst_buffer_unref (out_vc);
        input_clear (&in);
      }
      test_harness_teardown (vc);
      test_harness_teardown (cl);
    }
  }
}

GST_END_TEST;

/* ---- layouts ---- */

/* System-memory input with a GstVideoMeta: strides that are not the
 * default (larger, odd, or the tight width * bpp) and first pixels at
 * offsets that are not a multiple of 4. */
GST_START_TEST (test_input_meta)
{
  const InFormat *f = &in_formats[__i__];
  static const gchar *outs[] = { "I420", "NV12", "Y444" };
  guint o;

  for (o = 0; o < G_N_ELEMENTS (outs); o++) {
    GstHarness *h = new_harness ("luma-filter=gaussian-5x5", outs[o], NULL);
    static const struct
    {
      gint w, h, extra;
      gsize offset;
    } layouts[] = {
      {67, 45, 13, 7}, {67, 45, 0, 1}, {67, 45, 64, 0}, {1, 1, 1, 3},
      {33, 20, 2, 2},
    };
    guint l;

    for (l = 0; l < G_N_ELEMENTS (layouts); l++) {
      Input in = { 0, };
      RefParams prm;

      default_params (&prm, outs[o], layouts[l].h);
      prm.luma_taps = 5;
      input_make (&in, f, layouts[l].w, layouts[l].h,
          layouts[l].w * f->bpp + layouts[l].extra, layouts[l].offset,
          CONTENT_NATURAL, test_seed (f->name, o * 8 + l));
      set_input_caps (h, &in);
      run_and_check (h, &in, &prm, "system memory with meta");
      input_clear (&in);
    }
    test_harness_teardown (h);
  }
}

GST_END_TEST;

/* @in: a frame of @f in @mem (its content made here), from @mem_offset
 * on (a sub-memory), rows of @stride from @offset, with a GstVideoMeta;
 * @what names the memory in the description. Takes @mem. */
static void
input_wrap_memory (Input * in, GstMemory * mem, const InFormat * f,
    gint width, gint height, gint stride, gsize offset, gsize mem_offset,
    guint32 seed, const gchar * what)
{
  gsize size = gst_memory_get_sizes (mem, NULL, NULL);
  gsize offsets[GST_VIDEO_MAX_PLANES] = { offset, };
  gint strides[GST_VIDEO_MAX_PLANES] = { stride, };
  GstMemory *sub;
  GstMapInfo map;

  in->fmt = f;
  in->width = width;
  in->height = height;
  in->stride = stride;
  in->offset = offset;

  fail_unless (gst_memory_map (mem, &map, GST_MAP_WRITE));
  test_fill_random (map.data, size, &seed);
  gst_memory_unmap (mem, &map);
  sub = gst_memory_share (mem, mem_offset, size - mem_offset);
  gst_memory_unref (mem);

  in->buffer = gst_buffer_new ();
  gst_buffer_append_memory (in->buffer, sub);
  fail_unless (gst_buffer_map (in->buffer, &map, GST_MAP_READWRITE));
  fill_natural (map.data + offset, stride, f, width, height, &seed);
  gst_buffer_unmap (in->buffer, &map);
  gst_buffer_add_video_meta_full (in->buffer, GST_VIDEO_FRAME_FLAG_NONE,
      gst_video_format_from_string (f->name), width, height, 1, offsets,
      strides);
  in->desc = g_strdup_printf ("%s %dx%d %s at +%" G_GSIZE_FORMAT
      " stride %d offset %" G_GSIZE_FORMAT, f->name, width, height, what,
      mem_offset, stride, offset);
}

/* OpenCL memory input of the element's context with a GstVideoMeta: the
 * kernel reads it in place, with no staging copy to fix the layout, so its
 * unaligned load paths see the odd offsets and strides. The memory is a
 * sub-memory at @mem_offset into the cl buffer. */
static void
input_make_cl (Input * in, GstClContext * ctx, const InFormat * f, gint width,
    gint height, gint stride, gsize offset, gsize mem_offset, guint32 seed)
{
  GstAllocator *alloc = gst_cl_allocator_new (ctx);
  GError *error = NULL;
  GstMemory *mem;

  mem = gst_cl_allocator_alloc_memory (alloc, mem_offset + offset +
      (gsize) stride * height, &error);
  fail_unless (mem != NULL, "%s", error ? error->message : "?");
  input_wrap_memory (in, mem, f, width, height, stride, offset, mem_offset,
      seed, "OpenCL memory");
  gst_object_unref (alloc);
}

GST_START_TEST (test_input_cl_meta)
{
  const InFormat *f = &in_formats[__i__];
  static const gchar *outs[] = { "I420", "NV12", "Y444", "GRAY8" };
  static const struct
  {
    gint w, h, extra;
    gsize offset, mem_offset;
  } layouts[] = {
    {67, 45, 3, 5, 0}, {67, 45, 1, 0, 1}, {67, 45, 8, 8, 0},
    {67, 45, 0, 2, 2}, {130, 17, 6, 0, 3}, {1, 1, 1, 1, 1},
  };
  guint o, l;

  for (o = 0; o < G_N_ELEMENTS (outs); o++) {
    GstHarness *h = new_harness (NULL, outs[o], NULL);
    GstClContext *ctx = test_element_cl_context (h->element, "sink");

    /* input memory of any other context would be staged like system
     * memory, and the in-place path would go untested */
    fail_unless (ctx == test_get_shared_context (),
        "the element made its own context");
    for (l = 0; l < G_N_ELEMENTS (layouts); l++) {
      Input in = { 0, };
      RefParams prm;

      default_params (&prm, outs[o], layouts[l].h);
      input_make_cl (&in, ctx, f, layouts[l].w, layouts[l].h,
          layouts[l].w * f->bpp + layouts[l].extra, layouts[l].offset,
          layouts[l].mem_offset, test_seed (f->name, o * 8 + l));
      set_input_caps (h, &in);
      run_and_check (h, &in, &prm, "OpenCL memory with meta");
      input_clear (&in);
    }
    gst_object_unref (ctx);
    test_harness_teardown (h);
  }
}

GST_END_TEST;

/* A frame of @f in page-locked host memory of @ctx (gstclhostmemory.h),
 * the memory a sub-memory at @mem_offset, rows of @stride from @offset
 * (a GstVideoMeta says where). */
static void
input_make_host (Input * in, GstClContext * ctx, const InFormat * f,
    gint width, gint height, gint stride, gsize offset, gsize mem_offset,
    guint32 seed)
{
  GstAllocator *alloc = gst_cl_host_allocator_new (ctx);
  GstAllocationParams params;
  GstMemory *mem;
  GstMapInfo map;
  const guint8 *data;

  /* 64-byte aligned, as asked; its bytes where an upload reads them */
  gst_allocation_params_init (&params);
  params.align = 63;
  mem = gst_allocator_alloc (alloc, mem_offset + offset + (gsize) stride *
      height, &params);
  fail_unless (mem != NULL && gst_is_cl_host_memory (mem));
  fail_unless (gst_memory_map (mem, &map, GST_MAP_READ));
  fail_unless (((guintptr) map.data & 63) == 0);
  fail_unless (gst_cl_host_memory_get_data (mem, ctx, &data) &&
      data == map.data);
  gst_memory_unmap (mem, &map);
  input_wrap_memory (in, mem, f, width, height, stride, offset, mem_offset,
      seed, "page-locked host memory");
  fail_unless (gst_cl_host_memory_get_data (gst_buffer_peek_memory
          (in->buffer, 0), ctx, &data) && data == map.data + mem_offset);
  gst_object_unref (alloc);
}

/* Frames in page-locked host memory, uploaded from where they lie (by
 * DMA on devices with memory of their own), at odd strides, offsets and
 * sub-memories, against the reference; and the pool the element proposes
 * upstream: device buffers where the device shares host memory, else
 * page-locked host memory. */
GST_START_TEST (test_input_host_memory)
{
  const InFormat *f = &in_formats[__i__];
  static const struct
  {
    gint w, h, extra;
    gsize offset, mem_offset;
  } layouts[] = {
    {67, 45, 3, 5, 0}, {67, 45, 0, 0, 1}, {130, 17, 6, 0, 3}, {1, 1, 1, 1, 1},
    {640, 480, 0, 0, 0},
  };
  GstHarness *h = new_harness (NULL, "I420", NULL);
  GstClContext *ctx = test_element_cl_context (h->element, "sink");
  guint l;

  fail_unless (ctx == test_get_shared_context (),
      "the element made its own context");
  for (l = 0; l < G_N_ELEMENTS (layouts); l++) {
    Input in = { 0, };
    RefParams prm;

    default_params (&prm, "I420", layouts[l].h);
    input_make_host (&in, ctx, f, layouts[l].w, layouts[l].h,
        layouts[l].w * f->bpp + layouts[l].extra, layouts[l].offset,
        layouts[l].mem_offset, test_seed (f->name, l));
    set_input_caps (h, &in);
    run_and_check (h, &in, &prm, "page-locked host memory");
    input_clear (&in);
  }
  {
    gchar *str = in_caps_string (f, 64, 48);
    GstCaps *caps = gst_caps_from_string (str);
    GstQuery *q = gst_query_new_allocation (caps, TRUE);
    GstBufferPool *pool = NULL;
    GstStructure *config;
    GstAllocator *alloc = NULL;

    fail_unless (gst_pad_peer_query (h->srcpad, q));
    fail_unless (gst_query_get_n_allocation_pools (q) > 0);
    gst_query_parse_nth_allocation_pool (q, 0, &pool, NULL, NULL, NULL);
    fail_unless (pool != NULL);
    config = gst_buffer_pool_get_config (pool);
    gst_buffer_pool_config_get_allocator (config, &alloc, NULL);
    if (ctx->host_unified)
      fail_unless (GST_IS_CL_BUFFER_POOL (pool), "%s proposed",
          G_OBJECT_TYPE_NAME (pool));
    else
      fail_unless (alloc && GST_IS_CL_HOST_ALLOCATOR (alloc),
          "%s proposed", alloc ? G_OBJECT_TYPE_NAME (alloc) : "no allocator");
    gst_structure_free (config);
    gst_object_unref (pool);
    gst_query_unref (q);
    gst_caps_unref (caps);
    g_free (str);
  }
  gst_object_unref (ctx);
  test_harness_teardown (h);
}

GST_END_TEST;

/* A producer with a pool of two page-locked buffers, as a decoder has,
 * refilling each as soon as it comes back: the element must give one
 * back while the other is filled (no deadlock), and only once the device
 * has read it (each output matches its own frame's reference). */
GST_START_TEST (test_input_host_pool)
{
  const InFormat *f = find_in_format ("RGBx");
  const gint w = 320, hh = 240, frames = 12;
  GstHarness *h = new_harness (NULL, "I420", NULL);
  GstClContext *ctx = test_element_cl_context (h->element, "sink");
  gchar *str = in_caps_string (f, w, hh);
  GstCaps *caps = gst_caps_from_string (str);
  GstBufferPool *pool = gst_cl_host_buffer_pool_new (ctx, caps, 2);
  GstStructure *config = gst_buffer_pool_get_config (pool);
  RefParams prm;
  gint i;

  gst_buffer_pool_config_set_params (config, caps, w * hh * 4, 2, 2);
  fail_unless (gst_buffer_pool_set_config (pool, config));
  fail_unless (gst_buffer_pool_set_active (pool, TRUE));
  default_params (&prm, "I420", hh);
  gst_harness_set_src_caps (h, gst_caps_ref (caps));
  for (i = 0; i < frames; i++) {
    Input in = { 0, };
    GstBuffer *out;
    GstMapInfo map;

    /* (blocks while both buffers are out) */
    fail_unless_equals_int (gst_buffer_pool_acquire_buffer (pool,
            &in.buffer, NULL), GST_FLOW_OK);
    fail_unless (gst_is_cl_host_memory (gst_buffer_peek_memory (in.buffer,
                0)));
    in.fmt = f;
    in.width = w;
    in.height = hh;
    in.stride = w * 4;
    in.offset = 0;
    fail_unless (gst_buffer_map (in.buffer, &map, GST_MAP_WRITE));
    input_fill (&in, map.data, map.size, CONTENT_NATURAL,
        test_seed ("host pool", i));
    gst_buffer_unmap (in.buffer, &map);
    in.desc = g_strdup_printf ("pooled page-locked frame %d", i);
    out = test_push_and_pull (h, in.buffer, in.desc);
    check_output (h, out, &in, &prm, "pooled page-locked memory");
    gst_buffer_unref (out);
    input_clear (&in);
  }
  gst_buffer_pool_set_active (pool, FALSE);
  gst_object_unref (pool);
  gst_caps_unref (caps);
  g_free (str);
  gst_object_unref (ctx);
  test_harness_teardown (h);
}

GST_END_TEST;

/* ---- renegotiation ---- */

/* Size and input format change mid-stream, in one harness; then the
 * output format too, after a reconfigure from downstream. */
GST_START_TEST (test_caps_change)
{
  GstHarness *h = new_harness_parse (NULL, "I420", NULL);
  static const struct
  {
    const gchar *in;
    gint w, h;
  } steps[] = {
    {"RGBx", 67, 45}, {"RGBx", 16, 16}, {"BGR", 640, 480}, {"BGR", 3, 5},
    {"ARGB", 1280, 720}, {"ARGB", 67, 45}, {"RGB", 67, 45},
  };
  guint s, c;

  for (s = 0; s < G_N_ELEMENTS (steps); s++) {
    for (c = 0; c < 2; c++) {
      Input in = { 0, };
      RefParams prm;

      default_params (&prm, "I420", steps[s].h);
      input_make (&in, find_in_format (steps[s].in), steps[s].w, steps[s].h,
          0, 0, c, test_seed ("caps", s * 2 + c));
      set_input_caps (h, &in);
      run_and_check (h, &in, &prm, "caps change");
      input_clear (&in);
    }
  }

  /* downstream now wants NV12 */
  gst_harness_set_sink_caps_str (h, "video/x-raw,format=NV12");
  for (c = 0; c < 2; c++) {
    Input in = { 0, };
    RefParams prm;

    default_params (&prm, "NV12", 45);
    input_make (&in, find_in_format ("RGB"), 67, 45, 0, 0, c,
        test_seed ("nv12", c));
    if (c == 1)
      set_input_caps (h, &in);
    run_and_check (h, &in, &prm, "output format change");
    input_clear (&in);
  }
  test_harness_teardown (h);
}

GST_END_TEST;

/* ---- errors ---- */

/* @buf must be refused: GST_FLOW_ERROR, an error message on the bus, no
 * output. */
static void
expect_error (GstHarness * h, GstBuffer * buf, const gchar * what)
{
  GstBus *bus = gst_element_get_bus (h->element);
  GstFlowReturn ret;
  GstMessage *msg;
  GstBuffer *out;

  ret = gst_harness_push (h, buf);
  fail_unless (ret == GST_FLOW_ERROR, "%s: push returned %s", what,
      gst_flow_get_name (ret));
  msg = gst_bus_pop_filtered (bus, GST_MESSAGE_ERROR);
  fail_unless (msg != NULL, "%s: no error message on the bus", what);
  gst_message_unref (msg);
  gst_object_unref (bus);
  out = gst_harness_try_pull (h);
  fail_unless (out == NULL, "%s: an output buffer came out", what);
}

/* A buffer smaller than the caps say, without a meta: an element error,
 * GST_FLOW_ERROR, and no read past its end. */
GST_START_TEST (test_short_buffer)
{
  static const gchar *ins[] = { "RGB", "RGBx" };
  guint i;

  for (i = 0; i < G_N_ELEMENTS (ins); i++) {
    GstHarness *h = new_harness_parse (NULL, "I420", NULL);
    Input in = { 0, };
    GstBuffer *buf;
    RefParams prm;

    input_make (&in, find_in_format (ins[i]), 67, 45, 0, 0, CONTENT_RANDOM,
        i + 5);
    set_input_caps (h, &in);

    buf = gst_buffer_copy_region (in.buffer, GST_BUFFER_COPY_ALL, 0,
        gst_buffer_get_size (in.buffer) - 1);
    expect_error (h, buf, "one byte short");
    expect_error (h, gst_buffer_new (), "empty buffer");
    buf = gst_buffer_copy_region (in.buffer, GST_BUFFER_COPY_ALL, 0,
        in.stride * 44);
    expect_error (h, buf, "one row short");

    /* and a complete frame after those still converts */
    default_params (&prm, "I420", 45);
    run_and_check (h, &in, &prm, "after errors");

    input_clear (&in);
    test_harness_teardown (h);
  }
}

GST_END_TEST;

/* An RGBx frame with a meta of @stride, in @size bytes that end at a
 * guard page. */
static void
input_make_guarded (Input * in, gint width, gint height, gint stride,
    gsize size, guint32 seed)
{
  gsize offsets[GST_VIDEO_MAX_PLANES] = { 0, };
  gint strides[GST_VIDEO_MAX_PLANES] = { stride, };
  guint8 *data;
  GstMemory *mem = test_guarded_memory_new (size, GST_MEMORY_FLAG_READONLY,
      0, &data);

  test_fill_random (data, size, &seed);

  in->fmt = find_in_format ("RGBx");
  in->width = width;
  in->height = height;
  in->stride = stride;
  in->offset = 0;
  in->buffer = gst_buffer_new ();
  gst_buffer_append_memory (in->buffer, mem);
  gst_buffer_add_video_meta_full (in->buffer, GST_VIDEO_FRAME_FLAG_NONE,
      GST_VIDEO_FORMAT_RGBx, width, height, 1, offsets, strides);
  in->desc = g_strdup_printf ("RGBx %dx%d stride %d in %" G_GSIZE_FORMAT
      " bytes before a guard page", width, height, stride, size);
}

/* A buffer whose GstVideoMeta describes planes running past its end: an
 * error too, not a read of whatever follows the buffer. */
GST_START_TEST (test_short_buffer_meta)
{
  GstHarness *h = new_harness_parse (NULL, "I420", NULL);
  static const gint strides[] = { 67 * 4, 67 * 4 + 12 };
  guint i;

  for (i = 0; i < G_N_ELEMENTS (strides); i++) {
    Input in = { 0, };
    RefParams prm;

    /* complete frames, good up to their last byte */
    default_params (&prm, "I420", 45);
    input_make_guarded (&in, 67, 45, strides[i], strides[i] * 45, i + 1);
    set_input_caps (h, &in);
    run_and_check (h, &in, &prm, "meta, complete");
    input_clear (&in);

    /* ten rows missing */
    input_make_guarded (&in, 67, 45, strides[i], strides[i] * 35, i + 1);
    expect_error (h, gst_buffer_ref (in.buffer), in.desc);
    input_clear (&in);
  }
  test_harness_teardown (h);
}

GST_END_TEST;

/* ---- 4:2:0 YCbCr input ---- */

/* An I420 or NV12 input frame and where its planes are, for the
 * reference: plane p at @offset[p], @stride[p] bytes a row (NV12: two) */
typedef struct
{
  GstVideoFormat format;
  gint width, height;
  gsize offset[GST_VIDEO_MAX_PLANES];
  gint stride[GST_VIDEO_MAX_PLANES];
  GstBuffer *buffer;
  gchar *desc;
} YuvInput;

typedef enum
{
  YUV_RANDOM,                   /* every byte, padding included */
  YUV_NATURAL,                  /* gradients, a disc, line pairs, noise */
  YUV_EXTREMES,                 /* 0 and 255, 16 and 235 (240): flat and
                                 * alternating every sample */
} YuvContent;

static const gchar *yuv_content_names[] = { "random", "natural", "extremes" };

static const gchar *yuv_in_formats[] = { "I420", "NV12" };

static void
yuv_input_clear (YuvInput * in)
{
  gst_clear_buffer (&in->buffer);
  g_clear_pointer (&in->desc, g_free);
}

/* Sample (@x, @y) of plane @p (0 Y, 1 Cb, 2 Cr) of @content */
static guint8
yuv_content_sample (YuvContent content, guint p, gint x, gint y, gint w,
    gint h, guint32 * rng)
{
  /* per 4x4 block: alternating pairs and flat areas at the legal and
   * the 8-bit ends */
  static const guint8 pairs[][2] = {
    {0, 255}, {16, 235}, {0, 0}, {255, 255}, {16, 240}, {235, 16},
  };

  if (content == YUV_EXTREMES) {
    const guint8 *pair = pairs[(x / 4 + 3 * (y / 4) + p) %
        G_N_ELEMENTS (pairs)];
    return pair[(x + y) & 1];
  }
  if (p == 0) {
    gint dx = x - w / 2, dy = y - h / 2, r = MIN (w, h) / 3;
    gint v = w > 1 ? x * 255 / (w - 1) : 128;
    if (dx * dx + dy * dy < r * r)
      v = 255 - v;              /* a disc: an edge all round */
    if ((x / 4) % 16 == 15)
      v = (y & 1) ? 250 : 5;    /* thin line pairs */
    return clamp_u8 (v + (gint) (test_rng_next (rng) % 9) - 4);
  }
  /* chroma: a gradient across, Cr down, with a hard step half way */
  return clamp_u8 ((p == 1 ? x * 255 / MAX (w - 1, 1) : y * 255 /
          MAX (h - 1, 1)) + (x >= w / 2 ? 60 : -60));
}

/* A frame of @width x @height. @pad < 0: the default layout and no
 * GstVideoMeta; else a meta whose strides are @pad bytes (V: @pad + 3)
 * over the samples of a row, with @gap bytes before each plane. In
 * OpenCL memory of @cl_ctx when it is set, else in system memory. */
static void
yuv_input_make (YuvInput * in, const gchar * format, gint width,
    gint height, gint pad, gsize gap, GstClContext * cl_ctx,
    YuvContent content, guint32 seed)
{
  gboolean nv12 = strcmp (format, "NV12") == 0;
  gint cw = (width + 1) / 2, ch = (height + 1) / 2;
  guint n_planes = nv12 ? 2 : 3, p;
  gsize size;
  GstMapInfo map;
  guint32 rng = seed;

  memset (in, 0, sizeof (*in));
  in->format = gst_video_format_from_string (format);
  in->width = width;
  in->height = height;
  if (pad < 0) {
    GstVideoInfo info;
    gst_video_info_set_format (&info, in->format, width, height);
    for (p = 0; p < n_planes; p++) {
      in->offset[p] = info.offset[p];
      in->stride[p] = info.stride[p];
    }
    size = info.size;
  } else {
    /* rows written down by hand: Y, then U and V or the UV pairs */
    gint row[3] = { width, nv12 ? 2 * cw : cw, cw };
    gsize end = 0;
    for (p = 0; p < n_planes; p++) {
      in->stride[p] = row[p] + pad + (p == 2 ? 3 : 0);
      in->offset[p] = end + gap;
      end = in->offset[p] + (gsize) in->stride[p] * (p ? ch : height);
    }
    size = end + 3;             /* trailing bytes the element must not need */
  }

  if (cl_ctx) {
    GstAllocator *alloc = gst_cl_allocator_new (cl_ctx);
    GError *error = NULL;
    GstMemory *mem = gst_cl_allocator_alloc_memory (alloc, size, &error);
    fail_unless (mem != NULL, "%s", error ? error->message : "?");
    in->buffer = gst_buffer_new ();
    gst_buffer_append_memory (in->buffer, mem);
    gst_object_unref (alloc);
  } else {
    in->buffer = gst_buffer_new_allocate (NULL, size, NULL);
  }
  fail_unless (gst_buffer_map (in->buffer, &map, GST_MAP_WRITE));
  test_fill_random (map.data, size, &rng);
  if (content != YUV_RANDOM) {
    gint x, y;
    for (p = 0; p < 3; p++) {
      guint plane = nv12 && p ? 1 : p;
      gint step = nv12 && p ? 2 : 1, first = nv12 && p == 2 ? 1 : 0;
      for (y = 0; y < (p ? ch : height); y++)
        for (x = 0; x < (p ? cw : width); x++)
          map.data[in->offset[plane] + (gsize) y * in->stride[plane] +
              x * step + first] = yuv_content_sample (content, p, x, y,
              p ? cw : width, p ? ch : height, &rng);
    }
  }
  gst_buffer_unmap (in->buffer, &map);

  if (pad >= 0)
    gst_buffer_add_video_meta_full (in->buffer, GST_VIDEO_FRAME_FLAG_NONE,
        in->format, width, height, n_planes, in->offset, in->stride);
  in->desc = g_strdup_printf ("%s %dx%d %s seed 0x%08x%s%s strides %d,%d,%d",
      format, width, height, yuv_content_names[content], seed,
      pad >= 0 ? " (meta)" : "", cl_ctx ? " OpenCL memory" : "",
      in->stride[0], in->stride[1], nv12 ? 0 : in->stride[2]);
}

static void
ref_run_yuv (gconstpointer input, const guint8 * data,
    const GstVideoInfo * exp_info, guint8 * expected, const RefParams * prm)
{
  const YuvInput *in = input;
  const guint8 *planes[3];
  guint p;

  for (p = 0; p < 3; p++)
    planes[p] = data + in->offset[p];
  ref_colorlowpass_yuv (in->format, planes, in->stride, exp_info, expected,
      prm);
}

/* The caps of @in, with the caps @fields ("colorimetry=bt709", ...) if
 * set */
static void
set_yuv_caps (GstHarness * h, const YuvInput * in, const gchar * fields)
{
  gchar *caps = g_strdup_printf ("video/x-raw,format=%s,width=%d,height=%d,"
      "framerate=30/1%s%s", gst_video_format_to_string (in->format),
      in->width, in->height, fields ? "," : "", fields ? fields : "");
  gst_harness_set_src_caps_str (h, caps);
  g_free (caps);
}

/* One frame through @h, checked against the reference. */
static void
run_and_check_yuv (GstHarness * h, YuvInput * in, const RefParams * prm,
    const gchar * what)
{
  GstBuffer *out = test_push_and_pull (h, in->buffer, in->desc);
  check_against (h, out, ref_run_yuv, in, in->buffer, in->desc, in->width,
      in->height, prm, "", what);
  gst_buffer_unref (out);
}

static const struct
{
  gint width, height;
} yuv_sizes[] = {
  {1, 1}, {5, 3}, {33, 17}, {2, 2}, {130, 3}, {1, 6}, {67, 45},
};

/* The 4:2:0 inputs with the output formats and filter settings, each
 * strength at its ends and between, on odd and tiny sizes: the clamped
 * edges and the last half-covered chroma column and row. chroma-filter
 * chooses Y444's upsampling and must not touch 4:2:0 chroma. */
GST_START_TEST (test_yuv_filters)
{
  static const gchar *yuv_strengths[] = { "0.0", "0.5", "1.0" };
  static const gint yuv_strength_256[] = { 0, 128, 256 };
  guint luma = __i__ / 2, chroma = __i__ % 2;
  guint f, o, st, s, c;

  for (f = 0; f < G_N_ELEMENTS (yuv_in_formats); f++) {
    for (o = 0; o < N_OUT_FORMATS; o++) {
      gchar *props;
      GstHarness *h;
      GstElement *e;

      /* each kernel variant costs a build: with box chroma the luma
       * filters take the input and output pairs in turn (test_yuv_layouts
       * has them all with the 5x5 one); triangle chroma differs for Y444
       * alone, and leaves I420's chroma as box does */
      if (chroma == 0 ? (f * N_OUT_FORMATS + o) % G_N_ELEMENTS (luma_names)
          != luma : !g_str_equal (out_formats[o], "Y444") &&
          !(luma == 0 && f == 0 && o == 0))
        continue;
      props = g_strdup_printf ("luma-filter=%s chroma-filter=%s",
          luma_names[luma], chroma_names[chroma]);
      h = new_harness (props, out_formats[o], NULL);
      e = gst_harness_find_element (h, "clcolorlowpass");
      for (st = 0; st < G_N_ELEMENTS (yuv_strengths); st++) {
        RefParams prm;

        g_object_set (e, "luma-strength",
            g_ascii_strtod (yuv_strengths[st], NULL), NULL);
        ref_params_init (&prm, GST_VIDEO_COLOR_MATRIX_UNKNOWN, FALSE,
            luma_taps[luma], yuv_strength_256[st], chroma_taps[chroma]);
        for (s = 0; s < G_N_ELEMENTS (yuv_sizes); s++) {
          for (c = 0; c < 3; c++) {
            YuvInput in;
            yuv_input_make (&in, yuv_in_formats[f], yuv_sizes[s].width,
                yuv_sizes[s].height, -1, 0, NULL, c, test_seed (props,
                    ((f * 8 + o) * 4 + st) * 64 + s * 4 + c));
            set_yuv_caps (h, &in, NULL);
            run_and_check_yuv (h, &in, &prm, props);
            yuv_input_clear (&in);
          }
        }
      }
      gst_object_unref (e);
      test_harness_teardown (h);
      g_free (props);
    }
  }
}

GST_END_TEST;

/* Larger frames (several tiles and row bands), in system memory with
 * padded strides and gaps between the planes, and in OpenCL memory of the
 * element's context with such a meta: read in place, no staging copy. */
GST_START_TEST (test_yuv_layouts)
{
  const gchar *format = yuv_in_formats[__i__ / N_OUT_FORMATS];
  const gchar *out_format = out_formats[__i__ % N_OUT_FORMATS];
  static const struct
  {
    gint w, h, pad;
    gsize gap;
    gboolean cl;
  } layouts[] = {
    {640, 480, -1, 0, FALSE}, {333, 211, 13, 7, FALSE}, {33, 17, 64, 0, FALSE},
    {1, 1, 1, 3, FALSE}, {5, 3, 0, 1, FALSE},
    {333, 211, 5, 3, TRUE}, {33, 17, 0, 0, TRUE}, {1, 1, 2, 1, TRUE},
    {130, 17, 8, 8, TRUE},
  };
  GstHarness *h = new_harness ("luma-filter=gaussian-5x5", out_format, NULL);
  GstClContext *ctx = test_element_cl_context (h->element, "sink");
  guint l, c;

  fail_unless (ctx == test_get_shared_context (),
      "the element made its own context");
  for (l = 0; l < G_N_ELEMENTS (layouts); l++) {
    for (c = 0; c < 3; c++) {
      YuvInput in;
      RefParams prm;

      ref_params_init (&prm, GST_VIDEO_COLOR_MATRIX_UNKNOWN, FALSE, 5, 256, 4);
      yuv_input_make (&in, format, layouts[l].w, layouts[l].h, layouts[l].pad,
          layouts[l].gap, layouts[l].cl ? ctx : NULL, c,
          test_seed (out_format, __i__ * 64 + l * 4 + c));
      set_yuv_caps (h, &in, NULL);
      run_and_check_yuv (h, &in, &prm, "layouts");
      yuv_input_clear (&in);
    }
  }
  gst_object_unref (ctx);
  test_harness_teardown (h);
}

GST_END_TEST;

/* Y444 from 4:2:0 worked out by hand: a 4x4 I420 frame whose chroma
 * columns (rows for Cr) are 0 and 160. Bilinear, chroma sited between the
 * luma pairs: luma 0 and 3 take their own sample, 1 and 2 three quarters
 * of theirs and a quarter of the other: 0 40 120 160. Replication: 0 0 160
 * 160. */
GST_START_TEST (test_yuv_upsample_known)
{
  static const struct
  {
    const gchar *filter;
    guint8 expected[4];
  } cases[] = {
    {"triangle", {0, 40, 120, 160}},
    {"box", {0, 0, 160, 160}},
  };
  guint i;

  for (i = 0; i < G_N_ELEMENTS (cases); i++) {
    gchar *props = g_strdup_printf ("chroma-filter=%s", cases[i].filter);
    GstHarness *h = new_harness (props, "Y444", NULL);
    GstVideoInfo info;
    GstVideoFrame frame;
    GstBuffer *out;
    GstMapInfo map;
    YuvInput in;
    gint x, y;

    yuv_input_make (&in, "I420", 4, 4, -1, 0, NULL, YUV_RANDOM, i + 1);
    fail_unless (gst_buffer_map (in.buffer, &map, GST_MAP_WRITE));
    for (y = 0; y < 2; y++)
      for (x = 0; x < 2; x++) {
        map.data[in.offset[1] + y * in.stride[1] + x] = x ? 160 : 0;
        map.data[in.offset[2] + y * in.stride[2] + x] = y ? 160 : 0;
      }
    gst_buffer_unmap (in.buffer, &map);
    set_yuv_caps (h, &in, NULL);
    out = test_push_and_pull (h, in.buffer, in.desc);
    output_info (h, &info);
    fail_unless (gst_video_frame_map (&frame, &info, out, GST_MAP_READ));
    for (y = 0; y < 4; y++)
      for (x = 0; x < 4; x++) {
        const guint8 *u = GST_VIDEO_FRAME_PLANE_DATA (&frame, 1);
        const guint8 *v = GST_VIDEO_FRAME_PLANE_DATA (&frame, 2);
        gint us = GST_VIDEO_FRAME_PLANE_STRIDE (&frame, 1);
        gint vs = GST_VIDEO_FRAME_PLANE_STRIDE (&frame, 2);
        fail_unless (u[y * us + x] == cases[i].expected[x] &&
            v[y * vs + x] == cases[i].expected[y], "%s: (%d, %d) is Cb %d "
            "Cr %d, expected %d and %d", cases[i].filter, x, y, u[y * us + x],
            v[y * vs + x], cases[i].expected[x], cases[i].expected[y]);
      }
    gst_video_frame_unmap (&frame);
    gst_buffer_unref (out);
    yuv_input_clear (&in);
    test_harness_teardown (h);
    g_free (props);
  }
}

GST_END_TEST;

/* No passthrough: with the luma filter off (or at strength 0) the kernel
 * still runs, each frame a new buffer whose samples are the input's; and
 * a filter switched on while playing applies to the next frame. */
GST_START_TEST (test_yuv_identity)
{
  static const gchar *props[] = { "luma-filter=none",
    "luma-filter=gaussian-5x5 luma-strength=0.0"
  };
  guint f, i;

  for (f = 0; f < G_N_ELEMENTS (yuv_in_formats); f++) {
    for (i = 0; i < G_N_ELEMENTS (props); i++) {
      const gchar *format = yuv_in_formats[f];
      GstHarness *h = new_harness (props[i], format, NULL);
      GstElement *e = gst_harness_find_element (h, "clcolorlowpass");
      GString *report = g_string_new (NULL);
      GstVideoInfo info, in_info;
      GstBuffer *out;
      GstMapInfo map;
      YuvInput in;

      fail_if (gst_base_transform_is_passthrough (GST_BASE_TRANSFORM (e)));
      yuv_input_make (&in, format, 67, 45, -1, 0, NULL, YUV_NATURAL, f + 1);
      set_yuv_caps (h, &in, NULL);
      out = test_push_and_pull (h, in.buffer, in.desc);
      fail_if (out == in.buffer, "%s: the input came out", props[i]);
      output_info (h, &info);
      gst_video_info_set_format (&in_info, in.format, 67, 45);
      fail_unless (gst_buffer_map (in.buffer, &map, GST_MAP_READ));
      fail_unless (compare_frame (out, &info, &in_info, map.data, 0,
              GST_VIDEO_INFO_N_PLANES (&in_info), report),
          "%s %s: the output is not the input:%s", format, props[i],
          report->str);
      gst_buffer_unmap (in.buffer, &map);
      g_string_free (report, TRUE);
      gst_buffer_unref (out);

      /* and the filter, once it is on */
      {
        RefParams prm;
        gst_util_set_object_arg (G_OBJECT (e), "luma-filter", "binomial-3x3");
        g_object_set (e, "luma-strength", 1.0, NULL);
        ref_params_init (&prm, GST_VIDEO_COLOR_MATRIX_UNKNOWN, FALSE, 3, 256,
            4);
        run_and_check_yuv (h, &in, &prm, "filter switched on");
      }
      yuv_input_clear (&in);
      gst_object_unref (e);
      test_harness_teardown (h);
    }
  }
}

GST_END_TEST;

/* No colour conversion: the output carries the input's colorimetry, GRAY8
 * included, whatever matrix and range say (their samples do not change
 * either), and 4:2:0 output the input's chroma siting; downstream
 * insisting on another colorimetry cannot be served. */
GST_START_TEST (test_yuv_colorimetry)
{
  static const struct
  {
    const gchar *in, *expected, *siting;
  } cases[] = {
    {"colorimetry=bt709", "bt709", NULL},
    {"colorimetry=bt601", "bt601", NULL},
    {"colorimetry=1:4:0:0", "1:4:0:0", NULL},
    {"colorimetry=bt2020,chroma-site=jpeg", "bt2020", "jpeg"},
    {"chroma-site=mpeg2", "bt601", "mpeg2"},
    {NULL, "bt601", NULL},
  };
  static const gchar *props[] = { NULL, "matrix=bt2020 range=full",
    "matrix=bt601 range=limited"
  };
  guint i, j, o;

  for (i = 0; i < G_N_ELEMENTS (cases); i++)
    for (j = 0; j < G_N_ELEMENTS (props); j++)
      for (o = 0; o < N_OUT_FORMATS; o++) {
        GstHarness *h = new_harness (props[j], out_formats[o], NULL);
        GstCaps *caps;
        GstStructure *s;
        YuvInput in;
        RefParams prm;
        const gchar *got, *siting;
        gboolean is420 = o < 2;

        yuv_input_make (&in, yuv_in_formats[(i + j) % 2], 33, 17, -1, 0,
            NULL, YUV_EXTREMES, i * 8 + j);
        set_yuv_caps (h, &in, cases[i].in);
        ref_params_init (&prm, GST_VIDEO_COLOR_MATRIX_UNKNOWN, FALSE, 3, 256,
            4);
        run_and_check_yuv (h, &in, &prm, GST_STR_NULL (props[j]));
        caps = gst_pad_get_current_caps (h->sinkpad);
        s = gst_caps_get_structure (caps, 0);
        got = gst_structure_get_string (s, "colorimetry");
        fail_unless (g_strcmp0 (got, cases[i].expected) == 0,
            "%s colorimetry %s, %s, -> %s: output colorimetry %s, expected "
            "%s", gst_video_format_to_string (in.format),
            GST_STR_NULL (cases[i].in), GST_STR_NULL (props[j]),
            out_formats[o], GST_STR_NULL (got), cases[i].expected);
        siting = gst_structure_get_string (s, "chroma-site");
        fail_unless (g_strcmp0 (siting, is420 ? cases[i].siting : NULL) == 0,
            "%s %s -> %s: output chroma-site %s",
            gst_video_format_to_string (in.format),
            GST_STR_NULL (cases[i].in), out_formats[o], GST_STR_NULL (siting));
        gst_caps_unref (caps);
        yuv_input_clear (&in);
        test_harness_teardown (h);
      }

  /* bt601 in, bt709 wanted */
  {
    GstHarness *h = new_harness ("matrix=bt709", "I420", "bt709");
    YuvInput in;

    yuv_input_make (&in, "I420", 33, 17, -1, 0, NULL, YUV_RANDOM, 3);
    set_yuv_caps (h, &in, "colorimetry=bt601");
    fail_unless (gst_harness_push (h, gst_buffer_ref (in.buffer)) ==
        GST_FLOW_NOT_NEGOTIATED);
    yuv_input_clear (&in);
    test_harness_teardown (h);
  }
}

GST_END_TEST;

/* RGB and 4:2:0 input in turn in one harness, and the pipelines a user
 * writes: downstream's format, I420 and NV12 into the encoder. */
GST_START_TEST (test_yuv_negotiation)
{
  static const gchar *pipelines[] = {
    "videotestsrc num-buffers=3 ! video/x-raw,format=I420 ! clcolorlowpass "
        "! video/x-raw,format=I420 ! fakesink",
    "videotestsrc num-buffers=3 ! video/x-raw,format=NV12,width=66,height=34 "
        "! clcolorlowpass ! clmpegenc ! fakesink",
    "videotestsrc num-buffers=3 ! video/x-raw,format=I420,width=33,height=17 "
        "! clcolorlowpass ! video/x-raw,format=Y444 ! videoconvert ! "
        "fakesink",
    "videotestsrc num-buffers=3 ! video/x-raw,format=NV12 ! clupload "
        "! clcolorlowpass ! video/x-raw(memory:OpenCL),format=GRAY8 "
        "! cldownload ! fakesink",
  };
  GstHarness *h = new_harness_parse (NULL, "NV12", NULL);
  guint i;

  for (i = 0; i < 6; i++) {
    RefParams prm;
    if (i % 2 == 0) {
      Input in = { 0, };
      default_params (&prm, "NV12", 45);
      input_make (&in, find_in_format (i == 2 ? "RGB" : "BGRx"), 67, 45, 0,
          0, CONTENT_NATURAL, test_seed ("mixed", i));
      set_input_caps (h, &in);
      run_and_check (h, &in, &prm, "RGB after 4:2:0");
      input_clear (&in);
    } else {
      YuvInput in;
      ref_params_init (&prm, GST_VIDEO_COLOR_MATRIX_UNKNOWN, FALSE, 3, 256,
          4);
      yuv_input_make (&in, yuv_in_formats[i / 2 % 2], 67, 45, -1, 0, NULL,
          YUV_NATURAL, test_seed ("mixed", i));
      set_yuv_caps (h, &in, NULL);
      run_and_check_yuv (h, &in, &prm, "4:2:0 after RGB");
      yuv_input_clear (&in);
    }
  }
  test_harness_teardown (h);

  for (i = 0; i < G_N_ELEMENTS (pipelines); i++) {
    GError *error = NULL;
    GstElement *pipeline = gst_parse_launch (pipelines[i], &error);
    GstBus *bus;
    GstMessage *msg;

    fail_unless (pipeline != NULL, "%s: %s", pipelines[i],
        error ? error->message : "?");
    bus = gst_element_get_bus (pipeline);
    fail_unless (gst_element_set_state (pipeline, GST_STATE_PLAYING) !=
        GST_STATE_CHANGE_FAILURE);
    /* (on a fresh machine POCL first builds clmpegenc's kernels: minutes
     * beside other tests doing the same) */
    msg = gst_bus_timed_pop_filtered (bus, 600 * GST_SECOND,
        GST_MESSAGE_EOS | GST_MESSAGE_ERROR);
    fail_unless (msg != NULL && GST_MESSAGE_TYPE (msg) == GST_MESSAGE_EOS,
        "%s: no EOS", pipelines[i]);
    gst_message_unref (msg);
    gst_element_set_state (pipeline, GST_STATE_NULL);
    gst_object_unref (bus);
    gst_object_unref (pipeline);
  }
}

GST_END_TEST;

static Suite *
colorlowpass_suite (void)
{
  Suite *s = suite_create ("colorlowpass");
  TCase *tc = test_suite_add_case (s);

  tcase_add_test (tc, test_known_values);
  tcase_add_test (tc, test_chroma_saturation);
  tcase_add_loop_test (tc, test_formats, 0, N_IN_FORMATS * N_OUT_FORMATS);
  tcase_add_loop_test (tc, test_filters, 0, N_FILTER_CASES);
  tcase_add_test (tc, test_strength_change);
  tcase_add_loop_test (tc, test_colour, 0, N_OUT_FORMATS);
  tcase_add_loop_test (tc, test_videoconvert, 0, 3);
  tcase_add_loop_test (tc, test_input_meta, 0, N_IN_FORMATS);
  tcase_add_loop_test (tc, test_input_cl_meta, 0, N_IN_FORMATS);
  tcase_add_loop_test (tc, test_input_host_memory, 0, N_IN_FORMATS);
  tcase_add_test (tc, test_input_host_pool);
  tcase_add_test (tc, test_caps_change);
  tcase_add_test (tc, test_short_buffer);
  tcase_add_test (tc, test_short_buffer_meta);
  tcase_add_loop_test (tc, test_yuv_filters, 0, N_FILTER_CASES);
  tcase_add_loop_test (tc, test_yuv_layouts, 0,
      G_N_ELEMENTS (yuv_in_formats) * N_OUT_FORMATS);
  tcase_add_test (tc, test_yuv_upsample_known);
  tcase_add_test (tc, test_yuv_identity);
  tcase_add_test (tc, test_yuv_colorimetry);
  tcase_add_test (tc, test_yuv_negotiation);
  return s;
}

GST_CHECK_MAIN (colorlowpass);
