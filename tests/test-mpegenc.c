/* gst-clvideo: clmpegenc, its device stages and its streams
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * - the device stages against the C reference (tests/mpegenc-ref.c), bit
 *   for bit: records, levels and reconstruction, I and P, any vector;
 * - the reference's inverse DCT against IEEE 1180;
 * - the element's streams decoded by three independent decoders (FFmpeg
 *   with -err_detect explode, libmpeg2, GStreamer's avdec_mpegvideo) and
 *   checked by tests/mpegcheck.c (structure, VBV model): frame counts,
 *   sizes, timestamps, PSNR floors, bit rate, odd sizes, a size change, a
 *   one-frame stream and EOS with frames queued;
 * - the reconstruction the encoder predicts from equals FFmpeg's decoded
 *   pictures over a long GOP (no drift).
 *
 * Needs ffmpeg, mpeg2dec and gstreamer1.0-libav; skipped (77) without
 * ffmpeg.
 */
#define _GNU_SOURCE             /* memmem */
#include <gst/check/gstcheck.h>
#include <gst/check/gstharness.h>
#include <gst/video/video.h>
#include <glib/gstdio.h>
#include <math.h>
#include <string.h>

#include <gst/cl/gstclbufferpool.h>
#include <gst/cl/gstclbinarycache-private.h>
#include "gstclmotionsearchcompute.h"
#include "gstclmpegtransform.h"
#include "mpegcheck.h"
#include "mpegenc-ref.h"
#include "psnr.h"
#include "testutil.h"

static gchar *tmpdir;

/* ---- content ---- */

/* A natural-looking texture (smooth gradients, a disc, fine detail and a
 * little noise) seen through a window panned by (@pan_x, @pan_y) pixels
 * per frame: frame @t of a @w x @h I420 clip, tightly packed. */
static guint8 *
natural_frame_format (guint w, guint h, guint t, gdouble pan_x,
    gdouble pan_y, guint32 seed, gboolean chroma_422)
{
  gsize cw = (w + 1) / 2, ch = chroma_422 ? h : (h + 1) / 2;
  guint8 *f = g_malloc (w * h + 2 * cw * ch);
  guint32 rng = seed * 2654435761u + t + 1;
  guint x, y;

  for (y = 0; y < h; y++)
    for (x = 0; x < w; x++) {
      gdouble X = x + pan_x * t, Y = y + pan_y * t;
      gdouble v = 110 + 50 * sin (X * 0.043 + Y * 0.011) +
          30 * cos (Y * 0.067 - X * 0.023) + 12 * sin (X * 0.41) *
          cos (Y * 0.37);
      gdouble dx = X - 90, dy = Y - 70;
      if (dx * dx + dy * dy < 900)
        v = 0.5 * v + 90;
      v += (gint) (test_rng_next (&rng) % 5) - 2;
      f[y * w + x] = (guint8) CLAMP (lround (v), 0, 255);
    }
  for (y = 0; y < ch; y++)
    for (x = 0; x < cw; x++) {
      gdouble X = 2 * x + (gdouble) pan_x * t, Y = (chroma_422 ? 1 : 2) * y +
          (gdouble) pan_y * t;
      /* 4:2:2: with detail that only its chroma lines hold */
      gdouble d = chroma_422 ? 25 * sin (X * 0.13) * cos (Y * 0.9) : 0;
      f[w * h + y * cw + x] = (guint8) (128 + 40 * sin (X * 0.021 + 1) + d);
      f[w * h + cw * ch + y * cw + x] = (guint8) (128 + 35 * cos (Y * 0.029) -
          d);
    }
  return f;
}

static guint8 *
natural_frame (guint w, guint h, guint t, gdouble pan_x, gdouble pan_y,
    guint32 seed)
{
  return natural_frame_format (w, h, t, pan_x, pan_y, seed, FALSE);
}

/* Synthetic: eight colour bars with sharp edges and a bright square
 * moving over them by (3, 2) pixels per frame. */
static guint8 *
synthetic_frame (guint w, guint h, guint t)
{
  static const guint8 bars[8][3] = {
    {235, 128, 128}, {210, 16, 146}, {170, 166, 16}, {145, 54, 34},
    {106, 202, 222}, {81, 90, 240}, {41, 240, 110}, {16, 128, 128},
  };
  gsize cw = (w + 1) / 2, ch = (h + 1) / 2;
  guint8 *f = g_malloc (w * h + 2 * cw * ch);
  guint x, y, sx = 3 * t % w, sy = 2 * t % h;

  for (y = 0; y < h; y++)
    for (x = 0; x < w; x++) {
      gboolean sq = x >= sx && x < sx + 24 && y >= sy && y < sy + 24;
      f[y * w + x] = sq ? 250 : bars[x * 8 / w][0];
    }
  for (y = 0; y < ch; y++)
    for (x = 0; x < cw; x++) {
      f[w * h + y * cw + x] = bars[2 * x * 8 / w][1];
      f[w * h + cw * ch + y * cw + x] = bars[2 * x * 8 / w][2];
    }
  return f;
}

/* A buffer of the planar frame @f of @w x @h, I420 or Y42B (@chroma_422),
 * tightly packed */
static GstBuffer *
planar_buffer (const guint8 * f, guint w, guint h, gboolean chroma_422,
    GstClockTime pts, GstClockTime dur)
{
  gsize cw = (w + 1) / 2, ch = chroma_422 ? h : (h + 1) / 2;
  GstBuffer *b = gst_buffer_new_memdup (f, (gsize) w * h + 2 * cw * ch);
  gsize offset[GST_VIDEO_MAX_PLANES] = { 0, (gsize) w * h,
    (gsize) w * h + cw * ch, 0
  };
  gint stride[GST_VIDEO_MAX_PLANES] = { (gint) w, (gint) cw, (gint) cw, 0 };

  /* tightly packed: a meta says so where GStreamer would align rows */
  gst_buffer_add_video_meta_full (b, GST_VIDEO_FRAME_FLAG_NONE,
      chroma_422 ? GST_VIDEO_FORMAT_Y42B : GST_VIDEO_FORMAT_I420, w, h, 3,
      offset, stride);
  GST_BUFFER_PTS (b) = pts;
  GST_BUFFER_DURATION (b) = dur;
  return b;
}

static GstBuffer *
i420_buffer (const guint8 * f, guint w, guint h, GstClockTime pts,
    GstClockTime dur)
{
  return planar_buffer (f, w, h, FALSE, pts, dur);
}

/* ---- running the element ---- */

typedef struct {
  GByteArray *stream;
  GArray *pts;                  /* GstClockTime of the output buffers */
  GArray *dts;                  /* ... their decoding timestamps */
  guint n_sync;
} Encoded;

static void
encoded_init (Encoded * e)
{
  e->stream = g_byte_array_new ();
  e->pts = g_array_new (FALSE, FALSE, sizeof (GstClockTime));
  e->dts = g_array_new (FALSE, FALSE, sizeof (GstClockTime));
  e->n_sync = 0;
}

static void
encoded_free (Encoded * e)
{
  g_byte_array_unref (e->stream);
  g_array_unref (e->pts);
  g_array_unref (e->dts);
}

static gboolean
same_stream (const Encoded * a, const Encoded * b)
{
  return a->stream->len == b->stream->len &&
      memcmp (a->stream->data, b->stream->data, a->stream->len) == 0;
}

static GstHarness *
harness_new_parse (const gchar * launch)
{
  GstHarness *h = gst_harness_new_parse (launch);
  test_set_shared_context (h->element);
  return h;
}

static GstHarness *
harness_new (const gchar * props)
{
  return test_harness_new ("clmpegenc", props);
}

static void
set_caps (GstHarness * h, guint w, guint h_, gint fps_n, const gchar * fmt)
{
  gchar *s = g_strdup_printf ("video/x-raw,format=%s,width=%u,height=%u,"
      "framerate=%d/1,pixel-aspect-ratio=1/1", fmt, w, h_, fps_n);
  gst_harness_set_src_caps_str (h, s);
  g_free (s);
}

static void
pull_all (GstHarness * h, Encoded * e)
{
  GstBuffer *b;

  while ((b = gst_harness_try_pull (h))) {
    GstMapInfo map;
    GstClockTime pts = GST_BUFFER_PTS (b), dts = GST_BUFFER_DTS (b);
    gst_buffer_map (b, &map, GST_MAP_READ);
    g_byte_array_append (e->stream, map.data, map.size);
    gst_buffer_unmap (b, &map);
    g_array_append_val (e->pts, pts);
    g_array_append_val (e->dts, dts);
    if (!GST_BUFFER_FLAG_IS_SET (b, GST_BUFFER_FLAG_DELTA_UNIT))
      e->n_sync++;
    gst_buffer_unref (b);
  }
}

/* Pushes frames @first to @first + @n - 1 of natural_frame()'s clip
 * (@pan_x, @pan_y, @seed) at 25 fps, the first at time @pts_first frame
 * periods, and keeps what comes out in @e. */
static void
push_natural (GstHarness * hn, guint w, guint h, guint first, guint n,
    gdouble pan_x, gdouble pan_y, guint32 seed, guint pts_first, Encoded * e)
{
  guint k;

  for (k = first; k < first + n; k++) {
    guint8 *f = natural_frame (w, h, k, pan_x, pan_y, seed);
    GstClockTime t = (k - first + pts_first) * GST_SECOND / 25;
    fail_unless_equals_int (gst_harness_push (hn, i420_buffer (f, w, h, t,
                GST_SECOND / 25)), GST_FLOW_OK);
    g_free (f);
    pull_all (hn, e);
  }
}

/* EOS, what comes out into @e, and the harness torn down */
static void
finish_harness (GstHarness * hn, Encoded * e)
{
  fail_unless (gst_harness_push_event (hn, gst_event_new_eos ()));
  pull_all (hn, e);
  test_harness_teardown (hn);
}

/* the clip encode_clip() encodes: natural, or synthetic_frame() */
static gboolean use_synthetic;
/* the natural clip's motion, pixels a frame */
static gdouble clip_pan_x = 2, clip_pan_y = 1;

/* Encodes @n frames of the natural clip (or its first frame repeated when
 * @pan is FALSE) at 25 fps. */
static void
encode_clip (const gchar * props, guint w, guint h_, guint n, gboolean pan,
    const gchar * fmt, Encoded * e)
{
  /* "launch:" selects a chain of elements instead of properties */
  GstHarness *h = g_str_has_prefix (props, "launch:") ?
      harness_new_parse (props + 7) : harness_new (props);
  GstClockTime dur = GST_SECOND / 25;
  guint i;

  encoded_init (e);
  set_caps (h, w, h_, 25, fmt ? fmt : "I420");
  for (i = 0; i < n; i++) {
    gboolean y42b = fmt && g_str_equal (fmt, "Y42B");
    guint8 *f = use_synthetic ? synthetic_frame (w, h_, i) :
        natural_frame_format (w, h_, pan ? i : 0, clip_pan_x, clip_pan_y, 7,
        y42b);
    GstBuffer *b = planar_buffer (f, w, h_, y42b, i * dur, dur);
    if (fmt && g_str_equal (fmt, "NV12")) {
      /* interleave the chroma planes */
      GstMapInfo map;
      gsize cw = (w + 1) / 2, ch = (h_ + 1) / 2, k;
      GstVideoInfo info;
      gst_video_info_set_format (&info, GST_VIDEO_FORMAT_NV12, w, h_);
      gst_buffer_unref (b);
      b = gst_buffer_new_allocate (NULL, info.size, NULL);
      gst_buffer_map (b, &map, GST_MAP_WRITE);
      for (k = 0; k < h_; k++)
        memcpy (map.data + k * info.stride[0], f + k * w, w);
      for (k = 0; k < cw * ch; k++) {
        gsize y = k / cw, x = k % cw;
        map.data[info.offset[1] + y * info.stride[1] + 2 * x] =
            f[w * h_ + k];
        map.data[info.offset[1] + y * info.stride[1] + 2 * x + 1] =
            f[w * h_ + cw * ch + k];
      }
      gst_buffer_unmap (b, &map);
      GST_BUFFER_PTS (b) = i * dur;
      GST_BUFFER_DURATION (b) = dur;
    }
    g_free (f);
    fail_unless_equals_int (gst_harness_push (h, b), GST_FLOW_OK);
    pull_all (h, e);
  }
  fail_unless (gst_harness_push_event (h, gst_event_new_eos ()));
  pull_all (h, e);
  test_harness_teardown (h);
}

/* Sends EOS and appends what comes out to @stream */
static void
end_stream (GstHarness * h, GByteArray * stream)
{
  GstBuffer *out;

  fail_unless (gst_harness_push_event (h, gst_event_new_eos ()));
  while ((out = gst_harness_try_pull (h))) {
    GstMapInfo map;
    fail_unless (gst_buffer_map (out, &map, GST_MAP_READ));
    g_byte_array_append (stream, map.data, map.size);
    gst_buffer_unmap (out, &map);
    gst_buffer_unref (out);
  }
}

static gchar *
write_stream (const gchar * name, GByteArray * stream)
{
  gchar *path = g_build_filename (tmpdir, name, NULL);
  fail_unless (g_file_set_contents (path, (gchar *) stream->data,
          stream->len, NULL));
  return path;
}

/* tests/mpeg-decode-check.sh: ffmpeg (-err_detect explode), mpeg2dec and
 * avdec_mpegvideo decode @path cleanly, @frames pictures of @w x @h. */
static void
decode_check (const gchar * path, guint frames, guint w, guint h)
{
  gchar *script = g_build_filename (TESTS_SRCDIR, "mpeg-decode-check.sh",
      NULL);
  gchar *nf = g_strdup_printf ("%u", frames);
  gchar *size = g_strdup_printf ("%ux%u", w, h);
  const gchar *argv[] = { "bash", script, "--frames", nf, "--size", size,
    path, NULL
  };
  gchar *out = NULL, *err = NULL;
  gint status = 0;

  fail_unless (g_spawn_sync (NULL, (gchar **) argv, NULL, G_SPAWN_SEARCH_PATH,
          NULL, NULL, &out, &err, &status, NULL));
  fail_unless (g_spawn_check_wait_status (status, NULL),
      "decoders disagree on %s:\n%s%s", path, out, err);
  g_free (out);
  g_free (err);
  g_free (script);
  g_free (nf);
  g_free (size);
}

static void
count_handoff (GstElement * sink G_GNUC_UNUSED, GstBuffer * buf G_GNUC_UNUSED,
    GstPad * pad G_GNUC_UNUSED, guint * count)
{
  (*count)++;
}

/* Pictures GStreamer's libav decoder gives for @path. */
static guint
gst_decode_count (const gchar * path)
{
  gchar *desc = g_strdup_printf ("filesrc location=%s ! mpegvideoparse ! "
      "avdec_mpegvideo ! fakesink name=sink signal-handoffs=true", path);
  GError *error = NULL;
  GstElement *pipe = gst_parse_launch (desc, &error), *sink;
  GstMessage *msg;
  guint count = 0;

  fail_unless (pipe != NULL, "%s", error ? error->message : "?");
  sink = gst_bin_get_by_name (GST_BIN (pipe), "sink");
  g_signal_connect (sink, "handoff", G_CALLBACK (count_handoff), &count);
  gst_element_set_state (pipe, GST_STATE_PLAYING);
  msg = gst_bus_timed_pop_filtered (GST_ELEMENT_BUS (pipe),
      GST_CLOCK_TIME_NONE, GST_MESSAGE_EOS | GST_MESSAGE_ERROR);
  fail_unless (GST_MESSAGE_TYPE (msg) == GST_MESSAGE_EOS,
      "avdec_mpegvideo failed on %s", path);
  gst_message_unref (msg);
  gst_element_set_state (pipe, GST_STATE_NULL);
  gst_object_unref (sink);
  gst_object_unref (pipe);
  g_free (desc);
  return count;
}

/* bytes of a tightly packed frame of @w x @h, I420 or Y42B */
static gsize
planar_size (guint w, guint h, gboolean chroma_422)
{
  return chroma_422 ? (gsize) w * h + 2 * (gsize) ((w + 1) / 2) * h :
      psnr_i420_size (w, h);
}

/* Decodes @path with FFmpeg into tightly packed I420 (Y42B where
 * @chroma_422) frames. */
static GByteArray *
ffmpeg_decode_format (const gchar * path, const gchar * opts,
    guint * n_frames, guint w, guint h, gboolean chroma_422)
{
  gchar *raw = g_strdup_printf ("%s.yuv", path);
  gchar *cmd = g_strdup_printf ("ffmpeg -nostdin -v error -err_detect "
      "explode %s -i %s -fps_mode passthrough -f rawvideo -pix_fmt %s "
      "-y %s",
      opts ? opts : "", path, chroma_422 ? "yuv422p" : "yuv420p", raw);
  gsize frame = planar_size (w, h, chroma_422);
  gchar *data = NULL, *err = NULL;
  gsize len = 0;
  gint status = 0;
  GByteArray *a;

  fail_unless (g_spawn_command_line_sync (cmd, NULL, &err, &status, NULL)
      && g_spawn_check_wait_status (status, NULL) && !*err,
      "ffmpeg failed on %s: %s", path, err);
  fail_unless (g_file_get_contents (raw, &data, &len, NULL));
  *n_frames = len / frame;
  fail_unless_equals_int (len % frame, 0);
  a = g_byte_array_new_take ((guint8 *) data, len);
  g_free (err);
  g_free (cmd);
  g_free (raw);
  return a;
}

static GByteArray *
ffmpeg_decode (const gchar * path, const gchar * opts, guint * n_frames,
    guint w, guint h)
{
  return ffmpeg_decode_format (path, opts, n_frames, w, h, FALSE);
}

/* mpegcheck's verdict on @s: the structure clmpegenc promises, one slice
 * per macroblock row unless @any_slices, the first GOP's time code
 * @first_time_code (the first frame's place in the stream), the others
 * following the pictures, every GOP closed unless @open_gops */
static MpegCheckResult *
check_stream_gops (GByteArray * s, gint pictures, guint w, guint h,
    gboolean any_slices, gint64 first_time_code, gboolean open_gops)
{
  MpegCheckOptions o;
  MpegCheckResult *r;
  gchar *errs;

  mpegcheck_options_init (&o);
  o.expect_pictures = pictures;
  o.expect_width = w;
  o.expect_height = h;
  o.require_seq_header_per_gop = TRUE;
  o.require_slice_per_row = !any_slices;
  o.require_closed_gop = !open_gops;
  o.vbv_delay_tolerance = 2;
  o.first_time_code = first_time_code;
  r = mpegcheck_run (s->data, s->len, &o);
  errs = mpegcheck_errors_text (r);
  fail_unless (mpegcheck_passed (r), "stream check failed:\n%s", errs);
  g_free (errs);
  return r;
}

/* ... of closed GOPs */
static MpegCheckResult *
check_stream_from (GByteArray * s, gint pictures, guint w, guint h,
    gboolean any_slices, gint64 first_time_code)
{
  return check_stream_gops (s, pictures, w, h, any_slices, first_time_code,
      FALSE);
}

/* ... of a stream that starts at stream time 0 */
static MpegCheckResult *
check_stream_slices (GByteArray * s, gint pictures, guint w, guint h,
    gboolean any_slices)
{
  return check_stream_from (s, pictures, w, h, any_slices, 0);
}

/* MPEG-2: a sequence extension right after the sequence header */
static gboolean
stream_is_mpeg2 (GByteArray * s)
{
  return s->len > 16 && memcmp (s->data + 12, "\x00\x00\x01\xb5", 4) == 0;
}

/* ... of a stream with the encoder's slices: MPEG-2's one per row,
 * MPEG-1's as the picture's size makes worth it (auto_slices) */
static MpegCheckResult *
check_stream (GByteArray * s, gint pictures, guint w, guint h)
{
  return check_stream_slices (s, pictures, w, h, !stream_is_mpeg2 (s));
}

/* ... with open GOPs */
static MpegCheckResult *
check_open_stream (GByteArray * s, gint pictures, guint w, guint h)
{
  return check_stream_gops (s, pictures, w, h, !stream_is_mpeg2 (s), 0, TRUE);
}

/* ---- the device stages against the C reference ---- */

static void
fill_natural (MpegRefPicture * p, guint t, gint pan_x, gint pan_y,
    guint32 seed)
{
  guint W = p->mb_width * 16, H = p->mb_height * 16;
  guint8 *f = natural_frame_format (W, H, t, pan_x, pan_y, seed,
      p->chroma_422);
  memcpy (p->data, f, mpegref_picture_size (p));
  g_free (f);
}

/* Each 8x8 block of each plane of @p: black (0), white (255), the legal
 * range's ends (16, 235, 240), noise, or a sharp edge between 0 and 255:
 * the values where the arithmetic meets its limits. */
static void
fill_extremes (MpegRefPicture * p, guint32 * rng)
{
  static const gint flat[] = { 0, 255, 16, 235, 240 };
  guint W = p->mb_width * 16, H = p->mb_height * 16, plane;

  for (plane = 0; plane < 3; plane++) {
    guint pw = plane ? W / 2 : W, bx, by, x, y;
    guint ph = plane && !p->chroma_422 ? H / 2 : H;
    guint8 *d = p->data + (plane ? (gsize) W * H + (plane - 1) * (gsize) pw *
        ph : 0);
    for (by = 0; by < ph / 8; by++)
      for (bx = 0; bx < pw / 8; bx++) {
        guint kind = test_rng_next (rng) % (G_N_ELEMENTS (flat) + 2);
        for (y = 0; y < 8; y++)
          for (x = 0; x < 8; x++) {
            guint8 *v = &d[(by * 8 + y) * pw + bx * 8 + x];
            if (kind < G_N_ELEMENTS (flat))
              *v = (guint8) flat[kind];
            else if (kind == G_N_ELEMENTS (flat))
              *v = (guint8) test_rng_next (rng);
            else
              *v = x + y < 8 ? 0 : 255;
          }
      }
  }
}

typedef enum
{
  STAGE_CONTENT_NATURAL,
  STAGE_CONTENT_RANDOM,
  STAGE_CONTENT_EXTREMES,
  N_STAGE_CONTENTS
} StageContent;

static const gchar *const stage_content_names[N_STAGE_CONTENTS] = {
  "natural", "random", "extremes"
};

/* levels of block @b of record @r that the entropy coder reads: up to
 * the last non-zero one, and an intra block's DC always */
static guint
levels_read (const GstClMpegMbRecord * r, guint b)
{
  if (b >= r->n_blocks)
    return 0;
  return (r->flags & GST_CL_MPEG_MB_INTRA) ? MAX (r->last[b], 1) :
      r->last[b];
}

/* Every other line of the luma of @p from the samples 6 to the right:
 * a picture of two fields with motion between them */
static void
weave_moved_field (MpegRefPicture * p)
{
  guint W = p->mb_width * 16, H = p->mb_height * 16, x, y;
  for (y = 1; y < H; y += 2)
    for (x = 0; x + 6 < W; x++)
      p->data[y * W + x] = p->data[y * W + x + 6];
}

/* frame_of_two_motions: the frame's motion in samples */
#define TWO_MOTIONS_DX 2
#define TWO_MOTIONS_DY 2

/* @cur from @ref moved by (TWO_MOTIONS_DX, TWO_MOTIONS_DY) samples, noise
 * of up to +-1 added, and the lines of its second field moved on, by 6
 * samples in its top half (as weave_moved_field: field prediction wins
 * clearly there), by 1 below, where the frame vector predicts almost as
 * well as the fields' own and the choice between them rests on how
 * their residuals and bits are weighed. */
static void
frame_of_two_motions (MpegRefPicture * cur, const MpegRefPicture * ref,
    guint32 * rng)
{
  guint W = cur->mb_width * 16, H = cur->mb_height * 16, x, y;
  gsize ps = mpegref_picture_size (cur);

  memcpy (cur->data, ref->data, ps);
  for (y = 0; y < H; y++)
    for (x = 0; x < W; x++) {
      guint sx = MIN (x + TWO_MOTIONS_DX, W - 1);
      guint sy = MIN (y + TWO_MOTIONS_DY, H - 1);
      gint v = ref->data[sy * W + sx] + (gint) (test_rng_next (rng) % 3) - 1;
      cur->data[y * W + x] = CLAMP (v, 0, 255);
    }
  for (y = 1; y < H; y += 2) {
    guint shift = y < H / 2 ? 6 : 1;
    for (x = 0; x + shift < W; x++)
      cur->data[y * W + x] = cur->data[y * W + x + shift];
  }
}

/* Compares the device's stages with the reference's on one picture;
 * returns how many macroblocks took a quantiser above @q (levels beyond
 * +-255 at it), without adaptive quantisation. @field_dct: an interlaced
 * frame (MPEG-2), natural content woven from two moments; a P picture
 * then has the field search's prediction compete, the search compared
 * first; *@field_mbs counts the macroblocks coded in field blocks,
 * *@field_motion_mbs those predicted field by field. */
static guint
compare_device (guint w, guint h, gboolean p_picture, guint q,
    gboolean adaptive, StageContent content, gboolean dc_only,
    guint rd_lambda, guint mv_lambda, gboolean mpeg2, gboolean field_dct,
    gboolean chroma_422, guint32 seed, guint * field_mbs,
    guint * field_motion_mbs)
{
  GstClContext *ctx = test_get_shared_context ();
  GError *error = NULL;
  GstClMpegTransform *tr = gst_cl_mpeg_transform_new_format (ctx, w, h,
      FALSE, chroma_422, &error);
  MpegRefPicture cur, ref, rec;
  guint n, i;
  gsize ps;
  guint32 rng = seed;
  GstClMotionVector *vec;
  /* MPEG-2: each intra DC precision in turn */
  /* interlaced P pictures: the field prediction of mpeg_field_search
   * competes */
  /* MPEG-2: the alternate scan in interlaced frames and on every other
   * seed; the intra blocks priced with table B.15 on every other pair;
   * the non-linear quantiser scale above 31 and on every third seed */
  GstClMpegEncodeParams p = { p_picture, q, adaptive, 0, 384, dc_only,
    rd_lambda, mv_lambda, mpeg2, mpeg2 ? seed % 4 : 0, field_dct,
    field_dct && p_picture, mpeg2 && (field_dct || seed % 2),
    mpeg2 && seed / 2 % 2, mpeg2 && (q > 31 || seed % 3 == 2)
  };
  MpegRefPicture fpred;
  GstClMpegFieldChoice *fields = NULL;
  cl_mem mfp = NULL, mfc = NULL;
  GstClMpegMbRecord *r, *dr;
  gint16 *lev, *dl;
  guint8 *out;
  guint raised = 0;
  cl_mem mc, mr, mo, mv, mrec, ml;
  gchar *desc = g_strdup_printf ("MPEG-%d (DC +%u bits%s%s%s%s%s) %ux%u %c "
      "q %u adaptive %d %s%s trellis lambda %u vector lambda %u seed %u",
      mpeg2 ? 2 : 1, p.dc_shift, chroma_422 ? ", 4:2:2" : "",
      field_dct ? ", interlaced" : "",
      p.alternate_scan ? ", alternate scan" : "",
      p.intra_vlc ? ", table B.15" : "",
      p.non_linear ? ", non-linear" : "", w, h,
      p_picture ? 'P' : 'I', q, adaptive, stage_content_names[content],
      dc_only ? " DC only" : "", rd_lambda, mv_lambda, seed);

  fail_unless (tr != NULL, "%s", error ? error->message : "?");
  mpegref_picture_init_format (&cur, w, h, chroma_422);
  mpegref_picture_init_format (&ref, w, h, chroma_422);
  mpegref_picture_init_format (&rec, w, h, chroma_422);
  n = cur.mb_width * cur.mb_height;
  ps = mpegref_picture_size (&cur);
  fail_unless_equals_int (ps, gst_cl_mpeg_transform_picture_size (tr));
  if (content == STAGE_CONTENT_RANDOM) {
    test_fill_random (cur.data, ps, &rng);
    test_fill_random (ref.data, ps, &rng);
  } else if (content == STAGE_CONTENT_EXTREMES) {
    fill_extremes (&cur, &rng);
    fill_extremes (&ref, &rng);
  } else {
    fill_natural (&ref, 2, 3, 2, seed);
    if (field_dct && p_picture)
      frame_of_two_motions (&cur, &ref, &rng);
    else
      fill_natural (&cur, 3, 3, 2, seed);
    if (field_dct && !p_picture)
      weave_moved_field (&cur);
  }
  /* vectors of every kind: half-pel, far outside (clamped), zero */
  vec = g_new0 (GstClMotionVector, n);
  for (i = 0; i < n; i++) {
    guint k = test_rng_next (&rng) % 8;
    vec[i].dx = k == 0 ? 0 : k == 1 ? -200 : (gint) (test_rng_next (&rng) %
        41) - 20;
    vec[i].dy = k == 0 ? 0 : k == 2 ? 150 : (gint) (test_rng_next (&rng)
        % 41) - 20;
    /* (frame_of_two_motions: the frame's own vector, on every other) */
    if (field_dct && p_picture && content == STAGE_CONTENT_NATURAL && i % 2) {
      vec[i].dx = 2 * TWO_MOTIONS_DX;
      vec[i].dy = 2 * TWO_MOTIONS_DY;
    }
  }
  /* the mean activity of a natural picture is around 1000 */
  p.avg_activity = 700 + seed % 600;
  r = g_new0 (GstClMpegMbRecord, n);
  dr = g_new0 (GstClMpegMbRecord, n);
  lev = g_new0 (gint16, n * GST_CL_MPEG_MB_LEVELS);
  dl = g_new0 (gint16, n * GST_CL_MPEG_MB_LEVELS);
  out = g_malloc (ps);
  mpegref_picture_init_format (&fpred, w, h, chroma_422);
  mc = gst_cl_mpeg_transform_alloc (tr, ps, &error);
  mr = gst_cl_mpeg_transform_alloc (tr, ps, &error);
  mv = gst_cl_mpeg_transform_alloc (tr, n * sizeof (GstClMotionVector),
      &error);
  fail_unless (mc && mr && mv);
  fail_unless_equals_int (clEnqueueWriteBuffer (ctx->queue, mc, CL_TRUE, 0,
          ps, cur.data, 0, NULL, NULL), CL_SUCCESS);
  fail_unless_equals_int (clEnqueueWriteBuffer (ctx->queue, mr, CL_TRUE, 0,
          ps, ref.data, 0, NULL, NULL), CL_SUCCESS);
  fail_unless_equals_int (clEnqueueWriteBuffer (ctx->queue, mv, CL_TRUE, 0,
          n * sizeof (GstClMotionVector), vec, 0, NULL, NULL), CL_SUCCESS);
  if (p.field_motion) {
    /* the device's field search first, against the reference's */
    GstClMpegFieldChoice *dev_fields = g_new0 (GstClMpegFieldChoice, n);
    guint8 *dev_pred = g_malloc (ps);
    /* the candidates unscaled, or scaled to fields of either order one to
     * three frames apart; dual prime competes a frame apart */
    GstClMpegFieldTiming timing = { 2 * (1 + seed % 3), seed % 2 ? 1 : -1,
      TRUE
    };
    const GstClMpegFieldTiming *t = seed % 4 == 3 ? NULL : &timing;
    /* vectors free, priced as the encoder does, and at twice that (each
     * with each span) */
    guint flambda = 4 * p.qscale * (seed / 3 % 3);
    /* the grid of each effort, and the widest */
    const guint reaches[3] = { GST_CL_MPEG_FIELD_REACH,
      GST_CL_MPEG_FIELD_REACH_HIGH, GST_CL_MPEG_FIELD_REACH_MAX
    };
    const guint reach = reaches[seed / 4 % 3];
    /* the second grid: as wide, or medium effort's narrower one */
    const guint seed_reach = seed / 12 % 2 ? reach :
        GST_CL_MPEG_FIELD_SEED_REACH;
    /* the top fields' vectors of a block over two macroblock rows (some
     * the frame vector's, as a field vector), on two seeds in three */
    GstClMotionVector *fvec = NULL;
    cl_mem mfv = NULL;
    if (seed % 3 != 1) {
      guint blocks = cur.mb_width * ((cur.mb_height + 1) / 2);
      fvec = g_new0 (GstClMotionVector, blocks);
      for (i = 0; i < blocks; i++) {
        guint mb = MIN (i / cur.mb_width * 2, cur.mb_height - 1) *
            cur.mb_width + i % cur.mb_width;
        guint k = test_rng_next (&rng) % 4;
        fvec[i].dx = k == 0 ? vec[mb].dx : (gint) (test_rng_next (&rng) %
            61) - 30;
        fvec[i].dy = k == 0 ? vec[mb].dy / 2 : (gint) (test_rng_next (&rng) %
            31) - 15;
      }
      mfv = gst_cl_mpeg_transform_alloc (tr, blocks *
          sizeof (GstClMotionVector), &error);
      fail_unless (mfv != NULL);
      fail_unless_equals_int (clEnqueueWriteBuffer (ctx->queue, mfv, CL_TRUE,
              0, blocks * sizeof (GstClMotionVector), fvec, 0, NULL, NULL),
          CL_SUCCESS);
    }
    fields = g_new0 (GstClMpegFieldChoice, n);
    mpegref_field_search (&cur, &ref, vec, fvec, 64, reach, seed_reach, t,
        flambda, &fpred, fields);
    mfp = gst_cl_mpeg_transform_alloc (tr, ps, &error);
    mfc = gst_cl_mpeg_transform_alloc (tr,
        gst_cl_mpeg_transform_field_choices_size (tr), &error);
    fail_unless (mfp && mfc);
    fail_unless (gst_cl_mpeg_transform_field_search (tr, mc, mr, mv, mfv,
            64, reach, seed_reach, t, flambda, mfp, mfc, &error), "%s",
        error ? error->message : "?");
    fail_unless_equals_int (clEnqueueReadBuffer (ctx->queue, mfc, CL_TRUE, 0,
            n * sizeof (GstClMpegFieldChoice), dev_fields, 0, NULL, NULL),
        CL_SUCCESS);
    fail_unless_equals_int (clEnqueueReadBuffer (ctx->queue, mfp, CL_TRUE, 0,
            ps, dev_pred, 0, NULL, NULL), CL_SUCCESS);
    for (i = 0; i < n; i++)
      fail_unless_each (memcmp (&fields[i], &dev_fields[i],
              sizeof (GstClMpegFieldChoice)) == 0, "%s: field search (reach "
          "%u, lambda %u, around the top fields' vectors reach %u (0: "
          "none)) of macroblock %u: reference (%d, %d) field %u, (%d, %d) "
          "field %u, SAD %u; device (%d, %d) field %u, (%d, %d) field %u, "
          "SAD %u", desc, reach, flambda, fvec ? seed_reach : 0, i,
          fields[i].dx[0],
          fields[i].dy[0], fields[i].select[0], fields[i].dx[1],
          fields[i].dy[1], fields[i].select[1],
          fields[i].sad, dev_fields[i].dx[0], dev_fields[i].dy[0],
          dev_fields[i].select[0], dev_fields[i].dx[1], dev_fields[i].dy[1],
          dev_fields[i].select[1], dev_fields[i].sad);
    fail_unless (memcmp (fpred.data, dev_pred, ps) == 0,
        "%s: field prediction differs", desc);
    g_free (dev_fields);
    g_free (dev_pred);
    g_free (fvec);
    if (mfv)
      clReleaseMemObject (mfv);
  }
  mpegref_encode_fields (&cur, &ref, vec, &fpred, fields, &p, r, lev, &rec);

  mo = gst_cl_mpeg_transform_alloc (tr, ps, &error);
  mrec = gst_cl_mpeg_transform_alloc (tr, n * sizeof (GstClMpegMbRecord),
      &error);
  ml = gst_cl_mpeg_transform_alloc (tr, gst_cl_mpeg_transform_levels_size
      (tr), &error);
  fail_unless (mo && mrec && ml);
  {
    /* levels the device does not write must not be read: they keep
     * this */
    const cl_short poison = 0x5a5a;
    fail_unless_equals_int (clEnqueueFillBuffer (ctx->queue, ml, &poison,
            sizeof (poison), 0, gst_cl_mpeg_transform_levels_size (tr), 0,
            NULL, NULL), CL_SUCCESS);
  }
  fail_unless (gst_cl_mpeg_transform_encode (tr, mc, mr, mv, mfp, mfc, &p,
          mrec, ml, mo, &error), "%s", error ? error->message : "?");
  fail_unless_equals_int (clEnqueueReadBuffer (ctx->queue, mrec, CL_TRUE, 0,
          n * sizeof (GstClMpegMbRecord), dr, 0, NULL, NULL), CL_SUCCESS);
  fail_unless_equals_int (clEnqueueReadBuffer (ctx->queue, ml, CL_TRUE, 0,
          gst_cl_mpeg_transform_levels_size (tr), dl, 0, NULL, NULL),
      CL_SUCCESS);
  fail_unless_equals_int (clEnqueueReadBuffer (ctx->queue, mo, CL_TRUE, 0,
          ps, out, 0, NULL, NULL), CL_SUCCESS);

  for (i = 0; i < n; i++)
    fail_unless_each (memcmp (&r[i], &dr[i], sizeof (GstClMpegMbRecord)) == 0,
        "%s: record of macroblock %u: reference dx %d dy %d flags %u cbp %u "
        "q %u activity %u cost %u, device dx %d dy %d flags %u cbp %u q %u "
        "activity %u cost %u", desc, i, r[i].dx, r[i].dy, r[i].flags,
        r[i].cbp, r[i].quant, r[i].activity, r[i].cost, dr[i].dx, dr[i].dy,
        dr[i].flags, dr[i].cbp, dr[i].quant, dr[i].activity, dr[i].cost);
  /* (the records are equal: past what the entropy coder reads of a
   * block the device may leave its levels unwritten) */
  for (i = 0; i < n * GST_CL_MPEG_MB_LEVELS; i++)
    fail_unless_each (i % 64 >= levels_read (&r[i / GST_CL_MPEG_MB_LEVELS],
            i % GST_CL_MPEG_MB_LEVELS / 64) ||
        lev[i] == dl[i],
        "%s: level %u of macroblock %u: %d, device %d", desc,
        i % GST_CL_MPEG_MB_LEVELS,
        i / GST_CL_MPEG_MB_LEVELS, lev[i], dl[i]);
  for (i = 0; i < ps; i++)
    fail_unless_each (rec.data[i] == out[i], "%s: reconstruction byte %u: %u, "
        "device %u", desc, i, rec.data[i], out[i]);
  for (i = 0; i < n; i++) {
    raised += !adaptive && r[i].quant > q;
    *field_mbs += (r[i].flags & GST_CL_MPEG_MB_FIELD_DCT) ? 1 : 0;
    *field_motion_mbs += (r[i].flags & GST_CL_MPEG_MB_FIELD_MOTION) ? 1 : 0;
  }
  if (p_picture) {
    /* the case mix did happen */
    guint intra = 0, skip = 0, coded = 0;
    for (i = 0; i < n; i++) {
      intra += r[i].flags & GST_CL_MPEG_MB_INTRA ? 1 : 0;
      skip += r[i].flags & GST_CL_MPEG_MB_SKIPPABLE ? 1 : 0;
      coded += r[i].cbp ? 1 : 0;
    }
    GST_INFO ("%s: %u intra, %u skippable, %u coded of %u", desc, intra,
        skip, coded, n);
  }

  clReleaseMemObject (mc);
  clReleaseMemObject (mr);
  clReleaseMemObject (mo);
  clReleaseMemObject (mv);
  clReleaseMemObject (mrec);
  clReleaseMemObject (ml);
  if (mfp)
    clReleaseMemObject (mfp);
  if (mfc)
    clReleaseMemObject (mfc);
  g_free (fields);
  mpegref_picture_clear (&fpred);
  g_free (vec);
  g_free (r);
  g_free (dr);
  g_free (lev);
  g_free (dl);
  g_free (out);
  mpegref_picture_clear (&cur);
  mpegref_picture_clear (&ref);
  mpegref_picture_clear (&rec);
  gst_cl_mpeg_transform_free (tr);
  g_free (desc);
  return raised;
}

/* Vector fields for mpeg_fit_vectors: what each holds */
typedef enum {
  FIELD_ZERO,                   /* still picture */
  FIELD_NOISE_STRAYS,           /* small jitter, a few stray far vectors */
  FIELD_PAN,                    /* a fast pan with jitter */
  FIELD_ANY,                    /* anything the search can give */
  N_FIELDS
} VectorField;

static void
fill_vector_field (GstClMotionVector * vec, guint n, VectorField field,
    guint32 * rng)
{
  guint i;

  for (i = 0; i < n; i++) {
    gint jx = (gint) (test_rng_next (rng) % 7) - 3;
    gint jy = (gint) (test_rng_next (rng) % 7) - 3;
    switch (field) {
      case FIELD_ZERO:
        vec[i].dx = vec[i].dy = 0;
        break;
      case FIELD_NOISE_STRAYS:
        /* (jitter of 3 half-pels and more codes cheaper with f_code 2) */
        vec[i].dx = test_rng_next (rng) % 97 ? jx / 2 : 900;
        vec[i].dy = test_rng_next (rng) % 89 ? jy / 2 : -1022;
        break;
      case FIELD_PAN:
        /* 50 and 30 pixels a picture */
        vec[i].dx = 100 + jx;
        vec[i].dy = -60 + jy;
        break;
      default:
        vec[i].dx = (gint) (test_rng_next (rng) % 2048) - 1024;
        vec[i].dy = (gint) (test_rng_next (rng) % 2048) - 1024;
        break;
    }
    vec[i].sad = test_rng_next (rng) % 5000;
  }
}

/* Reads @n vectors of @mem into @out */
static void
read_vectors (GstClContext * ctx, cl_mem mem, GstClMotionVector * out,
    guint n)
{
  fail_unless_equals_int (clEnqueueReadBuffer (ctx->queue, mem, CL_TRUE, 0,
          n * sizeof (GstClMotionVector), out, 0, NULL, NULL), CL_SUCCESS);
}

static void
write_vectors (GstClContext * ctx, cl_mem mem, const GstClMotionVector * in,
    guint n)
{
  fail_unless_equals_int (clEnqueueWriteBuffer (ctx->queue, mem, CL_TRUE, 0,
          n * sizeof (GstClMotionVector), in, 0, NULL, NULL), CL_SUCCESS);
}

/* mpeg_fit_vectors chooses the f_code and clamps the vectors as the C
 * reference does, to the bit; the choice is the one the vectors call for:
 * the smallest range for jitter with stray far vectors (which it clamps),
 * the range of a fast pan for the pan. */
GST_START_TEST (test_fit_vectors)
{
  static const guint sizes[][2] = { {1920, 1080}, {176, 144}, {48, 32},
  {16, 16}, {4000, 720}
  };
  GstClContext *ctx = test_get_shared_context ();
  guint s, field, i;
  guint32 rng = 7;

  for (s = 0; s < G_N_ELEMENTS (sizes); s++) {
    GError *error = NULL;
    GstClMpegTransform *tr = gst_cl_mpeg_transform_new (ctx, sizes[s][0],
        sizes[s][1], FALSE, &error);
    guint n = ((sizes[s][0] + 15) / 16) * ((sizes[s][1] + 15) / 16);
    GstClMotionVector *vec = g_new (GstClMotionVector, n);
    GstClMotionVector *dev = g_new (GstClMotionVector, n);
    cl_mem mv;

    fail_unless (tr != NULL, "%s", error ? error->message : "?");
    mv = gst_cl_mpeg_transform_alloc (tr, n * sizeof (GstClMotionVector),
        &error);
    fail_unless (mv != NULL);
    /* MPEG-1's whole range, and an MPEG-2 level's limit below it */
    for (field = 0; field < 2 * N_FIELDS; field++) {
      guint f_code, reach, max_f_code = field < N_FIELDS ? 7 : 3;
      VectorField kind = field % N_FIELDS;

      fill_vector_field (vec, n, kind, &rng);
      write_vectors (ctx, mv, vec, n);
      fail_unless (gst_cl_mpeg_transform_fit_vectors (tr, mv, max_f_code,
              &error), "%s", error ? error->message : "?");
      read_vectors (ctx, mv, dev, n);
      f_code = mpegref_fit_vectors (vec, (sizes[s][0] + 15) / 16,
          (sizes[s][1] + 15) / 16, max_f_code);
      GST_INFO ("%ux%u field %u, f_code up to %u: %u", sizes[s][0],
          sizes[s][1], kind, max_f_code, f_code);
      fail_unless (f_code <= max_f_code);
      reach = 16 << (f_code - 1);
      for (i = 0; i < n; i++) {
        fail_unless_each (dev[i].dx == vec[i].dx && dev[i].dy == vec[i].dy &&
            dev[i].sad == vec[i].sad, "%ux%u field %u macroblock %u: "
            "device (%d, %d) reference (%d, %d)", sizes[s][0], sizes[s][1],
            kind, i, dev[i].dx, dev[i].dy, vec[i].dx, vec[i].dy);
        fail_unless_each (vec[i].dx >= -(gint) reach && vec[i].dx < (gint) reach
            && vec[i].dy >= -(gint) reach && vec[i].dy < (gint) reach);
      }
      if (kind == FIELD_ZERO || kind == FIELD_NOISE_STRAYS)
        fail_unless_equals_int (f_code, 1);
      /* the pan is within the picture where the picture is wide enough
       * for it: then f_code 4 (64 pixels) is the least that codes it,
       * and the limit where it is lower */
      if (kind == FIELD_PAN && sizes[s][0] >= 176)
        fail_unless_equals_int (f_code, MIN (4, max_f_code));
    }
    clReleaseMemObject (mv);
    g_free (vec);
    g_free (dev);
    gst_cl_mpeg_transform_free (tr);
  }
}

GST_END_TEST;

/* mpeg_follow_vectors against the C reference on every kind of field
 * (both ways, to the bit, sums past the search's reach clamped), and
 * what it is for: a steady pan adds up (1 then 2 frames: 3 frames; from
 * 1 to 3 frames: -2), and each vector is followed from where the
 * macroblock's content moved to (a vector of one macroblock to the
 * right reads its right neighbour's, the last column its own). */
GST_START_TEST (test_follow_vectors)
{
  static const guint sizes[][2] = { {1920, 1080}, {176, 144}, {48, 32},
  {16, 16}, {33, 17}
  };
  GstClContext *ctx = test_get_shared_context ();
  guint s, field, i;
  guint32 rng = 11;

  for (s = 0; s < G_N_ELEMENTS (sizes); s++) {
    GError *error = NULL;
    GstClMpegTransform *tr = gst_cl_mpeg_transform_new (ctx, sizes[s][0],
        sizes[s][1], FALSE, &error);
    guint mbw = (sizes[s][0] + 15) / 16, mbh = (sizes[s][1] + 15) / 16;
    guint n = mbw * mbh;
    GstClMotionVector *a = g_new (GstClMotionVector, n);
    GstClMotionVector *b = g_new (GstClMotionVector, n);
    GstClMotionVector *ref = g_new (GstClMotionVector, n);
    GstClMotionVector *dev = g_new (GstClMotionVector, n);
    cl_mem mem[3];
    gint sign;

    fail_unless (tr != NULL, "%s", error ? error->message : "?");
    for (i = 0; i < 3; i++) {
      mem[i] = gst_cl_mpeg_transform_alloc (tr,
          n * sizeof (GstClMotionVector), &error);
      fail_unless (mem[i] != NULL);
    }
    for (field = 0; field < N_FIELDS * N_FIELDS; field++)
      for (sign = -1; sign <= 1; sign += 2) {
        fill_vector_field (a, n, field % N_FIELDS, &rng);
        fill_vector_field (b, n, field / N_FIELDS, &rng);
        write_vectors (ctx, mem[0], a, n);
        write_vectors (ctx, mem[1], b, n);
        fail_unless (gst_cl_mpeg_transform_follow_vectors (tr, mem[0],
                mem[1], sign, mem[2], &error), "%s",
            error ? error->message : "?");
        read_vectors (ctx, mem[2], dev, n);
        mpegref_follow_vectors (a, b, ref, mbw, mbh, sign);
        for (i = 0; i < n; i++)
          fail_unless_each (dev[i].dx == ref[i].dx && dev[i].dy == ref[i].dy
              && dev[i].sad == 0, "%ux%u fields %u, %u, sign %d, macroblock "
              "%u: device (%d, %d) reference (%d, %d)", sizes[s][0],
              sizes[s][1], field % N_FIELDS, field / N_FIELDS, sign, i,
              dev[i].dx, dev[i].dy, ref[i].dx, ref[i].dy);
      }
    /* a steady pan of (5, -3) samples a frame: @b over 2 frames (sign
     * 1), over 3 (sign -1) */
    for (sign = -1; sign <= 1; sign += 2) {
      for (i = 0; i < n; i++) {
        a[i].dx = 10;
        a[i].dy = -6;
        b[i].dx = sign > 0 ? 20 : 30;
        b[i].dy = sign > 0 ? -12 : -18;
      }
      write_vectors (ctx, mem[0], a, n);
      write_vectors (ctx, mem[1], b, n);
      fail_unless (gst_cl_mpeg_transform_follow_vectors (tr, mem[0], mem[1],
              sign, mem[2], &error));
      read_vectors (ctx, mem[2], dev, n);
      for (i = 0; i < n; i++)
        fail_unless_each (dev[i].dx == (sign > 0 ? 30 : -20) &&
            dev[i].dy == (sign > 0 ? -18 : 12), "pan, sign %d: (%d, %d)",
            sign, dev[i].dx, dev[i].dy);
    }
    /* content that moved one macroblock right: its neighbour's vector */
    for (i = 0; i < n; i++) {
      a[i].dx = 32;
      a[i].dy = 0;
      b[i].dx = (gint) (i % mbw);
      b[i].dy = (gint) (i / mbw);
    }
    write_vectors (ctx, mem[0], a, n);
    write_vectors (ctx, mem[1], b, n);
    fail_unless (gst_cl_mpeg_transform_follow_vectors (tr, mem[0], mem[1], 1,
            mem[2], &error));
    read_vectors (ctx, mem[2], dev, n);
    for (i = 0; i < n; i++)
      fail_unless_each (dev[i].dx == 32 + (gint) MIN (i % mbw + 1, mbw - 1)
          && dev[i].dy == (gint) (i / mbw), "macroblock %u: (%d, %d)", i,
          dev[i].dx, dev[i].dy);
    for (i = 0; i < 3; i++)
      clReleaseMemObject (mem[i]);
    g_free (a);
    g_free (b);
    g_free (ref);
    g_free (dev);
    gst_cl_mpeg_transform_free (tr);
  }
}

GST_END_TEST;

GST_START_TEST (test_device_stages)
{
  static const guint sizes[][2] = { {17, 9}, {64, 48}, {176, 144} };
  static const guint quants[] = { 1, 4, 13, 31 };
  /* seeds of compare_device's field search a frame apart (span 2),
   * vectors free, priced and at twice the price */
  static const guint dual_prime_seeds[] = { 6, 9, 12, 21, 24, 33, 42, 45 };
  guint s, q, n = 0, raised = 0, mpeg2, field_mbs = 0, field_n = 0;
  guint field_motion_mbs = 0, second = mpegref_second_vectors_taken;
  guint above = mpegref_above_vectors_taken;
  guint passed = mpegref_second_vectors_passed;
  guint dual = mpegref_dual_prime_taken;
  guint declined = mpegref_dual_prime_declined;

  /* MPEG-1 and MPEG-2 reconstruct differently (mismatch control) */
  for (mpeg2 = 0; mpeg2 < 2; mpeg2++)
    for (s = 0; s < G_N_ELEMENTS (sizes); s++)
      for (q = 0; q < G_N_ELEMENTS (quants); q++) {
        /* rate-distortion decisions on every other size and quantiser,
         * the vector choice alone on some more */
        guint rd_lambda = (s + q) % 2 ? 8 + 4 * s : 0;
        guint mv_lambda = rd_lambda ? 2 + s : q == 2 ? 3 : 0;
        /* MPEG-2: interlaced frames at two quantisers, with and without
         * rate-distortion decisions */
        gboolean field_dct = mpeg2 && q < 2;
        raised += compare_device (sizes[s][0], sizes[s][1], FALSE,
            quants[q], q == 2, n % N_STAGE_CONTENTS, q == 3, rd_lambda,
            mv_lambda, mpeg2, field_dct, FALSE, n, &field_mbs,
            &field_motion_mbs);
        n++;
        raised += compare_device (sizes[s][0], sizes[s][1], TRUE,
            quants[q], q == 1, n % N_STAGE_CONTENTS, FALSE, rd_lambda,
            mv_lambda, mpeg2, field_dct, FALSE, n, &field_mbs,
            &field_motion_mbs);
        n++;
        field_n += field_dct ? 2 * ((sizes[s][0] + 15) / 16) *
            ((sizes[s][1] + 15) / 16) : 0;
      }
  /* interlaced P pictures of natural content with rate-distortion
   * decisions, where field and frame prediction compete closely
   * (frame_of_two_motions) */
  for (s = 0; s < G_N_ELEMENTS (sizes); s++)
    for (q = 1; q < 3; q++) {
      raised += compare_device (sizes[s][0], sizes[s][1], TRUE, quants[q],
          FALSE, STAGE_CONTENT_NATURAL, FALSE, 8 + 4 * s, 2 + s, TRUE, TRUE,
          FALSE, n++, &field_mbs, &field_motion_mbs);
      field_n += ((sizes[s][0] + 15) / 16) * ((sizes[s][1] + 15) / 16);
    }
  /* ... and a frame from their reference, where dual prime competes with
   * the fields' own vectors (seeds of span 2, vectors of each price) */
  for (s = 1; s < G_N_ELEMENTS (sizes); s++)
    for (q = 0; q < G_N_ELEMENTS (dual_prime_seeds); q++) {
      raised += compare_device (sizes[s][0], sizes[s][1], TRUE,
          quants[q % G_N_ELEMENTS (quants)], FALSE, STAGE_CONTENT_NATURAL,
          FALSE, 8 + 4 * s, 2 + s, TRUE, TRUE, FALSE, dual_prime_seeds[q],
          &field_mbs, &field_motion_mbs);
      field_n += ((sizes[s][0] + 15) / 16) * ((sizes[s][1] + 15) / 16);
    }
  /* progressive P pictures of natural content with rate-distortion
   * decisions: second moving candidates coded or passed over by their
   * SATD (second_rivals) */
  for (s = 1; s < G_N_ELEMENTS (sizes); s++)
    for (q = 0; q < G_N_ELEMENTS (quants); q++)
      raised += compare_device (sizes[s][0], sizes[s][1], TRUE, quants[q],
          q % 2, STAGE_CONTENT_NATURAL, FALSE, 8 + 4 * s, 2 + s, q > 1,
          FALSE, FALSE, n++, &field_mbs, &field_motion_mbs);
  /* the extreme content at quantiser 1 needs levels beyond +-255 */
  fail_unless (raised > 0);
  /* both kinds of blocks were chosen in the interlaced frames */
  fail_unless (field_mbs > 0 && field_mbs < field_n, "%u of %u macroblocks "
      "in field blocks", field_mbs, field_n);
  /* and field prediction in P pictures */
  fail_unless (field_motion_mbs > 0);
  /* and the second moving candidate in progressive ones, the vectors of
   * the neighbours above and the others */
  fail_unless (mpegref_above_vectors_taken > above);
  fail_unless (mpegref_second_vectors_taken - second >
      mpegref_above_vectors_taken - above);
  /* and second candidates passed over by their SATD */
  fail_unless (mpegref_second_vectors_passed > passed);
  /* and dual prime taken and declined by the SATD of the residuals */
  GST_INFO ("dual prime taken in %u macroblocks, declined in %u",
      mpegref_dual_prime_taken - dual, mpegref_dual_prime_declined -
      declined);
  fail_unless (mpegref_dual_prime_taken > dual);
  fail_unless (mpegref_dual_prime_declined > declined);
  GST_INFO ("%u macroblocks took a quantiser above the picture's, %u the "
      "second moving candidate (%u a neighbour's above, %u passed over)",
      raised, mpegref_second_vectors_taken - second,
      mpegref_above_vectors_taken - above, mpegref_second_vectors_passed -
      passed);
}

GST_END_TEST;

/* MPEG-2's non-linear quantiser scale: quantisers above 31 (to 56), and
 * the adaptive quantisers rounded up to the ones it codes, from a fine
 * quantiser and from coarse ones; I and P pictures, frame and field
 * blocks, with and without rate-distortion decisions, against the C
 * reference */
GST_START_TEST (test_device_stages_non_linear)
{
  static const guint quants[] = { 9, 13, 29, 44, 56 };
  guint q, n = 0, field_mbs = 0, field_motion_mbs = 0;

  for (q = 0; q < G_N_ELEMENTS (quants); q++) {
    guint rd_lambda = q % 2 ? 14 : 0;
    compare_device (64, 48, FALSE, quants[q], q != 4, n % N_STAGE_CONTENTS,
        FALSE, rd_lambda, rd_lambda ? 4 : 0, TRUE, q == 3, FALSE, 3 * n + 2,
        &field_mbs, &field_motion_mbs);
    n++;
    compare_device (176, 144, TRUE, quants[q], TRUE, n % N_STAGE_CONTENTS,
        FALSE, rd_lambda, rd_lambda ? 4 : 0, TRUE, q == 1, FALSE, 3 * n + 2,
        &field_mbs, &field_motion_mbs);
    n++;
  }
}

GST_END_TEST;

/* The same in 4:2:2 (MPEG-2): eight blocks a macroblock, chroma lines of
 * the luma's count (in field blocks with the luma's, interlaced), chroma
 * vectors halved horizontally only; every content, frame and field
 * blocks, I and P pictures, with and without rate-distortion decisions */
GST_START_TEST (test_device_stages_422)
{
  static const guint sizes[][2] = { {17, 9}, {64, 48}, {176, 144} };
  static const guint quants[] = { 1, 5, 31 };
  guint s, q, n = 0, field_mbs = 0, field_motion_mbs = 0, field_n = 0;

  for (s = 0; s < G_N_ELEMENTS (sizes); s++)
    for (q = 0; q < G_N_ELEMENTS (quants); q++) {
      guint rd_lambda = (s + q) % 2 ? 8 + 4 * s : 0;
      guint mv_lambda = rd_lambda ? 2 + s : 0;
      gboolean field_dct = (s + q) % 3 != 2;
      compare_device (sizes[s][0], sizes[s][1], FALSE, quants[q], q == 1,
          n % N_STAGE_CONTENTS, q == 2 && s == 1, rd_lambda, mv_lambda, TRUE,
          field_dct, TRUE, n, &field_mbs, &field_motion_mbs);
      n++;
      compare_device (sizes[s][0], sizes[s][1], TRUE, quants[q], FALSE,
          n % N_STAGE_CONTENTS, FALSE, rd_lambda, mv_lambda, TRUE, field_dct,
          TRUE, n, &field_mbs, &field_motion_mbs);
      n++;
      field_n += field_dct ? 2 * ((sizes[s][0] + 15) / 16) *
          ((sizes[s][1] + 15) / 16) : 0;
    }
  fail_unless (field_mbs > 0 && field_mbs < field_n, "%u of %u macroblocks "
      "in field blocks", field_mbs, field_n);
  fail_unless (field_motion_mbs > 0);
}

GST_END_TEST;

/* Writes @size bytes of @data into a new device buffer of @tr */
static cl_mem
device_copy (GstClMpegTransform * tr, gconstpointer data, gsize size)
{
  GstClContext *ctx = test_get_shared_context ();
  GError *error = NULL;
  cl_mem m = gst_cl_mpeg_transform_alloc (tr, size, &error);

  fail_unless (m != NULL, "%s", error ? error->message : "?");
  fail_unless_equals_int (clEnqueueWriteBuffer (ctx->queue, m, CL_TRUE, 0,
          size, (gpointer) data, 0, NULL, NULL), CL_SUCCESS);
  return m;
}

/* Reads @size bytes of @m into a new allocation */
static gpointer
device_read (cl_mem m, gsize size)
{
  GstClContext *ctx = test_get_shared_context ();
  gpointer out = g_malloc (size);

  fail_unless_equals_int (clEnqueueReadBuffer (ctx->queue, m, CL_TRUE, 0,
          size, out, 0, NULL, NULL), CL_SUCCESS);
  return out;
}

/* mpeg_predict_b chooses each macroblock's prediction of a B picture and
 * writes it as the C reference does, to the bit, on natural, random and
 * extreme pictures with vectors of every kind (fitted as the encoder
 * fits them) at several lambdas and biases towards zero vectors; each
 * direction is chosen somewhere. */
static void
check_predict_b (gboolean chroma_422)
{
  static const guint sizes[][2] = { {17, 9}, {64, 48}, {176, 144} };
  static const guint lambdas[] = { 0, 12, 124 };
  GstClContext *ctx = test_get_shared_context ();
  guint s, k, i, chosen[4] = { 0, };
  guint32 rng = 11;

  for (s = 0; s < G_N_ELEMENTS (sizes); s++)
    for (k = 0; k < N_STAGE_CONTENTS * G_N_ELEMENTS (lambdas); k++) {
      guint w = sizes[s][0], h = sizes[s][1], n, v;
      StageContent content = k % N_STAGE_CONTENTS;
      guint lambda16 = lambdas[k / N_STAGE_CONTENTS];
      /* none, and that of quantisers 1 and 31 */
      guint zero_bias = (s + k) % 3 == 0 ? 0 : (s + k) % 3 == 1 ? 4 : 124;
      GError *error = NULL;
      GstClMpegTransform *tr = gst_cl_mpeg_transform_new_format (ctx, w, h,
          FALSE, chroma_422, &error);
      MpegRefPicture pics[4], pred;     /* current, forward, backward */
      GstClMotionVector *vec[2];
      GstClMpegBChoice *ch, *dch;
      guint8 *out;
      cl_mem m[4], mv[2], mp, mch;
      gsize ps;

      fail_unless (tr != NULL, "%s", error ? error->message : "?");
      for (i = 0; i < 3; i++) {
        mpegref_picture_init_format (&pics[i], w, h, chroma_422);
        if (content == STAGE_CONTENT_RANDOM)
          test_fill_random (pics[i].data, mpegref_picture_size (&pics[i]),
              &rng);
        else if (content == STAGE_CONTENT_EXTREMES)
          fill_extremes (&pics[i], &rng);
        else
          fill_natural (&pics[i], 2 + i, 3, 2, s + k);
      }
      mpegref_picture_init_format (&pred, w, h, chroma_422);
      n = pred.mb_width * pred.mb_height;
      ps = mpegref_picture_size (&pred);
      for (v = 0; v < 2; v++) {
        vec[v] = g_new0 (GstClMotionVector, n);
        fill_vector_field (vec[v], n, (s + k + v) % N_FIELDS, &rng);
        mpegref_fit_vectors (vec[v], pred.mb_width, pred.mb_height, 7);
        mv[v] = device_copy (tr, vec[v], n * sizeof (GstClMotionVector));
      }
      for (i = 0; i < 3; i++)
        m[i] = device_copy (tr, pics[i].data, ps);
      mp = gst_cl_mpeg_transform_alloc (tr, ps, &error);
      mch = gst_cl_mpeg_transform_alloc (tr,
          gst_cl_mpeg_transform_choices_size (tr), &error);
      fail_unless (mp && mch);
      ch = g_new0 (GstClMpegBChoice, n);
      mpegref_predict_b (&pics[0], &pics[1], &pics[2], vec[0], vec[1],
          lambda16, zero_bias, &pred, ch);
      fail_unless (gst_cl_mpeg_transform_predict_b (tr, m[0], m[1], m[2],
              mv[0], mv[1], lambda16, zero_bias, mp, mch, &error), "%s",
          error ? error->message : "?");
      dch = device_read (mch, n * sizeof (GstClMpegBChoice));
      out = device_read (mp, ps);
      for (i = 0; i < n; i++) {
        fail_unless_each (memcmp (&ch[i], &dch[i], sizeof (GstClMpegBChoice)) ==
            0, "%ux%u %s lambda %u macroblock %u: reference %u (%d, %d) "
            "(%d, %d), device %u (%d, %d) (%d, %d)", w, h,
            stage_content_names[content], lambda16, i, ch[i].directions,
            ch[i].fdx, ch[i].fdy, ch[i].bdx, ch[i].bdy, dch[i].directions,
            dch[i].fdx, dch[i].fdy, dch[i].bdx, dch[i].bdy);
        chosen[ch[i].directions]++;
      }
      for (i = 0; i < ps; i++)
        fail_unless_each (pred.data[i] == out[i], "%ux%u %s lambda %u: "
            "prediction byte %u: %u, device %u", w, h,
            stage_content_names[content], lambda16, i, pred.data[i], out[i]);
      for (i = 0; i < 3; i++) {
        clReleaseMemObject (m[i]);
        mpegref_picture_clear (&pics[i]);
      }
      for (v = 0; v < 2; v++) {
        clReleaseMemObject (mv[v]);
        g_free (vec[v]);
      }
      clReleaseMemObject (mp);
      clReleaseMemObject (mch);
      mpegref_picture_clear (&pred);
      g_free (ch);
      g_free (dch);
      g_free (out);
      gst_cl_mpeg_transform_free (tr);
    }
  GST_INFO ("chosen: %u forward, %u backward, %u interpolated", chosen[1],
      chosen[2], chosen[3]);
  fail_unless (chosen[1] && chosen[2] && chosen[3]);
}

GST_START_TEST (test_predict_b)
{
  check_predict_b (FALSE);
}

GST_END_TEST;

/* The same in 4:2:2 */
GST_START_TEST (test_predict_b_422)
{
  check_predict_b (TRUE);
}

GST_END_TEST;

/* Field prediction in interlaced B pictures: after mpeg_predict_b, the
 * field searches towards both anchors and mpeg_choose_b_fields give the
 * choices (with GST_CL_MPEG_B_FIELD where a field prediction costs less)
 * and the prediction of the C reference, byte for byte, on woven
 * natural content, noise and extremes, with vectors of every kind; both
 * frame and field predictions are chosen, each field direction too. */
static void
check_predict_b_fields (gboolean chroma_422)
{
  static const guint sizes[][2] = { {64, 64}, {176, 160} };
  static const guint lambdas[] = { 12, 124 };
  GError *error = NULL;
  guint s, k, i, chosen[8] = { 0, };
  guint32 rng = 5;

  for (s = 0; s < G_N_ELEMENTS (sizes); s++)
    for (k = 0; k < N_STAGE_CONTENTS * G_N_ELEMENTS (lambdas); k++) {
      guint w = sizes[s][0], h = sizes[s][1], n, v;
      StageContent content = k % N_STAGE_CONTENTS;
      guint lambda16 = lambdas[k / N_STAGE_CONTENTS], zero_bias = lambda16;
      GstClMpegTransform *tr = gst_cl_mpeg_transform_new_format (
          test_get_shared_context (), w, h, TRUE, chroma_422, &error);
      /* the anchors two frames before and one after, top field first;
       * or the candidates unscaled */
      const GstClMpegFieldTiming fwd = { 4, 1, FALSE }, bwd = { 2, -1, FALSE };
      const GstClMpegFieldTiming *timing[2] = { k % 3 ? &fwd : NULL,
        k % 3 ? &bwd : NULL
      };
      /* each direction's grid of an effort, in turn */
      const guint reach[2] = { k % 2 ? GST_CL_MPEG_FIELD_REACH_HIGH :
        GST_CL_MPEG_FIELD_REACH, k % 2 ? GST_CL_MPEG_FIELD_REACH :
        GST_CL_MPEG_FIELD_REACH_HIGH
      };
      MpegRefPicture pics[3], pred, fpred[2];
      GstClMotionVector *vec[2];
      GstClMpegBChoice *ch, *dch;
      GstClMpegFieldChoice *fields[2];
      cl_mem m[3], mv[2], mp, mch, mfp[2], mf[2];
      guint8 *out;
      gsize ps, fs;

      fail_unless (tr != NULL, "%s", error ? error->message : "?");
      for (i = 0; i < 3; i++) {
        mpegref_picture_init_format (&pics[i], w, 2 * ((h + 31) / 32) * 16,
            chroma_422);
        if (content == STAGE_CONTENT_RANDOM)
          test_fill_random (pics[i].data, mpegref_picture_size (&pics[i]),
              &rng);
        else if (content == STAGE_CONTENT_EXTREMES)
          fill_extremes (&pics[i], &rng);
        else
          fill_natural (&pics[i], 2 + i, 3, 2, s + k);
        weave_moved_field (&pics[i]);
      }
      mpegref_picture_init_format (&pred, w, pics[0].mb_height * 16,
          chroma_422);
      n = pred.mb_width * pred.mb_height;
      fail_unless_equals_int (n, gst_cl_mpeg_transform_mb_width (tr) *
          gst_cl_mpeg_transform_mb_height (tr));
      ps = mpegref_picture_size (&pred);
      fs = gst_cl_mpeg_transform_field_choices_size (tr);
      for (v = 0; v < 2; v++) {
        vec[v] = g_new0 (GstClMotionVector, n);
        fill_vector_field (vec[v], n, (s + k + v) % N_FIELDS, &rng);
        mpegref_fit_vectors (vec[v], pred.mb_width, pred.mb_height, 7);
        mv[v] = device_copy (tr, vec[v], n * sizeof (GstClMotionVector));
        mpegref_picture_init_format (&fpred[v], w, pred.mb_height * 16,
            chroma_422);
        fields[v] = g_new0 (GstClMpegFieldChoice, n);
        mfp[v] = gst_cl_mpeg_transform_alloc (tr, ps, &error);
        mf[v] = gst_cl_mpeg_transform_alloc (tr, fs, &error);
        fail_unless (mfp[v] && mf[v]);
      }
      for (i = 0; i < 3; i++)
        m[i] = device_copy (tr, pics[i].data, ps);
      mp = gst_cl_mpeg_transform_alloc (tr, ps, &error);
      mch = gst_cl_mpeg_transform_alloc (tr,
          gst_cl_mpeg_transform_choices_size (tr), &error);
      fail_unless (mp && mch);
      ch = g_new0 (GstClMpegBChoice, n);

      /* the reference, then the device */
      {
        const MpegRefPicture *fp[2] = { &fpred[0], &fpred[1] };
        const GstClMpegFieldChoice *fc[2] = { fields[0], fields[1] };
        mpegref_predict_b (&pics[0], &pics[1], &pics[2], vec[0], vec[1],
            lambda16, zero_bias, &pred, ch);
        for (v = 0; v < 2; v++)
          mpegref_field_search (&pics[0], &pics[1 + v], vec[v], NULL, 64,
              reach[v], 0, timing[v], lambda16, &fpred[v], fields[v]);
        mpegref_choose_b_fields (&pics[0], vec[0], vec[1], fp, fc, lambda16,
            zero_bias, &pred, ch);
      }
      fail_unless (gst_cl_mpeg_transform_predict_b (tr, m[0], m[1], m[2],
              mv[0], mv[1], lambda16, zero_bias, mp, mch, &error), "%s",
          error ? error->message : "?");
      for (v = 0; v < 2; v++)
        fail_unless (gst_cl_mpeg_transform_field_search (tr, m[0], m[1 + v],
                mv[v], NULL, 64, reach[v], 0, timing[v], lambda16, mfp[v],
                mf[v], &error), "%s",
            error ? error->message : "?");
      fail_unless (gst_cl_mpeg_transform_choose_b_fields (tr, m[0], mv[0],
              mv[1], mfp, mf, lambda16, zero_bias, mp, mch, &error), "%s",
          error ? error->message : "?");
      dch = device_read (mch, n * sizeof (GstClMpegBChoice));
      out = device_read (mp, ps);
      for (i = 0; i < n; i++) {
        fail_unless_each (memcmp (&ch[i], &dch[i], sizeof (GstClMpegBChoice)) ==
            0, "%ux%u %s lambda %u macroblock %u: reference %u (%d, %d) "
            "(%d, %d), device %u (%d, %d) (%d, %d)", w, h,
            stage_content_names[content], lambda16, i, ch[i].directions,
            ch[i].fdx, ch[i].fdy, ch[i].bdx, ch[i].bdy, dch[i].directions,
            dch[i].fdx, dch[i].fdy, dch[i].bdx, dch[i].bdy);
        chosen[ch[i].directions & 7]++;
      }
      for (i = 0; i < ps; i++)
        fail_unless_each (pred.data[i] == out[i], "%ux%u %s lambda %u: "
            "prediction byte %u: %u, device %u", w, h,
            stage_content_names[content], lambda16, i, pred.data[i], out[i]);

      for (i = 0; i < 3; i++) {
        clReleaseMemObject (m[i]);
        mpegref_picture_clear (&pics[i]);
      }
      for (v = 0; v < 2; v++) {
        clReleaseMemObject (mv[v]);
        clReleaseMemObject (mfp[v]);
        clReleaseMemObject (mf[v]);
        mpegref_picture_clear (&fpred[v]);
        g_free (fields[v]);
        g_free (vec[v]);
      }
      clReleaseMemObject (mp);
      clReleaseMemObject (mch);
      mpegref_picture_clear (&pred);
      g_free (ch);
      g_free (dch);
      g_free (out);
      gst_cl_mpeg_transform_free (tr);
    }
  GST_INFO ("frame: %u forward, %u backward, %u interpolated; field: %u "
      "forward, %u backward, %u interpolated", chosen[1], chosen[2],
      chosen[3], chosen[5], chosen[6], chosen[7]);
  fail_unless (chosen[1] + chosen[2] + chosen[3] > 0);
  fail_unless (chosen[5] && chosen[6] && chosen[7]);
}

GST_START_TEST (test_predict_b_fields)
{
  check_predict_b_fields (FALSE);
}

GST_END_TEST;

/* The same in 4:2:2 */
GST_START_TEST (test_predict_b_fields_422)
{
  check_predict_b_fields (TRUE);
}

GST_END_TEST;

/* mpeg_load pads I420 and NV12 frames of odd sizes like mpegref_load. */
GST_START_TEST (test_device_load)
{
  static const guint sizes[][2] = { {1, 1}, {17, 9}, {33, 47} };
  GstClContext *ctx = test_get_shared_context ();
  guint s, nv;

  for (s = 0; s < G_N_ELEMENTS (sizes); s++)
    for (nv = 0; nv < 2; nv++) {
      guint w = sizes[s][0], h = sizes[s][1];
      GstVideoInfo info;
      GstBufferPool *pool;
      GstCaps *caps;
      GstBuffer *buf = NULL;
      GstVideoFrame vf;
      GstClFrame clf;
      GError *error = NULL;
      GstClMpegTransform *tr = gst_cl_mpeg_transform_new (ctx, w, h, FALSE, &error);
      MpegRefPicture pic;
      guint32 rng = s * 2 + nv + 1;
      guint8 *out;
      cl_mem dst;
      guint p;

      gst_video_info_set_format (&info, nv ? GST_VIDEO_FORMAT_NV12 :
          GST_VIDEO_FORMAT_I420, w, h);
      caps = gst_video_info_to_caps (&info);
      pool = gst_cl_buffer_pool_new_for_caps (ctx, caps, 1);
      gst_caps_unref (caps);
      fail_unless (gst_buffer_pool_set_active (pool, TRUE));
      fail_unless_equals_int (gst_buffer_pool_acquire_buffer (pool, &buf,
              NULL), GST_FLOW_OK);
      fail_unless (gst_video_frame_map (&vf, &info, buf, GST_MAP_WRITE));
      for (p = 0; p < GST_VIDEO_FRAME_N_PLANES (&vf); p++)
        test_fill_random (GST_VIDEO_FRAME_PLANE_DATA (&vf, p),
            GST_VIDEO_FRAME_PLANE_STRIDE (&vf, p) *
            GST_VIDEO_FRAME_COMP_HEIGHT (&vf, p), &rng);
      mpegref_picture_init (&pic, w, h);
      if (nv)
        mpegref_load (&pic, GST_VIDEO_FRAME_PLANE_DATA (&vf, 0),
            GST_VIDEO_FRAME_PLANE_STRIDE (&vf, 0),
            GST_VIDEO_FRAME_PLANE_DATA (&vf, 1),
            GST_VIDEO_FRAME_PLANE_STRIDE (&vf, 1),
            (guint8 *) GST_VIDEO_FRAME_PLANE_DATA (&vf, 1) + 1,
            GST_VIDEO_FRAME_PLANE_STRIDE (&vf, 1), 2, w, h);
      else
        mpegref_load (&pic, GST_VIDEO_FRAME_PLANE_DATA (&vf, 0),
            GST_VIDEO_FRAME_PLANE_STRIDE (&vf, 0),
            GST_VIDEO_FRAME_PLANE_DATA (&vf, 1),
            GST_VIDEO_FRAME_PLANE_STRIDE (&vf, 1),
            GST_VIDEO_FRAME_PLANE_DATA (&vf, 2),
            GST_VIDEO_FRAME_PLANE_STRIDE (&vf, 2), 1, w, h);
      gst_video_frame_unmap (&vf);

      fail_unless (gst_cl_frame_init (&clf, &info, buf));
      dst = gst_cl_mpeg_transform_alloc (tr,
          gst_cl_mpeg_transform_picture_size (tr), &error);
      fail_unless (gst_cl_mpeg_transform_load (tr, &clf, dst, &error), "%s",
          error ? error->message : "?");
      out = g_malloc (gst_cl_mpeg_transform_picture_size (tr));
      fail_unless_equals_int (clEnqueueReadBuffer (ctx->queue, dst, CL_TRUE,
              0, gst_cl_mpeg_transform_picture_size (tr), out, 0, NULL, NULL),
          CL_SUCCESS);
      {
        gsize size = gst_cl_mpeg_transform_picture_size (tr), k;
        for (k = 0; k < size && out[k] == pic.data[k]; k++);
        fail_unless (k == size, "padded %ux%u %s differs at byte %"
            G_GSIZE_FORMAT " of %" G_GSIZE_FORMAT ": %u, not %u", w, h,
            nv ? "NV12" : "I420", k, size, k < size ? out[k] : 0,
            k < size ? pic.data[k] : 0);
      }
      g_free (out);
      clReleaseMemObject (dst);
      mpegref_picture_clear (&pic);
      gst_buffer_unref (buf);
      gst_buffer_pool_set_active (pool, FALSE);
      gst_object_unref (pool);
      gst_cl_mpeg_transform_free (tr);
    }
}

GST_END_TEST;

/* ---- IEEE 1180 ---- */

/* the standard's generator of its test blocks */
static glong
ieee_rand (glong * state, glong lo, glong hi)
{
  gdouble x;
  glong i, j;

  /* unsigned: the product wraps as the standard's 32-bit long did, where
   * a signed overflow is undefined (the low 31 bits read below agree) */
  *state = (glong) ((gulong) *state * 1103515245UL + 12345UL);
  i = *state & 0x7ffffffe;
  x = ((gdouble) i) / (gdouble) 0x7fffffff;
  x *= (lo + hi + 1);
  j = (glong) x;
  return j - lo;
}

/* the orthonormal DCT's cosines, [k][n] */
static void
dct_cosines (gdouble cosv[8][8])
{
  guint k, n;
  for (k = 0; k < 8; k++)
    for (n = 0; n < 8; n++)
      cosv[k][n] = (k ? 1.0 : G_SQRT2 / 2) / 2 *
          cos ((2 * n + 1) * k * G_PI / 16);
}

/* The 8x8 DCT of @in in double into @out: forward, or with @inverse
 * the inverse (the transposed cosines) */
static void
dct_double (gdouble cosv[8][8], const gdouble * in, gdouble * out,
    gboolean inverse)
{
  gdouble t[64];
  gint r, c, m;

#define DCT_W(k, n) (inverse ? cosv[n][k] : cosv[k][n])
  for (r = 0; r < 8; r++)
    for (c = 0; c < 8; c++) {
      gdouble s = 0;
      for (m = 0; m < 8; m++)
        s += DCT_W (r, m) * in[m * 8 + c];
      t[r * 8 + c] = s;
    }
  for (r = 0; r < 8; r++)
    for (c = 0; c < 8; c++) {
      gdouble s = 0;
      for (m = 0; m < 8; m++)
        s += DCT_W (c, m) * t[r * 8 + m];
      out[r * 8 + c] = s;
    }
#undef DCT_W
}

GST_START_TEST (test_idct_ieee1180)
{
  static const glong ranges[3][2] = { {256, 255}, {5, 5}, {300, 300} };
  gdouble cosv[8][8];
  guint rr;
  gint sign;

  dct_cosines (cosv);
  for (sign = 1; sign >= -1; sign -= 2)
    for (rr = 0; rr < 3; rr++) {
      glong state = 1;
      gdouble err_sum[64] = { 0 }, sq_sum[64] = { 0 };
      gdouble pmse = 0, omse = 0, pme = 0, ome = 0;
      gint peak = 0, it, i;

      for (it = 0; it < 10000; it++) {
        gdouble f[64], F[64], ref[64];
        gint blk[64];
        for (i = 0; i < 64; i++)
          f[i] = sign * ieee_rand (&state, ranges[rr][0], ranges[rr][1]);
        /* forward DCT in double, rounded and clipped to 12 bits */
        dct_double (cosv, f, F, FALSE);
        for (i = 0; i < 64; i++) {
          F[i] = CLAMP (floor (F[i] + 0.5), -2048, 2047);
          blk[i] = (gint) F[i];
        }
        /* reference inverse in double, rounded, clipped to 9 bits */
        dct_double (cosv, F, ref, TRUE);
        for (i = 0; i < 64; i++)
          ref[i] = CLAMP (floor (ref[i] + 0.5), -256, 255);
        mpegref_idct (blk);
        for (i = 0; i < 64; i++) {
          gint e = CLAMP (blk[i], -256, 255) - (gint) ref[i];
          err_sum[i] += e;
          sq_sum[i] += e * e;
          peak = MAX (peak, ABS (e));
        }
      }
      for (i = 0; i < 64; i++) {
        pmse = MAX (pmse, sq_sum[i] / 10000);
        pme = MAX (pme, fabs (err_sum[i]) / 10000);
        omse += sq_sum[i];
        ome += err_sum[i];
      }
      omse /= 640000;
      ome = fabs (ome) / 640000;
      GST_INFO ("IEEE 1180 range -%ld..%ld sign %d: peak %d, pmse %.4f, "
          "omse %.5f, pme %.4f, ome %.5f", ranges[rr][0], ranges[rr][1],
          sign, peak, pmse, omse, pme, ome);
      fail_unless (peak <= 1, "peak error %d", peak);
      fail_unless (pmse <= 0.06, "per-pixel mean square error %f", pmse);
      fail_unless (omse <= 0.02, "overall mean square error %f", omse);
      fail_unless (pme <= 0.015, "per-pixel mean error %f", pme);
      fail_unless (ome <= 0.0015, "overall mean error %f", ome);
    }
  /* all zero in, all zero out */
  {
    gint z[64] = { 0 }, i;
    mpegref_idct (z);
    for (i = 0; i < 64; i++)
      fail_unless_equals_int (z[i], 0);
  }
}

GST_END_TEST;

/* The encoder's forward DCT (16-bit fixed point, the reference's integers)
 * against the DCT in double: within 1 everywhere, unbiased, no 16-bit
 * overflow (the reference asserts that) for residuals and intra blocks of
 * any content, the extremes included. */
GST_START_TEST (test_fdct_accuracy)
{
  gdouble cosv[8][8], err_sum = 0, sq_sum = 0, peak = 0;
  guint32 rng = 1180;
  gint it, i, count = 0;

  dct_cosines (cosv);
  for (it = 0; it < 4000; it++) {
    gint blk[64];
    gdouble f[64], F[64];
    for (i = 0; i < 64; i++) {
      guint32 r = test_rng_next (&rng);
      switch (it % 6) {
        case 0:                /* any residual */
          blk[i] = (gint) (r % 511) - 255;
          break;
        case 1:                /* small residual */
          blk[i] = (gint) (r % 41) - 20;
          break;
        case 2:                /* intra samples */
          blk[i] = r % 256;
          break;
        case 3:                /* extremes: +-255 anywhere */
          blk[i] = r & 1 ? 255 : -255;
          break;
        case 4:                /* flat extremes and checkerboards */
          blk[i] = (it / 6) % 4 == 0 ? 255 : (it / 6) % 4 == 1 ? -255 :
              (((i >> 3) + i) & 1) ? 255 : -255;
          break;
        default:               /* a smooth ramp */
          blk[i] = ((i & 7) * 32 + (i >> 3) * 3 + (gint) (r % 9)) % 256;
          break;
      }
    }
    for (i = 0; i < 64; i++)
      f[i] = blk[i];
    dct_double (cosv, f, F, FALSE);
    mpegref_fdct (blk);
    for (i = 0; i < 64; i++) {
      gdouble e = blk[i] - F[i];
      err_sum += e;
      sq_sum += e * e;
      peak = MAX (peak, fabs (e));
      count++;
    }
  }
  GST_INFO ("forward DCT: peak error %.3f, mean %.5f, mean square %.4f",
      peak, err_sum / count, sq_sum / count);
  fail_unless (peak < 1.0, "peak error %f", peak);
  fail_unless (fabs (err_sum / count) < 0.01, "mean error %f",
      err_sum / count);
  fail_unless (sq_sum / count < 0.15, "mean square error %f",
      sq_sum / count);
}

GST_END_TEST;

/* The bound the CPU kernel's quantise_pairs skips the transform by: a
 * non-intra block whose residual's SAD is at most 10 q - 11 quantises to
 * no level at quantiser q (a coefficient x takes level 0 where 2 |x| <
 * 5 q), checked on the reference's DCT, which the kernels match, for
 * residuals of every spread whose SAD lies near the bound at some
 * quantiser (MPEG-2's non-linear scale reaches 112). */
GST_START_TEST (test_small_residual_no_levels)
{
  guint32 rng = 2024;
  gint it, i, checked = 0, nearest = G_MAXINT;

  for (it = 0; it < 60000; it++) {
    gint blk[64], sad = 0, top = 0, q, amp = 1 + it % 40;
    gint u = (it / 40) % 8, v = (it / 320) % 8, corners = 1 + (it / 4) % 4;
    for (i = 0; i < 64; i++) {
      guint32 r = test_rng_next (&rng);
      gint x = i & 7, y = i >> 3;
      switch (it % 4) {
        case 0:                /* up to four corners of any size, with the
                                 * signs of the (1, 1) basis function: the
                                 * largest coefficient for their SAD */
          blk[i] = (x == 0 || x == 7) && (y == 0 || y == 7) &&
              (x / 7 + 2 * (y / 7)) < corners ?
              (gint) (1 + (it / 16) % 255) * ((x == 0) == (y == 0) ? 1 :
              -1) : 0;
          break;
        case 1:                /* the signs of one basis function */
          blk[i] = (r % 3 ? amp / 4 + 1 : 0) *
              (cos ((2 * x + 1) * u * G_PI / 16) *
              cos ((2 * y + 1) * v * G_PI / 16) < 0 ? -1 : 1);
          break;
        case 2:                /* flat */
          blk[i] = amp / 8 * (it & 4 ? -1 : 1);
          break;
        default:               /* noise */
          blk[i] = (gint) (r % 3) - 1;
          break;
      }
      sad += ABS (blk[i]);
    }
    mpegref_fdct (blk);
    for (i = 0; i < 64; i++)
      top = MAX (top, ABS (blk[i]));
    for (q = 1; q <= 112; q++) {
      if (sad > 10 * q - 11)
        continue;
      checked++;
      /* how near a level the closest case came */
      nearest = MIN (nearest, 5 * q - 2 * top);
      fail_unless (2 * top < 5 * q, "SAD %d, largest coefficient %d: a "
          "level at quantiser %d", sad, top, q);
    }
  }
  GST_INFO ("%d cases, the nearest %d half-steps from a level", checked,
      nearest);
  fail_unless (checked > 100000);
}

GST_END_TEST;

/* ---- streams ---- */

static gdouble
psnr_y (GByteArray * dec, guint frame, const guint8 * src, guint w, guint h)
{
  gdouble mse[3];
  psnr_i420_mse (dec->data + frame * psnr_i420_size (w, h), src, w, h, mse);
  return psnr_from_mse (mse[0]);
}

/* Decodes cleanly everywhere, PSNR above a floor per quantiser, on
 * natural-looking and on synthetic content. */
GST_START_TEST (test_quality)
{
  /* floors at 176x144, measured with a margin of 2 dB and more */
  static const struct { gboolean synthetic; guint q; gdouble floor; }
  cases[] = {
    {FALSE, 2, 41.0}, {FALSE, 6, 37.0}, {FALSE, 16, 33.0}, {FALSE, 31, 30.0},
    {TRUE, 2, 51.0}, {TRUE, 8, 41.0}, {TRUE, 31, 32.0},
  };
  const guint w = 176, h = 144, n = 15;
  guint c;

  for (c = 0; c < G_N_ELEMENTS (cases); c++) {
    gchar *props = g_strdup_printf ("quantizer=%u gop-size=6", cases[c].q);
    gchar *name = g_strdup_printf ("q%u-%u.m1v", cases[c].q,
        cases[c].synthetic);
    Encoded e;
    GByteArray *dec;
    gchar *path;
    guint frames, i;
    gdouble sum = 0, worst = 1000;
    MpegCheckResult *r;

    use_synthetic = cases[c].synthetic;
    encode_clip (props, w, h, n, TRUE, NULL, &e);
    use_synthetic = FALSE;
    fail_unless_equals_int (e.pts->len, n);
    fail_unless_equals_int (e.n_sync, (n + 5) / 6);
    for (i = 0; i < n; i++)
      fail_unless_equals_uint64 (g_array_index (e.pts, GstClockTime, i),
          i * (GST_SECOND / 25));
    path = write_stream (name, e.stream);
    r = check_stream (e.stream, n, w, h);
    fail_unless_equals_int (r->n_type[1], (n + 5) / 6);
    mpegcheck_result_free (r);
    decode_check (path, n, w, h);
    dec = ffmpeg_decode (path, NULL, &frames, w, h);
    fail_unless_equals_int (frames, n);
    for (i = 0; i < n; i++) {
      guint8 *src = cases[c].synthetic ? synthetic_frame (w, h, i) :
          natural_frame (w, h, i, 2, 1, 7);
      gdouble p = psnr_y (dec, i, src, w, h);
      sum += p;
      worst = MIN (worst, p);
      g_free (src);
    }
    GST_INFO ("%s q %u: %u bytes, PSNR-Y mean %.2f dB, worst %.2f dB",
        cases[c].synthetic ? "synthetic" : "natural", cases[c].q,
        e.stream->len, sum / n, worst);
    fail_unless (worst >= cases[c].floor, "%s q %u: PSNR-Y %.2f dB below "
        "the floor %.1f dB", cases[c].synthetic ? "synthetic" : "natural",
        cases[c].q, worst, cases[c].floor);
    g_byte_array_unref (dec);
    encoded_free (&e);
    g_free (path);
    g_free (props);
    g_free (name);
  }
}

GST_END_TEST;

/* Pictures and buffers for coding a clip with the C reference. */
typedef struct
{
  MpegRefPicture cur, ref, rec;
  guint mbn;                    /* macroblocks */
  GstClMotionVector *vec;
  gint16 *lev;
  GstClMpegMbRecord *recs;
} RefCoder;

static void
ref_coder_init_format (RefCoder * c, guint w, guint h, gboolean chroma_422)
{
  mpegref_picture_init_format (&c->cur, w, h, chroma_422);
  mpegref_picture_init_format (&c->ref, w, h, chroma_422);
  mpegref_picture_init_format (&c->rec, w, h, chroma_422);
  c->mbn = c->cur.mb_width * c->cur.mb_height;
  c->vec = g_new0 (GstClMotionVector, c->mbn);
  c->lev = g_new0 (gint16, c->mbn * GST_CL_MPEG_MB_LEVELS);
  c->recs = g_new0 (GstClMpegMbRecord, c->mbn);
}

static void
ref_coder_init (RefCoder * c, guint w, guint h)
{
  ref_coder_init_format (c, w, h, FALSE);
}

/* Picture @t of the natural clip of natural_frame() as the current one. */
static void
ref_coder_load_natural (RefCoder * c, guint w, guint h, guint t,
    guint32 seed)
{
  guint8 *f = natural_frame_format (w, h, t, 1, 1, seed, c->cur.chroma_422);
  gsize chroma = (gsize) (w / 2) * (c->cur.chroma_422 ? h : h / 2);
  mpegref_load (&c->cur, f, w, f + w * h, w / 2, f + w * h + chroma,
      w / 2, 1, w, h);
  g_free (f);
}

/* ... as an interlaced camera takes it: the top field from the clip at
 * @t, the bottom one from half a frame later (steady motion between the
 * fields) */
static void
ref_coder_load_woven (RefCoder * c, guint w, guint h, guint t, guint32 seed)
{
  gboolean c422 = c->cur.chroma_422;
  guint8 *f = natural_frame_format (w, h, 2 * t, 0.5, 0.5, seed, c422);
  guint8 *later = natural_frame_format (w, h, 2 * t + 1, 0.5, 0.5, seed,
      c422);
  gsize chroma = (gsize) (w / 2) * (c422 ? h : h / 2);
  guint y, plane;

  for (plane = 0; plane < 3; plane++) {
    gsize off = plane ? (gsize) w * h + (plane - 1) * chroma : 0;
    guint stride = plane ? w / 2 : w, rows = plane ? chroma / (w / 2) : h;
    for (y = 1; y < rows; y += 2)
      memcpy (f + off + (gsize) y * stride, later + off + (gsize) y * stride,
          stride);
  }
  mpegref_load (&c->cur, f, w, f + w * h, w / 2, f + w * h + chroma,
      w / 2, 1, w, h);
  g_free (f);
  g_free (later);
}

/* The reconstruction becomes the reference of the next picture. */
static void
ref_coder_next (RefCoder * c)
{
  memcpy (c->ref.data, c->rec.data, mpegref_picture_size (&c->rec));
}

static void
ref_coder_clear (RefCoder * c)
{
  g_free (c->vec);
  g_free (c->lev);
  g_free (c->recs);
  mpegref_picture_clear (&c->cur);
  mpegref_picture_clear (&c->ref);
  mpegref_picture_clear (&c->rec);
}

/* Moves the headers written into @hw to the end of @bw. */
static void
append_headers (GstClMpegBitWriter * bw, GstBitWriter * hw)
{
  guint size = gst_bit_writer_get_size (hw) / 8;
  guint8 *data = gst_bit_writer_reset_and_get_data (hw);

  gst_cl_mpeg_bit_writer_append (bw, data, size);
  g_free (data);
  gst_bit_writer_init (hw);
}

/* The visible part of @pic (@w x @h, even), as I420 (Y42B in 4:2:2), at
 * picture @index of @frames. */
static void
store_i420 (GByteArray * frames, guint index, const MpegRefPicture * pic,
    guint w, guint h)
{
  gsize size = planar_size (w, h, pic->chroma_422), at = index * size;
  guint i, y;

  if (frames->len < at + size)
    g_byte_array_set_size (frames, at + size);
  for (i = 0; i < 3; i++) {
    guint stride, pw = i ? w / 2 : w, ph = i && !pic->chroma_422 ? h / 2 : h;
    guint8 *pl = mpegref_plane (pic, i, &stride);
    for (y = 0; y < ph; y++) {
      memcpy (frames->data + at, pl + y * stride, pw);
      at += pw;
    }
  }
}

/* The reconstruction that the encoder predicts from (the C reference of
 * the device stages, equal to the device's by test_device_stages and
 * test_predict_b) stays equal to FFmpeg's decoding over one 48-picture
 * GOP with half-pel vectors: no drift. With @b_frames, the pictures
 * between anchors are B pictures (the last of the GOP a P picture),
 * coded after the anchor behind them, and each B picture's own
 * reconstruction is the picture FFmpeg shows there. @interlaced (MPEG-2):
 * an interlaced sequence of frames woven from two moments, coded in frame
 * or field blocks per macroblock. */
static void
check_no_drift_format (gboolean mpeg2, guint dc_shift, guint b_frames,
    gboolean interlaced, gboolean chroma_422)
{
  const guint w = 96, h = 64, n = 48;
  RefCoder c;
  MpegRefPicture older, pred;
  GstClMpegBChoice *choices;
  GstClMotionVector *bvec;
  GstClMpegBitWriter bw;
  GstBitWriter hw;
  /* MPEG-2: main profile at main level, its peak rate and buffer */
  GstClMpegSequenceParams sp = { w, h, 1, 3, mpeg2 ? 37500 : 0x3ffff,
    mpeg2 ? 112 : 1023, FALSE, mpeg2, chroma_422 ? 0x85 : 0x48, FALSE, 0, 0,
    0, b_frames > 0, interlaced, FALSE, chroma_422
  };
  GByteArray *recons = g_byte_array_new (), *dec, *stream;
  guint k, t, i, frames, a, m = 0, order[48], types[48];
  gchar *path;
  guint max_diff = 0, counts[4] = { 0, }, directions[4] = { 0, };
  guint field_mbs = 0, field_motion_mbs = 0, b_field_mbs = 0;
  guint dual_prime_mbs = 0;
  guint64 diff_sum = 0;
  MpegRefPicture fpred, bfpred;
  GstClMpegFieldChoice *fields, *bfields;
  /* top field first: the fields of the frames before and after */
  const GstClMpegFieldTiming fwd = { 2, 1, FALSE }, bwd = { 2, -1, FALSE };
  /* (dual prime competes in P pictures right after their reference) */
  const GstClMpegFieldTiming anchor = { 2 * (b_frames + 1), 1, TRUE };
  GstClMpegPictureCoding pc = { 1, 1, mpeg2, dc_shift, 1, interlaced,
    interlaced, FALSE, interlaced, FALSE, chroma_422, FALSE
  };

  /* coding order: the I picture, then each anchor and the B pictures
   * before it */
  order[m] = 0;
  types[m++] = GST_CL_MPEG_PICTURE_I;
  for (a = 0; a + 1 < n;) {
    guint next = MIN (a + b_frames + 1, n - 1);
    order[m] = next;
    types[m++] = GST_CL_MPEG_PICTURE_P;
    for (t = a + 1; t < next; t++) {
      order[m] = t;
      types[m++] = GST_CL_MPEG_PICTURE_B;
    }
    a = next;
  }
  ref_coder_init_format (&c, w, h, chroma_422);
  mpegref_picture_init_format (&older, w, h, chroma_422);
  mpegref_picture_init_format (&pred, w, h, chroma_422);
  choices = g_new0 (GstClMpegBChoice, c.mbn);
  bvec = g_new0 (GstClMotionVector, c.mbn);
  mpegref_picture_init_format (&fpred, w, h, chroma_422);
  mpegref_picture_init_format (&bfpred, w, h, chroma_422);
  fields = g_new0 (GstClMpegFieldChoice, c.mbn);
  bfields = g_new0 (GstClMpegFieldChoice, c.mbn);
  gst_cl_mpeg_bit_writer_init (&bw, 4096);
  gst_bit_writer_init (&hw);
  gst_cl_mpeg_write_sequence_header (&hw, &sp);
  gst_cl_mpeg_write_gop_header (&hw, 0, 3, TRUE);
  for (k = 0; k < n; k++) {
    guint row, q, type;
    GstClMpegEncodeParams p = { 0, };

    t = order[k];
    type = types[k];
    counts[type]++;
    /* rate-distortion decisions on three pictures in four */
    q = 3 + t % 5;
    p.p_picture = type != GST_CL_MPEG_PICTURE_I;
    p.qscale = q;
    p.avg_activity = 1;
    p.intra_bias = 384;
    p.rd_lambda = t % 4 ? 16 : 0;
    p.mv_lambda = t % 4 ? 2 : 0;
    p.mpeg2 = mpeg2;
    p.dc_shift = dc_shift;
    p.field_dct = interlaced;
    p.alternate_scan = interlaced;
    /* MPEG-2: intra blocks in table B.15 in every other picture */
    p.intra_vlc = mpeg2 && t % 2;
    /* the clip pans one pixel right and down: (-2, -2) in half-pels,
     * odd ones on every third picture; backward the other way */
    for (i = 0; i < c.mbn; i++) {
      c.vec[i].dx = t % 3 ? 2 : 1;
      c.vec[i].dy = t % 3 ? 2 : 3;
      bvec[i].dx = -c.vec[i].dx - (gint) (i % 3);
      bvec[i].dy = -c.vec[i].dy;
    }
    /* interlaced: with I and P pictures, fields of a steady pan, where
     * dual prime pays; with B pictures, fields 6 samples apart */
    if (interlaced && !b_frames) {
      ref_coder_load_woven (&c, w, h, t, 3);
    } else {
      ref_coder_load_natural (&c, w, h, t, 3);
      if (interlaced)
        weave_moved_field (&c.cur);
    }
    pc.coding_type = type;
    if (type == GST_CL_MPEG_PICTURE_B) {
      /* forward from the anchor before, backward from the one after */
      mpegref_predict_b (&c.cur, &older, &c.ref, c.vec, bvec, 4 * q, 4 * q,
          &pred, choices);
      /* interlaced, with rate-distortion decisions: field prediction
       * competes with the frame one chosen */
      p.field_motion = interlaced && p.mv_lambda;
      if (p.field_motion) {
        const MpegRefPicture *fp[2] = { &fpred, &bfpred };
        const GstClMpegFieldChoice *fc[2] = { fields, bfields };
        mpegref_field_search (&c.cur, &older, c.vec, NULL, 64,
            GST_CL_MPEG_FIELD_REACH, 0, &fwd, 4 * q, &fpred, fields);
        mpegref_field_search (&c.cur, &c.ref, bvec, NULL, 64,
            GST_CL_MPEG_FIELD_REACH, 0, &bwd, 4 * q, &bfpred, bfields);
        mpegref_choose_b_fields (&c.cur, c.vec, bvec, fp, fc, 4 * q, 4 * q,
            &pred, choices);
      }
      mpegref_encode (&c.cur, &pred, NULL, &p, c.recs, c.lev, &c.rec);
      gst_cl_mpeg_choose_b_f_codes (c.recs, choices, fields, bfields, c.mbn,
          &pc.f_code, &pc.backward_f_code);
      for (i = 0; i < c.mbn; i++)
        if (!(c.recs[i].flags & GST_CL_MPEG_MB_INTRA)) {
          directions[choices[i].directions & 3]++;
          field_motion_mbs +=
              (choices[i].directions & GST_CL_MPEG_B_FIELD) ? 1 : 0;
          b_field_mbs += (choices[i].directions & GST_CL_MPEG_B_FIELD) ? 1 : 0;
        }
    } else {
      /* interlaced P pictures: field prediction competes */
      p.field_motion = interlaced && type == GST_CL_MPEG_PICTURE_P;
      if (p.field_motion)
        mpegref_field_search (&c.cur, &c.ref, c.vec, NULL, 64,
            GST_CL_MPEG_FIELD_REACH, 0, &anchor, 4 * q, &fpred, fields);
      mpegref_encode_fields (&c.cur, &c.ref, c.vec, &fpred, fields, &p,
          c.recs, c.lev, &c.rec);
      pc.f_code = type == GST_CL_MPEG_PICTURE_P ?
          gst_cl_mpeg_choose_f_code (c.recs, fields, c.mbn) : 1;
    }
    pc.intra_vlc_format = p.intra_vlc;
    gst_cl_mpeg_write_picture_header (&hw, t, 0xffff, &pc);
    append_headers (&bw, &hw);
    for (row = 0; row < c.cur.mb_height; row++)
      gst_cl_mpeg_write_slice (&bw, row, c.cur.mb_width, &pc,
          c.recs + row * c.cur.mb_width,
          type == GST_CL_MPEG_PICTURE_B ? choices + row * c.cur.mb_width :
          NULL, p.field_motion ? fields + row * c.cur.mb_width : NULL,
          p.field_motion && type == GST_CL_MPEG_PICTURE_B ?
          bfields + row * c.cur.mb_width : NULL,
          c.lev + (gsize) row * c.cur.mb_width * GST_CL_MPEG_MB_LEVELS, NULL);
    store_i420 (recons, t, &c.rec, w, h);
    for (i = 0; i < c.mbn; i++) {
      field_mbs += (c.recs[i].flags & GST_CL_MPEG_MB_FIELD_DCT) ? 1 : 0;
      field_motion_mbs += (c.recs[i].flags & GST_CL_MPEG_MB_FIELD_MOTION) ?
          1 : 0;
      dual_prime_mbs += type == GST_CL_MPEG_PICTURE_P &&
          (c.recs[i].flags & GST_CL_MPEG_MB_FIELD_MOTION) &&
          fields[i].dual_prime ? 1 : 0;
    }
    if (type != GST_CL_MPEG_PICTURE_B) {
      /* the new anchor: the one before it serves the B pictures */
      memcpy (older.data, c.ref.data, mpegref_picture_size (&c.ref));
      ref_coder_next (&c);
    }
  }
  fail_unless_equals_int (counts[1] + counts[2] + counts[3], n);
  /* field blocks only in interlaced frames, and there on some
   * macroblocks, not all */
  GST_INFO ("%u of %u macroblocks in field blocks, %u predicted field by "
      "field", field_mbs, n * c.mbn, field_motion_mbs);
  fail_unless (interlaced ? field_mbs > 0 && field_mbs < n * c.mbn :
      field_mbs == 0);
  fail_unless (interlaced ? field_motion_mbs > 0 : field_motion_mbs == 0);
  /* ... dual prime among them in P pictures right after their
   * reference */
  GST_INFO ("%u macroblocks predicted by dual prime", dual_prime_mbs);
  fail_unless (interlaced && !b_frames ? dual_prime_mbs > 0 :
      dual_prime_mbs == 0);
  /* ... in B pictures too */
  GST_INFO ("%u B macroblocks predicted field by field", b_field_mbs);
  fail_unless (interlaced && b_frames ? b_field_mbs > 0 : b_field_mbs == 0);
  if (b_frames) {
    /* forward, backward and interpolated macroblocks all happened */
    GST_INFO ("B macroblocks: %u forward, %u backward, %u interpolated",
        directions[1], directions[2], directions[3]);
    fail_unless (counts[3] >= (n - 2) / 2);
    fail_unless (directions[1] && directions[2] && directions[3]);
  }
  gst_cl_mpeg_write_sequence_end (&hw);
  append_headers (&bw, &hw);
  stream = g_byte_array_new ();
  g_byte_array_append (stream, bw.data, bw.size);
  path = write_stream (mpeg2 ? "drift.m2v" : "drift.m1v", stream);
  GST_INFO ("intra_dc_precision %u bits, %u B frames%s%s", 8 + dc_shift,
      b_frames, interlaced ? ", interlaced" : "",
      chroma_422 ? ", 4:2:2" : "");
  dec = ffmpeg_decode_format (path, NULL, &frames, w, h, chroma_422);
  fail_unless_equals_int (frames, n);
  for (i = 0; i < recons->len; i++) {
    guint d = ABS ((gint) recons->data[i] - dec->data[i]);
    max_diff = MAX (max_diff, d);
    diff_sum += d;
  }
  GST_INFO ("MPEG-%d reconstruction vs FFmpeg over %u pictures: max %u, "
      "mean %.5f", mpeg2 ? 2 : 1, n, max_diff,
      (gdouble) diff_sum / recons->len);
  /* Two IEEE 1180 inverse DCTs differ by one in a few samples in a
   * hundred; mismatch control keeps that from growing into visible
   * drift (measured: max 2, mean 0.08 against FFmpeg's default IDCT) */
  fail_unless (max_diff <= 3, "MPEG-%d reconstruction drifts from "
      "FFmpeg's by %u", mpeg2 ? 2 : 1, max_diff);
  fail_unless ((gdouble) diff_sum / recons->len < 0.12,
      "MPEG-%d reconstruction differs from FFmpeg's by %.4f on average",
      mpeg2 ? 2 : 1, (gdouble) diff_sum / recons->len);
  decode_check (path, n, w, h);

  gst_cl_mpeg_bit_writer_clear (&bw);
  gst_bit_writer_reset (&hw);
  g_byte_array_unref (stream);
  g_byte_array_unref (recons);
  g_byte_array_unref (dec);
  g_free (path);
  g_free (choices);
  g_free (bvec);
  g_free (fields);
  g_free (bfields);
  mpegref_picture_clear (&fpred);
  mpegref_picture_clear (&bfpred);
  mpegref_picture_clear (&older);
  mpegref_picture_clear (&pred);
  ref_coder_clear (&c);
}

static void
check_no_drift (gboolean mpeg2, guint dc_shift, guint b_frames,
    gboolean interlaced)
{
  check_no_drift_format (mpeg2, dc_shift, b_frames, interlaced, FALSE);
}

GST_START_TEST (test_no_drift)
{
  check_no_drift (FALSE, 0, 0, FALSE);
}

GST_END_TEST;

/* The same for MPEG-2, whose mismatch control differs, at each intra DC
 * precision */
GST_START_TEST (test_no_drift_mpeg2)
{
  guint dc_shift;

  for (dc_shift = 0; dc_shift <= 3; dc_shift++)
    check_no_drift (TRUE, dc_shift, 0, FALSE);
}

GST_END_TEST;

/* The same with B pictures, one to three between anchors, in MPEG-1 and
 * MPEG-2 */
GST_START_TEST (test_no_drift_b_pictures)
{
  guint b_frames;

  for (b_frames = 1; b_frames <= 3; b_frames++) {
    check_no_drift (FALSE, 0, b_frames, FALSE);
    check_no_drift (TRUE, b_frames - 1, b_frames, FALSE);
  }
}

GST_END_TEST;

/* The same for interlaced frames in frame or field blocks, with I and P
 * pictures, and with two B pictures between anchors */
GST_START_TEST (test_no_drift_interlaced)
{
  check_no_drift (TRUE, 0, 0, TRUE);
  check_no_drift (TRUE, 1, 2, TRUE);
}

GST_END_TEST;

/* The same in 4:2:2 (eight blocks a macroblock, chroma of full height):
 * progressive with I and P pictures, and interlaced, chroma in field
 * blocks too, with I and P pictures (dual prime among them) and with two
 * B pictures between anchors */
GST_START_TEST (test_no_drift_422)
{
  check_no_drift_format (TRUE, 0, 0, FALSE, TRUE);
  check_no_drift_format (TRUE, 1, 0, TRUE, TRUE);
  check_no_drift_format (TRUE, 2, 2, TRUE, TRUE);
}

GST_END_TEST;

/* ---- packed levels ---- */

/* the binary cache's entries in @dir */
static guint
cached_programs (const gchar * dir)
{
  GDir *d = g_dir_open (dir, 0, NULL);
  const gchar *name;
  guint n = 0;

  fail_unless (d != NULL);
  while ((name = g_dir_read_name (d)))
    n += g_str_has_suffix (name, ".bin");
  g_dir_close (d);
  return n;
}

/* The kernels of B pictures and those of the field search are programs of
 * their own, built only where asked for (a driver compiles every kernel of
 * a program): a transform builds one program, each group asked for one
 * more, asked again none; and each group's kernels work whichever way
 * they come (the engine's tests code with all of them). Counted as the
 * binary cache's entries of a context of its own. */
GST_START_TEST (test_kernel_groups)
{
  GError *error = NULL;
  GstClContext *ctx = gst_cl_context_new (NULL, &error);
  gchar *dir = g_build_filename (tmpdir, "cache", NULL);
  gchar *saved = g_strdup (g_getenv (GST_CL_CACHE_DIR_ENV));
  GstClMpegTransform *tr;

  fail_unless (ctx != NULL, "%s", error ? error->message : "");
  fail_unless (g_mkdir (dir, 0700) == 0);
  g_setenv (GST_CL_CACHE_DIR_ENV, dir, TRUE);
  tr = gst_cl_mpeg_transform_new (ctx, 64, 48, FALSE, &error);
  fail_unless (tr != NULL, "%s", error ? error->message : "");
  fail_unless_equals_int (cached_programs (dir), 1);
  fail_unless (gst_cl_mpeg_transform_prepare (tr, FALSE, FALSE, &error));
  fail_unless_equals_int (cached_programs (dir), 1);
  fail_unless (gst_cl_mpeg_transform_prepare (tr, TRUE, FALSE, &error),
      "%s", error ? error->message : "");
  fail_unless_equals_int (cached_programs (dir), 2);
  fail_unless (gst_cl_mpeg_transform_prepare (tr, TRUE, TRUE, &error),
      "%s", error ? error->message : "");
  fail_unless_equals_int (cached_programs (dir), 3);
  fail_unless (gst_cl_mpeg_transform_prepare (tr, TRUE, TRUE, &error));
  fail_unless_equals_int (cached_programs (dir), 3);
  gst_cl_mpeg_transform_free (tr);
  /* (the other tests build as the suite set them to) */
  test_restore_env (GST_CL_CACHE_DIR_ENV, saved);
  gst_object_unref (ctx);
  g_free (dir);
}

GST_END_TEST;

/* @got, field by field, is @want */
static void
check_summaries_equal (const GstClMpegRecordsSummary * got,
    const GstClMpegRecordsSummary * want)
{
  fail_unless_equals_int (got->packed_total, want->packed_total);
  fail_unless_equals_int (got->intra, want->intra);
  fail_unless_equals_int (got->skippable, want->skippable);
  fail_unless_equals_int (got->coded, want->coded);
  fail_unless_equals_uint64 (got->coded_last_sum, want->coded_last_sum);
  fail_unless_equals_uint64 (got->quant_sum, want->quant_sum);
  fail_unless_equals_uint64 (got->activity_sum, want->activity_sum);
  fail_unless_equals_int (got->vector_reach, want->vector_reach);
}

/* The packed levels' offsets of the @n records @recs and their total by
 * plain sums; the engine's summary of the records (one pass, eight @last
 * added at once) equals the plain sums, and the f_code of its vectors'
 * reach is the one of the vectors. */
static void
check_records_summary (const GstClMpegMbRecord * recs, guint n,
    guint32 * offsets, guint32 * total)
{
  GstClMpegRecordsSummary sum, plain = { 0, };
  guint i, b;

  plain.vector_reach = 1;
  for (i = 0; i < n; i++) {
    const GstClMpegMbRecord *r = &recs[i];
    gboolean is_intra = (r->flags & GST_CL_MPEG_MB_INTRA) != 0;
    gboolean is_skippable = (r->flags & GST_CL_MPEG_MB_SKIPPABLE) != 0;
    offsets[i] = plain.packed_total;
    for (b = 0; b < r->n_blocks; b++) {
      plain.packed_total += levels_read (r, b);
      if (is_intra || !is_skippable)
        plain.coded_last_sum += r->last[b];
    }
    plain.intra += is_intra;
    plain.skippable += is_skippable;
    plain.coded += is_intra || !is_skippable;
    plain.quant_sum += r->quant;
    plain.activity_sum += r->activity;
    if (!is_intra)
      plain.vector_reach = MAX (plain.vector_reach,
          (guint) MAX (MAX (-r->dx, r->dx + 1), MAX (-r->dy, r->dy + 1)));
  }
  *total = plain.packed_total;
  gst_cl_mpeg_records_summarize (recs, n, &sum);
  check_summaries_equal (&sum, &plain);
  fail_unless_equals_int (gst_cl_mpeg_f_code_for_reach (sum.vector_reach),
      gst_cl_mpeg_choose_f_code (recs, NULL, n));
}

/* The device's summary of the @n records @recs, from the @offsets that
 * @tr packed them into: the host's */
static void
check_pack_summary (GstClMpegTransform * tr, const GstClMpegMbRecord * recs,
    guint n, const guint32 * offsets)
{
  GstClMpegRecordsSummary sum, dev;

  gst_cl_mpeg_transform_pack_summary (tr, offsets, &dev);
  gst_cl_mpeg_records_summarize (recs, n, &sum);
  check_summaries_equal (&dev, &sum);
}

/* The levels of @n macroblocks packed on the host by the rule of
 * gst_cl_mpeg_transform_pack(), 64 zeros of slack after them. */
static gint16 *
pack_on_host (const GstClMpegMbRecord * recs, const gint16 * lev, guint n,
    guint32 * offsets, guint32 * total)
{
  gint16 *packed;
  guint i, b;

  check_records_summary (recs, n, offsets, total);
  packed = g_new0 (gint16, *total + 64);
  for (i = 0; i < n; i++) {
    guint32 at = offsets[i];
    for (b = 0; b < recs[i].n_blocks; b++) {
      guint c = levels_read (&recs[i], b);
      memcpy (packed + at, lev + (gsize) i * GST_CL_MPEG_MB_LEVELS + b * 64,
          c * 2);
      at += c;
    }
  }
  return packed;
}

/* @n records of every kind from @seed: intra, skippable or neither,
 * @n_blocks blocks (0: 4:2:0 and 4:2:2 mixed), intra blocks whose last
 * is 0, bytes past the blocks that are not zero, the largest @last,
 * activities up to @max_activity, vectors of every f_code's range */
static GstClMpegMbRecord *
random_records (guint n, guint32 seed, guint n_blocks, guint32 max_activity)
{
  GstClMpegMbRecord *recs = g_new0 (GstClMpegMbRecord, n);
  GRand *rand = g_rand_new_with_seed (seed);
  guint i, b;

  for (i = 0; i < n; i++) {
    GstClMpegMbRecord *r = &recs[i];
    r->n_blocks = n_blocks ? n_blocks : g_rand_boolean (rand) ?
        GST_CL_MPEG_BLOCKS_422 : GST_CL_MPEG_BLOCKS_420;
    r->flags = (g_rand_int_range (rand, 0, 4) == 0 ? GST_CL_MPEG_MB_INTRA :
        0) | (g_rand_boolean (rand) ? GST_CL_MPEG_MB_SKIPPABLE : 0);
    r->quant = g_rand_int_range (rand, 1, 32);
    r->activity = (guint32) (g_rand_double (rand) * max_activity);
    if (!(r->flags & GST_CL_MPEG_MB_INTRA)) {
      gint range = 16 << g_rand_int_range (rand, 0, 7);
      r->dx = g_rand_int_range (rand, -range, range);
      r->dy = g_rand_int_range (rand, -range, range);
    }
    for (b = 0; b < GST_CL_MPEG_BLOCKS; b++)
      r->last[b] = i % 7 == 0 ? 64 : g_rand_int_range (rand, 0, 3) == 0 ?
          0 : g_rand_int_range (rand, 1, 65);
  }
  g_rand_free (rand);
  return recs;
}

/* Records of every kind (4:2:0 and 4:2:2, intra blocks whose last is 0,
 * bytes past the blocks that are not zero, the largest @last, vectors of
 * every f_code's range): the engine's one-pass summary equals plain
 * sums. */
GST_START_TEST (test_records_summary)
{
  const guint n = 4096;
  /* (activities of 32 bits: the sums take 64) */
  GstClMpegMbRecord *recs = random_records (n, 7, 0, G_MAXUINT32);
  guint32 *offsets = g_new (guint32, n);
  guint32 total;
  guint prefix;

  /* (the first few: smaller reaches, other f_codes) */
  for (prefix = 1; prefix < n; prefix *= 4)
    check_records_summary (recs, prefix, offsets, &total);
  check_records_summary (recs, n, offsets, &total);
  g_free (offsets);
  g_free (recs);
}

GST_END_TEST;

/* The packing of @tr (GPU layout) of its picture's records @recs and
 * levels @lev: its offsets, its summary of the records and its packed
 * levels equal the host's, @offsets and the @total levels @packed; an
 * offsets buffer too short is refused. */
static void
check_device_packing (GstClMpegTransform * tr, const GstClMpegMbRecord * recs,
    const gint16 * lev, const gint16 * packed, const guint32 * offsets,
    guint32 total)
{
  GstClContext *ctx = test_get_shared_context ();
  GError *error = NULL;
  const guint n = gst_cl_mpeg_transform_mb_width (tr) *
      gst_cl_mpeg_transform_mb_height (tr);
  gsize lev_size = gst_cl_mpeg_transform_levels_size (tr);
  cl_mem d_recs = gst_cl_mpeg_transform_alloc (tr,
      gst_cl_mpeg_transform_records_size (tr), &error);
  cl_mem d_lev = gst_cl_mpeg_transform_alloc (tr, lev_size, &error);
  const gsize n_off = gst_cl_mpeg_transform_offsets_size (tr) /
      sizeof (guint32);
  cl_mem d_off = gst_cl_mpeg_transform_alloc (tr, n_off * sizeof (guint32),
      &error);
  cl_mem short_off = gst_cl_mpeg_transform_alloc (tr,
      (n_off - 1) * sizeof (guint32), &error);
  cl_mem d_packed = gst_cl_mpeg_transform_alloc (tr, lev_size, &error);
  guint32 *dev_off = g_new (guint32, n_off);
  gint16 *dev_packed = g_new0 (gint16, total + 1);
  guint i;

  fail_unless (d_recs && d_lev && d_off && short_off && d_packed);
  fail_unless_equals_int (clEnqueueWriteBuffer (ctx->queue, d_recs, CL_TRUE,
          0, gst_cl_mpeg_transform_records_size (tr), recs, 0, NULL, NULL),
      CL_SUCCESS);
  fail_unless_equals_int (clEnqueueWriteBuffer (ctx->queue, d_lev, CL_TRUE,
          0, lev_size, lev, 0, NULL, NULL), CL_SUCCESS);
  fail_if (gst_cl_mpeg_transform_pack (tr, d_recs, d_lev, short_off,
          d_packed, &error));
  fail_unless (error != NULL && strstr (error->message, "offsets"));
  g_clear_error (&error);
  fail_unless (gst_cl_mpeg_transform_pack (tr, d_recs, d_lev, d_off,
          d_packed, &error), "%s", error ? error->message : "");
  fail_unless_equals_int (clEnqueueReadBuffer (ctx->queue, d_off, CL_TRUE, 0,
          n_off * sizeof (guint32), dev_off, 0, NULL, NULL), CL_SUCCESS);
  for (i = 0; i < n; i++)
    fail_unless_each (dev_off[i] == offsets[i], "offset of macroblock %u: "
        "%u, expected %u", i, dev_off[i], offsets[i]);
  check_pack_summary (tr, recs, n, dev_off);
  if (total > 0)
    fail_unless_equals_int (clEnqueueReadBuffer (ctx->queue, d_packed,
            CL_TRUE, 0, total * sizeof (gint16), dev_packed, 0, NULL, NULL),
        CL_SUCCESS);
  fail_unless (memcmp (dev_packed, packed, total * 2) == 0,
      "device packing differs");
  g_free (dev_off);
  g_free (dev_packed);
  clReleaseMemObject (d_recs);
  clReleaseMemObject (d_lev);
  clReleaseMemObject (d_off);
  clReleaseMemObject (short_off);
  clReleaseMemObject (d_packed);
}

/* The slices coded from packed levels are byte for byte those coded from
 * whole blocks, over an I and a P picture at several quantisers; where
 * the transform packs on the device (GPU layout), its offsets, its
 * summary of the records and its packed levels equal the host's. 396
 * macroblocks: a whole run of GST_CL_MPEG_PACK_ITEMS and a partial
 * one; then the largest picture. */
GST_START_TEST (test_packed_levels)
{
  const guint w = 352, h = 288;
  GstClContext *ctx = test_get_shared_context ();
  GError *error = NULL;
  GstClMpegTransform *tr = gst_cl_mpeg_transform_new (ctx, w, h, FALSE, &error);
  RefCoder c;
  guint t, q, i, row;
  guint32 *offsets;

  fail_unless (tr != NULL, "%s", error ? error->message : "");
  ref_coder_init (&c, w, h);
  offsets = g_new (guint32, c.mbn);
  for (t = 0; t < 2; t++) {
    ref_coder_load_natural (&c, w, h, t, 11);
    /* (a third of the P picture's macroblocks with zero vectors: some of
     * them skippable at the coarser quantisers) */
    for (i = 0; i < c.mbn; i++) {
      c.vec[i].dx = i % 3 ? 2 : 0;
      c.vec[i].dy = i % 3 ? 3 : 0;
    }
    for (q = 2; q <= 20; q += 9) {
      GstClMpegEncodeParams p = { t > 0, q, FALSE, 1, 384, FALSE, 16, 2,
        FALSE, 0, FALSE, FALSE, FALSE, FALSE, FALSE
      };
      guint32 total;
      gint16 *packed;

      mpegref_encode (&c.cur, &c.ref, c.vec, &p, c.recs, c.lev, &c.rec);
      packed = pack_on_host (c.recs, c.lev, c.mbn, offsets, &total);
      for (row = 0; row < c.cur.mb_height; row++) {
        GstClMpegBitWriter a, b;
        gsize first = (gsize) row * c.cur.mb_width;
        gst_cl_mpeg_bit_writer_init (&a, 1024);
        gst_cl_mpeg_bit_writer_init (&b, 1024);
        GstClMpegPictureCoding pc = { t ? 2 : 1, 1, FALSE, 0, 1, FALSE,
          FALSE, FALSE, FALSE, FALSE, FALSE, FALSE
        };
        gst_cl_mpeg_write_slice (&a, row, c.cur.mb_width, &pc,
            c.recs + first, NULL, NULL, NULL,
            c.lev + first * GST_CL_MPEG_MB_LEVELS, NULL);
        gst_cl_mpeg_write_slice (&b, row, c.cur.mb_width, &pc,
            c.recs + first, NULL, NULL, NULL, packed, offsets + first);
        fail_unless_equals_uint64 (a.size, b.size);
        fail_unless (memcmp (a.data, b.data, a.size) == 0,
            "slice %u of picture %u (q %u) differs when packed", row, t, q);
        gst_cl_mpeg_bit_writer_clear (&a);
        gst_cl_mpeg_bit_writer_clear (&b);
      }

      if (gst_cl_mpeg_transform_packs_levels (tr))
        check_device_packing (tr, c.recs, c.lev, packed, offsets, total);
      g_free (packed);
    }
    ref_coder_next (&c);
  }
  g_free (offsets);
  ref_coder_clear (&c);
  gst_cl_mpeg_transform_free (tr);

  /* the largest picture, records and levels at random: 175 runs, more
   * than mpeg_pack_levels's 64 work-items add up at once */
  tr = gst_cl_mpeg_transform_new (ctx, 4095, 2800, FALSE, &error);
  fail_unless (tr != NULL, "%s", error ? error->message : "");
  if (gst_cl_mpeg_transform_packs_levels (tr)) {
    const guint n = gst_cl_mpeg_transform_mb_width (tr) *
        gst_cl_mpeg_transform_mb_height (tr);
    GstClMpegMbRecord *recs = random_records (n, 5, GST_CL_MPEG_BLOCKS_420,
        16 * 16 * 255);
    gint16 *lev = g_new (gint16, (gsize) n * GST_CL_MPEG_MB_LEVELS);
    guint32 total;
    gint16 *packed;
    GRand *rand = g_rand_new_with_seed (6);

    for (i = 0; i < n * GST_CL_MPEG_MB_LEVELS; i++)
      lev[i] = g_rand_int_range (rand, -2048, 2048);
    offsets = g_new (guint32, n);
    packed = pack_on_host (recs, lev, n, offsets, &total);
    check_device_packing (tr, recs, lev, packed, offsets, total);
    g_rand_free (rand);
    g_free (packed);
    g_free (offsets);
    g_free (lev);
    g_free (recs);
  }
  gst_cl_mpeg_transform_free (tr);
}

GST_END_TEST;

/* Odd sizes, NV12, a one-frame stream. */
GST_START_TEST (test_sizes)
{
  static const struct { guint w, h, n; const gchar *fmt; } cases[] = {
    {17, 9, 4, "I420"}, {17, 9, 3, "NV12"}, {33, 47, 1, "I420"},
    {1918, 1078, 2, "I420"},
  };
  guint c;

  for (c = 0; c < G_N_ELEMENTS (cases); c++) {
    Encoded e;
    gchar *name = g_strdup_printf ("size%u.m1v", c), *path;
    MpegCheckResult *r;

    encode_clip ("quantizer=5", cases[c].w, cases[c].h, cases[c].n, TRUE,
        cases[c].fmt, &e);
    fail_unless_equals_int (e.pts->len, cases[c].n);
    path = write_stream (name, e.stream);
    r = check_stream (e.stream, cases[c].n, cases[c].w, cases[c].h);
    mpegcheck_result_free (r);
    decode_check (path, cases[c].n, cases[c].w, cases[c].h);
    encoded_free (&e);
    g_free (path);
    g_free (name);
  }
}

GST_END_TEST;

/* A size change starts a new sequence; the frames queued before it come
 * out first, the old sequence ends with its end code. */
GST_START_TEST (test_size_change)
{
  GstHarness *h = harness_new ("quantizer=4 gop-size=12");
  Encoded e;
  MpegCheckOptions o;
  MpegCheckResult *r;
  gchar *path, *errs;
  guint i;

  encoded_init (&e);

  set_caps (h, 64, 48, 25, "I420");
  for (i = 0; i < 5; i++) {
    guint8 *f = natural_frame (64, 48, i, 1, 0, 1);
    fail_unless_equals_int (gst_harness_push (h, i420_buffer (f, 64, 48,
                i * GST_SECOND / 25, GST_SECOND / 25)), GST_FLOW_OK);
    g_free (f);
  }
  set_caps (h, 80, 32, 25, "I420");
  for (i = 5; i < 9; i++) {
    guint8 *f = natural_frame (80, 32, i, 1, 0, 1);
    fail_unless_equals_int (gst_harness_push (h, i420_buffer (f, 80, 32,
                i * GST_SECOND / 25, GST_SECOND / 25)), GST_FLOW_OK);
    g_free (f);
  }
  fail_unless (gst_harness_push_event (h, gst_event_new_eos ()));
  pull_all (h, &e);
  test_harness_teardown (h);
  fail_unless_equals_int (e.pts->len, 9);
  fail_unless_equals_int (e.n_sync, 2);

  mpegcheck_options_init (&o);
  o.expect_pictures = 9;
  o.require_closed_gop = TRUE;
  r = mpegcheck_run (e.stream->data, e.stream->len, &o);
  errs = mpegcheck_errors_text (r);
  fail_unless (mpegcheck_passed (r), "%s", errs);
  fail_unless_equals_int (r->sequences->len, 2);
  fail_unless_equals_int (g_array_index (r->sequences, MpegCheckSequence,
          0).width, 64);
  fail_unless_equals_int (g_array_index (r->sequences, MpegCheckSequence,
          1).width, 80);
  fail_unless_equals_int (g_array_index (r->sequences, MpegCheckSequence,
          1).n_pictures, 4);
  /* the first sequence ends with an end code too */
  fail_unless (memmem (e.stream->data, e.stream->len - 4,
          "\x00\x00\x01\xb7\x00\x00\x01\xb3", 8) != NULL);
  mpegcheck_result_free (r);
  g_free (errs);
  path = write_stream ("change.m1v", e.stream);
  {
    /* FFmpeg decodes it without a complaint (its command line drops a
     * picture where the size changes, so the count comes from GStreamer's
     * libav decoder and libmpeg2) */
    gchar *cmd = g_strdup_printf ("ffmpeg -nostdin -v error -err_detect "
        "explode -i %s -f null -", path);
    gchar *err = NULL, *out = NULL;
    gint status;
    fail_unless (g_spawn_command_line_sync (cmd, NULL, &err, &status, NULL)
        && g_spawn_check_wait_status (status, NULL) && !*err, "%s", err);
    g_free (cmd);
    g_free (err);
    fail_unless_equals_int (gst_decode_count (path), 9);
    cmd = g_strdup_printf ("sh -c \"mpeg2dec -o pgmpipe %s 2>/dev/null | grep -c P5\"",
        path);
    fail_unless (g_spawn_command_line_sync (cmd, &out, NULL, &status, NULL));
    fail_unless_equals_int (atoi (out), 9);
    g_free (out);
    g_free (cmd);
  }

  encoded_free (&e);
  g_free (path);
}

GST_END_TEST;

/* The frames clmpegenc holds before it gives one out, by its latency
 * (@h's element at 30 fps) */
static guint
frames_held (GstHarness * h)
{
  GstClockTime latency = gst_harness_query_latency (h);

  fail_unless (GST_CLOCK_TIME_IS_VALID (latency));
  return (guint) gst_util_uint64_scale_round (latency, 30, GST_SECOND);
}

/* A harness of clmpegenc with @props on a context of its own, of the
 * kernel @layout ("cpu", "gpu") */
static GstHarness *
harness_new_layout (const gchar * layout, const gchar * props)
{
  TestSavedLayout saved;
  GstElement *enc = gst_element_factory_make ("clmpegenc", NULL);
  GstHarness *h;

  fail_unless (enc != NULL);
  test_set_properties (enc, props);
  test_attach_bus (enc);
  /* (read when the element makes its context, as it starts) */
  test_save_layout (&saved);
  test_set_layout (layout);
  h = gst_harness_new_with_element (enc, "sink", "src");
  set_caps (h, 48, 32, 30, "I420");
  test_restore_layout (&saved);
  return h;
}

/* Frames pushed with nothing pulled in between all come out at EOS, with
 * their timestamps; a flush drops those held. In both kernel layouts: the
 * GPU one (a device of its own) holds a frame more than the latency of
 * the CPU one, whose slices it codes while the next frame goes on the
 * device, and says so in its latency. */
GST_START_TEST (test_eos_and_flush)
{
  const gchar *layout = __i__ ? "gpu" : "cpu";
  GstHarness *h = harness_new_layout (layout, "quantizer=8 gop-size=3");
  Encoded e;
  guint i, held;

  encoded_init (&e);
  held = frames_held (h);
  fail_unless_equals_int (held, __i__ ? 2 : 1);
  for (i = 0; i < 7; i++) {
    guint8 *f = natural_frame (48, 32, i, 2, 2, 5);
    fail_unless_equals_int (gst_harness_push (h, i420_buffer (f, 48, 32,
                1000 + i * GST_SECOND / 30, GST_SECOND / 30)), GST_FLOW_OK);
    g_free (f);
  }
  /* the last ones wait for the next frames or EOS */
  fail_unless_equals_int (gst_harness_buffers_in_queue (h), 7 - held);
  fail_unless (gst_harness_push_event (h, gst_event_new_eos ()));
  pull_all (h, &e);
  fail_unless_equals_int (e.pts->len, 7);
  for (i = 0; i < 7; i++)
    fail_unless_equals_uint64 (g_array_index (e.pts, GstClockTime, i),
        1000 + i * GST_SECOND / 30);
  fail_unless_equals_int (e.n_sync, 3);
  {
    MpegCheckResult *r = check_stream (e.stream, 7, 48, 32);
    fail_unless (r->end_code);
    mpegcheck_result_free (r);
  }
  test_harness_teardown (h);
  encoded_free (&e);

  /* a flush drops the frames held; coding starts over with a sequence
   * header and an I picture */
  h = harness_new_layout (layout, "quantizer=8 gop-size=30");
  encoded_init (&e);
  for (i = 0; i < 6; i++) {
    guint8 *f = natural_frame (48, 32, i, 2, 2, 5);
    if (i == 3) {
      pull_all (h, &e);
      fail_unless_equals_int (e.pts->len, 3 - held);
      fail_unless (gst_harness_push_event (h, gst_event_new_flush_start ()));
      fail_unless (gst_harness_push_event (h,
              gst_event_new_flush_stop (TRUE)));
      gst_harness_set_src_caps_str (h, "video/x-raw,format=I420,width=48,"
          "height=32,framerate=30/1,pixel-aspect-ratio=1/1");
      g_byte_array_set_size (e.stream, 0);
      g_array_set_size (e.pts, 0);
      e.n_sync = 0;
    }
    fail_unless_equals_int (gst_harness_push (h, i420_buffer (f, 48, 32,
                i * GST_SECOND / 30, GST_SECOND / 30)), GST_FLOW_OK);
    g_free (f);
  }
  fail_unless (gst_harness_push_event (h, gst_event_new_eos ()));
  pull_all (h, &e);
  fail_unless_equals_int (e.pts->len, 3);
  fail_unless_equals_int (e.n_sync, 1);
  fail_unless_equals_uint64 (g_array_index (e.pts, GstClockTime, 0),
      3 * GST_SECOND / 30);
  {
    /* (its time code: the place of its first frame) */
    MpegCheckResult *r = check_stream_from (e.stream, 3, 48, 32, TRUE, 3);
    fail_unless_equals_int (r->n_type[1], 1);
    mpegcheck_result_free (r);
  }
  test_harness_teardown (h);
  encoded_free (&e);
}

GST_END_TEST;

/* Pushes frames [first, end) of a fast pan (@w x @h) into @h at 30 fps,
 * their timestamps from frame 0 on. */
static void
push_pan (GstHarness * h, guint w, guint hh, guint first, guint end)
{
  guint i;

  for (i = first; i < end; i++) {
    guint8 *f = natural_frame (w, hh, i, 26, -18, 9);
    fail_unless_equals_int (gst_harness_push (h, i420_buffer (f, w, hh,
                i * GST_SECOND / 30, GST_SECOND / 30)), GST_FLOW_OK);
    g_free (f);
  }
}

/* After a flush the encoder codes as a new one would: the stream of the
 * frames after it is that of an encoder that starts with them, byte for
 * byte. The search follows nothing from before the flush: a fast pan
 * (26, -18) that continues across it is not found at once by a new
 * search, as the vectors from before the flush would find it. */
GST_START_TEST (test_flush_starts_afresh)
{
  const guint w = 320, hh = 192;
  GstHarness *h = harness_new ("quantizer=6 gop-size=30");
  Encoded a, b;

  encoded_init (&a);
  encoded_init (&b);

  set_caps (h, w, hh, 30, "I420");
  push_pan (h, w, hh, 0, 6);
  fail_unless (gst_harness_push_event (h, gst_event_new_flush_start ()));
  fail_unless (gst_harness_push_event (h, gst_event_new_flush_stop (TRUE)));
  gst_harness_set_src_caps_str (h, "video/x-raw,format=I420,width=320,"
      "height=192,framerate=30/1,pixel-aspect-ratio=1/1");
  while (gst_harness_buffers_in_queue (h) > 0)
    gst_buffer_unref (gst_harness_pull (h));
  push_pan (h, w, hh, 6, 10);
  fail_unless (gst_harness_push_event (h, gst_event_new_eos ()));
  pull_all (h, &a);
  test_harness_teardown (h);

  h = harness_new ("quantizer=6 gop-size=30");
  set_caps (h, w, hh, 30, "I420");
  push_pan (h, w, hh, 6, 10);
  fail_unless (gst_harness_push_event (h, gst_event_new_eos ()));
  pull_all (h, &b);
  test_harness_teardown (h);

  fail_unless_equals_int (a.pts->len, 4);
  fail_unless (same_stream (&a, &b), "%u bytes after the flush, %u from a "
      "new encoder", a.stream->len, b.stream->len);
  mpegcheck_result_free (check_stream_from (a.stream, 4, w, hh, TRUE, 6));
  encoded_free (&a);
  encoded_free (&b);
}

GST_END_TEST;

/* Vectors of an upstream clmotionsearch are used: with the encoder's own
 * search off, a panned clip costs far fewer bits with them than with zero
 * vectors, and decodes cleanly. */
GST_START_TEST (test_upstream_vectors)
{
  const guint w = 176, h = 144, n = 10;
  Encoded with, without;
  gchar *path;

  encode_clip ("launch:clmotionsearch subpel=true ! clmpegenc "
      "search-range=0 quantizer=6", w, h, n, TRUE, NULL, &with);
  encode_clip ("search-range=0 quantizer=6", w, h, n, TRUE, NULL, &without);
  GST_INFO ("upstream vectors: %u bytes, zero vectors: %u bytes",
      with.stream->len, without.stream->len);
  fail_unless (with.stream->len * 10 < without.stream->len * 8,
      "%u bytes with upstream vectors, %u without", with.stream->len,
      without.stream->len);
  fail_unless_equals_int (with.pts->len, n);
  path = write_stream ("upstream.m1v", with.stream);
  decode_check (path, n, w, h);
  mpegcheck_result_free (check_stream (with.stream, n, w, h));
  encoded_free (&with);
  encoded_free (&without);
  g_free (path);
}

GST_END_TEST;

/* Mean PSNR-Y of @e, @n frames of the natural clip panned at @w x @h,
 * as FFmpeg decodes it */
static gdouble
clip_psnr_y (const Encoded * e, const gchar * name, guint w, guint h, guint n)
{
  gchar *path = write_stream (name, e->stream);
  GByteArray *dec;
  gdouble psnr = 0;
  guint frames, i;

  dec = ffmpeg_decode (path, NULL, &frames, w, h);
  fail_unless_equals_int (frames, n);
  for (i = 0; i < n; i++) {
    guint8 *src = natural_frame (w, h, i, clip_pan_x, clip_pan_y, 7);
    psnr += psnr_y (dec, i, src, w, h) / n;
    g_free (src);
  }
  g_byte_array_unref (dec);
  g_free (path);
  return psnr;
}

/* clmotionsearch ! clmpegenc, the chain of the README and the demo, codes
 * as well as clmpegenc alone: the encoder searches from the upstream
 * vectors (carried across the frames to each picture's references)
 * against its reconstruction, refining to half-pel itself, so a
 * full-pel upstream search serves as well. On a fast pan with B
 * pictures (22 samples between a P picture and its reference) the
 * chain codes as well too; backward vectors of the wrong direction cost
 * it 13% more bytes, each frame's vectors not carried over the frames
 * before 75%. */
GST_START_TEST (test_chain_not_worse)
{
  static const gchar *chains[] = { "quantizer=6",
    "launch:clmotionsearch ! clmpegenc quantizer=6",
    "launch:clmotionsearch subpel=false ! clmpegenc quantizer=6",
    "quantizer=6 b-frames=2 b-adapt=false",
    "launch:clmotionsearch ! clmpegenc quantizer=6 b-frames=2 b-adapt=false",
  };
  static const gdouble pans[][2] = { {1.5, -0.5}, {1.5, -0.5}, {1.5, -0.5},
  {7.5, -2.5}, {7.5, -2.5}
  };
  /* the encoder alone that each chain is held to, and the percent more
   * bytes it may take */
  static const guint alone[] = { 0, 0, 0, 3, 3 };
  static const guint tolerance[] = { 0, 3, 3, 0, 3 };
  const guint w = 352, h = 288, n = 10;
  gdouble psnr[G_N_ELEMENTS (chains)];
  guint bytes[G_N_ELEMENTS (chains)], c;

  for (c = 0; c < G_N_ELEMENTS (chains); c++) {
    Encoded e;
    clip_pan_x = pans[c][0];
    clip_pan_y = pans[c][1];
    encode_clip (chains[c], w, h, n, TRUE, NULL, &e);
    fail_unless_equals_int (e.pts->len, n);
    bytes[c] = e.stream->len;
    psnr[c] = clip_psnr_y (&e, "chain.m1v", w, h, n);
    GST_INFO ("%s: %u bytes, PSNR-Y %.2f dB", chains[c], bytes[c], psnr[c]);
    if (c == 4)
      mpegcheck_result_free (check_stream (e.stream, n, w, h));
    encoded_free (&e);
  }
  for (c = 0; c < G_N_ELEMENTS (chains); c++)
    fail_unless (bytes[c] * 100 <= bytes[alone[c]] * (100 + tolerance[c])
        && psnr[c] > psnr[alone[c]] - 0.1,
        "%s: %u bytes at %.2f dB, the encoder alone %u at %.2f dB",
        chains[c], bytes[c], psnr[c], bytes[alone[c]], psnr[alone[c]]);
}

GST_END_TEST;

/* At ultrafast, P pictures behind clmotionsearch take its vectors as they
 * are, with no search of their own: its vectors code the pan about as
 * well as the encoder alone, while vectors held within a sample of zero
 * (a full search of range 1) cost far more bytes. At veryfast the
 * encoder searches around the same poor vectors and finds the pan. */
GST_START_TEST (test_ultrafast_takes_upstream_vectors)
{
  static const gchar *runs[] = {
    "speed-preset=ultrafast quantizer=6",
    "launch:clmotionsearch ! clmpegenc speed-preset=ultrafast quantizer=6",
    "launch:clmotionsearch method=full search-range=1 ! "
        "clmpegenc speed-preset=ultrafast quantizer=6",
    "speed-preset=veryfast quantizer=6",
    "launch:clmotionsearch method=full search-range=1 ! "
        "clmpegenc speed-preset=veryfast quantizer=6",
  };
  const guint w = 352, h = 288, n = 10;
  gdouble psnr[G_N_ELEMENTS (runs)];
  guint bytes[G_N_ELEMENTS (runs)], r;

  clip_pan_x = 1.5;
  clip_pan_y = -0.5;
  for (r = 0; r < G_N_ELEMENTS (runs); r++) {
    Encoded e;
    encode_clip (runs[r], w, h, n, TRUE, NULL, &e);
    fail_unless_equals_int (e.pts->len, n);
    bytes[r] = e.stream->len;
    psnr[r] = clip_psnr_y (&e, "upstream-as-is.m1v", w, h, n);
    GST_INFO ("%s: %u bytes, PSNR-Y %.2f dB", runs[r], bytes[r], psnr[r]);
    mpegcheck_result_free (check_stream (e.stream, n, w, h));
    encoded_free (&e);
  }
  fail_unless (bytes[1] * 100 <= bytes[0] * 105 && psnr[1] > psnr[0] - 0.1,
      "ultrafast behind clmotionsearch: %u bytes at %.2f dB, alone %u at "
      "%.2f dB", bytes[1], psnr[1], bytes[0], psnr[0]);
  fail_unless (bytes[2] * 100 >= bytes[1] * 150, "ultrafast behind a search "
      "of range 1: %u bytes, behind the default search %u", bytes[2],
      bytes[1]);
  fail_unless (bytes[4] * 100 <= bytes[3] * 105 && psnr[4] > psnr[3] - 0.1,
      "veryfast behind a search of range 1: %u bytes at %.2f dB, alone %u "
      "at %.2f dB", bytes[4], psnr[4], bytes[3], psnr[3]);
  clip_pan_x = 2;
  clip_pan_y = 1;
}

GST_END_TEST;

/* The encoder's own search, by motion-method (hierarchical by default):
 * both methods find the pan of the clip (far fewer bits than zero
 * vectors), to within a few percent of each other's bits at the same
 * PSNR, and their streams decode cleanly. */
GST_START_TEST (test_motion_method)
{
  static const gchar *methods[] = { "full", "hierarchical" };
  const guint w = 176, h = 144, n = 10;
  GstElement *enc = gst_element_factory_make ("clmpegenc", NULL);
  Encoded e[2], zero;
  gdouble psnr[2];
  GEnumValue *v;
  GEnumClass *klass;
  gint method;
  guint m, i;

  fail_unless (enc != NULL);
  g_object_get (enc, "motion-method", &method, NULL);
  klass = g_type_class_ref (G_PARAM_SPEC_VALUE_TYPE (g_object_class_find_property
          (G_OBJECT_GET_CLASS (enc), "motion-method")));
  v = g_enum_get_value (klass, method);
  fail_unless (v != NULL && g_str_equal (v->value_nick, "auto"));
  g_type_class_unref (klass);
  gst_object_unref (enc);

  for (m = 0; m < 2; m++) {
    gchar *props = g_strdup_printf ("motion-method=%s quantizer=6",
        methods[m]);
    gchar *name = g_strdup_printf ("method-%s.m1v", methods[m]);
    gchar *path;
    GByteArray *dec;
    guint frames;

    encode_clip (props, w, h, n, TRUE, NULL, &e[m]);
    fail_unless_equals_int (e[m].pts->len, n);
    path = write_stream (name, e[m].stream);
    decode_check (path, n, w, h);
    mpegcheck_result_free (check_stream (e[m].stream, n, w, h));
    dec = ffmpeg_decode (path, NULL, &frames, w, h);
    fail_unless_equals_int (frames, n);
    psnr[m] = 0;
    for (i = 0; i < n; i++) {
      guint8 *src = natural_frame (w, h, i, 2, 1, 7);
      psnr[m] += psnr_y (dec, i, src, w, h) / n;
      g_free (src);
    }
    GST_INFO ("%s: %u bytes, PSNR-Y %.2f dB", methods[m], e[m].stream->len,
        psnr[m]);
    g_byte_array_unref (dec);
    g_free (path);
    g_free (name);
    g_free (props);
  }
  encode_clip ("search-range=0 quantizer=6", w, h, n, TRUE, NULL, &zero);
  for (m = 0; m < 2; m++)
    fail_unless (e[m].stream->len * 10 < zero.stream->len * 8,
        "%s: %u bytes, %u with zero vectors", methods[m], e[m].stream->len,
        zero.stream->len);
  fail_unless (fabs (psnr[0] - psnr[1]) < 0.2, "PSNR-Y %.2f dB (full), "
      "%.2f dB (hierarchical)", psnr[0], psnr[1]);
  fail_unless (e[1].stream->len * 100 < e[0].stream->len * 105,
      "%u bytes (hierarchical) against %u (full)", e[1].stream->len,
      e[0].stream->len);
  /* auto: hierarchical on every device */
  {
    Encoded a;
    guint want = 1;
    encode_clip ("motion-method=auto quantizer=6", w, h, n, TRUE, NULL, &a);
    fail_unless (same_stream (&a, &e[want]),
        "motion-method=auto is not %s here", methods[want]);
    encoded_free (&a);
  }
  for (m = 0; m < 2; m++)
    encoded_free (&e[m]);
  encoded_free (&zero);
}

GST_END_TEST;

/* Every speed preset codes a stream that passes the checker and decodes
 * to every frame; a preset sets rdo unless rdo is set on its own, in
 * either order, and medium is the defaults. */
GST_START_TEST (test_speed_preset)
{
  static const struct
  {
    const gchar *nick;
    gboolean rdo;
  } presets[] = {
    {"ultrafast", FALSE}, {"veryfast", FALSE}, {"fast", TRUE},
    {"medium", TRUE}, {"slow", TRUE},
  };
  const guint w = 176, h = 144, n = 8;
  Encoded e[G_N_ELEMENTS (presets)], other;
  GstElement *enc = gst_element_factory_make ("clmpegenc", NULL);
  GEnumClass *klass;
  gboolean rdo;
  gint preset;
  guint i;

  fail_unless (enc != NULL);
  g_object_get (enc, "speed-preset", &preset, "rdo", &rdo, NULL);
  klass = g_type_class_ref (G_PARAM_SPEC_VALUE_TYPE
      (g_object_class_find_property (G_OBJECT_GET_CLASS (enc),
              "speed-preset")));
  fail_unless_equals_string (g_enum_get_value (klass, preset)->value_nick,
      "medium");
  fail_unless (rdo);
  fail_unless_equals_int (klass->n_values, G_N_ELEMENTS (presets));
  for (i = 0; i < G_N_ELEMENTS (presets); i++) {
    gchar *props = g_strdup_printf ("speed-preset=%s quantizer=6",
        presets[i].nick);
    gchar *name = g_strdup_printf ("preset-%s.m1v", presets[i].nick);
    gchar *path;
    guint frames;
    GByteArray *dec;

    /* the enum's order is the documented one */
    fail_unless_equals_string (klass->values[i].value_nick, presets[i].nick);
    gst_util_set_object_arg (G_OBJECT (enc), "speed-preset",
        presets[i].nick);
    g_object_get (enc, "rdo", &rdo, NULL);
    fail_unless (rdo == presets[i].rdo, "%s: rdo %d", presets[i].nick, rdo);
    encode_clip (props, w, h, n, TRUE, NULL, &e[i]);
    path = write_stream (name, e[i].stream);
    mpegcheck_result_free (check_stream (e[i].stream, n, w, h));
    decode_check (path, n, w, h);
    dec = ffmpeg_decode (path, NULL, &frames, w, h);
    fail_unless_equals_int (frames, n);
    g_byte_array_unref (dec);
    g_free (path);
    g_free (name);
    g_free (props);
  }
  g_type_class_unref (klass);

  /* rdo set on its own wins, before or after the preset */
  g_object_set (enc, "rdo", FALSE, NULL);
  gst_util_set_object_arg (G_OBJECT (enc), "speed-preset", "slow");
  g_object_get (enc, "rdo", &rdo, NULL);
  fail_if (rdo);
  gst_object_unref (enc);
  encode_clip ("quantizer=6", w, h, n, TRUE, NULL, &other);
  fail_unless (same_stream (&other, &e[3]), "medium is not the defaults");
  encoded_free (&other);
  encode_clip ("rdo=false quantizer=6", w, h, n, TRUE, NULL, &other);
  fail_unless (same_stream (&other, &e[1]), "veryfast is not rdo=false");
  encoded_free (&other);
  encode_clip ("speed-preset=veryfast rdo=true quantizer=6", w, h, n, TRUE,
      NULL, &other);
  fail_unless (same_stream (&other, &e[2]),
      "veryfast with rdo=true is not fast");
  encoded_free (&other);
  encode_clip ("rdo=true speed-preset=veryfast quantizer=6", w, h, n, TRUE,
      NULL, &other);
  fail_unless (same_stream (&other, &e[2]),
      "rdo=true, then veryfast, is not fast");
  encoded_free (&other);
  /* fast and medium differ in the search's half-pel ranking alone, which
   * changes some vector of this clip */
  fail_if (same_stream (&e[2], &e[3]), "fast is medium");
  for (i = 0; i < G_N_ELEMENTS (presets); i++)
    encoded_free (&e[i]);
}

GST_END_TEST;

/* The two kernel layouts take the same decisions: with the hierarchical
 * search, which both run alike, a clip coded in each (two processes, the
 * layout chosen by GST_CL_LAYOUT) gives the same stream, MPEG-1 and
 * MPEG-2, with and without B pictures, and after clmotionsearch with
 * three B pictures in open GOPs (upstream's vectors carried to each
 * anchor, the I picture's too). */
GST_START_TEST (test_layouts_agree)
{
  static const gchar *layouts[] = { "cpu", "gpu" };
  /* MPEG-1 and MPEG-2, with and without B pictures; MPEG-2 of interlaced
   * frames woven from a clip at twice the rate, also at slow (the field
   * search around the top fields' vectors too) and at fast (the searches'
   * half-pel positions ranked by SAD) */
  static const gchar *b_frames[] = { "b-frames=0", "b-frames=0",
    "b-frames=3 closed-gop=false", "b-frames=2", "b-frames=2",
    "b-frames=2 speed-preset=slow", "b-frames=2 speed-preset=fast"
  };
  guint i, v;

  for (v = 0; v < G_N_ELEMENTS (b_frames); v++) {
    gboolean interlaced = v >= 4, chained = v == 2;
    guint version = interlaced ? 2 : 1 + v % 2;
    gchar *data[2];
    gsize len[2];

    for (i = 0; i < 2; i++) {
      gchar *name = g_strdup_printf ("layout-%s-%u.m%uv", layouts[i], v,
          version);
      gchar *path = g_build_filename (tmpdir, name, NULL);
      gchar *location = g_strdup_printf ("location=%s", path);
      gchar *launch = g_strdup_printf ("gst-launch-1.0 -q videotestsrc "
          "pattern=ball num-buffers=%u ! video/x-raw,format=I420,width=320,"
          "height=240,framerate=%s ! %s clmpegenc motion-method=hierarchical "
          "%s ! video/mpeg,mpegversion=%u ! filesink %s",
          interlaced ? 48 : 24, interlaced ? "50/1" : "25/1", interlaced ?
          "interlace field-pattern=1:1 top-field-first=true !" : chained ?
          "clmotionsearch !" : "", b_frames[v], version, location);
      gchar **argv = NULL;
      gchar **env = test_layout_environ (g_get_environ (), layouts[i]);
      gchar *err = NULL;
      gint status = 0;

      fail_unless (g_shell_parse_argv (launch, NULL, &argv, NULL));
      fail_unless (g_spawn_sync (NULL, argv, env,
              G_SPAWN_SEARCH_PATH, NULL, NULL, NULL, &err, &status, NULL));
      fail_unless (g_spawn_check_wait_status (status, NULL),
          "gst-launch-1.0 failed with the %s layout: %s", layouts[i], err);
      fail_unless (g_file_get_contents (path, &data[i], &len[i], NULL));
      g_strfreev (env);
      g_strfreev (argv);
      g_free (err);
      g_free (launch);
      g_free (location);
      g_free (path);
      g_free (name);
    }
    fail_unless (len[0] > 1000);
    fail_unless (len[0] == len[1] && memcmp (data[0], data[1], len[0]) == 0,
        "MPEG-%u, %s%s: the CPU and the GPU layouts coded the clip "
        "differently (%" G_GSIZE_FORMAT " and %" G_GSIZE_FORMAT " bytes)",
        version, b_frames[v], interlaced ? ", interlaced" : chained ?
        ", after clmotionsearch" : "", len[0], len[1]);
    if (interlaced || chained) {
      GByteArray *a = g_byte_array_new_take ((guint8 *) data[0], len[0]);
      MpegCheckResult *r = chained ? check_open_stream (a, 24, 320, 240) :
          check_stream (a, 24, 320, 240);
      /* (the woven frames were coded as such) */
      fail_unless (chained || !g_array_index (r->sequences,
              MpegCheckSequence, 0).progressive_sequence);
      mpegcheck_result_free (r);
      data[0] = (gchar *) g_byte_array_free (a, FALSE);
    }
    for (i = 0; i < 2; i++)
      g_free (data[i]);
  }
}

GST_END_TEST;

/* ---- MPEG-2 ---- */

/* ffprobe's view of the stream at @path: "key=value" lines of the
 * stream's @entries */
static gchar *
ffprobe_stream (const gchar * path, const gchar * entries)
{
  gchar *cmd = g_strdup_printf ("ffprobe -v error -select_streams v:0 "
      "-show_entries stream=%s -of default=noprint_wrappers=1 %s", entries,
      path);
  gchar *out = NULL, *err = NULL;
  gint status = 0;

  fail_unless (g_spawn_command_line_sync (cmd, &out, &err, &status, NULL)
      && g_spawn_check_wait_status (status, NULL), "ffprobe failed on %s: "
      "%s", path, err);
  g_free (err);
  g_free (cmd);
  return out;
}

/* Encodes @n frames of the natural clip at @w x @h, with noise of
 * +-@noise added to the luma, through clmpegenc @props ! @caps into @e
 * (the input caps' fields past the size: @fields, NULL for 25 fps and
 * square pixels); returns the caps clmpegenc set on its source pad. */
static GstCaps *
encode_negotiated (const gchar * props, const gchar * caps, guint w, guint h,
    guint n, guint noise, const gchar * fields, Encoded * e)
{
  guint32 rng = 11;
  gchar *launch = g_strdup_printf ("clmpegenc %s ! capsfilter caps=\"%s\"",
      props, caps);
  GstHarness *hn = harness_new_parse (launch);
  gchar *in_caps = g_strdup_printf ("video/x-raw,format=I420,width=%u,"
      "height=%u,%s", w, h, fields ? fields :
      "framerate=25/1,pixel-aspect-ratio=1/1");
  GstCaps *out;
  guint i;

  encoded_init (e);
  gst_harness_set_src_caps_str (hn, in_caps);
  for (i = 0; i < n; i++) {
    guint8 *f = natural_frame (w, h, i, clip_pan_x, clip_pan_y, 7);
    gsize k;
    for (k = 0; noise && k < (gsize) w * h; k++)
      f[k] = CLAMP ((gint) f[k] + (gint) (test_rng_next (&rng) %
              (2 * noise + 1)) - (gint) noise, 0, 255);
    fail_unless_equals_int (gst_harness_push (hn, i420_buffer (f, w, h,
                i * GST_SECOND / 25, GST_SECOND / 25)), GST_FLOW_OK);
    g_free (f);
    pull_all (hn, e);
  }
  fail_unless (gst_harness_push_event (hn, gst_event_new_eos ()));
  pull_all (hn, e);
  out = gst_pad_get_current_caps (hn->sinkpad);
  fail_unless (out != NULL);
  test_harness_teardown (hn);
  g_free (in_caps);
  g_free (launch);
  return out;
}

/* The macroblocks' bits (as mpegcheck counts them, which parses every
 * one) of @c's picture as the MPEG-2 stream of one I picture, its slices
 * a row each, its intra blocks coded with table B.15 or B.14; from packed
 * levels where @packed */
static guint64
intra_picture_bits (const RefCoder * c, gboolean table_one,
    const gint16 * packed, const guint32 * offsets)
{
  GstClMpegSequenceParams sp = { c->cur.mb_width * 16,
    c->cur.mb_height * 16, 1, 3, 37500, 112, FALSE, TRUE,
    c->cur.chroma_422 ? 0x85 : 0x48, FALSE, 0, 0, 0, FALSE, FALSE, FALSE,
    c->cur.chroma_422
  };
  GstClMpegPictureCoding pc = { 1, 1, TRUE, 0, 1, FALSE, FALSE, FALSE,
    FALSE, table_one, c->cur.chroma_422, FALSE
  };
  GstClMpegBitWriter bw;
  GstBitWriter hw;
  MpegCheckOptions o;
  MpegCheckResult *r;
  gchar *errs;
  guint64 bits;
  guint row;

  gst_cl_mpeg_bit_writer_init (&bw, 4096);
  gst_bit_writer_init (&hw);
  gst_cl_mpeg_write_sequence_header (&hw, &sp);
  gst_cl_mpeg_write_gop_header (&hw, 0, 3, TRUE);
  gst_cl_mpeg_write_picture_header (&hw, 0, 0xffff, &pc);
  append_headers (&bw, &hw);
  for (row = 0; row < c->cur.mb_height; row++) {
    gsize first = (gsize) row * c->cur.mb_width;
    gst_cl_mpeg_write_slice (&bw, row, c->cur.mb_width, &pc, c->recs + first,
        NULL, NULL, NULL, packed ? packed :
        c->lev + first * GST_CL_MPEG_MB_LEVELS,
        packed ? offsets + first : NULL);
  }
  gst_cl_mpeg_write_sequence_end (&hw);
  append_headers (&bw, &hw);
  mpegcheck_options_init (&o);
  o.check_vbv = FALSE;
  r = mpegcheck_run (bw.data, bw.size, &o);
  errs = mpegcheck_errors_text (r);
  fail_unless (mpegcheck_passed (r), "%s", errs);
  fail_unless_equals_int (g_array_index (r->pictures, MpegCheckPicture,
          0).intra_vlc_format, table_one);
  bits = g_array_index (r->pictures, MpegCheckPicture, 0).mb_bits;
  g_free (errs);
  mpegcheck_result_free (r);
  gst_bit_writer_reset (&hw);
  gst_cl_mpeg_bit_writer_clear (&bw);
  return bits;
}

/* MPEG-2's two tables for intra blocks: what gst_cl_mpeg_intra_table_bits
 * counts for each is what the checker reads the slices to take in it (I
 * pictures of the C reference at a fine and a coarse quantiser, levels
 * whole and packed).
 * The encoder codes each picture in the shorter: B.15 where large levels
 * abound (the natural clip with noise at quantiser 2), B.14 where few
 * small ones do (the clip at quantiser 16); the streams decode in three
 * decoders. */
GST_START_TEST (test_intra_table)
{
  static const struct
  {
    guint noise, q;
    gboolean table_one;
  } cases[] = {
    {40, 2, TRUE},
    {0, 16, FALSE},
  };
  const guint w = 176, h = 144;
  RefCoder c;
  guint32 *offsets;
  guint i, q;

  ref_coder_init (&c, w, h);
  offsets = g_new (guint32, c.mbn);
  for (q = 2; q <= 16; q += 14) {
    GstClMpegEncodeParams p = { FALSE, q, FALSE, 1, 384, FALSE, 16, 2,
      TRUE, 0, FALSE, FALSE, FALSE, q == 2, FALSE
    };
    guint64 counted[2], packed_counted[2], coded[2];
    guint32 total;
    gint16 *packed;

    ref_coder_load_natural (&c, w, h, 0, 5);
    mpegref_encode (&c.cur, &c.ref, c.vec, &p, c.recs, c.lev, &c.rec);
    packed = pack_on_host (c.recs, c.lev, c.mbn, offsets, &total);
    gst_cl_mpeg_intra_table_bits (c.recs, c.mbn, TRUE, c.lev, NULL, counted);
    gst_cl_mpeg_intra_table_bits (c.recs, c.mbn, TRUE, packed, offsets,
        packed_counted);
    for (i = 0; i < 2; i++) {
      coded[i] = intra_picture_bits (&c, i, NULL, NULL);
      fail_unless_equals_uint64 (intra_picture_bits (&c, i, packed, offsets),
          coded[i]);
      fail_unless_equals_uint64 (packed_counted[i], counted[i]);
    }
    GST_INFO ("q %u: B.14 %" G_GUINT64_FORMAT " bits, B.15 %"
        G_GUINT64_FORMAT, q, counted[0], counted[1]);
    fail_unless (counted[0] != counted[1]);
    fail_unless_equals_int64 ((gint64) coded[0] - (gint64) coded[1],
        (gint64) counted[0] - (gint64) counted[1]);
    g_free (packed);
  }
  ref_coder_clear (&c);
  g_free (offsets);

  for (i = 0; i < G_N_ELEMENTS (cases); i++) {
    gchar *props = g_strdup_printf ("quantizer=%u gop-size=3 scene-cut=0",
        cases[i].q);
    gchar *name = g_strdup_printf ("intra-table-%u.m2v", i);
    MpegCheckResult *r;
    GstCaps *caps;
    gchar *path;
    Encoded e;
    guint k, intra = 0;

    caps = encode_negotiated (props, "video/mpeg,mpegversion=2", w, h, 6,
        cases[i].noise, NULL, &e);
    r = check_stream (e.stream, 6, w, h);
    for (k = 0; k < r->pictures->len; k++) {
      const MpegCheckPicture *pic = &g_array_index (r->pictures,
          MpegCheckPicture, k);
      if (pic->coding_type != 1)
        continue;
      intra++;
      fail_unless_equals_int (pic->intra_vlc_format, cases[i].table_one);
    }
    fail_unless_equals_int (intra, 2);
    path = write_stream (name, e.stream);
    decode_check (path, 6, w, h);
    mpegcheck_result_free (r);
    gst_caps_unref (caps);
    encoded_free (&e);
    g_free (path);
    g_free (name);
    g_free (props);
  }
}

GST_END_TEST;

/* Downstream asking for MPEG-2 gets it: the main profile (or the simple
 * one where only that is allowed) at the lowest level that holds the
 * input, in the caps and in the stream (ffprobe), decoded cleanly by
 * FFmpeg, libmpeg2 and avdec_mpeg2video, to pictures as good as MPEG-1's
 * at the same settings. */
GST_START_TEST (test_mpeg2_stream)
{
  static const struct
  {
    guint w, h;
    const gchar *props, *caps, *profile, *level, *ff_profile;
    gint ff_level;
  } cases[] = {
    /* with a constant quantiser the low level only where asked for */
    {176, 144, "", "video/mpeg,mpegversion=2", "main", "main", "Main", 8},
    {176, 144, "", "video/mpeg,mpegversion=2,level=low", "main", "low",
        "Main", 10},
    {176, 144, "bitrate=2000", "video/mpeg,mpegversion=2", "main", "low",
        "Main", 10},
    {720, 576, "", "video/mpeg,mpegversion=2,profile=simple", "simple",
        "main", "Simple", 8},
    {720, 576, "", "video/mpeg,mpegversion=2,level=(string){high,main}",
        "main", "main", "Main", 8},
    {1280, 720, "", "video/mpeg,mpegversion=2", "main", "high-1440", "Main",
        6},
    {1920, 1088, "", "video/mpeg,mpegversion=2", "main", "high", "Main", 4},
  };
  const guint n = 13;
  guint i, frames;

  for (i = 0; i < G_N_ELEMENTS (cases); i++) {
    guint w = cases[i].w, h = cases[i].h;
    Encoded e1, e2;
    gchar *props = g_strdup_printf ("quantizer=5 %s", cases[i].props);
    GstCaps *caps = encode_negotiated (props, cases[i].caps, w, h, n, 0,
        NULL, &e2);
    /* (MPEG-1 with MPEG-2's slices: one per row) */
    gchar *props1 = g_strdup_printf ("%s slices=175", props);
    GstCaps *caps1 = encode_negotiated (props1, "video/mpeg", w, h, n, 0,
        NULL, &e1);
    GstStructure *st = gst_caps_get_structure (caps, 0);
    gchar *name = g_strdup_printf ("mpeg2-%ux%u-%u.m2v", w, h, i);
    gchar *path = write_stream (name, e2.stream);
    gchar *path1 = write_stream ("mpeg2-as-mpeg1.m1v", e1.stream);
    gchar *probe = ffprobe_stream (path, "codec_name,profile,level,width,"
        "height");
    gchar *want = g_strdup_printf ("codec_name=mpeg2video\nprofile=%s\n"
        "width=%u\nheight=%u\nlevel=%d\n", cases[i].ff_profile, w, h,
        cases[i].ff_level);
    GByteArray *d1, *d2;
    guint8 *src = g_malloc (psnr_i420_size (w, h) * n);
    gdouble p1, p2;
    guint k;

    GST_INFO ("%ux%u to %s: %" GST_PTR_FORMAT, w, h, cases[i].caps, caps);
    fail_unless (gst_structure_has_name (st, "video/mpeg"));
    fail_unless_equals_string (gst_structure_get_string (st, "profile"),
        cases[i].profile);
    fail_unless_equals_string (gst_structure_get_string (st, "level"),
        cases[i].level);
    {
      gint v = 0;
      fail_unless (gst_structure_get_int (st, "mpegversion", &v));
      fail_unless_equals_int (v, 2);
      /* MPEG-1 where downstream allows both */
      fail_unless (gst_structure_get_int (gst_caps_get_structure (caps1, 0),
              "mpegversion", &v));
      fail_unless_equals_int (v, 1);
    }
    fail_unless_equals_string (probe, want);
    decode_check (path, n, w, h);
    {
      /* the checker: every macroblock, the VBV at the level's buffer */
      MpegCheckResult *r = check_stream (e2.stream, n, w, h);
      const MpegCheckSequence *sq = &g_array_index (r->sequences,
          MpegCheckSequence, 0);
      fail_unless (sq->mpeg2 && sq->progressive_sequence);
      fail_unless_equals_int (sq->profile_and_level,
          (g_str_equal (cases[i].profile, "simple") ? 0x50 : 0x40) |
          cases[i].ff_level);
      fail_unless (r->vbv_simulated);
      fail_unless_equals_int (r->n_underflows, 0);
      mpegcheck_result_free (r);
    }

    /* the same pictures and nearly the same bits as MPEG-1: only the
     * headers, the escapes, the mismatch control and the intra blocks'
     * table (B.15, a few percent shorter) differ */
    for (k = 0; k < n; k++) {
      guint8 *f = natural_frame (w, h, k, clip_pan_x, clip_pan_y, 7);
      memcpy (src + (gsize) k * psnr_i420_size (w, h), f,
          psnr_i420_size (w, h));
      g_free (f);
    }
    d1 = ffmpeg_decode (path1, NULL, &frames, w, h);
    fail_unless_equals_int (frames, n);
    d2 = ffmpeg_decode (path, NULL, &frames, w, h);
    fail_unless_equals_int (frames, n);
    p1 = p2 = 0;
    for (k = 0; k < n; k++) {
      p1 += psnr_y (d1, k, src + (gsize) k * psnr_i420_size (w, h), w, h);
      p2 += psnr_y (d2, k, src + (gsize) k * psnr_i420_size (w, h), w, h);
    }
    p1 /= n;
    p2 /= n;
    GST_INFO ("%ux%u: MPEG-1 %u bytes %.3f dB, MPEG-2 %u bytes %.3f dB", w,
        h, e1.stream->len, p1, e2.stream->len, p2);
    /* (with a constant quantiser: the two streams' VBV buffers differ) */
    if (!*cases[i].props) {
      fail_unless (fabs (p1 - p2) < 0.1, "%ux%u: MPEG-2 %.3f dB, MPEG-1 "
          "%.3f dB", w, h, p2, p1);
      fail_unless (e2.stream->len < e1.stream->len * 1.03 &&
          e2.stream->len > e1.stream->len * 0.9, "%ux%u: MPEG-2 %u bytes, "
          "MPEG-1 %u", w, h, e2.stream->len, e1.stream->len);
    }

    g_byte_array_unref (d1);
    g_byte_array_unref (d2);
    g_free (src);
    g_free (want);
    g_free (probe);
    g_free (props);
    g_free (props1);
    g_free (path);
    g_free (path1);
    g_free (name);
    gst_caps_unref (caps);
    gst_caps_unref (caps1);
    encoded_free (&e1);
    encoded_free (&e2);
  }
}

GST_END_TEST;

/* PSNR-Y of each of the @n pictures of the stream at @path against the
 * natural clip encode_negotiated() codes: the mean, and the least in
 * *@least. */
static gdouble
clip_psnr (const gchar * path, guint w, guint h, guint n, gdouble * least)
{
  guint frames, k;
  GByteArray *dec = ffmpeg_decode (path, NULL, &frames, w, h);
  gdouble sum = 0;

  fail_unless_equals_int (frames, n);
  *least = 100;
  for (k = 0; k < n; k++) {
    guint8 *f = natural_frame (w, h, k, clip_pan_x, clip_pan_y, 7);
    gdouble p = psnr_y (dec, k, f, w, h);
    sum += p;
    *least = MIN (*least, p);
    g_free (f);
  }
  g_byte_array_unref (dec);
  return sum / n;
}

/* Frame @k of an interlaced clip woven from the natural one at twice the
 * rate: the first field (the top one where @tff) shows moment 2 @k, the
 * second 2 @k + 1, in every plane. */
static guint8 *
woven_frame (guint w, guint h, guint k, gboolean tff)
{
  guint8 *first = natural_frame (w, h, 2 * k, clip_pan_x, clip_pan_y, 7);
  guint8 *second = natural_frame (w, h, 2 * k + 1, clip_pan_x, clip_pan_y,
      7);
  gsize cw = (w + 1) / 2, ch = (h + 1) / 2;
  gsize start[3] = { 0, (gsize) w * h, (gsize) w * h + cw * ch };
  guint plane, y;

  for (plane = 0; plane < 3; plane++) {
    gsize pw = plane ? cw : w, ph = plane ? ch : h;
    /* the lines of the second field */
    for (y = tff ? 1 : 0; y < ph; y += 2)
      memcpy (first + start[plane] + y * pw, second + start[plane] + y * pw,
          pw);
  }
  g_free (second);
  return first;
}

/* Encodes @n woven_frame()s (@tff) at 25 fps through clmpegenc @props !
 * MPEG-2 into @e, with the input caps' @fields past the size; @mixed:
 * every third frame is progressive (the natural clip's frame 2 k), the
 * others flagged interlaced (and TFF where @tff) */
static void
encode_woven (const gchar * props, guint w, guint h, guint n, gboolean tff,
    const gchar * fields, gboolean mixed, Encoded * e)
{
  gchar *launch = g_strdup_printf ("clmpegenc %s ! capsfilter caps="
      "video/mpeg,mpegversion=2", props);
  GstHarness *hn = harness_new_parse (launch);
  gchar *in_caps = g_strdup_printf ("video/x-raw,format=I420,width=%u,"
      "height=%u,framerate=25/1,pixel-aspect-ratio=1/1,%s", w, h, fields);
  guint k;

  encoded_init (e);
  gst_harness_set_src_caps_str (hn, in_caps);
  for (k = 0; k < n; k++) {
    gboolean progressive = mixed && k % 3 == 2;
    guint8 *f = progressive ? natural_frame (w, h, 2 * k, clip_pan_x,
        clip_pan_y, 7) : woven_frame (w, h, k, tff);
    GstBuffer *b = i420_buffer (f, w, h, k * GST_SECOND / 25,
        GST_SECOND / 25);
    if (mixed && !progressive)
      GST_BUFFER_FLAG_SET (b, GST_VIDEO_BUFFER_FLAG_INTERLACED);
    if (mixed && tff)
      GST_BUFFER_FLAG_SET (b, GST_VIDEO_BUFFER_FLAG_TFF);
    fail_unless_equals_int (gst_harness_push (hn, b), GST_FLOW_OK);
    g_free (f);
    pull_all (hn, e);
  }
  finish_harness (hn, e);
  g_free (in_caps);
  g_free (launch);
}

/* PSNR-Y of the decoding of @path against the frames encode_woven()
 * encoded (@tff, @mixed); the least frame's in *@least */
static gdouble
woven_psnr (const gchar * path, guint w, guint h, guint n, gboolean tff,
    gboolean mixed, gdouble * least)
{
  guint frames, k;
  GByteArray *dec = ffmpeg_decode (path, NULL, &frames, w, h);
  gdouble sum = 0;

  fail_unless_equals_int (frames, n);
  *least = 100;
  for (k = 0; k < n; k++) {
    guint8 *f = mixed && k % 3 == 2 ? natural_frame (w, h, 2 * k,
        clip_pan_x, clip_pan_y, 7) : woven_frame (w, h, k, tff);
    gdouble p = psnr_y (dec, k, f, w, h);
    sum += p;
    *least = MIN (*least, p);
    g_free (f);
  }
  g_byte_array_unref (dec);
  return sum / n;
}

/* Interlaced input, MPEG-2: an interlaced sequence (progressive_sequence
 * 0) whose frames have two fields (progressive_frame 0; in mixed input
 * the frames the buffers call progressive are progressive ones) in the
 * field order of the caps or the buffers, each macroblock in frame or
 * field blocks, both kinds used, the levels in alternate scan order, some
 * macroblocks of P and B pictures predicted field by field; the stream passes the checker (every
 * macroblock; the VBV at a bit rate) and three decoders, ffprobe reports
 * the field order, and the pictures are better than those of the same
 * frames coded as progressive ones at the same bit rate (at a constant
 * quantiser: than the progressive codings' at quantisers 5 and 4
 * interpolated to its size). Heights that are no multiple of 32 take
 * whole macroblock rows in each field. */
GST_START_TEST (test_interlaced)
{
  static const struct
  {
    const gchar *props;
    gboolean tff, mixed;
    const gchar *fields;
    guint h;
  } cases[] = {
    {"", TRUE, FALSE, "interlace-mode=interleaved,"
          "field-order=top-field-first", 160},
    {"b-frames=2", FALSE, FALSE, "interlace-mode=interleaved,"
          "field-order=bottom-field-first", 160},
    {"b-frames=2 bitrate=700", TRUE, FALSE, "interlace-mode=interleaved",
        160},
    {"", TRUE, TRUE, "interlace-mode=mixed", 160},
    {"b-frames=1", FALSE, TRUE, "interlace-mode=mixed", 120},
    /* the field search around the top fields' vectors too */
    {"speed-preset=slow b-frames=1", TRUE, TRUE, "interlace-mode=mixed", 160},
  };
  const guint w = 176, n = 24;
  guint i, k;

  for (i = 0; i < G_N_ELEMENTS (cases); i++) {
    gchar *props = g_strdup_printf ("quantizer=5 gop-size=12 %s",
        cases[i].props);
    gchar *props1 = g_strdup_printf ("%s quantizer=4", props);
    gchar *name = g_strdup_printf ("interlaced-%u.m2v", i);
    gchar *name0 = g_strdup_printf ("interlaced-%u-progressive.m2v", i);
    gchar *name1 = g_strdup_printf ("interlaced-%u-progressive-q4.m2v", i);
    gchar *path, *path0, *path1 = NULL, *order;
    gboolean tff = cases[i].tff, mixed = cases[i].mixed, cq;
    guint h = cases[i].h, field_dct = 0, field_motion = 0, mbs = 0;
    guint b_field_motion = 0;
    Encoded e, e0, e1;
    MpegCheckResult *r;
    MpegCheckSequence *seq;
    gdouble p, p0, p1, least, least0, least1;

    GST_INFO ("%s %s", props, cases[i].fields);
    cq = strstr (props, "bitrate") == NULL;
    encode_woven (props, w, h, n, tff, cases[i].fields, mixed, &e);
    encode_woven (props, w, h, n, tff, "interlace-mode=progressive", mixed,
        &e0);
    r = check_stream (e.stream, n, w, h);
    seq = &g_array_index (r->sequences, MpegCheckSequence, 0);
    fail_unless (!seq->progressive_sequence);
    for (k = 0; k < r->pictures->len; k++) {
      MpegCheckPicture *pic = &g_array_index (r->pictures, MpegCheckPicture,
          k);
      /* (display order: temporal_reference from the GOP's start) */
      guint t = k / 12 * 12 + pic->temporal_reference;
      gboolean progressive = mixed && t % 3 == 2;
      fail_unless_equals_int (pic->top_field_first, tff);
      fail_unless_equals_int (pic->progressive_frame, progressive);
      fail_unless_equals_int (pic->frame_pred_frame_dct, progressive);
      /* frames of two fields scan in alternate order */
      fail_unless_equals_int (pic->alternate_scan, !progressive);
      if (progressive)
        fail_unless_equals_int (pic->n_mb_field_dct, 0);
      if (progressive)
        fail_unless_equals_int (pic->n_mb_field_motion, 0);
      field_dct += pic->n_mb_field_dct;
      field_motion += pic->n_mb_field_motion;
      if (pic->coding_type == 3)
        b_field_motion += pic->n_mb_field_motion;
      mbs += pic->n_mb_coded;
    }
    /* B pictures predict field by field too */
    fail_unless ((b_field_motion > 0) == (strstr (props, "b-frames") !=
            NULL), "%s: %u B macroblocks predicted field by field", props,
        b_field_motion);
    GST_INFO ("%u of %u macroblocks in field blocks, %u predicted field by "
        "field", field_dct, mbs, field_motion);
    fail_unless (field_dct > 0 && field_dct < mbs);
    fail_unless (field_motion > 0);
    if (!cq) {
      fail_unless (r->vbv_simulated);
      fail_unless_equals_int (r->n_underflows, 0);
    }
    mpegcheck_result_free (r);
    r = check_stream (e0.stream, n, w, h);
    seq = &g_array_index (r->sequences, MpegCheckSequence, 0);
    fail_unless (seq->progressive_sequence);
    mpegcheck_result_free (r);

    path = write_stream (name, e.stream);
    path0 = write_stream (name0, e0.stream);
    decode_check (path, n, w, h);
    order = ffprobe_stream (path, "field_order");
    fail_unless (strstr (order, tff ? "field_order=tt" :
            "field_order=bb") != NULL, "%s: %s", props, order);
    p = woven_psnr (path, w, h, n, tff, mixed, &least);
    p0 = woven_psnr (path0, w, h, n, tff, mixed, &least0);
    GST_INFO ("%s: %u bytes, %.2f dB (least %.2f); as progressive frames "
        "%u bytes, %.2f dB (least %.2f)", props, e.stream->len, p, least,
        e0.stream->len, p0, least0);
    if (cq) {
      /* PSNR against log size through the two progressive codings */
      gdouble at;
      encode_woven (props1, w, h, n, tff, "interlace-mode=progressive",
          mixed, &e1);
      path1 = write_stream (name1, e1.stream);
      p1 = woven_psnr (path1, w, h, n, tff, mixed, &least1);
      at = p0 + (p1 - p0) * log ((gdouble) e.stream->len / e0.stream->len) /
          log ((gdouble) e1.stream->len / e0.stream->len);
      GST_INFO ("as progressive frames at quantiser 4: %u bytes, %.2f dB: "
          "%.2f dB at %u bytes", e1.stream->len, p1, at, e.stream->len);
      fail_unless (p > at, "%s: %u bytes at %.2f dB, as progressive frames "
          "%.2f dB", props, e.stream->len, p, at);
      encoded_free (&e1);
    } else {
      fail_unless (p > p0, "%s: %.2f dB, as progressive frames %.2f", props,
          p, p0);
    }

    g_free (order);
    g_free (path);
    g_free (path0);
    g_free (path1);
    g_free (name);
    g_free (name0);
    g_free (name1);
    g_free (props);
    g_free (props1);
    encoded_free (&e);
    encoded_free (&e0);
  }
}

GST_END_TEST;

/* The @n buffers of @e carry each presentation timestamp of @ref's
 * once (in any order), and decoding timestamps that rise and never pass
 * their buffer's presentation one */
static void
check_timestamps (const Encoded * e, const Encoded * ref, guint n,
    const gchar * what)
{
  const GstClockTime *pts = (GstClockTime *) e->pts->data;
  const GstClockTime *dts = (GstClockTime *) e->dts->data;
  guint j, k;

  fail_unless_equals_int (e->pts->len, n);
  for (k = 0; k < n; k++) {
    guint seen = 0;
    for (j = 0; j < n; j++)
      seen += pts[j] == g_array_index (ref->pts, GstClockTime, k);
    fail_unless_equals_int (seen, 1);
    fail_unless (dts[k] <= pts[k] && (k == 0 || dts[k] > dts[k - 1]),
        "%s: buffer %u: PTS %" GST_TIME_FORMAT ", DTS %" GST_TIME_FORMAT
        " (the one before %" GST_TIME_FORMAT ")", what, k,
        GST_TIME_ARGS (pts[k]), GST_TIME_ARGS (dts[k]),
        GST_TIME_ARGS (k ? dts[k - 1] : 0));
  }
}

/* Encodes @n frames of the natural clip at 24000/1001 fps (their
 * timestamps at that rate) through clmpegenc @props ! MPEG-2 into @e */
static void
encode_film (const gchar * props, guint w, guint h, guint n, Encoded * e)
{
  gchar *launch = g_strdup_printf ("clmpegenc %s ! capsfilter caps="
      "video/mpeg,mpegversion=2", props);
  GstHarness *hn = harness_new_parse (launch);
  gchar *in_caps = g_strdup_printf ("video/x-raw,format=I420,width=%u,"
      "height=%u,framerate=24000/1001,pixel-aspect-ratio=1/1", w, h);
  guint k;

  encoded_init (e);
  gst_harness_set_src_caps_str (hn, in_caps);
  for (k = 0; k < n; k++) {
    guint8 *f = natural_frame (w, h, k, clip_pan_x, clip_pan_y, 7);
    GstClockTime t = gst_util_uint64_scale (k, 1001 * GST_SECOND, 24000);
    GstClockTime next = gst_util_uint64_scale (k + 1, 1001 * GST_SECOND,
        24000);
    fail_unless_equals_int (gst_harness_push (hn, i420_buffer (f, w, h, t,
                next - t)), GST_FLOW_OK);
    g_free (f);
    pull_all (hn, e);
  }
  finish_harness (hn, e);
  g_free (in_caps);
  g_free (launch);
}

/* ffprobe's repeat_pict and top_field_first of each frame of @path, in
 * display order, as "rt" pairs of digits */
static gchar *
ffprobe_field_flags (const gchar * path)
{
  gchar *cmd = g_strdup_printf ("ffprobe -v error -select_streams v:0 "
      "-show_entries frame=repeat_pict,top_field_first -of csv=p=0 %s",
      path);
  gchar *out = NULL, *err = NULL, **lines, **l;
  gint status = 0;
  GString *flags = g_string_new (NULL);

  fail_unless (g_spawn_command_line_sync (cmd, &out, &err, &status, NULL)
      && g_spawn_check_wait_status (status, NULL), "ffprobe failed on %s: "
      "%s", path, err);
  lines = g_strsplit (out, "\n", -1);
  for (l = lines; *l; l++) {
    gint tff, rff;
    /* (the columns come in the order ffprobe keeps them) */
    if (sscanf (*l, "%d,%d", &tff, &rff) == 2)
      g_string_append_printf (flags, "%d%d", rff, tff);
  }
  g_strfreev (lines);
  g_free (out);
  g_free (err);
  g_free (cmd);
  return g_string_free (flags, FALSE);
}

/* Frame @i of a @w x @h test clip that changes scene at frame @cut */
typedef guint8 *(*ClipFrame) (guint w, guint h, guint i, guint cut);

/* Frame @i of the natural clip up to frame @cut, of the synthetic one from
 * there */
static guint8 *
natural_then_synthetic_frame (guint w, guint h, guint i, guint cut)
{
  return i < cut ? natural_frame (w, h, i, clip_pan_x, clip_pan_y, 7) :
      synthetic_frame (w, h, i);
}

/* Frames @first to @n - 1 of @frame_at (scene changed at @cut), coded
 * with @props and "frame-offset" @first, into @e; the element's
 * scene-cuts count in *@cuts where it is not NULL */
static void
encode_frames (const gchar * props, guint w, guint h_, guint first,
    guint n, ClipFrame frame_at, guint cut, Encoded * e, guint64 * cuts)
{
  GstHarness *h = harness_new (props);
  GstClockTime dur = GST_SECOND / 25;
  guint i;

  encoded_init (e);
  g_object_set (h->element, "frame-offset", (guint64) first, NULL);
  set_caps (h, w, h_, 25, "I420");
  for (i = first; i < n; i++) {
    guint8 *f = frame_at (w, h_, i, cut);
    fail_unless_equals_int (gst_harness_push (h, i420_buffer (f, w, h_,
                (i - first) * dur, dur)), GST_FLOW_OK);
    g_free (f);
    pull_all (h, e);
  }
  fail_unless (gst_harness_push_event (h, gst_event_new_eos ()));
  pull_all (h, e);
  if (cuts) {
    GstStructure *stats;
    g_object_get (h->element, "stats", &stats, NULL);
    fail_unless (gst_structure_get (stats, "scene-cuts", G_TYPE_UINT64,
            cuts, NULL));
    gst_structure_free (stats);
  }
  test_harness_teardown (h);
}

/* scene-cut: the P picture at a cut comes out intra and is coded again as
 * an I picture that starts a GOP (with its sequence header and a time
 * code that says where it is), and the GOP counts from there; at a
 * constant quantiser and at a bit rate (the buffer model holds). Nothing
 * changes without a cut, on the last picture of a GOP, or with B
 * pictures (the same bytes as without scene-cut). */
GST_START_TEST (test_scene_cut)
{
  static const struct
  {
    const gchar *props;
    guint cut;
    /* display places of the I pictures, then 0 */
    guint intra[4];
    gboolean same_without;      /* the bytes of scene-cut=0 */
  } cases[] = {
    {"quantizer=5", 7, {0, 7, 19, 0}, FALSE},
    {"bitrate=900", 7, {0, 7, 19, 0}, FALSE},
    /* the cut on a GOP's last picture: the next GOP starts anyway */
    {"quantizer=5", 11, {0, 12, 24, 0}, TRUE},
    {"quantizer=5 b-frames=2", 7, {0, 12, 24, 0}, TRUE},
    /* no cut at all */
    {"quantizer=5", 26, {0, 12, 24, 0}, TRUE},
  };
  const guint w = 176, h = 144, n = 26;
  guint c, k;

  for (c = 0; c < G_N_ELEMENTS (cases); c++) {
    gchar *props = g_strdup_printf ("gop-size=12 scene-cut=50 %s",
        cases[c].props);
    gchar *props0 = g_strdup_printf ("gop-size=12 scene-cut=0 %s",
        cases[c].props);
    gchar *name = g_strdup_printf ("scene-cut-%u.m1v", c);
    guint64 cuts, cuts0;
    MpegCheckResult *r, *r0;
    gchar *path;
    Encoded e, e0;
    guint i, first = 0, in_gop = 0, types[26];

    encode_frames (props, w, h, 0, n, natural_then_synthetic_frame,
        cases[c].cut, &e, &cuts);
    encode_frames (props0, w, h, 0, n, natural_then_synthetic_frame,
        cases[c].cut, &e0, &cuts0);
    r = check_stream (e.stream, n, w, h);
    r0 = check_stream (e0.stream, n, w, h);
    fail_unless_equals_int (cuts0, 0);
    fail_unless_equals_int (cuts, cases[c].same_without ? 0 : 1);
    /* (display order: closed GOPs, each numbered from its start) */
    memset (types, 0, sizeof (types));
    for (k = 0; k < r->pictures->len; k++) {
      const MpegCheckPicture *p = &g_array_index (r->pictures,
          MpegCheckPicture, k);
      if (p->temporal_reference == 0 && k > 0)
        first += in_gop;
      in_gop = p->temporal_reference == 0 ? 1 : in_gop + 1;
      fail_unless (first + p->temporal_reference < n);
      types[first + p->temporal_reference] = p->coding_type;
    }
    for (k = 0; k < n; k++) {
      gboolean intra = FALSE;
      for (i = 0; i < 4; i++)
        intra |= cases[c].intra[i] == k && (i == 0 || k > 0);
      fail_unless_equals_int (types[k] == 1, intra);
    }
    /* at the cut, without scene-cut: a P picture of intra macroblocks */
    if (cases[c].cut < n && !strstr (props, "b-frames")) {
      const MpegCheckPicture *p = &g_array_index (r0->pictures,
          MpegCheckPicture, cases[c].cut);
      fail_unless_equals_int (p->coding_type, 2);
      fail_unless (p->n_mb_intra * 2 >= w / 16 * (h / 16), "%s: %u intra "
          "macroblocks at the cut", props0, p->n_mb_intra);
    }
    /* (each I picture starts a GOP, and a sequence) */
    fail_unless_equals_int (r->n_gops, r->n_type[1]);
    fail_unless_equals_int (r->n_seq_headers, r->n_type[1]);
    if (cases[c].same_without)
      fail_unless (same_stream (&e, &e0), "%s: other bytes than without "
          "scene-cut", props);
    if (strstr (props, "bitrate")) {
      fail_unless (r->vbv_simulated);
      fail_unless_equals_int (r->n_underflows, 0);
    }
    path = write_stream (name, e.stream);
    decode_check (path, n, w, h);
    mpegcheck_result_free (r);
    mpegcheck_result_free (r0);
    encoded_free (&e);
    encoded_free (&e0);
    g_free (path);
    g_free (name);
    g_free (props);
    g_free (props0);
  }
}

GST_END_TEST;

/* 3:2 pulldown of 23.976 fps film, with and without B pictures, at a
 * constant quantiser and at constant and variable bit rates, GOPs
 * starting at every place of the cadence: an interlaced sequence at
 * 29.97 fps of progressive frames shown for 3, 2, 3, 2 fields (display
 * order: top first and repeated, bottom first, bottom first and
 * repeated, top first), as the checker reads the stream and ffprobe the
 * decoded frames; the checker's VBV model, which follows each picture's
 * display time, agrees with every vbv_delay and sees no underflow; the
 * timestamps are the input's; three decoders give every frame. The
 * pictures are those of the same encode without pulldown (at a constant
 * quantiser the same decoded frames), in as many bits a second at a bit
 * rate. */
GST_START_TEST (test_pulldown)
{
  static const gchar *cases[] = {
    "quantizer=5",
    "quantizer=5 b-frames=2",
    "b-frames=1 bitrate=500",
    "b-frames=2 bitrate=400 max-bitrate=800",
  };
  /* (GOPs of 7 start at display places 0, 7, 14, 21: each phase) */
  const guint w = 176, h = 160, n = 27, gop = 7;
  guint i, k;

  for (i = 0; i < G_N_ELEMENTS (cases); i++) {
    gchar *props = g_strdup_printf ("gop-size=%u pulldown=true %s", gop,
        cases[i]);
    gchar *props0 = g_strdup_printf ("gop-size=%u %s", gop, cases[i]);
    gchar *name = g_strdup_printf ("pulldown-%u.m2v", i);
    gchar *name0 = g_strdup_printf ("pulldown-%u-film.m2v", i);
    gboolean cq = strstr (cases[i], "bitrate") == NULL;
    GString *expect = g_string_new (NULL);
    gchar *path, *path0, *flags;
    MpegCheckResult *r, *r0;
    MpegCheckSequence *seq;
    MpegCheckPicture *first;
    guint frames, frames0, phase;
    GByteArray *dec, *dec0;
    Encoded e, e0;

    encode_film (props, w, h, n, &e);
    encode_film (props0, w, h, n, &e0);
    r = check_stream (e.stream, n, w, h);
    r0 = check_stream (e0.stream, n, w, h);
    seq = &g_array_index (r->sequences, MpegCheckSequence, 0);
    fail_unless (!seq->progressive_sequence);
    fail_unless_equals_int (seq->frame_rate_code, 4);
    /* the cadence's phase: the first picture's place in the stream, 0
     * (with B pictures too, whose output timestamps start a frame late) */
    first = &g_array_index (r->pictures, MpegCheckPicture, 0);
    phase = first->repeat_first_field ? (first->top_field_first ? 0 : 2) :
        (first->top_field_first ? 3 : 1);
    fail_unless_equals_int (phase, 0);
    for (k = 0; k < r->pictures->len; k++) {
      MpegCheckPicture *pic = &g_array_index (r->pictures, MpegCheckPicture,
          k);
      /* (display order: temporal_reference from the GOP's start) */
      guint t = k / gop * gop + pic->temporal_reference + phase;
      fail_unless_equals_int (pic->progressive_frame, 1);
      fail_unless_equals_int (pic->frame_pred_frame_dct, 1);
      fail_unless_equals_int (pic->alternate_scan, 0);
      fail_unless (pic->repeat_first_field == (t % 2 == 0) &&
          pic->top_field_first == (t % 4 == 0 || t % 4 == 3),
          "%s: picture %u (display %u): repeat_first_field %u, "
          "top_field_first %u", props, k, t, pic->repeat_first_field,
          pic->top_field_first);
    }
    for (k = phase; k < n + phase; k++)
      g_string_append_printf (expect, "%d%d", k % 2 == 0, k % 4 == 0 ||
          k % 4 == 3);
    if (!cq) {
      GST_INFO ("%s: %.1f kbit/s, without pulldown %.1f", props,
          r->average_bitrate / 1000, r0->average_bitrate / 1000);
      fail_unless (r->vbv_simulated);
      fail_unless_equals_int (r->n_underflows, 0);
      fail_unless (fabs (r->average_bitrate / r0->average_bitrate - 1) <
          0.05, "%s: %.0f bit/s, without pulldown %.0f", props,
          r->average_bitrate, r0->average_bitrate);
    }
    check_timestamps (&e, &e0, n, props);

    path = write_stream (name, e.stream);
    path0 = write_stream (name0, e0.stream);
    decode_check (path, n, w, h);
    flags = ffprobe_field_flags (path);
    fail_unless_equals_string (flags, expect->str);
    dec = ffmpeg_decode (path, NULL, &frames, w, h);
    dec0 = ffmpeg_decode (path0, NULL, &frames0, w, h);
    fail_unless_equals_int (frames, n);
    fail_unless_equals_int (frames0, n);
    if (cq) {
      fail_unless (dec->len == dec0->len && memcmp (dec->data, dec0->data,
              dec->len) == 0, "%s: other pictures than without pulldown",
          props);
    } else {
      gdouble p = 0, p0 = 0;
      for (k = 0; k < n; k++) {
        guint8 *f = natural_frame (w, h, k, clip_pan_x, clip_pan_y, 7);
        p += psnr_y (dec, k, f, w, h) / n;
        p0 += psnr_y (dec0, k, f, w, h) / n;
        g_free (f);
      }
      GST_INFO ("%s: %.2f dB, without pulldown %.2f", props, p, p0);
      fail_unless (p > p0 - 0.3, "%s: %.2f dB, without pulldown %.2f dB",
          props, p, p0);
    }

    g_byte_array_unref (dec);
    g_byte_array_unref (dec0);
    mpegcheck_result_free (r);
    mpegcheck_result_free (r0);
    g_string_free (expect, TRUE);
    g_free (flags);
    g_free (path);
    g_free (path0);
    g_free (name);
    g_free (name0);
    g_free (props);
    g_free (props0);
    encoded_free (&e);
    encoded_free (&e0);
  }
}

GST_END_TEST;

/* B pictures, MPEG-1 and MPEG-2, one to three between anchors, at a
 * constant quantiser and at constant and variable bit rates: the buffers
 * come out in coding order (each anchor before the B pictures that
 * precede it), every presentation timestamp once, the decoding ones a
 * frame apart, a frame behind the earliest presentation one left and
 * never past the buffer's own; the GOPs start at the I pictures, the last
 * picture of each is a P picture; the stream passes the checker (every
 * macroblock, and the VBV at a bit rate) and three decoders, to pictures
 * as good as those without B pictures within a dB, in fewer bits at a
 * constant quantiser. */
GST_START_TEST (test_b_frames)
{
  static const struct
  {
    guint b_frames, gop;
    const gchar *props, *caps;
  } cases[] = {
    {2, 12, "", "video/mpeg,mpegversion=1"},
    {2, 12, "", "video/mpeg,mpegversion=2"},
    {1, 7, "", "video/mpeg,mpegversion=1"},
    {3, 12, "", "video/mpeg,mpegversion=2"},
    {3, 12, "bitrate=500", "video/mpeg,mpegversion=2"},
    {2, 12, "bitrate=300 max-bitrate=900", "video/mpeg,mpegversion=2"},
    {2, 9, "bitrate=400", "video/mpeg,mpegversion=1"},
  };
  const guint w = 176, h = 144, n = 29;
  const GstClockTime dur = GST_SECOND / 25;
  guint i, k;

  for (i = 0; i < G_N_ELEMENTS (cases); i++) {
    guint b = cases[i].b_frames, gop = cases[i].gop, n_b = 0, n_gops;
    gchar *props = g_strdup_printf ("quantizer=5 gop-size=%u %s", gop,
        cases[i].props);
    gchar *props_b = g_strdup_printf ("%s b-frames=%u b-adapt=false", props,
        b);
    gchar version = cases[i].caps[strlen (cases[i].caps) - 1];
    gchar *name = g_strdup_printf ("b-frames-%u.m%cv", i, version);
    gchar *name0 = g_strdup_printf ("b-frames-%u-none.m%cv", i, version);
    gchar *path, *path0;
    Encoded e, e0;
    GstCaps *caps = encode_negotiated (props_b, cases[i].caps, w, h, n, 0,
        NULL, &e);
    GstCaps *caps0 = encode_negotiated (props, cases[i].caps, w, h, n, 0,
        NULL, &e0);
    GstClockTime first = G_MAXUINT64, latest = 0;
    GstClockTime *pts = (GstClockTime *) e.pts->data;
    GstClockTime *dts = (GstClockTime *) e.dts->data;
    gboolean *seen = g_new0 (gboolean, n);
    MpegCheckResult *r;
    gdouble p, p0, least, least0;

    GST_INFO ("%s %s", props_b, cases[i].caps);
    fail_unless_equals_int (e.pts->len, n);
    for (k = 0; k < n; k++)
      first = MIN (first, pts[k]);
    for (k = 0; k < n; k++) {
      guint t = (pts[k] - first) / dur;
      /* each frame once, on its own frame's time */
      fail_unless (t < n && !seen[t] && pts[k] == first + t * dur,
          "%s: buffer %u at %" GST_TIME_FORMAT, props_b, k,
          GST_TIME_ARGS (pts[k]));
      seen[t] = TRUE;
      fail_unless (dts[k] == first + k * dur - dur, "%s: buffer %u: DTS %"
          GST_TIME_FORMAT, props_b, k, GST_TIME_ARGS (dts[k]));
      fail_unless (dts[k] <= pts[k]);
      /* a B picture comes after the anchor behind it */
      if (pts[k] < latest)
        n_b++;
      latest = MAX (latest, pts[k]);
    }
    n_gops = (n + gop - 1) / gop;
    fail_unless_equals_int (e.n_sync, n_gops);
    /* B pictures wherever the GOP has room for them: between anchors
     * b + 1 apart, the last of each GOP a P picture */
    {
      guint want = 0, pos;
      for (k = 0; k < n; k++) {
        guint len = MIN (gop, n - k / gop * gop);
        pos = k % gop;
        want += pos > 0 && pos % (b + 1) != 0 && pos + 1 < len;
      }
      fail_unless_equals_int (n_b, want);
    }

    r = check_stream (e.stream, n, w, h);
    fail_unless_equals_int (r->n_type[3], n_b);
    fail_unless_equals_int (r->n_gops, n_gops);
    {
      guint backward = 0, interpolated = 0;
      for (k = 0; k < r->pictures->len; k++) {
        MpegCheckPicture *pic = &g_array_index (r->pictures,
            MpegCheckPicture, k);
        backward += pic->n_mb_backward;
        interpolated += pic->n_mb_interpolated;
      }
      fail_unless (backward > 0 && interpolated > 0);
    }
    if (*cases[i].props) {
      fail_unless (r->vbv_simulated);
      fail_unless_equals_int (r->n_underflows, 0);
    }
    mpegcheck_result_free (r);
    path = write_stream (name, e.stream);
    path0 = write_stream (name0, e0.stream);
    decode_check (path, n, w, h);
    p = clip_psnr (path, w, h, n, &least);
    p0 = clip_psnr (path0, w, h, n, &least0);
    GST_INFO ("%s: %u bytes, %.2f dB (least %.2f); without B pictures %u "
        "bytes, %.2f dB (least %.2f)", props_b, e.stream->len, p, least,
        e0.stream->len, p0, least0);
    fail_unless (p > p0 - 1.0 && least > least0 - 2.0, "%s: %.2f dB, "
        "least %.2f, without B pictures %.2f, %.2f", props_b, p, least, p0,
        least0);
    if (!*cases[i].props)
      fail_unless (e.stream->len < e0.stream->len, "%s: %u bytes, without "
          "B pictures %u", props_b, e.stream->len, e0.stream->len);

    g_free (seen);
    g_free (path);
    g_free (path0);
    g_free (name);
    g_free (name0);
    g_free (props);
    g_free (props_b);
    gst_caps_unref (caps);
    gst_caps_unref (caps0);
    encoded_free (&e);
    encoded_free (&e0);
  }
}

GST_END_TEST;

/* Two textures seen through each other (a reflection in a window), one
 * sliding right and one left by @pan pixels a frame, as frame @t of a
 * @w x @h I420 clip: no vector predicts both, so the residual grows with
 * the frames between a picture and its reference. */
static guint8 *
crossing_frame (guint w, guint h, guint t, gdouble pan)
{
  gsize cw = (w + 1) / 2, ch = (h + 1) / 2, k;
  guint8 *f = g_malloc (w * h + 2 * cw * ch);
  guint x, y;

  for (y = 0; y < h; y++)
    for (x = 0; x < w; x++) {
      gdouble a = x + pan * t, b = x - pan * t;
      gdouble v = 128 + 45 * sin (a * 0.31 + y * 0.07) * cos (y * 0.23) +
          45 * cos (b * 0.27 - y * 0.19);
      f[y * w + x] = (guint8) CLAMP (lround (v), 0, 255);
    }
  for (k = 0; k < 2 * cw * ch; k++)
    f[w * h + k] = 128;
  return f;
}

/* Frame @k of test_b_adapt's clips: the natural panning one, or
 * crossing_frame()'s. The pan is (2, 2) a frame, where B pictures save
 * about a fifth of the bits and b-adapt's share is near 0.75, clear of
 * its threshold; at (2, 1) they save a tenth, and the share, near the
 * threshold, may go either way. */
static guint8 *
b_adapt_frame (gboolean crossing, guint w, guint h, guint k)
{
  return crossing ? crossing_frame (w, h, k, 2) :
      natural_frame (w, h, k, 2, 2, 7);
}

/* Mean PSNR-Y of the @n pictures of the stream at @path against
 * b_adapt_frame()'s */
static gdouble
b_adapt_psnr (const gchar * path, gboolean crossing, guint w, guint h,
    guint n)
{
  guint frames, k;
  GByteArray *dec = ffmpeg_decode (path, NULL, &frames, w, h);
  gdouble sum = 0;

  fail_unless_equals_int (frames, n);
  for (k = 0; k < n; k++) {
    guint8 *f = b_adapt_frame (crossing, w, h, k);
    sum += psnr_y (dec, k, f, w, h);
    g_free (f);
  }
  g_byte_array_unref (dec);
  return sum / n;
}

/* Adaptive B pictures (b-adapt, on by default): on the panning clip,
 * where B pictures need fewer bits, every GOP has them; where each frame
 * brings new detail that only a P picture a frame on predicts cheaply,
 * the GOPs after the first have none but the two each tries between its
 * first two P pictures. Either way the stream is right: timestamps, the
 * checker, decoders. And on the first content the stream is smaller than
 * without B pictures, on the second smaller than with b-adapt=false. */
GST_START_TEST (test_b_adapt)
{
  const guint w = 176, h = 144, n = 48, gop = 12;
  guint c;

  for (c = 0; c < 2; c++) {
    gboolean crossing = c == 1;
    const gchar *variants[] = { "b-frames=2", crossing ? "b-frames=2 "
          "b-adapt=false" : "b-frames=0"
    };
    Encoded e[2];
    guint v, k, g, b_in_gop[4] = { 0 };
    MpegCheckResult *r;
    gchar *path, *path1;
    gdouble psnr[2];

    for (v = 0; v < 2; v++) {
      gchar *launch = g_strdup_printf ("clmpegenc quantizer=5 gop-size=%u %s "
          "! capsfilter caps=video/mpeg,mpegversion=2", gop, variants[v]);
      GstHarness *hn = harness_new_parse (launch);

      encoded_init (&e[v]);
      gst_harness_set_src_caps_str (hn, "video/x-raw,format=I420,width=176,"
          "height=144,framerate=25/1,pixel-aspect-ratio=1/1");
      for (k = 0; k < n; k++) {
        guint8 *f = b_adapt_frame (crossing, w, h, k);
        fail_unless_equals_int (gst_harness_push (hn, i420_buffer (f, w, h,
                    k * GST_SECOND / 25, GST_SECOND / 25)), GST_FLOW_OK);
        g_free (f);
        pull_all (hn, &e[v]);
      }
      fail_unless (gst_harness_push_event (hn, gst_event_new_eos ()));
      pull_all (hn, &e[v]);
      test_harness_teardown (hn);
      g_free (launch);
    }

    fail_unless_equals_int (e[0].pts->len, n);
    for (k = 0; k < n; k++) {
      GstClockTime *dts = (GstClockTime *) e[0].dts->data;
      /* (decoding order: a frame period apart, none after its display) */
      fail_unless_equals_uint64 (dts[k], dts[0] + k * GST_SECOND / 25);
      fail_unless (dts[k] <= ((GstClockTime *) e[0].pts->data)[k]);
    }
    r = check_stream (e[0].stream, n, w, h);
    fail_unless_equals_int (r->n_gops, n / gop);
    for (k = 0; k < r->pictures->len; k++) {
      MpegCheckPicture *pic = &g_array_index (r->pictures, MpegCheckPicture,
          k);
      /* (in coding order: a GOP's B pictures after its I picture) */
      g = 0;
      while (g + 1 < n / gop && k >= (g + 1) * gop)
        g++;
      b_in_gop[g] += pic->coding_type == 3;
    }
    for (g = 0; g < n / gop; g++) {
      GST_INFO ("%s content, GOP %u: %u B pictures", crossing ? "crossing" :
          "panning", g, b_in_gop[g]);
      if (crossing && g > 0)
        fail_unless (b_in_gop[g] <= 2, "GOP %u: %u B pictures", g,
            b_in_gop[g]);
      else
        fail_unless (b_in_gop[g] >= 6, "GOP %u: %u B pictures", g,
            b_in_gop[g]);
    }
    mpegcheck_result_free (r);
    path = write_stream (crossing ? "b-adapt-crossing.m2v" : "b-adapt-pan.m2v",
        e[0].stream);
    decode_check (path, n, w, h);
    path1 = write_stream (crossing ? "b-adapt-crossing-1.m2v" :
        "b-adapt-pan-1.m2v", e[1].stream);
    psnr[0] = b_adapt_psnr (path, crossing, w, h, n);
    psnr[1] = b_adapt_psnr (path1, crossing, w, h, n);
    GST_INFO ("%s content: %u bytes, %.2f dB; %s: %u bytes, %.2f dB",
        crossing ? "crossing" : "panning", e[0].stream->len, psnr[0],
        variants[1], e[1].stream->len, psnr[1]);
    /* the panning clip: fewer bits with B pictures, at a PSNR within
     * their coarser quantiser's cost; the crossing one: a better PSNR
     * than with B pictures throughout (its P pictures, coded finer, are
     * what the bits go to) */
    if (crossing)
      fail_unless (psnr[0] > psnr[1] + 0.2, "%.2f dB, %s: %.2f dB", psnr[0],
          variants[1], psnr[1]);
    else
      fail_unless (e[0].stream->len < e[1].stream->len &&
          psnr[0] > psnr[1] - 0.5, "%u bytes, %.2f dB; %s: %u bytes, "
          "%.2f dB", e[0].stream->len, psnr[0], variants[1],
          e[1].stream->len, psnr[1]);
    g_free (path);
    g_free (path1);
    encoded_free (&e[0]);
    encoded_free (&e[1]);
  }
}

GST_END_TEST;

/* Mean PSNR-Y of the @n pictures of @e (written to @name) against the
 * frames encode_negotiated() coded with luma noise of +-@noise */
static gdouble
noisy_clip_psnr (const Encoded * e, const gchar * name, guint w, guint h,
    guint n, guint noise)
{
  gchar *path = write_stream (name, e->stream);
  guint frames, k;
  GByteArray *dec = ffmpeg_decode (path, NULL, &frames, w, h);
  guint32 rng = 11;
  gdouble sum = 0;

  fail_unless_equals_int (frames, n);
  for (k = 0; k < n; k++) {
    guint8 *f = natural_frame (w, h, k, clip_pan_x, clip_pan_y, 7);
    gsize i;
    for (i = 0; noise && i < (gsize) w * h; i++)
      f[i] = CLAMP ((gint) f[i] + (gint) (test_rng_next (&rng) %
              (2 * noise + 1)) - (gint) noise, 0, 255);
    sum += psnr_y (dec, k, f, w, h);
    g_free (f);
  }
  g_byte_array_unref (dec);
  g_free (path);
  return sum / n;
}

/* The largest quantiser_scale_code of @e's slices, and the pictures with
 * q_scale_type 1 in *@non_linear */
static guint
stream_quant_max (const Encoded * e, guint n, guint w, guint h,
    guint * non_linear)
{
  MpegCheckResult *r;
  guint k, most = 0;

  r = check_stream (e->stream, n, w, h);
  *non_linear = 0;
  for (k = 0; k < r->pictures->len; k++) {
    MpegCheckPicture *pic = &g_array_index (r->pictures, MpegCheckPicture,
        k);
    most = MAX (most, pic->slice_quant_max);
    *non_linear += pic->q_scale_type;
  }
  mpegcheck_result_free (r);
  return most;
}

/* non-linear-quant: MPEG-2's non-linear quantiser scale. At the
 * quantisers both scales code (to 12) the stream decodes to the very
 * pictures the linear one does, every picture with q_scale_type 1 and
 * other codes; at a rate too low for noisy content it goes past the
 * linear scale's coarsest quantiser (codes 25 and up: quantiser_scale 64
 * to 112), the stream passes the checker (the VBV too) and its pictures
 * are within 0.5 dB of the linear scale's. MPEG-1 keeps the linear scale:
 * the same bytes. */
GST_START_TEST (test_non_linear_quant)
{
  static const gchar *constant[] = { "quantizer=2", "quantizer=5 b-frames=2",
    "quantizer=9"
  };
  const guint w = 176, h = 144, n = 13;
  guint c;

  for (c = 0; c < G_N_ELEMENTS (constant); c++) {
    gchar *props = g_strdup_printf ("%s non-linear-quant=true", constant[c]);
    Encoded e[2];
    GstCaps *caps[2];
    GByteArray *dec[2];
    gchar *path[2];
    guint v, frames, nl[2];

    caps[0] = encode_negotiated (constant[c], "video/mpeg,mpegversion=2", w,
        h, n, 0, NULL, &e[0]);
    caps[1] = encode_negotiated (props, "video/mpeg,mpegversion=2", w, h, n,
        0, NULL, &e[1]);
    for (v = 0; v < 2; v++) {
      stream_quant_max (&e[v], n, w, h, &nl[v]);
      path[v] = write_stream (v ? "non-linear.m2v" : "linear.m2v",
          e[v].stream);
      dec[v] = ffmpeg_decode (path[v], NULL, &frames, w, h);
      fail_unless_equals_int (frames, n);
    }
    fail_unless (nl[0] == 0 && nl[1] == n, "%s: q_scale_type 1 in %u and "
        "%u pictures", props, nl[0], nl[1]);
    fail_if (e[0].stream->len == e[1].stream->len &&
        memcmp (e[0].stream->data, e[1].stream->data, e[0].stream->len) == 0);
    fail_unless (dec[0]->len == dec[1]->len &&
        memcmp (dec[0]->data, dec[1]->data, dec[0]->len) == 0,
        "%s: decodes to other pictures than the linear scale", props);
    decode_check (path[1], n, w, h);
    for (v = 0; v < 2; v++) {
      g_byte_array_unref (dec[v]);
      g_free (path[v]);
      gst_caps_unref (caps[v]);
      encoded_free (&e[v]);
    }
    g_free (props);
  }

  /* a rate too low for the noisy clip */
  {
    const guint noise = 24, frames = 25;
    Encoded e[2];
    GstCaps *caps[2];
    guint most[2], nl[2], v;
    gdouble psnr[2];

    for (v = 0; v < 2; v++) {
      gchar *props = g_strdup_printf ("bitrate=60 non-linear-quant=%s",
          v ? "true" : "false");
      caps[v] = encode_negotiated (props, "video/mpeg,mpegversion=2", w, h,
          frames, noise, NULL, &e[v]);
      most[v] = stream_quant_max (&e[v], frames, w, h, &nl[v]);
      psnr[v] = noisy_clip_psnr (&e[v], v ? "non-linear-low.m2v" :
          "linear-low.m2v", w, h, frames, noise);
      g_free (props);
    }
    GST_INFO ("60 kbit/s: linear %u bytes, %.2f dB, codes to %u; non-linear "
        "%u bytes, %.2f dB, codes to %u", e[0].stream->len, psnr[0], most[0],
        e[1].stream->len, psnr[1], most[1]);
    fail_unless (nl[0] == 0 && nl[1] == frames);
    fail_unless (most[1] >= 25, "non-linear: codes up to %u only", most[1]);
    /* (noise at this rate is mostly lost either way: DC levels alone at
     * quantiser 31, or the few levels quantiser 56 keeps) */
    fail_unless (psnr[1] > psnr[0] - 0.5, "non-linear %.2f dB, linear %.2f",
        psnr[1], psnr[0]);
    for (v = 0; v < 2; v++) {
      gst_caps_unref (caps[v]);
      encoded_free (&e[v]);
    }
  }

  /* MPEG-1 */
  {
    Encoded e[2];
    GstCaps *caps[2];
    guint v;

    caps[0] = encode_negotiated ("bitrate=60", "video/mpeg,mpegversion=1",
        w, h, n, 24, NULL, &e[0]);
    caps[1] = encode_negotiated ("bitrate=60 non-linear-quant=true",
        "video/mpeg,mpegversion=1", w, h, n, 24, NULL, &e[1]);
    fail_unless (e[0].stream->len == e[1].stream->len &&
        memcmp (e[0].stream->data, e[1].stream->data, e[0].stream->len) == 0);
    for (v = 0; v < 2; v++) {
      gst_caps_unref (caps[v]);
      encoded_free (&e[v]);
    }
  }
}

GST_END_TEST;

/* Encodes @n frames (woven_frame()s where @interlaced, TFF; else the
 * natural clip) at @fps_n / @fps_d (@fields: the input caps' fields past
 * the size and rate) through @launch, which ends in a muxer, into @e */
static void
encode_muxed (const gchar * launch, guint w, guint h, guint n, gint fps_n,
    gint fps_d, const gchar * fields, gboolean interlaced, Encoded * e)
{
  GstHarness *hn = harness_new_parse (launch);
  gchar *caps = g_strdup_printf ("video/x-raw,format=I420,width=%u,"
      "height=%u,framerate=%d/%d,%s", w, h, fps_n, fps_d, fields);
  guint k;

  encoded_init (e);
  gst_harness_set_src_caps_str (hn, caps);
  for (k = 0; k < n; k++) {
    guint8 *f = interlaced ? woven_frame (w, h, k, TRUE) :
        natural_frame (w, h, k, clip_pan_x, clip_pan_y, 7);
    GstClockTime t = gst_util_uint64_scale (k, fps_d * GST_SECOND, fps_n);
    GstClockTime next = gst_util_uint64_scale (k + 1, fps_d * GST_SECOND,
        fps_n);
    fail_unless_equals_int (gst_harness_push (hn, i420_buffer (f, w, h, t,
                next - t)), GST_FLOW_OK);
    g_free (f);
  }
  fail_unless (gst_harness_push_event (hn, gst_event_new_eos ()));
  /* (the muxer pushes from a thread of its own) */
  for (;;) {
    GstBuffer *b = NULL;
    GstMapInfo map;
    fail_unless (gst_harness_pull_until_eos (hn, &b));
    if (!b)
      break;
    gst_buffer_map (b, &map, GST_MAP_READ);
    g_byte_array_append (e->stream, map.data, map.size);
    gst_buffer_unmap (b, &map);
    gst_buffer_unref (b);
  }
  test_harness_teardown (hn);
  g_free (caps);
}

/* With B pictures the timestamps carry through GStreamer's parser into
 * a transport stream and a program stream: FFmpeg decodes every frame
 * from each, in display order (each picture as good as coded: a
 * picture out of place in the panning clip would not be). */
GST_START_TEST (test_b_frames_muxed)
{
  static const gchar *muxers[] = { "mpegtsmux", "mpegpsmux" };
  const guint w = 176, h = 144, n = 26;
  guint m;

  for (m = 0; m < G_N_ELEMENTS (muxers); m++) {
    gchar *launch = g_strdup_printf ("clmpegenc quantizer=4 b-frames=2 ! "
        "video/mpeg,mpegversion=2 ! mpegvideoparse ! %s", muxers[m]);
    gchar *name = g_strdup_printf ("b-frames.%s", m ? "mpg" : "ts");
    gchar *path;
    Encoded e;
    gdouble p, least;

    encode_muxed (launch, w, h, n, 25, 1, "pixel-aspect-ratio=1/1", FALSE,
        &e);
    path = write_stream (name, e.stream);
    p = clip_psnr (path, w, h, n, &least);
    GST_INFO ("%s: %u bytes, %.2f dB, least %.2f", muxers[m], e.stream->len,
        p, least);
    fail_unless (least > 38.0, "%s: a picture at %.2f dB", muxers[m], least);
    encoded_free (&e);
    g_free (path);
    g_free (name);
    g_free (launch);
  }
}

GST_END_TEST;

/* What the formats are for: interlaced 480i ATSC at a constant rate with
 * B pictures and open GOPs in a transport stream, and 23.976 fps film on
 * an NTSC DVD by 3:2 pulldown with B pictures in a program stream. The
 * video FFmpeg takes out of each file (-c copy) passes the checker, VBV
 * and vbv_delay included, with the format's rate, buffer, profile and
 * level; FFmpeg decodes every frame from the muxed file, ffprobe reads
 * the field order of the interlaced one. */
GST_START_TEST (test_formats_muxed)
{
  static const struct
  {
    const gchar *props, *muxer, *fields, *field_order;
    guint w, h, bit_rate, vbv, profile_level, frame_rate_code;
    gint fps_n, fps_d;
    gboolean interlaced;
  } cases[] = {
    {"format=atsc rate-control=cbr bitrate=3000 b-frames=2 "
          "closed-gop=false", "mpegtsmux", "pixel-aspect-ratio=10/11,"
          "interlace-mode=interleaved,field-order=top-field-first", "tt",
        704, 480, 3000000, 488, 0x44, 4, 30000, 1001, TRUE},
    {"format=dvd pulldown=true bitrate=4000 b-frames=2", "mpegpsmux",
          "pixel-aspect-ratio=8/9", NULL, 720, 480, 9800000, 112, 0x48, 4,
        24000, 1001, FALSE},
  };
  const guint n = 24;
  guint c;

  for (c = 0; c < G_N_ELEMENTS (cases); c++) {
    guint w = cases[c].w, h = cases[c].h;
    gchar *launch = g_strdup_printf ("clmpegenc %s ! mpegvideoparse ! %s",
        cases[c].props, cases[c].muxer);
    gchar *name = g_strdup_printf ("format-%u.%s", c,
        g_str_equal (cases[c].muxer, "mpegtsmux") ? "ts" : "mpg");
    gchar *path, *es, *cmd, *data = NULL, *order;
    const MpegCheckSequence *sq;
    MpegCheckResult *r;
    MpegCheckOptions o;
    GByteArray *dec;
    gsize len = 0;
    guint frames;
    gchar *errs;
    Encoded e;

    encode_muxed (launch, w, h, n, cases[c].fps_n, cases[c].fps_d,
        cases[c].fields, cases[c].interlaced, &e);
    path = write_stream (name, e.stream);
    es = g_strdup_printf ("%s.m2v", path);
    cmd = g_strdup_printf ("ffmpeg -nostdin -v error -i %s -map 0:v -c copy "
        "-f mpeg2video -y %s", path, es);
    fail_unless (system (cmd) == 0, "%s", cmd);
    fail_unless (g_file_get_contents (es, &data, &len, NULL));
    mpegcheck_options_init (&o);
    o.expect_pictures = n;
    o.expect_width = w;
    o.expect_height = h;
    o.vbv_delay_tolerance = 2;
    r = mpegcheck_run ((const guint8 *) data, len, &o);
    errs = mpegcheck_errors_text (r);
    fail_unless (mpegcheck_passed (r), "%s: %s", cases[c].props, errs);
    sq = &g_array_index (r->sequences, MpegCheckSequence, 0);
    fail_unless_equals_int (sq->bit_rate_code * 400, cases[c].bit_rate);
    fail_unless_equals_int (sq->vbv_buffer_size_code, cases[c].vbv);
    fail_unless_equals_int (sq->profile_and_level, cases[c].profile_level);
    fail_unless_equals_int (sq->frame_rate_code, cases[c].frame_rate_code);
    fail_unless (!sq->progressive_sequence);
    fail_unless (r->vbv_simulated);
    fail_unless_equals_int (r->n_underflows, 0);
    dec = ffmpeg_decode (path, NULL, &frames, w, h);
    fail_unless_equals_int (frames, n);
    if (cases[c].field_order) {
      gchar *want = g_strdup_printf ("field_order=%s", cases[c].field_order);
      order = ffprobe_stream (es, "field_order");
      fail_unless (strstr (order, want) != NULL, "%s", order);
      g_free (order);
      g_free (want);
    }
    GST_INFO ("%s: %u bytes muxed, %" G_GSIZE_FORMAT " of video, %.0f "
        "kbit/s", cases[c].props, e.stream->len, len,
        r->average_bitrate / 1000);

    g_byte_array_unref (dec);
    mpegcheck_result_free (r);
    g_free (errs);
    g_free (data);
    g_free (cmd);
    g_free (es);
    g_free (path);
    g_free (name);
    g_free (launch);
    encoded_free (&e);
  }
}

GST_END_TEST;

/* closed_gop and broken_link of each GOP header of @s, as "cb" digit
 * pairs */
static gchar *
gop_flags (GByteArray * s)
{
  GString *flags = g_string_new (NULL);
  guint i;

  for (i = 0; i + 8 <= s->len; i++)
    if (memcmp (s->data + i, "\x00\x00\x01\xb8", 4) == 0)
      /* after 25 bits of time_code */
      g_string_append_printf (flags, "%u%u", (s->data[i + 7] >> 6) & 1,
          (s->data[i + 7] >> 5) & 1);
  return g_string_free (flags, FALSE);
}

/* Open GOPs (closed-gop=false), MPEG-1 and MPEG-2, one to three B
 * pictures, at a constant quantiser and at a constant bit rate: each GOP
 * after the first starts, in display order, with the B pictures coded
 * right after its I picture (temporal_references from them, closed_gop
 * 0, broken_link 0), which end the GOP before instead of a P picture; the stream passes the
 * checker (every macroblock; the VBV at a bit rate) and three decoders;
 * every timestamp once, decoding ones rising and never past the
 * presentation ones. At a constant quantiser it takes fewer bytes than
 * closed GOPs for pictures as good within 0.2 dB. */
GST_START_TEST (test_open_gop)
{
  /* (B pictures in every GOP, whether they pay or not) */
  static const gchar *cases[] = {
    "quantizer=5 b-frames=2 gop-size=9 b-adapt=false",
    "quantizer=5 b-frames=1 gop-size=8 b-adapt=false",
    "b-frames=3 bitrate=500 gop-size=12 b-adapt=false",
  };
  const guint w = 176, h = 144, n = 30;
  guint i, k;

  for (i = 0; i < G_N_ELEMENTS (cases); i++) {
    /* (MPEG-1 and MPEG-2) */
    guint version = 1 + i % 2;
    gchar *props = g_strdup_printf ("launch:clmpegenc closed-gop=false %s ! "
        "capsfilter caps=video/mpeg,mpegversion=%u", cases[i], version);
    gchar *props0 = g_strdup_printf ("launch:clmpegenc %s ! capsfilter "
        "caps=video/mpeg,mpegversion=%u", cases[i], version);
    gchar *name = g_strdup_printf ("open-gop-%u.m%uv", i, version);
    gchar *name0 = g_strdup_printf ("closed-gop-%u.m%uv", i, version);
    gboolean cq = strstr (cases[i], "bitrate") == NULL;
    MpegCheckOptions o;
    MpegCheckResult *r, *r0;
    GString *expect = g_string_new ("10");
    gchar *path, *errs, *flags;
    guint gops = 0;
    Encoded e, e0;

    encode_clip (props, w, h, n, TRUE, NULL, &e);
    encode_clip (props0, w, h, n, TRUE, NULL, &e0);
    mpegcheck_options_init (&o);
    o.expect_pictures = n;
    o.expect_width = w;
    o.expect_height = h;
    o.require_seq_header_per_gop = TRUE;
    o.vbv_delay_tolerance = 2;
    r = mpegcheck_run (e.stream->data, e.stream->len, &o);
    errs = mpegcheck_errors_text (r);
    fail_unless (mpegcheck_passed (r), "%s: %s", props, errs);
    g_free (errs);
    r0 = check_stream (e0.stream, n, w, h);
    if (!cq) {
      fail_unless (r->vbv_simulated);
      fail_unless_equals_int (r->n_underflows, 0);
    }
    /* after each I picture but the first, the B pictures before it */
    for (k = 0; k < r->pictures->len; k++) {
      const MpegCheckPicture *pic = &g_array_index (r->pictures,
          MpegCheckPicture, k), *next;
      guint lead = 0;
      if (pic->coding_type != 1 || pic->gop == 0)
        continue;
      gops++;
      g_string_append (expect, "00");
      while (k + 1 + lead < r->pictures->len) {
        next = &g_array_index (r->pictures, MpegCheckPicture, k + 1 + lead);
        if (next->coding_type != 3 || next->gop != pic->gop)
          break;
        fail_unless_equals_int (next->temporal_reference, lead);
        lead++;
      }
      fail_unless (lead > 0, "%s: GOP %u has no B picture before its I "
          "picture", props, pic->gop);
      fail_unless_equals_int (pic->temporal_reference, lead);
    }
    fail_unless (gops >= 2);
    flags = gop_flags (e.stream);
    fail_unless_equals_string (flags, expect->str);
    /* a B picture instead of a P picture at the end of each GOP */
    fail_unless_equals_int (r->n_type[3], r0->n_type[3] + gops);
    check_timestamps (&e, &e0, n, props);
    path = write_stream (name, e.stream);
    decode_check (path, n, w, h);
    if (cq) {
      gdouble p = clip_psnr_y (&e, name, w, h, n);
      gdouble p0 = clip_psnr_y (&e0, name0, w, h, n);
      GST_INFO ("%s: %u bytes, %.2f dB; closed GOPs %u bytes, %.2f dB",
          props, e.stream->len, p, e0.stream->len, p0);
      fail_unless (e.stream->len < e0.stream->len && p > p0 - 0.2,
          "%s: %u bytes, %.2f dB; closed GOPs %u bytes, %.2f dB", props,
          e.stream->len, p, e0.stream->len, p0);
    }
    mpegcheck_result_free (r);
    mpegcheck_result_free (r0);
    g_string_free (expect, TRUE);
    g_free (flags);
    g_free (path);
    g_free (name);
    g_free (name0);
    g_free (props);
    g_free (props0);
    encoded_free (&e);
    encoded_free (&e0);
  }
}

GST_END_TEST;

/* A key unit forced downstream starts a GOP at that frame, with and
 * without B pictures (the B frames waiting then end the GOP before it,
 * the last of them a P picture, also where GOPs are open): an I picture there, every frame out
 * once, a stream the checker and the decoders take. */
GST_START_TEST (test_force_key_unit)
{
  const guint w = 64, h = 48, n = 14, key = 5;
  const GstClockTime dur = GST_SECOND / 25;
  guint b, k;

  /* (b 3: 2 B pictures and open GOPs, which the key unit closes) */
  for (b = 0; b <= 3; b++) {
    gchar *props = g_strdup_printf ("quantizer=6 gop-size=30 b-frames=%u%s",
        MIN (b, 2), b == 3 ? " closed-gop=false" : "");
    gchar *name = g_strdup_printf ("force-key-%u.m1v", b);

    if (b == 1) {
      g_free (props);
      g_free (name);
      continue;
    }
    GstHarness *hn = harness_new (props);
    GstClockTime first = GST_CLOCK_TIME_NONE;
    MpegCheckResult *r;
    gchar *path;
    Encoded e;
    gboolean key_seen = FALSE;

    encoded_init (&e);
    set_caps (hn, w, h, 25, "I420");
    push_natural (hn, w, h, 0, key, 2, 1, 3, 0, &e);
    fail_unless (gst_harness_push_event (hn,
            gst_video_event_new_downstream_force_key_unit (key * dur,
                GST_CLOCK_TIME_NONE, GST_CLOCK_TIME_NONE, TRUE, 1)));
    push_natural (hn, w, h, key, n - key, 2, 1, 3, key, &e);
    finish_harness (hn, &e);

    fail_unless_equals_int (e.pts->len, n);
    fail_unless_equals_int (e.n_sync, 2);
    for (k = 0; k < n; k++)
      first = MIN (first, g_array_index (e.pts, GstClockTime, k));
    r = check_stream (e.stream, n, w, h);
    fail_unless_equals_int (r->n_gops, 2);
    fail_unless_equals_int (r->n_type[1], 2);
    for (k = 0; k < r->pictures->len; k++) {
      const MpegCheckPicture *pic = &g_array_index (r->pictures,
          MpegCheckPicture, k);
      /* the second GOP's I picture is the forced frame */
      if (pic->gop == 1 && pic->coding_type == 1) {
        fail_unless_equals_int (pic->temporal_reference, 0);
        fail_unless (g_array_index (e.pts, GstClockTime, k) ==
            first + key * dur);
        key_seen = TRUE;
      }
    }
    fail_unless (key_seen);
    mpegcheck_result_free (r);
    path = write_stream (name, e.stream);
    decode_check (path, n, w, h);
    encoded_free (&e);
    g_free (path);
    g_free (name);
    g_free (props);
  }
}

GST_END_TEST;

/* One frame of @w x @h at @fps (Y42B or I420, @fmt) into @hn (@what),
 * which must refuse it with an error that says @says; @hn torn down */
static void
expect_refused (GstHarness * hn, const gchar * what, guint w, guint h,
    gint fps, const gchar * fmt, const gchar * says)
{
  gboolean y42b = g_str_equal (fmt, "Y42B");
  guint8 *f = natural_frame_format (w, h, 0, 0, 0, 1, y42b);
  gchar *err;

  test_attach_bus (hn->element);
  set_caps (hn, w, h, fps, fmt);
  fail_if (gst_harness_push (hn, planar_buffer (f, w, h, y42b, 0, 0)) ==
      GST_FLOW_OK);
  err = test_pop_error_text (hn);
  GST_INFO ("%s: %s", what, err);
  fail_unless (strstr (err, says) != NULL, "%s: %s", what, err);
  g_free (err);
  g_free (f);
  test_harness_teardown (hn);
}

/* Mean PSNR of the chroma planes of the decoded 4:2:2 frames @dec against
 * the 4:2:2 clip encode_clip() codes, and that of the worst 8x8 chroma
 * block of any frame in *@worst */
static gdouble
chroma_422_psnr (GByteArray * dec, guint w, guint h, guint n,
    gdouble * worst)
{
  const guint cw = (w + 1) / 2;
  gsize size = planar_size (w, h, TRUE);
  gdouble sum = 0;
  guint i, c, bx, by;

  *worst = PSNR_CAP;
  for (i = 0; i < n; i++) {
    guint8 *src = natural_frame_format (w, h, i, clip_pan_x, clip_pan_y, 7,
        TRUE);
    for (c = 0; c < 2; c++) {
      gsize at = (gsize) w * h + c * (gsize) cw * h;
      const guint8 *a = dec->data + i * size + at, *b = src + at;
      sum += MIN (psnr_from_mse ((gdouble) psnr_plane_sse (a, cw, b, cw, cw,
                  h) / (cw * h)), PSNR_CAP) / (2 * n);
      for (by = 0; by + 8 <= h; by += 8)
        for (bx = 0; bx + 8 <= cw; bx += 8)
          *worst = MIN (*worst, psnr_from_mse ((gdouble) psnr_plane_sse (a +
                      by * cw + bx, cw, b + by * cw + bx, cw, 8, 8) / 64));
    }
    g_free (src);
  }
  return sum;
}

/* 4:2:2 input (Y42B) becomes an MPEG-2 stream of the 4:2:2 profile:
 * chroma_format 4:2:2 and profile_and_level 0x85 (main level) in the
 * headers; three decoders decode it to 4:2:2 pictures whose chroma
 * (detail on every chroma line) is the source's, block by block, and
 * finer than a 4:2:0 encode of the same input keeps. Interlaced, with B
 * pictures, at a constant rate: chroma in field blocks, the VBV checked. */
GST_START_TEST (test_chroma_422)
{
  const guint w = 176, h = 144, n = 12;
  Encoded e, e420;
  MpegCheckResult *r;
  const MpegCheckSequence *seq;
  GByteArray *dec;
  gchar *path;
  guint frames, i, field_dct = 0;
  gdouble psnr, psnr420, worst, worst420;

  encode_clip ("quantizer=3", w, h, n, TRUE, "Y42B", &e);
  r = check_stream (e.stream, n, w, h);
  seq = &g_array_index (r->sequences, MpegCheckSequence, 0);
  fail_unless (seq->mpeg2);
  fail_unless_equals_int (seq->chroma_format, MPEGCHECK_CHROMA_422);
  fail_unless_equals_int (seq->profile_and_level, 0x85);
  mpegcheck_result_free (r);
  path = write_stream ("chroma422.m2v", e.stream);
  decode_check (path, n, w, h);
  dec = ffmpeg_decode_format (path, NULL, &frames, w, h, TRUE);
  fail_unless_equals_int (frames, n);
  psnr = chroma_422_psnr (dec, w, h, n, &worst);
  g_byte_array_unref (dec);
  g_free (path);

  /* the same input through 4:2:0 (FFmpeg scales its chroma back up) */
  encode_clip ("launch:videoconvert ! capsfilter caps=video/x-raw,"
      "format=I420 ! clmpegenc quantizer=3 ! capsfilter caps=video/mpeg,"
      "mpegversion=2", w, h, n, TRUE, "Y42B", &e420);
  path = write_stream ("chroma420.m2v", e420.stream);
  dec = ffmpeg_decode_format (path, NULL, &frames, w, h, TRUE);
  fail_unless_equals_int (frames, n);
  psnr420 = chroma_422_psnr (dec, w, h, n, &worst420);
  GST_INFO ("chroma PSNR %.2f dB (worst block %.2f), through 4:2:0 %.2f dB "
      "(%.2f); %u against %u bytes", psnr, worst, psnr420, worst420,
      e.stream->len, e420.stream->len);
  fail_unless (psnr > 40 && worst > 34, "4:2:2 chroma at %.2f dB, worst "
      "block %.2f", psnr, worst);
  fail_unless (psnr > psnr420 + 5, "4:2:2 chroma %.2f dB, 4:2:0 %.2f dB",
      psnr, psnr420);
  g_byte_array_unref (dec);
  g_free (path);
  encoded_free (&e420);
  encoded_free (&e);

  /* interlaced, two B pictures, a constant rate */
  {
    GstHarness *hn = harness_new ("b-frames=2 rate-control=cbr bitrate=3000");
    gchar *caps = g_strdup_printf ("video/x-raw,format=Y42B,width=%u,"
        "height=%u,framerate=25/1,pixel-aspect-ratio=1/1,"
        "interlace-mode=interleaved,field-order=top-field-first", w, h);

    gst_harness_set_src_caps_str (hn, caps);
    g_free (caps);
    encoded_init (&e);
    for (i = 0; i < n; i++) {
      /* lines of two moments woven */
      guint8 *f = natural_frame_format (w, h, 2 * i, 3, 1, 7, TRUE);
      guint8 *g = natural_frame_format (w, h, 2 * i + 1, 3, 1, 7, TRUE);
      guint y, cw = (w + 1) / 2;
      for (y = 1; y < h; y += 2) {
        memcpy (f + y * w, g + y * w, w);
        memcpy (f + w * h + y * cw, g + w * h + y * cw, cw);
        memcpy (f + w * h + cw * h + y * cw, g + w * h + cw * h + y * cw, cw);
      }
      fail_unless_equals_int (gst_harness_push (hn, planar_buffer (f, w, h,
                  TRUE, i * GST_SECOND / 25, GST_SECOND / 25)), GST_FLOW_OK);
      g_free (f);
      g_free (g);
      pull_all (hn, &e);
    }
    finish_harness (hn, &e);
  }
  r = check_stream (e.stream, n, w, h);
  seq = &g_array_index (r->sequences, MpegCheckSequence, 0);
  fail_unless_equals_int (seq->chroma_format, MPEGCHECK_CHROMA_422);
  fail_unless (!seq->progressive_sequence);
  fail_unless (r->vbv_simulated && r->n_underflows == 0 &&
      r->n_overflows == 0);
  fail_unless (r->n_type[3] > 0);
  for (i = 0; i < r->pictures->len; i++)
    field_dct += g_array_index (r->pictures, MpegCheckPicture,
        i).n_mb_field_dct;
  fail_unless (field_dct > 0);
  mpegcheck_result_free (r);
  path = write_stream ("chroma422i.m2v", e.stream);
  decode_check (path, n, w, h);
  g_free (path);
  encoded_free (&e);
}

GST_END_TEST;

/* 4:2:2 input is offered only where the stream can be 4:2:2; where it
 * cannot, the refusal says why */
GST_START_TEST (test_chroma_422_refused)
{
  static const struct
  {
    const gchar *launch, *down, *says;
  } cases[] = {
    {"clmpegenc", "video/mpeg,mpegversion=2,profile=main",
        "downstream does not take it"},
    {"clmpegenc", "video/mpeg,mpegversion=1", "downstream does not take it"},
    {"clmpegenc format=dvd", NULL, "is a format of 4:2:0 video"},
  };
  GstCaps *y42b = gst_caps_from_string ("video/x-raw,format=Y42B,"
      "width=176,height=144,framerate=25/1");
  guint i;

  for (i = 0; i < G_N_ELEMENTS (cases); i++) {
    GstHarness *hn = harness_new_parse (cases[i].launch);
    GstCaps *offered;

    if (cases[i].down)
      gst_harness_set_sink_caps_str (hn, cases[i].down);
    offered = gst_pad_peer_query_caps (hn->srcpad, NULL);
    fail_if (gst_caps_can_intersect (offered, y42b), "%s: %" GST_PTR_FORMAT,
        cases[i].launch, offered);
    gst_caps_unref (offered);
    expect_refused (hn, cases[i].launch, 176, 144, 25, "Y42B",
        cases[i].says);
  }
  /* where it can, it is offered (after 4:2:0: test-negotiation's sources
   * that can give either give 4:2:0) */
  {
    GstHarness *hn = harness_new ("");
    GstCaps *offered;
    gst_harness_set_sink_caps_str (hn, "video/mpeg,mpegversion=2,"
        "profile=4:2:2");
    offered = gst_pad_peer_query_caps (hn->srcpad, NULL);
    fail_unless (gst_caps_can_intersect (offered, y42b));
    gst_caps_unref (offered);
    test_harness_teardown (hn);
  }
  gst_caps_unref (y42b);
}

GST_END_TEST;

/* The colour description comes from the input's colorimetry. */
GST_START_TEST (test_mpeg2_colour)
{
  static const struct
  {
    const gchar *fields, *probe;
  } cases[] = {
    {"framerate=25/1,colorimetry=bt709", "color_space=bt709\n"
          "color_transfer=bt709\ncolor_primaries=bt709\n"},
    {"framerate=25/1,colorimetry=bt601", "color_space=smpte170m\n"
          "color_transfer=smpte170m\ncolor_primaries=smpte170m\n"},
  };
  guint i;

  for (i = 0; i < G_N_ELEMENTS (cases); i++) {
    Encoded e;
    GstCaps *caps = encode_negotiated ("", "video/mpeg,mpegversion=2", 64,
        48, 3, 0, cases[i].fields, &e);
    gchar *path = write_stream ("colour.m2v", e.stream);
    gchar *probe = ffprobe_stream (path, "color_space,color_transfer,"
        "color_primaries");
    fail_unless_equals_string (probe, cases[i].probe);
    g_free (probe);
    g_free (path);
    gst_caps_unref (caps);
    encoded_free (&e);
  }
}

GST_END_TEST;

/* intra-dc-precision: every MPEG-2 picture signals it, three decoders
 * take the stream, and at quantiser 1 on intra pictures each further bit
 * of the DC brings the picture nearer the source. */
GST_START_TEST (test_mpeg2_intra_dc_precision)
{
  const guint w = 176, h = 144, n = 4;
  gdouble last_psnr = 0;
  guint bits, k, frames;

  for (bits = 8; bits <= 10; bits++) {
    gchar *props = g_strdup_printf ("quantizer=1 ip-factor=1 gop-size=1 "
        "intra-dc-precision=%u", bits);
    gchar *name = g_strdup_printf ("dc%u.m2v", bits);
    MpegCheckResult *r;
    GstCaps *caps;
    GByteArray *dec;
    gdouble psnr = 0;
    gchar *path;
    Encoded e;

    caps = encode_negotiated (props, "video/mpeg,mpegversion=2", w, h, n, 0,
        NULL, &e);
    gst_caps_unref (caps);
    r = check_stream (e.stream, n, w, h);
    for (k = 0; k < n; k++)
      fail_unless_equals_int (g_array_index (r->pictures, MpegCheckPicture,
              k).intra_dc_precision, bits - 8);
    path = write_stream (name, e.stream);
    decode_check (path, n, w, h);
    dec = ffmpeg_decode (path, NULL, &frames, w, h);
    for (k = 0; k < n; k++) {
      guint8 *f = natural_frame (w, h, k, clip_pan_x, clip_pan_y, 7);
      psnr += psnr_y (dec, k, f, w, h) / n;
      g_free (f);
    }
    GST_INFO ("%u bits: %u bytes, PSNR-Y %.3f dB", bits, e.stream->len, psnr);
    fail_unless (psnr > last_psnr, "%u bits: %.3f dB, %.3f dB with one "
        "less", bits, psnr, last_psnr);
    last_psnr = psnr;
    g_byte_array_unref (dec);
    mpegcheck_result_free (r);
    encoded_free (&e);
    g_free (path);
    g_free (name);
    g_free (props);
  }
}

GST_END_TEST;

/* Pushes @n frames of the natural clip, @w x @h at 25 fps (4:2:2 with
 * @c422: Y42B caps set before), ends the stream and collects it in
 * @stream; returns the warnings posted on the harness's bus (@hn with
 * test_attach_bus), their messages */
static GPtrArray *
encode_natural_warnings (GstHarness * hn, guint w, guint h, guint n,
    gboolean c422, GByteArray * stream)
{
  GPtrArray *warnings = g_ptr_array_new_with_free_func (g_free);
  GstMessage *msg;
  GstBus *bus;
  guint k;

  for (k = 0; k < n; k++) {
    guint8 *f = natural_frame_format (w, h, k, clip_pan_x, clip_pan_y, 7,
        c422);
    fail_unless_equals_int (gst_harness_push (hn, planar_buffer (f, w, h,
                c422, k * GST_SECOND / 25, GST_SECOND / 25)), GST_FLOW_OK);
    g_free (f);
  }
  end_stream (hn, stream);
  bus = gst_element_get_bus (hn->element);
  while ((msg = gst_bus_pop_filtered (bus, GST_MESSAGE_WARNING))) {
    GError *error = NULL;
    gst_message_parse_warning (msg, &error, NULL);
    GST_INFO ("warning: %s", error->message);
    g_ptr_array_add (warnings, g_strdup (error->message));
    g_error_free (error);
    gst_message_unref (msg);
  }
  gst_object_unref (bus);
  return warnings;
}

/* 11 bits of intra DC in the 4:2:2 profile, which allows them; elsewhere
 * 10, with a warning that says so */
GST_START_TEST (test_mpeg2_intra_dc_precision_11)
{
  const guint w = 176, h = 144, n = 3;
  guint c, k;

  for (c = 0; c < 2; c++) {
    const gboolean c422 = c == 0;
    GByteArray *stream = g_byte_array_new ();
    GstHarness *hn = harness_new_parse ("clmpegenc quantizer=1 gop-size=1 "
        "intra-dc-precision=11 ! capsfilter caps=video/mpeg,mpegversion=2");
    GPtrArray *messages;
    MpegCheckResult *r;
    gchar *path;
    guint warnings = 0;

    test_attach_bus (hn->element);
    set_caps (hn, w, h, 25, c422 ? "Y42B" : "I420");
    messages = encode_natural_warnings (hn, w, h, n, c422, stream);
    for (k = 0; k < messages->len; k++)
      warnings += strstr (g_ptr_array_index (messages, k),
          "intra-dc-precision 11") != NULL;
    g_ptr_array_unref (messages);
    fail_unless_equals_int (warnings, c422 ? 0 : 1);
    r = check_stream (stream, n, w, h);
    for (k = 0; k < n; k++)
      fail_unless_equals_int (g_array_index (r->pictures, MpegCheckPicture,
              k).intra_dc_precision, c422 ? 3 : 2);
    path = write_stream (c422 ? "dc11-422.m2v" : "dc11-420.m2v", stream);
    decode_check (path, n, w, h);
    mpegcheck_result_free (r);
    g_byte_array_unref (stream);
    g_free (path);
    test_harness_teardown (hn);
  }
}

GST_END_TEST;

/* With a constant quantiser an MPEG-2 stream keeps to its level's buffer
 * at the level's peak rate (variable rate, vbv_delay 0xFFFF): a picture
 * the buffer cannot hold is coded again, coarser, and the picture after
 * it, already coded from the first reconstruction, again from the one
 * decoders see. The low level's 475 kbit buffer and 4 Mbit/s cannot take
 * this CIF clip (a little noise on it) at quantiser 1 throughout: some
 * pictures are coded coarser, and every P picture left at quantiser 1 is
 * as good as the best of them (predicted from a reconstruction decoders
 * do not have, they lost 2 to 6 dB, more and more). */
GST_START_TEST (test_mpeg2_variable_rate_buffer)
{
  const guint w = 352, h = 288, n = 24, noise = 2;
  Encoded e;
  MpegCheckResult *r;
  GstCaps *caps;
  GByteArray *dec;
  gchar *path;
  guint k, frames, raised = 0;
  guint32 rng = 11;
  gdouble psnr[24], best = 0;

  caps = encode_negotiated ("quantizer=1", "video/mpeg,mpegversion=2,"
      "level=low", w, h, n, noise, NULL, &e);
  gst_caps_unref (caps);
  path = write_stream ("vbr-low.m2v", e.stream);
  r = check_stream (e.stream, n, w, h);
  fail_unless (r->vbv_simulated && r->vbv_buffer_full_rule);
  fail_unless_equals_int (r->n_underflows, 0);
  decode_check (path, n, w, h);
  dec = ffmpeg_decode (path, NULL, &frames, w, h);
  fail_unless_equals_int (frames, n);
  for (k = 0; k < n; k++) {
    /* the frames encode_negotiated() sent */
    guint8 *f = natural_frame (w, h, k, clip_pan_x, clip_pan_y, 7);
    const MpegCheckPicture *p = &g_array_index (r->pictures,
        MpegCheckPicture, k);
    gsize x;
    for (x = 0; x < (gsize) w * h; x++)
      f[x] = CLAMP ((gint) f[x] + (gint) (test_rng_next (&rng) %
              (2 * noise + 1)) - (gint) noise, 0, 255);
    psnr[k] = psnr_y (dec, k, f, w, h);
    raised += p->slice_quant_max > 1;
    if (p->coding_type == 2 && p->slice_quant_max == 1)
      best = MAX (best, psnr[k]);
    g_free (f);
  }
  GST_INFO ("%u of %u pictures coded coarser than quantiser 1, VBV %.0f .. "
      "%.0f bits", raised, n, r->vbv_min_fullness, r->vbv_max_fullness);
  fail_unless (raised > 0 && raised < n / 2);
  for (k = 0; k < n; k++) {
    const MpegCheckPicture *p = &g_array_index (r->pictures,
        MpegCheckPicture, k);
    if (p->coding_type == 2 && p->slice_quant_max == 1)
      fail_unless (psnr[k] > best - 1.0, "P picture %u at quantiser 1: "
          "%.2f dB, the best %.2f dB", k, psnr[k], best);
  }
  g_byte_array_unref (dec);
  mpegcheck_result_free (r);
  encoded_free (&e);
  g_free (path);
}

GST_END_TEST;

/* The most pictures from an I picture to the next in @r */
static guint
longest_gop (const MpegCheckResult * r)
{
  guint k, gop = 0, longest = 0;

  for (k = 0; k < r->pictures->len; k++) {
    gop = g_array_index (r->pictures, MpegCheckPicture, k).coding_type == 1 ?
        1 : gop + 1;
    longest = MAX (longest, gop);
  }
  return longest;
}

/* format: the disc formats' stream type, rates, buffer, GOP length and
 * aspect ratio, whatever the properties and downstream would have. */
GST_START_TEST (test_format)
{
  static const struct
  {
    const gchar *props, *fields;
    guint w, h, version, peak, vbv, gop, level;
    gboolean constant;
  } cases[] = {
    {"format=dvd bitrate=5000 gop-size=20", "framerate=25/1", 720, 576, 2,
        9800, 112, 15, 0x48, FALSE},
    {"format=dvd gop-size=30", "framerate=30000/1001,"
          "pixel-aspect-ratio=10/11", 704, 480, 2, 9800, 112, 18, 0x48, FALSE},
    {"format=svcd", "framerate=25/1", 480, 576, 2, 2600, 56, 12, 0x48, FALSE},
    {"format=vcd bitrate=3000", "framerate=30000/1001", 352, 240, 1, 1150,
        20, 12, 0, TRUE},
    /* film on NTSC DVD: 29.97 fps by 3:2 pulldown, at most 36 fields a
     * GOP */
    {"format=dvd pulldown=true bitrate=6000 gop-size=30",
          "framerate=24000/1001,pixel-aspect-ratio=8/9", 720, 480, 2, 9800,
        112, 14, 0x48, FALSE},
    /* broadcast: 480i ATSC at a constant rate (main profile at high
     * level), 576i DVB under its peak */
    {"format=atsc rate-control=cbr bitrate=6000 gop-size=15",
          "framerate=30000/1001,pixel-aspect-ratio=10/11,"
          "interlace-mode=interleaved", 704, 480, 2, 6000, 488, 15, 0x44,
        TRUE},
    {"format=dvb bitrate=4000 b-frames=2", "framerate=25/1,"
          "pixel-aspect-ratio=16/11,interlace-mode=interleaved", 544, 576, 2,
        15000, 112, 12, 0x48, FALSE},
  };
  const guint n = 40;
  guint c, k;

  for (c = 0; c < G_N_ELEMENTS (cases); c++) {
    guint w = cases[c].w, h = cases[c].h;
    gchar *path = g_strdup_printf ("%s/format%u.mpv", tmpdir, c);
    const MpegCheckSequence *sq;
    MpegCheckResult *r;
    GstCaps *caps;
    Encoded e;
    gint v = 0;

    /* downstream takes either version: the format's is written */
    caps = encode_negotiated (cases[c].props, "video/mpeg", w, h, n, 0,
        cases[c].fields, &e);
    fail_unless (gst_structure_get_int (gst_caps_get_structure (caps, 0),
            "mpegversion", &v));
    fail_unless_equals_int (v, cases[c].version);
    fail_unless (g_file_set_contents (path, (gchar *) e.stream->data,
            e.stream->len, NULL));
    r = check_stream (e.stream, n, w, h);
    sq = &g_array_index (r->sequences, MpegCheckSequence, 0);
    fail_unless_equals_int (sq->mpeg2, cases[c].version == 2);
    fail_unless_equals_int (sq->bit_rate_code * 400, cases[c].peak * 1000);
    fail_unless_equals_int (sq->vbv_buffer_size_code, cases[c].vbv);
    fail_unless (r->vbv_simulated);
    fail_unless_equals_int (r->n_underflows, 0);
    fail_unless_equals_int (r->n_overflows, 0);
    if (sq->mpeg2) {
      /* main profile at the format's level, 4:3 (with square pixels too) */
      fail_unless_equals_int (sq->profile_and_level, cases[c].level);
      fail_unless_equals_int (sq->aspect_code, 2);
      fail_unless_equals_int (sq->progressive_sequence,
          !strstr (cases[c].fields, "interleaved") &&
          !strstr (cases[c].props, "pulldown"));
    } else {
      /* VCD: constrained parameters, forward_f_code 4 at most */
      fail_unless (sq->constrained);
    }
    for (k = 0; k < r->pictures->len; k++) {
      const MpegCheckPicture *p = &g_array_index (r->pictures,
          MpegCheckPicture, k);
      if (!sq->mpeg2)
        fail_unless (p->forward_f_code <= 4);
      /* a constant rate's vbv_delay, a variable one's 0xFFFF */
      fail_unless_equals_int (p->vbv_delay == 0xffff, !cases[c].constant);
    }
    fail_unless_equals_int (longest_gop (r), cases[c].gop);
    decode_check (path, n, w, h);
    mpegcheck_result_free (r);
    gst_caps_unref (caps);
    encoded_free (&e);
    g_free (path);
  }
}

GST_END_TEST;

/* Input a format does not take, or a format downstream does not take, is
 * refused with an error that says what the format takes; so is 3:2
 * pulldown of other than film rates, or where downstream takes MPEG-1
 * only. */
GST_START_TEST (test_format_refused)
{
  static const struct
  {
    const gchar *launch, *says;
    guint w, h;
    gint fps;
  } cases[] = {
    {"clmpegenc format=dvd", "720x576, 704x576, 352x576, 352x288 at 25 fps",
        640, 480, 25},
    {"clmpegenc format=vcd ! capsfilter caps=video/mpeg,mpegversion=2",
        "MPEG-1 video, which downstream does not take", 352, 288, 25},
    {"clmpegenc pulldown=true", "film at 23.976 or 24 fps", 176, 144, 25},
    {"clmpegenc format=atsc", "1280x720 at 23.976, 24, 29.97, 30, 59.94 "
          "or 60 fps progressive; 704x480, 640x480 at 23.976, 24, 29.97, 30, "
          "59.94 or 60 fps progressive or 29.97 or 30 fps interlaced; the "
          "input is 1280x720 at 25/1 fps progressive", 1280, 720, 25},
    {"clmpegenc pulldown=true ! capsfilter caps=video/mpeg,mpegversion=1",
        "downstream takes MPEG-1 only", 176, 144, 24},
  };
  guint i;

  for (i = 0; i < G_N_ELEMENTS (cases); i++)
    expect_refused (harness_new_parse (cases[i].launch), cases[i].launch,
        cases[i].w, cases[i].h, cases[i].fps, "I420", cases[i].says);
}

GST_END_TEST;

/* Input that fits no level downstream allows is refused with an error
 * that says which bound it passes. */
GST_START_TEST (test_mpeg2_level_refused)
{
  static const struct
  {
    guint w, h;
    const gchar *props, *caps, *says;
  } cases[] = {
    {1280, 720, "", "video/mpeg,mpegversion=2,level=main", "1280x720"},
    {720, 576, "bitrate=20000", "video/mpeg,mpegversion=2,level=main",
        "20000 kbit/s"},
    {1280, 720, "", "video/mpeg,mpegversion=2,profile=simple",
        "simple profile"},
  };
  guint i;

  for (i = 0; i < G_N_ELEMENTS (cases); i++) {
    gchar *launch = g_strdup_printf ("clmpegenc %s ! capsfilter "
        "caps=\"%s\"", cases[i].props, cases[i].caps);
    expect_refused (harness_new_parse (launch), launch, cases[i].w,
        cases[i].h, 25, "I420", cases[i].says);
    g_free (launch);
  }
}

GST_END_TEST;

/* A frame rate MPEG-1 cannot carry is refused with a clear message. */
/* slice_start_codes in @stream (00 00 01 01 .. 00 00 01 AF) */
static guint
count_slices (GByteArray * stream)
{
  guint i, n = 0;
  for (i = 0; i + 3 < stream->len; i++)
    if (stream->data[i] == 0 && stream->data[i + 1] == 0 &&
        stream->data[i + 2] == 1 && stream->data[i + 3] >= 0x01 &&
        stream->data[i + 3] <= 0xaf)
      n++;
  return n;
}

/* "slices": fewer, longer slices (spanning rows) decode to the very same
 * pictures as one slice per row, in fewer bytes. */
GST_START_TEST (test_slices)
{
  /* one per row, fewer, and the encoder's choice: one a picture at this
   * size */
  static const guint slices[] = { 9, 4, 2, 0 }, per_picture[] = { 9, 3, 2,
    1
  };
  const guint w = 176, h = 144, n = 8;
  GstElement *enc = gst_element_factory_make ("clmpegenc", NULL);
  GByteArray *first = NULL;
  guint prev_len = G_MAXUINT, k, def;

  fail_unless (enc != NULL);
  g_object_get (enc, "slices", &def, NULL);
  fail_unless_equals_int (def, 0);
  gst_object_unref (enc);
  for (k = 0; k < G_N_ELEMENTS (slices); k++) {
    gchar *props = g_strdup_printf ("slices=%u quantizer=8", slices[k]);
    gchar *name = g_strdup_printf ("slices-%u.m1v", slices[k]);
    gchar *path;
    GByteArray *dec;
    guint frames;
    Encoded e;

    encode_clip (props, w, h, n, TRUE, NULL, &e);
    fail_unless_equals_int (e.pts->len, n);
    fail_unless_equals_int (count_slices (e.stream), n * per_picture[k]);
    path = write_stream (name, e.stream);
    decode_check (path, n, w, h);
    mpegcheck_result_free (check_stream_slices (e.stream, n, w, h,
            per_picture[k] != 9));
    dec = ffmpeg_decode (path, NULL, &frames, w, h);
    fail_unless_equals_int (frames, n);
    if (!first)
      first = g_byte_array_ref (dec);
    else
      fail_unless (dec->len == first->len && memcmp (dec->data, first->data,
              dec->len) == 0, "slices=%u decodes to other pictures",
          slices[k]);
    fail_unless (e.stream->len < prev_len, "slices=%u: %u bytes, not fewer "
        "than %u", slices[k], e.stream->len, prev_len);
    prev_len = e.stream->len;
    g_byte_array_unref (dec);
    encoded_free (&e);
    g_free (path);
    g_free (name);
    g_free (props);
  }
  g_byte_array_unref (first);
}

GST_END_TEST;

/* encode_clip () of @props, checked (check_stream ()) */
static MpegCheckResult *
encode_clip_checked (const gchar * props, guint w, guint h, guint n,
    gboolean pan)
{
  MpegCheckResult *r;
  Encoded e;

  encode_clip (props, w, h, n, pan, NULL, &e);
  r = check_stream (e.stream, n, w, h);
  encoded_free (&e);
  return r;
}

/* Picture @k (@pic) of the stream of @what has quantiser @want in every
 * slice */
static void
check_picture_quant (const gchar * what, guint k,
    const MpegCheckPicture * pic, guint want)
{
  fail_unless (pic->slice_quant_min == want && pic->slice_quant_max == want,
      "%s: picture %u (type %u) has quantiser %u..%u, not %u", what, k,
      pic->coding_type, pic->slice_quant_min, pic->slice_quant_max, want);
}

/* "ip-factor": I pictures take the quantiser divided by it, rounded, P
 * pictures the quantiser itself; the I pictures' finer levels cost
 * bits. */
GST_START_TEST (test_ip_factor)
{
  static const struct {
    const gchar *factor;
    guint i_quant;
  } cases[] = { {"1.0", 8}, {"1.4", 6}, {"2.0", 4}, {"4.0", 2} };
  const guint w = 64, h = 48, n = 5, q = 8;
  guint c, k, prev_bits = 0;

  for (c = 0; c < G_N_ELEMENTS (cases); c++) {
    gchar *props = g_strdup_printf ("quantizer=%u gop-size=3 ip-factor=%s",
        q, cases[c].factor);
    MpegCheckResult *r = encode_clip_checked (props, w, h, n, TRUE);
    guint i_bits = 0;

    for (k = 0; k < r->pictures->len; k++) {
      MpegCheckPicture *pic = &g_array_index (r->pictures, MpegCheckPicture,
          k);
      check_picture_quant (props, k, pic, pic->coding_type == 1 ?
          cases[c].i_quant : q);
      if (pic->coding_type == 1)
        i_bits += pic->bits;
    }
    fail_unless_equals_int (r->n_type[1], 2);
    fail_unless (i_bits > prev_bits, "%s: I pictures of %u bits, not "
        "more than %u at a coarser quantiser", props, i_bits, prev_bits);
    prev_bits = i_bits;
    mpegcheck_result_free (r);
    g_free (props);
  }
}

GST_END_TEST;

/* The automatic "ip-factor" (the default, 0): 1 + the share of the P
 * pictures' macroblocks since the last I picture that copy their
 * reference, and for the first I picture the share of the P picture after
 * it (the I picture coded again with it; test_ip_factor_auto_first
 * decodes such a stream). A still clip's P pictures copy every macroblock
 * (factor 2), a pan's almost none (factor 1), as the checker's parse of
 * the macroblocks shows. */
GST_START_TEST (test_ip_factor_auto)
{
  const guint w = 96, h = 64, n = 12, q = 8, mbs = (w / 16) * (h / 16);
  gdouble def;
  GstElement *enc = gst_element_factory_make ("clmpegenc", NULL);
  gchar *props = g_strdup_printf ("quantizer=%u gop-size=3", q);
  guint pan;

  fail_unless (enc != NULL);
  g_object_get (enc, "ip-factor", &def, NULL);
  fail_unless (def == 0.0, "default ip-factor %g", def);
  gst_object_unref (enc);

  for (pan = 0; pan < 2; pan++) {
    const gchar *what = pan ? "pan" : "still";
    MpegCheckResult *r = encode_clip_checked (props, w, h, n, pan);
    guint i_seen = 0, p_copies = 0, p_mbs = 0, k;

    for (k = 0; k < r->pictures->len; k++) {
      MpegCheckPicture *pic = &g_array_index (r->pictures, MpegCheckPicture,
          k);
      if (pic->coding_type == 2) {
        p_copies += pic->n_mb_copies;
        p_mbs += mbs;
        check_picture_quant (what, k, pic, q);
      } else {
        /* still, every P macroblock a copy; pan, too few copies (under
         * 1 in 15) to move the quantiser off q */
        check_picture_quant (what, k, pic, pan ? q : q / 2);
        i_seen++;
      }
    }
    fail_unless_equals_int (i_seen, n / 3);
    if (pan)
      fail_unless (p_copies * 15 < p_mbs, "pan: %u of %u P macroblocks "
          "copies", p_copies, p_mbs);
    else
      fail_unless_equals_int (p_copies, p_mbs);
    mpegcheck_result_free (r);
  }
  g_free (props);
}

GST_END_TEST;

/* The automatic "ip-factor" where the stream's length is known (here from
 * stream-frames): an I picture followed by fewer P pictures than a GOP
 * holds takes 1 + (the copies' factor - 1) x their share of a GOP's. A
 * still clip (factor 2), GOP 4, its last I picture at frame 8 with 3 to 0
 * P pictures after it. */
GST_START_TEST (test_ip_factor_auto_end)
{
  static const struct {
    guint frames, last_i_quant;
  } cases[] = { {12, 4}, {11, 5}, {10, 6}, {9, 8} };
  const guint w = 96, h = 64, q = 8;
  guint c, k;

  for (c = 0; c < G_N_ELEMENTS (cases); c++) {
    gchar *props = g_strdup_printf ("quantizer=%u gop-size=4 "
        "stream-frames=%u", q, cases[c].frames);
    MpegCheckResult *r = encode_clip_checked (props, w, h, cases[c].frames,
        FALSE);
    guint i_seen = 0;

    for (k = 0; k < r->pictures->len; k++) {
      MpegCheckPicture *pic = &g_array_index (r->pictures, MpegCheckPicture,
          k);
      if (pic->coding_type == 2) {
        fail_unless_equals_int (pic->n_mb_copies, (w / 16) * (h / 16));
        continue;
      }
      /* the first two a whole GOP or more before the end */
      check_picture_quant (props, k, pic, i_seen < 2 ? q / 2 :
          cases[c].last_i_quant);
      i_seen++;
    }
    fail_unless_equals_int (i_seen, 3);
    mpegcheck_result_free (r);
    g_free (props);
  }
}

GST_END_TEST;

/* Frame @i of a still scene up to frame @cut, a pan of another from
 * there (the natural clip's negative) */
static guint8 *
still_then_pan_frame (guint w, guint h, guint i, guint cut)
{
  guint8 *f;
  guint k;

  if (i < cut)
    return natural_frame (w, h, 0, 0, 0, 7);
  f = natural_frame (w, h, i - cut, clip_pan_x, clip_pan_y, 7);
  for (k = 0; k < w * h; k++)
    f[k] = 255 - f[k];
  return f;
}

/* Frame @i of the natural clip still in its upper half, panned in its
 * lower half */
static guint8 *
half_still_frame (guint w, guint h, guint i, guint cut G_GNUC_UNUSED)
{
  guint8 *f = natural_frame (w, h, 0, 0, 0, 7);
  guint8 *pan = natural_frame (w, h, i, clip_pan_x, clip_pan_y, 7);
  gsize cw = (w + 1) / 2, ch = (h + 1) / 2;

  memcpy (f + w * (h / 2), pan + w * (h / 2), w * (h - h / 2));
  memcpy (f + w * h + cw * (ch / 2), pan + w * h + cw * (ch / 2),
      cw * (ch - ch / 2));
  memcpy (f + w * h + cw * (ch + ch / 2), pan + w * h + cw * (ch + ch / 2),
      cw * (ch - ch / 2));
  g_free (pan);
  return f;
}

/* The bytes of picture @k (coding order) of @s, from its start code to
 * the next start code of a picture, a GOP, a sequence or its end */
static GBytes *
picture_bytes (GByteArray * s, guint k)
{
  gsize i, start = 0;
  guint seen = 0;

  for (i = 0; i + 4 <= s->len; i++) {
    const guint8 *p = s->data + i;
    if (p[0] || p[1] || p[2] != 1)
      continue;
    if (seen > k && (p[3] == 0x00 || p[3] == 0xB3 || p[3] == 0xB8 ||
            p[3] == 0xB7))
      break;
    if (p[3] == 0x00 && seen++ == k)
      start = i;
  }
  fail_unless (seen > k, "no picture %u", k);
  return g_bytes_new (s->data + start, MIN (i, s->len) - start);
}

/* Each picture from @from on of the streams @a and @b, @n - @from
 * pictures of @frame_at (scene changed at @cut) from @from, decoded by
 * FFmpeg: @a's PSNR-Y within 0.3 dB of @b's (a picture predicted from
 * another reconstruction than the decoders' drifts further) */
static void
check_as_close (GByteArray * a, GByteArray * b, guint w, guint h,
    guint from, guint n, ClipFrame frame_at, guint cut)
{
  GByteArray *streams[2] = { a, b }, *dec[2];
  guint k, frames;

  for (k = 0; k < 2; k++) {
    gchar *name = g_strdup_printf ("as-close-%u.m1v", k);
    gchar *path = write_stream (name, streams[k]);
    dec[k] = ffmpeg_decode (path, NULL, &frames, w, h);
    fail_unless_equals_int (frames, k == 0 ? n : n - from);
    g_free (path);
    g_free (name);
  }
  for (k = from; k < n; k++) {
    guint8 *src = frame_at (w, h, k, cut);
    gdouble p0 = psnr_y (dec[0], k, src, w, h);
    gdouble p1 = psnr_y (dec[1], k - from, src, w, h);
    fail_unless (fabs (p0 - p1) < 0.3, "frame %u: %.2f dB, against %.2f", k,
        p0, p1);
    g_free (src);
  }
  for (k = 0; k < 2; k++)
    g_byte_array_unref (dec[k]);
}

/* The automatic "ip-factor"'s first I picture, coded again with the
 * copies of the P picture after it, and that P picture coded again from
 * it: the same I picture as with the factor that gives its quantiser set
 * by hand, and the P pictures as close to the source (none predicted from
 * a reconstruction that decoders do not have; their vectors, searched
 * from the first reconstruction, may differ: within 0.24 dB a picture,
 * either way, here, where with the P picture not coded again the third
 * and later ones are 0.23 to 0.41 dB worse). A clip still in its upper
 * half, panned in the lower (about half the macroblocks copies: 8 / 1.5
 * rounds to 5, where 1.4 gives 6), one GOP. */
GST_START_TEST (test_ip_factor_auto_first)
{
  const guint w = 96, h = 64, n = 6;
  Encoded learnt, set;
  MpegCheckResult *r;
  GBytes *a, *b;

  encode_frames ("quantizer=8 gop-size=12", w, h, 0, n, half_still_frame,
      0, &learnt, NULL);
  encode_frames ("quantizer=8 gop-size=12 ip-factor=1.6", w, h, 0, n,
      half_still_frame, 0, &set, NULL);
  r = check_stream (learnt.stream, n, w, h);
  check_picture_quant ("half still", 0, &g_array_index (r->pictures,
          MpegCheckPicture, 0), 5);
  mpegcheck_result_free (r);
  a = picture_bytes (learnt.stream, 0);
  b = picture_bytes (set.stream, 0);
  fail_unless (g_bytes_equal (a, b), "the I picture is not the one of "
      "ip-factor=1.6");
  check_as_close (learnt.stream, set.stream, w, h, 0, n, half_still_frame,
      0);
  g_bytes_unref (a);
  g_bytes_unref (b);
  encoded_free (&learnt);
  encoded_free (&set);
}

GST_END_TEST;

/* The automatic "ip-factor" at a scene cut ("scene-cut"): the cut, coded
 * as an I picture, takes the copies of the P picture after it, not the
 * scene's before. A still scene (factor 2, I pictures at q / 2), then a
 * pan of another (factor about 1) from frame 5: the cut's I picture at q,
 * the same bytes as the pan's first I picture coded alone, and every
 * picture from the cut on as close to the source as in that stream (none
 * predicted from a reconstruction that decoders do not have: the P
 * picture after the cut is coded again from the cut's last coding). */
GST_START_TEST (test_ip_factor_auto_cut)
{
  const guint w = 96, h = 64, n = 14, cut = 5, q = 8;
  const gchar *props = "quantizer=8 gop-size=12 scene-cut=50";
  Encoded whole, pan;
  MpegCheckResult *r;
  GBytes *a, *b;
  guint k;

  encode_frames (props, w, h, 0, n, still_then_pan_frame, cut, &whole,
      NULL);
  encode_frames (props, w, h, cut, n, still_then_pan_frame, cut, &pan,
      NULL);
  r = check_stream (whole.stream, n, w, h);
  for (k = 0; k < r->pictures->len; k++) {
    const MpegCheckPicture *pic = &g_array_index (r->pictures,
        MpegCheckPicture, k);
    fail_unless_equals_int (pic->coding_type, k == 0 || k == cut ? 1 : 2);
    check_picture_quant (props, k, pic, k == 0 ? q / 2 : q);
  }
  mpegcheck_result_free (r);
  a = picture_bytes (whole.stream, cut);
  b = picture_bytes (pan.stream, 0);
  fail_unless (g_bytes_equal (a, b), "the cut's I picture (%" G_GSIZE_FORMAT
      " bytes) is not the pan's first (%" G_GSIZE_FORMAT ")",
      g_bytes_get_size (a), g_bytes_get_size (b));
  check_as_close (whole.stream, pan.stream, w, h, cut, n,
      still_then_pan_frame, cut);
  g_bytes_unref (a);
  g_bytes_unref (b);
  encoded_free (&whole);
  encoded_free (&pan);
}

GST_END_TEST;

GST_START_TEST (test_bad_rate)
{
  GstHarness *h = harness_new (NULL);
  guint8 *f = natural_frame (32, 32, 0, 0, 0, 1);
  gchar *err;

  test_attach_bus (h->element);
  set_caps (h, 32, 32, 15, "I420");
  fail_if (gst_harness_push (h, i420_buffer (f, 32, 32, 0, 0)) ==
      GST_FLOW_OK);
  err = test_pop_error_text (h);
  fail_unless (strstr (err, "15/1") && strstr (err, "videorate"), "%s", err);
  g_free (err);
  g_free (f);
  test_harness_teardown (h);
}

GST_END_TEST;

/* Constant bit rate: within 10% of the target, no VBV violation, every
 * vbv_delay as the model gives it. */
/* With a bit rate and no adaptive quantisation, no P picture's quantiser
 * falls below two thirds of the last P picture's, nor rises above one and
 * a half times it: a model that swings (a fine quantiser overshooting,
 * then the coarsest one to make up) costs quality at the same rate. */
static void
check_steady_quant (const MpegCheckResult * r)
{
  guint k, prev = 0;

  for (k = 0; k < r->pictures->len; k++) {
    const MpegCheckPicture *pic = &g_array_index (r->pictures,
        MpegCheckPicture, k);
    guint q = pic->slice_quant_min;

    fail_unless_equals_int (pic->slice_quant_max, q);
    if (pic->coding_type != 2)
      continue;
    if (prev)
      fail_unless (3 * q >= 2 * prev - 1 && 2 * q <= 3 * prev + 1,
          "picture %u: quantiser %u after a P picture at %u", k, q, prev);
    prev = q;
  }
}

GST_START_TEST (test_bitrate)
{
  /* MPEG-1 at two rates, MPEG-2 at the second */
  static const guint rates[] = { 300, 1200, 1200 };
  const guint w = 176, h = 144, n = 50;
  guint c;

  for (c = 0; c < G_N_ELEMENTS (rates); c++) {
    gchar *props = g_strdup_printf ("%sbitrate=%u gop-size=10 "
        "adaptive-quant=%s%s", c == 2 ? "launch:clmpegenc " : "", rates[c],
        c ? "true" : "false", c == 2 ?
        " ! capsfilter caps=video/mpeg,mpegversion=2" : "");
    gchar *name = g_strdup_printf ("cbr%u-%u.m%cv", rates[c], c,
        c == 2 ? '2' : '1'), *path;
    MpegCheckResult *r;
    Encoded e;
    gdouble rate;

    encode_clip (props, w, h, n, TRUE, NULL, &e);
    path = write_stream (name, e.stream);
    r = check_stream (e.stream, n, w, h);
    fail_unless (r->vbv_simulated);
    fail_unless_equals_int (r->n_underflows, 0);
    fail_unless_equals_int (r->n_overflows, 0);
    rate = e.stream->len * 8.0 * 25 / n / 1000;
    GST_INFO ("target %u kbit/s: %.1f kbit/s, VBV %.0f .. %.0f bits", rates[c],
        rate, r->vbv_min_fullness, r->vbv_max_fullness);
    fail_unless (fabs (rate / rates[c] - 1) < 0.10, "target %u kbit/s, got "
        "%.1f kbit/s", rates[c], rate);
    if (c == 0)
      check_steady_quant (r);
    decode_check (path, n, w, h);
    mpegcheck_result_free (r);
    encoded_free (&e);
    g_free (path);
    g_free (name);
    g_free (props);
  }
}

GST_END_TEST;

/* Variable bit rate (bitrate under max-bitrate), MPEG-1 and MPEG-2: the
 * bit rate on average, the peak in the sequence header, vbv_delay 0xFFFF
 * in every picture, and a buffer that fills at the peak until full never
 * underflows. A constant quantiser under max-bitrate keeps to the same
 * buffer, coarser where it must. */
GST_START_TEST (test_variable_bitrate)
{
  const guint w = 176, h = 144, n = 50;
  static const struct
  {
    const gchar *props;
    guint version, noise, target, peak;
  } cases[] = {
    {"bitrate=500 max-bitrate=1500", 1, 0, 500, 1500},
    {"bitrate=500 max-bitrate=1500", 2, 0, 500, 1500},
    {"bitrate=800 max-bitrate=1500 adaptive-quant=true", 2, 0, 800, 1500},
    /* (quantiser 1 would need 1.5 Mbit/s) */
    {"quantizer=1 max-bitrate=1000", 1, 2, 0, 1000},
  };
  guint c, k;

  for (c = 0; c < G_N_ELEMENTS (cases); c++) {
    gchar *props = g_strdup_printf ("gop-size=10 %s", cases[c].props);
    gchar *caps = g_strdup_printf ("video/mpeg,mpegversion=%u",
        cases[c].version);
    gchar *name = g_strdup_printf ("vbr%u.m%uv", c, cases[c].version);
    const MpegCheckSequence *sq;
    MpegCheckResult *r;
    GstCaps *out;
    Encoded e;
    gchar *path;
    gdouble rate;
    guint raised = 0;

    out = encode_negotiated (props, caps, w, h, n, cases[c].noise, NULL, &e);
    gst_caps_unref (out);
    path = write_stream (name, e.stream);
    r = check_stream (e.stream, n, w, h);
    sq = &g_array_index (r->sequences, MpegCheckSequence, 0);
    fail_unless (r->vbv_simulated && r->vbv_buffer_full_rule);
    fail_unless_equals_int (r->n_underflows, 0);
    fail_unless_equals_int (sq->bit_rate_code * 400, cases[c].peak * 1000);
    for (k = 0; k < r->pictures->len; k++) {
      const MpegCheckPicture *p = &g_array_index (r->pictures,
          MpegCheckPicture, k);
      fail_unless_equals_int (p->vbv_delay, 0xffff);
      raised += p->slice_quant_max > 1;
    }
    rate = e.stream->len * 8.0 * 25 / n / 1000;
    GST_INFO ("%s, MPEG-%u: %.1f kbit/s, VBV %.0f .. %.0f bits, %u pictures "
        "above quantiser 1", cases[c].props, cases[c].version, rate,
        r->vbv_min_fullness, r->vbv_max_fullness, raised);
    if (cases[c].target)
      fail_unless (fabs (rate / cases[c].target - 1) < 0.10, "%s: %.1f "
          "kbit/s", cases[c].props, rate);
    else
      /* no more than the peak brings in, and the full buffer at the
       * start */
      fail_unless (raised > 0 && e.stream->len * 8.0 <= cases[c].peak *
          1000.0 * n / 25 + sq->vbv_buffer_size_code * 16384.0);
    decode_check (path, n, w, h);
    mpegcheck_result_free (r);
    encoded_free (&e);
    g_free (path);
    g_free (name);
    g_free (caps);
    g_free (props);
  }
}

GST_END_TEST;

/* rate-control picks the mode whatever else is set, and key-int-max is
 * gop-size: what the sequence header signals (a constant rate, a peak,
 * MPEG-1's variable-rate code), vbv_delay, and the GOPs show it. */
GST_START_TEST (test_rate_control)
{
  const guint w = 176, h = 144, n = 24;
  static const struct
  {
    const gchar *props;
    guint bit_rate;             /* the sequence header's, bit/s */
    gboolean variable;          /* vbv_delay 0xFFFF */
    guint gop;
  } cases[] = {
    {"rate-control=cqp bitrate=500 max-bitrate=0", 0x3ffff * 400, TRUE, 12},
    {"rate-control=cbr bitrate=500 max-bitrate=1500 key-int-max=5", 500000,
        FALSE, 5},
    {"rate-control=vbr bitrate=500", 1000000, TRUE, 12},
    {"rate-control=auto bitrate=500 max-bitrate=800 gop-size=8", 800000,
        TRUE, 8},
  };
  guint c, k;

  for (c = 0; c < G_N_ELEMENTS (cases); c++) {
    const MpegCheckSequence *sq;
    MpegCheckResult *r;
    GstCaps *out;
    Encoded e;

    out = encode_negotiated (cases[c].props, "video/mpeg,mpegversion=1", w,
        h, n, 0, NULL, &e);
    gst_caps_unref (out);
    r = check_stream (e.stream, n, w, h);
    sq = &g_array_index (r->sequences, MpegCheckSequence, 0);
    GST_INFO ("%s: bit_rate %u, %u bytes", cases[c].props,
        sq->bit_rate_code * 400, e.stream->len);
    fail_unless_equals_int (sq->bit_rate_code * 400, cases[c].bit_rate);
    for (k = 0; k < r->pictures->len; k++) {
      const MpegCheckPicture *p = &g_array_index (r->pictures,
          MpegCheckPicture, k);
      fail_unless_equals_int (p->vbv_delay == 0xffff, cases[c].variable);
    }
    fail_unless_equals_int (longest_gop (r), cases[c].gop);
    mpegcheck_result_free (r);
    encoded_free (&e);
  }
}

GST_END_TEST;

/* Noise at a rate far too low for it, MPEG-1 and MPEG-2, constant and
 * variable rate: pictures that do not fit even at quantiser 31 are coded
 * DC only (I) or all skipped (P), and the VBV still neither underflows
 * nor overflows. */
GST_START_TEST (test_bitrate_too_low)
{
  /* MPEG-1 and MPEG-2 at a constant rate, MPEG-2 at a variable one; last,
   * MPEG-2 I pictures of DC levels only, each over three times a picture
   * period's bits: with low_delay each is decoded once all of it is there,
   * field periods late, and says so in its vbv_delay */
  static const gchar *launches[] = {
    "clmpegenc bitrate=150 vbv-buffer-size=2 gop-size=6",
    "clmpegenc bitrate=150 vbv-buffer-size=2 gop-size=6 ! capsfilter "
        "caps=video/mpeg,mpegversion=2",
    "clmpegenc bitrate=150 max-bitrate=300 vbv-buffer-size=2 gop-size=6 ! "
        "capsfilter caps=video/mpeg,mpegversion=2",
    "clmpegenc bitrate=40 gop-size=1 ! capsfilter "
        "caps=video/mpeg,mpegversion=2",
  };
  const guint w = 176, h = 144, n = 12;
  guint c;

  for (c = 0; c < G_N_ELEMENTS (launches); c++) {
    GstHarness *hs = harness_new_parse (launches[c]);
    Encoded e;
    guint32 rng = 99;
    MpegCheckResult *r;
    gchar *path;
    guint i;

    encoded_init (&e);
    set_caps (hs, w, h, 25, "I420");
    for (i = 0; i < n; i++) {
      guint8 *f = g_malloc (psnr_i420_size (w, h));
      test_fill_random (f, psnr_i420_size (w, h), &rng);
      fail_unless_equals_int (gst_harness_push (hs, i420_buffer (f, w, h,
                  i * GST_SECOND / 25, GST_SECOND / 25)), GST_FLOW_OK);
      g_free (f);
    }
    fail_unless (gst_harness_push_event (hs, gst_event_new_eos ()));
    pull_all (hs, &e);
    test_harness_teardown (hs);
    fail_unless_equals_int (e.pts->len, n);
    r = check_stream (e.stream, n, w, h);
    fail_unless (r->vbv_simulated, "%s", launches[c]);
    fail_unless_equals_int (r->n_underflows, 0);
    fail_unless_equals_int (r->n_overflows, 0);
    fail_unless_equals_int (g_array_index (r->sequences, MpegCheckSequence,
            0).mpeg2, c > 0);
    if (c == 3) {
      MpegCheckPicture *first = &g_array_index (r->pictures,
          MpegCheckPicture, 0);
      MpegCheckPicture *last = &g_array_index (r->pictures,
          MpegCheckPicture, n - 1);

      fail_unless (last->decode_time - first->decode_time > 2.0 * (n - 1) /
          25, "decoded from %.3f to %.3f s: not late", first->decode_time,
          last->decode_time);
    }
    mpegcheck_result_free (r);
    path = write_stream (c ? "toolow.m2v" : "toolow.m1v", e.stream);
    decode_check (path, n, w, h);
    encoded_free (&e);
    g_free (path);
  }
}

GST_END_TEST;

/* A bit rate below what even the rate control's last resorts take (1
 * kbit/s for 25 fps of QCIF: a P picture of skipped macroblocks alone
 * takes more than a picture period brings): every picture goes out as it
 * is, with one warning, for the first; the stats' vbv-underflows counts
 * them all. MPEG-1: each underflows the checker's VBV model; MPEG-2,
 * low_delay: each is decoded late, which the model allows. Last, a
 * vbv-initial-fullness too low for the first picture, which the warning
 * names. */
GST_START_TEST (test_bitrate_impossible)
{
  static const gchar *launches[] = {
    "clmpegenc name=enc bitrate=1 ! capsfilter caps=video/mpeg,mpegversion=1",
    "clmpegenc name=enc bitrate=1 ! capsfilter caps=video/mpeg,mpegversion=2",
    "clmpegenc name=enc bitrate=500 vbv-initial-fullness=0.01 ! capsfilter "
        "caps=video/mpeg,mpegversion=1",
  };
  const guint w = 176, h = 144, n = 12;
  guint c, k;

  for (c = 0; c < G_N_ELEMENTS (launches); c++) {
    const gboolean mpeg2 = c == 1, initial = c == 2;
    GByteArray *stream = g_byte_array_new ();
    GstHarness *hn = harness_new_parse (launches[c]);
    GstElement *enc = gst_bin_get_by_name (GST_BIN (hn->element), "enc");
    GstStructure *stats = NULL;
    guint64 underflows = 0;
    guint warnings = 0;
    GPtrArray *messages;
    MpegCheckResult *r;
    gchar *path;

    test_attach_bus (hn->element);
    set_caps (hn, w, h, 25, "I420");
    messages = encode_natural_warnings (hn, w, h, n, FALSE, stream);
    for (k = 0; k < messages->len; k++) {
      const gchar *m = g_ptr_array_index (messages, k);
      if (strstr (m, "does not fit the VBV buffer")) {
        warnings++;
        fail_unless (g_str_has_prefix (m, initial ?
                "The vbv-initial-fullness is too low" :
                "The bit rate is too low"), "%s", m);
      }
    }
    g_ptr_array_unref (messages);
    g_object_get (enc, "stats", &stats, NULL);
    fail_unless (gst_structure_get (stats, "vbv-underflows", G_TYPE_UINT64,
            &underflows, NULL));
    gst_structure_free (stats);
    fail_unless_equals_int (warnings, 1);
    if (!initial)
      fail_unless_equals_int (underflows, n);
    r = mpegcheck_run (stream->data, stream->len, NULL);
    fail_unless_equals_int (r->pictures->len, n);
    fail_unless (r->vbv_simulated);
    fail_unless_equals_int (g_array_index (r->sequences, MpegCheckSequence,
            0).mpeg2, mpeg2);
    if (mpeg2) {
      fail_unless (mpegcheck_passed (r), "MPEG-2 low delay: check failed");
    } else {
      fail_unless_equals_int (r->n_underflows, underflows);
      fail_unless_equals_int (r->first_underflow, 0);
    }
    path = write_stream (mpeg2 ? "impossible.m2v" : "impossible.m1v",
        stream);
    decode_check (path, n, w, h);
    mpegcheck_result_free (r);
    g_byte_array_unref (stream);
    g_free (path);
    gst_object_unref (enc);
    test_harness_teardown (hn);
  }
}

GST_END_TEST;

/* A vbv-buffer-size too small for the stream (under two pictures at the
 * bit rate and frame rate, or under the largest picture the encoder may
 * be forced to write) is raised to the smallest that works, with one
 * warning that names the size used; the sequence header and the stats
 * carry that size, the property keeps the value set, and the stream
 * passes the VBV model. A size that suffices is kept without a warning,
 * noise at a tight but legal size included. */
GST_START_TEST (test_vbv_buffer_too_small)
{
  static const struct
  {
    const gchar *pattern;       /* videotestsrc's: ball cheap, snow noise */
    guint w, h, bitrate, vbv;
    guint used;                 /* the size coded; 0: @vbv, no warning */
  } cases[] = {
    /* two pictures at 1000 kbit/s and 25 fps: 80000 bits, 5 units */
    {"smpte", 176, 144, 1000, 1, 5},
    {"smpte", 176, 144, 1000, 4, 5},
    /* 333 kbit/s is coded as 333200 bit/s: two pictures 26656 bits */
    {"ball", 176, 144, 333, 1, 2},
    /* two pictures at 4000 kbit/s: 320000 bits, 20 units */
    {"ball", 352, 288, 4000, 2, 20},
    /* two pictures are 24000 bits, but a picture of DC levels only at
     * 640x480 may take 256 bits of headers, 30 slices of 45 and 1200
     * macroblocks of 112: 136006 bits, 9 units */
    {"ball", 640, 480, 300, 1, 9},
    /* enough: two pictures 12000 bits, DC levels only 11749 bits */
    {"ball", 176, 144, 150, 1, 0},
    /* noise, tight but legal: two pictures at 1500 kbit/s 120000 bits */
    {"snow", 352, 288, 1500, 8, 0},
  };
  const guint n = 30;
  guint c;

  for (c = 0; c < G_N_ELEMENTS (cases); c++) {
    guint used = cases[c].used ? cases[c].used : cases[c].vbv;
    GstElement *enc = gst_element_factory_make ("clmpegenc", NULL);
    GByteArray *stream = g_byte_array_new ();
    GString *warnings = g_string_new (NULL);
    gchar *src, *expected;
    GstStructure *stats = NULL;
    GstHarness *h;
    GstBus *bus;
    GstMessage *msg;
    MpegCheckResult *r;
    guint i, n_warnings = 0, value = 0;

    fail_unless (enc != NULL);
    g_object_set (enc, "bitrate", cases[c].bitrate, "vbv-buffer-size",
        cases[c].vbv, "gop-size", 10, NULL);
    test_set_shared_context (enc);
    test_attach_bus (enc);
    h = gst_harness_new_with_element (enc, "sink", "src");
    src = g_strdup_printf ("videotestsrc pattern=%s ! capsfilter "
        "caps=video/x-raw,format=I420,width=%u,height=%u,framerate=25/1,"
        "pixel-aspect-ratio=1/1", cases[c].pattern, cases[c].w, cases[c].h);
    gst_harness_add_src_parse (h, src, FALSE);
    for (i = 0; i < n; i++)
      fail_unless_equals_int (gst_harness_push_from_src (h), GST_FLOW_OK);
    end_stream (h, stream);

    /* the warnings about the buffer's size */
    bus = gst_element_get_bus (enc);
    while ((msg = gst_bus_pop_filtered (bus, GST_MESSAGE_WARNING))) {
      GError *error = NULL;
      gst_message_parse_warning (msg, &error, NULL);
      if (strstr (error->message, "vbv-buffer-size")) {
        n_warnings++;
        g_string_append (warnings, error->message);
      }
      g_error_free (error);
      gst_message_unref (msg);
    }
    gst_object_unref (bus);
    GST_INFO ("%s %ux%u at %u kbit/s, vbv-buffer-size %u: %s",
        cases[c].pattern, cases[c].w, cases[c].h, cases[c].bitrate,
        cases[c].vbv, warnings->str);
    if (cases[c].used) {
      fail_unless_equals_int (n_warnings, 1);
      expected = g_strdup_printf ("vbv-buffer-size %u (", cases[c].vbv);
      fail_unless (g_str_has_prefix (warnings->str, expected), "%s",
          warnings->str);
      g_free (expected);
      expected = g_strdup_printf ("; using %u (", used);
      fail_unless (strstr (warnings->str, expected) != NULL, "%s",
          warnings->str);
      g_free (expected);
    } else {
      fail_unless_equals_int (n_warnings, 0);
    }

    /* the property says what was set, the stats what was used */
    g_object_get (enc, "vbv-buffer-size", &value, "stats", &stats, NULL);
    fail_unless_equals_int (value, cases[c].vbv);
    fail_unless (gst_structure_get_uint (stats, "vbv-buffer-size", &value));
    fail_unless_equals_int (value, used);
    gst_structure_free (stats);

    r = mpegcheck_run (stream->data, stream->len, NULL);
    fail_unless_equals_int (r->pictures->len, n);
    fail_unless_equals_int (g_array_index (r->sequences, MpegCheckSequence,
            0).vbv_buffer_size_code, used);
    fail_unless (r->vbv_simulated);
    fail_unless (r->n_overflows == 0 && r->n_underflows == 0,
        "%s %ux%u at %u kbit/s, VBV %u: %u overflows (first before picture "
        "%d), %u underflows (first at %d)", cases[c].pattern, cases[c].w,
        cases[c].h, cases[c].bitrate, used, r->n_overflows,
        r->first_overflow, r->n_underflows, r->first_underflow);
    mpegcheck_result_free (r);

    test_harness_teardown (h);
    g_string_free (warnings, TRUE);
    g_byte_array_unref (stream);
    g_free (src);
  }
}

GST_END_TEST;

/* Tight but legal VBV sizes (the smallest the encoder accepts without a
 * warning), GOP lengths from 5 to 25, content where the I pictures cost
 * several times a picture's share of the bit rate: smpte at 640x480 and
 * 300 kbit/s (an I picture of DC levels only is 49 kbit, four pictures'
 * worth; its noise corner makes every P picture 36 kbit at quantiser
 * 31), noise, and cuts between flat grey and noise, which make an I
 * picture after flat ones far more expensive than they were. The P
 * pictures before an I picture must leave it room: no underflow, no
 * overflow, no warning (neither a picture that does not fit nor one
 * coded as a repeat of the one before), and the sequence header carries
 * the size set. */
/* Encodes 36 frames of the natural clip at 176x144 with @props, @change
 * set before frame @at; the stream's check (it must pass) */
static MpegCheckResult *
encode_with_change (const gchar * props, const gchar * change, guint at)
{
  const guint w = 176, h_ = 144, n = 36;
  GstHarness *h = harness_new (props);
  Encoded e;
  MpegCheckResult *r;
  gchar *errors;

  encoded_init (&e);

  set_caps (h, w, h_, 25, "I420");
  push_natural (h, w, h_, 0, at, 2, 1, 7, 0, &e);
  test_set_properties (h->element, change);
  push_natural (h, w, h_, at, n - at, 2, 1, 7, at, &e);
  finish_harness (h, &e);
  fail_unless_equals_int (e.pts->len, n);
  r = mpegcheck_run (e.stream->data, e.stream->len, NULL);
  errors = mpegcheck_errors_text (r);
  fail_unless (mpegcheck_passed (r), "%s, then %s: %s", props, change,
      errors);
  fail_unless_equals_int (r->pictures->len, n);
  g_free (errors);
  encoded_free (&e);
  return r;
}

/* Properties set while playing are used, never only reported: the
 * quantisers from the next picture coded; a bit rate or VBV buffer (a
 * sequence's in MPEG-1) from the next GOP, which starts a new sequence
 * that carries them, in bit-rate and in constant-quantiser mode. */
GST_START_TEST (test_live_changes)
{
  static const struct
  {
    const gchar *props, *change;
    guint bitrate[2], vbv[2];   /* of the two sequences (0: none) */
  } rates[] = {
    {"bitrate=150", "bitrate=600", {150, 600}, {0, 0}},
    {"bitrate=600", "vbv-buffer-size=8", {600, 600}, {0, 8}},
    {"bitrate=300", "bitrate=0", {300, 0}, {0, 1023}},
    {"quantizer=6", "bitrate=400", {0, 400}, {1023, 0}},
    /* the B frames waiting end the second GOP first */
    {"bitrate=300 b-frames=2", "bitrate=500", {300, 500}, {0, 0}},
  };
  MpegCheckResult *r;
  guint c, i;

  /* quantizer 4 -> 10 and ip-factor 1.4 -> 2 after frame 9 (the one in
   * the device then keeps its own): P pictures 4, then 10; I pictures
   * round (4 / 1.4) = 3, then 10 / 2 = 5 */
  r = encode_with_change ("quantizer=4 gop-size=12 ip-factor=1.4",
      "quantizer=10 ip-factor=2", 10);
  for (i = 0; i < r->pictures->len; i++) {
    const MpegCheckPicture *pic = &g_array_index (r->pictures,
        MpegCheckPicture, i);
    guint q = i % 12 ? (i < 10 ? 4 : 10) : (i < 10 ? 3 : 5);
    fail_unless (pic->slice_quant_min == q && pic->slice_quant_max == q,
        "picture %u: quantisers %u to %u, not %u", i, pic->slice_quant_min,
        pic->slice_quant_max, q);
  }
  fail_unless_equals_int (r->sequences->len, 1);
  mpegcheck_result_free (r);

  /* set before frame 15, in the second GOP: the third starts a sequence */
  for (c = 0; c < G_N_ELEMENTS (rates); c++) {
    r = encode_with_change (rates[c].props, rates[c].change, 15);
    fail_unless_equals_int (r->sequences->len, 2);
    for (i = 0; i < 2; i++) {
      const MpegCheckSequence *seq = &g_array_index (r->sequences,
          MpegCheckSequence, i);
      guint code = rates[c].bitrate[i] ? rates[c].bitrate[i] * 1000 / 400 :
          0x3ffff;
      fail_unless_equals_int (seq->first_picture, 24 * i);
      fail_unless_equals_int (seq->n_pictures, i ? 12 : 24);
      fail_unless (seq->bit_rate_code == code, "%s, then %s: sequence %u "
          "signals bit_rate %u, not %u", rates[c].props, rates[c].change, i,
          seq->bit_rate_code, code);
      if (rates[c].vbv[i])
        fail_unless_equals_int (seq->vbv_buffer_size_code, rates[c].vbv[i]);
    }
    fail_unless (r->vbv_simulated || rates[c].bitrate[0] == 0);
    fail_unless (r->n_underflows == 0 && r->n_overflows == 0,
        "%s, then %s: %u underflows, %u overflows", rates[c].props,
        rates[c].change, r->n_underflows, r->n_overflows);
    mpegcheck_result_free (r);
  }
}

GST_END_TEST;

/* Frames @first to @first + @n - 1 of the natural clip coded with
 * @props into @caps, one piece of a chunked encode (frame-offset
 * @first) */
static void
encode_piece (const gchar * props, const gchar * caps, guint w, guint h,
    guint first, guint n, Encoded * e)
{
  gchar *launch = g_strdup_printf ("clmpegenc %s frame-offset=%u ! "
      "capsfilter caps=%s", props, first, caps);
  GstHarness *hn = harness_new_parse (launch);

  encoded_init (e);
  set_caps (hn, w, h, 25, "I420");
  push_natural (hn, w, h, first, n, clip_pan_x, clip_pan_y, 7, 0, e);
  finish_harness (hn, e);
  g_free (launch);
}

/* Two pieces of a chunked encode at a constant rate, the first ending at
 * vbv-final-fullness (stream-frames saying where it ends), the second
 * starting at vbv-initial-fullness, joined without the first's sequence
 * end code: one VBV model runs on across the join, every vbv_delay
 * within 2 ticks of it (MPEG-1, and MPEG-2 with B pictures). Joined
 * without those levels, the second piece's vbv_delay values are far off
 * the model. */
GST_START_TEST (test_vbv_fullness_join)
{
  static const struct
  {
    const gchar *props, *caps;
    gdouble level;
  } cases[] = {
    {"bitrate=600", "video/mpeg,mpegversion=1", 0.5},
    {"bitrate=900 b-frames=2", "video/mpeg,mpegversion=2", 0.9},
  };
  const guint w = 176, h = 144, n = 24;
  guint c, set;

  for (c = 0; c < G_N_ELEMENTS (cases); c++)
    for (set = 0; set < 2; set++) {
      gchar *first = set ? g_strdup_printf ("%s vbv-final-fullness=%g "
          "stream-frames=%u vbv-initial-fullness=%g", cases[c].props,
          cases[c].level, n, cases[c].level) : g_strdup (cases[c].props);
      gchar *second = set ? g_strdup_printf ("%s vbv-initial-fullness=%g",
          cases[c].props, cases[c].level) : g_strdup (cases[c].props);
      Encoded a, b;
      MpegCheckOptions o;
      MpegCheckResult *r;
      GByteArray *joined = g_byte_array_new ();
      gchar *errs;

      encode_piece (first, cases[c].caps, w, h, 0, n, &a);
      encode_piece (second, cases[c].caps, w, h, n, n, &b);
      /* the first piece without its sequence end code */
      fail_unless (a.stream->len > 4 && memcmp (a.stream->data +
              a.stream->len - 4, "\x00\x00\x01\xb7", 4) == 0);
      g_byte_array_append (joined, a.stream->data, a.stream->len - 4);
      g_byte_array_append (joined, b.stream->data, b.stream->len);
      mpegcheck_options_init (&o);
      o.expect_pictures = 2 * n;
      o.vbv_delay_tolerance = 2;
      r = mpegcheck_run (joined->data, joined->len, &o);
      errs = mpegcheck_errors_text (r);
      GST_INFO ("%s, levels %s: vbv_delay at most %.1f ticks off the model",
          cases[c].props, set ? "set" : "not set", r->vbv_delay_max_error);
      fail_unless (r->vbv_simulated);
      if (set)
        fail_unless (mpegcheck_passed (r), "%s: the join: %s",
            cases[c].props, errs);
      else
        fail_unless (r->vbv_delay_max_error > 20, "%s: without the levels "
            "the join's vbv_delay values are %.1f ticks off at most",
            cases[c].props, r->vbv_delay_max_error);
      g_free (errs);
      mpegcheck_result_free (r);
      g_byte_array_unref (joined);
      encoded_free (&a);
      encoded_free (&b);
      g_free (first);
      g_free (second);
    }
}

GST_END_TEST;

GST_START_TEST (test_vbv_tight)
{
  static const struct
  {
    const gchar *pattern;       /* videotestsrc's; NULL: cuts */
    guint w, h, bitrate, vbv, gop;
  } cases[] = {
    /* before: VBV underflows before every I picture */
    {"smpte", 640, 480, 300, 9, 12},
    {"smpte", 640, 480, 300, 9, 6},
    {"smpte", 640, 480, 600, 9, 25},
    /* before: every P picture a repeat */
    {"snow", 352, 288, 1500, 8, 5},
    {"snow", 352, 288, 1500, 8, 12},
    /* flat and noise in turns of 7 pictures */
    {NULL, 352, 288, 1500, 8, 4},
    {NULL, 352, 288, 600, 3, 12},
    {NULL, 640, 480, 1000, 9, 8},
  };
  const guint n = 40;
  guint c;

  for (c = 0; c < G_N_ELEMENTS (cases); c++) {
    guint w = cases[c].w, h_ = cases[c].h;
    GstElement *enc = gst_element_factory_make ("clmpegenc", NULL);
    GByteArray *stream = g_byte_array_new ();
    GString *warnings = g_string_new (NULL);
    GstStructure *stats = NULL;
    guint64 repeated = 0, dc_only = 0, scene_cuts = 0;
    guint dc_warned = 0, run, short_gops;
    gchar *what;
    GstHarness *h;
    GstBus *bus;
    GstMessage *msg;
    MpegCheckResult *r;
    guint i, k;

    fail_unless (enc != NULL);
    g_object_set (enc, "bitrate", cases[c].bitrate, "vbv-buffer-size",
        cases[c].vbv, "gop-size", cases[c].gop, NULL);
    test_set_shared_context (enc);
    test_attach_bus (enc);
    h = gst_harness_new_with_element (enc, "sink", "src");
    what = g_strdup_printf ("%s %ux%u at %u kbit/s, vbv-buffer-size %u, "
        "gop-size %u", cases[c].pattern ? cases[c].pattern : "cuts", w, h_,
        cases[c].bitrate, cases[c].vbv, cases[c].gop);
    if (cases[c].pattern) {
      gchar *src = g_strdup_printf ("videotestsrc pattern=%s ! capsfilter "
          "caps=video/x-raw,format=I420,width=%u,height=%u,framerate=25/1,"
          "pixel-aspect-ratio=1/1", cases[c].pattern, w, h_);
      gst_harness_add_src_parse (h, src, FALSE);
      for (i = 0; i < n; i++)
        fail_unless_equals_int (gst_harness_push_from_src (h), GST_FLOW_OK);
      g_free (src);
    } else {
      gsize size = psnr_i420_size (w, h_);
      guint32 rng = 7 + c;

      set_caps (h, w, h_, 25, "I420");
      for (i = 0; i < n; i++) {
        guint8 *f = g_malloc (size);
        if (i / 7 % 2) {
          test_fill_random (f, size, &rng);
        } else {
          memset (f, 100, (gsize) w * h_);
          memset (f + (gsize) w * h_, 128, size - (gsize) w * h_);
        }
        fail_unless_equals_int (gst_harness_push (h, i420_buffer (f, w, h_,
                    i * GST_SECOND / 25, GST_SECOND / 25)), GST_FLOW_OK);
        g_free (f);
      }
    }
    end_stream (h, stream);

    bus = gst_element_get_bus (enc);
    while ((msg = gst_bus_pop_filtered (bus, GST_MESSAGE_WARNING))) {
      GError *error = NULL;
      gst_message_parse_warning (msg, &error, NULL);
      /* (pictures of DC levels only, the step before a repeat, are said
       * once: the one warning these rates may give) */
      if (strstr (error->message, "DC levels only"))
        dc_warned++;
      else
        g_string_append_printf (warnings, "\n  %s", error->message);
      g_error_free (error);
      gst_message_unref (msg);
    }
    gst_object_unref (bus);
    g_object_get (enc, "stats", &stats, NULL);
    fail_unless (gst_structure_get (stats, "repeated-pictures",
            G_TYPE_UINT64, &repeated, "dc-only-pictures", G_TYPE_UINT64,
            &dc_only, "scene-cuts", G_TYPE_UINT64, &scene_cuts, NULL));
    gst_structure_free (stats);
    fail_unless_equals_int (dc_warned, dc_only > 0);

    r = mpegcheck_run (stream->data, stream->len, NULL);
    GST_INFO ("%s: %u bytes, VBV %.0f .. %.0f bits", what, stream->len,
        r->vbv_min_fullness, r->vbv_max_fullness);
    fail_unless (mpegcheck_passed (r), "%s: stream check failed", what);
    fail_unless_equals_int (r->pictures->len, n);
    fail_unless_equals_int (g_array_index (r->sequences, MpegCheckSequence,
            0).vbv_buffer_size_code, cases[c].vbv);
    fail_unless (r->vbv_simulated);
    fail_unless (r->n_overflows == 0 && r->n_underflows == 0,
        "%s: %u overflows (first before picture %d), %u underflows (first "
        "at %d)", what, r->n_overflows, r->first_overflow, r->n_underflows,
        r->first_underflow);
    /* GOPs of gop-size P pictures after their I picture, but where a
     * scene cut started the next one early (the noise after the flat
     * pictures, scene-cut's default) */
    for (k = 0, run = 0, short_gops = 0; k < n; k++) {
      guint type = g_array_index (r->pictures, MpegCheckPicture,
          k).coding_type;
      if (type == 1) {
        short_gops += k > 0 && run < cases[c].gop;
        run = 0;
      }
      fail_unless (type == 1 || (type == 2 && k > 0));
      fail_unless (++run <= cases[c].gop, "%s: a GOP over %u pictures", what,
          cases[c].gop);
    }
    fail_unless_equals_int (short_gops, scene_cuts);
    if (!cases[c].pattern)
      fail_unless (scene_cuts > 0, "%s: no scene cut", what);
    fail_unless (warnings->len == 0, "%s: warnings:%s", what, warnings->str);
    fail_unless (repeated == 0, "%s: %" G_GUINT64_FORMAT " pictures "
        "repeated", what, repeated);
    mpegcheck_result_free (r);

    test_harness_teardown (h);
    g_string_free (warnings, TRUE);
    g_byte_array_unref (stream);
    g_free (what);
  }
}

GST_END_TEST;

static void
setup (void)
{
  tmpdir = g_dir_make_tmp ("test-mpegenc-XXXXXX", NULL);
}

static void
teardown (void)
{
  gchar *cmd = g_strdup_printf ("rm -rf %s", tmpdir);
  if (!g_getenv ("TEST_MPEGENC_KEEP"))
    g_spawn_command_line_sync (cmd, NULL, NULL, NULL, NULL);
  g_free (cmd);
  g_clear_pointer (&tmpdir, g_free);
  test_release_shared_context ();
}

static Suite *
mpegenc_suite (void)
{
  Suite *s = suite_create ("mpegenc");
  TCase *tc = tcase_create ("general");

  tcase_add_checked_fixture (tc, setup, teardown);
  /* (the GPU layout's cases run POCL's unoptimised programs, several
   * times slower: see test_layout_environ) */
  tcase_set_timeout (tc, g_strcmp0 (g_getenv ("GST_CL_LAYOUT"), "gpu") == 0 ?
      1500 : 600);
  suite_add_tcase (s, tc);
  tcase_add_test (tc, test_idct_ieee1180);
  tcase_add_test (tc, test_fdct_accuracy);
  tcase_add_test (tc, test_small_residual_no_levels);
  tcase_add_test (tc, test_device_load);
  tcase_add_test (tc, test_device_stages);
  tcase_add_test (tc, test_device_stages_422);
  tcase_add_test (tc, test_device_stages_non_linear);
  tcase_add_test (tc, test_predict_b);
  tcase_add_test (tc, test_follow_vectors);
  tcase_add_test (tc, test_predict_b_fields);
  tcase_add_test (tc, test_predict_b_422);
  tcase_add_test (tc, test_predict_b_fields_422);
  tcase_add_test (tc, test_no_drift);
  tcase_add_test (tc, test_no_drift_mpeg2);
  tcase_add_test (tc, test_no_drift_b_pictures);
  tcase_add_test (tc, test_no_drift_interlaced);
  tcase_add_test (tc, test_no_drift_422);
  tcase_add_test (tc, test_mpeg2_stream);
  tcase_add_test (tc, test_mpeg2_colour);
  tcase_add_test (tc, test_chroma_422);
  tcase_add_test (tc, test_chroma_422_refused);
  tcase_add_test (tc, test_b_frames);
  tcase_add_test (tc, test_b_adapt);
  tcase_add_test (tc, test_non_linear_quant);
  tcase_add_test (tc, test_interlaced);
  tcase_add_test (tc, test_pulldown);
  tcase_add_test (tc, test_open_gop);
  tcase_add_test (tc, test_scene_cut);
  tcase_add_test (tc, test_intra_table);
  tcase_add_test (tc, test_b_frames_muxed);
  tcase_add_test (tc, test_formats_muxed);
  tcase_add_test (tc, test_force_key_unit);
  tcase_add_test (tc, test_mpeg2_intra_dc_precision);
  tcase_add_test (tc, test_mpeg2_intra_dc_precision_11);
  tcase_add_test (tc, test_mpeg2_variable_rate_buffer);
  tcase_add_test (tc, test_mpeg2_level_refused);
  tcase_add_test (tc, test_format);
  tcase_add_test (tc, test_format_refused);
  tcase_add_test (tc, test_records_summary);
  tcase_add_test (tc, test_kernel_groups);
  tcase_add_test (tc, test_packed_levels);
  tcase_add_test (tc, test_quality);
  tcase_add_test (tc, test_sizes);
  tcase_add_test (tc, test_size_change);
  tcase_add_loop_test (tc, test_eos_and_flush, 0, 2);
  tcase_add_test (tc, test_flush_starts_afresh);
  tcase_add_test (tc, test_upstream_vectors);
  tcase_add_test (tc, test_ultrafast_takes_upstream_vectors);
  tcase_add_test (tc, test_fit_vectors);
  tcase_add_test (tc, test_live_changes);
  tcase_add_test (tc, test_chain_not_worse);
  tcase_add_test (tc, test_motion_method);
  tcase_add_test (tc, test_speed_preset);
  tcase_add_test (tc, test_layouts_agree);
  tcase_add_test (tc, test_slices);
  tcase_add_test (tc, test_ip_factor);
  tcase_add_test (tc, test_ip_factor_auto);
  tcase_add_test (tc, test_ip_factor_auto_end);
  tcase_add_test (tc, test_ip_factor_auto_first);
  tcase_add_test (tc, test_ip_factor_auto_cut);
  tcase_add_test (tc, test_bad_rate);
  tcase_add_test (tc, test_bitrate);
  tcase_add_test (tc, test_variable_bitrate);
  tcase_add_test (tc, test_rate_control);
  tcase_add_test (tc, test_bitrate_too_low);
  tcase_add_test (tc, test_bitrate_impossible);
  tcase_add_test (tc, test_vbv_buffer_too_small);
  tcase_add_test (tc, test_vbv_tight);
  tcase_add_test (tc, test_vbv_fullness_join);
  return s;
}

int
main (int argc, char **argv)
{
  Suite *s;

  gst_check_init (&argc, &argv);
  if (!test_have_program ("ffmpeg")) {
    g_print ("SKIP: ffmpeg is not installed (Debian package ffmpeg)\n");
    return 77;
  }
  s = mpegenc_suite ();
  return gst_check_run_suite (s, "mpegenc", __FILE__);
}
