/* gst-clvideo: kernel sources
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#pragma once

#include <gst/cl/cl-prelude.h>
#include <glib.h>

G_BEGIN_DECLS

typedef struct {
  const gchar *name;            /* file name under kernels/, without ".cl";
                                 * a header's whole name (NAME.h) */
  const gchar *source;
} GstClKernelSource;

/* Adds @table, ending with a { NULL, NULL } entry and alive for the life
 * of the process, to the sources gst_cl_kernel_source_lookup() finds by
 * name (the tables first registered first). Registering a table again
 * does nothing. MT safe. */
GST_CL_API
void gst_cl_kernel_sources_register (const GstClKernelSource * table);

/* Environment variable naming a directory whose NAME.cl files replace the
 * embedded kernel sources (kernel development without rebuilding). */
#define GST_CL_KERNEL_DIR_ENV "GST_CL_KERNEL_DIR"

/* Returns the source of kernel file @name (newly allocated), read from
 * $GST_CL_KERNEL_DIR when set and holding NAME.cl, else the registered copy,
 * with each line '#include "OTHER.cl"' replaced by OTHER's source, looked
 * up the same way (and '#include "OTHER.h"' by the header registered, or
 * found there, as OTHER.h). */
GST_CL_API
gchar *gst_cl_kernel_source_lookup (const gchar * name, GError ** error);

G_END_DECLS
