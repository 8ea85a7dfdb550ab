/* gst-clvideo: the plugin's kernel sources
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#pragma once

#include <glib.h>

G_BEGIN_DECLS

/* Makes the sources of kernels/ known to the runtime library by their
 * names (once; MT safe). Everything that builds the plugin's kernels calls
 * it first: the plugin when it loads, and the device stages that tests
 * and benchmarks drive without an element. */
void gst_cl_video_register_kernels (void);

G_END_DECLS
