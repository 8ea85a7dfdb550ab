/* gst-clvideo: plain C reference of clhistogram, for the tests
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#pragma once

#include <glib.h>

G_BEGIN_DECLS

/* Counts the @n samples of @samples into @bins (256, overwritten). */
void ref_histogram (const guint8 * samples, gsize n, guint32 * bins);

typedef struct
{
  guint64 n;                    /* samples counted */
  guint min, max;               /* smallest and largest value present */
  gdouble mean;
  guint p1, p5, p50, p95, p99;  /* percentiles */
} RefHistogramStats;

/* The statistics of the element's messages, from their definitions: the
 * percentile pX is the sample of rank ceil(X * n / 100) (1 = smallest). */
void ref_histogram_stats (const guint32 * bins, RefHistogramStats * st);

G_END_DECLS
