/* gst-clvideo: benchmark
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * Prints figures, never a verdict: the device's own copy-kernel bandwidth,
 * then for each stage its kernel device time and bytes per frame as a
 * fraction of that bandwidth, and whole-pipeline frame rates against the
 * stock element doing the same job, all in one run on one device.
 *
 *   clbench [--device SPEC] [--sizes 2048x2048,8773x5352] [--frames N]
 */
#include <gst/gst.h>
#include <gst/video/video.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gstclcontext.h"

static GstClContext *bench_ctx;

/* ---- copy bandwidth ---- */

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
  if (!kernel) {
    g_printerr ("%s\n", error->message);
    exit (1);
  }
  a = clCreateBuffer (ctx->context, CL_MEM_READ_WRITE, bytes, NULL, &ret);
  b = clCreateBuffer (ctx->context, CL_MEM_READ_WRITE, bytes, NULL, &ret);
  if (ret != CL_SUCCESS) {
    g_printerr ("clCreateBuffer failed: %s\n", gst_cl_error_name (ret));
    exit (1);
  }
  {
    cl_uchar zero = 1;
    clEnqueueFillBuffer (ctx->queue, a, &zero, 1, 0, bytes, 0, NULL, NULL);
    clEnqueueFillBuffer (ctx->queue, b, &zero, 1, 0, bytes, 0, NULL, NULL);
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
  clSetKernelArg (kernel, 0, sizeof (cl_mem), &a);
  clSetKernelArg (kernel, 1, sizeof (cl_mem), &b);
  clSetKernelArg (kernel, 2, sizeof (cl_uint), &n);
  for (i = 0; i < reps + 1; i++) {
    if (i == 1)
      gst_cl_context_reset_stats (ctx);
    if (!gst_cl_context_enqueue_kernel (ctx, kernel, "copy", 1, &global,
            &local, &error)) {
      g_printerr ("%s\n", error->message);
      exit (1);
    }
  }
  gst_cl_context_get_kernel_stats (ctx, "copy", &launches, &total, &min_ns);
  clReleaseMemObject (a);
  clReleaseMemObject (b);
  clReleaseKernel (kernel);
  /* read + write, at the best launch */
  return 2.0 * bytes / (min_ns * 1e-9);
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

/* Runs @desc to EOS; returns frames per second over the whole run. */
static gdouble
run_pipeline (const gchar * desc, guint frames)
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
  sink = gst_bin_get_by_name (GST_BIN (pipeline), "sink");
  pad = gst_element_get_static_pad (sink, "sink");
  gst_pad_add_probe (pad, GST_PAD_PROBE_TYPE_BUFFER, map_probe, NULL, NULL);
  gst_object_unref (pad);
  gst_object_unref (sink);
  bus = gst_element_get_bus (pipeline);
  gst_bus_set_sync_handler (bus, bus_sync, NULL, NULL);

  gst_element_set_state (pipeline, GST_STATE_PAUSED);
  gst_element_get_state (pipeline, NULL, NULL, GST_CLOCK_TIME_NONE);
  t0 = g_get_monotonic_time ();
  gst_element_set_state (pipeline, GST_STATE_PLAYING);
  msg = gst_bus_timed_pop_filtered (bus, GST_CLOCK_TIME_NONE,
      GST_MESSAGE_EOS | GST_MESSAGE_ERROR);
  t1 = g_get_monotonic_time ();
  if (GST_MESSAGE_TYPE (msg) == GST_MESSAGE_ERROR) {
    GError *err = NULL;
    gchar *dbg = NULL;
    gst_message_parse_error (msg, &err, &dbg);
    g_printerr ("%s: %s\n%s\n", desc, err->message, dbg ? dbg : "");
    exit (1);
  }
  gst_message_unref (msg);
  gst_element_set_state (pipeline, GST_STATE_NULL);
  gst_bus_set_sync_handler (bus, NULL, NULL, NULL);
  gst_object_unref (bus);
  gst_object_unref (pipeline);
  /* the preroll frame was made before t0 */
  return (frames - 1) / ((t1 - t0) / 1e6);
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
  gdouble fps_ref, fps_src;
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
        "%5.1f%% | %7.1f | %7.1f | %5.2fx | %7.1f |\n", filters[i], w, h,
        mean_ms, min_ns / 1e6, bytes / 1e6,
        100.0 * (bytes / (min_ns * 1e-9)) / copy_bw, fps, fps_ref,
        fps / fps_ref, fps_src);
    fflush (stdout);
  }
  g_free (src);
}

int
main (int argc, char **argv)
{
  gchar *device = NULL, *sizes = g_strdup ("2048x2048,8773x5352");
  gint frames = 0;
  GOptionEntry entries[] = {
    {"device", 'd', 0, G_OPTION_ARG_STRING, &device,
        "OpenCL device (index or part of its name)", "SPEC"},
    {"sizes", 's', 0, G_OPTION_ARG_STRING, &sizes,
        "Comma-separated frame sizes", "WxH,..."},
    {"frames", 'n', 0, G_OPTION_ARG_INT, &frames,
        "Frames per pipeline run (default: by size)", "N"},
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

  bench_ctx = gst_cl_context_new (device, &error);
  if (!bench_ctx) {
    g_printerr ("%s\n", error->message);
    return 1;
  }
  printf ("Device: %s (%s), %u compute units, %s kernel layout\n",
      bench_ctx->device_name, bench_ctx->platform_name,
      bench_ctx->compute_units, bench_ctx->cpu_layout ? "CPU" : "GPU");

  copy_bw = measure_copy_bandwidth (bench_ctx,
      bench_ctx->cpu_layout ? 128 << 20 : 512 << 20, 10);
  printf ("Copy kernel: %.1f GB/s (read + write)\n\n", copy_bw / 1e9);

  printf ("| stage | size | kernel ms (mean) | kernel ms (min) | MB/frame "
      "| of copy bw | pipeline fps | videoconvert fps | ratio | source-only "
      "fps |\n|---|---|---|---|---|---|---|---|---|---|\n");
  size_list = g_strsplit (sizes, ",", -1);
  for (i = 0; size_list[i]; i++) {
    gint w, h;
    guint n;
    if (sscanf (size_list[i], "%dx%d", &w, &h) != 2 || w < 1 || h < 1) {
      g_printerr ("bad size '%s'\n", size_list[i]);
      return 2;
    }
    n = frames > 0 ? (guint) frames : (w * (gint64) h > 8 << 20 ? 8 : 40);
    bench_colorlowpass (w, h, n, copy_bw);
  }
  g_strfreev (size_list);
  gst_object_unref (bench_ctx);
  g_free (device);
  g_free (sizes);
  return 0;
}
