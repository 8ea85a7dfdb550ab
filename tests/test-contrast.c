/* gst-clvideo: clcontrast, alone and after clhistogram
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * Frames go through the element in a GstHarness and must come out
 * bit-exact with contrast-ref.c applied to histogram-ref.c's counts:
 * every format, sizes from 1x1 to 2048x2048, random, flat and natural
 * content, any input layout, both modes, the cuts, the temporal
 * smoothing and its restarts. After clhistogram the element must use the
 * meta (no second histogram pass) and give the same frames. The
 * pipelines of the documentation run, without host transfers between
 * the cl elements.
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <gst/check/gstcheck.h>
#include <gst/check/gstharness.h>
#include <gst/video/video.h>
#include <glib/gstdio.h>
#include <string.h>

#include <gst/cl/gstclcontext.h>
#include <gst/cl/gstclmemory.h>
#include <gst/cl/gstclhistogrammeta.h>
#include "colorlowpass-ref.h"
#include "contrast-ref.h"
#include "histogram-ref.h"
#include "testframes.h"

#define RUN_TIMEOUT (120 * GST_SECOND)

static void
set_frame_caps (GstHarness * h, const TestFrame * frame)
{
  gst_harness_set_src_caps (h, test_frame_caps (frame));
}

/* Component @c of @frame (its own buffer) as packed samples. */
static guint8 *
frame_samples (const TestFrame * frame, guint c)
{
  GstMapInfo map;
  gint w, h;
  guint8 *samples;

  test_frame_comp_size (frame, c, &w, &h);
  samples = g_malloc ((gsize) w * h);
  fail_unless (gst_buffer_map (frame->buffer, &map, GST_MAP_READ));
  test_frame_extract (frame, map.data, c, samples);
  gst_buffer_unmap (frame->buffer, &map);
  return samples;
}

/* Component @c of the element's output @out for input @in: the same
 * format and size, in the layout of its video meta, or the default. */
static guint8 *
output_samples (GstBuffer * out, const TestFrame * in, guint c)
{
  GstVideoMeta *vmeta = gst_buffer_get_video_meta (out);
  TestFrame view = *in;
  GstVideoInfo info;
  gint p;

  gst_video_info_set_format (&info, gst_video_format_from_string
      (in->fmt->name), in->width, in->height);
  for (p = 0; p < in->fmt->n_planes; p++) {
    view.offset[p] = vmeta ? vmeta->offset[p] : info.offset[p];
    view.stride[p] = vmeta ? vmeta->stride[p] : info.stride[p];
  }
  view.buffer = out;
  return frame_samples (&view, c);
}

/* One stream through the element: its parameters and the reference's
 * smoothing state. */
typedef struct
{
  RefContrastParams params;
  RefContrastState state;
  RefContrastResult last;       /* of the last frame */
} Stream;

static void
stream_init (Stream * st, RefContrastMode mode, gdouble low_cut,
    gdouble high_cut, gdouble smoothing)
{
  memset (st, 0, sizeof (*st));
  st->params.mode = mode;
  st->params.low_cut = low_cut;
  st->params.high_cut = high_cut;
  st->params.smoothing = smoothing;
}

/* What the element's next frame must give for @frame: the lookup table
 * from the reference, advancing @st. @bins: the histogram to use (NULL:
 * the frame's own). */
static void
expected_lut (Stream * st, const TestFrame * frame, const guint32 * bins,
    guint8 * lut)
{
  guint32 own[256];
  guint64 n = (guint64) frame->width * frame->height;

  if (!bins) {
    guint8 *luma = frame_samples (frame, 0);
    ref_histogram (luma, n, own);
    g_free (luma);
    bins = own;
  }
  ref_contrast_lut (bins, n, &st->params, &st->state, lut, &st->last);
}

/* @out must be @in with lut applied to luma and chroma unchanged. */
static void
check_output (GstBuffer * out, const TestFrame * in, const guint8 * lut,
    const gchar * what)
{
  guint c;

  for (c = 0; c < (guint) in->fmt->n_comps; c++) {
    guint8 *src = frame_samples (in, c);
    guint8 *got = output_samples (out, in, c);
    gint w, h;
    gsize i, n;

    test_frame_comp_size (in, c, &w, &h);
    n = (gsize) w * h;
    for (i = 0; i < n; i++) {
      guint8 exp = c == 0 ? lut[src[i]] : src[i];
      if (got[i] != exp)
        fail ("%s: %s, %s at x=%d y=%d: input %d, expected %d, got %d",
            what, in->desc, in->fmt->comp[c].channel, (gint) (i % w),
            (gint) (i / w), src[i], exp, got[i]);
    }
    g_free (src);
    g_free (got);
  }
}

/* One frame through @h checked against @st's reference. */
static void
run_and_check (GstHarness * h, Stream * st, const TestFrame * frame,
    const gchar * what)
{
  guint8 lut[256];
  GstBuffer *out;

  expected_lut (st, frame, NULL, lut);
  out = test_push_and_pull (h, frame->buffer, frame->desc);
  fail_unless (gst_buffer_get_cl_histogram_meta (out) == NULL,
      "%s: the output kept a histogram of the input", what);
  check_output (out, frame, lut, what);
  gst_buffer_unref (out);
}

/* ---- every format, size and content, both modes ---- */

static const struct
{
  gint width, height;
} sizes[] = {
  {1, 1}, {17, 9}, {640, 480}, {1918, 1078}, {2048, 2048},
};

static const gchar *contrast_formats[] = {
  "GRAY8", "I420", "NV12", "Y444", "Y42B"
};

#define N_FORMATS G_N_ELEMENTS (contrast_formats)

GST_START_TEST (test_formats)
{
  const TestFormat *f = test_format_find (contrast_formats[__i__ / 2]);
  gboolean equalize = __i__ % 2;
  GstHarness *h = test_harness_new_bin (equalize ? "clcontrast mode=equalize" :
      "clcontrast");
  Stream st;
  guint s, c;

  stream_init (&st, equalize, 0.5, 0.5, 0.0);
  for (s = 0; s < G_N_ELEMENTS (sizes); s++) {
    for (c = CONTENT_RANDOM; c <= CONTENT_NATURAL; c++) {
      TestFrame frame = { 0, };
      test_frame_make (&frame, f, sizes[s].width, sizes[s].height, -1, 0, c,
          test_seed (f->name, __i__ * 16 + s * 4 + c));
      set_frame_caps (h, &frame);
      run_and_check (h, &st, &frame, equalize ? "equalize" : "stretch");
      test_frame_clear (&frame);
    }
  }
  test_harness_teardown (h);
}

GST_END_TEST;

/* ---- stretch points ---- */

static const struct
{
  gdouble low, high;
} cuts[] = {
  {0, 0}, {0.5, 0.5}, {2, 10}, {10, 2}, {50, 50}, {49.99, 0}, {0, 50},
  {0.01, 0.01}, {33.3, 17.7},
};

GST_START_TEST (test_cuts)
{
  const TestFormat *f = test_format_find ("GRAY8");
  guint i, c;

  for (i = 0; i < G_N_ELEMENTS (cuts); i++) {
    gchar *desc = g_strdup_printf ("clcontrast low-cut=%g high-cut=%g",
        cuts[i].low, cuts[i].high);
    GstHarness *h = test_harness_new_bin (desc);
    Stream st;

    stream_init (&st, REF_CONTRAST_STRETCH, cuts[i].low, cuts[i].high, 0.0);
    for (c = 0; c < 3; c++) {
      TestFrame frame = { 0, };
      /* sizes whose cut counts are not round */
      test_frame_make (&frame, f, 201 + c, 151 - c, -1, 0, c == 1 ?
          CONTENT_RANDOM : CONTENT_NATURAL, test_seed (desc, c));
      set_frame_caps (h, &frame);
      run_and_check (h, &st, &frame, desc);
      test_frame_clear (&frame);
    }
    test_harness_teardown (h);
    g_free (desc);
  }
}

GST_END_TEST;

/* ---- input layouts ---- */

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
  const TestFormat *f = test_format_find (contrast_formats[__i__]);
  GstHarness *h = test_harness_new_bin ("clcontrast");
  Stream st;
  guint l;

  stream_init (&st, REF_CONTRAST_STRETCH, 0.5, 0.5, 0.0);
  for (l = 0; l < G_N_ELEMENTS (layouts); l++) {
    TestFrame frame = { 0, };

    test_frame_make (&frame, f, layouts[l].w, layouts[l].h, layouts[l].extra,
        layouts[l].gap, CONTENT_NATURAL, test_seed (f->name, l));
    set_frame_caps (h, &frame);
    run_and_check (h, &st, &frame, "system memory with a meta");
    test_frame_clear (&frame);

    test_frame_make_cl (&frame, test_get_shared_context (), f, layouts[l].w,
        layouts[l].h, layouts[l].extra, layouts[l].gap, layouts[l].mem_offset,
        CONTENT_NATURAL, test_seed (f->name, 100 + l));
    set_frame_caps (h, &frame);
    run_and_check (h, &st, &frame, "OpenCL memory with a meta");
    test_frame_clear (&frame);
  }
  test_harness_teardown (h);
}

GST_END_TEST;

/* ---- smoothing ---- */

/* Natural luma squeezed into a band that moves from frame to frame, so
 * that the stretch points move. */
static void
make_moving_frame (TestFrame * frame, const TestFormat * f, gint w, gint h,
    guint k)
{
  static const gint lows[] = { 40, 70, 20, 90, 60, 30, 80, 50, 10, 100 };
  static const gint spans[] = { 100, 60, 150, 80, 120, 50, 90, 140, 70, 110 };
  gint lo = lows[k % 10], span = spans[k % 10];
  GstMapInfo map;
  gint x, y;

  test_frame_make (frame, f, w, h, -1, 0, CONTENT_NATURAL,
      test_seed ("moving", k));
  fail_unless (gst_buffer_map (frame->buffer, &map, GST_MAP_READWRITE));
  for (y = 0; y < h; y++) {
    guint8 *row = map.data + frame->offset[0] + (gsize) y * frame->stride[0];
    for (x = 0; x < w; x++)
      row[x] = lo + row[x] * span / 255;
  }
  gst_buffer_unmap (frame->buffer, &map);
}

static guint
get_uint (const GstStructure * s, const gchar * field)
{
  guint v = 0;
  fail_unless (gst_structure_get_uint (s, field, &v), "no field %s in %"
      GST_PTR_FORMAT, field, s);
  return v;
}

static void
check_message (GstMessage * msg, const RefContrastResult * r,
    RefContrastMode mode, gboolean from_meta, const gchar * what)
{
  const GstStructure *s = gst_message_get_structure (msg);
  gboolean b = !from_meta, identity = !r->identity;

  fail_unless (gst_structure_has_name (s, "clcontrast"));
  fail_unless_equals_string (gst_structure_get_string (s, "mode"),
      mode == REF_CONTRAST_STRETCH ? "stretch" : "equalize");
  fail_unless (gst_structure_get_boolean (s, "from-meta", &b));
  fail_unless (b == from_meta, "%s: from-meta %d", what, b);
  fail_unless (gst_structure_get_boolean (s, "identity", &identity));
  fail_unless (identity == r->identity, "%s: identity %d", what, identity);
  fail_unless_equals_int (get_uint (s, "min"), r->min);
  fail_unless_equals_int (get_uint (s, "max"), r->max);
  if (mode == REF_CONTRAST_STRETCH) {
    fail_unless (get_uint (s, "lo") == (guint) r->lo &&
        get_uint (s, "hi") == (guint) r->hi, "%s: lo %u hi %u, expected "
        "%d %d", what, get_uint (s, "lo"), get_uint (s, "hi"), r->lo, r->hi);
    fail_unless_equals_int (get_uint (s, "frame-lo"), r->frame_lo);
    fail_unless_equals_int (get_uint (s, "frame-hi"), r->frame_hi);
    fail_unless (get_uint (s, "smoothed-lo") == (guint) r->state_lo &&
        get_uint (s, "smoothed-hi") == (guint) r->state_hi, "%s: smoothed "
        "%u %u, expected %d %d", what, get_uint (s, "smoothed-lo"),
        get_uint (s, "smoothed-hi"), r->state_lo, r->state_hi);
  } else {
    fail_if (gst_structure_has_field (s, "lo"));
  }
}

typedef enum
{
  EVENT_NONE,
  EVENT_DISCONT,                /* the frame has the DISCONT flag */
  EVENT_FLUSH,                  /* a flush before the frame */
  EVENT_CAPS,                   /* the frame has another size */
  EVENT_MODE,                   /* equalize for this frame only */
} StreamEvent;

static const StreamEvent smoothing_events[] = {
  EVENT_NONE, EVENT_NONE, EVENT_NONE, EVENT_DISCONT, EVENT_NONE, EVENT_FLUSH,
  EVENT_NONE, EVENT_CAPS, EVENT_NONE, EVENT_NONE, EVENT_MODE, EVENT_NONE,
  EVENT_NONE,
};

static const gchar *smoothings[] = { "0.25", "0.5", "0.9", "1.0", "0.003" };

/* The running stretch points restart on a discontinuity, a flush, new
 * caps and a change of mode, and nowhere else; the messages report them. */
GST_START_TEST (test_smoothing)
{
  const TestFormat *f = test_format_find (__i__ % 2 ? "NV12" : "GRAY8");
  gchar *desc = g_strdup_printf ("clcontrast name=c smoothing=%s "
      "post-messages=true low-cut=1 high-cut=2", smoothings[__i__]);
  GstHarness *h = test_harness_new_bin (desc);
  GstElement *e = gst_bin_get_by_name (GST_BIN (h->element), "c");
  RefContrastResult results[G_N_ELEMENTS (smoothing_events)];
  RefContrastMode modes[G_N_ELEMENTS (smoothing_events)];
  GList *msgs, *l;
  Stream st;
  guint k;

  fail_unless (e != NULL);
  stream_init (&st, REF_CONTRAST_STRETCH, 1, 2,
      g_ascii_strtod (smoothings[__i__], NULL));
  for (k = 0; k < G_N_ELEMENTS (smoothing_events); k++) {
    StreamEvent ev = smoothing_events[k];
    gboolean size2 = k >= 7;    /* from the caps change on */
    TestFrame frame = { 0, };
    GstBuffer *in, *out;
    guint8 lut[256];

    make_moving_frame (&frame, f, size2 ? 90 : 96, size2 ? 70 : 64, k);
    if (k == 0 || ev == EVENT_CAPS)
      set_frame_caps (h, &frame);
    if (ev == EVENT_FLUSH) {
      test_harness_flush (h);
    }
    if (ev == EVENT_DISCONT || ev == EVENT_FLUSH || ev == EVENT_CAPS ||
        ev == EVENT_MODE || (k > 0 && smoothing_events[k - 1] == EVENT_MODE))
      st.state.started = FALSE;
    st.params.mode = ev == EVENT_MODE ? REF_CONTRAST_EQUALIZE :
        REF_CONTRAST_STRETCH;
    g_object_set (e, "mode", ev == EVENT_MODE, NULL);
    modes[k] = st.params.mode;

    expected_lut (&st, &frame, NULL, lut);
    results[k] = st.last;
    in = gst_buffer_copy (frame.buffer);
    GST_BUFFER_PTS (in) = k * 40 * GST_MSECOND;
    if (ev == EVENT_DISCONT)
      GST_BUFFER_FLAG_SET (in, GST_BUFFER_FLAG_DISCONT);
    fail_unless_equals_int (gst_harness_push (h, in), GST_FLOW_OK);
    out = gst_harness_pull (h);
    check_output (out, &frame, lut, desc);
    gst_buffer_unref (out);
    test_frame_clear (&frame);
  }
  fail_unless (gst_harness_push_event (h, gst_event_new_eos ()));

  msgs = test_pop_element_messages (h);
  fail_unless_equals_int (g_list_length (msgs),
      G_N_ELEMENTS (smoothing_events));
  for (l = msgs, k = 0; l; l = l->next, k++) {
    gchar *what = g_strdup_printf ("%s, frame %u", desc, k);
    guint64 ts = 0;
    fail_unless (gst_structure_get_uint64 (gst_message_get_structure
            (l->data), "timestamp", &ts));
    fail_unless_equals_uint64 (ts, k * 40 * GST_MSECOND);
    check_message (l->data, &results[k], modes[k], FALSE, what);
    g_free (what);
  }
  g_list_free_full (msgs, (GDestroyNotify) gst_message_unref);
  gst_object_unref (e);
  test_harness_teardown (h);
  g_free (desc);
}

GST_END_TEST;

/* ---- the histogram meta ---- */

/* clhistogram ! clcontrast gives what clcontrast alone gives, and the
 * histogram kernel runs once per frame (in clhistogram). */
GST_START_TEST (test_meta_path)
{
  static const gchar *props[] = { "", "mode=equalize",
    "low-cut=3 high-cut=7 smoothing=0.5"
  };
  const TestFormat *f = test_format_find (contrast_formats[__i__]);
  GstClContext *ctx = test_get_shared_context ();
  guint p, k;

  for (p = 0; p < G_N_ELEMENTS (props); p++) {
    gchar *alone_desc = g_strdup_printf ("clcontrast %s", props[p]);
    gchar *meta_desc = g_strdup_printf ("clhistogram %s ! clcontrast %s",
        p == 1 ? "channels=all" : "", props[p]);
    GstHarness *alone = test_harness_new_bin (alone_desc);
    GstHarness *chain = test_harness_new_bin (meta_desc);
    Stream st;
    guint n_frames = 0;
    guint64 launches = 0;

    stream_init (&st, p == 1 ? REF_CONTRAST_EQUALIZE : REF_CONTRAST_STRETCH,
        p == 2 ? 3 : 0.5, p == 2 ? 7 : 0.5, p == 2 ? 0.5 : 0.0);
    for (k = 0; k < 6; k++) {
      TestFrame frame = { 0, };
      GstBuffer *out_alone, *out_chain;
      guint8 lut[256];

      if (k < 3)
        make_moving_frame (&frame, f, 320, 240, k);
      else
        test_frame_make (&frame, f, k == 5 ? 1918 : 123, k == 5 ? 1078 : 77,
            -1, 0, k == 3 ? CONTENT_CONSTANT : CONTENT_NATURAL,
            test_seed ("meta", k));
      if (k == 0 || k == 3 || k == 5) {
        set_frame_caps (alone, &frame);
        set_frame_caps (chain, &frame);
      }
      if (k == 3 || k == 5)
        st.state.started = FALSE;       /* new caps */
      expected_lut (&st, &frame, NULL, lut);

      out_alone = test_push_and_pull (alone, frame.buffer, frame.desc);
      gst_cl_context_reset_stats (ctx);
      out_chain = test_push_and_pull (chain, frame.buffer, frame.desc);
      fail_unless (gst_cl_context_get_kernel_stats (ctx, "histogram",
              &launches, NULL, NULL));
      /* with channels=all clhistogram counts Y, U and V */
      fail_unless_equals_uint64 (launches, p == 1 && f->n_comps == 3 ? 3 : 1);
      n_frames++;

      check_output (out_alone, &frame, lut, alone_desc);
      check_output (out_chain, &frame, lut, meta_desc);
      gst_buffer_unref (out_alone);
      gst_buffer_unref (out_chain);
      test_frame_clear (&frame);
    }
    fail_unless_equals_int (n_frames, 6);
    test_harness_teardown (alone);
    test_harness_teardown (chain);
    g_free (alone_desc);
    g_free (meta_desc);
  }
}

GST_END_TEST;

/* A meta made by hand: clcontrast must take the luma histogram at its
 * index in the meta (here a made-up one, so that using it shows in the
 * output), and ignore metas that do not fit the frame or belong to
 * another context. */
static GstBuffer *
make_bins_buffer (GstClContext * ctx, const guint32 * bins, guint n)
{
  GstAllocator *alloc = gst_cl_allocator_new (ctx);
  GError *error = NULL;
  GstMemory *mem = gst_cl_allocator_alloc_memory (alloc,
      n * 256 * sizeof (guint32), &error);
  GstBuffer *buf = gst_buffer_new ();
  GstMapInfo map;

  fail_unless (mem != NULL, "%s", error ? error->message : "?");
  fail_unless (gst_memory_map (mem, &map, GST_MAP_WRITE));
  memcpy (map.data, bins, n * 256 * sizeof (guint32));
  gst_memory_unmap (mem, &map);
  gst_buffer_append_memory (buf, mem);
  gst_object_unref (alloc);
  return buf;
}

GST_START_TEST (test_meta_selection)
{
  static const gchar *cases[] = {
    "luma at index 1, made-up counts: used",
    "luma of another frame size: ignored",
    "meta of another context: ignored",
    "no luma in the meta: ignored",
  };
  GstClContext *ctx = test_get_shared_context ();
  const TestFormat *f = test_format_find ("I420");
  GstHarness *h = test_harness_new_bin ("clcontrast post-messages=true");
  GstClHistogramChannel channels[2] = { GST_CL_HISTOGRAM_CHANNEL_U,
    GST_CL_HISTOGRAM_CHANNEL_Y
  };
  const guint64 n = 80 * 60;
  GstClContext *other;
  GError *error = NULL;
  guint c, v;

  other = gst_cl_context_new (NULL, &error);
  fail_unless (other != NULL, "%s", error ? error->message : "?");

  for (c = 0; c < G_N_ELEMENTS (cases); c++) {
    RefContrastParams prm = { REF_CONTRAST_STRETCH, 0.5, 0.5, 0.0 };
    RefContrastState state = { FALSE, 0, 0 };
    guint64 pixels[2] = { 40 * 30, n };
    gboolean used = c == 0;
    GstClContext *owner = c == 2 ? other : ctx;
    TestFrame frame = { 0, };
    guint32 bins[2 * 256], real[256];
    GstBuffer *storage, *in, *out;
    RefContrastResult res;
    guint8 lut[256], *luma;
    GList *msgs;

    test_frame_make (&frame, f, 80, 60, -1, 0, CONTENT_NATURAL, 40 + c);
    if (c == 0)
      set_frame_caps (h, &frame);
    luma = frame_samples (&frame, 0);
    ref_histogram (luma, n, real);
    g_free (luma);
    /* garbage for U; for Y counts of the right total, all in 100..139,
     * that no frame here has: their use shows in the output */
    for (v = 0; v < 256; v++)
      bins[v] = v * 7;
    memset (bins + 256, 0, 256 * sizeof (guint32));
    for (v = 0; v < n; v++)
      bins[256 + 100 + v % 40]++;
    if (c == 1)
      pixels[1] = n - 1;
    storage = make_bins_buffer (owner, bins, 2);
    in = gst_buffer_copy (frame.buffer);
    gst_buffer_add_cl_histogram_meta (in, owner, ((GstClMemory *)
            gst_buffer_peek_memory (storage, 0))->buffer, storage,
        c == 3 ? 1 : 2, channels, pixels);
    gst_buffer_unref (storage);

    ref_contrast_lut (used ? bins + 256 : real, n, &prm, &state, lut, &res);
    fail_unless_equals_int (gst_harness_push (h, in), GST_FLOW_OK);
    out = gst_harness_pull (h);
    check_output (out, &frame, lut, cases[c]);
    gst_buffer_unref (out);

    /* a flush sends the message out */
    test_harness_flush (h);
    msgs = test_pop_element_messages (h);
    fail_unless_equals_int (g_list_length (msgs), 1);
    check_message (msgs->data, &res, REF_CONTRAST_STRETCH, used, cases[c]);
    g_list_free_full (msgs, (GDestroyNotify) gst_message_unref);
    test_frame_clear (&frame);
  }
  gst_object_unref (other);
  test_harness_teardown (h);
}

GST_END_TEST;

/* ---- messages ---- */

GST_START_TEST (test_messages)
{
  static const gchar *descs[] = {
    "clcontrast post-messages=true",
    "clcontrast post-messages=true mode=equalize",
    "clhistogram ! clcontrast post-messages=true low-cut=5 high-cut=5",
    "clhistogram ! clcontrast post-messages=true mode=equalize",
  };
  const TestFormat *f = test_format_find ("Y42B");
  guint i, k;

  for (i = 0; i < G_N_ELEMENTS (descs); i++) {
    GstHarness *h = test_harness_new_bin (descs[i]);
    RefContrastMode mode = i % 2 ? REF_CONTRAST_EQUALIZE :
        REF_CONTRAST_STRETCH;
    RefContrastResult results[5];
    GList *msgs, *l;
    Stream st;

    stream_init (&st, mode, i == 2 ? 5 : 0.5, i == 2 ? 5 : 0.5, 0.0);
    for (k = 0; k < 5; k++) {
      TestFrame frame = { 0, };
      GstBuffer *out;
      guint8 lut[256];

      if (k == 2)
        test_frame_make (&frame, f, 64, 48, -1, 0, CONTENT_CONSTANT, k);
      else
        make_moving_frame (&frame, f, 64, 48, k + 3 * i);
      if (k == 0)
        set_frame_caps (h, &frame);
      expected_lut (&st, &frame, NULL, lut);
      results[k] = st.last;
      out = test_push_and_pull (h, frame.buffer, frame.desc);
      check_output (out, &frame, lut, descs[i]);
      gst_buffer_unref (out);
      test_frame_clear (&frame);
    }
    fail_unless (gst_harness_push_event (h, gst_event_new_eos ()));
    msgs = test_pop_element_messages (h);
    fail_unless_equals_int (g_list_length (msgs), 5);
    for (l = msgs, k = 0; l; l = l->next, k++)
      check_message (l->data, &results[k], mode, i >= 2, descs[i]);
    g_list_free_full (msgs, (GDestroyNotify) gst_message_unref);
    test_harness_teardown (h);
  }
}

GST_END_TEST;

/* ---- renegotiation ---- */

GST_START_TEST (test_caps_change)
{
  GstHarness *h = test_harness_new_bin ("clcontrast mode=equalize");
  static const struct
  {
    const gchar *format;
    gint w, h;
  } steps[] = {
    {"GRAY8", 64, 48}, {"GRAY8", 1918, 1078}, {"GRAY8", 17, 9},
    {"I420", 640, 480}, {"I420", 3, 5}, {"NV12", 33, 7}, {"Y444", 640, 480},
    {"Y42B", 67, 45},
  };
  Stream st;
  guint s, c;

  stream_init (&st, REF_CONTRAST_EQUALIZE, 0.5, 0.5, 0.0);
  for (s = 0; s < G_N_ELEMENTS (steps); s++) {
    const TestFormat *f = test_format_find (steps[s].format);
    for (c = 0; c < 2; c++) {
      TestFrame frame = { 0, };
      test_frame_make (&frame, f, steps[s].w, steps[s].h, -1, 0,
          c ? CONTENT_NATURAL : CONTENT_RANDOM, test_seed ("caps", s * 2 + c));
      if (c == 0)
        set_frame_caps (h, &frame);
      run_and_check (h, &st, &frame, "caps change");
      test_frame_clear (&frame);
    }
  }
  test_harness_teardown (h);
}

GST_END_TEST;

/* ---- pipelines ---- */

static void
run_pipeline (const gchar * desc)
{
  GError *error = NULL;
  GstElement *pipeline = gst_parse_launch (desc, &error);
  GstBus *bus;
  GstMessage *msg;

  fail_unless (pipeline != NULL && error == NULL, "%s: %s", desc,
      error ? error->message : "?");
  test_set_shared_context (pipeline);
  fail_if (gst_element_set_state (pipeline, GST_STATE_PLAYING) ==
      GST_STATE_CHANGE_FAILURE, "%s does not start", desc);
  bus = gst_element_get_bus (pipeline);
  msg = gst_bus_timed_pop_filtered (bus, RUN_TIMEOUT,
      GST_MESSAGE_EOS | GST_MESSAGE_ERROR);
  fail_unless (msg != NULL, "%s: no EOS", desc);
  if (GST_MESSAGE_TYPE (msg) == GST_MESSAGE_ERROR) {
    gchar *debug = NULL;
    gst_message_parse_error (msg, &error, &debug);
    fail ("%s: %s (%s)", desc, error->message, GST_STR_NULL (debug));
  }
  gst_message_unref (msg);
  gst_object_unref (bus);
  fail_unless_equals_int (gst_element_set_state (pipeline, GST_STATE_NULL),
      GST_STATE_CHANGE_SUCCESS);
  gst_object_unref (pipeline);
}

#define N_PIPELINE_FRAMES 8

/* From clcolorlowpass on, the frames stay on the device: the only host
 * traffic is the source writing each frame once (into clcolorlowpass's
 * pool, or staged by it). */
GST_START_TEST (test_pipeline_no_transfers)
{
  static const gchar *caps[] = {
    "video/x-raw(memory:OpenCL),format=GRAY8",
    "video/x-raw,format=GRAY8",
  };
  GstClContext *ctx = test_get_shared_context ();
  GstClTransferCounts counts;
  static const gchar *labels[] = { "colorlowpass", "histogram",
    "contrast-lut", "contrast"
  };
  guint i, l;

  for (i = 0; i < G_N_ELEMENTS (caps); i++) {
    gchar *desc = g_strdup_printf ("videotestsrc num-buffers=%d "
        "! video/x-raw,format=RGBx,width=320,height=240 "
        "! clcolorlowpass luma-filter=none ! %s ! clhistogram "
        "! clcontrast ! fakesink", N_PIPELINE_FRAMES, caps[i]);

    gst_cl_context_reset_stats (ctx);
    run_pipeline (desc);
    gst_cl_context_get_transfer_counts (ctx, &counts);
    GST_INFO ("%s: host maps %" G_GUINT64_FORMAT ", uploads %"
        G_GUINT64_FORMAT ", downloads %" G_GUINT64_FORMAT, desc,
        counts.host_maps, counts.uploads, counts.downloads);
    fail_unless_equals_uint64 (counts.downloads, 0);
    fail_unless (counts.host_maps + counts.uploads <= N_PIPELINE_FRAMES,
        "%s: %" G_GUINT64_FORMAT " host maps and %" G_GUINT64_FORMAT
        " uploads for %d frames", desc, counts.host_maps, counts.uploads,
        N_PIPELINE_FRAMES);
    for (l = 0; l < G_N_ELEMENTS (labels); l++) {
      guint64 launches = 0;
      gst_cl_context_get_kernel_stats (ctx, labels[l], &launches, NULL,
          NULL);
      fail_unless_equals_uint64 (launches, N_PIPELINE_FRAMES);
    }
    g_free (desc);
  }
}

GST_END_TEST;

/* Encodes (@encode) or decodes one image with pngenc / pngdec. */
static GstBuffer *
png_convert (const gchar * element, GstCaps * caps, GstBuffer * in)
{
  GstHarness *h = gst_harness_new (element);
  GstBuffer *out;

  gst_harness_set_src_caps (h, caps);
  fail_unless_equals_int (gst_harness_push (h, in), GST_FLOW_OK);
  fail_unless (gst_harness_push_event (h, gst_event_new_eos ()));
  out = gst_harness_pull (h);
  fail_unless (out != NULL);
  test_harness_teardown (h);
  return out;
}

/* The image pipeline of the documentation, on a PNG made here: the
 * output PNG must hold the reference's stretched luma. */
GST_START_TEST (test_png_pipeline)
{
  const gint w = 161, hgt = 97;
  GError *error = NULL;
  gchar *dir = g_dir_make_tmp ("clcontrast-XXXXXX", &error);
  gchar *in_path, *out_path, *desc, *contents = NULL;
  TestFrame rgb = { 0, };
  GstBuffer *png, *gray;
  GstMapInfo map;
  GstVideoInfo info;
  RefParams luma_prm = { GST_VIDEO_COLOR_MATRIX_BT601, TRUE, 1, 256, 4 };
  guint8 *luma;
  gsize len = 0;
  guint32 bins[256];
  guint8 lut[256];
  Stream st;
  gint x, y;

  fail_unless (dir != NULL, "%s", error ? error->message : "?");
  in_path = g_build_filename (dir, "photo.png", NULL);
  out_path = g_build_filename (dir, "out.png", NULL);

  test_frame_make (&rgb, test_format_find ("RGB"), w, hgt, -1, 0,
      CONTENT_NATURAL, 1234);
  png = png_convert ("pngenc", gst_caps_from_string ("video/x-raw,"
          "format=RGB,width=161,height=97,framerate=0/1"),
      gst_buffer_ref (rgb.buffer));
  fail_unless (gst_buffer_map (png, &map, GST_MAP_READ));
  fail_unless (g_file_set_contents (in_path, (const gchar *) map.data,
          map.size, &error), "%s", error ? error->message : "?");
  gst_buffer_unmap (png, &map);
  gst_buffer_unref (png);

  desc = g_strdup_printf ("filesrc location=%s ! pngdec "
      "! clcolorlowpass luma-filter=none ! video/x-raw,format=GRAY8 "
      "! clhistogram ! clcontrast ! pngenc ! filesink location=%s", in_path,
      out_path);
  run_pipeline (desc);

  /* expected: the reference's GRAY8 luma, stretched */
  gst_video_info_set_format (&info, GST_VIDEO_FORMAT_GRAY8, w, hgt);
  luma = g_malloc0 (info.size);
  fail_unless (gst_buffer_map (rgb.buffer, &map, GST_MAP_READ));
  ref_colorlowpass (map.data, rgb.stride[0], 3, 0, 1, 2, &info, luma,
      &luma_prm);
  gst_buffer_unmap (rgb.buffer, &map);
  {
    guint8 *packed = g_malloc ((gsize) w * hgt);
    for (y = 0; y < hgt; y++)
      memcpy (packed + (gsize) y * w, luma + (gsize) y * info.stride[0], w);
    ref_histogram (packed, (gsize) w * hgt, bins);
    g_free (packed);
  }
  stream_init (&st, REF_CONTRAST_STRETCH, 0.5, 0.5, 0.0);
  ref_contrast_lut (bins, (guint64) w * hgt, &st.params, &st.state, lut,
      &st.last);
  fail_if (st.last.identity, "the test image needs no stretch");

  fail_unless (g_file_get_contents (out_path, &contents, &len, &error), "%s",
      error ? error->message : "?");
  gray = png_convert ("pngdec", gst_caps_from_string ("image/png"),
      gst_buffer_new_wrapped (contents, len));
  fail_unless (gst_buffer_map (gray, &map, GST_MAP_READ));
  fail_unless (map.size >= info.size, "decoded %" G_GSIZE_FORMAT " bytes",
      map.size);
  for (y = 0; y < hgt; y++)
    for (x = 0; x < w; x++) {
      guint8 exp = lut[luma[(gsize) y * info.stride[0] + x]];
      guint8 got = map.data[(gsize) y * info.stride[0] + x];
      fail_unless_each (got == exp, "output PNG at x=%d y=%d: %d, expected %d",
          x, y, got, exp);
    }
  gst_buffer_unmap (gray, &map);
  gst_buffer_unref (gray);

  g_unlink (in_path);
  g_unlink (out_path);
  g_rmdir (dir);
  g_free (luma);
  g_free (desc);
  g_free (in_path);
  g_free (out_path);
  g_free (dir);
  test_frame_clear (&rgb);
}

GST_END_TEST;

static Suite *
contrast_suite (void)
{
  Suite *s = suite_create ("contrast");
  TCase *tc = test_suite_add_case (s);

  tcase_add_loop_test (tc, test_formats, 0, 2 * N_FORMATS);
  tcase_add_test (tc, test_cuts);
  tcase_add_loop_test (tc, test_layouts, 0, N_FORMATS);
  tcase_add_loop_test (tc, test_smoothing, 0, G_N_ELEMENTS (smoothings));
  tcase_add_loop_test (tc, test_meta_path, 0, N_FORMATS);
  tcase_add_test (tc, test_meta_selection);
  tcase_add_test (tc, test_messages);
  tcase_add_test (tc, test_caps_change);
  tcase_add_test (tc, test_pipeline_no_transfers);
  tcase_add_test (tc, test_png_pipeline);
  return s;
}

GST_CHECK_MAIN (contrast);
