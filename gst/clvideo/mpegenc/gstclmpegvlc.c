/* gst-clvideo: MPEG-1 video (ISO/IEC 11172-2) variable-length coding of
 * slices
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * The code tables are written from the standard's annex B, as bit strings
 * so that they read like it.
 */
#include "gstclmpegvlc.h"

#include <string.h>
#ifdef __SSE2__
#include <emmintrin.h>
#endif

const guint8 gst_cl_mpeg_default_intra_matrix[64] = {
  8, 16, 19, 22, 26, 27, 29, 34,
  16, 16, 22, 24, 27, 29, 34, 37,
  19, 22, 26, 27, 29, 34, 34, 38,
  22, 22, 26, 27, 29, 34, 37, 40,
  22, 26, 27, 29, 32, 35, 40, 48,
  26, 27, 29, 32, 35, 40, 48, 58,
  26, 27, 29, 34, 38, 46, 56, 69,
  27, 29, 35, 38, 46, 56, 69, 83,
};

const guint8 gst_cl_mpeg_zigzag[64] = {
  0, 1, 8, 16, 9, 2, 3, 10,
  17, 24, 32, 25, 18, 11, 4, 5,
  12, 19, 26, 33, 40, 48, 41, 34,
  27, 20, 13, 6, 7, 14, 21, 28,
  35, 42, 49, 56, 57, 50, 43, 36,
  29, 22, 15, 23, 30, 37, 44, 51,
  58, 59, 52, 45, 38, 31, 39, 46,
  53, 60, 61, 54, 47, 55, 62, 63,
};

typedef struct {
  guint32 code;
  guint32 len;
} Vlc;

/* ---- tables as bit strings (annex B) ---- */

/* B.1 macroblock_address_increment, 1..33 */
static const gchar *const mba_bits[34] = { NULL,
  "1", "011", "010", "0011", "0010", "00011", "00010", "0000111", "0000110",
  "00001011", "00001010", "00001001", "00001000", "00000111", "00000110",
  "0000010111", "0000010110", "0000010101", "0000010100", "0000010011",
  "0000010010", "00000100011", "00000100010", "00000100001", "00000100000",
  "00000011111", "00000011110", "00000011101", "00000011100", "00000011011",
  "00000011010", "00000011001", "00000011000",
};
#define MBA_ESCAPE_CODE 0x08    /* 0000 0001 000 */
#define MBA_ESCAPE_LEN 11

/* B.3 coded_block_pattern, 1..63, and 13818-2 B.9's code for 0 (a 4:2:2
 * macroblock whose levels are all in its blocks 6 and 7) */
static const struct { guint8 cbp; const gchar *bits; } cbp_bits[] = {
  {0, "000000001"},
  {60, "111"}, {4, "1101"}, {8, "1100"}, {16, "1011"}, {32, "1010"},
  {12, "10011"}, {48, "10010"}, {20, "10001"}, {40, "10000"},
  {28, "01111"}, {44, "01110"}, {52, "01101"}, {56, "01100"},
  {1, "01011"}, {61, "01010"}, {2, "01001"}, {62, "01000"},
  {24, "001111"}, {36, "001110"}, {3, "001101"}, {63, "001100"},
  {5, "0010111"}, {9, "0010110"}, {17, "0010101"}, {33, "0010100"},
  {6, "0010011"}, {10, "0010010"}, {18, "0010001"}, {34, "0010000"},
  {7, "00011111"}, {11, "00011110"}, {19, "00011101"}, {35, "00011100"},
  {13, "00011011"}, {49, "00011010"}, {21, "00011001"}, {41, "00011000"},
  {14, "00010111"}, {50, "00010110"}, {22, "00010101"}, {42, "00010100"},
  {15, "00010011"}, {51, "00010010"}, {23, "00010001"}, {43, "00010000"},
  {25, "00001111"}, {37, "00001110"}, {26, "00001101"}, {38, "00001100"},
  {29, "00001011"}, {45, "00001010"}, {53, "00001001"}, {57, "00001000"},
  {30, "00000111"}, {46, "00000110"}, {54, "00000101"}, {58, "00000100"},
  {31, "000000111"}, {47, "000000110"}, {55, "000000101"},
  {59, "000000100"}, {27, "000000011"}, {39, "000000010"},
};

/* B.4 motion_code magnitude 0..16, without the sign bit */
static const gchar *const mv_bits[17] = {
  "1", "01", "001", "0001", "000011", "0000101", "0000100", "0000011",
  "000001011", "000001010", "000001001", "0000010001", "0000010000",
  "0000001111", "0000001110", "0000001101", "0000001100",
};

/* dct_dc_size: 11172-2 B.5a, B.5b, 0..8, and 13818-2 B.12, B.13, 0..11 */
static const gchar *const dc_luma_bits[GST_CL_MPEG_RD_DC_SIZES] = {
  "100", "00", "01", "101", "110", "1110", "11110", "111110", "1111110",
  "11111110", "111111110", "111111111",
};
static const gchar *const dc_chroma_bits[GST_CL_MPEG_RD_DC_SIZES] = {
  "00", "01", "10", "110", "1110", "11110", "111110", "1111110", "11111110",
  "111111110", "1111111110", "1111111111",
};

/* B.5c-f dct_coeff_next: (run, level) without the sign bit; (0, 1) is
 * "11" here and "1" as the first coefficient of a non-intra block. */
/* a run-level pair's code, without the sign bit */
typedef struct { guint8 run, level; const gchar *bits; } CoeffCode;

static const CoeffCode coeff_bits[] = {
  {0, 1, "11"}, {1, 1, "011"}, {0, 2, "0100"}, {2, 1, "0101"},
  {0, 3, "00101"}, {3, 1, "00111"}, {4, 1, "00110"},
  {1, 2, "000110"}, {5, 1, "000111"}, {6, 1, "000101"}, {7, 1, "000100"},
  {0, 4, "0000110"}, {2, 2, "0000100"}, {8, 1, "0000111"}, {9, 1, "0000101"},
  {0, 5, "00100110"}, {0, 6, "00100001"}, {1, 3, "00100101"},
  {3, 2, "00100100"}, {10, 1, "00100111"}, {11, 1, "00100011"},
  {12, 1, "00100010"}, {13, 1, "00100000"},
  {0, 7, "0000001010"}, {1, 4, "0000001100"}, {2, 3, "0000001011"},
  {4, 2, "0000001111"}, {5, 2, "0000001001"}, {14, 1, "0000001110"},
  {15, 1, "0000001101"}, {16, 1, "0000001000"},
  {0, 8, "000000011101"}, {0, 9, "000000011000"}, {0, 10, "000000010011"},
  {0, 11, "000000010000"}, {1, 5, "000000011011"}, {2, 4, "000000010100"},
  {3, 3, "000000011100"}, {4, 3, "000000010010"}, {6, 2, "000000011110"},
  {7, 2, "000000010101"}, {8, 2, "000000010001"}, {17, 1, "000000011111"},
  {18, 1, "000000011010"}, {19, 1, "000000011001"}, {20, 1, "000000010111"},
  {21, 1, "000000010110"},
  {0, 12, "0000000011010"}, {0, 13, "0000000011001"},
  {0, 14, "0000000011000"}, {0, 15, "0000000010111"},
  {1, 6, "0000000010110"}, {1, 7, "0000000010101"}, {2, 5, "0000000010100"},
  {3, 4, "0000000010011"}, {5, 3, "0000000010010"}, {9, 2, "0000000010001"},
  {10, 2, "0000000010000"}, {22, 1, "0000000011111"},
  {23, 1, "0000000011110"}, {24, 1, "0000000011101"},
  {25, 1, "0000000011100"}, {26, 1, "0000000011011"},
  {0, 16, "00000000011111"}, {0, 17, "00000000011110"},
  {0, 18, "00000000011101"}, {0, 19, "00000000011100"},
  {0, 20, "00000000011011"}, {0, 21, "00000000011010"},
  {0, 22, "00000000011001"}, {0, 23, "00000000011000"},
  {0, 24, "00000000010111"}, {0, 25, "00000000010110"},
  {0, 26, "00000000010101"}, {0, 27, "00000000010100"},
  {0, 28, "00000000010011"}, {0, 29, "00000000010010"},
  {0, 30, "00000000010001"}, {0, 31, "00000000010000"},
  {0, 32, "000000000011000"}, {0, 33, "000000000010111"},
  {0, 34, "000000000010110"}, {0, 35, "000000000010101"},
  {0, 36, "000000000010100"}, {0, 37, "000000000010011"},
  {0, 38, "000000000010010"}, {0, 39, "000000000010001"},
  {0, 40, "000000000010000"}, {1, 8, "000000000011111"},
  {1, 9, "000000000011110"}, {1, 10, "000000000011101"},
  {1, 11, "000000000011100"}, {1, 12, "000000000011011"},
  {1, 13, "000000000011010"}, {1, 14, "000000000011001"},
  {1, 15, "0000000000010011"}, {1, 16, "0000000000010010"},
  {1, 17, "0000000000010001"}, {1, 18, "0000000000010000"},
  {6, 3, "0000000000010100"}, {11, 2, "0000000000011010"},
  {12, 2, "0000000000011001"}, {13, 2, "0000000000011000"},
  {14, 2, "0000000000010111"}, {15, 2, "0000000000010110"},
  {16, 2, "0000000000010101"}, {27, 1, "0000000000011111"},
  {28, 1, "0000000000011110"}, {29, 1, "0000000000011101"},
  {30, 1, "0000000000011100"}, {31, 1, "0000000000011011"},
};
/* 13818-2 B.15, DCT coefficients table one (the intra blocks of a picture
 * with intra_vlc_format 1): its codes up to 10 bits. For any other pair it
 * has, table one takes B.14's code of 12 bits or more (the pairs B.14
 * codes shorter all have a code here). Its end_of_block is "0110". */
static const CoeffCode coeff_one_bits[] = {
  {0, 1, "10"}, {1, 1, "010"}, {0, 2, "110"}, {0, 3, "0111"},
  {2, 1, "00101"}, {1, 2, "00110"}, {3, 1, "00111"}, {0, 4, "11100"},
  {0, 5, "11101"},
  {0, 6, "000101"}, {0, 7, "000100"}, {4, 1, "000110"}, {5, 1, "000111"},
  {6, 1, "0000110"}, {7, 1, "0000100"}, {2, 2, "0000111"}, {8, 1, "0000101"},
  {9, 1, "1111000"}, {1, 3, "1111001"}, {10, 1, "1111010"},
  {0, 8, "1111011"}, {0, 9, "1111100"},
  {0, 10, "00100011"}, {0, 11, "00100010"}, {1, 4, "00100111"},
  {1, 5, "00100000"}, {3, 2, "00100110"}, {11, 1, "00100001"},
  {12, 1, "00100101"}, {13, 1, "00100100"}, {0, 12, "11111010"},
  {0, 13, "11111011"}, {0, 14, "11111110"}, {0, 15, "11111111"},
  {2, 3, "11111100"}, {4, 2, "11111101"},
  {5, 2, "000000100"}, {14, 1, "000000101"}, {15, 1, "000000111"},
  {2, 4, "0000001100"}, {16, 1, "0000001101"},
};
#define COEFF_ONE_SHARED_LEN 12 /* B.14's codes table one shares */
#define COEFF_ESCAPE_CODE 0x01  /* 0000 01 */
#define COEFF_ESCAPE_LEN 6
/* MPEG-2's escape: the code, a 6-bit run and a 12-bit level */
#define MPEG2_ESCAPE_BITS (COEFF_ESCAPE_LEN + 18)
#define MAX_RUN 32
#define MAX_TABLE_LEVEL 41

/* ---- tables as codes, built once ---- */

typedef struct {
  Vlc mba[34];
  Vlc cbp[64];
  Vlc mv[17];
  Vlc dc_luma[GST_CL_MPEG_RD_DC_SIZES], dc_chroma[GST_CL_MPEG_RD_DC_SIZES];
  /* with a zero sign bit appended; len 0: escape. [0][0]: end_of_block */
  Vlc coeff[MAX_RUN][MAX_TABLE_LEVEL];
  Vlc coeff_one[MAX_RUN][MAX_TABLE_LEVEL];      /* table one (B.15) */
} Tables;

static Tables tables;

static Vlc
vlc_from_bits (const gchar * bits)
{
  Vlc v = { 0, 0 };
  for (; *bits; bits++) {
    v.code = (v.code << 1) | (*bits == '1');
    v.len++;
  }
  return v;
}

/* @c's code with a zero sign bit appended */
static Vlc
coeff_vlc (const CoeffCode * c)
{
  Vlc v = vlc_from_bits (c->bits);
  v.code <<= 1;
  v.len++;
  return v;
}

static const Tables *
get_tables (void)
{
  static gsize init = 0;
  guint i;

  if (g_once_init_enter (&init)) {
    for (i = 1; i <= 33; i++)
      tables.mba[i] = vlc_from_bits (mba_bits[i]);
    for (i = 0; i < G_N_ELEMENTS (cbp_bits); i++)
      tables.cbp[cbp_bits[i].cbp] = vlc_from_bits (cbp_bits[i].bits);
    for (i = 0; i <= 16; i++)
      tables.mv[i] = vlc_from_bits (mv_bits[i]);
    for (i = 0; i < GST_CL_MPEG_RD_DC_SIZES; i++) {
      tables.dc_luma[i] = vlc_from_bits (dc_luma_bits[i]);
      tables.dc_chroma[i] = vlc_from_bits (dc_chroma_bits[i]);
    }
    for (i = 0; i < G_N_ELEMENTS (coeff_bits); i++) {
      const CoeffCode *c = &coeff_bits[i];
      Vlc v = coeff_vlc (c);
      tables.coeff[c->run][c->level] = v;
      if (v.len > COEFF_ONE_SHARED_LEN)
        tables.coeff_one[c->run][c->level] = v;
    }
    for (i = 0; i < G_N_ELEMENTS (coeff_one_bits); i++) {
      const CoeffCode *c = &coeff_one_bits[i];
      tables.coeff_one[c->run][c->level] = coeff_vlc (c);
    }
    tables.coeff[0][0] = vlc_from_bits ("10");
    tables.coeff_one[0][0] = vlc_from_bits ("0110");
    g_once_init_leave (&init, 1);
  }
  return &tables;
}

void
gst_cl_mpeg_rd_bits (guint8 bits[GST_CL_MPEG_RD_BITS_SIZE])
{
  const Tables *t = get_tables ();
  guint run, level, d;

  G_STATIC_ASSERT (GST_CL_MPEG_COEFF_BITS_RUNS == MAX_RUN);
  G_STATIC_ASSERT (GST_CL_MPEG_COEFF_BITS_LEVELS == MAX_TABLE_LEVEL);
  for (run = 0; run < MAX_RUN; run++)
    for (level = 0; level < MAX_TABLE_LEVEL; level++) {
      bits[run * MAX_TABLE_LEVEL + level] = t->coeff[run][level].len;
      bits[GST_CL_MPEG_RD_ONE_BITS + run * MAX_TABLE_LEVEL + level] =
          t->coeff_one[run][level].len;
    }
  /* f_code 2: motion_code |d| / 2 rounded up, a sign and a residual bit */
  for (d = 0; d <= GST_CL_MPEG_RD_MV_MAX; d++)
    bits[GST_CL_MPEG_RD_MV_BITS + d] = d ? t->mv[(d + 1) / 2].len + 2 :
        t->mv[0].len;
  for (d = 0; d < 64; d++)
    bits[GST_CL_MPEG_RD_CBP_BITS + d] = t->cbp[d].len;
  for (d = 0; d < GST_CL_MPEG_RD_DC_SIZES; d++) {
    bits[GST_CL_MPEG_RD_DC_BITS + d] = t->dc_luma[d].len;
    bits[GST_CL_MPEG_RD_DC_BITS + GST_CL_MPEG_RD_DC_SIZES + d] =
        t->dc_chroma[d].len;
  }
}

guint
gst_cl_mpeg_f_code_for_reach (guint reach)
{
  guint f_code;

  /* (the range [-16 f, 16 f - 1] holds v where max (-v, v + 1) <= 16 f) */
  for (f_code = 1; f_code < 7; f_code++)
    if (reach <= 16u << (f_code - 1))
      break;
  return f_code;
}

/* The smallest f_code (1..7) whose range [-16 f, 16 f - 1] holds
 * [@lo, @hi] (@lo <= 0 <= @hi). */
static guint
f_code_for (gint lo, gint hi)
{
  return gst_cl_mpeg_f_code_for_reach (MAX (-lo, hi + 1));
}

/* Widens [@lo, @hi] to the field vectors of @f */
static void
field_vectors_range (const GstClMpegFieldChoice * f, gint * lo, gint * hi)
{
  guint p;

  for (p = 0; p < 2; p++) {
    *lo = MIN (*lo, MIN (f->dx[p], f->dy[p]));
    *hi = MAX (*hi, MAX (f->dx[p], f->dy[p]));
  }
}

guint
gst_cl_mpeg_choose_f_code (const GstClMpegMbRecord * recs,
    const GstClMpegFieldChoice * fields, guint n)
{
  gint lo = 0, hi = 0;
  guint i;

  for (i = 0; i < n; i++) {
    if (recs[i].flags & GST_CL_MPEG_MB_INTRA)
      continue;
    if (fields && (recs[i].flags & GST_CL_MPEG_MB_FIELD_MOTION)) {
      field_vectors_range (&fields[i], &lo, &hi);
      continue;
    }
    lo = MIN (lo, MIN (recs[i].dx, recs[i].dy));
    hi = MAX (hi, MAX (recs[i].dx, recs[i].dy));
  }
  return f_code_for (lo, hi);
}

void
gst_cl_mpeg_choose_b_f_codes (const GstClMpegMbRecord * recs,
    const GstClMpegBChoice * choices, const GstClMpegFieldChoice * fields,
    const GstClMpegFieldChoice * bfields, guint n, guint * forward,
    guint * backward)
{
  gint lo[2] = { 0, 0 }, hi[2] = { 0, 0 };
  guint i;

  for (i = 0; i < n; i++) {
    const GstClMpegBChoice *c = &choices[i];
    if (recs[i].flags & GST_CL_MPEG_MB_INTRA)
      continue;
    if (c->directions & GST_CL_MPEG_B_FIELD) {
      if (c->directions & GST_CL_MPEG_B_FORWARD)
        field_vectors_range (&fields[i], &lo[0], &hi[0]);
      if (c->directions & GST_CL_MPEG_B_BACKWARD)
        field_vectors_range (&bfields[i], &lo[1], &hi[1]);
      continue;
    }
    if (c->directions & GST_CL_MPEG_B_FORWARD) {
      lo[0] = MIN (lo[0], MIN (c->fdx, c->fdy));
      hi[0] = MAX (hi[0], MAX (c->fdx, c->fdy));
    }
    if (c->directions & GST_CL_MPEG_B_BACKWARD) {
      lo[1] = MIN (lo[1], MIN (c->bdx, c->bdy));
      hi[1] = MAX (hi[1], MAX (c->bdx, c->bdy));
    }
  }
  *forward = f_code_for (lo[0], hi[0]);
  *backward = f_code_for (lo[1], hi[1]);
}

/* ---- macroblock layer ---- */

/* The bit writer's state in locals while a slice's macroblocks are coded.
 * Room for a whole macroblock is made once before it, so that a field
 * needs no capacity check and can store its bytes without a branch. */
typedef struct {
  guint64 acc;                  /* as GstClMpegBitWriter */
  guint n_acc;
  guint8 *p;                    /* where the next 4 bytes go */
} Bits;

/* more than a macroblock takes: address escapes, header, vectors, and
 * eight blocks (4:2:2) of 64 escaped levels (24 bits each in MPEG-2; MPEG-1,
 * 4:2:0 only, has six of up to 28) */
#define MB_MAX_BYTES 2048

/* Without a branch on the number of pending bits (it would be taken every
 * few fields, unpredictably): the top 32 of them are stored every time, and
 * kept (p advanced) only when complete. */
static inline void
bits_put (Bits * b, guint32 value, guint n)
{
  guint full, word;

  b->acc = (b->acc << n) | (value & ((G_GUINT64_CONSTANT (1) << n) - 1));
  b->n_acc += n;
  full = b->n_acc >= 32;
  b->n_acc -= full << 5;
  word = GUINT32_TO_BE ((guint32) (b->acc >> b->n_acc));
  memcpy (b->p, &word, 4);
  b->p += full << 2;
}

static void
bits_load (Bits * b, const GstClMpegBitWriter * bw)
{
  b->acc = bw->acc;
  b->n_acc = bw->n_acc;
  b->p = bw->data + bw->size;
}

static void
bits_store (const Bits * b, GstClMpegBitWriter * bw)
{
  bw->acc = b->acc;
  bw->n_acc = b->n_acc;
  bw->size = b->p - bw->data;
}

/* Makes room for a macroblock. */
static inline void
bits_reserve (Bits * b, GstClMpegBitWriter * bw)
{
  if (G_UNLIKELY (b->p + MB_MAX_BYTES > bw->data + bw->alloc)) {
    bits_store (b, bw);
    gst_cl_mpeg_bit_writer_grow (bw, MB_MAX_BYTES);
    bits_load (b, bw);
  }
}

static inline void
put_vlc (Bits * bw, Vlc v)
{
  bits_put (bw, v.code, v.len);
}

static void
put_address_increment (Bits * bw, const Tables * t, guint inc)
{
  while (inc > 33) {
    bits_put (bw, MBA_ESCAPE_CODE, MBA_ESCAPE_LEN);
    inc -= 33;
  }
  put_vlc (bw, t->mba[inc]);
}

/* One vector component: the difference to the predictor, wrapped into the
 * range of @f_code, as motion_code and motion_r. */
static void
put_motion_component (Bits * bw, const Tables * t, gint delta, guint f_code)
{
  gint f = 1 << (f_code - 1);
  guint code_abs, r;

  if (delta < -16 * f)
    delta += 32 * f;
  else if (delta > 16 * f - 1)
    delta -= 32 * f;
  if (delta == 0) {
    put_vlc (bw, t->mv[0]);
    return;
  }
  code_abs = (ABS (delta) + f - 1) / f;
  r = (ABS (delta) - 1) % f;
  put_vlc (bw, t->mv[code_abs]);
  bits_put (bw, delta < 0, 1);
  if (f_code > 1)
    bits_put (bw, r, f_code - 1);
}

/* Bit i set where zz[i] != 0, for i < @end (at most 64): the coefficient
 * loop then jumps from one level to the next. */
static inline guint64
nonzero_mask (const gint16 * zz, guint end)
{
  guint64 m = 0;
  guint i;
#ifdef __SSE2__
  const __m128i zero = _mm_setzero_si128 ();
  for (i = 0; i < end; i += 16) {
    __m128i a = _mm_cmpeq_epi16 (_mm_loadu_si128 ((const __m128i *) (zz + i)),
        zero);
    __m128i b = _mm_cmpeq_epi16 (_mm_loadu_si128 ((const __m128i *) (zz + i +
                8)), zero);
    m |= (guint64) (~_mm_movemask_epi8 (_mm_packs_epi16 (a, b)) & 0xffff)
        << i;
  }
#else
  for (i = 0; i < end; i++)
    m |= (guint64) (zz[i] != 0) << i;
#endif
  return end < 64 ? m & ((G_GUINT64_CONSTANT (1) << end) - 1) : m;
}

static inline guint
lowest_bit (guint64 m)
{
#ifdef __GNUC__
  return __builtin_ctzll (m);
#else
  guint i = 0;
  while (!(m & 1)) {
    m >>= 1;
    i++;
  }
  return i;
#endif
}

/* The levels @zz[@start..@end) coded with @coeff (B.14 or B.15, whose
 * [0][0] is its end_of_block) */
static void
put_coefficients (Bits * out, const Vlc coeff[MAX_RUN][MAX_TABLE_LEVEL],
    const gint16 * zz, guint start, guint end, gboolean first_special,
    gboolean mpeg2)
{
  guint64 m = nonzero_mask (zz, end) & ~((G_GUINT64_CONSTANT (1) << start) -
      1);
  guint pos = start;
  /* a copy whose address goes nowhere stays in registers */
  Bits local = *out, *bw = &local;

  while (m) {
    guint i = lowest_bit (m), run = i - pos, a;
    gint v = zz[i];

    m &= m - 1;
    pos = i + 1;
    a = ABS (v);
    if (first_special && run == 0 && a == 1) {
      /* "1s": EOB cannot come first, so its code means (0, 1) there */
      bits_put (bw, 2 | (v < 0), 2);
    } else if (run < MAX_RUN && a < MAX_TABLE_LEVEL && coeff[run][a].len) {
      bits_put (bw, coeff[run][a].code | (v < 0), coeff[run][a].len);
    } else {
      /* escape, run (6 bits), level (MPEG-1: 8 or 16 bits, MPEG-2: 12) */
      guint32 head = (COEFF_ESCAPE_CODE << 6) | run;
      if (mpeg2)
        bits_put (bw, (head << 12) | ((guint) v & 0xfff), MPEG2_ESCAPE_BITS);
      else if (a <= 127)
        bits_put (bw, (head << 8) | ((guint) v & 0xff), COEFF_ESCAPE_LEN + 14);
      else
        bits_put (bw, (head << 16) | (v > 0 ? (guint) v : 0x8000 |
                (guint) (v + 256)), COEFF_ESCAPE_LEN + 22);
    }
    first_special = FALSE;
  }
  bits_put (bw, coeff[0][0].code, coeff[0][0].len);
  *out = local;
}

/* an intra block: its DC differential, then its AC levels coded with
 * @coeff */
static void
put_intra_block (Bits * bw, const Tables * t,
    const Vlc coeff[MAX_RUN][MAX_TABLE_LEVEL], const gint16 * zz, guint last,
    gboolean chroma, gint * dc_pred, gboolean mpeg2)
{
  gint diff = zz[0] - *dc_pred;
  guint size = diff ? g_bit_storage (ABS (diff)) : 0;
  Vlc v = chroma ? t->dc_chroma[size] : t->dc_luma[size];

  *dc_pred = zz[0];
  /* dct_dc_size and dct_dc_differential in one field */
  bits_put (bw, (v.code << size) |
      (guint) (diff > 0 ? diff : diff + (1 << size) - 1), v.len + size);
  put_coefficients (bw, coeff, zz, 1, last, FALSE, mpeg2);
}

/* levels kept of block @b of @r in the packed layout */
static inline guint
packed_levels (const GstClMpegMbRecord * r, guint b)
{
  return (r->flags & GST_CL_MPEG_MB_INTRA) ? MAX (r->last[b], 1) : r->last[b];
}

/* bits of the AC levels @zz[1..@end) and the end_of_block of an intra
 * block in @coeff */
static guint64
intra_ac_bits (const Vlc coeff[MAX_RUN][MAX_TABLE_LEVEL], const gint16 * zz,
    guint end)
{
  guint64 m = nonzero_mask (zz, end) & ~G_GUINT64_CONSTANT (1), bits =
      coeff[0][0].len;
  guint pos = 1;

  while (m) {
    guint i = lowest_bit (m), run = i - pos, a = ABS (zz[i]);
    m &= m - 1;
    pos = i + 1;
    bits += run < MAX_RUN && a < MAX_TABLE_LEVEL && coeff[run][a].len ?
        coeff[run][a].len : MPEG2_ESCAPE_BITS;
  }
  return bits;
}

void
gst_cl_mpeg_intra_table_bits (const GstClMpegMbRecord * recs, guint n,
    gboolean intra_picture, const gint16 * levels, const guint32 * mb_offsets,
    guint64 bits[2])
{
  const Tables *t = get_tables ();
  guint i, b;

  bits[0] = bits[1] = 0;
  for (i = 0; i < n; i++) {
    const GstClMpegMbRecord *r = &recs[i];
    const gint16 *bz = mb_offsets ? levels + mb_offsets[i] :
        levels + (gsize) i * GST_CL_MPEG_MB_LEVELS;
    if (!intra_picture && !(r->flags & GST_CL_MPEG_MB_INTRA))
      continue;
    for (b = 0; b < r->n_blocks; b++) {
      guint end = MAX (r->last[b], 1);
      bits[0] += intra_ac_bits (t->coeff, bz, end);
      bits[1] += intra_ac_bits (t->coeff_one, bz, end);
      bz += mb_offsets ? packed_levels (r, b) : 64;
    }
  }
}

/* The sum of the @last of @r's blocks, eight bytes added at once */
static inline guint
last_sum (const GstClMpegMbRecord * r)
{
  guint64 v;

  G_STATIC_ASSERT (sizeof (r->last) == 8);
  memcpy (&v, r->last, 8);
  v = GUINT64_FROM_LE (v);
  /* (the bytes past the macroblock's blocks do not count) */
  if (r->n_blocks < 8)
    v &= (G_GUINT64_CONSTANT (1) << (8 * r->n_blocks)) - 1;
  /* pairs of bytes into four 16-bit lanes (each at most 2 * 64), then
   * the lanes into the top one */
  v = (v & G_GUINT64_CONSTANT (0x00ff00ff00ff00ff)) +
      ((v >> 8) & G_GUINT64_CONSTANT (0x00ff00ff00ff00ff));
  return (guint) ((v * G_GUINT64_CONSTANT (0x0001000100010001)) >> 48);
}

/* packed_levels() summed over @r's blocks */
static inline guint
mb_packed_levels (const GstClMpegMbRecord * r)
{
  guint n = last_sum (r), b;

  /* an intra block keeps its DC level even where it is its last */
  if (r->flags & GST_CL_MPEG_MB_INTRA)
    for (b = 0; b < r->n_blocks; b++)
      n += r->last[b] == 0;
  return n;
}

void
gst_cl_mpeg_records_summarize (const GstClMpegMbRecord * recs, guint n,
    GstClMpegRecordsSummary * sum)
{
  guint i;

  memset (sum, 0, sizeof (*sum));
  sum->vector_reach = 1;
  for (i = 0; i < n; i++) {
    const GstClMpegMbRecord *r = &recs[i];
    gboolean intra = (r->flags & GST_CL_MPEG_MB_INTRA) != 0;
    gboolean skippable = (r->flags & GST_CL_MPEG_MB_SKIPPABLE) != 0;
    gint lo = MIN (r->dx, r->dy), hi = MAX (r->dx, r->dy);

    sum->packed_total += mb_packed_levels (r);
    sum->intra += intra;
    sum->skippable += skippable;
    if (intra || !skippable) {
      sum->coded++;
      sum->coded_last_sum += last_sum (r);
    }
    sum->quant_sum += r->quant;
    sum->activity_sum += r->activity;
    if (!intra)
      sum->vector_reach = MAX (sum->vector_reach, (guint) MAX (-lo, hi + 1));
  }
}

/* macroblock_type of a non-intra macroblock of a B picture (11172-2
 * table B.2d, 13818-2 table B.4): [directions - 1][coded][quant] */
static const Vlc b_types[3][2][2] = {
  {{{0x2, 4}, {0x2, 4}}, {{0x3, 4}, {0x3, 6}}},       /* forward */
  {{{0x2, 3}, {0x2, 3}}, {{0x3, 3}, {0x2, 6}}},       /* backward */
  {{{0x2, 2}, {0x2, 2}}, {{0x3, 2}, {0x2, 5}}},       /* interpolated */
};

/* Whether the B picture's macroblock @c, without levels, is what a
 * skipped one would be after a macroblock of @prev_dirs (0: intra) whose
 * vectors are @pmv: the same directions and vectors. */
static inline gboolean
b_skippable (const GstClMpegBChoice * c, guint prev_dirs, gint pmv[2][2])
{
  return prev_dirs != 0 && c->directions == prev_dirs &&
      (!(prev_dirs & GST_CL_MPEG_B_FORWARD) || (c->fdx == pmv[0][0] &&
          c->fdy == pmv[0][1])) &&
      (!(prev_dirs & GST_CL_MPEG_B_BACKWARD) || (c->bdx == pmv[1][0] &&
          c->bdy == pmv[1][1]));
}

/* frame_motion_type of field- and frame-based prediction (13818-2 table
 * 6-17) */
#define FRAME_MOTION_FIELD 0x1
#define FRAME_MOTION_FRAME 0x2
#define FRAME_MOTION_DUAL_PRIME 0x3

/* dmvector (13818-2 table B.11): 0 is 0, 1 is 10, -1 is 11 */
static inline void
put_dmvector (Bits * bw, gint dmv)
{
  if (dmv)
    bits_put (bw, dmv > 0 ? 0x2 : 0x3, 2);
  else
    bits_put (bw, 0, 1);
}

void
gst_cl_mpeg_write_slice (GstClMpegBitWriter * w, guint row, guint n_mbs,
    const GstClMpegPictureCoding * pc, const GstClMpegMbRecord * recs,
    const GstClMpegBChoice * choices, const GstClMpegFieldChoice * fields,
    const GstClMpegFieldChoice * bfields, const gint16 * levels,
    const guint32 * mb_offsets)
{
  const Tables *t = get_tables ();
  gboolean i_pic = pc->coding_type == GST_CL_MPEG_PICTURE_I;
  gboolean b_pic = pc->coding_type == GST_CL_MPEG_PICTURE_B;
  gboolean mpeg2 = pc->mpeg2;
  /* the intra blocks' AC table: MPEG-2's B.15 where the picture says */
  const Vlc (*intra_coeff)[MAX_TABLE_LEVEL] = mpeg2 &&
      pc->intra_vlc_format ? t->coeff_one : t->coeff;
  /* MPEG-2's macroblock modes: frame_motion_type and dct_type */
  gboolean modes = mpeg2 && pc->interlaced;
  guint f_code[2] = { pc->f_code, pc->backward_f_code };
  /* the DC predictors' reset value: the middle of the precision's range */
  const gint dc_reset = 128 << (mpeg2 ? pc->intra_dc_precision : 0);
  gint dc_pred[3] = { dc_reset, dc_reset, dc_reset };
  /* the vector predictors, [forward, backward][x, y]: PMV[0][s][t] of
   * 13818-2 7.6.3.1; PMV[1] (pmv1) equals it but after field prediction,
   * where it holds the second field's vector */
  gint pmv[2][2] = { {0, 0}, {0, 0} }, pmv1[2][2] = { {0, 0}, {0, 0} };
  /* B: the directions of the macroblock before (0: intra, predicted
   * field by field, or none: no skip may follow) */
  guint prev_dirs = 0;
  guint quant, i, b, s, skipped = 0;
  Bits bits, *bw = &bits;

  /* the slice's quantiser: that of its first macroblock with levels, so
   * that it needs no change */
  quant = recs[0].quant;
  for (i = 0; i < n_mbs; i++)
    if ((recs[i].flags & GST_CL_MPEG_MB_INTRA) || recs[i].cbp) {
      quant = recs[i].quant;
      break;
    }
  quant = gst_cl_mpeg_coded_quant (quant, pc->non_linear);

  gst_cl_mpeg_bit_writer_start_code (w, (guint8) (row + 1));
  gst_cl_mpeg_bit_writer_put (w, gst_cl_mpeg_quantiser_scale_code (quant,
          pc->non_linear), 5);
  gst_cl_mpeg_bit_writer_put (w, 0, 1);  /* extra_bit_slice */
  bits_load (bw, w);

  for (i = 0; i < n_mbs; i++) {
    const GstClMpegMbRecord *r = &recs[i];
    /* the current block's levels: every 64 entries, or packed one block
     * after the other */
    const gint16 *bz = mb_offsets ? levels + mb_offsets[i] :
        levels + (gsize) i * GST_CL_MPEG_MB_LEVELS;
    gboolean intra = i_pic || (r->flags & GST_CL_MPEG_MB_INTRA);
    gboolean inner = i > 0 && i < n_mbs - 1;

    if (!intra && inner && (b_pic ? r->cbp == 0 &&
            b_skippable (&choices[i], prev_dirs, pmv) :
            (r->flags & GST_CL_MPEG_MB_SKIPPABLE) != 0)) {
      /* a skipped macroblock of a P picture resets the vector
       * predictors; one of a B picture repeats the macroblock before */
      skipped++;
      if (!b_pic) {
        memset (pmv, 0, sizeof (pmv));
        memset (pmv1, 0, sizeof (pmv1));
      }
      dc_pred[0] = dc_pred[1] = dc_pred[2] = dc_reset;
      continue;
    }
    bits_reserve (bw, w);
    put_address_increment (bw, t, skipped + 1);
    skipped = 0;

    if (intra) {
      gboolean q = r->quant != quant;
      if (i_pic)
        bits_put (bw, q ? 0x1 : 0x1, q ? 2 : 1);
      else
        bits_put (bw, q ? 0x1 : 0x3, q ? 6 : 5);
      if (modes)
        bits_put (bw, (r->flags & GST_CL_MPEG_MB_FIELD_DCT) ? 1 : 0, 1);
      if (q) {
        quant = r->quant;
        bits_put (bw, gst_cl_mpeg_quantiser_scale_code (quant,
                pc->non_linear), 5);
      }
      for (b = 0; b < r->n_blocks; b++) {
        /* chroma blocks alternate Cb, Cr (4:2:2: Cb0 Cr0 Cb1 Cr1), each
         * component with its predictor (13818-2 7.2.1) */
        put_intra_block (bw, t, intra_coeff, bz, MAX (r->last[b], 1),
            b >= 4, &dc_pred[b < 4 ? 0 : (b & 1) + 1], mpeg2);
        bz += mb_offsets ? packed_levels (r, b) : 64;
      }
      memset (pmv, 0, sizeof (pmv));
      memset (pmv1, 0, sizeof (pmv1));
      prev_dirs = 0;
      continue;
    }

    {
      gboolean coded = r->cbp != 0;
      gboolean q = coded && r->quant != quant;
      gint v[2][2] = { {r->dx, r->dy}, {0, 0} };
      guint dirs = GST_CL_MPEG_B_FORWARD;
      /* field prediction: each direction's field vectors (P: forward) */
      const GstClMpegFieldChoice *fc[2] = { NULL, NULL };
      gboolean field, dual;

      if (b_pic && (choices[i].directions & GST_CL_MPEG_B_FIELD)) {
        fc[0] = &fields[i];
        fc[1] = &bfields[i];
      } else if (!b_pic && fields &&
          (r->flags & GST_CL_MPEG_MB_FIELD_MOTION)) {
        fc[0] = &fields[i];
      }
      field = fc[0] != NULL;
      if (b_pic) {
        const GstClMpegBChoice *c = &choices[i];
        dirs = c->directions & (GST_CL_MPEG_B_FORWARD |
            GST_CL_MPEG_B_BACKWARD);
        v[0][0] = c->fdx;
        v[0][1] = c->fdy;
        v[1][0] = c->bdx;
        v[1][1] = c->bdy;
        put_vlc (bw, b_types[dirs - 1][coded][q]);
      } else {
        /* P: a zero vector is not coded where levels are */
        if (coded && r->dx == 0 && r->dy == 0 && !field)
          dirs = 0;
        if (dirs && coded)
          bits_put (bw, q ? 0x2 : 0x1, q ? 5 : 1);
        else if (coded)
          bits_put (bw, q ? 0x1 : 0x1, q ? 5 : 2);
        else
          bits_put (bw, 0x1, 3);
      }
      dual = field && fc[0]->dual_prime;
      if (modes && dirs)
        bits_put (bw, dual ? FRAME_MOTION_DUAL_PRIME : field ?
            FRAME_MOTION_FIELD : FRAME_MOTION_FRAME, 2);
      if (modes && coded)
        bits_put (bw, (r->flags & GST_CL_MPEG_MB_FIELD_DCT) ? 1 : 0, 1);
      if (q) {
        quant = r->quant;
        bits_put (bw, gst_cl_mpeg_quantiser_scale_code (quant,
                pc->non_linear), 5);
      }
      if (!dirs) {
        memset (pmv, 0, sizeof (pmv));
        memset (pmv1, 0, sizeof (pmv1));
      }
      if (dual) {
        /* (P only) one field vector, each component followed by its
         * differential; it predicts the next vectors as a frame vector
         * would (13818-2 7.6.3.1) */
        put_motion_component (bw, t, fc[0]->dx[0] - pmv[0][0], f_code[0]);
        put_dmvector (bw, fc[0]->dmv[0]);
        put_motion_component (bw, t, fc[0]->dy[0] - (pmv[0][1] >> 1),
            f_code[0]);
        put_dmvector (bw, fc[0]->dmv[1]);
        pmv[0][0] = pmv1[0][0] = fc[0]->dx[0];
        pmv[0][1] = pmv1[0][1] = fc[0]->dy[0] * 2;
      }
      for (s = 0; s < 2 && field && !dual; s++) {
        /* per direction two field vectors, each with its reference field;
         * the vertical ones predicted from half the predictor (kept in
         * frame units) and kept doubled (13818-2 7.6.3.1) */
        gint *pk[2] = { pmv[s], pmv1[s] };
        guint k;
        if (!(dirs & (GST_CL_MPEG_B_FORWARD << s)))
          continue;
        for (k = 0; k < 2; k++) {
          bits_put (bw, fc[s]->select[k], 1);
          put_motion_component (bw, t, fc[s]->dx[k] - pk[k][0], f_code[s]);
          put_motion_component (bw, t, fc[s]->dy[k] - (pk[k][1] >> 1),
              f_code[s]);
          pk[k][0] = fc[s]->dx[k];
          pk[k][1] = fc[s]->dy[k] * 2;
        }
      }
      for (s = 0; s < 2 && !field; s++) {
        if (!(dirs & (GST_CL_MPEG_B_FORWARD << s)))
          continue;
        put_motion_component (bw, t, v[s][0] - pmv[s][0], f_code[s]);
        put_motion_component (bw, t, v[s][1] - pmv[s][1], f_code[s]);
        pmv[s][0] = pmv1[s][0] = v[s][0];
        pmv[s][1] = pmv1[s][1] = v[s][1];
      }
      if (coded) {
        /* 4:2:2: the pattern of blocks 0-5 (0 too), then
         * coded_block_pattern_1 of blocks 6 and 7 (13818-2 6.2.5.3) */
        if (r->n_blocks == GST_CL_MPEG_BLOCKS_422) {
          put_vlc (bw, t->cbp[r->cbp >> 2]);
          bits_put (bw, r->cbp & 3, 2);
        } else {
          put_vlc (bw, t->cbp[r->cbp]);
        }
        for (b = 0; b < r->n_blocks; b++) {
          if (r->cbp & ((1 << (r->n_blocks - 1)) >> b))
            put_coefficients (bw, t->coeff, bz, 0, r->last[b], TRUE, mpeg2);
          bz += mb_offsets ? packed_levels (r, b) : 64;
        }
      }
      dc_pred[0] = dc_pred[1] = dc_pred[2] = dc_reset;
      prev_dirs = field ? 0 : dirs;
    }
  }
  bits_store (bw, w);
  gst_cl_mpeg_bit_writer_align (w);
}
