/* gst-clvideo: clmpegenc among stock elements: autoplugging, converters
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * encodebin picks clmpegenc for an MPEG-1 profile, and its stream decodes
 * in FFmpeg; videorate and videoscale in front of the encoder convert any
 * input to a rate and a size MPEG-1 codes, from the pad templates alone;
 * what MPEG-1 cannot carry as given is a warning to the application.
 * Needs ffmpeg (skipped, 77, without it).
 */
#include <gst/check/gstcheck.h>
#include <glib/gstdio.h>
#include <math.h>
#include <string.h>

#include "mpegcheck.h"
#include "psnr.h"
#include "testutil.h"

static gchar *tmpdir;

/* Runs @desc to its end; fails on an error. The pipeline is returned
 * (stopped) when @keep, else freed; the warning and element messages are
 * added to @messages if given. */
static GstElement *
run_pipeline_messages (const gchar * desc, gboolean keep,
    GPtrArray * messages)
{
  GError *error = NULL;
  GstElement *pipeline = gst_parse_launch (desc, &error);
  GstMessage *msg;
  GstBus *bus;

  fail_unless (pipeline != NULL, "%s: %s", desc, error ? error->message :
      "?");
  bus = gst_element_get_bus (pipeline);
  fail_unless (gst_element_set_state (pipeline, GST_STATE_PLAYING) !=
      GST_STATE_CHANGE_FAILURE, "%s: does not start", desc);
  while ((msg = gst_bus_timed_pop_filtered (bus, 300 * GST_SECOND,
              GST_MESSAGE_EOS | GST_MESSAGE_ERROR | GST_MESSAGE_WARNING |
              GST_MESSAGE_ELEMENT)) &&
      (GST_MESSAGE_TYPE (msg) == GST_MESSAGE_WARNING ||
          GST_MESSAGE_TYPE (msg) == GST_MESSAGE_ELEMENT)) {
    if (messages)
      g_ptr_array_add (messages, msg);
    else
      gst_message_unref (msg);
  }
  fail_unless (msg != NULL, "%s: no end in 300 s", desc);
  if (GST_MESSAGE_TYPE (msg) == GST_MESSAGE_ERROR) {
    gchar *dbg = NULL;
    gst_message_parse_error (msg, &error, &dbg);
    fail ("%s: %s (%s)", desc, error->message, dbg ? dbg : "");
  }
  gst_message_unref (msg);
  gst_object_unref (bus);
  gst_element_set_state (pipeline, GST_STATE_NULL);
  if (keep)
    return pipeline;
  gst_object_unref (pipeline);
  return NULL;
}

static GstElement *
run_pipeline (const gchar * desc, gboolean keep)
{
  return run_pipeline_messages (desc, keep, NULL);
}

/* The texts of the warnings among @messages */
static GPtrArray *
warning_texts (GPtrArray * messages)
{
  GPtrArray *texts = g_ptr_array_new_with_free_func (g_free);
  guint i;

  for (i = 0; i < messages->len; i++) {
    GError *error = NULL;
    if (GST_MESSAGE_TYPE (messages->pdata[i]) != GST_MESSAGE_WARNING)
      continue;
    gst_message_parse_warning (messages->pdata[i], &error, NULL);
    g_ptr_array_add (texts, g_strdup (error->message));
    g_error_free (error);
  }
  return texts;
}

static gchar *
tmp_path (const gchar * name)
{
  return g_build_filename (tmpdir, name, NULL);
}

/* The frames of @path decoded by ffmpeg as I420 (its size in *@size). */
static guint8 *
ffmpeg_decode_i420 (const gchar * path, gsize * size)
{
  gchar *out = g_strconcat (path, ".yuv", NULL), *err = NULL, *data = NULL;
  gchar *argv[] = { (gchar *) "ffmpeg", (gchar *) "-v", (gchar *) "error",
    (gchar *) "-y", (gchar *) "-i", (gchar *) path, (gchar *) "-vsync",
    (gchar *) "passthrough", (gchar *) "-f", (gchar *) "rawvideo",
    (gchar *) "-pix_fmt", (gchar *) "yuv420p", out, NULL
  };
  gint status = 1;

  fail_unless (g_spawn_sync (NULL, argv, NULL, G_SPAWN_SEARCH_PATH |
          G_SPAWN_STDOUT_TO_DEV_NULL, NULL, NULL, NULL, &err, &status, NULL));
  fail_unless (status == 0, "ffmpeg cannot decode %s: %s", path, err);
  fail_unless (g_file_get_contents (out, &data, size, NULL));
  g_unlink (out);
  g_free (out);
  g_free (err);
  return (guint8 *) data;
}

/* The element of @bin (at any depth) made by factory @name, if any */
static gboolean
bin_has_factory (GstBin * bin, const gchar * name)
{
  GstIterator *it = gst_bin_iterate_recurse (bin);
  GValue v = G_VALUE_INIT;
  gboolean found = FALSE;

  while (!found && gst_iterator_next (it, &v) == GST_ITERATOR_OK) {
    GstElementFactory *f = gst_element_get_factory (g_value_get_object (&v));
    found = f && strcmp (GST_OBJECT_NAME (f), name) == 0;
    g_value_reset (&v);
  }
  g_value_unset (&v);
  gst_iterator_free (it);
  return found;
}

/* encodebin's MPEG-1 profile in a transport stream takes clmpegenc (the
 * MPEG-1 encoder of the highest rank where OpenCL has a device), and
 * FFmpeg decodes every frame of it close to the source. (encodebin
 * takes a muxer whose templates hold the whole of both formats: the
 * profile spells out systemstream and packetsize.) */
GST_START_TEST (test_encodebin_profile)
{
  const guint w = 176, h = 144, n = 30;
  gchar *raw = tmp_path ("source.yuv"), *ts = tmp_path ("profile.ts");
  gchar *src = g_strdup_printf ("videotestsrc num-buffers=%u pattern=ball ! "
      "video/x-raw,format=I420,width=%u,height=%u,framerate=25/1", n, w, h);
  gchar *desc = g_strdup_printf ("%s ! encodebin profile=video/mpegts,"
      "systemstream=true,packetsize=188:video/mpeg,mpegversion=1,"
      "systemstream=false ! filesink location=%s", src, ts);
  gchar *desc_raw = g_strdup_printf ("%s ! filesink location=%s", src, raw);
  GstElement *pipeline;
  guint8 *dec;
  gchar *ref = NULL;
  gsize dec_size, ref_size, fs = psnr_i420_size (w, h), i;
  GstPluginFeature *f = gst_registry_lookup_feature (gst_registry_get (),
      "clmpegenc");

  fail_unless (f != NULL);
  fail_unless_equals_int (gst_plugin_feature_get_rank (f), GST_RANK_PRIMARY);
  gst_object_unref (f);

  pipeline = run_pipeline (desc, TRUE);
  fail_unless (bin_has_factory (GST_BIN (pipeline), "clmpegenc"),
      "encodebin took another encoder");
  gst_object_unref (pipeline);
  run_pipeline (desc_raw, FALSE);

  dec = ffmpeg_decode_i420 (ts, &dec_size);
  fail_unless (g_file_get_contents (raw, &ref, &ref_size, NULL));
  fail_unless_equals_uint64 (dec_size, ref_size);
  fail_unless_equals_uint64 (dec_size, n * fs);
  for (i = 0; i < n; i++) {
    gdouble mse[3];
    psnr_i420_mse ((const guint8 *) ref + i * fs, dec + i * fs, w, h, mse);
    fail_unless (psnr_from_mse (mse[0]) > 30.0, "frame %" G_GSIZE_FORMAT
        ": PSNR-Y %.2f dB", i, psnr_from_mse (mse[0]));
  }
  g_free (dec);
  g_free (ref);
  g_unlink (raw);
  g_unlink (ts);
  g_free (raw);
  g_free (ts);
  g_free (src);
  g_free (desc);
  g_free (desc_raw);
}

GST_END_TEST;

/* Encodes @n frames of @caps through @converter into clmpegenc; the
 * stream's check result (it must pass) */
static MpegCheckResult *
encode_through (const gchar * caps, const gchar * converter, guint n)
{
  gchar *out = tmp_path ("converted.m1v");
  gchar *desc = g_strdup_printf ("videotestsrc num-buffers=%u ! %s ! %s ! "
      "clmpegenc quantizer=8 ! filesink location=%s", n, caps, converter,
      out);
  GError *error = NULL;
  MpegCheckResult *r;
  gchar *errors;

  run_pipeline (desc, FALSE);
  r = mpegcheck_run_file (out, NULL, &error);
  fail_unless (r != NULL, "%s", error ? error->message : "?");
  errors = mpegcheck_errors_text (r);
  fail_unless (mpegcheck_passed (r), "%s: %s", desc, errors);
  g_free (errors);
  g_unlink (out);
  g_free (out);
  g_free (desc);
  return r;
}

/* videorate in front converts a rate MPEG-1 does not have to the
 * nearest it has, from the encoder's template alone */
GST_START_TEST (test_videorate)
{
  static const struct
  {
    const gchar *in;
    gint n, d;
  } rates[] = {
    {"15/1", 24000, 1001}, {"10/1", 24000, 1001}, {"24/1", 24, 1},
    {"26/1", 25, 1}, {"61/1", 60, 1}, {"1000/1", 60, 1},
  };
  guint i;

  for (i = 0; i < G_N_ELEMENTS (rates); i++) {
    gchar *caps = g_strdup_printf ("video/x-raw,width=64,height=48,"
        "framerate=%s", rates[i].in);
    MpegCheckResult *r = encode_through (caps, "videorate", 4);
    const MpegCheckSequence *seq = &g_array_index (r->sequences,
        MpegCheckSequence, 0);
    fail_unless (seq->fps_n == rates[i].n && seq->fps_d == rates[i].d,
        "%s became %d/%d, not %d/%d", rates[i].in, seq->fps_n, seq->fps_d,
        rates[i].n, rates[i].d);
    mpegcheck_result_free (r);
    g_free (caps);
  }
}

GST_END_TEST;

/* videoscale in front fits a picture larger than MPEG-1's 4095 or the
 * encoder's 2800 rows */
GST_START_TEST (test_videoscale)
{
  static const guint sizes[][2] = { {4096, 2160}, {5000, 3000}, {640, 4000} };
  guint i;

  for (i = 0; i < G_N_ELEMENTS (sizes); i++) {
    gchar *caps = g_strdup_printf ("video/x-raw,width=%u,height=%u,"
        "framerate=25/1", sizes[i][0], sizes[i][1]);
    MpegCheckResult *r = encode_through (caps, "videoscale", 2);
    const MpegCheckSequence *seq = &g_array_index (r->sequences,
        MpegCheckSequence, 0);
    fail_unless (seq->width >= 1 && seq->width <= 4095 && seq->height >= 1
        && seq->height <= 2800, "%ux%u became %ux%u", sizes[i][0],
        sizes[i][1], seq->width, seq->height);
    fail_unless (seq->width < sizes[i][0] || seq->height < sizes[i][1]);
    mpegcheck_result_free (r);
    g_free (caps);
  }
}

GST_END_TEST;

/* What MPEG-1 cannot carry as given reaches the application as a
 * warning: a pixel aspect ratio without a code (the nearest is coded),
 * interlaced input (coded as progressive frames); what it can, does not */
GST_START_TEST (test_format_warnings)
{
  static const struct
  {
    const gchar *caps;
    const gchar *warning;       /* NULL: none */
  } cases[] = {
    {"pixel-aspect-ratio=2/1", "2/1"},
    {"pixel-aspect-ratio=1/3", "1/3"},
    {"interlace-mode=interleaved", "interlaced"},
    {"interlace-mode=mixed", "interlaced"},
    {"pixel-aspect-ratio=1/1", NULL},
    /* pel_aspect_ratio 0.9157, the 625-line 4:3 one */
    {"pixel-aspect-ratio=59/54", NULL},
    {"interlace-mode=progressive", NULL},
  };
  guint i;

  for (i = 0; i < G_N_ELEMENTS (cases); i++) {
    gchar *desc = g_strdup_printf ("videotestsrc num-buffers=2 ! "
        "video/x-raw,width=64,height=48,framerate=25/1 ! capssetter "
        "caps=\"video/x-raw,%s\" ! clmpegenc ! fakesink", cases[i].caps);
    GPtrArray *messages = g_ptr_array_new_with_free_func ((GDestroyNotify)
        gst_message_unref), *warnings;

    run_pipeline_messages (desc, FALSE, messages);
    warnings = warning_texts (messages);
    if (!cases[i].warning) {
      fail_unless (warnings->len == 0, "%s: %s", cases[i].caps,
          warnings->len ? (gchar *) warnings->pdata[0] : "");
    } else {
      fail_unless (warnings->len == 1, "%s: %u warnings", cases[i].caps,
          warnings->len);
      fail_unless (strstr (warnings->pdata[0], cases[i].warning) != NULL,
          "%s: %s", cases[i].caps, (gchar *) warnings->pdata[0]);
    }
    GST_INFO ("%s: %s", cases[i].caps, warnings->len ?
        (gchar *) warnings->pdata[0] : "no warning");
    g_ptr_array_unref (warnings);
    g_ptr_array_unref (messages);
    g_free (desc);
  }
}

GST_END_TEST;

/* The "clmpegenc" progress messages: one for the frame that completes
 * each interval of stream time (every frame at interval 0), none without
 * post-messages; their counts add up to the stream's, the bit rate is the
 * interval's bytes over its time, and the mean quantiser that of its I
 * (quantiser 4 / ip-factor 1.4 = 3, the factor set) and P pictures (4),
 * I every 12th. */
GST_START_TEST (test_progress_messages)
{
  static const struct
  {
    const gchar *props;
    guint expect;               /* messages */
    guint per;                  /* frames a message */
  } cases[] = {
    {"post-messages=true", 2, 25},
    {"post-messages=true interval=400000000", 6, 10},
    {"post-messages=true interval=0", 60, 1},
    {"post-messages=false interval=0", 0, 0},
  };
  guint c;

  for (c = 0; c < G_N_ELEMENTS (cases); c++) {
    gchar *out = tmp_path ("progress.m1v");
    gchar *desc = g_strdup_printf ("videotestsrc num-buffers=60 ! "
        "video/x-raw,width=96,height=64,framerate=25/1 ! clmpegenc "
        "ip-factor=1.4 %s ! "
        "filesink location=%s", cases[c].props, out);
    GPtrArray *messages = g_ptr_array_new_with_free_func ((GDestroyNotify)
        gst_message_unref);
    guint64 bytes_sum = 0, frames = 0, bytes = 0;
    guint i, n = 0;
    gchar *data;
    gsize size;

    run_pipeline_messages (desc, FALSE, messages);
    for (i = 0; i < messages->len; i++) {
      const GstStructure *st = gst_message_get_structure (messages->pdata[i]);
      guint64 ib, ifr, ts;
      gdouble rate, q, fps, expect_q = 0;
      guint k;

      if (!gst_structure_has_name (st, "clmpegenc"))
        continue;
      n++;
      fail_unless (gst_structure_get (st, "frames", G_TYPE_UINT64, &frames,
              "bytes", G_TYPE_UINT64, &bytes, "interval-frames",
              G_TYPE_UINT64, &ifr, "interval-bytes", G_TYPE_UINT64, &ib,
              "bitrate", G_TYPE_DOUBLE, &rate, "mean-quantiser",
              G_TYPE_DOUBLE, &q, "encoding-fps", G_TYPE_DOUBLE, &fps,
              "timestamp", G_TYPE_UINT64, &ts, NULL), "%" GST_PTR_FORMAT,
          st);
      fail_unless_equals_uint64 (ifr, cases[c].per);
      fail_unless_equals_uint64 (frames, n * cases[c].per);
      fail_unless_equals_uint64 (ts, (frames - 1) * GST_SECOND / 25);
      bytes_sum += ib;
      fail_unless_equals_uint64 (bytes, bytes_sum);
      fail_unless (fabs (rate - ib * 8.0 * 25 / ifr) < 1e-6 * rate,
          "%s: bit rate %f for %" G_GUINT64_FORMAT " bytes in %"
          G_GUINT64_FORMAT " frames", cases[c].props, rate, ib, ifr);
      for (k = frames - ifr; k < frames; k++)
        expect_q += (k % 12 == 0 ? 3.0 : 4.0) / ifr;
      fail_unless (fabs (q - expect_q) < 1e-9, "%s: mean quantiser %f, "
          "not %f", cases[c].props, q, expect_q);
      fail_unless (fps > 0);
    }
    fail_unless_equals_int (n, cases[c].expect);
    /* with a message at the last frame: all of the stream's bytes but
     * the headers (the sequence end code at least) */
    fail_unless (g_file_get_contents (out, &data, &size, NULL));
    if (n && frames == 60)
      fail_unless (bytes <= size && bytes + 64 * 6 > size, "%" G_GUINT64_FORMAT
          " bytes counted, the stream has %" G_GSIZE_FORMAT, bytes, size);
    g_free (data);
    g_unlink (out);
    g_ptr_array_unref (messages);
    g_free (desc);
    g_free (out);
  }
}

GST_END_TEST;

static void
setup (void)
{
  tmpdir = g_dir_make_tmp ("clvideo-negotiation-XXXXXX", NULL);
  fail_unless (tmpdir != NULL);
}

static void
teardown (void)
{
  g_rmdir (tmpdir);
  g_clear_pointer (&tmpdir, g_free);
}

static Suite *
negotiation_suite (void)
{
  Suite *s = suite_create ("negotiation");
  TCase *tc = test_suite_add_case (s);

  tcase_add_checked_fixture (tc, setup, teardown);
  tcase_add_test (tc, test_encodebin_profile);
  tcase_add_test (tc, test_videorate);
  tcase_add_test (tc, test_videoscale);
  tcase_add_test (tc, test_format_warnings);
  tcase_add_test (tc, test_progress_messages);
  return s;
}

int
main (int argc, char **argv)
{
  gst_check_init (&argc, &argv);
  if (!test_have_program ("ffmpeg")) {
    g_print ("SKIP: needs ffmpeg (Debian package ffmpeg)\n");
    return 77;
  }
  return gst_check_run_suite (negotiation_suite (), "negotiation", __FILE__);
}
