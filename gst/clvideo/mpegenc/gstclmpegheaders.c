/* gst-clvideo: MPEG-1 and MPEG-2 video (ISO/IEC 11172-2, 13818-2)
 * sequence, GOP and picture headers, and MPEG-2's extensions
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

/* The index from @first to @last of the ratio in @ratios nearest to
 * @want; *@exact is set when within 1%. */
static guint
nearest_ratio (const gdouble * ratios, guint first, guint last, gdouble want,
    gboolean * exact)
{
  gdouble best_err = G_MAXDOUBLE;
  guint i, best = first;

  for (i = first; i <= last; i++) {
    gdouble err = fabs (ratios[i] / want - 1.0);
    if (err < best_err) {
      best_err = err;
      best = i;
    }
  }
  *exact = best_err <= 0.01;
  return best;
}

guint
gst_cl_mpeg_aspect_code (gint par_n, gint par_d, gboolean * exact)
{
  if (par_n <= 0 || par_d <= 0) {
    *exact = par_n == par_d;
    return 1;
  }
  return nearest_ratio (pel_aspect, 1, 14, (gdouble) par_d / par_n, exact);
}

gdouble
gst_cl_mpeg_aspect_ratio (guint code)
{
  return code >= 1 && code <= 14 ? 1.0 / pel_aspect[code] : 1.0;
}

/* aspect_ratio_information 2..4: display aspect ratios */
static const gdouble display_aspect[5] = { 0.0, 0.0, 4.0 / 3.0, 16.0 / 9.0,
  2.21
};

gdouble
gst_cl_mpeg2_display_aspect (guint code)
{
  return code >= 2 && code <= 4 ? display_aspect[code] : 0.0;
}

guint
gst_cl_mpeg2_aspect_code (guint width, guint height, gint par_n, gint par_d,
    gboolean * exact)
{
  if (par_n <= 0 || par_d <= 0 || par_n == par_d) {
    *exact = par_n == par_d;
    return 1;
  }
  return gst_cl_mpeg2_display_aspect_code (width, height, par_n, par_d, 4,
      exact);
}

guint
gst_cl_mpeg2_display_aspect_code (guint width, guint height, gint par_n,
    gint par_d, guint last, gboolean * exact)
{
  if (par_n <= 0 || par_d <= 0)
    par_n = par_d = 1;
  return nearest_ratio (display_aspect, 2, MIN (last, 4),
      (gdouble) width * par_n / ((gdouble) height * par_d), exact);
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

/* extension_start_code_identifier values (13818-2 table 6-2) */
#define SEQUENCE_EXTENSION_ID 1
#define SEQUENCE_DISPLAY_EXTENSION_ID 2
#define PICTURE_CODING_EXTENSION_ID 8
/* video_format: none of PAL, NTSC, SECAM or MAC is implied */
#define VIDEO_FORMAT_UNSPECIFIED 5

static void
put_extension_start (GstBitWriter * bw, guint id)
{
  put_start_code (bw, 0xb5);
  put (bw, id, 4);
}

/* 13818-2 6.2.2.3 */
static void
write_sequence_extension (GstBitWriter * bw,
    const GstClMpegSequenceParams * p)
{
  put_extension_start (bw, SEQUENCE_EXTENSION_ID);
  put (bw, p->profile_level, 8);
  put (bw, !p->interlaced, 1);          /* progressive_sequence */
  put (bw, p->chroma_422 ? 2 : 1, 2);   /* chroma_format 4:2:2, 4:2:0 */
  put (bw, p->width >> 12, 2);
  put (bw, p->height >> 12, 2);
  put (bw, p->bit_rate_code >> 18, 12);
  put (bw, 1, 1);                       /* marker */
  put (bw, p->vbv_size_code >> 10, 8);
  put (bw, !p->b_pictures, 1);          /* low_delay */
  put (bw, 0, 2);                       /* frame_rate_extension_n */
  put (bw, 0, 5);                       /* frame_rate_extension_d */
  gst_bit_writer_align_bytes (bw, 0);
}

/* 13818-2 6.2.2.4: the colour description, and the display size (the
 * coded one: the whole picture is meant to be shown) */
static void
write_sequence_display_extension (GstBitWriter * bw,
    const GstClMpegSequenceParams * p)
{
  put_extension_start (bw, SEQUENCE_DISPLAY_EXTENSION_ID);
  put (bw, VIDEO_FORMAT_UNSPECIFIED, 3);
  put (bw, 1, 1);                       /* colour_description */
  put (bw, p->colour_primaries, 8);
  put (bw, p->transfer_characteristics, 8);
  put (bw, p->matrix_coefficients, 8);
  put (bw, p->width, 14);
  put (bw, 1, 1);                       /* marker */
  put (bw, p->height, 14);
  gst_bit_writer_align_bytes (bw, 0);
}

void
gst_cl_mpeg_write_sequence_header (GstBitWriter * bw,
    const GstClMpegSequenceParams * p)
{
  put_start_code (bw, 0xb3);
  put (bw, p->width & 0xfff, 12);
  put (bw, p->height & 0xfff, 12);
  put (bw, p->aspect_code, 4);
  put (bw, p->frame_rate_code, 4);
  put (bw, p->bit_rate_code & 0x3ffff, 18);
  put (bw, 1, 1);                       /* marker */
  put (bw, p->vbv_size_code & 0x3ff, 10);
  put (bw, p->constrained && !p->mpeg2, 1);    /* constrained_parameters */
  /* the default matrices; in 4:2:2 the chroma blocks' too, as no
   * quant_matrix_extension loads others (13818-2 6.3.11) */
  put (bw, 0, 1);                       /* default intra matrix */
  put (bw, 0, 1);                       /* default non-intra matrix */
  gst_bit_writer_align_bytes (bw, 0);
  if (p->mpeg2) {
    write_sequence_extension (bw, p);
    if (p->colour_description)
      write_sequence_display_extension (bw, p);
  }
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

/* 13818-2 6.2.3.1, for a frame picture */
static void
write_picture_coding_extension (GstBitWriter * bw,
    const GstClMpegPictureCoding * pc)
{
  /* f_code 15: a direction the picture does not use */
  guint forward = pc->coding_type != GST_CL_MPEG_PICTURE_I ? pc->f_code : 15;
  guint backward = pc->coding_type == GST_CL_MPEG_PICTURE_B ?
      pc->backward_f_code : 15;

  put_extension_start (bw, PICTURE_CODING_EXTENSION_ID);
  put (bw, forward, 4);                 /* f_code[0][0], horizontal */
  put (bw, forward, 4);                 /* f_code[0][1], vertical */
  put (bw, backward, 4);                /* f_code[1][0] */
  put (bw, backward, 4);                /* f_code[1][1] */
  put (bw, pc->intra_dc_precision, 2);
  put (bw, 3, 2);                       /* picture_structure: frame */
  put (bw, pc->top_field_first ? 1 : 0, 1);   /* top_field_first */
  put (bw, !pc->interlaced, 1);         /* frame_pred_frame_dct */
  put (bw, 0, 1);                       /* concealment_motion_vectors */
  put (bw, pc->non_linear ? 1 : 0, 1);  /* q_scale_type */
  put (bw, pc->intra_vlc_format ? 1 : 0, 1);  /* intra_vlc_format */
  put (bw, pc->alternate_scan ? 1 : 0, 1);
  put (bw, pc->repeat_first_field && !pc->interlaced ? 1 : 0, 1);
  /* chroma_420_type: progressive_frame in 4:2:0, 0 otherwise */
  put (bw, !pc->interlaced && !pc->chroma_422, 1);
  put (bw, !pc->interlaced, 1);         /* progressive_frame */
  put (bw, 0, 1);                       /* composite_display_flag */
  gst_bit_writer_align_bytes (bw, 0);
}

void
gst_cl_mpeg_write_picture_header (GstBitWriter * bw,
    guint temporal_reference, guint vbv_delay,
    const GstClMpegPictureCoding * pc)
{
  put_start_code (bw, 0x00);
  put (bw, temporal_reference & 1023, 10);
  put (bw, pc->coding_type, 3);
  put (bw, vbv_delay & 0xffff, 16);
  if (pc->coding_type != GST_CL_MPEG_PICTURE_I) {
    put (bw, 0, 1);                     /* full_pel_forward_vector */
    /* MPEG-2 codes it in the extension: 7 here */
    put (bw, pc->mpeg2 ? 7 : pc->f_code, 3);
  }
  if (pc->coding_type == GST_CL_MPEG_PICTURE_B) {
    put (bw, 0, 1);                     /* full_pel_backward_vector */
    put (bw, pc->mpeg2 ? 7 : pc->backward_f_code, 3);
  }
  put (bw, 0, 1);                       /* extra_bit_picture */
  gst_bit_writer_align_bytes (bw, 0);
  if (pc->mpeg2)
    write_picture_coding_extension (bw, pc);
}

void
gst_cl_mpeg_write_sequence_end (GstBitWriter * bw)
{
  put_start_code (bw, 0xb7);
}


guint
gst_cl_mpeg_coded_quant (gint quant, gboolean non_linear)
{
  if (!non_linear)
    return CLAMP (quant, 1, GST_CL_MPEG_MAX_QUANT);
  quant = CLAMP (quant, 1, GST_CL_MPEG_MAX_QUANT_NON_LINEAR);
  return quant <= 12 ? quant : quant <= 28 ? (quant + 1) & ~1 :
      (quant + 3) & ~3;
}

guint
gst_cl_mpeg_quantiser_scale_code (guint quant, gboolean non_linear)
{
  /* quantiser_scale 2 quant: 2..8 are codes 2..8 (2, 4, 6, 8), 10..24
   * codes 9..16, 28..56 codes 17..24, 64..112 codes 25..31 */
  if (!non_linear)
    return quant;
  if (quant <= 4)
    return 2 * quant;
  if (quant <= 12)
    return quant + 4;
  if (quant <= 28)
    return 17 + (quant - 14) / 2;
  return 25 + (quant - 32) / 4;
}
