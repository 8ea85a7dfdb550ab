/* gst-clvideo: the MPEG-1 stream checker, the PSNR tool and the decode
 * check, verified on streams of an independent encoder (FFmpeg's
 * mpeg1video) and on streams broken on purpose
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * Needs the ffmpeg program; the suite is skipped (exit 77) without it.
 */
#include <gst/check/gstcheck.h>
#include <glib/gstdio.h>
#include <math.h>
#include <string.h>

#include "mpegcheck.h"
#include "psnr.h"

#define W 352
#define H 288
#define FRAMES 30

static gchar *tmpdir;

static gchar *
tmp_path (const gchar * name)
{
  return g_build_filename (tmpdir, name, NULL);
}

/* Runs @argv, failing the test unless it exits with @expect; its stdout. */
static gchar *
run_tool (const gchar ** argv, gint expect)
{
  gchar *out = NULL, *err = NULL;
  gint status = 0;
  GError *error = NULL;

  fail_unless (g_spawn_sync (NULL, (gchar **) argv, NULL, G_SPAWN_SEARCH_PATH,
          NULL, NULL, &out, &err, &status, &error), "cannot run %s: %s",
      argv[0], error ? error->message : "?");
  fail_unless (WIFEXITED (status) && WEXITSTATUS (status) == expect,
      "%s exited with %d, expected %d\nstdout:\n%s\nstderr:\n%s", argv[0],
      WIFEXITED (status) ? WEXITSTATUS (status) : -1, expect, out, err);
  g_free (err);
  return out;
}

/* FFmpeg on testsrc2 with @codec_args; run before the tests start. */
static void
ffmpeg_encode (const gchar * name, const gchar * size, gint frames,
    const gchar * codec_args)
{
  gchar *path = tmp_path (name), *err = NULL;
  gchar *cmd = g_strdup_printf ("ffmpeg -nostdin -v error -f lavfi -i "
      "testsrc2=size=%s:rate=25 -frames:v %d %s -y %s", size, frames,
      codec_args, path);
  gint status = -1;

  if (!g_spawn_command_line_sync (cmd, NULL, &err, &status, NULL) ||
      !g_spawn_check_wait_status (status, NULL))
    g_error ("%s failed: %s", cmd, err ? err : "");
  g_free (err);
  g_free (cmd);
  g_free (path);
}

/* Offset of the start code after the one at @offset, or @size. */
static gsize
next_code (const guint8 * data, gsize size, gsize offset)
{
  gsize i;

  for (i = offset + 4; i + 3 < size; i++)
    if (data[i] == 0 && data[i + 1] == 0 && data[i + 2] == 1)
      return i;
  return size;
}

static guint8 *
load (const gchar * name, gsize * size)
{
  gchar *path = tmp_path (name), *data;
  GError *error = NULL;

  fail_unless (g_file_get_contents (path, &data, size, &error), "%s",
      error ? error->message : "?");
  g_free (path);
  return (guint8 *) data;
}

static void
save (const gchar * name, const guint8 * data, gsize size)
{
  gchar *path = tmp_path (name);
  fail_unless (g_file_set_contents (path, (const gchar *) data, size, NULL));
  g_free (path);
}

/* FFmpeg writes no sequence end code: a compliant copy has one added. */
static guint8 *
load_with_end_code (const gchar * name, gsize * size)
{
  guint8 *data = load (name, size);
  data = g_realloc (data, *size + 4);
  memcpy (data + *size, "\x00\x00\x01\xb7", 4);
  *size += 4;
  return data;
}

/* Offsets of the start codes with code @code. */
static GArray *
find_codes (const guint8 * data, gsize size, guint code)
{
  GArray *a = g_array_new (FALSE, FALSE, sizeof (gsize));
  gsize i;

  for (i = 0; i + 3 < size; i++)
    if (data[i] == 0 && data[i + 1] == 0 && data[i + 2] == 1 &&
        data[i + 3] == code)
      g_array_append_val (a, i);
  return a;
}

/* Writes @n bits of @value at bit @pos after the start code at @offset. */
static void
put_bits (guint8 * data, gsize offset, guint pos, guint n, guint value)
{
  guint i;

  for (i = 0; i < n; i++) {
    guint bit = (value >> (n - 1 - i)) & 1;
    gsize byte = offset + 4 + (pos + i) / 8;
    guint shift = 7 - (pos + i) % 8;
    data[byte] = (data[byte] & ~(1u << shift)) | (bit << shift);
  }
}

/* The options a conforming 352x288 CBR stream from FFmpeg meets. */
static void
strict_options (MpegCheckOptions * o)
{
  mpegcheck_options_init (o);
  o->expect_pictures = FRAMES;
  o->expect_width = W;
  o->expect_height = H;
  o->require_seq_header_per_gop = TRUE;
  o->require_slice_per_row = TRUE;
  o->require_closed_gop = TRUE;
  o->vbv_delay_tolerance = 2;
}

static MpegCheckResult *
check (const guint8 * data, gsize size, const MpegCheckOptions * o)
{
  MpegCheckResult *r = mpegcheck_run (data, size, o);
  gchar *report = mpegcheck_report (r, FALSE);
  GST_INFO ("%s", report);
  g_free (report);
  return r;
}

static gboolean
has_error (const MpegCheckResult * r, const gchar * text)
{
  guint i;
  for (i = 0; i < r->errors->len; i++)
    if (strstr (r->errors->pdata[i], text))
      return TRUE;
  return FALSE;
}

#define assert_error(r, text) \
  fail_unless (has_error (r, text), "no error with \"%s\" among:\n%s", \
      text, mpegcheck_errors_text (r))

#define assert_passed(r) \
  fail_unless (mpegcheck_passed (r), "unexpected errors:\n%s", \
      mpegcheck_errors_text (r))

GST_START_TEST (test_cbr_stream_passes)
{
  gsize size, i;
  guint8 *data = load_with_end_code ("cbr.m1v", &size);
  MpegCheckOptions o;
  MpegCheckResult *r;
  const MpegCheckSequence *s;
  guint64 bits = 0;

  strict_options (&o);
  r = check (data, size, &o);
  assert_passed (r);
  fail_unless_equals_int (r->sequences->len, 1);
  s = &g_array_index (r->sequences, MpegCheckSequence, 0);
  fail_unless_equals_int (s->width, W);
  fail_unless_equals_int (s->height, H);
  fail_unless_equals_int (s->frame_rate_code, 3);
  fail_unless_equals_int (s->fps_n, 25);
  fail_unless_equals_int (s->bit_rate_code, 1000000 / 400);
  fail_unless_equals_int (s->vbv_buffer_size_code, 20);
  fail_unless_equals_int (r->pictures->len, FRAMES);
  fail_unless_equals_int (r->n_type[1], 3);
  fail_unless_equals_int (r->n_type[2], FRAMES - 3);
  fail_unless_equals_int (r->n_gops, 3);
  fail_unless_equals_int (r->n_seq_headers, 3);
  fail_unless_equals_int (r->n_slices, FRAMES * (H / 16));
  fail_unless (r->end_code);
  /* every byte belongs to one picture */
  for (i = 0; i < r->pictures->len; i++) {
    const MpegCheckPicture *p =
        &g_array_index (r->pictures, MpegCheckPicture, i);
    fail_unless_equals_int (p->temporal_reference, i % 12);
    fail_unless_equals_int (p->coding_type, i % 12 ? 2 : 1);
    bits += p->bits;
  }
  fail_unless_equals_uint64 (bits, size * 8);
  /* the model reproduces FFmpeg's own vbv_delay and keeps within the buffer */
  fail_unless (r->vbv_simulated && !r->vbv_buffer_full_rule);
  fail_unless (r->vbv_delay_max_error <= 2.0, "%f", r->vbv_delay_max_error);
  fail_unless (r->vbv_max_fullness <= 20 * 16384 + 1000000 / 90000.0);
  fail_unless (r->vbv_min_fullness > 0);
  fail_unless (fabs (r->average_bitrate - 1e6) < 0.2e6, "%f",
      r->average_bitrate);
  mpegcheck_result_free (r);

  /* as FFmpeg writes it: no end code, which is flagged unless allowed */
  g_free (data);
  data = load ("cbr.m1v", &size);
  r = check (data, size, &o);
  assert_error (r, "sequence_end_code");
  fail_unless_equals_int (r->errors->len, 1);
  mpegcheck_result_free (r);
  o.require_end_code = FALSE;
  r = check (data, size, &o);
  assert_passed (r);
  mpegcheck_result_free (r);
  g_free (data);
}

GST_END_TEST;

GST_START_TEST (test_b_pictures_and_rows)
{
  gsize size;
  guint8 *data = load_with_end_code ("bframes.m1v", &size);
  MpegCheckOptions o;
  MpegCheckResult *r;

  /* FFmpeg's default: open GOPs, B pictures, slices of several rows */
  mpegcheck_options_init (&o);
  o.expect_pictures = FRAMES;
  o.vbv_delay_tolerance = 2;
  r = check (data, size, &o);
  assert_passed (r);
  fail_unless (r->n_type[3] > 0);
  fail_unless (r->n_slices < FRAMES * (H / 16));
  mpegcheck_result_free (r);

  o.require_slice_per_row = TRUE;
  r = check (data, size, &o);
  assert_error (r, "not one starting at column 0");
  mpegcheck_result_free (r);
  g_free (data);
}

GST_END_TEST;

GST_START_TEST (test_large_odd_size)
{
  gsize size;
  guint8 *data = load_with_end_code ("odd.m1v", &size);
  MpegCheckOptions o;
  MpegCheckResult *r;

  mpegcheck_options_init (&o);
  o.expect_pictures = 3;
  o.expect_width = 1918;
  o.expect_height = 1078;
  r = check (data, size, &o);
  assert_passed (r);
  /* FFmpeg makes at most 32 slices: several rows each, starting at
   * macroblock addresses the checker found increasing */
  fail_unless (r->n_slices >= 3 && r->n_slices < 3 * 68);
  /* bit_rate 0x3FFFF: no rate to run the model at */
  fail_unless (!r->vbv_simulated);
  mpegcheck_result_free (r);

  o.expect_width = 1920;
  r = check (data, size, &o);
  assert_error (r, "expected 1920x1078");
  mpegcheck_result_free (r);
  g_free (data);
}

GST_END_TEST;

GST_START_TEST (test_vbv_violations)
{
  gsize size, i;
  guint8 *data = load_with_end_code ("cbr.m1v", &size);
  guint8 *copy = g_memdup2 (data, size);
  GArray *seqs = find_codes (data, size, 0xB3);
  GArray *pics = find_codes (data, size, 0x00);
  MpegCheckOptions o;
  MpegCheckResult *r;

  strict_options (&o);
  o.vbv_delay_tolerance = 0;

  /* a 16 kbit buffer: the bits that arrive before the first decoding
   * cannot fit */
  for (i = 0; i < seqs->len; i++)
    put_bits (copy, g_array_index (seqs, gsize, i), 51, 10, 1);
  r = check (copy, size, &o);
  fail_if (mpegcheck_passed (r));
  fail_unless (r->n_overflows > 0);
  fail_unless_equals_int (r->first_overflow, 0);
  assert_error (r, "VBV overflow before picture 0");
  mpegcheck_result_free (r);

  /* the first picture decoded 100 ticks after its start code arrives:
   * not all of it is there yet */
  memcpy (copy, data, size);
  put_bits (copy, g_array_index (pics, gsize, 0), 13, 16, 100);
  r = check (copy, size, &o);
  fail_unless_equals_int (r->first_underflow, 0);
  assert_error (r, "VBV underflow at picture 0");
  mpegcheck_result_free (r);

  /* a quarter of the rate: pictures arrive too late */
  memcpy (copy, data, size);
  for (i = 0; i < seqs->len; i++)
    put_bits (copy, g_array_index (seqs, gsize, i), 32, 18, 1000000 / 1600);
  r = check (copy, size, &o);
  fail_unless (r->n_underflows > 1);
  fail_unless_equals_int (r->first_underflow, 0);
  mpegcheck_result_free (r);

  /* vbv_delay 0xFFFF everywhere: the buffer-full start, which this
   * stream meets */
  memcpy (copy, data, size);
  for (i = 0; i < pics->len; i++)
    put_bits (copy, g_array_index (pics, gsize, i), 13, 16, 0xFFFF);
  r = check (copy, size, &o);
  assert_passed (r);
  fail_unless (r->vbv_simulated && r->vbv_buffer_full_rule);
  fail_unless (r->vbv_max_fullness <= 20 * 16384 + 1);
  mpegcheck_result_free (r);

  /* ... but not mixed with coded delays */
  put_bits (copy, g_array_index (pics, gsize, 5), 13, 16, 1234);
  r = check (copy, size, &o);
  assert_error (r, "mixed");
  mpegcheck_result_free (r);

  /* a vbv_delay off by 1000 ticks is noticed when asked */
  memcpy (copy, data, size);
  o.vbv_delay_tolerance = 2;
  {
    gsize off = g_array_index (pics, gsize, 7);
    guint v = ((copy[off + 5] & 0x07) << 13) | (copy[off + 6] << 5) |
        (copy[off + 7] >> 3);
    put_bits (copy, off, 13, 16, v + 1000);
  }
  r = check (copy, size, &o);
  assert_error (r, "picture 7: vbv_delay");
  mpegcheck_result_free (r);

  g_array_free (seqs, TRUE);
  g_array_free (pics, TRUE);
  g_free (copy);
  g_free (data);
}

GST_END_TEST;

/* @data without the @len bytes at @at */
static guint8 *
cut (const guint8 * data, gsize size, gsize at, gsize len, gsize * out)
{
  guint8 *c = g_malloc (size - len);
  memcpy (c, data, at);
  memcpy (c + at, data + at + len, size - at - len);
  *out = size - len;
  return c;
}

GST_START_TEST (test_broken_structure)
{
  gsize size, n;
  guint8 *data = load_with_end_code ("cbr.m1v", &size);
  GArray *gops = find_codes (data, size, 0xB8);
  GArray *pics = find_codes (data, size, 0x00);
  GArray *slices = find_codes (data, size, 0x05);
  GArray *seqs = find_codes (data, size, 0xB3);
  guint8 *c;
  MpegCheckOptions o;
  MpegCheckResult *r;

  strict_options (&o);

  /* truncated */
  r = check (data, size * 2 / 3, &o);
  assert_error (r, "sequence_end_code");
  assert_error (r, "pictures, expected 30");
  mpegcheck_result_free (r);

  /* truncated inside a picture header */
  r = check (data, g_array_index (pics, gsize, 4) + 6, &o);
  assert_error (r, "truncated");
  mpegcheck_result_free (r);

  /* no sequence header at the start */
  r = check (data + 12, size - 12, &o);
  assert_error (r, "not a sequence header");
  assert_error (r, "before any sequence header");
  mpegcheck_result_free (r);

  /* the second GOP header removed (8 bytes) */
  c = cut (data, size, g_array_index (gops, gsize, 1), 8, &n);
  r = check (c, n, &o);
  assert_error (r, "has no GOP header between it and the sequence header");
  assert_error (r, "GOP 0 (byte 12): temporal_reference 0 of its picture 12 "
      "is repeated");
  mpegcheck_result_free (r);
  g_free (c);

  /* a slice of picture 2 removed: its row is missing */
  c = cut (data, size, g_array_index (slices, gsize, 2),
      next_code (data, size, g_array_index (slices, gsize, 2)) -
      g_array_index (slices, gsize, 2), &n);
  r = check (c, n, &o);
  assert_error (r, "picture 2 ");
  assert_error (r, "not one starting at column 0");
  mpegcheck_result_free (r);
  g_free (c);

  /* picture_coding_type 0, and a P picture first in a GOP */
  c = g_memdup2 (data, size);
  put_bits (c, g_array_index (pics, gsize, 3), 10, 3, 0);
  put_bits (c, g_array_index (pics, gsize, 12), 10, 3, 2);
  r = check (c, size, &o);
  assert_error (r, "picture_coding_type 0 is forbidden");
  assert_error (r, "is the first of GOP 1 but a P picture");
  mpegcheck_result_free (r);

  /* repeated temporal reference */
  memcpy (c, data, size);
  put_bits (c, g_array_index (pics, gsize, 5), 0, 10, 4);
  r = check (c, size, &o);
  assert_error (r, "temporal_reference 4 of its picture 5 is repeated");
  mpegcheck_result_free (r);

  /* open GOP where closed ones are required */
  memcpy (c, data, size);
  put_bits (c, g_array_index (gops, gsize, 2), 25, 1, 0);
  r = check (c, size, &o);
  assert_error (r, "GOP 2 (byte");
  assert_error (r, "is not closed");
  mpegcheck_result_free (r);

  /* a size change without a sequence end code */
  memcpy (c, data, size);
  put_bits (c, g_array_index (seqs, gsize, 1), 0, 12, W + 16);
  r = check (c, size, &o);
  assert_error (r, "within a sequence");
  mpegcheck_result_free (r);

  g_free (c);
  g_array_free (gops, TRUE);
  g_array_free (pics, TRUE);
  g_array_free (slices, TRUE);
  g_array_free (seqs, TRUE);
  g_free (data);
}

GST_END_TEST;

GST_START_TEST (test_mpeg2_is_refused)
{
  gsize size;
  guint8 *data = load_with_end_code ("mpeg2.m2v", &size);
  MpegCheckResult *r = check (data, size, NULL);

  assert_error (r, "MPEG-2");
  mpegcheck_result_free (r);
  g_free (data);
}

GST_END_TEST;

GST_START_TEST (test_cli)
{
  gchar *good = tmp_path ("good.m1v"), *bad = tmp_path ("bad.m1v");
  gchar *size = g_strdup_printf ("%dx%d", W, H), *out;
  const gchar *pass_argv[] = { MPEGCHECK_PATH, "--pictures", "30", "--size",
    size, "--seq-header-per-gop", "--slice-per-row", "--closed-gop",
    "--vbv-delay-tolerance", "2", "--trace", good, NULL
  };
  const gchar *fail_argv[] = { MPEGCHECK_PATH, bad, NULL };
  gsize n;
  guint8 *data = load_with_end_code ("cbr.m1v", &n);

  save ("good.m1v", data, n);
  save ("bad.m1v", data, n / 2);
  out = run_tool (pass_argv, 0);
  fail_unless (strstr (out, "result: pass"), "%s", out);
  fail_unless (strstr (out, "constant rate rule"), "%s", out);
  g_free (out);
  out = run_tool (fail_argv, 1);
  fail_unless (strstr (out, "result: FAIL"), "%s", out);
  g_free (out);
  g_free (data);
  g_free (good);
  g_free (bad);
  g_free (size);
}

GST_END_TEST;

GST_START_TEST (test_psnr)
{
  gchar *src = tmp_path ("src.y4m"), *mod = tmp_path ("mod.y4m");
  gchar *dec = tmp_path ("dec.y4m"), *m1v = tmp_path ("good.m1v");
  gchar *out, *err = NULL, *line;
  const gchar *self_argv[] = { PSNR_PATH, src, src, NULL };
  const gchar *mod_argv[] = { PSNR_PATH, "--per-frame", src, mod, NULL };
  const gchar *dec_argv[] = { PSNR_PATH, src, dec, NULL };
  YuvReader *a, *b;
  guint8 *fa, *fb;
  gdouble mse[3], ours, theirs;
  gsize i, n, header;
  guint8 *data;
  gint status;

  /* the source frames: the same ones the streams were made of */
  out = g_strdup_printf ("ffmpeg -nostdin -v error -f lavfi -i "
      "testsrc2=size=%dx%d:rate=25 -frames:v %d -f yuv4mpegpipe -strict -1 "
      "-y %s", W, H, FRAMES, src);
  fail_unless (g_spawn_command_line_sync (out, NULL, NULL, &status, NULL) &&
      status == 0);
  g_free (out);

  out = run_tool (self_argv, 0);
  fail_unless (strstr (out, "frames=30 y=100.0000 u=100.0000 v=100.0000 "
          "y_global=inf"), "%s", out);
  g_free (out);

  /* every luma sample of frame 0 off by exactly one: MSE 1 */
  data = (guint8 *) (gpointer) load ("src.y4m", &n);
  header = (guint8 *) memchr (data, '\n', n) - data + 1 + 6;
  for (i = 0; i < W * H; i++)
    data[header + i] ^= 1;
  save ("mod.y4m", data, n);
  out = run_tool (mod_argv, 0);
  line = g_strdup_printf ("frame 0: y=%.4f u=inf v=inf",
      10 * log10 (255.0 * 255.0));
  fail_unless (strstr (out, line), "%s\nwanted %s", out, line);
  g_free (line);
  line = g_strdup_printf ("y=%.4f", (10 * log10 (255.0 * 255.0) +
          (FRAMES - 1) * 100.0) / FRAMES);
  fail_unless (strstr (out, line), "%s\nwanted %s", out, line);
  g_free (line);
  g_free (out);

  /* the library on the same frames */
  a = yuv_reader_open (src, 0, 0, NULL);
  b = yuv_reader_open (mod, 0, 0, NULL);
  fail_unless (a && b && a->width == W && a->height == H && a->fps_n == 25);
  fa = g_malloc (a->frame_size);
  fb = g_malloc (b->frame_size);
  fail_unless (yuv_reader_read (a, fa, NULL) == 1);
  fail_unless (yuv_reader_read (b, fb, NULL) == 1);
  psnr_i420_mse (fa, fb, W, H, mse);
  fail_unless (mse[0] == 1.0 && mse[1] == 0 && mse[2] == 0);
  g_free (fa);
  g_free (fb);
  yuv_reader_close (a);
  yuv_reader_close (b);

  /* against FFmpeg's psnr filter on a decoded stream (whose global
   * figure is the PSNR of the mean MSE) */
  out = g_strdup_printf ("ffmpeg -nostdin -v error -i %s -fps_mode "
      "passthrough -f yuv4mpegpipe -strict -1 -y %s", m1v, dec);
  fail_unless (g_spawn_command_line_sync (out, NULL, NULL, &status, NULL) &&
      status == 0);
  g_free (out);
  out = run_tool (dec_argv, 0);
  fail_unless (sscanf (strstr (out, "y_global="), "y_global=%lf", &ours) == 1);
  g_free (out);
  out = g_strdup_printf ("ffmpeg -nostdin -v info -i %s -i %s -lavfi psnr "
      "-f null -", dec, src);
  fail_unless (g_spawn_command_line_sync (out, NULL, &err, &status, NULL) &&
      status == 0);
  fail_unless (strstr (err, "PSNR y:") && sscanf (strstr (err, "PSNR y:"),
          "PSNR y:%lf", &theirs) == 1, "%s", err);
  fail_unless (fabs (ours - theirs) < 0.001, "ours %f, ffmpeg %f", ours,
      theirs);
  fail_unless (ours > 30 && ours < 60, "%f", ours);
  g_free (out);
  g_free (err);
  g_free ((gpointer) data);
  g_free (src);
  g_free (mod);
  g_free (dec);
  g_free (m1v);
}

GST_END_TEST;

GST_START_TEST (test_decode_check)
{
  gchar *good = tmp_path ("good.m1v"), *bad = tmp_path ("bad.m1v");
  const gchar *ok_argv[] = { "bash", TESTS_SRCDIR "/mpeg-decode-check.sh",
    "--frames", "30", "--size", "352x288", good, NULL
  };
  const gchar *size_argv[] = { "bash", TESTS_SRCDIR "/mpeg-decode-check.sh",
    "--frames", "30", "--size", "352x280", good, NULL
  };
  const gchar *bad_argv[] = { "bash", TESTS_SRCDIR "/mpeg-decode-check.sh",
    bad, NULL
  };
  gchar *out, *err = NULL;
  gsize n, i;
  guint8 *data = load_with_end_code ("cbr.m1v", &n);
  gint status;

  if (!g_find_program_in_path ("mpeg2dec")) {
    GST_WARNING ("mpeg2dec missing: decode check not tested");
    return;
  }
  save ("good.m1v", data, n);
  out = run_tool (ok_argv, 0);
  fail_unless (strstr (out, "mpeg2dec:") && strstr (out, "gstreamer:") &&
      strstr (out, "decode-check: ok"), "%s", out);
  g_free (out);
  g_free (run_tool (size_argv, 1));

  /* damaged slice data in the middle: every decoder path must notice */
  for (i = n / 3; i < n / 3 + 48; i++)
    data[i] ^= 0x5a;
  save ("bad.m1v", data, n);
  fail_unless (g_spawn_sync (NULL, (gchar **) bad_argv, NULL,
          G_SPAWN_SEARCH_PATH, NULL, NULL, &out, &err, &status, NULL));
  fail_unless (WIFEXITED (status) && WEXITSTATUS (status) == 1, "%s%s", out,
      err);
  fail_unless (strstr (err, "ffmpeg reported"), "%s", err);
  fail_unless (strstr (err, "GStreamer pipeline reported"), "%s", err);
  g_free (out);
  g_free (err);
  g_free (data);
  g_free (good);
  g_free (bad);
}

GST_END_TEST;

static Suite *
mpegcheck_suite (void)
{
  Suite *s = suite_create ("mpegcheck");
  TCase *tc = tcase_create ("general");

  suite_add_tcase (s, tc);
  tcase_set_timeout (tc, 300);
  tcase_add_test (tc, test_cbr_stream_passes);
  tcase_add_test (tc, test_b_pictures_and_rows);
  tcase_add_test (tc, test_large_odd_size);
  tcase_add_test (tc, test_vbv_violations);
  tcase_add_test (tc, test_broken_structure);
  tcase_add_test (tc, test_mpeg2_is_refused);
  tcase_add_test (tc, test_cli);
  tcase_add_test (tc, test_psnr);
  tcase_add_test (tc, test_decode_check);
  return s;
}

static gboolean
remove_dir (const gchar * dir)
{
  GDir *d = g_dir_open (dir, 0, NULL);
  const gchar *name;

  while (d && (name = g_dir_read_name (d))) {
    gchar *path = g_build_filename (dir, name, NULL);
    g_unlink (path);
    g_free (path);
  }
  if (d)
    g_dir_close (d);
  return g_rmdir (dir) == 0;
}

int
main (int argc, char **argv)
{
  const gchar *cbr = "-c:v mpeg1video -f mpeg1video -b:v 1000k -minrate 1000k -maxrate 1000k "
      "-bufsize 327680 -bf 0 -g 12 -flags +cgop -sc_threshold 1000000000 "
      "-slices 18";
  gchar *size = g_strdup_printf ("%dx%d", W, H);
  int result;

  gst_check_init (&argc, &argv);
  if (!g_find_program_in_path ("ffmpeg")) {
    g_print ("SKIP: ffmpeg is not installed (Debian package ffmpeg)\n");
    return 77;
  }
  tmpdir = g_dir_make_tmp ("mpegcheck-XXXXXX", NULL);
  g_assert (tmpdir);

  /* the streams, made once for all tests (each runs in a child process) */
  ffmpeg_encode ("cbr.m1v", size, FRAMES, cbr);
  ffmpeg_encode ("bframes.m1v", size, FRAMES, "-c:v mpeg1video -threads 1 "
      "-b:v 1000k -minrate 1000k -maxrate 1000k -bufsize 327680 -bf 2 -g 12 "
      "-f mpeg1video");
  ffmpeg_encode ("odd.m1v", "1918x1078", 3, "-c:v mpeg1video -q:v 5 "
      "-slices 32 -f mpeg1video");
  ffmpeg_encode ("mpeg2.m2v", size, 3, "-c:v mpeg2video -f mpeg2video");

  result = gst_check_run_suite (mpegcheck_suite (), "mpegcheck", __FILE__);
  remove_dir (tmpdir);
  g_free (tmpdir);
  g_free (size);
  return result;
}
