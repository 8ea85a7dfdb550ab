/* gst-clvideo: the on-disk cache of built programs
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * A cache file damaged in any way (truncated at every length of the
 * header and within the payload, any byte of the header flipped, bytes of
 * the payload flipped, another magic or format version, a binary that
 * verifies but that the driver refuses, a directory in its place) must
 * leave a working element, whose output is that of a pipeline without a
 * cache, and a valid file that the next pipeline builds from. A missing
 * or unwritable directory is no error, and pipelines that start at once,
 * in threads or in processes, share one valid file.
 *
 * Each test sets GST_CL_CACHE_DIR to a directory of its own (the suite
 * turns the cache off) and gives its pipelines a new GstClContext each,
 * whose count of programs taken from the cache tells whether the file was
 * used.
 */
#include <gst/check/gstcheck.h>
#include <glib/gstdio.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <gst/cl/gstclcontext.h>
#include <gst/cl/gstclprogram-private.h>
#include <gst/cl/gstclbinarycache-private.h>
#include "testutil.h"

#define RUN_TIMEOUT (60 * GST_SECOND)
#define SMOOTH_CHILD_ARG "--smooth-child"

/* clsmooth builds one program; the zone plate's fine detail makes a
 * wrongly built kernel show in the output */
#define SMOOTH_PIPELINE "videotestsrc num-buffers=2 pattern=zone-plate " \
    "kx2=20 ky2=20 kt=1 ! video/x-raw,format=RGBx,width=64,height=48 " \
    "! clsmooth ! fakesink name=out signal-handoffs=true sync=false"

/* argv[0], for the processes of test_concurrent_processes */
static const gchar *self_path;

/* ---- running clsmooth ---- */

static void
append_output (GstElement * sink G_GNUC_UNUSED, GstBuffer * buf,
    GstPad * pad G_GNUC_UNUSED, GByteArray * out)
{
  GstMapInfo map;

  if (gst_buffer_map (buf, &map, GST_MAP_READ)) {
    g_byte_array_append (out, map.data, map.size);
    gst_buffer_unmap (buf, &map);
  }
}

/* Runs SMOOTH_PIPELINE with a new context to the end. Returns NULL and
 * the output and the count of programs the context took from the cache,
 * or the reason it failed (no assertions: threads call it). */
static gchar *
run_smooth (GBytes ** output, guint * from_cache)
{
  GError *error = NULL;
  GstClContext *ctx = gst_cl_context_new (NULL, &error);
  GstElement *pipeline, *sink;
  GstContext *context;
  GByteArray *out;
  GstBus *bus;
  GstMessage *msg;
  gchar *failure = NULL;

  if (!ctx) {
    failure = g_strdup_printf ("no context: %s", error->message);
    g_error_free (error);
    return failure;
  }
  pipeline = gst_parse_launch (SMOOTH_PIPELINE, &error);
  if (!pipeline) {
    failure = g_strdup_printf ("%s: %s", SMOOTH_PIPELINE, error->message);
    g_error_free (error);
    gst_object_unref (ctx);
    return failure;
  }
  context = gst_context_new_cl_context (ctx);
  gst_element_set_context (pipeline, context);
  gst_context_unref (context);
  out = g_byte_array_new ();
  sink = gst_bin_get_by_name (GST_BIN (pipeline), "out");
  g_signal_connect (sink, "handoff", G_CALLBACK (append_output), out);
  gst_object_unref (sink);

  bus = gst_element_get_bus (pipeline);
  gst_element_set_state (pipeline, GST_STATE_PLAYING);
  msg = gst_bus_timed_pop_filtered (bus, RUN_TIMEOUT,
      GST_MESSAGE_EOS | GST_MESSAGE_ERROR);
  if (!msg) {
    failure = g_strdup ("no end of stream in time");
  } else if (GST_MESSAGE_TYPE (msg) == GST_MESSAGE_ERROR) {
    gst_message_parse_error (msg, &error, NULL);
    failure = g_strdup (error->message);
    g_error_free (error);
  }
  if (msg)
    gst_message_unref (msg);
  gst_object_unref (bus);
  gst_element_set_state (pipeline, GST_STATE_NULL);
  gst_object_unref (pipeline);

  *from_cache = gst_cl_context_get_programs_from_cache (ctx);
  gst_object_unref (ctx);
  *output = g_byte_array_free_to_bytes (out);
  return failure;
}

/* Runs clsmooth; asserts that it works, that its output is @reference
 * (when given) and that it took @from_cache programs from the cache. */
static GBytes *
run_smooth_checked (GBytes * reference, guint from_cache)
{
  GBytes *output = NULL;
  guint n = 0;
  gchar *failure = run_smooth (&output, &n);

  fail_unless (failure == NULL, "clsmooth: %s", failure);
  fail_unless (g_bytes_get_size (output) > 0);
  if (reference)
    fail_unless (g_bytes_equal (output, reference),
        "clsmooth's output differs from the one without a cache");
  fail_unless_equals_int (n, from_cache);
  return output;
}

/* clsmooth's output with the cache off */
static GBytes *
reference_output (void)
{
  gchar *saved = g_strdup (g_getenv (GST_CL_CACHE_DIR_ENV));
  GBytes *output;

  g_setenv (GST_CL_CACHE_DIR_ENV, "", TRUE);
  output = run_smooth_checked (NULL, 0);
  test_restore_env (GST_CL_CACHE_DIR_ENV, saved);
  return output;
}

/* ---- warnings of the cache ---- */

static gint cache_warnings;

static void
count_cache_warnings (GstDebugCategory * category, GstDebugLevel level,
    const gchar * file G_GNUC_UNUSED, const gchar * function G_GNUC_UNUSED,
    gint line G_GNUC_UNUSED, GObject * object G_GNUC_UNUSED,
    GstDebugMessage * message G_GNUC_UNUSED, gpointer user_data G_GNUC_UNUSED)
{
  if (level == GST_LEVEL_WARNING &&
      g_str_equal (gst_debug_category_get_name (category), "clbinarycache"))
    g_atomic_int_inc (&cache_warnings);
}

/* Counts the cache's warnings from now on (each test has a process). */
static void
watch_cache_warnings (void)
{
  gst_debug_set_active (TRUE);
  gst_debug_set_threshold_for_name ("clbinarycache", GST_LEVEL_WARNING);
  gst_debug_add_log_function (count_cache_warnings, NULL, NULL);
  g_atomic_int_set (&cache_warnings, 0);
}

/* the cache's warnings since the last call */
static gint
take_cache_warnings (void)
{
  return g_atomic_int_and (&cache_warnings, 0);
}

/* ---- cache directories ---- */

/* A new empty directory, made GST_CL_CACHE_DIR. */
static gchar *
cache_dir_new (void)
{
  gchar *dir = g_dir_make_tmp ("clvideo-binarycache-XXXXXX", NULL);

  fail_unless (dir != NULL);
  g_setenv (GST_CL_CACHE_DIR_ENV, dir, TRUE);
  return dir;
}

/* Removes @path, a file or a tree of them, and frees it. */
static void
remove_tree (gchar * path)
{
  if (g_file_test (path, G_FILE_TEST_IS_DIR)) {
    GDir *d = g_dir_open (path, 0, NULL);
    const gchar *name;

    fail_unless (g_chmod (path, 0700) == 0);
    while (d && (name = g_dir_read_name (d)))
      remove_tree (g_build_filename (path, name, NULL));
    if (d)
      g_dir_close (d);
    g_rmdir (path);
  } else {
    g_unlink (path);
  }
  g_free (path);
}

/* the names in @dir, sorted, joined by spaces */
static gchar *
dir_listing (const gchar * dir)
{
  GDir *d = g_dir_open (dir, 0, NULL);
  GPtrArray *names = g_ptr_array_new_with_free_func (g_free);
  const gchar *name;
  gchar *text;

  fail_unless (d != NULL, "cannot list %s", dir);
  while ((name = g_dir_read_name (d)))
    g_ptr_array_add (names, g_strdup (name));
  g_dir_close (d);
  g_ptr_array_sort (names, (GCompareFunc) g_strcmp0);
  g_ptr_array_add (names, NULL);
  text = g_strjoinv (" ", (gchar **) names->pdata);
  g_ptr_array_unref (names);
  return text;
}

/* Asserts that @path is a cache file that verifies. */
static void
assert_valid_cache_file (const gchar * path)
{
  gchar *data = NULL;
  gsize size = 0, payload_size = 0;
  const gchar *reason = NULL;

  fail_unless (g_file_test (path, G_FILE_TEST_IS_REGULAR),
      "%s is no file", path);
  fail_unless (g_file_get_contents (path, &data, &size, NULL));
  fail_unless (gst_cl_binary_cache_parse ((const guint8 *) data, size,
          &payload_size, &reason) != NULL, "%s: %s", path, reason);
  fail_unless_equals_int (payload_size + GST_CL_BINARY_CACHE_HEADER_SIZE,
      size);
  g_free (data);
}

/* The one file in @dir, a valid cache file: no temporary file is left
 * beside it. */
static gchar *
only_cache_file (const gchar * dir)
{
  gchar *listing = dir_listing (dir);
  gchar *path;

  fail_unless (g_str_has_suffix (listing, ".bin") && !strchr (listing, ' '),
      "%s holds '%s'", dir, listing);
  path = g_build_filename (dir, listing, NULL);
  g_free (listing);
  assert_valid_cache_file (path);
  return path;
}

/* Runs clsmooth twice: the first builds from source and leaves a valid
 * file in @dir, which the second takes, with no warning. Returns the
 * cache's warnings during the first. */
static gint
check_stored_and_taken (const gchar * dir, GBytes * reference)
{
  gint warnings;

  g_bytes_unref (run_smooth_checked (reference, 0));
  warnings = take_cache_warnings ();
  g_free (only_cache_file (dir));
  g_bytes_unref (run_smooth_checked (reference, 1));
  fail_unless_equals_int (take_cache_warnings (), 0);
  return warnings;
}

/* ---- damaged files ---- */

typedef enum
{
  DAMAGE_TRUNCATE,              /* the file cut to @arg bytes */
  DAMAGE_FLIP,                  /* the byte at @arg inverted */
  DAMAGE_MAGIC,                 /* another magic */
  DAMAGE_VERSION,               /* format version @arg */
  DAMAGE_HEADERLESS,            /* the payload alone */
  DAMAGE_REFUSED_PAYLOAD,       /* a verified file of no binary */
  DAMAGE_EMPTY_PAYLOAD,         /* a verified header of nothing */
  DAMAGE_EMPTY_DIRECTORY,       /* an empty directory in the file's place */
} DamageKind;

static void
write_file (const gchar * path, gconstpointer data, gsize size)
{
  GError *error = NULL;

  fail_unless (g_file_set_contents (path, data, size, &error), "%s: %s",
      path, error ? error->message : "");
}

/* Damages the valid cache file @path (@data of @size bytes) as @kind and
 * @arg say; returns what the damage was, for messages. */
static gchar *
damage_cache_file (const gchar * path, guint8 * data, gsize size,
    DamageKind kind, gsize arg)
{
  const guint8 *payload = data + GST_CL_BINARY_CACHE_HEADER_SIZE;
  gsize payload_size = size - GST_CL_BINARY_CACHE_HEADER_SIZE;
  static const gchar refused[] = "not a program binary";
  guint32 version = GUINT32_TO_LE ((guint32) arg);
  guint8 *packed;
  gsize packed_size;

  switch (kind) {
    case DAMAGE_TRUNCATE:
      write_file (path, data, arg);
      return g_strdup_printf ("cut to %" G_GSIZE_FORMAT " of %"
          G_GSIZE_FORMAT " bytes", arg, size);
    case DAMAGE_FLIP:
      data[arg] ^= 0xff;
      write_file (path, data, size);
      return g_strdup_printf ("byte %" G_GSIZE_FORMAT " of %" G_GSIZE_FORMAT
          " flipped", arg, size);
    case DAMAGE_MAGIC:
      data[0] = 'X';
      write_file (path, data, size);
      return g_strdup ("another magic");
    case DAMAGE_VERSION:
      /* the version follows the 8-byte magic */
      memcpy (data + 8, &version, sizeof (version));
      write_file (path, data, size);
      return g_strdup_printf ("format version %" G_GSIZE_FORMAT, arg);
    case DAMAGE_HEADERLESS:
      /* as the cache wrote files before they had a header */
      write_file (path, payload, payload_size);
      return g_strdup ("the payload without a header");
    case DAMAGE_REFUSED_PAYLOAD:
    case DAMAGE_EMPTY_PAYLOAD:
      packed = gst_cl_binary_cache_pack ((const guint8 *) refused,
          kind == DAMAGE_REFUSED_PAYLOAD ? strlen (refused) : 0,
          &packed_size);
      write_file (path, packed, packed_size);
      g_free (packed);
      return g_strdup (kind == DAMAGE_REFUSED_PAYLOAD ?
          "a verified file whose payload is no binary" :
          "a verified header of an empty payload");
    case DAMAGE_EMPTY_DIRECTORY:
      fail_unless (g_unlink (path) == 0 && g_mkdir (path, 0700) == 0);
      return g_strdup ("an empty directory");
  }
  g_assert_not_reached ();
  return NULL;
}

/* The damage @kind, @arg does to a file, and that a pipeline after it
 * works as one without a cache, leaves a valid file and that the next
 * pipeline builds from it. @payload_fraction: @arg is taken as a fraction
 * (of 1000) of the payload, from its start. */
static void
check_damage_recovers (DamageKind kind, gsize arg, gboolean payload_fraction)
{
  GBytes *reference = reference_output ();
  gchar *dir = cache_dir_new ();
  gchar *path, *data, *what;
  gsize size;

  watch_cache_warnings ();
  /* the first pipeline builds from source and stores */
  g_bytes_unref (run_smooth_checked (reference, 0));
  path = only_cache_file (dir);
  fail_unless (g_file_get_contents (path, &data, &size, NULL));
  fail_unless_equals_int (take_cache_warnings (), 0);

  if (payload_fraction) {
    gsize payload_size = size - GST_CL_BINARY_CACHE_HEADER_SIZE;
    gsize offset = MIN (payload_size * arg / 1000, payload_size - 1);
    /* a cut keeps a byte of the payload at least: no cut at 0 */
    if (kind == DAMAGE_TRUNCATE)
      offset = MAX (offset, 1);
    arg = GST_CL_BINARY_CACHE_HEADER_SIZE + offset;
  }
  what = damage_cache_file (path, (guint8 *) data, size, kind, arg);
  GST_INFO ("cache file %s", what);

  /* the damaged file is discarded, with a warning, and replaced */
  fail_unless (check_stored_and_taken (dir, reference) > 0,
      "no warning of a file %s", what);

  g_free (what);
  g_free (data);
  g_free (path);
  remove_tree (dir);
  g_bytes_unref (reference);
}

/* Case @i: every length of the header, then within the payload (in
 * thousandths of it: 1 byte, a quarter, ..., all but its last byte). */
static const guint payload_cuts[] = { 0, 250, 500, 750, 1000 };

GST_START_TEST (test_truncated)
{
  if (__i__ <= GST_CL_BINARY_CACHE_HEADER_SIZE)
    check_damage_recovers (DAMAGE_TRUNCATE, __i__, FALSE);
  else
    check_damage_recovers (DAMAGE_TRUNCATE,
        payload_cuts[__i__ - GST_CL_BINARY_CACHE_HEADER_SIZE - 1], TRUE);
}

GST_END_TEST;

/* Case @i: every byte of the header, then bytes of the payload (in
 * thousandths of it: the first, the middle, the last). */
static const guint payload_flips[] = { 0, 500, 1000 };

GST_START_TEST (test_flipped)
{
  if (__i__ < GST_CL_BINARY_CACHE_HEADER_SIZE)
    check_damage_recovers (DAMAGE_FLIP, __i__, FALSE);
  else
    check_damage_recovers (DAMAGE_FLIP,
        payload_flips[__i__ - GST_CL_BINARY_CACHE_HEADER_SIZE], TRUE);
}

GST_END_TEST;

static const struct
{
  DamageKind kind;
  gsize arg;
} format_cases[] = {
  {DAMAGE_MAGIC, 0},
  {DAMAGE_VERSION, 0},
  {DAMAGE_VERSION, GST_CL_BINARY_CACHE_VERSION + 1},
  {DAMAGE_VERSION, G_MAXUINT32},
  {DAMAGE_HEADERLESS, 0},
  {DAMAGE_REFUSED_PAYLOAD, 0},
  {DAMAGE_EMPTY_PAYLOAD, 0},
  {DAMAGE_EMPTY_DIRECTORY, 0},
};

GST_START_TEST (test_wrong_format)
{
  check_damage_recovers (format_cases[__i__].kind, format_cases[__i__].arg,
      FALSE);
}

GST_END_TEST;

/* A directory that holds something where the file belongs is left alone:
 * the element still works, from source each time. */
GST_START_TEST (test_occupied_directory)
{
  GBytes *reference = reference_output ();
  gchar *dir = cache_dir_new ();
  gchar *path, *inner;

  watch_cache_warnings ();
  g_bytes_unref (run_smooth_checked (reference, 0));
  path = only_cache_file (dir);
  fail_unless (g_unlink (path) == 0 && g_mkdir (path, 0700) == 0);
  inner = g_build_filename (path, "keep", NULL);
  write_file (inner, "x", 1);

  g_bytes_unref (run_smooth_checked (reference, 0));
  g_bytes_unref (run_smooth_checked (reference, 0));
  fail_unless (take_cache_warnings () > 0);
  fail_unless (g_file_test (inner, G_FILE_TEST_IS_REGULAR));

  g_free (inner);
  g_free (path);
  remove_tree (dir);
  g_bytes_unref (reference);
}

GST_END_TEST;

/* ---- directories the cache cannot use ---- */

/* Runs clsmooth twice with GST_CL_CACHE_DIR @dir, which cannot be
 * written: both work, from source, with no warning. */
static void
check_unusable_dir (const gchar * dir, GBytes * reference)
{
  g_setenv (GST_CL_CACHE_DIR_ENV, dir, TRUE);
  g_bytes_unref (run_smooth_checked (reference, 0));
  g_bytes_unref (run_smooth_checked (reference, 0));
  fail_unless_equals_int (take_cache_warnings (), 0);
}

GST_START_TEST (test_unwritable_dir)
{
  GBytes *reference = reference_output ();
  gchar *dir = cache_dir_new ();
  gchar *file = g_build_filename (dir, "file", NULL);
  gchar *below_file = g_build_filename (file, "cache", NULL);
  gchar *read_only = g_build_filename (dir, "read-only", NULL);
  gchar *missing = g_build_filename (dir, "missing", "cache", NULL);
  gchar *listing;

  watch_cache_warnings ();
  /* a directory that cannot be made: its parent is a file */
  write_file (file, "x", 1);
  check_unusable_dir (below_file, reference);

  /* one that the user may not write (root may: then it is used) */
  fail_unless (g_mkdir (read_only, 0500) == 0);
  if (geteuid () != 0) {
    check_unusable_dir (read_only, reference);
    listing = dir_listing (read_only);
    fail_unless_equals_string (listing, "");
    g_free (listing);
  }
  /* one that nobody may write, root included */
  check_unusable_dir ("/proc", reference);

  /* a missing directory is made, and used */
  g_setenv (GST_CL_CACHE_DIR_ENV, missing, TRUE);
  fail_unless_equals_int (check_stored_and_taken (missing, reference), 0);

  g_free (missing);
  g_free (read_only);
  g_free (below_file);
  g_free (file);
  remove_tree (dir);
  g_bytes_unref (reference);
}

GST_END_TEST;

/* ---- pipelines that start at once ---- */

#define CONCURRENT_ROUNDS 4
#define CONCURRENT_RUNS 3

typedef struct
{
  GThread *thread;
  GBytes *output;
  guint from_cache;
  gchar *failure;
} SmoothThread;

static gpointer
smooth_thread (gpointer data)
{
  SmoothThread *t = data;

  t->failure = run_smooth (&t->output, &t->from_cache);
  return NULL;
}

/* Threads, each with a context of its own, build clsmooth's program at
 * once into an empty cache, round after round: all work, and one valid
 * file is left, with no temporary file beside it. */
GST_START_TEST (test_concurrent_threads)
{
  GBytes *reference = reference_output ();
  gchar *dir = cache_dir_new ();
  SmoothThread threads[CONCURRENT_RUNS];
  guint round, i;

  watch_cache_warnings ();
  for (round = 0; round < CONCURRENT_ROUNDS; round++) {
    for (i = 0; i < CONCURRENT_RUNS; i++) {
      memset (&threads[i], 0, sizeof (threads[i]));
      threads[i].thread = g_thread_new ("smooth", smooth_thread, &threads[i]);
    }
    for (i = 0; i < CONCURRENT_RUNS; i++) {
      g_thread_join (threads[i].thread);
      fail_unless (threads[i].failure == NULL, "round %u, thread %u: %s",
          round, i, threads[i].failure);
      fail_unless (g_bytes_equal (threads[i].output, reference),
          "round %u, thread %u: output differs", round, i);
      g_bytes_unref (threads[i].output);
    }
    g_free (only_cache_file (dir));
    /* a file that was read while it was written would be discarded */
    fail_unless_equals_int (take_cache_warnings (), 0);
    /* every other round starts from an empty cache */
    if (round % 2 == 0)
      remove_tree (only_cache_file (dir));
  }
  g_bytes_unref (run_smooth_checked (reference, 1));

  remove_tree (dir);
  g_bytes_unref (reference);
}

GST_END_TEST;

/* The same with processes: each writes clsmooth's output to a file. */
GST_START_TEST (test_concurrent_processes)
{
  GBytes *reference = reference_output ();
  gchar *dir = cache_dir_new ();
  GPid pids[CONCURRENT_RUNS];
  gchar *outputs[CONCURRENT_RUNS];
  guint round, i;

  for (i = 0; i < CONCURRENT_RUNS; i++)
    outputs[i] = g_strdup_printf ("%s.output%u", dir, i);
  for (round = 0; round < CONCURRENT_ROUNDS; round++) {
    for (i = 0; i < CONCURRENT_RUNS; i++) {
      gchar *argv[] = { (gchar *) self_path, (gchar *) SMOOTH_CHILD_ARG,
        outputs[i], NULL
      };
      GError *error = NULL;
      fail_unless (g_spawn_async (NULL, argv, NULL,
              G_SPAWN_DO_NOT_REAP_CHILD, NULL, NULL, &pids[i], &error),
          "%s: %s", self_path, error ? error->message : "");
    }
    for (i = 0; i < CONCURRENT_RUNS; i++) {
      gint status = 0;
      gchar *data;
      gsize size;
      fail_unless (waitpid (pids[i], &status, 0) == pids[i]);
      g_spawn_close_pid (pids[i]);
      fail_unless (WIFEXITED (status) && WEXITSTATUS (status) == 0,
          "round %u, process %u ended with status 0x%x", round, i, status);
      fail_unless (g_file_get_contents (outputs[i], &data, &size, NULL));
      fail_unless (size == g_bytes_get_size (reference) &&
          memcmp (data, g_bytes_get_data (reference, NULL), size) == 0,
          "round %u, process %u: output differs", round, i);
      g_free (data);
    }
    g_free (only_cache_file (dir));
    if (round % 2 == 0)
      remove_tree (only_cache_file (dir));
  }
  g_bytes_unref (run_smooth_checked (reference, 1));

  for (i = 0; i < CONCURRENT_RUNS; i++) {
    g_unlink (outputs[i]);
    g_free (outputs[i]);
  }
  remove_tree (dir);
  g_bytes_unref (reference);
}

GST_END_TEST;

/* The process of test_concurrent_processes: clsmooth's output to @path,
 * exit status 0 when the pipeline worked and the cache had no warning. */
static int
smooth_child (const gchar * path)
{
  GBytes *output = NULL;
  guint from_cache = 0;
  gchar *failure;
  gboolean written;

  gst_init (NULL, NULL);
  watch_cache_warnings ();
  failure = run_smooth (&output, &from_cache);
  if (failure) {
    g_printerr ("%s\n", failure);
    return 1;
  }
  if (take_cache_warnings () > 0) {
    g_printerr ("the cache warned\n");
    return 1;
  }
  written = g_file_set_contents (path, g_bytes_get_data (output, NULL),
      g_bytes_get_size (output), NULL);
  g_bytes_unref (output);
  return written ? 0 : 1;
}

/* ---- entries, through a context ---- */

#define CACHE_TEST_KERNEL "__kernel void fill (__global int * out)\n" \
    "{\n  out[get_global_id (0)] = SCALE * (int) get_global_id (0) + 7;\n}\n"

/* A new context builds the "cachetest" program (from the cache or not,
 * as @from_cache says), runs it and checks what it wrote. */
static void
run_cache_test_kernel (gboolean from_cache)
{
  GError *error = NULL;
  GstClContext *ctx = gst_cl_context_new (NULL, &error);
  cl_kernel kernel;
  cl_mem buf;
  cl_int ret, out[64];
  size_t n = G_N_ELEMENTS (out);
  guint i;

  fail_unless (ctx != NULL, "%s", error ? error->message : "");
  kernel = gst_cl_context_create_kernel (ctx, "cachetest", "-DSCALE=3",
      "fill", &error);
  fail_unless (kernel != NULL, "%s", error ? error->message : "");
  fail_unless_equals_int (gst_cl_context_get_programs_from_cache (ctx),
      from_cache ? 1 : 0);
  buf = clCreateBuffer (ctx->context, CL_MEM_WRITE_ONLY, sizeof (out), NULL,
      &ret);
  fail_unless_equals_int (ret, CL_SUCCESS);
  fail_unless_equals_int (clSetKernelArg (kernel, 0, sizeof (buf), &buf),
      CL_SUCCESS);
  fail_unless (gst_cl_context_enqueue_kernel (ctx, kernel, "cachetest", 1, &n,
          NULL, &error), "%s", error ? error->message : "");
  fail_unless_equals_int (clEnqueueReadBuffer (ctx->queue, buf, CL_TRUE, 0,
          sizeof (out), out, 0, NULL, NULL), CL_SUCCESS);
  for (i = 0; i < n; i++)
    fail_unless_equals_int (out[i], 3 * (gint) i + 7);
  fail_unless_equals_int (clReleaseMemObject (buf), CL_SUCCESS);
  fail_unless_equals_int (clReleaseKernel (kernel), CL_SUCCESS);
  gst_object_unref (ctx);
}

/* A built program's binary is kept on disk and used by the next context;
 * another source makes another entry, and an empty GST_CL_CACHE_DIR turns
 * the cache off. */
GST_START_TEST (test_cache_entries)
{
  gchar *kernels = g_dir_make_tmp ("clvideo-kernels-XXXXXX", NULL);
  gchar *cache = cache_dir_new ();
  gchar *source = g_build_filename (kernels, "cachetest.cl", NULL);
  gchar *first, *listing, **names, **name;

  g_setenv (GST_CL_KERNEL_DIR_ENV, kernels, TRUE);
  write_file (source, CACHE_TEST_KERNEL, strlen (CACHE_TEST_KERNEL));

  /* an empty cache: built from source, then stored */
  run_cache_test_kernel (FALSE);
  first = only_cache_file (cache);
  /* the next context takes the binary */
  run_cache_test_kernel (TRUE);

  /* another source (a comment more) is another entry */
  write_file (source, CACHE_TEST_KERNEL "// v2\n",
      strlen (CACHE_TEST_KERNEL "// v2\n"));
  run_cache_test_kernel (FALSE);
  run_cache_test_kernel (TRUE);
  listing = dir_listing (cache);
  names = g_strsplit (listing, " ", -1);
  fail_unless_equals_int (g_strv_length (names), 2);
  for (name = names; *name; name++) {
    gchar *path = g_build_filename (cache, *name, NULL);
    assert_valid_cache_file (path);
    g_free (path);
  }
  fail_unless (g_str_has_suffix (first, names[0]) ||
      g_str_has_suffix (first, names[1]));

  /* off: always from source */
  g_setenv (GST_CL_CACHE_DIR_ENV, "", TRUE);
  run_cache_test_kernel (FALSE);

  g_strfreev (names);
  g_free (listing);
  g_free (first);
  g_free (source);
  remove_tree (cache);
  remove_tree (kernels);
}

GST_END_TEST;

/* Where the cache is kept without GST_CL_CACHE_DIR: under the user's cache
 * directory, except on POCL while its own kernel cache is on (ours would
 * make POCL compile every kernel once more); a directory named keeps it on
 * there too. The platform's name read here, apart from the library. */
GST_START_TEST (test_default_directory)
{
  GError *error = NULL;
  GstClContext *ctx = gst_cl_context_new (NULL, &error);
  gchar *saved_dir = g_strdup (g_getenv (GST_CL_CACHE_DIR_ENV));
  gchar *saved_pocl = g_strdup (g_getenv ("POCL_KERNEL_CACHE"));
  gchar *xdg = g_build_filename (g_get_user_cache_dir (), "gst-clvideo",
      NULL);
  cl_platform_id platform;
  gchar name[256] = "", *path;
  gboolean pocl;

  fail_unless (ctx != NULL, "%s", error ? error->message : "");
  fail_unless_equals_int (clGetDeviceInfo (ctx->device, CL_DEVICE_PLATFORM,
          sizeof (platform), &platform, NULL), CL_SUCCESS);
  fail_unless_equals_int (clGetPlatformInfo (platform, CL_PLATFORM_NAME,
          sizeof (name) - 1, name, NULL), CL_SUCCESS);
  pocl = strcmp (name, "Portable Computing Language") == 0;

  g_unsetenv (GST_CL_CACHE_DIR_ENV);
  g_unsetenv ("POCL_KERNEL_CACHE");
  path = gst_cl_binary_cache_path (ctx->device, "source", "-DX=1");
  if (pocl) {
    fail_unless (path == NULL, "a cache on POCL: %s", path);
  } else {
    fail_unless (path != NULL);
    fail_unless (g_str_has_prefix (path, xdg), "%s", path);
  }
  g_free (path);

  /* POCL's own cache off: ours is on */
  g_setenv ("POCL_KERNEL_CACHE", "0", TRUE);
  path = gst_cl_binary_cache_path (ctx->device, "source", "-DX=1");
  fail_unless (path != NULL);
  fail_unless (g_str_has_prefix (path, xdg), "%s", path);
  g_free (path);

  /* a directory named: on, there */
  g_unsetenv ("POCL_KERNEL_CACHE");
  g_setenv (GST_CL_CACHE_DIR_ENV, "/somewhere/else", TRUE);
  path = gst_cl_binary_cache_path (ctx->device, "source", "-DX=1");
  fail_unless (path != NULL);
  fail_unless (g_str_has_prefix (path, "/somewhere/else/"), "%s", path);
  g_free (path);

  test_restore_env ("POCL_KERNEL_CACHE", saved_pocl);
  test_restore_env (GST_CL_CACHE_DIR_ENV, saved_dir);
  g_free (xdg);
  gst_object_unref (ctx);
}

GST_END_TEST;

static Suite *
binarycache_suite (void)
{
  Suite *s = suite_create ("binarycache");
  TCase *tc = test_suite_add_case (s);

  tcase_add_loop_test (tc, test_truncated, 0,
      GST_CL_BINARY_CACHE_HEADER_SIZE + 1 + G_N_ELEMENTS (payload_cuts));
  tcase_add_loop_test (tc, test_flipped, 0,
      GST_CL_BINARY_CACHE_HEADER_SIZE + G_N_ELEMENTS (payload_flips));
  tcase_add_loop_test (tc, test_wrong_format, 0,
      G_N_ELEMENTS (format_cases));
  tcase_add_test (tc, test_occupied_directory);
  tcase_add_test (tc, test_unwritable_dir);
  tcase_add_test (tc, test_concurrent_threads);
  tcase_add_test (tc, test_concurrent_processes);
  tcase_add_test (tc, test_cache_entries);
  tcase_add_test (tc, test_default_directory);
  return s;
}

int
main (int argc, char **argv)
{
  if (argc == 3 && strcmp (argv[1], SMOOTH_CHILD_ARG) == 0)
    return smooth_child (argv[2]);

  self_path = argv[0];
  gst_check_init (&argc, &argv);
  return gst_check_run_suite (binarycache_suite (), "binarycache", __FILE__);
}
