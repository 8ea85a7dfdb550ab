/* gst-clvideo: the plugin's kernel sources
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "gstclvideokernels.h"
#include <gst/cl/gstclprogram-private.h>
#include <gst/cl/gstclerror.h>
#include <gst/cl/gstclfilter.h>

#include <stdarg.h>

/* kernels/embed-kernels.py's table of every kernels/NAME.cl */
extern const GstClKernelSource gst_cl_video_kernel_sources[];

void
gst_cl_video_register_kernels (void)
{
  gst_cl_kernel_sources_register (gst_cl_video_kernel_sources);
}

gboolean
gst_cl_video_set_kernel_args (cl_kernel kernel, const cl_mem * mems,
    guint n_mems, const void *args, gsize size, GError ** error)
{
  guint arg = 0, i;

  for (i = 0; i < n_mems; i++)
    if (!gst_cl_kernel_set_arg (kernel, &arg, sizeof (cl_mem), &mems[i],
            error))
      return FALSE;
  return !args || gst_cl_kernel_set_arg (kernel, &arg, size, args, error);
}

void
gst_cl_video_release_kernel (gpointer kernel)
{
  cl_int ret;

  if (!kernel)
    return;
  /* nothing to undo on failure: say so and go on tearing down */
  ret = clReleaseKernel ((cl_kernel) kernel);
  if (ret != CL_SUCCESS)
    GST_WARNING ("clReleaseKernel: %s", gst_cl_error_name (ret));
}

void
gst_cl_video_clear_kernels (cl_kernel * kernel, ...)
{
  va_list args;

  va_start (args, kernel);
  for (; kernel; kernel = va_arg (args, cl_kernel *)) {
    gst_cl_video_release_kernel (*kernel);
    *kernel = NULL;
  }
  va_end (args);
}
