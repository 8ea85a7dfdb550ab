/* gst-clvideo: the plugin's kernel sources
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#pragma once

#include <glib.h>
#include <CL/cl.h>

G_BEGIN_DECLS

/* Makes the sources of kernels/ known to the runtime library by their
 * names (once; MT safe). Everything that builds the plugin's kernels calls
 * it first: the plugin when it loads, and the device stages that tests
 * and benchmarks drive without an element. */
void gst_cl_video_register_kernels (void);

/* Sets the arguments of @kernel: the @n_mems buffers @mems, then @args
 * (@size bytes, one struct passed by value; none when NULL). */
gboolean gst_cl_video_set_kernel_args (cl_kernel kernel, const cl_mem * mems,
    guint n_mems, const void *args, gsize size, GError ** error);

/* clReleaseKernel() as a GDestroyNotify (tables of kernels); NULL is
 * ignored. */
void gst_cl_video_release_kernel (gpointer kernel);

/* Releases each of the kernels pointed to that is set, and clears it: the
 * arguments are cl_kernel pointers ending with NULL. */
void gst_cl_video_clear_kernels (cl_kernel * kernel, ...)
    G_GNUC_NULL_TERMINATED;

G_END_DECLS
