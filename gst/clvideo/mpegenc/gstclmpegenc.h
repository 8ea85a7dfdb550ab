/* gst-clvideo: clmpegenc
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#pragma once

#include <gst/video/gstvideoencoder.h>

G_BEGIN_DECLS

#define GST_TYPE_CL_MPEG_ENC (gst_cl_mpeg_enc_get_type ())
G_DECLARE_FINAL_TYPE (GstClMpegEnc, gst_cl_mpeg_enc, GST, CL_MPEG_ENC,
    GstVideoEncoder)

G_END_DECLS
