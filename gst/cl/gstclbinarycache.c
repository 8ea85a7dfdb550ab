/* gst-clvideo: on-disk cache of built OpenCL programs
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * Building a program from source costs a driver's front end every time
 * a pipeline starts: NVIDIA's compiles the source again (its own cache
 * keeps only the GPU code made from the PTX). The binary a driver returns
 * for a built program is kept here and given back to it next time. Not on
 * POCL by default (driver_caches_kernels): its own cache saves all but
 * the preprocessing that finds its entries, about 25 ms a program, and
 * the binary it hands out costs a second compilation of every kernel.
 */
#include "gstclbinarycache-private.h"
#include <gst/cl/gstclerror.h>

#include <errno.h>
#include <string.h>
#include <glib/gstdio.h>

GST_DEBUG_CATEGORY_STATIC (gst_cl_binary_cache_debug);
#define GST_CAT_DEFAULT gst_cl_binary_cache_debug

static void
init_debug (void)
{
  static gsize done = 0;
  if (g_once_init_enter (&done)) {
    GST_DEBUG_CATEGORY_INIT (gst_cl_binary_cache_debug, "clbinarycache", 0,
        "On-disk cache of built OpenCL programs");
    g_once_init_leave (&done, 1);
  }
}

/* clGetPlatformInfo of @platform, or clGetDeviceInfo of @device when
 * @platform is NULL */
static cl_int
get_info (cl_platform_id platform, cl_device_id device, cl_uint param,
    size_t size, void *value, size_t * size_ret)
{
  return platform ? clGetPlatformInfo (platform, param, size, value,
      size_ret) : clGetDeviceInfo (device, param, size, value, size_ret);
}

/* a string property of the device (@platform: of its platform), "" when
 * it cannot be read */
static gchar *
device_string (cl_device_id device, cl_uint param, gboolean platform)
{
  cl_platform_id p = NULL;
  size_t size = 0;
  gchar *text;
  cl_int ret = CL_SUCCESS;

  if (platform)
    ret = clGetDeviceInfo (device, CL_DEVICE_PLATFORM, sizeof (p), &p, NULL);
  if (ret != CL_SUCCESS) {
    GST_WARNING ("clGetDeviceInfo (CL_DEVICE_PLATFORM): %s",
        gst_cl_error_name (ret));
    return g_strdup ("");
  }
  ret = get_info (p, device, param, 0, NULL, &size);
  text = g_malloc0 (size + 1);
  if (ret == CL_SUCCESS)
    ret = get_info (p, device, param, size, text, NULL);
  if (ret != CL_SUCCESS) {
    GST_WARNING ("%s (0x%x): %s", platform ? "clGetPlatformInfo" :
        "clGetDeviceInfo", param, gst_cl_error_name (ret));
    text[0] = '\0';
  }
  return text;
}

/* Whether @device's driver keeps what it compiles in a cache of its own,
 * where ours costs more than it saves: POCL, asked for a program's binary,
 * compiles every kernel in it once more, for any work-group size, beside
 * the kernels it compiles and keeps for the launches. On 2 cores the first
 * clmpegenc pipeline took 15 to 18 s to start with this cache and 8 s
 * without; the later ones 0.11 s with it and 0.25 s with POCL's alone. */
static gboolean
driver_caches_kernels (cl_device_id device)
{
  const gchar *pocl_cache = g_getenv ("POCL_KERNEL_CACHE");
  gchar *platform;
  gboolean pocl;

  if (pocl_cache && g_strcmp0 (pocl_cache, "0") == 0)
    return FALSE;
  platform = device_string (device, CL_PLATFORM_NAME, TRUE);
  pocl = g_strcmp0 (platform, "Portable Computing Language") == 0;
  g_free (platform);
  return pocl;
}

gchar *
gst_cl_binary_cache_path (cl_device_id device, const gchar * source,
    const gchar * options)
{
  static const struct {
    cl_uint param;
    gboolean platform;
  } identity[] = {
    {CL_PLATFORM_NAME, TRUE}, {CL_PLATFORM_VERSION, TRUE},
    {CL_DEVICE_NAME, FALSE}, {CL_DEVICE_VERSION, FALSE},
    {CL_DRIVER_VERSION, FALSE},
  };
  const gchar *env = g_getenv (GST_CL_CACHE_DIR_ENV);
  GChecksum *sum;
  gchar *dir, *file, *path;
  guint i;

  init_debug ();
  if (env && !*env)
    return NULL;
  /* (a directory named keeps the cache on whatever the driver) */
  if (!env && driver_caches_kernels (device)) {
    GST_DEBUG ("no binary cache: the driver keeps its own kernel cache");
    return NULL;
  }
  sum = g_checksum_new (G_CHECKSUM_SHA256);
  for (i = 0; i < G_N_ELEMENTS (identity); i++) {
    gchar *s = device_string (device, identity[i].param,
        identity[i].platform);
    /* each part ends in a NUL, so that no two lists hash alike */
    g_checksum_update (sum, (const guchar *) s, strlen (s) + 1);
    g_free (s);
  }
  g_checksum_update (sum, (const guchar *) options, strlen (options) + 1);
  g_checksum_update (sum, (const guchar *) source, strlen (source));
  dir = env ? g_strdup (env) : g_build_filename (g_get_user_cache_dir (),
      "gst-clvideo", NULL);
  file = g_strconcat (g_checksum_get_string (sum), ".bin", NULL);
  path = g_build_filename (dir, file, NULL);
  g_checksum_free (sum);
  g_free (file);
  g_free (dir);
  return path;
}

/* The payload's digest is SHA-256, through GLib: no checksum code of our
 * own, and it catches any damage (truncation, a torn write, flipped bits)
 * where a CRC is only sure to catch short bursts. Its cost, about 1 ms per
 * 200 kB binary, is small next to the build it saves. It is no defence
 * against a forged file: whoever can write the cache directory can run
 * code as its owner anyway. */
#define DIGEST_TYPE G_CHECKSUM_SHA256
#define DIGEST_SIZE 32
#define MAGIC_SIZE 8
#define VERSION_OFFSET MAGIC_SIZE
#define LENGTH_OFFSET (VERSION_OFFSET + 4)
#define DIGEST_OFFSET (LENGTH_OFFSET + 8)

G_STATIC_ASSERT (sizeof (GST_CL_BINARY_CACHE_MAGIC) - 1 == MAGIC_SIZE);
G_STATIC_ASSERT (DIGEST_OFFSET + DIGEST_SIZE ==
    GST_CL_BINARY_CACHE_HEADER_SIZE);

static void
payload_digest (const guint8 * payload, gsize size, guint8 * digest)
{
  GChecksum *sum = g_checksum_new (DIGEST_TYPE);
  gsize digest_size = DIGEST_SIZE;

  /* g_checksum_update takes a gssize: feed a huge payload in pieces */
  while (size > 0) {
    gsize piece = MIN (size, (gsize) G_MAXSSIZE);
    g_checksum_update (sum, payload, piece);
    payload += piece;
    size -= piece;
  }
  g_checksum_get_digest (sum, digest, &digest_size);
  g_checksum_free (sum);
}

guint8 *
gst_cl_binary_cache_pack (const guint8 * payload, gsize payload_size,
    gsize * file_size)
{
  guint8 *data = g_malloc (GST_CL_BINARY_CACHE_HEADER_SIZE + payload_size);
  guint32 version = GUINT32_TO_LE (GST_CL_BINARY_CACHE_VERSION);
  guint64 length = GUINT64_TO_LE ((guint64) payload_size);

  memcpy (data, GST_CL_BINARY_CACHE_MAGIC, MAGIC_SIZE);
  memcpy (data + VERSION_OFFSET, &version, sizeof (version));
  memcpy (data + LENGTH_OFFSET, &length, sizeof (length));
  payload_digest (payload, payload_size, data + DIGEST_OFFSET);
  memcpy (data + GST_CL_BINARY_CACHE_HEADER_SIZE, payload, payload_size);
  *file_size = GST_CL_BINARY_CACHE_HEADER_SIZE + payload_size;
  return data;
}

const guint8 *
gst_cl_binary_cache_parse (const guint8 * data, gsize size,
    gsize * payload_size, const gchar ** reason)
{
  guint32 version;
  guint64 length;
  guint8 digest[DIGEST_SIZE];
  const gchar *why = NULL;

  if (size < GST_CL_BINARY_CACHE_HEADER_SIZE) {
    why = "shorter than the header";
  } else if (memcmp (data, GST_CL_BINARY_CACHE_MAGIC, MAGIC_SIZE) != 0) {
    why = "no magic (not a cache file)";
  } else {
    memcpy (&version, data + VERSION_OFFSET, sizeof (version));
    memcpy (&length, data + LENGTH_OFFSET, sizeof (length));
    version = GUINT32_FROM_LE (version);
    length = GUINT64_FROM_LE (length);
    if (version != GST_CL_BINARY_CACHE_VERSION) {
      why = "another format version";
    } else if (length != size - GST_CL_BINARY_CACHE_HEADER_SIZE) {
      why = "payload length differs from the file's (truncated?)";
    } else if (length == 0) {
      /* never written: a built program has a binary */
      why = "empty payload";
    } else {
      payload_digest (data + GST_CL_BINARY_CACHE_HEADER_SIZE, length,
          digest);
      if (memcmp (digest, data + DIGEST_OFFSET, DIGEST_SIZE) != 0)
        why = "payload checksum mismatch";
    }
  }
  if (reason)
    *reason = why;
  if (why)
    return NULL;
  *payload_size = size - GST_CL_BINARY_CACHE_HEADER_SIZE;
  return data + GST_CL_BINARY_CACHE_HEADER_SIZE;
}

/* The contents of the cache file at @path, NULL when there is none. An
 * empty directory in the file's place is removed, so that the next store
 * can put the file there. */
static gchar *
read_cache_file (const gchar * path, gsize * size)
{
  gchar *data = NULL;
  GError *error = NULL;

  if (g_file_get_contents (path, &data, size, &error))
    return data;
  /* no file, or no directory (its parent may be a file): no cache */
  if (g_error_matches (error, G_FILE_ERROR, G_FILE_ERROR_NOENT) ||
      g_error_matches (error, G_FILE_ERROR, G_FILE_ERROR_NOTDIR)) {
    GST_LOG ("no cache file %s: %s", path, error->message);
  } else if (g_file_test (path, G_FILE_TEST_IS_DIR) && g_rmdir (path) == 0) {
    GST_WARNING ("removed the empty directory %s, where a cache file "
        "belongs", path);
  } else {
    GST_WARNING ("cannot read %s: %s", path, error->message);
  }
  g_error_free (error);
  return NULL;
}

cl_program
gst_cl_binary_cache_load (cl_context context, cl_device_id device,
    const gchar * path, const gchar * options)
{
  gchar *data;
  gsize file_size = 0, payload_size = 0;
  size_t size;
  const unsigned char *bin;
  const gchar *reason = NULL;
  cl_program program;
  cl_int ret, status = CL_SUCCESS;

  init_debug ();
  data = read_cache_file (path, &file_size);
  if (!data)
    return NULL;
  /* a driver may crash on a damaged binary (POCL asserts on a truncated
   * one): only a file that verifies reaches it */
  bin = gst_cl_binary_cache_parse ((const guint8 *) data, file_size,
      &payload_size, &reason);
  if (!bin) {
    GST_WARNING ("discarding cache file %s (%" G_GSIZE_FORMAT " bytes): %s; "
        "building from source", path, file_size, reason);
    g_free (data);
    return NULL;
  }
  size = payload_size;
  program = clCreateProgramWithBinary (context, 1, &device, &size, &bin,
      &status, &ret);
  g_free (data);
  if (ret == CL_SUCCESS && status == CL_SUCCESS) {
    ret = clBuildProgram (program, 1, &device, options, NULL, NULL);
    if (ret == CL_SUCCESS) {
      GST_DEBUG ("program from %s", path);
      return program;
    }
    GST_WARNING ("clBuildProgram of the binary in %s: %s; building from "
        "source", path, gst_cl_error_name (ret));
  } else {
    GST_WARNING ("clCreateProgramWithBinary of %s: %s (binary status %s); "
        "building from source", path, gst_cl_error_name (ret),
        gst_cl_error_name (status));
  }
  /* the file is not removed: the binary built from source replaces it,
   * and a removal could take a good file that another process has just
   * renamed into place */
  if (program) {
    ret = clReleaseProgram (program);
    if (ret != CL_SUCCESS)
      GST_WARNING ("clReleaseProgram: %s", gst_cl_error_name (ret));
  }
  return NULL;
}

/* Writes @data to @path through a temporary file in the same directory
 * and a rename, so that a reader sees the old file or the new one, never
 * half of one. g_file_set_contents does just that; a crash before the
 * data reaches the disk may still leave a torn file, which the digest
 * catches. The binary holds nothing secret (it is built from the library's
 * own sources), so the file is readable by all as any cache's is. */
static gboolean
write_atomically (const gchar * path, const guint8 * data, gsize size,
    GError ** error)
{
#if GLIB_CHECK_VERSION (2, 66, 0)
  return g_file_set_contents_full (path, (const gchar *) data, size,
      G_FILE_SET_CONTENTS_CONSISTENT | G_FILE_SET_CONTENTS_ONLY_EXISTING,
      0644, error);
#else
  /* the same temporary file and rename, mode 0666 less the umask */
  return g_file_set_contents (path, (const gchar *) data, size, error);
#endif
}

void
gst_cl_binary_cache_store (cl_program program, const gchar * path)
{
  size_t size = 0;
  unsigned char *bin;
  guint8 *file;
  gsize file_size;
  gchar *dir;
  GError *error = NULL;
  cl_int ret;

  init_debug ();
  ret = clGetProgramInfo (program, CL_PROGRAM_BINARY_SIZES, sizeof (size),
      &size, NULL);
  if (ret != CL_SUCCESS || size == 0) {
    GST_INFO ("clGetProgramInfo (CL_PROGRAM_BINARY_SIZES): %s, %"
        G_GSIZE_FORMAT " bytes: nothing cached", gst_cl_error_name (ret),
        (gsize) size);
    return;
  }
  bin = g_malloc (size);
  ret = clGetProgramInfo (program, CL_PROGRAM_BINARIES, sizeof (bin), &bin,
      NULL);
  if (ret != CL_SUCCESS) {
    GST_INFO ("clGetProgramInfo (CL_PROGRAM_BINARIES): %s: nothing cached",
        gst_cl_error_name (ret));
    g_free (bin);
    return;
  }
  file = gst_cl_binary_cache_pack (bin, size, &file_size);
  g_free (bin);
  dir = g_path_get_dirname (path);
  /* a missing or unwritable directory only costs the next pipeline a
   * build from source */
  if (g_mkdir_with_parents (dir, 0700) != 0) {
    GST_DEBUG ("cannot create %s: %s: nothing cached", dir,
        g_strerror (errno));
  } else if (!write_atomically (path, file, file_size, &error)) {
    GST_DEBUG ("cannot write %s: %s: nothing cached", path, error->message);
    g_clear_error (&error);
  } else {
    GST_DEBUG ("cached %" G_GSIZE_FORMAT " bytes in %s", file_size, path);
  }
  g_free (dir);
  g_free (file);
}
