/* gst-clvideo: helpers shared by the tests
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#pragma once

#include <gst/gst.h>
#include <gst/check/gstcheck.h>
#include <gst/check/gstharness.h>
#include <gst/cl/gstclcontext.h>

G_BEGIN_DECLS

/* fail_unless for a check made for each sample or macroblock of a
 * picture: check marks the place of every assertion that passes (an
 * allocation, and a write to its pipe in fork mode), which such loops pay
 * millions of times; this costs nothing until it fails. The message's
 * format must be a string literal. */
#define fail_unless_each(cond, ...) G_STMT_START {                      \
    if (G_UNLIKELY (!(cond)))                                           \
      fail ("Assertion '" #cond "' failed: " __VA_ARGS__);              \
  } G_STMT_END

/* One context for a whole test, made on first use (a new one recompiles). */
GstClContext *test_get_shared_context (void);
/* Gives @element (a bin: all its elements) the shared context. */
void test_set_shared_context (GstElement * element);
/* Drops the shared context; a checked fixture, as each test has a process. */
void test_release_shared_context (void);
/* The test case of @s: 900 s a test, the shared context dropped after each. */
TCase *test_suite_add_case (Suite * s);

/* The kernel layout the plugin takes ("cpu", "gpu"; GST_CL_LAYOUT), in
 * @env (from g_get_environ(), returned) or in this process. The GPU
 * layout's programs are built without the compiler's optimisations
 * (TEST_GPU_LAYOUT_BUILD_OPTIONS in GST_CL_BUILD_OPTIONS): on a CPU the
 * tests check what that layout computes, not its speed, and POCL took ten
 * minutes of a core to optimise the encoder's GPU-layout kernels, whose
 * loops its barriers split, against 15 seconds without. The CPU layout,
 * which users run on POCL, is built as they build it. tests/meson.build
 * sets the same for the encoder's GPU-layout tests. (Not through POCL's
 * POCL_EXTRA_BUILD_FLAGS: POCL leaks a block at each build with it.) */
#define TEST_GPU_LAYOUT_BUILD_OPTIONS "-cl-opt-disable"
gchar **test_layout_environ (gchar ** env, const gchar * layout);
void test_set_layout (const gchar * layout);
/* The layout settings of this process (GST_CL_LAYOUT and
 * GST_CL_BUILD_OPTIONS), saved before test_set_layout() and restored
 * after (which frees them) */
typedef struct
{
  gchar *layout, *build_options;
} TestSavedLayout;
void test_save_layout (TestSavedLayout * saved);
/* Sets the environment variable @name back to @saved (NULL: unsets it),
 * which it frees */
void test_restore_env (const gchar * name, gchar * saved);
void test_restore_layout (TestSavedLayout * saved);

/* Whether @name is a program in PATH. */
gboolean test_have_program (const gchar * name);
/* Sets "name=value name=value ..." (NULL: none) as gst_util_set_object_arg. */
void test_set_properties (GstElement * element, const gchar * props);
/* Gives @element a bus: a harness gives none, and its messages would go. */
void test_attach_bus (GstElement * element);
/* A harness of a @factory element with @props ("name=value ...", NULL:
 * none), on the shared context, with a bus; tear down with
 * test_harness_teardown(). */
GstHarness *test_harness_new (const gchar * factory, const gchar * props);
/* Likewise around the elements of @desc ("clhistogram ! clcontrast"). */
GstHarness *test_harness_new_bin (const gchar * desc);
/* A flush (start, stop) and a new time segment, through @h. */
void test_harness_flush (GstHarness * h);
/* Flushes the element's bus (queued messages hold it), then tears @h down. */
void test_harness_teardown (GstHarness * h);
/* "message (debug)" of the element's next error, or "no error message". */
gchar *test_pop_error_text (GstHarness * h);
/* Pushes a ref of @buf, pulls the output; a failure names @desc and why. */
GstBuffer *test_push_and_pull (GstHarness * h, GstBuffer * buf,
    const gchar * desc);
/* The element messages queued on the element's bus, oldest first. */
GList *test_pop_element_messages (GstHarness * h);
/* The context @element answers to a query on its pad @pad_name (a ref). */
GstClContext *test_element_cl_context (GstElement * element,
    const gchar * pad_name);

/* @size bytes of @fill (at *@data if given) ending at an inaccessible page. */
GstMemory *test_guarded_memory_new (gsize size, GstMemoryFlags flags,
    guint8 fill, guint8 ** data);
/* xorshift32: reproducible from the seed printed on failure. */
guint32 test_rng_next (guint32 * state);
/* A seed of its own for case @n of @what. */
guint32 test_seed (const gchar * what, guint n);
/* @size random bytes from @rng, a 32-bit draw per four bytes. */
void test_fill_random (guint8 * data, gsize size, guint32 * rng);

G_END_DECLS
