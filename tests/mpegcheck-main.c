/* gst-clvideo: mpegcheck, the MPEG-1 and MPEG-2 video stream checker on the
 * command line
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * Usage: mpegcheck [options] FILE.m1v|FILE.m2v
 * Prints a report; exits 0 when the stream passes, 1 on violations, 2 when
 * the file cannot be read or the options are wrong.
 */
#include <stdio.h>
#include <stdlib.h>

#include "mpegcheck.h"

int
main (int argc, char **argv)
{
  MpegCheckOptions opts;
  gint pictures = -1, tolerance = 0;
  gchar *size = NULL;
  gboolean seq_per_gop = FALSE, slice_per_row = FALSE, closed = FALSE;
  gboolean no_end = FALSE, no_vbv = FALSE, trace = FALSE, quiet = FALSE;
  gboolean no_macroblocks = FALSE;
  gint64 first_time_code = -1;
  GOptionEntry entries[] = {
    {"pictures", 'n', 0, G_OPTION_ARG_INT, &pictures,
        "Expect this many pictures", "N"},
    {"size", 's', 0, G_OPTION_ARG_STRING, &size,
        "Expect every sequence to be this size", "WxH"},
    {"seq-header-per-gop", 0, 0, G_OPTION_ARG_NONE, &seq_per_gop,
        "Require a sequence header before every GOP", NULL},
    {"slice-per-row", 0, 0, G_OPTION_ARG_NONE, &slice_per_row,
        "Require one slice per macroblock row", NULL},
    {"closed-gop", 0, 0, G_OPTION_ARG_NONE, &closed,
        "Require closed_gop in every GOP header", NULL},
    {"no-end-code", 0, 0, G_OPTION_ARG_NONE, &no_end,
        "Do not require a sequence end code at the end", NULL},
    {"no-vbv", 0, 0, G_OPTION_ARG_NONE, &no_vbv,
        "Do not run the VBV model", NULL},
    {"no-macroblocks", 0, 0, G_OPTION_ARG_NONE, &no_macroblocks,
        "Do not parse the macroblocks (headers and slice starts only)", NULL},
    {"vbv-delay-tolerance", 0, 0, G_OPTION_ARG_INT, &tolerance,
        "Require every vbv_delay within this many 90 kHz ticks of the model",
        "TICKS"},
    {"first-time-code", 0, 0, G_OPTION_ARG_INT64, &first_time_code,
        "Require the first GOP's time_code to be this frame", "FRAME"},
    {"trace", 't', 0, G_OPTION_ARG_NONE, &trace,
        "Print one line per picture: bits, VBV fullness and macroblocks "
        "(and MPEG-2's picture coding extension)", NULL},
    {"quiet", 'q', 0, G_OPTION_ARG_NONE, &quiet,
        "Print only the errors", NULL},
    {NULL}
  };
  GOptionContext *ctx;
  GError *error = NULL;
  MpegCheckResult *r;
  gboolean passed;

  ctx = g_option_context_new ("FILE - check an MPEG-1 or MPEG-2 video "
      "elementary stream");
  g_option_context_set_summary (ctx, "Checks an ISO/IEC 11172-2 (MPEG-1) or "
      "ISO/IEC 13818-2 (MPEG-2) video elementary\nstream: its syntax to the "
      "last bit of every slice, every value of the macroblock\nlayer against "
      "its legal range, and the VBV buffer model. A sequence header\n"
      "followed by a sequence_extension makes its sequence MPEG-2. MPEG-2 "
      "field\npictures and scalable streams are reported as unsupported.");
  g_option_context_add_main_entries (ctx, entries, NULL);
  if (!g_option_context_parse (ctx, &argc, &argv, &error) || argc != 2) {
    fprintf (stderr, "mpegcheck: %s\n", error ? error->message :
        "give one file (--help for the options)");
    return 2;
  }
  g_option_context_free (ctx);

  mpegcheck_options_init (&opts);
  opts.expect_pictures = pictures;
  if (size && (sscanf (size, "%ux%u", &opts.expect_width,
              &opts.expect_height) != 2 || !opts.expect_width ||
          !opts.expect_height)) {
    fprintf (stderr, "mpegcheck: --size wants WIDTHxHEIGHT, not %s\n", size);
    return 2;
  }
  if (tolerance < 0) {
    fprintf (stderr, "mpegcheck: --vbv-delay-tolerance must be >= 0\n");
    return 2;
  }
  opts.require_seq_header_per_gop = seq_per_gop;
  opts.require_slice_per_row = slice_per_row;
  opts.require_closed_gop = closed;
  opts.require_end_code = !no_end;
  opts.check_vbv = !no_vbv;
  opts.check_macroblocks = !no_macroblocks;
  opts.vbv_delay_tolerance = tolerance;
  opts.first_time_code = first_time_code;

  r = mpegcheck_run_file (argv[1], &opts, &error);
  if (!r) {
    fprintf (stderr, "mpegcheck: %s\n", error->message);
    return 2;
  }
  if (quiet) {
    gchar *text = mpegcheck_errors_text (r);
    fputs (text, stdout);
    g_free (text);
  } else {
    gchar *text = mpegcheck_report (r, trace);
    fputs (text, stdout);
    g_free (text);
  }
  passed = mpegcheck_passed (r);
  mpegcheck_result_free (r);
  g_free (size);
  return passed ? 0 : 1;
}
