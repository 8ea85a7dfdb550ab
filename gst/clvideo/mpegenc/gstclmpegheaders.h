/* gst-clvideo: MPEG-1 video (ISO/IEC 11172-2) sequence, GOP and picture
 * headers
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#pragma once

#include <glib.h>
#include <gst/base/gstbitwriter.h>

G_BEGIN_DECLS

#define GST_CL_MPEG_PICTURE_I 1
#define GST_CL_MPEG_PICTURE_P 2

typedef struct {
  guint width, height;          /* the true size, 1..4095 */
  guint aspect_code;            /* pel_aspect_ratio, 1..14 */
  guint frame_rate_code;        /* 1..8 */
  guint bit_rate_code;          /* units of 400 bit/s; 0x3FFFF: variable */
  guint vbv_size_code;          /* units of 16384 bits, 1..1023 */
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
void gst_cl_mpeg_write_picture_header (GstBitWriter * bw,
    guint temporal_reference, guint coding_type, guint vbv_delay,
    guint forward_f_code);
void gst_cl_mpeg_write_sequence_end (GstBitWriter * bw);

G_END_DECLS
