/* gst-clvideo: PSNR and I420 / y4m reading
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "psnr.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

guint64
psnr_plane_sse (const guint8 * a, gint stride_a, const guint8 * b,
    gint stride_b, guint width, guint height)
{
  guint64 sse = 0;
  guint x, y;

  for (y = 0; y < height; y++) {
    const guint8 *ra = a + (gsize) y * stride_a;
    const guint8 *rb = b + (gsize) y * stride_b;
    guint32 row = 0;            /* 255^2 * 4096 columns still fits */
    for (x = 0; x < width; x++) {
      gint d = (gint) ra[x] - (gint) rb[x];
      row += (guint32) (d * d);
      if ((x & 4095) == 4095) {
        sse += row;
        row = 0;
      }
    }
    sse += row;
  }
  return sse;
}

gdouble
psnr_from_mse (gdouble mse)
{
  if (mse <= 0)
    return INFINITY;
  return 10.0 * log10 (255.0 * 255.0 / mse);
}

gsize
psnr_i420_size (guint width, guint height)
{
  gsize cw = (width + 1) / 2, ch = (height + 1) / 2;
  return (gsize) width * height + 2 * cw * ch;
}

void
psnr_i420_mse (const guint8 * a, const guint8 * b, guint width,
    guint height, gdouble mse[3])
{
  guint cw = (width + 1) / 2, ch = (height + 1) / 2;
  gsize y_size = (gsize) width * height, c_size = (gsize) cw * ch;

  mse[0] = psnr_plane_sse (a, width, b, width, width, height) /
      (gdouble) y_size;
  mse[1] = psnr_plane_sse (a + y_size, cw, b + y_size, cw, cw, ch) /
      (gdouble) c_size;
  mse[2] = psnr_plane_sse (a + y_size + c_size, cw, b + y_size + c_size, cw,
      cw, ch) / (gdouble) c_size;
}

void
psnr_i420_worst_macroblock (const guint8 * a, const guint8 * b, guint width,
    guint height, PsnrMacroblock * worst)
{
  psnr_planar_worst_macroblock (a, b, width, height, FALSE, worst);
}

void
psnr_planar_worst_macroblock (const guint8 * a, const guint8 * b,
    guint width, guint height, gboolean chroma_422, PsnrMacroblock * worst)
{
  /* chroma lines of a macroblock, of a plane */
  guint cr = chroma_422 ? 16 : 8;
  guint cw = (width + 1) / 2, ch = chroma_422 ? height : (height + 1) / 2;
  gsize y_size = (gsize) width * height, c_size = (gsize) cw * ch;
  guint mx, my, p;

  memset (worst, 0, sizeof (*worst));
  for (my = 0; my < (height + 15) / 16; my++) {
    for (mx = 0; mx < (width + 15) / 16; mx++) {
      /* the part of the macroblock inside the picture, in each plane */
      guint w = MIN (16, width - mx * 16), h = MIN (16, height - my * 16);
      guint cx = mx * 8, cy = my * cr;
      guint wc = MIN (8, cw - cx), hc = MIN (cr, ch - cy);
      gdouble mse[3];

      mse[0] = psnr_plane_sse (a + (gsize) my * 16 * width + mx * 16, width,
          b + (gsize) my * 16 * width + mx * 16, width, w, h) /
          (gdouble) (w * h);
      for (p = 1; p < 3; p++) {
        gsize off = y_size + (p - 1) * c_size + (gsize) cy * cw + cx;
        mse[p] = psnr_plane_sse (a + off, cw, b + off, cw, wc, hc) /
            (gdouble) (wc * hc);
      }
      for (p = 0; p < 3; p++) {
        if (mse[p] > worst->mse) {
          worst->mse = mse[p];
          worst->plane = p;
          worst->mb_x = mx;
          worst->mb_y = my;
        }
      }
    }
  }
}

/* A line up to '\n' (not kept), at most @max - 1 bytes; FALSE at EOF. */
static gboolean
read_line (FILE * f, gchar * buf, gsize max, gboolean * too_long)
{
  gsize n = 0;
  gint c;

  *too_long = FALSE;
  while ((c = fgetc (f)) != EOF && c != '\n') {
    if (n + 1 < max)
      buf[n++] = c;
    else
      *too_long = TRUE;
  }
  buf[n] = 0;
  return c == '\n' || n > 0;
}

static gboolean
parse_y4m_header (YuvReader * r, const gchar * line, GError ** error)
{
  gchar **tokens = g_strsplit (line, " ", -1);
  gboolean ok = TRUE;
  guint i;

  for (i = 1; tokens[i] && ok; i++) {
    const gchar *t = tokens[i];
    switch (t[0]) {
      case 'W':
        r->width = atoi (t + 1);
        break;
      case 'H':
        r->height = atoi (t + 1);
        break;
      case 'F':
        if (sscanf (t + 1, "%d:%d", &r->fps_n, &r->fps_d) != 2)
          r->fps_n = r->fps_d = 0;
        break;
      case 'C':
        if (!g_str_has_prefix (t + 1, "420")) {
          g_set_error (error, G_FILE_ERROR, G_FILE_ERROR_INVAL,
              "%s: colour space %s is not 4:2:0 8-bit", r->name, t + 1);
          ok = FALSE;
        }
        break;
      default:
        break;
    }
  }
  g_strfreev (tokens);
  if (ok && (r->width == 0 || r->height == 0)) {
    g_set_error (error, G_FILE_ERROR, G_FILE_ERROR_INVAL,
        "%s: y4m header without a size", r->name);
    ok = FALSE;
  }
  return ok;
}

YuvReader *
yuv_reader_open (const gchar * path, guint width, guint height,
    GError ** error)
{
  YuvReader *r = g_new0 (YuvReader, 1);
  gchar magic[10];
  gsize n;

  r->name = g_strdup (path);
  if (strcmp (path, "-") == 0) {
    r->file = stdin;
  } else {
    r->file = fopen (path, "rb");
    if (!r->file) {
      g_set_error (error, G_FILE_ERROR, g_file_error_from_errno (errno),
          "%s: %s", path, g_strerror (errno));
      yuv_reader_close (r);
      return NULL;
    }
  }

  /* the magic, then the rest of the header line */
  n = fread (magic, 1, sizeof (magic), r->file);
  if (n == sizeof (magic) && memcmp (magic, "YUV4MPEG2 ", 10) == 0) {
    gchar line[4096];
    gboolean too_long;
    r->y4m = TRUE;
    if (!read_line (r->file, line + 10, sizeof (line) - 10, &too_long) ||
        too_long) {
      g_set_error (error, G_FILE_ERROR, G_FILE_ERROR_INVAL,
          "%s: bad y4m header", path);
      yuv_reader_close (r);
      return NULL;
    }
    memcpy (line, magic, 10);
    if (!parse_y4m_header (r, line, error)) {
      yuv_reader_close (r);
      return NULL;
    }
  } else {
    if (width == 0 || height == 0) {
      g_set_error (error, G_FILE_ERROR, G_FILE_ERROR_INVAL,
          "%s: not a y4m file, and no size given for raw I420", path);
      yuv_reader_close (r);
      return NULL;
    }
    r->width = width;
    r->height = height;
    /* the bytes read are the start of the first frame: put them back
     * through a seek, or refuse a pipe */
    if (n && fseek (r->file, 0, SEEK_SET) != 0) {
      g_set_error (error, G_FILE_ERROR, G_FILE_ERROR_INVAL,
          "%s: raw I420 must be a regular file (y4m may be a pipe)", path);
      yuv_reader_close (r);
      return NULL;
    }
  }
  r->frame_size = psnr_i420_size (r->width, r->height);
  return r;
}

gint
yuv_reader_read (YuvReader * r, guint8 * frame, GError ** error)
{
  gsize n;

  if (r->y4m) {
    gchar line[4096];
    gboolean too_long;
    if (!read_line (r->file, line, sizeof (line), &too_long))
      return 0;
    if (!g_str_has_prefix (line, "FRAME")) {
      g_set_error (error, G_FILE_ERROR, G_FILE_ERROR_INVAL,
          "%s: expected a FRAME header", r->name);
      return -1;
    }
  }
  n = fread (frame, 1, r->frame_size, r->file);
  if (n == 0 && !r->y4m)
    return 0;
  if (n != r->frame_size) {
    g_set_error (error, G_FILE_ERROR, G_FILE_ERROR_INVAL,
        "%s: truncated frame (%" G_GSIZE_FORMAT " of %" G_GSIZE_FORMAT
        " bytes)", r->name, n, r->frame_size);
    return -1;
  }
  return 1;
}

void
yuv_reader_close (YuvReader * r)
{
  if (!r)
    return;
  if (r->file && r->file != stdin)
    fclose (r->file);
  g_free (r->name);
  g_free (r);
}
