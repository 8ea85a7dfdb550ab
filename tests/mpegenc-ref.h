/* gst-clvideo: plain C reference of clmpegenc's device stages
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#pragma once

#include <glib.h>
#include "gstclmpegtransform.h"

G_BEGIN_DECLS

/* The integer DCT pair of the encoder (14-bit cosines; the inverse keeps
 * five fractional bits between its passes). In place, natural order. */
void mpegref_fdct (gint block[64]);
void mpegref_idct (gint block[64]);

/* A picture padded to whole macroblocks: Y (W x H), then Cb and Cr
 * (W/2 x H/2, or W/2 x H with @chroma_422), planar, tight. The pictures
 * of one call share their format. */
typedef struct {
  guint mb_width, mb_height;
  gboolean chroma_422;
  guint8 *data;
} MpegRefPicture;

/* 4:2:0 */
void mpegref_picture_init (MpegRefPicture * pic, guint width, guint height);
void mpegref_picture_init_format (MpegRefPicture * pic, guint width,
    guint height, gboolean chroma_422);
/* bytes of @pic's data */
gsize mpegref_picture_size (const MpegRefPicture * pic);
void mpegref_picture_clear (MpegRefPicture * pic);
guint8 *mpegref_plane (const MpegRefPicture * pic, guint comp, guint * stride);

/* Pads a frame: planes @y, @u, @v (chroma samples @c_ps bytes apart) of
 * @width x @height (chroma (@width + 1) / 2 wide, (@height + 1) / 2 high
 * or, in 4:2:2, @height high), replicating the last column and row. */
void mpegref_load (MpegRefPicture * pic, const guint8 * y, guint y_stride,
    const guint8 * u, guint u_stride, const guint8 * v, guint v_stride,
    guint c_ps, guint width, guint height);

/* Chooses a P picture's forward_f_code (up to @max_f_code) from its
 * @vectors and clamps them to its range and to the picture, as
 * gst_cl_mpeg_transform_fit_vectors() does; returns that f_code. */
guint mpegref_fit_vectors (GstClMotionVector * vectors, guint mb_width,
    guint mb_height, guint max_f_code);

/* The vectors of @a followed by those of @b into @out, as
 * gst_cl_mpeg_transform_follow_vectors() makes them. */
void mpegref_follow_vectors (const GstClMotionVector * a,
    const GstClMotionVector * b, GstClMotionVector * out, guint mb_width,
    guint mb_height, gint sign);

/* Predicts every macroblock of the B picture @cur from @fwd and @bwd
 * with the fitted vectors @fvectors and @bvectors into @pred and
 * @choices, as gst_cl_mpeg_transform_predict_b() does. */
void mpegref_predict_b (const MpegRefPicture * cur,
    const MpegRefPicture * fwd, const MpegRefPicture * bwd,
    const GstClMotionVector * fvectors, const GstClMotionVector * bvectors,
    guint lambda16, guint zero_bias, MpegRefPicture * pred,
    GstClMpegBChoice * choices);

/* After mpegref_predict_b() into @pred and @choices (same @fvectors,
 * @bvectors, @lambda16, @zero_bias): the field predictions
 * @field_pred and @fields (forward, backward; mpegref_field_search()
 * towards each anchor) where they cost less, as
 * gst_cl_mpeg_transform_choose_b_fields() does. */
void mpegref_choose_b_fields (const MpegRefPicture * cur,
    const GstClMotionVector * fvectors, const GstClMotionVector * bvectors,
    const MpegRefPicture * field_pred[2],
    const GstClMpegFieldChoice * fields[2], guint lambda16, guint zero_bias,
    MpegRefPicture * pred, GstClMpegBChoice * choices);

/* macroblocks of P pictures that took the second moving candidate (the
 * vector the SADs ranked second), counted over every encode */
extern guint mpegref_second_vectors_taken;
/* ... of them, those whose second candidate was the vector of a
 * neighbour above (above or above and to the right) */
extern guint mpegref_above_vectors_taken;
/* second moving candidates not coded: their SATD plus SAD lay too far
 * above the first's */
extern guint mpegref_second_vectors_passed;
/* macroblocks where dual prime fitted and replaced the fields' own
 * vectors, or did not (dual_prime_pays) */
extern guint mpegref_dual_prime_taken;
extern guint mpegref_dual_prime_declined;

/* Encodes every macroblock of @cur against @ref (P) with the half-pel
 * @vectors (one per macroblock, NULL: zero), writing the records, the
 * levels (GST_CL_MPEG_MB_LEVELS a macroblock, of which its n_blocks
 * blocks are written) and the reconstruction @recon, as
 * kernels/mpegenc.cl does for gst_cl_mpeg_transform_encode() with
 * @params. */
void mpegref_encode (const MpegRefPicture * cur, const MpegRefPicture * ref,
    const GstClMotionVector * vectors, const GstClMpegEncodeParams * params,
    GstClMpegMbRecord * records, gint16 * levels, MpegRefPicture * recon);
/* ... with @params' field_motion (an interlaced P picture), the field
 * prediction @field_pred and @fields of mpegref_field_search()
 * competing. */
void mpegref_encode_fields (const MpegRefPicture * cur,
    const MpegRefPicture * ref, const GstClMotionVector * vectors,
    const MpegRefPicture * field_pred, const GstClMpegFieldChoice * fields,
    const GstClMpegEncodeParams * params, GstClMpegMbRecord * records,
    gint16 * levels, MpegRefPicture * recon);
/* The field prediction of every macroblock of @cur from @ref around the
 * fitted frame @vectors and, unless NULL, the top fields' @field_vectors
 * (scaled by @timing, NULL: as they are), its grids @reach samples each
 * way around the first, @seed_reach around the second, vectors within
 * [-@range, @range - 1] priced at @lambda16 / 16 SAD
 * a bit, into @pred and @choices, as gst_cl_mpeg_transform_field_search()
 * does. */
void mpegref_field_search (const MpegRefPicture * cur,
    const MpegRefPicture * ref, const GstClMotionVector * vectors,
    const GstClMotionVector * field_vectors, gint range, gint reach,
    gint seed_reach, const GstClMpegFieldTiming * timing, gint lambda16,
    MpegRefPicture * pred, GstClMpegFieldChoice * choices);

G_END_DECLS
