/* gst-clvideo: clmpegenc on adversarial content, checked to each
 * macroblock
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * Content that is ordinary in practice but meets the arithmetic's limits:
 * all-zero and all-255 planes, black and white full-range RGB through
 * clcolorlowpass, the legal range's ends, noise with black and saturated
 * areas that move, sharp edges, flat areas, letterbox bars, scene cuts,
 * odd sizes, and every property of the encoder at its extremes, in MPEG-1
 * and MPEG-2, and in MPEG-2's 4:2:2 profile from Y42B. Each case is
 * encoded twice, in the CPU and in the GPU kernel layout (one
 * gst-launch-1.0 process each, GST_CL_LAYOUT), and:
 *
 * - the two streams must be the same bytes;
 * - tests/mpegcheck.c checks the stream (structure, every macroblock,
 *   the VBV model);
 * - FFmpeg and libmpeg2 (mpeg2dec) decode it, and the mean squared error
 *   of each macroblock of each plane against what the encoder was given
 *   must stay within a bound set by FFmpeg's own encoder on the same
 *   frames at the same quantiser: a frame's mean PSNR would hide one
 *   broken block.
 *
 * Needs ffmpeg and mpeg2dec; skipped (77) without them. Environment:
 * CORPUS_KEEP: the files stay in /tmp/clvideo-corpus-*;
 * CORPUS_STREAMS=DIR: the streams written to DIR/NAME-LAYOUT.m1v (.m2v),
 *   the layouts compared and the streams checked, nothing decoded (no
 *   decoder needed: for a device machine, whose streams are then compared
 *   with POCL's);
 * CORPUS_EXTRA_PROPS: properties for clmpegenc after each case's own
 *   (motion-method=hierarchical makes a GPU's vectors a CPU's);
 * CORPUS_CASES=NAME,NAME: only those cases (the others pass at once);
 * CORPUS_CHROMA=420 or 422: only the cases of that chroma format (the
 *   4:2:2 ones are a kernel build of their own: the suite runs them as a
 *   test of their own, beside the others).
 */
#include <gst/check/gstcheck.h>
#include <glib/gstdio.h>
#include <math.h>
#include <string.h>

#include "mpegcheck.h"
#include "psnr.h"
#include "testutil.h"

static gchar *tmpdir;

/* ---- content ---- */

typedef enum
{
  CONTENT_ZERO,                 /* every plane 0: below the legal range */
  CONTENT_FULL,                 /* every plane 255 */
  CONTENT_LEGAL_ENDS,           /* 16 / 235 luma, 16 / 240 chroma, moving */
  CONTENT_NOISE_HOLES,          /* noise, with 0 and 255 areas moving */
  CONTENT_EDGES,                /* sharp 0 / 255 edges, moving */
  CONTENT_FLAT,                 /* a flat grey with a faint ramp */
  CONTENT_LETTERBOX,            /* texture between black bars, panning */
  CONTENT_CUTS,                 /* three unrelated scenes */
  CONTENT_RGB_BLACK_WHITE,      /* RGBx: black and white, full range */
  CONTENT_LOW_CONTRAST,         /* texture in 100..140, for clcontrast */
} Content;

static guint8
texture (gint x, gint y, guint seed)
{
  guint32 g = (guint32) x * 0x9e3779b1u ^ ((guint32) y * 0x85ebca77u + seed);
  gdouble v;

  g ^= g >> 16;
  g *= 0x7feb352du;
  g ^= g >> 15;
  v = 120 + 60 * sin (x * 0.07 + seed) * cos (y * 0.045) +
      30 * sin ((x + 2 * y) * 0.031) + (gint) (g % 13) - 6;
  return (guint8) CLAMP ((gint) v, 0, 255);
}

/* sample (x, y) of plane @c (0 Y, 1 U, 2 V) of frame @t; @chroma_422:
 * chroma of full height */
static guint8
sample (Content content, guint c, gint x, gint y, guint t, guint w, guint h,
    gboolean chroma_422, guint32 * rng)
{
  /* the plane's own size */
  guint pw = c ? (w + 1) / 2 : w, ph = c && !chroma_422 ? (h + 1) / 2 : h;
  /* chroma samples cover two luma ones across (4:2:2), or each way */
  guint s = c ? 2 : 1, sy = c && !chroma_422 ? 2 : 1;

  switch (content) {
    case CONTENT_ZERO:
      return 0;
    case CONTENT_FULL:
      return 255;
    case CONTENT_LEGAL_ENDS:{
      gboolean hi = (((x * s + 3 * t) / 16) + ((y * sy + t) / 16)) % 2;
      return c ? (hi ? 240 : 16) : (hi ? 235 : 16);
    }
    case CONTENT_NOISE_HOLES:{
      /* a 16x8 black area and a 16x8 white one, 16 pixels a frame */
      gint bx = (gint) ((16 * t) % MAX (pw * s, 16)), by = 64 % MAX (h, 1);
      gint wx = (gint) (pw * s) - 16 - bx, wy = (gint) (h / 2);
      gint X = x * s, Y = y * sy;
      if (X >= bx && X < bx + 16 && Y >= by && Y < by + 8)
        return 0;
      if (X >= wx && X < wx + 16 && Y >= wy && Y < wy + 8)
        return 255;
      return (guint8) test_rng_next (rng);
    }
    case CONTENT_EDGES:{
      gint X = x * s + 3 * (gint) t, Y = y * sy + 2 * (gint) t;
      if (c)
        return ((X / 24) % 2) ? 16 : 240;
      return ((X / 13 + Y / 11) % 2) ^ (X + Y > (gint) (w + h) / 2) ?
          255 : 0;
    }
    case CONTENT_FLAT:
      return c ? 128 : (guint8) (128 + (x * 4) / MAX (pw, 1));
    case CONTENT_LETTERBOX:{
      /* bars of an eighth of the height, black as 0 (as many players'
       * full-range sources give) */
      guint bar = ph / 8;
      if ((guint) y < bar || (guint) y >= ph - bar)
        return c ? 128 : 0;
      return texture (x * s + 2 * (gint) t, y * sy + (gint) t, c);
    }
    case CONTENT_CUTS:
      /* a new unrelated scene every four frames */
      return texture (x * s + 50 * (gint) (t / 4), y * sy, c + 7 * (t / 4));
    case CONTENT_LOW_CONTRAST:
      return c ? 128 : (guint8) (100 + texture (x + (gint) t, y, 0) * 40 /
          255);
    case CONTENT_RGB_BLACK_WHITE:
      break;
  }
  g_assert_not_reached ();
  return 0;
}

/* Bytes of a tightly packed planar frame: I420, or Y42B (@chroma_422) */
static gsize
planar_size (guint w, guint h, gboolean chroma_422)
{
  return chroma_422 ? (gsize) w * h + 2 * (gsize) ((w + 1) / 2) * h :
      psnr_i420_size (w, h);
}

/* @n frames of @content, raw I420 (Y42B where @chroma_422; RGBx for the
 * RGB content) */
static gchar *
write_source (Content content, guint w, guint h, guint n,
    gboolean chroma_422, const gchar * name)
{
  gchar *path = g_build_filename (tmpdir, name, NULL);
  FILE *f = g_fopen (path, "wb");
  guint32 rng = test_seed ("corpus", content * 1000 + w + h);
  guint t, c;
  gint x, y;

  fail_unless (f != NULL);
  for (t = 0; t < n; t++) {
    if (content == CONTENT_RGB_BLACK_WHITE) {
      /* halves of black and white that swap every other frame, and a
       * white square moving over the black */
      for (y = 0; y < (gint) h; y++)
        for (x = 0; x < (gint) w; x++) {
          gboolean white = ((x < (gint) w / 2) ^ (t / 2 % 2)) ||
              (x >= (gint) (5 * t % w) && x < (gint) (5 * t % w) + 20 &&
              y >= 8 && y < 28);
          guint8 px[4] = { white ? 255 : 0, white ? 255 : 0,
            white ? 255 : 0, 255
          };
          fwrite (px, 1, 4, f);
        }
      continue;
    }
    for (c = 0; c < 3; c++) {
      guint pw = c ? (w + 1) / 2 : w;
      guint ph = c && !chroma_422 ? (h + 1) / 2 : h;
      for (y = 0; y < (gint) ph; y++)
        for (x = 0; x < (gint) pw; x++) {
          guint8 v = sample (content, c, x, y, t, w, h, chroma_422, &rng);
          fputc (v, f);
        }
    }
  }
  fclose (f);
  return path;
}

/* ---- the cases ---- */

typedef enum
{
  CHAIN_I420,                   /* raw I420 straight into clmpegenc */
  CHAIN_I420_INTERLACED,        /* the same, as interlaced frames (TFF) */
  CHAIN_I420_FILM,              /* the same at 23.976 fps (for pulldown) */
  CHAIN_RGB_FULL,               /* RGBx ! clcolorlowpass range=full */
  CHAIN_CONTRAST,               /* I420 ! clcontrast (stretch to 0..255) */
  CHAIN_Y42B,                   /* raw Y42B (4:2:2) straight into clmpegenc */
  CHAIN_Y42B_INTERLACED,        /* the same, as interlaced frames (TFF) */
} Chain;

typedef struct
{
  const gchar *name;
  Content content;
  guint w, h, frames;
  Chain chain;
  const gchar *props;           /* clmpegenc's */
  guint mpeg2;                  /* 1: downstream asks for MPEG-2 */
} CorpusCase;

static const CorpusCase cases[] = {
  {"zero", CONTENT_ZERO, 64, 48, 6, CHAIN_I420, "quantizer=4", 0},
  {"full", CONTENT_FULL, 64, 48, 6, CHAIN_I420, "quantizer=4", 0},
  {"legal-ends", CONTENT_LEGAL_ENDS, 96, 64, 8, CHAIN_I420, "quantizer=2", 0},
  {"noise-holes", CONTENT_NOISE_HOLES, 352, 288, 8, CHAIN_I420,
      "quantizer=4", 0},
  {"noise-holes-q1", CONTENT_NOISE_HOLES, 112, 80, 6, CHAIN_I420,
      "quantizer=1", 0},
  {"noise-holes-q31", CONTENT_NOISE_HOLES, 112, 80, 6, CHAIN_I420,
      "quantizer=31", 0},
  {"noise-holes-nordo", CONTENT_NOISE_HOLES, 112, 80, 6, CHAIN_I420,
      "quantizer=3 rdo=false", 0},
  {"edges", CONTENT_EDGES, 160, 96, 8, CHAIN_I420, "quantizer=6", 0},
  {"edges-full-search", CONTENT_EDGES, 160, 96, 6, CHAIN_I420,
      "quantizer=3 motion-method=full search-range=128", 0},
  {"edges-no-search", CONTENT_EDGES, 160, 96, 6, CHAIN_I420,
      "quantizer=8 search-range=0 subpel=false", 0},
  {"flat", CONTENT_FLAT, 128, 64, 6, CHAIN_I420, "quantizer=31", 0},
  {"letterbox-adaptive", CONTENT_LETTERBOX, 176, 144, 8, CHAIN_I420,
      "quantizer=5 adaptive-quant=true ip-factor=4", 0},
  {"letterbox-one-slice", CONTENT_LETTERBOX, 176, 144, 6, CHAIN_I420,
      "quantizer=4 slices=1 ip-factor=1", 0},
  {"cuts", CONTENT_CUTS, 128, 96, 12, CHAIN_I420,
      "quantizer=5 gop-size=1000", 0},
  {"cuts-intra-only", CONTENT_CUTS, 128, 96, 8, CHAIN_I420,
      "quantizer=1 gop-size=1", 0},
  {"odd-size", CONTENT_NOISE_HOLES, 33, 17, 6, CHAIN_I420, "quantizer=2", 0},
  {"odd-size-edges", CONTENT_EDGES, 100, 75, 6, CHAIN_I420,
      "quantizer=7 slices=175", 0},
  {"one-macroblock", CONTENT_EDGES, 16, 16, 6, CHAIN_I420, "quantizer=3", 0},
  /* the largest: 12-bit width, 175 slice rows */
  {"largest", CONTENT_EDGES, 4095, 2800, 3, CHAIN_I420, "quantizer=8", 0},
  {"rgb-full-range", CONTENT_RGB_BLACK_WHITE, 96, 64, 8, CHAIN_RGB_FULL,
      "quantizer=4", 0},
  {"contrast-stretch", CONTENT_LOW_CONTRAST, 128, 96, 6, CHAIN_CONTRAST,
      "quantizer=4", 0},
  {"bitrate-tight", CONTENT_NOISE_HOLES, 176, 144, 12, CHAIN_I420,
      "bitrate=1500 vbv-buffer-size=20", 0},
  {"bitrate-loose", CONTENT_LETTERBOX, 176, 144, 12, CHAIN_I420,
      "bitrate=4000 vbv-buffer-size=1023", 0},
  /* more bits than the finest quantiser needs: stuffing */
  {"bitrate-highest", CONTENT_LETTERBOX, 176, 144, 8, CHAIN_I420,
      "bitrate=100000 vbv-buffer-size=0", 0},
  {"hierarchical-widest", CONTENT_LETTERBOX, 176, 144, 6, CHAIN_I420,
      "quantizer=6 motion-method=hierarchical search-range=128", 0},
  {"narrowest-search", CONTENT_NOISE_HOLES, 112, 80, 6, CHAIN_I420,
      "quantizer=6 search-range=1", 0},
  /* At quantisers below 4 sharp black and white edges need levels
   * beyond the +-255 that MPEG-1 codes: the macroblock's quantiser rises
   * until they fit (clipped, they showed as macroblocks with an MSE in
   * the thousands). The I pictures of quantizer=2 use 2 / ip-factor = 1. */
  {"edges-q1-intra", CONTENT_EDGES, 176, 144, 4, CHAIN_I420,
      "quantizer=1 gop-size=1", 0},
  {"edges-q2", CONTENT_EDGES, 176, 144, 6, CHAIN_I420, "quantizer=2", 0},
  {"edges-bitrate-highest", CONTENT_EDGES, 176, 144, 8, CHAIN_I420,
      "bitrate=100000 vbv-buffer-size=0", 0},
  /* MPEG-2: its mismatch control, escapes and DC precisions, levels and
   * buffer model on the same content */
  {"mpeg2-zero", CONTENT_ZERO, 64, 48, 6, CHAIN_I420, "quantizer=4", 1},
  {"mpeg2-full", CONTENT_FULL, 64, 48, 6, CHAIN_I420,
      "quantizer=4 intra-dc-precision=10", 1},
  {"mpeg2-legal-ends", CONTENT_LEGAL_ENDS, 96, 64, 8, CHAIN_I420,
      "quantizer=2 intra-dc-precision=9", 1},
  {"mpeg2-noise-holes", CONTENT_NOISE_HOLES, 352, 288, 8, CHAIN_I420,
      "quantizer=4", 1},
  {"mpeg2-noise-holes-q1", CONTENT_NOISE_HOLES, 112, 80, 6, CHAIN_I420,
      "quantizer=1 intra-dc-precision=10", 1},
  {"mpeg2-edges-q1-intra", CONTENT_EDGES, 176, 144, 4, CHAIN_I420,
      "quantizer=1 gop-size=1", 1},
  {"mpeg2-cuts", CONTENT_CUTS, 128, 96, 12, CHAIN_I420,
      "quantizer=5 gop-size=1000", 1},
  {"mpeg2-odd-size", CONTENT_NOISE_HOLES, 33, 17, 6, CHAIN_I420,
      "quantizer=2", 1},
  {"mpeg2-largest", CONTENT_EDGES, 1920, 1152, 3, CHAIN_I420,
      "quantizer=8", 1},
  {"mpeg2-bitrate-tight", CONTENT_NOISE_HOLES, 176, 144, 12, CHAIN_I420,
      "bitrate=1500 vbv-buffer-size=20", 1},
  {"mpeg2-variable-rate", CONTENT_NOISE_HOLES, 176, 144, 12, CHAIN_I420,
      "bitrate=800 max-bitrate=2000", 1},
  /* B pictures: both directions, skips, the GOP's last P picture, the
   * end of the stream, their quantiser at its extremes */
  {"b-noise-holes", CONTENT_NOISE_HOLES, 176, 144, 12, CHAIN_I420,
      "quantizer=4 b-frames=2", 0},
  {"b-cuts", CONTENT_CUTS, 128, 96, 12, CHAIN_I420,
      "quantizer=5 b-frames=3 gop-size=1000", 0},
  {"b-most", CONTENT_EDGES, 160, 96, 11, CHAIN_I420,
      "quantizer=6 b-frames=7", 0},
  {"b-odd-size", CONTENT_NOISE_HOLES, 33, 17, 7, CHAIN_I420,
      "quantizer=2 b-frames=1", 0},
  {"b-q1", CONTENT_EDGES, 112, 80, 6, CHAIN_I420,
      "quantizer=1 b-frames=2 pb-factor=1", 0},
  {"b-q31", CONTENT_FULL, 64, 48, 8, CHAIN_I420,
      "quantizer=31 b-frames=2 pb-factor=4", 0},
  {"mpeg2-b-zero", CONTENT_ZERO, 64, 48, 8, CHAIN_I420,
      "quantizer=4 b-frames=2", 1},
  {"mpeg2-b-letterbox", CONTENT_LETTERBOX, 176, 144, 12, CHAIN_I420,
      "quantizer=5 b-frames=2 gop-size=7", 1},
  {"mpeg2-b-bitrate-tight", CONTENT_NOISE_HOLES, 176, 144, 12, CHAIN_I420,
      "bitrate=1500 vbv-buffer-size=20 b-frames=2", 1},
  {"mpeg2-b-variable-rate", CONTENT_NOISE_HOLES, 176, 144, 12, CHAIN_I420,
      "bitrate=800 max-bitrate=2000 b-frames=3", 1},
  /* MPEG-2's non-linear quantiser scale: quantisers to 56 where the rate
   * is too low for the content, adaptive ones rounded to the scale */
  {"mpeg2-non-linear-bitrate-tight", CONTENT_NOISE_HOLES, 176, 144, 12,
      CHAIN_I420, "bitrate=300 vbv-buffer-size=20 non-linear-quant=true", 1},
  {"mpeg2-non-linear-adaptive", CONTENT_LETTERBOX, 176, 144, 8, CHAIN_I420,
      "quantizer=13 adaptive-quant=true non-linear-quant=true b-frames=2", 1},
  /* low_delay: I pictures of DC levels only, each more than a picture
   * period's bits, decoded late */
  {"mpeg2-late-pictures", CONTENT_NOISE_HOLES, 176, 144, 6, CHAIN_I420,
      "bitrate=40 gop-size=1", 1},
  /* interlaced MPEG-2: field and frame blocks, field prediction, the
   * picture padded to whole macroblock rows per field */
  {"interlaced-noise-holes", CONTENT_NOISE_HOLES, 176, 144, 8,
      CHAIN_I420_INTERLACED, "quantizer=3", 1},
  {"interlaced-edges-q1", CONTENT_EDGES, 112, 80, 6, CHAIN_I420_INTERLACED,
      "quantizer=1 b-frames=2", 1},
  {"interlaced-zero", CONTENT_ZERO, 64, 48, 6, CHAIN_I420_INTERLACED,
      "quantizer=4", 1},
  {"interlaced-full", CONTENT_FULL, 64, 48, 6, CHAIN_I420_INTERLACED,
      "quantizer=31 b-frames=1", 1},
  {"interlaced-cuts", CONTENT_CUTS, 128, 96, 12, CHAIN_I420_INTERLACED,
      "quantizer=5 gop-size=1000 b-frames=2", 1},
  {"interlaced-odd-size", CONTENT_NOISE_HOLES, 33, 17, 6,
      CHAIN_I420_INTERLACED, "quantizer=2", 1},
  {"interlaced-bitrate-tight", CONTENT_NOISE_HOLES, 176, 144, 12,
      CHAIN_I420_INTERLACED, "bitrate=1500 vbv-buffer-size=20", 1},
  /* 3:2 pulldown: progressive frames in an interlaced sequence, each
   * shown for three fields or two */
  {"pulldown-cuts", CONTENT_CUTS, 128, 96, 12, CHAIN_I420_FILM,
      "pulldown=true bitrate=900 vbv-buffer-size=20 b-frames=2", 1},
  /* 4:2:2: eight blocks a macroblock, chroma of full height (in field
   * blocks with the luma's when interlaced), chroma vectors halved across
   * only, the shared chroma DC predictors; the same extremes */
  {"422-zero", CONTENT_ZERO, 64, 48, 6, CHAIN_Y42B, "quantizer=4", 1},
  {"422-full", CONTENT_FULL, 64, 48, 6, CHAIN_Y42B,
      "quantizer=4 intra-dc-precision=10", 1},
  {"422-legal-ends", CONTENT_LEGAL_ENDS, 96, 64, 8, CHAIN_Y42B,
      "quantizer=2 intra-dc-precision=9", 1},
  {"422-noise-holes", CONTENT_NOISE_HOLES, 176, 144, 8, CHAIN_Y42B,
      "quantizer=4", 1},
  {"422-noise-holes-q1", CONTENT_NOISE_HOLES, 112, 80, 6, CHAIN_Y42B,
      "quantizer=1 intra-dc-precision=10", 1},
  {"422-b-edges", CONTENT_EDGES, 160, 96, 8, CHAIN_Y42B,
      "quantizer=3 b-frames=2", 1},
  {"422-odd-size", CONTENT_NOISE_HOLES, 33, 17, 6, CHAIN_Y42B,
      "quantizer=2", 1},
  {"422-bitrate-tight", CONTENT_NOISE_HOLES, 176, 144, 12, CHAIN_Y42B,
      "bitrate=1500 vbv-buffer-size=20", 1},
  {"422-b-cuts", CONTENT_CUTS, 128, 96, 12, CHAIN_Y42B,
      "quantizer=5 b-frames=3 gop-size=1000", 1},
  {"422-interlaced-noise-holes", CONTENT_NOISE_HOLES, 176, 144, 8,
      CHAIN_Y42B_INTERLACED, "quantizer=3", 1},
  {"422-interlaced-edges-q1", CONTENT_EDGES, 112, 80, 6,
      CHAIN_Y42B_INTERLACED, "quantizer=1 b-frames=2", 1},
  {"422-interlaced-non-linear", CONTENT_NOISE_HOLES, 176, 144, 8,
      CHAIN_Y42B_INTERLACED, "bitrate=600 non-linear-quant=true", 1},
};

/* Whether @c's stream is an interlaced sequence (progressive_sequence 0,
 * the picture padded to whole macroblock rows per field) */
static gboolean
interlaced_sequence (const CorpusCase * c)
{
  return c->chain == CHAIN_I420_INTERLACED || c->chain == CHAIN_I420_FILM ||
      c->chain == CHAIN_Y42B_INTERLACED;
}

/* Whether @c's frames are 4:2:2 (Y42B), and its stream 4:2:2 too */
static gboolean
chroma_422 (const CorpusCase * c)
{
  return c->chain == CHAIN_Y42B || c->chain == CHAIN_Y42B_INTERLACED;
}

/* the value of clmpegenc property @name in @props, or @def */
static guint
prop_uint (const gchar * props, const gchar * name, guint def)
{
  gchar **kv = g_strsplit (props, " ", -1);
  guint i, v = def;

  for (i = 0; kv[i]; i++) {
    gsize n = strlen (name);
    if (strncmp (kv[i], name, n) == 0 && kv[i][n] == '=')
      v = (guint) g_ascii_strtoull (kv[i] + n + 1, NULL, 10);
  }
  g_strfreev (kv);
  return v;
}

/* Runs gst-launch-1.0 on @desc (split at spaces), with GST_CL_LAYOUT set
 * to @layout when not NULL; returns what it printed (its warnings). */
static gchar *
launch (const gchar * desc, const gchar * layout)
{
  gchar **args = g_strsplit (desc, " ", -1);
  GPtrArray *argv = g_ptr_array_new ();
  gchar **env = g_get_environ ();
  gchar *out = NULL, *err = NULL, *all;
  gint status = 0;
  guint i;

  g_ptr_array_add (argv, (gpointer) "gst-launch-1.0");
  for (i = 0; args[i]; i++)
    if (*args[i])
      g_ptr_array_add (argv, args[i]);
  g_ptr_array_add (argv, NULL);
  if (layout)
    env = test_layout_environ (env, layout);
  fail_unless (g_spawn_sync (NULL, (gchar **) argv->pdata, env,
          G_SPAWN_SEARCH_PATH, NULL, NULL, &out, &err, &status, NULL));
  all = g_strconcat (out, err, NULL);
  fail_unless (g_spawn_check_wait_status (status, NULL),
      "gst-launch-1.0 %s (layout %s) failed: %s", desc,
      layout ? layout : "default", all);
  g_free (out);
  g_free (err);
  g_strfreev (env);
  g_ptr_array_unref (argv);
  g_strfreev (args);
  return all;
}

/* the element chain from raw frames in @src to the encoder's input */
static gchar *
source_chain (const CorpusCase * c, const gchar * src)
{
  guint cw = (c->w + 1) / 2, ch = chroma_422 (c) ? c->h : (c->h + 1) / 2;
  gchar *layout = c->chain == CHAIN_RGB_FULL ? g_strdup ("") :
      /* tightly packed, where GStreamer would align odd sizes' rows */
      g_strdup_printf ("plane-strides=<%u,%u,%u> plane-offsets=<0,%u,%u> "
      "frame-size=%" G_GSIZE_FORMAT, c->w, cw, cw, c->w * c->h,
      c->w * c->h + cw * ch, planar_size (c->w, c->h, chroma_422 (c)));
  gchar *desc = g_strdup_printf ("filesrc location=%s ! rawvideoparse "
      "format=%s width=%u height=%u framerate=%s %s%s %s", src,
      c->chain == CHAIN_RGB_FULL ? "rgbx" : chroma_422 (c) ? "y42b" : "i420",
      c->w, c->h, c->chain == CHAIN_I420_FILM ? "24000/1001" : "25/1",
      layout, c->chain == CHAIN_I420_INTERLACED ||
      c->chain == CHAIN_Y42B_INTERLACED ?
      " interlaced=true top-field-first=true" : "",
      c->chain == CHAIN_RGB_FULL ? "! clcolorlowpass range=full ! "
      "video/x-raw,format=I420" : c->chain == CHAIN_CONTRAST ?
      "! clcontrast low-cut=0 high-cut=0" : "");
  g_free (layout);
  return desc;
}

static gchar *
read_file (const gchar * path, gsize * len)
{
  gchar *data = NULL;
  GError *error = NULL;

  fail_unless (g_file_get_contents (path, &data, len, &error), "%s: %s",
      path, error ? error->message : "?");
  return data;
}

/* Runs @cmd (a shell command line); fails with its standard error. */
static void
run_shell (const gchar * cmd)
{
  const gchar *argv[] = { "sh", "-c", cmd, NULL };
  gchar *err = NULL;
  gint status = 0;

  fail_unless (g_spawn_sync (NULL, (gchar **) argv, NULL, G_SPAWN_SEARCH_PATH,
          NULL, NULL, NULL, &err, &status, NULL));
  fail_unless (g_spawn_check_wait_status (status, NULL), "%s: %s", cmd, err);
  g_free (err);
}

/* FFmpeg's decode of @stream as tightly packed I420 (Y42B where
 * @chroma_422), @n frames of w x h; any message from the decoder is a
 * failure */
static guint8 *
ffmpeg_decode (const gchar * stream, guint w, guint h, guint n,
    gboolean chroma_422)
{
  gchar *raw = g_strdup_printf ("%s.ff.yuv", stream);
  gchar *cmd = g_strdup_printf ("ffmpeg -nostdin -v error -err_detect "
      "explode -i %s -fps_mode passthrough -f rawvideo -pix_fmt %s -y "
      "%s 2>&1 | (! grep .)", stream, chroma_422 ? "yuv422p" : "yuv420p",
      raw);
  gsize len;
  guint8 *data;

  run_shell (cmd);
  data = (guint8 *) read_file (raw, &len);
  fail_unless_equals_int (len, planar_size (w, h, chroma_422) * n);
  g_free (cmd);
  g_free (raw);
  return data;
}

/* libmpeg2's decode of @stream: PGM images of the coded size (multiples
 * of 16; @interlaced: the height a multiple of 32), Y above U and V side
 * by side (of half the height, or of the full height where @chroma_422),
 * cropped to tightly packed I420 (Y42B) */
static guint8 *
mpeg2dec_decode (const gchar * stream, guint w, guint h, guint n,
    gboolean interlaced, gboolean chroma_422)
{
  gchar *pgm = g_strdup_printf ("%s.pgm", stream);
  gchar *cmd = g_strdup_printf ("mpeg2dec -o pgmpipe %s > %s", stream, pgm);
  guint cw = (w + 1) / 2, ch = chroma_422 ? h : (h + 1) / 2,
      W = (w + 15) / 16 * 16,
      H = interlaced ? (h + 31) / 32 * 32 : (h + 15) / 16 * 16,
      CH = chroma_422 ? H : H / 2;
  gsize len, pos = 0, fs = planar_size (w, h, chroma_422);
  guint8 *data, *out = g_malloc (fs * n);
  guint i, y;

  run_shell (cmd);
  data = (guint8 *) read_file (pgm, &len);
  for (i = 0; i < n; i++) {
    gchar head[64];
    gint skip = 0;
    guint pw, ph;
    const guint8 *img;

    fail_unless (pos < len, "%s: mpeg2dec gave %u of %u frames", stream, i,
        n);
    g_strlcpy (head, (gchar *) data + pos, MIN (sizeof (head), len - pos));
    fail_unless (sscanf (head, "P5 %u %u 255%n", &pw, &ph, &skip) == 2 &&
        skip > 0, "%s: mpeg2dec frame %u is not a PGM image", stream, i);
    fail_unless (pw == W && ph == H + CH, "%s: mpeg2dec frame %u is "
        "%ux%u, not %ux%u", stream, i, pw, ph, W, H + CH);
    img = data + pos + skip + 1;
    fail_unless (pos + skip + 1 + (gsize) pw * ph <= len);
    for (y = 0; y < h; y++)
      memcpy (out + i * fs + (gsize) y * w, img + (gsize) y * W, w);
    for (y = 0; y < ch; y++) {
      const guint8 *row = img + (gsize) (H + y) * W;
      memcpy (out + i * fs + (gsize) w * h + (gsize) y * cw, row, cw);
      memcpy (out + i * fs + (gsize) w * h + (gsize) (ch + y) * cw,
          row + W / 2, cw);
    }
    pos += skip + 1 + (gsize) pw * ph;
  }
  fail_unless (pos == len, "%s: mpeg2dec gave more than %u frames", stream,
      n);
  g_free (data);
  g_free (cmd);
  g_free (pgm);
  return out;
}

/* the worst macroblock plane of @n decoded frames against @src, but for
 * those where @skip is set; I420, or Y42B where @chroma_422 */
static PsnrMacroblock
worst_macroblock (const guint8 * src, const guint8 * dec, guint w, guint h,
    guint n, gboolean chroma_422, const gboolean * skip, guint * frame)
{
  PsnrMacroblock worst = { 0 };
  gsize fs = planar_size (w, h, chroma_422);
  guint i;

  *frame = 0;
  for (i = 0; i < n; i++) {
    PsnrMacroblock mb;
    if (skip && skip[i])
      continue;
    psnr_planar_worst_macroblock (src + i * fs, dec + i * fs, w, h,
        chroma_422, &mb);
    if (mb.mse > worst.mse) {
      worst = mb;
      *frame = i;
    }
  }
  return worst;
}

/* The bound on a macroblock plane's mean squared error where the
 * encoder may use quantisers up to @q: four times FFmpeg's worst on the
 * same frames, or four times what uniform quantisation with steps of 2q
 * leaves ((2q)^2 / 12 a sample), whichever is more. The trellis and the
 * mode decisions trade error for bits, so a block may be somewhat worse
 * than FFmpeg's; a block decoded to the wrong picture is off by
 * thousands. */
static gdouble
macroblock_bound (gdouble ffmpeg_worst, guint q)
{
  return 4.0 * MAX (ffmpeg_worst, (2.0 * q) * (2.0 * q) / 12.0);
}

static void
check_case (const CorpusCase * c)
{
  static const gchar *layouts[] = { "cpu", "gpu" };
  gchar *src_name = g_strdup_printf ("%s.raw", c->name);
  gchar *src = write_source (c->content, c->w, c->h, c->frames,
      chroma_422 (c), src_name);
  gchar *chain = source_chain (c, src);
  gchar *input = g_strdup_printf ("%s/%s.yuv", tmpdir, c->name);
  gchar *stream[2], *data[2];
  gsize len[2], fs = planar_size (c->w, c->h, chroma_422 (c)), input_len;
  guint8 *frames, *decoded[2];
  MpegCheckOptions o;
  MpegCheckResult *r;
  gchar *errs, *desc, *ff_stream = NULL, *cmd = NULL, *printed = NULL;
  /* pictures of the rate control's last resorts: repeated, DC only */
  gboolean *last_resort = g_new0 (gboolean, c->frames);
  guint q, gop, i, frame, gop_first, gop_index;
  gboolean bitrate = prop_uint (c->props, "bitrate", 0) > 0;
  guint b_frames = prop_uint (c->props, "b-frames", 0);
  const gchar *codec = c->mpeg2 ? "mpeg2video" : "mpeg1video";
  const gchar *pix_fmt = chroma_422 (c) ? "yuv422p" : "yuv420p";
  const MpegCheckSequence *seq;
  PsnrMacroblock ff_worst, worst;
  guint8 *ff_decoded;

  /* what the encoder is given: the raw frames, or the filters' output */
  if (c->chain == CHAIN_I420 || c->chain == CHAIN_I420_INTERLACED ||
      c->chain == CHAIN_I420_FILM || chroma_422 (c)) {
    g_free (input);
    input = g_strdup (src);
  } else {
    desc = g_strdup_printf ("%s ! filesink location=%s", chain, input);
    g_free (launch (desc, NULL));
    g_free (desc);
  }
  frames = (guint8 *) read_file (input, &input_len);
  fail_unless_equals_int (input_len, fs * c->frames);

  for (i = 0; i < 2; i++) {
    stream[i] = g_strdup_printf ("%s/%s-%s.m%uv", tmpdir, c->name,
        layouts[i], c->mpeg2 ? 2 : 1);
    desc = g_strdup_printf ("%s ! clmpegenc %s %s ! video/mpeg,mpegversion=%u "
        "! filesink location=%s", chain, c->props,
        g_getenv ("CORPUS_EXTRA_PROPS") ? g_getenv ("CORPUS_EXTRA_PROPS") :
        "", c->mpeg2 ? 2 : 1, stream[i]);
    g_free (printed);
    printed = launch (desc, layouts[i]);
    g_free (desc);
    data[i] = read_file (stream[i], &len[i]);
    if (g_getenv ("CORPUS_STREAMS")) {
      /* streams only (a device machine without decoders): kept for a
       * comparison with another device's */
      gchar *kept = g_strdup_printf ("%s/%s-%s.m%uv",
          g_getenv ("CORPUS_STREAMS"), c->name, layouts[i], c->mpeg2 ? 2 : 1);
      fail_unless (g_file_set_contents (kept, data[i], len[i], NULL));
      g_free (kept);
    }
  }
  fail_unless (len[0] == len[1] && memcmp (data[0], data[1], len[0]) == 0,
      "%s: the CPU and GPU layouts wrote different streams (%"
      G_GSIZE_FORMAT " and %" G_GSIZE_FORMAT " bytes)", c->name, len[0],
      len[1]);

  mpegcheck_options_init (&o);
  o.expect_pictures = c->frames;
  o.expect_width = c->w;
  o.expect_height = c->h;
  o.require_seq_header_per_gop = TRUE;
  o.require_closed_gop = TRUE;
  o.first_time_code = 0;
  r = mpegcheck_run ((const guint8 *) data[0], len[0], &o);
  errs = mpegcheck_errors_text (r);
  fail_unless (mpegcheck_passed (r), "%s: stream check failed:\n%s",
      c->name, errs);
  g_free (errs);
  /* interlaced input and pulldown: an interlaced sequence */
  seq = &g_array_index (r->sequences, MpegCheckSequence, 0);
  fail_unless_equals_int (seq->progressive_sequence,
      !interlaced_sequence (c));
  /* Y42B: 4:2:2 in its own profile, not converted to 4:2:0 */
  fail_unless_equals_int (seq->chroma_format, chroma_422 (c) ?
      MPEGCHECK_CHROMA_422 : MPEGCHECK_CHROMA_420);
  if (chroma_422 (c))
    fail_unless_equals_int (seq->profile, MPEGCHECK_PROFILE_422);
  /* the quantiser to compare at: the one set, or the coarsest the rate
   * control used (MPEG-2: also to keep to the level's buffer; B pictures:
   * coarser than P pictures) */
  q = prop_uint (c->props, "quantizer", 4);
  if (bitrate || c->mpeg2 || b_frames) {
    q = 1;
    for (i = 0; i < r->pictures->len; i++)
      q = MAX (q, g_array_index (r->pictures, MpegCheckPicture,
              i).slice_step_max);
  }
  /* the last resort before a repeat codes each block's mean alone (said
   * by a warning; at a bit rate, or at a constant quantiser under MPEG-2's
   * buffer, as the I pictures of the largest picture's scene cuts): such a
   * picture is not held to the bound either (the pictures are in coding
   * order: each is its GOP's first frame plus its temporal_reference) */
  for (i = 0, gop_first = 0, gop_index = 0; i < r->pictures->len; i++) {
    const MpegCheckPicture *pic = &g_array_index (r->pictures,
        MpegCheckPicture, i);
    if (pic->gop != gop_index) {
      gop_first = i;
      gop_index = pic->gop;
    }
    frame = gop_first + pic->temporal_reference;
    if (frame < c->frames)
      last_resort[frame] = pic->n_blocks > 0 &&
          pic->n_ac_coefficients == 0 && strstr (printed, "DC levels only");
  }
  mpegcheck_result_free (r);
  if (g_getenv ("CORPUS_STREAMS"))
    goto done;

  /* FFmpeg's own encoder on the same frames, with the same B pictures
   * (at most at its coarsest linear quantiser) */
  gop = prop_uint (c->props, "gop-size", 12);
  ff_stream = g_strdup_printf ("%s/%s-ffmpeg.mpv", tmpdir, c->name);
  cmd = g_strdup_printf ("ffmpeg -nostdin -v error -f rawvideo -pix_fmt "
      "%s -s %ux%u -r 25 -i %s -c:v %s -pix_fmt %s -q:v %u -g %u -bf %u "
      "-f %s -y %s", pix_fmt, c->w, c->h, input, codec, pix_fmt,
      MIN (q, 31), MIN (gop, 600), b_frames, codec, ff_stream);
  run_shell (cmd);
  ff_decoded = ffmpeg_decode (ff_stream, c->w, c->h, c->frames,
      chroma_422 (c));
  ff_worst = worst_macroblock (frames, ff_decoded, c->w, c->h, c->frames,
      chroma_422 (c), NULL, &frame);

  decoded[0] = ffmpeg_decode (stream[0], c->w, c->h, c->frames,
      chroma_422 (c));
  decoded[1] = mpeg2dec_decode (stream[0], c->w, c->h, c->frames,
      interlaced_sequence (c), chroma_422 (c));
  /* the rate control's last resort repeats a picture: only with a
   * bit rate, only with a warning, and then the picture shown is its
   * reference, exactly: the one before, or a B picture's forward anchor
   * (at most b-frames + 1 before) */
  for (i = 1; i < c->frames; i++) {
    guint j;
    for (j = i; j-- > 0 && j + b_frames + 1 >= i;) {
      if (memcmp (frames + i * fs, frames + j * fs, fs) == 0 ||
          memcmp (decoded[0] + i * fs, decoded[0] + j * fs, fs) != 0)
        continue;
      fail_unless (bitrate && strstr (printed, "coded as a repeat"),
          "%s: frame %u decodes to frame %u without a warning:\n%s",
          c->name, i, j, printed);
      last_resort[i] = TRUE;
    }
  }
  for (i = 0; i < 2; i++) {
    /* adaptive quantisation goes up to twice the picture's quantiser */
    gdouble bound = macroblock_bound (ff_worst.mse,
        strstr (c->props, "adaptive-quant=true") ? MIN (2 * q,
            strstr (c->props, "non-linear-quant=true") ? 56 : 31) : q);
    worst = worst_macroblock (frames, decoded[i], c->w, c->h, c->frames,
        chroma_422 (c), last_resort, &frame);
    GST_INFO ("%s (%s): worst macroblock MSE %.2f (FFmpeg's encoder %.2f, "
        "bound %.2f, q %u)", c->name, i ? "libmpeg2" : "FFmpeg", worst.mse,
        ff_worst.mse, bound, q);
    fail_unless (worst.mse <= bound, "%s: decoded by %s, frame %u plane %u "
        "macroblock (%u, %u) has a mean squared error of %.2f, above %.2f "
        "(FFmpeg's encoder at quantiser %u: %.2f at worst)", c->name,
        i ? "libmpeg2" : "FFmpeg", frame, worst.plane, worst.mb_x,
        worst.mb_y, worst.mse, bound, q, ff_worst.mse);
  }

  for (i = 0; i < 2; i++)
    g_free (decoded[i]);
  g_free (ff_decoded);
done:
  for (i = 0; i < 2; i++) {
    g_free (data[i]);
    g_free (stream[i]);
  }
  g_free (last_resort);
  g_free (printed);
  g_free (ff_stream);
  g_free (cmd);
  g_free (frames);
  g_free (input);
  g_free (chain);
  g_free (src);
  g_free (src_name);
}

GST_START_TEST (test_corpus)
{
  const gchar *only = g_getenv ("CORPUS_CASES");
  const gchar *chroma = g_getenv ("CORPUS_CHROMA");
  gchar **names = only ? g_strsplit (only, ",", -1) : NULL;
  const CorpusCase *c = &cases[__i__];

  if ((!names || g_strv_contains ((const gchar * const *) names, c->name))
      && (!chroma || g_str_equal (chroma, "422") == chroma_422 (c)))
    check_case (c);
  g_strfreev (names);
}

GST_END_TEST;

static void
setup (void)
{
  tmpdir = g_dir_make_tmp ("clvideo-corpus-XXXXXX", NULL);
  fail_unless (tmpdir != NULL);
}

static void
teardown (void)
{
  GDir *dir = g_dir_open (tmpdir, 0, NULL);
  const gchar *name;

  while (dir && (name = g_dir_read_name (dir))) {
    gchar *path = g_build_filename (tmpdir, name, NULL);
    if (!g_getenv ("CORPUS_KEEP"))
      g_unlink (path);
    g_free (path);
  }
  if (dir)
    g_dir_close (dir);
  /* kept or not, an empty one goes (a case CORPUS_CASES left out) */
  g_rmdir (tmpdir);
  g_clear_pointer (&tmpdir, g_free);
}

static Suite *
corpus_suite (void)
{
  Suite *s = suite_create ("corpus");
  TCase *tc = test_suite_add_case (s);

  tcase_add_checked_fixture (tc, setup, teardown);
  tcase_add_loop_test (tc, test_corpus, 0, G_N_ELEMENTS (cases));
  return s;
}

int
main (int argc, char **argv)
{
  gst_check_init (&argc, &argv);
  if (!g_getenv ("CORPUS_STREAMS") && (!test_have_program ("ffmpeg") ||
          !test_have_program ("mpeg2dec"))) {
    g_print ("SKIP: needs ffmpeg and mpeg2dec (Debian packages ffmpeg, "
        "mpeg2dec)\n");
    return 77;
  }
  return gst_check_run_suite (corpus_suite (), "corpus", __FILE__);
}
