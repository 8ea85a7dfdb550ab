/* gst-clvideo: the MPEG-1 encoder's device stages
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#pragma once

#include <gst/cl/gstclcontext.h>
#include <gst/cl/gstclmemory.h>
#include "gstclmpegvlc.h"

G_BEGIN_DECLS

/* Labels of the kernels in the context's profiling statistics. */
#define GST_CL_MPEG_LOAD_LABEL "mpeg-load"
#define GST_CL_MPEG_ENCODE_LABEL "mpeg-encode"
#define GST_CL_MPEG_PACK_LABEL "mpeg-pack"

typedef struct {
  gboolean p_picture;
  guint qscale;                 /* quantiser_scale / 2: 1..31, or with
                                 * non_linear to 56 (each macroblock's is
                                 * one gst_cl_mpeg_coded_quant() gives) */
  gboolean adaptive;            /* per-macroblock quantiser from activity */
  guint avg_activity;           /* mean macroblock activity (adaptive) */
  guint intra_bias;             /* inter SAD must beat activity + this */
  gboolean dc_only;             /* keep DC levels only (rate control's last
                                 * resort) */
  guint rd_lambda;              /* rate-distortion optimisation: trellis
                                 * quantisation and the keeping of a
                                 * macroblock's levels, lambda in 1/16 q^2
                                 * per bit of squared error; 0: rounding with
                                 * a dead zone */
  guint mv_lambda;              /* with rd_lambda, the macroblock decisions:
                                 * the moving candidate (searched vector or
                                 * the left neighbour's) by SAD + mv_lambda /
                                 * 16 q per vector bit, then zero vector,
                                 * moving and intra coded and compared; 0:
                                 * SAD rules (zero vector unless the searched
                                 * one is clearly better, intra unless the
                                 * prediction beats the activity) */
  gboolean mpeg2;               /* MPEG-2's dequantisation and mismatch
                                 * control (13818-2 7.4), and its escapes
                                 * in the rate-distortion costs */
  guint dc_shift;               /* MPEG-2: intra DC precision above 8 bits,
                                 * 0..3 */
  gboolean field_dct;           /* MPEG-2, an interlaced frame: each
                                 * macroblock's luma in frame or field
                                 * blocks, whichever is smoother
                                 * (GST_CL_MPEG_MB_FIELD_DCT) */
  gboolean field_motion;        /* with mv_lambda, an interlaced P picture:
                                 * the field prediction of
                                 * gst_cl_mpeg_transform_field_search()
                                 * competes with the moving candidate
                                 * (GST_CL_MPEG_MB_FIELD_MOTION) */
  gboolean alternate_scan;      /* MPEG-2: the levels in alternate scan
                                 * order (13818-2 7.3), else zigzag */
  gboolean intra_vlc;           /* MPEG-2: intra blocks' levels priced with
                                 * table B.15 (intra_vlc_format 1) */
  gboolean non_linear;          /* MPEG-2: the non-linear quantiser_scale
                                 * (q_scale_type 1): adaptive quantisers
                                 * are ones it codes, and reach 56 */
} GstClMpegEncodeParams;

/**
 * GstClMpegTransform:
 *
 * The per-macroblock stages of kernels/mpegenc.cl for one picture size:
 * padding a frame into a macroblock-aligned planar picture, and the
 * prediction / DCT / quantisation / reconstruction of every macroblock
 * (one work-group each), leaving a GstClMpegMbRecord and the zigzag
 * levels per macroblock for the entropy coder, and the reconstruction
 * that serves as the next reference. Pictures are device buffers of
 * gst_cl_mpeg_transform_picture_size() bytes: Y (W x H), then Cb and Cr
 * (W/2 x H/2; 4:2:2: W/2 x H), W and H the size rounded up to 16 (an
 * interlaced sequence's height to 32: each field has whole macroblock
 * rows, 13818-2 6.3.3). Not thread-safe.
 */
typedef struct _GstClMpegTransform GstClMpegTransform;

/* 4:2:0 pictures */
GstClMpegTransform *gst_cl_mpeg_transform_new (GstClContext * ctx,
    guint width, guint height, gboolean interlaced, GError ** error);
/* ... or 4:2:2 ones where @chroma_422 (GST_CL_MPEG_BLOCKS_422 blocks a
 * macroblock) */
GstClMpegTransform *gst_cl_mpeg_transform_new_format (GstClContext * ctx,
    guint width, guint height, gboolean interlaced, gboolean chroma_422,
    GError ** error);
/* Creates the kernels of B pictures (@b_pictures) and of the field search
 * (@fields) now, where they are not yet: their programs are built apart
 * from the others, when first needed, and a first build takes seconds */
gboolean gst_cl_mpeg_transform_prepare (GstClMpegTransform * tr,
    gboolean b_pictures, gboolean fields, GError ** error);
gboolean gst_cl_mpeg_transform_chroma_422 (const GstClMpegTransform * tr);
void gst_cl_mpeg_transform_free (GstClMpegTransform * tr);

guint gst_cl_mpeg_transform_mb_width (const GstClMpegTransform * tr);
guint gst_cl_mpeg_transform_mb_height (const GstClMpegTransform * tr);
gsize gst_cl_mpeg_transform_picture_size (const GstClMpegTransform * tr);
/* Bytes of the records, of the levels and of the vectors (a
 * GstClMotionVector per macroblock) of a picture. */
gsize gst_cl_mpeg_transform_records_size (const GstClMpegTransform * tr);
gsize gst_cl_mpeg_transform_levels_size (const GstClMpegTransform * tr);
gsize gst_cl_mpeg_transform_vectors_size (const GstClMpegTransform * tr);

/* A new device buffer of @size bytes (host-mappable cheaply on CPUs). */
cl_mem gst_cl_mpeg_transform_alloc (GstClMpegTransform * tr, gsize size,
    GError ** error);

/* Component @comp (0 Y, 1 Cb, 2 Cr) of the picture in @picture. */
void gst_cl_mpeg_transform_plane (const GstClMpegTransform * tr,
    cl_mem picture, guint comp, GstClPlane * plane);

/* Enqueues the padding of @frame (I420 or NV12 of the transform's size;
 * 4:2:2: Y42B) into @picture. */
gboolean gst_cl_mpeg_transform_load (GstClMpegTransform * tr,
    const GstClFrame * frame, cl_mem picture, GError ** error);

/* Sets the vectors of @vectors (one GstClMotionVector-sized entry per
 * macroblock) to zero. */
gboolean gst_cl_mpeg_transform_zero_vectors (GstClMpegTransform * tr,
    cl_mem vectors, GError ** error);

/* Copies a picture's vectors (as above) from @from into @to. */
gboolean gst_cl_mpeg_transform_copy_vectors (GstClMpegTransform * tr,
    cl_mem from, cl_mem to, GError ** error);

/* Into @out, the vectors of @a followed by those of @b: @sign 1, @a
 * towards the frame before and @b from that frame on (the motion over
 * both spans); @sign -1, @a and @b towards one frame, @b from a later
 * frame (the vectors from @a's frame to @b's). Each of @b taken where
 * the macroblock's content lies in @b's frame. */
gboolean gst_cl_mpeg_transform_follow_vectors (GstClMpegTransform * tr,
    cl_mem a, cl_mem b, gint sign, cl_mem out, GError ** error);

/* Chooses the forward_f_code of a P picture from its @vectors (the
 * cheapest in vector bits up to @max_f_code, 1..7, a vector past the
 * range counting as an outlier's loss) and clamps them to its range and
 * to the picture. The entropy coder then finds an f_code that codes
 * every vector. */
gboolean gst_cl_mpeg_transform_fit_vectors (GstClMpegTransform * tr,
    cl_mem vectors, guint max_f_code, GError ** error);

/* Enqueues the prediction of the B picture @cur from @fwd and @bwd (the
 * anchors before and after it) with the fitted @fvectors and @bvectors:
 * per macroblock the cheapest of forward, backward and interpolated
 * (luma SAD + @lambda16 / 16 per bit of its type and vectors) into the
 * picture @pred and a GstClMpegBChoice into @choices
 * (gst_cl_mpeg_transform_choices_size() bytes); a vector other than zero
 * must lower the SAD by @zero_bias more than its bits weigh. Coding @cur
 * as a P picture from @pred with zero vectors then codes the B
 * picture. */
gboolean gst_cl_mpeg_transform_predict_b (GstClMpegTransform * tr,
    cl_mem cur, cl_mem fwd, cl_mem bwd, cl_mem fvectors, cl_mem bvectors,
    guint lambda16, guint zero_bias, cl_mem pred, cl_mem choices,
    GError ** error);
gsize gst_cl_mpeg_transform_choices_size (const GstClMpegTransform * tr);
/* When the fields of a frame and of its reference lie in time: the frame
 * vectors span @span field periods (twice the frames between them; 0:
 * unknown), and field p of the frame lies span + @order (p - s) periods
 * from field s of the reference (@order 1 where the reference comes
 * earlier and the top field first, or later and the bottom one first;
 * -1 otherwise). @dual_prime: dual prime prediction may compete where
 * @span is 2 (a P picture right after its reference: 13818-2 7.6.3.6
 * allows it only with no B picture between them). */
typedef struct {
  guint span;
  gint order;
  gboolean dual_prime;
} GstClMpegFieldTiming;

/* the field search's reaches (see kernels/mpegenc.cl): at medium effort
 * around the frame vector, and the seed's around the top fields' vector;
 * at high effort around both; the most */
#define GST_CL_MPEG_FIELD_REACH 2
#define GST_CL_MPEG_FIELD_SEED_REACH 1
#define GST_CL_MPEG_FIELD_REACH_HIGH 4
#define GST_CL_MPEG_FIELD_REACH_MAX 7

/* Enqueues the field prediction of the interlaced P picture @cur from
 * @ref around the fitted frame @vectors (GstClMpegFieldChoice): per
 * macroblock and field the vector and reference field of least cost
 * (SAD + @lambda16 / 16 per bit of the vector against the left
 * neighbour's frame vector) among candidates near the frame vector,
 * scaled by @timing (NULL: as it is), within [-@range, @range - 1]
 * half-pels, into the picture @pred and @choices
 * (gst_cl_mpeg_transform_field_choices_size() bytes). The full-pel grid
 * around the scaled vector reaches @reach samples each way (1 to
 * GST_CL_MPEG_FIELD_REACH_MAX); where @field_vectors is not NULL, a
 * second grid reaching @seed_reach samples (1 to the same) lies around
 * its vector of the macroblock: the vectors of
 * the 16x16 blocks of @cur's top field towards @ref's (a block over the
 * macroblocks of two rows, gst_cl_mpeg_transform_vectors_size() bytes
 * suffice), scaled by @timing as the frame vectors are. */
gboolean gst_cl_mpeg_transform_field_search (GstClMpegTransform * tr,
    cl_mem cur, cl_mem ref, cl_mem vectors, cl_mem field_vectors,
    guint range, guint reach, guint seed_reach,
    const GstClMpegFieldTiming * timing, guint lambda16, cl_mem pred,
    cl_mem choices, GError ** error);
gsize gst_cl_mpeg_transform_field_choices_size (const GstClMpegTransform *
    tr);
/* Enqueues, after gst_cl_mpeg_transform_predict_b() into @pred and
 * @choices (with the same @fvectors, @bvectors, @lambda16 and
 * @zero_bias), the competition of the interlaced B picture @cur's field
 * predictions @field_pred (forward, backward) with @fields, from
 * gst_cl_mpeg_transform_field_search() towards each anchor: per
 * macroblock, forward, backward or interpolated field prediction where
 * it costs less than the frame prediction chosen (luma SAD + @lambda16 /
 * 16 per bit), into @pred and @choices (GST_CL_MPEG_B_FIELD). */
gboolean gst_cl_mpeg_transform_choose_b_fields (GstClMpegTransform * tr,
    cl_mem cur, cl_mem fvectors, cl_mem bvectors, const cl_mem field_pred[2],
    const cl_mem fields[2], guint lambda16, guint zero_bias, cl_mem pred,
    cl_mem choices, GError ** error);
/* Enqueues the coding of @cur (predicted from @ref with @vectors in P
 * pictures; @ref and @vectors are not read in I pictures but must be
 * valid buffers) into @records, @levels and the reconstruction @recon;
 * with @params' field_motion, the field prediction @field_pred and its
 * @fields compete (NULL otherwise). */
gboolean gst_cl_mpeg_transform_encode (GstClMpegTransform * tr, cl_mem cur,
    cl_mem ref, cl_mem vectors, cl_mem field_pred, cl_mem fields,
    const GstClMpegEncodeParams * params, cl_mem records, cl_mem levels,
    cl_mem recon, GError ** error);

/* TRUE where the levels go back to the host packed (a discrete device:
 * the GPU layout), FALSE where the host maps @levels as they are. */
gboolean gst_cl_mpeg_transform_packs_levels (const GstClMpegTransform * tr);

/* Bytes of the work buffer of gst_cl_mpeg_transform_pack(). */
gsize gst_cl_mpeg_transform_offsets_size (const GstClMpegTransform * tr);

/* Enqueues the packing of @levels into @packed: per macroblock, per block,
 * the levels up to the block's last non-zero one (intra blocks at least
 * one), in that order, without gaps; @offsets, of
 * gst_cl_mpeg_transform_offsets_size() bytes at least, receives where
 * each macroblock starts (its first words: per macroblock, the packed
 * levels of those before it) and the summary of @records in parts
 * (gst_cl_mpeg_transform_pack_summary()). @packed must hold
 * gst_cl_mpeg_transform_levels_size() bytes. */
gboolean gst_cl_mpeg_transform_pack (GstClMpegTransform * tr,
    cl_mem records, cl_mem levels, cl_mem offsets, cl_mem packed,
    GError ** error);

/* The summary of the records packed by gst_cl_mpeg_transform_pack() from
 * its @offsets, read back, as gst_cl_mpeg_records_summarize() gives it. */
void gst_cl_mpeg_transform_pack_summary (const GstClMpegTransform * tr,
    const guint32 * offsets, GstClMpegRecordsSummary * sum);

G_END_DECLS
