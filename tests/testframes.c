/* gst-clvideo: test frames of 8-bit YUV, GRAY8 and packed RGB formats
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "testframes.h"
#include <gst/cl/gstclmemory.h>

#include <gst/check/gstcheck.h>
#include <string.h>

#define Y(pl, ps, ws, hs) { "Y", pl, 0, ps, ws, hs }
#define U(pl, b, ps, ws, hs) { "U", pl, b, ps, ws, hs }
#define V(pl, b, ps, ws, hs) { "V", pl, b, ps, ws, hs }
#define RGB(bpp, r, g, b) { { "R", 0, r, bpp, 0, 0 }, \
      { "G", 0, g, bpp, 0, 0 }, { "B", 0, b, bpp, 0, 0 } }

const TestFormat frame_formats[] = {
  {"GRAY8", 1, 1, {Y (0, 1, 0, 0)}},
  {"I420", 3, 3, {Y (0, 1, 0, 0), U (1, 0, 1, 1, 1), V (2, 0, 1, 1, 1)}},
  {"NV12", 2, 3, {Y (0, 1, 0, 0), U (1, 0, 2, 1, 1), V (1, 1, 2, 1, 1)}},
  {"Y444", 3, 3, {Y (0, 1, 0, 0), U (1, 0, 1, 0, 0), V (2, 0, 1, 0, 0)}},
  {"Y42B", 3, 3, {Y (0, 1, 0, 0), U (1, 0, 1, 1, 0), V (2, 0, 1, 1, 0)}},
  {"RGB", 1, 3, RGB (3, 0, 1, 2)},
  {"BGR", 1, 3, RGB (3, 2, 1, 0)},
  {"RGBx", 1, 3, RGB (4, 0, 1, 2)},
  {"BGRx", 1, 3, RGB (4, 2, 1, 0)},
  {"xRGB", 1, 3, RGB (4, 1, 2, 3)},
  {"xBGR", 1, 3, RGB (4, 3, 2, 1)},
  {"RGBA", 1, 3, RGB (4, 0, 1, 2)},
  {"BGRA", 1, 3, RGB (4, 2, 1, 0)},
  {"ARGB", 1, 3, RGB (4, 1, 2, 3)},
  {"ABGR", 1, 3, RGB (4, 3, 2, 1)},
};

const guint n_frame_formats = G_N_ELEMENTS (frame_formats);

const TestFormat *
test_format_find (const gchar * name)
{
  guint i;
  for (i = 0; i < n_frame_formats; i++)
    if (strcmp (frame_formats[i].name, name) == 0)
      return &frame_formats[i];
  g_assert_not_reached ();
  return NULL;
}

gboolean
test_format_is_rgb (const TestFormat * f)
{
  return strcmp (f->comp[0].channel, "R") == 0;
}

const gchar *
test_content_name (TestContent c)
{
  static const gchar *names[] = { "random", "constant", "natural" };
  return names[c];
}

void
test_frame_comp_size (const TestFrame * frame, guint c, gint * w, gint * h)
{
  const TestComponent *tc = &frame->fmt->comp[c];
  *w = (frame->width + (1 << tc->wshift) - 1) >> tc->wshift;
  *h = (frame->height + (1 << tc->hshift) - 1) >> tc->hshift;
}

static inline guint8
clamp_u8 (gint v)
{
  return v < 0 ? 0 : (v > 255 ? 255 : v);
}

/* Camera-like content in a narrow band of values (so that a contrast
 * stretch has work to do): two gradients, a disc of the mirrored values,
 * thin dark and bright lines, a little noise. */
static guint8
natural_value (guint c, gint x, gint y, gint w, gint h, guint32 * rng)
{
  gint base = 50 + (gint) (c * 29) % 40, range = 110;
  gint v, dx = x - w / 2, dy = y - h / 2, radius = MIN (w, h) / 3;

  v = base + (w > 1 ? x * range * 3 / (5 * (w - 1)) : 0) +
      (h > 1 ? y * range * 2 / (5 * (h - 1)) : 0);
  if (dx * dx + dy * dy < radius * radius)
    v = 2 * base + range - v;
  if ((x / 8) % 32 == 31)
    v = (y & 1) ? base + range + 20 : base - 20;
  v += (gint) (test_rng_next (rng) % 7) - 3;
  return clamp_u8 (v);
}

/* Plane extents of the hand-written table: bytes of a row, rows. */
static void
plane_extent (const TestFrame * frame, gint plane, gsize * row_bytes,
    gsize * rows)
{
  guint c;
  *row_bytes = *rows = 0;
  for (c = 0; c < (guint) frame->fmt->n_comps; c++) {
    const TestComponent *tc = &frame->fmt->comp[c];
    gint w, h;
    if (tc->plane != plane)
      continue;
    test_frame_comp_size (frame, c, &w, &h);
    *row_bytes = MAX (*row_bytes, (gsize) w * tc->pstride);
    *rows = MAX (*rows, (gsize) h);
  }
}

/* Sets the layout; returns the buffer size. */
static gsize
frame_layout (TestFrame * frame, const TestFormat * f, gint width,
    gint height, gint extra, gsize gap)
{
  gsize end = 0;
  gint p;

  frame->fmt = f;
  frame->width = width;
  frame->height = height;
  frame->meta = extra >= 0;
  if (!frame->meta) {
    GstVideoInfo info;
    gst_video_info_set_format (&info, gst_video_format_from_string (f->name),
        width, height);
    for (p = 0; p < f->n_planes; p++) {
      frame->offset[p] = info.offset[p];
      frame->stride[p] = info.stride[p];
    }
    return info.size;
  }
  for (p = 0; p < f->n_planes; p++) {
    gsize row_bytes, rows;
    plane_extent (frame, p, &row_bytes, &rows);
    frame->offset[p] = end + gap;
    frame->stride[p] = row_bytes + extra;
    end = frame->offset[p] + (rows - 1) * frame->stride[p] + row_bytes;
  }
  return end + 3;               /* trailing bytes the elements must not need */
}

static void
frame_fill (TestFrame * frame, guint8 * data, gsize size, TestContent content,
    guint32 seed)
{
  guint32 rng = seed ? seed : 1;
  guint c;

  test_fill_random (data, size, &rng);
  if (content == CONTENT_RANDOM)
    return;
  for (c = 0; c < (guint) frame->fmt->n_comps; c++) {
    const TestComponent *tc = &frame->fmt->comp[c];
    guint8 constant = test_rng_next (&rng) & 0xff;
    gint w, h, x, y;

    test_frame_comp_size (frame, c, &w, &h);
    for (y = 0; y < h; y++) {
      guint8 *row = data + frame->offset[tc->plane] +
          (gsize) y * frame->stride[tc->plane] + tc->byte;
      for (x = 0; x < w; x++)
        row[(gsize) x * tc->pstride] = content == CONTENT_CONSTANT ?
            constant : natural_value (c, x, y, w, h, &rng);
    }
  }
}

static void
frame_finish (TestFrame * frame, const gchar * where, gsize gap)
{
  if (frame->meta) {
    gsize offsets[GST_VIDEO_MAX_PLANES] = { 0, };
    gint strides[GST_VIDEO_MAX_PLANES] = { 0, };
    gint p;
    for (p = 0; p < frame->fmt->n_planes; p++) {
      offsets[p] = frame->offset[p];
      strides[p] = frame->stride[p];
    }
    gst_buffer_add_video_meta_full (frame->buffer, GST_VIDEO_FRAME_FLAG_NONE,
        gst_video_format_from_string (frame->fmt->name), frame->width,
        frame->height, frame->fmt->n_planes, offsets, strides);
  }
  frame->desc = g_strdup_printf ("%s %dx%d %s, stride %d, gap %" G_GSIZE_FORMAT
      "%s", frame->fmt->name, frame->width, frame->height, where,
      frame->stride[0], gap, frame->meta ? " (meta)" : "");
}

void
test_frame_make (TestFrame * frame, const TestFormat * f, gint width,
    gint height, gint extra, gsize gap, TestContent content, guint32 seed)
{
  gsize size = frame_layout (frame, f, width, height, extra, gap);
  GstMapInfo map;
  gchar *where;

  frame->buffer = gst_buffer_new_allocate (NULL, size, NULL);
  fail_unless (gst_buffer_map (frame->buffer, &map, GST_MAP_WRITE));
  frame_fill (frame, map.data, size, content, seed);
  gst_buffer_unmap (frame->buffer, &map);
  where = g_strdup_printf ("%s seed 0x%08x", test_content_name (content),
      seed);
  frame_finish (frame, where, gap);
  g_free (where);
}

void
test_frame_make_cl (TestFrame * frame, GstClContext * ctx,
    const TestFormat * f, gint width, gint height, gint extra, gsize gap,
    gsize mem_offset, TestContent content, guint32 seed)
{
  gsize size = frame_layout (frame, f, width, height, MAX (extra, 0), gap);
  GstAllocator *alloc = gst_cl_allocator_new (ctx);
  GError *error = NULL;
  GstMemory *mem;
  GstMapInfo map;
  gchar *where;

  mem = gst_cl_allocator_alloc_memory (alloc, mem_offset + size, &error);
  fail_unless (mem != NULL, "%s", error ? error->message : "?");
  gst_object_unref (alloc);
  frame->buffer = gst_buffer_new ();
  gst_buffer_append_memory (frame->buffer, gst_memory_share (mem, mem_offset,
          size));
  gst_memory_unref (mem);
  fail_unless (gst_buffer_map (frame->buffer, &map, GST_MAP_WRITE));
  frame_fill (frame, map.data, size, content, seed);
  gst_buffer_unmap (frame->buffer, &map);
  where = g_strdup_printf ("%s seed 0x%08x, OpenCL memory at +%"
      G_GSIZE_FORMAT, test_content_name (content), seed, mem_offset);
  frame_finish (frame, where, gap);
  g_free (where);
}

void
test_frame_clear (TestFrame * frame)
{
  gst_clear_buffer (&frame->buffer);
  g_clear_pointer (&frame->desc, g_free);
}

GstCaps *
test_frame_caps (const TestFrame * frame)
{
  return gst_caps_new_simple ("video/x-raw", "format", G_TYPE_STRING,
      frame->fmt->name, "width", G_TYPE_INT, frame->width, "height",
      G_TYPE_INT, frame->height, "framerate", GST_TYPE_FRACTION, 25, 1, NULL);
}

void
test_frame_extract (const TestFrame * frame, const guint8 * data, guint c,
    guint8 * out)
{
  const TestComponent *tc = &frame->fmt->comp[c];
  gint w, h, x, y;

  test_frame_comp_size (frame, c, &w, &h);
  for (y = 0; y < h; y++) {
    const guint8 *row = data + frame->offset[tc->plane] +
        (gsize) y * frame->stride[tc->plane] + tc->byte;
    for (x = 0; x < w; x++)
      out[(gsize) y * w + x] = row[(gsize) x * tc->pstride];
  }
}
