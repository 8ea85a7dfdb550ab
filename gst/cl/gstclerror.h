/* gst-clvideo: OpenCL error reporting
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#pragma once

#include <gst/cl/cl-prelude.h>
#include <gst/gst.h>
#include <CL/cl.h>

G_BEGIN_DECLS

#define GST_CL_ERROR (gst_cl_error_quark ())
GST_CL_API
GQuark gst_cl_error_quark (void);

typedef enum {
  GST_CL_ERROR_NO_PLATFORM,     /* no OpenCL platform or matching device */
  GST_CL_ERROR_CALL,            /* an OpenCL call returned an error code */
  GST_CL_ERROR_BUILD,           /* a kernel program failed to build */
  GST_CL_ERROR_KERNEL_SOURCE,   /* a kernel source could not be found or read */
} GstClErrorCode;

GST_CL_API
const gchar *gst_cl_error_name (cl_int code);

/* Returns TRUE when @code is CL_SUCCESS; otherwise sets @error to a message
 * that names @call and the CL_* code, and returns FALSE. */
GST_CL_API
gboolean gst_cl_check (cl_int code, const gchar * call, GError ** error);

/* Posts @error (consumed) as a GST_ELEMENT_ERROR of @element. */
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
