/* gst-clvideo: plain C reference of clsmooth, for the tests
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * Written from the element's specification alone: each output sample is
 * the weighted sum of its (2r+1)^2 neighbours, taken one at a time with
 * clamped coordinates, in 64 bits, then rounded once. Nothing is
 * separable, running or tiled here, so it shares no structure with the
 * OpenCL kernels it checks.
 */
#include "smooth-ref.h"

static inline gint
clampi (gint v, gint lo, gint hi)
{
  return v < lo ? lo : (v > hi ? hi : v);
}

void
ref_smooth_plane (const guint8 * src, gint src_stride, guint8 * dst,
    gint dst_stride, gint width, gint height, gint bpp, guint smooth_mask,
    gint radius, gboolean gaussian)
{
  const gint taps = 2 * radius + 1;
  guint64 w[2 * 8 + 1], total, sum;
  gint x, y, c, i, j;

  g_assert (radius >= 1 && radius <= 8);

  /* 1D weights: all ones, or row 2r of Pascal's triangle */
  for (i = 0; i < taps; i++)
    w[i] = gaussian ? 0 : 1;
  if (gaussian) {
    w[0] = 1;
    for (j = 1; j < taps; j++)
      for (i = j; i > 0; i--)
        w[i] += w[i - 1];
  }
  total = 0;
  for (j = 0; j < taps; j++)
    for (i = 0; i < taps; i++)
      total += w[j] * w[i];
  /* S: (2r+1)^2 for the box, 2^4r for the binomial kernel */
  g_assert (total == (gaussian ? G_GUINT64_CONSTANT (1) << (4 * radius) :
          (guint64) taps * taps));

  for (y = 0; y < height; y++) {
    guint8 *out = dst + (gsize) y * dst_stride;
    for (x = 0; x < width; x++) {
      for (c = 0; c < bpp; c++) {
        if (!(smooth_mask & (1u << c))) {
          out[x * bpp + c] = src[(gsize) y * src_stride + x * bpp + c];
          continue;
        }
        sum = 0;
        for (j = 0; j < taps; j++) {
          const guint8 *row = src +
              (gsize) clampi (y + j - radius, 0, height - 1) * src_stride;
          for (i = 0; i < taps; i++)
            sum += w[j] * w[i] *
                row[clampi (x + i - radius, 0, width - 1) * bpp + c];
        }
        out[x * bpp + c] = (guint8) ((sum + total / 2) / total);
      }
    }
  }
}
