/* gst-clvideo: the disc and broadcast formats clmpegenc writes for: VCD,
 * SVCD, DVD, DVB and ATSC
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * From the formats' published limits: VCD (MPEG-1, 1150 kbit/s constant,
 * a 40 KiB buffer, constrained parameters), SVCD (MPEG-2 main profile at
 * main level, 2600 kbit/s peak, 112 KiB) and DVD-Video (MPEG-2 main
 * profile at main level, 9800 kbit/s peak, 224 KiB), their GOPs of at
 * most 30 fields at 25 Hz and 36 at 29.97 Hz; DVB (ETSI TS 101 154: main
 * profile at main level for 25 Hz SDTV, at most 15 Mbit/s and 224 KiB;
 * main profile at high level for 25 and 50 Hz HDTV, at most 80 Mbit/s and
 * 9781248 bits) and ATSC (A/53 part 4: main profile at high level, the
 * sizes and rates of its table of formats, at most 19.4 Mbit/s and
 * 7995392 bits).
 */
#include "gstclmpegformat.h"

#include "gstclmpegheaders.h"

/* frame_rate_code bits */
#define FILM ((1 << 1) | (1 << 2))      /* 23.976, 24 */
#define HZ25 (1 << 3)
#define HZ30 ((1 << 4) | (1 << 5))      /* 29.97, 30 */
#define NTSC (1 << 4)                   /* 29.97 */
#define HZ50 (1 << 6)
#define HZ60 ((1 << 7) | (1 << 8))      /* 59.94, 60 */

static const GstClMpegFormat formats[] = {
  [GST_CL_MPEG_FORMAT_VCD] = {"VCD", 1, NULL, 1150, 0, 20, 30, 36, TRUE,
      {{352, 288, HZ25, HZ25}, {352, 240, NTSC | (1 << 1), NTSC}}},
  [GST_CL_MPEG_FORMAT_SVCD] = {"SVCD", 2, "main", 0, 2600, 56, 30, 36, FALSE,
      {{480, 576, HZ25, HZ25}, {480, 480, NTSC, NTSC}}},
  [GST_CL_MPEG_FORMAT_DVD] = {"DVD", 2, "main", 0, 9800, 112, 30, 36, FALSE,
        {{720, 576, HZ25, HZ25}, {704, 576, HZ25, HZ25},
          {352, 576, HZ25, HZ25}, {352, 288, HZ25, HZ25},
          {720, 480, NTSC, NTSC}, {704, 480, NTSC, NTSC},
          {352, 480, NTSC, NTSC}, {352, 240, NTSC, NTSC}}},
  [GST_CL_MPEG_FORMAT_DVB] = {"DVB", 2, "main", 0, 15000, 112, 0, 0, FALSE,
        {{720, 576, HZ25, HZ25}, {704, 576, HZ25, HZ25},
          {544, 576, HZ25, HZ25}, {480, 576, HZ25, HZ25},
          {352, 576, HZ25, HZ25}, {352, 288, HZ25, HZ25}}},
  [GST_CL_MPEG_FORMAT_DVB_HD] = {"DVB HD", 2, "high", 0, 80000, 597, 0, 0,
        FALSE, {{1920, 1080, HZ25, HZ25}, {1440, 1080, HZ25, HZ25},
          {1280, 720, HZ25 | HZ50, 0}}},
  [GST_CL_MPEG_FORMAT_ATSC] = {"ATSC", 2, "high", 0, 19400, 488, 0, 0, FALSE,
        {{1920, 1080, FILM | HZ30, HZ30}, {1280, 720, FILM | HZ30 | HZ60, 0},
          {704, 480, FILM | HZ30 | HZ60, HZ30},
          {640, 480, FILM | HZ30 | HZ60, HZ30}}},
};

const GstClMpegFormat *
gst_cl_mpeg_format_get (GstClMpegFormatId id)
{
  if (id <= GST_CL_MPEG_FORMAT_NONE || id >= G_N_ELEMENTS (formats))
    return NULL;
  return &formats[id];
}

/* "23.976, 24 or 30" of the frame_rate_codes in @rates */
static void
append_rates (GString * s, guint rates)
{
  guint code, n = 0, left = 0;

  for (code = 1; code <= 8; code++)
    left += (rates >> code) & 1;

  for (code = 1; code <= 8; code++) {
    gchar text[G_ASCII_DTOSTR_BUF_SIZE];
    gint fps_n, fps_d;

    if (!(rates & (1 << code)))
      continue;
    gst_cl_mpeg_frame_rate (code, &fps_n, &fps_d);
    n++;
    g_string_append_printf (s, "%s%s", n == 1 ? "" : n == left ? " or " :
        ", ", g_ascii_formatd (text, sizeof (text), "%.5g",
            (gdouble) fps_n / fps_d));
  }
  g_string_append (s, " fps");
}

/* What @f takes, sizes of the same rates together: "720x576, 704x576 at
 * 25 fps, or 1280x720 at 50 fps progressive" */
static gchar *
describe_sizes (const GstClMpegFormat * f)
{
  GString *s = g_string_new (NULL);
  guint i;

  for (i = 0; i < G_N_ELEMENTS (f->sizes) && f->sizes[i].width; i++) {
    const GstClMpegFormatSize *z = &f->sizes[i];
    gboolean last = i + 1 == G_N_ELEMENTS (f->sizes) || !z[1].width ||
        z[1].progressive_rates != z->progressive_rates ||
        z[1].interlaced_rates != z->interlaced_rates;

    g_string_append_printf (s, "%ux%u", z->width, z->height);
    if (!last) {
      g_string_append (s, ", ");
      continue;
    }
    g_string_append (s, " at ");
    append_rates (s, z->progressive_rates);
    if (z->interlaced_rates != z->progressive_rates) {
      g_string_append (s, " progressive");
      if (z->interlaced_rates) {
        g_string_append (s, " or ");
        append_rates (s, z->interlaced_rates);
        g_string_append (s, " interlaced");
      }
    }
    if (i + 1 < G_N_ELEMENTS (f->sizes) && z[1].width)
      g_string_append (s, "; ");
  }
  return g_string_free (s, FALSE);
}

gboolean
gst_cl_mpeg_format_fits (const GstClMpegFormat * f, guint width,
    guint height, guint code, gboolean interlaced, gboolean pulldown,
    guint * gop_max, gchar ** why)
{
  guint rate = 1 << code, fields, i;
  gint fps_n, fps_d;
  gchar *sizes;

  fields = rate & (HZ25 | HZ50) ? f->gop_max_fields_25 :
      f->gop_max_fields_30;
  *gop_max = pulldown ? fields * 2 / 5 : fields / 2;
  for (i = 0; i < G_N_ELEMENTS (f->sizes) && f->sizes[i].width; i++)
    if (f->sizes[i].width == width && f->sizes[i].height == height &&
        ((interlaced ? f->sizes[i].interlaced_rates :
                f->sizes[i].progressive_rates) & rate))
      return TRUE;
  gst_cl_mpeg_frame_rate (code, &fps_n, &fps_d);
  sizes = describe_sizes (f);
  *why = g_strdup_printf ("%s video is %s; the input is %ux%u at %d/%d fps "
      "%s", f->name, sizes, width, height, fps_n, fps_d, pulldown ?
      "by 3:2 pulldown (an interlaced sequence)" : interlaced ?
      "interlaced" : "progressive");
  g_free (sizes);
  return FALSE;
}

void
gst_cl_mpeg_format_apply (const GstClMpegFormat * f, guint gop_max,
    gboolean constant, GstClMpegEngineSettings * s)
{
  if (f->cbr_kbps) {
    s->bitrate = f->cbr_kbps;
    s->max_bitrate = 0;
  } else if (constant && s->bitrate > 0) {
    s->bitrate = MIN (s->bitrate, f->peak_kbps);
    s->max_bitrate = 0;
  } else {
    s->bitrate = MIN (s->bitrate, f->peak_kbps);
    s->max_bitrate = f->peak_kbps;
  }
  s->vbv_size = f->vbv_size;
  if (gop_max)
    s->gop_size = MIN (s->gop_size, gop_max);
}
