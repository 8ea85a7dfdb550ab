/* gst-clvideo: plain C reference of clcontrast, for the tests
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * Written from the element's specification, with the cumulative counts
 * summed afresh for every value and the searches done as plain loops
 * from either end; nothing shared with the prefix-sum kernel.
 */
#include "contrast-ref.h"

#include <math.h>

/* pixels with value <= v; cum(-1) = 0 */
static guint64
cum (const guint32 * bins, gint v)
{
  guint64 c = 0;
  gint i;
  for (i = 0; i <= v; i++)
    c += bins[i];
  return c;
}

static void
stretch (const guint32 * bins, guint64 n, const RefContrastParams * p,
    RefContrastState * st, guint8 * lut, RefContrastResult * res)
{
  guint64 nlow = (guint64) floor ((gdouble) n * p->low_cut / 100.0);
  guint64 nhigh = (guint64) floor ((gdouble) n * p->high_cut / 100.0);
  gint sq = (gint) lround (p->smoothing * 256.0);
  gint lo = 0, hi = 255, v;

  for (v = 0; v < 256; v++)
    if (cum (bins, v) > nlow) {
      lo = v;
      break;
    }
  for (v = 255; v >= 0; v--)
    if (n - cum (bins, v - 1) > nhigh) {
      hi = v;
      break;
    }
  res->frame_lo = lo;
  res->frame_hi = hi;

  if (!st->started) {
    st->state_lo = lo * 256;
    st->state_hi = hi * 256;
    st->started = TRUE;
  } else {
    st->state_lo = (sq * st->state_lo + (256 - sq) * lo * 256 + 128) / 256;
    st->state_hi = (sq * st->state_hi + (256 - sq) * hi * 256 + 128) / 256;
  }
  res->state_lo = st->state_lo;
  res->state_hi = st->state_hi;
  lo = (st->state_lo + 128) / 256;
  hi = (st->state_hi + 128) / 256;
  res->lo = lo;
  res->hi = hi;
  res->identity = hi <= lo;

  for (v = 0; v < 256; v++) {
    if (res->identity)
      lut[v] = v;
    else if (v < lo)
      lut[v] = 0;
    else if (v > hi)
      lut[v] = 255;
    else
      lut[v] = ((v - lo) * 510 + (hi - lo)) / (2 * (hi - lo));
  }
}

static void
equalize (const guint32 * bins, guint64 n, guint8 * lut,
    RefContrastResult * res)
{
  guint64 cmin = cum (bins, res->min);
  gint v;

  res->identity = n == cmin;
  for (v = 0; v < 256; v++) {
    if (res->identity)
      lut[v] = v;
    else if (v < res->min)
      lut[v] = 0;
    else
      lut[v] = ((cum (bins, v) - cmin) * 510 + (n - cmin)) /
          (2 * (n - cmin));
  }
}

void
ref_contrast_lut (const guint32 * bins, guint64 n,
    const RefContrastParams * params, RefContrastState * state,
    guint8 * lut, RefContrastResult * result)
{
  gint v;

  result->min = 0;
  for (v = 0; v < 256; v++)
    if (bins[v]) {
      result->min = v;
      break;
    }
  result->max = 255;
  for (v = 255; v >= 0; v--)
    if (bins[v]) {
      result->max = v;
      break;
    }
  result->lo = result->frame_lo = 0;
  result->hi = result->frame_hi = 255;
  if (params->mode == REF_CONTRAST_STRETCH)
    stretch (bins, n, params, state, lut, result);
  else
    equalize (bins, n, lut, result);
}
