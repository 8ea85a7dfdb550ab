/* gst-clvideo: bit writers on the slice coding path, ours against GStreamer's
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * Codes the slices of synthetic P pictures (records and levels with the
 * statistics of coded video: a tenth of the macroblocks intra, a third
 * skipped, levels falling off along the zigzag) with the encoder's slice
 * coder, then writes the same kind of field stream (the codes' lengths
 * from the slice coder's own tables, gst_cl_mpeg_rd_bits) with
 * GstClMpegBitWriter and with GstBitWriter, checks that both wrote the
 * same bytes, and prints the time per field of each and their ratio.
 *
 *   bitwriter-bench [-W MB_WIDTH] [-H MB_HEIGHT] [-s SECONDS]
 */
#include <gst/gst.h>
#include <gst/base/gstbitwriter.h>
#include <stdio.h>
#include <string.h>

#include "gstclmpegbitwriter.h"
#include "gstclmpegvlc.h"

typedef struct
{
  guint32 value;
  guint len;
} Field;

typedef struct
{
  guint mb_width, mb_height;
  GstClMpegMbRecord *recs;
  gint16 *levels;
  GArray *fields;               /* of Field */
  guint64 field_bits;
} Picture;

/* A level for zigzag position @i: mostly zero past the first few, small
 * where not. */
static gint
synthetic_level (GRand * r, guint i, gboolean intra)
{
  gdouble keep = intra ? 0.9 / (1.0 + i * 0.25) : 0.7 / (1.0 + i * 0.35);
  gint a;

  if (g_rand_double (r) > keep)
    return 0;
  a = 1;
  while (a < 60 && g_rand_double (r) < 0.35)
    a += 1 + a / 2;
  return g_rand_boolean (r) ? a : -a;
}

static void
add_field (Picture * p, guint32 value, guint len)
{
  Field f = { len ? value & (0xffffffffu >> (32 - len)) : 0, len };

  g_array_append_val (p->fields, f);
  p->field_bits += len;
}

/* The fields the slice coder writes for block @zz (levels before @last). */
static void
block_fields (Picture * p, GRand * r, const guint8 * rd, const gint16 * zz,
    guint start, guint last)
{
  guint i, run = 0;

  for (i = start; i < last; i++) {
    guint a = ABS (zz[i]), len;

    if (!zz[i]) {
      run++;
      continue;
    }
    len = run < GST_CL_MPEG_COEFF_BITS_RUNS &&
        a < GST_CL_MPEG_COEFF_BITS_LEVELS ?
        rd[run * GST_CL_MPEG_COEFF_BITS_LEVELS + a] : 0;
    if (!len)
      len = a <= 127 ? 20 : 28;
    add_field (p, g_rand_int (r), len);
    run = 0;
  }
  add_field (p, 0x2, 2);        /* end_of_block */
}

static void
picture_init (Picture * p, guint mb_width, guint mb_height, guint32 seed)
{
  GRand *r = g_rand_new_with_seed (seed);
  guint8 rd[GST_CL_MPEG_RD_BITS_SIZE];
  guint n = mb_width * mb_height, m, b, i;

  gst_cl_mpeg_rd_bits (rd);
  p->mb_width = mb_width;
  p->mb_height = mb_height;
  p->recs = g_new0 (GstClMpegMbRecord, n);
  p->levels = g_new0 (gint16, (gsize) n * GST_CL_MPEG_MB_LEVELS);
  p->fields = g_array_new (FALSE, FALSE, sizeof (Field));
  p->field_bits = 0;
  for (m = 0; m < n; m++) {
    GstClMpegMbRecord *rec = &p->recs[m];
    gdouble kind = g_rand_double (r);
    gboolean intra = kind < 0.1;

    rec->quant = 6;
    rec->n_blocks = GST_CL_MPEG_BLOCKS_420;
    if (!intra && kind > 0.67) {
      rec->flags = GST_CL_MPEG_MB_SKIPPABLE;
      continue;
    }
    rec->flags = intra ? GST_CL_MPEG_MB_INTRA : 0;
    if (!intra) {
      rec->dx = g_rand_int_range (r, -12, 12);
      rec->dy = g_rand_int_range (r, -8, 8);
    }
    add_field (p, 1, 1);        /* address increment */
    add_field (p, 1, intra ? 5 : 1);    /* macroblock_type */
    if (!intra) {
      add_field (p, g_rand_int (r), rd[GST_CL_MPEG_RD_MV_BITS + 1 +
              g_rand_int_range (r, 0, 8)]);
      add_field (p, g_rand_int (r), rd[GST_CL_MPEG_RD_MV_BITS +
              g_rand_int_range (r, 0, 8)]);
    }
    for (b = 0; b < GST_CL_MPEG_BLOCKS_420; b++) {
      gint16 *zz = p->levels + (gsize) m * GST_CL_MPEG_MB_LEVELS + b * 64;
      guint last = 0;

      for (i = 0; i < 64; i++) {
        zz[i] = synthetic_level (r, i, intra);
        if (zz[i])
          last = i + 1;
      }
      if (intra) {
        guint size = g_rand_int_range (r, 0, 5);
        zz[0] = 128 + g_rand_int_range (r, -20, 20);
        last = MAX (last, 1);
        add_field (p, g_rand_int (r), rd[GST_CL_MPEG_RD_DC_BITS +
                (b < 4 ? 0 : 9) + size] + size);
      }
      rec->last[b] = last;
      if (!intra && last)
        rec->cbp |= 32 >> b;
    }
    if (!intra && rec->cbp)
      add_field (p, g_rand_int (r), rd[GST_CL_MPEG_RD_CBP_BITS + rec->cbp]);
    for (b = 0; b < GST_CL_MPEG_BLOCKS_420; b++)
      if (intra || (rec->cbp & (32 >> b)))
        block_fields (p, r, rd, p->levels + (gsize) m * GST_CL_MPEG_MB_LEVELS
            + b * 64, intra ? 1 : 0, rec->last[b]);
  }
  g_rand_free (r);
}

static void
picture_clear (Picture * p)
{
  g_free (p->recs);
  g_free (p->levels);
  g_array_unref (p->fields);
}

/* Runs @func on @p until @seconds have passed; returns ns per run. */
static gdouble
time_runs (void (*func) (Picture *, gpointer), Picture * p, gpointer data,
    gdouble seconds)
{
  gint64 start = g_get_monotonic_time (), now;
  guint64 runs = 0;

  do {
    func (p, data);
    runs++;
    now = g_get_monotonic_time ();
  } while (now - start < seconds * 1e6);
  return (now - start) * 1000.0 / runs;
}

static void
run_slices (Picture * p, gpointer data)
{
  static const GstClMpegPictureCoding coding = {
    .coding_type = GST_CL_MPEG_PICTURE_P, .f_code = 1, .backward_f_code = 1
  };
  GstClMpegBitWriter *bw = data;
  guint row;

  gst_cl_mpeg_bit_writer_reset (bw);
  for (row = 0; row < p->mb_height; row++)
    gst_cl_mpeg_write_slice (bw, row, p->mb_width, &coding,
        p->recs + (gsize) row * p->mb_width, NULL, NULL, NULL,
        p->levels + (gsize) row * p->mb_width * GST_CL_MPEG_MB_LEVELS, NULL);
}

static void
run_ours (Picture * p, gpointer data)
{
  GstClMpegBitWriter *bw = data;
  const Field *f = (const Field *) p->fields->data;
  guint i, n = p->fields->len;

  gst_cl_mpeg_bit_writer_reset (bw);
  for (i = 0; i < n; i++)
    gst_cl_mpeg_bit_writer_put (bw, f[i].value, f[i].len);
  gst_cl_mpeg_bit_writer_align (bw);
}

/* As the encoder would use it: a writer of the picture's size each time
 * (GstBitWriter ORs bits into zeroed bytes, so it cannot be rewound). */
static void
run_gst (Picture * p, gpointer data)
{
  GstBitWriter *bw = data;
  const Field *f = (const Field *) p->fields->data;
  guint i, n = p->fields->len;

  gst_bit_writer_reset (bw);
  gst_bit_writer_init_with_size (bw, p->field_bits / 8 + 64, FALSE);
  for (i = 0; i < n; i++)
    gst_bit_writer_put_bits_uint32 (bw, f[i].value, f[i].len);
  gst_bit_writer_align_bytes (bw, 0);
}

int
main (int argc, char **argv)
{
  gint mb_width = 45, mb_height = 36;
  gdouble seconds = 1.0;
  GOptionEntry entries[] = {
    {"mb-width", 'W', 0, G_OPTION_ARG_INT, &mb_width,
        "Macroblocks per row (45: 720 pixels)", NULL},
    {"mb-height", 'H', 0, G_OPTION_ARG_INT, &mb_height,
        "Macroblock rows (36: 576 lines)", NULL},
    {"seconds", 's', 0, G_OPTION_ARG_DOUBLE, &seconds,
        "Time per measurement", NULL},
    {NULL}
  };
  GOptionContext *octx = g_option_context_new ("- bit writer benchmark");
  GError *error = NULL;
  GstClMpegBitWriter ours, slices;
  GstBitWriter gst;
  Picture p;
  gdouble t_slices, t_ours, t_gst;
  guint n;

  g_option_context_add_main_entries (octx, entries, NULL);
  if (!g_option_context_parse (octx, &argc, &argv, &error)) {
    g_printerr ("%s\n", error->message);
    return 2;
  }
  g_option_context_free (octx);
  if (mb_width < 1 || mb_height < 1 || mb_height > 175) {
    g_printerr ("1 to 175 rows of at least one macroblock\n");
    return 2;
  }

  picture_init (&p, mb_width, mb_height, 1180);
  n = p.fields->len;
  gst_cl_mpeg_bit_writer_init (&slices, 1 << 16);
  gst_cl_mpeg_bit_writer_init (&ours, 1 << 16);
  gst_bit_writer_init (&gst);

  t_slices = time_runs (run_slices, &p, &slices, seconds);
  t_ours = time_runs (run_ours, &p, &ours, seconds);
  t_gst = time_runs (run_gst, &p, &gst, seconds);

  if (ours.size != gst_bit_writer_get_size (&gst) / 8 ||
      memcmp (ours.data, gst_bit_writer_get_data (&gst), ours.size) != 0) {
    g_printerr ("the writers wrote different bytes\n");
    return 1;
  }
  printf ("picture %dx%d macroblocks: slice coder %.0f bytes in %.1f us\n",
      mb_width, mb_height, (gdouble) slices.size, t_slices / 1e3);
  printf ("its fields: %u, %.0f bytes\n", n, (gdouble) ours.size);
  printf ("GstClMpegBitWriter: %.2f ns/field\n", t_ours / n);
  printf ("GstBitWriter:       %.2f ns/field\n", t_gst / n);
  printf ("ratio GstBitWriter / GstClMpegBitWriter: %.2f\n", t_gst / t_ours);

  gst_bit_writer_reset (&gst);
  gst_cl_mpeg_bit_writer_clear (&ours);
  gst_cl_mpeg_bit_writer_clear (&slices);
  picture_clear (&p);
  return 0;
}
