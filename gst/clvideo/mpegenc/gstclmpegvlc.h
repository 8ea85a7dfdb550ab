/* gst-clvideo: MPEG-1 and MPEG-2 video (ISO/IEC 11172-2, 13818-2)
 * variable-length coding of slices
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#pragma once

#include <glib.h>
#include "gstclmpegbitwriter.h"
#include "gstclmpegheaders.h"
#include "gstclvideotypes.h"

G_BEGIN_DECLS

/* Smallest forward_f_code (1..7) whose range [-16 f, 16 f - 1] holds every
 * vector coded in the picture (of macroblocks predicted field by field:
 * those of @fields, NULL where none is). */
guint gst_cl_mpeg_choose_f_code (const GstClMpegMbRecord * recs,
    const GstClMpegFieldChoice * fields, guint n);
/* ... of vectors whose components v all have max (-v, v + 1) up to
 * @reach (GstClMpegRecordsSummary's vector_reach) */
guint gst_cl_mpeg_f_code_for_reach (guint reach);
/* ... the forward and backward f_codes of a B picture's vectors
 * (@choices, the macroblocks' records @recs say which are intra; where
 * predicted field by field, the field vectors of @fields and @bfields). */
void gst_cl_mpeg_choose_b_f_codes (const GstClMpegMbRecord * recs,
    const GstClMpegBChoice * choices, const GstClMpegFieldChoice * fields,
    const GstClMpegFieldChoice * bfields, guint n, guint * forward,
    guint * backward);

/**
 * gst_cl_mpeg_write_slice:
 * @bw: where the slice goes (byte-aligned at the start and the end)
 * @row: macroblock row; the slice starts at its column 0
 * @n_mbs: macroblocks in the slice: the row's width, or whole rows
 * @pc: how the picture is coded: its type, f_code, MPEG-2 syntax
 *   (13818-2 6.2.4 to 6.2.6 with the picture coding extension this encoder
 *   writes: 12-bit escapes, the slice in its row) and intra DC precision
 * @recs: the slice's @n_mbs records
 * @choices: B pictures: the slice's @n_mbs predictions (NULL otherwise)
 * @fields: P pictures with macroblocks predicted field by field
 *   (GST_CL_MPEG_MB_FIELD_MOTION), B pictures with some so predicted
 *   (GST_CL_MPEG_B_FIELD): the slice's @n_mbs forward field predictions
 *   (NULL otherwise)
 * @bfields: ... B pictures: the backward ones (NULL otherwise)
 * @levels: the slice's levels (GST_CL_MPEG_MB_LEVELS per macroblock)
 *
 * Codes one slice covering @n_mbs macroblocks from the start of row @row
 * (MPEG-1 slices may span rows, MPEG-2 ones not): skipped macroblocks
 * (other than the first and last: in P pictures the skippable ones, in B
 * pictures those without levels that repeat the frame prediction of the
 * one before), macroblock types, quantiser changes,
 * vectors and DC values with their predictors reset as the standard says,
 * coded block patterns and coefficients (escapes beyond the tables).
 */
/* Codes the slice starting at macroblock row @row. Macroblock i's levels start at
 * @levels + i * GST_CL_MPEG_MB_LEVELS, 64 per block, when @mb_offsets is
 * NULL; else at @levels + @mb_offsets[i], packed as
 * gst_cl_mpeg_transform_pack() leaves them (@levels readable 64 entries
 * past the last level). */
void gst_cl_mpeg_write_slice (GstClMpegBitWriter * bw, guint row,
    guint n_mbs, const GstClMpegPictureCoding * pc,
    const GstClMpegMbRecord * recs, const GstClMpegBChoice * choices,
    const GstClMpegFieldChoice * fields, const GstClMpegFieldChoice * bfields,
    const gint16 * levels, const guint32 * mb_offsets);

/**
 * GstClMpegRecordsSummary:
 * @packed_total: the packed levels of all macroblocks: per block, the
 *   levels up to its last non-zero one, intra blocks at least one
 * @intra: macroblocks coded intra
 * @skippable: macroblocks flagged GST_CL_MPEG_MB_SKIPPABLE
 * @coded: macroblocks intra or not skippable
 * @coded_last_sum: the sum of their blocks' @last
 * @quant_sum: the sum of all macroblocks' quantisers
 * @activity_sum: the sum of all macroblocks' activities
 * @vector_reach: the largest max (-v, v + 1) of the components v of the
 *   vectors of the macroblocks not intra, at least 1: where the
 *   macroblocks predicted field by field are not, their f_code
 *   (gst_cl_mpeg_f_code_for_reach())
 *
 * What the engine reads of a picture's records besides its slices.
 */
typedef struct
{
  guint32 packed_total;
  guint intra, skippable, coded;
  guint64 coded_last_sum, quant_sum, activity_sum;
  guint vector_reach;
} GstClMpegRecordsSummary;

/* The summary of the @n records @recs in one pass (a picture's records
 * are read once, not once for each use). */
void gst_cl_mpeg_records_summarize (const GstClMpegMbRecord * recs, guint n,
    GstClMpegRecordsSummary * sum);

/* The bits the AC levels and end_of_block of the intra blocks of the @n
 * macroblocks @recs (all of them in an @intra_picture) take in MPEG-2's
 * table B.14 (bits[0]) and B.15 (bits[1]) (escapes of 24 bits); @levels
 * and @mb_offsets as gst_cl_mpeg_write_slice() reads them. */
void gst_cl_mpeg_intra_table_bits (const GstClMpegMbRecord * recs, guint n,
    gboolean intra_picture, const gint16 * levels, const guint32 * mb_offsets,
    guint64 bits[2]);

/* The default intra quantiser matrix, in natural (row-major) order. */
extern const guint8 gst_cl_mpeg_default_intra_matrix[64];
/* zigzag index -> natural position */
extern const guint8 gst_cl_mpeg_zigzag[64];

/* Code lengths for the rate-distortion decisions of the device stages,
 * GST_CL_MPEG_RD_BITS_SIZE bytes:
 * - the run-level codes (table B.14, sign bit included): entry
 *   run * GST_CL_MPEG_COEFF_BITS_LEVELS + |level|, 0 where the pair takes
 *   an escape (20 bits up to |level| 127, 28 above); the "1s" form of
 *   (0, 1) that opens a non-intra block is not in it (2 bits); entry 0
 *   (run 0, level 0) is end_of_block;
 * - from GST_CL_MPEG_RD_MV_BITS: a motion vector component whose
 *   difference from its predictor is d, entry |d| (0..32 half-pels), with
 *   forward_f_code 2 (the one of the default search range);
 * - from GST_CL_MPEG_RD_CBP_BITS: coded_block_pattern 0..63 (0: MPEG-2's
 *   code for pattern 0, 9 bits, which only a 4:2:2 macroblock's 4:2:0
 *   part takes; a 4:2:2 pattern p takes entry p >> 2 and 2 bits);
 * - from GST_CL_MPEG_RD_DC_BITS: dct_dc_size_luma 0..11, then
 *   dct_dc_size_chroma 0..11 (the size's code, not the differential;
 *   MPEG-1 has sizes up to 8);
 * - from GST_CL_MPEG_RD_ONE_BITS: the run-level codes of MPEG-2's table
 *   B.15 (intra blocks with intra_vlc_format 1), laid out as B.14's. */
#define GST_CL_MPEG_COEFF_BITS_RUNS 32
#define GST_CL_MPEG_COEFF_BITS_LEVELS 41
#define GST_CL_MPEG_RD_MV_BITS \
  (GST_CL_MPEG_COEFF_BITS_RUNS * GST_CL_MPEG_COEFF_BITS_LEVELS)
#define GST_CL_MPEG_RD_MV_MAX 32
#define GST_CL_MPEG_RD_CBP_BITS \
  (GST_CL_MPEG_RD_MV_BITS + GST_CL_MPEG_RD_MV_MAX + 1)
#define GST_CL_MPEG_RD_DC_BITS (GST_CL_MPEG_RD_CBP_BITS + 64)
#define GST_CL_MPEG_RD_DC_SIZES 12
#define GST_CL_MPEG_RD_ONE_BITS \
  (GST_CL_MPEG_RD_DC_BITS + 2 * GST_CL_MPEG_RD_DC_SIZES)
#define GST_CL_MPEG_RD_BITS_SIZE \
  (GST_CL_MPEG_RD_ONE_BITS + GST_CL_MPEG_RD_MV_BITS)
void gst_cl_mpeg_rd_bits (guint8 bits[GST_CL_MPEG_RD_BITS_SIZE]);

G_END_DECLS
