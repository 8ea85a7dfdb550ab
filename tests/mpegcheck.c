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

static guint
bits_get (Bits * b, guint n)
{
  guint v = 0;

  while (n--) {
    guint bit = 0;
    if (b->pos < b->size * 8)
      bit = (b->data[b->pos >> 3] >> (7 - (b->pos & 7))) & 1;
    else
      b->overrun = TRUE;
    v = (v << 1) | bit;
    b->pos++;
  }
  return v;
}

static guint
bits_peek (Bits * b, guint n)
{
  Bits copy = *b;
  return bits_get (&copy, n);
}

/* macroblock_address_increment (11172-2 table B.1) without escape and
 * stuffing: code length and value for the 11-bit prefix read. */
static const struct
{
  guint8 len;
  guint16 code;
  guint8 value;
} mba_table[] = {
  {1, 0x1, 1}, {3, 0x3, 2}, {3, 0x2, 3}, {4, 0x3, 4}, {4, 0x2, 5},
  {5, 0x3, 6}, {5, 0x2, 7}, {7, 0x7, 8}, {7, 0x6, 9}, {8, 0xb, 10},
  {8, 0xa, 11}, {8, 0x9, 12}, {8, 0x8, 13}, {8, 0x7, 14}, {8, 0x6, 15},
  {10, 0x17, 16}, {10, 0x16, 17}, {10, 0x15, 18}, {10, 0x14, 19},
  {10, 0x13, 20}, {10, 0x12, 21}, {11, 0x23, 22}, {11, 0x22, 23},
  {11, 0x21, 24}, {11, 0x20, 25}, {11, 0x1f, 26}, {11, 0x1e, 27},
  {11, 0x1d, 28}, {11, 0x1c, 29}, {11, 0x1b, 30}, {11, 0x1a, 31},
  {11, 0x19, 32}, {11, 0x18, 33},
};

#define MBA_STUFFING 0x00f      /* 0000 0001 111 */
#define MBA_ESCAPE 0x008        /* 0000 0001 000 */

/* The first macroblock address increment of a slice; 0 when invalid. */
static guint
read_address_increment (Bits * b)
{
  guint total = 0, i;

  for (;;) {
    guint v;

    if (b->pos >= b->size * 8)
      return 0;
    v = bits_peek (b, 11);
    if (v == MBA_STUFFING) {
      bits_get (b, 11);
      continue;
    }
    if (v == MBA_ESCAPE) {
      bits_get (b, 11);
      total += 33;
      continue;
    }
    for (i = 0; i < G_N_ELEMENTS (mba_table); i++) {
      if ((v >> (11 - mba_table[i].len)) == mba_table[i].code) {
        bits_get (b, mba_table[i].len);
        return b->overrun ? 0 : total + mba_table[i].value;
      }
    }
    return 0;
  }
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

static void
close_picture (Parser * p, guint64 end)
{
  MpegCheckPicture *pic = &p->pic;
  MpegCheckSequence *s = current_sequence (p);

  if (!p->pic_open)
    return;
  pic->au_end = end;
  if (pic->n_slices == 0)
    ERR (p, "picture %u (byte %" G_GUINT64_FORMAT ") has no slice",
        pic->index, pic->offset);
  else if (p->opts->require_slice_per_row && s &&
      (!p->rows_ok || pic->n_slices != mb_rows (s)))
    ERR (p, "picture %u (byte %" G_GUINT64_FORMAT ") has %u slices, not one "
        "starting at column 0 of each of its %u macroblock rows", pic->index,
        pic->offset, pic->n_slices, mb_rows (s));
  g_array_append_val (p->r->pictures, *pic);
  if (s)
    s->n_pictures++;
  p->pic_open = FALSE;
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

  cur = current_sequence (p);
  new_sequence = (p->state == ST_START || p->state == ST_ENDED || !cur);
  if (new_sequence) {
    s.first_picture = p->r->pictures->len;
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
    p->r->n_type[pic->coding_type]++;
    if (p->gop_first_picture && pic->coding_type != 1)
      ERR (p, "picture %u (byte %" G_GUINT64_FORMAT ") is the first of GOP "
          "%u but a %c picture, not I", pic->index, offset, pic->gop,
          type_names[pic->coding_type]);
  }
  g_array_append_val (p->gop_trefs, pic->temporal_reference);
  p->gop_first_picture = FALSE;
  p->seq_header_since_picture = FALSE;
}

static void
parse_slice (Parser * p, guint code, guint64 offset, Bits * b)
{
  MpegCheckSequence *s = current_sequence (p);
  MpegCheckPicture *pic = &p->pic;
  guint quant, inc, cols, rows;
  gint address;

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
    return;
  }
  inc = read_address_increment (b);
  if (inc == 0) {
    ERR (p, "slice at byte %" G_GUINT64_FORMAT " (picture %u): no valid "
        "macroblock_address_increment", offset, pic->index);
    p->rows_ok = FALSE;
    return;
  }
  /* the address before a slice is the last one of the row above */
  address = (gint) ((code - 1) * cols) - 1 + (gint) inc;
  if (address >= (gint) (cols * rows)) {
    ERR (p, "slice at byte %" G_GUINT64_FORMAT " (picture %u) starts at "
        "macroblock %d, past the %u of the picture", offset, pic->index,
        address, cols * rows);
    p->rows_ok = FALSE;
  } else if (address <= p->last_slice_address) {
    ERR (p, "slice at byte %" G_GUINT64_FORMAT " (picture %u) starts at "
        "macroblock %d, not after the previous slice's first (%d)", offset,
        pic->index, address, p->last_slice_address);
    p->rows_ok = FALSE;
  }
  if (address != (gint) ((pic->n_slices - 1) * cols))
    p->rows_ok = FALSE;
  p->last_slice_address = address;
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
        "before_bits  after_bits  model_delay  quant\n");
    for (i = 0; i < r->pictures->len; i++) {
      const MpegCheckPicture *pic =
          &g_array_index (r->pictures, MpegCheckPicture, i);
      g_string_append_printf (s, "%7u    %c %4u %9u %7" G_GUINT64_FORMAT
          " %9.4f %12.0f %11.0f %12.1f  %2u..%-2u\n", pic->index,
          type_names[MIN (pic->coding_type, 4)], pic->temporal_reference,
          pic->vbv_delay, pic->bits, pic->decode_time, pic->fullness_before,
          pic->fullness_after, pic->model_vbv_delay, pic->slice_quant_min,
          pic->slice_quant_max);
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
