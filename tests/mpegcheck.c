/* gst-clvideo: MPEG-1 and MPEG-2 video elementary stream checker
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * See mpegcheck.h for what is checked and the VBV model used.
 */
#include "mpegcheck.h"

#include <math.h>
#include <string.h>

#define MAX_ERRORS 200
#define TICKS 90000.0
#define NO_DELAY 0xFFFF
#define VARIABLE_RATE 0x3FFFF

/* ---- bits ---- */

/* A GOP header's time_code, in frames at the nominal rate */
typedef struct
{
  guint64 offset;
  guint first_picture;          /* the index of the picture after it */
  gint64 frames;                /* -1: not countable (drop frame, no rate) */
} TimeCode;

typedef struct
{
  const guint8 *data;
  gsize size;                   /* bytes */
  gsize pos;                    /* bits */
  gboolean overrun;
} Bits;

/* The next @n (<= 32) bits without consuming them; zeros beyond the data. */
static guint32
bits_peek (const Bits * b, guint n)
{
  guint64 acc = 0;
  gsize byte = b->pos >> 3;
  guint i;

  if (n == 0)
    return 0;
  for (i = 0; i < 5; i++)
    acc = (acc << 8) | (byte + i < b->size ? b->data[byte + i] : 0);
  acc <<= 24;                   /* 40 bits read, now at the top of 64 */
  acc <<= b->pos & 7;
  return (guint32) (acc >> (64 - n));
}

static void
bits_skip (Bits * b, guint n)
{
  b->pos += n;
  if (b->pos > b->size * 8)
    b->overrun = TRUE;
}

static guint
bits_get (Bits * b, guint n)
{
  guint v = bits_peek (b, n);
  bits_skip (b, n);
  return v;
}

static gsize
bits_left (const Bits * b)
{
  return b->pos < b->size * 8 ? b->size * 8 - b->pos : 0;
}

/* ---- variable length codes (11172-2 annex B, 13818-2 annex B) ---- */

/* A code as the standard prints it ('0'/'1', spaces ignored) and what it
 * stands for; the meaning of @a and @b is the table's. */
typedef struct
{
  const gchar *bits;
  gint16 a, b;
} VlcCode;

/* A table of @n_codes codes, then @n_more that it shares with another */
typedef struct
{
  const VlcCode *codes, *more;
  guint n_codes, n_more;
  guint max_len;
  guint16 *lookup;              /* 1 << max_len entries: code index + 1, 0: none */
  guint8 *lens;                 /* per code */
} Vlc;

#define N_(a) G_N_ELEMENTS (a)

/* B.1 macroblock_address_increment; a: increment, -1 stuffing, -2 escape */
static const VlcCode mba_codes[] = {
  {"1", 1, 0}, {"011", 2, 0}, {"010", 3, 0}, {"0011", 4, 0}, {"0010", 5, 0},
  {"0001 1", 6, 0}, {"0001 0", 7, 0}, {"0000 111", 8, 0}, {"0000 110", 9, 0},
  {"0000 1011", 10, 0}, {"0000 1010", 11, 0}, {"0000 1001", 12, 0},
  {"0000 1000", 13, 0}, {"0000 0111", 14, 0}, {"0000 0110", 15, 0},
  {"0000 0101 11", 16, 0}, {"0000 0101 10", 17, 0}, {"0000 0101 01", 18, 0},
  {"0000 0101 00", 19, 0}, {"0000 0100 11", 20, 0}, {"0000 0100 10", 21, 0},
  {"0000 0100 011", 22, 0}, {"0000 0100 010", 23, 0}, {"0000 0100 001", 24, 0},
  {"0000 0100 000", 25, 0}, {"0000 0011 111", 26, 0}, {"0000 0011 110", 27, 0},
  {"0000 0011 101", 28, 0}, {"0000 0011 100", 29, 0}, {"0000 0011 011", 30, 0},
  {"0000 0011 010", 31, 0}, {"0000 0011 001", 32, 0}, {"0000 0011 000", 33, 0},
  {"0000 0001 111", -1, 0}, {"0000 0001 000", -2, 0},
};

/* macroblock_type flags */
#define MB_QUANT 1
#define MB_FORWARD 2
#define MB_BACKWARD 4
#define MB_PATTERN 8
#define MB_INTRA 16

/* B.2a to B.2d macroblock_type; a: the flags above */
static const VlcCode mbtype_i_codes[] = {
  {"1", MB_INTRA, 0}, {"01", MB_INTRA | MB_QUANT, 0},
};

static const VlcCode mbtype_p_codes[] = {
  {"1", MB_FORWARD | MB_PATTERN, 0},
  {"01", MB_PATTERN, 0},
  {"001", MB_FORWARD, 0},
  {"0001 1", MB_INTRA, 0},
  {"0001 0", MB_FORWARD | MB_PATTERN | MB_QUANT, 0},
  {"0000 1", MB_PATTERN | MB_QUANT, 0},
  {"0000 01", MB_INTRA | MB_QUANT, 0},
};

static const VlcCode mbtype_b_codes[] = {
  {"10", MB_FORWARD | MB_BACKWARD, 0},
  {"11", MB_FORWARD | MB_BACKWARD | MB_PATTERN, 0},
  {"010", MB_BACKWARD, 0},
  {"011", MB_BACKWARD | MB_PATTERN, 0},
  {"0010", MB_FORWARD, 0},
  {"0011", MB_FORWARD | MB_PATTERN, 0},
  {"0001 1", MB_INTRA, 0},
  {"0001 0", MB_FORWARD | MB_BACKWARD | MB_PATTERN | MB_QUANT, 0},
  {"0000 11", MB_FORWARD | MB_PATTERN | MB_QUANT, 0},
  {"0000 10", MB_BACKWARD | MB_PATTERN | MB_QUANT, 0},
  {"0000 01", MB_INTRA | MB_QUANT, 0},
};

static const VlcCode mbtype_d_codes[] = {
  {"1", MB_INTRA, 0},
};

/* B.3 (13818-2: B.9) coded_block_pattern; a: the pattern. The last code
 * is MPEG-2's pattern 0, which MPEG-1 lacks. */
static const VlcCode cbp_codes[] = {
  {"111", 60, 0}, {"1101", 4, 0}, {"1100", 8, 0}, {"1011", 16, 0}, {"1010", 32, 0},
  {"1001 1", 12, 0}, {"1001 0", 48, 0}, {"1000 1", 20, 0}, {"1000 0", 40, 0},
  {"0111 1", 28, 0}, {"0111 0", 44, 0}, {"0110 1", 52, 0}, {"0110 0", 56, 0},
  {"0101 1", 1, 0}, {"0101 0", 61, 0}, {"0100 1", 2, 0}, {"0100 0", 62, 0},
  {"0011 11", 24, 0}, {"0011 10", 36, 0}, {"0011 01", 3, 0}, {"0011 00", 63, 0},
  {"0010 111", 5, 0}, {"0010 110", 9, 0}, {"0010 101", 17, 0}, {"0010 100", 33, 0},
  {"0010 011", 6, 0}, {"0010 010", 10, 0}, {"0010 001", 18, 0}, {"0010 000", 34, 0},
  {"0001 1111", 7, 0}, {"0001 1110", 11, 0}, {"0001 1101", 19, 0},
  {"0001 1100", 35, 0}, {"0001 1011", 13, 0}, {"0001 1010", 49, 0},
  {"0001 1001", 21, 0}, {"0001 1000", 41, 0}, {"0001 0111", 14, 0},
  {"0001 0110", 50, 0}, {"0001 0101", 22, 0}, {"0001 0100", 42, 0},
  {"0001 0011", 15, 0}, {"0001 0010", 51, 0}, {"0001 0001", 23, 0},
  {"0001 0000", 43, 0}, {"0000 1111", 25, 0}, {"0000 1110", 37, 0},
  {"0000 1101", 26, 0}, {"0000 1100", 38, 0}, {"0000 1011", 29, 0},
  {"0000 1010", 45, 0}, {"0000 1001", 53, 0}, {"0000 1000", 57, 0},
  {"0000 0111", 30, 0}, {"0000 0110", 46, 0}, {"0000 0101", 54, 0},
  {"0000 0100", 58, 0}, {"0000 0011 1", 31, 0}, {"0000 0011 0", 47, 0},
  {"0000 0010 1", 55, 0}, {"0000 0010 0", 59, 0}, {"0000 0001 1", 27, 0},
  {"0000 0001 0", 39, 0}, {"0000 0000 1", 0, 0},
};

/* B.4 motion_horizontal/vertical_forward/backward_code (13818-2: B.10
 * motion_code); a: the code */
static const VlcCode motion_codes[] = {
  {"0000 0011 001", -16, 0}, {"0000 0011 011", -15, 0}, {"0000 0011 101", -14, 0},
  {"0000 0011 111", -13, 0}, {"0000 0100 001", -12, 0}, {"0000 0100 011", -11, 0},
  {"0000 0100 11", -10, 0}, {"0000 0101 01", -9, 0}, {"0000 0101 11", -8, 0},
  {"0000 0111", -7, 0}, {"0000 1001", -6, 0}, {"0000 1011", -5, 0},
  {"0000 111", -4, 0}, {"0001 1", -3, 0}, {"0011", -2, 0}, {"011", -1, 0},
  {"1", 0, 0},
  {"010", 1, 0}, {"0010", 2, 0}, {"0001 0", 3, 0}, {"0000 110", 4, 0},
  {"0000 1010", 5, 0}, {"0000 1000", 6, 0}, {"0000 0110", 7, 0},
  {"0000 0101 10", 8, 0}, {"0000 0101 00", 9, 0}, {"0000 0100 10", 10, 0},
  {"0000 0100 010", 11, 0}, {"0000 0100 000", 12, 0}, {"0000 0011 110", 13, 0},
  {"0000 0011 100", 14, 0}, {"0000 0011 010", 15, 0}, {"0000 0011 000", 16, 0},
};

/* B.5a dct_dc_size_luminance, B.5b dct_dc_size_chrominance (13818-2:
 * B.12, B.13); a: size. MPEG-2 adds the codes for sizes 9..11, the last
 * three; MPEG-1 stops at 8. */
#define MPEG1_DC_SIZES 9
static const VlcCode dc_luma_codes[] = {
  {"100", 0, 0}, {"00", 1, 0}, {"01", 2, 0}, {"101", 3, 0}, {"110", 4, 0}, {"1110", 5, 0},
  {"1111 0", 6, 0}, {"1111 10", 7, 0}, {"1111 110", 8, 0},
  {"1111 1110", 9, 0}, {"1111 1111 0", 10, 0}, {"1111 1111 1", 11, 0},
};

static const VlcCode dc_chroma_codes[] = {
  {"00", 0, 0}, {"01", 1, 0}, {"10", 2, 0}, {"110", 3, 0}, {"1110", 4, 0},
  {"1111 0", 5, 0}, {"1111 10", 6, 0}, {"1111 110", 7, 0}, {"1111 1110", 8, 0},
  {"1111 1111 0", 9, 0}, {"1111 1111 10", 10, 0}, {"1111 1111 11", 11, 0},
};

/* B.5c/B.5d dct_coeff_first and dct_coeff_next (13818-2: B.14, DCT
 * coefficients table zero), without the sign bit that follows every
 * run/level code; a: run (-1 end_of_block, -2 escape), b: level. The first
 * coefficient's "1s" (run 0, level 1) is read apart: in dct_coeff_next
 * "10" is end_of_block and "11s" is run 0, level 1. The codes of 14 bits
 * and more are in dct_long_codes. */
#define DCT_EOB -1
#define DCT_ESCAPE -2
static const VlcCode dct_codes[] = {
  {"10", DCT_EOB, 0}, {"0000 01", DCT_ESCAPE, 0},
  {"11", 0, 1}, {"011", 1, 1}, {"0100", 0, 2}, {"0101", 2, 1},
  {"0010 1", 0, 3}, {"0011 1", 3, 1}, {"0011 0", 4, 1},
  {"0001 10", 1, 2}, {"0001 11", 5, 1}, {"0001 01", 6, 1},
  {"0001 00", 7, 1}, {"0000 110", 0, 4}, {"0000 100", 2, 2},
  {"0000 111", 8, 1}, {"0000 101", 9, 1},
  {"0010 0110", 0, 5}, {"0010 0001", 0, 6}, {"0010 0101", 1, 3},
  {"0010 0100", 3, 2}, {"0010 0111", 10, 1}, {"0010 0011", 11, 1},
  {"0010 0010", 12, 1}, {"0010 0000", 13, 1},
  {"0000 0010 10", 0, 7}, {"0000 0011 00", 1, 4}, {"0000 0010 11", 2, 3},
  {"0000 0011 11", 4, 2}, {"0000 0010 01", 5, 2}, {"0000 0011 10", 14, 1},
  {"0000 0011 01", 15, 1}, {"0000 0010 00", 16, 1},
  {"0000 0001 1101", 0, 8}, {"0000 0001 1000", 0, 9},
  {"0000 0001 0011", 0, 10}, {"0000 0001 0000", 0, 11},
  {"0000 0001 1011", 1, 5}, {"0000 0001 0100", 2, 4},
  {"0000 0001 1100", 3, 3}, {"0000 0001 0010", 4, 3},
  {"0000 0001 1110", 6, 2}, {"0000 0001 0101", 7, 2},
  {"0000 0001 0001", 8, 2}, {"0000 0001 1111", 17, 1},
  {"0000 0001 1010", 18, 1}, {"0000 0001 1001", 19, 1},
  {"0000 0001 0111", 20, 1}, {"0000 0001 0110", 21, 1},
  {"0000 0000 1101 0", 0, 12}, {"0000 0000 1100 1", 0, 13},
  {"0000 0000 1100 0", 0, 14}, {"0000 0000 1011 1", 0, 15},
  {"0000 0000 1011 0", 1, 6}, {"0000 0000 1010 1", 1, 7},
  {"0000 0000 1010 0", 2, 5}, {"0000 0000 1001 1", 3, 4},
  {"0000 0000 1001 0", 5, 3}, {"0000 0000 1000 1", 9, 2},
  {"0000 0000 1000 0", 10, 2}, {"0000 0000 1111 1", 22, 1},
  {"0000 0000 1111 0", 23, 1}, {"0000 0000 1110 1", 24, 1},
  {"0000 0000 1110 0", 25, 1}, {"0000 0000 1101 1", 26, 1},
};

/* the codes of 14 to 16 bits, the same in tables B.14 and B.15 */
static const VlcCode dct_long_codes[] = {
  {"0000 0000 0111 11", 0, 16}, {"0000 0000 0111 10", 0, 17},
  {"0000 0000 0111 01", 0, 18}, {"0000 0000 0111 00", 0, 19},
  {"0000 0000 0110 11", 0, 20}, {"0000 0000 0110 10", 0, 21},
  {"0000 0000 0110 01", 0, 22}, {"0000 0000 0110 00", 0, 23},
  {"0000 0000 0101 11", 0, 24}, {"0000 0000 0101 10", 0, 25},
  {"0000 0000 0101 01", 0, 26}, {"0000 0000 0101 00", 0, 27},
  {"0000 0000 0100 11", 0, 28}, {"0000 0000 0100 10", 0, 29},
  {"0000 0000 0100 01", 0, 30}, {"0000 0000 0100 00", 0, 31},
  {"0000 0000 0011 000", 0, 32}, {"0000 0000 0010 111", 0, 33},
  {"0000 0000 0010 110", 0, 34}, {"0000 0000 0010 101", 0, 35},
  {"0000 0000 0010 100", 0, 36}, {"0000 0000 0010 011", 0, 37},
  {"0000 0000 0010 010", 0, 38}, {"0000 0000 0010 001", 0, 39},
  {"0000 0000 0010 000", 0, 40}, {"0000 0000 0011 111", 1, 8},
  {"0000 0000 0011 110", 1, 9}, {"0000 0000 0011 101", 1, 10},
  {"0000 0000 0011 100", 1, 11}, {"0000 0000 0011 011", 1, 12},
  {"0000 0000 0011 010", 1, 13}, {"0000 0000 0011 001", 1, 14},
  {"0000 0000 0001 0011", 1, 15}, {"0000 0000 0001 0010", 1, 16},
  {"0000 0000 0001 0001", 1, 17}, {"0000 0000 0001 0000", 1, 18},
  {"0000 0000 0001 0100", 6, 3}, {"0000 0000 0001 1010", 11, 2},
  {"0000 0000 0001 1001", 12, 2}, {"0000 0000 0001 1000", 13, 2},
  {"0000 0000 0001 0111", 14, 2}, {"0000 0000 0001 0110", 15, 2},
  {"0000 0000 0001 0101", 16, 2}, {"0000 0000 0001 1111", 27, 1},
  {"0000 0000 0001 1110", 28, 1}, {"0000 0000 0001 1101", 29, 1},
  {"0000 0000 0001 1100", 30, 1}, {"0000 0000 0001 1011", 31, 1},
};

/* 13818-2 B.15, DCT coefficients table one (intra blocks of pictures with
 * intra_vlc_format 1), up to 13 bits, as dct_codes; it has no special
 * first coefficient, and its end_of_block is "0110" */
static const VlcCode dct_one_codes[] = {
  {"0110", DCT_EOB, 0}, {"0000 01", DCT_ESCAPE, 0},
  {"10", 0, 1}, {"010", 1, 1}, {"110", 0, 2}, {"0111", 0, 3},
  {"0010 1", 2, 1}, {"0011 0", 1, 2}, {"0011 1", 3, 1},
  {"1110 0", 0, 4}, {"1110 1", 0, 5},
  {"0001 00", 0, 7}, {"0001 01", 0, 6}, {"0001 10", 4, 1},
  {"0001 11", 5, 1}, {"0000 100", 7, 1}, {"0000 101", 8, 1},
  {"0000 110", 6, 1}, {"0000 111", 2, 2}, {"1111 000", 9, 1},
  {"1111 001", 1, 3}, {"1111 010", 10, 1}, {"1111 011", 0, 8},
  {"1111 100", 0, 9},
  {"0010 0000", 1, 5}, {"0010 0001", 11, 1}, {"0010 0010", 0, 11},
  {"0010 0011", 0, 10}, {"0010 0100", 13, 1}, {"0010 0101", 12, 1},
  {"0010 0110", 3, 2}, {"0010 0111", 1, 4}, {"1111 1010", 0, 12},
  {"1111 1011", 0, 13}, {"1111 1100", 2, 3}, {"1111 1101", 4, 2},
  {"1111 1110", 0, 14}, {"1111 1111", 0, 15},
  {"0000 0010 0", 5, 2}, {"0000 0010 1", 14, 1}, {"0000 0011 1", 15, 1},
  {"0000 0011 00", 2, 4}, {"0000 0011 01", 16, 1},
  {"0000 0001 0001", 8, 2}, {"0000 0001 0010", 4, 3},
  {"0000 0001 0101", 7, 2}, {"0000 0001 0110", 21, 1},
  {"0000 0001 0111", 20, 1}, {"0000 0001 1001", 19, 1},
  {"0000 0001 1010", 18, 1}, {"0000 0001 1100", 3, 3},
  {"0000 0001 1110", 6, 2}, {"0000 0001 1111", 17, 1},
  {"0000 0000 1000 0", 10, 2}, {"0000 0000 1000 1", 9, 2},
  {"0000 0000 1001 0", 5, 3}, {"0000 0000 1001 1", 3, 4},
  {"0000 0000 1010 0", 2, 5}, {"0000 0000 1010 1", 1, 7},
  {"0000 0000 1011 0", 1, 6}, {"0000 0000 1101 1", 26, 1},
  {"0000 0000 1110 0", 25, 1}, {"0000 0000 1110 1", 24, 1},
  {"0000 0000 1111 0", 23, 1}, {"0000 0000 1111 1", 22, 1},
};

enum
{
  VLC_MBA, VLC_MBTYPE_I, VLC_MBTYPE_P, VLC_MBTYPE_B, VLC_MBTYPE_D, VLC_CBP,
  VLC_MOTION, VLC_DC_LUMA, VLC_DC_CHROMA, VLC_DC_LUMA_MPEG2,
  VLC_DC_CHROMA_MPEG2, VLC_DCT, VLC_DCT_ONE, N_VLCS
};

static Vlc vlcs[N_VLCS] = {
  {mba_codes, NULL, N_ (mba_codes), 0, 11, NULL, NULL},
  {mbtype_i_codes, NULL, N_ (mbtype_i_codes), 0, 2, NULL, NULL},
  {mbtype_p_codes, NULL, N_ (mbtype_p_codes), 0, 6, NULL, NULL},
  {mbtype_b_codes, NULL, N_ (mbtype_b_codes), 0, 6, NULL, NULL},
  {mbtype_d_codes, NULL, N_ (mbtype_d_codes), 0, 1, NULL, NULL},
  {cbp_codes, NULL, N_ (cbp_codes), 0, 9, NULL, NULL},
  {motion_codes, NULL, N_ (motion_codes), 0, 11, NULL, NULL},
  {dc_luma_codes, NULL, MPEG1_DC_SIZES, 0, 7, NULL, NULL},
  {dc_chroma_codes, NULL, MPEG1_DC_SIZES, 0, 8, NULL, NULL},
  {dc_luma_codes, NULL, N_ (dc_luma_codes), 0, 9, NULL, NULL},
  {dc_chroma_codes, NULL, N_ (dc_chroma_codes), 0, 10, NULL, NULL},
  {dct_codes, dct_long_codes, N_ (dct_codes), N_ (dct_long_codes), 16, NULL,
      NULL},
  {dct_one_codes, dct_long_codes, N_ (dct_one_codes), N_ (dct_long_codes),
      16, NULL, NULL},
};

/* Per DCT table (zero, one), the run/level pairs it has a code for: an
 * MPEG-2 escape of one of them could have been shorter. */
#define MAX_CODED_RUN 31
#define MAX_CODED_LEVEL 40
static guint8 coded_pairs[2][MAX_CODED_RUN + 1][MAX_CODED_LEVEL + 1];

static const VlcCode *
vlc_code (const Vlc * vlc, guint i)
{
  return i < vlc->n_codes ? &vlc->codes[i] : &vlc->more[i - vlc->n_codes];
}

/* Fills @vlc's lookup table; a code that is too long or the prefix of
 * another (a mistyped table) aborts. */
static void
vlc_build (Vlc * vlc)
{
  guint i, j, n = vlc->n_codes + vlc->n_more;

  vlc->lookup = g_new0 (guint16, 1u << vlc->max_len);
  vlc->lens = g_new0 (guint8, n);
  for (i = 0; i < n; i++) {
    const gchar *c;
    guint value = 0, len = 0, first, count;

    for (c = vlc_code (vlc, i)->bits; *c; c++) {
      if (*c == ' ')
        continue;
      g_assert (*c == '0' || *c == '1');
      value = (value << 1) | (*c == '1');
      len++;
    }
    g_assert (len >= 1 && len <= vlc->max_len);
    vlc->lens[i] = len;
    first = value << (vlc->max_len - len);
    count = 1u << (vlc->max_len - len);
    for (j = first; j < first + count; j++) {
      g_assert (vlc->lookup[j] == 0);
      vlc->lookup[j] = i + 1;
    }
  }
}

static void
vlcs_init (void)
{
  static gsize done = 0;

  if (g_once_init_enter (&done)) {
    guint i, t;
    for (i = 0; i < N_VLCS; i++)
      vlc_build (&vlcs[i]);
    for (t = 0; t < 2; t++) {
      const Vlc *vlc = &vlcs[t ? VLC_DCT_ONE : VLC_DCT];
      for (i = 0; i < vlc->n_codes + vlc->n_more; i++) {
        const VlcCode *c = vlc_code (vlc, i);
        if (c->a >= 0) {
          g_assert (c->a <= MAX_CODED_RUN && c->b <= MAX_CODED_LEVEL);
          coded_pairs[t][c->a][c->b] = 1;
        }
      }
    }
    g_once_init_leave (&done, 1);
  }
}

/* Reads one code of table @which; NULL (nothing consumed) when the bits
 * are no code of it. */
static const VlcCode *
vlc_read (Bits * b, guint which)
{
  const Vlc *vlc = &vlcs[which];
  guint index = vlc->lookup[bits_peek (b, vlc->max_len)];

  if (index == 0)
    return NULL;
  bits_skip (b, vlc->lens[index - 1]);
  return vlc_code (vlc, index - 1);
}

/* The first macroblock address increment of a slice (stuffing, which
 * MPEG-2 does not have, and escapes included); 0 when invalid. */
static guint
read_address_increment (Bits * b, gboolean mpeg2)
{
  guint total = 0;
  const VlcCode *c;

  while (!mpeg2 && bits_peek (b, 11) == 0x00f && !b->overrun)
    bits_skip (b, 11);          /* macroblock_stuffing */
  while (bits_peek (b, 11) == 0x008 && !b->overrun) {
    bits_skip (b, 11);          /* macroblock_escape */
    total += 33;
  }
  c = vlc_read (b, VLC_MBA);
  if (!c || c->a < 0 || b->overrun)
    return 0;
  return total + c->a;
}

/* ---- results ---- */

static void
add_error (MpegCheckResult * r, guint * suppressed, const gchar * fmt, ...)
    G_GNUC_PRINTF (3, 4);

static void
add_error (MpegCheckResult * r, guint * suppressed, const gchar * fmt, ...)
{
  va_list args;

  if (r->errors->len >= MAX_ERRORS) {
    (*suppressed)++;
    return;
  }
  va_start (args, fmt);
  g_ptr_array_add (r->errors, g_strdup_vprintf (fmt, args));
  va_end (args);
}

static void
add_note (MpegCheckResult * r, const gchar * fmt, ...) G_GNUC_PRINTF (2, 3);

static void
add_note (MpegCheckResult * r, const gchar * fmt, ...)
{
  va_list args;

  va_start (args, fmt);
  g_ptr_array_add (r->notes, g_strdup_vprintf (fmt, args));
  va_end (args);
}

void
mpegcheck_options_init (MpegCheckOptions * opts)
{
  memset (opts, 0, sizeof (*opts));
  opts->expect_pictures = -1;
  opts->require_end_code = TRUE;
  opts->check_vbv = TRUE;
  opts->check_macroblocks = TRUE;
  opts->first_time_code = -1;
}

gboolean
mpegcheck_frame_rate (guint code, gint * fps_n, gint * fps_d)
{
  static const gint rates[9][2] = {
    {0, 1}, {24000, 1001}, {24, 1}, {25, 1}, {30000, 1001}, {30, 1},
    {50, 1}, {60000, 1001}, {60, 1}
  };

  if (code < 1 || code > 8) {
    *fps_n = 0;
    *fps_d = 1;
    return FALSE;
  }
  *fps_n = rates[code][0];
  *fps_d = rates[code][1];
  return TRUE;
}

/* ---- parsing ---- */

typedef enum
{
  ST_START,                     /* nothing yet */
  ST_SEQ,                       /* after a sequence header */
  ST_GOP,                       /* after a GOP header */
  ST_PIC,                       /* after a picture header, no slice yet */
  ST_SLICES,                    /* in a picture's slices */
  ST_ENDED,                     /* after a sequence end code */
} State;

/* Where an MPEG-2 extension would be (13818-2 6.2.2), which tells what
 * the syntax allows there: right after a sequence header its
 * sequence_extension, right after a picture header its
 * picture_coding_extension, after those and after a GOP header
 * extension_and_user_data (0), (2) and (1) */
typedef enum
{
  PLACE_NONE,                   /* nowhere: MPEG-1, slices, end code */
  PLACE_SEQ_HEADER,
  PLACE_SEQUENCE,
  PLACE_GOP,                    /* user data only */
  PLACE_PIC_HEADER,
  PLACE_PICTURE,
} Place;

/* extension_start_code_identifier (13818-2 table 6-2) */
enum
{
  EXT_SEQUENCE = 1,
  EXT_SEQUENCE_DISPLAY = 2,
  EXT_QUANT_MATRIX = 3,
  EXT_COPYRIGHT = 4,
  EXT_SEQUENCE_SCALABLE = 5,
  EXT_PICTURE_DISPLAY = 7,
  EXT_PICTURE_CODING = 8,
  EXT_PICTURE_SPATIAL_SCALABLE = 9,
  EXT_PICTURE_TEMPORAL_SCALABLE = 10,
  EXT_CAMERA_PARAMETERS = 11,
  EXT_ITU_T = 12,
};

static const gchar *const extension_names[16] = {
  NULL, "sequence_extension", "sequence_display_extension",
  "quant_matrix_extension", "copyright_extension",
  "sequence_scalable_extension", NULL, "picture_display_extension",
  "picture_coding_extension", "picture_spatial_scalable_extension",
  "picture_temporal_scalable_extension", "camera_parameters_extension",
  "ITU-T_extension", NULL, NULL, NULL,
};

typedef struct
{
  const guint8 *data;
  gsize size;
  const MpegCheckOptions *opts;
  MpegCheckResult *r;
  guint suppressed;
  State state;
  gint seq;                     /* current sequence, -1: none */
  gboolean seq_header_since_picture;
  gboolean gop_first_picture;
  gboolean mpeg2_reported;
  guint64 au_pending;           /* start of the next picture's bytes */
  gboolean have_pending;
  gint extend_picture;          /* gets the bytes up to the next unit */
  MpegCheckPicture pic;         /* the open picture */
  gboolean pic_open;
  gboolean pic_header_truncated;
  gint last_slice_address;      /* -1: none yet in this picture */
  gboolean rows_ok;
  GArray *gop_trefs;            /* guint: temporal references of the GOP */
  GArray *time_codes;           /* TimeCode: one per GOP header */
  gboolean gop_numbered;        /* MPEG-2 pictures with no GOP header: FALSE */
  guint gop_start_offset;
  /* macroblock layer */
  /* the matrices in force, row-major */
  guint8 intra_matrix[64], non_intra_matrix[64];
  guint8 chroma_intra_matrix[64], chroma_non_intra_matrix[64];
  guint8 *covered;              /* per macroblock of the open picture: slices */
  guint n_mbs;                  /* of the open picture; 0: not parsed */
  guint seq_types;              /* bit per picture_coding_type seen in the sequence */
  /* MPEG-2 */
  Place place;
  guint place_extensions;       /* bit per extension id met at this place */
  guint noted_extensions;       /* bit per skipped extension id noted */
  MpegCheckSequence header;     /* a sequence header awaiting its extension */
  guint64 header_offset;
  gboolean header_waiting;
  gboolean header_starts_sequence;
  gboolean fields_reported;
  gboolean first_field_open;    /* a field picture awaits its second field */
  guint first_field_structure, first_field_tref;
  guint wasteful_escapes;       /* escapes of levels that have a code */
  gchar *first_wasteful_escape;
} Parser;

#define ERR(p, ...) add_error ((p)->r, &(p)->suppressed, __VA_ARGS__)

static MpegCheckSequence *
current_sequence (Parser * p)
{
  if (p->seq < 0)
    return NULL;
  return &g_array_index (p->r->sequences, MpegCheckSequence, p->seq);
}

static guint
mb_columns (const MpegCheckSequence * s)
{
  return (s->width + 15) / 16;
}

/* An interlaced MPEG-2 sequence's frames have whole macroblock rows in
 * each field (13818-2 6.3.3) */
static guint
mb_rows (const MpegCheckSequence * s)
{
  if (s->mpeg2 && !s->progressive_sequence)
    return 2 * ((s->height + 31) / 32);
  return (s->height + 15) / 16;
}

static void
finish_gop (Parser * p)
{
  guint n = p->gop_trefs->len, i;
  guint8 *seen;

  if (n == 0)
    return;
  /* the pictures of a GOP are numbered 0..n-1 in display order */
  seen = g_new0 (guint8, n);
  for (i = 0; i < n; i++) {
    guint t = g_array_index (p->gop_trefs, guint, i);
    if (t >= n || seen[t]) {
      ERR (p, "GOP %u (byte %u): temporal_reference %u of its picture %u is "
          "%s (the GOP has %u pictures, numbered 0..%u)", p->r->n_gops - 1,
          p->gop_start_offset, t, i, t >= n ? "out of range" : "repeated", n,
          n - 1);
      break;
    }
    seen[t] = 1;
  }
  g_free (seen);
  g_array_set_size (p->gop_trefs, 0);
}

/* Every macroblock of the picture in exactly one slice. */
static void
check_coverage (Parser * p)
{
  guint i, missing = 0, doubled = 0, first_missing = 0, first_doubled = 0;

  for (i = 0; i < p->n_mbs; i++) {
    if (p->covered[i] == 0 && missing++ == 0)
      first_missing = i;
    if (p->covered[i] > 1 && doubled++ == 0)
      first_doubled = i;
  }
  if (missing)
    ERR (p, "picture %u (byte %" G_GUINT64_FORMAT "): %u of its %u "
        "macroblocks are in no slice, the first is macroblock %u",
        p->pic.index, p->pic.offset, missing, p->n_mbs, first_missing);
  if (doubled)
    ERR (p, "picture %u (byte %" G_GUINT64_FORMAT "): %u macroblocks are in "
        "more than one slice, the first is macroblock %u", p->pic.index,
        p->pic.offset, doubled, first_doubled);
}

static void
close_picture (Parser * p, guint64 end)
{
  MpegCheckPicture *pic = &p->pic;
  MpegCheckSequence *s = current_sequence (p);

  if (!p->pic_open)
    return;
  pic->au_end = end;
  if (p->n_mbs && pic->n_slices && !pic->mb_syntax_error)
    check_coverage (p);
  g_clear_pointer (&p->covered, g_free);
  p->n_mbs = 0;
  if (pic->n_slices == 0)
    ERR (p, "picture %u (byte %" G_GUINT64_FORMAT ") has no slice",
        pic->index, pic->offset);
  else if (p->opts->require_slice_per_row && s &&
      (!p->rows_ok || pic->n_slices != mb_rows (s)))
    ERR (p, "picture %u (byte %" G_GUINT64_FORMAT ") has %u slices, not one "
        "starting at column 0 of each of its %u macroblock rows", pic->index,
        pic->offset, pic->n_slices, mb_rows (s));
  p->r->n_macroblocks += pic->n_mb_coded + pic->n_mb_skipped;
  g_array_append_val (p->r->pictures, *pic);
  if (s)
    s->n_pictures++;
  p->pic_open = FALSE;
}

/* zigzag scan position to row-major position (11172-2 2.4.4.1, 13818-2
 * table 7-2) */
static const guint8 zigzag[64] = {
  0, 1, 8, 16, 9, 2, 3, 10, 17, 24, 32, 25, 18, 11, 4, 5,
  12, 19, 26, 33, 40, 48, 41, 34, 27, 20, 13, 6, 7, 14, 21, 28,
  35, 42, 49, 56, 57, 50, 43, 36, 29, 22, 15, 23, 30, 37, 44, 51,
  58, 59, 52, 45, 38, 31, 39, 46, 53, 60, 61, 54, 47, 55, 62, 63,
};

/* MPEG-2's alternate scan (13818-2 table 7-3), the same way */
static const guint8 alternate_scan[64] = {
  0, 8, 16, 24, 1, 9, 2, 10, 17, 25, 32, 40, 48, 56, 57, 49,
  41, 33, 26, 18, 3, 11, 4, 12, 19, 27, 34, 42, 50, 58, 35, 43,
  51, 59, 20, 28, 5, 13, 6, 14, 21, 29, 36, 44, 52, 60, 37, 45,
  53, 61, 22, 30, 7, 15, 23, 31, 38, 46, 54, 62, 39, 47, 55, 63,
};

/* the default intra quantiser matrix (11172-2 2.4.3.2), row-major */
static const guint8 default_intra_matrix[64] = {
  8, 16, 19, 22, 26, 27, 29, 34,
  16, 16, 22, 24, 27, 29, 34, 37,
  19, 22, 26, 27, 29, 34, 34, 38,
  22, 22, 26, 27, 29, 34, 37, 40,
  22, 26, 27, 29, 32, 35, 40, 48,
  26, 27, 29, 32, 35, 40, 48, 58,
  26, 27, 29, 34, 38, 46, 56, 69,
  27, 29, 35, 38, 46, 56, 69, 83,
};

/* A sequence header sets all the matrices, loaded or the defaults; the
 * chroma ones (MPEG-2 4:2:2 and 4:4:4) take the same values. */
static void
set_matrices (Parser * p, const MpegCheckSequence * s)
{
  guint i;

  for (i = 0; i < 64; i++) {
    p->intra_matrix[zigzag[i]] = s->load_intra_matrix ? s->intra_matrix[i] :
        default_intra_matrix[zigzag[i]];
    p->non_intra_matrix[zigzag[i]] = s->load_non_intra_matrix ?
        s->non_intra_matrix[i] : 16;
  }
  memcpy (p->chroma_intra_matrix, p->intra_matrix, 64);
  memcpy (p->chroma_non_intra_matrix, p->non_intra_matrix, 64);
}

/* Whether the unit starting at @offset is an extension with @id. */
static gboolean
is_extension (const Parser * p, guint64 offset, guint id)
{
  return offset + 4 < p->size && p->data[offset + 3] == 0xB5 &&
      (p->data[offset + 4] >> 4) == id;
}

static void
set_place (Parser * p, Place place)
{
  p->place = place;
  p->place_extensions = 0;
}

/* The checks of a sequence header that need all of its values (for
 * MPEG-2, its sequence_extension's too), then the sequence it starts or
 * repeats. */
static void
finish_sequence_header (Parser * p)
{
  MpegCheckSequence *s = &p->header;
  guint64 offset = p->header_offset;
  MpegCheckSequence *cur;
  guint i;

  p->header_waiting = FALSE;
  if ((s->width & 0xFFF) == 0 || (s->height & 0xFFF) == 0)
    ERR (p, "sequence header at byte %" G_GUINT64_FORMAT ": size %ux%u",
        offset, s->width, s->height);
  if (s->mpeg2 && (s->aspect_code == 0 || s->aspect_code > 4))
    ERR (p, "sequence header at byte %" G_GUINT64_FORMAT ": %s "
        "aspect_ratio_information %u", offset, s->aspect_code ? "reserved" :
        "forbidden", s->aspect_code);
  else if (s->aspect_code == 0 || s->aspect_code == 15)
    ERR (p, "sequence header at byte %" G_GUINT64_FORMAT ": forbidden "
        "pel_aspect_ratio %u", offset, s->aspect_code);
  if (!mpegcheck_frame_rate (s->frame_rate_code, &s->fps_n, &s->fps_d))
    ERR (p, "sequence header at byte %" G_GUINT64_FORMAT ": reserved "
        "picture_rate code %u", offset, s->frame_rate_code);
  else if (s->mpeg2) {
    s->fps_n *= s->frame_rate_extension_n + 1;
    s->fps_d *= s->frame_rate_extension_d + 1;
  }
  if (s->bit_rate_code == 0)
    ERR (p, "sequence header at byte %" G_GUINT64_FORMAT ": bit_rate 0 is "
        "forbidden", offset);
  if (s->vbv_buffer_size_code == 0)
    ERR (p, "sequence header at byte %" G_GUINT64_FORMAT ": "
        "vbv_buffer_size 0", offset);
  if (s->load_intra_matrix && s->intra_matrix[0] != 8)
    ERR (p, "sequence header at byte %" G_GUINT64_FORMAT ": intra matrix "
        "starts with %u, not 8", offset, s->intra_matrix[0]);
  for (i = 0; i < 64; i++) {
    if ((s->load_intra_matrix && s->intra_matrix[i] == 0) ||
        (s->load_non_intra_matrix && s->non_intra_matrix[i] == 0)) {
      ERR (p, "sequence header at byte %" G_GUINT64_FORMAT ": a quantiser "
          "matrix holds 0", offset);
      break;
    }
  }
  if (s->constrained && s->mpeg2) {
    ERR (p, "sequence header at byte %" G_GUINT64_FORMAT ": "
        "constrained_parameters_flag set, which MPEG-2 forbids", offset);
  } else if (s->constrained) {
    /* 11172-2 2.4.3.2: the constrained parameter set */
    guint mbs = mb_columns (s) * mb_rows (s);
    if (s->width > 768 || s->height > 576 || mbs > 396 ||
        (s->fps_d && (guint64) mbs * s->fps_n > 396ull * 25 * s->fps_d) ||
        s->frame_rate_code > 5 || s->bit_rate_code > 4640 ||
        s->vbv_buffer_size_code > 20)
      ERR (p, "sequence header at byte %" G_GUINT64_FORMAT ": "
          "constrained_parameters_flag set but %ux%u at code %u, bit_rate "
          "code %u, vbv_buffer_size %u exceed the constrained parameters",
          offset, s->width, s->height, s->frame_rate_code, s->bit_rate_code,
          s->vbv_buffer_size_code);
  }

  /* each sequence header sets the matrices, loaded or the defaults */
  set_matrices (p, s);

  cur = current_sequence (p);
  if (p->header_starts_sequence) {
    s->first_picture = p->r->pictures->len;
    p->seq_types = 0;
    g_array_append_val (p->r->sequences, *s);
    p->seq = p->r->sequences->len - 1;
    if (p->opts->expect_width && (s->width != p->opts->expect_width ||
            s->height != p->opts->expect_height))
      ERR (p, "sequence %d is %ux%u, expected %ux%u", p->seq, s->width,
          s->height, p->opts->expect_width, p->opts->expect_height);
    return;
  }
  if (s->width != cur->width || s->height != cur->height ||
      s->aspect_code != cur->aspect_code ||
      s->frame_rate_code != cur->frame_rate_code ||
      s->bit_rate_code != cur->bit_rate_code ||
      s->vbv_buffer_size_code != cur->vbv_buffer_size_code ||
      s->constrained != cur->constrained)
    ERR (p, "repeated sequence header at byte %" G_GUINT64_FORMAT " changes "
        "%ux%u aspect %u rate %u bit_rate %u vbv %u to %ux%u aspect %u "
        "rate %u bit_rate %u vbv %u within a sequence (a new sequence needs "
        "a sequence_end_code first)", offset, cur->width, cur->height,
        cur->aspect_code, cur->frame_rate_code, cur->bit_rate_code,
        cur->vbv_buffer_size_code, s->width, s->height, s->aspect_code,
        s->frame_rate_code, s->bit_rate_code, s->vbv_buffer_size_code);
  if (s->mpeg2 != cur->mpeg2)
    ERR (p, "repeated sequence header at byte %" G_GUINT64_FORMAT " is %s "
        "sequence_extension, unlike the first of its sequence (MPEG-1 and "
        "MPEG-2 do not mix)", offset, s->mpeg2 ? "followed by a" :
        "without a");
  else if (s->mpeg2 && (s->profile_and_level != cur->profile_and_level ||
          s->progressive_sequence != cur->progressive_sequence ||
          s->chroma_format != cur->chroma_format ||
          s->low_delay != cur->low_delay ||
          s->frame_rate_extension_n != cur->frame_rate_extension_n ||
          s->frame_rate_extension_d != cur->frame_rate_extension_d))
    ERR (p, "repeated sequence_extension after byte %" G_GUINT64_FORMAT
        " changes profile_and_level 0x%02X progressive_sequence %u "
        "chroma_format %u low_delay %u frame_rate_extension %u/%u to 0x%02X "
        "%u %u %u %u/%u within a sequence", offset, cur->profile_and_level,
        cur->progressive_sequence, cur->chroma_format, cur->low_delay,
        cur->frame_rate_extension_n, cur->frame_rate_extension_d,
        s->profile_and_level, s->progressive_sequence, s->chroma_format,
        s->low_delay, s->frame_rate_extension_n, s->frame_rate_extension_d);
}

/* @end: where the next unit starts */
static void
parse_sequence_header (Parser * p, guint64 offset, guint64 end, Bits * b)
{
  MpegCheckSequence *s = &p->header;
  guint i;

  memset (s, 0, sizeof (*s));
  s->width = bits_get (b, 12);
  s->height = bits_get (b, 12);
  s->aspect_code = bits_get (b, 4);
  s->frame_rate_code = bits_get (b, 4);
  s->bit_rate_code = bits_get (b, 18);
  if (!bits_get (b, 1))
    ERR (p, "sequence header at byte %" G_GUINT64_FORMAT ": marker bit "
        "after bit_rate is 0", offset);
  s->vbv_buffer_size_code = bits_get (b, 10);
  s->constrained = bits_get (b, 1);
  s->load_intra_matrix = bits_get (b, 1);
  for (i = 0; s->load_intra_matrix && i < 64; i++)
    s->intra_matrix[i] = bits_get (b, 8);
  s->load_non_intra_matrix = bits_get (b, 1);
  for (i = 0; s->load_non_intra_matrix && i < 64; i++)
    s->non_intra_matrix[i] = bits_get (b, 8);
  if (b->overrun) {
    ERR (p, "sequence header at byte %" G_GUINT64_FORMAT " is truncated",
        offset);
    return;
  }
  s->chroma_format = MPEGCHECK_CHROMA_420;
  s->progressive_sequence = TRUE;
  p->header_offset = offset;
  p->header_starts_sequence = (p->state == ST_START ||
      p->state == ST_ENDED || !current_sequence (p));
  /* the sequence extension right after it makes the sequence MPEG-2; its
   * values complete the header's */
  s->mpeg2 = is_extension (p, end, EXT_SEQUENCE);
  if (s->mpeg2) {
    p->header_waiting = TRUE;
    set_place (p, PLACE_SEQ_HEADER);
  } else {
    finish_sequence_header (p);
    set_place (p, PLACE_NONE);
  }
}

static const gchar *
profile_name (MpegCheckProfile profile)
{
  switch (profile) {
    case MPEGCHECK_PROFILE_HIGH:
      return "High";
    case MPEGCHECK_PROFILE_SPATIAL:
      return "Spatially scalable";
    case MPEGCHECK_PROFILE_SNR:
      return "SNR scalable";
    case MPEGCHECK_PROFILE_MAIN:
      return "Main";
    case MPEGCHECK_PROFILE_SIMPLE:
      return "Simple";
    case MPEGCHECK_PROFILE_422:
      return "4:2:2";
    case MPEGCHECK_PROFILE_MULTIVIEW:
      return "Multi-view";
    default:
      return "unknown";
  }
}

static const gchar *
level_name (MpegCheckLevel level)
{
  switch (level) {
    case MPEGCHECK_LEVEL_HIGH:
      return "High";
    case MPEGCHECK_LEVEL_HIGH_1440:
      return "High 1440";
    case MPEGCHECK_LEVEL_MAIN:
      return "Main";
    case MPEGCHECK_LEVEL_LOW:
      return "Low";
    default:
      return "unknown";
  }
}

static const gchar *
chroma_name (guint chroma_format)
{
  static const gchar *const names[4] = { "reserved", "4:2:0", "4:2:2",
    "4:4:4"
  };
  return names[chroma_format & 3];
}

#define LEVEL_BIT(l) (1u << (l))

/* profile_and_level_indication (13818-2 8.1, 8.2): a defined profile at a
 * level it is defined for, and a chroma format the profile has */
static void
check_profile_and_level (Parser * p, guint64 offset, MpegCheckSequence * s)
{
  static const struct
  {
    guint8 code;
    MpegCheckProfile profile;
    MpegCheckLevel level;
  } escaped[] = {
    {0x85, MPEGCHECK_PROFILE_422, MPEGCHECK_LEVEL_MAIN},
    {0x82, MPEGCHECK_PROFILE_422, MPEGCHECK_LEVEL_HIGH},
    {0x8E, MPEGCHECK_PROFILE_MULTIVIEW, MPEGCHECK_LEVEL_LOW},
    {0x8D, MPEGCHECK_PROFILE_MULTIVIEW, MPEGCHECK_LEVEL_MAIN},
    {0x8B, MPEGCHECK_PROFILE_MULTIVIEW, MPEGCHECK_LEVEL_HIGH_1440},
    {0x8A, MPEGCHECK_PROFILE_MULTIVIEW, MPEGCHECK_LEVEL_HIGH},
  };
  const guint all = LEVEL_BIT (MPEGCHECK_LEVEL_LOW) |
      LEVEL_BIT (MPEGCHECK_LEVEL_MAIN) | LEVEL_BIT (MPEGCHECK_LEVEL_HIGH_1440)
      | LEVEL_BIT (MPEGCHECK_LEVEL_HIGH);
  guint code = s->profile_and_level, levels = 0, max_chroma;
  guint i;

  if (code & 0x80) {
    for (i = 0; i < G_N_ELEMENTS (escaped); i++) {
      if (escaped[i].code == code) {
        s->profile = escaped[i].profile;
        s->level = escaped[i].level;
      }
    }
    levels = all;               /* each escaped code is a combination */
  } else {
    guint profile = (code >> 4) & 7, level = code & 15;
    if (profile >= MPEGCHECK_PROFILE_HIGH &&
        profile <= MPEGCHECK_PROFILE_SIMPLE && (all & LEVEL_BIT (level))) {
      s->profile = profile;
      s->level = level;
    }
    switch (s->profile) {
      case MPEGCHECK_PROFILE_SIMPLE:
        levels = LEVEL_BIT (MPEGCHECK_LEVEL_MAIN);
        break;
      case MPEGCHECK_PROFILE_MAIN:
        levels = all;
        break;
      case MPEGCHECK_PROFILE_SNR:
        levels = LEVEL_BIT (MPEGCHECK_LEVEL_LOW) |
            LEVEL_BIT (MPEGCHECK_LEVEL_MAIN);
        break;
      case MPEGCHECK_PROFILE_SPATIAL:
        levels = LEVEL_BIT (MPEGCHECK_LEVEL_HIGH_1440);
        break;
      default:
        levels = all & ~LEVEL_BIT (MPEGCHECK_LEVEL_LOW);
        break;
    }
  }
  if (s->profile == MPEGCHECK_PROFILE_NONE) {
    ERR (p, "sequence_extension at byte %" G_GUINT64_FORMAT ": "
        "profile_and_level_indication 0x%02X is reserved", offset, code);
    return;
  }
  if (!(levels & LEVEL_BIT (s->level)))
    ERR (p, "sequence_extension at byte %" G_GUINT64_FORMAT ": "
        "profile_and_level_indication 0x%02X: the %s profile has no %s "
        "level", offset, code, profile_name (s->profile),
        level_name (s->level));
  max_chroma = (s->profile == MPEGCHECK_PROFILE_HIGH ||
      s->profile == MPEGCHECK_PROFILE_422) ? MPEGCHECK_CHROMA_422 :
      MPEGCHECK_CHROMA_420;
  if (s->chroma_format > max_chroma)
    ERR (p, "sequence_extension at byte %" G_GUINT64_FORMAT ": chroma_format "
        "%s in the %s profile, which has %s at most", offset,
        chroma_name (s->chroma_format), profile_name (s->profile),
        chroma_name (max_chroma));
  if (s->aspect_code == 4)
    ERR (p, "sequence_extension at byte %" G_GUINT64_FORMAT ": "
        "aspect_ratio_information 4 (2.21:1) in the %s profile, which does "
        "not have it", offset, profile_name (s->profile));
}

/* 13818-2 6.2.2.3: completes the header waiting for it */
static void
parse_sequence_extension (Parser * p, guint64 offset, Bits * b)
{
  MpegCheckSequence *s = &p->header;

  s->profile_and_level = bits_get (b, 8);
  s->progressive_sequence = bits_get (b, 1);
  s->chroma_format = bits_get (b, 2);
  s->width |= bits_get (b, 2) << 12;
  s->height |= bits_get (b, 2) << 12;
  s->bit_rate_code |= bits_get (b, 12) << 18;
  if (!bits_get (b, 1))
    ERR (p, "sequence_extension at byte %" G_GUINT64_FORMAT ": marker bit "
        "after bit_rate_extension is 0", offset);
  s->vbv_buffer_size_code |= bits_get (b, 8) << 10;
  s->low_delay = bits_get (b, 1);
  s->frame_rate_extension_n = bits_get (b, 2);
  s->frame_rate_extension_d = bits_get (b, 5);
  if (b->overrun)
    ERR (p, "sequence_extension at byte %" G_GUINT64_FORMAT " is truncated",
        offset);
  if (s->chroma_format == 0)
    ERR (p, "sequence_extension at byte %" G_GUINT64_FORMAT ": reserved "
        "chroma_format 0", offset);
  check_profile_and_level (p, offset, s);
  finish_sequence_header (p);
}

/* 13818-2 6.2.2.4: recorded in the sequence, the last one counts */
static void
parse_sequence_display_extension (Parser * p, guint64 offset, Bits * b)
{
  MpegCheckSequence *s = current_sequence (p);
  guint format, primaries = 0, transfer = 0, matrix = 0, width, height;
  gboolean colour;

  format = bits_get (b, 3);
  colour = bits_get (b, 1);
  if (colour) {
    primaries = bits_get (b, 8);
    transfer = bits_get (b, 8);
    matrix = bits_get (b, 8);
  }
  width = bits_get (b, 14);
  if (!bits_get (b, 1))
    ERR (p, "sequence_display_extension at byte %" G_GUINT64_FORMAT ": "
        "marker bit after display_horizontal_size is 0", offset);
  height = bits_get (b, 14);
  if (b->overrun) {
    ERR (p, "sequence_display_extension at byte %" G_GUINT64_FORMAT " is "
        "truncated", offset);
    return;
  }
  if (format > 5)
    ERR (p, "sequence_display_extension at byte %" G_GUINT64_FORMAT ": "
        "reserved video_format %u", offset, format);
  if (colour && (primaries == 0 || transfer == 0 || matrix == 0))
    ERR (p, "sequence_display_extension at byte %" G_GUINT64_FORMAT ": "
        "colour_primaries %u, transfer_characteristics %u, "
        "matrix_coefficients %u: 0 is forbidden", offset, primaries,
        transfer, matrix);
  if (!s)
    return;
  s->display_extension = TRUE;
  s->video_format = format;
  s->colour_description = colour;
  s->colour_primaries = primaries;
  s->transfer_characteristics = transfer;
  s->matrix_coefficients = matrix;
  s->display_width = width;
  s->display_height = height;
}

/* 13818-2 6.2.3.2: new matrices until the next sequence header; a new
 * intra or non-intra matrix is the chroma one too unless that one
 * follows */
static void
parse_quant_matrix_extension (Parser * p, guint64 offset, Bits * b)
{
  static const gchar *const names[4] = { "intra", "non_intra",
    "chroma_intra", "chroma_non_intra"
  };
  guint8 *matrices[4] = { p->intra_matrix, p->non_intra_matrix,
    p->chroma_intra_matrix, p->chroma_non_intra_matrix
  };
  MpegCheckSequence *s = current_sequence (p);
  guint m, i;

  p->pic.quant_matrix_extension = TRUE;
  for (m = 0; m < 4; m++) {
    guint8 values[64];
    gboolean zero = FALSE;

    if (!bits_get (b, 1))
      continue;
    for (i = 0; i < 64; i++) {
      values[i] = bits_get (b, 8);
      zero |= values[i] == 0;
    }
    if (b->overrun)
      break;
    if ((m == 0 || m == 2) && values[0] != 8)
      ERR (p, "quant_matrix_extension at byte %" G_GUINT64_FORMAT ": %s "
          "matrix starts with %u, not 8", offset, names[m], values[0]);
    if (zero)
      ERR (p, "quant_matrix_extension at byte %" G_GUINT64_FORMAT ": the %s "
          "matrix holds 0", offset, names[m]);
    if (m >= 2 && s && s->chroma_format == MPEGCHECK_CHROMA_420)
      ERR (p, "quant_matrix_extension at byte %" G_GUINT64_FORMAT ": a %s "
          "matrix in a 4:2:0 sequence (which has none)", offset, names[m]);
    for (i = 0; i < 64; i++) {
      matrices[m][zigzag[i]] = values[i];
      if (m < 2)
        matrices[m + 2][zigzag[i]] = values[i];
    }
  }
  if (b->overrun)
    ERR (p, "quant_matrix_extension at byte %" G_GUINT64_FORMAT " is "
        "truncated", offset);
}

static gboolean
f_code_used (const MpegCheckPicture * pic, guint s)
{
  if (s == 1)
    return pic->coding_type == 3;
  return pic->coding_type == 2 || pic->coding_type == 3 ||
      (pic->coding_type == 1 && pic->concealment_motion_vectors);
}

/* The open picture's macroblocks are parsed where its headers give all
 * they need, and one of the kinds this checker knows. */
static void
start_macroblocks (Parser * p)
{
  MpegCheckSequence *s = current_sequence (p);
  MpegCheckPicture *pic = &p->pic;
  guint i;

  if (!p->opts->check_macroblocks || !s || !s->width || !s->height ||
      p->pic_header_truncated || pic->coding_type < 1 ||
      pic->coding_type > (s->mpeg2 ? 3 : 4))
    return;
  if (s->mpeg2) {
    if (!pic->coding_extension || s->scalable || s->chroma_format == 0 ||
        pic->picture_structure != MPEGCHECK_FRAME)
      return;
    for (i = 0; i < 4; i++)
      if (f_code_used (pic, i / 2) && (pic->f_code[i / 2][i % 2] == 0 ||
              pic->f_code[i / 2][i % 2] > 9))
        return;
  } else if ((pic->coding_type == 2 || pic->coding_type == 3) &&
      (pic->forward_f_code < 1 || pic->forward_f_code > 7 ||
          (pic->coding_type == 3 &&
              (pic->backward_f_code < 1 || pic->backward_f_code > 7)))) {
    return;
  }
  p->n_mbs = mb_columns (s) * mb_rows (s);
  p->covered = g_new0 (guint8, p->n_mbs);
}

/* Field pictures come in pairs of opposite parity and one
 * temporal_reference; only the frame's first counts for its GOP. */
static void
pair_fields (Parser * p)
{
  MpegCheckPicture *pic = &p->pic;
  gboolean field = pic->picture_structure == MPEGCHECK_TOP_FIELD ||
      pic->picture_structure == MPEGCHECK_BOTTOM_FIELD;

  if (field && !p->fields_reported) {
    ERR (p, "picture %u (byte %" G_GUINT64_FORMAT ") is a field picture: "
        "field pictures are not supported by this checker (their headers "
        "are checked, their macroblocks not)", pic->index, pic->offset);
    p->fields_reported = TRUE;
  }
  if (field && p->first_field_open &&
      pic->picture_structure != p->first_field_structure &&
      pic->temporal_reference == p->first_field_tref) {
    p->first_field_open = FALSE;
    if (p->gop_numbered && p->gop_trefs->len)
      g_array_set_size (p->gop_trefs, p->gop_trefs->len - 1);
    return;
  }
  if (p->first_field_open)
    ERR (p, "picture %u (byte %" G_GUINT64_FORMAT ") is not the second "
        "field of the field picture before it", pic->index, pic->offset);
  p->first_field_open = field;
  p->first_field_structure = pic->picture_structure;
  p->first_field_tref = pic->temporal_reference;
}

/* 13818-2 6.2.3.1, 6.3.10 */
static void
parse_picture_coding_extension (Parser * p, guint64 offset, Bits * b)
{
  MpegCheckPicture *pic = &p->pic;
  MpegCheckSequence *s = current_sequence (p);
  guint i;

  for (i = 0; i < 4; i++)
    pic->f_code[i / 2][i % 2] = bits_get (b, 4);
  pic->intra_dc_precision = bits_get (b, 2);
  pic->picture_structure = bits_get (b, 2);
  pic->top_field_first = bits_get (b, 1);
  pic->frame_pred_frame_dct = bits_get (b, 1);
  pic->concealment_motion_vectors = bits_get (b, 1);
  pic->q_scale_type = bits_get (b, 1);
  pic->intra_vlc_format = bits_get (b, 1);
  pic->alternate_scan = bits_get (b, 1);
  pic->repeat_first_field = bits_get (b, 1);
  pic->chroma_420_type = bits_get (b, 1);
  pic->progressive_frame = bits_get (b, 1);
  pic->composite_display = bits_get (b, 1);
  if (pic->composite_display)
    bits_get (b, 1 + 3 + 1 + 7 + 8);    /* v_axis .. sub_carrier_phase */
  if (b->overrun) {
    ERR (p, "picture_coding_extension at byte %" G_GUINT64_FORMAT " is "
        "truncated", offset);
    return;
  }
  pic->coding_extension = TRUE;

  for (i = 0; i < 4; i++) {
    guint f = pic->f_code[i / 2][i % 2];
    if (f_code_used (pic, i / 2) ? (f == 0 || f > 9) : f != 15)
      ERR (p, "picture %u (byte %" G_GUINT64_FORMAT "): f_code[%u][%u] %u, "
          "%s", pic->index, pic->offset, i / 2, i % 2, f,
          f_code_used (pic, i / 2) ? "outside 1..9" : "not 15 where the "
          "picture has no such vectors");
  }
  if (pic->intra_dc_precision == 3 && s &&
      s->profile != MPEGCHECK_PROFILE_HIGH &&
      s->profile != MPEGCHECK_PROFILE_422 &&
      s->profile != MPEGCHECK_PROFILE_NONE)
    ERR (p, "picture %u (byte %" G_GUINT64_FORMAT "): intra_dc_precision 11 "
        "bits in the %s profile (8 to 10 only)", pic->index, pic->offset,
        profile_name (s->profile));
  if (pic->picture_structure == 0) {
    ERR (p, "picture %u (byte %" G_GUINT64_FORMAT "): reserved "
        "picture_structure 0", pic->index, pic->offset);
  } else if (pic->picture_structure != MPEGCHECK_FRAME) {
    if (pic->frame_pred_frame_dct || pic->repeat_first_field ||
        pic->top_field_first || pic->progressive_frame)
      ERR (p, "picture %u (byte %" G_GUINT64_FORMAT "): a field picture "
          "with frame_pred_frame_dct %u, repeat_first_field %u, "
          "top_field_first %u, progressive_frame %u (all must be 0)",
          pic->index, pic->offset, pic->frame_pred_frame_dct,
          pic->repeat_first_field, pic->top_field_first,
          pic->progressive_frame);
  }
  if (s && s->progressive_sequence &&
      (!pic->progressive_frame || pic->picture_structure != MPEGCHECK_FRAME))
    ERR (p, "picture %u (byte %" G_GUINT64_FORMAT "): progressive_frame %u, "
        "picture_structure %u in a progressive sequence (must be 1 and "
        "frame)", pic->index, pic->offset, pic->progressive_frame,
        pic->picture_structure);
  if (s && s->progressive_sequence && !pic->repeat_first_field &&
      pic->top_field_first)
    ERR (p, "picture %u (byte %" G_GUINT64_FORMAT "): top_field_first set "
        "without repeat_first_field in a progressive sequence", pic->index,
        pic->offset);
  if (s && s->progressive_sequence && !pic->frame_pred_frame_dct)
    ERR (p, "picture %u (byte %" G_GUINT64_FORMAT "): frame_pred_frame_dct 0 "
        "in a progressive sequence", pic->index, pic->offset);
  if (pic->repeat_first_field && !pic->progressive_frame &&
      pic->picture_structure == MPEGCHECK_FRAME)
    ERR (p, "picture %u (byte %" G_GUINT64_FORMAT "): repeat_first_field "
        "in an interlaced frame", pic->index, pic->offset);
  if (s && pic->chroma_420_type != (s->chroma_format == MPEGCHECK_CHROMA_420
          && pic->progressive_frame))
    ERR (p, "picture %u (byte %" G_GUINT64_FORMAT "): chroma_420_type %u, "
        "not %u (progressive_frame in 4:2:0, 0 otherwise)", pic->index,
        pic->offset, pic->chroma_420_type, !pic->chroma_420_type);
  pair_fields (p);
  start_macroblocks (p);
}

/* extension_start_code and its identifier's extension (13818-2 6.2.2.2,
 * 6.2.3.1); those the syntax has no place for here are errors */
static void
parse_extension (Parser * p, guint64 offset, Bits * b)
{
  static const guint allowed[] = {
    [PLACE_NONE] = 0,
    [PLACE_SEQ_HEADER] = 1u << EXT_SEQUENCE,
    [PLACE_SEQUENCE] = 1u << EXT_SEQUENCE_DISPLAY |
        1u << EXT_SEQUENCE_SCALABLE,
    [PLACE_GOP] = 0,
    [PLACE_PIC_HEADER] = 1u << EXT_PICTURE_CODING,
    [PLACE_PICTURE] = 1u << EXT_QUANT_MATRIX | 1u << EXT_COPYRIGHT |
        1u << EXT_PICTURE_DISPLAY | 1u << EXT_PICTURE_SPATIAL_SCALABLE |
        1u << EXT_PICTURE_TEMPORAL_SCALABLE | 1u << EXT_CAMERA_PARAMETERS |
        1u << EXT_ITU_T,
  };
  static const gchar *const places[] = {
    [PLACE_NONE] = "where no extension goes",
    [PLACE_SEQ_HEADER] = "right after a sequence header",
    [PLACE_SEQUENCE] = "after a sequence_extension",
    [PLACE_GOP] = "after a GOP header (user data only)",
    [PLACE_PIC_HEADER] = "right after a picture header",
    [PLACE_PICTURE] = "after a picture_coding_extension",
  };
  MpegCheckSequence *s = current_sequence (p);
  guint id = bits_get (b, 4);
  const gchar *name = extension_names[id];

  if (!p->header_waiting && !(s && s->mpeg2)) {
    if (!p->mpeg2_reported)
      ERR (p, "extension start code at byte %" G_GUINT64_FORMAT " in an "
          "MPEG-1 sequence (an MPEG-2 sequence header has a "
          "sequence_extension right after it)", offset);
    p->mpeg2_reported = TRUE;
    return;
  }
  if (!name) {
    ERR (p, "extension at byte %" G_GUINT64_FORMAT ": reserved "
        "extension_start_code_identifier %u", offset, id);
    return;
  }
  if (!(allowed[p->place] & (1u << id))) {
    ERR (p, "%s at byte %" G_GUINT64_FORMAT " %s", name, offset,
        places[p->place]);
    return;
  }
  if (p->place_extensions & (1u << id)) {
    ERR (p, "a second %s at byte %" G_GUINT64_FORMAT, name, offset);
    return;
  }
  p->place_extensions |= 1u << id;

  switch (id) {
    case EXT_SEQUENCE:
      parse_sequence_extension (p, offset, b);
      set_place (p, PLACE_SEQUENCE);
      break;
    case EXT_SEQUENCE_DISPLAY:
      parse_sequence_display_extension (p, offset, b);
      break;
    case EXT_QUANT_MATRIX:
      parse_quant_matrix_extension (p, offset, b);
      break;
    case EXT_PICTURE_CODING:
      parse_picture_coding_extension (p, offset, b);
      set_place (p, PLACE_PICTURE);
      break;
    case EXT_SEQUENCE_SCALABLE:
      /* scalable streams have slices and macroblocks of another syntax */
      if (s)
        s->scalable = TRUE;
      ERR (p, "%s at byte %" G_GUINT64_FORMAT ": scalable streams are not "
          "supported by this checker (their macroblocks are not checked)",
          name, offset);
      break;
    default:
      if (!(p->noted_extensions & (1u << id)))
        add_note (p->r, "%s at byte %" G_GUINT64_FORMAT " (and any later "
            "ones) skipped: not checked", name, offset);
      p->noted_extensions |= 1u << id;
      break;
  }
}

/* An MPEG-2 picture header without its picture_coding_extension: its
 * macroblocks cannot be parsed. */
static void
missing_coding_extension (Parser * p)
{
  ERR (p, "picture %u (byte %" G_GUINT64_FORMAT ") has no "
      "picture_coding_extension (MPEG-2 has one after every picture "
      "header)", p->pic.index, p->pic.offset);
  set_place (p, PLACE_NONE);
}

static void
parse_gop_header (Parser * p, guint64 offset, Bits * b)
{
  const MpegCheckSequence *s = current_sequence (p);
  guint closed, broken, drop, hours, minutes, seconds, pictures;
  TimeCode tc = { offset, p->r->pictures->len, -1 };

  drop = bits_get (b, 1);
  hours = bits_get (b, 5);
  minutes = bits_get (b, 6);
  if (!bits_get (b, 1))
    ERR (p, "GOP header at byte %" G_GUINT64_FORMAT ": marker bit in "
        "time_code is 0", offset);
  seconds = bits_get (b, 6);
  pictures = bits_get (b, 6);
  /* (the nominal rate counts the pictures of a second: 30 at 29.97) */
  if (!drop && s && s->fps_n > 0)
    tc.frames = ((hours * 60 + minutes) * 60 + seconds) *
        (gint64) ((s->fps_n + s->fps_d - 1) / s->fps_d) + pictures;
  g_array_append_val (p->time_codes, tc);
  closed = bits_get (b, 1);
  broken = bits_get (b, 1);
  if (b->overrun)
    ERR (p, "GOP header at byte %" G_GUINT64_FORMAT " is truncated", offset);
  if (p->opts->require_closed_gop && !closed)
    ERR (p, "GOP %u (byte %" G_GUINT64_FORMAT ") is not closed",
        p->r->n_gops, offset);
  if (broken)
    add_note (p->r, "GOP %u (byte %" G_GUINT64_FORMAT ") has broken_link set",
        p->r->n_gops, offset);
  if (p->opts->require_seq_header_per_gop && !p->seq_header_since_picture)
    ERR (p, "GOP %u (byte %" G_GUINT64_FORMAT ") is not preceded by a "
        "sequence header", p->r->n_gops, offset);
}

/* MPEG-2 keeps the picture header's MPEG-1 vector fields at fixed values
 * (13818-2 6.3.9): the vectors' f_codes are in the coding extension. */
static void
check_fixed_f_code (Parser * p, const gchar * direction, gboolean full_pel,
    guint f_code)
{
  if (full_pel || f_code != 7)
    ERR (p, "picture %u (byte %" G_GUINT64_FORMAT "): full_pel_%s_vector %u "
        "and %s_f_code %u, MPEG-2 wants 0 and 7", p->pic.index,
        p->pic.offset, direction, full_pel, direction, f_code);
}

static void
parse_picture_header (Parser * p, guint64 offset, Bits * b)
{
  MpegCheckPicture *pic = &p->pic;
  MpegCheckSequence *s = current_sequence (p);
  static const gchar type_names[] = "?IPBD";
  guint limit = (s && s->constrained) ? 4 : 7;
  gboolean mpeg2 = s && s->mpeg2;
  guint extra_bytes = 0;

  memset (pic, 0, sizeof (*pic));
  pic->index = p->r->pictures->len;
  pic->sequence = p->seq < 0 ? G_MAXUINT : (guint) p->seq;
  pic->gop = p->r->n_gops ? p->r->n_gops - 1 : 0;
  pic->offset = offset;
  pic->au_start = p->have_pending ? p->au_pending : offset;
  p->have_pending = FALSE;
  p->pic_open = TRUE;
  p->last_slice_address = -1;
  p->rows_ok = TRUE;

  pic->temporal_reference = bits_get (b, 10);
  pic->coding_type = bits_get (b, 3);
  pic->vbv_delay = bits_get (b, 16);
  if (pic->coding_type == 2 || pic->coding_type == 3) {
    pic->full_pel_forward = bits_get (b, 1);
    pic->forward_f_code = bits_get (b, 3);
    if (mpeg2)
      check_fixed_f_code (p, "forward", pic->full_pel_forward,
          pic->forward_f_code);
    else if (pic->forward_f_code == 0 || pic->forward_f_code > limit)
      ERR (p, "picture %u (byte %" G_GUINT64_FORMAT "): forward_f_code %u "
          "outside 1..%u", pic->index, offset, pic->forward_f_code, limit);
  }
  if (pic->coding_type == 3) {
    pic->full_pel_backward = bits_get (b, 1);
    pic->backward_f_code = bits_get (b, 3);
    if (mpeg2)
      check_fixed_f_code (p, "backward", pic->full_pel_backward,
          pic->backward_f_code);
    else if (pic->backward_f_code == 0 || pic->backward_f_code > limit)
      ERR (p, "picture %u (byte %" G_GUINT64_FORMAT "): backward_f_code %u "
          "outside 1..%u", pic->index, offset, pic->backward_f_code, limit);
  }
  while (bits_get (b, 1) && !b->overrun) {
    bits_get (b, 8);            /* extra_information_picture */
    extra_bytes++;
  }
  p->pic_header_truncated = b->overrun;
  if (b->overrun)
    ERR (p, "picture header at byte %" G_GUINT64_FORMAT " is truncated",
        offset);
  else if (mpeg2 && extra_bytes)
    ERR (p, "picture %u (byte %" G_GUINT64_FORMAT "): %u bytes of "
        "extra_information_picture, which MPEG-2 reserves", pic->index,
        offset, extra_bytes);

  if (pic->coding_type < 1 || pic->coding_type > (mpeg2 ? 3 : 4)) {
    ERR (p, "picture %u (byte %" G_GUINT64_FORMAT "): picture_coding_type "
        "%u is forbidden or reserved", pic->index, offset, pic->coding_type);
  } else {
    guint others = p->seq_types & ~(1u << 4);

    p->r->n_type[pic->coding_type]++;
    /* a sequence of D pictures holds nothing else (11172-2 2.4.1) */
    if (!(p->seq_types & (1u << pic->coding_type)) &&
        ((pic->coding_type == 4 && others) ||
            (pic->coding_type != 4 && (p->seq_types & (1u << 4)))))
      ERR (p, "picture %u (byte %" G_GUINT64_FORMAT ") is a %c picture in a "
          "sequence that also has %s pictures: D pictures are not mixed with "
          "other types", pic->index, offset, type_names[pic->coding_type],
          pic->coding_type == 4 ? "I, P or B" : "D");
    p->seq_types |= 1u << pic->coding_type;
    if (p->gop_first_picture && pic->coding_type != 1 &&
        pic->coding_type != 4)
      ERR (p, "picture %u (byte %" G_GUINT64_FORMAT ") is the first of GOP "
          "%u but a %c picture, not I", pic->index, offset, pic->gop,
          type_names[pic->coding_type]);
    if (mpeg2 && pic->coding_type == 3 &&
        (s->low_delay || s->profile == MPEGCHECK_PROFILE_SIMPLE))
      ERR (p, "picture %u (byte %" G_GUINT64_FORMAT ") is a B picture in a "
          "sequence with %s", pic->index, offset, s->low_delay ?
          "low_delay set" : "the Simple profile");
  }
  if (p->gop_numbered)
    g_array_append_val (p->gop_trefs, pic->temporal_reference);
  p->gop_first_picture = FALSE;
  p->seq_header_since_picture = FALSE;

  g_clear_pointer (&p->covered, g_free);
  p->n_mbs = 0;
  /* MPEG-2: once the picture_coding_extension is there */
  if (mpeg2)
    set_place (p, PLACE_PIC_HEADER);
  else
    start_macroblocks (p);
}

/* ---- macroblock layer ---- */

/* How a macroblock predicts (MPEG-1 has frame prediction only; 13818-2
 * table 6-17 frame_motion_type) */
typedef enum
{
  MOTION_FRAME,
  MOTION_FIELD,                 /* a vector per field, in field lines */
  MOTION_DUAL_PRIME,
} Motion;

/* quantiser_scale for quantiser_scale_code with q_scale_type 1 (13818-2
 * table 7-6) */
static const guint8 non_linear_quantiser_scale[32] = {
  0, 1, 2, 3, 4, 5, 6, 7, 8, 10, 12, 14, 16, 18, 20, 22, 24,
  28, 32, 36, 40, 44, 48, 52, 56, 64, 72, 80, 88, 96, 104, 112,
};

typedef struct
{
  Parser *p;
  Bits *b;
  guint64 base_bit;             /* the stream's bit at b->data[0] */
  guint64 offset;               /* of the slice start code */
  guint index;                  /* of the slice within its picture */
  guint type;                   /* picture_coding_type */
  guint cols, rows;
  gint row;                     /* MPEG-2: the slice's macroblock row */
  gint address;                 /* the macroblock being parsed */
  guint quant_code;             /* MPEG-2: quantiser_scale_code */
  guint quant;                  /* quantizer_scale (MPEG-2: from the code) */
  gint dc_pred[3];              /* Y, Cb, Cr, in units of the DC's step */
  gint pmv[2][2][2];            /* [first, second][forward, backward]
                                 * [horizontal, vertical]: the predictors,
                                 * in f_code's units */
  gint mv[2][2][2];             /* the last vectors, half-pels */
  gint dual_prime[2][2];        /* [top, bottom field] vectors from the
                                 * other parity, half-pels */
  guint prev_flags;             /* the last coded macroblock's type */
  Motion prev_motion;
  gsize elem;                   /* where the element being read starts */
  gboolean stop;                /* a syntax error ended the slice's parse */
  /* the picture's coding */
  gboolean mpeg2;
  guint f_code[2][2];           /* [forward, backward][horizontal, vertical] */
  gboolean full_pel[2];
  guint block_count;            /* 6, 8 or 12 (4:2:0, 4:2:2, 4:4:4) */
  const guint8 *scan;           /* scan position to row-major position */
  gint dc_step;                 /* intra_dc_mult: 8 >> intra_dc_precision */
  gint dc_max;                  /* largest DC, in steps */
  gboolean intra_slice;         /* every macroblock of the slice is intra */
} Slice;

static void
mb_error (Slice * sl, gboolean fatal, const gchar * fmt, ...)
    G_GNUC_PRINTF (3, 4);

/* An error of the macroblock layer; @fatal: the parse cannot go on in
 * step with the bits, so the rest of the slice is not parsed. */
static void
mb_error (Slice * sl, gboolean fatal, const gchar * fmt, ...)
{
  va_list args;
  gchar *msg;

  va_start (args, fmt);
  msg = g_strdup_vprintf (fmt, args);
  va_end (args);
  ERR (sl->p, "picture %u, slice %u (byte %" G_GUINT64_FORMAT "), "
      "macroblock %d, bit %" G_GUINT64_FORMAT ": %s", sl->p->pic.index,
      sl->index, sl->offset, sl->address, sl->base_bit + sl->elem, msg);
  g_free (msg);
  if (fatal) {
    sl->stop = TRUE;
    sl->p->pic.mb_syntax_error = TRUE;
  }
}

static gboolean
rest_is_zero (const Bits * b)
{
  Bits copy = *b;

  while (bits_left (&copy) >= 32)
    if (bits_get (&copy, 32))
      return FALSE;
  return bits_get (&copy, bits_left (&copy)) == 0;
}

static void
set_quant (Slice * sl, guint code)
{
  sl->quant_code = code;
  sl->quant = !sl->mpeg2 ? code : sl->p->pic.q_scale_type ?
      non_linear_quantiser_scale[code] : 2 * code;
}

/* @v / 2 rounded down, and rounded half away from zero (13818-2's DIV
 * and //) */
static gint
half_down (gint v)
{
  return v >= 0 ? v / 2 : -((1 - v) / 2);
}

static gint
half_rounded (gint v)
{
  return v >= 0 ? (v + 1) / 2 : -((1 - v) / 2);
}

/* One motion vector component (11172-2 2.4.4.2, 13818-2 7.6.3.1); FALSE
 * after an error. @field_vertical: the vertical component of a field
 * vector in a frame picture, which is predicted from half the predictor
 * and stored back doubled. (A frame vector after field vectors may so be
 * predicted from outside its range, up to twice it: the sum wraps once
 * into the range, whichever way the difference points.) */
static gboolean
read_motion (Slice * sl, guint f_code, const gchar * name, gint * pred,
    gboolean field_vertical, gboolean full_pel, gint * out)
{
  const VlcCode *c;
  guint r_size = f_code - 1, r = 0;
  gint f = 1 << r_size, code, delta, v, base;

  sl->elem = sl->b->pos;
  c = vlc_read (sl->b, VLC_MOTION);
  if (!c) {
    mb_error (sl, TRUE, "%s not in table %s", name, sl->mpeg2 ? "B.10" :
        "B.4");
    return FALSE;
  }
  code = c->a;
  /* motion_r is there only when it refines a nonzero code */
  if (f != 1 && code != 0)
    r = bits_get (sl->b, r_size);
  delta = code * f;
  if (delta > 0)
    delta -= f - 1 - (gint) r;
  else if (delta < 0)
    delta += f - 1 - (gint) r;
  base = field_vertical ? half_down (*pred) : *pred;
  v = base + delta;
  if (v < -16 * f)
    v += 32 * f;
  else if (v > 16 * f - 1)
    v -= 32 * f;
  if (v < -16 * f || v > 16 * f - 1) {
    mb_error (sl, TRUE, "%s %d reconstructs to %d, outside %d..%d for "
        "f_code %u", name, code, v, -16 * f, 16 * f - 1, f_code);
    return FALSE;
  }
  *pred = field_vertical ? v * 2 : v;
  *out = full_pel ? v * 2 : v;
  return TRUE;
}

/* dmvector (13818-2 table B.11) */
static gint
read_dmvector (Bits * b)
{
  if (bits_get (b, 1) == 0)
    return 0;
  return bits_get (b, 1) ? -1 : 1;
}

/* The vectors of direction @s (0 forward, 1 backward) for @motion
 * (11172-2 2.4.2.7, 13818-2 6.2.5.2 motion_vectors (s)); FALSE after an
 * error. */
static gboolean
read_vectors (Slice * sl, guint s, Motion motion)
{
  static const gchar *const components[2] = { "horizontal", "vertical" };
  static const gchar *const directions[2] = { "forward", "backward" };
  guint r, t, count = motion == MOTION_FIELD ? 2 : 1;
  gint dmv[2] = { 0, 0 };

  for (r = 0; r < count; r++) {
    if (motion == MOTION_FIELD)
      bits_get (sl->b, 1);      /* motion_vertical_field_select[r][s] */
    for (t = 0; t < 2; t++) {
      gchar name[48];

      if (sl->mpeg2)
        g_snprintf (name, sizeof (name), "motion_code[%u][%u][%u]", r, s, t);
      else
        g_snprintf (name, sizeof (name), "motion_%s_%s_code",
            components[t], directions[s]);
      if (!read_motion (sl, sl->f_code[s][t], name, &sl->pmv[r][s][t],
              motion != MOTION_FRAME && t == 1, sl->full_pel[s],
              &sl->mv[r][s][t]))
        return FALSE;
      if (motion == MOTION_DUAL_PRIME) {
        sl->elem = sl->b->pos;
        dmv[t] = read_dmvector (sl->b);
      }
    }
  }
  /* one vector: it predicts for both (13818-2 table 7-9) */
  if (count == 1)
    memcpy (sl->pmv[1][s], sl->pmv[0][s], sizeof (sl->pmv[1][s]));
  if (motion == MOTION_DUAL_PRIME) {
    /* 13818-2 7.6.3.6: the vectors to the fields of the other parity,
     * scaled by their distance (1 or 3 fields, top_field_first tells which)
     * and moved half a field line */
    gint near = sl->p->pic.top_field_first ? 1 : 3, far = 4 - near;
    for (t = 0; t < 2; t++) {
      sl->dual_prime[0][t] = half_rounded (sl->mv[0][0][t] * near) + dmv[t]
          - (t == 1);
      sl->dual_prime[1][t] = half_rounded (sl->mv[0][0][t] * far) + dmv[t]
          + (t == 1);
    }
  }
  return TRUE;
}

/* Predictions come from within the reference picture (taken to its whole
 * macroblocks): the area at @mv, with its half-pel neighbours, must lie
 * inside it. @field: a field vector, whose vertical component is in
 * lines of one field. Chroma's halved vector then does too. */
static void
check_reference (Slice * sl, gint address, const gint * mv, gboolean field,
    const gchar * direction)
{
  gint col = address % (gint) sl->cols, row = address / (gint) sl->cols;
  gint row_height = field ? 16 : 32;    /* half-pels */
  MpegCheckPicture *pic = &sl->p->pic;

  pic->max_vector = MAX (pic->max_vector, (guint) ABS (mv[0]));
  pic->max_vector = MAX (pic->max_vector, (guint) ABS (mv[1]));
  if (mv[0] < -32 * col || mv[0] > 32 * ((gint) sl->cols - 1 - col) ||
      mv[1] < -row_height * row ||
      mv[1] > row_height * ((gint) sl->rows - 1 - row)) {
    gint saved = sl->address;
    sl->address = address;
    mb_error (sl, FALSE, "%s vector (%d, %d) half-pels predicts from "
        "outside the picture's %ux%u macroblock area", direction, mv[0],
        mv[1], sl->cols * 16, sl->rows * 16);
    sl->address = saved;
  }
}

/* The areas macroblock @address predicts from with the vectors in
 * sl->mv for the directions of @flags; @skipped: a skipped macroblock
 * that repeats the one before it. */
static void
check_prediction (Slice * sl, gint address, guint flags, Motion motion,
    gboolean skipped)
{
  static const gchar *const directions[2] = { "forward", "backward" };
  static const gchar *const fields[2] = { "top field", "bottom field" };
  const gchar *suffix = skipped ? " (skipped macroblock)" : "";
  gchar label[96];
  guint s, r;

  for (s = 0; s < 2; s++) {
    if (!(flags & (s ? MB_BACKWARD : MB_FORWARD)))
      continue;
    if (motion == MOTION_FRAME) {
      g_snprintf (label, sizeof (label), "%s%s", directions[s], suffix);
      check_reference (sl, address, sl->mv[0][s], FALSE, label);
      continue;
    }
    for (r = 0; r < 2; r++) {
      if (motion == MOTION_FIELD) {
        g_snprintf (label, sizeof (label), "%s %s%s", directions[s],
            fields[r], suffix);
        check_reference (sl, address, sl->mv[r][s], TRUE, label);
      } else {
        g_snprintf (label, sizeof (label), "%s dual prime %s from the other "
            "parity%s", directions[s], fields[r], suffix);
        check_reference (sl, address, sl->dual_prime[r], TRUE, label);
      }
    }
    if (motion == MOTION_DUAL_PRIME) {
      g_snprintf (label, sizeof (label), "%s dual prime%s", directions[s],
          suffix);
      check_reference (sl, address, sl->mv[0][s], TRUE, label);
    }
  }
}

/* The coefficient's inverse quantisation (11172-2 2.4.4.1/2.4.4.2)
 * before its saturation. */
static gint
reconstruct (gint level, guint quant, guint weight, gboolean intra)
{
  gint sign = level > 0 ? 1 : -1;
  gint v = intra ? (2 * level * (gint) quant * (gint) weight) / 16 :
      ((2 * level + sign) * (gint) quant * (gint) weight) / 16;

  if (v != 0 && (v & 1) == 0)
    v -= sign;
  return v;
}

/* The same for MPEG-2 (13818-2 7.4.2.3): no oddification, whose place
 * mismatch control takes after the saturation; that one changes only
 * the last bit of one coefficient, which cannot leave the range. */
static gint
reconstruct_mpeg2 (gint level, guint quant, guint weight, gboolean intra)
{
  gint k = intra ? 0 : level > 0 ? 1 : -1;

  return ((2 * level + k) * (gint) weight * (gint) quant) / 32;
}

/* An MPEG-2 escape's 12-bit level; FALSE when it is a forbidden one. */
static gboolean
check_mpeg2_escape (Slice * sl, guint i, gint run, gint level,
    gboolean table_one)
{
  Parser *p = sl->p;

  if (level == 0 || level == -2048) {
    mb_error (sl, FALSE, "block %u: escape with level %d, which is "
        "forbidden", i, level);
    return FALSE;
  }
  /* legal, but a code of the table would have been shorter */
  if (run <= MAX_CODED_RUN && ABS (level) <= MAX_CODED_LEVEL &&
      coded_pairs[table_one][run][ABS (level)]) {
    if (p->wasteful_escapes++ == 0)
      p->first_wasteful_escape = g_strdup_printf ("picture %u, slice %u "
          "(byte %" G_GUINT64_FORMAT "), macroblock %d, bit %"
          G_GUINT64_FORMAT " (run %d, level %d)", p->pic.index, sl->index,
          sl->offset, sl->address, sl->base_bit + sl->elem, run, level);
  }
  return TRUE;
}

static void
parse_block (Slice * sl, guint i, gboolean intra)
{
  Bits *b = sl->b;
  Parser *p = sl->p;
  MpegCheckPicture *pic = &p->pic;
  /* 4:2:2 and 4:4:4 chroma has matrices of its own (13818-2 7.4.2.1) */
  gboolean chroma = i >= 4, chroma_matrices = chroma && sl->block_count > 6;
  const guint8 *weights = intra ? (chroma_matrices ?
      p->chroma_intra_matrix : p->intra_matrix) : (chroma_matrices ?
      p->chroma_non_intra_matrix : p->non_intra_matrix);
  gboolean table_one = intra && pic->intra_vlc_format;
  const VlcCode *c;
  gboolean first = !intra;
  gint n;                       /* scan position of the last coefficient */

  pic->n_blocks++;
  if (intra) {
    guint size, comp = chroma ? 1 + ((i - 4) & 1) : 0;
    gint diff = 0, dc;

    sl->elem = b->pos;
    c = vlc_read (b, sl->mpeg2 ? (chroma ? VLC_DC_CHROMA_MPEG2 :
            VLC_DC_LUMA_MPEG2) : (chroma ? VLC_DC_CHROMA : VLC_DC_LUMA));
    if (!c) {
      if (sl->mpeg2)
        mb_error (sl, TRUE, "block %u: dct_dc_size_%s not in table B.1%c",
            i, chroma ? "chrominance" : "luminance", chroma ? '3' : '2');
      else
        mb_error (sl, TRUE, "block %u: dct_dc_size_%s not in table B.5%c "
            "(sizes 0..8)", i, chroma ? "chrominance" : "luminance",
            chroma ? 'b' : 'a');
      return;
    }
    size = c->a;
    if (size) {
      guint v = bits_get (b, size);
      diff = (v >> (size - 1)) ? (gint) v : (gint) v - (1 << size) + 1;
    }
    dc = sl->dc_pred[comp] + diff;
    if (dc < 0 || dc > sl->dc_max) {
      if (sl->mpeg2)
        mb_error (sl, FALSE, "block %u: intra DC %d (predictor %d, "
            "dct_dc_differential %d) outside 0..%d for intra_dc_precision "
            "%u bits", i, dc, sl->dc_pred[comp], diff, sl->dc_max,
            8 + pic->intra_dc_precision);
      else
        mb_error (sl, FALSE, "block %u: intra DC %d (predictor %d, "
            "dct_dc_differential %d) outside 0..%d", i, dc * sl->dc_step,
            sl->dc_pred[comp] * sl->dc_step, diff, sl->dc_max * sl->dc_step);
      /* carried on within range: one bad differential, one error */
      dc = CLAMP (dc, 0, sl->dc_max);
    }
    sl->dc_pred[comp] = dc;
    if (sl->type == 4)
      return;                   /* D pictures: DC only */
    n = 0;
  } else {
    n = -1;
  }

  for (;;) {
    gint run, level;
    gboolean level_ok = TRUE;

    sl->elem = b->pos;
    if (b->overrun) {
      mb_error (sl, TRUE, "block %u: the slice's data ends before its "
          "end_of_block", i);
      return;
    }
    if (first && bits_peek (b, 1) == 1) {
      /* dct_coeff_first's "1s": run 0, level +-1 */
      run = 0;
      level = (bits_get (b, 2) & 1) ? -1 : 1;
    } else {
      c = vlc_read (b, table_one ? VLC_DCT_ONE : VLC_DCT);
      if (!c) {
        if (rest_is_zero (b))
          mb_error (sl, TRUE, "block %u: the slice's data ends before its "
              "end_of_block", i);
        else if (sl->mpeg2)
          mb_error (sl, TRUE, "block %u: DCT coefficient not in table %s",
              i, table_one ? "B.15" : "B.14");
        else
          mb_error (sl, TRUE, "block %u: dct_coeff_%s not in table B.5c/d",
              i, first ? "first" : "next");
        return;
      }
      if (c->a == DCT_EOB)
        break;
      if (c->a == DCT_ESCAPE && sl->mpeg2) {
        guint level12;

        pic->n_escapes++;
        run = bits_get (b, 6);
        level12 = bits_get (b, 12);
        level = level12 < 2048 ? (gint) level12 : (gint) level12 - 4096;
        level_ok = check_mpeg2_escape (sl, i, run, level, table_one);
      } else if (c->a == DCT_ESCAPE) {
        guint level8;

        pic->n_escapes++;
        run = bits_get (b, 6);
        level8 = bits_get (b, 8);
        if (level8 == 0x00 || level8 == 0x80) {
          /* the 16-bit forms, for 128..255 and -255..-128 only */
          guint low = bits_get (b, 8);
          level = level8 ? (gint) low - 256 : (gint) low;
          if (level == 0 || level == -256 || ABS (level) < 128)
            mb_error (sl, FALSE, "block %u: escape with 0x%02x 0x%02x: "
                "%s", i, level8, low, level == 0 ? "level 0" :
                level == -256 ? "level -256 is beyond -255" :
                "a level the 8-bit form codes, which is forbidden in the "
                "16-bit one");
        } else {
          level = level8 < 128 ? (gint) level8 : (gint) level8 - 256;
        }
      } else {
        run = c->a;
        level = bits_get (b, 1) ? -c->b : c->b;
      }
    }
    first = FALSE;
    n += run + 1;
    pic->n_coefficients++;
    if (n > 0)
      pic->n_ac_coefficients++;
    if (n > 63) {
      mb_error (sl, TRUE, "block %u: run %d puts a coefficient at scan "
          "position %d, beyond 63 (no end_of_block?)", i, run, n);
      return;
    }
    if (level != 0 && level_ok) {
      guint weight = weights[sl->scan[n]];
      gint v = sl->mpeg2 ?
          reconstruct_mpeg2 (level, sl->quant, weight, intra) :
          reconstruct (level, sl->quant, weight, intra);
      if (v < -2048 || v > 2047)
        mb_error (sl, FALSE, "block %u: level %d at scan position %d "
            "(%s %u, matrix %u) reconstructs to %d, outside -2048..2047", i,
            level, n, sl->mpeg2 ? "quantiser_scale" : "quantizer_scale",
            sl->quant, weight, v);
    }
  }
}

/* MPEG-2's frame_motion_type and dct_type (13818-2 6.2.5.1); FALSE after
 * an error */
static gboolean
read_macroblock_modes (Slice * sl, guint flags, Motion * motion)
{
  MpegCheckPicture *pic = &sl->p->pic;
  Bits *b = sl->b;

  *motion = MOTION_FRAME;
  if ((flags & (MB_FORWARD | MB_BACKWARD)) && !pic->frame_pred_frame_dct) {
    guint code;

    sl->elem = b->pos;
    code = bits_get (b, 2);
    if (code == 0) {
      mb_error (sl, TRUE, "frame_motion_type 0 is reserved");
      return FALSE;
    }
    *motion = code == 1 ? MOTION_FIELD : code == 2 ? MOTION_FRAME :
        MOTION_DUAL_PRIME;
    if (*motion == MOTION_DUAL_PRIME && sl->type != 2)
      mb_error (sl, FALSE, "dual prime prediction in a B picture (P "
          "pictures only)");
  }
  if (!pic->frame_pred_frame_dct && (flags & (MB_INTRA | MB_PATTERN)) &&
      bits_get (b, 1))
    pic->n_mb_field_dct++;      /* dct_type: field DCT */
  return TRUE;
}

/* The macroblock's type, vectors and blocks after its address. */
static void
parse_macroblock_body (Slice * sl, gsize mb_start)
{
  static const gchar type_names[] = "?IPBD";
  Bits *b = sl->b;
  Parser *p = sl->p;
  MpegCheckPicture *pic = &p->pic;
  const VlcCode *c;
  guint flags, cbp = 0, i, bits;
  gboolean concealment;
  Motion motion = MOTION_FRAME;

  if (p->covered[sl->address] < G_MAXUINT8)
    p->covered[sl->address]++;
  pic->n_mb_coded++;

  sl->elem = b->pos;
  c = vlc_read (b, VLC_MBTYPE_I + sl->type - 1);
  if (!c) {
    if (sl->mpeg2)
      mb_error (sl, TRUE, "macroblock_type not in table B.%c (%c pictures)",
          '2' + sl->type - 1, type_names[sl->type]);
    else
      mb_error (sl, TRUE, "macroblock_type not in table B.2%c (%c "
          "pictures)", 'a' + sl->type - 1, type_names[sl->type]);
    return;
  }
  flags = c->a;
  concealment = (flags & MB_INTRA) && pic->concealment_motion_vectors;
  if (sl->mpeg2 && !read_macroblock_modes (sl, flags, &motion))
    return;
  if (flags & MB_QUANT) {
    guint q;

    sl->elem = b->pos;
    q = bits_get (b, 5);
    pic->n_mb_quant++;
    if (q == 0)
      mb_error (sl, FALSE, "%s 0", sl->mpeg2 ? "quantiser_scale_code" :
          "quantizer_scale");
    else
      set_quant (sl, q);
  }
  /* concealment vectors are forward frame vectors (13818-2 6.3.17.1) */
  if (((flags & MB_FORWARD) || concealment) && !read_vectors (sl, 0, motion))
    return;
  if ((flags & MB_BACKWARD) && !read_vectors (sl, 1, motion))
    return;
  if (concealment) {
    sl->elem = b->pos;
    pic->n_mb_concealment++;
    if (bits_get (b, 1) != 1)
      mb_error (sl, FALSE, "marker bit after the concealment motion vectors "
          "is 0");
  }
  if (flags & MB_PATTERN) {
    sl->elem = b->pos;
    c = vlc_read (b, VLC_CBP);
    if (sl->mpeg2 && !c) {
      mb_error (sl, TRUE, "coded_block_pattern not in table B.9");
      return;
    }
    if (!sl->mpeg2 && (!c || c->a == 0)) {
      mb_error (sl, TRUE, "coded_block_pattern %s", c ? "0 (the code "
          "0000 0000 1 is MPEG-2's, MPEG-1's table B.3 has 1..63 only)" :
          "not in table B.3");
      return;
    }
    cbp = c->a;
    /* coded_block_pattern_1 and _2: the further chroma blocks */
    if (sl->block_count > 6)
      cbp = (cbp << (sl->block_count - 6)) |
          bits_get (b, sl->block_count - 6);
  }

  if (flags & MB_INTRA) {
    cbp = (1u << sl->block_count) - 1;
    if (!concealment) {
      memset (sl->pmv, 0, sizeof (sl->pmv));
      memset (sl->mv, 0, sizeof (sl->mv));
    }
    pic->n_mb_intra++;
  } else {
    sl->dc_pred[0] = sl->dc_pred[1] = sl->dc_pred[2] = 1 << 7 <<
        pic->intra_dc_precision;
    if (sl->type == 2 && !(flags & MB_FORWARD)) {
      /* P: no vector is the zero vector, and resets the predictors */
      memset (sl->pmv, 0, sizeof (sl->pmv));
      memset (sl->mv, 0, sizeof (sl->mv));
      motion = MOTION_FRAME;
      pic->n_mb_zero_vector++;
    } else if ((flags & MB_FORWARD) && (flags & MB_BACKWARD)) {
      pic->n_mb_interpolated++;
    } else if (flags & MB_FORWARD) {
      pic->n_mb_forward++;
    } else {
      pic->n_mb_backward++;
    }
    if (flags & MB_PATTERN)
      pic->n_mb_pattern++;
    else
      pic->n_mb_no_pattern++;
    if (sl->type == 2 && !(flags & MB_PATTERN) && motion == MOTION_FRAME &&
        sl->mv[0][0][0] == 0 && sl->mv[0][0][1] == 0)
      pic->n_mb_copies++;
    if (motion == MOTION_FIELD)
      pic->n_mb_field_motion++;
    else if (motion == MOTION_DUAL_PRIME)
      pic->n_mb_dual_prime++;
    check_prediction (sl, sl->address, flags, motion, FALSE);
  }

  for (i = 0; i < sl->block_count && !sl->stop; i++)
    if (cbp & (1u << (sl->block_count - 1 - i)))
      parse_block (sl, i, flags & MB_INTRA);
  if (sl->stop)
    return;
  if (sl->type == 4) {
    sl->elem = b->pos;
    if (bits_get (b, 1) != 1) {
      mb_error (sl, TRUE, "end_of_macroblock is 0");
      return;
    }
  }
  if (b->overrun) {
    sl->elem = MIN (b->pos, b->size * 8);
    mb_error (sl, TRUE, "the slice's data ends inside the macroblock");
    return;
  }
  if (sl->intra_slice && !(flags & MB_INTRA)) {
    sl->elem = mb_start;
    mb_error (sl, FALSE, "a non-intra macroblock in a slice with intra_slice "
        "set");
  }
  sl->prev_flags = flags;
  sl->prev_motion = motion;
  bits = b->pos - mb_start;
  pic->mb_bits += bits;
  pic->max_mb_bits = MAX (pic->max_mb_bits, bits);
}

/* Macroblocks @from..@to, skipped (11172-2 2.4.4.4 and 2.4.4.2, 13818-2
 * 7.6.6). */
static void
skip_macroblocks (Slice * sl, gint from, gint to)
{
  static const gchar type_names[] = "?IPBD";
  MpegCheckPicture *pic = &sl->p->pic;
  gint a;

  sl->address = from;
  if (sl->type == 1 || sl->type == 4)
    mb_error (sl, FALSE, "macroblocks %d..%d skipped in a%s %c picture",
        from, to, sl->type == 1 ? "n" : "", type_names[sl->type]);
  else if (sl->type == 3 && (sl->prev_flags & MB_INTRA))
    mb_error (sl, FALSE, "macroblocks %d..%d skipped right after an intra "
        "macroblock in a B picture (they would have no prediction)", from,
        to);
  else if (sl->intra_slice)
    mb_error (sl, FALSE, "macroblocks %d..%d skipped in a slice with "
        "intra_slice set", from, to);
  sl->dc_pred[0] = sl->dc_pred[1] = sl->dc_pred[2] = 1 << 7 <<
      pic->intra_dc_precision;
  if (sl->type == 2) {
    memset (sl->pmv, 0, sizeof (sl->pmv));
    memset (sl->mv, 0, sizeof (sl->mv));
  }
  for (a = from; a <= to; a++) {
    if (sl->p->covered[a] < G_MAXUINT8)
      sl->p->covered[a]++;
    /* B: the previous macroblock's prediction, at this place */
    if (sl->type == 3 && !(sl->prev_flags & MB_INTRA))
      check_prediction (sl, a, sl->prev_flags, sl->prev_motion, TRUE);
  }
  pic->n_mb_skipped += to - from + 1;
  if (sl->type == 2)
    pic->n_mb_copies += to - from + 1;
}

/* The slice's macroblocks, the first one's address read: each one, then
 * the zero bits up to the next start code. */
static void
parse_macroblocks (Slice * sl, gsize mb_start)
{
  Bits *b = sl->b;
  gint n_mbs = sl->p->n_mbs;

  for (;;) {
    const VlcCode *c;
    guint inc = 0;
    gint next;

    parse_macroblock_body (sl, mb_start);
    if (sl->stop)
      return;
    /* the slice ends where 23 zero bits start (a start code's prefix) */
    if (bits_peek (b, 23) == 0) {
      sl->elem = b->pos;
      if (!rest_is_zero (b))
        mb_error (sl, FALSE, "bits other than zeros after the slice's last "
            "macroblock, before the next start code");
      return;
    }

    mb_start = b->pos;
    while (!sl->mpeg2 && bits_peek (b, 11) == 0x00f)
      bits_skip (b, 11);        /* macroblock_stuffing */
    while (bits_peek (b, 11) == 0x008) {
      bits_skip (b, 11);        /* macroblock_escape */
      inc += 33;
    }
    sl->elem = b->pos;
    c = vlc_read (b, VLC_MBA);
    if (!c || c->a < 0 || b->overrun) {
      mb_error (sl, TRUE, "%s", b->overrun ? "the slice's data ends inside "
          "a macroblock_address_increment" : c && c->a == -1 ?
          (sl->mpeg2 ? "macroblock_stuffing, which MPEG-2 does not have" :
              "macroblock_stuffing after a macroblock_escape") :
          "macroblock_address_increment not in table B.1");
      return;
    }
    inc += c->a;
    next = sl->address + (gint) inc;
    /* MPEG-2 slices stay in their row (13818-2 6.3.16) */
    if (sl->mpeg2 && next / (gint) sl->cols != sl->row) {
      mb_error (sl, TRUE, "macroblock_address_increment %u leads to "
          "macroblock %d, past the end of the slice's row %d", inc, next,
          sl->row);
      return;
    }
    if (next >= n_mbs) {
      mb_error (sl, TRUE, "macroblock_address_increment %u leads to "
          "macroblock %d, beyond the picture's last (%d)", inc, next,
          n_mbs - 1);
      return;
    }
    if (inc > 1)
      skip_macroblocks (sl, sl->address + 1, next - 1);
    sl->address = next;
  }
}

/* The picture's coding parameters that the slice's macroblocks use. */
static void
init_slice_coding (Slice * sl, const MpegCheckSequence * s)
{
  const MpegCheckPicture *pic = &sl->p->pic;
  guint d;

  sl->mpeg2 = s->mpeg2;
  sl->block_count = s->chroma_format == MPEGCHECK_CHROMA_444 ? 12 :
      s->chroma_format == MPEGCHECK_CHROMA_422 ? 8 : 6;
  sl->scan = pic->alternate_scan ? alternate_scan : zigzag;
  sl->dc_step = 8 >> pic->intra_dc_precision;
  sl->dc_max = (1 << 8 << pic->intra_dc_precision) - 1;
  for (d = 0; d < 2; d++) {
    if (s->mpeg2) {
      sl->f_code[d][0] = pic->f_code[d][0];
      sl->f_code[d][1] = pic->f_code[d][1];
    } else {
      sl->f_code[d][0] = sl->f_code[d][1] = d ? pic->backward_f_code :
          pic->forward_f_code;
      sl->full_pel[d] = d ? pic->full_pel_backward : pic->full_pel_forward;
    }
  }
  /* predictors start afresh in every slice */
  sl->dc_pred[0] = sl->dc_pred[1] = sl->dc_pred[2] = 1 << 7 <<
      pic->intra_dc_precision;
}

static void
parse_slice (Parser * p, guint code, guint64 offset, Bits * b)
{
  MpegCheckSequence *s = current_sequence (p);
  MpegCheckPicture *pic = &p->pic;
  gboolean mpeg2 = s && s->mpeg2, intra_slice = FALSE;
  guint quant, inc, cols, rows, vertical = code, extra_bytes = 0;
  gint address;
  gsize mb_start;
  gboolean address_ok = TRUE;

  pic->n_slices++;
  p->r->n_slices++;
  /* slice_vertical_position_extension, for pictures of more than 175 rows */
  if (mpeg2 && s->height > 2800)
    vertical += bits_get (b, 3) << 7;
  quant = bits_get (b, 5);
  pic->slice_quant_min = pic->n_slices == 1 ? quant :
      MIN (pic->slice_quant_min, quant);
  pic->slice_quant_max = MAX (pic->slice_quant_max, quant);
  pic->slice_step_max = MAX (pic->slice_step_max, !mpeg2 ? quant :
      ((pic->q_scale_type ? non_linear_quantiser_scale[quant] : 2 * quant) +
          1) / 2);
  if (mpeg2 && bits_peek (b, 1)) {
    guint reserved;

    bits_skip (b, 1);           /* intra_slice_flag */
    intra_slice = bits_get (b, 1);
    reserved = bits_get (b, 7);
    if (reserved)
      ERR (p, "slice at byte %" G_GUINT64_FORMAT " (picture %u): "
          "reserved_bits 0x%02x, not 0", offset, pic->index, reserved);
  }
  while (bits_get (b, 1) && !b->overrun) {
    bits_get (b, 8);            /* extra_information_slice */
    extra_bytes++;
  }
  if (mpeg2 && extra_bytes)
    ERR (p, "slice at byte %" G_GUINT64_FORMAT " (picture %u): %u bytes of "
        "extra_information_slice, which MPEG-2 reserves", offset,
        pic->index, extra_bytes);
  if (quant == 0)
    ERR (p, "slice at byte %" G_GUINT64_FORMAT " (picture %u): "
        "%s 0", offset, pic->index, mpeg2 ? "quantiser_scale_code" :
        "quantizer_scale");
  if (!s)
    return;
  cols = mb_columns (s);
  rows = mb_rows (s);
  if (vertical > rows) {
    ERR (p, "slice at byte %" G_GUINT64_FORMAT " (picture %u): "
        "slice_vertical_position %u beyond the %u macroblock rows", offset,
        pic->index, vertical, rows);
    p->rows_ok = FALSE;
    pic->mb_syntax_error = TRUE;
    return;
  }
  mb_start = b->pos;
  inc = read_address_increment (b, mpeg2);
  if (inc == 0) {
    ERR (p, "slice at byte %" G_GUINT64_FORMAT " (picture %u): no valid "
        "macroblock_address_increment", offset, pic->index);
    p->rows_ok = FALSE;
    pic->mb_syntax_error = TRUE;
    return;
  }
  /* the address before a slice is the last one of the row above */
  address = (gint) ((vertical - 1) * cols) - 1 + (gint) inc;
  if (mpeg2 && inc > cols) {
    ERR (p, "slice at byte %" G_GUINT64_FORMAT " (picture %u) starts at "
        "column %u, past the end of its row (%u macroblocks)", offset,
        pic->index, inc - 1, cols);
    p->rows_ok = FALSE;
    pic->mb_syntax_error = TRUE;
    address_ok = FALSE;
  } else if (address >= (gint) (cols * rows)) {
    ERR (p, "slice at byte %" G_GUINT64_FORMAT " (picture %u) starts at "
        "macroblock %d, past the %u of the picture", offset, pic->index,
        address, cols * rows);
    p->rows_ok = FALSE;
    pic->mb_syntax_error = TRUE;
    address_ok = FALSE;
  } else if (address <= p->last_slice_address) {
    ERR (p, "slice at byte %" G_GUINT64_FORMAT " (picture %u) starts at "
        "macroblock %d, not after the previous slice's first (%d)", offset,
        pic->index, address, p->last_slice_address);
    p->rows_ok = FALSE;
  }
  if (address != (gint) ((pic->n_slices - 1) * cols))
    p->rows_ok = FALSE;
  p->last_slice_address = address;

  if (address_ok && p->n_mbs == cols * rows) {
    Slice sl = { 0, };

    sl.p = p;
    sl.b = b;
    sl.base_bit = (offset + 4) * 8;
    sl.offset = offset;
    sl.index = pic->n_slices - 1;
    sl.type = pic->coding_type;
    sl.cols = cols;
    sl.rows = rows;
    sl.row = vertical - 1;
    sl.address = address;
    sl.intra_slice = intra_slice;
    init_slice_coding (&sl, s);
    set_quant (&sl, quant);
    parse_macroblocks (&sl, mb_start);
  }
}

static gboolean
all_zero (const guint8 * data, gsize n)
{
  gsize i;
  for (i = 0; i < n; i++)
    if (data[i])
      return FALSE;
  return TRUE;
}

/* Headers before a picture are removed from the VBV with it: its bytes
 * start at the first of them. */
static void
access_unit_starts (Parser * p, guint64 offset)
{
  if (!p->have_pending) {
    p->au_pending = offset;
    p->have_pending = TRUE;
  }
}

/* One unit: the start code at @offset and its bytes up to @end. */
static void
parse_unit (Parser * p, guint code, guint64 offset, guint64 end)
{
  Bits b = { p->data + offset + 4, end - offset - 4, 0, FALSE };
  MpegCheckResult *r = p->r;

  MpegCheckSequence *s = current_sequence (p);

  if (p->extend_picture >= 0) {
    g_array_index (r->pictures, MpegCheckPicture, p->extend_picture).au_end =
        offset;
    p->extend_picture = -1;
  }
  r->end_code = FALSE;
  if (p->place == PLACE_PIC_HEADER &&
      !is_extension (p, offset, EXT_PICTURE_CODING))
    missing_coding_extension (p);

  if (code >= 0x01 && code <= 0xAF) {
    if (p->state != ST_PIC && p->state != ST_SLICES) {
      ERR (p, "slice start code at byte %" G_GUINT64_FORMAT " outside a "
          "picture", offset);
      return;
    }
    set_place (p, PLACE_NONE);
    parse_slice (p, code, offset, &b);
    p->state = ST_SLICES;
    return;
  }

  switch (code) {
    case 0xB3:
      if (p->state == ST_SLICES)
        close_picture (p, offset);
      else if (p->state == ST_SEQ || p->state == ST_GOP || p->state == ST_PIC)
        ERR (p, "sequence header at byte %" G_GUINT64_FORMAT " where a %s "
            "was expected", offset, p->state == ST_PIC ? "slice" :
            p->state == ST_GOP ? "picture" : "GOP header");
      if (p->state == ST_PIC)
        close_picture (p, offset);
      access_unit_starts (p, offset);
      parse_sequence_header (p, offset, end, &b);
      r->n_seq_headers++;
      p->seq_header_since_picture = TRUE;
      p->state = ST_SEQ;
      break;
    case 0xB8:
      if (p->state == ST_SLICES || p->state == ST_PIC)
        close_picture (p, offset);
      if (p->state != ST_SEQ && p->state != ST_SLICES)
        ERR (p, "GOP header at byte %" G_GUINT64_FORMAT " %s", offset,
            p->state == ST_GOP ? "follows a GOP header with no picture" :
            p->state == ST_PIC ? "follows a picture with no slice" :
            "comes before any sequence header");
      finish_gop (p);
      access_unit_starts (p, offset);
      parse_gop_header (p, offset, &b);
      set_place (p, PLACE_GOP);
      p->gop_numbered = TRUE;
      r->n_gops++;
      p->gop_start_offset = offset;
      p->gop_first_picture = TRUE;
      p->state = ST_GOP;
      break;
    case 0x00:
      if (p->state == ST_SLICES || p->state == ST_PIC)
        close_picture (p, offset);
      if (p->state == ST_START || p->state == ST_ENDED)
        ERR (p, "picture at byte %" G_GUINT64_FORMAT " comes before any "
            "sequence header", offset);
      else if (p->state == ST_SEQ && !(s && s->mpeg2))
        ERR (p, "picture at byte %" G_GUINT64_FORMAT " has no GOP header "
            "between it and the sequence header", offset);
      if (p->state == ST_SEQ && s && s->mpeg2) {
        /* MPEG-2's GOP headers are optional: these pictures are in no
         * GOP, numbered on from the last one */
        finish_gop (p);
        p->gop_numbered = FALSE;
      }
      parse_picture_header (p, offset, &b);
      p->state = ST_PIC;
      break;
    case 0xB7:
      if (p->state == ST_SLICES || p->state == ST_PIC) {
        close_picture (p, offset);
        p->extend_picture = r->pictures->len - 1;
      } else {
        ERR (p, "sequence end code at byte %" G_GUINT64_FORMAT " with no "
            "picture before it", offset);
      }
      finish_gop (p);
      set_place (p, PLACE_NONE);
      if (!all_zero (b.data, b.size))
        ERR (p, "data other than zero bytes after the sequence end code at "
            "byte %" G_GUINT64_FORMAT, offset);
      r->end_code = TRUE;
      p->state = ST_ENDED;
      break;
    case 0xB2:
      if (p->state != ST_SEQ && p->state != ST_GOP && p->state != ST_PIC)
        ERR (p, "user data at byte %" G_GUINT64_FORMAT " outside the places "
            "the syntax allows (after a sequence, GOP or picture header)",
            offset);
      break;
    case 0xB5:
      parse_extension (p, offset, &b);
      break;
    case 0xB4:
      ERR (p, "sequence_error_code at byte %" G_GUINT64_FORMAT, offset);
      break;
    case 0xB0:
    case 0xB1:
    case 0xB6:
      ERR (p, "reserved start code 0x%02X at byte %" G_GUINT64_FORMAT, code,
          offset);
      break;
    default:
      ERR (p, "system start code 0x%02X at byte %" G_GUINT64_FORMAT " in a "
          "video elementary stream", code, offset);
      break;
  }
}

/* ---- display time ---- */

/* How long @pic is displayed, in frame periods (13818-2 6.3.10) */
static gdouble
display_periods (const MpegCheckSequence * s, const MpegCheckPicture * pic)
{
  if (!s->mpeg2 || !pic->coding_extension)
    return 1;
  if (pic->picture_structure != MPEGCHECK_FRAME)
    return 0.5;
  if (!pic->repeat_first_field)
    return 1;
  if (s->progressive_sequence)
    return pic->top_field_first ? 3 : 2;
  return 1.5;
}

/* A GOP's time_code is the display time of its first picture shown: the
 * first GOP's (as the options say) plus what the pictures coded
 * before the GOP show, in whole frames (13818-2 6.3.8; a picture shown
 * for three fields leaves half a frame that the next time code rounds
 * down) */
static void
check_time_codes (Parser * p)
{
  MpegCheckResult *r = p->r;
  const TimeCode *first;
  gdouble shown = 0;
  guint g, i = 0;

  if (p->time_codes->len == 0 || p->opts->first_time_code < 0)
    return;
  first = &g_array_index (p->time_codes, TimeCode, 0);
  if (first->frames >= 0 &&
      first->frames != p->opts->first_time_code)
    ERR (p, "the first GOP's time_code is frame %" G_GINT64_FORMAT ", not %"
        G_GINT64_FORMAT, first->frames, p->opts->first_time_code);
  for (g = 0; g < p->time_codes->len; g++) {
    const TimeCode *tc = &g_array_index (p->time_codes, TimeCode, g);
    gint64 expected;

    for (; i < tc->first_picture && i < r->pictures->len; i++) {
      const MpegCheckPicture *pic =
          &g_array_index (r->pictures, MpegCheckPicture, i);
      shown += display_periods (&g_array_index (r->sequences,
              MpegCheckSequence, pic->sequence), pic);
    }
    if (first->frames < 0 || tc->frames < 0)
      continue;
    expected = first->frames + (gint64) floor (shown + 1e-6);
    if (tc->frames != expected) {
      ERR (p, "GOP %u (byte %" G_GUINT64_FORMAT "): time_code is frame %"
          G_GINT64_FORMAT ", but the pictures before it show %.1f frames "
          "from the first GOP's %" G_GINT64_FORMAT " (frame %" G_GINT64_FORMAT
          ")", g, tc->offset, tc->frames, shown, first->frames, expected);
      return;
    }
  }
}

/* ---- VBV ---- */

static void
simulate_sequence (Parser * p, guint si)
{
  MpegCheckResult *r = p->r;
  const MpegCheckSequence *s =
      &g_array_index (r->sequences, MpegCheckSequence, si);
  MpegCheckPicture *pics;
  gdouble R, B, T, slack, total, t0, arrived, removed;
  gdouble periods = 0, interval = 0, late = 0;
  guint64 base;
  guint n, i, mixed = 0, delay_errors = 0;
  gint anchor = -1;
  gboolean full_rule;

  if (s->n_pictures == 0 || s->first_picture + s->n_pictures >
      r->pictures->len)
    return;
  if (!s->mpeg2 && s->bit_rate_code == VARIABLE_RATE) {
    add_note (r, "sequence %u: bit_rate 0x3FFFF (variable): the VBV model "
        "was not run", si);
    return;
  }
  if (s->bit_rate_code == 0 || s->vbv_buffer_size_code == 0 || s->fps_n == 0)
    return;

  pics = &g_array_index (r->pictures, MpegCheckPicture, s->first_picture);
  n = s->n_pictures;
  R = s->bit_rate_code * 400.0;
  B = s->vbv_buffer_size_code * 16384.0;
  T = (gdouble) s->fps_d / s->fps_n;
  slack = R / TICKS;
  base = pics[0].au_start;
  total = (pics[n - 1].au_end - base) * 8.0;
  full_rule = pics[0].vbv_delay == NO_DELAY;

  if (!r->vbv_simulated) {
    r->vbv_min_fullness = G_MAXDOUBLE;
    r->vbv_max_fullness = 0;
  }
  r->vbv_simulated = TRUE;
  if (full_rule)
    r->vbv_buffer_full_rule = TRUE;

  if (full_rule) {
    arrived = MIN (total, B);
    t0 = arrived / R;
  } else {
    t0 = (pics[0].offset + 4 - base) * 8.0 / R + pics[0].vbv_delay / TICKS;
    arrived = 0;
  }
  removed = 0;

  for (i = 0; i < n; i++) {
    MpegCheckPicture *pic = &pics[i];
    gdouble t = t0 + periods * T + late;
    gdouble end = (pic->au_end - base) * 8.0;
    gdouble before, step;

    if ((pic->vbv_delay == NO_DELAY) != full_rule)
      mixed++;
    if (full_rule && i > 0)
      arrived = MIN (total, arrived + MIN (R * interval,
              B - (arrived - removed)));
    else if (!full_rule)
      arrived = MIN (R * t, total);
    /* low_delay: a big picture is decoded at the first field period at
     * which all of it is there (13818-2 C.7) */
    while (s->mpeg2 && s->low_delay && arrived + slack < end) {
      gdouble was = arrived;
      late += T / 2;
      t += T / 2;
      arrived = full_rule ? MIN (total, arrived + MIN (R * T / 2,
              B - (arrived - removed))) : MIN (R * t, total);
      if (arrived <= was)
        break;                  /* it never will */
    }
    if (full_rule) {
      pic->model_vbv_delay = -1;
    } else {
      gdouble sc_time = (pic->offset + 4 - base) * 8.0 / R;
      pic->model_vbv_delay = (t - sc_time) * TICKS;
      if (pic->vbv_delay != NO_DELAY) {
        gdouble e = fabs (pic->vbv_delay - pic->model_vbv_delay);
        r->vbv_delay_max_error = MAX (r->vbv_delay_max_error, e);
        if (p->opts->vbv_delay_tolerance && e > p->opts->vbv_delay_tolerance
            && delay_errors++ < 5)
          ERR (p, "picture %u: vbv_delay %u, the model gives %.1f (more than "
              "%u ticks apart)", pic->index, pic->vbv_delay,
              pic->model_vbv_delay, p->opts->vbv_delay_tolerance);
      }
    }
    before = arrived - removed;
    pic->decode_time = t;
    pic->fullness_before = before;
    r->vbv_min_fullness = MIN (r->vbv_min_fullness, before);
    r->vbv_max_fullness = MAX (r->vbv_max_fullness, before);
    if (arrived + slack < end) {
      if (r->first_underflow < 0)
        r->first_underflow = pic->index;
      if (r->n_underflows++ < 5)
        ERR (p, "VBV underflow at picture %u: %.0f of its %" G_GUINT64_FORMAT
            " bits not in the buffer at its decoding time %.4f s (buffer %.0f "
            "bits, %.0f bit/s)", pic->index, end - arrived, pic->bits, t, B,
            R);
    }
    if (!full_rule && before > B + slack) {
      if (r->first_overflow < 0)
        r->first_overflow = pic->index;
      if (r->n_overflows++ < 5)
        ERR (p, "VBV overflow before picture %u: %.0f bits in a buffer of "
            "%.0f at %.4f s", pic->index, before, B, t);
    }
    pic->fullness_after = arrived - end;
    removed = end;
    /* the next decoding: after an MPEG-2 I or P picture (unless low_delay)
     * the display goes on with the I or P picture before it, after the
     * others with the picture itself (13818-2 C.9, C.10) */
    if (s->mpeg2 && pic->coding_type != 3 && !s->low_delay) {
      step = display_periods (s, anchor >= 0 ? &pics[anchor] : pic);
      anchor = i;
    } else {
      step = display_periods (s, pic);
    }
    periods += step;
    interval = step * T;
  }
  if (delay_errors > 5)
    ERR (p, "... and %u more pictures whose vbv_delay is off the model",
        delay_errors - 5);
  if (mixed)
    ERR (p, "sequence %u: vbv_delay 0xFFFF mixed with coded delays (%u "
        "pictures differ from the first)", si, mixed);
}

/* ---- entry points ---- */

MpegCheckResult *
mpegcheck_run (const guint8 * data, gsize size, const MpegCheckOptions * opts)
{
  MpegCheckOptions defaults;
  MpegCheckResult *r = g_new0 (MpegCheckResult, 1);
  Parser p = { 0, };

  vlcs_init ();
  gsize i, first = size;
  gint64 unit_offset = -1;
  guint unit_code = 0, si;
  guint64 bits_sum = 0;

  if (!opts) {
    mpegcheck_options_init (&defaults);
    opts = &defaults;
  }
  r->sequences = g_array_new (FALSE, TRUE, sizeof (MpegCheckSequence));
  r->pictures = g_array_new (FALSE, TRUE, sizeof (MpegCheckPicture));
  r->errors = g_ptr_array_new_with_free_func (g_free);
  r->notes = g_ptr_array_new_with_free_func (g_free);
  r->first_underflow = r->first_overflow = -1;
  r->total_bytes = size;

  p.data = data;
  p.size = size;
  p.opts = opts;
  p.r = r;
  p.seq = -1;
  p.extend_picture = -1;
  p.gop_trefs = g_array_new (FALSE, FALSE, sizeof (guint));
  p.time_codes = g_array_new (FALSE, FALSE, sizeof (TimeCode));
  p.gop_numbered = TRUE;

  for (i = 0; i + 3 < size;) {
    if (data[i] == 0 && data[i + 1] == 0 && data[i + 2] == 1) {
      if (unit_offset < 0)
        first = i;
      else
        parse_unit (&p, unit_code, unit_offset, i);
      unit_offset = i;
      unit_code = data[i + 3];
      i += 4;
    } else {
      i++;
    }
  }
  if (unit_offset >= 0)
    parse_unit (&p, unit_code, unit_offset, size);

  if (size == 0)
    ERR (&p, "empty stream");
  else if (unit_offset < 0)
    ERR (&p, "no start code in %" G_GSIZE_FORMAT " bytes", size);
  else if (!all_zero (data, first))
    ERR (&p, "%" G_GSIZE_FORMAT " bytes before the first start code are "
        "not zero stuffing", first);
  if (size && unit_offset >= 0 && data[first + 3] != 0xB3)
    ERR (&p, "the stream starts with start code 0x%02X, not a sequence "
        "header", data[first + 3]);

  /* end of data */
  if (p.extend_picture >= 0)
    g_array_index (r->pictures, MpegCheckPicture, p.extend_picture).au_end =
        size;
  if (p.place == PLACE_PIC_HEADER)
    missing_coding_extension (&p);
  if (p.state == ST_SLICES || p.state == ST_PIC) {
    if (p.state == ST_PIC)
      ERR (&p, "the stream ends in picture %u's header (truncated?)",
          p.pic.index);
    close_picture (&p, size);
  }
  finish_gop (&p);
  if (opts->require_end_code && !r->end_code && size)
    ERR (&p, "the stream does not end with a sequence_end_code "
        "(truncated?)");
  if (opts->expect_pictures >= 0 &&
      r->pictures->len != (guint) opts->expect_pictures)
    ERR (&p, "%u pictures, expected %d", r->pictures->len,
        opts->expect_pictures);

  r->min_picture_bits = r->pictures->len ? G_MAXUINT64 : 0;
  for (i = 0; i < r->pictures->len; i++) {
    MpegCheckPicture *pic = &g_array_index (r->pictures, MpegCheckPicture, i);
    pic->bits = (pic->au_end - pic->au_start) * 8;
    bits_sum += pic->bits;
    r->max_picture_bits = MAX (r->max_picture_bits, pic->bits);
    r->min_picture_bits = MIN (r->min_picture_bits, pic->bits);
  }
  if (r->sequences->len && r->pictures->len) {
    const MpegCheckSequence *s0 =
        &g_array_index (r->sequences, MpegCheckSequence, 0);
    gdouble periods = 0;

    /* (repeated fields show a picture longer) */
    for (i = 0; i < r->pictures->len; i++)
      periods += display_periods (s0, &g_array_index (r->pictures,
              MpegCheckPicture, i));
    if (s0->fps_n)
      r->average_bitrate = bits_sum * (gdouble) s0->fps_n /
          ((gdouble) s0->fps_d * periods);
  }

  check_time_codes (&p);
  if (opts->check_vbv)
    for (si = 0; si < r->sequences->len; si++)
      simulate_sequence (&p, si);

  if (p.wasteful_escapes)
    add_note (r, "%u escapes code a run and level that the DCT table has a "
        "code for (legal in MPEG-2, but longer), the first at %s",
        p.wasteful_escapes, p.first_wasteful_escape);

  if (p.suppressed)
    g_ptr_array_add (r->errors, g_strdup_printf ("... and %u more errors",
            p.suppressed));
  g_array_free (p.gop_trefs, TRUE);
  g_array_free (p.time_codes, TRUE);
  g_free (p.covered);
  g_free (p.first_wasteful_escape);
  return r;
}

MpegCheckResult *
mpegcheck_run_file (const gchar * path, const MpegCheckOptions * opts,
    GError ** error)
{
  gchar *contents;
  gsize length;
  MpegCheckResult *r;

  if (!g_file_get_contents (path, &contents, &length, error))
    return NULL;
  r = mpegcheck_run ((const guint8 *) contents, length, opts);
  g_free (contents);
  return r;
}

gboolean
mpegcheck_passed (const MpegCheckResult * r)
{
  return r->errors->len == 0;
}

gchar *
mpegcheck_errors_text (const MpegCheckResult * r)
{
  GString *s = g_string_new (NULL);
  guint i;

  for (i = 0; i < r->errors->len; i++)
    g_string_append_printf (s, "%s\n", (gchar *) r->errors->pdata[i]);
  return g_string_free (s, FALSE);
}

/* The sequence's MPEG-2 values, a line */
static void
report_mpeg2_sequence (GString * s, const MpegCheckSequence * q)
{
  g_string_append_printf (s, "  MPEG-2: profile_and_level_indication 0x%02X "
      "(%s profile, %s level), chroma %s, progressive_sequence %u, "
      "low_delay %u, frame_rate_extension %u/%u, ", q->profile_and_level,
      profile_name (q->profile), level_name (q->level),
      chroma_name (q->chroma_format), q->progressive_sequence, q->low_delay,
      q->frame_rate_extension_n, q->frame_rate_extension_d);
  if (!q->display_extension)
    g_string_append (s, "no sequence_display_extension");
  else
    g_string_append_printf (s, "video_format %u, display %ux%u",
        q->video_format, q->display_width, q->display_height);
  if (q->colour_description)
    g_string_append_printf (s, ", colour_primaries %u, "
        "transfer_characteristics %u, matrix_coefficients %u",
        q->colour_primaries, q->transfer_characteristics,
        q->matrix_coefficients);
  if (q->scalable)
    g_string_append (s, ", scalable (not checked)");
  g_string_append_c (s, '\n');
}

/* What the MPEG-2 pictures' coding extensions chose, a line */
static void
report_mpeg2_pictures (GString * s, const MpegCheckResult * r)
{
  guint n = 0, frames = 0, dc[4] = { 0, }, flags[9] = { 0, };
  guint modes[3] = { 0, };
  guint i;

  for (i = 0; i < r->pictures->len; i++) {
    const MpegCheckPicture *pic =
        &g_array_index (r->pictures, MpegCheckPicture, i);
    if (!pic->coding_extension)
      continue;
    n++;
    frames += pic->picture_structure == MPEGCHECK_FRAME;
    dc[pic->intra_dc_precision]++;
    flags[0] += pic->q_scale_type;
    flags[1] += pic->intra_vlc_format;
    flags[2] += pic->alternate_scan;
    flags[3] += pic->frame_pred_frame_dct;
    flags[4] += pic->top_field_first;
    flags[5] += pic->repeat_first_field;
    flags[6] += pic->progressive_frame;
    flags[7] += pic->concealment_motion_vectors;
    flags[8] += pic->quant_matrix_extension;
    modes[0] += pic->n_mb_field_motion;
    modes[1] += pic->n_mb_dual_prime;
    modes[2] += pic->n_mb_field_dct;
  }
  if (n == 0)
    return;
  g_string_append_printf (s, "MPEG-2 pictures: %u (%u frames, %u fields); "
      "intra_dc_precision 8/9/10/11 bits: %u/%u/%u/%u; set in how many: "
      "q_scale_type %u, intra_vlc_format %u, alternate_scan %u, "
      "frame_pred_frame_dct %u, top_field_first %u, repeat_first_field %u, "
      "progressive_frame %u, concealment_motion_vectors %u, "
      "quant_matrix_extension %u; macroblocks with field motion %u, dual "
      "prime %u, field DCT %u\n", n, frames, n - frames, dc[0], dc[1], dc[2],
      dc[3], flags[0], flags[1], flags[2], flags[3], flags[4], flags[5],
      flags[6], flags[7], flags[8], modes[0], modes[1], modes[2]);
}

gchar *
mpegcheck_report (const MpegCheckResult * r, gboolean trace)
{
  static const gchar type_names[] = "?IPBD";
  GString *s = g_string_new (NULL);
  guint i;

  g_string_append_printf (s, "stream: %" G_GUINT64_FORMAT " bytes, %u "
      "sequence(s), %u sequence headers, %u GOPs, %u pictures (I %u, P %u, "
      "B %u, D %u), %u slices, %s\n", r->total_bytes, r->sequences->len,
      r->n_seq_headers, r->n_gops, r->pictures->len, r->n_type[1],
      r->n_type[2], r->n_type[3], r->n_type[4], r->n_slices,
      r->end_code ? "ends with a sequence end code" : "no end code at the end");
  for (i = 0; i < r->sequences->len; i++) {
    const MpegCheckSequence *q =
        &g_array_index (r->sequences, MpegCheckSequence, i);
    g_string_append_printf (s, "sequence %u: %ux%u, %s %u, "
        "%d/%d fps (code %u), bit_rate ", i, q->width, q->height,
        q->mpeg2 ? "aspect_ratio_information" : "pel_aspect_ratio",
        q->aspect_code, q->fps_n, q->fps_d, q->frame_rate_code);
    if (!q->mpeg2 && q->bit_rate_code == VARIABLE_RATE)
      g_string_append (s, "variable (0x3FFFF)");
    else
      g_string_append_printf (s, "%" G_GUINT64_FORMAT " bit/s",
          q->bit_rate_code * (guint64) 400);
    g_string_append_printf (s, ", vbv_buffer_size %u (%" G_GUINT64_FORMAT
        " bits), constrained %u, %s intra / %s non-intra matrix, pictures "
        "%u..%u\n", q->vbv_buffer_size_code,
        q->vbv_buffer_size_code * (guint64) 16384, q->constrained,
        q->load_intra_matrix ? "loaded" : "default",
        q->load_non_intra_matrix ? "loaded" : "default", q->first_picture,
        q->first_picture + q->n_pictures - (q->n_pictures ? 1 : 0));
    if (q->mpeg2)
      report_mpeg2_sequence (s, q);
  }
  report_mpeg2_pictures (s, r);
  if (r->pictures->len)
    g_string_append_printf (s, "bits per picture: min %" G_GUINT64_FORMAT
        ", mean %.0f, max %" G_GUINT64_FORMAT "; average bitrate %.1f "
        "kbit/s\n", r->min_picture_bits,
        r->total_bytes * 8.0 / r->pictures->len, r->max_picture_bits,
        r->average_bitrate / 1000.0);
  if (r->n_macroblocks) {
    guint64 n[11] = { 0, };
    guint max_bits = 0;

    for (i = 0; i < r->pictures->len; i++) {
      const MpegCheckPicture *pic =
          &g_array_index (r->pictures, MpegCheckPicture, i);
      n[0] += pic->n_mb_coded;
      n[1] += pic->n_mb_intra;
      n[2] += pic->n_mb_forward;
      n[3] += pic->n_mb_backward;
      n[4] += pic->n_mb_interpolated;
      n[5] += pic->n_mb_zero_vector;
      n[6] += pic->n_mb_skipped;
      n[7] += pic->n_blocks;
      n[8] += pic->n_coefficients;
      n[9] += pic->n_escapes;
      n[10] += pic->mb_bits;
      max_bits = MAX (max_bits, pic->max_mb_bits);
    }
    g_string_append_printf (s, "macroblocks: %" G_GUINT64_FORMAT " coded "
        "(intra %" G_GUINT64_FORMAT ", forward %" G_GUINT64_FORMAT
        ", backward %" G_GUINT64_FORMAT ", interpolated %" G_GUINT64_FORMAT
        ", no vector %" G_GUINT64_FORMAT "), %" G_GUINT64_FORMAT " skipped; "
        "%" G_GUINT64_FORMAT " blocks, %" G_GUINT64_FORMAT " coefficients, "
        "%" G_GUINT64_FORMAT " escapes; %.1f bits per coded macroblock, at "
        "most %u\n", n[0], n[1], n[2], n[3], n[4], n[5], n[6], n[7], n[8],
        n[9], n[0] ? (gdouble) n[10] / n[0] : 0.0, max_bits);
  }
  if (r->vbv_simulated)
    g_string_append_printf (s, "VBV (%s rule): fullness %.0f..%.0f bits "
        "before removals, %u underflows (first at %d), %u overflows (first "
        "at %d), signalled vbv_delay at most %.1f ticks off the model\n",
        r->vbv_buffer_full_rule ? "buffer full" : "constant rate",
        r->vbv_min_fullness, r->vbv_max_fullness, r->n_underflows,
        r->first_underflow, r->n_overflows, r->first_overflow,
        r->vbv_delay_max_error);
  else
    g_string_append (s, "VBV: not simulated\n");
  for (i = 0; i < r->notes->len; i++)
    g_string_append_printf (s, "note: %s\n", (gchar *) r->notes->pdata[i]);
  for (i = 0; i < r->errors->len; i++)
    g_string_append_printf (s, "error: %s\n", (gchar *) r->errors->pdata[i]);
  if (trace && r->pictures->len) {
    g_string_append (s, "picture type tref vbv_delay    bits  decode_s  "
        "before_bits  after_bits  model_delay  quant  coded intra skipped "
        "escapes\n");
    for (i = 0; i < r->pictures->len; i++) {
      const MpegCheckPicture *pic =
          &g_array_index (r->pictures, MpegCheckPicture, i);
      g_string_append_printf (s, "%7u    %c %4u %9u %7" G_GUINT64_FORMAT
          " %9.4f %12.0f %11.0f %12.1f  %2u..%-2u %6u %5u %7u %7u\n",
          pic->index, type_names[MIN (pic->coding_type, 4)],
          pic->temporal_reference, pic->vbv_delay, pic->bits,
          pic->decode_time, pic->fullness_before, pic->fullness_after,
          pic->model_vbv_delay, pic->slice_quant_min, pic->slice_quant_max,
          pic->n_mb_coded, pic->n_mb_intra, pic->n_mb_skipped,
          pic->n_escapes);
      if (pic->coding_extension)
        g_string_append_printf (s, "%*s(f_code %X%X%X%X, dc %u bits, "
            "structure %u, tff %u, frame_pred_frame_dct %u, q_scale_type %u, "
            "intra_vlc %u, alternate_scan %u, rff %u, progressive %u)\n", 12,
            "", pic->f_code[0][0], pic->f_code[0][1], pic->f_code[1][0],
            pic->f_code[1][1], 8 + pic->intra_dc_precision,
            pic->picture_structure, pic->top_field_first,
            pic->frame_pred_frame_dct, pic->q_scale_type,
            pic->intra_vlc_format, pic->alternate_scan,
            pic->repeat_first_field, pic->progressive_frame);
    }
  }
  g_string_append_printf (s, "result: %s\n", r->errors->len ? "FAIL" :
      "pass");
  return g_string_free (s, FALSE);
}

void
mpegcheck_result_free (MpegCheckResult * r)
{
  if (!r)
    return;
  g_array_free (r->sequences, TRUE);
  g_array_free (r->pictures, TRUE);
  g_ptr_array_free (r->errors, TRUE);
  g_ptr_array_free (r->notes, TRUE);
  g_free (r);
}
