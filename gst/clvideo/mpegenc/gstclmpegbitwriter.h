/* gst-clvideo: MSB-first bit writer for MPEG-1 video syntax
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#pragma once

#include <glib.h>
#include <string.h>

G_BEGIN_DECLS

/**
 * GstClMpegBitWriter:
 *
 * Appends bit fields most significant bit first into a growing byte array,
 * as the MPEG video syntax is written. The pending bits are in @acc and
 * go to @data 32 at a time, so that a field costs a shift and an or;
 * after gst_cl_mpeg_bit_writer_align() (and so after a start code) every
 * bit is in @data.
 *
 * It writes the slice data, the hot path, where it pays: on the slice
 * coder's stream of fields GStreamer's GstBitWriter, which ORs each field
 * into zeroed bytes a byte at a time, took 2.4 to 2.9 times as long per
 * field (pipelines/bitwriter-bench, 2026-11-25, AMD EPYC; see
 * docs/performance.md). The headers, a few per picture, are written with
 * GstBitWriter (gstclmpegheaders.c).
 */
typedef struct {
  guint8 *data;
  gsize size;                   /* complete bytes in @data */
  gsize alloc;
  guint64 acc;                  /* pending bits, right-aligned (the bits
                                 * above them are stale) */
  guint n_acc;                  /* their number, < 32 between calls */
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
  /* fewer than 32 bits are pending, so the accumulator has room for n */
  bw->acc = (bw->acc << n) | (value & ((G_GUINT64_CONSTANT (1) << n) - 1));
  bw->n_acc += n;
  if (bw->n_acc >= 32) {
    guint32 word;
    bw->n_acc -= 32;
    word = GUINT32_TO_BE ((guint32) (bw->acc >> bw->n_acc));
    if (G_UNLIKELY (bw->size + 4 > bw->alloc))
      gst_cl_mpeg_bit_writer_grow (bw, 4);
    memcpy (bw->data + bw->size, &word, 4);
    bw->size += 4;
  }
}

G_END_DECLS
