/* gst-clvideo benchmark: full-search block matching on the host
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#pragma once

#include <glib.h>

G_BEGIN_DECLS

/* The layout of GstClMotionVector: half-pel units, SAD of the choice. */
typedef struct
{
  gint16 dx, dy;
  guint32 sad;
} SadVector;

/* The instruction set the search runs with on this CPU: "avx2", "sse2"
 * or "scalar" (chosen at run time). */
const gchar *sad_search_isa (void);

/* Full search of every @block x @block block of @cur (a @width x @height
 * plane) over dx, dy in [-@range, @range - 1] in @ref, with the element's
 * rules (candidates inside the plane only, SAD over visible samples, ties to
 * the smaller |dx| + |dy| then raster order). Writes the grid's vectors in
 * raster order into @out, spreading block rows over @threads threads. */
void sad_search_full (const guint8 * cur, gsize cur_stride,
    const guint8 * ref, gsize ref_stride, guint width, guint height,
    guint block, guint range, guint threads, SadVector * out);

G_END_DECLS
