/* gst-clvideo: clupload and cldownload
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
/**
 * SECTION:element-clupload
 * @title: clupload
 *
 * Copies video frames from system memory into OpenCL device memory
 * (caps feature memory:OpenCL), for the cl elements that follow. Frames
 * already on the device of the shared context are copied on the device.
 *
 * ## Example launch line
 * |[
 * gst-launch-1.0 videotestsrc num-buffers=30 ! video/x-raw,format=RGBx ! clupload ! clcolorlowpass ! cldownload ! videoconvert ! autovideosink
 * ]|
 */
/**
 * SECTION:element-cldownload
 * @title: cldownload
 *
 * Copies video frames from OpenCL device memory into plain system memory,
 * so that downstream elements hold no device memory.
 *
 * ## Example launch line
 * |[
 * gst-launch-1.0 videotestsrc num-buffers=30 ! clupload ! cldownload ! video/x-raw ! fakesink
 * ]|
 */
#include "gstcltransfer.h"

GST_DEBUG_CATEGORY_STATIC (gst_cl_transfer_debug);
#define GST_CAT_DEFAULT gst_cl_transfer_debug

#define TRANSFER_FORMATS "I420, YV12, NV12, NV21, Y42B, Y444, GRAY8, RGB, " \
    "BGR, RGBx, BGRx, xRGB, xBGR, RGBA, BGRA, ARGB, ABGR, YUY2, UYVY, AYUV"

struct _GstClUpload
{
  GstClFilter parent;
};

struct _GstClDownload
{
  GstClFilter parent;
};

G_DEFINE_TYPE_WITH_CODE (GstClUpload, gst_cl_upload, GST_TYPE_CL_FILTER,
    GST_DEBUG_CATEGORY_INIT (gst_cl_transfer_debug, "cltransfer", 0,
        "OpenCL upload and download"));
G_DEFINE_TYPE (GstClDownload, gst_cl_download, GST_TYPE_CL_FILTER);

/* The copy of one direction: FALSE with @error set, or with the error
 * already posted. */
typedef gboolean (*CopyFunc) (GstClFilter * filter, GstClContext * ctx,
    const GstVideoInfo * info, GstBuffer * inbuf, GstBuffer * outbuf,
    GError ** error);

static gboolean
upload (GstClFilter * filter, GstClContext * ctx, const GstVideoInfo * info,
    GstBuffer * inbuf, GstBuffer * outbuf, GError ** error)
{
  GstClFrame src, out;
  gboolean ok;

  if (!gst_buffer_is_cl (outbuf, ctx)) {
    GST_ELEMENT_ERROR (filter, CORE, NEGOTIATION, (NULL),
        ("output buffer is not OpenCL memory"));
    return FALSE;
  }
  gst_cl_frame_init (&out, info, outbuf);

  if (!gst_buffer_is_cl (inbuf, ctx))
    ok = gst_cl_frame_upload_buffer (ctx, &out, info, inbuf, error);
  else {
    gst_cl_frame_init (&src, info, inbuf);
    ok = gst_cl_check (clEnqueueCopyBuffer (ctx->queue, src.mem, out.mem,
            src.info.offset[0], out.info.offset[0], MIN (info->size,
                gst_buffer_get_size (inbuf)), 0, NULL, NULL),
        "clEnqueueCopyBuffer", error);
    if (ok && memcmp (src.info.stride, out.info.stride,
            sizeof (src.info.stride)) != 0) {
      /* layouts differ: fall back to a host copy, correct if slow */
      ok = gst_cl_frame_upload_buffer (ctx, &out, info, inbuf, error);
    }
  }
  if (ok)
    gst_cl_memory_mark_written (gst_buffer_peek_memory (outbuf, 0));
  return ok;
}

static gboolean
download (GstClFilter * filter, GstClContext * ctx, const GstVideoInfo * info,
    GstBuffer * inbuf, GstBuffer * outbuf, GError ** error)
{
  GstVideoFrame in, out;
  GstClFrame src;
  gboolean ok;

  if (!gst_video_frame_map (&out, info, outbuf, GST_MAP_WRITE)) {
    GST_ELEMENT_ERROR (filter, RESOURCE, WRITE, (NULL),
        ("Cannot map the output buffer"));
    return FALSE;
  }
  if (gst_buffer_is_cl (inbuf, ctx)) {
    gst_cl_frame_init (&src, info, inbuf);
    ok = gst_cl_frame_download (ctx, &out, &src, error);
  } else {
    /* memory of another context or the host: map and copy */
    ok = gst_video_frame_map (&in, info, inbuf, GST_MAP_READ);
    if (ok) {
      ok = gst_video_frame_copy (&out, &in);
      gst_video_frame_unmap (&in);
    }
    if (!ok)
      g_set_error (error, GST_CL_ERROR, GST_CL_ERROR_CALL,
          "Cannot copy the input frame");
  }
  gst_video_frame_unmap (&out);
  return ok;
}

/* clupload's and cldownload's transform */
static GstFlowReturn
gst_cl_transfer_transform_system (GstClFilter * filter, GstBuffer * inbuf,
    GstBuffer * outbuf)
{
  CopyFunc copy = GST_IS_CL_UPLOAD (filter) ? upload : download;
  GError *error = NULL;

  if (!copy (filter, gst_cl_filter_get_context (filter),
          gst_cl_filter_get_in_info (filter), inbuf, outbuf, &error)) {
    if (error)
      GST_CL_ELEMENT_ERROR (filter, error);
    return GST_FLOW_ERROR;
  }
  return GST_FLOW_OK;
}

/* Device memory on the source pad (upload) or the sink pad (download);
 * either takes memory:OpenCL in, for frames of another context. */
static void
transfer_class_init (GstClFilterClass * klass, const gchar * long_name,
    const gchar * description, gboolean upload)
{
  GstElementClass *element_class = GST_ELEMENT_CLASS (klass);

  gst_element_class_set_static_metadata (element_class, long_name,
      "Filter/Video", description, "gst-clvideo developers");
  gst_cl_filter_class_add_pad_templates (element_class, TRANSFER_FORMATS,
      TRANSFER_FORMATS, upload, TRUE, !upload, upload);
  klass->transform_system = gst_cl_transfer_transform_system;
  klass->output_system_memory = !upload;
}

static void
gst_cl_upload_class_init (GstClUploadClass * klass)
{
  transfer_class_init (GST_CL_FILTER_CLASS (klass), "OpenCL uploader",
      "Copies video frames from system memory to OpenCL device memory", TRUE);
}

static void
gst_cl_upload_init (GstClUpload * self G_GNUC_UNUSED)
{
}

static void
gst_cl_download_class_init (GstClDownloadClass * klass)
{
  transfer_class_init (GST_CL_FILTER_CLASS (klass), "OpenCL downloader",
      "Copies video frames from OpenCL device memory to system memory",
      FALSE);
}

static void
gst_cl_download_init (GstClDownload * self G_GNUC_UNUSED)
{
}
