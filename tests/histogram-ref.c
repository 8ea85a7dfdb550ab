/* gst-clvideo: plain C reference of clhistogram, for the tests
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * Written from the element's documentation: one sample at a time, no
 * sub-histograms, no word loads.
 */
#include "histogram-ref.h"

#include <string.h>

void
ref_histogram (const guint8 * samples, gsize n, guint32 * bins)
{
  gsize i;

  memset (bins, 0, 256 * sizeof (guint32));
  for (i = 0; i < n; i++)
    bins[samples[i]]++;
}

/* The value of the sample of rank @rank (1-based) in sorted order. */
static guint
value_of_rank (const guint32 * bins, guint64 rank)
{
  guint64 seen = 0;
  guint v;

  for (v = 0; v < 256; v++) {
    seen += bins[v];
    if (seen >= rank)
      return v;
  }
  return 255;
}

static guint
percentile (const guint32 * bins, guint64 n, guint x)
{
  guint64 rank = ((guint64) x * n + 99) / 100;
  return value_of_rank (bins, rank ? rank : 1);
}

void
ref_histogram_stats (const guint32 * bins, RefHistogramStats * st)
{
  guint64 sum = 0;
  gint v;

  st->n = 0;
  for (v = 0; v < 256; v++) {
    st->n += bins[v];
    sum += (guint64) v * bins[v];
  }
  st->min = 0;
  for (v = 0; v < 256; v++)
    if (bins[v]) {
      st->min = v;
      break;
    }
  st->max = 0;
  for (v = 255; v >= 0; v--)
    if (bins[v]) {
      st->max = v;
      break;
    }
  st->mean = st->n ? (gdouble) sum / (gdouble) st->n : 0.0;
  st->p1 = percentile (bins, st->n, 1);
  st->p5 = percentile (bins, st->n, 5);
  st->p50 = percentile (bins, st->n, 50);
  st->p95 = percentile (bins, st->n, 95);
  st->p99 = percentile (bins, st->n, 99);
}
