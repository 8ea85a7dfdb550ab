/* gst-clvideo: MPEG-1 video elementary stream checker
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

/* ---- variable length codes (11172-2 annex B) ---- */

/* A code as the standard prints it ('0'/'1', spaces ignored) and what it
 * stands for; the meaning of @a and @b is the table's. */
typedef struct
{
  const gchar *bits;
  gint16 a, b;
} VlcCode;

typedef struct
{
  const VlcCode *codes;
  guint n_codes;
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

/* B.3 coded_block_pattern; a: the pattern. The last code is MPEG-2's
 * pattern 0, kept to name it when it turns up. */
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

/* B.4 motion_horizontal/vertical_forward/backward_code; a: the code */
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

/* B.5a dct_dc_size_luminance, B.5b dct_dc_size_chrominance; a: size.
 * MPEG-2 adds longer codes for sizes 9..11; MPEG-1 has none. */
static const VlcCode dc_luma_codes[] = {
  {"100", 0, 0}, {"00", 1, 0}, {"01", 2, 0}, {"101", 3, 0}, {"110", 4, 0}, {"1110", 5, 0},
  {"1111 0", 6, 0}, {"1111 10", 7, 0}, {"1111 110", 8, 0},
};

static const VlcCode dc_chroma_codes[] = {
  {"00", 0, 0}, {"01", 1, 0}, {"10", 2, 0}, {"110", 3, 0}, {"1110", 4, 0},
  {"1111 0", 5, 0}, {"1111 10", 6, 0}, {"1111 110", 7, 0}, {"1111 1110", 8, 0},
};

/* B.5c/B.5d dct_coeff_first and dct_coeff_next, without the sign bit that
 * follows every run/level code; a: run (-1 end_of_block, -2 escape), b:
 * level. The first coefficient's "1s" (run 0, level 1) is read apart: in
 * dct_coeff_next "10" is end_of_block and "11s" is run 0, level 1. */
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

enum
{
  VLC_MBA, VLC_MBTYPE_I, VLC_MBTYPE_P, VLC_MBTYPE_B, VLC_MBTYPE_D, VLC_CBP,
  VLC_MOTION, VLC_DC_LUMA, VLC_DC_CHROMA, VLC_DCT, N_VLCS
};

static Vlc vlcs[N_VLCS] = {
  {mba_codes, N_ (mba_codes), 11, NULL, NULL},
  {mbtype_i_codes, N_ (mbtype_i_codes), 2, NULL, NULL},
  {mbtype_p_codes, N_ (mbtype_p_codes), 6, NULL, NULL},
  {mbtype_b_codes, N_ (mbtype_b_codes), 6, NULL, NULL},
  {mbtype_d_codes, N_ (mbtype_d_codes), 1, NULL, NULL},
  {cbp_codes, N_ (cbp_codes), 9, NULL, NULL},
  {motion_codes, N_ (motion_codes), 11, NULL, NULL},
  {dc_luma_codes, N_ (dc_luma_codes), 7, NULL, NULL},
  {dc_chroma_codes, N_ (dc_chroma_codes), 8, NULL, NULL},
  {dct_codes, N_ (dct_codes), 16, NULL, NULL},
};

/* Fills @vlc's lookup table; a code that is too long or the prefix of
 * another (a mistyped table) aborts. */
static void
vlc_build (Vlc * vlc)
{
  guint i, j;

  vlc->lookup = g_new0 (guint16, 1u << vlc->max_len);
  vlc->lens = g_new0 (guint8, vlc->n_codes);
  for (i = 0; i < vlc->n_codes; i++) {
    const gchar *c;
    guint value = 0, len = 0, first, count;

    for (c = vlc->codes[i].bits; *c; c++) {
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
    guint i;
    for (i = 0; i < N_VLCS; i++)
      vlc_build (&vlcs[i]);
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
  return &vlc->codes[index - 1];
}

/* The first macroblock address increment of a slice (stuffing and escapes
 * included); 0 when invalid. */
static guint
read_address_increment (Bits * b)
{
  guint total = 0;
  const VlcCode *c;

  while (bits_peek (b, 11) == 0x00f && !b->overrun)
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
  gint last_slice_address;      /* -1: none yet in this picture */
  gboolean rows_ok;
  GArray *gop_trefs;            /* guint: temporal references of the GOP */
  guint gop_start_offset;
  /* macroblock layer */
  guint8 intra_matrix[64], non_intra_matrix[64];        /* scan order, in force */
  guint8 *covered;              /* per macroblock of the open picture: slices */
  guint n_mbs;                  /* of the open picture; 0: not parsed */
  guint seq_types;              /* bit per picture_coding_type seen in the sequence */
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

static guint
mb_rows (const MpegCheckSequence * s)
{
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

/* zigzag scan position to row-major position (11172-2 2.4.4.1) */
static const guint8 zigzag[64] = {
  0, 1, 8, 16, 9, 2, 3, 10, 17, 24, 32, 25, 18, 11, 4, 5,
  12, 19, 26, 33, 40, 48, 41, 34, 27, 20, 13, 6, 7, 14, 21, 28,
  35, 42, 49, 56, 57, 50, 43, 36, 29, 22, 15, 23, 30, 37, 44, 51,
  58, 59, 52, 45, 38, 31, 39, 46, 53, 60, 61, 54, 47, 55, 62, 63,
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

static void
set_matrices (Parser * p, const MpegCheckSequence * s)
{
  guint i;

  for (i = 0; i < 64; i++) {
    p->intra_matrix[i] = s->load_intra_matrix ? s->intra_matrix[i] :
        default_intra_matrix[zigzag[i]];
    p->non_intra_matrix[i] = s->load_non_intra_matrix ?
        s->non_intra_matrix[i] : 16;
  }
}

static void
parse_sequence_header (Parser * p, guint64 offset, Bits * b)
{
  MpegCheckSequence s = { 0, };
  MpegCheckSequence *cur;
  gboolean new_sequence;
  guint i;

  s.width = bits_get (b, 12);
  s.height = bits_get (b, 12);
  s.aspect_code = bits_get (b, 4);
  s.frame_rate_code = bits_get (b, 4);
  s.bit_rate_code = bits_get (b, 18);
  if (!bits_get (b, 1))
    ERR (p, "sequence header at byte %" G_GUINT64_FORMAT ": marker bit "
        "after bit_rate is 0", offset);
  s.vbv_buffer_size_code = bits_get (b, 10);
  s.constrained = bits_get (b, 1);
  s.load_intra_matrix = bits_get (b, 1);
  for (i = 0; s.load_intra_matrix && i < 64; i++)
    s.intra_matrix[i] = bits_get (b, 8);
  s.load_non_intra_matrix = bits_get (b, 1);
  for (i = 0; s.load_non_intra_matrix && i < 64; i++)
    s.non_intra_matrix[i] = bits_get (b, 8);
  if (b->overrun) {
    ERR (p, "sequence header at byte %" G_GUINT64_FORMAT " is truncated",
        offset);
    return;
  }

  if (s.width == 0 || s.height == 0)
    ERR (p, "sequence header at byte %" G_GUINT64_FORMAT ": size %ux%u",
        offset, s.width, s.height);
  if (s.aspect_code == 0 || s.aspect_code == 15)
    ERR (p, "sequence header at byte %" G_GUINT64_FORMAT ": forbidden "
        "pel_aspect_ratio %u", offset, s.aspect_code);
  if (!mpegcheck_frame_rate (s.frame_rate_code, &s.fps_n, &s.fps_d))
    ERR (p, "sequence header at byte %" G_GUINT64_FORMAT ": reserved "
        "picture_rate code %u", offset, s.frame_rate_code);
  if (s.bit_rate_code == 0)
    ERR (p, "sequence header at byte %" G_GUINT64_FORMAT ": bit_rate 0 is "
        "forbidden", offset);
  if (s.vbv_buffer_size_code == 0)
    ERR (p, "sequence header at byte %" G_GUINT64_FORMAT ": "
        "vbv_buffer_size 0", offset);
  if (s.load_intra_matrix && s.intra_matrix[0] != 8)
    ERR (p, "sequence header at byte %" G_GUINT64_FORMAT ": intra matrix "
        "starts with %u, not 8", offset, s.intra_matrix[0]);
  for (i = 0; i < 64; i++) {
    if ((s.load_intra_matrix && s.intra_matrix[i] == 0) ||
        (s.load_non_intra_matrix && s.non_intra_matrix[i] == 0)) {
      ERR (p, "sequence header at byte %" G_GUINT64_FORMAT ": a quantiser "
          "matrix holds 0", offset);
      break;
    }
  }
  if (s.constrained) {
    /* 11172-2 2.4.3.2: the constrained parameter set */
    guint mbs = mb_columns (&s) * mb_rows (&s);
    if (s.width > 768 || s.height > 576 || mbs > 396 ||
        (s.fps_d && (guint64) mbs * s.fps_n > 396ull * 25 * s.fps_d) ||
        s.frame_rate_code > 5 || s.bit_rate_code > 4640 ||
        s.vbv_buffer_size_code > 20)
      ERR (p, "sequence header at byte %" G_GUINT64_FORMAT ": "
          "constrained_parameters_flag set but %ux%u at code %u, bit_rate "
          "code %u, vbv_buffer_size %u exceed the constrained parameters",
          offset, s.width, s.height, s.frame_rate_code, s.bit_rate_code,
          s.vbv_buffer_size_code);
  }

  /* each sequence header sets both matrices, loaded or the defaults */
  set_matrices (p, &s);

  cur = current_sequence (p);
  new_sequence = (p->state == ST_START || p->state == ST_ENDED || !cur);
  if (new_sequence) {
    s.first_picture = p->r->pictures->len;
    p->seq_types = 0;
    g_array_append_val (p->r->sequences, s);
    p->seq = p->r->sequences->len - 1;
    if (p->opts->expect_width && (s.width != p->opts->expect_width ||
            s.height != p->opts->expect_height))
      ERR (p, "sequence %d is %ux%u, expected %ux%u", p->seq, s.width,
          s.height, p->opts->expect_width, p->opts->expect_height);
  } else if (s.width != cur->width || s.height != cur->height ||
      s.aspect_code != cur->aspect_code ||
      s.frame_rate_code != cur->frame_rate_code ||
      s.bit_rate_code != cur->bit_rate_code ||
      s.vbv_buffer_size_code != cur->vbv_buffer_size_code ||
      s.constrained != cur->constrained) {
    ERR (p, "repeated sequence header at byte %" G_GUINT64_FORMAT " changes "
        "%ux%u aspect %u rate %u bit_rate %u vbv %u to %ux%u aspect %u "
        "rate %u bit_rate %u vbv %u within a sequence (a new sequence needs "
        "a sequence_end_code first)", offset, cur->width, cur->height,
        cur->aspect_code, cur->frame_rate_code, cur->bit_rate_code,
        cur->vbv_buffer_size_code, s.width, s.height, s.aspect_code,
        s.frame_rate_code, s.bit_rate_code, s.vbv_buffer_size_code);
  }
}

static void
parse_gop_header (Parser * p, guint64 offset, Bits * b)
{
  guint closed, broken;

  bits_get (b, 1);              /* drop_frame_flag */
  bits_get (b, 5);              /* hours */
  bits_get (b, 6);              /* minutes */
  if (!bits_get (b, 1))
    ERR (p, "GOP header at byte %" G_GUINT64_FORMAT ": marker bit in "
        "time_code is 0", offset);
  bits_get (b, 6);              /* seconds */
  bits_get (b, 6);              /* pictures */
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

static void
parse_picture_header (Parser * p, guint64 offset, Bits * b)
{
  MpegCheckPicture *pic = &p->pic;
  MpegCheckSequence *s = current_sequence (p);
  static const gchar type_names[] = "?IPBD";
  guint limit = (s && s->constrained) ? 4 : 7;

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
    if (pic->forward_f_code == 0 || pic->forward_f_code > limit)
      ERR (p, "picture %u (byte %" G_GUINT64_FORMAT "): forward_f_code %u "
          "outside 1..%u", pic->index, offset, pic->forward_f_code, limit);
  }
  if (pic->coding_type == 3) {
    pic->full_pel_backward = bits_get (b, 1);
    pic->backward_f_code = bits_get (b, 3);
    if (pic->backward_f_code == 0 || pic->backward_f_code > limit)
      ERR (p, "picture %u (byte %" G_GUINT64_FORMAT "): backward_f_code %u "
          "outside 1..%u", pic->index, offset, pic->backward_f_code, limit);
  }
  while (bits_get (b, 1) && !b->overrun)
    bits_get (b, 8);            /* extra_information_picture */
  if (b->overrun)
    ERR (p, "picture header at byte %" G_GUINT64_FORMAT " is truncated",
        offset);

  if (pic->coding_type < 1 || pic->coding_type > 4) {
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
  }
  g_array_append_val (p->gop_trefs, pic->temporal_reference);
  p->gop_first_picture = FALSE;
  p->seq_header_since_picture = FALSE;

  /* the macroblocks are parsed where the header gives all they need */
  g_clear_pointer (&p->covered, g_free);
  p->n_mbs = 0;
  if (p->opts->check_macroblocks && s && s->width && s->height &&
      !b->overrun && pic->coding_type >= 1 && pic->coding_type <= 4 &&
      (pic->coding_type == 1 || pic->coding_type == 4 ||
          (pic->forward_f_code >= 1 && pic->forward_f_code <= 7)) &&
      (pic->coding_type != 3 ||
          (pic->backward_f_code >= 1 && pic->backward_f_code <= 7))) {
    p->n_mbs = mb_columns (s) * mb_rows (s);
    p->covered = g_new0 (guint8, p->n_mbs);
  }
}

/* ---- macroblock layer ---- */

typedef struct
{
  Parser *p;
  Bits *b;
  guint64 base_bit;             /* the stream's bit at b->data[0] */
  guint64 offset;               /* of the slice start code */
  guint index;                  /* of the slice within its picture */
  guint type;                   /* picture_coding_type */
  guint cols, rows;
  gint address;                 /* the macroblock being parsed */
  guint quant;
  gint dc_pred[3];              /* Y, Cb, Cr */
  gint pmv[2][2];               /* [forward, backward][horizontal, vertical]:
                                 * the predictors, in f_code's units */
  gint mv[2][2];                /* the last vectors, half-pels */
  guint prev_flags;             /* the last coded macroblock's type */
  gsize elem;                   /* where the element being read starts */
  gboolean stop;                /* a syntax error ended the slice's parse */
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

/* One motion vector component (11172-2 2.4.4.2); FALSE after an error. */
static gboolean
read_motion (Slice * sl, guint f_code, const gchar * name, gint * pred,
    gboolean full_pel, gint * out)
{
  const VlcCode *c;
  guint r_size = f_code - 1, r = 0;
  gint f = 1 << r_size, code, little, big, v;

  sl->elem = sl->b->pos;
  c = vlc_read (sl->b, VLC_MOTION);
  if (!c) {
    mb_error (sl, TRUE, "%s not in table B.4", name);
    return FALSE;
  }
  code = c->a;
  /* motion_r is there only when it refines a nonzero code */
  if (f != 1 && code != 0)
    r = bits_get (sl->b, r_size);
  little = code * f;
  big = 0;
  if (little > 0) {
    little -= f - 1 - (gint) r;
    big = little - 32 * f;
  } else if (little < 0) {
    little += f - 1 - (gint) r;
    big = little + 32 * f;
  }
  v = *pred + little;
  if (v < -16 * f || v > 16 * f - 1)
    v = *pred + big;
  if (v < -16 * f || v > 16 * f - 1) {
    mb_error (sl, TRUE, "%s %d reconstructs to %d, outside %d..%d for "
        "f_code %u", name, code, v, -16 * f, 16 * f - 1, f_code);
    return FALSE;
  }
  *pred = v;
  *out = full_pel ? v * 2 : v;
  return TRUE;
}

/* MPEG-1 predicts only from within the reference picture (taken to its
 * whole macroblocks): the 16x16 area at @mv, with its half-pel
 * neighbours, must lie inside it. Chroma's halved vector then does too. */
static void
check_reference (Slice * sl, gint address, const gint * mv,
    const gchar * direction)
{
  gint col = address % (gint) sl->cols, row = address / (gint) sl->cols;
  MpegCheckPicture *pic = &sl->p->pic;

  pic->max_vector = MAX (pic->max_vector, (guint) ABS (mv[0]));
  pic->max_vector = MAX (pic->max_vector, (guint) ABS (mv[1]));
  if (mv[0] < -32 * col || mv[0] > 32 * ((gint) sl->cols - 1 - col) ||
      mv[1] < -32 * row || mv[1] > 32 * ((gint) sl->rows - 1 - row)) {
    gint saved = sl->address;
    sl->address = address;
    mb_error (sl, FALSE, "%s vector (%d, %d) half-pels predicts from "
        "outside the picture's %ux%u macroblock area", direction, mv[0],
        mv[1], sl->cols * 16, sl->rows * 16);
    sl->address = saved;
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

static void
parse_block (Slice * sl, guint i, gboolean intra)
{
  Bits *b = sl->b;
  MpegCheckPicture *pic = &sl->p->pic;
  const guint8 *weights = intra ? sl->p->intra_matrix :
      sl->p->non_intra_matrix;
  const VlcCode *c;
  gboolean first = !intra;
  gint n;                       /* scan position of the last coefficient */

  pic->n_blocks++;
  if (intra) {
    guint size, comp = i < 4 ? 0 : i - 3;
    gint diff = 0, dc;

    sl->elem = b->pos;
    c = vlc_read (b, i < 4 ? VLC_DC_LUMA : VLC_DC_CHROMA);
    if (!c) {
      mb_error (sl, TRUE, "block %u: dct_dc_size_%s not in table B.5%c "
          "(sizes 0..8)", i, i < 4 ? "luminance" : "chrominance",
          i < 4 ? 'a' : 'b');
      return;
    }
    size = c->a;
    if (size) {
      guint v = bits_get (b, size);
      diff = (v >> (size - 1)) ? (gint) v : (gint) v - (1 << size) + 1;
    }
    dc = sl->dc_pred[comp] + diff * 8;
    if (dc < 0 || dc > 2040) {
      mb_error (sl, FALSE, "block %u: intra DC %d (predictor %d, "
          "dct_dc_differential %d) outside 0..2040", i, dc,
          sl->dc_pred[comp], diff);
      /* carried on within range: one bad differential, one error */
      dc = CLAMP (dc, 0, 2040);
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
      c = vlc_read (b, VLC_DCT);
      if (!c) {
        if (rest_is_zero (b))
          mb_error (sl, TRUE, "block %u: the slice's data ends before its "
              "end_of_block", i);
        else
          mb_error (sl, TRUE, "block %u: dct_coeff_%s not in table B.5c/d",
              i, first ? "first" : "next");
        return;
      }
      if (c->a == DCT_EOB)
        break;
      if (c->a == DCT_ESCAPE) {
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
    if (level != 0) {
      gint v = reconstruct (level, sl->quant, weights[n], intra);
      if (v < -2048 || v > 2047)
        mb_error (sl, FALSE, "block %u: level %d at scan position %d "
            "(quantizer_scale %u, matrix %u) reconstructs to %d, outside "
            "-2048..2047", i, level, n, sl->quant, weights[n], v);
    }
  }
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

  if (p->covered[sl->address] < G_MAXUINT8)
    p->covered[sl->address]++;
  pic->n_mb_coded++;

  sl->elem = b->pos;
  c = vlc_read (b, VLC_MBTYPE_I + sl->type - 1);
  if (!c) {
    mb_error (sl, TRUE, "macroblock_type not in table B.2%c (%c pictures)",
        'a' + sl->type - 1, type_names[sl->type]);
    return;
  }
  flags = c->a;
  if (flags & MB_QUANT) {
    guint q;

    sl->elem = b->pos;
    q = bits_get (b, 5);
    pic->n_mb_quant++;
    if (q == 0)
      mb_error (sl, FALSE, "quantizer_scale 0");
    else
      sl->quant = q;
  }
  if (flags & MB_FORWARD) {
    if (!read_motion (sl, pic->forward_f_code,
            "motion_horizontal_forward_code", &sl->pmv[0][0],
            pic->full_pel_forward, &sl->mv[0][0]) ||
        !read_motion (sl, pic->forward_f_code,
            "motion_vertical_forward_code", &sl->pmv[0][1],
            pic->full_pel_forward, &sl->mv[0][1]))
      return;
  }
  if (flags & MB_BACKWARD) {
    if (!read_motion (sl, pic->backward_f_code,
            "motion_horizontal_backward_code", &sl->pmv[1][0],
            pic->full_pel_backward, &sl->mv[1][0]) ||
        !read_motion (sl, pic->backward_f_code,
            "motion_vertical_backward_code", &sl->pmv[1][1],
            pic->full_pel_backward, &sl->mv[1][1]))
      return;
  }
  if (flags & MB_PATTERN) {
    sl->elem = b->pos;
    c = vlc_read (b, VLC_CBP);
    if (!c || c->a == 0) {
      mb_error (sl, TRUE, "coded_block_pattern %s", c ? "0 (the code "
          "0000 0000 1 is MPEG-2's, MPEG-1's table B.3 has 1..63 only)" :
          "not in table B.3");
      return;
    }
    cbp = c->a;
  }

  if (flags & MB_INTRA) {
    cbp = 63;
    memset (sl->pmv, 0, sizeof (sl->pmv));
    memset (sl->mv, 0, sizeof (sl->mv));
    pic->n_mb_intra++;
  } else {
    sl->dc_pred[0] = sl->dc_pred[1] = sl->dc_pred[2] = 1024;
    if (sl->type == 2 && !(flags & MB_FORWARD)) {
      /* P: no vector is the zero vector, and resets the predictor */
      sl->pmv[0][0] = sl->pmv[0][1] = 0;
      sl->mv[0][0] = sl->mv[0][1] = 0;
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
    if (flags & MB_FORWARD)
      check_reference (sl, sl->address, sl->mv[0], "forward");
    if (flags & MB_BACKWARD)
      check_reference (sl, sl->address, sl->mv[1], "backward");
  }

  for (i = 0; i < 6 && !sl->stop; i++)
    if (cbp & (32 >> i))
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
  sl->prev_flags = flags;
  bits = b->pos - mb_start;
  pic->mb_bits += bits;
  pic->max_mb_bits = MAX (pic->max_mb_bits, bits);
}

/* Macroblocks @from..@to, skipped (11172-2 2.4.4.4 and 2.4.4.2). */
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
  sl->dc_pred[0] = sl->dc_pred[1] = sl->dc_pred[2] = 1024;
  if (sl->type == 2) {
    sl->pmv[0][0] = sl->pmv[0][1] = 0;
    sl->mv[0][0] = sl->mv[0][1] = 0;
  }
  for (a = from; a <= to; a++) {
    if (sl->p->covered[a] < G_MAXUINT8)
      sl->p->covered[a]++;
    /* B: the previous macroblock's prediction, at this place */
    if (sl->type == 3 && !(sl->prev_flags & MB_INTRA)) {
      if (sl->prev_flags & MB_FORWARD)
        check_reference (sl, a, sl->mv[0], "forward (skipped macroblock)");
      if (sl->prev_flags & MB_BACKWARD)
        check_reference (sl, a, sl->mv[1], "backward (skipped macroblock)");
    }
  }
  pic->n_mb_skipped += to - from + 1;
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
    while (bits_peek (b, 11) == 0x00f)
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
          "macroblock_stuffing after a macroblock_escape" :
          "macroblock_address_increment not in table B.1");
      return;
    }
    inc += c->a;
    next = sl->address + (gint) inc;
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

static void
parse_slice (Parser * p, guint code, guint64 offset, Bits * b)
{
  MpegCheckSequence *s = current_sequence (p);
  MpegCheckPicture *pic = &p->pic;
  guint quant, inc, cols, rows;
  gint address;
  gsize mb_start;
  gboolean address_ok = TRUE;

  pic->n_slices++;
  p->r->n_slices++;
  quant = bits_get (b, 5);
  pic->slice_quant_min = pic->n_slices == 1 ? quant :
      MIN (pic->slice_quant_min, quant);
  pic->slice_quant_max = MAX (pic->slice_quant_max, quant);
  while (bits_get (b, 1) && !b->overrun)
    bits_get (b, 8);            /* extra_information_slice */
  if (quant == 0)
    ERR (p, "slice at byte %" G_GUINT64_FORMAT " (picture %u): "
        "quantizer_scale 0", offset, pic->index);
  if (!s)
    return;
  cols = mb_columns (s);
  rows = mb_rows (s);
  if (code > rows) {
    ERR (p, "slice at byte %" G_GUINT64_FORMAT " (picture %u): "
        "slice_vertical_position %u beyond the %u macroblock rows", offset,
        pic->index, code, rows);
    p->rows_ok = FALSE;
    pic->mb_syntax_error = TRUE;
    return;
  }
  mb_start = b->pos;
  inc = read_address_increment (b);
  if (inc == 0) {
    ERR (p, "slice at byte %" G_GUINT64_FORMAT " (picture %u): no valid "
        "macroblock_address_increment", offset, pic->index);
    p->rows_ok = FALSE;
    pic->mb_syntax_error = TRUE;
    return;
  }
  /* the address before a slice is the last one of the row above */
  address = (gint) ((code - 1) * cols) - 1 + (gint) inc;
  if (address >= (gint) (cols * rows)) {
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
    sl.address = address;
    sl.quant = quant;
    /* predictors start afresh in every slice */
    sl.dc_pred[0] = sl.dc_pred[1] = sl.dc_pred[2] = 1024;
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

  if (p->extend_picture >= 0) {
    g_array_index (r->pictures, MpegCheckPicture, p->extend_picture).au_end =
        offset;
    p->extend_picture = -1;
  }
  r->end_code = FALSE;

  if (code >= 0x01 && code <= 0xAF) {
    if (p->state != ST_PIC && p->state != ST_SLICES) {
      ERR (p, "slice start code at byte %" G_GUINT64_FORMAT " outside a "
          "picture", offset);
      return;
    }
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
      parse_sequence_header (p, offset, &b);
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
      else if (p->state == ST_SEQ)
        ERR (p, "picture at byte %" G_GUINT64_FORMAT " has no GOP header "
            "between it and the sequence header", offset);
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
      if (!p->mpeg2_reported)
        ERR (p, "extension start code at byte %" G_GUINT64_FORMAT ": an "
            "MPEG-2 stream, not MPEG-1", offset);
      p->mpeg2_reported = TRUE;
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

/* ---- VBV ---- */

static void
simulate_sequence (Parser * p, guint si)
{
  MpegCheckResult *r = p->r;
  const MpegCheckSequence *s =
      &g_array_index (r->sequences, MpegCheckSequence, si);
  MpegCheckPicture *pics;
  gdouble R, B, T, slack, total, t0, arrived, removed;
  guint64 base;
  guint n, i, mixed = 0, delay_errors = 0;
  gboolean full_rule;

  if (s->n_pictures == 0 || s->first_picture + s->n_pictures >
      r->pictures->len)
    return;
  if (s->bit_rate_code == VARIABLE_RATE) {
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
    gdouble t = t0 + i * T;
    gdouble end = (pic->au_end - base) * 8.0;
    gdouble before;

    if ((pic->vbv_delay == NO_DELAY) != full_rule)
      mixed++;
    if (full_rule) {
      if (i > 0)
        arrived = MIN (total, arrived + MIN (R * T, B - (arrived - removed)));
      pic->model_vbv_delay = -1;
    } else {
      gdouble sc_time = (pic->offset + 4 - base) * 8.0 / R;
      arrived = MIN (R * t, total);
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
    if (s0->fps_n)
      r->average_bitrate = bits_sum * (gdouble) s0->fps_n /
          ((gdouble) s0->fps_d * r->pictures->len);
  }

  if (opts->check_vbv)
    for (si = 0; si < r->sequences->len; si++)
      simulate_sequence (&p, si);

  if (p.suppressed)
    g_ptr_array_add (r->errors, g_strdup_printf ("... and %u more errors",
            p.suppressed));
  g_array_free (p.gop_trefs, TRUE);
  g_free (p.covered);
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
    g_string_append_printf (s, "sequence %u: %ux%u, pel_aspect_ratio %u, "
        "%d/%d fps (code %u), bit_rate ", i, q->width, q->height,
        q->aspect_code, q->fps_n, q->fps_d, q->frame_rate_code);
    if (q->bit_rate_code == VARIABLE_RATE)
      g_string_append (s, "variable (0x3FFFF)");
    else
      g_string_append_printf (s, "%u bit/s", q->bit_rate_code * 400);
    g_string_append_printf (s, ", vbv_buffer_size %u (%u bits), "
        "constrained %u, %s intra / %s non-intra matrix, pictures %u..%u\n",
        q->vbv_buffer_size_code, q->vbv_buffer_size_code * 16384,
        q->constrained, q->load_intra_matrix ? "loaded" : "default",
        q->load_non_intra_matrix ? "loaded" : "default", q->first_picture,
        q->first_picture + q->n_pictures - (q->n_pictures ? 1 : 0));
  }
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
