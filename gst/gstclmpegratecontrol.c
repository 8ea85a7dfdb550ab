/* gst-clvideo: MPEG-1 rate control with a VBV buffer model
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

void
gst_cl_mpeg_rate_control_init (GstClMpegRateControl * rc, guint64 bit_rate,
    guint64 buffer_bits, gdouble frame_rate, guint gop_size, guint quant,
    gdouble ip_factor)
{
  rc->bit_rate = bit_rate;
  rc->buffer_size = buffer_bits;
  rc->frame_rate = frame_rate > 0 ? frame_rate : 25.0;
  rc->gop_size = MAX (gop_size, 1);
  rc->const_quant = CLAMP (quant, 1, 31);
  rc->ip_factor = MAX (ip_factor, 1.0);
  rc->pictures = rc->bits = rc->stuffing_bits = rc->reencodes = 0;
  gst_cl_mpeg_rate_control_restart (rc);
}

void
gst_cl_mpeg_rate_control_restart (GstClMpegRateControl * rc)
{
  rc->started = FALSE;
  /* the buffer the stream signals, never more: the encoder gives one of
   * at least two pictures (gst_cl_mpeg_rate_control_min_buffer_bits) */
  rc->max_fullness = MIN (rc->buffer_size, rc->bit_rate * MAX_DELAY_S);
  rc->fullness = rc->max_fullness * INITIAL_FULLNESS;
  /* TM5's initial complexities */
  rc->xi = 160.0 * rc->bit_rate / 115.0;
  rc->xp = 60.0 * rc->bit_rate / 115.0;
  rc->gop_bits = 0;
  rc->gop_left_i = rc->gop_left_p = 0;
  rc->last_quant = rc->const_quant;
  rc->last_p_quant = 0;
}

guint
gst_cl_mpeg_rate_control_quant (GstClMpegRateControl * rc, gboolean intra,
    gboolean gop_start)
{
  gdouble per_picture, target, ref, q, xi, share;

  if (rc->bit_rate <= 0) {
    q = intra ? rc->const_quant / rc->ip_factor : rc->const_quant;
    return (guint) CLAMP (lround (q), 1, 31);
  }
  per_picture = rc->bit_rate / rc->frame_rate;
  if (gop_start) {
    rc->gop_bits += per_picture * rc->gop_size;
    rc->gop_left_i = 1;
    rc->gop_left_p = rc->gop_size - 1;
  }
  /* with P pictures at quantiser q and I pictures at q / ip_factor the
   * GOP's bits are (left_i xi ip_factor + left_p xp) / q */
  xi = rc->xi * rc->ip_factor;
  share = rc->gop_left_i * xi + rc->gop_left_p * rc->xp;
  target = rc->gop_bits * (intra ? xi : rc->xp) / MAX (share, 1.0);
  /* the decoder's buffer: spend more when it runs full, less when low */
  ref = rc->max_fullness * 0.6;
  target *= CLAMP (rc->fullness / ref, 0.5, 1.5);
  target = MAX (target, per_picture / 8);
  /* leave room: a picture must fit what the buffer holds */
  target = MIN (target, rc->fullness * 0.8);
  q = (intra ? rc->xi : rc->xp) / MAX (target, 1.0);
  if (rc->last_p_quant > 0) {
    /* bits grow faster than 1 / quantiser as the quantiser falls: a drop
     * of more than a third below the last P picture's (I pictures: over
     * ip_factor) overshoots the target and swings back to coarse, and a
     * rise of more than half starves a picture to make up for one */
    gdouble ref_q = rc->last_p_quant / (intra ? rc->ip_factor : 1.0);
    q = CLAMP (q, ref_q * 2.0 / 3.0, ref_q * 1.5);
  }
  rc->last_quant = (guint) CLAMP (lround (q), 1, 31);
  return rc->last_quant;
}

guint
gst_cl_mpeg_rate_control_vbv_delay (GstClMpegRateControl * rc,
    guint64 header_bits)
{
  gdouble d;

  if (rc->bit_rate <= 0)
    return 0xffff;
  d = floor (90000.0 * (rc->fullness - header_bits) / rc->bit_rate);
  return (guint) CLAMP (d, 0, 0xfffe);
}

guint
gst_cl_mpeg_rate_control_check (GstClMpegRateControl * rc, guint64 bits,
    guint quant)
{
  gdouble q;

  if (rc->bit_rate <= 0 || bits <= rc->fullness)
    return 0;
  if (quant >= 31)
    return 32;
  /* bits go roughly as 1 / quantiser: aim at 85% of what is there */
  q = ceil (quant * bits / (0.85 * rc->fullness));
  return (guint) CLAMP (q, quant + 1, 31);
}

guint64
gst_cl_mpeg_rate_control_stuffing (GstClMpegRateControl * rc, guint64 bits)
{
  gdouble next, excess;

  if (rc->bit_rate <= 0)
    return 0;
  next = rc->fullness - bits + rc->bit_rate / rc->frame_rate;
  excess = next - rc->max_fullness;
  if (excess <= 0)
    return 0;
  return ((guint64) ceil (excess) + 7) / 8 * 8;
}

void
gst_cl_mpeg_rate_control_update (GstClMpegRateControl * rc, gboolean intra,
    guint64 bits, gdouble quant)
{
  rc->pictures++;
  rc->bits += bits;
  if (rc->bit_rate <= 0)
    return;
  if (intra) {
    rc->xi = bits * quant;
    rc->gop_left_i = MAX (rc->gop_left_i - 1, 0);
  } else {
    rc->xp = bits * quant;
    rc->last_p_quant = quant;
    rc->gop_left_p = MAX (rc->gop_left_p - 1, 0);
  }
  rc->gop_bits -= bits;
  rc->fullness = rc->fullness - bits + rc->bit_rate / rc->frame_rate;
}
