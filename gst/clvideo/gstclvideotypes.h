/* gst-clvideo: the structures shared by the host, the kernels and the tests
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * Written in the common subset of C and OpenCL C 1.2 (kernels include it
 * as "gstclvideotypes.h"), so that each layout has one definition. Launch
 * arguments travel to a kernel as one struct passed by value: only 32-bit
 * members (and structs of them), where OpenCL C and C lay a struct out
 * alike; the sizes are asserted on the host. Include guards rather than
 * #pragma once: an OpenCL compiler sees it inside the kernel's source.
 */
#ifndef __GST_CL_VIDEO_TYPES_H__
#define __GST_CL_VIDEO_TYPES_H__

#ifdef __OPENCL_VERSION__
#include "gstclmotionvector.h"
#else
#include <gst/cl/gstclmotionvector.h>
#endif

/* a plane of a kernel's buffer: where it starts and its row stride, in
 * bytes */
typedef struct {
  guint32 offset, stride;
} GstClKernelPlane;

/* ---- MPEG-1 encoder (kernels/mpegenc.cl) ---- */

/* Macroblock flags of GstClMpegMbRecord */
#define GST_CL_MPEG_MB_INTRA 0x1
/* inter, zero vector, no coefficients: may be skipped */
#define GST_CL_MPEG_MB_SKIPPABLE 0x2
/* the luma blocks hold the lines of one field each (MPEG-2's dct_type 1):
 * Y0 and Y1 the top field's, Y2 and Y3 the bottom one's */
#define GST_CL_MPEG_MB_FIELD_DCT 0x4
/* predicted field by field (MPEG-2's frame_motion_type 1), with the
 * vectors of its GstClMpegFieldChoice */
#define GST_CL_MPEG_MB_FIELD_MOTION 0x8

/* blocks of a macroblock: 6 in 4:2:0 (Y0..Y3, Cb, Cr), 8 in 4:2:2 (Y0..Y3,
 * then Cb and Cr of the upper and of the lower eight chroma lines: Cb0,
 * Cr0, Cb1, Cr1, 13818-2 6.1.3). The records and the levels have room
 * for the most. */
#define GST_CL_MPEG_BLOCKS_420 6
#define GST_CL_MPEG_BLOCKS_422 8
#define GST_CL_MPEG_BLOCKS GST_CL_MPEG_BLOCKS_422
#define GST_CL_MPEG_MB_LEVELS (GST_CL_MPEG_BLOCKS * 64)

/**
 * GstClMpegMbRecord:
 * @dx: horizontal vector in half-pel units (0 for intra)
 * @dy: vertical vector in half-pel units
 * @flags: GST_CL_MPEG_MB_INTRA, GST_CL_MPEG_MB_SKIPPABLE,
 *   GST_CL_MPEG_MB_FIELD_DCT, GST_CL_MPEG_MB_FIELD_MOTION (then @dx and
 *   @dy are 0)
 * @cbp: coded_block_pattern: of @n_blocks blocks, bit n_blocks - 1 - b
 *   set when block b has a non-zero level (intra blocks are always
 *   coded); in 4:2:2 the 4:2:0 pattern of blocks 0-5 shifted left by two,
 *   then coded_block_pattern_1 (blocks 6, 7), as 13818-2 6.3.17.4 joins
 *   them
 * @quant: the quantiser_scale the levels were made with (1..31)
 * @n_blocks: the macroblock's blocks, GST_CL_MPEG_BLOCKS_420 or _422
 * @last: per block, the zigzag index of its last non-zero level plus one
 *   (0: none; an intra block's DC level counts as index 0); 0 past
 *   @n_blocks
 * @activity: luma activity, the sum of |sample - mean| over the macroblock
 * @cost: SAD of the chosen prediction (inter) or the activity (intra)
 *
 * What the device stages leave per macroblock for the entropy coder, in
 * raster order. The levels of a macroblock are GST_CL_MPEG_MB_LEVELS
 * gint16, block by block, each block's 64 in zigzag order; an intra
 * block's first is its DC level (the DC coefficient / 8, 0..255; MPEG-2
 * at 9 to 11 bits of precision: / 4, 2, 1, to 511, 1023, 2047), the
 * others are -255..255. Levels at or past a block's @last are zero or not
 * written at all: only those before it are read.
 */
typedef struct {
  gint16 dx, dy;
  guint8 flags;
  guint8 cbp;
  guint8 quant;
  guint8 n_blocks;
  guint8 last[GST_CL_MPEG_BLOCKS];
  guint32 activity;
  guint32 cost;
} GstClMpegMbRecord;

/* mpeg_load, mpeg_load_rows: the padding of a frame into a picture of
 * whole macroblocks */
typedef struct {
  GstClKernelPlane y, u, v;     /* the frame's planes */
  guint32 chroma_pixel_stride;  /* 1: I420, 2: NV12 */
  guint32 width, height;        /* the frame's size */
  guint32 padded_width, padded_height;  /* the picture's: multiples of 16 */
} GstClMpegLoadArgs;

/* mpeg_encode_mb, mpeg_encode_mb_cpu: see GstClMpegEncodeParams */
typedef struct {
  guint32 mb_width, mb_height;
  guint32 p_picture;            /* 0 or 1 */
  guint32 qscale;               /* 1..31; non_linear: to 56 */
  guint32 adaptive;             /* 0 or 1 */
  guint32 avg_activity;         /* at least 1 */
  guint32 intra_bias;
  guint32 dc_only;              /* 0 or 1 */
  guint32 rd_lambda;
  guint32 mv_lambda;
  guint32 mpeg2;                /* 0 or 1: MPEG-2's reconstruction */
  guint32 dc_shift;             /* intra DC precision above 8 bits */
  guint32 field_dct;            /* 0 or 1: frame or field DCT per
                                 * macroblock (an interlaced frame) */
  guint32 field_motion;         /* 0 or 1: the field prediction of
                                 * mpeg_field_search competes (P) */
  guint32 alternate_scan;       /* 0: zigzag, 1: alternate scan (MPEG-2) */
  guint32 intra_vlc;            /* 0 or 1: intra blocks' levels coded with
                                 * table B.15 (MPEG-2) */
  guint32 non_linear;           /* 0 or 1: MPEG-2's non-linear
                                 * quantiser_scale (the quantisers to 56) */
} GstClMpegEncodeArgs;

/**
 * GstClMpegMbPlan:
 * @act: the macroblock's activity
 * @q: its quantiser
 * @intra: 1 where it is intra before the rate-distortion decisions (I
 *   pictures, or decide () without them)
 * @dx, @dy: the vector of the prediction so far
 * @cost: its SAD, or the activity
 * @moving: 1 where a moving candidate competes with the zero vector
 * @sad_mv: its SAD
 * @intra_cand: 1 where the intra candidate competes
 * @field: 1 where the predictions are coded in field blocks
 * @field_mv: 1 where the moving candidate predicts field by field
 * @field_in: 1 where the intra candidate takes field blocks
 * @alt_bits: the moving candidate's vector bits (-1: none)
 * @alt_x, @alt_y: its vector
 * @second_bits: the second moving candidate's vector bits (-1: none; see
 *   second_vector in the kernels)
 * @second_x, @second_y: its vector
 * @sad_second: its SAD
 *
 * What the GPU layout's mpeg_transform_mb decides of a macroblock before
 * it transforms the candidates, and mpeg_encode_mb goes on from.
 */
typedef struct {
  gint32 act, q, intra, dx, dy, cost, moving, sad_mv, intra_cand, field,
      field_mv, field_in, alt_bits, alt_x, alt_y, second_bits, second_x,
      second_y, sad_second;
} GstClMpegMbPlan;

/* the candidates a job holds: the prediction chosen so far, the moving
 * one, intra, the second moving one */
#define GST_CL_MPEG_TRELLIS_CANDIDATES 4

/**
 * GstClMpegTrellisJob:
 * @plan: the macroblock's decisions so far (candidate 0 is intra where
 *   its @intra is)
 * @candidates: bit k set where candidate k was transformed
 * @cand_quant: each candidate's quantiser (at least @quant)
 * @energy: each candidate's energy of coefficients, a quarter of it
 * @mask: per candidate and block, the scan positions that may take a
 *   level, bit z of word z / 32
 * @coded: per candidate and block, the scan positions of its levels
 *   (an intra block's DC level always), bit z of word z / 32
 *   (mpeg_trellis_blocks)
 * @last: ... the scan index of its last level plus one
 * @delta: ... the cost of its levels against none
 * @coef: per candidate and block, the coefficients in scan order; at
 *   the positions in @coded the levels once mpeg_trellis_blocks has run
 *   (writing all 64 took it a third longer on an H200). Without
 *   rate-distortion decisions only the first candidate's, in natural
 *   order, and its @cand_quant: nothing else is set but @plan.
 *
 * The GPU layout codes a picture in two launches of a work-group a
 * macroblock, with the trellis quantisation of rate-distortion
 * decisions between them: mpeg_transform_mb leaves the candidates of a
 * macroblock in its job, mpeg_trellis_blocks quantises every block of
 * every job, a work-item a block, so that the serial walks fill the
 * device's lanes (inside a macroblock's work-group they took a few of
 * 64), and mpeg_encode_mb decides and reconstructs. In a device buffer
 * only.
 */
typedef struct {
  GstClMpegMbPlan plan;
  guint32 candidates;
  gint32 cand_quant[GST_CL_MPEG_TRELLIS_CANDIDATES];
  gint32 energy[GST_CL_MPEG_TRELLIS_CANDIDATES];
  guint32 mask[GST_CL_MPEG_TRELLIS_CANDIDATES][GST_CL_MPEG_BLOCKS][2];
  guint32 coded[GST_CL_MPEG_TRELLIS_CANDIDATES][GST_CL_MPEG_BLOCKS][2];
  gint32 last[GST_CL_MPEG_TRELLIS_CANDIDATES][GST_CL_MPEG_BLOCKS];
  gint32 delta[GST_CL_MPEG_TRELLIS_CANDIDATES][GST_CL_MPEG_BLOCKS];
  gint16 coef[GST_CL_MPEG_TRELLIS_CANDIDATES][GST_CL_MPEG_BLOCKS][64];
} GstClMpegTrellisJob;

/**
 * GstClMpegFieldChoice:
 * @dx: per field of the macroblock (its even lines, its odd lines), the
 *   horizontal vector in half-pels
 * @dy: ... the vertical one, in half field lines
 * @select: per field, the reference field it predicts from (0 top, 1
 *   bottom: motion_vertical_field_select)
 * @bits: an estimate of the bits of both vectors and selects
 * @sad: the luma SAD of the field prediction
 * @dual_prime: 1 where the prediction is dual prime (13818-2 7.6.3.6):
 *   one vector from the fields of the same parity (@dx[0], @dy[0], the
 *   same in @dx[1], @dy[1]; @select 0, 1) and @dmv
 * @dmv: dual prime's differential vector (dmvector), each -1, 0 or 1
 *
 * The field prediction mpeg_field_search found for a macroblock of an
 * interlaced P picture, in raster order; the macroblock's record says
 * whether it is used (GST_CL_MPEG_MB_FIELD_MOTION).
 */
typedef struct {
  gint16 dx[2], dy[2];
  guint8 select[2];
  guint16 bits;
  guint32 sad;
  guint8 dual_prime;
  gint8 dmv[2];
  guint8 reserved;              /* 0 */
} GstClMpegFieldChoice;

/* mpeg_field_search: vectors within [-@range, @range - 1] half-pels; the
 * frame vectors span @span field periods (0: unknown), and a field @p
 * lies @span + @order (p - s) periods from reference field @s
 * (GstClMpegFieldTiming); the full-pel grid reaches @reach samples each
 * way around the frame vector, and where @seed_reach is not 0 a grid
 * reaches that many around the vector of the top fields' 16x16 block
 * over the macroblock too;
 * candidates ranked by 16 SAD + @lambda16 per bit of the vector; dual
 * prime competes where @dual_prime is 1 */
typedef struct {
  guint32 mb_width, mb_height;
  guint32 range;
  guint32 span;
  gint32 order;
  guint32 lambda16;
  guint32 dual_prime;
  guint32 reach;
  guint32 seed_reach;
} GstClMpegFieldArgs;

/* Prediction directions of a B picture's macroblock (GstClMpegBChoice) */
#define GST_CL_MPEG_B_FORWARD 0x1
#define GST_CL_MPEG_B_BACKWARD 0x2
/* ... predicted field by field (MPEG-2's frame_motion_type 1), with the
 * GstClMpegFieldChoice of each direction */
#define GST_CL_MPEG_B_FIELD 0x4

/**
 * GstClMpegBChoice:
 * @fdx: forward vector in half-pel units (0 where not forward)
 * @fdy:
 * @bdx: backward vector (0 where not backward)
 * @bdy:
 * @directions: GST_CL_MPEG_B_FORWARD, GST_CL_MPEG_B_BACKWARD or both
 *   (interpolated), with GST_CL_MPEG_B_FIELD where the prediction is
 *   field by field (mpeg_choose_b_fields; the vectors are then 0)
 *
 * The prediction mpeg_predict_b chose for a macroblock of a B picture,
 * in raster order; the macroblock's record says whether it is coded intra
 * instead.
 */
typedef struct {
  gint16 fdx, fdy, bdx, bdy;
  guint32 directions;
} GstClMpegBChoice;

/* mpeg_predict_b: @lambda16 weighs a vector bit against 16 SAD units;
 * a vector other than zero must lower the SAD by @zero_bias more */
typedef struct {
  guint32 mb_width, mb_height;
  guint32 lambda16;
  guint32 zero_bias;
} GstClMpegPredictArgs;

/* mpeg_pack_counts (GPU layout): macroblocks a work-group, each group's
 * macroblocks a run */
#define GST_CL_MPEG_PACK_ITEMS 256
#define GST_CL_MPEG_PACK_RUNS(n) \
  (((n) + GST_CL_MPEG_PACK_ITEMS - 1) / GST_CL_MPEG_PACK_ITEMS)

/**
 * GstClMpegPackSummary:
 * @packed_total: the packed levels of all macroblocks
 * @intra: macroblocks coded intra
 * @skippable: macroblocks flagged GST_CL_MPEG_MB_SKIPPABLE
 * @coded: macroblocks intra or not skippable
 * @coded_last_sum: the sum of their blocks' @last
 * @quant_sum: the sum of all macroblocks' quantisers
 * @activity_sum: the sum of all macroblocks' activities
 * @vector_reach: the largest max (-v, v + 1) of the components v of the
 *   vectors of the macroblocks not intra (frame vectors: those of field
 *   prediction are elsewhere), at least 1: a maximum, not a sum
 *
 * The records of a run of macroblocks summed on the device where the
 * levels are packed (GPU layout), so that the host adds up the runs'
 * sums instead of scanning every record; eight words, a uint8 to the
 * kernels.
 */
typedef struct {
  guint32 packed_total, intra, skippable, coded;
  guint32 coded_last_sum, quant_sum, activity_sum, vector_reach;
} GstClMpegPackSummary;

#define GST_CL_MPEG_PACK_SUMMARY_WORDS 8
/* The offsets buffer of the packing of n macroblocks, in 32-bit words:
 * where each macroblock's packed levels start (n), then the runs'
 * GstClMpegPackSummary words, word by word (from
 * GST_CL_MPEG_PACK_PARTS_AT, word k of run r at k x
 * GST_CL_MPEG_PACK_RUNS (n) + r), which the host adds up; the runs'
 * packed_total, together first, place the runs after them. */
#define GST_CL_MPEG_PACK_PARTS_AT(n) (n)
#define GST_CL_MPEG_PACK_OFFSETS(n) (GST_CL_MPEG_PACK_PARTS_AT (n) + \
  GST_CL_MPEG_PACK_SUMMARY_WORDS * GST_CL_MPEG_PACK_RUNS (n))

/* mpeg_fit_vectors, a P picture's f_code: its work-group size (GPU and
 * CPU layouts) and the f_codes it weighs; each of its work-items weighs
 * @per_item macroblocks, and the last work-group keeps the cheapest
 * f_code up to @max_f_code. The totals are two sets of
 * GST_CL_MPEG_FIT_SET_WORDS words, the sums of the GST_CL_MPEG_F_CODES
 * and the count of work-groups done: @totals the one this picture's
 * costs go to, zeroed before; the last work-group zeroes the other for
 * the next picture (no command of its own). */
#define GST_CL_MPEG_FIT_ITEMS 256
#define GST_CL_MPEG_FIT_ITEMS_CPU 1
#define GST_CL_MPEG_F_CODES 7
#define GST_CL_MPEG_FIT_SET_WORDS (GST_CL_MPEG_F_CODES + 1)
typedef struct {
  guint32 mb_width, mb_height;
  guint32 per_item;
  guint32 max_f_code;
  guint32 totals;               /* 0 or 1 */
} GstClMpegFitArgs;

/* ---- motion search (kernels/motionsearch.cl) ---- */

/* The pictures and blocks of one launch of the motion search kernels
 * (each reads the members it needs): current and reference luma planes
 * of width x height, and the blocks [first_bx, end_bx) x [first_by,
 * end_by) */
typedef struct {
  GstClKernelPlane cur, ref;
  guint32 width, height;
  guint32 first_bx, first_by;
  guint32 end_bx, end_by;
  /* motion_search_blocks with CHROMA: the chroma planes, U then V */
  GstClKernelPlane cur_chroma[2], ref_chroma[2];
  /* motion_search_level: the window's range at level 2, and the block
   * size of the previous search's vectors (0: none) */
  guint32 range;
  guint32 history_block;
  /* ... at level 1 and full resolution: the price of a displacement's
   * bits, in sixteenths of a SAD unit a bit (see kernels/motionsearch.cl,
   * vector_price) */
  guint32 vector_price;
} GstClMotionSearchArgs;

/* The largest displacement, in full samples, that the hierarchical search
 * follows in each direction: its vectors, half-pel refined, stay within
 * what MPEG-1 codes with f_code 7 ([-1024, 1023] half-pels) */
#define GST_CL_MOTION_SEARCH_LIMIT 511

/* The global motion (motion_global_shifts on GPUs, motion_global_motion
 * elsewhere): the most shifts weighed along a profile of the level-2
 * picture (2 (GST_CL_MOTION_SEARCH_LIMIT >> 2) + 1 fit), which is the
 * work-group of motion_global_motion, and the work-group of
 * motion_global_shifts that weighs each */
#define GST_CL_MOTION_GLOBAL_SHIFTS 256
#define GST_CL_MOTION_GLOBAL_SHIFT_ITEMS 64
/* The shifts weighed along a profile of @n values reach n / 2 each way,
 * at most the limit's at level 2 */
#define GST_CL_MOTION_GLOBAL_REACH(n) \
  ((n) / 2 < (GST_CL_MOTION_SEARCH_LIMIT >> 2) ? \
      (n) / 2 : (GST_CL_MOTION_SEARCH_LIMIT >> 2))
/* Their work buffer, of 32-bit values, for a level-2 picture of w x h:
 * the result, the least key of each axis (64 bits each, the shift in its
 * lowest 10 bits, plus 512); then from GST_CL_MOTION_GLOBAL_PROFILES on
 * the column sums of the current picture, the reference's, then their
 * row sums. motion_decimate sets the keys to their largest value and the
 * sums to zero. */
#define GST_CL_MOTION_GLOBAL_PROFILES 4
#define GST_CL_MOTION_GLOBAL_VALUES(w, h) \
  (GST_CL_MOTION_GLOBAL_PROFILES + 2 * ((w) + (h)))

/* motion_decimate: the luma plane @src of width x height decimated by 2
 * and by 4 into the destination buffer at l1_offset and l2_offset */
typedef struct {
  GstClKernelPlane src;
  guint32 width, height;
  guint32 l1_offset, l2_offset;
} GstClMotionDecimateArgs;

/* the layouts both sides must agree on: sizes on both (device: an array
 * of negative size fails to compile), member offsets on the host */
/* ---- rate-constrained motion search (kernels/motionlambda.cl) ---- */

/* lambda_rows_cpu, lambda_sads, lambda_rows: current and reference luma
 * planes of width x height, blocks_x blocks per row; the cost weight and
 * the f_code of the vectors' rates; the band of blocks (lambda_sads: from
 * first_block on) or of rows [first_row, first_row + rows) */
typedef struct {
  GstClKernelPlane cur, ref;
  guint32 width, height, blocks_x;
  guint32 lambda;
  gint32 f_code;
  guint32 first_block, first_row, rows;
} GstClMotionLambdaArgs;

#ifdef __OPENCL_VERSION__
#define GST_CL_VIDEO_SIZE_IS(type, size) \
    typedef char type##_size_check[sizeof (type) == (size) ? 1 : -1]
#else
#define GST_CL_VIDEO_SIZE_IS(type, size) \
    G_STATIC_ASSERT (sizeof (type) == (size))
G_STATIC_ASSERT (G_STRUCT_OFFSET (GstClMpegMbRecord, last) == 8);
G_STATIC_ASSERT (G_STRUCT_OFFSET (GstClMpegMbRecord, activity) == 16);
G_STATIC_ASSERT (G_STRUCT_OFFSET (GstClMpegLoadArgs, padded_height) == 40);
G_STATIC_ASSERT (G_STRUCT_OFFSET (GstClMotionSearchArgs, cur_chroma) == 40);
G_STATIC_ASSERT (G_STRUCT_OFFSET (GstClMotionSearchArgs, range) == 72);
#endif
GST_CL_VIDEO_SIZE_IS (GstClMotionVector, 8);
GST_CL_VIDEO_SIZE_IS (GstClKernelPlane, 8);
GST_CL_VIDEO_SIZE_IS (GstClMpegMbRecord, 24);
GST_CL_VIDEO_SIZE_IS (GstClMpegLoadArgs, 44);
GST_CL_VIDEO_SIZE_IS (GstClMpegEncodeArgs, 68);
GST_CL_VIDEO_SIZE_IS (GstClMpegMbPlan, 76);
GST_CL_VIDEO_SIZE_IS (GstClMpegTrellisJob, 4976);
GST_CL_VIDEO_SIZE_IS (GstClMpegFieldChoice, 20);
GST_CL_VIDEO_SIZE_IS (GstClMpegFieldArgs, 36);
GST_CL_VIDEO_SIZE_IS (GstClMpegBChoice, 12);
GST_CL_VIDEO_SIZE_IS (GstClMpegPredictArgs, 16);
GST_CL_VIDEO_SIZE_IS (GstClMpegFitArgs, 20);
GST_CL_VIDEO_SIZE_IS (GstClMotionSearchArgs, 84);
GST_CL_VIDEO_SIZE_IS (GstClMotionDecimateArgs, 24);
GST_CL_VIDEO_SIZE_IS (GstClMotionLambdaArgs, 48);

#endif /* __GST_CL_VIDEO_TYPES_H__ */
