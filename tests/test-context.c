/* gst-clvideo: tests of the shared OpenCL context
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * One cl_context per pipeline, application-provided contexts (need-context
 * answered from a bus sync handler, wrapped cl_context), sharing between
 * pipelines, the "device" property, host <-> device transfer counts,
 * kernel profiling, and elements that start in several threads at once.
 */
#include <gst/check/gstcheck.h>
#include <gst/video/video.h>
#include <string.h>

#include <gst/cl/gstclcontext.h>
#include <gst/cl/gstclfilter.h>
#include "testutil.h"

#define N_FRAMES 5
#define RUN_TIMEOUT (60 * GST_SECOND)

#define SRC_RGBX(n) "videotestsrc num-buffers=" G_STRINGIFY (n) \
    " ! video/x-raw,format=RGBx,width=64,height=48 "

/* The pipeline of the brief; frames stay on the device from clupload on. */
#define MAIN_PIPELINE(n) SRC_RGBX (n) "! clupload ! clcolorlowpass " \
    "! video/x-raw(memory:OpenCL),format=I420 ! cldownload " \
    "! fakesink name=sink"

/* ---- helpers ---- */

static GstPadProbeReturn
count_buffer (GstPad * pad G_GNUC_UNUSED, GstPadProbeInfo * info G_GNUC_UNUSED,
    gpointer user_data)
{
  g_atomic_int_inc ((gint *) user_data);
  return GST_PAD_PROBE_OK;
}

/* Counts the buffers that reach the element named "sink", if any. */
static void
watch_sink (GstElement * pipeline, gint * counter)
{
  GstElement *sink = gst_bin_get_by_name (GST_BIN (pipeline), "sink");
  GstPad *pad;

  *counter = 0;
  fail_unless (sink != NULL, "pipeline has no element named sink");
  pad = gst_element_get_static_pad (sink, "sink");
  gst_pad_add_probe (pad, GST_PAD_PROBE_TYPE_BUFFER, count_buffer, counter,
      NULL);
  gst_object_unref (pad);
  gst_object_unref (sink);
}

static GstElement *
make_pipeline (const gchar * desc)
{
  GError *error = NULL;
  GstElement *pipeline = gst_parse_launch (desc, &error);

  fail_unless (pipeline != NULL, "cannot parse '%s': %s", desc,
      error ? error->message : "?");
  /* parse errors about e.g. unlinkable caps come with a pipeline too */
  fail_unless (error == NULL, "parsing '%s': %s", desc, error->message);
  return pipeline;
}

static void
start_pipeline (GstElement * pipeline)
{
  GstStateChangeReturn ret;

  ret = gst_element_set_state (pipeline, GST_STATE_PLAYING);
  if (ret == GST_STATE_CHANGE_FAILURE) {
    GstBus *bus = gst_element_get_bus (pipeline);
    GstMessage *msg = gst_bus_pop_filtered (bus, GST_MESSAGE_ERROR);
    GError *error = NULL;
    gchar *debug = NULL;

    if (msg)
      gst_message_parse_error (msg, &error, &debug);
    fail ("pipeline failed to start: %s (%s)", error ? error->message :
        "no error message", debug ? debug : "");
  }
}

/* Waits for EOS; any error message fails the test. */
static void
wait_eos (GstElement * pipeline)
{
  GstBus *bus = gst_element_get_bus (pipeline);
  GstMessage *msg;

  msg = gst_bus_timed_pop_filtered (bus, RUN_TIMEOUT,
      GST_MESSAGE_EOS | GST_MESSAGE_ERROR);
  fail_unless (msg != NULL, "timeout waiting for EOS");
  if (GST_MESSAGE_TYPE (msg) == GST_MESSAGE_ERROR) {
    GError *error = NULL;
    gchar *debug = NULL;
    gst_message_parse_error (msg, &error, &debug);
    fail ("error from %s: %s (%s)", GST_OBJECT_NAME (GST_MESSAGE_SRC (msg)),
        error->message, debug ? debug : "");
  }
  gst_message_unref (msg);
  gst_object_unref (bus);
}

typedef struct
{
  GMutex lock;
  GCond cond;
  gboolean finalized;
} Finalization;

static void
pipeline_finalized (gpointer data, GObject * where_the_object_was G_GNUC_UNUSED)
{
  Finalization *f = data;

  g_mutex_lock (&f->lock);
  f->finalized = TRUE;
  g_cond_signal (&f->cond);
  g_mutex_unlock (&f->lock);
}

/* Stops @pipeline and drops it; returns once it is finalized, with its
 * elements and what they held. (A bin's state changes continue on a
 * thread of GStreamer's own, which may hold the last reference a moment
 * after the application has dropped its own.) */
static void
stop_pipeline (GstElement * pipeline)
{
  Finalization f = { 0 };
  gint64 deadline;

  fail_unless_equals_int (gst_element_set_state (pipeline, GST_STATE_NULL),
      GST_STATE_CHANGE_SUCCESS);
  g_mutex_init (&f.lock);
  g_cond_init (&f.cond);
  g_object_weak_ref (G_OBJECT (pipeline), pipeline_finalized, &f);
  gst_object_unref (pipeline);
  deadline = g_get_monotonic_time () + RUN_TIMEOUT / GST_USECOND;
  g_mutex_lock (&f.lock);
  while (!f.finalized && g_cond_wait_until (&f.cond, &f.lock, deadline));
  g_mutex_unlock (&f.lock);
  fail_unless (f.finalized, "the pipeline is still referenced after it "
      "was stopped and dropped");
  g_mutex_clear (&f.lock);
  g_cond_clear (&f.cond);
}

/* The cl elements of @bin, in no particular order. */
static GList *
get_cl_elements (GstElement * bin)
{
  GstIterator *it = gst_bin_iterate_recurse (GST_BIN (bin));
  GValue item = G_VALUE_INIT;
  GList *list = NULL;
  gboolean done = FALSE;

  while (!done) {
    switch (gst_iterator_next (it, &item)) {
      case GST_ITERATOR_OK:{
        GstElement *e = g_value_get_object (&item);
        if (GST_IS_CL_FILTER (e))
          list = g_list_prepend (list, gst_object_ref (e));
        g_value_reset (&item);
        break;
      }
      case GST_ITERATOR_RESYNC:
        g_list_free_full (list, gst_object_unref);
        list = NULL;
        gst_iterator_resync (it);
        break;
      default:
        done = TRUE;
        break;
    }
  }
  g_value_unset (&item);
  gst_iterator_free (it);
  return list;
}

/* Checks that every cl element of @pipeline (at least @min_elements) uses
 * and answers with the same context; returns it (a reference). A query may
 * be forwarded to a neighbour, so each element's own context is compared
 * too. */
static GstClContext *
check_one_context (GstElement * pipeline, guint min_elements)
{
  GList *elements = get_cl_elements (pipeline), *l;
  GstClContext *common = NULL;

  fail_unless (g_list_length (elements) >= min_elements);
  for (l = elements; l; l = l->next) {
    GstElement *e = l->data;
    GstClContext *ctx = test_element_cl_context (e, "src");

    fail_unless (gst_cl_filter_get_context (GST_CL_FILTER (e)) == ctx,
        "%s answered with a context that is not its own", GST_OBJECT_NAME (e));
    if (!common)
      common = gst_object_ref (ctx);
    fail_unless (ctx == common, "%s uses context %p, others %p",
        GST_OBJECT_NAME (e), ctx, common);
    gst_object_unref (ctx);
  }
  g_list_free_full (elements, gst_object_unref);
  return common;
}

typedef struct
{
  GstClContext *ctx;            /* the application's context */
  gint n_need;                  /* need-context messages answered */
  gint n_have;                  /* have-context messages seen */
} AppData;

/* Answers need-context with the application's context, as an application
 * would; counts have-context to prove that no element made its own. */
static GstBusSyncReply
app_sync_handler (GstBus * bus G_GNUC_UNUSED, GstMessage * msg,
    gpointer user_data)
{
  AppData *app = user_data;
  const gchar *type = NULL;

  if (GST_MESSAGE_TYPE (msg) == GST_MESSAGE_NEED_CONTEXT &&
      gst_message_parse_context_type (msg, &type) &&
      g_strcmp0 (type, GST_CL_CONTEXT_TYPE) == 0) {
    GstContext *context = gst_context_new_cl_context (app->ctx);
    gst_element_set_context (GST_ELEMENT (GST_MESSAGE_SRC (msg)), context);
    gst_context_unref (context);
    g_atomic_int_inc (&app->n_need);
  } else if (GST_MESSAGE_TYPE (msg) == GST_MESSAGE_HAVE_CONTEXT) {
    g_atomic_int_inc (&app->n_have);
  }
  return GST_BUS_PASS;
}

static void
set_app_handler (GstElement * pipeline, AppData * app)
{
  GstBus *bus = gst_element_get_bus (pipeline);
  gst_bus_set_sync_handler (bus, app_sync_handler, app, NULL);
  gst_object_unref (bus);
}

/* Runs @desc to EOS with @app answering need-context (if not NULL); checks
 * all frames arrived and all cl elements use one context, returned. */
static GstClContext *
run_pipeline (const gchar * desc, AppData * app, guint min_elements,
    gint n_frames)
{
  GstElement *pipeline = make_pipeline (desc);
  GstClContext *ctx;
  gint n_buffers;

  if (app)
    set_app_handler (pipeline, app);
  watch_sink (pipeline, &n_buffers);
  start_pipeline (pipeline);
  wait_eos (pipeline);
  fail_unless_equals_int (g_atomic_int_get (&n_buffers), n_frames);
  ctx = check_one_context (pipeline, min_elements);
  stop_pipeline (pipeline);
  return ctx;
}

/* ---- one context per pipeline ---- */

static const struct
{
  const gchar *desc;
  guint n_cl;
} one_context_pipelines[] = {
  {MAIN_PIPELINE (5), 3},
  /* clcolorlowpass alone, system memory on both sides */
  {SRC_RGBX (5) "! clcolorlowpass ! video/x-raw,format=GRAY8 "
        "! fakesink name=sink", 1},
  /* six cl elements, a system-memory hop in the middle */
  {SRC_RGBX (5) "! clupload ! cldownload ! clupload ! clcolorlowpass "
        "! video/x-raw,format=NV12 ! clupload ! cldownload "
        "! fakesink name=sink", 6},
  /* two tee branches, each in its own thread: the two clcolorlowpass are
   * no neighbours, the pipeline's context cache must bring them together */
  {SRC_RGBX (5) "! tee name=t ! queue ! clcolorlowpass "
        "! video/x-raw(memory:OpenCL),format=Y444 ! cldownload "
        "! fakesink name=sink  t. ! queue ! clupload ! clcolorlowpass "
        "! video/x-raw(memory:OpenCL),format=I420 ! cldownload ! fakesink", 5},
};

GST_START_TEST (test_one_context_per_pipeline)
{
  const gchar *desc = one_context_pipelines[__i__].desc;
  guint before = gst_cl_context_get_n_created ();
  GstClContext *ctx;

  GST_INFO ("pipeline: %s", desc);
  ctx = run_pipeline (desc, NULL, one_context_pipelines[__i__].n_cl,
      N_FRAMES);
  fail_unless_equals_int (gst_cl_context_get_n_created (), before + 1);
  gst_object_unref (ctx);
}

GST_END_TEST;

/* ---- application contexts ---- */

GST_START_TEST (test_app_context_need_context)
{
  GError *error = NULL;
  AppData app = { NULL, 0, 0 };
  GstClContext *ctx;
  guint before;

  app.ctx = gst_cl_context_new (NULL, &error);
  fail_unless (app.ctx != NULL, "%s", error ? error->message : "?");
  before = gst_cl_context_get_n_created ();

  ctx = run_pipeline (MAIN_PIPELINE (5), &app, 3, N_FRAMES);
  fail_unless (ctx == app.ctx);
  fail_unless (app.n_need >= 1);
  fail_unless_equals_int (app.n_have, 0);
  fail_unless_equals_int (gst_cl_context_get_n_created (), before);
  gst_object_unref (ctx);

  /* a second run on the same context: the elements dropped it on NULL and
   * ask again */
  app.n_need = 0;
  ctx = run_pipeline (MAIN_PIPELINE (5), &app, 3, N_FRAMES);
  fail_unless (ctx == app.ctx);
  fail_unless (app.n_need >= 1);
  fail_unless_equals_int (gst_cl_context_get_n_created (), before);
  gst_object_unref (ctx);

  /* nobody else holds it any more */
  ASSERT_OBJECT_REFCOUNT (app.ctx, "app context", 1);
  gst_object_unref (app.ctx);
}

GST_END_TEST;

static void
first_device (cl_platform_id * platform, cl_device_id * device)
{
  cl_uint n = 0;

  fail_unless_equals_int (clGetPlatformIDs (1, platform, &n), CL_SUCCESS);
  fail_unless (n >= 1);
  fail_unless_equals_int (clGetDeviceIDs (*platform, CL_DEVICE_TYPE_ALL, 1,
          device, NULL), CL_SUCCESS);
}

static cl_uint
context_refcount (cl_context context)
{
  cl_uint n = 0;
  clGetContextInfo (context, CL_CONTEXT_REFERENCE_COUNT, sizeof (n), &n, NULL);
  return n;
}

GST_START_TEST (test_app_wrapped_context)
{
  cl_queue_properties qprops[] = { CL_QUEUE_PROPERTIES,
    CL_QUEUE_PROFILING_ENABLE, 0
  };
  cl_context_properties props[3];
  cl_platform_id platform;
  cl_device_id device;
  cl_context clctx;
  cl_command_queue queue;
  cl_int ret;
  GError *error = NULL;
  AppData app = { NULL, 0, 0 };
  GstClContext *ctx;
  guint64 launches = 0, total_ns = 0;
  guint before, refs;

  first_device (&platform, &device);
  props[0] = CL_CONTEXT_PLATFORM;
  props[1] = (cl_context_properties) platform;
  props[2] = 0;
  clctx = clCreateContext (props, 1, &device, NULL, NULL, &ret);
  fail_unless_equals_int (ret, CL_SUCCESS);
  queue = clCreateCommandQueueWithProperties (clctx, device, qprops, &ret);
  fail_unless_equals_int (ret, CL_SUCCESS);

  /* the queue holds a reference of its own on pocl */
  refs = context_refcount (clctx);
  before = gst_cl_context_get_n_created ();
  app.ctx = gst_cl_context_new_wrapped (clctx, device, queue, &error);
  fail_unless (app.ctx != NULL, "%s", error ? error->message : "?");
  fail_unless (app.ctx->context == clctx);
  fail_unless (app.ctx->queue == queue);
  fail_unless (app.ctx->device == device);
  fail_unless (app.ctx->device_name != NULL && *app.ctx->device_name);

  ctx = run_pipeline (MAIN_PIPELINE (5), &app, 3, N_FRAMES);
  fail_unless (ctx == app.ctx);
  fail_unless_equals_int (app.n_have, 0);
  fail_unless_equals_int (gst_cl_context_get_n_created (), before);
  gst_object_unref (ctx);

  /* the kernels ran on the application's (profiling) queue */
  fail_unless (gst_cl_context_get_kernel_stats (app.ctx, "colorlowpass",
          &launches, &total_ns, NULL));
  fail_unless_equals_uint64 (launches, N_FRAMES);
  fail_unless (total_ns > 0);

  ASSERT_OBJECT_REFCOUNT (app.ctx, "wrapped context", 1);
  gst_object_unref (app.ctx);
  /* everything the elements made on it (buffers, programs) is gone and
   * the wrapper gave back its reference */
  fail_unless_equals_int (context_refcount (clctx), refs);

  clReleaseCommandQueue (queue);
  clReleaseContext (clctx);
}

GST_END_TEST;

GST_START_TEST (test_app_wrapped_context_out_of_order)
{
  cl_queue_properties qprops[] = { CL_QUEUE_PROPERTIES,
    CL_QUEUE_OUT_OF_ORDER_EXEC_MODE_ENABLE, 0
  };
  cl_context_properties props[3];
  cl_platform_id platform;
  cl_device_id device;
  cl_context clctx;
  cl_command_queue queue;
  cl_int ret;
  GError *error = NULL;
  GstClContext *ctx;
  guint refs;

  first_device (&platform, &device);
  props[0] = CL_CONTEXT_PLATFORM;
  props[1] = (cl_context_properties) platform;
  props[2] = 0;
  clctx = clCreateContext (props, 1, &device, NULL, NULL, &ret);
  fail_unless_equals_int (ret, CL_SUCCESS);
  queue = clCreateCommandQueueWithProperties (clctx, device, qprops, &ret);
  if (ret != CL_SUCCESS) {
    GST_INFO ("device has no out-of-order queues, nothing to check");
    clReleaseContext (clctx);
    return;
  }

  refs = context_refcount (clctx);
  /* the elements rely on in-order execution: must be refused */
  ctx = gst_cl_context_new_wrapped (clctx, device, queue, &error);
  fail_unless (ctx == NULL);
  fail_unless (error != NULL);
  fail_unless (strstr (error->message, "in-order") != NULL, "%s",
      error->message);
  g_error_free (error);

  /* and no reference leaked by the failed wrap */
  fail_unless_equals_int (context_refcount (clctx), refs);
  clReleaseCommandQueue (queue);
  clReleaseContext (clctx);
}

GST_END_TEST;

/* ---- two pipelines, one context ---- */

GST_START_TEST (test_two_pipelines_share)
{
  GError *error = NULL;
  GstElement *p[2];
  GstClContext *ctx, *used;
  GstContext *context;
  gint n_buffers[2];
  guint before, i;

  ctx = gst_cl_context_new (NULL, &error);
  fail_unless (ctx != NULL, "%s", error ? error->message : "?");
  before = gst_cl_context_get_n_created ();
  context = gst_context_new_cl_context (ctx);

  for (i = 0; i < 2; i++) {
    p[i] = make_pipeline (MAIN_PIPELINE (5));
    gst_element_set_context (p[i], context);
    watch_sink (p[i], &n_buffers[i]);
  }
  gst_context_unref (context);

  /* both at once, so the context really is used by two streams */
  for (i = 0; i < 2; i++)
    start_pipeline (p[i]);
  for (i = 0; i < 2; i++) {
    wait_eos (p[i]);
    fail_unless_equals_int (g_atomic_int_get (&n_buffers[i]), N_FRAMES);
    used = check_one_context (p[i], 3);
    fail_unless (used == ctx);
    gst_object_unref (used);
  }
  fail_unless_equals_int (gst_cl_context_get_n_created (), before);
  for (i = 0; i < 2; i++)
    stop_pipeline (p[i]);

  ASSERT_OBJECT_REFCOUNT (ctx, "shared context", 1);
  gst_object_unref (ctx);
}

GST_END_TEST;

/* The application takes the context a pipeline made (context query) and
 * gives it to a second pipeline. */
GST_START_TEST (test_two_pipelines_share_created)
{
  GstElement *p1, *p2;
  GstClContext *ctx, *used;
  GList *elements;
  GstContext *context;
  gint n1, n2;
  guint before = gst_cl_context_get_n_created ();

  p1 = make_pipeline (MAIN_PIPELINE (5));
  watch_sink (p1, &n1);
  start_pipeline (p1);
  wait_eos (p1);
  elements = get_cl_elements (p1);
  fail_unless (elements != NULL);
  ctx = test_element_cl_context (elements->data, "src");
  g_list_free_full (elements, gst_object_unref);
  fail_unless_equals_int (gst_cl_context_get_n_created (), before + 1);

  p2 = make_pipeline (MAIN_PIPELINE (5));
  context = gst_context_new_cl_context (ctx);
  gst_element_set_context (p2, context);
  gst_context_unref (context);
  watch_sink (p2, &n2);
  start_pipeline (p2);
  wait_eos (p2);
  fail_unless_equals_int (g_atomic_int_get (&n2), N_FRAMES);
  used = check_one_context (p2, 3);
  fail_unless (used == ctx);
  gst_object_unref (used);
  fail_unless_equals_int (gst_cl_context_get_n_created (), before + 1);

  stop_pipeline (p1);
  stop_pipeline (p2);
  gst_object_unref (ctx);
}

GST_END_TEST;

/* ---- the device property ---- */

/* Starting @desc must fail with an error naming @spec; returns the number
 * of contexts created meanwhile. */
static guint
check_device_failure (const gchar * desc, const gchar * spec)
{
  GstElement *pipeline = make_pipeline (desc);
  GstBus *bus = gst_element_get_bus (pipeline);
  guint before = gst_cl_context_get_n_created ();
  GstMessage *msg;
  GError *error = NULL;
  gchar *debug = NULL;

  fail_unless_equals_int (gst_element_set_state (pipeline, GST_STATE_PLAYING),
      GST_STATE_CHANGE_FAILURE);
  /* posted from the failing state change, already on the bus */
  msg = gst_bus_pop_filtered (bus, GST_MESSAGE_ERROR);
  fail_unless (msg != NULL, "no error message for '%s'", desc);
  gst_message_parse_error (msg, &error, &debug);
  GST_INFO ("error: %s", error->message);
  fail_unless (g_error_matches (error, GST_RESOURCE_ERROR,
          GST_RESOURCE_ERROR_NOT_FOUND), "%s", error->message);
  fail_unless (strstr (error->message, spec) != NULL,
      "error message does not name '%s': %s", spec, error->message);
  g_error_free (error);
  g_free (debug);
  gst_message_unref (msg);
  gst_object_unref (bus);
  stop_pipeline (pipeline);
  return gst_cl_context_get_n_created () - before;
}

GST_START_TEST (test_device_no_match)
{
  guint created;

  /* alone: nothing is created at all */
  created = check_device_failure (SRC_RGBX (5) "! clcolorlowpass "
      "device=no-such-device-xyz ! video/x-raw,format=I420 ! fakesink",
      "no-such-device-xyz");
  fail_unless_equals_int (created, 0);

  /* among elements without a spec: the context cldownload made (first to
   * start, being downstream) is on another device, so it is not taken */
  created = check_device_failure (SRC_RGBX (5) "! clupload ! clcolorlowpass "
      "device=no-such-device-xyz ! video/x-raw(memory:OpenCL),format=I420 "
      "! cldownload ! fakesink", "no-such-device-xyz");
  fail_unless_equals_int (created, 1);

  /* the environment variable stands in for an unset property */
  g_setenv (GST_CL_DEVICE_ENV, "no-such-device-xyz", TRUE);
  created = check_device_failure (MAIN_PIPELINE (5), "no-such-device-xyz");
  g_unsetenv (GST_CL_DEVICE_ENV);
  fail_unless_equals_int (created, 0);
}

GST_END_TEST;

/* %u stands for the index of the first CPU device (unused %u arguments are
 * ignored): device 0 on a machine
 * with pocl alone, but not where a GPU is listed first */
static const gchar *device_pipelines[] = {
  SRC_RGBX (5) "! clupload device=%u ! clcolorlowpass device=%u "
      "! video/x-raw(memory:OpenCL),format=I420 ! cldownload device=%u "
      "! fakesink name=sink",
  SRC_RGBX (5) "! clupload device=cpu ! clcolorlowpass device=CPU "
      "! video/x-raw(memory:OpenCL),format=I420 ! cldownload device=cpu "
      "! fakesink name=sink",
  /* different specs naming the one CPU device still share a context */
  SRC_RGBX (5) "! clupload device=%u ! clcolorlowpass device=cpu "
      "! video/x-raw(memory:OpenCL),format=I420 ! cldownload device=%u "
      "! fakesink name=sink",
};

static guint
first_cpu_index (void)
{
  gchar *list = gst_cl_describe_devices ();
  gchar **lines = g_strsplit (list, "\n", -1);
  guint i, index = G_MAXUINT;

  for (i = 0; lines[i] && index == G_MAXUINT; i++)
    if (g_str_has_suffix (lines[i], ", CPU)"))
      index = (guint) g_ascii_strtoull (lines[i], NULL, 10);
  g_strfreev (lines);
  g_free (list);
  fail_if (index == G_MAXUINT, "no CPU device listed");
  return index;
}

GST_START_TEST (test_device_valid)
{
  guint before = gst_cl_context_get_n_created ();
  guint cpu = first_cpu_index ();
  gchar *desc = g_strdup_printf (device_pipelines[__i__], cpu, cpu, cpu, cpu);
  gchar *index_spec = g_strdup_printf ("%u", cpu);
  GstClContext *ctx;

  ctx = run_pipeline (desc, NULL, 3, N_FRAMES);
  fail_unless_equals_int (gst_cl_context_get_n_created (), before + 1);
  fail_unless (ctx->device_type & CL_DEVICE_TYPE_CPU);
  fail_unless (gst_cl_context_matches (ctx, index_spec));
  fail_unless (gst_cl_context_matches (ctx, "cpu"));
  fail_if (gst_cl_context_matches (ctx, "no-such-device-xyz"));
  gst_object_unref (ctx);
  g_free (index_spec);
  g_free (desc);
}

GST_END_TEST;

/* The device's extensions: each name that the driver lists is found,
 * whole names only (not a prefix of one, not the empty name), as a plain
 * split of the driver's list finds them */
GST_START_TEST (test_has_extension)
{
  GError *error = NULL;
  GstClContext *ctx = gst_cl_context_new (NULL, &error);
  gchar list[8192] = { 0 };
  gchar **names;
  guint i, found = 0;

  fail_unless (ctx != NULL, "%s", error ? error->message : "no context");
  fail_unless_equals_int (clGetDeviceInfo (ctx->device, CL_DEVICE_EXTENSIONS,
          sizeof (list) - 1, list, NULL), CL_SUCCESS);
  names = g_strsplit_set (list, " \t\n", -1);
  for (i = 0; names[i]; i++) {
    gchar *prefix;

    if (!*names[i])
      continue;
    fail_unless (gst_cl_context_has_extension (ctx, names[i]), "%s",
        names[i]);
    /* (a name that is a prefix of another one is listed on its own) */
    prefix = g_strndup (names[i], strlen (names[i]) - 1);
    fail_unless_equals_int (gst_cl_context_has_extension (ctx, prefix),
        g_strv_contains ((const gchar * const *) names, prefix));
    g_free (prefix);
    found++;
  }
  /* every OpenCL 1.2 device has at least the ICD extension */
  fail_unless (found > 0);
  fail_if (gst_cl_context_has_extension (ctx, ""));
  fail_if (gst_cl_context_has_extension (ctx, "cl_no_such_extension"));
  g_strfreev (names);
  gst_object_unref (ctx);
}

GST_END_TEST;

/* ---- transfer counts and profiling ---- */

#define N_COUNT 7

typedef struct
{
  const gchar *desc;
  guint64 host_maps, uploads, downloads;        /* per frame */
} CountCase;

/* Expected counts, from the code:
 * - clupload proposes a pool of OpenCL buffers upstream, which videotestsrc
 *   uses: it writes each RGBx frame through one host map (one plane), and
 *   clupload then copies on the device (clEnqueueCopyBuffer, not counted).
 * - clcolorlowpass reads and writes device buffers only.
 * - cldownload reads each frame into the (system) output: one download.
 * A frame that goes back to the host in the middle shows up as more. */
static const CountCase count_cases[] = {
  /* the entry (1 host map) and the exit (1 download) only: 2 N in all */
  {MAIN_PIPELINE (N_COUNT), 1, 0, 1},
  /* videotestsrc kept from clupload's pool: it allocates system memory,
   * which clupload uploads (one upload instead of the host map) */
  {SRC_RGBX (N_COUNT) "! identity drop-allocation=true ! clupload "
        "! clcolorlowpass ! video/x-raw(memory:OpenCL),format=I420 "
        "! cldownload ! fakesink name=sink", 0, 1, 1},
  /* (system-memory caps straight into cldownload cannot link: its sink
   * takes memory:OpenCL only)
   * system-memory caps after clcolorlowpass: its output pool is still
   * OpenCL memory and clupload copies on the device, so the frames never
   * reach the host and the count stays 2 N */
  {SRC_RGBX (N_COUNT) "! clupload ! clcolorlowpass ! video/x-raw,format=I420 "
        "! clupload ! cldownload ! fakesink name=sink", 1, 0, 1},
  /* a real round trip: cldownload ! clupload in the middle. The first
   * cldownload reads the frame into a buffer of clupload's proposed pool,
   * mapped for the host once (its three I420 planes share the mapping),
   * then clupload copies it on the device; the exit is the second
   * download. */
  {SRC_RGBX (N_COUNT) "! clupload ! clcolorlowpass "
        "! video/x-raw(memory:OpenCL),format=I420 ! cldownload ! clupload "
        "! cldownload ! fakesink name=sink", 2, 0, 2},
  /* a host element in the middle: videoconvert maps its I420 input and
   * writes NV12 into clupload's pool, one mapping each */
  {SRC_RGBX (N_COUNT) "! clupload ! clcolorlowpass ! video/x-raw,format=I420 "
        "! videoconvert ! video/x-raw,format=NV12 ! clupload ! cldownload "
        "! fakesink name=sink", 3, 0, 1},
};

static void
run_counted (const gchar * desc, AppData * app, GstClTransferCounts * counts,
    guint64 * launches, guint64 * total_ns, guint64 * min_ns)
{
  GstClContext *ctx;

  /* the context outlives the pipelines: start from zero */
  gst_cl_context_reset_stats (app->ctx);
  gst_cl_context_get_transfer_counts (app->ctx, counts);
  fail_unless_equals_uint64 (counts->host_maps + counts->uploads +
      counts->downloads, 0);
  fail_if (gst_cl_context_get_kernel_stats (app->ctx, "colorlowpass",
          launches, NULL, NULL));
  fail_unless_equals_uint64 (*launches, 0);

  ctx = run_pipeline (desc, app, 1, N_COUNT);
  fail_unless (ctx == app->ctx);
  gst_object_unref (ctx);
  gst_cl_context_get_transfer_counts (app->ctx, counts);
  gst_cl_context_get_kernel_stats (app->ctx, "colorlowpass", launches,
      total_ns, min_ns);
  GST_INFO ("%s: host maps %" G_GUINT64_FORMAT ", uploads %" G_GUINT64_FORMAT
      ", downloads %" G_GUINT64_FORMAT, desc, counts->host_maps,
      counts->uploads, counts->downloads);
}

/* __i__ 0: a context whose queue does not time launches (the default),
 * which still counts them; 1: one asked to time them; 2: one made while
 * the clprofile category logs them */
GST_START_TEST (test_transfer_counts)
{
  GError *error = NULL;
  AppData app = { NULL, 0, 0 };
  GstClTransferCounts counts;
  guint64 launches, total_ns, min_ns;
  const gboolean timed = __i__ > 0;
  guint i;

  g_setenv (GST_CL_PROFILING_ENV, __i__ == 1 ? "1" : "0", TRUE);
  if (__i__ == 2)
    gst_debug_set_threshold_for_name ("clprofile", GST_LEVEL_LOG);
  app.ctx = gst_cl_context_new (NULL, &error);
  gst_debug_unset_threshold_for_name ("clprofile");
  g_unsetenv (GST_CL_PROFILING_ENV);
  fail_unless (app.ctx != NULL, "%s", error ? error->message : "?");

  for (i = 0; i < G_N_ELEMENTS (count_cases); i++) {
    const CountCase *c = &count_cases[i];

    run_counted (c->desc, &app, &counts, &launches, &total_ns, &min_ns);
    fail_unless_equals_uint64 (counts.host_maps, c->host_maps * N_COUNT);
    fail_unless_equals_uint64 (counts.uploads, c->uploads * N_COUNT);
    fail_unless_equals_uint64 (counts.downloads, c->downloads * N_COUNT);
    fail_unless_equals_uint64 (launches, N_COUNT);
    if (timed) {
      fail_unless (total_ns > 0);
      fail_unless (min_ns > 0 && min_ns <= total_ns / N_COUNT);
    } else {
      fail_unless_equals_uint64 (total_ns, 0);
      fail_unless_equals_uint64 (min_ns, 0);
    }
  }
  gst_object_unref (app.ctx);
}

GST_END_TEST;

/* ---- device-side frame copies ---- */

/* the bytes of a row of @plane of @info and its rows (the plane's first
 * component's: those of the formats below share them) */
static void
plane_size (const GstVideoInfo * info, guint plane, gsize * row_bytes,
    guint * rows)
{
  gint comp[GST_VIDEO_MAX_COMPONENTS];

  gst_video_format_info_component (info->finfo, plane, comp);
  *row_bytes = (gsize) GST_VIDEO_INFO_COMP_WIDTH (info, comp[0]) *
      GST_VIDEO_INFO_COMP_PSTRIDE (info, comp[0]);
  *rows = GST_VIDEO_INFO_COMP_HEIGHT (info, comp[0]);
}

/* gst_cl_frame_copy() copies every plane's rows of @src into @dst: with
 * the same layout (one command) and with another (a rectangle a plane);
 * outside the planes' rows @dst keeps its bytes. */
static void
check_frame_copy (const GstVideoInfo * info, gint dst_stride_pad)
{
  GstClContext *ctx = test_get_shared_context ();
  GError *error = NULL;
  const gsize size = info->size * 2 + 4096;
  GstBufferPool *pool = gst_cl_buffer_pool_new_sized (ctx, size, 2, &error);
  GstBuffer *sb = NULL, *db = NULL;
  GstClFrame src, dst;
  guint8 *src_bytes = g_malloc (size), *dst_bytes = g_malloc (size);
  guint8 *back = g_malloc (size), *expect = g_malloc (size);
  GRand *rand = g_rand_new_with_seed (3);
  guint p, i;
  gsize off = 0;

  fail_unless (pool != NULL, "%s", error ? error->message : "");
  fail_unless (gst_buffer_pool_acquire_buffer (pool, &sb, NULL) ==
      GST_FLOW_OK);
  fail_unless (gst_buffer_pool_acquire_buffer (pool, &db, NULL) ==
      GST_FLOW_OK);
  fail_unless (gst_cl_frame_init (&src, info, sb));
  fail_unless (gst_cl_frame_init (&dst, info, db));
  /* another layout: each plane's rows wider apart, the planes further in */
  if (dst_stride_pad) {
    for (p = 0; p < GST_VIDEO_INFO_N_PLANES (info); p++) {
      gsize row_bytes;
      guint rows;
      plane_size (info, p, &row_bytes, &rows);
      dst.info.stride[p] += dst_stride_pad;
      dst.info.offset[p] = off + 64;
      off = dst.info.offset[p] + (gsize) dst.info.stride[p] * rows;
    }
    fail_unless (off <= size);
  }
  for (i = 0; i < size; i++) {
    src_bytes[i] = g_rand_int (rand);
    dst_bytes[i] = g_rand_int (rand);
  }
  fail_unless_equals_int (clEnqueueWriteBuffer (ctx->queue, src.mem, CL_TRUE,
          0, size, src_bytes, 0, NULL, NULL), CL_SUCCESS);
  fail_unless_equals_int (clEnqueueWriteBuffer (ctx->queue, dst.mem, CL_TRUE,
          0, size, dst_bytes, 0, NULL, NULL), CL_SUCCESS);
  fail_unless (gst_cl_frame_copy (ctx, &dst, &src, &error), "%s",
      error ? error->message : "");
  fail_unless_equals_int (clEnqueueReadBuffer (ctx->queue, dst.mem, CL_TRUE,
          0, size, back, 0, NULL, NULL), CL_SUCCESS);

  /* the plane rows moved; every other byte of @dst as it was, but for
   * what lies between the planes where the layouts are the same */
  memcpy (expect, dst_bytes, size);
  for (p = 0; p < GST_VIDEO_INFO_N_PLANES (info); p++) {
    gsize row_bytes;
    guint row, rows;
    plane_size (info, p, &row_bytes, &rows);
    for (row = 0; row < rows; row++)
      memcpy (expect + dst.info.offset[p] + (gsize) row * dst.info.stride[p],
          src_bytes + src.info.offset[p] + (gsize) row * src.info.stride[p],
          row_bytes);
  }
  if (!dst_stride_pad) {
    guint last = GST_VIDEO_INFO_N_PLANES (info) - 1, rows;
    gsize first = src.info.offset[0], row_bytes, end;
    plane_size (info, last, &row_bytes, &rows);
    end = src.info.offset[last] + (gsize) src.info.stride[last] *
        (rows - 1) + row_bytes;
    /* (the padding between the planes comes along) */
    for (i = first; i < end; i++)
      if (expect[i] == dst_bytes[i] && back[i] == src_bytes[i])
        expect[i] = src_bytes[i];
  }
  for (i = 0; i < size; i++)
    fail_unless_each (back[i] == expect[i], "byte %u of the copy: %u, "
        "expected %u", i, back[i], expect[i]);

  gst_buffer_unref (sb);
  gst_buffer_unref (db);
  gst_buffer_pool_set_active (pool, FALSE);
  gst_object_unref (pool);
  g_rand_free (rand);
  g_free (src_bytes);
  g_free (dst_bytes);
  g_free (back);
  g_free (expect);
}

GST_START_TEST (test_frame_copy)
{
  static const struct { GstVideoFormat format; guint w, h; } cases[] = {
    {GST_VIDEO_FORMAT_I420, 17, 9}, {GST_VIDEO_FORMAT_NV12, 33, 7},
    {GST_VIDEO_FORMAT_RGB, 5, 3}, {GST_VIDEO_FORMAT_Y42B, 64, 16},
  };
  guint c;

  for (c = 0; c < G_N_ELEMENTS (cases); c++) {
    GstVideoInfo info;
    gst_video_info_set_format (&info, cases[c].format, cases[c].w,
        cases[c].h);
    check_frame_copy (&info, 0);
    check_frame_copy (&info, 12);
  }
}

GST_END_TEST;

/* ---- sibling queues ---- */

#define SIBLING_BYTES (8 << 20)

/* A sibling shares the OpenCL context, device, layout and counts, has a
 * queue of its own, and gst_cl_context_wait_for() orders the two: a
 * large write enqueued on one is complete before a read enqueued on the
 * other after the wait. */
GST_START_TEST (test_sibling_queue)
{
  GError *error = NULL;
  GstClContext *ctx, *sib;
  GstClTransferCounts counts;
  guint8 *pattern = g_malloc (SIBLING_BYTES), *back = g_malloc0 (SIBLING_BYTES);
  gint created;
  cl_mem buf;
  cl_int ret;
  gsize i;

  ctx = gst_cl_context_new (NULL, &error);
  fail_unless (ctx != NULL, "%s", error ? error->message : "?");
  created = gst_cl_context_get_n_created ();
  sib = gst_cl_context_new_sibling (ctx, &error);
  fail_unless (sib != NULL, "%s", error ? error->message : "?");
  fail_unless_equals_int (gst_cl_context_get_n_created (), created);
  fail_unless (sib->context == ctx->context && sib->device == ctx->device);
  fail_unless (sib->queue != ctx->queue);
  fail_unless_equals_int (sib->cpu_layout, ctx->cpu_layout);

  for (i = 0; i < SIBLING_BYTES; i++)
    pattern[i] = (guint8) (i * 7 + (i >> 13));
  buf = clCreateBuffer (ctx->context, CL_MEM_READ_WRITE, SIBLING_BYTES,
      NULL, &ret);
  fail_unless_equals_int (ret, CL_SUCCESS);
  fail_unless_equals_int (clEnqueueWriteBuffer (ctx->queue, buf, CL_FALSE,
          0, SIBLING_BYTES, pattern, 0, NULL, NULL), CL_SUCCESS);
  fail_unless (gst_cl_context_wait_for (sib, ctx, &error), "%s",
      error ? error->message : "?");
  fail_unless_equals_int (clEnqueueReadBuffer (sib->queue, buf, CL_TRUE, 0,
          SIBLING_BYTES, back, 0, NULL, NULL), CL_SUCCESS);
  fail_unless (memcmp (pattern, back, SIBLING_BYTES) == 0);
  /* and the other way, back to zero */
  memset (pattern, 0, SIBLING_BYTES);
  fail_unless_equals_int (clEnqueueWriteBuffer (sib->queue, buf, CL_FALSE,
          0, SIBLING_BYTES, pattern, 0, NULL, NULL), CL_SUCCESS);
  fail_unless (gst_cl_context_wait_for (ctx, sib, &error));
  fail_unless_equals_int (clEnqueueReadBuffer (ctx->queue, buf, CL_TRUE, 0,
          SIBLING_BYTES, back, 0, NULL, NULL), CL_SUCCESS);
  fail_unless (memcmp (pattern, back, SIBLING_BYTES) == 0);
  fail_unless (gst_cl_context_wait_for (ctx, ctx, &error));

  /* the counts are the root's */
  gst_cl_context_reset_stats (ctx);
  gst_cl_context_count (sib, GST_CL_TRANSFER_UPLOAD);
  gst_cl_context_get_transfer_counts (ctx, &counts);
  fail_unless_equals_uint64 (counts.uploads, 1);

  clReleaseMemObject (buf);
  gst_object_unref (sib);
  ASSERT_OBJECT_REFCOUNT (ctx, "root", 1);
  gst_object_unref (ctx);
  g_free (pattern);
  g_free (back);
}

GST_END_TEST;

/* Runs @desc (@n_frames to the sink named "sink") to EOS on a new
 * application context, into @app; checks that the elements asked for
 * it and made none of their own. Any cl element, a GstClFilter or not. */
static void
run_on_app_context (const gchar * desc, AppData * app, gint n_frames)
{
  GError *error = NULL;
  GstElement *pipeline;
  gint n_buffers;

  app->n_need = app->n_have = 0;
  app->ctx = gst_cl_context_new (NULL, &error);
  fail_unless (app->ctx != NULL, "%s", error ? error->message : "?");
  pipeline = make_pipeline (desc);
  set_app_handler (pipeline, app);
  watch_sink (pipeline, &n_buffers);
  start_pipeline (pipeline);
  wait_eos (pipeline);
  fail_unless_equals_int (g_atomic_int_get (&n_buffers), n_frames);
  stop_pipeline (pipeline);
  fail_unless (app->n_need > 0);
  fail_unless_equals_int (app->n_have, 0);
}

/* clmpegenc works on a sibling of the application's context: its
 * launches count there, and it codes every frame */
GST_START_TEST (test_encoder_sibling_counts)
{
  AppData app;
  guint64 launches = 0;

  run_on_app_context ("videotestsrc num-buffers=4 ! "
      "video/x-raw,format=I420,width=64,height=48 ! clmpegenc ! "
      "fakesink name=sink", &app, 4);
  fail_unless (gst_cl_context_get_kernel_stats (app.ctx, "mpeg-encode",
          &launches, NULL, NULL));
  fail_unless (launches >= 4, "%" G_GUINT64_FORMAT " launches", launches);
  ASSERT_OBJECT_REFCOUNT (app.ctx, "application context", 1);
  gst_object_unref (app.ctx);
}

GST_END_TEST;

/* ---- elements that start at once ---- */

#define RACE_PIPELINES 2
#define RACE_ELEMENTS 4         /* per pipeline */
#define RACE_ROUNDS 50

/* All threads wait here until the last one arrives, then go together. */
typedef struct
{
  GMutex lock;
  GCond cond;
  guint waiting;
  guint total;
} Barrier;

static void
barrier_wait (Barrier * b)
{
  g_mutex_lock (&b->lock);
  if (++b->waiting == b->total)
    g_cond_broadcast (&b->cond);
  while (b->waiting < b->total)
    g_cond_wait (&b->cond, &b->lock);
  g_mutex_unlock (&b->lock);
}

typedef struct
{
  Barrier *barrier;
  GstElement *element;
  GstStateChangeReturn ret;
} Starter;

static gpointer
start_element (gpointer data)
{
  Starter *st = data;

  barrier_wait (st->barrier);
  st->ret = gst_element_set_state (st->element, GST_STATE_READY);
  return NULL;
}

/* Unlinked cl elements in two pipelines, all taken from NULL to READY in
 * threads of their own at the same moment: no neighbour can answer, only
 * the pipeline, with the context one of them made. Each pipeline must end
 * with one context, made once: GstContext does not travel between
 * pipelines, so each pipeline makes its own (as with CUDA and GL). Without
 * the lock of gst_cl_ensure_element_data() several elements of a pipeline
 * find nothing at once and each makes a context. */
GST_START_TEST (test_concurrent_start)
{
  const guint n = RACE_PIPELINES * RACE_ELEMENTS;
  guint round, i;

  for (round = 0; round < RACE_ROUNDS; round++) {
    GstElement *pipelines[RACE_PIPELINES];
    Starter starters[RACE_PIPELINES * RACE_ELEMENTS];
    GThread *threads[RACE_PIPELINES * RACE_ELEMENTS];
    Barrier barrier = { .total = n };
    guint before = gst_cl_context_get_n_created ();

    g_mutex_init (&barrier.lock);
    g_cond_init (&barrier.cond);
    for (i = 0; i < RACE_PIPELINES; i++)
      pipelines[i] = gst_pipeline_new (NULL);
    for (i = 0; i < n; i++) {
      starters[i].barrier = &barrier;
      starters[i].element = gst_element_factory_make ("clcolorlowpass", NULL);
      fail_unless (starters[i].element != NULL);
      gst_bin_add (GST_BIN (pipelines[i / RACE_ELEMENTS]),
          starters[i].element);
    }
    for (i = 0; i < n; i++)
      threads[i] = g_thread_new ("starter", start_element, &starters[i]);
    for (i = 0; i < n; i++)
      g_thread_join (threads[i]);

    for (i = 0; i < n; i++) {
      GstClContext *ctx =
          gst_cl_filter_get_context (GST_CL_FILTER (starters[i].element));
      GstClContext *first = gst_cl_filter_get_context (GST_CL_FILTER
          (starters[i - i % RACE_ELEMENTS].element));

      fail_unless_equals_int (starters[i].ret, GST_STATE_CHANGE_SUCCESS);
      fail_unless (ctx != NULL);
      fail_unless (ctx == first, "round %u: pipeline %u has two contexts",
          round, i / RACE_ELEMENTS);
      /* and not the other pipeline's */
      if (i >= RACE_ELEMENTS)
        fail_unless (ctx != gst_cl_filter_get_context (GST_CL_FILTER
                (starters[i - RACE_ELEMENTS].element)));
    }
    fail_unless_equals_int (gst_cl_context_get_n_created () - before,
        RACE_PIPELINES);

    for (i = 0; i < RACE_PIPELINES; i++)
      stop_pipeline (pipelines[i]);
    g_mutex_clear (&barrier.lock);
    g_cond_clear (&barrier.cond);
  }
}

GST_END_TEST;

/* One pipeline, started by several threads at once through its elements'
 * state changes and by the pipeline itself: still one context. */
GST_START_TEST (test_concurrent_start_one_pipeline)
{
  guint round, i;

  for (round = 0; round < RACE_ROUNDS; round++) {
    GstElement *pipeline = gst_pipeline_new (NULL);
    Starter starters[RACE_ELEMENTS];
    GThread *threads[RACE_ELEMENTS];
    Barrier barrier = { .total = RACE_ELEMENTS + 1 };
    guint before = gst_cl_context_get_n_created ();
    GstClContext *common;

    g_mutex_init (&barrier.lock);
    g_cond_init (&barrier.cond);
    for (i = 0; i < RACE_ELEMENTS; i++) {
      starters[i].barrier = &barrier;
      starters[i].element = gst_element_factory_make ("clcolorlowpass", NULL);
      fail_unless (starters[i].element != NULL);
      gst_bin_add (GST_BIN (pipeline), starters[i].element);
      threads[i] = g_thread_new ("starter", start_element, &starters[i]);
    }
    barrier_wait (&barrier);
    fail_unless (gst_element_set_state (pipeline, GST_STATE_READY) !=
        GST_STATE_CHANGE_FAILURE);
    for (i = 0; i < RACE_ELEMENTS; i++)
      g_thread_join (threads[i]);

    common = gst_cl_filter_get_context (GST_CL_FILTER (starters[0].element));
    fail_unless (common != NULL);
    for (i = 0; i < RACE_ELEMENTS; i++)
      fail_unless (gst_cl_filter_get_context (GST_CL_FILTER
              (starters[i].element)) == common,
          "round %u: the pipeline has two contexts", round);
    fail_unless_equals_int (gst_cl_context_get_n_created () - before, 1);
    stop_pipeline (pipeline);
    g_mutex_clear (&barrier.lock);
    g_cond_clear (&barrier.cond);
  }
}

GST_END_TEST;

static Suite *
context_suite (void)
{
  Suite *s = suite_create ("clcontext");
  TCase *tc = tcase_create ("general");

  suite_add_tcase (s, tc);
  tcase_add_loop_test (tc, test_one_context_per_pipeline, 0,
      G_N_ELEMENTS (one_context_pipelines));
  tcase_add_test (tc, test_app_context_need_context);
  tcase_add_test (tc, test_app_wrapped_context);
  tcase_add_test (tc, test_app_wrapped_context_out_of_order);
  tcase_add_test (tc, test_two_pipelines_share);
  tcase_add_test (tc, test_two_pipelines_share_created);
  tcase_add_test (tc, test_device_no_match);
  tcase_add_loop_test (tc, test_device_valid, 0,
      G_N_ELEMENTS (device_pipelines));
  tcase_add_loop_test (tc, test_transfer_counts, 0, 3);
  tcase_add_test (tc, test_sibling_queue);
  tcase_add_test (tc, test_encoder_sibling_counts);
  tcase_add_test (tc, test_concurrent_start);
  tcase_add_test (tc, test_concurrent_start_one_pipeline);
  tcase_add_test (tc, test_frame_copy);
  tcase_add_test (tc, test_has_extension);
  return s;
}

GST_CHECK_MAIN (context);
