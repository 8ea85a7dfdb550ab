/* gst-clvideo: MPEG-1 and MPEG-2 rate control with a VBV buffer model
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "gstclmpegratecontrol.h"

#include <math.h>

/* the first picture is decoded once the buffer is this full */
#define INITIAL_FULLNESS 0.8
/* vbv_delay is 16 bits of 90 kHz ticks */
#define MAX_DELAY_S (65000.0 / 90000.0)

/* sequence, GOP and picture (I) headers, byte-aligned, and the sequence
 * end code */
#define HEADERS_BITS (96 + 64 + 64 + 32)
/* slice start code, quantiser_scale, extra_bit_slice and its alignment */
#define SLICE_BITS (32 + 5 + 1 + 7)
/* an intra macroblock of DC levels only: address increment 1, type
 * intra with quantiser (2) and quantiser_scale (5), four luma blocks of
 * DC size code (7 at most) + differential (8 at most) + end_of_block (2),
 * two chroma blocks the same with size codes of 8 at most */
#define DC_MACROBLOCK_BITS (1 + 2 + 5 + 4 * (7 + 8 + 2) + 2 * (8 + 8 + 2))
/* a P picture's header, byte-aligned, and the sequence end code */
#define P_HEADER_BITS (72 + 32)
/* the first and last macroblock of a slice of skipped ones: address
 * increment (1; the last's up to 11 bits of code and 11 of escape per 33
 * skipped), type forward only, not coded (3), zero vector (2) */
#define SKIP_ENDS_BITS (1 + 3 + 2 + 11 + 3 + 2)
#define SKIP_ESCAPE_BITS 11
/* the DC levels of the next I picture (for which the last one stands)
 * may take this much more */
#define I_FLOOR_MARGIN 1.05
/* the I picture the P pictures leave room for: its estimate, and this
 * much more, at most this much of the buffer */
#define I_MARGIN 1.1
#define I_MAX_SHARE 0.95
/* a P picture at quantiser 31 over this many times its share takes DC
 * levels only */
#define P_SHARE_OVER 2.0
/* the P pictures up to the next I picture may cost this much more than
 * the smallest lately (those just after an I picture cost more) */
#define P_MIN_MARGIN 1.5

guint64
gst_cl_mpeg_rate_control_forced_picture_bits (guint mb_width, guint mb_height)
{
  /* at most one slice per macroblock row */
  return HEADERS_BITS + (guint64) mb_height * SLICE_BITS +
      (guint64) mb_width * mb_height * DC_MACROBLOCK_BITS;
}

guint64
gst_cl_mpeg_rate_control_min_buffer_bits (guint64 bit_rate,
    gdouble frame_rate, guint64 forced_picture_bits)
{
  gdouble two_pictures = ceil (2.0 * bit_rate / frame_rate);
  gdouble forced = MIN ((gdouble) forced_picture_bits,
      floor (bit_rate * MAX_DELAY_S));

  return (guint64) MAX (two_pictures, forced);
}

guint64
gst_cl_mpeg_rate_control_skipped_picture_bits (guint mb_width,
    guint mb_height)
{
  /* at most one slice per macroblock row */
  return P_HEADER_BITS + (guint64) mb_height * (SLICE_BITS + SKIP_ENDS_BITS +
      SKIP_ESCAPE_BITS * (mb_width / 33));
}

gboolean
gst_cl_mpeg_gop_position_is_b (guint gop_size, guint b_frames,
    guint probe_b, gboolean open, guint pos)
{
  /* the first P picture, and the second */
  guint first = b_frames + 1, second = first + probe_b + 1;

  if (pos == 0 || (!open && pos + 1 >= gop_size))
    return FALSE;
  if (pos <= first)
    return pos != first;
  if (pos <= second)
    return pos != second;
  return (pos - second) % (b_frames + 1) != 0;
}

/* B pictures in a whole GOP */
static gint
gop_b_pictures (GstClMpegRateControl * rc)
{
  guint pos;
  gint n = 0;

  for (pos = 1; pos < rc->gop_size; pos++)
    n += gst_cl_mpeg_gop_position_is_b (rc->gop_size, rc->b_frames,
        rc->probe_b, rc->open_gop, pos);
  return n;
}

void
gst_cl_mpeg_rate_control_init (GstClMpegRateControl * rc, guint64 bit_rate,
    guint64 peak_rate, guint64 buffer_bits, gdouble frame_rate,
    guint gop_size, guint b_frames, guint quant, gdouble ip_factor,
    gdouble pb_factor, guint mb_width, guint mb_height)
{
  rc->bit_rate = bit_rate;
  rc->peak_rate = peak_rate;
  rc->forced_bits =
      gst_cl_mpeg_rate_control_forced_picture_bits (mb_width, mb_height);
  rc->skip_bits =
      gst_cl_mpeg_rate_control_skipped_picture_bits (mb_width, mb_height);
  rc->buffer_size = buffer_bits;
  rc->frame_rate = frame_rate > 0 ? frame_rate : 25.0;
  rc->gop_size = MAX (gop_size, 1);
  rc->const_quant = CLAMP (quant, 1, GST_CL_MPEG_MAX_QUANT);
  rc->non_linear = FALSE;
  rc->low_delay_field = 0;
  rc->max_quant = GST_CL_MPEG_MAX_QUANT;
  rc->auto_ip = FALSE;
  rc->ip_factor = rc->ip_copies = 0;
  gst_cl_mpeg_rate_control_set_ip_factor (rc, ip_factor);
  rc->b_frames = rc->probe_b = b_frames;
  rc->pb_factor = MAX (pb_factor, 1.0);
  rc->pictures = rc->bits = rc->stuffing_bits = rc->reencodes = 0;
  rc->final_bits = 0;
  gst_cl_mpeg_rate_control_restart (rc);
}

void
gst_cl_mpeg_rate_control_set_end (GstClMpegRateControl * rc,
    guint64 pictures, gdouble final_bits)
{
  rc->pictures_left = pictures;
  rc->final_bits = MIN (final_bits, rc->max_fullness);
}

void
gst_cl_mpeg_rate_control_restart (GstClMpegRateControl * rc)
{
  rc->started = FALSE;
  rc->interval = 0;
  /* the automatic I picture factor learns afresh, as a new encoder's */
  if (rc->auto_ip)
    rc->ip_factor = rc->ip_copies = GST_CL_MPEG_FIRST_IP_FACTOR;
  rc->ip_guessed = rc->auto_ip;
  rc->i_reach = 0;
  rc->p_mbs = rc->p_copies = 0;
  /* (the end is planned again for the new sequence) */
  rc->pictures_left = -1;
  if (rc->peak_rate > 0) {
    /* variable rate: the first picture is decoded with the buffer full */
    rc->max_fullness = rc->fullness = rc->buffer_size;
  } else {
    /* the buffer the stream signals, never more: the encoder gives one of
     * at least two pictures (gst_cl_mpeg_rate_control_min_buffer_bits) */
    rc->max_fullness = MIN (rc->buffer_size, rc->bit_rate * MAX_DELAY_S);
    /* the first picture, an I picture, fits with DC levels only (unless
     * the fullness is set: a piece of a chunked encode starts where the
     * one before ended) */
    rc->fullness = rc->initial_fullness > 0 ?
        rc->max_fullness * MIN (rc->initial_fullness, 1.0) :
        MIN (MAX (rc->max_fullness * INITIAL_FULLNESS, rc->forced_bits),
        rc->max_fullness);
  }
  /* TM5's initial complexities */
  rc->xi = 160.0 * rc->bit_rate / 115.0;
  rc->xp = 60.0 * rc->bit_rate / 115.0;
  rc->xb = 42.0 * rc->bit_rate / 115.0;
  rc->gop_bits = 0;
  rc->gop_left_i = rc->gop_left_p = rc->gop_left_b = 0;
  rc->last_quant = rc->const_quant;
  rc->last_p_quant = 0;
  rc->p_last_resort = FALSE;
  /* nothing is known of the content: the worst case */
  rc->last_i_bits = rc->dc_i_bits = rc->forced_bits;
  rc->p_min_bits = rc->skip_bits;
}

/* The rate at which bits enter the buffer while it is not full: a
 * variable rate's peak, else the bit rate */
static gdouble
inflow_rate (GstClMpegRateControl * rc)
{
  return rc->peak_rate > 0 ? rc->peak_rate : rc->bit_rate;
}

/* Bits that enter the buffer between two pictures' decoding times (a
 * variable rate's peak: at most, until the buffer is full) */
static gdouble
inflow_bits (GstClMpegRateControl * rc)
{
  return inflow_rate (rc) / rc->frame_rate;
}

/* Bits that enter the buffer from the next picture's decoding to the one
 * after's, where the rate is constant */
static gdouble
interval_bits (GstClMpegRateControl * rc, gdouble rate)
{
  return rate * (rc->interval > 0 ? rc->interval : 1.0 / rc->frame_rate);
}

void
gst_cl_mpeg_rate_control_set_interval (GstClMpegRateControl * rc,
    gdouble seconds)
{
  rc->interval = MAX (seconds, 0.0);
}

/* Whether the end of the stream is planned for: a buffer model, the
 * pictures left known, a final fullness set */
static gboolean
end_planned (GstClMpegRateControl * rc)
{
  return (rc->bit_rate > 0 || rc->peak_rate > 0) && rc->final_bits > 0 &&
      rc->pictures_left > 0;
}

/* The most bits the next picture may take so that the buffer holds
 * final_bits after the last, the pictures in between @later_bits each */
static gdouble
end_limit_bits (GstClMpegRateControl * rc, gdouble later_bits)
{
  gdouble k = rc->pictures_left;

  return rc->fullness + k * inflow_bits (rc) - rc->final_bits -
      (k - 1) * later_bits;
}

/* Pictures from the next one to code up to the next I picture (that
 * one excluded), by the GOP's count. */
static gdouble
pictures_to_next_i (GstClMpegRateControl * rc, gboolean intra)
{
  return MAX (rc->gop_left_p + (intra ? 1 : 0), 1);
}

/* What the buffer must hold when the next I picture is decoded: at least
 * enough for its DC levels, for which the last I picture of DC levels
 * only stands, or the last I picture if smaller (its DC levels and more),
 * as far as the worst case goes. */
static gdouble
i_floor (GstClMpegRateControl * rc)
{
  return MIN (MIN (rc->last_i_bits, rc->dc_i_bits) * I_FLOOR_MARGIN,
      MIN (rc->forced_bits, rc->max_fullness));
}

/* The most bits the next picture may take: what the buffer holds at its
 * decoding time, and what leaves i_floor() for the next I picture with
 * the P pictures in between of @later_p_bits each. */
static gdouble
limit_bits (GstClMpegRateControl * rc, gboolean intra, gdouble later_p_bits)
{
  gdouble k = pictures_to_next_i (rc, intra);
  gdouble ahead = rc->fullness + k * inflow_bits (rc) - i_floor (rc) -
      (k - 1) * later_p_bits;

  return MIN (rc->fullness, ahead);
}

/* ... with the P pictures in between as small as the smallest lately,
 * and a margin */
static gdouble
likely_limit_bits (GstClMpegRateControl * rc, gboolean intra)
{
  return limit_bits (rc, intra, rc->p_min_bits * P_MIN_MARGIN);
}

/* The share of the next P picture, the ones up to the next I picture
 * alike, of what the buffer will hold beyond what that I picture needs:
 * its complexity at the quantiser it will get (over ip_factor of the P
 * pictures'), a margin above, as far as the buffer goes. */
static gdouble
p_share_bits (GstClMpegRateControl * rc)
{
  gdouble k = pictures_to_next_i (rc, FALSE);
  gdouble q = rc->last_p_quant > 0 ? rc->last_p_quant : rc->last_quant;
  gdouble need;

  q = CLAMP (q / rc->ip_factor, 1.0, rc->max_quant);
  need = MAX (rc->xi / q, i_floor (rc)) * I_MARGIN;
  need = MIN (need, MAX (rc->max_fullness * I_MAX_SHARE, i_floor (rc)));
  return (rc->fullness + k * inflow_bits (rc) - need) / k;
}

/* The quantiser of pictures of @coding_type against the P pictures' */
static gdouble
type_factor (const GstClMpegRateControl * rc, guint coding_type)
{
  if (coding_type == GST_CL_MPEG_PICTURE_I)
    return 1.0 / rc->ip_factor;
  return coding_type == GST_CL_MPEG_PICTURE_B ? rc->pb_factor : 1.0;
}

gdouble
gst_cl_mpeg_rate_control_expected_quant (const GstClMpegRateControl * rc,
    guint coding_type)
{
  gdouble q = rc->bit_rate > 0 && rc->last_p_quant > 0 ?
      rc->last_p_quant : rc->const_quant;

  return MIN (q * type_factor (rc, coding_type), rc->max_quant);
}

void
gst_cl_mpeg_rate_control_set_ip_factor (GstClMpegRateControl * rc,
    gdouble ip_factor)
{
  /* (automatic: the factor in use until the next I picture chooses) */
  rc->auto_ip = ip_factor == 0;
  if (!rc->auto_ip)
    rc->ip_factor = MAX (ip_factor, 1.0);
  else if (rc->ip_factor < 1.0)
    rc->ip_factor = GST_CL_MPEG_FIRST_IP_FACTOR;
  if (rc->auto_ip && rc->ip_copies < 1.0) {
    rc->ip_copies = rc->ip_factor;
    rc->ip_guessed = TRUE;
  }
}

void
gst_cl_mpeg_rate_control_set_i_reach (GstClMpegRateControl * rc,
    guint64 pictures)
{
  rc->i_reach = pictures;
}

void
gst_cl_mpeg_rate_control_count_copies (GstClMpegRateControl * rc,
    guint mbs, guint copies)
{
  rc->p_mbs += mbs;
  rc->p_copies += MIN (copies, mbs);
}

gboolean
gst_cl_mpeg_rate_control_guesses_ip_factor (const GstClMpegRateControl * rc)
{
  return rc->auto_ip && rc->ip_guessed;
}

void
gst_cl_mpeg_rate_control_guess_ip_factor (GstClMpegRateControl * rc)
{
  rc->ip_guessed = rc->auto_ip;
}

void
gst_cl_mpeg_rate_control_learn_ip_factor (GstClMpegRateControl * rc,
    guint mbs, guint copies)
{
  if (mbs == 0)
    return;
  rc->ip_copies = 1.0 + (gdouble) MIN (copies, mbs) / mbs;
  rc->ip_guessed = FALSE;
}

guint
gst_cl_mpeg_rate_control_quant (GstClMpegRateControl * rc,
    guint coding_type, gboolean gop_start)
{
  gboolean intra = coding_type == GST_CL_MPEG_PICTURE_I;
  gboolean bidir = coding_type == GST_CL_MPEG_PICTURE_B;
  gdouble factor, per_picture, target, ref, q, xi, xb, share;

  /* the automatic factor from the P pictures since the last I picture
   * (none, as in a GOP of I pictures only: the last factor) */
  if (intra && rc->auto_ip) {
    if (rc->p_mbs > 0) {
      rc->ip_copies = 1.0 + (gdouble) rc->p_copies / rc->p_mbs;
      rc->p_mbs = rc->p_copies = 0;
      rc->ip_guessed = FALSE;
    }
    /* what an I picture gains shows in the P pictures after it: the
     * stream's end may leave fewer than a GOP's */
    rc->ip_factor = rc->ip_copies;
    if (rc->i_reach > 0 && rc->gop_size > 1)
      rc->ip_factor = 1.0 + (rc->ip_copies - 1.0) * MIN (1.0,
          (gdouble) (rc->i_reach - 1) / (rc->gop_size - 1));
  }
  factor = type_factor (rc, coding_type);
  if (rc->bit_rate <= 0) {
    q = rc->const_quant * factor;
    return gst_cl_mpeg_coded_quant (lround (q), rc->non_linear);
  }
  per_picture = rc->bit_rate / rc->frame_rate;
  if (gop_start) {
    rc->gop_bits += per_picture * rc->gop_size;
    rc->gop_left_i = 1;
    rc->gop_left_p = rc->gop_size - 1;
    rc->gop_left_b = gop_b_pictures (rc);
  }
  /* with P pictures at quantiser q, I pictures at q / ip_factor and B
   * pictures at q pb_factor the GOP's bits are (left_i xi ip_factor +
   * left_p xp + left_b xb / pb_factor) / q */
  xi = rc->xi * rc->ip_factor;
  xb = rc->xb / rc->pb_factor;
  share = rc->gop_left_i * xi + (rc->gop_left_p - rc->gop_left_b) * rc->xp +
      rc->gop_left_b * xb;
  target = rc->gop_bits * (intra ? xi : bidir ? xb : rc->xp) /
      MAX (share, 1.0);
  /* the decoder's buffer: spend more when it runs full, less when low (at
   * a variable rate it is full whenever the pictures are smaller than the
   * peak: no reason to spend more) */
  ref = rc->max_fullness * 0.6;
  target *= CLAMP (rc->fullness / ref, 0.5, rc->peak_rate > 0 ? 1.0 : 1.5);
  /* the next I picture: spend less as it approaches */
  if (!intra)
    target = MIN (target, p_share_bits (rc));
  target = MAX (target, per_picture / 8);
  /* leave room: a picture must fit what the buffer holds, and leave
   * enough for the next I picture (and the end's fullness) */
  target = MIN (target, likely_limit_bits (rc, intra) * 0.8);
  if (end_planned (rc))
    target = MIN (target, end_limit_bits (rc, rc->p_min_bits *
            P_MIN_MARGIN) * 0.8);
  q = (intra ? rc->xi : bidir ? rc->xb : rc->xp) / MAX (target, 1.0);
  if (rc->last_p_quant > 0) {
    /* bits grow faster than 1 / quantiser as the quantiser falls: a drop
     * of more than a third below the last P picture's (I and B pictures:
     * times their factor) overshoots the target and swings back to coarse,
     * and a rise of more than half starves a picture to make up for one */
    gdouble ref_q = rc->last_p_quant * factor;
    q = CLAMP (q, ref_q * 2.0 / 3.0, ref_q * 1.5);
  }
  /* the largest quantiser was too much for the last P picture: the next
   * starts there (and comes down from it once it is not) */
  if (!intra && rc->p_last_resort)
    q = rc->max_quant;
  rc->last_quant = gst_cl_mpeg_coded_quant (lround (MIN (q, rc->max_quant)),
      rc->non_linear);
  return rc->last_quant;
}

void
gst_cl_mpeg_rate_control_set_non_linear (GstClMpegRateControl * rc,
    gboolean non_linear)
{
  rc->non_linear = non_linear;
  rc->max_quant = non_linear ? GST_CL_MPEG_MAX_QUANT_NON_LINEAR :
      GST_CL_MPEG_MAX_QUANT;
}

void
gst_cl_mpeg_rate_control_set_low_delay (GstClMpegRateControl * rc,
    gdouble field_seconds)
{
  rc->low_delay_field = MAX (field_seconds, 0.0);
}

/* The bits a vbv_delay's tick brings: the precision of its decoding
 * times, within which a picture counts as all there */
static gdouble
tick_bits (GstClMpegRateControl * rc)
{
  return inflow_rate (rc) / 90000.0;
}

guint
gst_cl_mpeg_rate_control_wait (GstClMpegRateControl * rc, guint64 bits)
{
  gdouble rate = inflow_rate (rc);
  gdouble field_bits = rate * rc->low_delay_field, missing;
  guint fields;

  missing = bits - tick_bits (rc) - rc->fullness;
  if (rate <= 0 || field_bits <= 0 || missing <= 0)
    return 0;
  fields = (guint) ceil (missing / field_bits);
  rc->fullness += fields * field_bits;
  return fields;
}

guint
gst_cl_mpeg_rate_control_vbv_delay (GstClMpegRateControl * rc,
    guint64 header_bits)
{
  gdouble d;

  if (rc->bit_rate <= 0 || rc->peak_rate > 0)
    return 0xffff;
  d = floor (90000.0 * (rc->fullness - header_bits) / rc->bit_rate);
  return (guint) CLAMP (d, 0, 0xfffe);
}

guint
gst_cl_mpeg_rate_control_check (GstClMpegRateControl * rc,
    guint coding_type, gboolean dc_only, guint64 bits, guint quant)
{
  gboolean intra = coding_type == GST_CL_MPEG_PICTURE_I;
  gdouble q, limit;

  if (rc->bit_rate <= 0 && rc->peak_rate <= 0)
    return 0;
  if (rc->bit_rate <= 0) {
    /* a constant quantiser under a peak: only what the buffer holds (and
     * at the last picture, what leaves the final fullness) */
    limit = rc->fullness;
    if (end_planned (rc) && rc->pictures_left == 1)
      limit = MIN (limit, end_limit_bits (rc, 0));
    if (bits <= limit)
      return 0;
  } else {
    /* P pictures of DC levels only are skipped (the last resort) only if
     * skipping the ones up to the next I picture would not do */
    limit = dc_only ? limit_bits (rc, intra, rc->skip_bits) :
        likely_limit_bits (rc, intra);
    if (end_planned (rc))
      limit = MIN (limit, end_limit_bits (rc, dc_only ? rc->skip_bits :
              rc->p_min_bits * P_MIN_MARGIN));
    if (bits <= limit) {
      if (!intra && !dc_only && quant >= rc->max_quant &&
          bits > P_SHARE_OVER * MAX (p_share_bits (rc), rc->p_min_bits))
        return rc->max_quant + 1;
      return 0;
    }
  }
  if (quant >= rc->max_quant || limit <= 0)
    return rc->max_quant + 1;
  /* bits go roughly as 1 / quantiser: aim at 85% of what is there */
  q = ceil (quant * bits / (0.85 * limit));
  return gst_cl_mpeg_coded_quant (CLAMP (q, quant + 1, rc->max_quant),
      rc->non_linear);
}

gboolean
gst_cl_mpeg_rate_control_underflows (GstClMpegRateControl * rc,
    guint64 bits)
{
  return (rc->bit_rate > 0 || rc->peak_rate > 0) &&
      bits > rc->fullness + tick_bits (rc);
}

guint64
gst_cl_mpeg_rate_control_stuffing (GstClMpegRateControl * rc, guint64 bits)
{
  gdouble next, excess;

  /* (at a variable rate the buffer stops filling when full) */
  if (rc->bit_rate <= 0 || rc->peak_rate > 0)
    return 0;
  next = rc->fullness - bits + interval_bits (rc, rc->bit_rate);
  excess = next - rc->max_fullness;
  /* the last picture leaves what the picture after it is to find */
  if (end_planned (rc) && rc->pictures_left == 1)
    return (guint64) MAX (floor ((next - rc->final_bits) / 8.0), 0) * 8;
  if (excess <= 0)
    return 0;
  return ((guint64) ceil (excess) + 7) / 8 * 8;
}

void
gst_cl_mpeg_rate_control_update (GstClMpegRateControl * rc,
    guint coding_type, guint64 bits, guint64 stuffing_bits, gdouble quant,
    gboolean last_resort)
{
  gboolean intra = coding_type == GST_CL_MPEG_PICTURE_I;

  rc->pictures++;
  if (rc->pictures_left > 0)
    rc->pictures_left--;
  rc->bits += bits + stuffing_bits;
  rc->stuffing_bits += stuffing_bits;
  if (rc->peak_rate > 0)
    rc->fullness = MIN (rc->fullness - bits + interval_bits (rc,
            rc->peak_rate), rc->buffer_size);
  if (rc->bit_rate <= 0)
    return;
  if (intra) {
    if (!last_resort)
      rc->xi = bits * quant;
    rc->last_i_bits = bits;
    if (last_resort)
      rc->dc_i_bits = bits;
    rc->gop_left_i = MAX (rc->gop_left_i - 1, 0);
  } else if (coding_type == GST_CL_MPEG_PICTURE_B) {
    /* the buffer's planning takes it as a P picture */
    if (!last_resort)
      rc->xb = bits * quant;
    rc->p_min_bits = MIN (bits, rc->p_min_bits);
    rc->gop_left_p = MAX (rc->gop_left_p - 1, 0);
    rc->gop_left_b = MAX (rc->gop_left_b - 1, 0);
  } else {
    if (!last_resort) {
      rc->xp = bits * quant;
      rc->last_p_quant = quant;
    } else {
      rc->last_p_quant = rc->max_quant;
    }
    rc->p_last_resort = last_resort;
    /* a last resort says what the content costs at least; a picture
     * coded as usual, that it can cost that little */
    rc->p_min_bits = last_resort ? bits : MIN (bits, rc->p_min_bits);
    rc->gop_left_p = MAX (rc->gop_left_p - 1, 0);
  }
  rc->gop_bits -= bits + stuffing_bits;
  if (rc->peak_rate <= 0)
    rc->fullness = rc->fullness - bits - stuffing_bits +
        interval_bits (rc, rc->bit_rate);
}
