/* gst-clvideo: MPEG-2 video (ISO/IEC 13818-2) profiles and levels
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#pragma once

#include <glib.h>

G_BEGIN_DECLS

/* profile_and_level_indication's profile bits (13818-2 table 8-2) */
#define GST_CL_MPEG2_PROFILE_MAIN 4
#define GST_CL_MPEG2_PROFILE_SIMPLE 5

/* The bounds of one level for the simple and main profiles (13818-2
 * tables 8-10 to 8-13). */
typedef struct
{
  const gchar *name;            /* as caps name it: "low", "main", ... */
  guint code;                   /* the level's bits of
                                 * profile_and_level_indication */
  guint max_width, max_height;
  guint max_frame_rate_code;    /* 5 (30 Hz) or 8 (60 Hz) */
  guint64 max_luma_rate;        /* luminance samples per second */
  guint max_kbps;               /* bit rate, 1000 bit/s */
  guint max_vbv_bits;
  guint max_f_code_h, max_f_code_v;
} GstClMpeg2Level;

/* The levels, lowest first, *@n of them. */
const GstClMpeg2Level *gst_cl_mpeg2_levels (guint * n);
/* The name caps give @profile ("simple", "main"). */
const gchar *gst_cl_mpeg2_profile_name (guint profile);

/* Whether @profile has @level at all. */
gboolean gst_cl_mpeg2_profile_has_level (guint profile,
    const GstClMpeg2Level * level);

/* Whether @width x @height at @fps_n / @fps_d (frame_rate_code
 * @frame_rate_code) and a peak of @kbps (0: none asked) keep within
 * @level in @profile; if not, *@why (when not NULL) says which bound is
 * passed, to g_free(). */
gboolean gst_cl_mpeg2_level_fits (const GstClMpeg2Level * level,
    guint profile, guint width, guint height, guint frame_rate_code,
    gint fps_n, gint fps_d, guint kbps, gchar ** why);

G_END_DECLS
