/* gst-clvideo: clhistogram and GstClHistogramMeta
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * Frames go through the element in a GstHarness; the histograms it
 * attaches must equal histogram-ref.c's counts of the same samples, for
 * every format, at sizes from 1x1 to 2048x2048, in any layout, and the
 * frames must come out untouched and uncopied. The messages must carry
 * the same bins and the statistics of their definitions.
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
#include <gst/cl/gstclhistogrammeta.h>
#include "histogram-ref.h"
#include "testframes.h"

static GstHarness *
new_harness (const gchar * props)
{
  return test_harness_new ("clhistogram", props);
}

static void
set_frame_caps (GstHarness * h, const TestFrame * frame)
{
  gst_harness_set_src_caps (h, test_frame_caps (frame));
}

/* The reference histogram of component @c of @frame. */
static void
expected_bins (const TestFrame * frame, guint c, guint32 * bins)
{
  GstMapInfo map;
  gint w, h;
  guint8 *samples;

  test_frame_comp_size (frame, c, &w, &h);
  samples = g_malloc ((gsize) w * h);
  fail_unless (gst_buffer_map (frame->buffer, &map, GST_MAP_READ));
  test_frame_extract (frame, map.data, c, samples);
  gst_buffer_unmap (frame->buffer, &map);
  ref_histogram (samples, (gsize) w * h, bins);
  g_free (samples);
}

static void
compare_bins (const guint32 * got, const guint32 * exp, const gchar * what,
    const gchar * channel)
{
  guint v;

  for (v = 0; v < 256; v++)
    fail_unless (got[v] == exp[v], "%s, channel %s: bin %u holds %u, "
        "expected %u", what, channel, v, got[v], exp[v]);
}

/* @out must be @frame (same memory: no copy) with a histogram meta of
 * @n_channels channels that match the reference. */
static void
check_histograms (GstBuffer * out, const TestFrame * frame, guint n_channels)
{
  GstClHistogramMeta *meta = gst_buffer_get_cl_histogram_meta (out);
  GError *error = NULL;
  guint32 *bins, exp[256];
  guint i, n_metas = 0;
  gpointer state = NULL;
  GstMeta *m;

  fail_unless (gst_buffer_n_memory (out) == gst_buffer_n_memory
      (frame->buffer) && gst_buffer_peek_memory (out, 0) ==
      gst_buffer_peek_memory (frame->buffer, 0),
      "%s: the frame was copied", frame->desc);
  fail_unless (meta != NULL, "%s: no histogram meta", frame->desc);
  while ((m = gst_buffer_iterate_meta_filtered (out, &state,
              GST_CL_HISTOGRAM_META_API_TYPE)))
    n_metas++;
  fail_unless_equals_int (n_metas, 1);
  fail_unless (meta->context == test_get_shared_context ());
  fail_unless_equals_int (meta->n_channels, n_channels);

  bins = g_new (guint32, n_channels * 256);
  fail_unless (gst_cl_histogram_meta_read (meta, bins, &error), "%s",
      error ? error->message : "?");
  for (i = 0; i < n_channels; i++) {
    const gchar *name = frame->fmt->comp[i].channel;
    gint w, h;

    fail_unless_equals_string (gst_cl_histogram_channel_get_name
        (meta->channels[i]), name);
    test_frame_comp_size (frame, i, &w, &h);
    fail_unless_equals_uint64 (meta->pixels[i], (guint64) w * h);
    expected_bins (frame, i, exp);
    compare_bins (bins + i * 256, exp, frame->desc, name);
  }
  g_free (bins);
}

static void
run_and_check (GstHarness * h, const TestFrame * frame, guint n_channels)
{
  GstBuffer *out = test_push_and_pull (h, frame->buffer, frame->desc);
  check_histograms (out, frame, n_channels);
  gst_buffer_unref (out);
}

/* ---- every format, size and content ---- */

static const struct
{
  gint width, height;
} sizes[] = {
  {1, 1}, {17, 9}, {640, 480}, {1918, 1078}, {2048, 2048},
};

GST_START_TEST (test_formats)
{
  const TestFormat *f = &frame_formats[__i__];
  GstHarness *h = new_harness ("channels=all");
  guint s, c;

  for (s = 0; s < G_N_ELEMENTS (sizes); s++) {
    for (c = CONTENT_RANDOM; c <= CONTENT_NATURAL; c++) {
      TestFrame frame = { 0, };
      test_frame_make (&frame, f, sizes[s].width, sizes[s].height, -1, 0, c,
          test_seed (f->name, s * 4 + c));
      set_frame_caps (h, &frame);
      run_and_check (h, &frame, f->n_comps);
      test_frame_clear (&frame);
    }
  }
  test_harness_teardown (h);
}

GST_END_TEST;

/* channels=luma: Y alone for YUV and GRAY8; RGB keeps R, G and B. */
GST_START_TEST (test_luma_only)
{
  GstHarness *h = new_harness (NULL);
  guint i;

  for (i = 0; i < n_frame_formats; i++) {
    const TestFormat *f = &frame_formats[i];
    TestFrame frame = { 0, };

    test_frame_make (&frame, f, 67, 45, -1, 0, CONTENT_NATURAL,
        test_seed ("luma", i));
    set_frame_caps (h, &frame);
    run_and_check (h, &frame, test_format_is_rgb (f) ? 3 : 1);
    test_frame_clear (&frame);
  }
  test_harness_teardown (h);
}

GST_END_TEST;

/* ---- layouts: strides, offsets, OpenCL memory ---- */

static const struct
{
  gint w, h, extra;
  gsize gap, mem_offset;
} layouts[] = {
  {67, 45, 0, 0, 0}, {67, 45, 1, 1, 1}, {67, 45, 3, 5, 2},
  {67, 45, 13, 0, 3}, {130, 17, 2, 2, 0}, {1, 1, 1, 1, 1},
  {5, 3, 0, 3, 1}, {640, 9, 4, 4, 4},
};

GST_START_TEST (test_layouts)
{
  const TestFormat *f = &frame_formats[__i__];
  GstHarness *h = new_harness ("channels=all");
  guint l;

  for (l = 0; l < G_N_ELEMENTS (layouts); l++) {
    TestFrame frame = { 0, };

    /* system memory with a video meta: staged on the device */
    test_frame_make (&frame, f, layouts[l].w, layouts[l].h, layouts[l].extra,
        layouts[l].gap, CONTENT_RANDOM, test_seed (f->name, l));
    set_frame_caps (h, &frame);
    run_and_check (h, &frame, f->n_comps);
    test_frame_clear (&frame);

    /* OpenCL memory of the context: read where it is, odd offsets and all */
    test_frame_make_cl (&frame, test_get_shared_context (), f, layouts[l].w,
        layouts[l].h, layouts[l].extra, layouts[l].gap, layouts[l].mem_offset,
        CONTENT_NATURAL, test_seed (f->name, 100 + l));
    set_frame_caps (h, &frame);
    run_and_check (h, &frame, f->n_comps);
    test_frame_clear (&frame);
  }
  test_harness_teardown (h);
}

GST_END_TEST;

/* A frame in OpenCL memory is neither staged nor mapped. */
GST_START_TEST (test_cl_input_no_transfer)
{
  GstClContext *ctx = test_get_shared_context ();
  GstHarness *h = new_harness ("channels=all");
  GstClTransferCounts counts;
  TestFrame frame = { 0, };
  GstBuffer *out;

  test_frame_make_cl (&frame, ctx, test_format_find ("NV12"), 640, 480, 0, 0,
      0, CONTENT_NATURAL, 3);
  set_frame_caps (h, &frame);
  gst_cl_context_reset_stats (ctx);
  out = test_push_and_pull (h, frame.buffer, frame.desc);
  gst_cl_context_get_transfer_counts (ctx, &counts);
  fail_unless_equals_uint64 (counts.uploads, 0);
  fail_unless_equals_uint64 (counts.downloads, 0);
  fail_unless_equals_uint64 (counts.host_maps, 0);
  check_histograms (out, &frame, 3);
  gst_buffer_unref (out);
  test_frame_clear (&frame);
  test_harness_teardown (h);
}

GST_END_TEST;

/* ---- renegotiation ---- */

GST_START_TEST (test_caps_change)
{
  GstHarness *h = new_harness ("channels=all");
  static const struct
  {
    const gchar *format;
    gint w, h;
  } steps[] = {
    {"GRAY8", 64, 48}, {"GRAY8", 1918, 1078}, {"GRAY8", 17, 9},
    {"I420", 640, 480}, {"I420", 3, 5}, {"RGB", 33, 7}, {"xBGR", 640, 480},
    {"NV12", 67, 45},
  };
  guint s, c;

  for (s = 0; s < G_N_ELEMENTS (steps); s++) {
    const TestFormat *f = test_format_find (steps[s].format);
    for (c = 0; c < 2; c++) {
      TestFrame frame = { 0, };
      test_frame_make (&frame, f, steps[s].w, steps[s].h, -1, 0,
          c ? CONTENT_NATURAL : CONTENT_RANDOM, test_seed ("caps", s * 2 + c));
      set_frame_caps (h, &frame);
      run_and_check (h, &frame, f->n_comps);
      test_frame_clear (&frame);
    }
  }
  test_harness_teardown (h);
}

GST_END_TEST;

/* ---- the meta ---- */

/* A copy of the whole buffer shares the device histograms; a copy of a
 * region, or an element that changes the pixels, drops them. */
GST_START_TEST (test_meta_transform)
{
  GstClContext *ctx = test_get_shared_context ();
  GstHarness *h = new_harness (NULL);
  TestFrame frame = { 0, };
  GstClHistogramMeta *meta, *copied;
  GstClTransferCounts counts;
  GstBuffer *out, *copy;
  guint32 bins[256], exp[256];
  GError *error = NULL;

  test_frame_make (&frame, test_format_find ("GRAY8"), 40, 30, -1, 0,
      CONTENT_NATURAL, 11);
  set_frame_caps (h, &frame);
  out = test_push_and_pull (h, frame.buffer, frame.desc);
  meta = gst_buffer_get_cl_histogram_meta (out);
  fail_unless (meta != NULL);

  copy = gst_buffer_copy (out);
  copied = gst_buffer_get_cl_histogram_meta (copy);
  fail_unless (copied != NULL && copied != meta);
  fail_unless (copied->bins == meta->bins && copied->context == ctx);
  fail_unless_equals_int (copied->n_channels, 1);
  fail_unless_equals_uint64 (copied->pixels[0], 40 * 30);
  /* the original goes; the copy still reads the same counts */
  gst_buffer_unref (out);
  gst_cl_context_reset_stats (ctx);
  fail_unless (gst_cl_histogram_meta_read (copied, bins, &error), "%s",
      error ? error->message : "?");
  gst_cl_context_get_transfer_counts (ctx, &counts);
  fail_unless_equals_uint64 (counts.downloads, 1);
  expected_bins (&frame, 0, exp);
  compare_bins (bins, exp, "copied meta", "Y");

  out = gst_buffer_copy_region (copy, GST_BUFFER_COPY_ALL, 0, 100);
  fail_unless (gst_buffer_get_cl_histogram_meta (out) == NULL,
      "a region of the frame kept the histograms");
  gst_buffer_unref (out);
  gst_buffer_unref (copy);

  /* the API's tags tell transforms what the counts depend on */
  fail_unless (gst_meta_api_type_has_tag (GST_CL_HISTOGRAM_META_API_TYPE,
          g_quark_from_string ("size")));
  fail_unless (gst_meta_api_type_has_tag (GST_CL_HISTOGRAM_META_API_TYPE,
          g_quark_from_string ("colorspace")));
  fail_unless (gst_meta_api_type_has_tag (GST_CL_HISTOGRAM_META_API_TYPE,
          g_quark_from_string ("orientation")));
  fail_unless (gst_meta_api_type_has_tag (GST_CL_HISTOGRAM_META_API_TYPE,
          g_quark_from_string ("video")));

  test_frame_clear (&frame);
  test_harness_teardown (h);
}

GST_END_TEST;

/* Downstream of clhistogram: kept by elements that leave the pixels
 * alone, dropped by those that change them. */
GST_START_TEST (test_meta_downstream)
{
  static const struct
  {
    const gchar *desc;
    gboolean kept;
  } cases[] = {
    {"clhistogram ! identity", TRUE},
    {"clhistogram ! videoconvert ! capsfilter caps=video/x-raw,format=Y444",
        FALSE},
    {"clhistogram ! clcontrast", FALSE},
    {"clhistogram ! clhistogram channels=all", TRUE},
  };
  guint i;

  for (i = 0; i < G_N_ELEMENTS (cases); i++) {
    GstHarness *h = test_harness_new_bin (cases[i].desc);
    GstClHistogramMeta *meta;
    TestFrame frame = { 0, };
    GstBuffer *out;

    test_frame_make (&frame, test_format_find ("I420"), 64, 48, -1, 0,
        CONTENT_NATURAL, i);
    set_frame_caps (h, &frame);
    fail_unless_equals_int (gst_harness_push (h, gst_buffer_ref
            (frame.buffer)), GST_FLOW_OK);
    out = gst_harness_pull (h);
    meta = gst_buffer_get_cl_histogram_meta (out);
    fail_unless ((meta != NULL) == cases[i].kept, "%s: the meta was %s",
        cases[i].desc, meta ? "kept" : "dropped");
    if (meta && i == 3) {
      /* the second clhistogram replaced the first one's meta */
      fail_unless_equals_int (meta->n_channels, 3);
      check_histograms (out, &frame, 3);
    }
    gst_buffer_unref (out);
    test_frame_clear (&frame);
    test_harness_teardown (h);
  }
}

GST_END_TEST;

/* ---- messages ---- */

static guint
get_uint (const GstStructure * s, const gchar * channel, const gchar * what)
{
  gchar *field = g_strconcat (channel, what, NULL);
  guint v = 0;
  fail_unless (gst_structure_get_uint (s, field, &v), "no field %s", field);
  g_free (field);
  return v;
}

/* @s must describe @frame: bins and statistics of every channel. */
static void
check_message (const GstStructure * s, const TestFrame * frame,
    guint n_channels)
{
  const GValue *names = gst_structure_get_value (s, "channels");
  guint i, v;

  fail_unless (gst_structure_has_name (s, "clhistogram"));
  fail_unless (names != NULL && GST_VALUE_HOLDS_ARRAY (names));
  fail_unless_equals_int (gst_value_array_get_size (names), n_channels);
  for (i = 0; i < n_channels; i++) {
    const gchar *name = frame->fmt->comp[i].channel;
    const GValue *bins;
    guint32 exp[256];
    RefHistogramStats st;
    guint64 pixels = 0;
    gdouble mean = -1;
    gchar *field;
    gint w, h;

    fail_unless_equals_string (g_value_get_string (gst_value_array_get_value
            (names, i)), name);
    expected_bins (frame, i, exp);
    ref_histogram_stats (exp, &st);
    test_frame_comp_size (frame, i, &w, &h);

    field = g_strconcat (name, "-bins", NULL);
    bins = gst_structure_get_value (s, field);
    fail_unless (bins != NULL && GST_VALUE_HOLDS_ARRAY (bins), "no %s",
        field);
    fail_unless_equals_int (gst_value_array_get_size (bins), 256);
    for (v = 0; v < 256; v++) {
      const GValue *b = gst_value_array_get_value (bins, v);
      fail_unless (G_VALUE_HOLDS_UINT (b));
      fail_unless (g_value_get_uint (b) == exp[v], "%s: %s[%u] = %u, "
          "expected %u", frame->desc, field, v, g_value_get_uint (b), exp[v]);
    }
    g_free (field);

    field = g_strconcat (name, "-pixels", NULL);
    fail_unless (gst_structure_get_uint64 (s, field, &pixels));
    fail_unless_equals_uint64 (pixels, (guint64) w * h);
    g_free (field);
    field = g_strconcat (name, "-mean", NULL);
    fail_unless (gst_structure_get_double (s, field, &mean));
    fail_unless (mean == st.mean, "%s: %s %f, expected %f", frame->desc,
        field, mean, st.mean);
    g_free (field);
    fail_unless_equals_int (get_uint (s, name, "-min"), st.min);
    fail_unless_equals_int (get_uint (s, name, "-max"), st.max);
    fail_unless_equals_int (get_uint (s, name, "-p1"), st.p1);
    fail_unless_equals_int (get_uint (s, name, "-p5"), st.p5);
    fail_unless_equals_int (get_uint (s, name, "-p50"), st.p50);
    fail_unless_equals_int (get_uint (s, name, "-p95"), st.p95);
    fail_unless_equals_int (get_uint (s, name, "-p99"), st.p99);
  }
}

static guint64
get_time (const GstStructure * s, const gchar * field)
{
  guint64 t = 0;
  fail_unless (gst_structure_get_uint64 (s, field, &t), "no %s", field);
  return t;
}

/* Every frame (interval 0), several formats, timestamps in a segment
 * that does not start at 0; all messages arrive by EOS, in order. */
GST_START_TEST (test_messages)
{
  static const gchar *formats[] = { "I420", "RGBx", "GRAY8", "NV12", "BGR" };
  const gint n_frames = 4;
  guint i;

  for (i = 0; i < G_N_ELEMENTS (formats); i++) {
    const TestFormat *f = test_format_find (formats[i]);
    GstHarness *h = new_harness ("channels=all post-messages=true "
        "interval=0");
    TestFrame frames[4];
    GstSegment segment;
    GList *msgs, *l;
    gint k;

    memset (frames, 0, sizeof (frames));
    for (k = 0; k < n_frames; k++)
      test_frame_make (&frames[k], f, 97 + k, 61, -1, 0,
          k == 1 ? CONTENT_CONSTANT : (k & 1) ? CONTENT_RANDOM :
          CONTENT_NATURAL, test_seed (formats[i], k));
    set_frame_caps (h, &frames[0]);
    gst_segment_init (&segment, GST_FORMAT_TIME);
    segment.start = GST_SECOND;
    segment.time = 10 * GST_SECOND;
    segment.base = 3 * GST_SECOND;
    fail_unless (gst_harness_push_event (h, gst_event_new_segment (&segment)));

    for (k = 0; k < n_frames; k++) {
      GstBuffer *out;
      /* new caps alone: gst_harness_set_src_caps() would send a segment */
      if (k > 0) {
        GstCaps *caps = test_frame_caps (&frames[k]);
        fail_unless (gst_harness_push_event (h, gst_event_new_caps (caps)));
        gst_caps_unref (caps);
      }
      GST_BUFFER_PTS (frames[k].buffer) = GST_SECOND + k * 40 * GST_MSECOND;
      GST_BUFFER_DURATION (frames[k].buffer) = 40 * GST_MSECOND;
      out = test_push_and_pull (h, frames[k].buffer, frames[k].desc);
      gst_buffer_unref (out);
    }
    fail_unless (gst_harness_push_event (h, gst_event_new_eos ()));

    msgs = test_pop_element_messages (h);
    fail_unless_equals_int (g_list_length (msgs), n_frames);
    for (l = msgs, k = 0; l; l = l->next, k++) {
      const GstStructure *s = gst_message_get_structure (l->data);
      GstClockTime pts = GST_SECOND + k * 40 * GST_MSECOND;

      fail_unless (GST_MESSAGE_SRC (l->data) == GST_OBJECT (h->element));
      fail_unless_equals_uint64 (get_time (s, "timestamp"), pts);
      fail_unless_equals_uint64 (get_time (s, "duration"), 40 * GST_MSECOND);
      fail_unless_equals_uint64 (get_time (s, "running-time"),
          3 * GST_SECOND + k * 40 * GST_MSECOND);
      fail_unless_equals_uint64 (get_time (s, "stream-time"),
          10 * GST_SECOND + k * 40 * GST_MSECOND);
      check_message (s, &frames[k], f->n_comps);
    }
    g_list_free_full (msgs, (GDestroyNotify) gst_message_unref);
    for (k = 0; k < n_frames; k++)
      test_frame_clear (&frames[k]);
    test_harness_teardown (h);
  }
}

GST_END_TEST;

/* Pushes @n frames of @duration (NONE: none) and returns the indices of
 * the frames that got a message, as a string "2 4 7". */
static gchar *
messages_for_frames (GstHarness * h, TestFrame * frame, gint n,
    GstClockTime duration, gboolean flush_at_half)
{
  GString *got = g_string_new (NULL);
  GList *msgs, *l;
  gint k;

  for (k = 0; k < n; k++) {
    GstBuffer *in = gst_buffer_copy (frame->buffer), *out;
    if (flush_at_half && k == n / 2) {
      test_harness_flush (h);
    }
    GST_BUFFER_PTS (in) = k * (GST_CLOCK_TIME_IS_VALID (duration) ?
        duration : GST_MSECOND);
    GST_BUFFER_DURATION (in) = duration;
    fail_unless_equals_int (gst_harness_push (h, in), GST_FLOW_OK);
    out = gst_harness_pull (h);
    gst_buffer_unref (out);
  }
  fail_unless (gst_harness_push_event (h, gst_event_new_eos ()));
  msgs = test_pop_element_messages (h);
  for (l = msgs; l; l = l->next) {
    const GstStructure *s = gst_message_get_structure (l->data);
    guint64 pts = get_time (s, "timestamp");
    g_string_append_printf (got, "%s%" G_GUINT64_FORMAT, got->len ? " " : "",
        pts / (GST_CLOCK_TIME_IS_VALID (duration) ? duration : GST_MSECOND));
  }
  g_list_free_full (msgs, (GDestroyNotify) gst_message_unref);
  return g_string_free (got, FALSE);
}

static const struct
{
  const gchar *props;
  const gchar *caps_rate;
  GstClockTime duration;
  gboolean flush;
  const gchar *expected;
} interval_cases[] = {
  /* 40 ms frames, 100 ms: the sum reaches it at frames 2 (120, 20 left),
   * 4 (100), 7, 9 */
  {"interval=100000000", "25/1", 40 * GST_MSECOND, FALSE, "2 4 7 9"},
  /* no buffer duration: the framerate's */
  {"interval=100000000", "25/1", GST_CLOCK_TIME_NONE, FALSE, "2 4 7 9"},
  /* 30 ms, 60 ms: every other frame */
  {"interval=60000000", "25/1", 30 * GST_MSECOND, FALSE, "1 3 5 7 9 11"},
  /* neither: every frame */
  {"interval=100000000", "0/1", GST_CLOCK_TIME_NONE, FALSE,
      "0 1 2 3 4 5 6 7 8 9 10 11"},
  {"interval=0", "25/1", 40 * GST_MSECOND, FALSE,
      "0 1 2 3 4 5 6 7 8 9 10 11"},
  /* the default, 100 ms; frames longer than the interval: each */
  {"", "25/1", 40 * GST_MSECOND, FALSE, "2 4 7 9"},
  {"interval=10000000", "25/1", 40 * GST_MSECOND, FALSE,
      "0 1 2 3 4 5 6 7 8 9 10 11"},
  /* a flush at frame 6 restarts the count: 8 and 10 */
  {"interval=100000000", "25/1", 40 * GST_MSECOND, TRUE, "2 4 8 10"},
};

GST_START_TEST (test_interval)
{
  gchar *props = g_strdup_printf ("post-messages=true %s",
      interval_cases[__i__].props);
  GstHarness *h = new_harness (props);
  TestFrame frame = { 0, };
  gchar *caps, *got;

  test_frame_make (&frame, test_format_find ("GRAY8"), 16, 8, -1, 0,
      CONTENT_NATURAL, 5);
  caps = g_strdup_printf ("video/x-raw,format=GRAY8,width=16,height=8,"
      "framerate=%s", interval_cases[__i__].caps_rate);
  gst_harness_set_src_caps_str (h, caps);
  g_free (caps);
  got = messages_for_frames (h, &frame, 12, interval_cases[__i__].duration,
      interval_cases[__i__].flush);
  fail_unless_equals_string (got, interval_cases[__i__].expected);
  g_free (got);
  g_free (props);
  test_frame_clear (&frame);
  test_harness_teardown (h);
}

GST_END_TEST;

/* No messages unless asked for, and no reads from the device. */
GST_START_TEST (test_no_messages)
{
  GstClContext *ctx = test_get_shared_context ();
  GstHarness *h = new_harness ("interval=0");
  TestFrame frame = { 0, };
  GstClTransferCounts counts;
  GList *msgs;
  gint k;

  test_frame_make_cl (&frame, ctx, test_format_find ("GRAY8"), 64, 48, 0, 0,
      0, CONTENT_NATURAL, 2);
  set_frame_caps (h, &frame);
  gst_cl_context_reset_stats (ctx);
  for (k = 0; k < 3; k++)
    gst_buffer_unref (test_push_and_pull (h, frame.buffer, frame.desc));
  fail_unless (gst_harness_push_event (h, gst_event_new_eos ()));
  msgs = test_pop_element_messages (h);
  fail_unless (msgs == NULL);
  gst_cl_context_get_transfer_counts (ctx, &counts);
  fail_unless_equals_uint64 (counts.downloads + counts.uploads +
      counts.host_maps, 0);
  test_frame_clear (&frame);
  test_harness_teardown (h);
}

GST_END_TEST;

/* ---- flat frames ---- */

/* Pushes a 2048x2048 GRAY8 frame of @content a few times; checks the bins
 * and that each push launched the kernel once; returns the best device
 * time, for the log (the benchmark reports speed, not the tests). */
static guint64
check_large_frame (GstHarness * h, TestContent content)
{
  GstClContext *ctx = test_get_shared_context ();
  TestFrame frame = { 0, };
  guint64 launches = 0, total = 0, min_ns = 0;
  gint k;

  test_frame_make_cl (&frame, ctx, test_format_find ("GRAY8"), 2048, 2048, 0,
      0, 0, content, 77);
  set_frame_caps (h, &frame);
  gst_cl_context_reset_stats (ctx);
  for (k = 0; k < 3; k++) {
    GstBuffer *out = test_push_and_pull (h, frame.buffer, frame.desc);
    check_histograms (out, &frame, 1);
    gst_buffer_unref (out);
  }
  fail_unless (gst_cl_context_get_kernel_stats (ctx, "histogram", &launches,
          &total, &min_ns));
  fail_unless_equals_uint64 (launches, 3);
  test_frame_clear (&frame);
  return min_ns;
}

/* Every pixel in one bin is the worst case for the atomics: the counts
 * must still be exact, frame after frame. */
GST_START_TEST (test_flat_frame)
{
  GstHarness *h = new_harness (NULL);
  guint64 t_random = check_large_frame (h, CONTENT_RANDOM);
  guint64 t_flat = check_large_frame (h, CONTENT_CONSTANT);
  GstClContext *ctx = test_get_shared_context ();

  GST_INFO ("2048x2048 GRAY8 on %s (%s layout): random %.3f ms, flat %.3f ms",
      ctx->device_name, ctx->cpu_layout ? "CPU" : "GPU",
      t_random / 1e6, t_flat / 1e6);
  test_harness_teardown (h);
}

GST_END_TEST;

static Suite *
histogram_suite (void)
{
  Suite *s = suite_create ("histogram");
  TCase *tc = test_suite_add_case (s);

  tcase_add_loop_test (tc, test_formats, 0, n_frame_formats);
  tcase_add_test (tc, test_luma_only);
  tcase_add_loop_test (tc, test_layouts, 0, n_frame_formats);
  tcase_add_test (tc, test_cl_input_no_transfer);
  tcase_add_test (tc, test_caps_change);
  tcase_add_test (tc, test_meta_transform);
  tcase_add_test (tc, test_meta_downstream);
  tcase_add_test (tc, test_messages);
  tcase_add_loop_test (tc, test_interval, 0, G_N_ELEMENTS (interval_cases));
  tcase_add_test (tc, test_no_messages);
  tcase_add_test (tc, test_flat_frame);
  return s;
}

GST_CHECK_MAIN (histogram);
