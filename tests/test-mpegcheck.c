/* gst-clvideo: the MPEG-1 and MPEG-2 stream checker, the PSNR tool and
 * the decode check, verified on streams of an independent encoder
 * (FFmpeg's mpeg1video and mpeg2video) and on streams broken on purpose
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * Needs the ffmpeg program; the suite is skipped (exit 77) without it.
 * The MPEG-2 streams are made of real camera content, the Foreman clip of
 * the real-content set (pipelines/real-clips.sh), looked for in
 * $MPEGCHECK_CLIPS_DIR or else in that script's default directory;
 * without it, of a zooming Mandelbrot set (fine detail and motion all
 * over the picture).
 */
#include <gst/check/gstcheck.h>
#include <glib/gstdio.h>
#include <math.h>
#include <string.h>

#include "mpegcheck.h"
#include "psnr.h"

#define W 352
#define H 288
#define FRAMES 30

static gchar *tmpdir;

static gchar *
tmp_path (const gchar * name)
{
  return g_build_filename (tmpdir, name, NULL);
}

static gboolean
have_program (const gchar * name)
{
  gchar *path = g_find_program_in_path (name);

  g_free (path);
  return path != NULL;
}

/* Runs @argv, failing the test unless it exits with @expect; its stdout. */
static gchar *
run_tool (const gchar ** argv, gint expect)
{
  gchar *out = NULL, *err = NULL;
  gint status = 0;
  GError *error = NULL;

  fail_unless (g_spawn_sync (NULL, (gchar **) argv, NULL, G_SPAWN_SEARCH_PATH,
          NULL, NULL, &out, &err, &status, &error), "cannot run %s: %s",
      argv[0], error ? error->message : "?");
  fail_unless (WIFEXITED (status) && WEXITSTATUS (status) == expect,
      "%s exited with %d, expected %d\nstdout:\n%s\nstderr:\n%s", argv[0],
      WIFEXITED (status) ? WEXITSTATUS (status) : -1, expect, out, err);
  g_free (err);
  return out;
}

/* FFmpeg on @input (its input options) with @codec_args; run before the
 * tests start. */
static void
ffmpeg_encode_input (const gchar * name, const gchar * input, gint frames,
    const gchar * codec_args)
{
  gchar *path = tmp_path (name), *err = NULL;
  gchar *cmd = g_strdup_printf ("ffmpeg -nostdin -v error %s -frames:v %d "
      "%s -y %s", input, frames, codec_args, path);
  gint status = -1;

  if (!g_spawn_command_line_sync (cmd, NULL, &err, &status, NULL) ||
      !g_spawn_check_wait_status (status, NULL))
    g_error ("%s failed: %s", cmd, err ? err : "");
  g_free (err);
  g_free (cmd);
  g_free (path);
}

/* FFmpeg on the lavfi source @source */
static void
ffmpeg_encode_filter (const gchar * name, const gchar * source, gint frames,
    const gchar * codec_args)
{
  gchar *input = g_strdup_printf ("-f lavfi -i \"%s\"", source);

  ffmpeg_encode_input (name, input, frames, codec_args);
  g_free (input);
}

/* FFmpeg on testsrc2 with @codec_args */
static void
ffmpeg_encode (const gchar * name, const gchar * size, gint frames,
    const gchar * codec_args)
{
  gchar *source = g_strdup_printf ("testsrc2=size=%s:rate=25", size);

  ffmpeg_encode_filter (name, source, frames, codec_args);
  g_free (source);
}

/* Offset of the start code after the one at @offset, or @size. */
static gsize
next_code (const guint8 * data, gsize size, gsize offset)
{
  gsize i;

  for (i = offset + 4; i + 3 < size; i++)
    if (data[i] == 0 && data[i + 1] == 0 && data[i + 2] == 1)
      return i;
  return size;
}

static guint8 *
load (const gchar * name, gsize * size)
{
  gchar *path = tmp_path (name), *data;
  GError *error = NULL;

  fail_unless (g_file_get_contents (path, &data, size, &error), "%s",
      error ? error->message : "?");
  g_free (path);
  return (guint8 *) data;
}

static void
save (const gchar * name, const guint8 * data, gsize size)
{
  gchar *path = tmp_path (name);
  fail_unless (g_file_set_contents (path, (const gchar *) data, size, NULL));
  g_free (path);
}

/* FFmpeg writes no sequence end code: a compliant copy has one added. */
static guint8 *
load_with_end_code (const gchar * name, gsize * size)
{
  guint8 *data = load (name, size);
  data = g_realloc (data, *size + 4);
  memcpy (data + *size, "\x00\x00\x01\xb7", 4);
  *size += 4;
  return data;
}

/* Offsets of the start codes with code @code. */
static GArray *
find_codes (const guint8 * data, gsize size, guint code)
{
  GArray *a = g_array_new (FALSE, FALSE, sizeof (gsize));
  gsize i;

  for (i = 0; i + 3 < size; i++)
    if (data[i] == 0 && data[i + 1] == 0 && data[i + 2] == 1 &&
        data[i + 3] == code)
      g_array_append_val (a, i);
  return a;
}

/* Writes @n bits of @value at bit @pos after the start code at @offset. */
static void
put_bits (guint8 * data, gsize offset, guint pos, guint n, guint value)
{
  guint i;

  for (i = 0; i < n; i++) {
    guint bit = (value >> (n - 1 - i)) & 1;
    gsize byte = offset + 4 + (pos + i) / 8;
    guint shift = 7 - (pos + i) % 8;
    data[byte] = (data[byte] & ~(1u << shift)) | (bit << shift);
  }
}

/* The options a conforming 352x288 CBR stream from FFmpeg meets. */
static void
strict_options (MpegCheckOptions * o)
{
  mpegcheck_options_init (o);
  o->expect_pictures = FRAMES;
  o->expect_width = W;
  o->expect_height = H;
  o->require_seq_header_per_gop = TRUE;
  o->require_slice_per_row = TRUE;
  o->require_closed_gop = TRUE;
  o->vbv_delay_tolerance = 2;
}

static MpegCheckResult *
check (const guint8 * data, gsize size, const MpegCheckOptions * o)
{
  MpegCheckResult *r = mpegcheck_run (data, size, o);
  gchar *report = mpegcheck_report (r, FALSE);
  GST_INFO ("%s", report);
  g_free (report);
  return r;
}

/* @data copied to @copy with one value broken (as put_bits), checked */
static MpegCheckResult *
check_patched (guint8 * copy, const guint8 * data, gsize size, gsize offset,
    guint pos, guint n, guint value)
{
  memcpy (copy, data, size);
  put_bits (copy, offset, pos, n, value);
  return check (copy, size, NULL);
}

static gboolean
has_error (const MpegCheckResult * r, const gchar * text)
{
  guint i;
  for (i = 0; i < r->errors->len; i++)
    if (strstr (r->errors->pdata[i], text))
      return TRUE;
  return FALSE;
}

/* The first errors of @r, few enough for a failure's message (check
 * exits when one is too long) */
static gchar *
first_errors (const MpegCheckResult * r)
{
  GString *s = g_string_new (NULL);
  guint i;

  for (i = 0; i < r->errors->len && i < 8; i++)
    g_string_append_printf (s, "%.300s\n", (gchar *) r->errors->pdata[i]);
  if (r->errors->len > 8)
    g_string_append_printf (s, "... %u errors in all\n", r->errors->len);
  return g_string_free (s, FALSE);
}

#define assert_error(r, text) \
  fail_unless (has_error (r, text), "no error with \"%s\" among:\n%s", \
      text, first_errors (r))

#define assert_passed(r) \
  fail_unless (mpegcheck_passed (r), "unexpected errors:\n%s", \
      first_errors (r))

/* assert_error for an error text with the stream's offsets in it */
static void assert_error_printf (const MpegCheckResult * r,
    const gchar * format, ...) G_GNUC_PRINTF (2, 3);

static void
assert_error_printf (const MpegCheckResult * r, const gchar * format, ...)
{
  va_list args;
  gchar *text;

  va_start (args, format);
  text = g_strdup_vprintf (format, args);
  va_end (args);
  assert_error (r, text);
  g_free (text);
}

/* ---- hand-made streams ---- */

/* A writer of the test's own, MSB first. */
typedef struct
{
  GByteArray *bytes;
  guint32 acc;
  guint n;                      /* bits in acc */
} BitWriter;

static void
bw_bits (BitWriter * w, guint n, guint32 value)
{
  while (n--) {
    w->acc = (w->acc << 1) | ((value >> n) & 1);
    if (++w->n == 8) {
      guint8 byte = w->acc;
      g_byte_array_append (w->bytes, &byte, 1);
      w->acc = w->n = 0;
    }
  }
}

/* A code as 11172-2 prints it: '0' and '1', spaces ignored. */
static void
bw_code (BitWriter * w, const gchar * code)
{
  for (; *code; code++)
    if (*code != ' ')
      bw_bits (w, 1, *code == '1');
}

static void
bw_start_code (BitWriter * w, guint code)
{
  while (w->n)
    bw_bits (w, 1, 0);
  bw_bits (w, 32, 0x100 | code);
}

/* The handful of codes the tiny streams use (11172-2 annex B) */
static const gchar *const increment_code[] = { NULL, "1", "011", "010",
  "0011", "0010"
};
static const gchar *const dc_luma_size[] = { "100", "00", "01", "101",
  "110", "1110", "1111 0", "1111 10", "1111 110"
};
static const gchar *const dc_chroma_size[] = { "00", "01", "10", "110",
  "1110", "1111 0", "1111 10", "1111 110", "1111 1110"
};

#define EOB "10"

/* What a tiny stream gets wrong, if anything */
typedef enum
{
  TINY_VALID,
  TINY_DC_SIZE_NOT_IN_TABLE,    /* I, macroblock 0, block 0 */
  TINY_DC_OUT_OF_RANGE,
  TINY_INTRA_TYPE_NOT_IN_TABLE,
  TINY_QUANT_ZERO,              /* I, macroblock 0's own quantizer_scale */
  TINY_RUN_BEYOND_63,
  TINY_I_SKIP,                  /* I: macroblock 1 skipped */
  TINY_SLICE_STARTS_LATE,       /* I: the second slice starts at 3 */
  TINY_MISSING_MACROBLOCK,      /* I: the second slice ends at 2 */
  TINY_ADDRESS_BEYOND,          /* I: an increment after 3 */
  TINY_TRAILING_BITS,           /* I: a 1 after the last macroblock */
  TINY_NO_EOB,                  /* I: the last block ends without one */
  TINY_CBP_ZERO,                /* P, macroblock 0 */
  TINY_VECTOR_OUTSIDE,          /* P, macroblock 0: -1/2 pel at column 0 */
  TINY_VECTOR_PREDICTED_OUTSIDE,        /* P: +15 then 0 at column 1 */
  TINY_P_SKIP_RESETS,           /* P: +15, skip, -1 at column 0 */
  TINY_FULL_PEL,                /* P: f_code 2, 17 full pels at column 0 */
  TINY_HALF_PEL,                /* the same code in half pels: legal */
  TINY_ESCAPE_SHORT_LEVEL,      /* P, macroblock 2: 0x00 0x05 */
  TINY_ESCAPE_SHORT_NEGATIVE,   /* 0x80 0xff */
  TINY_ESCAPE_MINUS_256,        /* 0x80 0x00 */
  TINY_ESCAPE_ZERO,             /* 0x00 0x00 */
  TINY_COEFF_OUT_OF_RANGE,      /* P, macroblock 2: level 200 at quantiser 31 */
  TINY_LOADED_MATRIX,           /* a non-intra matrix of 80s: level 200 at 2 */
  TINY_B_SKIP_AFTER_INTRA,
  TINY_B_SKIP_KEEPS_VECTOR,     /* B: +15 forward, then skipped at column 1 */
} TinyVariant;

/* The rate and buffer of a tiny stream, and how its pictures fill them */
typedef struct
{
  guint bit_rate;               /* code, units of 400 bit/s */
  guint vbv_buffer_size;        /* code, units of 16384 bits */
  guint vbv_delay[4];           /* per picture */
  guint stuffing[4];            /* macroblock_stuffing codes per picture */
} TinyRate;

static void
tiny_sequence_header (BitWriter * w, TinyVariant v, const TinyRate * rate)
{
  guint i;

  bw_start_code (w, 0xB3);
  bw_bits (w, 12, 32);          /* 2x2 macroblocks */
  bw_bits (w, 12, 32);
  bw_bits (w, 4, 1);            /* square pels */
  bw_bits (w, 4, 3);            /* 25 Hz */
  bw_bits (w, 18, rate ? rate->bit_rate : 0x3FFFF);
  bw_bits (w, 1, 1);
  bw_bits (w, 10, rate ? rate->vbv_buffer_size : 1);
  bw_bits (w, 1, 0);            /* constrained_parameters_flag */
  bw_bits (w, 1, 0);            /* default intra matrix */
  bw_bits (w, 1, v == TINY_LOADED_MATRIX);
  for (i = 0; v == TINY_LOADED_MATRIX && i < 64; i++)
    bw_bits (w, 8, 80);
}

static void
tiny_gop (BitWriter * w)
{
  bw_start_code (w, 0xB8);
  bw_bits (w, 1 + 5 + 6, 0);    /* drop frame, hours, minutes */
  bw_bits (w, 1, 1);            /* marker */
  bw_bits (w, 6 + 6, 0);        /* seconds, pictures */
  bw_bits (w, 1, 1);            /* closed_gop */
  bw_bits (w, 1, 0);            /* broken_link */
}

static void
tiny_picture (BitWriter * w, guint tref, guint type, guint vbv_delay,
    gboolean full_pel, guint f_code)
{
  bw_start_code (w, 0x00);
  bw_bits (w, 10, tref);
  bw_bits (w, 3, type);
  bw_bits (w, 16, vbv_delay);
  if (type == 2 || type == 3) {
    bw_bits (w, 1, full_pel);
    bw_bits (w, 3, f_code);
  }
  if (type == 3) {
    bw_bits (w, 1, 0);
    bw_bits (w, 3, 1);
  }
  bw_bits (w, 1, 0);            /* extra_bit_picture */
}

static void
tiny_slice (BitWriter * w, guint row, guint quant, guint stuffing)
{
  bw_start_code (w, row);
  bw_bits (w, 5, quant);
  bw_bits (w, 1, 0);            /* extra_bit_slice */
  while (stuffing--)
    bw_code (w, "0000 0001 111");
}

/* An intra macroblock's six blocks, DC differentials 0 and no other
 * coefficient; @last_eob FALSE leaves the last block open. */
static void
tiny_plain_intra_blocks (BitWriter * w, gboolean last_eob)
{
  guint i;

  for (i = 0; i < 6; i++) {
    bw_code (w, i < 4 ? dc_luma_size[0] : dc_chroma_size[0]);
    if (i < 5 || last_eob)
      bw_code (w, EOB);
  }
}

/* The I picture: slice 1 holds macroblocks 0 and 1, slice 2 holds 2 and
 * 3, all intra; macroblock 0's first block has a DC differential of +1
 * and one coefficient. */
static void
tiny_i_picture (BitWriter * w, TinyVariant v, const TinyRate * rate)
{
  guint i;

  tiny_picture (w, 0, 1, rate ? rate->vbv_delay[0] : 0xFFFF, FALSE, 0);
  tiny_slice (w, 1, 8, rate ? rate->stuffing[0] : 0);
  bw_code (w, increment_code[1]);
  if (v == TINY_INTRA_TYPE_NOT_IN_TABLE) {
    bw_code (w, "00");
  } else if (v == TINY_QUANT_ZERO) {
    bw_code (w, "01");          /* intra with quantizer_scale */
    bw_bits (w, 5, 0);
  } else {
    bw_code (w, "1");
  }
  if (v == TINY_DC_SIZE_NOT_IN_TABLE) {
    bw_code (w, "1111 111");    /* MPEG-2's size 9 and up */
    bw_bits (w, 9, 0x1ff);
  } else if (v == TINY_DC_OUT_OF_RANGE) {
    bw_code (w, dc_luma_size[8]);
    bw_bits (w, 8, 0);          /* -255: 1024 - 2040 */
  } else {
    bw_code (w, dc_luma_size[1]);
    bw_bits (w, 1, 1);          /* +1 */
  }
  bw_code (w, "11 0");          /* run 0, level +1 */
  bw_code (w, EOB);
  bw_code (w, dc_luma_size[0]);
  if (v == TINY_RUN_BEYOND_63) {
    bw_code (w, "0000 01");     /* escape: run 63, level 1, at 64 */
    bw_bits (w, 6, 63);
    bw_bits (w, 8, 1);
  }
  bw_code (w, EOB);
  for (i = 2; i < 6; i++) {
    bw_code (w, i < 4 ? dc_luma_size[0] : dc_chroma_size[0]);
    bw_code (w, EOB);
  }

  /* macroblock 1, or 2 where it is skipped */
  bw_code (w, increment_code[v == TINY_I_SKIP ? 2 : 1]);
  bw_code (w, "1");
  tiny_plain_intra_blocks (w, TRUE);
  if (v != TINY_I_SKIP)
    tiny_slice (w, 2, 8, 0);
  if (v != TINY_I_SKIP && v != TINY_SLICE_STARTS_LATE) {
    bw_code (w, increment_code[1]);
    bw_code (w, "1");
    tiny_plain_intra_blocks (w, TRUE);
  }
  if (v != TINY_MISSING_MACROBLOCK) {
    bw_code (w, increment_code[v == TINY_SLICE_STARTS_LATE ? 2 : 1]);
    bw_code (w, "1");
    tiny_plain_intra_blocks (w, v != TINY_NO_EOB);
  }
  if (v == TINY_ADDRESS_BEYOND) {
    bw_code (w, increment_code[1]);
    bw_code (w, "1");
    tiny_plain_intra_blocks (w, TRUE);
  }
  if (v == TINY_TRAILING_BITS) {
    /* the slice's end (23 zeros), then a 1 that starts no start code */
    guint zeros = (w->n + 24) % 8 == 7 ? 25 : 24;
    bw_bits (w, zeros, 0);
    bw_bits (w, 1, 1);
  }
}

/* A non-intra block whose coefficients are run 0, level +1 */
static void
tiny_unit_block (BitWriter * w)
{
  bw_code (w, "1 0");           /* dct_coeff_first's run 0, level +1 */
  bw_code (w, EOB);
}

/* The P picture, one slice: macroblock 0 forward with a zero vector and
 * block 5 coded, 1 skipped, 2 with no vector and an escaped level 200 in
 * block 3, 3 forward with a zero vector and no blocks. */
static void
tiny_p_picture (BitWriter * w, TinyVariant v, const TinyRate * rate)
{
  gboolean full_pel = v == TINY_FULL_PEL;
  guint f_code = (v == TINY_FULL_PEL || v == TINY_HALF_PEL) ? 2 : 1;
  gboolean mb1_coded = v == TINY_VECTOR_PREDICTED_OUTSIDE;
  guint level8 = 0x00, low = 200;

  tiny_picture (w, 2, 2, rate ? rate->vbv_delay[1] : 0xFFFF, full_pel,
      f_code);
  tiny_slice (w, 1, 2, rate ? rate->stuffing[1] : 0);

  bw_code (w, increment_code[1]);
  bw_code (w, "1");             /* forward, coded */
  if (v == TINY_VECTOR_OUTSIDE)
    bw_code (w, "011");         /* -1 */
  else if (v == TINY_VECTOR_PREDICTED_OUTSIDE || v == TINY_P_SKIP_RESETS)
    bw_code (w, "0000 0011 010");       /* +15 */
  else if (f_code == 2)
    bw_code (w, "0000 0101 00 0");      /* 9, r 0: 2 * 9 - 1 = 17 */
  else
    bw_code (w, "1");
  bw_code (w, "1");
  bw_code (w, v == TINY_CBP_ZERO ? "0000 0000 1" : "0101 1");   /* 1: Cr */
  if (v != TINY_CBP_ZERO)
    tiny_unit_block (w);

  if (mb1_coded) {
    bw_code (w, increment_code[1]);
    bw_code (w, "001");         /* forward, not coded: the predictor */
    bw_code (w, "1");
    bw_code (w, "1");
    bw_code (w, increment_code[1]);
  } else {
    bw_code (w, increment_code[2]);
  }

  if (v == TINY_P_SKIP_RESETS) {
    bw_code (w, "1");           /* forward, coded: -1 from a predictor 0 */
    bw_code (w, "011");
    bw_code (w, "1");
  } else if (v == TINY_COEFF_OUT_OF_RANGE) {
    bw_code (w, "0000 1");      /* no vector, coded, quantiser 31 */
    bw_bits (w, 5, 31);
  } else {
    bw_code (w, "01");          /* no vector, coded */
  }
  bw_code (w, "1101");          /* 4: block 3 */
  if (v == TINY_ESCAPE_SHORT_LEVEL)
    low = 5;
  else if (v == TINY_ESCAPE_SHORT_NEGATIVE)
    level8 = 0x80, low = 0xff;
  else if (v == TINY_ESCAPE_MINUS_256)
    level8 = 0x80, low = 0;
  else if (v == TINY_ESCAPE_ZERO)
    low = 0;
  bw_code (w, "0000 01");
  bw_bits (w, 6, 0);
  bw_bits (w, 8, level8);
  bw_bits (w, 8, low);
  bw_code (w, EOB);

  bw_code (w, increment_code[1]);
  bw_code (w, "001");           /* forward, not coded */
  bw_code (w, "1");
  bw_code (w, "1");
}

/* The B picture, one slice: macroblock 0 interpolated with zero vectors
 * and no blocks, 1 skipped, 2 forward with blocks 0..3, 3 intra. */
static void
tiny_b_picture (BitWriter * w, TinyVariant v, const TinyRate * rate)
{
  guint i;

  tiny_picture (w, 1, 3, rate ? rate->vbv_delay[2] : 0xFFFF, FALSE, 1);
  tiny_slice (w, 1, 4, rate ? rate->stuffing[2] : 0);

  bw_code (w, increment_code[1]);
  if (v == TINY_B_SKIP_AFTER_INTRA) {
    bw_code (w, "0001 1");
    tiny_plain_intra_blocks (w, TRUE);
  } else {
    bw_code (w, "10");          /* interpolated, not coded */
    bw_code (w, v == TINY_B_SKIP_KEEPS_VECTOR ? "0000 0011 010" : "1");
    bw_code (w, "1");
    bw_code (w, "1");
    bw_code (w, "1");
  }

  bw_code (w, increment_code[2]);
  bw_code (w, "0011");          /* forward, coded */
  bw_code (w, "1");
  bw_code (w, "1");
  bw_code (w, "111");           /* 60: blocks 0..3 */
  for (i = 0; i < 4; i++)
    tiny_unit_block (w);

  bw_code (w, increment_code[1]);
  bw_code (w, "0001 1");        /* intra */
  tiny_plain_intra_blocks (w, TRUE);
}

/* A valid stream of 32x32 pictures I, P, B (in coded order) or one with
 * @v's fault; @rate NULL: variable bit rate. */
static guint8 *
build_tiny (TinyVariant v, const TinyRate * rate, gsize * size)
{
  BitWriter w = { g_byte_array_new (), 0, 0 };

  tiny_sequence_header (&w, v, rate);
  tiny_gop (&w);
  tiny_i_picture (&w, v, rate);
  tiny_p_picture (&w, v, rate);
  tiny_b_picture (&w, v, rate);
  bw_start_code (&w, 0xB7);
  *size = w.bytes->len;
  return g_byte_array_free (w.bytes, FALSE);
}

/* Two D pictures of 2x2 macroblocks, each DC only; @bad_end writes one
 * end_of_macroblock as 0. */
static guint8 *
build_tiny_d (gboolean bad_end, gsize * size)
{
  BitWriter w = { g_byte_array_new (), 0, 0 };
  guint pic, row, mb, i;

  tiny_sequence_header (&w, TINY_VALID, NULL);
  tiny_gop (&w);
  for (pic = 0; pic < 2; pic++) {
    tiny_picture (&w, pic, 4, 0xFFFF, FALSE, 0);
    for (row = 1; row <= 2; row++) {
      tiny_slice (&w, row, 8, 0);
      for (mb = 0; mb < 2; mb++) {
        bw_code (&w, increment_code[1]);
        bw_code (&w, "1");
        for (i = 0; i < 6; i++) {
          bw_code (&w, i < 4 ? dc_luma_size[2] : dc_chroma_size[2]);
          bw_bits (&w, 2, 3);   /* +3 */
        }
        bw_bits (&w, 1, !(bad_end && pic == 1 && row == 2 && mb == 1));
      }
    }
  }
  bw_start_code (&w, 0xB7);
  *size = w.bytes->len;
  return g_byte_array_free (w.bytes, FALSE);
}

GST_START_TEST (test_cbr_stream_passes)
{
  gsize size, i;
  guint8 *data = load_with_end_code ("cbr.m1v", &size);
  MpegCheckOptions o;
  MpegCheckResult *r;
  const MpegCheckSequence *s;
  guint64 bits = 0;

  strict_options (&o);
  r = check (data, size, &o);
  assert_passed (r);
  fail_unless_equals_int (r->sequences->len, 1);
  s = &g_array_index (r->sequences, MpegCheckSequence, 0);
  fail_unless_equals_int (s->width, W);
  fail_unless_equals_int (s->height, H);
  fail_unless_equals_int (s->frame_rate_code, 3);
  fail_unless_equals_int (s->fps_n, 25);
  fail_unless_equals_int (s->bit_rate_code, 1000000 / 400);
  fail_unless_equals_int (s->vbv_buffer_size_code, 20);
  fail_unless_equals_int (r->pictures->len, FRAMES);
  fail_unless_equals_int (r->n_type[1], 3);
  fail_unless_equals_int (r->n_type[2], FRAMES - 3);
  fail_unless_equals_int (r->n_gops, 3);
  fail_unless_equals_int (r->n_seq_headers, 3);
  fail_unless_equals_int (r->n_slices, FRAMES * (H / 16));
  fail_unless (r->end_code);
  /* every byte belongs to one picture */
  for (i = 0; i < r->pictures->len; i++) {
    const MpegCheckPicture *p =
        &g_array_index (r->pictures, MpegCheckPicture, i);
    fail_unless_equals_int (p->temporal_reference, i % 12);
    fail_unless_equals_int (p->coding_type, i % 12 ? 2 : 1);
    bits += p->bits;
  }
  fail_unless_equals_uint64 (bits, size * 8);
  /* the model reproduces FFmpeg's own vbv_delay and keeps within the buffer */
  fail_unless (r->vbv_simulated && !r->vbv_buffer_full_rule);
  fail_unless (r->vbv_delay_max_error <= 2.0, "%f", r->vbv_delay_max_error);
  fail_unless (r->vbv_max_fullness <= 20 * 16384 + 1000000 / 90000.0);
  fail_unless (r->vbv_min_fullness > 0);
  fail_unless (fabs (r->average_bitrate - 1e6) < 0.2e6, "%f",
      r->average_bitrate);
  mpegcheck_result_free (r);

  /* as FFmpeg writes it: no end code, which is flagged unless allowed */
  g_free (data);
  data = load ("cbr.m1v", &size);
  r = check (data, size, &o);
  assert_error (r, "sequence_end_code");
  fail_unless_equals_int (r->errors->len, 1);
  mpegcheck_result_free (r);
  o.require_end_code = FALSE;
  r = check (data, size, &o);
  assert_passed (r);
  mpegcheck_result_free (r);
  g_free (data);
}

GST_END_TEST;

GST_START_TEST (test_b_pictures_and_rows)
{
  gsize size;
  guint8 *data = load_with_end_code ("bframes.m1v", &size);
  MpegCheckOptions o;
  MpegCheckResult *r;

  /* FFmpeg's default: open GOPs, B pictures, slices of several rows */
  mpegcheck_options_init (&o);
  o.expect_pictures = FRAMES;
  o.vbv_delay_tolerance = 2;
  r = check (data, size, &o);
  assert_passed (r);
  fail_unless (r->n_type[3] > 0);
  fail_unless (r->n_slices < FRAMES * (H / 16));
  mpegcheck_result_free (r);

  o.require_slice_per_row = TRUE;
  r = check (data, size, &o);
  assert_error (r, "not one starting at column 0");
  mpegcheck_result_free (r);
  g_free (data);
}

GST_END_TEST;

GST_START_TEST (test_large_odd_size)
{
  gsize size;
  guint8 *data = load_with_end_code ("odd.m1v", &size);
  MpegCheckOptions o;
  MpegCheckResult *r;

  mpegcheck_options_init (&o);
  o.expect_pictures = 3;
  o.expect_width = 1918;
  o.expect_height = 1078;
  r = check (data, size, &o);
  assert_passed (r);
  /* FFmpeg makes at most 32 slices: several rows each, starting at
   * macroblock addresses the checker found increasing */
  fail_unless (r->n_slices >= 3 && r->n_slices < 3 * 68);
  /* bit_rate 0x3FFFF: no rate to run the model at */
  fail_unless (!r->vbv_simulated);
  mpegcheck_result_free (r);

  o.expect_width = 1920;
  r = check (data, size, &o);
  assert_error (r, "expected 1920x1078");
  mpegcheck_result_free (r);
  g_free (data);
}

GST_END_TEST;

GST_START_TEST (test_vbv_violations)
{
  gsize size, i;
  guint8 *data = load_with_end_code ("cbr.m1v", &size);
  guint8 *copy = g_memdup2 (data, size);
  GArray *seqs = find_codes (data, size, 0xB3);
  GArray *pics = find_codes (data, size, 0x00);
  MpegCheckOptions o;
  MpegCheckResult *r;

  strict_options (&o);
  o.vbv_delay_tolerance = 0;

  /* a 16 kbit buffer: the bits that arrive before the first decoding
   * cannot fit */
  for (i = 0; i < seqs->len; i++)
    put_bits (copy, g_array_index (seqs, gsize, i), 51, 10, 1);
  r = check (copy, size, &o);
  fail_if (mpegcheck_passed (r));
  fail_unless (r->n_overflows > 0);
  fail_unless_equals_int (r->first_overflow, 0);
  assert_error (r, "VBV overflow before picture 0");
  mpegcheck_result_free (r);

  /* the first picture decoded 100 ticks after its start code arrives:
   * not all of it is there yet */
  memcpy (copy, data, size);
  put_bits (copy, g_array_index (pics, gsize, 0), 13, 16, 100);
  r = check (copy, size, &o);
  fail_unless_equals_int (r->first_underflow, 0);
  assert_error (r, "VBV underflow at picture 0");
  mpegcheck_result_free (r);

  /* a quarter of the rate: pictures arrive too late */
  memcpy (copy, data, size);
  for (i = 0; i < seqs->len; i++)
    put_bits (copy, g_array_index (seqs, gsize, i), 32, 18, 1000000 / 1600);
  r = check (copy, size, &o);
  fail_unless (r->n_underflows > 1);
  fail_unless_equals_int (r->first_underflow, 0);
  mpegcheck_result_free (r);

  /* vbv_delay 0xFFFF everywhere: the buffer-full start, which this
   * stream meets */
  memcpy (copy, data, size);
  for (i = 0; i < pics->len; i++)
    put_bits (copy, g_array_index (pics, gsize, i), 13, 16, 0xFFFF);
  r = check (copy, size, &o);
  assert_passed (r);
  fail_unless (r->vbv_simulated && r->vbv_buffer_full_rule);
  fail_unless (r->vbv_max_fullness <= 20 * 16384 + 1);
  mpegcheck_result_free (r);

  /* ... but not mixed with coded delays */
  put_bits (copy, g_array_index (pics, gsize, 5), 13, 16, 1234);
  r = check (copy, size, &o);
  assert_error (r, "mixed");
  mpegcheck_result_free (r);

  /* a vbv_delay off by 1000 ticks is noticed when asked */
  memcpy (copy, data, size);
  o.vbv_delay_tolerance = 2;
  {
    gsize off = g_array_index (pics, gsize, 7);
    guint v = ((copy[off + 5] & 0x07) << 13) | (copy[off + 6] << 5) |
        (copy[off + 7] >> 3);
    put_bits (copy, off, 13, 16, v + 1000);
  }
  r = check (copy, size, &o);
  assert_error (r, "picture 7: vbv_delay");
  mpegcheck_result_free (r);

  g_array_free (seqs, TRUE);
  g_array_free (pics, TRUE);
  g_free (copy);
  g_free (data);
}

GST_END_TEST;

/* @data without the @len bytes at @at */
static guint8 *
cut (const guint8 * data, gsize size, gsize at, gsize len, gsize * out)
{
  guint8 *c = g_malloc (size - len);
  memcpy (c, data, at);
  memcpy (c + at, data + at + len, size - at - len);
  *out = size - len;
  return c;
}

/* @data with the @len @bytes put in at @at */
static guint8 *
insert (const guint8 * data, gsize size, gsize at, const guint8 * bytes,
    gsize len, gsize * out)
{
  guint8 *c = g_malloc (size + len);
  memcpy (c, data, at);
  memcpy (c + at, bytes, len);
  memcpy (c + at + len, data + at, size - at);
  *out = size + len;
  return c;
}

GST_START_TEST (test_broken_structure)
{
  gsize size, n;
  guint8 *data = load_with_end_code ("cbr.m1v", &size);
  GArray *gops = find_codes (data, size, 0xB8);
  GArray *pics = find_codes (data, size, 0x00);
  GArray *slices = find_codes (data, size, 0x05);
  GArray *seqs = find_codes (data, size, 0xB3);
  guint8 *c;
  MpegCheckOptions o;
  MpegCheckResult *r;

  strict_options (&o);

  /* truncated */
  r = check (data, size * 2 / 3, &o);
  assert_error (r, "sequence_end_code");
  assert_error (r, "pictures, expected 30");
  mpegcheck_result_free (r);

  /* truncated inside a picture header */
  r = check (data, g_array_index (pics, gsize, 4) + 6, &o);
  assert_error (r, "truncated");
  mpegcheck_result_free (r);

  /* no sequence header at the start */
  r = check (data + 12, size - 12, &o);
  assert_error (r, "not a sequence header");
  assert_error (r, "before any sequence header");
  mpegcheck_result_free (r);

  /* the second GOP header removed (8 bytes) */
  c = cut (data, size, g_array_index (gops, gsize, 1), 8, &n);
  r = check (c, n, &o);
  assert_error (r, "has no GOP header between it and the sequence header");
  assert_error (r, "GOP 0 (byte 12): temporal_reference 0 of its picture 12 "
      "is repeated");
  mpegcheck_result_free (r);
  g_free (c);

  /* a slice of picture 2 removed: its row is missing */
  c = cut (data, size, g_array_index (slices, gsize, 2),
      next_code (data, size, g_array_index (slices, gsize, 2)) -
      g_array_index (slices, gsize, 2), &n);
  r = check (c, n, &o);
  assert_error (r, "picture 2 ");
  assert_error (r, "not one starting at column 0");
  mpegcheck_result_free (r);
  g_free (c);

  /* picture_coding_type 0, and a P picture first in a GOP */
  c = g_memdup2 (data, size);
  put_bits (c, g_array_index (pics, gsize, 3), 10, 3, 0);
  put_bits (c, g_array_index (pics, gsize, 12), 10, 3, 2);
  r = check (c, size, &o);
  assert_error (r, "picture_coding_type 0 is forbidden");
  assert_error (r, "is the first of GOP 1 but a P picture");
  mpegcheck_result_free (r);

  /* repeated temporal reference */
  memcpy (c, data, size);
  put_bits (c, g_array_index (pics, gsize, 5), 0, 10, 4);
  r = check (c, size, &o);
  assert_error (r, "temporal_reference 4 of its picture 5 is repeated");
  mpegcheck_result_free (r);

  /* open GOP where closed ones are required */
  memcpy (c, data, size);
  put_bits (c, g_array_index (gops, gsize, 2), 25, 1, 0);
  r = check (c, size, &o);
  assert_error (r, "GOP 2 (byte");
  assert_error (r, "is not closed");
  mpegcheck_result_free (r);

  /* time codes: from the first GOP's, those of the pictures displayed */
  o.first_time_code = 0;
  memcpy (c, data, size);
  r = check (c, size, &o);
  assert_passed (r);
  mpegcheck_result_free (r);
  o.first_time_code = 1;
  r = check (c, size, &o);
  assert_error (r, "the first GOP's time_code is frame 0, not 1");
  mpegcheck_result_free (r);
  o.first_time_code = 0;
  put_bits (c, g_array_index (gops, gsize, 2), 19, 6, 1);
  r = check (c, size, &o);
  assert_error (r, "GOP 2 (byte");
  assert_error (r, "time_code is frame 1, but the pictures before it show "
      "24.0 frames");
  mpegcheck_result_free (r);
  o.first_time_code = -1;

  /* a size change without a sequence end code */
  memcpy (c, data, size);
  put_bits (c, g_array_index (seqs, gsize, 1), 0, 12, W + 16);
  r = check (c, size, &o);
  assert_error (r, "within a sequence");
  mpegcheck_result_free (r);

  g_free (c);
  g_array_free (gops, TRUE);
  g_array_free (pics, TRUE);
  g_array_free (slices, TRUE);
  g_array_free (seqs, TRUE);
  g_free (data);
}

GST_END_TEST;

GST_START_TEST (test_cli)
{
  gchar *good = tmp_path ("good.m1v"), *bad = tmp_path ("bad.m1v");
  gchar *size = g_strdup_printf ("%dx%d", W, H), *out;
  const gchar *pass_argv[] = { MPEGCHECK_PATH, "--pictures", "30", "--size",
    size, "--seq-header-per-gop", "--slice-per-row", "--closed-gop",
    "--vbv-delay-tolerance", "2", "--trace", good, NULL
  };
  const gchar *fail_argv[] = { MPEGCHECK_PATH, bad, NULL };
  gsize n;
  guint8 *data = load_with_end_code ("cbr.m1v", &n);

  save ("good.m1v", data, n);
  save ("bad.m1v", data, n / 2);
  out = run_tool (pass_argv, 0);
  fail_unless (strstr (out, "result: pass"), "%s", out);
  fail_unless (strstr (out, "constant rate rule"), "%s", out);
  g_free (out);
  out = run_tool (fail_argv, 1);
  fail_unless (strstr (out, "result: FAIL"), "%s", out);
  g_free (out);
  g_free (data);
  g_free (good);
  g_free (bad);
  g_free (size);
}

GST_END_TEST;

GST_START_TEST (test_psnr)
{
  gchar *src = tmp_path ("src.y4m"), *mod = tmp_path ("mod.y4m");
  gchar *dec = tmp_path ("dec.y4m"), *m1v = tmp_path ("good.m1v");
  gchar *out, *err = NULL, *line;
  const gchar *self_argv[] = { PSNR_PATH, src, src, NULL };
  const gchar *mod_argv[] = { PSNR_PATH, "--per-frame", src, mod, NULL };
  const gchar *dec_argv[] = { PSNR_PATH, src, dec, NULL };
  YuvReader *a, *b;
  guint8 *fa, *fb;
  gdouble mse[3], ours, theirs;
  gsize i, n, header;
  guint8 *data;
  gint status;

  /* the source frames: the same ones the streams were made of */
  out = g_strdup_printf ("ffmpeg -nostdin -v error -f lavfi -i "
      "testsrc2=size=%dx%d:rate=25 -frames:v %d -f yuv4mpegpipe -strict -1 "
      "-y %s", W, H, FRAMES, src);
  fail_unless (g_spawn_command_line_sync (out, NULL, NULL, &status, NULL) &&
      status == 0);
  g_free (out);

  out = run_tool (self_argv, 0);
  fail_unless (strstr (out, "frames=30 y=100.0000 u=100.0000 v=100.0000 "
          "y_global=inf"), "%s", out);
  g_free (out);

  /* every luma sample of frame 0 off by exactly one: MSE 1 */
  data = (guint8 *) (gpointer) load ("src.y4m", &n);
  header = (guint8 *) memchr (data, '\n', n) - data + 1 + 6;
  for (i = 0; i < W * H; i++)
    data[header + i] ^= 1;
  save ("mod.y4m", data, n);
  out = run_tool (mod_argv, 0);
  line = g_strdup_printf ("frame 0: y=%.4f u=inf v=inf",
      10 * log10 (255.0 * 255.0));
  fail_unless (strstr (out, line), "%s\nwanted %s", out, line);
  g_free (line);
  line = g_strdup_printf ("y=%.4f", (10 * log10 (255.0 * 255.0) +
          (FRAMES - 1) * 100.0) / FRAMES);
  fail_unless (strstr (out, line), "%s\nwanted %s", out, line);
  g_free (line);
  g_free (out);

  /* the library on the same frames */
  a = yuv_reader_open (src, 0, 0, NULL);
  b = yuv_reader_open (mod, 0, 0, NULL);
  fail_unless (a && b && a->width == W && a->height == H && a->fps_n == 25);
  fa = g_malloc (a->frame_size);
  fb = g_malloc (b->frame_size);
  fail_unless (yuv_reader_read (a, fa, NULL) == 1);
  fail_unless (yuv_reader_read (b, fb, NULL) == 1);
  psnr_i420_mse (fa, fb, W, H, mse);
  fail_unless (mse[0] == 1.0 && mse[1] == 0 && mse[2] == 0);
  g_free (fa);
  g_free (fb);
  yuv_reader_close (a);
  yuv_reader_close (b);

  /* against FFmpeg's psnr filter on a decoded stream (whose global
   * figure is the PSNR of the mean MSE) */
  out = g_strdup_printf ("ffmpeg -nostdin -v error -i %s -fps_mode "
      "passthrough -f yuv4mpegpipe -strict -1 -y %s", m1v, dec);
  fail_unless (g_spawn_command_line_sync (out, NULL, NULL, &status, NULL) &&
      status == 0);
  g_free (out);
  out = run_tool (dec_argv, 0);
  fail_unless (sscanf (strstr (out, "y_global="), "y_global=%lf", &ours) == 1);
  g_free (out);
  out = g_strdup_printf ("ffmpeg -nostdin -v info -i %s -i %s -lavfi psnr "
      "-f null -", dec, src);
  fail_unless (g_spawn_command_line_sync (out, NULL, &err, &status, NULL) &&
      status == 0);
  fail_unless (strstr (err, "PSNR y:") && sscanf (strstr (err, "PSNR y:"),
          "PSNR y:%lf", &theirs) == 1, "%s", err);
  fail_unless (fabs (ours - theirs) < 0.001, "ours %f, ffmpeg %f", ours,
      theirs);
  fail_unless (ours > 30 && ours < 60, "%f", ours);
  g_free (out);
  g_free (err);
  g_free ((gpointer) data);
  g_free (src);
  g_free (mod);
  g_free (dec);
  g_free (m1v);
}

GST_END_TEST;

GST_START_TEST (test_decode_check)
{
  gchar *good = tmp_path ("good.m1v"), *bad = tmp_path ("bad.m1v");
  const gchar *ok_argv[] = { "bash", TESTS_SRCDIR "/mpeg-decode-check.sh",
    "--frames", "30", "--size", "352x288", good, NULL
  };
  const gchar *size_argv[] = { "bash", TESTS_SRCDIR "/mpeg-decode-check.sh",
    "--frames", "30", "--size", "352x280", good, NULL
  };
  const gchar *bad_argv[] = { "bash", TESTS_SRCDIR "/mpeg-decode-check.sh",
    bad, NULL
  };
  gchar *out, *err = NULL;
  gsize n, i;
  guint8 *data = load_with_end_code ("cbr.m1v", &n);
  gint status;

  if (!have_program ("mpeg2dec")) {
    GST_WARNING ("mpeg2dec missing: decode check not tested");
    g_free (data);
    g_free (good);
    g_free (bad);
    return;
  }
  save ("good.m1v", data, n);
  out = run_tool (ok_argv, 0);
  fail_unless (strstr (out, "mpeg2dec:") && strstr (out, "gstreamer:") &&
      strstr (out, "decode-check: ok"), "%s", out);
  g_free (out);
  g_free (run_tool (size_argv, 1));

  /* damaged slice data in the middle: every decoder path must notice */
  for (i = n / 3; i < n / 3 + 48; i++)
    data[i] ^= 0x5a;
  save ("bad.m1v", data, n);
  fail_unless (g_spawn_sync (NULL, (gchar **) bad_argv, NULL,
          G_SPAWN_SEARCH_PATH, NULL, NULL, &out, &err, &status, NULL));
  fail_unless (WIFEXITED (status) && WEXITSTATUS (status) == 1, "%s%s", out,
      err);
  fail_unless (strstr (err, "ffmpeg reported"), "%s", err);
  fail_unless (strstr (err, "GStreamer pipeline reported"), "%s", err);
  g_free (out);
  g_free (err);
  g_free (data);
  g_free (good);
  g_free (bad);
}

GST_END_TEST;

/* Every macroblock of @r's pictures accounted for, once */
static void
assert_all_macroblocks (const MpegCheckResult * r, guint mbs_per_picture)
{
  const MpegCheckSequence *s =
      &g_array_index (r->sequences, MpegCheckSequence, 0);
  guint blocks = s->chroma_format == MPEGCHECK_CHROMA_444 ? 12 :
      s->chroma_format == MPEGCHECK_CHROMA_422 ? 8 : 6;
  guint i;

  fail_unless_equals_uint64 (r->n_macroblocks,
      (guint64) mbs_per_picture * r->pictures->len);
  for (i = 0; i < r->pictures->len; i++) {
    const MpegCheckPicture *p =
        &g_array_index (r->pictures, MpegCheckPicture, i);
    fail_unless_equals_int (p->n_mb_coded + p->n_mb_skipped,
        mbs_per_picture);
    fail_unless_equals_int (p->n_mb_intra + p->n_mb_forward +
        p->n_mb_backward + p->n_mb_interpolated + p->n_mb_zero_vector,
        p->n_mb_coded);
    fail_unless_equals_int (p->n_mb_pattern + p->n_mb_no_pattern,
        p->n_mb_coded - p->n_mb_intra);
    fail_unless (p->mb_bits < p->bits, "picture %u: %" G_GUINT64_FORMAT
        " macroblock bits of %" G_GUINT64_FORMAT, i, p->mb_bits, p->bits);
    fail_if (p->mb_syntax_error);
    if (p->coding_type == 1) {
      fail_unless_equals_int (p->n_mb_intra, mbs_per_picture);
      fail_unless_equals_int (p->n_blocks, blocks * mbs_per_picture);
    }
    if (p->coding_type != 3)
      fail_unless_equals_int (p->n_mb_backward + p->n_mb_interpolated, 0);
  }
}

/* The quick structural check of a stream the full one passes: it passes
 * too, and sees no macroblocks */
static void
assert_quick_check_passes (const guint8 * data, gsize size)
{
  MpegCheckOptions o;
  MpegCheckResult *r;

  mpegcheck_options_init (&o);
  o.check_macroblocks = FALSE;
  r = check (data, size, &o);
  assert_passed (r);
  fail_unless_equals_uint64 (r->n_macroblocks, 0);
  mpegcheck_result_free (r);
}

static const struct
{
  const gchar *name;
  guint width, height;
} ffmpeg_streams[] = {
  {"cbr.m1v", W, H},
  {"bframes.m1v", W, H},
  {"odd.m1v", 1918, 1078},
  {"q1.m1v", W, H},
  {"q31.m1v", W, H},
  {"intra.m1v", W, H},
  {"small.m1v", 34, 18},
  {"noise.m1v", 176, 144},
  {"motion.m1v", W, H},
};

GST_START_TEST (test_ffmpeg_macroblocks)
{
  const gchar *name = ffmpeg_streams[__i__].name;
  guint mbs = ((ffmpeg_streams[__i__].width + 15) / 16) *
      ((ffmpeg_streams[__i__].height + 15) / 16);
  guint64 escapes = 0, intra = 0, skipped = 0, bidirectional = 0;
  gsize size, i;
  guint8 *data = load_with_end_code (name, &size);
  MpegCheckResult *r = check (data, size, NULL);

  GST_INFO ("%s", name);
  assert_passed (r);
  fail_unless_equals_int (g_array_index (r->sequences, MpegCheckSequence,
          0).width, ffmpeg_streams[__i__].width);
  fail_unless_equals_int (g_array_index (r->sequences, MpegCheckSequence,
          0).height, ffmpeg_streams[__i__].height);
  assert_all_macroblocks (r, mbs);
  for (i = 0; i < r->pictures->len; i++) {
    const MpegCheckPicture *p =
        &g_array_index (r->pictures, MpegCheckPicture, i);
    escapes += p->n_escapes;
    intra += p->n_mb_intra;
    skipped += p->n_mb_skipped;
    bidirectional += p->n_mb_backward + p->n_mb_interpolated;
  }
  if (g_str_equal (name, "intra.m1v")) {
    fail_unless_equals_uint64 (intra, r->n_macroblocks);
    fail_unless_equals_uint64 (skipped, 0);
  } else {
    fail_unless (intra < r->n_macroblocks);
  }
  if (g_str_equal (name, "bframes.m1v") || g_str_equal (name, "q31.m1v"))
    fail_unless (bidirectional > 0);
  if (g_str_equal (name, "q1.m1v") || g_str_equal (name, "noise.m1v"))
    fail_unless (escapes > 100, "%" G_GUINT64_FORMAT, escapes);
  mpegcheck_result_free (r);
  assert_quick_check_passes (data, size);
  g_free (data);
}

GST_END_TEST;

/* check()'s result for a valid stream of @pictures pictures of
 * @mbs_per_picture macroblocks, each in a slice */
static MpegCheckResult *
check_valid (const guint8 * data, gsize size, guint pictures,
    guint mbs_per_picture)
{
  MpegCheckResult *r = check (data, size, NULL);

  assert_passed (r);
  fail_unless_equals_int (r->pictures->len, pictures);
  assert_all_macroblocks (r, mbs_per_picture);
  return r;
}

GST_START_TEST (test_tiny_stream)
{
  gsize size;
  guint8 *data = build_tiny (TINY_VALID, NULL, &size);
  MpegCheckResult *r = check_valid (data, size, 3, 4);
  const MpegCheckPicture *p;

  p = &g_array_index (r->pictures, MpegCheckPicture, 0);
  fail_unless_equals_int (p->n_mb_intra, 4);
  fail_unless_equals_int (p->n_blocks, 24);
  fail_unless_equals_int (p->n_coefficients, 1);
  fail_unless_equals_int (p->n_slices, 2);

  p = &g_array_index (r->pictures, MpegCheckPicture, 1);
  fail_unless_equals_int (p->coding_type, 2);
  fail_unless_equals_int (p->n_mb_coded, 3);
  fail_unless_equals_int (p->n_mb_skipped, 1);
  fail_unless_equals_int (p->n_mb_forward, 2);
  fail_unless_equals_int (p->n_mb_zero_vector, 1);
  fail_unless_equals_int (p->n_mb_pattern, 2);
  fail_unless_equals_int (p->n_mb_no_pattern, 1);
  fail_unless_equals_int (p->n_blocks, 2);
  fail_unless_equals_int (p->n_coefficients, 2);
  fail_unless_equals_int (p->n_escapes, 1);

  p = &g_array_index (r->pictures, MpegCheckPicture, 2);
  fail_unless_equals_int (p->coding_type, 3);
  fail_unless_equals_int (p->n_mb_interpolated, 1);
  fail_unless_equals_int (p->n_mb_forward, 1);
  fail_unless_equals_int (p->n_mb_intra, 1);
  fail_unless_equals_int (p->n_mb_skipped, 1);
  fail_unless_equals_int (p->n_blocks, 10);
  fail_unless_equals_int (p->n_coefficients, 4);
  mpegcheck_result_free (r);
  g_free (data);

  /* the same code for 17 half pels predicts from inside the picture */
  data = build_tiny (TINY_HALF_PEL, NULL, &size);
  r = check (data, size, NULL);
  assert_passed (r);
  p = &g_array_index (r->pictures, MpegCheckPicture, 1);
  fail_unless_equals_int (p->max_vector, 17);
  mpegcheck_result_free (r);
  g_free (data);
}

GST_END_TEST;

/* A hand-made stream with one fault (a TinyVariant or Tiny2Variant), and
 * what its first errors must say */
typedef struct
{
  gint variant;
  const gchar *where;           /* picture, slice and macroblock */
  const gchar *what;
} TinyFault;

/* Checks @data, made as @f says, and frees it: the first errors name the
 * fault, and there are at most @max_errors errors */
static void
assert_fault (const TinyFault * f, guint8 * data, gsize size,
    guint max_errors)
{
  MpegCheckResult *r = check (data, size, NULL);
  gchar *errors = first_errors (r);

  GST_INFO ("variant %d:\n%s", f->variant, errors);
  fail_unless (strstr (errors, f->where) && strstr (errors, f->what),
      "variant %d: no \"%s\" and \"%s\" in:\n%s", f->variant, f->where,
      f->what, errors);
  fail_unless (r->errors->len <= max_errors, "%s", errors);
  g_free (errors);
  mpegcheck_result_free (r);
  g_free (data);
}

static const TinyFault tiny_faults[] = {
  {TINY_DC_SIZE_NOT_IN_TABLE, "picture 0, slice 0 (byte 28), macroblock 0,",
      "block 0: dct_dc_size_luminance not in table B.5a"},
  {TINY_DC_OUT_OF_RANGE, "picture 0, slice 0 (byte 28), macroblock 0,",
      "block 0: intra DC -1016 (predictor 1024, dct_dc_differential -255) "
        "outside 0..2040"},
  {TINY_INTRA_TYPE_NOT_IN_TABLE, "picture 0, slice 0 (byte 28), "
        "macroblock 0, bit 263:", "macroblock_type not in table B.2a"},
  {TINY_QUANT_ZERO, "picture 0, slice 0 (byte 28), macroblock 0, bit 265:",
      "quantizer_scale 0"},
  {TINY_RUN_BEYOND_63, "picture 0, slice 0 (byte 28), macroblock 0,",
      "block 1: run 63 puts a coefficient at scan position 64, beyond 63"},
  {TINY_I_SKIP, "picture 0, slice 0 (byte 28), macroblock 1,",
      "macroblocks 1..1 skipped in an I picture"},
  {TINY_SLICE_STARTS_LATE, "picture 0 (byte 20)",
      "1 of its 4 macroblocks are in no slice, the first is macroblock 2"},
  {TINY_MISSING_MACROBLOCK, "picture 0 (byte 20)",
      "1 of its 4 macroblocks are in no slice, the first is macroblock 3"},
  {TINY_ADDRESS_BEYOND, "picture 0, slice 1 (byte", "macroblock_address_"
        "increment 1 leads to macroblock 4, beyond the picture's last (3)"},
  {TINY_TRAILING_BITS, "picture 0, slice 1 (byte", "bits other than zeros "
        "after the slice's last macroblock, before the next start code"},
  {TINY_NO_EOB, "picture 0, slice 1 (byte", "macroblock 3, bit"},
  {TINY_NO_EOB, "", "block 5: the slice's data ends before its "
        "end_of_block"},
  {TINY_CBP_ZERO, "picture 1, slice 0 (byte", "macroblock 0, bit"},
  {TINY_CBP_ZERO, "", "coded_block_pattern 0 (the code 0000 0000 1 is "
        "MPEG-2's"},
  {TINY_VECTOR_OUTSIDE, "picture 1, slice 0 (byte", "macroblock 0, bit"},
  {TINY_VECTOR_OUTSIDE, "", "forward vector (-1, 0) half-pels predicts "
        "from outside the picture's 32x32 macroblock area"},
  {TINY_VECTOR_PREDICTED_OUTSIDE, "macroblock 1, bit",
      "forward vector (15, 0) half-pels predicts from outside"},
  {TINY_P_SKIP_RESETS, "macroblock 2, bit",
      "forward vector (-1, 0) half-pels predicts from outside"},
  {TINY_FULL_PEL, "picture 1, slice 0 (byte",
      "forward vector (34, 0) half-pels predicts from outside"},
  {TINY_ESCAPE_SHORT_LEVEL, "picture 1, slice 0 (byte", "block 3: escape "
        "with 0x00 0x05: a level the 8-bit form codes"},
  {TINY_ESCAPE_SHORT_NEGATIVE, "macroblock 2, bit", "block 3: escape "
        "with 0x80 0xff: a level the 8-bit form codes"},
  {TINY_ESCAPE_MINUS_256, "macroblock 2, bit", "block 3: escape with 0x80 "
        "0x00: level -256 is beyond -255"},
  {TINY_ESCAPE_ZERO, "macroblock 2, bit", "block 3: escape with 0x00 0x00: "
        "level 0"},
  {TINY_COEFF_OUT_OF_RANGE, "macroblock 2, bit", "block 3: level 200 at "
        "scan position 0 (quantizer_scale 31, matrix 16) reconstructs to "
        "12431, outside -2048..2047"},
  {TINY_LOADED_MATRIX, "picture 1, slice 0 (byte", "block 3: level 200 at "
        "scan position 0 (quantizer_scale 2, matrix 80) reconstructs to "
        "4009, outside -2048..2047"},
  {TINY_B_SKIP_AFTER_INTRA, "picture 2, slice 0 (byte", "macroblocks 1..1 "
        "skipped right after an intra macroblock in a B picture"},
  {TINY_B_SKIP_KEEPS_VECTOR, "picture 2, slice 0 (byte", "macroblock 1, "
        "bit"},
  {TINY_B_SKIP_KEEPS_VECTOR, "", "forward (skipped macroblock) vector "
        "(15, 0) half-pels predicts from outside"},
};

GST_START_TEST (test_tiny_faults)
{
  const TinyFault *f = &tiny_faults[__i__];
  gsize size;
  guint8 *data = build_tiny (f->variant, NULL, &size);

  /* one fault, one error: the parse goes on in step or stops */
  assert_fault (f, data, size, 2);
}

GST_END_TEST;

GST_START_TEST (test_d_pictures)
{
  gsize size;
  guint8 *data = build_tiny_d (FALSE, &size);
  MpegCheckResult *r = check (data, size, NULL);
  const MpegCheckPicture *p;

  assert_passed (r);
  fail_unless_equals_int (r->n_type[4], 2);
  p = &g_array_index (r->pictures, MpegCheckPicture, 1);
  fail_unless_equals_int (p->n_mb_intra, 4);
  fail_unless_equals_int (p->n_blocks, 24);
  fail_unless_equals_int (p->n_coefficients, 0);
  mpegcheck_result_free (r);
  g_free (data);

  data = build_tiny_d (TRUE, &size);
  r = check (data, size, NULL);
  assert_error (r, "picture 1, slice 1 (byte");
  assert_error (r, "macroblock 3, bit");
  assert_error (r, "end_of_macroblock is 0");
  mpegcheck_result_free (r);

  /* the first D picture made an I picture: the types are mixed (and its
   * blocks lack the end_of_block an I picture's have) */
  {
    GArray *pics = find_codes (data, size, 0x00);
    put_bits (data, g_array_index (pics, gsize, 0), 10, 3, 1);
    g_array_free (pics, TRUE);
  }
  r = check (data, size, NULL);
  assert_error (r, "picture 1 (byte");
  assert_error (r, "is a D picture in a sequence that also has I, P or B "
      "pictures");
  mpegcheck_result_free (r);
  g_free (data);
}

GST_END_TEST;

GST_START_TEST (test_tiny_vbv)
{
  TinyRate rate = { 100, 1, {9000, 9000, 9000}, {0, 0, 0} };
  gchar *path = tmp_path ("overflow.m1v"), *out;
  const gchar *argv[] = { MPEGCHECK_PATH, path, NULL };
  const gchar *no_vbv_argv[] = { MPEGCHECK_PATH, "--no-vbv", path, NULL };
  const gchar *no_macroblocks_argv[] = { MPEGCHECK_PATH, "--no-macroblocks",
    path, NULL
  };
  gsize size;
  guint8 *data;
  MpegCheckResult *r;

  /* 40 kbit/s into 16 kbit, the first picture 0.1 s after its start code */
  data = build_tiny (TINY_VALID, &rate, &size);
  r = check (data, size, NULL);
  assert_passed (r);
  fail_unless (r->vbv_simulated && !r->vbv_buffer_full_rule);
  fail_unless (r->vbv_max_fullness < 16384);
  mpegcheck_result_free (r);
  g_free (data);

  /* 0.45 s: 18 kbit would be in the buffer before the first picture (P
   * and B made large enough to be there) */
  rate.vbv_delay[0] = 40500;
  rate.stuffing[1] = rate.stuffing[2] = 820;
  data = build_tiny (TINY_VALID, &rate, &size);
  r = check (data, size, NULL);
  assert_error (r, "VBV overflow before picture 0");
  fail_unless_equals_int (r->n_underflows, 0);
  mpegcheck_result_free (r);
  save ("overflow.m1v", data, size);
  g_free (data);
  out = run_tool (argv, 1);
  fail_unless (strstr (out, "error: VBV overflow before picture 0"), "%s",
      out);
  g_free (out);
  g_free (run_tool (no_vbv_argv, 0));

  /* the tool names a macroblock's fault, unless told not to parse them */
  data = build_tiny (TINY_CBP_ZERO, NULL, &size);
  save ("overflow.m1v", data, size);
  out = run_tool (argv, 1);
  fail_unless (strstr (out, "error: picture 1, slice 0 (byte ") &&
      strstr (out, "coded_block_pattern 0"), "%s", out);
  g_free (out);
  out = run_tool (no_macroblocks_argv, 0);
  fail_if (strstr (out, "macroblocks:"), "%s", out);
  g_free (out);
  g_free (data);

  /* a P picture of 6600 bits of stuffing, 1600 bits arriving per picture */
  rate.vbv_delay[0] = 9000;
  rate.stuffing[1] = 600;
  rate.stuffing[2] = 0;
  data = build_tiny (TINY_VALID, &rate, &size);
  r = check (data, size, NULL);
  assert_error (r, "VBV underflow at picture 1");
  fail_unless_equals_int (r->first_underflow, 1);
  fail_unless_equals_int (r->n_overflows, 0);
  mpegcheck_result_free (r);
  g_free (data);

  /* buffer-full start: an I picture of 17600 bits cannot be in a buffer
   * of 16384 */
  rate.vbv_delay[0] = rate.vbv_delay[1] = rate.vbv_delay[2] = 0xFFFF;
  rate.stuffing[1] = 0;
  data = build_tiny (TINY_VALID, &rate, &size);
  r = check (data, size, NULL);
  assert_passed (r);
  fail_unless (r->vbv_buffer_full_rule);
  mpegcheck_result_free (r);
  g_free (data);
  rate.stuffing[0] = 1600;
  data = build_tiny (TINY_VALID, &rate, &size);
  r = check (data, size, NULL);
  assert_error (r, "VBV underflow at picture 0");
  mpegcheck_result_free (r);
  g_free (data);
  g_free (path);
}

GST_END_TEST;

/* Flipped bits: the checker never crashes (the test runs in a child) and
 * rejects most of them; what it lets pass are bits no syntax rule sees
 * (signs, levels, DC values within range). */
static guint
flip_and_check (const guint8 * data, gsize size, gsize from, guint rounds,
    guint32 seed)
{
  GRand *rand = g_rand_new_with_seed (seed);
  guint8 *copy = g_malloc (size);
  guint rejected = 0, i, k;

  for (i = 0; i < rounds; i++) {
    MpegCheckResult *r;
    guint flips = g_rand_int_range (rand, 1, 4);

    memcpy (copy, data, size);
    for (k = 0; k < flips; k++) {
      gsize at = g_rand_int_range (rand, from, size);
      copy[at] ^= 1u << g_rand_int_range (rand, 0, 8);
    }
    r = mpegcheck_run (copy, size, NULL);
    if (!mpegcheck_passed (r))
      rejected++;
    mpegcheck_result_free (r);
  }
  g_free (copy);
  g_rand_free (rand);
  return rejected;
}

/* At least @min_rejected of @rounds flips in @data rejected; frees @data */
static void
assert_flips_rejected (guint8 * data, gsize size, const gchar * what,
    guint rounds, guint32 seed, guint min_rejected)
{
  guint rejected = flip_and_check (data, size, 0, rounds, seed);

  GST_INFO ("%s: %u of %u rejected", what, rejected, rounds);
  fail_unless (rejected >= min_rejected, "%u of %u", rejected, rounds);
  g_free (data);
}

GST_START_TEST (test_random_bit_flips)
{
  gsize size;
  guint8 *data = load_with_end_code ("bframes.m1v", &size);

  assert_flips_rejected (data, size, "FFmpeg stream", 300, 1, 240);
  data = build_tiny (TINY_VALID, NULL, &size);
  assert_flips_rejected (data, size, "tiny stream", 2000, 2, 1600);
}

GST_END_TEST;

/* ---- MPEG-2 ---- */

/* FFmpeg's mpeg2video streams and what each one was asked for. The VBR
 * ones are given a buffer (-maxrate, -bufsize): without one FFmpeg writes
 * a vbv_buffer_size smaller than its pictures. */
#define MPEG2_ARGS "-c:v mpeg2video -f mpeg2video -maxrate 8M -bufsize 1835k "
#define INTERLACED_ARGS "-vf setfield=tff -flags +ildct+ilme -top 1 "

static const struct
{
  const gchar *name;
  const gchar *source;          /* lavfi; NULL: the real clip */
  const gchar *args;
  guint width, height;
  guint chroma_format;
  gboolean b_pictures;
  gboolean interlaced;          /* progressive_sequence 0, field tools */
  guint intra_dc_precision;
  gboolean intra_vlc_format, q_scale_type, alternate_scan;
} mpeg2_streams[] = {
  {"m2-ip.m2v", NULL, "-q:v 4 -bf 0", W, H, 1, FALSE, FALSE, 0, FALSE,
      FALSE, FALSE},
  {"m2-b.m2v", NULL, "-q:v 4 -bf 2", W, H, 1, TRUE, FALSE, 0, FALSE, FALSE,
      FALSE},
  {"m2-intra-vlc.m2v", NULL, "-q:v 3 -bf 2 -intra_vlc 1", W, H, 1, TRUE,
      FALSE, 0, TRUE, FALSE, FALSE},
  {"m2-non-linear.m2v", NULL, "-q:v 5 -qmax 28 -bf 2 -non_linear_quant 1", W,
      H, 1, TRUE, FALSE, 0, FALSE, TRUE, FALSE},
  {"m2-alternate.m2v", NULL, "-q:v 4 -bf 2 -alternate_scan 1", W, H, 1, TRUE,
      FALSE, 0, FALSE, FALSE, TRUE},
  {"m2-dc9.m2v", NULL, "-q:v 2 -bf 2 -dc 9", W, H, 1, TRUE, FALSE, 1, FALSE,
      FALSE, FALSE},
  {"m2-dc10.m2v", NULL, "-q:v 2 -bf 0 -dc 10", W, H, 1, FALSE, FALSE, 2,
      FALSE, FALSE, FALSE},
  {"m2-422.m2v", NULL, "-q:v 3 -bf 2 -pix_fmt yuv422p -profile:v 0", W, H, 2,
      TRUE, FALSE, 0, FALSE, FALSE, FALSE},
  {"m2-interlaced.m2v", NULL, INTERLACED_ARGS "-q:v 4 -bf 2", W, H, 1, TRUE,
      TRUE, 0, FALSE, FALSE, FALSE},
  /* 272 lines: 17 macroblock rows, but 18 for interlaced frames */
  {"m2-interlaced-odd.m2v", NULL, "-vf crop=338:272,setfield=tff "
        "-flags +ildct+ilme -top 1 -q:v 4 -bf 2", 338, 272, 1, TRUE, TRUE, 0,
      FALSE, FALSE, FALSE},
  {"m2-interlaced-422.m2v", NULL, INTERLACED_ARGS "-q:v 3 -bf 2 "
        "-pix_fmt yuv422p -profile:v 0", W, H, 2, TRUE, TRUE, 0, FALSE, FALSE,
      FALSE},
  {"m2-odd.m2v", NULL, "-vf crop=338:276 -q:v 4 -bf 2", 338, 276, 1, TRUE,
      FALSE, 0, FALSE, FALSE, FALSE},
  /* every tool at once, at the finest quantiser: the most coefficients */
  {"m2-all.m2v", NULL, "-qmin 1 -q:v 1 -qmax 28 -bf 2 -non_linear_quant 1 "
        "-intra_vlc 1 -alternate_scan 1 -dc 10", W, H, 1, TRUE, FALSE, 2,
      TRUE, TRUE, TRUE},
  {"m2-noise.m2v", "nullsrc=s=176x144:r=25,geq=lum='random(1)*255':"
        "cb='random(2)*255':cr=128", "-qmin 1 -q:v 1 -bf 1 -intra_vlc 1",
      176, 144, 1, TRUE, FALSE, 0, TRUE, FALSE, FALSE},
  {"m2-motion.m2v", "testsrc=s=352x288:r=25,scroll=h=0.05:v=0.03",
      "-q:v 3 -bf 2 -me_range 64", W, H, 1, TRUE, FALSE, 0, FALSE, FALSE,
      FALSE},
};

/* f_code[s][t] of picture @p: 1..9 where it has vectors of direction s,
 * 15 where not */
static void
assert_f_codes (const MpegCheckPicture * p)
{
  guint s, t;

  for (s = 0; s < 2; s++) {
    gboolean used = s == 0 ? p->coding_type != 1 ||
        p->concealment_motion_vectors : p->coding_type == 3;
    for (t = 0; t < 2; t++) {
      if (used)
        fail_unless (p->f_code[s][t] >= 1 && p->f_code[s][t] <= 9,
            "picture %u: f_code[%u][%u] %u", p->index, s, t, p->f_code[s][t]);
      else
        fail_unless_equals_int (p->f_code[s][t], 15);
    }
  }
}

GST_START_TEST (test_mpeg2_ffmpeg)
{
  const gchar *name = mpeg2_streams[__i__].name;
  guint width = mpeg2_streams[__i__].width;
  guint height = mpeg2_streams[__i__].height;
  gboolean interlaced = mpeg2_streams[__i__].interlaced;
  /* 13818-2 6.3.3: an interlaced frame has whole rows in each field */
  guint rows = interlaced ? 2 * ((height + 31) / 32) : (height + 15) / 16;
  guint64 bidirectional = 0, field_tools = 0, escapes = 0;
  gsize size, i;
  guint8 *data = load_with_end_code (name, &size);
  MpegCheckResult *r = check (data, size, NULL);
  const MpegCheckSequence *s;

  GST_INFO ("%s", name);
  assert_passed (r);
  fail_unless_equals_int (r->sequences->len, 1);
  s = &g_array_index (r->sequences, MpegCheckSequence, 0);
  fail_unless (s->mpeg2);
  fail_unless_equals_int (s->width, width);
  fail_unless_equals_int (s->height, height);
  fail_unless_equals_int (s->chroma_format,
      mpeg2_streams[__i__].chroma_format);
  if (s->chroma_format == MPEGCHECK_CHROMA_422) {
    fail_unless_equals_int (s->profile, MPEGCHECK_PROFILE_422);
    fail_unless_equals_int (s->profile_and_level, 0x85);
  } else {
    fail_unless_equals_int (s->profile, MPEGCHECK_PROFILE_MAIN);
  }
  fail_unless_equals_int (s->level, MPEGCHECK_LEVEL_MAIN);
  if (interlaced || !mpeg2_streams[__i__].alternate_scan)
    fail_unless_equals_int (s->progressive_sequence, !interlaced);
  fail_unless (!s->low_delay && s->fps_n == 25 && s->fps_d == 1);
  fail_unless_equals_int (s->aspect_code, 1);
  assert_all_macroblocks (r, ((width + 15) / 16) * rows);

  for (i = 0; i < r->pictures->len; i++) {
    const MpegCheckPicture *p =
        &g_array_index (r->pictures, MpegCheckPicture, i);

    fail_unless (p->coding_extension);
    fail_unless_equals_int (p->picture_structure, MPEGCHECK_FRAME);
    fail_unless_equals_int (p->forward_f_code, p->coding_type == 1 ? 0 : 7);
    assert_f_codes (p);
    fail_unless_equals_int (p->intra_dc_precision,
        mpeg2_streams[__i__].intra_dc_precision);
    fail_unless_equals_int (p->intra_vlc_format,
        mpeg2_streams[__i__].intra_vlc_format);
    fail_unless_equals_int (p->q_scale_type,
        mpeg2_streams[__i__].q_scale_type);
    fail_unless_equals_int (p->alternate_scan,
        mpeg2_streams[__i__].alternate_scan);
    fail_if (p->repeat_first_field);
    if (interlaced) {
      fail_unless (p->top_field_first && !p->progressive_frame &&
          !p->frame_pred_frame_dct);
    } else if (!mpeg2_streams[__i__].alternate_scan) {
      fail_unless (p->progressive_frame && p->frame_pred_frame_dct);
      fail_unless_equals_int (p->n_mb_field_motion + p->n_mb_field_dct, 0);
    }
    bidirectional += p->n_mb_backward + p->n_mb_interpolated;
    field_tools += p->n_mb_field_motion + p->n_mb_field_dct;
    escapes += p->n_escapes;
  }
  fail_unless_equals_int (r->n_type[3] > 0, mpeg2_streams[__i__].b_pictures);
  if (mpeg2_streams[__i__].b_pictures)
    fail_unless (bidirectional > 0);
  if (interlaced)
    fail_unless (field_tools > 0);
  if (g_str_equal (name, "m2-noise.m2v") || g_str_equal (name, "m2-all.m2v"))
    fail_unless (escapes > 100, "%" G_GUINT64_FORMAT, escapes);
  /* none of FFmpeg's escapes could have been a shorter code */
  fail_unless_equals_int (r->notes->len, 0);
  mpegcheck_result_free (r);
  assert_quick_check_passes (data, size);
  g_free (data);
}

GST_END_TEST;

/* The display extension's colour description of @s, as FFmpeg was asked
 * for it */
static void
assert_colour (const MpegCheckSequence * s, guint primaries, guint transfer,
    guint matrix)
{
  fail_unless (s->colour_description);
  fail_unless_equals_int (s->colour_primaries, primaries);
  fail_unless_equals_int (s->transfer_characteristics, transfer);
  fail_unless_equals_int (s->matrix_coefficients, matrix);
}

/* The sequence extension's profile and level and the display extension's
 * colour description, as FFmpeg was asked for them */
GST_START_TEST (test_mpeg2_profile_and_colour)
{
  gsize size;
  guint8 *data = load_with_end_code ("m2-bt709.m2v", &size);
  MpegCheckResult *r = check (data, size, NULL);
  const MpegCheckSequence *s;
  gchar *report;

  assert_passed (r);
  s = &g_array_index (r->sequences, MpegCheckSequence, 0);
  fail_unless_equals_int (s->profile_and_level, 0x48);
  fail_unless_equals_int (s->profile, MPEGCHECK_PROFILE_MAIN);
  fail_unless_equals_int (s->level, MPEGCHECK_LEVEL_MAIN);
  fail_unless (s->display_extension);
  assert_colour (s, 1, 1, 1);
  fail_unless_equals_int (s->display_width, W);
  fail_unless_equals_int (s->display_height, H);
  report = mpegcheck_report (r, FALSE);
  fail_unless (strstr (report, "profile_and_level_indication 0x48 (Main "
          "profile, Main level)") && strstr (report, "colour_primaries 1, "
          "transfer_characteristics 1, matrix_coefficients 1"), "%s", report);
  g_free (report);
  mpegcheck_result_free (r);

  /* one display extension per sequence header */
  {
    GArray *exts = find_codes (data, size, 0xB5);
    gsize at = g_array_index (exts, gsize, 1), end = next_code (data, size,
        at), n;
    guint8 *twice;

    fail_unless_equals_int (data[at + 4] >> 4, 2);
    twice = insert (data, size, end, data + at, end - at, &n);
    r = check (twice, n, NULL);
    assert_error_printf (r, "a second sequence_display_extension at byte %"
        G_GSIZE_FORMAT, end);
    fail_unless_equals_int (r->errors->len, 1);
    mpegcheck_result_free (r);
    g_free (twice);
    g_array_free (exts, TRUE);
  }
  g_free (data);

  /* other values, read as they are: High 1440 level, SMPTE 170M colours,
   * 16:9 */
  data = load_with_end_code ("m2-smpte170m.m2v", &size);
  r = check (data, size, NULL);
  assert_passed (r);
  s = &g_array_index (r->sequences, MpegCheckSequence, 0);
  fail_unless_equals_int (s->profile_and_level, 0x46);
  fail_unless_equals_int (s->level, MPEGCHECK_LEVEL_HIGH_1440);
  assert_colour (s, 6, 6, 6);
  fail_unless_equals_int (s->aspect_code, 3);
  mpegcheck_result_free (r);
  g_free (data);
}

GST_END_TEST;

GST_START_TEST (test_mpeg2_cbr)
{
  gsize size;
  guint8 *data = load_with_end_code ("m2-cbr.m2v", &size);
  MpegCheckOptions o;
  MpegCheckResult *r;
  const MpegCheckSequence *s;

  strict_options (&o);
  r = check (data, size, &o);
  assert_passed (r);
  s = &g_array_index (r->sequences, MpegCheckSequence, 0);
  fail_unless (s->mpeg2);
  fail_unless_equals_int (s->bit_rate_code, 4000000 / 400);
  fail_unless_equals_int (s->vbv_buffer_size_code, 112);
  fail_unless (r->n_type[3] > 0);
  /* the model reproduces FFmpeg's own vbv_delay and keeps within the
   * buffer */
  fail_unless (r->vbv_simulated && !r->vbv_buffer_full_rule);
  fail_unless (r->vbv_delay_max_error <= 2.0, "%f", r->vbv_delay_max_error);
  fail_unless (r->vbv_max_fullness <= 112 * 16384 + 4000000 / 90000.0);
  fail_unless (r->vbv_min_fullness > 0);
  mpegcheck_result_free (r);

  /* a buffer of a tenth (vbv_buffer_size_value 11, the extension being
   * 0): it would hold more than its size */
  {
    GArray *seqs = find_codes (data, size, 0xB3);
    gsize k;

    for (k = 0; k < seqs->len; k++)
      put_bits (data, g_array_index (seqs, gsize, k), 51, 10, 11);
    g_array_free (seqs, TRUE);
  }
  r = check (data, size, &o);
  fail_unless (r->n_overflows > 0);
  assert_error (r, "VBV overflow before picture 0");
  mpegcheck_result_free (r);
  g_free (data);
}

GST_END_TEST;

/* The picture coding extensions of @data, in picture order */
static GArray *
find_coding_extensions (const guint8 * data, gsize size)
{
  GArray *all = find_codes (data, size, 0xB5);
  GArray *coding = g_array_new (FALSE, FALSE, sizeof (gsize));
  guint i;

  for (i = 0; i < all->len; i++) {
    gsize at = g_array_index (all, gsize, i);
    if (data[at + 4] >> 4 == 8)
      g_array_append_val (coding, at);
  }
  g_array_free (all, TRUE);
  return coding;
}

/* bits after a picture coding extension's start code */
#define EXT_F_CODE(s, t) (4 + 8 * (s) + 4 * (t))
#define EXT_INTRA_DC_PRECISION 20
#define EXT_PICTURE_STRUCTURE 22
#define EXT_TOP_FIELD_FIRST 24
#define EXT_FRAME_PRED_FRAME_DCT 25
#define EXT_REPEAT_FIRST_FIELD 30
#define EXT_CHROMA_420_TYPE 31
#define EXT_PROGRESSIVE_FRAME 32

/* The decoding time from picture @i to the next one, in frame periods */
static gdouble
decoding_interval (const MpegCheckResult * r, guint i)
{
  const MpegCheckPicture *p = &g_array_index (r->pictures,
      MpegCheckPicture, i);
  return (p[1].decode_time - p[0].decode_time) * 25;
}

/* repeat_first_field lengthens the display, and so the decoding interval
 * (13818-2 annex C), of B pictures at once, of I and P pictures after the
 * next one */
GST_START_TEST (test_mpeg2_repeat_first_field)
{
  gsize size;
  guint8 *data = load_with_end_code ("m2-b.m2v", &size);
  GArray *exts = find_coding_extensions (data, size);
  MpegCheckResult *r = check (data, size, NULL);
  gint b = -1, anchor = -1, next_anchor = -1;
  guint i;

  assert_passed (r);
  fail_unless (r->vbv_simulated && r->vbv_buffer_full_rule);
  fail_unless_equals_int (exts->len, r->pictures->len);
  for (i = 0; i + 1 < r->pictures->len; i++) {
    const MpegCheckPicture *p =
        &g_array_index (r->pictures, MpegCheckPicture, i);
    fail_unless (fabs (decoding_interval (r, i) - 1) < 1e-9);
    if (p->coding_type == 3 && b < 0)
      b = i;
    else if (p->coding_type != 3 && i > 0 && anchor < 0)
      anchor = i;
    else if (p->coding_type != 3 && anchor >= 0 && next_anchor < 0)
      next_anchor = i;
  }
  fail_unless (b > 0 && anchor > 0 && next_anchor > anchor);
  mpegcheck_result_free (r);

  /* a progressive sequence: two frames, or three with top_field_first */
  put_bits (data, g_array_index (exts, gsize, b), EXT_REPEAT_FIRST_FIELD, 1,
      1);
  r = check (data, size, NULL);
  assert_passed (r);
  fail_unless (fabs (decoding_interval (r, b) - 2) < 1e-9, "%f",
      decoding_interval (r, b));
  fail_unless (fabs (decoding_interval (r, b + 1) - 1) < 1e-9);
  mpegcheck_result_free (r);
  put_bits (data, g_array_index (exts, gsize, b), EXT_TOP_FIELD_FIRST, 1, 1);
  r = check (data, size, NULL);
  assert_passed (r);
  fail_unless (fabs (decoding_interval (r, b) - 3) < 1e-9);
  mpegcheck_result_free (r);

  /* top_field_first alone is not allowed there */
  put_bits (data, g_array_index (exts, gsize, b), EXT_REPEAT_FIRST_FIELD, 1,
      0);
  r = check (data, size, NULL);
  assert_error (r, "top_field_first set without repeat_first_field in a "
      "progressive sequence");
  mpegcheck_result_free (r);
  put_bits (data, g_array_index (exts, gsize, b), EXT_TOP_FIELD_FIRST, 1, 0);

  /* an I or P picture's display follows the next one's decoding */
  put_bits (data, g_array_index (exts, gsize, anchor),
      EXT_REPEAT_FIRST_FIELD, 1, 1);
  r = check (data, size, NULL);
  assert_passed (r);
  fail_unless (fabs (decoding_interval (r, anchor) - 1) < 1e-9);
  fail_unless (fabs (decoding_interval (r, next_anchor) - 2) < 1e-9);
  mpegcheck_result_free (r);
  g_array_free (exts, TRUE);
  g_free (data);

  /* an interlaced sequence: a progressive frame three fields long */
  data = load_with_end_code ("m2-interlaced.m2v", &size);
  exts = find_coding_extensions (data, size);
  r = check (data, size, NULL);
  assert_passed (r);
  b = 0;
  while (g_array_index (r->pictures, MpegCheckPicture, b).coding_type != 3)
    b++;
  mpegcheck_result_free (r);
  put_bits (data, g_array_index (exts, gsize, b), EXT_REPEAT_FIRST_FIELD, 1,
      1);
  r = check (data, size, NULL);
  assert_error (r, "repeat_first_field in an interlaced frame");
  mpegcheck_result_free (r);
  /* (a progressive frame in 4:2:0 has chroma_420_type set) */
  put_bits (data, g_array_index (exts, gsize, b), EXT_CHROMA_420_TYPE, 2, 3);
  r = check (data, size, NULL);
  assert_passed (r);
  fail_unless (fabs (decoding_interval (r, b) - 1.5) < 1e-9, "%f",
      decoding_interval (r, b));
  mpegcheck_result_free (r);
  put_bits (data, g_array_index (exts, gsize, b), EXT_CHROMA_420_TYPE, 1, 0);
  r = check (data, size, NULL);
  assert_error (r, "chroma_420_type 0, not 1");
  mpegcheck_result_free (r);
  g_array_free (exts, TRUE);
  g_free (data);
}

GST_END_TEST;

/* bits after a sequence extension's start code */
#define SEQ_EXT_PROFILE_AND_LEVEL 4
#define SEQ_EXT_CHROMA_FORMAT 13
#define SEQ_EXT_LOW_DELAY 40

/* FFmpeg's headers with one value broken */
GST_START_TEST (test_mpeg2_broken_headers)
{
  gsize size, n;
  guint8 *data = load_with_end_code ("m2-b.m2v", &size);
  GArray *exts = find_coding_extensions (data, size);
  GArray *seq_exts = find_codes (data, size, 0xB5);
  GArray *pics = find_codes (data, size, 0x00);
  GArray *slices = find_codes (data, size, 0x01);
  gsize seq = 0, seq_ext = g_array_index (seq_exts, gsize, 0);
  guint8 *c = g_memdup2 (data, size);
  MpegCheckResult *r = check (data, size, NULL);
  gint p_picture = -1, b_picture = -1;
  guint i;

  assert_passed (r);
  for (i = 0; i < r->pictures->len; i++) {
    guint type = g_array_index (r->pictures, MpegCheckPicture, i).coding_type;
    if (type == 2 && p_picture < 0)
      p_picture = i;
    if (type == 3 && b_picture < 0)
      b_picture = i;
  }
  fail_unless (p_picture > 0 && b_picture > 0);
  fail_unless_equals_int (data[seq_ext + 4] >> 4, 1);
  mpegcheck_result_free (r);

  /* f_code 0 where the picture has vectors: its macroblocks cannot be
   * parsed */
  r = check_patched (c, data, size, g_array_index (exts, gsize, p_picture),
      EXT_F_CODE (0, 0), 4, 0);
  assert_error_printf (r, "picture %d (byte %" G_GSIZE_FORMAT "): "
      "f_code[0][0] 0, outside 1..9", p_picture,
      g_array_index (pics, gsize, p_picture));
  fail_unless_equals_int (r->errors->len, 1);
  fail_unless_equals_int (g_array_index (r->pictures, MpegCheckPicture,
          p_picture).n_mb_coded, 0);
  mpegcheck_result_free (r);

  /* one that a P picture does not use, and one an I picture does not */
  memcpy (c, data, size);
  put_bits (c, g_array_index (exts, gsize, p_picture), EXT_F_CODE (1, 0), 4,
      3);
  put_bits (c, g_array_index (exts, gsize, 0), EXT_F_CODE (0, 1), 4, 1);
  r = check (c, size, NULL);
  assert_error (r, "f_code[1][0] 3, not 15 where the picture has no such "
      "vectors");
  assert_error (r, "picture 0 (byte ");
  assert_error (r, "f_code[0][1] 1, not 15");
  mpegcheck_result_free (r);

  /* the picture header's f_code, fixed at 7 in MPEG-2 */
  r = check_patched (c, data, size, g_array_index (pics, gsize, b_picture),
      10 + 3 + 16 + 4 + 1, 3, 2);
  assert_error (r, "full_pel_backward_vector 0 and backward_f_code 2, MPEG-2 "
      "wants 0 and 7");
  mpegcheck_result_free (r);

  /* no picture coding extension: an error, and no macroblocks */
  {
    gsize at = g_array_index (exts, gsize, 4);
    guint8 *cut_stream = cut (data, size, at, next_code (data, size, at) - at,
        &n);

    r = check (cut_stream, n, NULL);
    assert_error_printf (r, "picture 4 (byte %" G_GSIZE_FORMAT ") has no "
        "picture_coding_extension", g_array_index (pics, gsize, 4));
    fail_unless_equals_int (r->errors->len, 1);
    fail_unless_equals_int (g_array_index (r->pictures, MpegCheckPicture,
            4).n_mb_coded, 0);
    fail_if (g_array_index (r->pictures, MpegCheckPicture,
            4).coding_extension);
    mpegcheck_result_free (r);

    /* ... or two of them: the second is where the syntax has none */
    g_free (cut_stream);
    cut_stream = insert (data, size, next_code (data, size, at), data + at,
        next_code (data, size, at) - at, &n);
    r = check (cut_stream, n, NULL);
    assert_error_printf (r, "picture_coding_extension at byte %"
        G_GSIZE_FORMAT " after a picture_coding_extension",
        next_code (data, size, at));
    fail_unless_equals_int (r->errors->len, 1);
    mpegcheck_result_free (r);
    g_free (cut_stream);
  }

  /* no sequence extension: an MPEG-1 sequence, which has no extensions */
  {
    guint8 *cut_stream = cut (data, size, seq_ext,
        next_code (data, size, seq_ext) - seq_ext, &n);

    r = check (cut_stream, n, NULL);
    fail_if (g_array_index (r->sequences, MpegCheckSequence, 0).mpeg2);
    assert_error (r, "extension start code at byte");
    assert_error (r, "in an MPEG-1 sequence");
    mpegcheck_result_free (r);
    g_free (cut_stream);
  }

  /* the sequence header's MPEG-2 values */
  memcpy (c, data, size);
  put_bits (c, seq, 24, 4, 5);  /* aspect_ratio_information */
  put_bits (c, seq, 61, 1, 1);  /* constrained_parameters_flag */
  r = check (c, size, NULL);
  assert_error (r, "sequence header at byte 0: reserved "
      "aspect_ratio_information 5");
  assert_error (r, "constrained_parameters_flag set, which MPEG-2 forbids");
  fail_unless_equals_int (r->errors->len, 2);
  mpegcheck_result_free (r);

  /* profiles and levels */
  r = check_patched (c, data, size, seq_ext, SEQ_EXT_PROFILE_AND_LEVEL, 8,
      0x5A);
  assert_error (r, "profile_and_level_indication 0x5A: the Simple profile "
      "has no Low level");
  /* (and the Simple profile has no B pictures) */
  assert_error (r, "is a B picture in a sequence with the Simple profile");
  mpegcheck_result_free (r);
  r = check_patched (c, data, size, seq_ext, SEQ_EXT_PROFILE_AND_LEVEL, 8,
      0x4B);
  assert_error (r, "profile_and_level_indication 0x4B is reserved");
  fail_unless_equals_int (r->errors->len, 1);
  mpegcheck_result_free (r);

  /* 4:2:2 in the Main profile */
  r = check_patched (c, data, size, seq_ext, SEQ_EXT_CHROMA_FORMAT, 2, 2);
  assert_error (r, "chroma_format 4:2:2 in the Main profile, which has 4:2:0 "
      "at most");
  mpegcheck_result_free (r);

  /* low_delay: no B pictures */
  r = check_patched (c, data, size, seq_ext, SEQ_EXT_LOW_DELAY, 1, 1);
  assert_error_printf (r, "picture %d (byte %" G_GSIZE_FORMAT ") is a B "
      "picture in a sequence with low_delay set", b_picture,
      g_array_index (pics, gsize, b_picture));
  mpegcheck_result_free (r);

  /* field pictures: the checker says it does not check them */
  r = check_patched (c, data, size, g_array_index (exts, gsize, 2),
      EXT_PICTURE_STRUCTURE, 2, MPEGCHECK_TOP_FIELD);
  assert_error (r, "picture 2 (byte");
  assert_error (r, "is a field picture: field pictures are not supported by "
      "this checker");
  mpegcheck_result_free (r);

  /* frame prediction and DCT only, in a progressive sequence (the
   * macroblocks then lack what the flag would have them carry) */
  r = check_patched (c, data, size, g_array_index (exts, gsize, 3),
      EXT_FRAME_PRED_FRAME_DCT, 1, 0);
  assert_error (r, "picture 3 (byte");
  assert_error (r, "frame_pred_frame_dct 0 in a progressive sequence");
  mpegcheck_result_free (r);

  /* 11-bit DC precision is the High and 4:2:2 profiles' */
  r = check_patched (c, data, size, g_array_index (exts, gsize, 0),
      EXT_INTRA_DC_PRECISION, 2, 3);
  assert_error (r, "intra_dc_precision 11 bits in the Main profile (8 to 10 "
      "only)");
  fail_unless_equals_int (r->errors->len, 1);
  mpegcheck_result_free (r);

  /* quantiser_scale_code 0 */
  r = check_patched (c, data, size, g_array_index (slices, gsize, 3), 0, 5,
      0);
  assert_error (r, "quantiser_scale_code 0");
  mpegcheck_result_free (r);

  g_free (c);
  g_array_free (exts, TRUE);
  g_array_free (seq_exts, TRUE);
  g_array_free (pics, TRUE);
  g_array_free (slices, TRUE);
  g_free (data);
}

GST_END_TEST;

/* With low_delay a picture that is not all in the buffer at its decoding
 * time is decoded at the first field period at which it is (13818-2 C.7) */
GST_START_TEST (test_mpeg2_low_delay)
{
  gsize size, k;
  guint8 *data = load_with_end_code ("m2-low-delay.m2v", &size);
  GArray *seqs = find_codes (data, size, 0xB3);
  GArray *exts = find_codes (data, size, 0xB5);
  MpegCheckResult *r = check (data, size, NULL);
  gboolean waited = FALSE;
  guint i;

  assert_passed (r);
  fail_unless (g_array_index (r->sequences, MpegCheckSequence, 0).low_delay);
  fail_unless_equals_int (r->n_type[3], 0);
  mpegcheck_result_free (r);

  /* 400 kbit/s into 256 kbit: pictures of over 100 kbit, 16 kbit a frame */
  for (k = 0; k < seqs->len; k++) {
    put_bits (data, g_array_index (seqs, gsize, k), 32, 18, 1000);
    put_bits (data, g_array_index (seqs, gsize, k), 51, 10, 16);
  }
  r = check (data, size, NULL);
  assert_passed (r);
  for (i = 0; i + 1 < r->pictures->len; i++) {
    gdouble fields = decoding_interval (r, i) * 2;
    fail_unless (fabs (fields - round (fields)) < 1e-6 &&
        round (fields) >= 2, "picture %u: %f field periods", i, fields);
    waited |= round (fields) > 2;
  }
  fail_unless (waited);
  mpegcheck_result_free (r);

  /* the same pictures come too late without low_delay */
  for (k = 0; k < exts->len; k++) {
    gsize at = g_array_index (exts, gsize, k);
    if (data[at + 4] >> 4 == 1)
      put_bits (data, at, SEQ_EXT_LOW_DELAY, 1, 0);
  }
  r = check (data, size, NULL);
  fail_unless (r->n_underflows > 0);
  assert_error (r, "VBV underflow at picture");
  mpegcheck_result_free (r);
  g_array_free (seqs, TRUE);
  g_array_free (exts, TRUE);
  g_free (data);
}

GST_END_TEST;

/* intra_dc_precision sets the DC's range: FFmpeg's 10-bit DCs are out of
 * the 8-bit one */
GST_START_TEST (test_mpeg2_dc_precision)
{
  gsize size;
  guint8 *data = load_with_end_code ("m2-dc10.m2v", &size);
  GArray *exts = find_coding_extensions (data, size);
  MpegCheckResult *r;

  put_bits (data, g_array_index (exts, gsize, 0), EXT_INTRA_DC_PRECISION, 2,
      0);
  r = check (data, size, NULL);
  assert_error (r, "picture 0, slice 0 (byte");
  assert_error (r, "outside 0..255 for intra_dc_precision 8 bits");
  mpegcheck_result_free (r);
  g_array_free (exts, TRUE);
  g_free (data);
}

GST_END_TEST;

/* ---- hand-made MPEG-2 streams ---- */

/* What a tiny MPEG-2 stream does, or gets wrong */
typedef enum
{
  TINY2_VALID,
  TINY2_TABLE_ONE,              /* I: intra_vlc_format 1 */
  TINY2_DC_10_BITS,             /* I, macroblock 0, block 0: DC +200, 10 bits */
  TINY2_QUANT_MATRIX,           /* I: a quant_matrix_extension, level 100 */
  TINY2_LINEAR,                 /* I: quantiser_scale_code 31, run 5 level 20 */
  TINY2_ESCAPE_WITH_CODE,       /* I: an escape of run 0, level 1 */
  TINY2_CONCEALMENT,            /* I: concealment motion vectors */
  TINY2_CBP_ZERO,               /* P, macroblock 0: coded_block_pattern 0 */
  TINY2_FIELD_HALVING,          /* P: a field vector from half a frame vector */
  TINY2_DUAL_PRIME,             /* P, macroblock 0: dmvector (0, +1) */
  TINY2_422,                    /* 4:2:2, a chroma intra matrix; P: block 7 */
  N_TINY2_VALID,
  /* faults */
  TINY2_SLICE_PAST_ROW = N_TINY2_VALID, /* I: slice 0 goes on to macroblock 2 */
  TINY2_SLICE_STARTS_PAST_ROW,  /* I: slice 1 starts at column 2 */
  TINY2_STUFFING,               /* I: macroblock_stuffing before macroblock 1 */
  TINY2_ESCAPE_ZERO,            /* I, macroblock 0, block 0 */
  TINY2_ESCAPE_MINUS_2048,
  TINY2_DC_BEYOND_8_BITS,       /* DC +200 at 8 bits */
  TINY2_DC_BEYOND_10_BITS,      /* DC +600 at 10 bits */
  TINY2_ALTERNATE_SCAN,         /* TINY2_QUANT_MATRIX in alternate scan */
  TINY2_NON_LINEAR,             /* TINY2_LINEAR with q_scale_type 1 */
  TINY2_NO_MARKER,              /* TINY2_CONCEALMENT, macroblock 0's marker 0 */
  TINY2_F_CODE_UNUSED,          /* I: f_code[1][1] 1 */
  TINY2_NO_CODING_EXTENSION,    /* P */
  TINY2_F_CODE_ZERO,            /* P: f_code[0][0] 0 */
  TINY2_PICTURE_F_CODE,         /* P: the picture header's forward_f_code 1 */
  TINY2_FIELD_OUTSIDE,          /* P, macroblock 1: top field vector (0, -1) */
  TINY2_DUAL_PRIME_OUTSIDE,     /* P, macroblock 0: dmvector (0, 0) */
  TINY2_422_CHROMA_LEVEL,       /* TINY2_422 with level 100 in block 6 */
  TINY2_CHROMA_MATRIX_420,      /* a chroma intra matrix in 4:2:0 */
} Tiny2Variant;

/* What a picture coding extension says */
typedef struct
{
  guint f_code[2][2];
  guint intra_dc_precision;
  gboolean top_field_first, frame_pred_frame_dct, concealment_motion_vectors;
  gboolean q_scale_type, intra_vlc_format, alternate_scan;
  gboolean chroma_420_type, progressive_frame;
} Tiny2Coding;

static gboolean
tiny2_interlaced (Tiny2Variant v)
{
  return v == TINY2_FIELD_HALVING || v == TINY2_FIELD_OUTSIDE ||
      v == TINY2_DUAL_PRIME || v == TINY2_DUAL_PRIME_OUTSIDE;
}

static gboolean
tiny2_422 (Tiny2Variant v)
{
  return v == TINY2_422 || v == TINY2_422_CHROMA_LEVEL;
}

/* Main profile at Main level in 4:2:0, 4:2:2 profile at Main level in
 * 4:2:2; no extension of sizes or rates */
static void
tiny2_sequence_extension (BitWriter * w, gboolean progressive,
    gboolean chroma_422)
{
  bw_start_code (w, 0xB5);
  bw_bits (w, 4, 1);
  bw_bits (w, 8, chroma_422 ? 0x85 : 0x48);
  bw_bits (w, 1, progressive);
  bw_bits (w, 2, chroma_422 ? MPEGCHECK_CHROMA_422 : MPEGCHECK_CHROMA_420);
  bw_bits (w, 2 + 2 + 12, 0);   /* size and bit_rate extensions */
  bw_bits (w, 1, 1);            /* marker */
  bw_bits (w, 8 + 1 + 2 + 5, 0);        /* vbv, low_delay, frame rate */
}

static void
tiny2_coding_extension (BitWriter * w, const Tiny2Coding * c)
{
  guint i;

  bw_start_code (w, 0xB5);
  bw_bits (w, 4, 8);
  for (i = 0; i < 4; i++)
    bw_bits (w, 4, c->f_code[i / 2][i % 2]);
  bw_bits (w, 2, c->intra_dc_precision);
  bw_bits (w, 2, MPEGCHECK_FRAME);
  bw_bits (w, 1, c->top_field_first);
  bw_bits (w, 1, c->frame_pred_frame_dct);
  bw_bits (w, 1, c->concealment_motion_vectors);
  bw_bits (w, 1, c->q_scale_type);
  bw_bits (w, 1, c->intra_vlc_format);
  bw_bits (w, 1, c->alternate_scan);
  bw_bits (w, 1, 0);            /* repeat_first_field */
  bw_bits (w, 1, c->chroma_420_type);
  bw_bits (w, 1, c->progressive_frame);
  bw_bits (w, 1, 0);            /* composite_display_flag */
}

/* An intra matrix of 16s (8 for the DC) but 255 at zigzag position
 * @big; @chroma: the chroma intra matrix, not the intra one */
static void
tiny2_quant_matrix_extension (BitWriter * w, guint big, gboolean chroma)
{
  guint m, i;

  bw_start_code (w, 0xB5);
  bw_bits (w, 4, 3);
  /* intra, non-intra, chroma intra, chroma non-intra: one loaded */
  for (m = 0; m < 4; m++) {
    gboolean load = m == (chroma ? 2 : 0);
    bw_bits (w, 1, load);
    for (i = 0; load && i < 64; i++)
      bw_bits (w, 8, i == 0 ? 8 : i == big ? 255 : 16);
  }
}

static void
tiny2_escape (BitWriter * w, guint run, gint level)
{
  bw_code (w, "0000 01");
  bw_bits (w, 6, run);
  bw_bits (w, 12, level & 0xFFF);
}

/* The I picture's block that the variant is about: a DC differential and
 * one coefficient (two in DCT table one) */
static void
tiny2_first_block (BitWriter * w, Tiny2Variant v, const gchar * eob,
    gboolean chroma)
{
  if (chroma) {
    bw_code (w, dc_chroma_size[1]);
    bw_bits (w, 1, 1);
  } else if (v == TINY2_DC_10_BITS || v == TINY2_DC_BEYOND_8_BITS) {
    bw_code (w, dc_luma_size[8]);
    bw_bits (w, 8, 200);
  } else if (v == TINY2_DC_BEYOND_10_BITS) {
    bw_code (w, "1111 1111 0");       /* size 10, MPEG-2's */
    bw_bits (w, 10, 600);
  } else {
    bw_code (w, dc_luma_size[1]);
    bw_bits (w, 1, 1);
  }
  if (v == TINY2_ESCAPE_ZERO)
    tiny2_escape (w, 0, 0);
  else if (v == TINY2_ESCAPE_MINUS_2048)
    tiny2_escape (w, 0, -2048);
  else if (v == TINY2_ESCAPE_WITH_CODE)
    tiny2_escape (w, 0, 1);
  else if (v == TINY2_QUANT_MATRIX || v == TINY2_ALTERNATE_SCAN ||
      tiny2_422 (v) || v == TINY2_CHROMA_MATRIX_420)
    tiny2_escape (w, 0, 100);
  else if (v == TINY2_LINEAR || v == TINY2_NON_LINEAR)
    tiny2_escape (w, 5, 20);    /* (5, 20) has no code */
  else if (v == TINY2_TABLE_ONE)
    bw_code (w, "10 0  1111 001 0");    /* B.15: (0, +1), (1, +3) */
  else
    bw_code (w, "11 0");        /* B.14: (0, +1) */
  bw_code (w, eob);
}

/* The I picture: slices of two intra macroblocks at rows 0 and 1 */
static void
tiny2_i_picture (BitWriter * w, Tiny2Variant v)
{
  guint blocks = tiny2_422 (v) ? 8 : 6;
  guint special = v == TINY2_422_CHROMA_LEVEL ? 6 : 0;
  Tiny2Coding c = { {{15, 15}, {15, 15}}, 0, FALSE, TRUE, FALSE, FALSE,
    v == TINY2_TABLE_ONE, v == TINY2_ALTERNATE_SCAN, !tiny2_422 (v), TRUE
  };
  gboolean concealment = v == TINY2_CONCEALMENT || v == TINY2_NO_MARKER;
  const gchar *eob = c.intra_vlc_format ? "0110" : EOB;
  guint mb, i, quant = (v == TINY2_LINEAR || v == TINY2_NON_LINEAR) ? 31 : 8;

  if (concealment) {
    c.concealment_motion_vectors = TRUE;
    c.f_code[0][0] = c.f_code[0][1] = 1;
  }
  if (v == TINY2_DC_10_BITS || v == TINY2_DC_BEYOND_10_BITS)
    c.intra_dc_precision = 2;
  c.q_scale_type = v == TINY2_NON_LINEAR;
  if (v == TINY2_F_CODE_UNUSED)
    c.f_code[1][1] = 1;

  tiny_picture (w, 0, 1, 0xFFFF, FALSE, 0);
  tiny2_coding_extension (w, &c);
  /* 255 for the row below the DC (2, in zigzag order), or for the next
   * column (1) of the chroma matrix */
  if (v == TINY2_QUANT_MATRIX || v == TINY2_ALTERNATE_SCAN)
    tiny2_quant_matrix_extension (w, 2, FALSE);
  else if (tiny2_422 (v) || v == TINY2_CHROMA_MATRIX_420)
    tiny2_quant_matrix_extension (w, 1, TRUE);

  for (mb = 0; mb < 4 + (v == TINY2_SLICE_PAST_ROW); mb++) {
    gboolean slice_start = mb == 0 || mb == 2 + (v == TINY2_SLICE_PAST_ROW);

    if (slice_start) {
      tiny_slice (w, mb == 0 ? 1 : 2, quant, 0);
      bw_code (w, increment_code[mb && v == TINY2_SLICE_STARTS_PAST_ROW ?
              3 : 1]);
    } else {
      if (mb == 1 && v == TINY2_STUFFING)
        bw_code (w, "0000 0001 111");
      bw_code (w, increment_code[1]);
    }
    bw_code (w, "1");           /* intra */
    if (concealment) {
      bw_code (w, "1 1");       /* a (0, 0) frame vector */
      bw_bits (w, 1, !(v == TINY2_NO_MARKER && mb == 0));
    }
    for (i = 0; i < blocks; i++) {
      if (mb == 0 && i == special) {
        tiny2_first_block (w, v, eob, i >= 4);
      } else {
        bw_code (w, i < 4 ? dc_luma_size[0] : dc_chroma_size[0]);
        bw_code (w, eob);
      }
    }
  }
}

/* The P picture, a slice per row: macroblock 0 forward with block 5,
 * 1 forward only, 2 with block 3 and no vector, 3 forward only, all
 * vectors (0, 0); interlaced, 0 has a frame vector of (0, 20) and 1 field
 * vectors predicted from it, or 0 is dual prime. */
static void
tiny2_p_picture (BitWriter * w, Tiny2Variant v)
{
  gboolean interlaced = tiny2_interlaced (v);
  gboolean dual_prime = v == TINY2_DUAL_PRIME ||
      v == TINY2_DUAL_PRIME_OUTSIDE;
  gboolean fields = v == TINY2_FIELD_HALVING || v == TINY2_FIELD_OUTSIDE;
  Tiny2Coding c = { {{1, interlaced ? 2 : 1}, {15, 15}}, 0, interlaced,
    !interlaced, FALSE, FALSE, FALSE, FALSE, !interlaced && !tiny2_422 (v),
    !interlaced
  };

  if (v == TINY2_F_CODE_ZERO)
    c.f_code[0][0] = 0;
  tiny_picture (w, 1, 2, 0xFFFF, FALSE, v == TINY2_PICTURE_F_CODE ? 1 : 7);
  if (v != TINY2_NO_CODING_EXTENSION)
    tiny2_coding_extension (w, &c);

  tiny_slice (w, 1, 8, 0);
  bw_code (w, increment_code[1]);
  if (dual_prime) {
    bw_code (w, "001 11");      /* forward, not coded; dual prime */
    bw_code (w, "1 0");         /* horizontal 0, dmvector 0 */
    bw_code (w, v == TINY2_DUAL_PRIME ? "1 10" : "1 0");
  } else {
    bw_code (w, "1");           /* forward, coded */
    if (interlaced)
      bw_code (w, "10 0");      /* frame motion, frame DCT */
    bw_code (w, "1");
    /* vertical 0, or 20: code 10, residual 1 at f_code 2 */
    bw_code (w, fields ? "0000 0100 10 1" : "1");
    bw_code (w, v == TINY2_CBP_ZERO ? "0000 0000 1" : "0101 1");
    if (tiny2_422 (v))
      bw_code (w, "01");        /* coded_block_pattern_1: block 7 */
    if (v != TINY2_CBP_ZERO)
      tiny_unit_block (w);
    if (tiny2_422 (v))
      tiny_unit_block (w);
  }

  bw_code (w, increment_code[1]);
  bw_code (w, "001");           /* forward, not coded */
  if (fields) {
    bw_code (w, "01");          /* field motion */
    /* top field: vertical 0 from half the predictor, 10, or -11 from it */
    bw_code (w, "0 1");
    bw_code (w, v == TINY2_FIELD_OUTSIDE ? "0000 1001 0" : "1");
    bw_code (w, "1 1 1");       /* bottom field: 10 as well */
  } else {
    if (interlaced)
      bw_code (w, "10");
    bw_code (w, "1 1");
  }

  tiny_slice (w, 2, 8, 0);
  bw_code (w, increment_code[1]);
  bw_code (w, "01");            /* coded, no vector */
  if (interlaced)
    bw_code (w, "1");           /* field DCT */
  bw_code (w, "1101");
  if (tiny2_422 (v))
    bw_code (w, "00");
  tiny_unit_block (w);
  bw_code (w, increment_code[1]);
  bw_code (w, "001");
  if (interlaced)
    bw_code (w, "10");
  bw_code (w, "1 1");
}

/* A 32x32 MPEG-2 stream of an I and a P picture, as @v says */
static guint8 *
build_tiny2 (Tiny2Variant v, gsize * size)
{
  BitWriter w = { g_byte_array_new (), 0, 0 };

  tiny_sequence_header (&w, TINY_VALID, NULL);
  tiny2_sequence_extension (&w, !tiny2_interlaced (v), tiny2_422 (v));
  tiny_gop (&w);
  tiny2_i_picture (&w, v);
  tiny2_p_picture (&w, v);
  bw_start_code (&w, 0xB7);
  *size = w.bytes->len;
  return g_byte_array_free (w.bytes, FALSE);
}

GST_START_TEST (test_tiny2_stream)
{
  Tiny2Variant v = __i__;
  gsize size;
  guint8 *data = build_tiny2 (v, &size);
  MpegCheckResult *r = check (data, size, NULL);
  const MpegCheckPicture *i_pic, *p_pic;

  GST_INFO ("variant %d", v);
  assert_passed (r);
  fail_unless (g_array_index (r->sequences, MpegCheckSequence, 0).mpeg2);
  fail_unless_equals_int (r->pictures->len, 2);
  assert_all_macroblocks (r, 4);
  i_pic = &g_array_index (r->pictures, MpegCheckPicture, 0);
  p_pic = &g_array_index (r->pictures, MpegCheckPicture, 1);
  fail_unless (i_pic->coding_extension && p_pic->coding_extension);
  fail_unless_equals_int (i_pic->n_slices, 2);
  fail_unless_equals_int (p_pic->n_slices, 2);
  fail_unless_equals_int (i_pic->n_coefficients,
      v == TINY2_TABLE_ONE ? 2 : 1);
  fail_unless_equals_int (i_pic->n_escapes, (v == TINY2_QUANT_MATRIX ||
          v == TINY2_LINEAR || v == TINY2_ESCAPE_WITH_CODE ||
          v == TINY2_422) ? 1 : 0);
  fail_unless_equals_int (i_pic->n_mb_concealment,
      v == TINY2_CONCEALMENT ? 4 : 0);
  fail_unless_equals_int (i_pic->intra_dc_precision,
      v == TINY2_DC_10_BITS ? 2 : 0);
  fail_unless_equals_int (i_pic->quant_matrix_extension,
      v == TINY2_QUANT_MATRIX || v == TINY2_422);
  fail_unless_equals_int (g_array_index (r->sequences, MpegCheckSequence,
          0).chroma_format, tiny2_422 (v) ? MPEGCHECK_CHROMA_422 :
      MPEGCHECK_CHROMA_420);
  fail_unless_equals_int (p_pic->n_mb_field_motion,
      v == TINY2_FIELD_HALVING);
  fail_unless_equals_int (p_pic->n_mb_dual_prime, v == TINY2_DUAL_PRIME);
  fail_unless_equals_int (p_pic->n_mb_field_dct, tiny2_interlaced (v));
  fail_unless_equals_int (p_pic->n_mb_zero_vector, 1);
  fail_unless_equals_int (p_pic->n_mb_forward, 3);
  fail_unless_equals_int (p_pic->n_blocks, (v == TINY2_CBP_ZERO ||
          v == TINY2_DUAL_PRIME) ? 1 : v == TINY2_422 ? 3 : 2);
  /* the 20 half-pel frame vector, and its halves for the fields */
  fail_unless_equals_int (p_pic->max_vector,
      v == TINY2_FIELD_HALVING ? 20 : v == TINY2_DUAL_PRIME ? 2 : 0);
  /* an escape that a code could have made shorter is legal, but noted */
  fail_unless_equals_int (r->notes->len, v == TINY2_ESCAPE_WITH_CODE);
  if (v == TINY2_ESCAPE_WITH_CODE)
    fail_unless (strstr (r->notes->pdata[0], "1 escapes code a run and level "
            "that the DCT table has a code for") &&
        strstr (r->notes->pdata[0], "(run 0, level 1)"), "%s",
        (gchar *) r->notes->pdata[0]);
  mpegcheck_result_free (r);
  g_free (data);
}

GST_END_TEST;

static const TinyFault tiny2_faults[] = {
  {TINY2_SLICE_PAST_ROW, "picture 0, slice 0 (byte", "macroblock_address_"
        "increment 1 leads to macroblock 2, past the end of the slice's row 0"},
  {TINY2_SLICE_STARTS_PAST_ROW, "slice at byte", "(picture 0) starts at "
        "column 2, past the end of its row (2 macroblocks)"},
  {TINY2_STUFFING, "picture 0, slice 0 (byte", "macroblock_stuffing, which "
        "MPEG-2 does not have"},
  {TINY2_ESCAPE_ZERO, "picture 0, slice 0 (byte", "macroblock 0, bit"},
  {TINY2_ESCAPE_ZERO, "", "block 0: escape with level 0, which is "
        "forbidden"},
  {TINY2_ESCAPE_MINUS_2048, "macroblock 0, bit", "block 0: escape with "
        "level -2048, which is forbidden"},
  {TINY2_DC_BEYOND_8_BITS, "picture 0, slice 0 (byte", "block 0: intra DC "
        "328 (predictor 128, dct_dc_differential 200) outside 0..255 for "
        "intra_dc_precision 8 bits"},
  {TINY2_DC_BEYOND_10_BITS, "picture 0, slice 0 (byte", "block 0: intra DC "
        "1112 (predictor 512, dct_dc_differential 600) outside 0..1023 for "
        "intra_dc_precision 10 bits"},
  {TINY2_ALTERNATE_SCAN, "macroblock 0, bit", "block 0: level 100 at scan "
        "position 1 (quantiser_scale 16, matrix 255) reconstructs to 25500, "
        "outside -2048..2047"},
  {TINY2_NON_LINEAR, "macroblock 0, bit", "block 0: level 20 at scan "
        "position 6 (quantiser_scale 112, matrix 22) reconstructs to 3080, "
        "outside -2048..2047"},
  {TINY2_NO_MARKER, "picture 0, slice 0 (byte", "marker bit after the "
        "concealment motion vectors is 0"},
  {TINY2_F_CODE_UNUSED, "picture 0 (byte 30)", "f_code[1][1] 1, not 15 "
        "where the picture has no such vectors"},
  {TINY2_NO_CODING_EXTENSION, "picture 1 (byte", "has no "
        "picture_coding_extension (MPEG-2 has one after every picture "
        "header)"},
  {TINY2_F_CODE_ZERO, "picture 1 (byte", "f_code[0][0] 0, outside 1..9"},
  {TINY2_PICTURE_F_CODE, "picture 1 (byte", "full_pel_forward_vector 0 and "
        "forward_f_code 1, MPEG-2 wants 0 and 7"},
  {TINY2_FIELD_OUTSIDE, "picture 1, slice 0 (byte", "macroblock 1, bit"},
  {TINY2_FIELD_OUTSIDE, "", "forward top field vector (0, -1) half-pels "
        "predicts from outside the picture's 32x32 macroblock area"},
  {TINY2_DUAL_PRIME_OUTSIDE, "picture 1, slice 0 (byte", "forward dual "
        "prime top field from the other parity vector (0, -1) half-pels "
        "predicts from outside"},
  /* the chroma blocks of 4:2:2 have a matrix of their own */
  {TINY2_422_CHROMA_LEVEL, "picture 0, slice 0 (byte", "block 6: level 100 "
        "at scan position 1 (quantiser_scale 16, matrix 255) reconstructs to "
        "25500"},
  {TINY2_CHROMA_MATRIX_420, "quant_matrix_extension at byte", "a "
        "chroma_intra matrix in a 4:2:0 sequence (which has none)"},
};

GST_START_TEST (test_tiny2_faults)
{
  const TinyFault *f = &tiny2_faults[__i__];
  gsize size;
  guint8 *data = build_tiny2 (f->variant, &size);

  /* one fault, one error */
  assert_fault (f, data, size, 1);
}

GST_END_TEST;

/* A 32x64 interlaced stream, an I picture and a P picture whose
 * macroblock 2 is predicted field by field (top field vector (0, -9)
 * half-pels), and 3 by a frame vector of (0, 15) at f_code 1, coded as a
 * difference of +1 from the doubled field vector, -18: the sum, -17,
 * wraps into the range (13818-2 7.6.3.1), though the difference is
 * positive. The other macroblocks are predicted with zero vectors. */
static guint8 *
build_frame_after_field_vectors (gsize * size)
{
  BitWriter w = { g_byte_array_new (), 0, 0 };
  Tiny2Coding i_coding = { {{15, 15}, {15, 15}}, 0, TRUE, TRUE, FALSE,
    FALSE, FALSE, FALSE, FALSE, FALSE
  };
  Tiny2Coding p_coding = { {{1, 1}, {15, 15}}, 0, TRUE, FALSE, FALSE, FALSE,
    FALSE, FALSE, FALSE, FALSE
  };
  guint row, mb, b;

  tiny_sequence_header (&w, TINY_VALID, NULL);
  /* vertical_size 64: the header's byte 6 holds its low eight bits */
  g_assert_cmpuint (w.bytes->data[6], ==, 32);
  w.bytes->data[6] = 64;
  tiny2_sequence_extension (&w, FALSE, FALSE);
  tiny_gop (&w);

  tiny_picture (&w, 0, 1, 0xFFFF, FALSE, 0);
  tiny2_coding_extension (&w, &i_coding);
  for (row = 0; row < 4; row++) {
    tiny_slice (&w, row + 1, 8, 0);
    for (mb = 0; mb < 2; mb++) {
      bw_code (&w, increment_code[1]);
      bw_code (&w, "1");        /* intra */
      for (b = 0; b < 6; b++) {
        bw_code (&w, b < 4 ? dc_luma_size[0] : dc_chroma_size[0]);
        bw_code (&w, EOB);
      }
    }
  }

  tiny_picture (&w, 1, 2, 0xFFFF, FALSE, 7);
  tiny2_coding_extension (&w, &p_coding);
  for (row = 0; row < 4; row++) {
    tiny_slice (&w, row + 1, 8, 0);
    for (mb = 0; mb < 2; mb++) {
      bw_code (&w, increment_code[1]);
      bw_code (&w, "001");      /* forward, not coded */
      if (row == 1 && mb == 0) {
        bw_code (&w, "01");     /* field motion */
        bw_code (&w, "0 1 0000 0101 0 1");      /* top: (0, -9) */
        bw_code (&w, "1 1 1");  /* bottom: (0, 0) */
      } else {
        bw_code (&w, "10");     /* frame motion */
        /* (0, 0), or (0, 15): -18 + 1 wrapped */
        bw_code (&w, row == 1 ? "1 01 0" : "1 1");
      }
    }
  }
  bw_start_code (&w, 0xB7);
  *size = w.bytes->len;
  return g_byte_array_free (w.bytes, FALSE);
}

/* A frame vector predicted from a field vector doubled past its range:
 * the stream is valid, and its vector (0, 15) */
GST_START_TEST (test_mpeg2_frame_after_field_vectors)
{
  gsize size;
  guint8 *data = build_frame_after_field_vectors (&size);
  MpegCheckResult *r = check_valid (data, size, 2, 8);
  const MpegCheckPicture *p_pic;

  p_pic = &g_array_index (r->pictures, MpegCheckPicture, 1);
  fail_unless_equals_int (p_pic->n_mb_field_motion, 1);
  fail_unless_equals_int (p_pic->max_vector, 15);
  mpegcheck_result_free (r);
  g_free (data);
}

GST_END_TEST;

/* The tool on MPEG-2: it reports the extensions' values, and passes a
 * coded_block_pattern 0, which is an error only in MPEG-1
 * (test_tiny_faults) */
GST_START_TEST (test_mpeg2_cli)
{
  gchar *path = tmp_path ("tiny2.m2v"), *out;
  const gchar *argv[] = { MPEGCHECK_PATH, "--trace", path, NULL };
  gsize size;
  guint8 *data = build_tiny2 (TINY2_CBP_ZERO, &size);

  save ("tiny2.m2v", data, size);
  out = run_tool (argv, 0);
  fail_unless (strstr (out, "MPEG-2: profile_and_level_indication 0x48 "
          "(Main profile, Main level), chroma 4:2:0, progressive_sequence 1")
      && strstr (out, "MPEG-2 pictures: 2 (2 frames, 0 fields)") &&
      strstr (out, "(f_code 11FF, dc 8 bits, structure 3") &&
      strstr (out, "result: pass"), "%s", out);
  g_free (out);
  g_free (data);

  data = build_tiny2 (TINY2_NON_LINEAR, &size);
  save ("tiny2.m2v", data, size);
  out = run_tool (argv, 1);
  fail_unless (strstr (out, "error: picture 0, slice 0 (byte ") &&
      strstr (out, "(quantiser_scale 112, matrix 22)"), "%s", out);
  g_free (out);
  g_free (data);
  g_free (path);
}

GST_END_TEST;

GST_START_TEST (test_mpeg2_random_bit_flips)
{
  gsize size;
  guint8 *data = load_with_end_code ("m2-b.m2v", &size);

  assert_flips_rejected (data, size, "FFmpeg MPEG-2 stream", 300, 3, 180);
  data = build_tiny2 (TINY2_FIELD_HALVING, &size);
  assert_flips_rejected (data, size, "tiny MPEG-2 stream", 2000, 4, 1600);
}

GST_END_TEST;

static Suite *
mpegcheck_suite (void)
{
  Suite *s = suite_create ("mpegcheck");
  TCase *tc = tcase_create ("general");

  suite_add_tcase (s, tc);
  tcase_set_timeout (tc, 300);
  tcase_add_test (tc, test_cbr_stream_passes);
  tcase_add_test (tc, test_b_pictures_and_rows);
  tcase_add_test (tc, test_large_odd_size);
  tcase_add_test (tc, test_vbv_violations);
  tcase_add_test (tc, test_broken_structure);
  tcase_add_test (tc, test_cli);
  tcase_add_test (tc, test_psnr);
  tcase_add_test (tc, test_decode_check);
  tcase_add_loop_test (tc, test_ffmpeg_macroblocks, 0,
      G_N_ELEMENTS (ffmpeg_streams));
  tcase_add_test (tc, test_tiny_stream);
  tcase_add_loop_test (tc, test_tiny_faults, 0, G_N_ELEMENTS (tiny_faults));
  tcase_add_test (tc, test_d_pictures);
  tcase_add_test (tc, test_tiny_vbv);
  tcase_add_test (tc, test_random_bit_flips);
  tcase_add_loop_test (tc, test_mpeg2_ffmpeg, 0,
      G_N_ELEMENTS (mpeg2_streams));
  tcase_add_test (tc, test_mpeg2_profile_and_colour);
  tcase_add_test (tc, test_mpeg2_cbr);
  tcase_add_test (tc, test_mpeg2_repeat_first_field);
  tcase_add_test (tc, test_mpeg2_broken_headers);
  tcase_add_test (tc, test_mpeg2_low_delay);
  tcase_add_test (tc, test_mpeg2_dc_precision);
  tcase_add_loop_test (tc, test_tiny2_stream, 0, N_TINY2_VALID);
  tcase_add_loop_test (tc, test_tiny2_faults, 0, G_N_ELEMENTS (tiny2_faults));
  tcase_add_test (tc, test_mpeg2_frame_after_field_vectors);
  tcase_add_test (tc, test_mpeg2_cli);
  tcase_add_test (tc, test_mpeg2_random_bit_flips);
  return s;
}

/* FFmpeg's input options for the real clip, or its stand-in (see the head
 * of the file) */
static gchar *
real_clip_input (void)
{
  const gchar *dir = g_getenv ("MPEGCHECK_CLIPS_DIR");
  gchar *default_dir = g_build_filename (g_get_user_cache_dir (),
      "gst-clvideo", "clips", NULL);
  gchar *path = g_build_filename (dir && *dir ? dir : default_dir,
      "foreman_352x288.y4m", NULL);
  gchar *input;

  if (g_file_test (path, G_FILE_TEST_EXISTS)) {
    gchar *quoted = g_shell_quote (path);
    input = g_strdup_printf ("-i %s", quoted);
    g_free (quoted);
  } else {
    input = g_strdup_printf ("-f lavfi -i mandelbrot=s=%dx%d:r=25", W, H);
  }
  g_free (path);
  g_free (default_dir);
  return input;
}

static gboolean
remove_dir (const gchar * dir)
{
  GDir *d = g_dir_open (dir, 0, NULL);
  const gchar *name;

  while (d && (name = g_dir_read_name (d))) {
    gchar *path = g_build_filename (dir, name, NULL);
    g_unlink (path);
    g_free (path);
  }
  if (d)
    g_dir_close (d);
  return g_rmdir (dir) == 0;
}

int
main (int argc, char **argv)
{
  const gchar *cbr = "-c:v mpeg1video -f mpeg1video -b:v 1000k -minrate 1000k -maxrate 1000k "
      "-bufsize 327680 -bf 0 -g 12 -flags +cgop -sc_threshold 1000000000 "
      "-slices 18";
  gchar *size = g_strdup_printf ("%dx%d", W, H), *clip;
  guint i;
  int result;

  gst_check_init (&argc, &argv);
  if (!have_program ("ffmpeg")) {
    g_print ("SKIP: ffmpeg is not installed (Debian package ffmpeg)\n");
    return 77;
  }
  tmpdir = g_dir_make_tmp ("mpegcheck-XXXXXX", NULL);
  g_assert (tmpdir);

  /* the streams, made once for all tests (each runs in a child process) */
  ffmpeg_encode ("cbr.m1v", size, FRAMES, cbr);
  ffmpeg_encode ("bframes.m1v", size, FRAMES, "-c:v mpeg1video -threads 1 "
      "-b:v 1000k -minrate 1000k -maxrate 1000k -bufsize 327680 -bf 2 -g 12 "
      "-f mpeg1video");
  ffmpeg_encode ("odd.m1v", "1918x1078", 3, "-c:v mpeg1video -q:v 5 "
      "-slices 32 -f mpeg1video");
  /* the macroblock layer at both ends of the quantiser, B pictures,
   * intra only, an odd small size, noise (escapes) and wide motion */
  ffmpeg_encode ("q1.m1v", size, 12, "-c:v mpeg1video -qmin 1 -q:v 1 "
      "-f mpeg1video");
  ffmpeg_encode ("q31.m1v", size, 12, "-c:v mpeg1video -q:v 31 -bf 2 "
      "-f mpeg1video");
  ffmpeg_encode ("intra.m1v", size, 6, "-c:v mpeg1video -g 1 -q:v 3 "
      "-f mpeg1video");
  ffmpeg_encode ("small.m1v", "34x18", 12, "-c:v mpeg1video -bf 2 -q:v 4 "
      "-f mpeg1video");
  ffmpeg_encode_filter ("noise.m1v", "nullsrc=s=176x144:r=25,geq="
      "lum='random(1)*255':cb='random(2)*255':cr=128", 6,
      "-c:v mpeg1video -qmin 1 -q:v 1 -bf 1 -f mpeg1video");
  ffmpeg_encode_filter ("motion.m1v", "testsrc=s=352x288:r=25,"
      "scroll=h=0.05:v=0.03", 12, "-c:v mpeg1video -bf 2 -q:v 3 "
      "-me_range 64 -f mpeg1video");
  /* MPEG-2: the coding tools, the profile, level and colour fields, and a
   * CBR stream that strict_options fits */
  clip = real_clip_input ();
  GST_INFO ("MPEG-2 streams of: %s", clip);
  for (i = 0; i < G_N_ELEMENTS (mpeg2_streams); i++) {
    gchar *args = g_strconcat (MPEG2_ARGS, mpeg2_streams[i].args, NULL);
    if (mpeg2_streams[i].source)
      ffmpeg_encode_filter (mpeg2_streams[i].name, mpeg2_streams[i].source,
          12, args);
    else
      ffmpeg_encode_input (mpeg2_streams[i].name, clip, 12, args);
    g_free (args);
  }
  ffmpeg_encode_input ("m2-bt709.m2v", clip, 6, MPEG2_ARGS "-q:v 4 -bf 2 "
      "-profile:v 4 -level:v 8 -color_primaries bt709 -color_trc bt709 "
      "-colorspace bt709");
  ffmpeg_encode_input ("m2-smpte170m.m2v", clip, 6, MPEG2_ARGS "-q:v 4 "
      "-bf 2 -profile:v 4 -level:v 6 -color_primaries smpte170m "
      "-color_trc smpte170m -colorspace smpte170m -aspect 16:9");
  ffmpeg_encode_input ("m2-low-delay.m2v", clip, 12, MPEG2_ARGS "-q:v 4 "
      "-bf 0 -flags +low_delay");
  ffmpeg_encode_input ("m2-cbr.m2v", clip, FRAMES, "-c:v mpeg2video "
      "-f mpeg2video -b:v 4M -minrate 4M -maxrate 4M -bufsize 1835k -bf 2 "
      "-g 12 -flags +cgop -sc_threshold 1000000000");
  g_free (clip);

  result = gst_check_run_suite (mpegcheck_suite (), "mpegcheck", __FILE__);
  remove_dir (tmpdir);
  g_free (tmpdir);
  g_free (size);
  return result;
}
