/* gst-clvideo: the OpenCL runtime library's export macro
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#pragma once

#include <gst/gst.h>

/**
 * GST_CL_API:
 *
 * Marks the exported symbols of libgstcl-1.0; everything else is built
 * with hidden visibility.
 *
 * Since: 0.1
 */
#ifndef GST_CL_API
# ifdef BUILDING_GST_CL
#  define GST_CL_API GST_API_EXPORT
# else
#  define GST_CL_API GST_API_IMPORT
# endif
#endif
