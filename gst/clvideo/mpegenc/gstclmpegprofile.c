/* gst-clvideo: MPEG-2 video (ISO/IEC 13818-2) profiles and levels
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "gstclmpegprofile.h"

/* the main profile's levels, lowest first */
static const GstClMpeg2Level levels[] = {
  {"low", 10, 352, 288, 5, 3041280, 4000, 475136, 7, 4},
  {"main", 8, 720, 576, 5, 10368000, 15000, 1835008, 8, 5},
  {"high-1440", 6, 1440, 1152, 8, 47001600, 60000, 7340032, 9, 5},
  {"high", 4, 1920, 1152, 8, 62668800, 80000, 9781248, 9, 5},
};
/* the simple profile's one: the main level, with the main profile's
 * bounds */
#define SIMPLE_LEVEL 1

/* the 4:2:2 profile's, with their own bounds: 608 lines at the main level
 * (625-line video with its blanking lines), where 30 Hz keeps to 512 by
 * the luminance rate; the main profile's vector ranges */
static const GstClMpeg2Level levels_422[] = {
  {"main", 5, 720, 608, 5, 11059200, 50000, 9437184, 8, 5},
  {"high", 2, 1920, 1088, 8, 62668800, 300000, 47185920, 9, 5},
};

const GstClMpeg2Level *
gst_cl_mpeg2_levels (guint * n)
{
  *n = G_N_ELEMENTS (levels);
  return levels;
}

const GstClMpeg2Level *
gst_cl_mpeg2_profile_levels (guint profile, guint * n)
{
  switch (profile) {
    case GST_CL_MPEG2_PROFILE_SIMPLE:
      *n = 1;
      return &levels[SIMPLE_LEVEL];
    case GST_CL_MPEG2_PROFILE_422:
      *n = G_N_ELEMENTS (levels_422);
      return levels_422;
    default:
      return gst_cl_mpeg2_levels (n);
  }
}

const GstClMpeg2Level *
gst_cl_mpeg2_profile_level (guint profile, const gchar * name)
{
  guint n, i;
  const GstClMpeg2Level *l = gst_cl_mpeg2_profile_levels (profile, &n);

  for (i = 0; i < n; i++)
    if (g_strcmp0 (l[i].name, name) == 0)
      return &l[i];
  return NULL;
}

const gchar *
gst_cl_mpeg2_profile_name (guint profile)
{
  switch (profile) {
    case GST_CL_MPEG2_PROFILE_SIMPLE:
      return "simple";
    case GST_CL_MPEG2_PROFILE_422:
      return "4:2:2";
    default:
      return "main";
  }
}

gboolean
gst_cl_mpeg2_profile_has_level (guint profile, const GstClMpeg2Level * level)
{
  return gst_cl_mpeg2_profile_level (profile, level->name) != NULL;
}

guint
gst_cl_mpeg2_profile_and_level (guint profile, const GstClMpeg2Level * level)
{
  /* by name: @level may be another profile's of the same name, whose
   * code differs (the 4:2:2 profile's are the low bits of its escape) */
  const GstClMpeg2Level *l = gst_cl_mpeg2_profile_level (profile,
      level->name);

  return l ? profile << 4 | l->code : 0;
}

gboolean
gst_cl_mpeg2_level_fits (const GstClMpeg2Level * level, guint profile,
    guint width, guint height, guint frame_rate_code, gint fps_n, gint fps_d,
    guint kbps, gchar ** why)
{
  /* @profile's bounds, whichever profile's level of that name is given */
  const GstClMpeg2Level *l = gst_cl_mpeg2_profile_level (profile,
      level->name);
  /* the 4:2:2 profile's levels are named as the main profile's: say
   * whose bound it is */
  const gchar *whose = profile == GST_CL_MPEG2_PROFILE_422 ? "4:2:2 " : "";
  guint64 luma_rate = (guint64) width * height * fps_n / MAX (fps_d, 1);
  gchar *reason = NULL;

  if (!l)
    reason = g_strdup_printf ("the %s profile has no %s level",
        gst_cl_mpeg2_profile_name (profile), level->name);
  else if (width > l->max_width || height > l->max_height)
    reason = g_strdup_printf ("%ux%u is larger than the %s%s level's %ux%u",
        width, height, whose, l->name, l->max_width, l->max_height);
  else if (frame_rate_code > l->max_frame_rate_code)
    reason = g_strdup_printf ("%d/%d frames per second are more than the "
        "%s%s level's %s", fps_n, fps_d, whose, l->name,
        l->max_frame_rate_code == 5 ? "30" : "60");
  else if (luma_rate > l->max_luma_rate)
    reason = g_strdup_printf ("%" G_GUINT64_FORMAT " luminance samples per "
        "second are more than the %s%s level's %" G_GUINT64_FORMAT, luma_rate,
        whose, l->name, l->max_luma_rate);
  else if (kbps > l->max_kbps)
    reason = g_strdup_printf ("%u kbit/s are more than the %s%s level's %u",
        kbps, whose, l->name, l->max_kbps);
  if (why)
    *why = reason;
  else
    g_free (reason);
  return reason == NULL;
}
