/* gst-clvideo: error handling tests
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * No OpenCL platform, a kernel that fails to build, a kernel launch that
 * fails mid-stream (clmpegenc with B pictures waiting), buffers too small for
 * their caps (with or without a video meta), frames laid out by a video
 * meta, video metas that do not fit their buffer or frame, frame rates
 * MPEG-1 cannot carry, odd frame sizes, renegotiation of the size
 * mid-stream, and the elements' default names.
 *
 * The no-platform case needs a process whose OpenCL ICD loader has not
 * been initialised yet: ocl-icd reads OCL_ICD_VENDORS once, at the first
 * OpenCL call, and keeps the platform list for the life of the process.
 * This program therefore re-runs itself as a child for that case (see
 * main()), which works whether or not libcheck forks per test.
 */
#include <gst/check/gstcheck.h>
#include <gst/check/gstharness.h>
#include <gst/video/video.h>
#include <glib/gstdio.h>
#include <string.h>

#include <gst/cl/gstclcontext.h>
#include <gst/cl/gstclprogram-private.h>
#include "gstclvideokernels.h"
#include "testutil.h"

#define RUN_TIMEOUT (60 * GST_SECOND)
#define NO_PLATFORM_CHILD_ARG "--no-platform-child"

/* ---- helpers ---- */

/* Runs @pipeline until EOS or an error; returns the message. */
static GstMessage *
run_to_end (GstElement * pipeline)
{
  GstBus *bus = gst_element_get_bus (pipeline);
  GstMessage *msg;

  gst_element_set_state (pipeline, GST_STATE_PLAYING);
  msg = gst_bus_timed_pop_filtered (bus, RUN_TIMEOUT,
      GST_MESSAGE_EOS | GST_MESSAGE_ERROR);
  gst_object_unref (bus);
  return msg;
}

static void
expect_eos (const gchar * desc)
{
  GstElement *pipeline = gst_parse_launch (desc, NULL);
  GstMessage *msg;

  fail_unless (pipeline != NULL);
  msg = run_to_end (pipeline);
  fail_unless (msg != NULL, "timeout running %s", desc);
  if (GST_MESSAGE_TYPE (msg) == GST_MESSAGE_ERROR) {
    GError *error = NULL;
    gst_message_parse_error (msg, &error, NULL);
    fail ("%s: %s", desc, error->message);
  }
  gst_message_unref (msg);
  fail_unless_equals_int (gst_element_set_state (pipeline, GST_STATE_NULL),
      GST_STATE_CHANGE_SUCCESS);
  gst_object_unref (pipeline);
}

/* Runs @desc with the kernel sources of directory @kernel_dir, which must
 * end with an error; returns it, its debug string in *@debug. The
 * pipeline goes back to NULL cleanly. */
static GError *
expect_error_with_kernels (const gchar * desc, const gchar * kernel_dir,
    gchar ** debug)
{
  GstElement *pipeline;
  GstMessage *msg;
  GError *error = NULL;

  g_setenv (GST_CL_KERNEL_DIR_ENV, kernel_dir, TRUE);
  /* a new pipeline makes a new context, whose program cache is empty */
  pipeline = gst_parse_launch (desc, NULL);
  msg = run_to_end (pipeline);
  g_unsetenv (GST_CL_KERNEL_DIR_ENV);
  fail_unless (msg != NULL, "timeout");
  fail_unless_equals_int (GST_MESSAGE_TYPE (msg), GST_MESSAGE_ERROR);
  gst_message_parse_error (msg, &error, debug);
  GST_INFO ("error: %s\ndebug: %s", error->message, *debug);
  gst_message_unref (msg);
  fail_unless_equals_int (gst_element_set_state (pipeline, GST_STATE_NULL),
      GST_STATE_CHANGE_SUCCESS);
  gst_object_unref (pipeline);
  return error;
}

/* Grey levels that differ from pixel to pixel, so that misplaced rows or
 * columns show in the output. */
static guint8
grey_at (gint x, gint y)
{
  return (guint8) (x * 7 + y * 13 + 20);
}

/* A packed RGB frame of grey_at() levels, or of uniform grey 128. */
static GstBuffer *
make_grey_frame (const GstVideoInfo * info, gboolean uniform)
{
  GstBuffer *buf = gst_buffer_new_allocate (NULL, info->size, NULL);
  GstVideoFrame frame;
  gint x, y, c;

  fail_unless (gst_video_frame_map (&frame, info, buf, GST_MAP_WRITE));
  for (y = 0; y < GST_VIDEO_INFO_HEIGHT (info); y++) {
    guint8 *row = (guint8 *) GST_VIDEO_FRAME_PLANE_DATA (&frame, 0) +
        y * GST_VIDEO_FRAME_PLANE_STRIDE (&frame, 0);
    for (x = 0; x < GST_VIDEO_INFO_WIDTH (info); x++)
      for (c = 0; c < GST_VIDEO_FRAME_COMP_PSTRIDE (&frame, 0); c++)
        row[x * GST_VIDEO_FRAME_COMP_PSTRIDE (&frame, 0) + c] =
            uniform ? 128 : grey_at (x, y);
  }
  gst_video_frame_unmap (&frame);
  return buf;
}

/* Limited-range luma of a grey level, as kernels/colorlowpass.cl computes
 * it: the three weights sum to 219/255 * 65536 for every matrix. */
static guint8
limited_luma (guint8 v)
{
  gint k = (gint) lround (219.0 / 255.0 * 65536.0);
  gint y16 = (k * v + 16 * 65536 + 2048) >> 12;
  return (guint8) ((CLAMP (y16, 0, 4095) + 8) >> 4);
}

/* The sample a check wants at byte @x of row @y of plane @p, whose first
 * component is @comp. */
typedef guint8 (*WantFunc) (guint p, gint comp, gint x, gint y,
    gconstpointer data);

/* Checks every row of every plane of @buf, a frame of @caps: its first
 * width bytes with @pixels_only, else width x pixel stride bytes. */
static void
check_frame (GstBuffer * buf, GstCaps * caps, gboolean pixels_only,
    WantFunc want, gconstpointer data)
{
  GstVideoInfo info;
  GstVideoFrame frame;
  guint p;
  gint x, y;

  fail_unless (gst_video_info_from_caps (&info, caps));
  fail_unless (gst_video_frame_map (&frame, &info, buf, GST_MAP_READ));
  for (p = 0; p < GST_VIDEO_FRAME_N_PLANES (&frame); p++) {
    gint comp[GST_VIDEO_MAX_COMPONENTS];
    gint w, h;

    gst_video_format_info_component (info.finfo, p, comp);
    w = GST_VIDEO_FRAME_COMP_WIDTH (&frame, comp[0]);
    if (!pixels_only)
      w *= GST_VIDEO_FRAME_COMP_PSTRIDE (&frame, comp[0]);
    h = GST_VIDEO_FRAME_COMP_HEIGHT (&frame, comp[0]);
    for (y = 0; y < h; y++) {
      const guint8 *row = (const guint8 *) GST_VIDEO_FRAME_PLANE_DATA (&frame,
          p) + y * GST_VIDEO_FRAME_PLANE_STRIDE (&frame, p);
      for (x = 0; x < w; x++) {
        const guint expected = want (p, comp[0], x, y, data);
        fail_unless_each (row[x] == expected, "plane %u byte (%d, %d): "
            "0x%02x, expected 0x%02x", p, x, y, row[x], expected);
      }
    }
  }
  gst_video_frame_unmap (&frame);
}

/* luma exact (from grey_at with a gradient, else 126, the luma of uniform
 * grey 128 after any lowpass), neutral chroma */
static guint8
grey_want (guint p G_GNUC_UNUSED, gint comp, gint x, gint y,
    gconstpointer gradient)
{
  if (comp != GST_VIDEO_COMP_Y)
    return 128;
  return GPOINTER_TO_INT (gradient) ? limited_luma (grey_at (x, y)) : 126;
}

/* Checks a converted grey frame, every sample of every plane. */
static void
check_grey_output (GstBuffer * buf, GstCaps * caps, gboolean gradient)
{
  check_frame (buf, caps, FALSE, grey_want, GINT_TO_POINTER (gradient));
}

/* ---- no OpenCL platform ---- */

/* Runs the no-platform scenario in this process; OCL_ICD_VENDORS must
 * already point at an empty directory. Prints the error message on stdout
 * and returns NULL when all is as expected, else what is wrong. */
static gchar *
check_no_platform (void)
{
  GstElement *pipeline;
  GstStateChangeReturn ret;
  GstMessage *msg;
  GError *error = NULL;
  GstClContext *ctx;
  gchar *devices, *problem = NULL;
  GstBus *bus;

  pipeline = gst_parse_launch ("videotestsrc num-buffers=3 "
      "! video/x-raw,format=RGBx ! clcolorlowpass ! fakesink", &error);
  if (!pipeline)
    return g_strdup_printf ("cannot parse: %s", error->message);
  ret = gst_element_set_state (pipeline, GST_STATE_PLAYING);
  bus = gst_element_get_bus (pipeline);
  msg = gst_bus_timed_pop_filtered (bus, RUN_TIMEOUT, GST_MESSAGE_ERROR |
      GST_MESSAGE_EOS);
  if (ret != GST_STATE_CHANGE_FAILURE) {
    problem = g_strdup ("the state change did not fail");
  } else if (!msg || GST_MESSAGE_TYPE (msg) != GST_MESSAGE_ERROR) {
    problem = g_strdup ("no error message");
  } else {
    gst_message_parse_error (msg, &error, NULL);
    g_print ("%s\n", error->message);
    if (!g_error_matches (error, GST_RESOURCE_ERROR,
            GST_RESOURCE_ERROR_NOT_FOUND) ||
        !strstr (error->message, "No OpenCL platform"))
      problem = g_strdup_printf ("unexpected error: %s", error->message);
    g_clear_error (&error);
  }
  if (msg)
    gst_message_unref (msg);
  gst_object_unref (bus);
  gst_element_set_state (pipeline, GST_STATE_NULL);
  gst_object_unref (pipeline);
  if (problem)
    return problem;

  /* the library calls say the same */
  ctx = gst_cl_context_new (NULL, &error);
  if (ctx || !g_error_matches (error, GST_CL_ERROR, GST_CL_ERROR_NO_PLATFORM))
    return g_strdup ("gst_cl_context_new did not fail with NO_PLATFORM");
  g_clear_error (&error);
  devices = gst_cl_describe_devices ();
  if (*devices)
    problem = g_strdup_printf ("devices listed: %s", devices);
  g_free (devices);
  return problem;
}

static int
no_platform_child (const gchar * vendors_dir)
{
  gchar *problem;

  /* before anything can touch OpenCL */
  g_setenv ("OCL_ICD_VENDORS", vendors_dir, TRUE);
  gst_init (NULL, NULL);
  problem = check_no_platform ();
  if (problem) {
    g_printerr ("%s\n", problem);
    return 1;
  }
  return 0;
}

GST_START_TEST (test_no_platform)
{
  gchar *dir = g_dir_make_tmp ("clvideo-vendors-XXXXXX", NULL);
  gchar *self = g_file_read_link ("/proc/self/exe", NULL);
  gchar *argv[] = { self, (gchar *) NO_PLATFORM_CHILD_ARG, dir, NULL };
  gchar *out = NULL, *err = NULL;
  GError *error = NULL;
  gint status = 0;

  fail_unless (dir != NULL && self != NULL);
  fail_unless (g_spawn_sync (NULL, argv, NULL, G_SPAWN_DEFAULT, NULL, NULL,
          &out, &err, &status, &error), "%s", error ? error->message : "");
  GST_INFO ("child said: %s / %s", out, err);
  /* a crash or a failed check in the child shows here */
  fail_unless (g_spawn_check_wait_status (status, &error),
      "child: %s; stderr: %s", error->message, err);
  fail_unless (strstr (out, "No OpenCL platform") != NULL, "%s", out);

  g_rmdir (dir);
  g_free (out);
  g_free (err);
  g_free (self);
  g_free (dir);
}

GST_END_TEST;

/* The same in the test process itself: only valid where libcheck forks
 * per test, from a parent that never called OpenCL. */
GST_START_TEST (test_no_platform_in_process)
{
  gchar *dir, *problem;

  if (g_strcmp0 (g_getenv ("CK_FORK"), "no") == 0) {
    GST_INFO ("CK_FORK=no: OpenCL may be initialised, covered by "
        "test_no_platform");
    return;
  }
  dir = g_dir_make_tmp ("clvideo-vendors-XXXXXX", NULL);
  g_setenv ("OCL_ICD_VENDORS", dir, TRUE);
  problem = check_no_platform ();
  fail_unless (problem == NULL, "%s", problem);
  g_rmdir (dir);
  g_free (dir);
}

GST_END_TEST;

/* ---- kernel build failure ---- */

#define BROKEN_TOKEN "this_is_not_opencl_xyz"

GST_START_TEST (test_kernel_build_failure)
{
  const gchar *desc = "videotestsrc num-buffers=3 "
      "! video/x-raw,format=RGBx,width=64,height=48 ! clcolorlowpass "
      "! video/x-raw,format=I420 ! fakesink";
  gchar *dir = g_dir_make_tmp ("clvideo-kernels-XXXXXX", NULL);
  gchar *file = g_build_filename (dir, "colorlowpass.cl", NULL);
  GError *error;
  gchar *debug = NULL;

  fail_unless (g_file_set_contents (file, "__kernel void colorlowpass "
          "(__global uchar * src)\n{\n  " BROKEN_TOKEN " (src\n}\n", -1,
          NULL));
  error = expect_error_with_kernels (desc, dir, &debug);
  fail_unless (g_error_matches (error, GST_LIBRARY_ERROR,
          GST_LIBRARY_ERROR_INIT), "%s", error->message);
  fail_unless (strstr (error->message, "build") != NULL, "%s",
      error->message);
  /* the debug string names the program and carries the compiler's log */
  fail_unless (debug != NULL);
  fail_unless (strstr (debug, "colorlowpass.cl") != NULL, "%s", debug);
  fail_unless (strstr (debug, "CL_BUILD_PROGRAM_FAILURE") != NULL, "%s",
      debug);
  fail_unless (strstr (debug, "build log") != NULL, "%s", debug);
  fail_unless (strstr (debug, "error") != NULL, "%s", debug);
  fail_unless (strstr (debug, BROKEN_TOKEN) != NULL, "%s", debug);
  g_clear_error (&error);
  g_free (debug);

  /* the same pipeline with the embedded source works: the failure came
   * from the file */
  expect_eos (desc);

  /* a kernel directory without the file falls back to the embedded one */
  g_unlink (file);
  g_setenv (GST_CL_KERNEL_DIR_ENV, dir, TRUE);
  expect_eos (desc);
  g_unsetenv (GST_CL_KERNEL_DIR_ENV);

  g_rmdir (dir);
  g_free (file);
  g_free (dir);
}

GST_END_TEST;

/* ---- includes between kernel sources ---- */

static gchar *
write_kernel (const gchar * dir, const gchar * name, const gchar * text)
{
  gchar *file = g_strconcat (dir, G_DIR_SEPARATOR_S, name, ".cl", NULL);
  fail_unless (g_file_set_contents (file, text, -1, NULL));
  return file;
}

/* looking up kernel source @name fails with a message holding @words */
static void
expect_source_error (const gchar * name, const gchar * words)
{
  GError *error = NULL;

  fail_unless (gst_cl_kernel_source_lookup (name, &error) == NULL);
  fail_unless (g_error_matches (error, GST_CL_ERROR,
          GST_CL_ERROR_KERNEL_SOURCE));
  fail_unless (strstr (error->message, words) != NULL, "%s", error->message);
  g_error_free (error);
}

GST_START_TEST (test_kernel_includes)
{
  gchar *dir = g_dir_make_tmp ("clvideo-kernels-XXXXXX", NULL);
  gchar *files[5], *text;
  GError *error = NULL;
  guint i;

  files[0] = write_kernel (dir, "outer", "first\n#include \"inner.cl\"\n"
      "last\n");
  files[1] = write_kernel (dir, "inner", "middle");
  files[2] = write_kernel (dir, "cycle", "  #include \"cycle.cl\"\n");
  files[3] = write_kernel (dir, "missing", "#include \"no-such-file.cl\"\n");
  files[4] = write_kernel (dir, "sad", "overridden_sad_helpers");

  /* the embedded sources include theirs */
  text = gst_cl_kernel_source_lookup ("motionsearch", &error);
  fail_unless (text != NULL, "%s", error ? error->message : "");
  fail_unless (strstr (text, "sad_total (sad_acc_t acc)") != NULL);
  fail_unless (strstr (text, "#include \"sad.cl\"") == NULL);
  g_free (text);

  g_setenv (GST_CL_KERNEL_DIR_ENV, dir, TRUE);
  /* the included text in place, line numbers those of each file */
  text = gst_cl_kernel_source_lookup ("outer", &error);
  fail_unless (text != NULL, "%s", error ? error->message : "");
  fail_unless_equals_string (text, "first\n#line 1 \"inner.cl\"\nmiddle\n"
      "#line 3 \"outer.cl\"\nlast\n");
  g_free (text);
  /* an embedded source includes the directory's copy */
  text = gst_cl_kernel_source_lookup ("mpegenc", &error);
  fail_unless (text != NULL, "%s", error ? error->message : "");
  fail_unless (strstr (text, "overridden_sad_helpers") != NULL);
  fail_unless (strstr (text, "sad_total (sad_acc_t acc)") == NULL);
  g_free (text);
  /* a cycle and a missing file are errors, not hangs or crashes */
  expect_source_error ("cycle", "nested");
  expect_source_error ("missing", "no-such-file");
  g_unsetenv (GST_CL_KERNEL_DIR_ENV);

  for (i = 0; i < G_N_ELEMENTS (files); i++) {
    g_unlink (files[i]);
    g_free (files[i]);
  }
  g_rmdir (dir);
  g_free (dir);
}

GST_END_TEST;

/* ---- a device failure mid-stream ---- */

/* clmpegenc with B pictures waiting for their anchor when a kernel that
 * only P pictures run fails to launch (its required work-group size
 * changed in a copy of the source): an error message that names the
 * call, then the frames waiting are coded at EOS and fail alike, never
 * an assertion or a crash */
GST_START_TEST (test_mpeg_launch_failure_mid_stream)
{
  const gchar *desc = "videotestsrc num-buffers=12 pattern=ball "
      "! video/x-raw,format=I420,width=64,height=48,framerate=25/1 "
      "! clmpegenc b-frames=2 b-adapt=false ! fakesink";
  const gchar *needle = "reqd_work_group_size (FIT_ITEMS, 1, 1)";
  gchar *dir = g_dir_make_tmp ("clvideo-kernels-XXXXXX", NULL);
  gchar *source, *at, *broken, *file;
  GError *error = NULL;
  gchar *debug = NULL;

  source = gst_cl_kernel_source_lookup ("mpegenc", &error);
  fail_unless (source != NULL, "%s", error ? error->message : "");
  at = strstr (source, needle);
  fail_unless (at != NULL, "mpeg_fit_vectors' group size is not spelt "
      "\"%s\" any more", needle);
  /* "FIT_ITEMS" -> "FIT_ITEMS+1" */
  at += strlen ("reqd_work_group_size (FIT_ITEMS");
  broken = g_strdup_printf ("%.*s+1%s", (gint) (at - source), source, at);
  file = write_kernel (dir, "mpegenc", broken);

  error = expect_error_with_kernels (desc, dir, &debug);
  fail_unless (strstr (error->message, "clEnqueueNDRangeKernel") != NULL,
      "%s", error->message);
  fail_unless (strstr (error->message, "CL_INVALID_WORK_GROUP_SIZE") != NULL,
      "%s", error->message);
  g_clear_error (&error);
  g_free (debug);

  g_unlink (file);
  g_rmdir (dir);
  g_free (file);
  g_free (broken);
  g_free (source);
  g_free (dir);
}

GST_END_TEST;

/* ---- too small buffers ---- */

typedef struct
{
  const gchar *factory;
  const gchar *in_caps, *out_caps;
} SmallCase;

static const SmallCase small_cases[] = {
  {"clcolorlowpass", "video/x-raw,format=RGBx,width=64,height=48,"
        "framerate=30/1", "video/x-raw,format=I420,width=64,height=48,"
        "framerate=30/1"},
  {"clupload", "video/x-raw,format=RGBx,width=64,height=48,framerate=30/1",
      "video/x-raw(memory:OpenCL),format=RGBx,width=64,height=48,"
        "framerate=30/1"},
  {"cldownload", "video/x-raw(memory:OpenCL),format=I420,width=64,height=48,"
        "framerate=30/1", "video/x-raw,format=I420,width=64,height=48,"
        "framerate=30/1"},
};

/* Takes @element (floating or owned reference). */
static GstHarness *
harness_with_bus (GstElement * element, GstBus ** bus)
{
  GstHarness *h;

  fail_unless (element != NULL);
  gst_object_ref_sink (element);
  test_attach_bus (element);
  *bus = gst_element_get_bus (element);
  h = gst_harness_new_with_element (element, "sink", "src");
  gst_object_unref (element);
  return h;
}

/* The next error on @bus is a format error whose message holds @words. */
static void
expect_stream_error (GstBus * bus, const gchar * words)
{
  GstMessage *msg = gst_bus_pop_filtered (bus, GST_MESSAGE_ERROR);
  GError *error = NULL;

  fail_unless (msg != NULL, "no error message (expected '%s')", words);
  gst_message_parse_error (msg, &error, NULL);
  GST_INFO ("%s: %s", GST_MESSAGE_SRC_NAME (msg), error->message);
  fail_unless (g_error_matches (error, GST_STREAM_ERROR,
          GST_STREAM_ERROR_FORMAT), "%s", error->message);
  fail_unless (strstr (error->message, words) != NULL, "'%s' not in '%s'",
      words, error->message);
  g_error_free (error);
  gst_message_unref (msg);
}

GST_START_TEST (test_too_small_buffer)
{
  const SmallCase *c = &small_cases[__i__];
  GstVideoInfo info;
  GstCaps *caps;
  GstBuffer *buf, *out;
  GstHarness *h;
  GstBus *bus;

  h = harness_with_bus (gst_element_factory_make (c->factory, NULL), &bus);
  gst_harness_set_caps_str (h, c->in_caps, c->out_caps);
  caps = gst_caps_from_string (c->in_caps);
  fail_unless (gst_video_info_from_caps (&info, caps));
  gst_caps_unref (caps);

  /* far too small */
  buf = gst_buffer_new_allocate (NULL, 100, NULL);
  gst_buffer_memset (buf, 0, 0x80, 100);
  fail_unless_equals_int (gst_harness_push (h, buf), GST_FLOW_ERROR);
  expect_stream_error (bus, "holds 100 bytes, too few");

  /* one byte short */
  buf = gst_buffer_new_allocate (NULL, info.size - 1, NULL);
  gst_buffer_memset (buf, 0, 0x80, info.size - 1);
  fail_unless_equals_int (gst_harness_push (h, buf), GST_FLOW_ERROR);
  expect_stream_error (bus, "too few");

  /* a video meta that promises a whole frame in 100 bytes: must not be
   * trusted (the guard page turns an overread into a crash) */
  buf = gst_buffer_new ();
  gst_buffer_append_memory (buf, test_guarded_memory_new (100, 0, 0x80,
          NULL));
  gst_buffer_add_video_meta_full (buf, GST_VIDEO_FRAME_FLAG_NONE,
      GST_VIDEO_INFO_FORMAT (&info), GST_VIDEO_INFO_WIDTH (&info),
      GST_VIDEO_INFO_HEIGHT (&info), GST_VIDEO_INFO_N_PLANES (&info),
      info.offset, info.stride);
  fail_unless_equals_int (gst_harness_push (h, buf), GST_FLOW_ERROR);
  expect_stream_error (bus, "beyond the 100-byte buffer");

  fail_unless (gst_harness_try_pull (h) == NULL);

  /* the element is not broken by it: a whole frame goes through (on
   * cldownload's sink, system memory under memory:OpenCL caps is read
   * through a map) */
  buf = gst_buffer_new_allocate (NULL, info.size, NULL);
  gst_buffer_memset (buf, 0, 0x80, info.size);
  fail_unless_equals_int (gst_harness_push (h, buf), GST_FLOW_OK);
  out = gst_harness_pull (h);
  fail_unless (out != NULL);
  gst_buffer_unref (out);

  gst_harness_teardown (h);
  gst_object_unref (bus);
}

GST_END_TEST;

/* ---- frames laid out by a video meta ---- */

static const SmallCase meta_cases[] = {
  {"clcolorlowpass", "video/x-raw,format=RGB,width=5,height=3,framerate=30/1",
      "video/x-raw,format=I420,width=5,height=3,framerate=30/1"},
  {"clupload", "video/x-raw,format=I420,width=5,height=3,framerate=30/1",
      "video/x-raw(memory:OpenCL),format=I420,width=5,height=3,"
        "framerate=30/1"},
  {"cldownload", "video/x-raw(memory:OpenCL),format=I420,width=5,height=3,"
        "framerate=30/1", "video/x-raw,format=I420,width=5,height=3,"
        "framerate=30/1"},
};

/* Sample value of plane @p at pixel (x, y); grey for RGB (plane 0). */
static guint8
value_at (guint p, gint x, gint y)
{
  return grey_at (x, y) + 40 * p;
}

/* A frame whose planes a video meta places: rows @tight (stride = the
 * bytes of a row) or padded by 16 bytes, planes one after the other and
 * the buffer ending @delta bytes after the last row, at a guard page.
 * Padding bytes hold 0xee, which no sample has. */
static GstBuffer *
make_laid_out_frame (const GstVideoInfo * info, gboolean tight, gint delta)
{
  gsize offset[GST_VIDEO_MAX_PLANES] = { 0, };
  gint stride[GST_VIDEO_MAX_PLANES] = { 0, };
  gsize row_bytes[GST_VIDEO_MAX_PLANES], rows[GST_VIDEO_MAX_PLANES];
  gsize end = 0, size;
  GstBuffer *buf;
  GstMapInfo map;
  guint p, n_planes = GST_VIDEO_INFO_N_PLANES (info);
  gint pstride[GST_VIDEO_MAX_PLANES];
  gsize x, y;

  for (p = 0; p < n_planes; p++) {
    gint comp[GST_VIDEO_MAX_COMPONENTS];

    gst_video_format_info_component (info->finfo, p, comp);
    pstride[p] = GST_VIDEO_INFO_COMP_PSTRIDE (info, comp[0]);
    row_bytes[p] = GST_VIDEO_INFO_COMP_WIDTH (info, comp[0]) * pstride[p];
    rows[p] = GST_VIDEO_INFO_COMP_HEIGHT (info, comp[0]);
    stride[p] = tight ? (gint) row_bytes[p] :
        GST_VIDEO_INFO_PLANE_STRIDE (info, p) + 16;
    offset[p] = p == 0 ? 0 : offset[p - 1] + stride[p - 1] * rows[p - 1];
    end = offset[p] + (rows[p] - 1) * stride[p] + row_bytes[p];
  }
  size = end + delta;

  buf = gst_buffer_new ();
  gst_buffer_append_memory (buf, test_guarded_memory_new (size, 0, 0x80,
          NULL));
  fail_unless (gst_buffer_map (buf, &map, GST_MAP_WRITE));
  memset (map.data, 0xee, map.size);
  for (p = 0; p < n_planes; p++)
    for (y = 0; y < rows[p]; y++)
      for (x = 0; x < row_bytes[p]; x++) {
        gsize at = offset[p] + y * stride[p] + x;
        if (at < size)
          map.data[at] = value_at (p, x / pstride[p], y);
      }
  gst_buffer_unmap (buf, &map);
  gst_buffer_add_video_meta_full (buf, GST_VIDEO_FRAME_FLAG_NONE,
      GST_VIDEO_INFO_FORMAT (info), GST_VIDEO_INFO_WIDTH (info),
      GST_VIDEO_INFO_HEIGHT (info), n_planes, offset, stride);
  return buf;
}

static guint8
value_want (guint p, gint comp G_GNUC_UNUSED, gint x, gint y,
    gconstpointer data G_GNUC_UNUSED)
{
  return value_at (p, x, y);
}

/* Checks that @buf (a frame of @caps) holds value_at() in every sample. */
static void
check_copied_frame (GstBuffer * buf, GstCaps * caps)
{
  check_frame (buf, caps, TRUE, value_want, NULL);
}

/* Valid metas with other strides than GstVideoInfo's are taken, read
 * exactly to the end of the last row and no further; a meta whose last
 * row is cut short is refused. */
GST_START_TEST (test_video_meta_layout)
{
  const SmallCase *c = &meta_cases[__i__];
  GstElement *element = gst_element_factory_make (c->factory, NULL);
  gboolean lowpass = g_str_equal (c->factory, "clcolorlowpass");
  GstVideoInfo info;
  GstCaps *caps;
  GstHarness *h;
  GstBus *bus;
  gint tight;

  if (lowpass) {
    /* each output luma sample then comes from one input pixel */
    gst_util_set_object_arg (G_OBJECT (element), "luma-filter", "none");
    gst_util_set_object_arg (G_OBJECT (element), "range", "limited");
  }
  h = harness_with_bus (element, &bus);
  gst_harness_set_caps_str (h, c->in_caps, c->out_caps);
  caps = gst_caps_from_string (c->in_caps);
  fail_unless (gst_video_info_from_caps (&info, caps));
  gst_caps_unref (caps);

  for (tight = 0; tight < 2; tight++) {
    GstBuffer *out, *short_frame;
    GstCaps *out_caps;
    gchar *words;

    GST_INFO ("%s, %s rows", c->factory, tight ? "tight" : "padded");
    fail_unless_equals_int (gst_harness_push (h, make_laid_out_frame (&info,
                tight, 0)), GST_FLOW_OK);
    out = gst_harness_pull (h);
    fail_unless (out != NULL);
    out_caps = gst_pad_get_current_caps (h->sinkpad);
    if (lowpass)
      check_grey_output (out, out_caps, TRUE);
    else
      check_copied_frame (out, out_caps);
    gst_caps_unref (out_caps);
    gst_buffer_unref (out);

    short_frame = make_laid_out_frame (&info, tight, -1);
    words = g_strdup_printf ("beyond the %" G_GSIZE_FORMAT "-byte buffer",
        gst_buffer_get_size (short_frame));
    fail_unless_equals_int (gst_harness_push (h, short_frame),
        GST_FLOW_ERROR);
    expect_stream_error (bus, words);
    g_free (words);
  }

  gst_harness_teardown (h);
  gst_object_unref (bus);
}

GST_END_TEST;

/* ---- video metas that lie ---- */

/* Every element that reads frames from system memory, with a format it
 * takes. */
static const gchar *reader_cases[][2] = {
  {"clupload", "I420"},
  {"clcolorlowpass", "RGBx"},
  {"clhistogram", "I420"},
  {"clcontrast", "I420"},
  {"clsmooth", "I420"},
  {"clmotionsearch", "I420"},
  {"clmpegenc", "I420"},
};

typedef enum
{
  LIE_STRIDE_HUGE,
  LIE_STRIDE_NEGATIVE,
  LIE_STRIDE_ONE,
  LIE_OFFSET_OUTSIDE,
  LIE_BUFFER_SHORT,
  LIE_PLANE_COUNT,
  N_LIES
} Lie;

/* A frame of @info in a buffer that ends at a guard page, with a video
 * meta that lies as @lie says; *@words receives what an error about it
 * must name. */
static GstBuffer *
make_lying_frame (const GstVideoInfo * info, Lie lie, gchar ** words)
{
  gsize offset[GST_VIDEO_MAX_PLANES];
  gint stride[GST_VIDEO_MAX_PLANES];
  guint n_planes = GST_VIDEO_INFO_N_PLANES (info);
  gsize size = info->size;
  GstBuffer *buf;

  memcpy (offset, info->offset, sizeof (offset));
  memcpy (stride, info->stride, sizeof (stride));
  switch (lie) {
    case LIE_STRIDE_HUGE:
      stride[0] = 100000;
      *words = g_strdup ("stride 100000");
      break;
    case LIE_STRIDE_NEGATIVE:
      stride[0] = -64;
      *words = g_strdup ("stride -64");
      break;
    case LIE_STRIDE_ONE:
      stride[0] = 1;
      *words = g_strdup ("stride 1 ");
      break;
    case LIE_OFFSET_OUTSIDE:
      offset[0] = size + 4096;
      *words = g_strdup_printf ("offset %" G_GSIZE_FORMAT, offset[0]);
      break;
    case LIE_BUFFER_SHORT:
      size--;
      *words = g_strdup_printf ("beyond the %" G_GSIZE_FORMAT "-byte buffer",
          size);
      break;
    case LIE_PLANE_COUNT:
      n_planes = n_planes == 1 ? 3 : 1;
      *words = g_strdup_printf ("describes %u plane", n_planes);
      break;
    default:
      g_assert_not_reached ();
  }
  buf = gst_buffer_new ();
  gst_buffer_append_memory (buf, test_guarded_memory_new (size, 0, 0x80,
          NULL));
  gst_buffer_add_video_meta_full (buf, GST_VIDEO_FRAME_FLAG_NONE,
      GST_VIDEO_INFO_FORMAT (info), GST_VIDEO_INFO_WIDTH (info),
      GST_VIDEO_INFO_HEIGHT (info), n_planes, offset, stride);
  return buf;
}

/* Each element refuses frames whose video meta does not fit the buffer
 * or the frame, with an error that says what is wrong, in both kernel
 * layouts (their uploads differ: a plain or a banded copy); a good frame
 * then still goes through. */
GST_START_TEST (test_lying_video_meta)
{
  const gchar *factory = reader_cases[__i__ / 2][0];
  const gchar *layout = __i__ % 2 ? "gpu" : "cpu";
  TestSavedLayout saved;
  gchar *caps_str = g_strdup_printf ("video/x-raw,format=%s,width=352,"
      "height=288,framerate=25/1", reader_cases[__i__ / 2][1]);
  GstVideoInfo info;
  GstCaps *caps;
  GstBuffer *buf;
  GstHarness *h;
  GstBus *bus;
  Lie lie;

  GST_INFO ("%s, %s layout", factory, layout);
  /* read when the element makes its context */
  test_save_layout (&saved);
  test_set_layout (layout);
  h = harness_with_bus (gst_element_factory_make (factory, NULL), &bus);
  gst_harness_set_src_caps_str (h, caps_str);
  caps = gst_caps_from_string (caps_str);
  fail_unless (gst_video_info_from_caps (&info, caps));
  gst_caps_unref (caps);

  for (lie = 0; lie < N_LIES; lie++) {
    gchar *words;

    buf = make_lying_frame (&info, lie, &words);
    fail_unless_equals_int (gst_harness_push (h, buf), GST_FLOW_ERROR);
    expect_stream_error (bus, words);
    g_free (words);
  }
  fail_unless (gst_bus_pop_filtered (bus, GST_MESSAGE_ERROR) == NULL);

  buf = gst_buffer_new_allocate (NULL, info.size, NULL);
  gst_buffer_memset (buf, 0, 0x80, info.size);
  fail_unless_equals_int (gst_harness_push (h, buf), GST_FLOW_OK);

  test_harness_teardown (h);
  gst_object_unref (bus);
  test_restore_layout (&saved);
  g_free (caps_str);
}

GST_END_TEST;

/* ---- frame rates MPEG-1 cannot carry ---- */

/* (0/1: no rate) */
static const gchar *unsupported_rates[] = { "15/1", "61/1", "1000/1",
  "0/1"
};

/* One error, naming the rate and the eight that MPEG-1 has, however
 * often the caps come again (a source resends them with each buffer). */
GST_START_TEST (test_mpeg_unsupported_frame_rate)
{
  static const gchar *legal[] = { "23.976", "24,", "25,", "29.97", "30,",
    "50,", "59.94", "60"
  };
  const gchar *rate = unsupported_rates[__i__];
  gchar *caps_str = g_strdup_printf ("video/x-raw,format=I420,width=64,"
      "height=48,framerate=%s", rate);
  GstMessage *msg;
  GError *error = NULL;
  GstHarness *h;
  GstBus *bus;
  guint i;

  h = harness_with_bus (gst_element_factory_make ("clmpegenc", NULL), &bus);
  gst_harness_set_src_caps_str (h, caps_str);
  for (i = 0; i < 3; i++) {
    GstBuffer *buf = gst_buffer_new_allocate (NULL, 64 * 48 * 3 / 2, NULL);
    gst_buffer_memset (buf, 0, 0x80, gst_buffer_get_size (buf));
    fail_if (gst_harness_push (h, buf) == GST_FLOW_OK);
  }

  msg = gst_bus_pop_filtered (bus, GST_MESSAGE_ERROR);
  fail_unless (msg != NULL, "no error for %s", rate);
  gst_message_parse_error (msg, &error, NULL);
  GST_INFO ("%s: %s", rate, error->message);
  fail_unless (g_error_matches (error, GST_STREAM_ERROR,
          GST_STREAM_ERROR_FORMAT), "%s", error->message);
  fail_unless (strstr (error->message, rate) != NULL, "%s", error->message);
  for (i = 0; i < G_N_ELEMENTS (legal); i++)
    fail_unless (strstr (error->message, legal[i]) != NULL, "'%s' not in "
        "'%s'", legal[i], error->message);
  g_error_free (error);
  gst_message_unref (msg);
  msg = gst_bus_pop_filtered (bus, GST_MESSAGE_ERROR);
  fail_unless (msg == NULL, "a second error for %s", rate);

  test_harness_teardown (h);
  gst_object_unref (bus);
  g_free (caps_str);
}

GST_END_TEST;

/* ---- default element names ---- */

/* An element made without a name is called after its factory and a
 * number, as gst-launch and debug logs show it. */
GST_START_TEST (test_default_names)
{
  GList *features = gst_registry_get_feature_list_by_plugin
      (gst_registry_get (), "clvideo"), *l;
  guint n = 0;

  for (l = features; l; l = l->next) {
    const gchar *factory = gst_plugin_feature_get_name (l->data);
    GstElement *element;
    gchar *name;
    const gchar *number;

    if (!GST_IS_ELEMENT_FACTORY (l->data))
      continue;
    element = gst_element_factory_make (factory, NULL);
    fail_unless (element != NULL, "%s", factory);
    name = gst_element_get_name (element);
    number = g_str_has_prefix (name, factory) ? name + strlen (factory) : "";
    fail_unless (*number && strspn (number, "0123456789") == strlen (number),
        "%s is called %s", factory, name);
    g_free (name);
    gst_object_unref (element);
    n++;
  }
  fail_unless_equals_int (n, 8);
  gst_plugin_feature_list_free (features);
}

GST_END_TEST;

/* ---- metadata ---- */

/* What gst-inspect-1.0 shows of the plugin: one author for every element,
 * an origin that is no placeholder, and a device blurb that names the
 * device types the property takes. */
GST_START_TEST (test_metadata)
{
  GList *features = gst_registry_get_feature_list_by_plugin
      (gst_registry_get (), "clvideo"), *l;
  GstPlugin *plugin = gst_registry_find_plugin (gst_registry_get (),
      "clvideo");
  const gchar *author = NULL;

  fail_unless (plugin != NULL);
  fail_if (strstr (gst_plugin_get_origin (plugin), ".invalid") != NULL,
      "origin %s", gst_plugin_get_origin (plugin));
  for (l = features; l; l = l->next) {
    GstElementFactory *factory = l->data;
    const gchar *name = gst_plugin_feature_get_name (l->data);
    const gchar *a;
    GstElement *element;
    GParamSpec *pspec;
    const gchar *blurb;

    if (!GST_IS_ELEMENT_FACTORY (factory))
      continue;
    a = gst_element_factory_get_metadata (factory,
        GST_ELEMENT_METADATA_AUTHOR);
    if (!author)
      author = a;
    fail_unless_equals_string (a, author);
    element = gst_element_factory_make (name, NULL);
    pspec = g_object_class_find_property (G_OBJECT_GET_CLASS (element),
        "device");
    fail_unless (pspec != NULL, "%s has no device property", name);
    blurb = g_param_spec_get_blurb (pspec);
    fail_unless (strstr (blurb, "GPU") && strstr (blurb, "CPU") &&
        strstr (blurb, "accelerator") && strstr (blurb, "index"),
        "%s: %s", name, blurb);
    gst_object_unref (element);
  }
  fail_unless (author != NULL);
  gst_plugin_feature_list_free (features);
  gst_object_unref (plugin);
}

GST_END_TEST;

/* ---- odd sizes ---- */

static const gint odd_sizes[][2] = {
  {1, 1}, {3, 1}, {1, 3}, {17, 9}, {2, 2}, {131, 37},
};

static const gchar *odd_in_formats[] = { "RGBx", "RGB", "BGRA" };

static const gchar *odd_out_formats[] = { "I420", "NV12", "Y444", "GRAY8" };

/* Pushes one grey frame of each odd size through @h (renegotiating each
 * time) and checks every output sample. */
static void
push_odd_sizes (GstHarness * h, const gchar * in_format, gboolean gradient)
{
  guint i;

  for (i = 0; i < G_N_ELEMENTS (odd_sizes); i++) {
    gint w = odd_sizes[i][0], hgt = odd_sizes[i][1];
    gchar *in_caps = g_strdup_printf ("video/x-raw,format=%s,width=%d,"
        "height=%d,framerate=30/1", in_format, w, hgt);
    GstVideoInfo in_info, out_info;
    GstCaps *caps, *out_caps;
    GstBuffer *out;

    GST_INFO ("%s", in_caps);
    gst_harness_set_src_caps_str (h, in_caps);
    caps = gst_caps_from_string (in_caps);
    fail_unless (gst_video_info_from_caps (&in_info, caps));
    gst_caps_unref (caps);
    g_free (in_caps);

    fail_unless_equals_int (gst_harness_push (h, make_grey_frame (&in_info,
                !gradient)), GST_FLOW_OK);
    out = gst_harness_pull (h);
    fail_unless (out != NULL);
    out_caps = gst_pad_get_current_caps (h->sinkpad);
    fail_unless (gst_video_info_from_caps (&out_info, out_caps));
    fail_unless_equals_int (GST_VIDEO_INFO_WIDTH (&out_info), w);
    fail_unless_equals_int (GST_VIDEO_INFO_HEIGHT (&out_info), hgt);
    check_grey_output (out, out_caps, gradient);
    gst_caps_unref (out_caps);
    gst_buffer_unref (out);
  }
}

GST_START_TEST (test_odd_sizes)
{
  const gchar *out_format = odd_out_formats[__i__];
  GError *error = NULL;
  GstClContext *shared;
  GstContext *context;
  guint f;

  /* one context for all harnesses: each kernel variant is built once */
  shared = gst_cl_context_new (NULL, &error);
  fail_unless (shared != NULL, "%s", error ? error->message : "");
  context = gst_context_new_cl_context (shared);

  for (f = 0; f < G_N_ELEMENTS (odd_in_formats); f++) {
    gint gradient;

    /* luma filter off: each output luma sample is that of one input pixel,
     * so the layout is checked exactly; on: uniform grey stays uniform */
    for (gradient = 0; gradient < 2; gradient++) {
      GstElement *e = gst_element_factory_make ("clcolorlowpass", NULL);
      gchar *sink_caps;
      GstHarness *h;

      gst_util_set_object_arg (G_OBJECT (e), "range", "limited");
      if (gradient)
        gst_util_set_object_arg (G_OBJECT (e), "luma-filter", "none");
      gst_element_set_context (e, context);
      h = gst_harness_new_with_element (e, "sink", "src");
      gst_object_unref (e);
      sink_caps = g_strdup_printf ("video/x-raw,format=%s", out_format);
      gst_harness_set_sink_caps_str (h, sink_caps);
      g_free (sink_caps);
      push_odd_sizes (h, odd_in_formats[f], gradient);
      gst_harness_teardown (h);
    }
  }
  gst_context_unref (context);
  gst_object_unref (shared);
}

GST_END_TEST;

/* Every format clupload and cldownload carry, at odd sizes, through both:
 * the frame comes back sample for sample. Frames are compared unpacked,
 * so that only what the format defines counts, not the row padding. */
static const gchar *transfer_formats[] = {
  "I420", "YV12", "NV12", "NV21", "Y42B", "Y444", "GRAY8", "RGB", "BGR",
  "RGBx", "BGRx", "xRGB", "xBGR", "RGBA", "BGRA", "ARGB", "ABGR", "YUY2",
  "UYVY", "AYUV",
};

static void
check_same_pixels (const GstVideoInfo * info, GstBuffer * in, GstBuffer * out)
{
  GstVideoFrame fin, fout;
  gint w = GST_VIDEO_INFO_WIDTH (info), y, x;
  guint8 *a = g_malloc (w * 4), *b = g_malloc (w * 4);

  fail_unless (gst_video_frame_map (&fin, info, in, GST_MAP_READ));
  fail_unless (gst_video_frame_map (&fout, info, out, GST_MAP_READ));
  for (y = 0; y < GST_VIDEO_INFO_HEIGHT (info); y++) {
    info->finfo->unpack_func (info->finfo, GST_VIDEO_PACK_FLAG_NONE, a,
        fin.data, fin.info.stride, 0, y, w);
    info->finfo->unpack_func (info->finfo, GST_VIDEO_PACK_FLAG_NONE, b,
        fout.data, fout.info.stride, 0, y, w);
    for (x = 0; x < w * 4; x++)
      fail_unless_each (a[x] == b[x], "%s %dx%d: pixel (%d, %d) component %d: "
          "%u, not %u", GST_VIDEO_INFO_NAME (info), w,
          GST_VIDEO_INFO_HEIGHT (info), x / 4, y, x % 4, b[x], a[x]);
  }
  gst_video_frame_unmap (&fin);
  gst_video_frame_unmap (&fout);
  g_free (a);
  g_free (b);
}

GST_START_TEST (test_odd_sizes_transfer)
{
  GstHarness *h = gst_harness_new_parse ("clupload ! cldownload");
  GRand *rand = g_rand_new_with_seed (42);
  guint f, i;

  for (f = 0; f < G_N_ELEMENTS (transfer_formats); f++) {
    for (i = 0; i < G_N_ELEMENTS (odd_sizes); i++) {
      gchar *caps_str = g_strdup_printf ("video/x-raw,format=%s,width=%d,"
          "height=%d,framerate=30/1", transfer_formats[f], odd_sizes[i][0],
          odd_sizes[i][1]);
      GstVideoInfo info;
      GstCaps *caps = gst_caps_from_string (caps_str);
      GstBuffer *in, *out;
      GstMapInfo map;
      gsize b;

      fail_unless (gst_video_info_from_caps (&info, caps));
      gst_harness_set_src_caps (h, caps);
      g_free (caps_str);

      in = gst_buffer_new_allocate (NULL, info.size, NULL);
      fail_unless (gst_buffer_map (in, &map, GST_MAP_WRITE));
      for (b = 0; b < map.size; b++)
        map.data[b] = g_rand_int_range (rand, 0, 256);
      gst_buffer_unmap (in, &map);

      fail_unless_equals_int (gst_harness_push (h, gst_buffer_ref (in)),
          GST_FLOW_OK);
      out = gst_harness_pull (h);
      fail_unless (out != NULL);
      check_same_pixels (&info, in, out);
      gst_buffer_unref (in);
      gst_buffer_unref (out);
    }
  }
  g_rand_free (rand);
  gst_harness_teardown (h);
}

GST_END_TEST;

/* ---- renegotiation ---- */

GST_START_TEST (test_renegotiate_size)
{
  static const gint sizes[][2] = { {64, 48}, {32, 18}, {17, 9}, {96, 64} };
  GstHarness *h = gst_harness_new_parse ("clupload ! clcolorlowpass "
      "! cldownload");
  guint i, n;

  gst_harness_set_sink_caps_str (h, "video/x-raw,format=I420");
  for (i = 0; i < G_N_ELEMENTS (sizes); i++) {
    gchar *in_caps = g_strdup_printf ("video/x-raw,format=%s,width=%d,"
        "height=%d,framerate=30/1", i % 2 ? "BGRx" : "RGBx", sizes[i][0],
        sizes[i][1]);
    GstVideoInfo in_info, out_info;
    GstCaps *caps;

    gst_harness_set_src_caps_str (h, in_caps);
    caps = gst_caps_from_string (in_caps);
    fail_unless (gst_video_info_from_caps (&in_info, caps));
    gst_caps_unref (caps);
    g_free (in_caps);

    /* several frames, so that pooled buffers of the old size would be
     * reused if the pools were not replaced */
    for (n = 0; n < 3; n++) {
      GstBuffer *out;
      GstCaps *out_caps;

      fail_unless_equals_int (gst_harness_push (h, make_grey_frame (&in_info,
                  TRUE)), GST_FLOW_OK);
      out = gst_harness_pull (h);
      fail_unless (out != NULL);
      out_caps = gst_pad_get_current_caps (h->sinkpad);
      fail_unless (gst_video_info_from_caps (&out_info, out_caps));
      fail_unless_equals_int (GST_VIDEO_INFO_FORMAT (&out_info),
          GST_VIDEO_FORMAT_I420);
      fail_unless_equals_int (GST_VIDEO_INFO_WIDTH (&out_info), sizes[i][0]);
      fail_unless_equals_int (GST_VIDEO_INFO_HEIGHT (&out_info), sizes[i][1]);
      /* cldownload's output is plain, tightly sized system memory */
      fail_unless_equals_int (gst_buffer_get_size (out), out_info.size);
      check_grey_output (out, out_caps, FALSE);
      gst_caps_unref (out_caps);
      gst_buffer_unref (out);
    }
  }
  gst_harness_teardown (h);
}

GST_END_TEST;

static Suite *
errors_suite (void)
{
  Suite *s = suite_create ("clerrors");
  TCase *tc = tcase_create ("general");

  suite_add_tcase (s, tc);
  /* kernel builds for every variant take seconds on some drivers */
  tcase_set_timeout (tc, 900);
  tcase_add_test (tc, test_no_platform);
  tcase_add_test (tc, test_no_platform_in_process);
  tcase_add_test (tc, test_kernel_build_failure);
  tcase_add_test (tc, test_kernel_includes);
  tcase_add_test (tc, test_mpeg_launch_failure_mid_stream);
  tcase_add_loop_test (tc, test_too_small_buffer, 0,
      G_N_ELEMENTS (small_cases));
  tcase_add_loop_test (tc, test_video_meta_layout, 0,
      G_N_ELEMENTS (meta_cases));
  tcase_add_loop_test (tc, test_lying_video_meta, 0,
      2 * G_N_ELEMENTS (reader_cases));
  tcase_add_loop_test (tc, test_mpeg_unsupported_frame_rate, 0,
      G_N_ELEMENTS (unsupported_rates));
  tcase_add_test (tc, test_default_names);
  tcase_add_test (tc, test_metadata);
  tcase_add_loop_test (tc, test_odd_sizes, 0, G_N_ELEMENTS (odd_out_formats));
  tcase_add_test (tc, test_odd_sizes_transfer);
  tcase_add_test (tc, test_renegotiate_size);
  return s;
}

int
main (int argc, char **argv)
{
  /* the child of test_no_platform, in a fresh process */
  if (argc == 3 && strcmp (argv[1], NO_PLATFORM_CHILD_ARG) == 0)
    return no_platform_child (argv[2]);

  gst_check_init (&argc, &argv);
  gst_cl_video_register_kernels ();
  return gst_check_run_suite (errors_suite (), "errors", __FILE__);
}
