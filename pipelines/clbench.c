/* gst-clvideo: benchmark
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * Prints figures, never a verdict: the device's own copy-kernel bandwidth,
 * then for each stage its kernel device time and bytes per frame as a
 * fraction of that bandwidth, and whole-pipeline frame rates against the
 * stock element doing the same job, all in one run on one device.
 *
 *   clbench [--device SPEC] [--sizes 2048x2048,8773x5352] [--frames N]
 *           [--stages colorlowpass,image,motion]
 *           [--motion-sizes 2048x2048,1920x1080] [--lambda N]
 *           [--encode-sizes 1920x1080] [--quantizer Q] [--streams 1,4,8,16]
 *           [--clip FILE.y4m] [--untimed]
 *
 * "image" is the enhancement chain: clhistogram, clcontrast and clsmooth on
 * random, constant and natural-looking GRAY8 frames, each against OpenCV
 * (pipelines/opencv-bench.py) where the device is a CPU, and the chain with
 * device memory between the elements against a host round trip between
 * them.
 *
 * "motion" is full-search block matching of 16x16 blocks over -16..15 on
 * luma planes: pipelines/motion-baseline.cl (the straightforward kernel),
 * the clmotionsearch search, its rate-constrained mode, and on CPU devices
 * the host search of pipelines/sadsearch.c, all checked to agree; then
 * clmotionsearch's hierarchical method, with the share of blocks where it
 * finds the full search's vector.
 *
 * "encode" is the encoding chain from RGB in system memory to MPEG-1
 * video, clcolorlowpass ! clmotionsearch ! clmpegenc, in one streaming
 * thread and with queues between the elements. Its frames are a synthetic
 * textured pan, or with --clip the first frames of real footage (the
 * encoder's device work follows the content: its trellis takes longer on
 * detail than on the pan).
 *
 * "density" runs that many clmpegenc pipelines of I420 at each encode
 * size in this process at once (not a default stage): all their frames
 * per second, how many 30 fps streams that makes, and how many host
 * cores the process kept busy meanwhile. --density-inputs picks its
 * cases (several processes at once each running one of them: N
 * processes against N pipelines in one).
 *
 * The device times come from launches the queue times
 * (GST_CL_PROFILING_ENV), which costs some drivers a fifth or more of
 * their rate: the density stage never times, and --untimed leaves every
 * stage untimed (its device times then read 0).
 */
#include <gst/gst.h>
#include <gst/app/gstappsrc.h>
#include <gst/video/video.h>
#include <glib/gstdio.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>

#include <gst/cl/gstclcontext.h>
#include <gst/cl/gstclfilter.h>
#include <gst/cl/gstclhostmemory.h>
#include "gstclmotionlambda.h"
#include "gstclvideokernels.h"
#include "gstclmotionsearchcompute.h"
#include "gstclmpegtransform.h"
#include "sadsearch.h"

static GstClContext *bench_ctx;
/* "stats" of the element named "enc" in the last pipeline run, if any */
static GstStructure *last_enc_stats;
static gdouble chain_fps_device, chain_fps_host;
static gint bench_lambda = 4;
/* --encoder-props: more clmpegenc properties (a static "" when none) */
static gchar *encoder_props = (gchar *) "";

/* ---- failures ---- */

/* exits with @error's message, if any */
static void
fail_on (GError * error)
{
  if (error) {
    g_printerr ("%s\n", error->message);
    exit (1);
  }
}

/* exits with the call's name and error code unless @ret is CL_SUCCESS */
static void
check_or_exit (cl_int ret, const gchar * call)
{
  GError *error = NULL;

  if (!gst_cl_check (ret, call, &error))
    fail_on (error);
}

/* ---- copy bandwidth ---- */

/* The copy kernel's best rate over @reps launches moving @bytes (read plus
 * written, bytes a second); 0 where the context times no launch
 * (--untimed) */
static gdouble
measure_copy_bandwidth (GstClContext * ctx, gsize bytes, guint reps)
{
  GError *error = NULL;
  cl_kernel kernel;
  cl_mem a, b;
  cl_int ret;
  cl_uint n = bytes / 16;
  size_t global, local;
  guint64 launches = 0, total = 0, min_ns = 0;
  guint i;

  kernel = gst_cl_context_create_kernel (ctx, "copy", NULL,
      ctx->cpu_layout ? "copy_runs" : "copy_words", &error);
  fail_on (error);
  a = clCreateBuffer (ctx->context, CL_MEM_READ_WRITE, bytes, NULL, &ret);
  check_or_exit (ret, "clCreateBuffer");
  b = clCreateBuffer (ctx->context, CL_MEM_READ_WRITE, bytes, NULL, &ret);
  check_or_exit (ret, "clCreateBuffer");
  {
    const cl_uchar one = 1;
    check_or_exit (clEnqueueFillBuffer (ctx->queue, a, &one, 1, 0, bytes, 0,
            NULL, NULL), "clEnqueueFillBuffer");
    check_or_exit (clEnqueueFillBuffer (ctx->queue, b, &one, 1, 0, bytes, 0,
            NULL, NULL), "clEnqueueFillBuffer");
  }
  /* enough work-items to fill the device, each looping over the buffer */
  if (ctx->cpu_layout) {
    local = 1;
    global = (size_t) MAX (ctx->compute_units, 1) * 4;
  } else {
    local = 256;
    global = (size_t) MAX (ctx->compute_units, 1) * 2048;
    global = MIN (global, ((size_t) n + local - 1) / local * local);
  }
  check_or_exit (clSetKernelArg (kernel, 0, sizeof (cl_mem), &a),
      "clSetKernelArg");
  check_or_exit (clSetKernelArg (kernel, 1, sizeof (cl_mem), &b),
      "clSetKernelArg");
  check_or_exit (clSetKernelArg (kernel, 2, sizeof (cl_uint), &n),
      "clSetKernelArg");
  for (i = 0; i < reps + 1; i++) {
    if (i == 1)
      gst_cl_context_reset_stats (ctx);
    gst_cl_context_enqueue_kernel (ctx, kernel, "copy", 1, &global, &local,
        &error);
    fail_on (error);
  }
  gst_cl_context_get_kernel_stats (ctx, "copy", &launches, &total, &min_ns);
  check_or_exit (clReleaseMemObject (a), "clReleaseMemObject");
  check_or_exit (clReleaseMemObject (b), "clReleaseMemObject");
  check_or_exit (clReleaseKernel (kernel), "clReleaseKernel");
  /* read + write, at the best launch */
  return min_ns ? 2.0 * bytes / (min_ns * 1e-9) : 0.0;
}

/* The copy kernel's best time (ms) moving @bytes, read plus written: a
 * stage that moves as many bytes can hardly take less, launch ramp-up
 * and tail included (which dominate small frames on large GPUs). */
static gdouble
same_size_copy_ms (gdouble bytes)
{
  gsize half = ((gsize) (bytes / 2) + 15) & ~(gsize) 15;

  gdouble bandwidth = measure_copy_bandwidth (bench_ctx, half, 10);

  return bandwidth > 0 ? bytes / bandwidth * 1e3 : 0.0;
}

/* ---- pipelines ---- */

static GstBusSyncReply
bus_sync (GstBus * bus G_GNUC_UNUSED, GstMessage * msg,
    gpointer user_data G_GNUC_UNUSED)
{
  if (GST_MESSAGE_TYPE (msg) == GST_MESSAGE_NEED_CONTEXT) {
    const gchar *type = NULL;
    if (gst_message_parse_context_type (msg, &type) &&
        g_strcmp0 (type, GST_CL_CONTEXT_TYPE) == 0) {
      GstContext *c = gst_context_new_cl_context (bench_ctx);
      gst_element_set_context (GST_ELEMENT (GST_MESSAGE_SRC (msg)), c);
      gst_context_unref (c);
    }
  }
  return GST_BUS_PASS;
}

/* A host consumer: every frame is mapped for reading, as a real sink would */
static GstPadProbeReturn
map_probe (GstPad * pad G_GNUC_UNUSED, GstPadProbeInfo * info,
    gpointer user_data G_GNUC_UNUSED)
{
  GstBuffer *buf = GST_PAD_PROBE_INFO_BUFFER (info);
  GstMapInfo map;
  if (gst_buffer_map (buf, &map, GST_MAP_READ))
    gst_buffer_unmap (buf, &map);
  return GST_PAD_PROBE_OK;
}

/* Feeds the appsrc "src" of @pipeline @frames references to the @n_frames
 * buffers @frame (sharing their memory), going back and forth through the
 * list, 30 a second, then EOS. */
static void
feed_appsrc (GstElement * pipeline, guint frames, GstBuffer ** frame,
    guint n_frames)
{
  GstElement *src = gst_bin_get_by_name (GST_BIN (pipeline), "src");
  guint i, period = n_frames > 1 ? 2 * (n_frames - 1) : 1;

  g_object_set (src, "max-buffers", (guint64) frames + 1, NULL);
  for (i = 0; i < frames; i++) {
    guint k = i % period;
    GstBuffer *buf = gst_buffer_copy (frame[k < n_frames ? k : period - k]);
    GST_BUFFER_PTS (buf) = i * GST_SECOND / 30;
    GST_BUFFER_DURATION (buf) = GST_SECOND / 30;
    gst_app_src_push_buffer (GST_APP_SRC (src), buf);
  }
  gst_app_src_end_of_stream (GST_APP_SRC (src));
  gst_object_unref (src);
}

/* Runs @desc to EOS; returns frames per second over the whole run. With
 * @n_frames frames, the pipeline's appsrc "src" is fed @frames references
 * to them, going back and forth through the list. */
static gdouble
run_pipeline_frames (const gchar * desc, guint frames, GstBuffer ** frame,
    guint n_frames)
{
  GError *error = NULL;
  GstElement *pipeline = gst_parse_launch (desc, &error);
  GstElement *sink;
  GstPad *pad;
  GstBus *bus;
  GstMessage *msg;
  gint64 t0, t1;

  if (!pipeline) {
    g_printerr ("%s: %s\n", desc, error->message);
    exit (1);
  }
  /* a sink named "sink" is a host consumer; any other name takes device
   * memory as it comes */
  sink = gst_bin_get_by_name (GST_BIN (pipeline), "sink");
  if (sink) {
    pad = gst_element_get_static_pad (sink, "sink");
    gst_pad_add_probe (pad, GST_PAD_PROBE_TYPE_BUFFER, map_probe, NULL, NULL);
    gst_object_unref (pad);
    gst_object_unref (sink);
  }
  bus = gst_element_get_bus (pipeline);
  gst_bus_set_sync_handler (bus, bus_sync, NULL, NULL);

  if (n_frames)
    feed_appsrc (pipeline, frames, frame, n_frames);
  gst_element_set_state (pipeline, GST_STATE_PAUSED);
  gst_element_get_state (pipeline, NULL, NULL, GST_CLOCK_TIME_NONE);
  t0 = g_get_monotonic_time ();
  gst_element_set_state (pipeline, GST_STATE_PLAYING);
  msg = gst_bus_timed_pop_filtered (bus, GST_CLOCK_TIME_NONE,
      GST_MESSAGE_EOS | GST_MESSAGE_ERROR);
  /* a sink that takes device memory does not wait for the device */
  check_or_exit (clFinish (bench_ctx->queue), "clFinish");
  t1 = g_get_monotonic_time ();
  if (GST_MESSAGE_TYPE (msg) == GST_MESSAGE_ERROR) {
    GError *err = NULL;
    gchar *dbg = NULL;
    gst_message_parse_error (msg, &err, &dbg);
    g_printerr ("%s: %s\n%s\n", desc, err->message, dbg ? dbg : "");
    exit (1);
  }
  gst_message_unref (msg);
  g_clear_pointer (&last_enc_stats, gst_structure_free);
  {
    GstElement *enc = gst_bin_get_by_name (GST_BIN (pipeline), "enc");
    if (enc) {
      g_object_get (enc, "stats", &last_enc_stats, NULL);
      gst_object_unref (enc);
    }
  }
  gst_element_set_state (pipeline, GST_STATE_NULL);
  gst_bus_set_sync_handler (bus, NULL, NULL, NULL);
  gst_object_unref (bus);
  gst_object_unref (pipeline);
  /* the preroll frame was made before t0 */
  return (frames - 1) / ((t1 - t0) / 1e6);
}

static gdouble
run_pipeline_with (const gchar * desc, guint frames, GstBuffer * frame)
{
  return run_pipeline_frames (desc, frames, &frame, frame ? 1 : 0);
}

static gdouble
run_pipeline (const gchar * desc, guint frames)
{
  return run_pipeline_with (desc, frames, NULL);
}

static void
bench_colorlowpass (gint w, gint h, guint frames, gdouble copy_bw)
{
  static const gchar *filters[] = { "none", "binomial-3x3", "gaussian-5x5" };
  gchar *src = g_strdup_printf ("videotestsrc num-buffers=%u pattern=smpte "
      "! video/x-raw,format=RGBx,width=%d,height=%d,framerate=30/1", frames, w,
      h);
  gsize cw = (w + 1) / 2, ch = (h + 1) / 2;
  gdouble bytes = (gdouble) w * h * 4 + (gdouble) w * h + 2.0 * cw * ch;
  gdouble fps_ref, fps_src, copy_ms = same_size_copy_ms (bytes);
  gchar *desc;
  guint i;

  desc = g_strdup_printf ("%s ! fakesink name=sink", src);
  fps_src = run_pipeline (desc, frames);
  g_free (desc);
  desc = g_strdup_printf ("%s ! videoconvert ! video/x-raw,format=I420 ! "
      "fakesink name=sink", src);
  fps_ref = run_pipeline (desc, frames);
  g_free (desc);

  for (i = 0; i < G_N_ELEMENTS (filters); i++) {
    guint64 launches = 0, total = 0, min_ns = 0;
    gdouble fps, mean_ms;

    desc = g_strdup_printf ("%s ! clcolorlowpass luma-filter=%s ! "
        "video/x-raw,format=I420 ! fakesink name=sink", src, filters[i]);
    gst_cl_context_reset_stats (bench_ctx);
    fps = run_pipeline (desc, frames);
    g_free (desc);
    gst_cl_context_get_kernel_stats (bench_ctx, "colorlowpass", &launches,
        &total, &min_ns);
    mean_ms = launches ? total / 1e6 / launches : 0;
    printf ("| clcolorlowpass %-12s | %5dx%-5d | %8.3f | %8.3f | %6.1f | "
        "%5.1f%% | %8.3f | %5.1f%% | %7.1f | %7.1f | %5.2fx | %7.1f |\n",
        filters[i], w, h, mean_ms, min_ns / 1e6, bytes / 1e6,
        100.0 * (bytes / (min_ns * 1e-9)) / copy_bw, copy_ms,
        100.0 * copy_ms / (min_ns / 1e6), fps, fps_ref, fps / fps_ref,
        fps_src);
    fflush (stdout);
  }
  g_free (src);
}

/* ---- the image-enhancement chain ---- */

typedef enum
{
  CONTENT_RANDOM,
  CONTENT_CONSTANT,
  CONTENT_NATURAL,
} Content;

static const gchar *content_names[] = { "random", "constant", "natural" };

static GstBuffer *
make_gray_frame (gint w, gint h, Content content)
{
  GstBuffer *buf = gst_buffer_new_allocate (NULL, (gsize) w * h, NULL);
  gsize offset[GST_VIDEO_MAX_PLANES] = { 0 };
  gint stride[GST_VIDEO_MAX_PLANES] = { w };
  GstMapInfo map;
  guint32 state = 2463534242u;
  gint x, y;

  /* rows packed tightly, as OpenCV holds them: say so in a meta, since
   * the caps' default stride is rounded up to 4 bytes */
  gst_buffer_add_video_meta_full (buf, GST_VIDEO_FRAME_FLAG_NONE,
      GST_VIDEO_FORMAT_GRAY8, w, h, 1, offset, stride);

  gst_buffer_map (buf, &map, GST_MAP_WRITE);
  for (y = 0; y < h; y++) {
    guint8 *row = map.data + (gsize) y * w;
    for (x = 0; x < w; x++) {
      gint v;
      state ^= state << 13;
      state ^= state >> 17;
      state ^= state << 5;
      switch (content) {
        case CONTENT_RANDOM:
          v = state & 0xff;
          break;
        case CONTENT_CONSTANT:
          v = 128;
          break;
        default:
          /* smooth shading, a low-contrast range, and a little noise */
          v = 100 + (gint) (40.0 * sin (x / 97.0) * cos (y / 61.0) +
              30.0 * x / w) + (gint) (state % 9) - 4;
          break;
      }
      row[x] = CLAMP (v, 0, 255);
    }
  }
  gst_buffer_unmap (buf, &map);
  return buf;
}

/* OpenCV's median times for the same frame; FALSE when it is not there */
static gboolean
opencv_times (GstBuffer * frame, gint w, gint h, gdouble * hist_ms,
    gdouble * equalize_ms, gdouble * box_ms)
{
  gchar *path = g_build_filename (g_get_tmp_dir (), "clbench-frame.gray",
      NULL);
  gchar *script = g_build_filename (g_getenv ("CLBENCH_DIR") ?
      g_getenv ("CLBENCH_DIR") : ".", "opencv-bench.py", NULL);
  gchar *argv[7], *out = NULL, wbuf[16], hbuf[16];
  gint status = 1;
  GstMapInfo map;
  gboolean ok = FALSE;

  gst_buffer_map (frame, &map, GST_MAP_READ);
  g_file_set_contents (path, (const gchar *) map.data, map.size, NULL);
  gst_buffer_unmap (frame, &map);
  g_snprintf (wbuf, sizeof (wbuf), "%d", w);
  g_snprintf (hbuf, sizeof (hbuf), "%d", h);
  argv[0] = (gchar *) "/usr/bin/python3";
  argv[1] = script;
  argv[2] = path;
  argv[3] = wbuf;
  argv[4] = hbuf;
  argv[5] = (gchar *) (w * (gint64) h > 8 << 20 ? "5" : "20");
  argv[6] = NULL;
  if (g_spawn_sync (NULL, argv, NULL, G_SPAWN_STDERR_TO_DEV_NULL, NULL, NULL,
          &out, NULL, &status, NULL) && status == 0) {
    gchar **lines = g_strsplit (out, "\n", -1);
    guint i, found = 0;
    for (i = 0; lines[i]; i++) {
      gdouble *dst = NULL;
      gchar name[32];
      gdouble ms;
      if (sscanf (lines[i], "%31s %lf", name, &ms) != 2)
        continue;
      if (g_str_equal (name, "calcHist"))
        dst = hist_ms;
      else if (g_str_equal (name, "equalizeHist"))
        dst = equalize_ms;
      else if (g_str_equal (name, "boxFilter"))
        dst = box_ms;
      if (dst) {
        *dst = ms;
        found++;
      }
    }
    ok = found == 3;
    g_strfreev (lines);
  }
  g_unlink (path);
  g_free (out);
  g_free (path);
  g_free (script);
  return ok;
}

static gboolean
have_elements (const gchar * first, ...)
{
  va_list args;
  const gchar *name = first;
  gboolean ok = TRUE;

  va_start (args, first);
  while (name && ok) {
    GstElementFactory *f = gst_element_factory_find (name);
    ok = f != NULL;
    if (f)
      gst_object_unref (f);
    name = va_arg (args, const gchar *);
  }
  va_end (args);
  return ok;
}

static void
print_stage (const gchar * stage, const gchar * label, Content content, gint w,
    gint h, gdouble bytes, gdouble copy_bw, gdouble copy_ms, gdouble cv_ms)
{
  guint64 launches = 0, total = 0, min_ns = 0;
  gdouble mean_ms;

  gst_cl_context_get_kernel_stats (bench_ctx, label, &launches, &total,
      &min_ns);
  mean_ms = launches ? total / 1e6 / launches : 0;
  printf ("| %-22s | %-8s | %5dx%-5d | %8.3f | %8.3f | %6.1f | %5.1f%% | "
      "%8.3f | %5.1f%% |", stage, content_names[content], w, h, mean_ms,
      min_ns / 1e6, bytes / 1e6, 100.0 * (bytes / (min_ns * 1e-9)) / copy_bw,
      copy_ms, 100.0 * copy_ms / (min_ns / 1e6));
  if (cv_ms > 0)
    printf (" %8.3f | %5.2fx |\n", cv_ms, cv_ms / mean_ms);
  else
    printf (" - | - |\n");
  fflush (stdout);
}

static void
bench_image_chain (gint w, gint h, guint frames, gdouble copy_bw)
{
  const gchar *src = "appsrc name=src format=time ! "
      "video/x-raw,format=GRAY8,width=%d,height=%d,framerate=30/1";
  gdouble px = (gdouble) w * h, copy1, copy2;
  Content c;

  if (!have_elements ("clhistogram", "clcontrast", "clsmooth", NULL)) {
    printf ("(image chain elements not built: skipped)\n");
    return;
  }
  copy1 = same_size_copy_ms (px);
  copy2 = same_size_copy_ms (2 * px);
  for (c = CONTENT_RANDOM; c <= CONTENT_NATURAL; c++) {
    GstBuffer *frame = make_gray_frame (w, h, c);
    gdouble hist_cv = 0, eq_cv = 0, box_cv = 0;
    gchar *head = g_strdup_printf (src, w, h);
    gchar *desc;

    if (bench_ctx->host_unified)
      opencv_times (frame, w, h, &hist_cv, &eq_cv, &box_cv);

    desc = g_strdup_printf ("%s ! clhistogram ! fakesink name=sink", head);
    gst_cl_context_reset_stats (bench_ctx);
    run_pipeline_with (desc, frames, frame);
    print_stage ("clhistogram", "histogram", c, w, h, px, copy_bw, copy1,
        hist_cv);
    g_free (desc);

    desc = g_strdup_printf ("%s ! clcontrast mode=equalize ! "
        "video/x-raw(memory:OpenCL) ! fakesink name=sink", head);
    gst_cl_context_reset_stats (bench_ctx);
    run_pipeline_with (desc, frames, frame);
    print_stage ("clcontrast (its hist.)", "histogram", c, w, h, px, copy_bw,
        copy1, 0);
    print_stage ("clcontrast equalize", "contrast", c, w, h, 2 * px, copy_bw,
        copy2, eq_cv);
    g_free (desc);

    desc = g_strdup_printf ("%s ! clsmooth radius=2 kernel=box ! "
        "video/x-raw(memory:OpenCL) ! fakesink name=sink", head);
    gst_cl_context_reset_stats (bench_ctx);
    run_pipeline_with (desc, frames, frame);
    print_stage ("clsmooth box 5x5", "smooth", c, w, h, 2 * px, copy_bw,
        copy2, box_cv);
    g_free (desc);

    if (c == CONTENT_NATURAL) {
      /* the chain, frames kept on the device between the elements (one
       * upload, one download), against a host round trip between each
       * pair */
      gdouble fps_dev, fps_host;
      desc = g_strdup_printf ("%s ! clupload ! clhistogram ! "
          "video/x-raw(memory:OpenCL) ! clcontrast ! "
          "video/x-raw(memory:OpenCL) ! clsmooth ! cldownload ! "
          "fakesink name=sink", head);
      fps_dev = run_pipeline_with (desc, frames, frame);
      g_free (desc);
      desc = g_strdup_printf ("%s ! clupload ! clhistogram ! cldownload ! "
          "clupload ! clcontrast ! cldownload ! clupload ! clsmooth ! "
          "cldownload ! fakesink name=sink", head);
      fps_host = run_pipeline_with (desc, frames, frame);
      g_free (desc);
      chain_fps_device = fps_dev;
      chain_fps_host = fps_host;
    }
    g_free (head);
    gst_buffer_unref (frame);
  }
  printf ("| chain histogram ! contrast ! smooth | natural | %5dx%-5d | "
      "device memory between: %.1f fps | host round trips between: %.1f fps "
      "| %.2fx |\n", w, h, chain_fps_device, chain_fps_host,
      chain_fps_device / chain_fps_host);
}

/* ---- motion search ---- */

#define MOTION_RANGE 16
#define MOTION_BLOCK 16
/* the known motion of the natural content, in samples */
#define MOTION_SHIFT_X 5
#define MOTION_SHIFT_Y (-3)

/* A sample of an endless textured picture: shading at a few scales and
 * fine grain that moves with it, so a shifted copy matches in one place. */
static guint8
texture_sample (gint x, gint y)
{
  guint32 hsh = (guint32) x * 73856093u ^ (guint32) y * 19349663u;
  gdouble v;

  hsh ^= hsh >> 13;
  hsh *= 0x5bd1e995u;
  hsh ^= hsh >> 15;
  v = 120.0 + 45.0 * sin (x * 0.071 + 0.8 * sin (y * 0.043)) *
      cos (y * 0.059) + 25.0 * sin ((x + 2 * y) * 0.23) +
      (gint) (hsh % 13) - 6;
  return (guint8) CLAMP ((gint) v, 0, 255);
}

/* @cur and @ref (@w x @h, rows of @w): with @natural, @cur is @ref moved
 * by (-MOTION_SHIFT_X, -MOTION_SHIFT_Y), i.e. every block of @cur is
 * found at +MOTION_SHIFT in @ref; else two unrelated random pictures. */
static void
make_motion_pair (guint8 * cur, guint8 * ref, gint w, gint h,
    gboolean natural)
{
  guint32 state = 88172645u;
  gint x, y;

  for (y = 0; y < h; y++)
    for (x = 0; x < w; x++) {
      if (natural) {
        ref[(gsize) y * w + x] = texture_sample (x, y);
        cur[(gsize) y * w + x] = texture_sample (x + MOTION_SHIFT_X,
            y + MOTION_SHIFT_Y);
      } else {
        state ^= state << 13;
        state ^= state >> 17;
        state ^= state << 5;
        cur[(gsize) y * w + x] = state & 0xff;
        ref[(gsize) y * w + x] = (state >> 8) & 0xff;
      }
    }
}

static cl_kernel
motion_baseline_kernel (GstClContext * ctx)
{
  const gchar *dir = g_getenv ("CLBENCH_DIR");
  gchar *path = g_build_filename (dir ? dir : CLBENCH_SRCDIR,
      "motion-baseline.cl", NULL);
  gchar *source = NULL;
  GError *error = NULL;
  cl_program program;
  cl_kernel kernel = NULL;
  cl_int ret;

  g_file_get_contents (path, &source, NULL, &error);
  fail_on (error);
  program = clCreateProgramWithSource (ctx->context, 1,
      (const gchar **) &source, NULL, &ret);
  check_or_exit (ret, "clCreateProgramWithSource");
  ret = clBuildProgram (program, 1, &ctx->device, "-cl-std=CL1.2", NULL,
      NULL);
  if (ret != CL_SUCCESS) {
    gchar log[16384] = "";
    check_or_exit (clGetProgramBuildInfo (program, ctx->device,
            CL_PROGRAM_BUILD_LOG, sizeof (log) - 1, log, NULL),
        "clGetProgramBuildInfo");
    g_printerr ("%s: clBuildProgram failed: %s\n%s\n", path,
        gst_cl_error_name (ret), log);
    exit (1);
  }
  kernel = clCreateKernel (program, "motion_baseline", &ret);
  check_or_exit (ret, "clCreateKernel");
  check_or_exit (clReleaseProgram (program), "clReleaseProgram");
  g_free (source);
  g_free (path);
  return kernel;
}

/* Runs @reps searches back to back after one warm-up; wall ms per search. */
typedef gboolean (*SearchFunc) (gpointer data, GError ** error);

static gdouble
time_searches (SearchFunc func, gpointer data, guint reps)
{
  GError *error = NULL;
  gint64 t0;
  guint i;

  func (data, &error);
  fail_on (error);
  gst_cl_context_finish (bench_ctx, &error);
  fail_on (error);
  t0 = g_get_monotonic_time ();
  for (i = 0; i < reps; i++) {
    func (data, &error);
    fail_on (error);
  }
  gst_cl_context_finish (bench_ctx, &error);
  fail_on (error);
  return (g_get_monotonic_time () - t0) / 1e3 / reps;
}

typedef struct
{
  cl_kernel kernel;
  size_t global[2];
  GstClMotionSearch *search, *hier;
  GstClMotionLambda *lambda;
  GstClPlane cur, ref;
  cl_mem vectors;
  const guint8 *cur_host, *ref_host;
  guint w, h;
  SadVector *host_out;
} MotionRun;

static gboolean
run_baseline (gpointer data, GError ** error)
{
  MotionRun *m = data;
  const size_t local[2] = { MOTION_BLOCK, MOTION_BLOCK };
  return gst_cl_context_enqueue_kernel (bench_ctx, m->kernel,
      "motion-baseline", 2, m->global, local, error);
}

static gboolean
run_element (gpointer data, GError ** error)
{
  MotionRun *m = data;
  return gst_cl_motion_search_run (m->search, &m->cur, &m->ref, m->vectors,
      error);
}

static gboolean
run_hierarchical (gpointer data, GError ** error)
{
  MotionRun *m = data;
  return gst_cl_motion_search_run (m->hier, &m->cur, &m->ref, m->vectors,
      error);
}

static gboolean
run_lambda (gpointer data, GError ** error)
{
  MotionRun *m = data;
  return gst_cl_motion_lambda_run (m->lambda, &m->cur, &m->ref, m->vectors,
      error);
}

static gboolean
run_host_search (gpointer data, GError ** error G_GNUC_UNUSED)
{
  MotionRun *m = data;
  sad_search_full (m->cur_host, m->w, m->ref_host, m->w, m->w, m->h,
      MOTION_BLOCK, MOTION_RANGE, g_get_num_processors (), m->host_out);
  return TRUE;
}

static void
read_vectors (cl_mem vectors, gsize n, SadVector * out)
{
  check_or_exit (clEnqueueReadBuffer (bench_ctx->queue, vectors, CL_TRUE,
          0, n * sizeof (SadVector), out, 0, NULL, NULL),
      "clEnqueueReadBuffer");
}

/* Blocks where @a and @b differ; the first one described in @first. */
static guint
count_differences (const SadVector * a, const SadVector * b, guint n,
    guint bx_n, gchar ** first)
{
  guint i, diff = 0;

  for (i = 0; i < n; i++)
    if (a[i].dx != b[i].dx || a[i].dy != b[i].dy || a[i].sad != b[i].sad) {
      if (!diff && first)
        *first = g_strdup_printf ("block (%u,%u): (%d,%d) sad %u vs (%d,%d) "
            "sad %u", i % bx_n, i / bx_n, a[i].dx, a[i].dy, a[i].sad,
            b[i].dx, b[i].dy, b[i].sad);
      diff++;
    }
  return diff;
}

static void
bench_motion (gint w, gint h, guint reps)
{
  const guint bx_n = (w + MOTION_BLOCK - 1) / MOTION_BLOCK;
  const guint by_n = (h + MOTION_BLOCK - 1) / MOTION_BLOCK;
  const guint n = bx_n * by_n;
  const gdouble px = (gdouble) n * (4.0 * MOTION_RANGE * MOTION_RANGE) *
      MOTION_BLOCK * MOTION_BLOCK;
  const gboolean cpu = bench_ctx->host_unified;
  GstClMotionSearchParams params = { MOTION_BLOCK, MOTION_RANGE, FALSE, 0,
    0.0, GST_CL_MOTION_METHOD_FULL
  };
  GstClMotionSearchParams hier_params = { MOTION_BLOCK, MOTION_RANGE, FALSE,
    0, 0.0, GST_CL_MOTION_METHOD_HIERARCHICAL
  };
  guint8 *cur = g_malloc ((gsize) w * h), *ref = g_malloc ((gsize) w * h);
  SadVector *v_base = g_new (SadVector, n), *v_elem = g_new (SadVector, n);
  SadVector *v_host = g_new (SadVector, n), *v_hier = g_new (SadVector, n);
  GError *error = NULL;
  MotionRun m = { 0 };
  cl_mem bufs[2];
  cl_int ret;
  gint natural;

  m.kernel = motion_baseline_kernel (bench_ctx);
  m.global[0] = (size_t) bx_n * MOTION_BLOCK;
  m.global[1] = (size_t) by_n * MOTION_BLOCK;
  m.search = gst_cl_motion_search_new (bench_ctx, &params, &error);
  fail_on (error);
  m.hier = gst_cl_motion_search_new (bench_ctx, &hier_params, &error);
  fail_on (error);
  m.vectors = clCreateBuffer (bench_ctx->context, CL_MEM_READ_WRITE,
      n * sizeof (SadVector), NULL, &ret);
  check_or_exit (ret, "clCreateBuffer");
  bufs[0] = clCreateBuffer (bench_ctx->context, CL_MEM_READ_ONLY,
      (gsize) w * h, NULL, &ret);
  check_or_exit (ret, "clCreateBuffer");
  bufs[1] = clCreateBuffer (bench_ctx->context, CL_MEM_READ_ONLY,
      (gsize) w * h, NULL, &ret);
  check_or_exit (ret, "clCreateBuffer");
  m.cur_host = cur;
  m.ref_host = ref;
  m.w = w;
  m.h = h;
  m.host_out = v_host;

  for (natural = 1; natural >= 0; natural--) {
    const gchar *content = natural ? "natural" : "random";
    gdouble base_ms, elem_ms, hier_ms, host_ms = 0;
    gchar *first = NULL;
    guint diff_elem, diff_host = 0, found = 0, found_hier = 0, interior = 0,
        same_hier = 0, i;
    guint arg = 0;
    cl_uint zero = 0, stride = w, width = w, height = h;

    make_motion_pair (cur, ref, w, h, natural);
    check_or_exit (clEnqueueWriteBuffer (bench_ctx->queue, bufs[0], CL_TRUE,
            0, (gsize) w * h, cur, 0, NULL, NULL), "clEnqueueWriteBuffer");
    check_or_exit (clEnqueueWriteBuffer (bench_ctx->queue, bufs[1], CL_TRUE,
            0, (gsize) w * h, ref, 0, NULL, NULL), "clEnqueueWriteBuffer");
    m.cur = (GstClPlane) {
    bufs[0], 0, w, w, h, 1};
    m.ref = (GstClPlane) {
    bufs[1], 0, w, w, h, 1};

    if (!gst_cl_kernel_set_arg (m.kernel, &arg, sizeof (cl_mem), &bufs[0],
            &error) ||
        !gst_cl_kernel_set_arg (m.kernel, &arg, sizeof (cl_uint), &zero,
            &error) ||
        !gst_cl_kernel_set_arg (m.kernel, &arg, sizeof (cl_uint), &stride,
            &error) ||
        !gst_cl_kernel_set_arg (m.kernel, &arg, sizeof (cl_mem), &bufs[1],
            &error) ||
        !gst_cl_kernel_set_arg (m.kernel, &arg, sizeof (cl_uint), &zero,
            &error) ||
        !gst_cl_kernel_set_arg (m.kernel, &arg, sizeof (cl_uint), &stride,
            &error) ||
        !gst_cl_kernel_set_arg (m.kernel, &arg, sizeof (cl_uint), &width,
            &error) ||
        !gst_cl_kernel_set_arg (m.kernel, &arg, sizeof (cl_uint), &height,
            &error) ||
        !gst_cl_kernel_set_arg (m.kernel, &arg, sizeof (cl_mem), &m.vectors,
            &error))
      fail_on (error);

    base_ms = time_searches (run_baseline, &m, reps);
    read_vectors (m.vectors, n, v_base);
    elem_ms = time_searches (run_element, &m, reps);
    read_vectors (m.vectors, n, v_elem);
    hier_ms = time_searches (run_hierarchical, &m, reps);
    read_vectors (m.vectors, n, v_hier);
    for (i = 0; i < n; i++)
      same_hier += v_hier[i].dx == v_base[i].dx &&
          v_hier[i].dy == v_base[i].dy;
    if (cpu)
      host_ms = time_searches (run_host_search, &m, reps);

    printf ("| %-8s | %5dx%-5d | seed-style baseline | %9.3f | %7.2f | - |\n",
        content, w, h, base_ms, px / (base_ms * 1e-3) / 1e9);
    /* speeds: the other's time over the element's */
    printf ("| %-8s | %5dx%-5d | clmotionsearch | %9.3f | %7.2f | "
        "%.2fx baseline", content, w, h, elem_ms,
        px / (elem_ms * 1e-3) / 1e9, base_ms / elem_ms);
    if (cpu)
      printf (", %.2fx C |\n| %-8s | %5dx%-5d | C %s, %u threads | %9.3f | "
          "%7.2f | - |\n", host_ms / elem_ms, content, w, h,
          sad_search_isa (), g_get_num_processors (), host_ms,
          px / (host_ms * 1e-3) / 1e9);
    else
      printf (" |\n");
    /* speed against the full search; the share of blocks whose vector is
     * the full search's tells how close it comes */
    printf ("| %-8s | %5dx%-5d | clmotionsearch method=hierarchical | "
        "%9.3f | %7.2f | %.1fx full search, same vector in %.1f%% of "
        "blocks |\n", content, w, h, hier_ms, px / (hier_ms * 1e-3) / 1e9,
        elem_ms / hier_ms, 100.0 * same_hier / n);
    if (bench_lambda) {
      guint64 launches, sads_ns = 0, rows_ns = 0, min_ns;
      gdouble lambda_ms;
      m.lambda = gst_cl_motion_lambda_new (bench_ctx, MOTION_BLOCK,
          MOTION_RANGE, bench_lambda, &error);
      fail_on (error);
      gst_cl_context_reset_stats (bench_ctx);
      lambda_ms = time_searches (run_lambda, &m, reps);
      gst_cl_motion_lambda_free (m.lambda);
      /* device time of its two passes (the CPU layout has one) */
      gst_cl_context_get_kernel_stats (bench_ctx,
          GST_CL_MOTION_LAMBDA_SADS_LABEL, &launches, &sads_ns, &min_ns);
      gst_cl_context_get_kernel_stats (bench_ctx,
          GST_CL_MOTION_LAMBDA_ROWS_LABEL, &launches, &rows_ns, &min_ns);
      printf ("| %-8s | %5dx%-5d | clmotionsearch lambda=%u | %9.3f | "
          "%7.2f | %.2fx baseline; device ms: SADs %.3f, rows %.3f |\n",
          content, w, h, bench_lambda, lambda_ms,
          px / (lambda_ms * 1e-3) / 1e9, base_ms / lambda_ms,
          sads_ns / 1e6 / (reps + 1), rows_ns / 1e6 / (reps + 1));
    }

    diff_elem = count_differences (v_base, v_elem, n, bx_n, &first);
    if (cpu)
      diff_host = count_differences (v_base, v_host, n, bx_n,
          first ? NULL : &first);
    if (diff_elem || diff_host)
      printf ("vectors DIFFER: element %u, C search %u of %u blocks; first "
          "%s\n", diff_elem, diff_host, n, first);
    else
      printf ("vectors identical: baseline = element%s, %u blocks\n",
          cpu ? " = C search" : "", n);
    g_free (first);
    if (natural) {
      /* blocks whose true match lies inside the search window and picture */
      for (i = 0; i < n; i++) {
        const gint x0 = (i % bx_n) * MOTION_BLOCK, y0 = (i / bx_n) *
            MOTION_BLOCK;
        const gint bw = MIN (MOTION_BLOCK, w - x0);
        const gint bh = MIN (MOTION_BLOCK, h - y0);
        if (x0 + MOTION_SHIFT_X < 0 || y0 + MOTION_SHIFT_Y < 0 ||
            x0 + MOTION_SHIFT_X + bw > w || y0 + MOTION_SHIFT_Y + bh > h)
          continue;
        interior++;
        found += v_base[i].dx == 2 * MOTION_SHIFT_X &&
            v_base[i].dy == 2 * MOTION_SHIFT_Y && v_base[i].sad == 0;
        found_hier += v_hier[i].dx == 2 * MOTION_SHIFT_X &&
            v_hier[i].dy == 2 * MOTION_SHIFT_Y && v_hier[i].sad == 0;
      }
      printf ("known motion (%d,%d): found with SAD 0 in %u of %u blocks "
          "where it is a candidate (hierarchical: %u)\n", MOTION_SHIFT_X,
          MOTION_SHIFT_Y, found, interior, found_hier);
    }
    fflush (stdout);
  }
  gst_cl_motion_search_free (m.search);
  gst_cl_motion_search_free (m.hier);
  check_or_exit (clReleaseKernel (m.kernel), "clReleaseKernel");
  check_or_exit (clReleaseMemObject (m.vectors), "clReleaseMemObject");
  check_or_exit (clReleaseMemObject (bufs[0]), "clReleaseMemObject");
  check_or_exit (clReleaseMemObject (bufs[1]), "clReleaseMemObject");
  g_free (cur);
  g_free (ref);
  g_free (v_base);
  g_free (v_elem);
  g_free (v_host);
  g_free (v_hier);
}

/* ---- the encoding chain ---- */

#define ENCODE_CLIP_FRAMES 16

/* Frame @i of a natural-looking packed RGB clip (3 bytes a pixel, rows
 * rounded up to 4 bytes as the caps say) panning by (2, 1) samples per
 * frame: smooth colour shading with edges and a little noise. */
static GstBuffer *
make_rgb_frame (gint w, gint h, guint i)
{
  gsize stride = GST_ROUND_UP_4 ((gsize) w * 3);
  GstBuffer *buf = gst_buffer_new_allocate (NULL, stride * h, NULL);
  GstMapInfo map;
  guint32 state = 2463534242u + i;
  gint x, y;

  gst_buffer_map (buf, &map, GST_MAP_WRITE);
  for (y = 0; y < h; y++) {
    guint8 *row = map.data + (gsize) y * stride;
    gint sy = y + (gint) i;
    for (x = 0; x < w; x++) {
      gint sx = x + 2 * (gint) i, c;
      gdouble base = 40.0 * sin (sx / 37.0) * cos (sy / 23.0) +
          25.0 * sin ((sx + sy) / 11.0) + 60.0 * (((sx >> 6) ^ (sy >> 6)) & 1);
      state ^= state << 13;
      state ^= state >> 17;
      state ^= state << 5;
      for (c = 0; c < 3; c++) {
        gint v = 90 + 20 * c + (gint) (base * (1.0 - 0.25 * c)) +
            (gint) ((state >> (8 * c)) % 5) - 2;
        row[3 * x + c] = CLAMP (v, 0, 255);
      }
    }
  }
  gst_buffer_unmap (buf, &map);
  return buf;
}

static gdouble
label_ms_per_frame (const gchar * label, guint frames)
{
  guint64 launches = 0, total = 0, min_ns = 0;
  gst_cl_context_get_kernel_stats (bench_ctx, label, &launches, &total,
      &min_ns);
  return total / 1e6 / frames;
}

static guint64
enc_stat (const gchar * field)
{
  guint64 v = 0;
  if (last_enc_stats)
    gst_structure_get_uint64 (last_enc_stats, field, &v);
  return v;
}

/* Frame @in (@from, @w x @h) converted to @to in system memory: the
 * synthetic clip to I420 for the encoder alone, a real one to RGB for the
 * chain */
static GstBuffer *
convert_frame (GstBuffer * in, GstVideoFormat from, GstVideoFormat to,
    gint w, gint h)
{
  GstVideoInfo in_info, out_info;
  GstVideoFrame in_frame, out_frame;
  GstVideoConverter *conv;
  GstBuffer *out;

  gst_video_info_set_format (&in_info, from, w, h);
  gst_video_info_set_format (&out_info, to, w, h);
  out = gst_buffer_new_allocate (NULL, out_info.size, NULL);
  conv = gst_video_converter_new (&in_info, &out_info, NULL);
  gst_video_frame_map (&in_frame, &in_info, in, GST_MAP_READ);
  gst_video_frame_map (&out_frame, &out_info, out, GST_MAP_WRITE);
  gst_video_converter_frame (conv, &in_frame, &out_frame);
  gst_video_frame_unmap (&out_frame);
  gst_video_frame_unmap (&in_frame);
  gst_video_converter_free (conv);
  return out;
}

/* --clip: a y4m file of I420 frames whose first ENCODE_CLIP_FRAMES
 * replace the synthetic clip of the encode and density stages (real
 * footage: the device work of the encoder follows the content); its
 * frames, read once by load_clip */
static gchar *clip_path;
static GstBuffer *clip_frames[ENCODE_CLIP_FRAMES];
static guint clip_count;

/* The frame size that the header of the y4m file @f (named @path) gives,
 * into @w and @h; FALSE (and a message) where it is not a y4m file of
 * 4:2:0 frames */
static gboolean
y4m_header (FILE * f, const gchar * path, gint * w, gint * h)
{
  gchar line[256];
  gchar **tokens;
  gboolean ok;
  guint i;

  *w = *h = 0;
  if (!fgets (line, sizeof (line), f) || !g_str_has_prefix (line,
          "YUV4MPEG2 ")) {
    g_printerr ("%s: not a y4m file\n", path);
    return FALSE;
  }
  g_strchomp (line);
  tokens = g_strsplit (line, " ", -1);
  ok = TRUE;
  for (i = 1; tokens[i]; i++) {
    if (tokens[i][0] == 'W')
      *w = atoi (tokens[i] + 1);
    else if (tokens[i][0] == 'H')
      *h = atoi (tokens[i] + 1);
    else if (tokens[i][0] == 'C' && !g_str_has_prefix (tokens[i], "C420"))
      ok = FALSE;
  }
  g_strfreev (tokens);
  if (!ok || *w < 16 || *h < 16) {
    g_printerr ("%s: not 4:2:0 frames of at least 16x16 (%dx%d)\n", path,
        *w, *h);
    return FALSE;
  }
  return TRUE;
}

/* Reads --clip: its frame size into @w and @h, its first frames, at most
 * ENCODE_CLIP_FRAMES, as I420 buffers into clip_frames; FALSE (and a
 * message) where the file cannot serve */
static gboolean
load_clip (gint * w, gint * h)
{
  FILE *f = fopen (clip_path, "rb");
  GstVideoInfo info;

  if (!f) {
    g_printerr ("%s: cannot open it\n", clip_path);
    return FALSE;
  }
  if (!y4m_header (f, clip_path, w, h)) {
    fclose (f);
    return FALSE;
  }
  gst_video_info_set_format (&info, GST_VIDEO_FORMAT_I420, *w, *h);
  while (clip_count < ENCODE_CLIP_FRAMES) {
    gchar line[256];
    GstVideoFrame frame;
    GstBuffer *buf;
    gboolean whole = TRUE;
    guint p;

    if (!fgets (line, sizeof (line), f) || !g_str_has_prefix (line, "FRAME"))
      break;
    buf = gst_buffer_new_allocate (NULL, info.size, NULL);
    gst_video_frame_map (&frame, &info, buf, GST_MAP_WRITE);
    /* each plane's rows into the frame's strides */
    for (p = 0; p < 3 && whole; p++) {
      gint rows = GST_VIDEO_FRAME_COMP_HEIGHT (&frame, p), y;
      gsize row = GST_VIDEO_FRAME_COMP_WIDTH (&frame, p);
      guint8 *data = GST_VIDEO_FRAME_PLANE_DATA (&frame, p);
      for (y = 0; y < rows && whole; y++)
        whole = fread (data + (gsize) y * GST_VIDEO_FRAME_PLANE_STRIDE (&frame,
                p), 1, row, f) == row;
    }
    gst_video_frame_unmap (&frame);
    if (!whole) {
      gst_buffer_unref (buf);
      break;
    }
    clip_frames[clip_count++] = buf;
  }
  fclose (f);
  if (clip_count < 2) {
    g_printerr ("%s: fewer than two whole frames\n", clip_path);
    return FALSE;
  }
  return TRUE;
}

/* The clip of the encode and density stages at @w x @h into @i420 and,
 * where @rgb is not NULL, into @rgb as packed RGB: --clip's frames, else
 * the synthetic pan; how many frames */
static guint
make_clip (gint w, gint h, GstBuffer ** i420, GstBuffer ** rgb)
{
  guint i, n = clip_count ? clip_count : ENCODE_CLIP_FRAMES;

  for (i = 0; i < n; i++) {
    if (clip_count) {
      i420[i] = gst_buffer_ref (clip_frames[i]);
      if (rgb)
        rgb[i] = convert_frame (i420[i], GST_VIDEO_FORMAT_I420,
            GST_VIDEO_FORMAT_RGB, w, h);
    } else {
      GstBuffer *frame = make_rgb_frame (w, h, i);
      i420[i] = convert_frame (frame, GST_VIDEO_FORMAT_RGB,
          GST_VIDEO_FORMAT_I420, w, h);
      if (rgb)
        rgb[i] = frame;
      else
        gst_buffer_unref (frame);
    }
  }
  return n;
}

/* A copy of @buf in page-locked host memory of the bench's context: a
 * frame as a producer writing into the pool the elements propose leaves
 * it. */
static GstBuffer *
pinned_copy (GstBuffer * buf)
{
  GstAllocator *alloc = gst_cl_host_allocator_new (bench_ctx);
  GstBuffer *copy = gst_buffer_new_allocate (alloc, gst_buffer_get_size (buf),
      NULL);
  GstMapInfo map;

  gst_object_unref (alloc);
  if (!copy) {
    g_printerr ("Cannot allocate page-locked host memory\n");
    exit (1);
  }
  gst_buffer_map (copy, &map, GST_MAP_WRITE);
  gst_buffer_extract (buf, 0, map.data, map.size);
  gst_buffer_unmap (copy, &map);
  return copy;
}

/* ---- stream density ---- */

/* user and system time of this process so far, in seconds */
static gdouble
process_cpu_seconds (void)
{
  struct rusage ru;

  if (getrusage (RUSAGE_SELF, &ru) != 0)
    return 0;
  return ru.ru_utime.tv_sec + ru.ru_stime.tv_sec +
      (ru.ru_utime.tv_usec + ru.ru_stime.tv_usec) / 1e6;
}

/* @n pipelines "appsrc ! clmpegenc ! fakesink" in this process, started
 * at once, each coding @frames frames of @clip (I420, going back and
 * forth) as fast as it can. With @shared every element takes the bench's
 * context (one device queue for all); else each pipeline makes its own.
 * Returns the frames per second of all together, and in *@cores_busy
 * the host time this process spent meanwhile (user and system) over the
 * wall time: how many host cores it kept busy. */
static gdouble
run_streams (guint n, gint w, gint h, guint frames, GstBuffer ** clip,
    guint n_clip, gboolean shared, guint quant, gdouble * cores_busy)
{
  GstElement **pipes = g_new0 (GstElement *, n);
  gint64 t0, t1;
  gdouble cpu0, cpu1;
  guint i;

  for (i = 0; i < n; i++) {
    gchar *desc = g_strdup_printf ("appsrc name=src format=time ! "
        "video/x-raw,format=I420,width=%d,height=%d,framerate=30/1 ! "
        "clmpegenc quantizer=%u %s ! fakesink sync=false", w, h, quant,
        encoder_props);
    GError *error = NULL;
    GstBus *bus;

    pipes[i] = gst_parse_launch (desc, &error);
    if (!pipes[i]) {
      g_printerr ("%s: %s\n", desc, error->message);
      exit (1);
    }
    g_free (desc);
    if (shared) {
      bus = gst_element_get_bus (pipes[i]);
      gst_bus_set_sync_handler (bus, bus_sync, NULL, NULL);
      gst_object_unref (bus);
    }
    feed_appsrc (pipes[i], frames, clip, n_clip);
    gst_element_set_state (pipes[i], GST_STATE_PAUSED);
  }
  for (i = 0; i < n; i++)
    gst_element_get_state (pipes[i], NULL, NULL, GST_CLOCK_TIME_NONE);
  cpu0 = process_cpu_seconds ();
  t0 = g_get_monotonic_time ();
  for (i = 0; i < n; i++)
    gst_element_set_state (pipes[i], GST_STATE_PLAYING);
  for (i = 0; i < n; i++) {
    GstBus *bus = gst_element_get_bus (pipes[i]);
    GstMessage *msg = gst_bus_timed_pop_filtered (bus, GST_CLOCK_TIME_NONE,
        GST_MESSAGE_EOS | GST_MESSAGE_ERROR);
    if (GST_MESSAGE_TYPE (msg) == GST_MESSAGE_ERROR) {
      GError *err = NULL;
      gst_message_parse_error (msg, &err, NULL);
      g_printerr ("stream %u: %s\n", i, err->message);
      exit (1);
    }
    gst_message_unref (msg);
    gst_object_unref (bus);
  }
  t1 = g_get_monotonic_time ();
  cpu1 = process_cpu_seconds ();
  *cores_busy = (cpu1 - cpu0) / ((t1 - t0) / 1e6);
  for (i = 0; i < n; i++) {
    GstBus *bus = gst_element_get_bus (pipes[i]);
    gst_element_set_state (pipes[i], GST_STATE_NULL);
    gst_bus_set_sync_handler (bus, NULL, NULL, NULL);
    gst_object_unref (bus);
    gst_object_unref (pipes[i]);
  }
  g_free (pipes);
  /* each pipeline's preroll frame was made before t0 */
  return n * (frames - 1) / ((t1 - t0) / 1e6);
}

/* How many streams of I420 at @w x @h one device sustains: for each count
 * of @streams, the pipelines of run_streams() with contexts of their own
 * and frames in system memory ("system" in @inputs), then sharing the
 * bench's context with frames in its page-locked host memory
 * ("page-locked": read where they lie, what a producer writing into the
 * pool the encoder proposes gives); all frames per second together, and
 * how many 30 fps streams that is. */
static void
bench_density (gint w, gint h, guint frames, const gchar * streams,
    const gchar * inputs, guint quant)
{
  GstBuffer *clip[ENCODE_CLIP_FRAMES], *pinned[ENCODE_CLIP_FRAMES];
  gchar **counts = g_strsplit (streams, ",", -1);
  gchar **cases = g_strsplit (inputs, ",", -1);
  guint i, c, n_clip;

  if (!have_elements ("clmpegenc", NULL)) {
    printf ("(clmpegenc not built: skipped)\n");
    return;
  }
  n_clip = make_clip (w, h, clip, NULL);
  for (i = 0; i < n_clip; i++)
    pinned[i] = pinned_copy (clip[i]);
  for (c = 0; counts[c]; c++) {
    guint n = (guint) g_ascii_strtoull (counts[c], NULL, 10);
    gboolean shared;

    if (n == 0)
      continue;
    for (shared = FALSE; shared <= TRUE; shared++) {
      gdouble busy;
      gdouble fps;

      if (!g_strv_contains ((const gchar * const *) cases,
              shared ? "page-locked" : "system"))
        continue;
      fps = run_streams (n, w, h, frames, shared ? pinned : clip,
          n_clip, shared, quant, &busy);
      printf ("| %5dx%-5d | %3u | %-34s | %8.1f | %7.1f | %6.1f | %5.1f of "
          "%u |\n", w, h, n, shared ? "one context, page-locked frames" :
          "a context each, system memory", fps, fps / n, fps / 30, busy,
          g_get_num_processors ());
      fflush (stdout);
    }
  }
  for (i = 0; i < n_clip; i++) {
    gst_buffer_unref (clip[i]);
    gst_buffer_unref (pinned[i]);
  }
  g_strfreev (counts);
  g_strfreev (cases);
}

/* RGB from system memory through clcolorlowpass ! clmotionsearch !
 * clmpegenc into MPEG-1 video: frames per second with every element in
 * one streaming thread, and with queues between them so that upload,
 * search, transform and entropy coding of different frames overlap; and
 * the device time of each stage per frame. Then the chain cut short after
 * each element (frames left in device memory), and the encoder alone on
 * I420 from system memory, to show where the time goes. */
static void
bench_encode (gint w, gint h, guint frames, guint quant)
{
#define QUEUE " ! queue max-size-buffers=3 max-size-bytes=0 max-size-time=0 ! "
  /* pinned: the frames lie in page-locked host memory, as where a producer
   * writes into the pool the elements propose upstream */
  static const struct
  {
    const gchar *name, *link;
    gboolean pinned;
  } variants[] = {
    {"one thread", " ! ", FALSE},
    {"queues between", QUEUE, FALSE},
    {"queues, pinned", QUEUE, TRUE},
  };
  static const struct
  {
    const gchar *name, *tail;
    gboolean i420, pinned;
  } parts[] = {
    {"source only", "fakesink name=sink", FALSE, FALSE},
    {"clupload", "clupload ! video/x-raw(memory:OpenCL) ! "
          "fakesink name=devsink", FALSE, FALSE},
    {"clupload, page-locked frames", "clupload ! "
          "video/x-raw(memory:OpenCL) ! fakesink name=devsink", FALSE, TRUE},
    {"clcolorlowpass", "clcolorlowpass ! video/x-raw(memory:OpenCL),"
          "format=I420 ! fakesink name=devsink", FALSE, FALSE},
    {"clcolorlowpass ! clmotionsearch", "clcolorlowpass ! "
          "video/x-raw(memory:OpenCL),format=I420 ! clmotionsearch ! "
          "fakesink name=devsink", FALSE, FALSE},
    {"I420 source ! clmpegenc", "clmpegenc name=enc quantizer=%u %s ! "
          "fakesink name=sink", TRUE, FALSE},
  };
  GstBuffer *clip[ENCODE_CLIP_FRAMES], *clip_i420[ENCODE_CLIP_FRAMES];
  GstBuffer *clip_pinned[ENCODE_CLIP_FRAMES];
  guint i, n_clip;

  if (!have_elements ("clcolorlowpass", "clmotionsearch", "clmpegenc", NULL)) {
    printf ("(encoding elements not built: skipped)\n");
    return;
  }
  n_clip = make_clip (w, h, clip_i420, clip);
  for (i = 0; i < n_clip; i++)
    clip_pinned[i] = pinned_copy (clip[i]);
  for (i = 0; i < G_N_ELEMENTS (variants); i++) {
    const gchar *l = variants[i].link;
    gchar *desc = g_strdup_printf ("appsrc name=src format=time ! "
        "video/x-raw,format=RGB,width=%d,height=%d,framerate=30/1%s"
        "clcolorlowpass%sclmotionsearch%sclmpegenc name=enc quantizer=%u %s%s"
        "fakesink name=sink", w, h, l, l, l, quant, encoder_props, l);
    guint64 out_frames, bytes;
    gdouble fps;

    gst_cl_context_reset_stats (bench_ctx);
    fps = run_pipeline_frames (desc, frames, variants[i].pinned ?
        clip_pinned : clip, n_clip);
    g_free (desc);
    out_frames = MAX (enc_stat ("frames"), 1);
    bytes = enc_stat ("bytes");
    printf ("| %5dx%-5d | %-14s | %2u | %8.1f | %7.1f | %7.3f | %7.3f | "
        "%7.3f | %7.3f | %7.3f | %7.3f |\n", w, h, variants[i].name, quant,
        fps, bytes * 8.0 / out_frames / 1e3,
        label_ms_per_frame ("colorlowpass", out_frames),
        label_ms_per_frame (GST_CL_MOTION_SEARCH_LABEL, out_frames) +
        label_ms_per_frame (GST_CL_MOTION_SEARCH_REFINE_LABEL, out_frames),
        label_ms_per_frame (GST_CL_MPEG_LOAD_LABEL, out_frames) +
        label_ms_per_frame (GST_CL_MPEG_ENCODE_LABEL, out_frames) +
        label_ms_per_frame (GST_CL_MPEG_PACK_LABEL, out_frames),
        enc_stat ("host-vlc-ns") / 1e6 / out_frames,
        enc_stat ("host-wait-ns") / 1e6 / out_frames, 1e3 / fps);
    fflush (stdout);
  }
  for (i = 0; i < G_N_ELEMENTS (parts); i++) {
    gchar *tail = g_strdup_printf (parts[i].tail, quant, encoder_props);
    gchar *desc = g_strdup_printf ("appsrc name=src format=time ! "
        "video/x-raw,format=%s,width=%d,height=%d,framerate=30/1 ! %s",
        parts[i].i420 ? "I420" : "RGB", w, h, tail);
    gdouble fps = run_pipeline_frames (desc, frames,
        parts[i].i420 ? clip_i420 : parts[i].pinned ? clip_pinned : clip,
        n_clip);
    printf ("| %5dx%-5d | part: %-32s | %8.1f fps | %7.3f ms/frame |\n", w,
        h, parts[i].name, fps, 1e3 / fps);
    fflush (stdout);
    g_free (desc);
    g_free (tail);
  }
  for (i = 0; i < n_clip; i++) {
    gst_buffer_unref (clip[i]);
    gst_buffer_unref (clip_i420[i]);
    gst_buffer_unref (clip_pinned[i]);
  }
#undef QUEUE
}

/* "WxH" into @w and @h; FALSE (and a message) when it is not a size */
static gboolean
parse_size (const gchar * text, gint * w, gint * h)
{
  if (sscanf (text, "%dx%d", w, h) != 2 || *w < 1 || *h < 1) {
    g_printerr ("bad size '%s'\n", text);
    return FALSE;
  }
  return TRUE;
}

/* TRUE when every entry of the comma-separated @list is a size */
static gboolean
sizes_valid (const gchar * list)
{
  gchar **items = g_strsplit (list, ",", -1);
  gboolean ok = TRUE;
  gint w, h;
  guint i;

  for (i = 0; ok && items[i]; i++)
    ok = parse_size (items[i], &w, &h);
  g_strfreev (items);
  return ok;
}

/* TRUE when every entry of the comma-separated @list is one of @names
 * (NULL-terminated); else says which is not */
static gboolean
names_valid (const gchar * option, const gchar * list,
    const gchar * const *names)
{
  gchar **items = g_strsplit (list, ",", -1);
  gboolean ok = TRUE;
  guint i;

  for (i = 0; ok && items[i]; i++) {
    ok = g_strv_contains (names, items[i]);
    if (!ok)
      g_printerr ("--%s: \"%s\" is none of the choices\n", option,
          items[i]);
  }
  g_strfreev (items);
  return ok;
}

int
main (int argc, char **argv)
{
  static const gchar *const density_cases[] = { "system", "page-locked",
    NULL
  };
  gchar *device = NULL, *sizes = g_strdup ("2048x2048,8773x5352");
  gchar *stages = g_strdup ("colorlowpass,image,motion,encode");
  gchar *motion_sizes = g_strdup ("2048x2048,1920x1080");
  gchar *encode_sizes = g_strdup ("1920x1080");
  gchar *density_streams = g_strdup ("1,4,8,16");
  gchar *density_inputs = g_strdup ("system,page-locked");
  gint encode_quant = 5;
  gint frames = 0;
  gboolean untimed = FALSE;
  GOptionEntry entries[] = {
    {"device", 'd', 0, G_OPTION_ARG_STRING, &device,
        "OpenCL device (index or part of its name)", "SPEC"},
    {"sizes", 's', 0, G_OPTION_ARG_STRING, &sizes,
        "Comma-separated frame sizes", "WxH,..."},
    {"frames", 'n', 0, G_OPTION_ARG_INT, &frames,
        "Frames per pipeline run (default: by size)", "N"},
    {"stages", 0, 0, G_OPTION_ARG_STRING, &stages,
        "Comma-separated: colorlowpass, image, motion, encode, density",
        "LIST"},
    {"motion-sizes", 0, 0, G_OPTION_ARG_STRING, &motion_sizes,
        "Frame sizes of the motion stage", "WxH,..."},
    {"encode-sizes", 0, 0, G_OPTION_ARG_STRING, &encode_sizes,
        "Frame sizes of the encode stage", "WxH,..."},
    {"streams", 0, 0, G_OPTION_ARG_STRING, &density_streams,
        "Stream counts of the density stage (encode sizes)", "N,..."},
    {"density-inputs", 0, 0, G_OPTION_ARG_STRING, &density_inputs,
        "Cases of the density stage: system (a context each, frames in "
          "system memory), page-locked (one context, its page-locked "
          "frames)", "LIST"},
    {"quantizer", 0, 0, G_OPTION_ARG_INT, &encode_quant,
        "Quantiser of the encode stage (1..31)", "Q"},
    {"encoder-props", 0, 0, G_OPTION_ARG_STRING, &encoder_props,
        "More clmpegenc properties of the encode and density stages",
        "\"NAME=VALUE ...\""},
    {"lambda", 0, 0, G_OPTION_ARG_INT, &bench_lambda,
        "Lambda of the rate-constrained motion search (0: skip it)", "N"},
    {"untimed", 0, 0, G_OPTION_ARG_NONE, &untimed,
        "Rates as applications get them: no launch is timed (some drivers "
          "run slower timed), the device times read 0", NULL},
    {"clip", 0, 0, G_OPTION_ARG_FILENAME, &clip_path,
        "y4m file (4:2:0) whose first frames the encode and density stages "
          "code instead of a synthetic pan, at its size", "FILE"},
    {NULL}
  };
  GOptionContext *octx = g_option_context_new ("- gst-clvideo benchmark");
  GError *error = NULL;
  gchar **size_list;
  gdouble copy_bw;
  guint i;

  g_option_context_add_main_entries (octx, entries, NULL);
  g_option_context_add_group (octx, gst_init_get_option_group ());
  if (!g_option_context_parse (octx, &argc, &argv, &error)) {
    g_printerr ("%s\n", error->message);
    return 2;
  }
  g_option_context_free (octx);
  if (clip_path) {
    gint w, h;
    if (!load_clip (&w, &h))
      return 2;
    g_free (encode_sizes);
    encode_sizes = g_strdup_printf ("%dx%d", w, h);
  }
  if (!sizes_valid (sizes) || !sizes_valid (motion_sizes) ||
      !sizes_valid (encode_sizes) ||
      !names_valid ("density-inputs", density_inputs, density_cases))
    return 2;
  /* the copy kernel is the plugin's, built here without an element */
  gst_cl_video_register_kernels ();
  /* the device times come from timed launches (contexts made from here) */
  g_setenv (GST_CL_PROFILING_ENV, untimed ? "0" : "1", TRUE);

  bench_ctx = gst_cl_context_new (device, &error);
  if (!bench_ctx) {
    g_printerr ("%s\n", error->message);
    return 1;
  }
  printf ("Device: %s (%s), %u compute units, %s kernel layout\n",
      bench_ctx->device_name, bench_ctx->platform_name,
      bench_ctx->compute_units, bench_ctx->cpu_layout ? "CPU" : "GPU");

  /* (untimed, no launch is timed: nothing to measure) */
  copy_bw = untimed ? 0.0 : measure_copy_bandwidth (bench_ctx,
      bench_ctx->cpu_layout ? 128 << 20 : 512 << 20, 10);
  if (copy_bw > 0)
    printf ("Copy kernel: %.1f GB/s (read + write)\n\n", copy_bw / 1e9);
  else
    printf ("Copy kernel: not timed (--untimed)\n\n");

  size_list = g_strsplit (sizes, ",", -1);
  if (strstr (stages, "colorlowpass")) {
    printf ("| stage | size | kernel ms (mean) | kernel ms (min) | MB/frame "
        "| of copy bw | same-size copy ms | of it | pipeline fps | videoconvert fps | ratio | "
        "source-only fps |\n|---|---|---|---|---|---|---|---|---|---|---|---|"
        "\n");
    for (i = 0; size_list[i]; i++) {
      gint w, h;
      parse_size (size_list[i], &w, &h);
      bench_colorlowpass (w, h, frames > 0 ? (guint) frames :
          (w * (gint64) h > 8 << 20 ? 8 : 40), copy_bw);
    }
    printf ("\n");
  }
  if (strstr (stages, "image")) {
    printf ("| stage | content | size | kernel ms (mean) | kernel ms (min) | "
        "MB/frame | of copy bw | same-size copy ms | of it | OpenCV ms | "
        "OpenCV / ours |\n"
        "|---|---|---|---|---|---|---|---|---|---|---|\n");
    for (i = 0; size_list[i]; i++) {
      gint w, h;
      parse_size (size_list[i], &w, &h);
      bench_image_chain (w, h, frames > 0 ? (guint) frames :
          (w * (gint64) h > 8 << 20 ? 8 : 40), copy_bw);
    }
  }
  g_strfreev (size_list);
  if (strstr (stages, "motion")) {
    printf ("\n| content | size | search | ms/frame | G SAD px/s | "
        "speed |\n|---|---|---|---|---|---|\n");
    size_list = g_strsplit (motion_sizes, ",", -1);
    for (i = 0; size_list[i]; i++) {
      gint w, h;
      parse_size (size_list[i], &w, &h);
      bench_motion (w, h, frames > 0 ? (guint) frames :
          (bench_ctx->host_unified ? 3 : 50));
    }
    g_strfreev (size_list);
  }
  if (clip_path && (strstr (stages, "encode") || strstr (stages, "density")))
    printf ("\nEncode clip: %s (its first frames, back and forth)\n",
        clip_path);
  if (strstr (stages, "encode")) {
    printf ("\n| size | threads | q | fps | kbit/frame | colorlowpass ms "
        "| search ms | mpeg kernels ms | host VLC ms | host wait ms | "
        "wall ms/frame |\n|---|---|---|---|---|---|---|---|---|---|---|\n");
    size_list = g_strsplit (encode_sizes, ",", -1);
    for (i = 0; size_list[i]; i++) {
      gint w, h;
      parse_size (size_list[i], &w, &h);
      bench_encode (w, h, frames > 0 ? (guint) frames :
          (bench_ctx->host_unified ? 24 : 600), CLAMP (encode_quant, 1, 31));
    }
    g_strfreev (size_list);
  }
  if (strstr (stages, "density")) {
    /* rates only: no context times its launches, the bench's own for the
     * shared runs included */
    GstClContext *timed_ctx = bench_ctx;

    g_setenv (GST_CL_PROFILING_ENV, "0", TRUE);
    bench_ctx = gst_cl_context_new (device, &error);
    if (!bench_ctx) {
      g_printerr ("%s\n", error->message);
      return 1;
    }
    printf ("\n| size | streams | contexts, input | fps, all | fps a stream "
        "| 30 fps streams | host cores busy |\n|---|---|---|---|---|---|---|\n");
    size_list = g_strsplit (encode_sizes, ",", -1);
    for (i = 0; size_list[i]; i++) {
      gint w, h;
      parse_size (size_list[i], &w, &h);
      bench_density (w, h, frames > 0 ? (guint) frames :
          (bench_ctx->host_unified ? 12 : 300), density_streams,
          density_inputs, CLAMP (encode_quant, 1, 31));
    }
    g_strfreev (size_list);
    gst_object_unref (bench_ctx);
    bench_ctx = timed_ctx;
  }
  g_clear_pointer (&last_enc_stats, gst_structure_free);
  gst_object_unref (bench_ctx);
  g_free (density_streams);
  g_free (density_inputs);
  g_free (encode_sizes);
  g_free (motion_sizes);
  g_free (device);
  g_free (sizes);
  g_free (stages);
  g_free (clip_path);
  for (i = 0; i < clip_count; i++)
    gst_buffer_unref (clip_frames[i]);
  return 0;
}
