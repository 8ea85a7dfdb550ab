/* gst-clvideo: on-disk cache of built OpenCL programs
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * Building a program from source costs a driver's front end every time
 * a pipeline starts, even where the driver keeps its own cache (POCL
 * preprocesses the whole source to find its entry): about 25 ms a program
 * on a CPU, and a pipeline may build ten. The binary a driver returns for
 * a built program is kept here and given back to it next time.
 */
#include "gstclbinarycache.h"
#include "gstclerror.h"

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

cl_program
gst_cl_binary_cache_load (cl_context context, cl_device_id device,
    const gchar * path, const gchar * options)
{
  gchar *data = NULL;
  gsize len = 0;
  size_t size;
  const unsigned char *bin;
  cl_program program;
  cl_int ret, status = CL_SUCCESS;

  init_debug ();
  if (!g_file_get_contents (path, &data, &len, NULL))
    return NULL;
  size = len;
  bin = (const unsigned char *) data;
  program = clCreateProgramWithBinary (context, 1, &device, &size, &bin,
      &status, &ret);
  g_free (data);
  if (ret == CL_SUCCESS && status == CL_SUCCESS) {
    ret = clBuildProgram (program, 1, &device, options, NULL, NULL);
    if (ret == CL_SUCCESS) {
      GST_DEBUG ("program from %s", path);
      return program;
    }
    GST_INFO ("clBuildProgram of the binary in %s: %s; building from "
        "source", path, gst_cl_error_name (ret));
  } else {
    GST_INFO ("clCreateProgramWithBinary of %s: %s (binary status %s); "
        "building from source", path, gst_cl_error_name (ret),
        gst_cl_error_name (status));
  }
  if (program)
    clReleaseProgram (program);
  g_unlink (path);
  return NULL;
}

void
gst_cl_binary_cache_store (cl_program program, const gchar * path)
{
  size_t size = 0;
  unsigned char *bin;
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
  dir = g_path_get_dirname (path);
  /* g_file_set_contents writes a temporary file and renames it: a reader
   * never sees half a binary */
  if (g_mkdir_with_parents (dir, 0700) != 0 ||
      !g_file_set_contents (path, (const gchar *) bin, size, &error)) {
    GST_INFO ("cannot write %s: %s", path, error ? error->message :
        g_strerror (errno));
    g_clear_error (&error);
  } else {
    GST_DEBUG ("cached %" G_GSIZE_FORMAT " bytes in %s", (gsize) size, path);
  }
  g_free (dir);
  g_free (bin);
}
