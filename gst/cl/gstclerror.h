/* gst-clvideo: OpenCL error reporting
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#pragma once

#include <gst/cl/cl-prelude.h>
#include <gst/gst.h>
#include <CL/cl.h>

G_BEGIN_DECLS

/**
 * GST_CL_ERROR:
 *
 * The #GError domain of the library's errors; the codes are #GstClError.
 *
 * Since: 0.1
 */
#define GST_CL_ERROR (gst_cl_error_quark ())
GST_CL_API
GQuark gst_cl_error_quark (void);

/**
 * GstClError:
 * @GST_CL_ERROR_NO_PLATFORM: no OpenCL platform, or no device that matches
 * @GST_CL_ERROR_CALL: an OpenCL call returned an error code (the message
 *   names the call and the CL_* code)
 * @GST_CL_ERROR_BUILD: a kernel program failed to build (the message holds
 *   the build log)
 * @GST_CL_ERROR_KERNEL_SOURCE: a kernel source could not be found or read
 * @GST_CL_ERROR_NOT_FOUND: what was asked for is not there (for example a
 *   channel that a histogram meta does not hold)
 *
 * The error codes of #GST_CL_ERROR.
 *
 * Since: 0.1
 */
typedef enum {
  GST_CL_ERROR_NO_PLATFORM,
  GST_CL_ERROR_CALL,
  GST_CL_ERROR_BUILD,
  GST_CL_ERROR_KERNEL_SOURCE,
  GST_CL_ERROR_NOT_FOUND,
} GstClError;

GST_CL_API
const gchar *gst_cl_error_name (cl_int code);

GST_CL_API
gboolean gst_cl_check (cl_int code, const gchar * call, GError ** error);

/**
 * GST_CL_ELEMENT_ERROR:
 * @element: the element
 * @error: (transfer full): a #GError, consumed
 *
 * Posts @error as an element error of @element: RESOURCE NOT_FOUND for
 * #GST_CL_ERROR_NO_PLATFORM, LIBRARY INIT for #GST_CL_ERROR_BUILD (the
 * build log in the debug text), RESOURCE FAILED for the others.
 *
 * Since: 0.1
 */
#define GST_CL_ELEMENT_ERROR(element, error)                                  \
  G_STMT_START {                                                              \
    GError *_e = (error);                                                     \
    if (_e->domain == GST_CL_ERROR && _e->code == GST_CL_ERROR_NO_PLATFORM)   \
      GST_ELEMENT_ERROR (element, RESOURCE, NOT_FOUND, ("%s", _e->message),   \
          (NULL));                                                            \
    else if (_e->domain == GST_CL_ERROR && _e->code == GST_CL_ERROR_BUILD)    \
      GST_ELEMENT_ERROR (element, LIBRARY, INIT,                              \
          ("Failed to build an OpenCL kernel program"), ("%s", _e->message)); \
    else                                                                      \
      GST_ELEMENT_ERROR (element, RESOURCE, FAILED, ("%s", _e->message),      \
          (NULL));                                                            \
    g_error_free (_e);                                                        \
  } G_STMT_END

G_END_DECLS
