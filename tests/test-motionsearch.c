/* gst-clvideo: motion search (GstClMotionSearch, clmotionsearch,
 * GstClMotionMeta)
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * The device's vectors and SADs must equal those of motionsearch-ref.c, a
 * plain C full search, on random and natural-looking pictures from 1x1 to
 * 2048x2048, at block sizes 16 and 8, ranges 4, 16 and 32, with and
 * without half-pel refinement and chroma weight, planes at odd offsets and
 * strides. A natural-looking texture panned by a known vector must give
 * that vector with SAD 0 wherever it is a candidate. Through the element:
 * every format in system and OpenCL memory, no meta on the first frame or
 * after a discont, flush or caps change, messages that agree with the
 * meta, and vectors drawn only where asked.
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <gst/check/gstcheck.h>
#include <gst/check/gstharness.h>
#include <gst/video/video.h>
#include <math.h>
#include <string.h>

#include <gst/cl/gstclcontext.h>
#include <gst/cl/gstclmemory.h>
#include <gst/cl/gstclmotionmeta.h>
#include "gstclmotionsearchcompute.h"
#include "motionsearch-ref.h"
#include "testutil.h"

/* ---- pictures ---- */

/* A texture without end (shading, edges, grain, all from the position),
 * so that a window of it moved by a vector is the same picture panned;
 * @comp varies it per colour component. */
static guint8
texture (gint x, gint y, guint comp)
{
  guint32 g = (guint32) x * 0x9e3779b1u ^ ((guint32) y * 0x85ebca77u +
      comp * 0x27d4eb2fu);
  gdouble v;

  g ^= g >> 16;
  g *= 0x7feb352du;
  g ^= g >> 15;
  v = 100 + 15 * comp + 45 * sin (x * 0.11 + comp) * cos (y * 0.05) +
      25 * sin ((x + 2 * y) * 0.037) + (((x + 40) / 29 + (y + 40) / 17) % 3)
      * 20 + (gint) (g % 11) - 5;
  return (guint8) CLAMP ((gint) v, 0, 255);
}

/* Black and white cells of 6x4 samples, without end like texture():
 * flat areas and extreme values, where many displacements tie. */
static guint8
binary_texture (gint x, gint y, guint comp)
{
  guint32 g = (guint32) ((x + 6000) / 6) * 0x9e3779b1u ^
      ((guint32) ((y + 4000) / 4) * 0x85ebca77u + comp);

  g ^= g >> 15;
  g *= 0x2c1b3c6du;
  g ^= g >> 12;
  return (g & 1) ? 255 : 0;
}

typedef enum
{
  CONTENT_RANDOM,
  CONTENT_NATURAL,
  CONTENT_BINARY,
  N_CONTENTS
} Content;

static const gchar *const content_names[N_CONTENTS] = {
  "random", "natural", "black and white"
};

/* A system-memory frame, default layout: the texture (natural or binary)
 * seen from (sx, sy) (chroma from (sx, sy) scaled down), or random
 * samples from @rng. */
static GstBuffer *
make_frame (const GstVideoInfo * info, Content content, gint sx, gint sy,
    guint32 * rng)
{
  GstBuffer *buf = gst_buffer_new_allocate (NULL, info->size, NULL);
  GstVideoFrame vf;
  guint c;

  fail_unless (gst_video_frame_map (&vf, info, buf, GST_MAP_WRITE));
  for (c = 0; c < GST_VIDEO_INFO_N_COMPONENTS (info); c++) {
    guint8 *data = GST_VIDEO_FRAME_COMP_DATA (&vf, c);
    gint stride = GST_VIDEO_FRAME_COMP_STRIDE (&vf, c);
    gint ps = GST_VIDEO_FRAME_COMP_PSTRIDE (&vf, c);
    gint w = GST_VIDEO_FRAME_COMP_WIDTH (&vf, c);
    gint h = GST_VIDEO_FRAME_COMP_HEIGHT (&vf, c);
    gint ws = w < GST_VIDEO_INFO_WIDTH (info) ? 2 : 1;
    gint hs = h < GST_VIDEO_INFO_HEIGHT (info) ? 2 : 1;
    gint x, y;

    for (y = 0; y < h; y++)
      for (x = 0; x < w; x++)
        data[y * stride + x * ps] = content == CONTENT_NATURAL ?
            texture (x + sx / ws, y + sy / hs, c) :
            content == CONTENT_BINARY ?
            binary_texture (x + sx / ws, y + sy / hs, c) :
            test_rng_next (rng) & 0xff;
  }
  gst_video_frame_unmap (&vf);
  return buf;
}

/* Packed copies of the components of @buf (a frame of @info). */
typedef struct
{
  guint8 *data[3];
  gint w[3], h[3];
  guint n;
} Planes;

static void
planes_get (Planes * p, const GstVideoInfo * info, GstBuffer * buf)
{
  GstVideoFrame vf;
  guint c;
  gint x, y;

  fail_unless (gst_video_frame_map (&vf, info, buf, GST_MAP_READ));
  p->n = GST_VIDEO_INFO_N_COMPONENTS (info);
  for (c = 0; c < p->n; c++) {
    const guint8 *data = GST_VIDEO_FRAME_COMP_DATA (&vf, c);
    gint stride = GST_VIDEO_FRAME_COMP_STRIDE (&vf, c);
    gint ps = GST_VIDEO_FRAME_COMP_PSTRIDE (&vf, c);

    p->w[c] = GST_VIDEO_FRAME_COMP_WIDTH (&vf, c);
    p->h[c] = GST_VIDEO_FRAME_COMP_HEIGHT (&vf, c);
    p->data[c] = g_malloc ((gsize) p->w[c] * p->h[c]);
    for (y = 0; y < p->h[c]; y++)
      for (x = 0; x < p->w[c]; x++)
        p->data[c][y * p->w[c] + x] = data[y * stride + x * ps];
  }
  gst_video_frame_unmap (&vf);
}

static void
planes_clear (Planes * p)
{
  guint c;
  for (c = 0; c < p->n; c++)
    g_free (p->data[c]);
}

static RefPlane
ref_plane (const Planes * p, guint c)
{
  RefPlane r = { p->data[c], p->w[c], 1, p->w[c], p->h[c] };
  return r;
}

/* The C reference's vectors of @cur against @ref; @history: the
 * previous search's, which the hierarchical method follows (NULL: none);
 * @price: the hierarchical method's vector price */
static GstClMotionVector *
reference_vectors (const Planes * cur, const Planes * ref, gint bs,
    gint range, gint subpel, guint weight_q, GstClMotionMethod method,
    GstClMotionEffort effort, guint price, const GstClMotionVector * history)
{
  gint n = ((cur->w[0] + bs - 1) / bs) * ((cur->h[0] + bs - 1) / bs);
  GstClMotionVector *exp = g_new (GstClMotionVector, n);
  RefPlane c = ref_plane (cur, 0), r = ref_plane (ref, 0);
  RefPlane cc[2], rc[2];
  gboolean chroma = weight_q > 0 && cur->n == 3;

  if (method == GST_CL_MOTION_METHOD_HIERARCHICAL) {
    ref_motion_search_hierarchical (&c, &r, bs, range, subpel, effort,
        price, history, exp);
    return exp;
  }
  if (chroma) {
    cc[0] = ref_plane (cur, 1);
    cc[1] = ref_plane (cur, 2);
    rc[0] = ref_plane (ref, 1);
    rc[1] = ref_plane (ref, 2);
  }
  ref_motion_search (&c, &r, chroma ? cc : NULL, chroma ? rc : NULL,
      cur->w[1] < cur->w[0] ? 1 : 0, cur->h[1] < cur->h[0] ? 1 : 0,
      weight_q, bs, range, subpel, exp);
  return exp;
}

static void
compare_vectors (const GstClMotionVector * got, const GstClMotionVector * exp,
    guint blocks_x, guint n, const gchar * desc)
{
  guint i;

  for (i = 0; i < n; i++)
    fail_unless_each (got[i].dx == exp[i].dx && got[i].dy == exp[i].dy &&
        got[i].sad == exp[i].sad, "%s: block (%u,%u) got (%d,%d) SAD %u, "
        "expected (%d,%d) SAD %u", desc, i % blocks_x, i / blocks_x,
        got[i].dx, got[i].dy, got[i].sad, exp[i].dx, exp[i].dy, exp[i].sad);
}

/* random content */
#define NO_PAN G_MAXINT

/* Where the pan (px, py) is a candidate of a block, that block must have
 * found it with SAD 0 (the natural texture's grain makes it the only
 * exact match). With @hierarchical, only blocks whose whole window lies
 * inside the picture count (near the edges the coarse levels see less),
 * another vector with SAD 0 counts as found (black and white cells can
 * match exactly elsewhere, and only the full search sees every tie), and
 * of 8x8 blocks one in a thousand may miss it (they start from the
 * vectors of the 16x16 areas, and where a few neighbours missed too, the
 * second pass has nothing to take). Returns how many blocks were
 * checked. */
static guint
check_pan (const GstClMotionVector * got, gint w, gint h, gint bs, gint range,
    gint px, gint py, gboolean hierarchical, const gchar * desc)
{
  gint blocks_x = (w + bs - 1) / bs, blocks_y = (h + bs - 1) / bs, bx, by;
  guint checked = 0, missed = 0;
  const GstClMotionVector *first = NULL;

  if (px == NO_PAN || px < -range || px >= range || py < -range ||
      py >= range)
    return 0;
  for (by = 0; by < blocks_y; by++) {
    for (bx = 0; bx < blocks_x; bx++) {
      const GstClMotionVector *v = &got[by * blocks_x + bx];
      gint x0 = bx * bs, y0 = by * bs;
      gint bw = MIN (bs, w - x0), bh = MIN (bs, h - y0);

      if (x0 + px < 0 || y0 + py < 0 || x0 + px + bw > w || y0 + py + bh > h)
        continue;
      if (hierarchical && (x0 < range || y0 < range ||
              x0 + bs + range > w || y0 + bs + range > h))
        continue;
      checked++;
      if (v->sad == 0 && (hierarchical || (v->dx == 2 * px &&
                  v->dy == 2 * py)))
        continue;
      if (!first)
        first = v;
      missed++;
    }
  }
  fail_unless (missed * 1000 <= (hierarchical && bs == 8 ? checked : 0),
      "%s: %u of %u blocks missed the pan (%d,%d), block %d first: (%d,%d) "
      "SAD %u", desc, missed, checked, px, py, first ? (gint) (first - got) :
      -1, first ? first->dx : 0, first ? first->dy : 0, first ? first->sad : 0);
  return checked;
}

/* ---- the search itself, straight through the API ---- */

/* @p's luma in a buffer of its own at a byte offset, rows padded. */
static void
upload_luma (const Planes * p, gsize offset, guint pad, GstClPlane * plane)
{
  GstClContext *ctx = test_get_shared_context ();
  guint stride = p->w[0] + pad;
  gsize size = offset + (gsize) stride * p->h[0];
  guint8 *data = g_malloc (size);
  cl_int ret;
  gint y;

  memset (data, 0x5a, size);
  for (y = 0; y < p->h[0]; y++)
    memcpy (data + offset + (gsize) y * stride, p->data[0] + y * p->w[0],
        p->w[0]);
  plane->mem = clCreateBuffer (ctx->context, CL_MEM_READ_ONLY |
      CL_MEM_COPY_HOST_PTR, size, data, &ret);
  fail_unless (ret == CL_SUCCESS, "clCreateBuffer: %s",
      gst_cl_error_name (ret));
  plane->offset = offset;
  plane->stride = stride;
  plane->width = p->w[0];
  plane->height = p->h[0];
  plane->pixel_stride = 1;
  g_free (data);
}

/* The pictures of a search: the reference of @content, the current
 * one panned by (px, py); as frames, packed planes and device luma
 * planes (at odd offsets, rows padded) */
typedef struct
{
  GstBuffer *fref, *fcur;
  Planes pref, pcur;
  GstClPlane cl_cur, cl_ref;
} SearchPictures;

static void
search_pictures_make (SearchPictures * sp, const GstVideoInfo * info,
    Content content, gint px, gint py, guint32 * rng)
{
  sp->fref = make_frame (info, content, 0, 0, rng);
  sp->fcur = make_frame (info, content, px, py, rng);
  planes_get (&sp->pref, info, sp->fref);
  planes_get (&sp->pcur, info, sp->fcur);
  upload_luma (&sp->pcur, 3, 5, &sp->cl_cur);
  upload_luma (&sp->pref, 64, 19, &sp->cl_ref);
}

static void
search_pictures_clear (SearchPictures * sp)
{
  clReleaseMemObject (sp->cl_cur.mem);
  clReleaseMemObject (sp->cl_ref.mem);
  planes_clear (&sp->pref);
  planes_clear (&sp->pcur);
  gst_buffer_unref (sp->fref);
  gst_buffer_unref (sp->fcur);
}

typedef struct
{
  gint w, h, bs, range;
  gboolean subpel;
  Content content;
  gint px, py;                  /* textures: the pan between the pictures */
  GstClMotionMethod method;
  GstClMotionEffort effort;     /* hierarchical */
  gboolean satd;                /* half-pel positions ranked by SATD */
  guint price;                  /* hierarchical: the vectors' price */
} SearchCase;

/* Runs @sc against the C reference; returns how many of the second
 * run's vectors differ from those of the same search without a price */
static guint
check_search (const SearchCase * sc)
{
  GstClContext *ctx = test_get_shared_context ();
  GstClMotionSearchParams params = { sc->bs, sc->range, sc->subpel, 0, 0.0,
    sc->method
  };
  gboolean hier = sc->method == GST_CL_MOTION_METHOD_HIERARCHICAL;
  GstVideoInfo info;
  SearchPictures sp;
  GstClMotionSearch *ms;
  GstClMotionVector *got;
  GstClMotionVector *exp;
  GError *error = NULL;
  guint32 rng = test_seed ("search", sc->w * 7 + sc->h * 131 + sc->bs +
      sc->range * 3);
  gint subpel = !sc->subpel ? REF_SUBPEL_NONE : sc->satd ? REF_SUBPEL_SATD :
      REF_SUBPEL_SAD;
  guint bx, by, i, unpriced_differ = 0;
  cl_mem vectors;
  cl_int ret;
  gchar *desc;

  desc = g_strdup_printf ("%s %dx%d %s, block %d, range %d%s%s, price %u",
      hier ? "hierarchical" : "full", sc->w, sc->h,
      content_names[sc->content], sc->bs, sc->range,
      !sc->subpel ? "" : sc->satd ? ", half-pel by SATD" : ", half-pel",
      !hier ||
      sc->effort == GST_CL_MOTION_EFFORT_MEDIUM ? "" :
      sc->effort == GST_CL_MOTION_EFFORT_LOW ? ", low effort" :
      ", high effort", sc->price);
  gst_video_info_set_format (&info, GST_VIDEO_FORMAT_GRAY8, sc->w, sc->h);
  search_pictures_make (&sp, &info, sc->content, sc->px, sc->py, &rng);

  ms = gst_cl_motion_search_new (ctx, &params, &error);
  fail_unless (ms != NULL, "%s: %s", desc, error ? error->message : "?");
  gst_cl_motion_search_set_effort (ms, sc->effort);
  gst_cl_motion_search_set_subpel_satd (ms, sc->satd);
  gst_cl_motion_search_set_vector_price (ms, sc->price);
  gst_cl_motion_search_grid (ms, sc->w, sc->h, &bx, &by);
  fail_unless_equals_int (bx, (sc->w + sc->bs - 1) / sc->bs);
  fail_unless_equals_int (by, (sc->h + sc->bs - 1) / sc->bs);
  vectors = clCreateBuffer (ctx->context, CL_MEM_READ_WRITE,
      (gsize) bx * by * sizeof (GstClMotionVector), NULL, &ret);
  fail_unless (ret == CL_SUCCESS);
  /* twice: the second run follows the vectors of the first (the
   * hierarchical method), and nothing else of a run leaks into the next */
  got = g_new (GstClMotionVector, bx * by);
  exp = NULL;
  for (i = 0; i < 2; i++) {
    GstClMotionVector *prev = exp;
    gchar *run_desc = g_strdup_printf ("%s, run %u", desc, i + 1);

    fail_unless (gst_cl_motion_search_run (ms, &sp.cl_cur, &sp.cl_ref,
            vectors, &error), "%s: %s", desc, error ? error->message : "?");
    ret = clEnqueueReadBuffer (ctx->queue, vectors, CL_TRUE, 0,
        (gsize) bx * by * sizeof (GstClMotionVector), got, 0, NULL, NULL);
    fail_unless (ret == CL_SUCCESS, "clEnqueueReadBuffer: %s",
        gst_cl_error_name (ret));
    exp = reference_vectors (&sp.pcur, &sp.pref, sc->bs, sc->range, subpel, 0,
        sc->method, sc->effort, sc->price, prev);
    compare_vectors (got, exp, bx, bx * by, run_desc);
    if (sc->price && i == 1) {
      GstClMotionVector *unpriced = reference_vectors (&sp.pcur, &sp.pref,
          sc->bs,
          sc->range, subpel, 0, sc->method, sc->effort, 0, prev);
      guint b;

      for (b = 0; b < bx * by; b++)
        unpriced_differ += unpriced[b].dx != exp[b].dx ||
            unpriced[b].dy != exp[b].dy;
      g_free (unpriced);
    }
    g_free (prev);
    g_free (run_desc);
  }
  /* (at low effort, without propagation, a block that missed the pan
   * keeps its miss; a high price may keep a short vector) */
  if (sc->content == CONTENT_NATURAL && !sc->subpel && !sc->price && (!hier
          || sc->effort != GST_CL_MOTION_EFFORT_LOW))
    check_pan (got, sc->w, sc->h, sc->bs, sc->range, sc->px, sc->py, hier,
        desc);

  gst_cl_motion_search_free (ms);
  clReleaseMemObject (vectors);
  search_pictures_clear (&sp);
  g_free (got);
  g_free (exp);
  g_free (desc);
  return unpriced_differ;
}

static const struct
{
  gint w, h;
} search_sizes[] = {
  {1, 1}, {17, 9}, {16, 16}, {33, 47}, {100, 70}, {211, 97},
};

/* Every size at block sizes 16 and 8, ranges 4, 16 and 32, random,
 * natural and black and white content, with and without half-pel
 * refinement. */
GST_START_TEST (test_search)
{
  static const gint ranges[] = { 4, 16, 32 };
  guint b, r, n;

  for (b = 0; b < 2; b++) {
    for (r = 0; r < G_N_ELEMENTS (ranges); r++) {
      for (n = 0; n < 2 * N_CONTENTS; n++) {
        SearchCase sc = { search_sizes[__i__].w, search_sizes[__i__].h,
          b ? 8 : 16, ranges[r], n & 1, n >> 1, 0, 0,
          GST_CL_MOTION_METHOD_FULL, GST_CL_MOTION_EFFORT_MEDIUM, FALSE, 0
        };
        /* pans inside and outside the window */
        sc.px = (r + n) % 2 ? 3 : -ranges[r];
        sc.py = (b + n) % 2 ? ranges[r] - 1 : -2 - (gint) r;
        check_search (&sc);
      }
    }
  }
}

GST_END_TEST;

/* The largest pictures: a couple of cases, small windows. */
GST_START_TEST (test_search_large)
{
  static const SearchCase cases[] = {
    {2048, 2048, 16, 4, FALSE, CONTENT_NATURAL, 3, -4,
        GST_CL_MOTION_METHOD_FULL, GST_CL_MOTION_EFFORT_MEDIUM, FALSE, 0},
    {1918, 1078, 8, 4, TRUE, CONTENT_RANDOM, 0, 0, GST_CL_MOTION_METHOD_FULL,
        GST_CL_MOTION_EFFORT_MEDIUM, FALSE, 0},
  };
  check_search (&cases[__i__]);
}

GST_END_TEST;

/* The hierarchical search against its C reference: block sizes 16 and 8,
 * ranges 4, 16 and 32, random, natural and black and white content
 * (panned, the pan found exactly in the interior), with and without
 * half-pel refinement. The
 * largest size runs a subset. */
static const struct
{
  gint w, h;
} hier_sizes[] = {
  {1, 1}, {17, 9}, {640, 480}, {1918, 1078},
};

GST_START_TEST (test_search_hierarchical)
{
  static const gint ranges[] = { 4, 16, 32 };
  gboolean large = hier_sizes[__i__].w > 1000;
  guint b, r, n;

  for (b = 0; b < 2; b++) {
    for (r = 0; r < G_N_ELEMENTS (ranges); r++) {
      for (n = 0; n < 2 * N_CONTENTS; n++) {
        SearchCase sc = { hier_sizes[__i__].w, hier_sizes[__i__].h,
          b ? 8 : 16, ranges[r], n & 1, n >> 1, 0, 0,
          GST_CL_MOTION_METHOD_HIERARCHICAL, GST_CL_MOTION_EFFORT_MEDIUM,
          FALSE, 0
        };
        /* on the largest picture one content and half-pel choice per
         * block size and range, in turn */
        if (large && n != (b + r) % (2 * N_CONTENTS))
          continue;
        /* pans of the coarsest levels' rounding: odd, even, near the
         * window's ends */
        sc.px = (r + n) % 2 ? 3 : -ranges[r] + 1;
        sc.py = (b + n) % 2 ? ranges[r] - 1 : -2 - (gint) r;
        check_search (&sc);
      }
    }
  }
}

GST_END_TEST;

/* kernel launches of the motion searches on @ctx so far */
static guint64
search_launches (GstClContext * ctx)
{
  guint64 n = 0;
  gst_cl_context_get_kernel_stats (ctx, GST_CL_MOTION_SEARCH_LABEL, &n, NULL,
      NULL);
  return n;
}

/* A hierarchical search told that its reference is the last search's
 * current picture (gst_cl_motion_search_set_reference_is_last) finds the
 * vectors of one that is not told, with one launch fewer (the
 * reference's decimation), on a stream searched both ways in turn; where
 * the last search made no levels (the first search, after
 * gst_cl_motion_search_forget(), after a new size) it decimates the
 * reference as usual. The pictures lie in buffers of different layouts. */
GST_START_TEST (test_search_reference_is_last)
{
  static const gint sizes[][2] = { {100, 70}, {211, 97}, {33, 47} };
  GstClContext *ctx = test_get_shared_context ();
  GstClMotionSearchParams params = { 16, 16, TRUE, 0, 0.0,
    GST_CL_MOTION_METHOD_HIERARCHICAL
  };
  GstClMotionSearch *told, *plain;
  SearchPictures sp[G_N_ELEMENTS (sizes)];
  GError *error = NULL;
  guint32 rng = test_seed ("reference-is-last", 1);
  guint step, z;

  told = gst_cl_motion_search_new (ctx, &params, &error);
  plain = gst_cl_motion_search_new (ctx, &params, &error);
  fail_unless (told && plain, "%s", error ? error->message : "?");
  for (z = 0; z < G_N_ELEMENTS (sizes); z++) {
    GstVideoInfo info;
    gst_video_info_set_format (&info, GST_VIDEO_FORMAT_GRAY8, sizes[z][0],
        sizes[z][1]);
    search_pictures_make (&sp[z], &info, CONTENT_NATURAL, 5, -3, &rng);
  }
  /* each size searched forth and back three times (each search's
   * reference the last one's current picture), then the first size again
   * after a forget */
  for (step = 0; step < 3 * G_N_ELEMENTS (sizes) + 3; step++) {
    const guint zs = MIN (step / 3, G_N_ELEMENTS (sizes));
    SearchPictures *p = &sp[zs % G_N_ELEMENTS (sizes)];
    const GstClPlane *cur = step % 2 ? &p->cl_ref : &p->cl_cur;
    const GstClPlane *ref = step % 2 ? &p->cl_cur : &p->cl_ref;
    /* the last search made this reference's levels */
    const gboolean kept = step % 3 != 0;
    guint bx, by, n;
    guint64 before, told_n, plain_n;
    GstClMotionVector *got[2];
    cl_mem vectors[2];
    cl_int ret;
    gint i;

    if (zs == G_N_ELEMENTS (sizes) && step % 3 == 0) {
      gst_cl_motion_search_forget (told);
      gst_cl_motion_search_forget (plain);
    }
    gst_cl_motion_search_grid (told, cur->width, cur->height, &bx, &by);
    n = bx * by;
    for (i = 0; i < 2; i++) {
      GstClMotionSearch *ms = i ? plain : told;
      vectors[i] = clCreateBuffer (ctx->context, CL_MEM_READ_WRITE,
          n * sizeof (GstClMotionVector), NULL, &ret);
      fail_unless (ret == CL_SUCCESS);
      /* told every time: it must know when it has no levels to take */
      if (!i)
        gst_cl_motion_search_set_reference_is_last (ms, TRUE);
      before = search_launches (ctx);
      fail_unless (gst_cl_motion_search_run (ms, cur, ref, vectors[i],
              &error), "%s", error ? error->message : "?");
      if (i)
        plain_n = search_launches (ctx) - before;
      else
        told_n = search_launches (ctx) - before;
      got[i] = g_new (GstClMotionVector, n);
      ret = clEnqueueReadBuffer (ctx->queue, vectors[i], CL_TRUE, 0,
          n * sizeof (GstClMotionVector), got[i], 0, NULL, NULL);
      fail_unless (ret == CL_SUCCESS);
    }
    fail_unless (memcmp (got[0], got[1], n * sizeof (GstClMotionVector)) ==
        0, "search %u (%dx%d): other vectors", step, cur->width,
        cur->height);
    fail_unless_equals_int ((gint) told_n, (gint) plain_n - (kept ? 1 : 0));
    for (i = 0; i < 2; i++) {
      clReleaseMemObject (vectors[i]);
      g_free (got[i]);
    }
  }
  gst_cl_motion_search_free (told);
  gst_cl_motion_search_free (plain);
  for (z = 0; z < G_N_ELEMENTS (sizes); z++)
    search_pictures_clear (&sp[z]);
}

GST_END_TEST;

/* The search from seed vectors (gst_cl_motion_search_run_seeded) against
 * its C reference: sizes of hier_sizes, every content, panned, each
 * effort, with and without half-pel refinement (by SAD and by SATD) and
 * a price, whole or at full resolution only; seeds the pan's vectors
 * divided by the scale, then with noise, then far past the search's limit
 * once scaled (clamped), at scales 1, 2, 3, -2, 2/3 and -1/3 (rounded to
 * the nearest half-pel, halves away from zero). Where the seed is the
 * pan, at full resolution only, every block whose prediction lies inside
 * the picture finds it exactly, far outside the window. */
GST_START_TEST (test_search_seeded)
{
  static const gint scales[][2] = { {1, 1}, {2, 1}, {3, 1}, {-2, 1},
  {2, 3}, {-1, 3}
  };
  static const GstClMotionEffort efforts[] = { GST_CL_MOTION_EFFORT_LOW,
    GST_CL_MOTION_EFFORT_MEDIUM, GST_CL_MOTION_EFFORT_HIGH
  };
  GstClContext *ctx = test_get_shared_context ();
  gint w = hier_sizes[__i__].w, h = hier_sizes[__i__].h;
  gboolean large = w > 1000;
  guint32 rng = test_seed ("seeded", w * 7 + h);
  GstVideoInfo info;
  guint c, bx, by, n, i;

  gst_video_info_set_format (&info, GST_VIDEO_FORMAT_GRAY8, w, h);
  bx = (w + 15) / 16;
  by = (h + 15) / 16;
  n = bx * by;
  /* each seed at each scale once, the contents and efforts in turn (each
   * pair of them comes) */
  for (c = 0; c < 3 * G_N_ELEMENTS (scales); c++) {
    guint s = c % G_N_ELEMENTS (scales);
    Content content = (c + c / G_N_ELEMENTS (scales)) % N_CONTENTS;
    gint num = scales[s][0], den = scales[s][1];
    guint kind = c / G_N_ELEMENTS (scales);
    GstClMotionEffort effort = efforts[c / 3 % G_N_ELEMENTS (efforts)];
    gint subpel = c % 4 == 3 ? REF_SUBPEL_NONE : c % 2 ? REF_SUBPEL_SAD :
        REF_SUBPEL_SATD;
    guint price = c % 5 == 1 ? 40 : 0;
    gboolean whole = c % 7 >= 4;
    /* a pan of whole samples that the seed times the scale gives
     * exactly, past a window of 16 */
    gint kx = c % 2 ? 3 : -2, ky = (gint) (c % 3) - 1;
    gint px = 6 * num * kx, py = 6 * num * ky;
    GstClMotionSearchParams params = { 16, 16, subpel != REF_SUBPEL_NONE,
      0, 0.0, GST_CL_MOTION_METHOD_HIERARCHICAL
    };
    GstClMotionVector *seed, *got, *exp;
    SearchPictures sp;
    GstClMotionSearch *ms;
    GError *error = NULL;
    cl_mem seed_mem, vectors;
    cl_int ret;
    gchar *desc;

    /* on the largest picture a third of the cases */
    if (large && c % 3 != 0)
      continue;
    seed = g_new (GstClMotionVector, n);
    got = g_new (GstClMotionVector, n);
    desc = g_strdup_printf ("%dx%d %s, pan (%d,%d), %s seed times %d/%d, "
        "effort %d, half-pel %d, price %u%s", w, h, content_names[content],
        px, py, kind == 0 ? "the pan's" : kind == 1 ? "a noisy" :
        "an extreme", num, den, effort, subpel, price,
        whole ? ", whole" : "");
    for (i = 0; i < n; i++) {
      gint nx = (gint) (test_rng_next (&rng) % 7) - 3;
      gint ny = (gint) (test_rng_next (&rng) % 7) - 3;
      seed[i].dx = 12 * den * kx + (kind ? nx : 0);
      seed[i].dy = 12 * den * ky + (kind ? ny : 0);
      if (kind == 2) {
        seed[i].dx = i % 2 ? G_MAXINT16 / 4 : -G_MAXINT16 / 4 + nx;
        seed[i].dy = i % 3 ? 700 + ny : -700;
      }
      seed[i].sad = test_rng_next (&rng);
    }
    search_pictures_make (&sp, &info, content, px, py, &rng);
    seed_mem = clCreateBuffer (ctx->context, CL_MEM_READ_ONLY |
        CL_MEM_COPY_HOST_PTR, n * sizeof (GstClMotionVector), seed, &ret);
    fail_unless (ret == CL_SUCCESS);
    vectors = clCreateBuffer (ctx->context, CL_MEM_READ_WRITE,
        n * sizeof (GstClMotionVector), NULL, &ret);
    fail_unless (ret == CL_SUCCESS);

    ms = gst_cl_motion_search_new (ctx, &params, &error);
    fail_unless (ms != NULL, "%s: %s", desc, error ? error->message : "?");
    gst_cl_motion_search_set_effort (ms, effort);
    gst_cl_motion_search_set_subpel_satd (ms, subpel == REF_SUBPEL_SATD);
    gst_cl_motion_search_set_vector_price (ms, price);
    fail_unless (gst_cl_motion_search_run_seeded (ms, &sp.cl_cur,
            &sp.cl_ref, seed_mem, num, den, whole, vectors, &error),
        "%s: %s", desc, error ? error->message : "?");
    ret = clEnqueueReadBuffer (ctx->queue, vectors, CL_TRUE, 0,
        n * sizeof (GstClMotionVector), got, 0, NULL, NULL);
    fail_unless (ret == CL_SUCCESS, "clEnqueueReadBuffer: %s",
        gst_cl_error_name (ret));
    {
      RefPlane rc = ref_plane (&sp.pcur, 0), rr = ref_plane (&sp.pref, 0);
      exp = g_new (GstClMotionVector, n);
      ref_motion_search_seeded (&rc, &rr, 16, subpel, effort, price, seed,
          num, den, whole, exp);
    }
    compare_vectors (got, exp, bx, n, desc);
    if (kind == 0 && content != CONTENT_RANDOM && !whole) {
      guint checked = 0, b;
      for (b = 0; b < n; b++) {
        gint x0 = b % bx * 16, y0 = b / bx * 16;
        if (x0 + px < 0 || y0 + py < 0 || x0 + px + MIN (16, w - x0) > w ||
            y0 + py + MIN (16, h - y0) > h)
          continue;
        checked++;
        /* (black and white cells may match exactly elsewhere too) */
        fail_unless (got[b].sad == 0 && (content == CONTENT_BINARY ||
                (got[b].dx == 2 * px && got[b].dy == 2 * py)),
            "%s: block %u (%d,%d) SAD %u", desc, b, got[b].dx, got[b].dy,
            got[b].sad);
      }
      fail_unless (w < 600 || checked > n / 2, "%s: %u blocks checked",
          desc, checked);
    }
    gst_cl_motion_search_free (ms);
    clReleaseMemObject (seed_mem);
    clReleaseMemObject (vectors);
    search_pictures_clear (&sp);
    g_free (seed);
    g_free (got);
    g_free (exp);
    g_free (desc);
  }
}

GST_END_TEST;

/* The hierarchical search over the widest and the narrowest windows. */
GST_START_TEST (test_search_hierarchical_wide)
{
#define HIER GST_CL_MOTION_METHOD_HIERARCHICAL, GST_CL_MOTION_EFFORT_MEDIUM, \
    FALSE, 0
  static const SearchCase cases[] = {
    {33, 47, 16, 1, TRUE, CONTENT_RANDOM, 0, 0, HIER},
    {211, 97, 8, 3, FALSE, CONTENT_NATURAL, -3, 2, HIER},
    {640, 480, 16, 128, FALSE, TRUE, -101, 62, HIER},
    {333, 211, 8, 64, FALSE, TRUE, 45, -37, HIER},
    {17, 9, 8, 128, TRUE, CONTENT_RANDOM, 0, 0, HIER},
    {640, 480, 16, 128, TRUE, CONTENT_RANDOM, 0, 0, HIER},
  };
#undef HIER
  check_search (&cases[__i__]);
}

GST_END_TEST;

/* The hierarchical search at its low and high effort against the C
 * reference: block sizes 16 and 8, random, natural and black and white
 * content, panned (the pan found exactly in the interior at high effort),
 * with and without half-pel refinement. */
GST_START_TEST (test_search_hierarchical_effort)
{
  static const GstClMotionEffort efforts[] = {
    GST_CL_MOTION_EFFORT_LOW, GST_CL_MOTION_EFFORT_HIGH
  };
  guint b, e, n;

  for (b = 0; b < 2; b++) {
    for (e = 0; e < G_N_ELEMENTS (efforts); e++) {
      for (n = 0; n < 2 * N_CONTENTS; n++) {
        SearchCase sc = { hier_sizes[__i__].w, hier_sizes[__i__].h,
          b ? 8 : 16, 16, n & 1, n >> 1, (b + n) % 2 ? 5 : -9, 7 - (gint) n,
          GST_CL_MOTION_METHOD_HIERARCHICAL, efforts[e], FALSE, 0
        };
        /* on the largest picture one content and half-pel choice each */
        if (hier_sizes[__i__].w > 1000 && n != (b + e) % (2 * N_CONTENTS))
          continue;
        check_search (&sc);
      }
    }
  }
}

GST_END_TEST;

/* The hierarchical search with its vectors priced against the C
 * reference: block sizes 16 and 8, random, natural and black and white
 * content, panned, with and without half-pel refinement, low to the
 * largest prices; the price changes vectors (or this proves nothing). */
GST_START_TEST (test_search_hierarchical_priced)
{
  static const guint prices[] = { 8, 160, GST_CL_MOTION_VECTOR_PRICE_MAX };
  gboolean large = hier_sizes[__i__].w > 1000;
  guint b, p, n, differ = 0;

  for (b = 0; b < 2; b++) {
    for (p = 0; p < G_N_ELEMENTS (prices); p++) {
      for (n = 0; n < 2 * N_CONTENTS; n++) {
        SearchCase sc = { hier_sizes[__i__].w, hier_sizes[__i__].h,
          b ? 8 : 16, 16, n & 1, n >> 1, (b + n) % 2 ? 6 : -11, 5 - (gint) n,
          GST_CL_MOTION_METHOD_HIERARCHICAL, GST_CL_MOTION_EFFORT_MEDIUM,
          n & 1, prices[p]
        };
        if (large && n != (b + p) % (2 * N_CONTENTS))
          continue;
        differ += check_search (&sc);
      }
    }
  }
  fail_unless (hier_sizes[__i__].w < 600 || differ > 0,
      "the price changed no vector");
}

GST_END_TEST;

/* Half-pel positions ranked by SATD against the C reference: both
 * methods, random, natural and black and white content, sizes with
 * partial blocks (ranked by SAD) and blocks of 8 (unchanged) */
static const struct
{
  gint w, h;
} satd_sizes[] = {
  {16, 16}, {33, 47}, {211, 97}, {640, 480},
};

GST_START_TEST (test_search_satd)
{
  guint m, n;

  for (m = 0; m < 3; m++) {
    for (n = 0; n < N_CONTENTS; n++) {
      SearchCase sc = { satd_sizes[__i__].w, satd_sizes[__i__].h,
        m == 2 ? 8 : 16, 16, TRUE, n, 5 - (gint) n, (gint) n - 3,
        m ? GST_CL_MOTION_METHOD_HIERARCHICAL : GST_CL_MOTION_METHOD_FULL,
        GST_CL_MOTION_EFFORT_MEDIUM, TRUE, 0
      };
      check_search (&sc);
    }
  }
}

GST_END_TEST;

/* Parameters the search refuses, with a message. */
GST_START_TEST (test_bad_params)
{
  GstClContext *ctx = test_get_shared_context ();
  const GstClMotionSearchParams bad[] = {
    {12, 16, FALSE, 0, 0.0, GST_CL_MOTION_METHOD_FULL},
    {16, 0, FALSE, 0, 0.0, GST_CL_MOTION_METHOD_FULL},
    {16, GST_CL_MOTION_SEARCH_MAX_RANGE + 1, FALSE, 0, 0.0,
        GST_CL_MOTION_METHOD_FULL},
    {16, 16, FALSE, 0, -1.0, GST_CL_MOTION_METHOD_FULL},
    {16, 16, FALSE, 0, 100.0, GST_CL_MOTION_METHOD_FULL},
    /* luma only */
    {16, 16, FALSE, 0, 1.0, GST_CL_MOTION_METHOD_HIERARCHICAL},
    {16, 16, FALSE, 0, 0.0, (GstClMotionMethod) 7},
  };
  guint i;

  for (i = 0; i < G_N_ELEMENTS (bad); i++) {
    GError *error = NULL;
    fail_unless (gst_cl_motion_search_new (ctx, &bad[i], &error) == NULL);
    fail_unless (error != NULL && error->message[0]);
    g_error_free (error);
  }
}

GST_END_TEST;

/* ---- the element ---- */

/* A harness of clmotionsearch with @props over its defaults */
static GstHarness *
new_harness_over_defaults (const gchar * props)
{
  return test_harness_new ("clmotionsearch", props);
}

/* ... over the full-pel exhaustive search, which @props may change */
static GstHarness *
new_harness (const gchar * props)
{
  gchar *all = g_strdup_printf ("subpel=false method=full %s", props ?
      props : "");
  GstHarness *h = new_harness_over_defaults (all);
  g_free (all);
  return h;
}

static void
set_caps (GstHarness * h, const GstVideoInfo * info, gboolean cl)
{
  GstCaps *caps = gst_video_info_to_caps (info);
  if (cl)
    gst_caps_set_features (caps, 0,
        gst_caps_features_new (GST_CAPS_FEATURE_MEMORY_CL, NULL));
  gst_harness_set_src_caps (h, caps);
}

/* A copy of @buf in OpenCL memory of the shared context. */
static GstBuffer *
to_cl (GstBuffer * buf)
{
  GstAllocator *alloc = gst_cl_allocator_new (test_get_shared_context ());
  gsize size = gst_buffer_get_size (buf);
  GError *error = NULL;
  GstMemory *mem = gst_cl_allocator_alloc_memory (alloc, size, &error);
  GstBuffer *out = gst_buffer_new ();
  GstMapInfo map;

  fail_unless (mem != NULL, "%s", error ? error->message : "?");
  gst_object_unref (alloc);
  gst_buffer_append_memory (out, mem);
  gst_buffer_copy_into (out, buf, GST_BUFFER_COPY_METADATA, 0, -1);
  fail_unless (gst_buffer_map (out, &map, GST_MAP_WRITE));
  gst_buffer_extract (buf, 0, map.data, size);
  gst_buffer_unmap (out, &map);
  return out;
}

/* The vectors of @out's meta, checked against its description. */
static GstClMotionVector *
meta_vectors (GstBuffer * out, const GstVideoInfo * info, guint bs,
    guint range, gboolean subpel, const gchar * desc)
{
  GstClMotionMeta *meta = gst_buffer_get_cl_motion_meta (out);
  GstClMotionVector *got;
  GError *error = NULL;
  guint bx = (GST_VIDEO_INFO_WIDTH (info) + bs - 1) / bs;
  guint by = (GST_VIDEO_INFO_HEIGHT (info) + bs - 1) / bs;

  fail_unless (meta != NULL, "%s: no motion meta", desc);
  fail_unless (meta->context == test_get_shared_context ());
  fail_unless_equals_int (meta->blocks_x, bx);
  fail_unless_equals_int (meta->blocks_y, by);
  fail_unless_equals_int (meta->block_size, bs);
  fail_unless_equals_int (meta->search_range, range);
  fail_unless_equals_int (meta->subpel, subpel);
  got = g_new (GstClMotionVector, bx * by);
  fail_unless (gst_cl_motion_meta_read (meta, got, &error), "%s: %s", desc,
      error ? error->message : "?");
  return got;
}

/* The vectors of @out, frame @i of @frames out of the element, equal to
 * the C reference's between frames i and i - 1, whose search follows
 * *@history (then replaced by this frame's reference vectors); returns
 * the element's vectors, to free. */
static GstClMotionVector *
check_with_reference (GstBuffer * out, const GstVideoInfo * info,
    GstBuffer ** frames, guint i, guint bs, guint range, gint subpel,
    guint weight_q, GstClMotionMethod method, guint price,
    GstClMotionVector ** history, const gchar * desc)
{
  gint gx = (GST_VIDEO_INFO_WIDTH (info) + bs - 1) / bs;
  gint gy = (GST_VIDEO_INFO_HEIGHT (info) + bs - 1) / bs;
  GstClMotionVector *got = meta_vectors (out, info, bs, range,
      subpel != REF_SUBPEL_NONE, desc);
  GstClMotionVector *exp;
  Planes pc, pr;

  planes_get (&pc, info, frames[i]);
  planes_get (&pr, info, frames[i - 1]);
  exp = reference_vectors (&pc, &pr, bs, range, subpel, weight_q, method,
      GST_CL_MOTION_EFFORT_MEDIUM, price, *history);
  compare_vectors (got, exp, gx, gx * gy, desc);
  planes_clear (&pc);
  planes_clear (&pr);
  g_free (*history);
  *history = exp;
  return got;
}

/* Pushes @frames (n of them, @info) one by one and checks each output
 * after the first against the reference search of it and its
 * predecessor, by the element's method (the hierarchical search ignores
 * @weight_q). */
static void
run_sequence (GstHarness * h, const GstVideoInfo * info, GstBuffer ** frames,
    guint n, gboolean cl, guint bs, guint range, gint subpel,
    guint weight_q, gint px, gint py, const gchar * what)
{
  GstClMotionMethod method;
  GstClMotionVector *history = NULL;
  gdouble vector_cost;
  guint i, price;

  g_object_get (h->element, "method", &method, "vector-cost", &vector_cost,
      NULL);
  method = gst_cl_motion_method_resolve (method);
  price = (guint) lround (vector_cost * 16);
  if (method == GST_CL_MOTION_METHOD_HIERARCHICAL)
    weight_q = 0;
  set_caps (h, info, cl);
  for (i = 0; i < n; i++) {
    GstBuffer *in = cl ? to_cl (frames[i]) : gst_buffer_ref (frames[i]);
    gchar *desc = g_strdup_printf ("%s %s %dx%d%s, frame %u", what,
        GST_VIDEO_INFO_NAME (info), GST_VIDEO_INFO_WIDTH (info),
        GST_VIDEO_INFO_HEIGHT (info), cl ? " (OpenCL memory)" : "", i);
    GstBuffer *out = test_push_and_pull (h, in, desc);

    fail_unless (gst_buffer_peek_memory (out, 0) ==
        gst_buffer_peek_memory (in, 0), "%s: the frame was copied", desc);
    if (i == 0) {
      fail_unless (gst_buffer_get_cl_motion_meta (out) == NULL,
          "%s: a meta on the first frame", desc);
    } else {
      GstClMotionVector *got;

      fail_unless_equals_uint64 (gst_buffer_get_cl_motion_meta
          (out)->reference_pts, GST_BUFFER_PTS (frames[i - 1]));
      fail_unless_equals_int (gst_buffer_get_cl_motion_meta (out)->method,
          method);
      got = check_with_reference (out, info, frames, i, bs, range, subpel,
          weight_q, method, price, &history, desc);
      if (!subpel && !weight_q && !price)
        check_pan (got, GST_VIDEO_INFO_WIDTH (info),
            GST_VIDEO_INFO_HEIGHT (info), bs, range, px, py,
            method == GST_CL_MOTION_METHOD_HIERARCHICAL, desc);
      g_free (got);
    }
    gst_buffer_unref (out);
    gst_buffer_unref (in);
    g_free (desc);
  }
  g_free (history);
}

/* Frames of the texture (natural or binary) panned by (px, py) per
 * frame: frame t shows it from (t * px, t * py), so each block of frame t
 * is in frame t - 1 at its place + (px, py). */
static GstBuffer **
panned_frames_of (const GstVideoInfo * info, Content content, guint n,
    gint px, gint py)
{
  GstBuffer **frames = g_new (GstBuffer *, n);
  guint i;

  for (i = 0; i < n; i++) {
    /* away from the origin: the texture's edges are not at 0 */
    frames[i] = make_frame (info, content, 300 + i * px, 200 + i * py,
        NULL);
    GST_BUFFER_PTS (frames[i]) = i * GST_SECOND / 30;
    GST_BUFFER_DURATION (frames[i]) = GST_SECOND / 30;
  }
  return frames;
}

static GstBuffer **
panned_frames (const GstVideoInfo * info, guint n, gint px, gint py)
{
  return panned_frames_of (info, CONTENT_NATURAL, n, px, py);
}

static void
free_frames (GstBuffer ** frames, guint n)
{
  guint i;
  for (i = 0; i < n; i++)
    gst_buffer_unref (frames[i]);
  g_free (frames);
}

static const struct
{
  gint px, py;
} pans[] = {
  {3, -2}, {-5, 7}, {0, 0}, {-16, 15}, {12, -9}, {20, 1},
};

/* The texture panned: the exact vector with SAD 0 wherever it is a
 * candidate, the reference's best elsewhere (edges, pans beyond the
 * range). */
GST_START_TEST (test_pan)
{
  GstVideoInfo info;
  guint b;

  gst_video_info_set_format (&info, GST_VIDEO_FORMAT_I420, 96, 72);
  for (b = 0; b < 2; b++) {
    guint bs = b ? 8 : 16;
    gchar *props = g_strdup_printf ("block-size=%u search-range=16", bs);
    GstHarness *h = new_harness (props);
    GstBuffer **frames = panned_frames (&info, 3, pans[__i__].px,
        pans[__i__].py);

    run_sequence (h, &info, frames, 3, FALSE, bs, 16, FALSE, 0,
        pans[__i__].px, pans[__i__].py, "pan");
    free_frames (frames, 3);
    test_harness_teardown (h);
    g_free (props);
  }
}

GST_END_TEST;

/* The defaults are what clmpegenc's own search does (half-pel, the
 * device kind's method), so that clmotionsearch ! clmpegenc codes as
 * well as clmpegenc alone; the meta names the method that ran. */
GST_START_TEST (test_defaults)
{
  GstVideoInfo info;
  GstHarness *h = new_harness_over_defaults (NULL);
  GstClMotionMethod method;
  GstBuffer **frames;
  gboolean subpel;

  GParamSpec *pspec;
  GEnumValue *cost;
  gint cost_value;

  g_object_get (h->element, "subpel", &subpel, "method", &method, NULL);
  fail_unless (subpel);
  fail_unless_equals_int (method, GST_CL_MOTION_METHOD_AUTO);
  /* clmpegenc's with rdo */
  g_object_get (h->element, "subpel-cost", &cost_value, NULL);
  pspec = g_object_class_find_property (G_OBJECT_GET_CLASS (h->element),
      "subpel-cost");
  cost = g_enum_get_value (G_PARAM_SPEC_ENUM (pspec)->enum_class,
      cost_value);
  fail_unless (cost != NULL);
  fail_unless_equals_string (cost->value_nick, "satd");
  gst_video_info_set_format (&info, GST_VIDEO_FORMAT_I420, 96, 72);
  frames = panned_frames (&info, 3, 3, -2);
  run_sequence (h, &info, frames, 3, FALSE, 16, 16, REF_SUBPEL_SATD, 0, 3,
      -2, "defaults");
  free_frames (frames, 3);
  test_harness_teardown (h);
}

GST_END_TEST;

/* method=hierarchical through the element: the C reference's vectors in
 * every format, system and OpenCL memory, with and without half-pel
 * refinement; chroma-weight does not apply (the meta says 0), and the pan
 * is found in the interior. */
GST_START_TEST (test_element_hierarchical)
{
  static const GstVideoFormat formats[] = {
    GST_VIDEO_FORMAT_I420, GST_VIDEO_FORMAT_NV12, GST_VIDEO_FORMAT_Y444,
    GST_VIDEO_FORMAT_GRAY8,
  };
  guint f;

  for (f = 0; f < G_N_ELEMENTS (formats); f++) {
    gboolean subpel = f % 2, cl = f / 2 == 1;
    guint bs = f < 2 ? 16 : 8;
    /* (and the last with its vectors priced) */
    gchar *props = g_strdup_printf ("method=hierarchical block-size=%u "
        "search-range=16 subpel=%d chroma-weight=2 vector-cost=%s", bs,
        subpel, f == 3 ? "10.5" : "0");
    GstHarness *h = new_harness (props);
    GstVideoInfo info;
    GstBuffer **frames;
    GstClMotionMeta *meta;
    GstBuffer *out;

    gst_video_info_set_format (&info, formats[f], 161, 97);
    frames = panned_frames (&info, 3, -5, 7);
    /* (subpel-cost=satd, the default, ranks whole blocks of 16) */
    run_sequence (h, &info, frames, 3, cl, bs, 16, subpel ? REF_SUBPEL_SATD :
        REF_SUBPEL_NONE, 0, -5, 7, "hierarchical");
    /* once more for the meta's fields */
    out = test_push_and_pull (h, gst_buffer_ref (frames[1]), "meta");
    meta = gst_buffer_get_cl_motion_meta (out);
    fail_unless (meta != NULL);
    fail_unless_equals_int (meta->method, GST_CL_MOTION_METHOD_HIERARCHICAL);
    fail_unless (meta->chroma_weight == 0.0);
    gst_buffer_unref (out);
    free_frames (frames, 3);
    test_harness_teardown (h);
    g_free (props);
  }
}

GST_END_TEST;

/* Pushes @n frames through @h (method=hierarchical, block-size 16,
 * search-range 16, no half-pel): every frame's vectors are the C
 * reference's, each search following its predecessor's; the vectors of
 * frame @check_at are the pan (@px, @py) for more than 20 interior
 * blocks, away from the edges by more than @reach. */
static void
follow_sequence (GstHarness * h, const GstVideoInfo * info,
    GstBuffer ** frames, gint n, gint check_at, gint px, gint py, gint reach,
    const gchar * what)
{
  GstClMotionVector *history = NULL;
  gint i, w = GST_VIDEO_INFO_WIDTH (info), hh = GST_VIDEO_INFO_HEIGHT (info);

  set_caps (h, info, FALSE);
  for (i = 0; i < n; i++) {
    gchar *desc = g_strdup_printf ("%s, frame %d", what, i);
    GstBuffer *out = test_push_and_pull (h, gst_buffer_ref (frames[i]),
        desc);

    if (i > 0) {
      GstClMotionVector *got = check_with_reference (out, info, frames, i,
          16, 16, FALSE, 0, GST_CL_MOTION_METHOD_HIERARCHICAL, 0, &history,
          desc);

      if (i == check_at)
        fail_unless (check_pan (got, w, hh, 16, reach, px, py, TRUE,
                desc) > 20);
      g_free (got);
    }
    gst_buffer_unref (out);
    g_free (desc);
  }
  g_free (history);
}

/* method=hierarchical follows motion past its window: a pan that speeds
 * up by 9 samples across and 6 down each frame, which the window of
 * range 16 around the last vector always holds, is found at 45 and 30
 * samples, far outside the window around zero. */
GST_START_TEST (test_element_follows_pan)
{
  GstHarness *h = new_harness ("method=hierarchical block-size=16 "
      "search-range=16 subpel=false");
  GstVideoInfo info;
  GstBuffer *frames[6];
  gint i, x = 300, y = 200;

  gst_video_info_set_format (&info, GST_VIDEO_FORMAT_GRAY8, 480, 320);
  for (i = 0; i < 6; i++) {
    /* frame i shows the texture from (x, y): its blocks sit in frame
     * i - 1 at their place + (9 i, 6 i) */
    x += 9 * i;
    y += 6 * i;
    frames[i] = make_frame (&info, CONTENT_NATURAL, x, y, NULL);
    GST_BUFFER_PTS (frames[i]) = i * GST_SECOND / 30;
  }
  follow_sequence (h, &info, frames, 6, 5, 45, 30, 46, "speeding pan");
  for (i = 0; i < 6; i++)
    gst_buffer_unref (frames[i]);
  test_harness_teardown (h);
}

GST_END_TEST;

/* After a discont the search follows nothing from before it: a pan of
 * (45, 30) a frame, which the element followed up to the cut, continues
 * past it; the first search after it gives the C reference's vectors of
 * a search with no history (on the natural texture, whose global motion
 * is ambiguous, the window of 16 does not find the pan; the stale
 * vectors would). */
GST_START_TEST (test_element_forgets_at_discont)
{
  GstHarness *h = new_harness ("method=hierarchical block-size=16 "
      "search-range=16 subpel=false");
  GstClMotionVector *history = NULL;
  GstVideoInfo info;
  GstBuffer *frames[8];
  gint i, x = 300, y = 200;

  gst_video_info_set_format (&info, GST_VIDEO_FORMAT_GRAY8, 480, 320);
  for (i = 0; i < 8; i++) {
    x += 9 * MIN (i, 5);
    y += 6 * MIN (i, 5);
    frames[i] = make_frame (&info, CONTENT_NATURAL, x, y, NULL);
    GST_BUFFER_PTS (frames[i]) = i * GST_SECOND / 30;
  }
  GST_BUFFER_FLAG_SET (frames[6], GST_BUFFER_FLAG_DISCONT);
  set_caps (h, &info, FALSE);
  for (i = 0; i < 8; i++) {
    gchar *desc = g_strdup_printf ("pan cut at frame 6, frame %d", i);
    GstBuffer *out = test_push_and_pull (h, gst_buffer_ref (frames[i]),
        desc);

    if (i == 6) {
      fail_unless (gst_buffer_get_cl_motion_meta (out) == NULL, "%s", desc);
      g_clear_pointer (&history, g_free);
    } else if (i > 0) {
      g_free (check_with_reference (out, &info, frames, i, 16, 16, FALSE, 0,
              GST_CL_MOTION_METHOD_HIERARCHICAL, 0, &history, desc));
    }
    gst_buffer_unref (out);
    g_free (desc);
  }
  g_free (history);
  for (i = 0; i < 8; i++)
    gst_buffer_unref (frames[i]);
  test_harness_teardown (h);
}

GST_END_TEST;

/* ... and finds a pan far past its window from the first search on,
 * with no vectors before to follow: the global motion of the picture
 * (-60 samples across, 36 down, against a window of 16), in every
 * direction. (Black and white cells: the natural texture repeats every
 * 29 samples across, and its column sums match at many shifts.) */
GST_START_TEST (test_element_finds_fast_pan)
{
  static const gint pans[][2] = { {-60, 36}, {52, -28}, {0, 44}, {-100, 0} };
  guint p;

  for (p = 0; p < G_N_ELEMENTS (pans); p++) {
    GstHarness *h = new_harness ("method=hierarchical block-size=16 "
        "search-range=16 subpel=false");
    GstVideoInfo info;
    GstBuffer **frames;
    gchar *what = g_strdup_printf ("pan (%d, %d)", pans[p][0], pans[p][1]);

    gst_video_info_set_format (&info, GST_VIDEO_FORMAT_GRAY8, 480, 320);
    frames = panned_frames_of (&info, CONTENT_BINARY, 3, pans[p][0],
        pans[p][1]);
    follow_sequence (h, &info, frames, 3, 1, pans[p][0], pans[p][1], 101,
        what);
    free_frames (frames, 3);
    test_harness_teardown (h);
    g_free (what);
  }
}

GST_END_TEST;

/* subpel-cost through the element, both methods, system and OpenCL
 * memory: the C reference's vectors with the half-pel positions ranked by
 * SATD, which differ from those ranked by SAD on random frames; set while
 * playing, sad applies from the next frame. */
GST_START_TEST (test_element_subpel_cost)
{
  static const gchar *const methods[] = { "full", "hierarchical" };
  guint m;

  for (m = 0; m < G_N_ELEMENTS (methods); m++) {
    gchar *props = g_strdup_printf ("method=%s search-range=8 subpel=true "
        "subpel-cost=satd", methods[m]);
    GstHarness *h = new_harness (props);
    guint32 rng = test_seed ("subpel-cost", m);
    GstVideoInfo info;
    GstBuffer *frames[5];
    Planes pc, pr;
    GstClMotionVector *by_sad, *by_satd;
    guint i, n, differ = 0;

    gst_video_info_set_format (&info, GST_VIDEO_FORMAT_I420, 96, 64);
    for (i = 0; i < G_N_ELEMENTS (frames); i++) {
      frames[i] = make_frame (&info, CONTENT_RANDOM, 0, 0, &rng);
      GST_BUFFER_PTS (frames[i]) = i * GST_SECOND / 30;
      GST_BUFFER_DURATION (frames[i]) = GST_SECOND / 30;
    }
    /* the two rankings disagree somewhere, or this proves nothing */
    planes_get (&pc, &info, frames[1]);
    planes_get (&pr, &info, frames[0]);
    by_sad = reference_vectors (&pc, &pr, 16, 8, REF_SUBPEL_SAD, 0,
        GST_CL_MOTION_METHOD_FULL, GST_CL_MOTION_EFFORT_MEDIUM, 0, NULL);
    by_satd = reference_vectors (&pc, &pr, 16, 8, REF_SUBPEL_SATD, 0,
        GST_CL_MOTION_METHOD_FULL, GST_CL_MOTION_EFFORT_MEDIUM, 0, NULL);
    n = (96 / 16) * (64 / 16);
    for (i = 0; i < n; i++)
      differ += by_sad[i].dx != by_satd[i].dx || by_sad[i].dy != by_satd[i].dy;
    fail_unless (differ > 0, "SAD and SATD rank alike on these frames");
    g_free (by_sad);
    g_free (by_satd);
    planes_clear (&pc);
    planes_clear (&pr);

    run_sequence (h, &info, frames, 3, m == 1, 16, 8, REF_SUBPEL_SATD, 0, 0,
        0, methods[m]);
    gst_util_set_object_arg (G_OBJECT (h->element), "subpel-cost", "sad");
    /* (a discont: the next frame starts over without a reference) */
    GST_BUFFER_FLAG_SET (frames[3], GST_BUFFER_FLAG_DISCONT);
    run_sequence (h, &info, frames + 3, 2, m == 1, 16, 8, REF_SUBPEL_SAD, 0,
        0, 0, methods[m]);
    for (i = 0; i < G_N_ELEMENTS (frames); i++)
      gst_buffer_unref (frames[i]);
    test_harness_teardown (h);
    g_free (props);
  }
}

GST_END_TEST;

/* The method enum: every value, by nick; auto stands for hierarchical on
 * every device (only it follows motion past the window). */
GST_START_TEST (test_method_enum)
{
  GEnumClass *klass = g_type_class_ref (GST_TYPE_CL_MOTION_METHOD);
  GstClContext *ctx = test_get_shared_context ();
  GstClMotionSearchParams p = { 16, 16, FALSE, 0, 0.0,
    GST_CL_MOTION_METHOD_AUTO
  };
  GstClMotionSearch *ms;
  GError *error = NULL;
  GEnumValue *v;

  v = g_enum_get_value_by_nick (klass, "full");
  fail_unless (v != NULL && v->value == GST_CL_MOTION_METHOD_FULL);
  v = g_enum_get_value_by_nick (klass, "hierarchical");
  fail_unless (v != NULL && v->value == GST_CL_MOTION_METHOD_HIERARCHICAL);
  v = g_enum_get_value_by_nick (klass, "auto");
  fail_unless (v != NULL && v->value == GST_CL_MOTION_METHOD_AUTO);
  fail_unless_equals_int (klass->n_values, 3);
  g_type_class_unref (klass);

  ms = gst_cl_motion_search_new (ctx, &p, &error);
  fail_unless (ms != NULL, "%s", error ? error->message : "");
  fail_unless_equals_int (gst_cl_motion_search_get_params (ms)->method,
      GST_CL_MOTION_METHOD_HIERARCHICAL);
  gst_cl_motion_search_free (ms);
}

GST_END_TEST;

/* Every format, in system and OpenCL memory, half-pel refined. */
GST_START_TEST (test_formats)
{
  static const GstVideoFormat formats[] = {
    GST_VIDEO_FORMAT_GRAY8, GST_VIDEO_FORMAT_I420, GST_VIDEO_FORMAT_NV12,
    GST_VIDEO_FORMAT_Y444,
  };
  guint f, cl;

  for (f = 0; f < G_N_ELEMENTS (formats); f++) {
    for (cl = 0; cl < 2; cl++) {
      GstHarness *h = new_harness ("block-size=8 search-range=8 subpel=true");
      GstVideoInfo info;
      GstBuffer **frames;

      gst_video_info_set_format (&info, formats[f], 67, 45);
      frames = panned_frames (&info, 3, 2, -3);
      run_sequence (h, &info, frames, 3, cl, 8, 8, TRUE, 0, 2, -3,
          "formats");
      free_frames (frames, 3);
      test_harness_teardown (h);
    }
  }
}

GST_END_TEST;

/* chroma-weight: the chroma SAD at the vector rounded down to the chroma
 * grid joins the cost; GRAY8 has none. Random content, where chroma
 * changes the choice. */
GST_START_TEST (test_chroma_weight)
{
  static const GstVideoFormat formats[] = {
    GST_VIDEO_FORMAT_I420, GST_VIDEO_FORMAT_NV12, GST_VIDEO_FORMAT_Y444,
    GST_VIDEO_FORMAT_GRAY8,
  };
  guint f, i;

  for (f = 0; f < G_N_ELEMENTS (formats); f++) {
    GstHarness *h = new_harness ("block-size=16 search-range=8 "
        "chroma-weight=1.5");
    GstVideoInfo info;
    GstBuffer *frames[3];
    guint32 rng = test_seed ("chroma", f);

    gst_video_info_set_format (&info, formats[f], 70, 50);
    for (i = 0; i < 3; i++) {
      frames[i] = make_frame (&info, CONTENT_RANDOM, 0, 0, &rng);
      GST_BUFFER_PTS (frames[i]) = i * GST_SECOND;
    }
    run_sequence (h, &info, frames, 3, f == 1, 16, 8, FALSE,
        formats[f] == GST_VIDEO_FORMAT_GRAY8 ? 0 : 384, NO_PAN, NO_PAN,
        "chroma");
    for (i = 0; i < 3; i++)
      gst_buffer_unref (frames[i]);
    test_harness_teardown (h);
  }
}

GST_END_TEST;

static gboolean
has_meta (GstHarness * h, GstBuffer * in)
{
  GstBuffer *out = test_push_and_pull (h, in, "frame");
  gboolean ret = gst_buffer_get_cl_motion_meta (out) != NULL;
  gst_buffer_unref (out);
  return ret;
}

/* No reference, no meta: the first frame, a discont, a flush, a caps
 * change; the frame after each has one again. */
GST_START_TEST (test_start_over)
{
  GstHarness *h = new_harness ("search-range=4");
  GstVideoInfo info, small;
  GstBuffer **frames, **other;
  GstBuffer *b;

  gst_video_info_set_format (&info, GST_VIDEO_FORMAT_I420, 48, 32);
  gst_video_info_set_format (&small, GST_VIDEO_FORMAT_I420, 33, 17);
  frames = panned_frames (&info, 8, 1, 1);
  other = panned_frames (&small, 2, 1, 1);
  set_caps (h, &info, FALSE);

  fail_if (has_meta (h, frames[0]));
  fail_unless (has_meta (h, frames[1]));
  b = gst_buffer_copy (frames[2]);
  GST_BUFFER_FLAG_SET (b, GST_BUFFER_FLAG_DISCONT);
  fail_if (has_meta (h, b), "a meta after a discont");
  gst_buffer_unref (b);
  fail_unless (has_meta (h, frames[3]));

  test_harness_flush (h);
  fail_if (has_meta (h, frames[4]), "a meta after a flush");
  fail_unless (has_meta (h, frames[5]));

  /* a new size: its own grid from the second frame on */
  run_sequence (h, &small, other, 2, FALSE, 16, 4, FALSE, 0, 1, 1,
      "caps change");
  /* and back */
  run_sequence (h, &info, frames + 6, 2, FALSE, 16, 4, FALSE, 0, 1, 1,
      "caps change back");

  free_frames (frames, 8);
  free_frames (other, 2);
  test_harness_teardown (h);
}

GST_END_TEST;

/* The messages' statistics are those of the meta's vectors. */
GST_START_TEST (test_messages)
{
  GstHarness *h = new_harness ("block-size=8 search-range=8 subpel=true "
      "post-messages=true");
  GstVideoInfo info;
  GstBuffer **frames;
  GstClMotionVector *vectors[4];
  GList *msgs, *l;
  guint i, n = 4, blocks;

  gst_video_info_set_format (&info, GST_VIDEO_FORMAT_I420, 64, 40);
  frames = panned_frames (&info, n, -3, 2);
  set_caps (h, &info, FALSE);
  blocks = 8 * 5;
  for (i = 0; i < n; i++) {
    GstBuffer *out = test_push_and_pull (h, frames[i], "messages");
    vectors[i] = i ? meta_vectors (out, &info, 8, 8, TRUE, "messages") : NULL;
    gst_buffer_unref (out);
  }
  fail_unless (gst_harness_push_event (h, gst_event_new_eos ()));

  msgs = test_pop_element_messages (h);
  fail_unless_equals_int (g_list_length (msgs), n - 1);
  for (l = msgs, i = 1; l; l = l->next, i++) {
    const GstStructure *s = gst_message_get_structure (l->data);
    gdouble mag = 0, sad = 0, zero = 0, v;
    guint64 ts;
    guint b, got_blocks;

    fail_unless (gst_structure_has_name (s, "clmotionsearch"));
    fail_unless (gst_structure_get_uint64 (s, "timestamp", &ts));
    fail_unless_equals_uint64 (ts, GST_BUFFER_PTS (frames[i]));
    fail_unless (gst_structure_get_uint (s, "blocks", &got_blocks));
    fail_unless_equals_int (got_blocks, blocks);
    for (b = 0; b < blocks; b++) {
      const GstClMotionVector *mv = &vectors[i][b];
      mag += sqrt (mv->dx * mv->dx + mv->dy * mv->dy) / 2.0;
      sad += mv->sad;
      zero += mv->dx == 0 && mv->dy == 0;
    }
    fail_unless (gst_structure_get_double (s, "mean-magnitude", &v));
    fail_unless (fabs (v - mag / blocks) < 1e-9, "mean-magnitude %g, "
        "expected %g", v, mag / blocks);
    /* most blocks move with the pan */
    fail_unless (v > 3.0 && v < 4.0, "mean-magnitude %g", v);
    fail_unless (gst_structure_get_double (s, "mean-sad", &v));
    fail_unless (fabs (v - sad / blocks) < 1e-9);
    fail_unless (gst_structure_get_double (s, "zero-share", &v));
    fail_unless (fabs (v - zero / blocks) < 1e-9);
  }
  g_list_free_full (msgs, (GDestroyNotify) gst_message_unref);
  for (i = 1; i < n; i++)
    g_free (vectors[i]);
  free_frames (frames, n);
  test_harness_teardown (h);
}

GST_END_TEST;

/* draw-vectors: only the luma of frames with vectors changes, each drawn
 * sample to white on dark or black on light, and every block centre gets
 * its dot. */
GST_START_TEST (test_draw)
{
  guint cl;

  for (cl = 0; cl < 2; cl++) {
    GstHarness *h = new_harness ("block-size=16 search-range=8 "
        "draw-vectors=true");
    GstVideoInfo info;
    GstBuffer **frames;
    guint i;

    gst_video_info_set_format (&info, GST_VIDEO_FORMAT_I420, 80, 50);
    frames = panned_frames (&info, 3, 4, 0);
    set_caps (h, &info, cl);
    for (i = 0; i < 3; i++) {
      GstBuffer *in = cl ? to_cl (frames[i]) : gst_buffer_ref (frames[i]);
      GstBuffer *out = test_push_and_pull (h, in, "draw");
      Planes po, pi;
      guint c, changed = 0;
      gint x, y, bx, by;

      planes_get (&po, &info, out);
      planes_get (&pi, &info, frames[i]);
      for (c = 1; c < 3; c++)
        fail_unless (memcmp (po.data[c], pi.data[c], po.w[c] * po.h[c]) == 0,
            "frame %u: chroma changed", i);
      for (y = 0; y < po.h[0]; y++)
        for (x = 0; x < po.w[0]; x++) {
          guint8 o = po.data[0][y * po.w[0] + x];
          guint8 v = pi.data[0][y * po.w[0] + x];
          if (o == v)
            continue;
          changed++;
          fail_unless (o == (v < 128 ? 255 : 0), "frame %u: (%d,%d) drawn "
              "as %u over %u", i, x, y, o, v);
        }
      if (i == 0) {
        fail_unless_equals_int (changed, 0);
      } else {
        for (by = 0; by < 4; by++)
          for (bx = 0; bx < 5; bx++) {
            gint cx = bx * 16 + 8, cy = by * 16 + MIN (16, 50 - by * 16) / 2;
            guint8 v = pi.data[0][cy * po.w[0] + cx];
            fail_unless_equals_int (po.data[0][cy * po.w[0] + cx],
                v < 128 ? 255 : 0);
          }
        /* the pan of 4 draws lines of 4 samples from most centres */
        fail_unless (changed > 20 * 4, "only %u samples drawn", changed);
      }
      planes_clear (&po);
      planes_clear (&pi);
      gst_buffer_unref (out);
      gst_buffer_unref (in);
    }
    free_frames (frames, 3);
    test_harness_teardown (h);
  }
}

GST_END_TEST;

static Suite *
motionsearch_suite (void)
{
  Suite *s = suite_create ("motionsearch");
  TCase *tc = test_suite_add_case (s);

  tcase_add_loop_test (tc, test_search, 0, G_N_ELEMENTS (search_sizes));
  tcase_add_loop_test (tc, test_search_large, 0, 2);
  tcase_add_test (tc, test_search_reference_is_last);
  tcase_add_loop_test (tc, test_search_hierarchical, 0,
      G_N_ELEMENTS (hier_sizes));
  tcase_add_loop_test (tc, test_search_hierarchical_wide, 0, 6);
  tcase_add_loop_test (tc, test_search_seeded, 0,
      G_N_ELEMENTS (hier_sizes));
  tcase_add_loop_test (tc, test_search_hierarchical_effort, 0,
      G_N_ELEMENTS (hier_sizes));
  tcase_add_loop_test (tc, test_search_hierarchical_priced, 0,
      G_N_ELEMENTS (hier_sizes));
  tcase_add_loop_test (tc, test_search_satd, 0, G_N_ELEMENTS (satd_sizes));
  tcase_add_test (tc, test_bad_params);
  tcase_add_loop_test (tc, test_pan, 0, G_N_ELEMENTS (pans));
  tcase_add_test (tc, test_formats);
  tcase_add_test (tc, test_element_hierarchical);
  tcase_add_test (tc, test_element_subpel_cost);
  tcase_add_test (tc, test_element_follows_pan);
  tcase_add_test (tc, test_element_finds_fast_pan);
  tcase_add_test (tc, test_element_forgets_at_discont);
  tcase_add_test (tc, test_method_enum);
  tcase_add_test (tc, test_defaults);
  tcase_add_test (tc, test_chroma_weight);
  tcase_add_test (tc, test_start_over);
  tcase_add_test (tc, test_messages);
  tcase_add_test (tc, test_draw);
  return s;
}

GST_CHECK_MAIN (motionsearch);
