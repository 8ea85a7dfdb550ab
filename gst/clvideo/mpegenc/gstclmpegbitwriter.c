/* gst-clvideo: MSB-first bit writer for MPEG-1 video syntax
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "gstclmpegbitwriter.h"

#include <string.h>

void
gst_cl_mpeg_bit_writer_init (GstClMpegBitWriter * bw, gsize reserve)
{
  memset (bw, 0, sizeof (*bw));
  bw->alloc = MAX (reserve, 64);
  bw->data = g_malloc (bw->alloc);
}

void
gst_cl_mpeg_bit_writer_clear (GstClMpegBitWriter * bw)
{
  g_free (bw->data);
  memset (bw, 0, sizeof (*bw));
}

void
gst_cl_mpeg_bit_writer_reset (GstClMpegBitWriter * bw)
{
  bw->size = 0;
  bw->acc = 0;
  bw->n_acc = 0;
}

void
gst_cl_mpeg_bit_writer_grow (GstClMpegBitWriter * bw, gsize extra)
{
  gsize need = bw->size + extra;
  if (need <= bw->alloc)
    return;
  while (bw->alloc < need)
    bw->alloc = bw->alloc * 2 + 64;
  bw->data = g_realloc (bw->data, bw->alloc);
}

void
gst_cl_mpeg_bit_writer_align (GstClMpegBitWriter * bw)
{
  gst_cl_mpeg_bit_writer_put (bw, 0, (8 - (bw->n_acc & 7)) & 7);
  gst_cl_mpeg_bit_writer_grow (bw, 4);
  while (bw->n_acc) {
    bw->n_acc -= 8;
    bw->data[bw->size++] = (guint8) (bw->acc >> bw->n_acc);
  }
}

void
gst_cl_mpeg_bit_writer_start_code (GstClMpegBitWriter * bw, guint8 code)
{
  gst_cl_mpeg_bit_writer_align (bw);
  gst_cl_mpeg_bit_writer_put (bw, 0x000001, 24);
  gst_cl_mpeg_bit_writer_put (bw, code, 8);
}

void
gst_cl_mpeg_bit_writer_zero_bytes (GstClMpegBitWriter * bw, gsize n)
{
  gst_cl_mpeg_bit_writer_align (bw);
  gst_cl_mpeg_bit_writer_grow (bw, n);
  memset (bw->data + bw->size, 0, n);
  bw->size += n;
}

void
gst_cl_mpeg_bit_writer_append (GstClMpegBitWriter * bw, const guint8 * bytes,
    gsize len)
{
  gst_cl_mpeg_bit_writer_align (bw);
  gst_cl_mpeg_bit_writer_grow (bw, len);
  memcpy (bw->data + bw->size, bytes, len);
  bw->size += len;
}
