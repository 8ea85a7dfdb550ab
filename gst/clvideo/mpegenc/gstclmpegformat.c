/* gst-clvideo: the disc formats clmpegenc writes for: VCD, SVCD, DVD
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * From the formats' published limits: VCD (MPEG-1, 1150 kbit/s constant,
 * a 40 KiB buffer, constrained parameters), SVCD (MPEG-2 main profile at
 * main level, 2600 kbit/s peak, 112 KiB) and DVD-Video (MPEG-2 main
 * profile at main level, 9800 kbit/s peak, 224 KiB); GOPs of at most 15
 * frames at 25 Hz and 18 at 29.97 Hz.
 */
#include "gstclmpegformat.h"

static const GstClMpegFormat formats[] = {
  [GST_CL_MPEG_FORMAT_VCD] = {"VCD", 1, 1150, 0, 20, 15, 18, TRUE,
      {{352, 288}}, {{352, 240}}, TRUE},
  [GST_CL_MPEG_FORMAT_SVCD] = {"SVCD", 2, 0, 2600, 56, 15, 18, FALSE,
      {{480, 576}}, {{480, 480}}, FALSE},
  [GST_CL_MPEG_FORMAT_DVD] = {"DVD", 2, 0, 9800, 112, 15, 18, FALSE,
        {{720, 576}, {704, 576}, {352, 576}, {352, 288}},
      {{720, 480}, {704, 480}, {352, 480}, {352, 240}}, FALSE},
};

const GstClMpegFormat *
gst_cl_mpeg_format_get (GstClMpegFormatId id)
{
  if (id <= GST_CL_MPEG_FORMAT_NONE || id >= G_N_ELEMENTS (formats))
    return NULL;
  return &formats[id];
}

/* Whether @w x @h is among @sizes; appends them to @names */
static gboolean
size_listed (const guint (*sizes)[2], guint w, guint h, GString * names)
{
  gboolean found = FALSE;
  guint i;

  for (i = 0; i < 5 && sizes[i][0]; i++) {
    found |= sizes[i][0] == w && sizes[i][1] == h;
    g_string_append_printf (names, "%s%ux%u", i ? ", " : "", sizes[i][0],
        sizes[i][1]);
  }
  return found;
}

gboolean
gst_cl_mpeg_format_fits (const GstClMpegFormat * f, guint width,
    guint height, gint fps_n, gint fps_d, guint * gop_max, gchar ** why)
{
  gboolean rate_625 = (gint64) fps_n == 25LL * fps_d;
  gboolean rate_525 = (gint64) fps_n * 1001 == 30000LL * fps_d ||
      (f->film_rate && (gint64) fps_n * 1001 == 24000LL * fps_d);
  GString *names_625 = g_string_new (NULL), *names_525 = g_string_new (NULL);
  gboolean fits;

  fits = (size_listed (f->sizes_625, width, height, names_625) && rate_625)
      | (size_listed (f->sizes_525, width, height, names_525) && rate_525);
  *gop_max = rate_625 ? f->gop_max_625 : f->gop_max_525;
  if (!fits)
    *why = g_strdup_printf ("%s video is %s at 25 fps, or %s at 29.97 "
        "fps%s; the input is %ux%u at %d/%d fps", f->name, names_625->str,
        names_525->str, f->film_rate ? " or 23.976 fps" : "", width, height,
        fps_n, fps_d);
  g_string_free (names_625, TRUE);
  g_string_free (names_525, TRUE);
  return fits;
}

void
gst_cl_mpeg_format_apply (const GstClMpegFormat * f, guint gop_max,
    GstClMpegEngineSettings * s)
{
  if (f->cbr_kbps) {
    s->bitrate = f->cbr_kbps;
    s->max_bitrate = 0;
  } else {
    s->bitrate = MIN (s->bitrate, f->peak_kbps);
    s->max_bitrate = f->peak_kbps;
  }
  s->vbv_size = f->vbv_size;
  s->gop_size = MIN (s->gop_size, gop_max);
}
