/* gst-clvideo: plain C reference of clcontrast, for the tests
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#pragma once

#include <glib.h>

G_BEGIN_DECLS

typedef enum
{
  REF_CONTRAST_STRETCH,
  REF_CONTRAST_EQUALIZE,
} RefContrastMode;

typedef struct
{
  RefContrastMode mode;
  gdouble low_cut, high_cut;    /* percent */
  gdouble smoothing;            /* 0..1 */
} RefContrastParams;

/* The smoothing of one stream. */
typedef struct
{
  gboolean started;             /* FALSE: the next frame starts afresh */
  gint state_lo, state_hi;      /* in 1/256 steps */
} RefContrastState;

typedef struct
{
  gint lo, hi;                  /* stretch points used (smoothed) */
  gint frame_lo, frame_hi;      /* the frame's own */
  gint state_lo, state_hi;      /* the smoothing state after the frame */
  gint min, max;                /* smallest, largest value present */
  gboolean identity;
} RefContrastResult;

/* The lookup table for a frame of @n luma samples with histogram @bins;
 * advances @state (stretch only). */
void ref_contrast_lut (const guint32 * bins, guint64 n,
    const RefContrastParams * params, RefContrastState * state,
    guint8 * lut, RefContrastResult * result);

G_END_DECLS
