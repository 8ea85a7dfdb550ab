/* gst-clvideo: the disc and broadcast formats clmpegenc writes for: VCD,
 * SVCD, DVD, DVB and ATSC
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
  GST_CL_MPEG_FORMAT_DVB,
  GST_CL_MPEG_FORMAT_DVB_HD,
  GST_CL_MPEG_FORMAT_ATSC,
} GstClMpegFormatId;

/* A picture size a format takes, and the frame rates it takes it at:
 * bits 1 << frame_rate_code, for progressive and for interlaced
 * sequences (3:2 pulldown makes one of the latter) */
typedef struct
{
  guint width, height;
  guint progressive_rates, interlaced_rates;
} GstClMpegFormatSize;

/* What a format asks of the video stream: its MPEG version and lowest
 * MPEG-2 level, its rates and VBV buffer, its longest GOP and its sizes. */
typedef struct
{
  const gchar *name;
  guint mpeg_version;
  const gchar *level;           /* MPEG-2: the lowest level signalled */
  guint cbr_kbps;               /* a constant rate (VCD), else 0 */
  guint peak_kbps;              /* a variable rate's peak, else 0 */
  guint vbv_size;               /* units of 16384 bits */
  /* the longest GOP, in fields displayed; 0: no bound */
  guint gop_max_fields_25, gop_max_fields_30;
  /* MPEG-1's constrained parameters (VCD): forward_f_code up to 4 */
  gboolean constrained;
  GstClMpegFormatSize sizes[8]; /* 0-terminated */
} GstClMpegFormat;

/* The format @id, NULL for GST_CL_MPEG_FORMAT_NONE. */
const GstClMpegFormat *gst_cl_mpeg_format_get (GstClMpegFormatId id);

/* Whether @width x @height at frame_rate_code @code, in an interlaced
 * sequence or not, is one of @f's; sets *@gop_max to the longest GOP in
 * pictures (0: any), @pulldown's pictures shown for 2.5 fields on
 * average. If not, *@why (to g_free()) names what the format takes. */
gboolean gst_cl_mpeg_format_fits (const GstClMpegFormat * f, guint width,
    guint height, guint code, gboolean interlaced, gboolean pulldown,
    guint * gop_max, gchar ** why);

/* @settings as @f has them (with @gop_max from
 * gst_cl_mpeg_format_fits()): its constant rate, or its peak above the
 * bit rate set (at most the peak; with @constant the bit rate set stays
 * constant, at most the peak), its buffer, and a GOP no longer than its
 * longest. */
void gst_cl_mpeg_format_apply (const GstClMpegFormat * f, guint gop_max,
    gboolean constant, GstClMpegEngineSettings * settings);

G_END_DECLS
