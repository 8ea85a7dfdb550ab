/* gst-clvideo: MPEG-1 video (ISO/IEC 11172-2) sequence, GOP and picture
 * headers
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "gstclmpegheaders.h"

#include <math.h>

/* ---- sequence level ---- */

static const gint frame_rates[9][2] = {
  {0, 1}, {24000, 1001}, {24, 1}, {25, 1}, {30000, 1001}, {30, 1}, {50, 1},
  {60000, 1001}, {60, 1},
};

guint
gst_cl_mpeg_frame_rate_code (gint fps_n, gint fps_d)
{
  guint i;
  if (fps_n <= 0 || fps_d <= 0)
    return 0;
  for (i = 1; i <= 8; i++)
    if ((gint64) fps_n * frame_rates[i][1] ==
        (gint64) fps_d * frame_rates[i][0])
      return i;
  return 0;
}

void
gst_cl_mpeg_frame_rate (guint code, gint * fps_n, gint * fps_d)
{
  if (code < 1 || code > 8)
    code = 3;
  *fps_n = frame_rates[code][0];
  *fps_d = frame_rates[code][1];
}

/* pel_aspect_ratio: height / width of a pixel, codes 1..14 */
static const gdouble pel_aspect[15] = {
  0.0, 1.0, 0.6735, 0.7031, 0.7615, 0.8055, 0.8437, 0.8935, 0.9157,
  0.9815, 1.0255, 1.0695, 1.0950, 1.1575, 1.2015,
};

guint
gst_cl_mpeg_aspect_code (gint par_n, gint par_d, gboolean * exact)
{
  gdouble want, best_err = G_MAXDOUBLE;
  guint i, best = 1;

  if (par_n <= 0 || par_d <= 0) {
    *exact = par_n == par_d;
    return 1;
  }
  want = (gdouble) par_d / par_n;
  for (i = 1; i <= 14; i++) {
    gdouble err = fabs (pel_aspect[i] / want - 1.0);
    if (err < best_err) {
      best_err = err;
      best = i;
    }
  }
  *exact = best_err <= 0.01;
  return best;
}

gdouble
gst_cl_mpeg_aspect_ratio (guint code)
{
  return code >= 1 && code <= 14 ? 1.0 / pel_aspect[code] : 1.0;
}

/* ---- headers ---- */

/* A growing writer takes every field (g_realloc aborts rather than
 * fail), so the writers below do not check each one. */
static inline void
put (GstBitWriter * bw, guint32 value, guint n)
{
  gst_bit_writer_put_bits_uint32 (bw, value, n);
}

/* Byte-aligns, then writes the start code 0x000001@code. */
static void
put_start_code (GstBitWriter * bw, guint8 code)
{
  gst_bit_writer_align_bytes (bw, 0);
  put (bw, 0x100 | code, 32);
}

void
gst_cl_mpeg_write_sequence_header (GstBitWriter * bw,
    const GstClMpegSequenceParams * p)
{
  put_start_code (bw, 0xb3);
  put (bw, p->width, 12);
  put (bw, p->height, 12);
  put (bw, p->aspect_code, 4);
  put (bw, p->frame_rate_code, 4);
  put (bw, p->bit_rate_code, 18);
  put (bw, 1, 1);                       /* marker */
  put (bw, p->vbv_size_code, 10);
  put (bw, 0, 1);                       /* constrained_parameters */
  put (bw, 0, 1);                       /* default intra matrix */
  put (bw, 0, 1);                       /* default non-intra matrix */
  gst_bit_writer_align_bytes (bw, 0);
}

void
gst_cl_mpeg_write_gop_header (GstBitWriter * bw, guint64 frame_index,
    guint frame_rate_code, gboolean closed)
{
  gint fps_n, fps_d;
  guint64 rate, secs;
  guint pictures;

  gst_cl_mpeg_frame_rate (frame_rate_code, &fps_n, &fps_d);
  rate = (fps_n + fps_d - 1) / fps_d;   /* nominal: 30 for 29.97 */
  pictures = frame_index % rate;
  secs = frame_index / rate;
  put_start_code (bw, 0xb8);
  put (bw, 0, 1);                       /* drop_frame_flag */
  put (bw, (secs / 3600) % 24, 5);
  put (bw, (secs / 60) % 60, 6);
  put (bw, 1, 1);                       /* marker */
  put (bw, secs % 60, 6);
  put (bw, pictures, 6);
  put (bw, closed ? 1 : 0, 1);
  put (bw, 0, 1);                       /* broken_link */
  gst_bit_writer_align_bytes (bw, 0);
}

void
gst_cl_mpeg_write_picture_header (GstBitWriter * bw,
    guint temporal_reference, guint coding_type, guint vbv_delay,
    guint forward_f_code)
{
  put_start_code (bw, 0x00);
  put (bw, temporal_reference & 1023, 10);
  put (bw, coding_type, 3);
  put (bw, vbv_delay & 0xffff, 16);
  if (coding_type == GST_CL_MPEG_PICTURE_P) {
    put (bw, 0, 1);                     /* full_pel_forward_vector */
    put (bw, forward_f_code, 3);
  }
  put (bw, 0, 1);                       /* extra_bit_picture */
  gst_bit_writer_align_bytes (bw, 0);
}

void
gst_cl_mpeg_write_sequence_end (GstBitWriter * bw)
{
  put_start_code (bw, 0xb7);
}

