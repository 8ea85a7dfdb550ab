/* gst-clvideo: psnr, per-frame and mean PSNR between two 4:2:0 videos
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * Usage: psnr [-s WxH] [-n N] [--per-frame] [--min-y DB] [--max-mb-mse E]
 *             REFERENCE TEST
 * Each file is y4m or raw I420 ("-": stdin). The last line is
 *   frames=N y=.. u=.. v=.. y_global=.. u_global=.. v_global=..
 *   worst_mb_mse=.. worst_mb=FRAME:PLANE:X,Y
 * with the means of the per-frame PSNRs (each capped at 100 dB), the
 * PSNR of the mean squared error over all frames, and the macroblock
 * plane with the largest mean squared error of all. Exits 1 when the frame
 * counts differ (without -n), the mean PSNR-Y is below --min-y or a
 * macroblock's mean squared error is above --max-mb-mse, 2 on unreadable
 * input or different sizes.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "psnr.h"

static gdouble
capped (gdouble db)
{
  return MIN (db, PSNR_CAP);
}

int
main (int argc, char **argv)
{
  gchar *size = NULL;
  gint frames = -1;
  gdouble min_y = -1, max_mb_mse = -1;
  gboolean per_frame = FALSE;
  GOptionEntry entries[] = {
    {"size", 's', 0, G_OPTION_ARG_STRING, &size,
        "Size of raw I420 input", "WxH"},
    {"frames", 'n', 0, G_OPTION_ARG_INT, &frames,
        "Compare the first N frames only (both must have them)", "N"},
    {"per-frame", 'f', 0, G_OPTION_ARG_NONE, &per_frame,
        "Print one line per frame", NULL},
    {"min-y", 0, 0, G_OPTION_ARG_DOUBLE, &min_y,
        "Fail when the mean PSNR-Y is below this", "DB"},
    {"max-mb-mse", 0, 0, G_OPTION_ARG_DOUBLE, &max_mb_mse,
        "Fail when a macroblock's plane has a larger mean squared error",
        "MSE"},
    {NULL}
  };
  GOptionContext *ctx;
  GError *error = NULL;
  guint width = 0, height = 0;
  YuvReader *a, *b;
  guint8 *fa, *fb;
  gdouble sum_db[3] = { 0, 0, 0 }, sum_mse[3] = { 0, 0, 0 };
  gint n = 0, status = 0, i;
  PsnrMacroblock worst = { 0 };
  gint worst_frame = 0;

  ctx = g_option_context_new ("REFERENCE TEST - PSNR of TEST against "
      "REFERENCE (y4m or raw I420)");
  g_option_context_add_main_entries (ctx, entries, NULL);
  if (!g_option_context_parse (ctx, &argc, &argv, &error) || argc != 3) {
    fprintf (stderr, "psnr: %s\n", error ? error->message :
        "give two files (--help for the options)");
    return 2;
  }
  g_option_context_free (ctx);
  if (size && sscanf (size, "%ux%u", &width, &height) != 2) {
    fprintf (stderr, "psnr: --size wants WIDTHxHEIGHT, not %s\n", size);
    return 2;
  }

  a = yuv_reader_open (argv[1], width, height, &error);
  b = a ? yuv_reader_open (argv[2], width, height, &error) : NULL;
  if (!a || !b) {
    fprintf (stderr, "psnr: %s\n", error->message);
    return 2;
  }
  if (a->width != b->width || a->height != b->height) {
    fprintf (stderr, "psnr: %s is %ux%u, %s is %ux%u\n", argv[1], a->width,
        a->height, argv[2], b->width, b->height);
    return 2;
  }
  fa = g_malloc (a->frame_size);
  fb = g_malloc (b->frame_size);

  for (;;) {
    gint ra, rb;
    gdouble mse[3];
    if (frames >= 0 && n == frames)
      break;
    ra = yuv_reader_read (a, fa, &error);
    rb = ra < 0 ? 0 : yuv_reader_read (b, fb, &error);
    if (ra < 0 || rb < 0) {
      fprintf (stderr, "psnr: %s\n", error->message);
      return 2;
    }
    if (ra == 0 || rb == 0) {
      if (ra != rb || frames >= 0) {
        fprintf (stderr, "psnr: %s ends after %d frames, %s has more%s\n",
            ra == 0 ? argv[1] : argv[2], n, ra == 0 ? argv[2] : argv[1],
            frames >= 0 ? " (fewer than -n)" : "");
        status = 1;
      }
      break;
    }
    psnr_i420_mse (fa, fb, a->width, a->height, mse);
    {
      PsnrMacroblock mb;
      psnr_i420_worst_macroblock (fa, fb, a->width, a->height, &mb);
      if (mb.mse > worst.mse) {
        worst = mb;
        worst_frame = n;
      }
    }
    for (i = 0; i < 3; i++) {
      sum_db[i] += capped (psnr_from_mse (mse[i]));
      sum_mse[i] += mse[i];
    }
    if (per_frame)
      printf ("frame %d: y=%.4f u=%.4f v=%.4f\n", n, psnr_from_mse (mse[0]),
          psnr_from_mse (mse[1]), psnr_from_mse (mse[2]));
    n++;
  }
  if (n == 0) {
    fprintf (stderr, "psnr: no frame to compare\n");
    return 1;
  }
  printf ("frames=%d y=%.4f u=%.4f v=%.4f y_global=%.4f u_global=%.4f "
      "v_global=%.4f worst_mb_mse=%.2f worst_mb=%d:%u:%u,%u\n", n,
      sum_db[0] / n, sum_db[1] / n, sum_db[2] / n,
      psnr_from_mse (sum_mse[0] / n), psnr_from_mse (sum_mse[1] / n),
      psnr_from_mse (sum_mse[2] / n), worst.mse, worst_frame, worst.plane,
      worst.mb_x, worst.mb_y);
  if (min_y >= 0 && sum_db[0] / n < min_y) {
    fprintf (stderr, "psnr: mean PSNR-Y %.4f dB is below %.4f dB\n",
        sum_db[0] / n, min_y);
    status = 1;
  }
  if (max_mb_mse >= 0 && worst.mse > max_mb_mse) {
    fprintf (stderr, "psnr: frame %d, plane %u, macroblock (%u, %u) has a "
        "mean squared error of %.2f, above %.2f\n", worst_frame, worst.plane,
        worst.mb_x, worst.mb_y, worst.mse, max_mb_mse);
    status = 1;
  }
  g_free (fa);
  g_free (fb);
  yuv_reader_close (a);
  yuv_reader_close (b);
  g_free (size);
  return status;
}
