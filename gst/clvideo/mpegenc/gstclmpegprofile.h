/* gst-clvideo: MPEG-2 video (ISO/IEC 13818-2) profiles and levels
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#pragma once

#include <glib.h>

G_BEGIN_DECLS

/* profile_and_level_indication's profile bits (13818-2 table 8-2) */
#define GST_CL_MPEG2_PROFILE_MAIN 4
#define GST_CL_MPEG2_PROFILE_SIMPLE 5
/* The 4:2:2 profile (13818-2 clause 8, from its amendment 2) has no
 * profile bits: its profile_and_level_indication is an escaped code, 0x85
 * at the main level and 0x82 at the high one. 8 is their upper four bits
 * (the escape bit, profile bits 000), so that no profile's bits equal it
 * and profile << 4 | level code is the indication here too. */
#define GST_CL_MPEG2_PROFILE_422 8

/* The bounds of one level in one profile (13818-2 tables 8-10 to 8-13). */
typedef struct
{
  const gchar *name;            /* as caps name it: "low", "main", ... */
  /* the level's bits of profile_and_level_indication; in the 4:2:2
   * profile the low four of its escape (5: main, 2: high) */
  guint code;
  guint max_width, max_height;
  guint max_frame_rate_code;    /* 5 (30 Hz) or 8 (60 Hz) */
  guint64 max_luma_rate;        /* luminance samples per second */
  guint max_kbps;               /* bit rate, 1000 bit/s */
  guint max_vbv_bits;
  guint max_f_code_h, max_f_code_v;
} GstClMpeg2Level;

/* The main profile's levels (the simple profile's main level among
 * them), lowest first, *@n of them. */
const GstClMpeg2Level *gst_cl_mpeg2_levels (guint * n);
/* The levels @profile has, lowest first, *@n of them, with its bounds:
 * the main profile's four (as gst_cl_mpeg2_levels()), the simple
 * profile's main level, the 4:2:2 profile's main and high levels (its
 * own sizes, rates and buffers). The level an encoder keeps to is one of
 * these. */
const GstClMpeg2Level *gst_cl_mpeg2_profile_levels (guint profile,
    guint * n);
/* The level named @name ("low", "main", "high-1440", "high") of
 * @profile, as gst_cl_mpeg2_profile_levels() has it; NULL where @profile
 * has none of that name. */
const GstClMpeg2Level *gst_cl_mpeg2_profile_level (guint profile,
    const gchar * name);
/* The name caps give @profile ("simple", "main", "4:2:2"). */
const gchar *gst_cl_mpeg2_profile_name (guint profile);

/* Whether @profile has a level named as @level (of any profile's
 * levels). */
gboolean gst_cl_mpeg2_profile_has_level (guint profile,
    const GstClMpeg2Level * level);

/* profile_and_level_indication, all eight bits, of @profile at the level
 * named as @level (of any profile's levels): profile << 4 | level code,
 * 0x85 and 0x82 for the 4:2:2 profile. 0 (no profile) where @profile has
 * no such level. */
guint gst_cl_mpeg2_profile_and_level (guint profile,
    const GstClMpeg2Level * level);

/* Whether @width x @height at @fps_n / @fps_d (frame_rate_code
 * @frame_rate_code) and a peak of @kbps (0: none asked) keep within
 * @profile's level named as @level (of any profile's levels: the bounds
 * are @profile's); if not, *@why (when not NULL) says which bound is
 * passed, to g_free(). */
gboolean gst_cl_mpeg2_level_fits (const GstClMpeg2Level * level,
    guint profile, guint width, guint height, guint frame_rate_code,
    gint fps_n, gint fps_d, guint kbps, gchar ** why);

G_END_DECLS
