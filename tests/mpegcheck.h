/* gst-clvideo: MPEG-1 and MPEG-2 video elementary stream checker, for the
 * tests and the benchmark
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * Parses an ISO/IEC 11172-2 (MPEG-1) or ISO/IEC 13818-2 (MPEG-2) stream to
 * the last bit of every slice, checks its structure and every value of the
 * macroblock layer against its legal range, and runs the VBV buffer model
 * over it. Written from the standards' syntax and tables alone, so that it
 * shares nothing with the encoder it checks. A sequence header followed
 * by a sequence_extension makes its sequence MPEG-2; without one it is
 * MPEG-1.
 *
 * Macroblock layer (11172-2 2.4.2.7 to 2.4.4, tables B.1 to B.5; 13818-2
 * 6.2.4 to 7.6, tables B.1 to B.15):
 *  - stuffing (MPEG-1 only), escapes and address increments: every
 *    macroblock within the picture, increasing, each one in exactly one
 *    slice (coded or skipped); none skipped in I and D pictures, none
 *    skipped right after an intra macroblock in a B picture; MPEG-2: a
 *    slice starts and ends in its own macroblock row;
 *  - macroblock_type from the table of the picture's type, quantizer_scale
 *    (MPEG-2: quantiser_scale_code) 1..31;
 *  - motion codes, motion_r as f_code gives it, the reconstructed vectors
 *    (predictors reset at slice starts, intra macroblocks and, in P
 *    pictures, skipped macroblocks and those without a forward vector) and
 *    the area they predict from within the picture's macroblocks;
 *  - coded_block_pattern 1..63 (MPEG-1 has no code for 0; MPEG-2 has, and
 *    extends the pattern by 2 or 6 bits for 4:2:2 and 4:4:4);
 *  - intra DC sizes 0..8 (MPEG-2: 0..11) and the reconstructed DC within
 *    0..2040 (MPEG-2: within the range of intra_dc_precision);
 *  - run/level codes, escapes in their shortest legal form, no coefficient
 *    beyond position 63, an end_of_block in every block (D pictures: DC
 *    only and end_of_macroblock), every coefficient's inverse
 *    quantisation within -2048..2047 for the matrices in force;
 *  - only zero bits between the last macroblock and the next start code.
 * Errors name the picture, the slice, the macroblock address and the
 * bit's position in the stream.
 *
 * MPEG-2 (13818-2) on top of that:
 *  - the extensions where the syntax puts them (sequence_extension right
 *    after every sequence header, picture_coding_extension right after
 *    every picture header), each one at most once there; the sequence,
 *    sequence display, quant matrix and picture coding extensions are
 *    parsed and checked, the picture display, copyright, camera, ITU-T
 *    and picture scalable ones are skipped with a note;
 *  - profile and level a known combination, the chroma format one the
 *    profile allows, the picture header's MPEG-1 fields at their fixed
 *    values, f_codes 1..9 where the picture uses them and 15 where not,
 *    the consistency of the picture coding extension's flags;
 *  - the macroblock layer of frame pictures in 4:2:0, 4:2:2 and 4:4:4:
 *    frame and field motion, dual prime (parsed, its vectors' areas
 *    checked), concealment vectors, dct_type, non-linear quantiser
 *    scales, DCT table one, the alternate scan, 12-bit escapes (level 0
 *    and -2048 forbidden; a level that has a shorter code is a note);
 *  - field pictures and scalable streams (a sequence_scalable_extension)
 *    are reported as unsupported: their headers are checked, their
 *    macroblocks not.
 *
 * VBV model (11172-2 annex C, 13818-2 annex C, as used here):
 *  - the buffer holds vbv_buffer_size * 16384 bits and is empty when the
 *    first byte of a sequence enters it; bits enter at bit_rate * 400
 *    bits/s (MPEG-2: with the extensions' high bits);
 *  - a picture is removed at once at its decoding time, together with the
 *    sequence and GOP headers in front of it (the sequence end code goes
 *    with the last picture of its sequence);
 *  - decoding times are one frame period apart, in coded order (MPEG-1
 *    has no field repetition). MPEG-2: after a B picture (or any picture
 *    when low_delay is set) the next one comes its own display time
 *    later, after an I or P picture the display time of the I or P
 *    picture before it: a frame period, one and a half with
 *    repeat_first_field in an interlaced sequence, two or three (by
 *    top_field_first) in a progressive one, half of one for a field
 *    picture; with low_delay a picture not entirely in the buffer is
 *    decoded at the first field period at which it is, and the ones after
 *    it that much later ("big pictures");
 *  - the first picture of a sequence is decoded vbv_delay / 90000 s after
 *    the last byte of its picture start code entered the buffer
 *    ("constant rate" rule); when that vbv_delay is 0xFFFF, bits enter
 *    at bit_rate until the buffer is full and then wait, and the first
 *    picture is decoded when the buffer is first full, or when the whole
 *    sequence is in it if that comes first ("buffer full" rule, as
 *    13818-2 annex C case 2); with an MPEG-1 bit_rate 0x3FFFF (variable,
 *    no rate known) the model is not run;
 *  - underflow: a picture is not entirely in the buffer at its decoding
 *    time; overflow (constant rate only): the buffer would hold more than
 *    its size. Both allow one 90 kHz tick worth of bits, the resolution
 *    of vbv_delay.
 */
#pragma once

#include <glib.h>

G_BEGIN_DECLS

typedef struct
{
  /* structure expectations; the defaults check none of them */
  gint expect_pictures;         /* -1: any count */
  guint expect_width, expect_height;    /* 0: any size */
  gboolean require_seq_header_per_gop;  /* every GOP right after a sequence header */
  gboolean require_slice_per_row;       /* one slice per macroblock row, at column 0 */
  gboolean require_closed_gop;  /* closed_gop set in every GOP header */
  gboolean require_end_code;    /* default TRUE: the stream ends with a sequence end code */
  /* VBV model */
  gboolean check_vbv;           /* default TRUE */
  /* > 0: each picture's vbv_delay must be within this many 90 kHz ticks
   * of the delay the model gives it (constant rate streams only) */
  guint vbv_delay_tolerance;
  /* default TRUE: parse and check every macroblock (FALSE: slice headers
   * and each slice's first address only, as a quick structural check) */
  gboolean check_macroblocks;
  /* >= 0: the first GOP's time_code, in frames at its nominal rate, and
   * every later one the display time of the pictures before it; -1: no
   * time code is checked */
  gint64 first_time_code;
} MpegCheckOptions;

/* MPEG-2 profile_identification (13818-2 table 8-2), and the profiles of
 * the escaped profile_and_level_indication codes (table 8-3) */
typedef enum
{
  MPEGCHECK_PROFILE_NONE = 0,   /* MPEG-1, or a reserved code */
  MPEGCHECK_PROFILE_HIGH = 1,
  MPEGCHECK_PROFILE_SPATIAL = 2,
  MPEGCHECK_PROFILE_SNR = 3,
  MPEGCHECK_PROFILE_MAIN = 4,
  MPEGCHECK_PROFILE_SIMPLE = 5,
  MPEGCHECK_PROFILE_422 = 8,    /* escaped: 0x85, 0x82 */
  MPEGCHECK_PROFILE_MULTIVIEW = 9,      /* escaped: 0x8E, 0x8D, 0x8B, 0x8A */
} MpegCheckProfile;

/* MPEG-2 level_identification (13818-2 table 8-4) */
typedef enum
{
  MPEGCHECK_LEVEL_NONE = 0,     /* MPEG-1, or a reserved code */
  MPEGCHECK_LEVEL_HIGH = 4,
  MPEGCHECK_LEVEL_HIGH_1440 = 6,
  MPEGCHECK_LEVEL_MAIN = 8,
  MPEGCHECK_LEVEL_LOW = 10,
} MpegCheckLevel;

/* chroma_format (13818-2 table 6-5); MPEG-1 is 4:2:0 */
#define MPEGCHECK_CHROMA_420 1
#define MPEGCHECK_CHROMA_422 2
#define MPEGCHECK_CHROMA_444 3

/* picture_structure (13818-2 table 6-14) */
#define MPEGCHECK_TOP_FIELD 1
#define MPEGCHECK_BOTTOM_FIELD 2
#define MPEGCHECK_FRAME 3

typedef struct
{
  guint width, height;          /* MPEG-2: with the size extensions */
  /* MPEG-1: pel_aspect_ratio, 1..14; MPEG-2: aspect_ratio_information,
   * 1..4 (square samples, 4:3, 16:9, 2.21:1 display) */
  guint aspect_code;
  guint frame_rate_code;        /* 1..8 */
  /* from frame_rate_code (MPEG-2: times (frame_rate_extension_n + 1) /
   * (frame_rate_extension_d + 1)); 0/1 when invalid */
  gint fps_n, fps_d;
  /* units of 400 bit/s (MPEG-2: bit_rate_extension << 18 | bit_rate_value);
   * MPEG-1 0x3FFFF: variable */
  guint bit_rate_code;
  /* units of 16384 bits (MPEG-2: vbv_buffer_size_extension << 10 |
   * vbv_buffer_size_value) */
  guint vbv_buffer_size_code;
  gboolean constrained;
  gboolean load_intra_matrix, load_non_intra_matrix;
  guint8 intra_matrix[64], non_intra_matrix[64];        /* zigzag order, as sent */
  guint first_picture;          /* index of its first picture */
  guint n_pictures;
  /* MPEG-2: the sequence header was followed by a sequence_extension. The
   * fields below are 0 in MPEG-1, but for chroma_format (4:2:0) and
   * progressive_sequence (1), which are what MPEG-1 has. */
  gboolean mpeg2;
  guint profile_and_level;      /* profile_and_level_indication, 8 bits */
  MpegCheckProfile profile;
  MpegCheckLevel level;
  gboolean progressive_sequence;
  guint chroma_format;          /* MPEGCHECK_CHROMA_* */
  gboolean low_delay;
  guint frame_rate_extension_n, frame_rate_extension_d;
  /* sequence_display_extension, the last one of the sequence */
  gboolean display_extension;   /* one was present */
  guint video_format;           /* 0 component .. 5 unspecified */
  gboolean colour_description;  /* the three values below were sent */
  guint colour_primaries, transfer_characteristics, matrix_coefficients;
  guint display_width, display_height;
  gboolean scalable;            /* a sequence_scalable_extension: unsupported */
} MpegCheckSequence;

typedef struct
{
  guint index;                  /* coded order, over the whole stream */
  guint sequence, gop;          /* indices */
  guint temporal_reference;
  guint coding_type;            /* 1 I, 2 P, 3 B, 4 D */
  guint vbv_delay;
  guint forward_f_code, backward_f_code;        /* 0 when absent */
  gboolean full_pel_forward, full_pel_backward;
  guint n_slices;
  /* slices' quantizer_scale (MPEG-2: quantiser_scale_code) */
  guint slice_quant_min, slice_quant_max;
  /* the largest of the slices' quantisers in MPEG-1's quantizer_scale
   * units (MPEG-2: quantiser_scale / 2, rounded up) */
  guint slice_step_max;
  guint64 offset;               /* of the picture start code */
  guint64 au_start, au_end;     /* bytes removed from the VBV with it */
  guint64 bits;                 /* (au_end - au_start) * 8 */
  /* VBV model; meaningful when the result's vbv_simulated is set */
  gdouble decode_time;          /* s, from the start of its sequence */
  gdouble fullness_before;      /* bits just before its removal */
  gdouble fullness_after;
  gdouble model_vbv_delay;      /* 90 kHz ticks, constant rate rule */
  /* macroblock layer; counts only what was parsed before any syntax error
   * in a slice ended its parsing */
  guint n_mb_coded;             /* macroblocks present in the stream */
  guint n_mb_skipped;
  guint n_mb_intra;
  guint n_mb_forward;           /* coded with a forward vector only */
  guint n_mb_backward;          /* B: backward vector only */
  guint n_mb_interpolated;      /* B: both vectors */
  guint n_mb_zero_vector;       /* P: coded_block_pattern, no vector */
  guint n_mb_pattern;           /* non-intra with a coded_block_pattern */
  guint n_mb_no_pattern;        /* non-intra, prediction only */
  /* P: copies of the reference where they lie, skipped or coded with
   * the zero vector (frame prediction) and no coded_block_pattern */
  guint n_mb_copies;
  guint n_mb_quant;             /* with their own quantizer_scale */
  guint n_blocks;               /* coded blocks, intra ones included */
  guint n_coefficients;         /* run/level pairs (intra DCs not counted) */
  guint n_ac_coefficients;      /* of those, at scan positions 1 and up */
  guint n_escapes;
  guint64 mb_bits;              /* bits of the macroblocks (no headers) */
  guint max_mb_bits;
  guint max_vector;             /* largest |component| of a vector, half-pels */
  gboolean mb_syntax_error;     /* a slice could not be parsed to its end */
  /* MPEG-2: picture_coding_extension (0 for MPEG-1 pictures, and where the
   * extension is missing) */
  gboolean coding_extension;    /* it was present */
  /* [forward, backward][horizontal, vertical]; 15: unused */
  guint f_code[2][2];
  guint intra_dc_precision;     /* 0..3: 8..11 bits */
  guint picture_structure;      /* MPEGCHECK_TOP_FIELD .. MPEGCHECK_FRAME */
  gboolean top_field_first;
  gboolean frame_pred_frame_dct;
  gboolean concealment_motion_vectors;
  gboolean q_scale_type;        /* 1: non-linear quantiser_scale */
  gboolean intra_vlc_format;    /* 1: intra blocks use DCT table one (B.15) */
  gboolean alternate_scan;
  gboolean repeat_first_field;
  gboolean chroma_420_type;
  gboolean progressive_frame;
  gboolean composite_display;   /* composite_display_flag */
  gboolean quant_matrix_extension;      /* a quant_matrix_extension followed */
  guint n_mb_field_motion;      /* field-based prediction in a frame picture */
  guint n_mb_dual_prime;
  guint n_mb_field_dct;         /* dct_type 1 */
  guint n_mb_concealment;       /* intra with concealment motion vectors */
} MpegCheckPicture;

typedef struct
{
  GArray *sequences;            /* MpegCheckSequence, one per sequence
                                 * (repeated headers are not new ones) */
  GArray *pictures;             /* MpegCheckPicture */
  guint n_gops, n_slices, n_seq_headers;
  guint64 n_macroblocks;        /* coded and skipped, over all pictures */
  guint n_type[5];              /* pictures by coding type (1..4) */
  gboolean end_code;            /* the stream ends with a sequence end code */
  guint64 total_bytes;
  guint64 max_picture_bits, min_picture_bits;
  gdouble average_bitrate;      /* bit/s over the pictures' display time
                                 * at the first sequence's frame rate; 0
                                 * if unknown */
  /* VBV */
  gboolean vbv_simulated;
  gboolean vbv_buffer_full_rule;        /* vbv_delay 0xFFFF: "buffer full" start */
  gdouble vbv_min_fullness, vbv_max_fullness;   /* bits, before removals */
  guint n_underflows, n_overflows;
  gint first_underflow, first_overflow; /* picture index, -1: none */
  gdouble vbv_delay_max_error;  /* ticks, signalled minus model, absolute */
  /* findings */
  GPtrArray *errors;            /* gchar *: violations; none = passed */
  GPtrArray *notes;             /* gchar *: remarks that are not violations */
} MpegCheckResult;

void mpegcheck_options_init (MpegCheckOptions * opts);

/* Checks @size bytes at @data; @opts NULL: the defaults. Never fails:
 * whatever is wrong with the stream is in the result's errors. */
MpegCheckResult *mpegcheck_run (const guint8 * data, gsize size,
    const MpegCheckOptions * opts);
/* The same on a file; NULL and @error set when it cannot be read. */
MpegCheckResult *mpegcheck_run_file (const gchar * path,
    const MpegCheckOptions * opts, GError ** error);

gboolean mpegcheck_passed (const MpegCheckResult * r);
/* A readable report; @trace adds one line per picture (size and VBV). */
gchar *mpegcheck_report (const MpegCheckResult * r, gboolean trace);
/* The errors, one per line ("" when none); g_free() it. */
gchar *mpegcheck_errors_text (const MpegCheckResult * r);
void mpegcheck_result_free (MpegCheckResult * r);

/* frame_rate_code to a fraction; FALSE for a reserved code. */
gboolean mpegcheck_frame_rate (guint code, gint * fps_n, gint * fps_d);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (MpegCheckResult, mpegcheck_result_free);

G_END_DECLS
