/* gst-clvideo: MSB-first bit writer for MPEG-1 video syntax
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#pragma once

#include <glib.h>

G_BEGIN_DECLS

/**
 * GstClMpegBitWriter:
 *
 * Appends bit fields most significant bit first into a growing byte array,
 * as the MPEG video syntax is written. Whole bytes are stored as soon as
 * they are complete; the pending bits (fewer than 8 after any call) are in
 * @acc.
 */
typedef struct {
  guint8 *data;
  gsize size;                   /* complete bytes in @data */
  gsize alloc;
  guint64 acc;                  /* pending bits, right-aligned */
  guint n_acc;                  /* their number, < 8 between calls */
} GstClMpegBitWriter;

void gst_cl_mpeg_bit_writer_init (GstClMpegBitWriter * bw, gsize reserve);
void gst_cl_mpeg_bit_writer_clear (GstClMpegBitWriter * bw);
/* Forgets the content, keeps the storage. */
void gst_cl_mpeg_bit_writer_reset (GstClMpegBitWriter * bw);

/* Appends the @n (0..32) low bits of @value. */
static inline void gst_cl_mpeg_bit_writer_put (GstClMpegBitWriter * bw,
    guint32 value, guint n);

/* Pads with zero bits to the next byte boundary. */
void gst_cl_mpeg_bit_writer_align (GstClMpegBitWriter * bw);
/* Byte-aligns, then appends the start code 0x000001@code. */
void gst_cl_mpeg_bit_writer_start_code (GstClMpegBitWriter * bw, guint8 code);
/* Byte-aligns, then appends @n zero bytes (stuffing before a start code). */
void gst_cl_mpeg_bit_writer_zero_bytes (GstClMpegBitWriter * bw, gsize n);
/* Byte-aligns, then appends @len bytes. */
void gst_cl_mpeg_bit_writer_append (GstClMpegBitWriter * bw,
    const guint8 * bytes, gsize len);

/* Bits written so far. */
static inline guint64
gst_cl_mpeg_bit_writer_bits (const GstClMpegBitWriter * bw)
{
  return (guint64) bw->size * 8 + bw->n_acc;
}

void gst_cl_mpeg_bit_writer_grow (GstClMpegBitWriter * bw, gsize extra);

static inline void
gst_cl_mpeg_bit_writer_put (GstClMpegBitWriter * bw, guint32 value, guint n)
{
  if (n == 0)
    return;
  bw->acc = (bw->acc << n) | (value & (n == 32 ? 0xffffffffu :
          ((1u << n) - 1)));
  bw->n_acc += n;
  if (bw->n_acc >= 8) {
    if (G_UNLIKELY (bw->size + 8 > bw->alloc))
      gst_cl_mpeg_bit_writer_grow (bw, 8);
    while (bw->n_acc >= 8) {
      bw->n_acc -= 8;
      bw->data[bw->size++] = (guint8) (bw->acc >> bw->n_acc);
    }
  }
}

G_END_DECLS
