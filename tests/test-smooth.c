/* gst-clvideo: clsmooth against a plain C reference
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * Frames go through the element in a GstHarness and must come out
 * bit-exact with smooth-ref.c, which is written from the specification.
 * Flat frames must come out unchanged, and an impulse must give the
 * kernel's weights, worked out by hand.
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <gst/check/gstcheck.h>
#include <gst/check/gstharness.h>
#include <gst/video/video.h>
#include <string.h>

#include <gst/cl/gstclcontext.h>
#include <gst/cl/gstclmemory.h>
#include "smooth-ref.h"
#include "testutil.h"

/* ---- formats ---- */

/* Plane layouts written down by hand, not taken from GstVideoFormatInfo
 * as the element does, so that a wrong table on either side shows. */
typedef struct
{
  gint bpp;                     /* interleaved 8-bit channels */
  gint sub;                     /* 1: half width and height, rounded up */
  guint mask;                   /* channels smoothed (YUV: with planes=all) */
  gboolean chroma;
} PlaneFormat;

typedef struct
{
  const gchar *name;
  guint n_planes;
  PlaneFormat plane[3];
} Format;

#define LUMA {1, 0, 0x1, FALSE}
static const Format formats[] = {
  {"GRAY8", 1, {LUMA}},
  {"I420", 3, {LUMA, {1, 1, 0x1, TRUE}, {1, 1, 0x1, TRUE}}},
  {"NV12", 2, {LUMA, {2, 1, 0x3, TRUE}}},
  {"Y444", 3, {LUMA, {1, 0, 0x1, TRUE}, {1, 0, 0x1, TRUE}}},
  {"RGB", 1, {{3, 0, 0x7, FALSE}}},
  {"BGR", 1, {{3, 0, 0x7, FALSE}}},
  {"RGBx", 1, {{4, 0, 0x7, FALSE}}},
  {"BGRx", 1, {{4, 0, 0x7, FALSE}}},
  {"xRGB", 1, {{4, 0, 0xe, FALSE}}},
  {"xBGR", 1, {{4, 0, 0xe, FALSE}}},
  {"RGBA", 1, {{4, 0, 0x7, FALSE}}},
  {"BGRA", 1, {{4, 0, 0x7, FALSE}}},
  {"ARGB", 1, {{4, 0, 0xe, FALSE}}},
  {"ABGR", 1, {{4, 0, 0xe, FALSE}}},
};
#undef LUMA

#define N_FORMATS G_N_ELEMENTS (formats)

static const Format *
find_format (const gchar * name)
{
  guint i;
  for (i = 0; i < N_FORMATS; i++)
    if (strcmp (formats[i].name, name) == 0)
      return &formats[i];
  g_assert_not_reached ();
  return NULL;
}

static void
plane_size (const Format * f, guint p, gint width, gint height, gint * w,
    gint * h)
{
  *w = f->plane[p].sub ? (width + 1) / 2 : width;
  *h = f->plane[p].sub ? (height + 1) / 2 : height;
}

/* The smoothing settings of a run, as the reference takes them. */
typedef struct
{
  gint radius;
  gboolean gaussian;
  gboolean all_planes;
} Settings;

static const Settings default_settings = { 2, FALSE, FALSE };

static gchar *
settings_props (const Settings * s)
{
  return g_strdup_printf ("radius=%d kernel=%s planes=%s", s->radius,
      s->gaussian ? "gaussian" : "box", s->all_planes ? "all" : "luma");
}

static guint
smooth_mask (const PlaneFormat * pf, const Settings * s)
{
  return pf->chroma && !s->all_planes ? 0 : pf->mask;
}

/* ---- input frames ---- */

typedef enum
{
  CONTENT_RANDOM,               /* every byte, padding included */
  CONTENT_NATURAL,              /* gradients, hard edges, fine lines, noise */
  CONTENT_CONSTANT,             /* one value per channel: 0, 255 or any */
  N_CONTENTS
} Content;

static const gchar *content_names[] = { "random", "natural", "constant" };

static void
fill_random (guint8 * data, gsize size, guint32 * rng)
{
  gsize i;
  for (i = 0; i < size; i++)
    data[i] = test_rng_next (rng) >> 24;
}

static inline guint8
clamp_u8 (gint v)
{
  return v < 0 ? 0 : (v > 255 ? 255 : v);
}

/* Camera-like content in the smoothed channels of a plane: smooth areas,
 * sharp steps at full contrast, line pairs a pixel apart, and noise. The
 * other channels (x, alpha) keep their random bytes. */
static void
fill_natural (guint8 * data, gint stride, gint w, gint h, gint bpp,
    guint mask, guint32 * rng)
{
  gint cx = w / 2, cy = h / 2, rad = MIN (w, h) / 3;
  gint x, y, c;

  for (y = 0; y < h; y++) {
    for (x = 0; x < w; x++) {
      for (c = 0; c < bpp; c++) {
        gint v, dx = x - cx, dy = y - cy;
        if (!(mask & (1u << c)))
          continue;
        if (y < h / 8) {
          /* bars of 0 and 255, a different pattern per channel */
          v = ((x * 8 / w) >> (c % 3)) & 1 ? 255 : 0;
        } else {
          v = c % 2 == 0 ? (w > 1 ? x * 255 / (w - 1) : 128) :
              (h > 1 ? y * 255 / (h - 1) : 128);
          if (dx * dx + dy * dy < rad * rad)
            v = 255 - v;
          if ((x / 4) % 16 == 15)
            v = (y & 1) ? 250 : 5;
          v = clamp_u8 (v + (gint) (test_rng_next (rng) % 13) - 6);
        }
        data[(gsize) y * stride + x * bpp + c] = v;
      }
    }
  }
}

static void
fill_constant (guint8 * data, gint stride, gint w, gint h, gint bpp,
    guint mask, guint32 * rng)
{
  gint x, y, c;
  guint8 value[4];

  for (c = 0; c < bpp; c++) {
    guint32 r = test_rng_next (rng);
    value[c] = r % 3 == 0 ? 0 : (r % 3 == 1 ? 255 : r >> 24);
  }
  for (y = 0; y < h; y++)
    for (x = 0; x < w; x++)
      for (c = 0; c < bpp; c++)
        if (mask & (1u << c))
          data[(gsize) y * stride + x * bpp + c] = value[c];
}

/* An input frame and where its planes are. */
typedef struct
{
  const Format *fmt;
  gint width, height;
  gsize offset[3];              /* of each plane, in the mapped buffer */
  gint stride[3];
  Content content;
  GstBuffer *buffer;
  gchar *desc;
} Input;

static void
input_clear (Input * in)
{
  gst_clear_buffer (&in->buffer);
  g_clear_pointer (&in->desc, g_free);
}

/* Default layout: GStreamer's, without a meta. */
static void
default_layout (Input * in, gsize * size)
{
  GstVideoInfo info;
  guint p;

  gst_video_info_set_format (&info, gst_video_format_from_string
      (in->fmt->name), in->width, in->height);
  for (p = 0; p < in->fmt->n_planes; p++) {
    in->offset[p] = info.offset[p];
    in->stride[p] = info.stride[p];
  }
  *size = info.size;
}

/* A custom layout for a GstVideoMeta: each plane @extra bytes wider than
 * its samples, and placed @gap bytes after the previous one (the first at
 * @gap): odd strides and offsets when they are odd. */
static void
meta_layout (Input * in, gint extra, gsize gap, gsize * size)
{
  gsize pos = 0;
  guint p;

  for (p = 0; p < in->fmt->n_planes; p++) {
    gint w, h;
    plane_size (in->fmt, p, in->width, in->height, &w, &h);
    pos += gap;
    in->offset[p] = pos;
    in->stride[p] = w * in->fmt->plane[p].bpp + extra;
    pos += (gsize) in->stride[p] * h;
  }
  *size = pos + 3;              /* trailing bytes the element must not need */
}

static void
input_fill (Input * in, guint8 * data, gsize size, guint32 seed)
{
  guint32 rng = seed ? seed : 1;
  guint p;

  fill_random (data, size, &rng);
  for (p = 0; p < in->fmt->n_planes; p++) {
    const PlaneFormat *pf = &in->fmt->plane[p];
    gint w, h;
    plane_size (in->fmt, p, in->width, in->height, &w, &h);
    if (in->content == CONTENT_NATURAL)
      fill_natural (data + in->offset[p], in->stride[p], w, h, pf->bpp,
          pf->mask, &rng);
    else if (in->content == CONTENT_CONSTANT)
      fill_constant (data + in->offset[p], in->stride[p], w, h, pf->bpp,
          pf->mask, &rng);
  }
}

static void
add_meta (Input * in)
{
  gsize offsets[GST_VIDEO_MAX_PLANES] = { 0, };
  gint strides[GST_VIDEO_MAX_PLANES] = { 0, };
  guint p;

  for (p = 0; p < in->fmt->n_planes; p++) {
    offsets[p] = in->offset[p];
    strides[p] = in->stride[p];
  }
  gst_buffer_add_video_meta_full (in->buffer, GST_VIDEO_FRAME_FLAG_NONE,
      gst_video_format_from_string (in->fmt->name), in->width, in->height,
      in->fmt->n_planes, offsets, strides);
}

/* A system-memory frame; with @meta, in a custom layout (see meta_layout)
 * described by a GstVideoMeta. */
static void
input_make (Input * in, const Format * f, gint width, gint height,
    Content content, guint32 seed, gboolean meta, gint extra, gsize gap)
{
  GstMapInfo map;
  gsize size;

  in->fmt = f;
  in->width = width;
  in->height = height;
  in->content = content;
  if (meta)
    meta_layout (in, extra, gap, &size);
  else
    default_layout (in, &size);
  in->buffer = gst_buffer_new_allocate (NULL, size, NULL);
  fail_unless (gst_buffer_map (in->buffer, &map, GST_MAP_WRITE));
  input_fill (in, map.data, size, seed);
  gst_buffer_unmap (in->buffer, &map);
  if (meta)
    add_meta (in);
  in->desc = g_strdup_printf ("%s %dx%d %s seed 0x%08x%s", f->name, width,
      height, content_names[content], seed, meta ? " (meta layout)" : "");
}

/* The same in OpenCL memory of @ctx: a sub-memory @mem_offset bytes into a
 * cl buffer, in a custom layout with a meta, so that the kernels read it in
 * place, odd offsets and strides included. */
static void
input_make_cl (Input * in, GstClContext * ctx, const Format * f, gint width,
    gint height, Content content, guint32 seed, gint extra, gsize gap,
    gsize mem_offset)
{
  GstAllocator *alloc = gst_cl_allocator_new (ctx);
  GError *error = NULL;
  GstMemory *mem;
  GstMapInfo map;
  gsize size;

  in->fmt = f;
  in->width = width;
  in->height = height;
  in->content = content;
  meta_layout (in, extra, gap, &size);
  mem = gst_cl_allocator_alloc_memory (alloc, mem_offset + size, &error);
  fail_unless (mem != NULL, "%s", error ? error->message : "?");
  gst_object_unref (alloc);
  in->buffer = gst_buffer_new ();
  gst_buffer_append_memory (in->buffer, gst_memory_share (mem, mem_offset,
          size));
  gst_memory_unref (mem);
  fail_unless (gst_buffer_map (in->buffer, &map, GST_MAP_WRITE));
  input_fill (in, map.data, size, seed);
  gst_buffer_unmap (in->buffer, &map);
  add_meta (in);
  in->desc = g_strdup_printf ("%s %dx%d %s seed 0x%08x, OpenCL memory at +%"
      G_GSIZE_FORMAT ", stride extra %d, plane gap %" G_GSIZE_FORMAT, f->name,
      width, height, content_names[content], seed, mem_offset, extra, gap);
}

/* ---- harnesses ---- */

/* clsmooth with @props ("name=value ..."), on the shared context; output
 * in system memory, or in OpenCL memory with @cl_out. */
static GstHarness *
new_harness (const gchar * props, gboolean cl_out)
{
  GstHarness *h = test_harness_new ("clsmooth", props);

  gst_harness_set_sink_caps_str (h, cl_out ?
      "video/x-raw(" GST_CAPS_FEATURE_MEMORY_CL ")" : "video/x-raw");
  return h;
}

static void
set_input_caps (GstHarness * h, const Input * in)
{
  gchar *caps = g_strdup_printf ("video/x-raw,format=%s,width=%d,height=%d,"
      "framerate=30/1", in->fmt->name, in->width, in->height);
  gst_harness_set_src_caps_str (h, caps);
  g_free (caps);
}

/* ---- checking ---- */

/* Compares plane @p of the element's output with @expected (rows
 * @exp_stride apart); appends the first difference to @report. */
static gboolean
compare_plane (const GstVideoFrame * frame, guint p, const guint8 * expected,
    gint exp_stride, gint w, gint h, gint bpp, GString * report)
{
  const guint8 *got = GST_VIDEO_FRAME_PLANE_DATA (frame, p);
  gint got_stride = GST_VIDEO_FRAME_PLANE_STRIDE (frame, p);
  guint64 bad = 0;
  gint x, y, first_x = 0, first_y = 0, first_exp = 0, first_got = 0;

  for (y = 0; y < h; y++) {
    const guint8 *e = expected + (gsize) y * exp_stride;
    const guint8 *g = got + (gsize) y * got_stride;
    if (memcmp (e, g, (gsize) w * bpp) == 0)
      continue;
    for (x = 0; x < w * bpp; x++) {
      if (e[x] == g[x])
        continue;
      if (bad++ == 0) {
        first_x = x;
        first_y = y;
        first_exp = e[x];
        first_got = g[x];
      }
    }
  }
  if (bad)
    g_string_append_printf (report, "\n  plane %u: %" G_GUINT64_FORMAT
        " of %d bytes differ; first at pixel x=%d channel %d y=%d: "
        "expected %d, got %d", p, bad, w * bpp * h, first_x / bpp,
        first_x % bpp, first_y, first_exp, first_got);
  return bad == 0;
}

/* Checks the element's @out against the reference for @in and @s,
 * bit-exact; flat input must also come out unchanged. */
static void
check_output (GstHarness * h, GstBuffer * out, const Input * in,
    const Settings * s, const gchar * what)
{
  GstCaps *caps = gst_pad_get_current_caps (h->sinkpad);
  GString *report = g_string_new (NULL);
  GstVideoInfo info;
  GstVideoFrame frame;
  GstMapInfo map;
  gboolean ok = TRUE;
  guint p;

  fail_unless (caps != NULL);
  fail_unless (gst_video_info_from_caps (&info, caps));
  gst_caps_unref (caps);
  fail_unless (GST_VIDEO_INFO_WIDTH (&info) == in->width &&
      GST_VIDEO_INFO_HEIGHT (&info) == in->height &&
      strcmp (GST_VIDEO_INFO_NAME (&info), in->fmt->name) == 0,
      "%s: output caps are %s %dx%d", in->desc, GST_VIDEO_INFO_NAME (&info),
      GST_VIDEO_INFO_WIDTH (&info), GST_VIDEO_INFO_HEIGHT (&info));
  fail_unless (gst_video_frame_map (&frame, &info, out, GST_MAP_READ));
  fail_unless (gst_buffer_map (in->buffer, &map, GST_MAP_READ));

  for (p = 0; p < in->fmt->n_planes; p++) {
    const PlaneFormat *pf = &in->fmt->plane[p];
    const guint8 *src = map.data + in->offset[p];
    gint w, ht, exp_stride;
    guint8 *expected;

    plane_size (in->fmt, p, in->width, in->height, &w, &ht);
    exp_stride = w * pf->bpp;
    expected = g_malloc ((gsize) exp_stride * ht);
    ref_smooth_plane (src, in->stride[p], expected, exp_stride, w, ht,
        pf->bpp, smooth_mask (pf, s), s->radius, s->gaussian);
    ok &= compare_plane (&frame, p, expected, exp_stride, w, ht, pf->bpp,
        report);
    if (in->content == CONTENT_CONSTANT) {
      GString *flat = g_string_new (NULL);
      if (!compare_plane (&frame, p, src, in->stride[p], w, ht, pf->bpp,
              flat)) {
        g_string_append_printf (report, "\n  flat input changed:%s",
            flat->str);
        ok = FALSE;
      }
      g_string_free (flat, TRUE);
    }
    g_free (expected);
  }
  gst_buffer_unmap (in->buffer, &map);
  gst_video_frame_unmap (&frame);
  fail_unless (ok, "%s: %s, radius %d %s, planes %s, differs from the "
      "reference:%s", what, in->desc, s->radius,
      s->gaussian ? "gaussian" : "box", s->all_planes ? "all" : "luma",
      report->str);
  g_string_free (report, TRUE);
}

static void
run_and_check (GstHarness * h, Input * in, const Settings * s,
    const gchar * what)
{
  GstBuffer *out = test_push_and_pull (h, in->buffer, in->desc);
  check_output (h, out, in, s, what);
  gst_buffer_unref (out);
}

/* ---- hand-worked values ---- */

/* The output of a black GRAY8 frame of @width x @height with one 255
 * pixel at (@ix, @iy), row by row without padding (g_free it). */
static guint8 *
impulse_output (GstHarness * h, gint width, gint height, gint ix, gint iy,
    guint32 seed)
{
  guint8 *samples = g_malloc ((gsize) width * height);
  GstVideoFrame frame;
  GstVideoInfo info;
  GstBuffer *out;
  GstMapInfo map;
  Input in = { 0, };
  gint x, y;

  input_make (&in, find_format ("GRAY8"), width, height, CONTENT_RANDOM,
      seed, FALSE, 0, 0);
  fail_unless (gst_buffer_map (in.buffer, &map, GST_MAP_WRITE));
  for (y = 0; y < height; y++)
    for (x = 0; x < width; x++)
      map.data[y * in.stride[0] + x] = x == ix && y == iy ? 255 : 0;
  gst_buffer_unmap (in.buffer, &map);
  set_input_caps (h, &in);
  out = test_push_and_pull (h, in.buffer, in.desc);
  gst_video_info_set_format (&info, GST_VIDEO_FORMAT_GRAY8, width, height);
  fail_unless (gst_video_frame_map (&frame, &info, out, GST_MAP_READ));
  for (y = 0; y < height; y++)
    memcpy (samples + y * width, (const guint8 *)
        GST_VIDEO_FRAME_PLANE_DATA (&frame, 0) +
        y * GST_VIDEO_FRAME_PLANE_STRIDE (&frame, 0), width);
  gst_video_frame_unmap (&frame);
  gst_buffer_unref (out);
  input_clear (&in);
  return samples;
}

/* A 255 impulse in a black GRAY8 frame comes out as the kernel's weights
 * (w_i w_j 255 + S/2) / S. 1D weights: box 1 ... 1; binomial r=1: 1 2 1,
 * r=2: 1 4 6 4 1. For example the r=1 binomial gives 16 32 16 / 32 64 32 /
 * 16 32 16, the r=2 box (255 + 12) / 25 = 10 over 5x5. */
GST_START_TEST (test_impulse)
{
  static const struct
  {
    gint radius;
    gboolean gaussian;
    gint w1d[5];
  } cases[] = {
    {1, FALSE, {1, 1, 1}}, {2, FALSE, {1, 1, 1, 1, 1}},
    {1, TRUE, {1, 2, 1}}, {2, TRUE, {1, 4, 6, 4, 1}},
  };
  guint i;

  for (i = 0; i < G_N_ELEMENTS (cases); i++) {
    const gint r = cases[i].radius, taps = 2 * r + 1;
    const gint S = cases[i].gaussian ? 1 << (4 * r) : taps * taps;
    Settings s = { r, cases[i].gaussian, FALSE };
    gchar *props = settings_props (&s);
    GstHarness *h = new_harness (props, FALSE);
    guint8 *out = impulse_output (h, 9, 7, 4, 3, 1);
    gint x, y;

    for (y = 0; y < 7; y++)
      for (x = 0; x < 9; x++) {
        gint dx = x - 4, dy = y - 3, expected = 0;
        gint got = out[y * 9 + x];
        if (ABS (dx) <= r && ABS (dy) <= r)
          expected = (cases[i].w1d[dx + r] * cases[i].w1d[dy + r] * 255 +
              S / 2) / S;
        fail_unless (got == expected, "%s: impulse response at (%d, %d) is "
            "%d, expected %d", props, x, y, got, expected);
      }
    g_free (out);
    test_harness_teardown (h);
    g_free (props);
  }
}

GST_END_TEST;

/* Edges are replicated: a 255 pixel in the corner of a black frame counts
 * as often as clamping repeats it. Radius 1 box, S = 9: at (0, 0) the
 * window holds the corner 2 x 2 times, (4 * 255 + 4) / 9 = 113; at (1, 0)
 * and (0, 1) twice, 57; at (1, 1) once, 28. */
GST_START_TEST (test_edge_replication)
{
  static const gint expected[3][3] = { {113, 57, 0}, {57, 28, 0}, {0, 0, 0} };
  GstHarness *h = new_harness ("radius=1", FALSE);
  guint8 *out = impulse_output (h, 6, 5, 0, 0, 2);
  gint x, y;

  for (y = 0; y < 3; y++)
    for (x = 0; x < 3; x++) {
      gint got = out[y * 6 + x];
      fail_unless (got == expected[y][x], "corner impulse at (%d, %d) is "
          "%d, expected %d", x, y, got, expected[y][x]);
    }
  g_free (out);
  test_harness_teardown (h);
}

GST_END_TEST;

/* ---- every format ---- */

static const struct
{
  gint width, height;
} small_sizes[] = {
  {1, 1}, {17, 9}, {640, 480},
};

/* Each format at the small sizes (renegotiating in between), with the
 * default settings and with a binomial filter on all planes. */
GST_START_TEST (test_formats)
{
  static const Settings settings[] = { {2, FALSE, FALSE}, {3, TRUE, TRUE} };
  const Format *f = &formats[__i__];
  guint k, sz, c;

  for (k = 0; k < G_N_ELEMENTS (settings); k++) {
    gchar *props = settings_props (&settings[k]);
    GstHarness *h = new_harness (props, FALSE);

    for (sz = 0; sz < G_N_ELEMENTS (small_sizes); sz++) {
      for (c = 0; c < N_CONTENTS; c++) {
        Input in = { 0, };
        input_make (&in, f, small_sizes[sz].width, small_sizes[sz].height, c,
            test_seed (f->name, (k * 8 + sz) * 4 + c), FALSE, 0, 0);
        set_input_caps (h, &in);
        run_and_check (h, &in, &settings[k], "formats");
        input_clear (&in);
      }
    }
    test_harness_teardown (h);
    g_free (props);
  }
}

GST_END_TEST;

/* Large frames: a subset of formats and settings. */
static const struct
{
  const gchar *format;
  gint width, height;
  Settings settings;
} large_cases[] = {
  {"GRAY8", 2048, 2048, {2, FALSE, FALSE}},
  {"I420", 2048, 2048, {2, FALSE, TRUE}},
  {"RGBx", 2048, 2048, {2, FALSE, FALSE}},
  {"NV12", 1918, 1078, {2, TRUE, TRUE}},
  {"Y444", 1918, 1078, {2, FALSE, FALSE}},
  {"BGR", 1918, 1078, {2, FALSE, FALSE}},
  {"ABGR", 1918, 1078, {2, TRUE, FALSE}},
};

GST_START_TEST (test_large)
{
  const Format *f = find_format (large_cases[__i__].format);
  const Settings *s = &large_cases[__i__].settings;
  gchar *props = settings_props (s);
  GstHarness *h = new_harness (props, __i__ % 2 == 1);
  guint c;

  for (c = 0; c < N_CONTENTS; c++) {
    Input in = { 0, };
    input_make (&in, f, large_cases[__i__].width, large_cases[__i__].height,
        c, test_seed ("large", __i__ * 4 + c), FALSE, 0, 0);
    set_input_caps (h, &in);
    run_and_check (h, &in, s, "large");
    input_clear (&in);
  }
  test_harness_teardown (h);
  g_free (props);
}

GST_END_TEST;

/* ---- every radius and kernel ---- */

/* Radius 1..8, box and binomial: a medium size, a wide one with interior
 * tiles in the tiled layout, and sizes smaller than the radius. */
GST_START_TEST (test_radii)
{
  static const gchar *names[] = { "GRAY8", "NV12", "RGB", "BGRA", "ARGB" };
  static const struct
  {
    gint w, h;
  } sizes[] = { {67, 45}, {600, 80}, {3, 2}, {1, 7}, {9, 1} };
  Settings s = { __i__ / 2 + 1, __i__ % 2, TRUE };
  gchar *props = settings_props (&s);
  guint n, sz, c;

  for (n = 0; n < G_N_ELEMENTS (names); n++) {
    const Format *f = find_format (names[n]);
    GstHarness *h = new_harness (props, FALSE);

    for (sz = 0; sz < G_N_ELEMENTS (sizes); sz++) {
      for (c = 0; c < 2; c++) {
        Input in = { 0, };
        input_make (&in, f, sizes[sz].w, sizes[sz].h, c,
            test_seed (props, (n * 8 + sz) * 2 + c), FALSE, 0, 0);
        set_input_caps (h, &in);
        run_and_check (h, &in, &s, "radii");
        input_clear (&in);
      }
    }
    test_harness_teardown (h);
  }
  g_free (props);
}

GST_END_TEST;

/* ---- planes ---- */

/* planes=luma leaves chroma bit-identical to the input; planes=all
 * smooths it: on natural content the two must differ. */
GST_START_TEST (test_planes)
{
  static const gchar *names[] = { "I420", "NV12", "Y444" };
  guint n, k;

  for (n = 0; n < G_N_ELEMENTS (names); n++) {
    const Format *f = find_format (names[n]);
    GstBuffer *outs[2];

    for (k = 0; k < 2; k++) {
      Settings s = { 2, FALSE, k == 1 };
      gchar *props = settings_props (&s);
      GstHarness *h = new_harness (props, FALSE);
      Input in = { 0, };

      input_make (&in, f, 67, 45, CONTENT_NATURAL, test_seed ("planes", n),
          FALSE, 0, 0);
      set_input_caps (h, &in);
      outs[k] = test_push_and_pull (h, in.buffer, in.desc);
      check_output (h, outs[k], &in, &s, "planes");
      if (k == 0) {
        /* chroma planes are the input's, byte for byte */
        GstVideoFrame frame;
        GstVideoInfo info;
        GstMapInfo map;
        GString *report = g_string_new (NULL);
        guint p;

        gst_video_info_set_format (&info, gst_video_format_from_string
            (f->name), 67, 45);
        fail_unless (gst_video_frame_map (&frame, &info, outs[k],
                GST_MAP_READ));
        fail_unless (gst_buffer_map (in.buffer, &map, GST_MAP_READ));
        for (p = 1; p < f->n_planes; p++) {
          gint w, ht;
          plane_size (f, p, 67, 45, &w, &ht);
          fail_unless (compare_plane (&frame, p, map.data + in.offset[p],
                  in.stride[p], w, ht, f->plane[p].bpp, report),
              "%s planes=luma: chroma changed:%s", f->name, report->str);
        }
        gst_buffer_unmap (in.buffer, &map);
        gst_video_frame_unmap (&frame);
        g_string_free (report, TRUE);
      }
      input_clear (&in);
      test_harness_teardown (h);
      g_free (props);
    }
    {
      GstMapInfo a, b;
      fail_unless (gst_buffer_map (outs[0], &a, GST_MAP_READ));
      fail_unless (gst_buffer_map (outs[1], &b, GST_MAP_READ));
      fail_unless (a.size != b.size || memcmp (a.data, b.data, a.size) != 0,
          "%s: planes=all gave the same frame as planes=luma", f->name);
      gst_buffer_unmap (outs[0], &a);
      gst_buffer_unmap (outs[1], &b);
    }
    gst_buffer_unref (outs[0]);
    gst_buffer_unref (outs[1]);
  }
}

GST_END_TEST;

/* ---- layouts ---- */

/* System-memory input with a GstVideoMeta: strides that are not the
 * default (wider, odd, or the tight width) and planes at odd offsets. */
GST_START_TEST (test_input_meta)
{
  const Format *f = &formats[__i__];
  static const struct
  {
    gint w, h, extra;
    gsize gap;
  } layouts[] = {
    {67, 45, 13, 7}, {67, 45, 0, 1}, {67, 45, 64, 0}, {1, 1, 1, 3},
    {33, 20, 2, 2},
  };
  Settings s = { 2, TRUE, TRUE };
  gchar *props = settings_props (&s);
  GstHarness *h = new_harness (props, FALSE);
  guint l;

  for (l = 0; l < G_N_ELEMENTS (layouts); l++) {
    Input in = { 0, };
    input_make (&in, f, layouts[l].w, layouts[l].h, CONTENT_NATURAL,
        test_seed (f->name, l), TRUE, layouts[l].extra, layouts[l].gap);
    set_input_caps (h, &in);
    run_and_check (h, &in, &s, "system memory with meta");
    input_clear (&in);
  }
  test_harness_teardown (h);
  g_free (props);
}

GST_END_TEST;

/* OpenCL-memory input of the element's context with a GstVideoMeta, read
 * in place: the unaligned load paths see odd offsets and strides, in wide
 * frames too, where the tiled layout has interior tiles. Output in OpenCL
 * memory. */
GST_START_TEST (test_input_cl_meta)
{
  static const gchar *names[] = { "GRAY8", "I420", "NV12", "RGB", "xBGR",
    "RGBA"
  };
  static const struct
  {
    gint w, h, extra;
    gsize gap, mem_offset;
  } layouts[] = {
    {67, 45, 3, 5, 0}, {67, 45, 1, 0, 1}, {67, 45, 8, 8, 0},
    {800, 70, 5, 3, 2}, {800, 70, 4, 4, 4}, {1, 1, 1, 1, 1},
  };
  const Format *f = find_format (names[__i__]);
  Settings settings[] = { {2, FALSE, TRUE}, {5, TRUE, TRUE} };
  guint k, l;

  for (k = 0; k < G_N_ELEMENTS (settings); k++) {
    gchar *props = settings_props (&settings[k]);
    GstHarness *h = new_harness (props, TRUE);
    GstClContext *ctx = test_element_cl_context (h->element, "src");

    /* input memory of any other context would be staged like system
     * memory, and the in-place path would go untested */
    fail_unless (ctx == test_get_shared_context (),
        "the element made its own context");
    for (l = 0; l < G_N_ELEMENTS (layouts); l++) {
      Input in = { 0, };
      input_make_cl (&in, ctx, f, layouts[l].w, layouts[l].h,
          CONTENT_NATURAL, test_seed (f->name, k * 8 + l), layouts[l].extra,
          layouts[l].gap, layouts[l].mem_offset);
      set_input_caps (h, &in);
      run_and_check (h, &in, &settings[k], "OpenCL memory with meta");
      input_clear (&in);
    }
    gst_object_unref (ctx);
    test_harness_teardown (h);
    g_free (props);
  }
}

GST_END_TEST;

/* ---- renegotiation and property changes ---- */

/* Size and format change mid-stream, in one harness. */
GST_START_TEST (test_caps_change)
{
  static const struct
  {
    const gchar *format;
    gint w, h;
  } steps[] = {
    {"GRAY8", 67, 45}, {"GRAY8", 640, 480}, {"GRAY8", 3, 2},
    {"I420", 320, 240}, {"I420", 17, 9}, {"RGBx", 130, 17},
    {"RGBx", 1280, 720}, {"NV12", 67, 45}, {"GRAY8", 67, 45},
  };
  Settings s = { 3, FALSE, TRUE };
  gchar *props = settings_props (&s);
  GstHarness *h = new_harness (props, FALSE);
  guint i, c;

  for (i = 0; i < G_N_ELEMENTS (steps); i++) {
    for (c = 0; c < 2; c++) {
      Input in = { 0, };
      input_make (&in, find_format (steps[i].format), steps[i].w, steps[i].h,
          c, test_seed ("caps", i * 2 + c), FALSE, 0, 0);
      set_input_caps (h, &in);
      run_and_check (h, &in, &s, "caps change");
      input_clear (&in);
    }
  }
  test_harness_teardown (h);
  g_free (props);
}

GST_END_TEST;

/* The properties are mutable while playing: a change applies to the next
 * frame, without renegotiation. */
GST_START_TEST (test_property_change)
{
  static const Settings steps[] = {
    {2, FALSE, FALSE}, {8, FALSE, FALSE}, {8, TRUE, FALSE}, {1, TRUE, TRUE},
    {4, FALSE, TRUE}, {2, FALSE, FALSE},
  };
  GstHarness *h = new_harness (NULL, FALSE);
  GstElement *e = gst_harness_find_element (h, "clsmooth");
  Input in = { 0, };
  guint i;

  input_make (&in, find_format ("NV12"), 67, 45, CONTENT_NATURAL, 7, FALSE,
      0, 0);
  set_input_caps (h, &in);
  for (i = 0; i < G_N_ELEMENTS (steps); i++) {
    g_object_set (e, "radius", (guint) steps[i].radius, NULL);
    gst_util_set_object_arg (G_OBJECT (e), "kernel",
        steps[i].gaussian ? "gaussian" : "box");
    gst_util_set_object_arg (G_OBJECT (e), "planes",
        steps[i].all_planes ? "all" : "luma");
    run_and_check (h, &in, &steps[i], "property change while playing");
  }
  input_clear (&in);
  gst_object_unref (e);
  test_harness_teardown (h);
}

GST_END_TEST;

/* ---- errors ---- */

/* A buffer smaller than the caps say: an element error and GST_FLOW_ERROR;
 * a complete frame after it still goes through. */
GST_START_TEST (test_short_buffer)
{
  GstHarness *h = new_harness (NULL, FALSE);
  Input in = { 0, };
  GstBuffer *buf;
  GstBus *bus;
  GstMessage *msg;

  input_make (&in, find_format ("I420"), 67, 45, CONTENT_RANDOM, 3, FALSE, 0,
      0);
  set_input_caps (h, &in);
  buf = gst_buffer_copy_region (in.buffer, GST_BUFFER_COPY_ALL, 0,
      gst_buffer_get_size (in.buffer) - 1);
  fail_unless (gst_harness_push (h, buf) == GST_FLOW_ERROR);
  bus = gst_element_get_bus (h->element);
  msg = gst_bus_pop_filtered (bus, GST_MESSAGE_ERROR);
  fail_unless (msg != NULL, "no error message for a short buffer");
  gst_message_unref (msg);
  gst_object_unref (bus);
  fail_unless (gst_harness_try_pull (h) == NULL);

  run_and_check (h, &in, &default_settings, "after a short buffer");
  input_clear (&in);
  test_harness_teardown (h);
}

GST_END_TEST;

/* ---- in a pipeline ---- */

static void
count_buffer (GstElement * sink G_GNUC_UNUSED, GstBuffer * buf G_GNUC_UNUSED,
    GstPad * pad G_GNUC_UNUSED, gpointer user_data)
{
  (*(guint *) user_data)++;
}

static GstPadProbeReturn
count_cl_input (GstPad * pad G_GNUC_UNUSED, GstPadProbeInfo * info,
    gpointer user_data)
{
  GstBuffer *buf = GST_PAD_PROBE_INFO_BUFFER (info);
  if (gst_buffer_n_memory (buf) == 1 &&
      gst_is_cl_memory (gst_buffer_peek_memory (buf, 0)))
    (*(guint *) user_data)++;
  return GST_PAD_PROBE_OK;
}

/* clcolorlowpass hands GRAY8 frames in OpenCL memory to clsmooth: the
 * pipeline runs to the end, every frame arrives, clsmooth gets each in
 * device memory, on the context clcolorlowpass made, and smooths it in one
 * launch. */
GST_START_TEST (test_chain)
{
  const guint n_frames = 8;
  GstElement *pipeline, *smooth, *lowpass, *sink;
  GstClContext *ctx_smooth, *ctx_lowpass;
  GError *error = NULL;
  GstMessage *msg;
  GstBus *bus;
  GstPad *pad;
  guint received = 0, cl_input = 0;
  guint64 launches = 0;
  gchar *desc;

  desc = g_strdup_printf ("videotestsrc num-buffers=%u ! "
      "video/x-raw,format=RGBx,width=320,height=240 ! "
      "clcolorlowpass name=lowpass luma-filter=none ! "
      "video/x-raw(memory:OpenCL),format=GRAY8 ! clsmooth name=smooth ! "
      "fakesink name=sink signal-handoffs=true", n_frames);
  pipeline = gst_parse_launch (desc, &error);
  g_free (desc);
  fail_unless (pipeline != NULL, "%s", error ? error->message : "?");
  sink = gst_bin_get_by_name (GST_BIN (pipeline), "sink");
  smooth = gst_bin_get_by_name (GST_BIN (pipeline), "smooth");
  lowpass = gst_bin_get_by_name (GST_BIN (pipeline), "lowpass");
  g_signal_connect (sink, "handoff", G_CALLBACK (count_buffer), &received);
  pad = gst_element_get_static_pad (smooth, "sink");
  gst_pad_add_probe (pad, GST_PAD_PROBE_TYPE_BUFFER, count_cl_input,
      &cl_input, NULL);
  gst_object_unref (pad);

  fail_unless (gst_element_set_state (pipeline, GST_STATE_PLAYING) !=
      GST_STATE_CHANGE_FAILURE);
  bus = gst_element_get_bus (pipeline);
  msg = gst_bus_timed_pop_filtered (bus, 120 * GST_SECOND,
      GST_MESSAGE_EOS | GST_MESSAGE_ERROR);
  fail_unless (msg != NULL, "the pipeline did not finish");
  if (GST_MESSAGE_TYPE (msg) == GST_MESSAGE_ERROR) {
    gchar *debug = NULL;
    gst_message_parse_error (msg, &error, &debug);
    fail ("pipeline error: %s (%s)", error->message, GST_STR_NULL (debug));
  }
  gst_message_unref (msg);
  fail_unless_equals_int (received, n_frames);
  fail_unless_equals_int (cl_input, n_frames);

  ctx_smooth = test_element_cl_context (smooth, "src");
  ctx_lowpass = test_element_cl_context (lowpass, "src");
  fail_unless (ctx_smooth == ctx_lowpass, "the elements use two contexts");
  gst_cl_context_get_kernel_stats (ctx_smooth, "smooth", &launches, NULL,
      NULL);
  fail_unless (launches == n_frames, "%" G_GUINT64_FORMAT " smoothing "
      "launches for %u frames", launches, n_frames);

  gst_element_set_state (pipeline, GST_STATE_NULL);
  gst_object_unref (ctx_smooth);
  gst_object_unref (ctx_lowpass);
  gst_object_unref (bus);
  gst_object_unref (lowpass);
  gst_object_unref (smooth);
  gst_object_unref (sink);
  gst_object_unref (pipeline);
}

GST_END_TEST;

static Suite *
smooth_suite (void)
{
  Suite *s = suite_create ("smooth");
  TCase *tc = test_suite_add_case (s);

  tcase_add_test (tc, test_impulse);
  tcase_add_test (tc, test_edge_replication);
  tcase_add_loop_test (tc, test_formats, 0, N_FORMATS);
  tcase_add_loop_test (tc, test_large, 0, G_N_ELEMENTS (large_cases));
  tcase_add_loop_test (tc, test_radii, 0, 16);
  tcase_add_test (tc, test_planes);
  tcase_add_loop_test (tc, test_input_meta, 0, N_FORMATS);
  tcase_add_loop_test (tc, test_input_cl_meta, 0, 6);
  tcase_add_test (tc, test_caps_change);
  tcase_add_test (tc, test_property_change);
  tcase_add_test (tc, test_short_buffer);
  tcase_add_test (tc, test_chain);
  return s;
}

GST_CHECK_MAIN (smooth);
