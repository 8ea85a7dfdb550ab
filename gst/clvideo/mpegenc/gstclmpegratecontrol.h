/* gst-clvideo: MPEG-1 and MPEG-2 rate control with a VBV buffer model
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#pragma once

#include <glib.h>
#include "gstclmpegheaders.h"

G_BEGIN_DECLS

/**
 * GstClMpegRateControl:
 *
 * Picks each picture's quantiser: the constant one, or (with a bit rate)
 * one from a target per picture after TM5 step 1 (GOP budget shared by
 * I, P and B pictures in proportion to their complexities, bits x
 * quantiser) corrected by the fullness of the decoder's buffer. Either
 * way an I picture takes the P pictures' quantiser divided by
 * @ip_factor: every P picture of its GOP predicts from it, so its quality
 * pays more than once; a B picture, which nothing predicts from, takes it
 * times @pb_factor. How much more depends on the content: where the P
 * pictures copy most of their reference (a static camera) the I
 * picture's quality lasts the whole GOP, where most of the picture
 * changes it is soon replaced, so the automatic factor is 1 + the share
 * of the P pictures' macroblocks that copy it (zero vector, no level)
 * since the last I picture. Runs the VBV model
 * of 11172-2 annex C (constant rate: the buffer fills at the bit rate,
 * each picture leaves it at once at its decoding time): a picture larger
 * than what the buffer holds at its decoding time must be coded again
 * with a coarser quantiser (underflow), and a picture so small that the
 * buffer would overflow before the next one is padded with zero bytes
 * (stuffing before the next start code). The fullness is also kept below
 * what a 16-bit vbv_delay can express.
 *
 * The next I picture is planned for: the P pictures before it share what
 * the buffer will hold beyond the I picture's estimate (its last
 * complexity at the quantiser it will get), so their budget falls as it
 * approaches; and no picture may take so much that the buffer cannot
 * hold the I picture's DC levels (the last I picture of DC levels only,
 * or a smaller last I picture, stands for them) when it comes, the pictures in between coded as cheaply as the last
 * ones were (at DC levels only if it came to that). A picture over that
 * limit is coded again, coarser.
 *
 * With a peak rate the rate is variable (vbv_delay 0xFFFF, 13818-2 annex
 * C): the buffer fills at the peak rate until it is full, and the first
 * picture is decoded once it is; a picture larger than what the buffer
 * holds at its decoding time is coded again, coarser, as above, and
 * nothing overflows. With a bit rate too, the targets are the same as at
 * a constant rate, for the bit rate on average; with a constant
 * quantiser nothing else changes it.
 */
typedef struct {
  /* settings */
  gdouble bit_rate;             /* bit/s; 0: constant quantiser */
  gdouble peak_rate;            /* variable rate: bit/s into the buffer
                                 * while not full; 0: constant rate (or no
                                 * model with a constant quantiser) */
  gdouble buffer_size;          /* bits */
  gdouble frame_rate;           /* pictures a second, on average */
  /* seconds from the next picture's decoding to the one after's (0: a
   * picture period); gst_cl_mpeg_rate_control_set_interval() */
  gdouble interval;
  guint gop_size;
  guint const_quant;
  gboolean non_linear;          /* gst_cl_mpeg_rate_control_set_non_linear */
  guint max_quant;              /* the largest quantiser */
  /* MPEG-2's low_delay: a field period (s), 0 without low_delay
   * (gst_cl_mpeg_rate_control_set_low_delay) */
  gdouble low_delay_field;
  gdouble ip_factor;            /* P quantiser / I quantiser, >= 1 */
  gboolean auto_ip;             /* ip_factor chosen per GOP */
  /* automatic: the factor the copies give, before the stream's end cuts
   * it (gst_cl_mpeg_rate_control_set_i_reach) */
  gdouble ip_copies;
  /* automatic: ip_copies is a guess (GST_CL_MPEG_FIRST_IP_FACTOR before
   * any P picture; at a cut, the scene before's) until
   * gst_cl_mpeg_rate_control_learn_ip_factor or the next I picture */
  gboolean ip_guessed;
  guint64 i_reach;              /* pictures from the next I picture to the
                                 * stream's end; 0: unknown */
  /* P pictures' macroblocks since the last I picture's quantiser, and
   * those that copy their reference
   * (gst_cl_mpeg_rate_control_count_copies) */
  guint64 p_mbs, p_copies;
  guint b_frames;               /* B pictures between anchors */
  guint probe_b;                /* ... between the GOP's first two P
                                 * pictures (gst_cl_mpeg_gop_position_is_b) */
  gboolean open_gop;            /* the GOPs may end with B pictures */
  gdouble pb_factor;            /* B quantiser / P quantiser, >= 1 */
  gdouble forced_bits;          /* largest I picture of DC levels only */
  /* constant rate: the fullness (fraction of the buffer) when the first
   * picture is removed, 0: the encoder's choice (a variable rate's model
   * starts full); any model: the fullness the picture after the last
   * would find (bits), 0: none, once the pictures left are known
   * (gst_cl_mpeg_rate_control_set_end) */
  gdouble initial_fullness;
  gdouble final_bits;
  gint64 pictures_left;         /* -1: unknown */
  gdouble skip_bits;            /* largest P picture of skipped macroblocks */
  /* model */
  gboolean started;
  gdouble fullness;             /* bits in the buffer before the next removal */
  gdouble max_fullness;
  gdouble xi, xp, xb;           /* complexities */
  gdouble gop_bits;             /* budget left in the GOP */
  /* pictures left in the GOP: I, P and B (the P count includes the B
   * pictures, which the buffer's planning takes as P pictures), B */
  gint gop_left_i, gop_left_p, gop_left_b;
  guint last_quant;
  gdouble last_i_bits;          /* size of the last I picture */
  gdouble dc_i_bits;            /* ... of the last one of DC levels only */
  gdouble p_min_bits;           /* the cheapest P picture lately */
  gdouble last_p_quant;         /* mean quantiser of the last P picture */
  gboolean p_last_resort;       /* ... which took DC levels only or less */
  /* totals */
  guint64 pictures, bits, stuffing_bits, reencodes;
} GstClMpegRateControl;

/* Bits of the largest picture the encoder may be forced to write at
 * @mb_width x @mb_height macroblocks: the last resort for an I picture
 * that fits at no quantiser is one of DC levels only, which is written
 * whatever its size. The bound counts every header in front of it and
 * each DC level at its longest code. */
guint64 gst_cl_mpeg_rate_control_forced_picture_bits (guint mb_width,
    guint mb_height);

/* The smallest VBV buffer (bits) for @bit_rate and @frame_rate: two
 * pictures' worth of bits (at one picture's worth every picture would
 * have to be exactly that size, so the rate control needs the second as
 * room), and @forced_picture_bits, so that the largest forced picture fits,
 * where the bit rate can bring that many bits in within the longest
 * vbv_delay (more would never be in the buffer). */
guint64 gst_cl_mpeg_rate_control_min_buffer_bits (guint64 bit_rate,
    gdouble frame_rate, guint64 forced_picture_bits);

/* Bits of a P picture of @mb_width x @mb_height macroblocks whose
 * macroblocks are all skipped (the first and last of each slice coded
 * with a zero vector and no levels), at most: the cheapest P picture. */
guint64 gst_cl_mpeg_rate_control_skipped_picture_bits (guint mb_width,
    guint mb_height);

/* Whether the picture at @pos (from its I picture, 0) of a GOP of
 * @gop_size is a B picture with @b_frames between anchors, but
 * @probe_b between its first anchor after the I picture and its second
 * (adaptive B pictures try the other spacing there): a closed GOP's last
 * picture is an anchor (a P picture); an @open one's last may be B
 * pictures, coded after the next I picture and predicted from it too. */
gboolean gst_cl_mpeg_gop_position_is_b (guint gop_size, guint b_frames,
    guint probe_b, gboolean open, guint pos);

/* The I pictures' factor before a GOP's P pictures have shown how much
 * they copy (automatic factor) */
#define GST_CL_MPEG_FIRST_IP_FACTOR 1.4

/* @bit_rate 0: constant @quant (of P pictures), under a buffer of
 * @buffer_bits that fills at @peak_rate (0: none); else @bit_rate on
 * average, constant (@peak_rate 0) or variable under @peak_rate, and
 * @buffer_bits at least gst_cl_mpeg_rate_control_min_buffer_bits() at
 * the rate the buffer fills, for pictures of @mb_width x @mb_height
 * macroblocks; I pictures at the P pictures' quantiser over @ip_factor,
 * 0: chosen per GOP (see GstClMpegRateControl). */
void gst_cl_mpeg_rate_control_init (GstClMpegRateControl * rc,
    guint64 bit_rate, guint64 peak_rate, guint64 buffer_bits,
    gdouble frame_rate, guint gop_size, guint b_frames, guint quant,
    gdouble ip_factor, gdouble pb_factor, guint mb_width, guint mb_height);
/* A new sequence starts: the decoder's buffer starts empty, no end is
 * planned (gst_cl_mpeg_rate_control_set_end), and the automatic I
 * picture factor starts over. */
void gst_cl_mpeg_rate_control_restart (GstClMpegRateControl * rc);
/* @pictures are left to code, and the buffer must then hold @final_bits
 * for the picture after them (a piece of a chunked encode, joined to one
 * that starts there: a variable rate's starts full); the pictures before
 * are kept small enough for it, and at a constant rate the last is padded
 * with zero stuffing down to it. */
void gst_cl_mpeg_rate_control_set_end (GstClMpegRateControl * rc,
    guint64 pictures, gdouble final_bits);

/* The next picture's decoding is @seconds before the one after it (0: a
 * picture period, 1 / frame_rate): what the buffer takes in meanwhile.
 * Pictures shown for different times, as 3:2 pulldown's, have different
 * ones (13818-2 C.9); the planning takes the average. */
void gst_cl_mpeg_rate_control_set_interval (GstClMpegRateControl * rc,
    gdouble seconds);

/* The quantisers from here on are those MPEG-2's non-linear scale codes,
 * to GST_CL_MPEG_MAX_QUANT_NON_LINEAR (else the linear ones, as after
 * gst_cl_mpeg_rate_control_init()) */
void gst_cl_mpeg_rate_control_set_non_linear (GstClMpegRateControl * rc,
    gboolean non_linear);

/* The sequence has low_delay set, with fields of @field_seconds (0: it
 * has not): a picture not all in the buffer at its decoding time is
 * decoded at the first field period at which it is (13818-2 C.7) */
void gst_cl_mpeg_rate_control_set_low_delay (GstClMpegRateControl * rc,
    gdouble field_seconds);

/* I pictures from the next one on at the P pictures' quantiser over
 * @ip_factor, 0: chosen per GOP (from the factor in use) */
void gst_cl_mpeg_rate_control_set_ip_factor (GstClMpegRateControl * rc,
    gdouble ip_factor);

/* The stream ends @pictures pictures from the next I picture on, that
 * one included (0: not known): with the automatic factor, an I picture
 * with fewer P pictures after it than a GOP has is coded less finely
 * (fewer pictures show what it gains) */
void gst_cl_mpeg_rate_control_set_i_reach (GstClMpegRateControl * rc,
    guint64 pictures);

/* A P picture of @mbs macroblocks was coded, @copies of them copies of
 * their reference (zero vector, no level): the automatic I picture
 * factor follows them. */
void gst_cl_mpeg_rate_control_count_copies (GstClMpegRateControl * rc,
    guint mbs, guint copies);

/* Whether the automatic factor is a guess: the first, no P picture
 * counted since the sequence started, or one marked so
 * (gst_cl_mpeg_rate_control_guess_ip_factor) */
gboolean gst_cl_mpeg_rate_control_guesses_ip_factor (const
    GstClMpegRateControl * rc);

/* The automatic factor just taken is a guess: a cut coded as an I
 * picture took the scene before's */
void gst_cl_mpeg_rate_control_guess_ip_factor (GstClMpegRateControl * rc);

/* In place of a guess (the first, or at a cut the scene before's
 * factor): the copies of the P picture after the I picture, @copies of
 * its @mbs macroblocks, as if the GOP before had been counted (the I
 * picture then asks for its quantiser again) */
void gst_cl_mpeg_rate_control_learn_ip_factor (GstClMpegRateControl * rc,
    guint mbs, guint copies);

/* Quantiser for the next picture, of @coding_type (GST_CL_MPEG_PICTURE_I,
 * _P or _B); @gop_start: first of its GOP. */
guint gst_cl_mpeg_rate_control_quant (GstClMpegRateControl * rc,
    guint coding_type, gboolean gop_start);
/* About the quantiser the next picture of @coding_type will get, before
 * it is asked for: with a bit rate, from the last P picture's (the
 * constant one before there is one); the model is left as it is. */
gdouble gst_cl_mpeg_rate_control_expected_quant (const GstClMpegRateControl
    * rc, guint coding_type);
/* vbv_delay of the next picture, @header_bits being its bits up to and
 * including its picture start code (0xFFFF without a bit rate). */
guint gst_cl_mpeg_rate_control_vbv_delay (GstClMpegRateControl * rc,
    guint64 header_bits);
/* 0 when a picture of @bits fits the buffer at its decoding time and
 * leaves room for the next I picture, else a coarser quantiser to code it
 * again with (larger than @quant; the largest + 1 when none is left: DC
 * levels only, or after @dc_only skipped macroblocks). A P picture at
 * the largest quantiser that takes much more than its share before the
 * next I picture also gets that (unless @dc_only): the next ones would
 * have to be skipped. */
guint gst_cl_mpeg_rate_control_check (GstClMpegRateControl * rc,
    guint coding_type, gboolean dc_only, guint64 bits, guint quant);
/* Whether a picture of @bits is more than the buffer holds at its
 * decoding time: written as it is, it would underflow the buffer. */
gboolean gst_cl_mpeg_rate_control_underflows (GstClMpegRateControl * rc,
    guint64 bits);
/* With low_delay, the field periods a picture of @bits waits for the rest
 * of itself after its decoding time (0 where it fits, and without
 * low_delay); the buffer's model moves on to its actual decoding time,
 * as do the vbv_delay and the pictures after it. */
guint gst_cl_mpeg_rate_control_wait (GstClMpegRateControl * rc,
    guint64 bits);
/* Zero bits (a multiple of 8) to append to a picture of @bits so that the
 * buffer does not overflow. */
guint64 gst_cl_mpeg_rate_control_stuffing (GstClMpegRateControl * rc,
    guint64 bits);
/* The picture of @bits and @stuffing_bits after them, coded with the
 * mean quantiser @quant, leaves the buffer; @last_resort: coded with DC
 * levels only or skipped macroblocks, which says nothing of its
 * complexity. */
void gst_cl_mpeg_rate_control_update (GstClMpegRateControl * rc,
    guint coding_type, guint64 bits, guint64 stuffing_bits, gdouble quant,
    gboolean last_resort);

G_END_DECLS
