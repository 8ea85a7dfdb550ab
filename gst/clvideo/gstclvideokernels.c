/* gst-clvideo: the plugin's kernel sources
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "gstclvideokernels.h"
#include <gst/cl/gstclprogram-private.h>

/* kernels/embed-kernels.py's table of every kernels/NAME.cl */
extern const GstClKernelSource gst_cl_video_kernel_sources[];

void
gst_cl_video_register_kernels (void)
{
  gst_cl_kernel_sources_register (gst_cl_video_kernel_sources);
}
