/* gst-clvideo: clupload and cldownload
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#pragma once

#include <gst/cl/gstclfilter.h>

G_BEGIN_DECLS

#define GST_TYPE_CL_UPLOAD (gst_cl_upload_get_type ())
G_DECLARE_FINAL_TYPE (GstClUpload, gst_cl_upload, GST, CL_UPLOAD, GstClFilter)

#define GST_TYPE_CL_DOWNLOAD (gst_cl_download_get_type ())
G_DECLARE_FINAL_TYPE (GstClDownload, gst_cl_download, GST, CL_DOWNLOAD,
    GstClFilter)

G_END_DECLS
