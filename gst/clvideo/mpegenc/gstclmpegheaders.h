/* gst-clvideo: MPEG-1 and MPEG-2 video (ISO/IEC 11172-2, 13818-2)
 * sequence, GOP and picture headers, and MPEG-2's extensions
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#pragma once

#include <glib.h>
#include <gst/base/gstbitwriter.h>

G_BEGIN_DECLS

#define GST_CL_MPEG_PICTURE_I 1
#define GST_CL_MPEG_PICTURE_P 2
#define GST_CL_MPEG_PICTURE_B 3

typedef struct {
  guint width, height;          /* the true size, 1..4095 */
  /* MPEG-1: pel_aspect_ratio, 1..14; MPEG-2: aspect_ratio_information,
   * 1..4 (gst_cl_mpeg2_aspect_code) */
  guint aspect_code;
  guint frame_rate_code;        /* 1..8 */
  /* units of 400 bit/s; MPEG-1: 0x3FFFF variable, MPEG-2: 30 bits, the
   * peak rate */
  guint bit_rate_code;
  /* units of 16384 bits; MPEG-1: 1..1023, MPEG-2: 18 bits */
  guint vbv_size_code;
  /* MPEG-1's constrained_parameters_flag: the stream keeps to 11172-2
   * 2.4.3.2's bounds (forward_f_code up to 4 among them) */
  gboolean constrained;
  /* MPEG-2 (13818-2): a sequence extension follows the header, and a
   * sequence display extension where @colour_description is set; 4:2:0
   * frames unless @chroma_422 */
  gboolean mpeg2;
  guint profile_level;          /* profile_and_level_indication */
  /* colour_primaries, transfer_characteristics, matrix_coefficients
   * (13818-2 tables 6-7 to 6-9) */
  gboolean colour_description;
  guint colour_primaries, transfer_characteristics, matrix_coefficients;
  /* MPEG-2: the sequence may have B pictures (low_delay 0) */
  gboolean b_pictures;
  /* MPEG-2: frames of two fields may follow (progressive_sequence 0) */
  gboolean interlaced;
  /* MPEG-2: 3:2 pulldown, progressive frames (at 4/5 of the frame rate
   * signalled) shown for three and two field periods in turn
   * (repeat_first_field), in an interlaced sequence */
  gboolean pulldown;
  /* MPEG-2: 4:2:2 frames (chroma_format 2), as the 4:2:2 profile has them;
   * last, so that initialisers which leave it out mean 4:2:0 */
  gboolean chroma_422;
} GstClMpegSequenceParams;

/* frame_rate_code of @fps_n / @fps_d, 0 when not an MPEG-1 rate. */
guint gst_cl_mpeg_frame_rate_code (gint fps_n, gint fps_d);
/* The rate of @code (1..8). */
void gst_cl_mpeg_frame_rate (guint code, gint * fps_n, gint * fps_d);
/* pel_aspect_ratio code nearest to the pixel aspect ratio @par_n / @par_d
 * (width / height of a pixel); *@exact is set when within 1%. */
guint gst_cl_mpeg_aspect_code (gint par_n, gint par_d, gboolean * exact);
/* The pixel aspect ratio (width / height of a pixel) of @code (1..14). */
gdouble gst_cl_mpeg_aspect_ratio (guint code);
/* MPEG-2's aspect_ratio_information for a picture of @width x @height
 * whose pixels are @par_n / @par_d: 1 for square pixels, else the code of
 * the nearest display aspect ratio (2: 4:3, 3: 16:9, 4: 2.21:1); *@exact
 * is set when within 1%. */
guint gst_cl_mpeg2_aspect_code (guint width, guint height, gint par_n,
    gint par_d, gboolean * exact);
/* ... the code of the nearest display aspect ratio alone, 2 to @last
 * (3: 4:3 and 16:9 only, as the disc formats have them). */
guint gst_cl_mpeg2_display_aspect_code (guint width, guint height,
    gint par_n, gint par_d, guint last, gboolean * exact);
/* The display aspect ratio of MPEG-2's @code (2..4); 0 for 1 (square
 * pixels). */
gdouble gst_cl_mpeg2_display_aspect (guint code);

/* The headers are written with GStreamer's GstBitWriter: a few per
 * picture, they are no hot path (see gstclmpegbitwriter.h). Each starts
 * at a byte boundary and leaves @bw at one; @bw must grow by itself
 * (gst_bit_writer_init() or _init_with_size() with @fixed FALSE), so
 * that no field is refused. */
void gst_cl_mpeg_write_sequence_header (GstBitWriter * bw,
    const GstClMpegSequenceParams * p);
/* GOP header for a GOP starting at picture @frame_index of the sequence
 * (time_code from it at the nominal integer rate of @frame_rate_code). */
void gst_cl_mpeg_write_gop_header (GstBitWriter * bw,
    guint64 frame_index, guint frame_rate_code, gboolean closed);
/* How a picture is coded, as its headers say and its slices follow */
typedef struct {
  guint coding_type;            /* GST_CL_MPEG_PICTURE_I, _P or _B */
  guint f_code;                 /* forward_f_code (P, B); MPEG-2:
                                 * f_code[0][0] and f_code[0][1] */
  gboolean mpeg2;               /* MPEG-2 syntax (13818-2) */
  guint intra_dc_precision;     /* MPEG-2: 0..3, 8 to 11 bits */
  guint backward_f_code;        /* B; MPEG-2: f_code[1][0] and [1][1] */
  /* MPEG-2, an interlaced sequence: a frame of two fields
   * (progressive_frame 0), each macroblock with frame motion and frame or
   * field DCT (frame_pred_frame_dct 0) */
  gboolean interlaced;
  /* MPEG-2, an interlaced sequence: the field shown first, and for a
   * progressive frame whether it is shown again after the second (three
   * field periods: 3:2 pulldown) */
  gboolean top_field_first;
  gboolean repeat_first_field;
  /* MPEG-2: the levels in alternate scan order (13818-2 7.3) */
  gboolean alternate_scan;
  /* MPEG-2: intra blocks' levels coded with table B.15 */
  gboolean intra_vlc_format;
  /* MPEG-2: the sequence is 4:2:2 (its chroma_422), so chroma_420_type is
   * 0; last, so that initialisers which leave it out mean 4:2:0 */
  gboolean chroma_422;
  /* MPEG-2: the non-linear quantiser_scale (q_scale_type 1); after
   * chroma_422, for the same reason */
  gboolean non_linear;
} GstClMpegPictureCoding;

/* MPEG-2 (@pc's mpeg2): with the picture coding extension of a frame
 * picture (@pc's quantiser scale, intra table and scan). */
void gst_cl_mpeg_write_picture_header (GstBitWriter * bw,
    guint temporal_reference, guint vbv_delay,
    const GstClMpegPictureCoding * pc);
void gst_cl_mpeg_write_sequence_end (GstBitWriter * bw);

/* Quantisers, here, are quantiser_scale / 2: MPEG-1's scale, and the
 * codes of MPEG-2's linear one, 1 to GST_CL_MPEG_MAX_QUANT; MPEG-2's
 * non-linear scale (q_scale_type 1, 13818-2 table 7-6) codes the even
 * quantiser_scale values among its own, 1 to
 * GST_CL_MPEG_MAX_QUANT_NON_LINEAR (every one to 12, every second to 28,
 * every fourth to 56). */
#define GST_CL_MPEG_MAX_QUANT 31
#define GST_CL_MPEG_MAX_QUANT_NON_LINEAR 56
/* The quantiser from @quant up that the scale codes, within its range */
guint gst_cl_mpeg_coded_quant (gint quant, gboolean non_linear);
/* The quantiser_scale_code of @quant, a quantiser the scale codes */
guint gst_cl_mpeg_quantiser_scale_code (guint quant, gboolean non_linear);

G_END_DECLS
