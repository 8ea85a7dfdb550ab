/* gst-clvideo: histograms of frame channels on the device
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#pragma once

#include <gst/cl/gstclcontext.h>
#include <gst/cl/gstclmemory.h>

G_BEGIN_DECLS

/* Label of the histogram kernel in the context's profiling statistics. */
#define GST_CL_HISTOGRAM_LABEL "histogram"

/**
 * GstClHistogramCompute:
 *
 * Computes exact 256-bin histograms of 8-bit channels of GstClFrames with
 * kernels/histogram.cl, in the layout the context asks for (CPU or GPU).
 * Kernels are built once per set of build options and kept. Not
 * thread-safe: one per element.
 */
typedef struct _GstClHistogramCompute GstClHistogramCompute;

GstClHistogramCompute *gst_cl_histogram_compute_new (GstClContext * ctx);
void gst_cl_histogram_compute_free (GstClHistogramCompute * hc);

/* Sets the @n histograms of 256 cl_uint from histogram @first of @bins to
 * zero (the kernel adds to them). */
gboolean gst_cl_histogram_compute_clear (GstClHistogramCompute * hc,
    cl_mem bins, guint first, guint n, GError ** error);

/* Adds the samples of component @comp (a GstVideoFormatInfo component:
 * Y, U, V or R, G, B) of @frame into histogram @index of @bins, which was
 * cleared. Only the component's visible width x height samples count. */
gboolean gst_cl_histogram_compute_component (GstClHistogramCompute * hc,
    GstClFrame * frame, guint comp, cl_mem bins, guint index,
    GError ** error);

/* Both: histograms 0 .. @n - 1 of @bins become those of @comps. */
gboolean gst_cl_histogram_compute_frame (GstClHistogramCompute * hc,
    GstClFrame * frame, guint n, const guint * comps, cl_mem bins,
    GError ** error);

G_END_DECLS
