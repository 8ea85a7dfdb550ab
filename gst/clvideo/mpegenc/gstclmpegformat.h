/* gst-clvideo: the disc formats clmpegenc writes for: VCD, SVCD, DVD
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#pragma once

#include <glib.h>
#include "gstclmpegengine.h"

G_BEGIN_DECLS

typedef enum
{
  GST_CL_MPEG_FORMAT_NONE,
  GST_CL_MPEG_FORMAT_VCD,
  GST_CL_MPEG_FORMAT_SVCD,
  GST_CL_MPEG_FORMAT_DVD,
} GstClMpegFormatId;

/* What a format asks of the video stream: its MPEG version, the sizes
 * of its 625-line (25 Hz) and 525-line (29.97 Hz) systems, its rates and
 * VBV buffer, and the longest GOP of each system. */
typedef struct
{
  const gchar *name;
  guint mpeg_version;
  guint cbr_kbps;               /* a constant rate (VCD), else 0 */
  guint peak_kbps;              /* a variable rate's peak, else 0 */
  guint vbv_size;               /* units of 16384 bits */
  guint gop_max_625, gop_max_525;
  /* MPEG-1's constrained parameters (VCD): forward_f_code up to 4 */
  gboolean constrained;
  /* whole-frame sizes, 625 then 525 lines; 0-terminated */
  guint sizes_625[5][2], sizes_525[5][2];
  /* the 525-line system also at 23.976 Hz (VCD's film rate) */
  gboolean film_rate;
} GstClMpegFormat;

/* The format @id, NULL for GST_CL_MPEG_FORMAT_NONE. */
const GstClMpegFormat *gst_cl_mpeg_format_get (GstClMpegFormatId id);

/* Whether @width x @height at @fps_n / @fps_d is one of @f's; sets
 * *@gop_max to its system's longest GOP. If not, *@why (to g_free())
 * names what the format takes. */
gboolean gst_cl_mpeg_format_fits (const GstClMpegFormat * f, guint width,
    guint height, gint fps_n, gint fps_d, guint * gop_max, gchar ** why);

/* @settings as @f has them (with @gop_max from
 * gst_cl_mpeg_format_fits()): its constant rate, or its peak above the
 * bit rate set (at most the peak), its buffer, and a GOP no longer than
 * its longest. */
void gst_cl_mpeg_format_apply (const GstClMpegFormat * f, guint gop_max,
    GstClMpegEngineSettings * settings);

G_END_DECLS
