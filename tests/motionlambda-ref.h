/* gst-clvideo: plain C reference of the rate-constrained motion search
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#pragma once

#include <glib.h>
#include <gst/cl/gstclmotionvector.h>

G_BEGIN_DECLS

/* Smallest f_code (1..7) whose differential range [-16f, 16f - 1] half-pels,
 * f = 2^(f_code - 1), holds every full-pel vector of [-@range, @range - 1]. */
guint ref_lambda_f_code (guint range);

/* Bits MPEG-1 spends on one component of a motion vector whose differential
 * to its predictor is @delta half-pels: motion_code VLC (sign included)
 * plus f_code - 1 residual bits when motion_code is not 0, after the
 * differential is wrapped into [-16f, 16f - 1]. */
guint ref_lambda_component_bits (gint delta, guint f_code);

/* The search, one block after another in raster order: each block takes
 * the candidate (full-pel dx, dy in [-@range, @range - 1], reference block
 * inside the plane) of least SAD + @lambda * (bits (2 dx - px) +
 * bits (2 dy - py)), (px, py) being the vector chosen for the block on its
 * left, or (0, 0) at the start of a row; ties to the smaller |dx| + |dy|,
 * then to the first candidate in raster order. @out: one per block. */
void ref_lambda_search (const guint8 * cur, gsize cur_stride,
    const guint8 * ref, gsize ref_stride, guint width, guint height,
    guint block, guint range, guint lambda, guint f_code,
    GstClMotionVector * out);

G_END_DECLS
