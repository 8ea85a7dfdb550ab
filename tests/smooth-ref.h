/* gst-clvideo: plain C reference of clsmooth, for the tests
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#pragma once

#include <glib.h>

G_BEGIN_DECLS

/* Smooths one plane as the element's specification says.
 * @src, @dst: rows of @width pixels of @bpp interleaved 8-bit channels,
 *   @src_stride and @dst_stride bytes apart, @height rows.
 * @smooth_mask: bit c set: channel c is smoothed; clear: copied.
 * @radius: 1..8; @gaussian: binomial weights, else the box. */
void ref_smooth_plane (const guint8 * src, gint src_stride, guint8 * dst,
    gint dst_stride, gint width, gint height, gint bpp, guint smooth_mask,
    gint radius, gboolean gaussian);

G_END_DECLS
