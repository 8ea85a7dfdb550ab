/* gst-clvideo: kernel sources
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "gstclprogram.h"
#include "gstclerror.h"

extern const GstClKernelSource gst_cl_embedded_kernels[];

gchar *
gst_cl_kernel_source_lookup (const gchar * name, GError ** error)
{
  const gchar *dir = g_getenv (GST_CL_KERNEL_DIR_ENV);
  guint i;

  if (dir && *dir) {
    gchar *file = g_strconcat (name, ".cl", NULL);
    gchar *path = g_build_filename (dir, file, NULL);
    gchar *text = NULL;
    g_free (file);
    if (g_file_test (path, G_FILE_TEST_EXISTS)) {
      GError *err = NULL;
      if (!g_file_get_contents (path, &text, NULL, &err)) {
        g_set_error (error, GST_CL_ERROR, GST_CL_ERROR_KERNEL_SOURCE,
            "Cannot read kernel source %s: %s", path, err->message);
        g_error_free (err);
      }
      g_free (path);
      return text;
    }
    g_free (path);
  }

  for (i = 0; gst_cl_embedded_kernels[i].name; i++) {
    if (g_str_equal (gst_cl_embedded_kernels[i].name, name))
      return g_strdup (gst_cl_embedded_kernels[i].source);
  }
  g_set_error (error, GST_CL_ERROR, GST_CL_ERROR_KERNEL_SOURCE,
      "No OpenCL kernel source named '%s'", name);
  return NULL;
}
