/* gst-clvideo: base class of the cl video elements
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#pragma once

#include <gst/cl/cl-prelude.h>
#include <gst/base/gstbasetransform.h>
#include <gst/video/video.h>
#include <gst/cl/gstclcontext.h>
#include <gst/cl/gstclmemory.h>
#include <gst/cl/gstclbufferpool.h>

G_BEGIN_DECLS

#define GST_TYPE_CL_FILTER (gst_cl_filter_get_type ())
GST_CL_API
G_DECLARE_DERIVABLE_TYPE (GstClFilter, gst_cl_filter, GST, CL_FILTER,
    GstBaseTransform)

/**
 * GstClFilter:
 *
 * The base class of the OpenCL video elements: it owns the device context
 * (the #GstClFilter:device property, #GstContext sharing), negotiates caps
 * with and without the memory:OpenCL feature, offers and picks pools of
 * device buffers, stages system-memory input onto the device, and reads
 * small results back for element messages without stalling on the device.
 * Subclasses only build and run their kernels.
 *
 * The instance has no public fields.
 *
 * Since: 0.1
 */

/**
 * GstClFilterClass:
 * @parent_class: the parent class
 * @transform_video_caps: maps feature-less caps of one pad to those of the
 *   other (default: the same caps); memory features are added by the base.
 * @set_info: called on every (re)negotiation, with the context known:
 *   builds kernels for the formats.
 * @process: runs the element's kernels from @in to @out, both on the device.
 * @release: drops the kernels (state change to NULL, context change).
 * @transform_system: optional; replaces the whole transform for elements
 *   that move frames between host and device (clupload, cldownload).
 * @output_system_memory: output buffers are plain system memory.
 * @process_ip: for elements that pass frames through unchanged (they call
 *   gst_base_transform_set_in_place() in their init): runs the element's
 *   kernels on @frame, the device copy of @buffer's pixels (@buffer itself
 *   when it is OpenCL memory of the context, else a staged copy). @buffer
 *   is writable (metas may be added) and goes downstream as it is. Both
 *   pads then carry the same caps, memory feature included.
 * @reset: optional; drops what carries over from frame to frame (a
 *   reference frame, smoothing state, the time since the last message).
 *   Called on start, on stop and on a flush, from the streaming thread or
 *   with streaming stopped.
 * @fill_message: needed by elements that call gst_cl_filter_read_message():
 *   fills in the element message @s from the @size bytes at @data that the
 *   read brought back; the base class posts @s afterwards.
 *
 * The virtual methods are called from the streaming thread unless said
 * otherwise.
 *
 * Since: 0.1
 */
struct _GstClFilterClass
{
  GstBaseTransformClass parent_class;

  GstCaps *(*transform_video_caps) (GstClFilter * filter,
      GstPadDirection direction, GstCaps * caps);
  gboolean (*set_info) (GstClFilter * filter, GstVideoInfo * in_info,
      GstVideoInfo * out_info, GError ** error);
  gboolean (*process) (GstClFilter * filter, GstClFrame * in, GstClFrame * out,
      GError ** error);
  void (*release) (GstClFilter * filter);
  GstFlowReturn (*transform_system) (GstClFilter * filter, GstBuffer * inbuf,
      GstBuffer * outbuf);

  gboolean output_system_memory;

  gboolean (*process_ip) (GstClFilter * filter, GstBuffer * buffer,
      GstClFrame * frame, GError ** error);

  void (*reset) (GstClFilter * filter);
  void (*fill_message) (GstClFilter * filter, GstStructure * s,
      gconstpointer data, gsize size);

  /*< private >*/
  gpointer _gst_reserved[GST_PADDING];
};

GST_CL_API
GstClContext *gst_cl_filter_get_context (GstClFilter * filter);
GST_CL_API
const GstVideoInfo *gst_cl_filter_get_in_info (GstClFilter * filter);
GST_CL_API
const GstVideoInfo *gst_cl_filter_get_out_info (GstClFilter * filter);
GST_CL_API
GstBuffer *gst_cl_filter_get_input_buffer (GstClFilter * filter);
GST_CL_API
GstClockTime gst_cl_filter_get_frame_duration (GstClFilter * filter,
    GstBuffer * buffer);

GST_CL_API
gboolean gst_cl_filter_read_message (GstClFilter * filter, cl_mem mem,
    gsize offset, gsize size, GstStructure * s, GError ** error);

GST_CL_API
gboolean gst_cl_kernel_set_frame_args (cl_kernel kernel, guint * index,
    GstClFrame * frame, GError ** error);
GST_CL_API
gboolean gst_cl_kernel_set_arg (cl_kernel kernel, guint * index, gsize size,
    const void *value, GError ** error);

GST_CL_API
void gst_cl_filter_class_add_pad_templates (GstElementClass * klass,
    const gchar * sink_formats, const gchar * src_formats,
    gboolean sink_system, gboolean sink_cl, gboolean src_system,
    gboolean src_cl);

G_END_DECLS
