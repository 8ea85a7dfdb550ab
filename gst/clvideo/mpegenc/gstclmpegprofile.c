/* gst-clvideo: MPEG-2 video (ISO/IEC 13818-2) profiles and levels
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "gstclmpegprofile.h"

static const GstClMpeg2Level levels[] = {
  {"low", 10, 352, 288, 5, 3041280, 4000, 475136, 7, 4},
  {"main", 8, 720, 576, 5, 10368000, 15000, 1835008, 8, 5},
  {"high-1440", 6, 1440, 1152, 8, 47001600, 60000, 7340032, 9, 5},
  {"high", 4, 1920, 1152, 8, 62668800, 80000, 9781248, 9, 5},
};

const GstClMpeg2Level *
gst_cl_mpeg2_levels (guint * n)
{
  *n = G_N_ELEMENTS (levels);
  return levels;
}

const gchar *
gst_cl_mpeg2_profile_name (guint profile)
{
  return profile == GST_CL_MPEG2_PROFILE_SIMPLE ? "simple" : "main";
}

gboolean
gst_cl_mpeg2_profile_has_level (guint profile, const GstClMpeg2Level * level)
{
  /* the simple profile has the main level only */
  return profile != GST_CL_MPEG2_PROFILE_SIMPLE || level->code == 8;
}

gboolean
gst_cl_mpeg2_level_fits (const GstClMpeg2Level * l, guint profile,
    guint width, guint height, guint frame_rate_code, gint fps_n, gint fps_d,
    guint kbps, gchar ** why)
{
  guint64 luma_rate = (guint64) width * height * fps_n / MAX (fps_d, 1);
  gchar *reason = NULL;

  if (!gst_cl_mpeg2_profile_has_level (profile, l))
    reason = g_strdup_printf ("the %s profile has no %s level",
        gst_cl_mpeg2_profile_name (profile), l->name);
  else if (width > l->max_width || height > l->max_height)
    reason = g_strdup_printf ("%ux%u is larger than the %s level's %ux%u",
        width, height, l->name, l->max_width, l->max_height);
  else if (frame_rate_code > l->max_frame_rate_code)
    reason = g_strdup_printf ("%d/%d frames per second are more than the "
        "%s level's %s", fps_n, fps_d, l->name,
        l->max_frame_rate_code == 5 ? "30" : "60");
  else if (luma_rate > l->max_luma_rate)
    reason = g_strdup_printf ("%" G_GUINT64_FORMAT " luminance samples per "
        "second are more than the %s level's %" G_GUINT64_FORMAT, luma_rate,
        l->name, l->max_luma_rate);
  else if (kbps > l->max_kbps)
    reason = g_strdup_printf ("%u kbit/s are more than the %s level's %u",
        kbps, l->name, l->max_kbps);
  if (why)
    *why = reason;
  else
    g_free (reason);
  return reason == NULL;
}
