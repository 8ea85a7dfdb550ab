/* gst-clvideo: on-disk cache of built OpenCL programs
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#pragma once

#include <glib.h>
#include <CL/cl.h>

G_BEGIN_DECLS

/* Environment variable naming the directory of the binary cache; empty
 * turns the cache off. Unset: "gst-clvideo" under the user's cache
 * directory ($XDG_CACHE_HOME, ~/.cache). */
#define GST_CL_CACHE_DIR_ENV "GST_CL_CACHE_DIR"

/* The file that holds (or would hold) the binary of @source built with
 * @options for @device: its name hashes them together with the device's
 * and the driver's names and versions, so that a changed source, option,
 * device or driver never meets an old binary. NULL when the cache is
 * off. */
gchar *gst_cl_binary_cache_path (cl_device_id device, const gchar * source,
    const gchar * options);

/* The program built from the binary at @path for @device with @options,
 * or NULL (nothing there, or a binary the driver refuses: the file is
 * then removed and the caller builds from source). */
cl_program gst_cl_binary_cache_load (cl_context context, cl_device_id device,
    const gchar * path, const gchar * options);

/* Writes the binary of the built @program to @path (atomically); failures
 * are only logged: the cache is an optimisation. */
void gst_cl_binary_cache_store (cl_program program, const gchar * path);

G_END_DECLS
