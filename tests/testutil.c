/* gst-clvideo: helpers shared by the tests
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "testutil.h"

#include <gst/check/gstcheck.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

static GstClContext *shared_context;

GstClContext *
test_get_shared_context (void)
{
  if (!shared_context) {
    GError *error = NULL;
    shared_context = gst_cl_context_new (NULL, &error);
    fail_unless (shared_context != NULL, "no OpenCL context: %s",
        error ? error->message : "?");
  }
  return shared_context;
}

void
test_set_shared_context (GstElement * element)
{
  GstContext *context = gst_context_new_cl_context (test_get_shared_context ());
  gst_element_set_context (element, context);
  gst_context_unref (context);
}

void
test_release_shared_context (void)
{
  gst_clear_object (&shared_context);
}

TCase *
test_suite_add_case (Suite * s)
{
  TCase *tc = tcase_create ("general");

  suite_add_tcase (s, tc);
  tcase_set_timeout (tc, 900);
  tcase_add_checked_fixture (tc, NULL, test_release_shared_context);
  return tc;
}

gchar **
test_layout_environ (gchar ** env, const gchar * layout)
{
  env = g_environ_setenv (env, GST_CL_LAYOUT_ENV, layout, TRUE);
  if (g_strcmp0 (layout, "gpu") == 0)
    return g_environ_setenv (env, GST_CL_BUILD_OPTIONS_ENV,
        TEST_GPU_LAYOUT_BUILD_OPTIONS, TRUE);
  return g_environ_unsetenv (env, GST_CL_BUILD_OPTIONS_ENV);
}

void
test_set_layout (const gchar * layout)
{
  g_setenv (GST_CL_LAYOUT_ENV, layout, TRUE);
  if (g_strcmp0 (layout, "gpu") == 0)
    g_setenv (GST_CL_BUILD_OPTIONS_ENV, TEST_GPU_LAYOUT_BUILD_OPTIONS,
        TRUE);
  else
    g_unsetenv (GST_CL_BUILD_OPTIONS_ENV);
}

void
test_save_layout (TestSavedLayout * saved)
{
  saved->layout = g_strdup (g_getenv (GST_CL_LAYOUT_ENV));
  saved->build_options = g_strdup (g_getenv (GST_CL_BUILD_OPTIONS_ENV));
}

void
test_restore_env (const gchar * name, gchar * saved)
{
  if (saved)
    g_setenv (name, saved, TRUE);
  else
    g_unsetenv (name);
  g_free (saved);
}

void
test_restore_layout (TestSavedLayout * saved)
{
  test_restore_env (GST_CL_LAYOUT_ENV, saved->layout);
  test_restore_env (GST_CL_BUILD_OPTIONS_ENV, saved->build_options);
  saved->layout = saved->build_options = NULL;
}

gboolean
test_have_program (const gchar * name)
{
  gchar *path = g_find_program_in_path (name);

  g_free (path);
  return path != NULL;
}

void
test_set_properties (GstElement * element, const gchar * props)
{
  gchar **kv = g_strsplit (props ? props : "", " ", -1);
  guint i;

  for (i = 0; kv[i]; i++) {
    gchar **pair;
    if (!*kv[i])
      continue;
    pair = g_strsplit (kv[i], "=", 2);
    fail_unless (pair[0] && pair[1], "bad property setting '%s'", kv[i]);
    gst_util_set_object_arg (G_OBJECT (element), pair[0], pair[1]);
    g_strfreev (pair);
  }
  g_strfreev (kv);
}

void
test_attach_bus (GstElement * element)
{
  GstBus *bus = gst_bus_new ();
  gst_element_set_bus (element, bus);
  gst_object_unref (bus);
}

/* Takes @element. */
static GstHarness *
harness_on_shared_context (GstElement * element)
{
  GstHarness *h;

  test_set_shared_context (element);
  h = gst_harness_new_with_element (element, "sink", "src");
  gst_object_unref (element);
  /* errors and messages go here */
  test_attach_bus (h->element);
  return h;
}

GstHarness *
test_harness_new (const gchar * factory, const gchar * props)
{
  GstElement *e = gst_element_factory_make (factory, NULL);

  fail_unless (e != NULL, "no %s element", factory);
  test_set_properties (e, props);
  return harness_on_shared_context (e);
}

GstHarness *
test_harness_new_bin (const gchar * desc)
{
  GError *error = NULL;
  GstElement *bin = gst_parse_bin_from_description (desc, TRUE, &error);

  fail_unless (bin != NULL, "%s: %s", desc, error ? error->message : "?");
  return harness_on_shared_context (bin);
}

void
test_harness_flush (GstHarness * h)
{
  GstSegment segment;

  fail_unless (gst_harness_push_event (h, gst_event_new_flush_start ()));
  fail_unless (gst_harness_push_event (h, gst_event_new_flush_stop (TRUE)));
  gst_segment_init (&segment, GST_FORMAT_TIME);
  fail_unless (gst_harness_push_event (h, gst_event_new_segment (&segment)));
}

void
test_harness_teardown (GstHarness * h)
{
  GstBus *bus = gst_element_get_bus (h->element);
  if (bus) {
    gst_bus_set_flushing (bus, TRUE);
    gst_object_unref (bus);
  }
  gst_harness_teardown (h);
}

gchar *
test_pop_error_text (GstHarness * h)
{
  GstBus *bus = gst_element_get_bus (h->element);
  GstMessage *msg = bus ? gst_bus_pop_filtered (bus, GST_MESSAGE_ERROR) : NULL;
  GError *error = NULL;
  gchar *debug = NULL, *text;

  if (bus)
    gst_object_unref (bus);
  if (!msg)
    return g_strdup ("no error message");
  gst_message_parse_error (msg, &error, &debug);
  text = g_strdup_printf ("%s (%s)", error->message, GST_STR_NULL (debug));
  g_error_free (error);
  g_free (debug);
  gst_message_unref (msg);
  return text;
}

GstBuffer *
test_push_and_pull (GstHarness * h, GstBuffer * buf, const gchar * desc)
{
  GstFlowReturn ret = gst_harness_push (h, gst_buffer_ref (buf));
  GstBuffer *out;

  if (ret != GST_FLOW_OK) {
    gchar *text = test_pop_error_text (h);
    fail ("pushing %s: %s, %s", desc, gst_flow_get_name (ret), text);
    g_free (text);
  }
  out = gst_harness_try_pull (h);
  fail_unless (out != NULL, "%s: no output buffer", desc);
  return out;
}

GList *
test_pop_element_messages (GstHarness * h)
{
  GstBus *bus = gst_element_get_bus (h->element);
  GList *list = NULL;
  GstMessage *msg;

  while ((msg = gst_bus_pop_filtered (bus, GST_MESSAGE_ELEMENT)))
    list = g_list_append (list, msg);
  gst_object_unref (bus);
  return list;
}

GstClContext *
test_element_cl_context (GstElement * element, const gchar * pad_name)
{
  GstPad *pad = gst_element_get_static_pad (element, pad_name);
  GstQuery *query = gst_query_new_context (GST_CL_CONTEXT_TYPE);
  GstContext *context = NULL;
  GstClContext *ctx = NULL;

  fail_unless (pad != NULL, "%s has no pad %s", GST_OBJECT_NAME (element),
      pad_name);
  fail_unless (gst_pad_query (pad, query), "%s does not answer the context "
      "query", GST_OBJECT_NAME (element));
  gst_query_parse_context (query, &context);
  fail_unless (context != NULL);
  fail_unless_equals_string (gst_context_get_context_type (context),
      GST_CL_CONTEXT_TYPE);
  fail_unless (gst_context_get_cl_context (context, &ctx));
  fail_unless (GST_IS_CL_CONTEXT (ctx));
  gst_query_unref (query);
  gst_object_unref (pad);
  return ctx;
}

/* What a guarded memory frees. */
typedef struct
{
  guint8 *pages;
  gsize len;
} GuardedPages;

static void
guarded_free (gpointer data)
{
  GuardedPages *g = data;
  munmap (g->pages, g->len);
  g_free (g);
}

GstMemory *
test_guarded_memory_new (gsize size, GstMemoryFlags flags, guint8 fill,
    guint8 ** data)
{
  gsize page = sysconf (_SC_PAGESIZE);
  GuardedPages *g = g_new0 (GuardedPages, 1);
  guint8 *bytes;

  g->len = (size + page - 1) / page * page + page;
  g->pages = mmap (NULL, g->len, PROT_READ | PROT_WRITE,
      MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  fail_unless (g->pages != MAP_FAILED);
  fail_unless (mprotect (g->pages + g->len - page, page, PROT_NONE) == 0);
  bytes = g->pages + g->len - page - size;
  memset (bytes, fill, size);
  if (data)
    *data = bytes;
  return gst_memory_new_wrapped (flags, bytes, size, 0, size, g,
      guarded_free);
}

guint32
test_rng_next (guint32 * state)
{
  guint32 x = *state;
  x ^= x << 13;
  x ^= x >> 17;
  x ^= x << 5;
  return *state = x;
}

guint32
test_seed (const gchar * what, guint n)
{
  return g_str_hash (what) * 2654435761u + n * 40503u + 1;
}

void
test_fill_random (guint8 * data, gsize size, guint32 * rng)
{
  gsize i;
  for (i = 0; i + 4 <= size; i += 4) {
    guint32 v = test_rng_next (rng);
    memcpy (data + i, &v, 4);
  }
  for (; i < size; i++)
    data[i] = test_rng_next (rng) & 0xff;
}
