/* gst-clvideo: rate-constrained motion search (GstClMotionLambda)
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * The device's vectors must equal those of motionlambda-ref.c, which
 * visits the blocks one by one, on random and natural-looking pictures of
 * several sizes, block sizes, ranges and lambdas, planes at odd offsets
 * and strides and a reference padded with garbage. The reference itself
 * is held to the bit counts of the standard's table and must differ from
 * a plain SAD search where lambda matters. clmotionsearch's `lambda`
 * property must give the same vectors in its meta.
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
#include "gstclmotionlambda.h"
#include <gst/cl/gstclmotionmeta.h>
#include "gstclmotionsearchcompute.h"
#include "motionlambda-ref.h"
#include "testutil.h"

static GstClContext *context;

static void
setup (void)
{
  context = test_get_shared_context ();
}

/* Shading, edges and grain of a picture that extends without end, so a
 * window of it moved by a vector is the same picture panned. */
static guint8
natural_sample (gint x, gint y)
{
  guint32 g = (guint32) (x * 2654435761u) ^ (guint32) (y * 40503u + 17);
  gdouble v;

  g ^= g >> 15;
  g *= 0x2c1b3c6du;
  g ^= g >> 12;
  v = 110 + 50 * sin (x * 0.09) * cos (y * 0.07) + 20 * sin ((x - y) *
      0.31) + ((x / 23 + y / 19) % 2) * 30 + (gint) (g % 9) - 4;
  return (guint8) CLAMP ((gint) v, 0, 255);
}

typedef enum
{
  RANDOM,
  NATURAL,
} Content;

typedef struct
{
  guint width, height;
  guint block, range, lambda;
  Content content;
  gint pan_x, pan_y;            /* natural: cur (x, y) = ref (x + pan) */
} Case;

/* A plane in a buffer of its own at a byte offset, with padded rows. */
static void
upload_plane (const guint8 * samples, guint width, guint height,
    gsize offset, guint stride, GstClPlane * plane)
{
  gsize size = offset + (gsize) stride * height;
  guint8 *data = g_malloc (size);
  GError *error = NULL;
  cl_int ret;
  guint y;

  memset (data, 0xa5, size);
  for (y = 0; y < height; y++)
    memcpy (data + offset + (gsize) y * stride, samples + (gsize) y * width,
        width);
  plane->mem = clCreateBuffer (context->context, CL_MEM_READ_ONLY |
      CL_MEM_COPY_HOST_PTR, size, data, &ret);
  fail_unless (gst_cl_check (ret, "clCreateBuffer", &error), "%s",
      error ? error->message : "");
  plane->offset = offset;
  plane->stride = stride;
  plane->width = width;
  plane->height = height;
  plane->pixel_stride = 1;
  g_free (data);
}

static void
check_case (const Case * c)
{
  const guint bx_n = (c->width + c->block - 1) / c->block;
  const guint by_n = (c->height + c->block - 1) / c->block;
  const guint n = bx_n * by_n;
  /* the reference as an encoder keeps it: padded to whole blocks */
  const guint ref_w = bx_n * c->block, ref_h = by_n * c->block;
  guint8 *cur = g_malloc ((gsize) c->width * c->height);
  guint8 *ref = g_malloc ((gsize) ref_w * ref_h);
  GstClMotionVector *exp = g_new (GstClMotionVector, n);
  GstClMotionVector *got = g_new (GstClMotionVector, n);
  guint32 state = 0x9e3779b9u ^ (c->width * 7919u + c->height * 31u +
      c->range * 131u + c->lambda * 3u + c->block);
  gchar *desc = g_strdup_printf ("%ux%u %s, block %u, range %u, lambda %u",
      c->width, c->height, c->content == RANDOM ? "random" : "natural",
      c->block, c->range, c->lambda);
  GstClMotionLambda *ml;
  GstClPlane pcur, pref;
  GError *error = NULL;
  cl_mem vectors;
  cl_int ret;
  guint x, y, i;

  for (y = 0; y < ref_h; y++)
    for (x = 0; x < ref_w; x++) {
      /* outside the picture: garbage the search must not use */
      const gboolean inside = x < c->width && y < c->height;
      ref[(gsize) y * ref_w + x] = c->content == NATURAL && inside ?
          natural_sample (x, y) : test_rng_next (&state) & 0xff;
    }
  for (y = 0; y < c->height; y++)
    for (x = 0; x < c->width; x++)
      cur[(gsize) y * c->width + x] = c->content == NATURAL ?
          natural_sample (x + c->pan_x, y + c->pan_y) :
          test_rng_next (&state) & 0xff;

  ref_lambda_search (cur, c->width, ref, ref_w, c->width, c->height,
      c->block, c->range, c->lambda, ref_lambda_f_code (c->range), exp);

  ml = gst_cl_motion_lambda_new (context, c->block, c->range, c->lambda,
      &error);
  fail_unless (ml != NULL, "%s: %s", desc, error ? error->message : "?");
  upload_plane (cur, c->width, c->height, 3, c->width + 5, &pcur);
  upload_plane (ref, ref_w, ref_h, 64, ref_w + 64, &pref);
  vectors = clCreateBuffer (context->context, CL_MEM_READ_WRITE,
      n * sizeof (GstClMotionVector), NULL, &ret);
  fail_unless (ret == CL_SUCCESS);
  /* twice: nothing of one run may leak into the next */
  for (i = 0; i < 2; i++)
    fail_unless (gst_cl_motion_lambda_run (ml, &pcur, &pref, vectors,
            &error), "%s: %s", desc, error ? error->message : "?");
  ret = clEnqueueReadBuffer (context->queue, vectors, CL_TRUE, 0,
      n * sizeof (GstClMotionVector), got, 0, NULL, NULL);
  fail_unless (ret == CL_SUCCESS, "clEnqueueReadBuffer: %s",
      gst_cl_error_name (ret));

  for (i = 0; i < n; i++)
    fail_unless_each (got[i].dx == exp[i].dx && got[i].dy == exp[i].dy &&
        got[i].sad == exp[i].sad, "%s: block (%u,%u) got (%d,%d) SAD %u, "
        "expected (%d,%d) SAD %u", desc, i % bx_n, i / bx_n, got[i].dx,
        got[i].dy, got[i].sad, exp[i].dx, exp[i].dy, exp[i].sad);

  if (c->content == NATURAL && c->pan_x < (gint) c->range &&
      c->pan_x >= -(gint) c->range && c->pan_y < (gint) c->range &&
      c->pan_y >= -(gint) c->range) {
    /* where the pan is a candidate it is an exact match, and after the
     * first block of a row also the cheapest vector to code */
    for (i = 0; i < n; i++) {
      const gint x0 = (i % bx_n) * c->block, y0 = (i / bx_n) * c->block;
      const gint bw = MIN (c->block, c->width - x0);
      const gint bh = MIN (c->block, c->height - y0);
      if (i % bx_n == 0 || x0 + c->pan_x < 0 || y0 + c->pan_y < 0 ||
          x0 + c->pan_x + bw > (gint) c->width ||
          y0 + c->pan_y + bh > (gint) c->height ||
          got[i - 1].dx != 2 * c->pan_x || got[i - 1].dy != 2 * c->pan_y)
        continue;
      fail_unless (got[i].dx == 2 * c->pan_x && got[i].dy == 2 * c->pan_y &&
          got[i].sad == 0, "%s: block (%u,%u) got (%d,%d) SAD %u for the "
          "pan (%d,%d)", desc, i % bx_n, i / bx_n, got[i].dx, got[i].dy,
          got[i].sad, c->pan_x, c->pan_y);
    }
  }

  gst_cl_motion_lambda_free (ml);
  clReleaseMemObject (vectors);
  clReleaseMemObject (pcur.mem);
  clReleaseMemObject (pref.mem);
  g_free (cur);
  g_free (ref);
  g_free (exp);
  g_free (got);
  g_free (desc);
}

GST_START_TEST (test_bits)
{
  /* { delta, f_code, bits }: motion_code VLC + sign + f_code - 1 bits */
  static const gint table[][3] = {
    {0, 1, 1}, {1, 1, 3}, {-1, 1, 3}, {2, 1, 4}, {3, 1, 5}, {4, 1, 7},
    {7, 1, 8}, {8, 1, 10}, {10, 1, 10}, {11, 1, 11}, {15, 1, 11},
    {-16, 1, 11}, {16, 1, 11} /* wraps to -16 */ , {17, 1, 11} /* -15 */ ,
    {0, 2, 1}, {1, 2, 4}, {2, 2, 4}, {3, 2, 5}, {31, 2, 12}, {-32, 2, 12},
    {32, 2, 12} /* -32 */ , {-33, 2, 12} /* 31 */ , {-60, 2, 5} /* 4 */ ,
    {5, 3, 6}, {64, 3, 13} /* -64 */ , {-1, 7, 9},
  };
  guint i, r;

  for (i = 0; i < G_N_ELEMENTS (table); i++)
    fail_unless_equals_int (ref_lambda_component_bits (table[i][0],
            table[i][1]), table[i][2]);
  for (r = 1; r <= GST_CL_MOTION_LAMBDA_MAX_RANGE; r++) {
    const guint f_code = ref_lambda_f_code (r);
    const gint f = 1 << (f_code - 1);
    /* the window's vectors fit, and the next smaller f_code would not */
    fail_unless (-16 * f <= -2 * (gint) r && 2 * ((gint) r - 1) < 16 * f);
    fail_unless (f_code == 1 || -8 * f > -2 * (gint) r);
    fail_unless_equals_int (gst_cl_motion_lambda_f_code (r), f_code);
  }
}

GST_END_TEST;

GST_START_TEST (test_lambda_matters)
{
  /* on random pictures the rate term must change vectors: the reference
   * with lambda is not the plain search */
  const guint w = 96, h = 64, n = 6 * 4;
  guint8 *cur = g_malloc (w * h), *ref = g_malloc (w * h);
  GstClMotionVector plain[6 * 4], rated[6 * 4];
  guint32 state = 12345;
  guint i, differ = 0;

  for (i = 0; i < w * h; i++) {
    cur[i] = test_rng_next (&state);
    ref[i] = test_rng_next (&state);
  }
  ref_lambda_search (cur, w, ref, w, w, h, 16, 16, 0, 2, plain);
  ref_lambda_search (cur, w, ref, w, w, h, 16, 16, 200, 2, rated);
  for (i = 0; i < n; i++)
    differ += plain[i].dx != rated[i].dx || plain[i].dy != rated[i].dy;
  fail_unless (differ > n / 2, "lambda changed %u of %u vectors", differ, n);
  g_free (cur);
  g_free (ref);
}

GST_END_TEST;

GST_START_TEST (test_random)
{
  static const Case cases[] = {
    {1, 1, 16, 16, 4, RANDOM, 0, 0},
    {17, 9, 8, 4, 1, RANDOM, 0, 0},
    {50, 40, 8, 1, 2, RANDOM, 0, 0},
    {97, 61, 16, 3, 4, RANDOM, 0, 0},
    {97, 61, 16, 16, 4, RANDOM, 0, 0},
    {97, 61, 8, 16, 40, RANDOM, 0, 0},
    {160, 96, 8, 4, 12, RANDOM, 0, 0},
    {333, 161, 16, 32, 8, RANDOM, 0, 0},
    {640, 480, 16, 16, 16, RANDOM, 0, 0},
  };
  guint i;

  for (i = 0; i < G_N_ELEMENTS (cases); i++)
    check_case (&cases[i]);
}

GST_END_TEST;

GST_START_TEST (test_natural)
{
  static const Case cases[] = {
    {64, 48, 16, 16, 4, NATURAL, 3, -2},
    {200, 120, 8, 16, 4, NATURAL, -7, 5},
    {333, 161, 16, 16, 20, NATURAL, 11, 6},
    {352, 288, 16, 32, 4, NATURAL, -20, 9},
    {640, 360, 16, 4, 2, NATURAL, 2, 3},
  };
  guint i;

  for (i = 0; i < G_N_ELEMENTS (cases); i++)
    check_case (&cases[i]);
}

GST_END_TEST;

GST_START_TEST (test_large)
{
  /* the widest window on a small picture (GPU layout: several passes over
   * the search area), a picture wider than one band of SAD surfaces, and
   * one full-size picture */
  static const Case cases[] = {
    {96, 80, 16, 128, 4, NATURAL, -70, 40},
    {2048, 24, 8, 128, 6, RANDOM, 0, 0},
    {2048, 2048, 16, 16, 4, NATURAL, 5, -3},
  };
  guint i;

  for (i = 0; i < G_N_ELEMENTS (cases); i++)
    check_case (&cases[i]);
}

GST_END_TEST;

GST_START_TEST (test_bad_params)
{
  GError *error = NULL;

  fail_unless (gst_cl_motion_lambda_new (context, 12, 16, 4, &error) ==
      NULL);
  fail_unless (error != NULL);
  g_clear_error (&error);
  fail_unless (gst_cl_motion_lambda_new (context, 16, 0, 4, &error) == NULL);
  g_clear_error (&error);
  fail_unless (gst_cl_motion_lambda_new (context, 16,
          GST_CL_MOTION_LAMBDA_MAX_RANGE + 1, 4, &error) == NULL);
  g_clear_error (&error);
  fail_unless (gst_cl_motion_lambda_new (context, 16, 16, 0, &error) ==
      NULL);
  g_clear_error (&error);
}

GST_END_TEST;

static GstBuffer *
gray_frame (const GstVideoInfo * info, gint pan_x, gint pan_y)
{
  GstBuffer *buf = gst_buffer_new_allocate (NULL, info->size, NULL);
  GstMapInfo map;
  gint x, y;

  fail_unless (gst_buffer_map (buf, &map, GST_MAP_WRITE));
  for (y = 0; y < (gint) info->height; y++)
    for (x = 0; x < (gint) info->width; x++)
      map.data[y * info->stride[0] + x] = natural_sample (x + pan_x,
          y + pan_y);
  gst_buffer_unmap (buf, &map);
  return buf;
}

GST_START_TEST (test_element)
{
  const guint w = 200, h = 120, lambda = 6, bx_n = 13, by_n = 8;
  GstElement *e = gst_element_factory_make ("clmotionsearch", NULL);
  GstClMotionVector got[13 * 8];
  GstClMotionVector exp[13 * 8];
  GstClMotionMeta *meta;
  GstBuffer *frames[2], *out;
  GstVideoInfo info;
  GstHarness *hs;
  GError *error = NULL;
  GstMapInfo map[2];
  guint i;

  fail_unless (e != NULL, "no clmotionsearch element");
  g_object_set (e, "lambda", lambda, "subpel", TRUE, NULL);
  test_set_shared_context (e);
  hs = gst_harness_new_with_element (e, "sink", "src");
  gst_object_unref (e);
  gst_video_info_set_format (&info, GST_VIDEO_FORMAT_GRAY8, w, h);
  gst_harness_set_src_caps (hs, gst_video_info_to_caps (&info));

  /* the second frame is the first panned by (4, -3) */
  frames[0] = gray_frame (&info, 0, 0);
  frames[1] = gray_frame (&info, 4, -3);
  for (i = 0; i < 2; i++) {
    fail_unless_equals_int (gst_harness_push (hs,
            gst_buffer_ref (frames[i])), GST_FLOW_OK);
    out = gst_harness_pull (hs);
    meta = gst_buffer_get_cl_motion_meta (out);
    if (i == 0) {
      fail_unless (meta == NULL, "vectors on the first frame");
      gst_buffer_unref (out);
    }
  }
  fail_unless (meta != NULL, "no motion meta on the second frame");
  fail_unless_equals_int (meta->lambda, lambda);
  fail_unless (!meta->subpel, "lambda search reported as half-pel");
  fail_unless_equals_int (meta->blocks_x, bx_n);
  fail_unless_equals_int (meta->blocks_y, by_n);
  fail_unless (gst_cl_motion_meta_read (meta, got, &error), "%s",
      error ? error->message : "?");

  gst_buffer_map (frames[1], &map[1], GST_MAP_READ);
  gst_buffer_map (frames[0], &map[0], GST_MAP_READ);
  ref_lambda_search (map[1].data, info.stride[0], map[0].data,
      info.stride[0], w, h, 16, 16, lambda, ref_lambda_f_code (16), exp);
  gst_buffer_unmap (frames[0], &map[0]);
  gst_buffer_unmap (frames[1], &map[1]);
  for (i = 0; i < bx_n * by_n; i++)
    fail_unless_each (got[i].dx == exp[i].dx && got[i].dy == exp[i].dy &&
        got[i].sad == exp[i].sad, "block (%u,%u) got (%d,%d) SAD %u, "
        "expected (%d,%d) SAD %u", i % bx_n, i / bx_n, got[i].dx, got[i].dy,
        got[i].sad, exp[i].dx, exp[i].dy, exp[i].sad);
  /* the pan itself, wherever it is a candidate and already predicted */
  fail_unless (got[bx_n + 2].dx == 8 && got[bx_n + 2].dy == -6);

  gst_buffer_unref (out);
  gst_buffer_unref (frames[0]);
  gst_buffer_unref (frames[1]);
  test_harness_teardown (hs);
}

GST_END_TEST;

static Suite *
motionlambda_suite (void)
{
  Suite *s = suite_create ("motionlambda");
  TCase *tc = tcase_create ("general");

  tcase_add_checked_fixture (tc, setup, test_release_shared_context);
  tcase_set_timeout (tc, 600);
  suite_add_tcase (s, tc);
  tcase_add_test (tc, test_bits);
  tcase_add_test (tc, test_lambda_matters);
  tcase_add_test (tc, test_bad_params);
  tcase_add_test (tc, test_element);
  tcase_add_test (tc, test_random);
  tcase_add_test (tc, test_natural);
  tcase_add_test (tc, test_large);
  return s;
}

GST_CHECK_MAIN (motionlambda);
