/* gst-clvideo: clmpegenc
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#pragma once

#include <gst/video/gstvideoencoder.h>

G_BEGIN_DECLS

/**
 * GstClMpegEncSpeedPreset:
 *
 * Bundles of search and decision settings, fastest first; see
 * #GstClMpegEnc:speed-preset.
 */
typedef enum
{
  GST_CL_MPEG_ENC_SPEED_PRESET_ULTRAFAST,
  GST_CL_MPEG_ENC_SPEED_PRESET_VERYFAST,
  GST_CL_MPEG_ENC_SPEED_PRESET_FAST,
  GST_CL_MPEG_ENC_SPEED_PRESET_MEDIUM,
  GST_CL_MPEG_ENC_SPEED_PRESET_SLOW,
} GstClMpegEncSpeedPreset;

#define GST_TYPE_CL_MPEG_ENC_SPEED_PRESET \
  (gst_cl_mpeg_enc_speed_preset_get_type ())
GType gst_cl_mpeg_enc_speed_preset_get_type (void);

/**
 * GstClMpegEncRateControl:
 *
 * How the quantiser is chosen; see #GstClMpegEnc:rate-control.
 */
typedef enum
{
  GST_CL_MPEG_ENC_RATE_CONTROL_AUTO,
  GST_CL_MPEG_ENC_RATE_CONTROL_CQP,
  GST_CL_MPEG_ENC_RATE_CONTROL_CBR,
  GST_CL_MPEG_ENC_RATE_CONTROL_VBR,
} GstClMpegEncRateControl;

#define GST_TYPE_CL_MPEG_ENC_RATE_CONTROL \
  (gst_cl_mpeg_enc_rate_control_get_type ())
GType gst_cl_mpeg_enc_rate_control_get_type (void);

/* #GstClMpegEnc:format, GstClMpegFormatId's values (gstclmpegformat.h) */
#define GST_TYPE_CL_MPEG_ENC_FORMAT (gst_cl_mpeg_enc_format_get_type ())
GType gst_cl_mpeg_enc_format_get_type (void);

#define GST_TYPE_CL_MPEG_ENC (gst_cl_mpeg_enc_get_type ())
G_DECLARE_FINAL_TYPE (GstClMpegEnc, gst_cl_mpeg_enc, GST, CL_MPEG_ENC,
    GstVideoEncoder)

G_END_DECLS
