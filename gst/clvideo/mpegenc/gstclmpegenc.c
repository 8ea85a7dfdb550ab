/* gst-clvideo: clmpegenc
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
/**
 * SECTION:element-clmpegenc
 * @title: clmpegenc
 *
 * Encodes I420 or NV12 video (and Y42B, 4:2:2, in MPEG-2's 4:2:2
 * profile) into an MPEG-1 or MPEG-2 video elementary
 * stream (ISO/IEC 11172-2, 13818-2) with I and P pictures, and B
 * pictures between them with "b-frames": MPEG-2 where downstream's caps
 * ask for mpegversion 2 (in the main or simple profile, at the lowest
 * level that holds the input, both in the caps), MPEG-1 where they allow
 * it. The per-macroblock work runs on an OpenCL device
 * (kernels/mpegenc.cl): motion-compensated half-pel prediction from the
 * reconstructed reference pictures, which stay on the device (B pictures:
 * forward, backward or interpolated, per macroblock), the intra/inter
 * decision, forward DCT, quantisation and the
 * decoder's reconstruction (IEEE 1180 accurate inverse DCT, mismatch
 * control). The host codes the slices (by default as many as the
 * picture's size makes worth it, "slices") in parallel on worker threads
 * while the device works on the next frame.
 *
 * Motion vectors come from an upstream `clmotionsearch` (its
 * GstClMotionMeta, 16x16 blocks) when the buffer carries them, otherwise
 * from the same search run here against the reconstructed reference
 * ("motion-method", "search-range", "subpel").
 *
 * Every GOP starts with a sequence header and is closed (unless
 * "closed-gop" is off), so a stream can be cut at any GOP; a sequence end
 * code ends the stream, and a change of size starts a new sequence. With
 * "bitrate" set, the quantiser follows a target bit rate under a VBV
 * buffer model that neither underflows (a picture too large is coded
 * again, coarser) nor overflows (zero stuffing); with "bitrate" 0 the
 * quantiser is constant ("quantizer").
 * Either way I pictures are coded finer than P pictures, by "ip-factor":
 * every P picture of the GOP predicts from them. By default the factor
 * follows how much of the picture the P pictures copy: the more the
 * camera stands still, the longer an I picture's quality lasts.
 *
 * The encoder writes the frame rates 23.976, 24, 25, 29.97, 30, 50, 59.94
 * and 60, and the pad templates list them: `videorate` in front converts
 * any other rate to the nearest of them by itself; without it, another
 * rate (and none, 0/1) is refused with an error that names them. Any size
 * up to 4095x2800 works in MPEG-1, up to the level's in MPEG-2 (1920x1152
 * at the high level; `videoscale` in front fits a larger one): the
 * picture is padded to whole macroblocks and the true size is written in
 * the sequence header.
 *
 * Interlaced input (interleaved or mixed caps) becomes an interlaced
 * MPEG-2 sequence: frames of two fields in the caps' or the buffers' field
 * order, each macroblock in frame or field blocks, P and B pictures
 * predicted frame or field by field. MPEG-1 codes both fields in each frame.
 * With "pulldown", film at 23.976 fps becomes a 29.97 fps MPEG-2 sequence
 * of progressive frames shown for three and two fields in turn.
 *
 * ## Example launch line
 * |[
 * gst-launch-1.0 videotestsrc num-buffers=100 ! video/x-raw,width=640,height=480,framerate=25/1 ! clmpegenc quantizer=4 ! filesink location=out.m1v
 * gst-launch-1.0 videotestsrc num-buffers=100 ! video/x-raw,width=720,height=576,framerate=25/1 ! clmpegenc ! video/mpeg,mpegversion=2 ! mpegvideoparse ! mpegtsmux ! filesink location=out.ts
 * ]|
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include "gstclmpegenc.h"

#include <string.h>

#include <gst/cl/gstclbufferpool.h>
#include <gst/cl/gstclcontext.h>
#include <gst/cl/gstclhostmemory.h>
#include <gst/cl/gstclmemory.h>
#include <gst/cl/gstclmotionmeta.h>
#include <gst/cl/gstclreadback.h>
#include "gstclmotionsearchcompute.h"
#include "gstclmpegengine.h"
#include "gstclvideoenum.h"
#include "gstclmpegformat.h"
#include "gstclmpegheaders.h"
#include "gstclmpegprofile.h"
#include "gstclmpegtransform.h"

/* the engine logs into it too */
GST_DEBUG_CATEGORY (gst_cl_mpeg_enc_debug);
#define GST_CAT_DEFAULT gst_cl_mpeg_enc_debug

#define DEFAULT_GOP_SIZE 12
#define DEFAULT_QUANTIZER 4
#define DEFAULT_IP_FACTOR 0.0
#define DEFAULT_B_FRAMES 0
#define DEFAULT_PB_FACTOR 1.3
#define MAX_B_FRAMES 7
#define DEFAULT_BITRATE 0
#define DEFAULT_MAX_BITRATE 0
#define DEFAULT_INTRA_DC_PRECISION 8
#define DEFAULT_NON_LINEAR_QUANT FALSE
#define DEFAULT_VBV_SIZE 0
#define DEFAULT_ADAPTIVE_QUANT FALSE
#define DEFAULT_SEARCH_RANGE 16
#define DEFAULT_SUBPEL TRUE
#define DEFAULT_MOTION_METHOD GST_CL_MOTION_METHOD_AUTO
#define DEFAULT_RDO TRUE
#define DEFAULT_SPEED_PRESET GST_CL_MPEG_ENC_SPEED_PRESET_MEDIUM
#define DEFAULT_FORMAT GST_CL_MPEG_FORMAT_NONE
#define DEFAULT_PULLDOWN FALSE
#define DEFAULT_CLOSED_GOP TRUE
#define DEFAULT_B_ADAPT TRUE
#define DEFAULT_SCENE_CUT 50
#define DEFAULT_RATE_CONTROL GST_CL_MPEG_ENC_RATE_CONTROL_AUTO
#define DEFAULT_SLICES 0
#define DEFAULT_FRAME_OFFSET 0
#define DEFAULT_POST_MESSAGES FALSE
#define DEFAULT_INTERVAL GST_SECOND

#define MAX_WIDTH 4095
#define MAX_HEIGHT 2800         /* 175 slice rows */

enum
{
  PROP_0,
  PROP_DEVICE,
  PROP_GOP_SIZE,
  PROP_KEY_INT_MAX,
  PROP_RATE_CONTROL,
  PROP_QUANTIZER,
  PROP_IP_FACTOR,
  PROP_B_FRAMES,
  PROP_PB_FACTOR,
  PROP_BITRATE,
  PROP_MAX_BITRATE,
  PROP_VBV_BUFFER_SIZE,
  PROP_ADAPTIVE_QUANT,
  PROP_SEARCH_RANGE,
  PROP_SUBPEL,
  PROP_MOTION_METHOD,
  PROP_RDO,
  PROP_SPEED_PRESET,
  PROP_FORMAT,
  PROP_PULLDOWN,
  PROP_CLOSED_GOP,
  PROP_B_ADAPT,
  PROP_SCENE_CUT,
  PROP_INTRA_DC_PRECISION,
  PROP_NON_LINEAR_QUANT,
  PROP_SLICES,
  PROP_FRAME_OFFSET,
  PROP_VBV_INITIAL_FULLNESS,
  PROP_VBV_FINAL_FULLNESS,
  PROP_STREAM_FRAMES,
  PROP_STATS,
  PROP_POST_MESSAGES,
  PROP_INTERVAL,
};

/* What each speed preset sets: rdo where it was not set on its own, the
 * motion search's effort at full resolution, whether with rdo its
 * half-pel positions are ranked by SATD, and whether P pictures search
 * around upstream's vectors or take them as they are */
typedef struct
{
  gboolean rdo;
  GstClMotionEffort motion_effort;
  gboolean search_satd;
  gboolean refine_upstream_vectors;
} SpeedPreset;

static const SpeedPreset speed_presets[] = {
  [GST_CL_MPEG_ENC_SPEED_PRESET_ULTRAFAST] = {FALSE, GST_CL_MOTION_EFFORT_LOW,
      FALSE, FALSE},
  [GST_CL_MPEG_ENC_SPEED_PRESET_VERYFAST] = {FALSE,
      GST_CL_MOTION_EFFORT_MEDIUM, FALSE, TRUE},
  [GST_CL_MPEG_ENC_SPEED_PRESET_FAST] = {TRUE, GST_CL_MOTION_EFFORT_MEDIUM,
      FALSE, TRUE},
  [GST_CL_MPEG_ENC_SPEED_PRESET_MEDIUM] = {DEFAULT_RDO,
      GST_CL_MOTION_EFFORT_MEDIUM, TRUE, TRUE},
  [GST_CL_MPEG_ENC_SPEED_PRESET_SLOW] = {TRUE, GST_CL_MOTION_EFFORT_HIGH,
      TRUE, TRUE},
};

GType
gst_cl_mpeg_enc_speed_preset_get_type (void)
{
  static GType type = 0;
  static const GEnumValue values[] = {
    {GST_CL_MPEG_ENC_SPEED_PRESET_ULTRAFAST,
          "Fastest: no rate-distortion decisions, the lightest search",
        "ultrafast"},
    {GST_CL_MPEG_ENC_SPEED_PRESET_VERYFAST,
        "No rate-distortion decisions", "veryfast"},
    {GST_CL_MPEG_ENC_SPEED_PRESET_FAST,
        "Half-pel vectors ranked by SAD in the motion search", "fast"},
    {GST_CL_MPEG_ENC_SPEED_PRESET_MEDIUM, "The defaults", "medium"},
    {GST_CL_MPEG_ENC_SPEED_PRESET_SLOW,
        "Slowest: the most thorough search", "slow"},
    {0, NULL, NULL}
  };
  return gst_cl_video_enum_type (&type, "GstClMpegEncSpeedPreset", values);
}

GType
gst_cl_mpeg_enc_rate_control_get_type (void)
{
  static GType type = 0;
  static const GEnumValue values[] = {
    {GST_CL_MPEG_ENC_RATE_CONTROL_AUTO, "From bitrate and max-bitrate: "
          "constant quantiser without bitrate, variable rate with "
          "max-bitrate above it, else constant rate", "auto"},
    {GST_CL_MPEG_ENC_RATE_CONTROL_CQP, "Constant quantiser (under "
          "max-bitrate where set)", "cqp"},
    {GST_CL_MPEG_ENC_RATE_CONTROL_CBR, "Constant bit rate", "cbr"},
    {GST_CL_MPEG_ENC_RATE_CONTROL_VBR, "Variable bit rate: bitrate on "
          "average under max-bitrate", "vbr"},
    {0, NULL, NULL}
  };
  return gst_cl_video_enum_type (&type, "GstClMpegEncRateControl", values);
}

GType
gst_cl_mpeg_enc_format_get_type (void)
{
  static GType type = 0;
  static const GEnumValue values[] = {
    {GST_CL_MPEG_FORMAT_NONE, "None: what the properties and downstream "
          "ask for", "none"},
    {GST_CL_MPEG_FORMAT_VCD, "VCD: MPEG-1, 352x288 or 352x240, 1150 kbit/s "
          "constant", "vcd"},
    {GST_CL_MPEG_FORMAT_SVCD, "SVCD: MPEG-2, 480x576 or 480x480, at most "
          "2600 kbit/s", "svcd"},
    {GST_CL_MPEG_FORMAT_DVD, "DVD-Video: MPEG-2, 720, 704 or 352 wide, at "
          "most 9800 kbit/s", "dvd"},
    {GST_CL_MPEG_FORMAT_DVB, "DVB SDTV: MPEG-2 main level, 576 lines at "
          "25 fps, at most 15000 kbit/s", "dvb"},
    {GST_CL_MPEG_FORMAT_DVB_HD, "DVB HDTV: MPEG-2 high level, 1080 lines "
          "at 25 fps, 720 progressive at 25 or 50 fps, at most 80000 kbit/s",
        "dvb-hd"},
    {GST_CL_MPEG_FORMAT_ATSC, "ATSC: MPEG-2 high level, 1080, 720 or 480 "
          "lines at A/53's rates, at most 19400 kbit/s", "atsc"},
    {0, NULL, NULL}
  };
  return gst_cl_video_enum_type (&type, "GstClMpegEncFormat", values);
}

struct _GstClMpegEnc
{
  GstVideoEncoder parent;

  /* properties: the device, the engine's settings (passed on to it as
   * they are set) and the progress messages */
  gchar *device;
  GstClMpegEngineSettings settings;
  GstClMpegEncSpeedPreset speed_preset;
  /* rdo was set on its own: it keeps its value whatever the preset */
  gboolean rdo_set;
  GstClMpegFormatId format;
  gboolean pulldown;
  GstClMpegEncRateControl rate_control;
  /* the input was checked against the format, whose longest GOP for its
   * rate is format_gop_max (0: any) */
  gboolean format_checked;
  guint format_gop_max;
  gboolean post_messages;
  guint64 interval;
  guint64 frame_offset;
  guint64 stream_frames;
  /* upstream was asked for the stream's length since the caps came */
  gboolean length_asked;

  GstClContext *ctx;
  GstClMpegEngine *engine;
  GstVideoCodecState *input_state;
  GstVideoInfo info;
  gint fps_n, fps_d;            /* pictures a second */
  gint refused_fps_n, refused_fps_d;    /* the rate last refused, if any */

  /* the progress interval so far: frame time (past the last message's
   * interval), the stream time, frames, bytes and quantisers summed, and
   * when it began (monotonic, us) */
  GstClockTime progress_elapsed, progress_time;
  guint64 progress_frames, progress_bytes, progress_quant;
  gint64 progress_start_us;
};

G_DEFINE_TYPE_WITH_CODE (GstClMpegEnc, gst_cl_mpeg_enc,
    GST_TYPE_VIDEO_ENCODER,
    GST_DEBUG_CATEGORY_INIT (gst_cl_mpeg_enc_debug, "clmpegenc", 0,
        "OpenCL MPEG-1 and MPEG-2 video encoder"));

/* MPEG-1's frame rates (frame_rate_code 1 to 8) */
#define MPEG1_RATES "framerate=(fraction){ 24000/1001, 24/1, 25/1, " \
  "30000/1001, 30/1, 50/1, 60000/1001, 60/1 }"

#define SINK_CAPS_STR(feature) \
  "video/x-raw" feature ", format=(string){ I420, NV12, Y42B }, " \
  "width=(int)[1, 4095], height=(int)[1, 2800], " MPEG1_RATES

static GstStaticPadTemplate sink_template = GST_STATIC_PAD_TEMPLATE ("sink",
    GST_PAD_SINK, GST_PAD_ALWAYS,
    GST_STATIC_CAPS (SINK_CAPS_STR ("(" GST_CAPS_FEATURE_MEMORY_CL ")") "; "
        SINK_CAPS_STR ("")));

static GstStaticPadTemplate src_template = GST_STATIC_PAD_TEMPLATE ("src",
    GST_PAD_SRC, GST_PAD_ALWAYS,
    GST_STATIC_CAPS ("video/mpeg, mpegversion=(int)1, "
        "systemstream=(boolean)false, width=(int)[1, 4095], "
        "height=(int)[1, 2800], " MPEG1_RATES "; "
        "video/mpeg, mpegversion=(int)2, systemstream=(boolean)false, "
        "profile=(string){ main, simple, 4:2:2 }, "
        "level=(string){ low, main, high-1440, high }, "
        "width=(int)[1, 1920], height=(int)[1, 1152], " MPEG1_RATES));

static GstStructure *make_stats (GstClMpegEnc * self);

static void
progress_restart (GstClMpegEnc * self)
{
  self->progress_time = 0;
  self->progress_frames = self->progress_bytes = self->progress_quant = 0;
  self->progress_start_us = g_get_monotonic_time ();
}

/* A new stream: the first message comes a whole interval in. */
static void
progress_reset (GstClMpegEnc * self)
{
  self->progress_elapsed = 0;
  progress_restart (self);
}

/* Counts a coded picture of @bytes at quantiser @quant into the progress
 * interval; with "post-messages", the frame that completes an interval
 * posts the "clmpegenc" element message: the totals and the interval's
 * frames, bit rate, mean quantiser and coding speed. */
static void
count_progress (GstClMpegEnc * self, GstVideoCodecFrame * frame,
    guint64 bytes, guint quant)
{
  GstClockTime duration = frame->duration;
  gboolean post;
  guint64 interval;
  GstStructure *st;
  gdouble wall;

  if (!GST_CLOCK_TIME_IS_VALID (duration))
    duration = gst_util_uint64_scale_int (GST_SECOND, self->fps_d,
        self->fps_n);
  GST_OBJECT_LOCK (self);
  post = self->post_messages;
  interval = self->interval;
  GST_OBJECT_UNLOCK (self);
  self->progress_time += duration;
  self->progress_frames++;
  self->progress_bytes += bytes;
  self->progress_quant += quant;
  if (!gst_cl_interval_complete (&self->progress_elapsed, duration, interval))
    return;
  if (post) {
    GstClMpegEngineStats stats;

    gst_cl_mpeg_engine_get_stats (self->engine, &stats);
    wall = (g_get_monotonic_time () - self->progress_start_us) / 1e6;
    st = gst_cl_frame_message_structure_new ("clmpegenc",
        &GST_VIDEO_ENCODER (self)->input_segment, frame->input_buffer,
        duration);
    gst_structure_set (st, "frames", G_TYPE_UINT64, stats.frames,
        "bytes", G_TYPE_UINT64, stats.bytes,
        "interval-frames", G_TYPE_UINT64, self->progress_frames,
        "interval-bytes", G_TYPE_UINT64, self->progress_bytes,
        "bitrate", G_TYPE_DOUBLE, self->progress_bytes * 8.0 * GST_SECOND /
        MAX (self->progress_time, 1), "mean-quantiser", G_TYPE_DOUBLE,
        (gdouble) self->progress_quant / self->progress_frames,
        "encoding-fps", G_TYPE_DOUBLE, wall > 0 ?
        self->progress_frames / wall : 0.0, NULL);
    gst_element_post_message (GST_ELEMENT (self),
        gst_message_new_element (GST_OBJECT (self), st));
  }
  progress_restart (self);
}

/* ---- the engine's callbacks ---- */

static GstFlowReturn
picture_done (GstVideoCodecFrame * frame, guint64 bytes, guint quant,
    gpointer user_data)
{
  GstClMpegEnc *self = user_data;

  count_progress (self, frame, bytes, quant);
  return gst_video_encoder_finish_frame (GST_VIDEO_ENCODER (self), frame);
}

static void
engine_warning (GQuark domain, gint code, const gchar * text,
    gpointer user_data)
{
  gst_element_message_full (GST_ELEMENT (user_data), GST_MESSAGE_WARNING,
      domain, code, g_strdup (text), NULL, __FILE__, GST_FUNCTION, __LINE__);
}

/* Finishes the frame the engine holds; @end: the sequence ends. */
static GstFlowReturn
drain (GstClMpegEnc * self, gboolean end)
{
  GError *error = NULL;
  GstFlowReturn ret = gst_cl_mpeg_engine_drain (self->engine, end, &error);

  if (error)
    GST_CL_ELEMENT_ERROR (self, error);
  return ret;
}

/* ---- GstVideoEncoder ---- */

static gboolean
gst_cl_mpeg_enc_start (GstVideoEncoder * enc)
{
  GstClMpegEnc *self = GST_CL_MPEG_ENC (enc);

  gst_cl_mpeg_engine_start (self->engine);
  self->refused_fps_n = self->refused_fps_d = 0;
  progress_reset (self);
  return TRUE;
}

static gboolean
gst_cl_mpeg_enc_stop (GstVideoEncoder * enc)
{
  GstClMpegEnc *self = GST_CL_MPEG_ENC (enc);

  gst_cl_mpeg_engine_stop (self->engine);
  g_clear_pointer (&self->input_state, gst_video_codec_state_unref);
  return TRUE;
}

/* Posts the error for an input rate MPEG-1 cannot carry, once: a source
 * sends its caps again with each buffer it tries to push. */
static void
refuse_frame_rate (GstClMpegEnc * self, gint fps_n, gint fps_d)
{
  GString *rates;
  guint code;

  if (fps_n == self->refused_fps_n && fps_d == self->refused_fps_d)
    return;
  self->refused_fps_n = fps_n;
  self->refused_fps_d = fps_d;
  /* "23.976, 24, ... 60", from the table of frame_rate_codes 1 to 8 */
  rates = g_string_new (NULL);
  for (code = 1; code <= 8; code++) {
    gchar rate[G_ASCII_DTOSTR_BUF_SIZE];
    gint n, d;

    gst_cl_mpeg_frame_rate (code, &n, &d);
    g_string_append_printf (rates, "%s%s", code == 1 ? "" : code == 8 ?
        " and " : ", ", g_ascii_formatd (rate, sizeof (rate), "%.5g",
            (gdouble) n / d));
  }
  if (fps_n == 0)
    GST_ELEMENT_ERROR (self, STREAM, FORMAT,
        ("The input has no frame rate (%d/%d): MPEG-1 video needs one of %s",
            fps_n, fps_d, rates->str),
        ("set one with videorate and caps, e.g. videorate ! "
            "video/x-raw,framerate=25/1"));
  else
    GST_ELEMENT_ERROR (self, STREAM, FORMAT,
        ("MPEG-1 video cannot carry %d/%d frames per second: its rates are "
            "%s", fps_n, fps_d, rates->str),
        ("convert the rate first (videorate)"));
  g_string_free (rates, TRUE);
}

/* The caps field @name of @s as the strings it allows (NULL: the field
 * is absent, anything goes) */
static GStrv
allowed_strings (const GstStructure * s, const gchar * name)
{
  const GValue *v = gst_structure_get_value (s, name);
  GStrvBuilder *b;
  guint i;

  if (!v)
    return NULL;
  b = g_strv_builder_new ();
  if (G_VALUE_HOLDS_STRING (v))
    g_strv_builder_add (b, g_value_get_string (v));
  else if (GST_VALUE_HOLDS_LIST (v))
    for (i = 0; i < gst_value_list_get_size (v); i++) {
      const GValue *item = gst_value_list_get_value (v, i);
      if (G_VALUE_HOLDS_STRING (item))
        g_strv_builder_add (b, g_value_get_string (item));
    }
  {
    GStrv strv = g_strv_builder_end (b);
    g_strv_builder_unref (b);
    return strv;
  }
}

/* Whether @info is 4:2:2 (MPEG-2's 4:2:2 profile only) */
static gboolean
is_chroma_422 (const GstVideoInfo * info)
{
  return GST_VIDEO_INFO_FORMAT (info) == GST_VIDEO_FORMAT_Y42B;
}

/* MPEG-2's profile and level for @info at frame_rate_code @code from what
 * downstream allows (@s): the 4:2:2 profile for 4:2:2 input, else the
 * main profile unless only the simple one is allowed, and the lowest
 * allowed level that holds the picture size, rate and bit rate; with a
 * constant quantiser not the low level where a higher one is allowed
 * (its 4 Mbit/s peak would hold the quantiser back). FALSE, with the
 * error posted, when none does. */
static gboolean
choose_profile_level (GstClMpegEnc * self, const GstStructure * s,
    const GstVideoInfo * info, guint code, guint kbps,
    const gchar * min_level, guint * profile, const GstClMpeg2Level ** level)
{
  g_auto (GStrv) profiles = allowed_strings (s, "profile");
  g_auto (GStrv) level_names = allowed_strings (s, "level");
  const GstClMpeg2Level *levels;
  gchar *why = NULL;
  guint n, i, first = 0;
  gint fps_n, fps_d;
  const gchar *want = is_chroma_422 (info) ? "4:2:2" : "main";

  if (!profiles || g_strv_contains ((const gchar * const *) profiles, want))
    *profile = is_chroma_422 (info) ? GST_CL_MPEG2_PROFILE_422 :
        GST_CL_MPEG2_PROFILE_MAIN;
  else if (!is_chroma_422 (info) && g_strv_contains ((const gchar * const *)
          profiles, "simple"))
    *profile = GST_CL_MPEG2_PROFILE_SIMPLE;
  else {
    gchar *names = g_strjoinv (", ", profiles);
    if (is_chroma_422 (info))
      GST_ELEMENT_ERROR (self, CORE, NEGOTIATION,
          ("Downstream asks for the MPEG-2 profile %s, which has no 4:2:2 "
              "video: the input is 4:2:2 (Y42B)", names),
          ("convert it to 4:2:0 (videoconvert ! video/x-raw,format=I420), "
              "or allow the 4:2:2 profile downstream"));
    else
      GST_ELEMENT_ERROR (self, CORE, NEGOTIATION,
          ("Downstream asks for the MPEG-2 profile %s: clmpegenc writes the "
              "main and simple profiles of 4:2:0 video", names), (NULL));
    g_free (names);
    return FALSE;
  }
  levels = gst_cl_mpeg2_profile_levels (*profile, &n);
  while (min_level && first + 1 < n &&
      g_strcmp0 (levels[first].name, min_level) != 0)
    first++;
  gst_cl_mpeg_frame_rate (code, &fps_n, &fps_d);
  *level = NULL;
  for (i = first; i < n && !*level; i++) {
    if ((level_names && !g_strv_contains ((const gchar * const *)
                level_names, levels[i].name)) ||
        !gst_cl_mpeg2_profile_has_level (*profile, &levels[i]))
      continue;
    if (kbps == 0 && g_str_equal (levels[i].name, "low") && i + 1 < n &&
        (!level_names || g_strv_length (level_names) > 1))
      continue;
    g_free (why);
    if (gst_cl_mpeg2_level_fits (&levels[i], *profile,
            GST_VIDEO_INFO_WIDTH (info), GST_VIDEO_INFO_HEIGHT (info), code,
            fps_n, fps_d, kbps, &why))
      *level = &levels[i];
  }
  if (!*level) {
    GST_ELEMENT_ERROR (self, CORE, NEGOTIATION,
        ("The input does not fit any MPEG-2 level downstream allows for the "
            "%s profile: %s", gst_cl_mpeg2_profile_name (*profile),
            why ? why : "downstream allows none of the levels clmpegenc "
            "knows"), ("levels: low, main, high-1440, high (4:2:2: main, "
            "high); a smaller size (videoscale), a lower rate (videorate) "
            "or a lower bitrate fits a lower one"));
    g_free (why);
    return FALSE;
  }
  g_free (why);
  return TRUE;
}

/* MPEG-2's colour description from the input's colorimetry (the ISO
 * code points GStreamer gives are 13818-2's) */
static void
colour_description (const GstVideoInfo * info, GstClMpegSequenceParams * seq)
{
  const GstVideoColorimetry *c = &info->colorimetry;

  seq->colour_primaries = gst_video_color_primaries_to_iso (c->primaries);
  seq->transfer_characteristics =
      gst_video_transfer_function_to_iso (c->transfer);
  seq->matrix_coefficients = gst_video_color_matrix_to_iso (c->matrix);
  seq->colour_description = c->primaries != GST_VIDEO_COLOR_PRIMARIES_UNKNOWN
      || c->transfer != GST_VIDEO_TRANSFER_UNKNOWN
      || c->matrix != GST_VIDEO_COLOR_MATRIX_UNKNOWN;
}

/* The stream downstream takes, into @seq (and @level): that of the
 * format @f if downstream takes it; else MPEG-2 where the first caps it
 * allows ask for it or allow it and @pulldown needs it, MPEG-1 where they
 * allow it (or there is no peer: MPEG-1 plays everywhere). @kbps: the
 * peak or constant rate. Returns the output caps, NULL with the error
 * posted when nothing fits. */
static GstCaps *
choose_stream (GstClMpegEnc * self, const GstVideoInfo * info, guint code,
    const GstClMpegFormat * f, guint kbps, gboolean pulldown,
    GstClMpegSequenceParams * seq, const GstClMpeg2Level ** level)
{
  GstCaps *allowed = gst_pad_get_allowed_caps (GST_VIDEO_ENCODER_SRC_PAD
      (self));
  GstStructure *s;
  gint version = 1;
  guint profile = GST_CL_MPEG2_PROFILE_MAIN;

  if (f && is_chroma_422 (info)) {
    if (allowed)
      gst_caps_unref (allowed);
    GST_ELEMENT_ERROR (self, CORE, NEGOTIATION,
        ("The %s format is 4:2:0 video, and the input is 4:2:2 (Y42B)",
            f->name), ("convert it: videoconvert ! video/x-raw,format=I420"));
    return NULL;
  }
  if (allowed && f) {
    /* the format's version, where downstream takes it */
    GstCaps *want = gst_caps_new_simple ("video/mpeg", "mpegversion",
        G_TYPE_INT, f->mpeg_version, NULL);
    GstCaps *both = gst_caps_intersect (allowed, want);
    gst_caps_unref (want);
    gst_caps_unref (allowed);
    allowed = both;
    if (gst_caps_is_empty (allowed)) {
      gst_caps_unref (allowed);
      GST_ELEMENT_ERROR (self, CORE, NEGOTIATION,
          ("The %s format is MPEG-%u video, which downstream does not take",
              f->name, f->mpeg_version), (NULL));
      return NULL;
    }
  }

  *level = NULL;
  if (allowed && gst_caps_is_empty (allowed)) {
    gst_caps_unref (allowed);
    GST_ELEMENT_ERROR (self, CORE, NEGOTIATION,
        ("Downstream takes neither MPEG-1 nor MPEG-2 video of %ux%u at "
            "%d/%d fps", GST_VIDEO_INFO_WIDTH (info),
            GST_VIDEO_INFO_HEIGHT (info), GST_VIDEO_INFO_FPS_N (info),
            GST_VIDEO_INFO_FPS_D (info)), (NULL));
    return NULL;
  }
  /* what downstream allows first (no peer: anything); where the input
   * needs MPEG-2, the first MPEG-2 it allows */
  if (allowed) {
    guint i = 0, n = gst_caps_get_size (allowed);
    gint v;
    if (!f && (pulldown || is_chroma_422 (info)))
      while (i + 1 < n && !(gst_structure_get_int (gst_caps_get_structure
                  (allowed, i), "mpegversion", &v) && v == 2))
        i++;
    s = gst_structure_copy (gst_caps_get_structure (allowed, i));
    gst_caps_unref (allowed);
  } else {
    s = gst_structure_new_empty ("video/mpeg");
  }
  if (f) {
    version = f->mpeg_version;
  } else {
    gst_structure_fixate_field_nearest_int (s, "mpegversion",
        pulldown || is_chroma_422 (info) ? 2 : 1);
    gst_structure_get_int (s, "mpegversion", &version);
  }
  if (pulldown && version != 2) {
    gst_structure_free (s);
    GST_ELEMENT_ERROR (self, CORE, NEGOTIATION,
        ("3:2 pulldown (pulldown=true) needs MPEG-2 video, and downstream "
            "takes MPEG-1 only"), (NULL));
    return NULL;
  }
  if (is_chroma_422 (info) && version != 2) {
    gst_structure_free (s);
    GST_ELEMENT_ERROR (self, CORE, NEGOTIATION,
        ("4:2:2 input (Y42B) needs MPEG-2 video (its 4:2:2 profile), and "
            "downstream takes MPEG-1 only"),
        ("convert it to 4:2:0: videoconvert ! video/x-raw,format=I420"));
    return NULL;
  }
  if (version == 2 && !choose_profile_level (self, s, info, code, kbps,
          f ? f->level : NULL, &profile, level)) {
    gst_structure_free (s);
    return NULL;
  }
  gst_structure_free (s);
  seq->mpeg2 = version == 2;
  seq->constrained = f && f->constrained;
  seq->frame_rate_code = code;
  if (!seq->mpeg2)
    return gst_caps_new_simple ("video/mpeg", "mpegversion", G_TYPE_INT, 1,
        "systemstream", G_TYPE_BOOLEAN, FALSE, NULL);
  seq->profile_level = gst_cl_mpeg2_profile_and_level (profile, *level);
  colour_description (info, seq);
  return gst_caps_new_simple ("video/mpeg", "mpegversion", G_TYPE_INT, 2,
      "systemstream", G_TYPE_BOOLEAN, FALSE, "profile", G_TYPE_STRING,
      gst_cl_mpeg2_profile_name (profile), "level", G_TYPE_STRING,
      (*level)->name, NULL);
}

/* The aspect ratio code of the stream, with a warning where it is not the
 * input's */
static void
choose_aspect (GstClMpegEnc * self, const GstVideoInfo * info,
    const GstClMpegFormat * f, GstClMpegSequenceParams * seq)
{
  gint par_n = GST_VIDEO_INFO_PAR_N (info), par_d = GST_VIDEO_INFO_PAR_D (info);
  gboolean exact;

  if (!seq->mpeg2) {
    seq->aspect_code = gst_cl_mpeg_aspect_code (par_n, par_d, &exact);
    /* (the application hears of what the stream will not carry as given) */
    if (!exact)
      GST_ELEMENT_WARNING (self, STREAM, FORMAT,
          ("MPEG-1 has no code for the pixel aspect ratio %d/%d: coded as "
              "the nearest it has, %.4f", par_n, par_d,
              gst_cl_mpeg_aspect_ratio (seq->aspect_code)),
          ("pel_aspect_ratio code %u", seq->aspect_code));
    return;
  }
  /* the disc formats signal 4:3 or 16:9, square pixels or not */
  if (f)
    seq->aspect_code = gst_cl_mpeg2_display_aspect_code (GST_VIDEO_INFO_WIDTH
        (info), GST_VIDEO_INFO_HEIGHT (info), par_n, par_d, 3, &exact);
  else
    seq->aspect_code = gst_cl_mpeg2_aspect_code (GST_VIDEO_INFO_WIDTH (info),
        GST_VIDEO_INFO_HEIGHT (info), par_n, par_d, &exact);
  if (!exact)
    GST_ELEMENT_WARNING (self, STREAM, FORMAT,
        ("MPEG-2 has no code for the display aspect ratio of %ux%u with "
            "pixels of %d/%d (%.4f): coded as the nearest it has, %.4f",
            GST_VIDEO_INFO_WIDTH (info), GST_VIDEO_INFO_HEIGHT (info), par_n,
            par_d, (gdouble) GST_VIDEO_INFO_WIDTH (info) * par_n /
            ((gdouble) GST_VIDEO_INFO_HEIGHT (info) * par_d),
            gst_cl_mpeg2_display_aspect (seq->aspect_code)),
        ("aspect_ratio_information %u", seq->aspect_code));
}

/* The bit rates the engine follows for @rc (auto: as set): a constant
 * quantiser ignores bitrate, a constant rate max-bitrate, and a variable
 * one without max-bitrate above bitrate peaks at twice it */
static void
rate_control_settings (GstClMpegEncRateControl rc,
    GstClMpegEngineSettings * s)
{
  switch (rc) {
    case GST_CL_MPEG_ENC_RATE_CONTROL_CQP:
      s->bitrate = 0;
      break;
    case GST_CL_MPEG_ENC_RATE_CONTROL_CBR:
      s->max_bitrate = 0;
      break;
    case GST_CL_MPEG_ENC_RATE_CONTROL_VBR:
      if (s->max_bitrate <= s->bitrate)
        s->max_bitrate = MIN (2 * s->bitrate, 100000);
      break;
    default:
      break;
  }
}

/* The properties' settings as the rate control and the format (once the
 * input's system is known) have them. The object lock is held. */
static void
effective_settings (GstClMpegEnc * self, GstClMpegEngineSettings * settings)
{
  const GstClMpegFormat *f = gst_cl_mpeg_format_get (self->format);

  *settings = self->settings;
  rate_control_settings (self->rate_control, settings);
  if (f && self->format_checked)
    gst_cl_mpeg_format_apply (f, self->format_gop_max,
        self->rate_control == GST_CL_MPEG_ENC_RATE_CONTROL_CBR, settings);
}

/* Hands the engine the effective settings, also into *@pushed unless
 * NULL. The object lock is held. */
static void
push_settings (GstClMpegEnc * self, GstClMpegEngineSettings * pushed)
{
  GstClMpegEngineSettings settings;

  effective_settings (self, &settings);
  gst_cl_mpeg_engine_set_settings (self->engine, &settings);
  if (pushed)
    *pushed = settings;
}

/* Checks the input, at frame_rate_code @code (@pulldown: by 3:2
 * pulldown), against the format @f (if any; the error posted when it
 * does not fit), hands the engine the settings as @f has them, and gives
 * the stream's peak or constant rate (*@kbps). */
static gboolean
apply_format (GstClMpegEnc * self, const GstVideoInfo * info, guint code,
    gboolean pulldown, const GstClMpegFormat * f, guint * kbps)
{
  GstClMpegEngineSettings settings;
  guint gop_max = 0;
  gchar *why = NULL;

  if (f && !gst_cl_mpeg_format_fits (f, GST_VIDEO_INFO_WIDTH (info),
          GST_VIDEO_INFO_HEIGHT (info), code,
          GST_VIDEO_INFO_IS_INTERLACED (info) || pulldown, pulldown,
          &gop_max, &why)) {
    /* (film at 29.97 fps: by 3:2 pulldown) */
    gboolean film = f->mpeg_version == 2 && code == 1;
    GST_ELEMENT_ERROR (self, STREAM, FORMAT, ("%s", why),
        ("%sscale the input first (videoscale, videorate and caps), or set "
            "format=none", film ? "film at 23.976 fps takes pulldown=true; "
            : ""));
    g_free (why);
    return FALSE;
  }
  GST_OBJECT_LOCK (self);
  self->format_checked = f != NULL;
  self->format_gop_max = gop_max;
  push_settings (self, &settings);
  GST_OBJECT_UNLOCK (self);
  *kbps = MAX (settings.bitrate, settings.max_bitrate);
  /* (what was set and is not what the stream gets) */
  if (f && (settings.gop_size < self->settings.gop_size ||
          (self->settings.bitrate &&
              settings.bitrate != self->settings.bitrate))) {
    gchar *gops = gop_max ? g_strdup_printf ("GOPs of %u frames at most "
        "and ", gop_max) : g_strdup ("");
    GST_ELEMENT_WARNING (self, STREAM, FORMAT,
        ("The %s format takes %s%s: coded with gop-size %u and bitrate %u "
            "kbit/s", f->name, gops, f->cbr_kbps ? "a constant rate" :
            "a bit rate below its peak", settings.gop_size,
            settings.bitrate), ("gop-size %u, bitrate %u set",
            self->settings.gop_size, self->settings.bitrate));
    g_free (gops);
  }
  return TRUE;
}

/* 3:2 pulldown: the frame_rate_code that shows progressive film at
 * @code (23.976 or 24 fps) in three and two fields in turn (29.97 or 30),
 * into @code; else the error posted */
static gboolean
pulldown_rate_code (GstClMpegEnc * self, const GstVideoInfo * info,
    guint * code)
{
  gint film_n, film_d;

  gst_cl_mpeg_frame_rate (*code, &film_n, &film_d);
  if (!GST_VIDEO_INFO_IS_INTERLACED (info) && film_n * 5 % 4 == 0) {
    *code = gst_cl_mpeg_frame_rate_code (film_n * 5 / 4, film_d);
    if (*code != 0)
      return TRUE;
  }
  GST_ELEMENT_ERROR (self, STREAM, FORMAT,
      ("3:2 pulldown (pulldown=true) shows progressive film at 23.976 or "
          "24 fps at 29.97 or 30 fps; the input is %s at %d/%d fps",
          gst_video_interlace_mode_to_string (GST_VIDEO_INFO_INTERLACE_MODE
              (info)), GST_VIDEO_INFO_FPS_N (info),
          GST_VIDEO_INFO_FPS_D (info)),
      ("set pulldown=false, or convert the input (videorate, "
          "deinterlace)"));
  return FALSE;
}

/* Frames at the coded rate in @t, rounded */
static guint64
frames_in (GstClMpegEnc * self, GstClockTime t)
{
  return gst_util_uint64_scale_round (t, self->fps_n,
      (guint64) self->fps_d * GST_SECOND);
}

/* Frames in the stream: stream-frames, else by upstream's duration at
 * the coded rate; G_MAXUINT64 where upstream does not say */
static guint64
stream_length (GstClMpegEnc * self)
{
  GstVideoEncoder *enc = GST_VIDEO_ENCODER (self);
  gint64 duration = -1;
  guint64 frames;

  GST_OBJECT_LOCK (self);
  frames = self->stream_frames;
  GST_OBJECT_UNLOCK (self);
  if (frames > 0)
    return frames;
  if (!gst_pad_peer_query_duration (GST_VIDEO_ENCODER_SINK_PAD (enc),
          GST_FORMAT_TIME, &duration) || duration < 0)
    return G_MAXUINT64;
  return frames_in (self, duration);
}

static gboolean
gst_cl_mpeg_enc_set_format (GstVideoEncoder * enc, GstVideoCodecState * state)
{
  GstClMpegEnc *self = GST_CL_MPEG_ENC (enc);
  GstVideoInfo *info = &state->info;
  GstVideoCodecState *out_state;
  GstCaps *caps;
  GError *error = NULL;
  gint fps_n = GST_VIDEO_INFO_FPS_N (info), fps_d = GST_VIDEO_INFO_FPS_D (info);
  GstClMpegSequenceParams seq = { 0, };
  const GstClMpeg2Level *level;
  const GstClMpegFormat *f;
  guint code, kbps;
  gboolean pulldown;

  if (!self->ctx) {
    GST_ELEMENT_ERROR (self, CORE, STATE_CHANGE,
        ("No OpenCL context: the element was not started"), (NULL));
    return FALSE;
  }
  /* a new sequence: what is queued ends the previous one */
  if (drain (self, TRUE) != GST_FLOW_OK)
    return FALSE;

  /* (the pad refuses other rates first: see explain_refused_caps) */
  code = gst_cl_mpeg_frame_rate_code (fps_n, fps_d);
  if (code == 0) {
    refuse_frame_rate (self, fps_n, fps_d);
    return FALSE;
  }
  /* a rate refused later is reported again */
  self->refused_fps_n = self->refused_fps_d = 0;

  gst_cl_mpeg_frame_rate (code, &self->fps_n, &self->fps_d);
  GST_OBJECT_LOCK (self);
  pulldown = self->pulldown;
  GST_OBJECT_UNLOCK (self);
  if (pulldown && !pulldown_rate_code (self, info, &code))
    return FALSE;
  f = gst_cl_mpeg_format_get (self->format);
  if (!apply_format (self, info, code, pulldown, f, &kbps))
    return FALSE;
  caps = choose_stream (self, info, code, f, kbps, pulldown, &seq, &level);
  if (!caps)
    return FALSE;
  seq.pulldown = pulldown;
  choose_aspect (self, info, f, &seq);
  /* MPEG-2 codes the frames of interlaced input as two fields */
  seq.interlaced = seq.mpeg2 && GST_VIDEO_INFO_IS_INTERLACED (info);
  if (GST_VIDEO_INFO_IS_INTERLACED (info) && !seq.mpeg2)
    GST_ELEMENT_WARNING (self, STREAM, FORMAT,
        ("The input is interlaced (%s), and MPEG-1 codes progressive "
            "frames only: both fields are coded in each frame",
            gst_video_interlace_mode_to_string
            (GST_VIDEO_INFO_INTERLACE_MODE (info))),
        ("ask for MPEG-2 (video/mpeg,mpegversion=2 downstream) to code the "
            "fields, or deinterlace first"));

  self->info = *info;
  self->length_asked = FALSE;
  if (!gst_cl_mpeg_engine_configure (self->engine, self->ctx, info, &seq,
          level, &error)) {
    gst_caps_unref (caps);
    GST_CL_ELEMENT_ERROR (self, error);
    return FALSE;
  }

  if (self->input_state)
    gst_video_codec_state_unref (self->input_state);
  self->input_state = gst_video_codec_state_ref (state);

  out_state = gst_video_encoder_set_output_state (enc, caps, state);
  /* the rate the stream signals */
  gst_cl_mpeg_frame_rate (code, &out_state->info.fps_n,
      &out_state->info.fps_d);
  gst_video_codec_state_unref (out_state);
  {
    GstClockTime frame = gst_util_uint64_scale (GST_SECOND, self->fps_d,
        self->fps_n);
    GstClockTime lat = frame *
        gst_cl_mpeg_engine_frames_held (self->engine);
    gst_video_encoder_set_latency (enc, lat, lat);
    /* B pictures: the decoding timestamps run a frame before the
     * presentation ones, which must leave room for that */
    if (self->settings.b_frames > 0)
      gst_video_encoder_set_min_pts (enc, frame);
  }
  return gst_video_encoder_negotiate (enc);
}

/* The place of @frame in the whole stream, in frames: from its stream
 * time (where it has one) at the coded rate, plus frame-offset;
 * G_MAXUINT64 where the timestamps do not say (the engine counts) */
static guint64
stream_position (GstClMpegEnc * self, GstVideoCodecFrame * frame)
{
  GstVideoEncoder *enc = GST_VIDEO_ENCODER (self);
  guint64 offset;
  GstClockTime t;

  GST_OBJECT_LOCK (self);
  offset = self->frame_offset;
  GST_OBJECT_UNLOCK (self);
  /* (the buffer's own timestamp: with B pictures the base class moves the
   * frames' later by the room their decoding timestamps take, min-pts,
   * which is no place in the stream) */
  t = frame->input_buffer ? GST_BUFFER_PTS (frame->input_buffer) :
      GST_CLOCK_TIME_NONE;
  if (!GST_CLOCK_TIME_IS_VALID (t) ||
      enc->input_segment.format != GST_FORMAT_TIME)
    return G_MAXUINT64;
  /* (a frame that starts before the segment counts from its start) */
  t = gst_segment_to_stream_time (&enc->input_segment, GST_FORMAT_TIME,
      MAX (t, enc->input_segment.start));
  if (!GST_CLOCK_TIME_IS_VALID (t))
    return G_MAXUINT64;
  return frames_in (self, t) + offset;
}

static GstFlowReturn
gst_cl_mpeg_enc_handle_frame (GstVideoEncoder * enc,
    GstVideoCodecFrame * frame)
{
  GstClMpegEnc *self = GST_CL_MPEG_ENC (enc);
  GError *error = NULL;
  GstFlowReturn ret;

  if (!gst_cl_mpeg_engine_is_configured (self->engine)) {
    gst_video_codec_frame_unref (frame);
    return GST_FLOW_NOT_NEGOTIATED;
  }
  /* a video meta is no proof of size: the copies and kernels read the
   * planes where it says */
  if (!gst_cl_element_check_input_frame (GST_ELEMENT (self), &self->info,
          frame->input_buffer)) {
    gst_video_codec_frame_unref (frame);
    return GST_FLOW_ERROR;
  }
  /* (upstream knows its duration once it has data: a parser) */
  if (!self->length_asked) {
    guint64 length = stream_length (self);
    gdouble final_fullness;
    GST_OBJECT_LOCK (self);
    final_fullness = self->settings.vbv_final_fullness;
    GST_OBJECT_UNLOCK (self);
    self->length_asked = TRUE;
    gst_cl_mpeg_engine_set_length (self->engine, length);
    if (length == G_MAXUINT64 && final_fullness > 0)
      GST_ELEMENT_WARNING (self, STREAM, ENCODE, ("vbv-final-fullness is "
              "set, but neither stream-frames nor upstream's duration give "
              "the stream's length: the VBV buffer's fullness at the end is "
              "not kept to"), (NULL));
  }
  ret = gst_cl_mpeg_engine_encode (self->engine, frame,
      stream_position (self, frame), &error);
  if (error)
    GST_CL_ELEMENT_ERROR (self, error);
  return ret;
}

static void
log_stage_times (GstClMpegEnc * self)
{
  GstClMpegEngineStats stats;
  GstStructure *st;
  guint64 n, load, search, enc, wait, vlc;

  gst_cl_mpeg_engine_get_stats (self->engine, &stats);
  n = MAX (stats.frames, 1);
  if (!self->ctx || !stats.frames ||
      gst_debug_category_get_threshold (GST_CAT_DEFAULT) < GST_LEVEL_INFO)
    return;
  st = make_stats (self);
  gst_structure_get (st, "device-load-ns", G_TYPE_UINT64, &load,
      "device-search-ns", G_TYPE_UINT64, &search, "device-encode-ns",
      G_TYPE_UINT64, &enc, "host-wait-ns", G_TYPE_UINT64, &wait,
      "host-vlc-ns", G_TYPE_UINT64, &vlc, NULL);
  GST_INFO_OBJECT (self, "stage times per frame over %" G_GUINT64_FORMAT
      " frames (ms): device pad %.3f, search %.3f, macroblocks %.3f; host "
      "waiting %.3f, entropy coding %.3f (%u threads)", stats.frames,
      load / 1e6 / n, search / 1e6 / n, enc / 1e6 / n, wait / 1e6 / n,
      vlc / 1e6 / n, stats.threads);
  gst_structure_free (st);
}

static gboolean
gst_cl_mpeg_enc_flush (GstVideoEncoder * enc)
{
  GstClMpegEnc *self = GST_CL_MPEG_ENC (enc);

  gst_cl_mpeg_engine_flush (self->engine);
  progress_reset (self);
  return TRUE;
}

static GstFlowReturn
gst_cl_mpeg_enc_finish (GstVideoEncoder * enc)
{
  GstClMpegEnc *self = GST_CL_MPEG_ENC (enc);
  GstFlowReturn ret = drain (self, TRUE);

  log_stage_times (self);
  return ret;
}

static gboolean
gst_cl_mpeg_enc_propose_allocation (GstVideoEncoder * enc, GstQuery * query)
{
  GstClMpegEnc *self = GST_CL_MPEG_ENC (enc);
  GstCaps *caps = NULL;
  gboolean need_pool = FALSE;
  GstVideoInfo info;

  gst_query_add_allocation_meta (query, GST_VIDEO_META_API_TYPE, NULL);
  gst_query_parse_allocation (query, &caps, &need_pool);
  /* upstream writing where the upload reads, or straight into device
   * buffers, spares a copy (gst_cl_upload_pool_new) */
  if (caps && need_pool && self->ctx && gst_video_info_from_caps (&info, caps)
      && gst_query_get_n_allocation_pools (query) == 0) {
    GstBufferPool *pool = gst_cl_upload_pool_new (self->ctx, caps, 3);
    if (pool) {
      gst_query_add_allocation_pool (query, pool, info.size, 3, 0);
      gst_object_unref (pool);
    }
  }
  return GST_VIDEO_ENCODER_CLASS (gst_cl_mpeg_enc_parent_class)->
      propose_allocation (enc, query);
}

static gboolean
answer_context_query (GstClMpegEnc * self, GstQuery * query)
{
  GstClContext *ctx = NULL;
  gboolean ret;

  if (GST_QUERY_TYPE (query) != GST_QUERY_CONTEXT)
    return FALSE;
  GST_OBJECT_LOCK (self);
  if (self->ctx)
    ctx = gst_object_ref (self->ctx);
  GST_OBJECT_UNLOCK (self);
  ret = gst_cl_handle_context_query (GST_ELEMENT (self), query, ctx);
  if (ctx)
    gst_object_unref (ctx);
  return ret;
}

/* Whether the stream could be 4:2:2: no disc or broadcast format (all
 * 4:2:0) and downstream takes MPEG-2's 4:2:2 profile */
static gboolean
takes_chroma_422 (GstClMpegEnc * self)
{
  GstCaps *allowed, *want;
  gboolean takes;

  if (gst_cl_mpeg_format_get (self->format))
    return FALSE;
  allowed = gst_pad_get_allowed_caps (GST_VIDEO_ENCODER_SRC_PAD (self));
  if (!allowed)
    return TRUE;
  want = gst_caps_from_string ("video/mpeg, mpegversion=(int)2, "
      "profile=(string)4:2:2");
  takes = gst_caps_can_intersect (allowed, want);
  gst_caps_unref (want);
  gst_caps_unref (allowed);
  return takes;
}

/* Caps the sink pad refused: where 4:2:2 cannot be coded, or the frame
 * rate is all that is wrong, the error says so (and names MPEG-1's
 * rates; else the source's bare "not-negotiated" is all a user would
 * see). */
static void
explain_refused_caps (GstClMpegEnc * self, GstCaps * caps)
{
  GstCaps *with_rate, *templ;
  gint fps_n, fps_d;

  if (!gst_caps_is_fixed (caps))
    return;
  if (g_strcmp0 (gst_structure_get_string (gst_caps_get_structure (caps, 0),
              "format"), "Y42B") == 0 && !takes_chroma_422 (self)) {
    const GstClMpegFormat *f = gst_cl_mpeg_format_get (self->format);
    GST_ELEMENT_ERROR (self, CORE, NEGOTIATION,
        ("4:2:2 input (Y42B) is coded in MPEG-2's 4:2:2 profile only, and "
            "%s%s", f ? f->name : "downstream does not take it",
            f ? " is a format of 4:2:0 video" : ""),
        ("convert it to 4:2:0: videoconvert ! video/x-raw,format=I420"));
    return;
  }
  if (!gst_structure_get_fraction (gst_caps_get_structure (caps, 0),
          "framerate", &fps_n, &fps_d))
    return;
  with_rate = gst_caps_copy (caps);
  gst_caps_set_simple (with_rate, "framerate", GST_TYPE_FRACTION, 25, 1,
      NULL);
  templ = gst_pad_get_pad_template_caps (GST_VIDEO_ENCODER_SINK_PAD (self));
  if (gst_caps_is_subset (with_rate, templ))
    refuse_frame_rate (self, fps_n, fps_d);
  gst_caps_unref (templ);
  gst_caps_unref (with_rate);
}

/* @caps without the format @name */
static GstCaps *
caps_without_format (GstCaps * caps, const gchar * name)
{
  guint i, j;

  caps = gst_caps_make_writable (caps);
  for (i = gst_caps_get_size (caps); i-- > 0;) {
    GstStructure *st = gst_caps_get_structure (caps, i);
    const GValue *formats = gst_structure_get_value (st, "format");

    if (formats && GST_VALUE_HOLDS_LIST (formats)) {
      GValue kept = G_VALUE_INIT;
      gst_value_list_init (&kept, gst_value_list_get_size (formats));
      for (j = 0; j < gst_value_list_get_size (formats); j++) {
        const GValue *v = gst_value_list_get_value (formats, j);
        if (g_strcmp0 (g_value_get_string (v), name) != 0)
          gst_value_list_append_value (&kept, v);
      }
      gst_structure_take_value (st, "format", &kept);
    } else if (formats && G_VALUE_HOLDS_STRING (formats) &&
        g_str_equal (g_value_get_string (formats), name)) {
      gst_caps_remove_structure (caps, i);
    }
  }
  return caps;
}

/* The structures of @caps whose formats hold @name, with that format
 * alone */
static GstCaps *
caps_with_format (GstCaps * caps, const gchar * name)
{
  GstCaps *with = gst_caps_new_empty ();
  guint i, j;

  for (i = 0; i < gst_caps_get_size (caps); i++) {
    const GstStructure *st = gst_caps_get_structure (caps, i);
    const GValue *formats = gst_structure_get_value (st, "format");
    gboolean listed = formats && G_VALUE_HOLDS_STRING (formats) &&
        g_str_equal (g_value_get_string (formats), name);
    for (j = 0; formats && GST_VALUE_HOLDS_LIST (formats) &&
        j < gst_value_list_get_size (formats); j++)
      listed |= g_strcmp0 (g_value_get_string (gst_value_list_get_value
              (formats, j)), name) == 0;
    if (listed) {
      GstStructure *one = gst_structure_copy (st);
      gst_structure_set (one, "format", G_TYPE_STRING, name, NULL);
      gst_caps_append_structure_full (with, one,
          gst_caps_features_copy (gst_caps_get_features (caps, i)));
    }
  }
  return with;
}

/* The template's formats, but 4:2:2 only where the stream can be 4:2:2
 * (as x264enc offers the formats of the profiles downstream allows), and
 * then last: a source that can give any format gives 4:2:0 (MPEG-1 plays
 * everywhere), 4:2:2 only where nothing else is at hand */
static GstCaps *
gst_cl_mpeg_enc_getcaps (GstVideoEncoder * enc, GstCaps * filter)
{
  GstCaps *caps = gst_video_encoder_proxy_getcaps (enc, NULL, filter);
  GstCaps *y42b = takes_chroma_422 (GST_CL_MPEG_ENC (enc)) ?
      caps_with_format (caps, "Y42B") : NULL;

  caps = caps_without_format (caps, "Y42B");
  if (y42b)
    caps = gst_caps_merge (caps, y42b);
  return caps;
}

static gboolean
gst_cl_mpeg_enc_sink_query (GstVideoEncoder * enc, GstQuery * query)
{
  gboolean ret, accepted;
  GstCaps *caps;

  if (answer_context_query (GST_CL_MPEG_ENC (enc), query))
    return TRUE;
  ret = GST_VIDEO_ENCODER_CLASS (gst_cl_mpeg_enc_parent_class)->sink_query
      (enc, query);
  if (ret && GST_QUERY_TYPE (query) == GST_QUERY_ACCEPT_CAPS) {
    gst_query_parse_accept_caps_result (query, &accepted);
    gst_query_parse_accept_caps (query, &caps);
    if (!accepted)
      explain_refused_caps (GST_CL_MPEG_ENC (enc), caps);
  }
  return ret;
}

static gboolean
gst_cl_mpeg_enc_src_query (GstVideoEncoder * enc, GstQuery * query)
{
  if (answer_context_query (GST_CL_MPEG_ENC (enc), query))
    return TRUE;
  return GST_VIDEO_ENCODER_CLASS (gst_cl_mpeg_enc_parent_class)->src_query
      (enc, query);
}

static void
gst_cl_mpeg_enc_set_context (GstElement * element, GstContext * context)
{
  GstClMpegEnc *self = GST_CL_MPEG_ENC (element);

  gst_cl_handle_set_context (element, context, self->device, &self->ctx);
  GST_ELEMENT_CLASS (gst_cl_mpeg_enc_parent_class)->set_context (element,
      context);
}

static GstStateChangeReturn
gst_cl_mpeg_enc_change_state (GstElement * element, GstStateChange transition)
{
  GstClMpegEnc *self = GST_CL_MPEG_ENC (element);
  GstStateChangeReturn ret;

  if (transition == GST_STATE_CHANGE_NULL_TO_READY &&
      !gst_cl_ensure_element_data (element, self->device, &self->ctx))
    return GST_STATE_CHANGE_FAILURE;
  ret = GST_ELEMENT_CLASS (gst_cl_mpeg_enc_parent_class)->change_state
      (element, transition);
  if (ret == GST_STATE_CHANGE_FAILURE)
    return ret;
  if (transition == GST_STATE_CHANGE_READY_TO_NULL) {
    gst_cl_mpeg_engine_release (self->engine);
    GST_OBJECT_LOCK (self);
    gst_clear_object (&self->ctx);
    GST_OBJECT_UNLOCK (self);
  }
  return ret;
}

/* ---- properties ---- */

static GstStructure *
make_stats (GstClMpegEnc * self)
{
  guint64 load_ns = 0, enc_ns = 0, ms_ns = 0, pack_ns = 0;
  GstClMpegEngineStats stats;

  if (self->ctx) {
    gst_cl_context_get_kernel_stats (self->ctx, GST_CL_MPEG_LOAD_LABEL, NULL,
        &load_ns, NULL);
    gst_cl_context_get_kernel_stats (self->ctx, GST_CL_MPEG_ENCODE_LABEL,
        NULL, &enc_ns, NULL);
    gst_cl_context_get_kernel_stats (self->ctx, GST_CL_MPEG_PACK_LABEL,
        NULL, &pack_ns, NULL);
    enc_ns += pack_ns;
    gst_cl_context_get_kernel_stats (self->ctx, GST_CL_MOTION_SEARCH_LABEL,
        NULL, &ms_ns, NULL);
  }
  gst_cl_mpeg_engine_get_stats (self->engine, &stats);
  return gst_structure_new ("clmpegenc-stats",
      "frames", G_TYPE_UINT64, stats.frames,
      "bytes", G_TYPE_UINT64, stats.bytes,
      "reencodes", G_TYPE_UINT64, stats.reencodes,
      "repeated-pictures", G_TYPE_UINT64, stats.repeated,
      "dc-only-pictures", G_TYPE_UINT64, stats.dc_only,
      "vbv-underflows", G_TYPE_UINT64, stats.underflows,
      "scene-cuts", G_TYPE_UINT64, stats.scene_cuts,
      "stuffing-bytes", G_TYPE_UINT64, stats.stuffing_bytes,
      "vbv-buffer-size", G_TYPE_UINT, stats.vbv_size,
      "device-load-ns", G_TYPE_UINT64, load_ns,
      "device-search-ns", G_TYPE_UINT64, ms_ns,
      "device-encode-ns", G_TYPE_UINT64, enc_ns,
      "host-wait-ns", G_TYPE_UINT64, stats.wait_ns,
      "host-vlc-ns", G_TYPE_UINT64, stats.vlc_ns, NULL);
}

/* The preset's settings, but rdo where it was set on its own (object lock
 * held) */
static void
apply_speed_preset (GstClMpegEnc * self)
{
  const SpeedPreset *p = &speed_presets[self->speed_preset];

  if (!self->rdo_set)
    self->settings.rdo = p->rdo;
  self->settings.motion_effort = p->motion_effort;
  self->settings.search_satd = p->search_satd;
  self->settings.refine_upstream_vectors = p->refine_upstream_vectors;
}

static void
gst_cl_mpeg_enc_set_property (GObject * object, guint prop_id,
    const GValue * value, GParamSpec * pspec)
{
  GstClMpegEnc *self = GST_CL_MPEG_ENC (object);

  GST_OBJECT_LOCK (self);
  switch (prop_id) {
    case PROP_DEVICE:
      g_free (self->device);
      self->device = g_value_dup_string (value);
      break;
    case PROP_GOP_SIZE:
    case PROP_KEY_INT_MAX:
      self->settings.gop_size = g_value_get_uint (value);
      break;
    case PROP_RATE_CONTROL:
      self->rate_control = g_value_get_enum (value);
      break;
    case PROP_QUANTIZER:
      self->settings.quantizer = g_value_get_uint (value);
      break;
    case PROP_B_FRAMES:
      self->settings.b_frames = g_value_get_uint (value);
      break;
    case PROP_PULLDOWN:
      self->pulldown = g_value_get_boolean (value);
      break;
    case PROP_SCENE_CUT:
      self->settings.scene_cut = g_value_get_uint (value);
      break;
    case PROP_CLOSED_GOP:
      self->settings.closed_gop = g_value_get_boolean (value);
      break;
    case PROP_B_ADAPT:
      self->settings.b_adapt = g_value_get_boolean (value);
      break;
    case PROP_PB_FACTOR:
      self->settings.pb_factor = g_value_get_double (value);
      break;
    case PROP_IP_FACTOR:
      self->settings.ip_factor = g_value_get_double (value);
      break;
    case PROP_BITRATE:
      self->settings.bitrate = g_value_get_uint (value);
      break;
    case PROP_MAX_BITRATE:
      self->settings.max_bitrate = g_value_get_uint (value);
      break;
    case PROP_VBV_BUFFER_SIZE:
      self->settings.vbv_size = g_value_get_uint (value);
      break;
    case PROP_ADAPTIVE_QUANT:
      self->settings.adaptive = g_value_get_boolean (value);
      break;
    case PROP_SEARCH_RANGE:
      self->settings.search_range = g_value_get_uint (value);
      break;
    case PROP_SUBPEL:
      self->settings.subpel = g_value_get_boolean (value);
      break;
    case PROP_MOTION_METHOD:
      self->settings.motion_method = g_value_get_enum (value);
      break;
    case PROP_RDO:
      self->settings.rdo = g_value_get_boolean (value);
      self->rdo_set = TRUE;
      break;
    case PROP_SPEED_PRESET:
      self->speed_preset = g_value_get_enum (value);
      apply_speed_preset (self);
      break;
    case PROP_FORMAT:
      self->format = g_value_get_enum (value);
      break;
    case PROP_INTRA_DC_PRECISION:
      self->settings.intra_dc_precision = g_value_get_uint (value);
      break;
    case PROP_NON_LINEAR_QUANT:
      self->settings.non_linear_quant = g_value_get_boolean (value);
      break;
    case PROP_FRAME_OFFSET:
      self->frame_offset = g_value_get_uint64 (value);
      break;
    case PROP_VBV_INITIAL_FULLNESS:
      self->settings.vbv_initial_fullness = g_value_get_double (value);
      break;
    case PROP_VBV_FINAL_FULLNESS:
      self->settings.vbv_final_fullness = g_value_get_double (value);
      break;
    case PROP_STREAM_FRAMES:
      self->stream_frames = g_value_get_uint64 (value);
      break;
    case PROP_SLICES:
      self->settings.slices = g_value_get_uint (value);
      break;
    case PROP_POST_MESSAGES:
      self->post_messages = g_value_get_boolean (value);
      break;
    case PROP_INTERVAL:
      self->interval = g_value_get_uint64 (value);
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
      break;
  }
  /* the engine takes them from its next picture, GOP or configuration,
   * as each says */
  push_settings (self, NULL);
  GST_OBJECT_UNLOCK (self);
}

static void
gst_cl_mpeg_enc_get_property (GObject * object, guint prop_id, GValue * value,
    GParamSpec * pspec)
{
  GstClMpegEnc *self = GST_CL_MPEG_ENC (object);

  if (prop_id == PROP_STATS) {
    g_value_take_boxed (value, make_stats (self));
    return;
  }
  GST_OBJECT_LOCK (self);
  switch (prop_id) {
    case PROP_DEVICE:
      g_value_set_string (value, self->device);
      break;
    case PROP_GOP_SIZE:
    case PROP_KEY_INT_MAX:
      g_value_set_uint (value, self->settings.gop_size);
      break;
    case PROP_RATE_CONTROL:
      g_value_set_enum (value, self->rate_control);
      break;
    case PROP_QUANTIZER:
      g_value_set_uint (value, self->settings.quantizer);
      break;
    case PROP_B_FRAMES:
      g_value_set_uint (value, self->settings.b_frames);
      break;
    case PROP_PULLDOWN:
      g_value_set_boolean (value, self->pulldown);
      break;
    case PROP_SCENE_CUT:
      g_value_set_uint (value, self->settings.scene_cut);
      break;
    case PROP_CLOSED_GOP:
      g_value_set_boolean (value, self->settings.closed_gop);
      break;
    case PROP_B_ADAPT:
      g_value_set_boolean (value, self->settings.b_adapt);
      break;
    case PROP_PB_FACTOR:
      g_value_set_double (value, self->settings.pb_factor);
      break;
    case PROP_IP_FACTOR:
      g_value_set_double (value, self->settings.ip_factor);
      break;
    case PROP_BITRATE:
      g_value_set_uint (value, self->settings.bitrate);
      break;
    case PROP_MAX_BITRATE:
      g_value_set_uint (value, self->settings.max_bitrate);
      break;
    case PROP_VBV_BUFFER_SIZE:
      g_value_set_uint (value, self->settings.vbv_size);
      break;
    case PROP_ADAPTIVE_QUANT:
      g_value_set_boolean (value, self->settings.adaptive);
      break;
    case PROP_SEARCH_RANGE:
      g_value_set_uint (value, self->settings.search_range);
      break;
    case PROP_SUBPEL:
      g_value_set_boolean (value, self->settings.subpel);
      break;
    case PROP_MOTION_METHOD:
      g_value_set_enum (value, self->settings.motion_method);
      break;
    case PROP_RDO:
      g_value_set_boolean (value, self->settings.rdo);
      break;
    case PROP_SPEED_PRESET:
      g_value_set_enum (value, self->speed_preset);
      break;
    case PROP_FORMAT:
      g_value_set_enum (value, self->format);
      break;
    case PROP_INTRA_DC_PRECISION:
      g_value_set_uint (value, self->settings.intra_dc_precision);
      break;
    case PROP_NON_LINEAR_QUANT:
      g_value_set_boolean (value, self->settings.non_linear_quant);
      break;
    case PROP_FRAME_OFFSET:
      g_value_set_uint64 (value, self->frame_offset);
      break;
    case PROP_VBV_INITIAL_FULLNESS:
      g_value_set_double (value, self->settings.vbv_initial_fullness);
      break;
    case PROP_VBV_FINAL_FULLNESS:
      g_value_set_double (value, self->settings.vbv_final_fullness);
      break;
    case PROP_STREAM_FRAMES:
      g_value_set_uint64 (value, self->stream_frames);
      break;
    case PROP_SLICES:
      g_value_set_uint (value, self->settings.slices);
      break;
    case PROP_POST_MESSAGES:
      g_value_set_boolean (value, self->post_messages);
      break;
    case PROP_INTERVAL:
      g_value_set_uint64 (value, self->interval);
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
      break;
  }
  GST_OBJECT_UNLOCK (self);
}

static void
gst_cl_mpeg_enc_finalize (GObject * object)
{
  GstClMpegEnc *self = GST_CL_MPEG_ENC (object);

  g_free (self->device);
  gst_clear_object (&self->ctx);
  gst_cl_mpeg_engine_free (self->engine);
  G_OBJECT_CLASS (gst_cl_mpeg_enc_parent_class)->finalize (object);
}

static void
gst_cl_mpeg_enc_class_init (GstClMpegEncClass * klass)
{
  GObjectClass *gobject_class = G_OBJECT_CLASS (klass);
  GstElementClass *element_class = GST_ELEMENT_CLASS (klass);
  GstVideoEncoderClass *enc_class = GST_VIDEO_ENCODER_CLASS (klass);
  const GParamFlags rw = G_PARAM_READWRITE | G_PARAM_STATIC_STRINGS;

  gobject_class->set_property = gst_cl_mpeg_enc_set_property;
  gobject_class->get_property = gst_cl_mpeg_enc_get_property;
  gobject_class->finalize = gst_cl_mpeg_enc_finalize;

  g_object_class_install_property (gobject_class, PROP_DEVICE,
      gst_cl_param_spec_device (GST_PARAM_MUTABLE_READY));
  g_object_class_install_property (gobject_class, PROP_GOP_SIZE,
      g_param_spec_uint ("gop-size", "GOP size",
          "Pictures per group of pictures (an I picture, then P pictures)",
          1, 1000, DEFAULT_GOP_SIZE, rw | GST_PARAM_MUTABLE_PLAYING));
  g_object_class_install_property (gobject_class, PROP_KEY_INT_MAX,
      g_param_spec_uint ("key-int-max", "Maximum key frame interval",
          "Pictures from one I picture to the next: gop-size under the name "
          "other GStreamer encoders give it", 1, 1000, DEFAULT_GOP_SIZE,
          rw | GST_PARAM_MUTABLE_PLAYING));
  g_object_class_install_property (gobject_class, PROP_RATE_CONTROL,
      g_param_spec_enum ("rate-control", "Rate control",
          "How the quantiser is chosen: auto (from bitrate and max-bitrate: "
          "a constant quantiser without bitrate, a variable rate with "
          "max-bitrate above it, else a constant rate), cqp (quantizer, "
          "under max-bitrate where set), cbr (bitrate, constant), vbr "
          "(bitrate on average under max-bitrate, or twice bitrate without "
          "it). Applies from the next GOP, as bitrate",
          GST_TYPE_CL_MPEG_ENC_RATE_CONTROL, DEFAULT_RATE_CONTROL,
          rw | GST_PARAM_MUTABLE_PLAYING));
  g_object_class_install_property (gobject_class, PROP_QUANTIZER,
      g_param_spec_uint ("quantizer", "Quantizer",
          "quantiser_scale of P pictures when bitrate is 0 (1 finest .. 31 "
          "coarsest; I pictures: this / ip-factor)",
          1, 31, DEFAULT_QUANTIZER, rw | GST_PARAM_MUTABLE_PLAYING));
  g_object_class_install_property (gobject_class, PROP_IP_FACTOR,
      g_param_spec_double ("ip-factor", "I/P quantiser factor",
          "Quantiser of P pictures over that of I pictures (I pictures, "
          "which the GOP's P pictures predict from, are coded finer; with "
          "a bit rate too). 0: automatic, for each I picture 1 + the share "
          "of the macroblocks that the P pictures since the last one copied "
          "from their reference (2 for a static camera, near 1 where the "
          "picture changes; for the first I picture and a cut's, the P "
          "picture's after it with a constant quantiser, else 1.4 and the "
          "last factor), its excess over "
          "1 in proportion to the P pictures left where the stream ends "
          "within the GOP (stream-frames); between 0 and 1: 1", 0.0, 4.0,
          DEFAULT_IP_FACTOR,
          rw | GST_PARAM_MUTABLE_PLAYING));
  g_object_class_install_property (gobject_class, PROP_B_FRAMES,
      g_param_spec_uint ("b-frames", "B-frames",
          "B pictures between two anchors (I or P pictures), predicted from "
          "both; a closed GOP's last picture is a P picture (closed-gop)",
          0, MAX_B_FRAMES, DEFAULT_B_FRAMES, rw | GST_PARAM_MUTABLE_READY));
  /**
   * GstClMpegEnc:closed-gop:
   *
   * With B pictures, whether each GOP can be decoded on its own. An open
   * GOP (closed-gop=false) ends with B pictures, like the ones between
   * its anchors, which are coded after the next GOP's I picture and
   * predicted from it and from the last anchor before it: one P picture a
   * GOP fewer. Decoders that start at such an I picture (a seek, a cut)
   * drop those B pictures. A key unit asked for, a new sequence and the
   * end of the stream close the GOP; so does every GOP that the pieces of
   * a chunked encode are cut at, which should keep closed GOPs.
   */
  g_object_class_install_property (gobject_class, PROP_CLOSED_GOP,
      g_param_spec_boolean ("closed-gop", "Closed GOP",
          "Each GOP decodable on its own (with B pictures; off: a GOP ends "
          "with B pictures predicted from the next GOP's I picture too, "
          "one P picture fewer a GOP; applies from the next GOP)",
          DEFAULT_CLOSED_GOP, rw | GST_PARAM_MUTABLE_PLAYING));
  /**
   * GstClMpegEnc:b-adapt:
   *
   * With B pictures, whether each GOP has them only where they pay. B
   * pictures need fewer bits where the motion is slow or steady, and more
   * than P pictures alone where it is large or complex (the P picture
   * b-frames + 1 frames on then costs too much). With b-adapt the encoder
   * measures both as it goes: a GOP has b-frames B pictures between its
   * anchors where, in the last GOPs, the P pictures further on with their
   * B pictures took fewer bits a frame than P pictures a frame apart,
   * and P pictures alone otherwise; between its first two P pictures it
   * tries the other spacing, to go on measuring both.
   */
  g_object_class_install_property (gobject_class, PROP_B_ADAPT,
      g_param_spec_boolean ("b-adapt", "Adaptive B-frames",
          "With b-frames, B pictures only in the GOPs where they take fewer "
          "bits than P pictures alone, as measured on the last GOPs "
          "(applies from the next GOP)",
          DEFAULT_B_ADAPT, rw | GST_PARAM_MUTABLE_PLAYING));
  /**
   * GstClMpegEnc:scene-cut:
   *
   * A cut in the video makes a P picture of intra macroblocks that
   * predict nothing, and the I picture that starts the next GOP soon
   * after codes much the same again. Where at least this percentage of a
   * P picture's macroblocks come out intra, the picture is coded again as
   * an I picture that starts a GOP (and a sequence): the rate control
   * spends on it as on an I picture, and the GOP counts from there. Not
   * with B pictures, nor on the last picture of a GOP. The pieces of a
   * chunked encode, cut at fixed GOPs, need it off to join into the
   * single encode's bytes.
   */
  g_object_class_install_property (gobject_class, PROP_SCENE_CUT,
      g_param_spec_uint ("scene-cut", "Scene cut",
          "A P picture with at least this percentage of intra macroblocks "
          "is coded as an I picture that starts a GOP (0: never; without "
          "B pictures)", 0, 100, DEFAULT_SCENE_CUT,
          rw | GST_PARAM_MUTABLE_PLAYING));
  g_object_class_install_property (gobject_class, PROP_PB_FACTOR,
      g_param_spec_double ("pb-factor", "P/B quantiser factor",
          "Quantiser of B pictures over that of P pictures (no picture "
          "predicts from B pictures: they are coded coarser; with a bit "
          "rate too)", 1.0, 4.0, DEFAULT_PB_FACTOR,
          rw | GST_PARAM_MUTABLE_PLAYING));
  g_object_class_install_property (gobject_class, PROP_BITRATE,
      g_param_spec_uint ("bitrate", "Bit rate",
          "Target bit rate in kbit/s under the VBV buffer model "
          "(0: constant quantiser); set while playing, it applies from the "
          "next GOP, which starts a new sequence", 0, 100000, DEFAULT_BITRATE,
          rw | GST_PARAM_MUTABLE_PLAYING));
  g_object_class_install_property (gobject_class, PROP_MAX_BITRATE,
      g_param_spec_uint ("max-bitrate", "Maximum bit rate",
          "Peak bit rate in kbit/s: with bitrate below it, a variable rate "
          "of bitrate on average that never outruns a decoder reading at "
          "this peak (vbv_delay 0xFFFF; the sequence header signals the "
          "peak); with bitrate 0, the constant quantiser under it, coarser "
          "only where a picture would not fit. 0: a constant rate with "
          "bitrate; without, no peak (MPEG-2: the level's). Applies from the "
          "next GOP, as bitrate", 0, 100000, DEFAULT_MAX_BITRATE,
          rw | GST_PARAM_MUTABLE_PLAYING));
  g_object_class_install_property (gobject_class, PROP_VBV_BUFFER_SIZE,
      g_param_spec_uint ("vbv-buffer-size", "VBV buffer size",
          "Decoder buffer in units of 16384 bits (0: half a second at the "
          "bit rate; 1023 without one). With a bit rate it is raised, with a "
          "warning naming the size used (the stats' vbv-buffer-size), to at "
          "least two pictures' worth of bits and the largest picture the "
          "encoder may be forced to write (an I picture of DC levels only, "
          "as far as the bit rate can fill the buffer within the longest "
          "vbv_delay); reading the property gives the value set; set while "
          "playing, it applies from the next GOP, as the bit rate",
          0, 1023, DEFAULT_VBV_SIZE, rw | GST_PARAM_MUTABLE_PLAYING));
  g_object_class_install_property (gobject_class, PROP_ADAPTIVE_QUANT,
      g_param_spec_boolean ("adaptive-quant", "Adaptive quantisation",
          "Per-macroblock quantiser from its activity (0.5 to 2 times the "
          "picture's)", DEFAULT_ADAPTIVE_QUANT, rw |
          GST_PARAM_MUTABLE_PLAYING));
  g_object_class_install_property (gobject_class, PROP_SEARCH_RANGE,
      g_param_spec_uint ("search-range", "Search range",
          "Motion search window in pixels, [-range, range - 1] (0: no "
          "search, zero vectors), when no upstream vectors come",
          0, GST_CL_MOTION_SEARCH_MAX_RANGE, DEFAULT_SEARCH_RANGE,
          rw | GST_PARAM_MUTABLE_READY));
  g_object_class_install_property (gobject_class, PROP_SUBPEL,
      g_param_spec_boolean ("subpel", "Half-pel search",
          "Refine the vectors of the motion search to half-pel",
          DEFAULT_SUBPEL, rw | GST_PARAM_MUTABLE_READY));
  g_object_class_install_property (gobject_class, PROP_MOTION_METHOD,
      g_param_spec_enum ("motion-method", "Motion search method",
          "How the motion search looks: hierarchical (coarse to fine, "
          "following motion past the window, many times faster on CPUs; "
          "starting from an upstream clmotionsearch's vectors, at full "
          "resolution where they lead close to the reference), full "
          "(every displacement of the window; upstream vectors taken as "
          "they are a frame apart), or auto (hierarchical)",
          GST_TYPE_CL_MOTION_METHOD,
          DEFAULT_MOTION_METHOD, rw | GST_PARAM_MUTABLE_READY));
  g_object_class_install_property (gobject_class, PROP_RDO,
      g_param_spec_boolean ("rdo", "Rate-distortion optimisation",
          "Trellis quantisation (each block's levels chosen for the least "
          "squared error plus lambda times bits of its run-level codes), and "
          "in P pictures the zero vector, the moving vectors (the searched "
          "one, and the left neighbour's or one above's) and intra coded "
          "and compared the same way, levels kept only where they pay for "
          "the macroblock's header, and at the medium and slow speed "
          "presets the motion search's half-pel positions ranked by SATD "
          "(off: rounding with a dead zone, SAD rules for the vector and "
          "intra)", DEFAULT_RDO,
          rw | GST_PARAM_MUTABLE_PLAYING));
  g_object_class_install_property (gobject_class, PROP_INTRA_DC_PRECISION,
      g_param_spec_uint ("intra-dc-precision", "Intra DC precision",
          "Bits of the intra blocks' DC coefficients in MPEG-2 (MPEG-1 has "
          "8): more keep smooth gradients from banding at fine quantisers, "
          "for more bits; 11 in the 4:2:2 profile only (elsewhere 10, with "
          "a warning). Applies from the next picture", 8, 11,
          DEFAULT_INTRA_DC_PRECISION, rw | GST_PARAM_MUTABLE_PLAYING));
  /**
   * GstClMpegEnc:non-linear-quant:
   *
   * MPEG-2's non-linear quantiser scale (q_scale_type 1): its steps widen
   * as the quantiser grows, so that the coarsest quantiser_scale is 112
   * instead of 62. A bit rate too low for the content then coarsens the
   * pictures further before it must drop their levels. The encoder codes
   * the scale's even quantiser_scale values, every quantiser (as
   * #GstClMpegEnc:quantizer counts them, quantiser_scale / 2) to 12,
   * every second to 28, every fourth to 56: below 12 the same steps as
   * the linear scale. MPEG-1 has the linear scale only.
   */
  g_object_class_install_property (gobject_class, PROP_NON_LINEAR_QUANT,
      g_param_spec_boolean ("non-linear-quant", "Non-linear quantiser",
          "MPEG-2's non-linear quantiser scale (q_scale_type 1): quantisers "
          "up to 56 instead of 31, in wider steps above 12, for rates too "
          "low for the content (MPEG-1: linear)",
          DEFAULT_NON_LINEAR_QUANT, rw | GST_PARAM_MUTABLE_READY));
  /**
   * GstClMpegEnc:format:
   *
   * A disc or broadcast format the stream keeps to: its MPEG version
   * (whatever downstream prefers) and lowest MPEG-2 level, frame sizes,
   * rates and scanning (other input is refused), its rates and VBV buffer
   * (a constant 1150 kbit/s for VCD; for the others their peak, with
   * #GstClMpegEnc:bitrate as the average below it, or the constant
   * quantiser under it; #GstClMpegEnc:rate-control cbr keeps bitrate
   * constant below the peak), and for the discs GOPs no longer than their
   * longest (30 fields at 25 Hz, 36 at 29.97 Hz: 15 and 18 frames, 14
   * with #GstClMpegEnc:pulldown).
   */
  g_object_class_install_property (gobject_class, PROP_FORMAT,
      g_param_spec_enum ("format", "Format",
          "Disc or broadcast format to keep to: none, vcd (MPEG-1, 352x288 "
          "at 25 or 352x240 at 29.97 or 23.976 fps, 1150 kbit/s constant), "
          "svcd (MPEG-2, 480x576 or 480x480, at most 2600 kbit/s), dvd "
          "(MPEG-2, 720x576, 704x576, 352x576 or 352x288 at 25 fps, the "
          "same widths with 480 or 240 lines at 29.97 fps, at most 9800 "
          "kbit/s), dvb (MPEG-2 main level, 720, 704, 544, 480 or 352 x 576 "
          "or 352x288 at 25 fps, at most 15000 kbit/s), dvb-hd (MPEG-2 high "
          "level, 1920 or 1440 x 1080 at 25 fps, 1280x720 progressive at 25 "
          "or 50 fps, at most 80000 kbit/s), atsc (MPEG-2 high level, "
          "A/53's 1920x1080, 1280x720, 704x480 and 640x480 formats, at most "
          "19400 kbit/s); sets the stream type, the rates, the VBV buffer "
          "and for the discs caps gop-size at 15 (25 fps) or 18 (29.97 "
          "fps); other input is refused",
          GST_TYPE_CL_MPEG_ENC_FORMAT, DEFAULT_FORMAT,
          rw | GST_PARAM_MUTABLE_READY));
  /**
   * GstClMpegEnc:pulldown:
   *
   * Soft 3:2 pulldown, as DVD and ATSC carry film: progressive input at
   * 24000/1001 (or 24) fps becomes an MPEG-2 sequence at 30000/1001 (or
   * 30) fps whose progressive frames are shown for three fields and two
   * in turn (repeat_first_field, top_field_first), four frames in ten
   * field periods. The frames keep their timestamps; the VBV model follows
   * each picture's display time. Other input is refused with an error.
   */
  g_object_class_install_property (gobject_class, PROP_PULLDOWN,
      g_param_spec_boolean ("pulldown", "3:2 pulldown",
          "Soft 3:2 pulldown (MPEG-2): progressive 23.976 (24) fps input "
          "is signalled at 29.97 (30) fps, its frames shown for three and "
          "two fields in turn (repeat_first_field); other input is refused",
          DEFAULT_PULLDOWN, rw | GST_PARAM_MUTABLE_READY));
  /**
   * GstClMpegEnc:speed-preset:
   *
   * Speed against compression, fastest first: whether rate-distortion
   * decisions are made (#GstClMpegEnc:rdo, unless it is set on its own,
   * which it then keeps whatever the order the two are set in), how much
   * the hierarchical motion search does at full resolution, whether
   * with rdo it ranks its half-pel positions by SATD or by the cheaper
   * SAD, and whether behind clmotionsearch P pictures search around its
   * vectors (all but ultrafast) or take them as they are. Reading rdo
   * gives the value in effect.
   */
  g_object_class_install_property (gobject_class, PROP_SPEED_PRESET,
      g_param_spec_enum ("speed-preset", "Speed preset",
          "Speed against compression, fastest first: ultrafast (rdo off, "
          "the lightest search: one square around the best predictor at "
          "full resolution, no vector taken from a neighbour; behind "
          "clmotionsearch its vectors taken as they are), veryfast "
          "(rdo off), fast (rdo, the search's half-pel positions ranked by "
          "SAD), medium (the defaults: rdo, the half-pel positions ranked "
          "by SATD, up to three squares, one pass taking the neighbours' "
          "vectors; "
          "in interlaced pictures a field search around the top fields' "
          "vectors too), slow (up to six squares, two such passes; in "
          "interlaced pictures a field search twice as wide, as wide "
          "around the top fields' vectors). rdo set on its own keeps its "
          "value",
          GST_TYPE_CL_MPEG_ENC_SPEED_PRESET, DEFAULT_SPEED_PRESET,
          rw | GST_PARAM_MUTABLE_READY));
  g_object_class_install_property (gobject_class, PROP_SLICES,
      g_param_spec_uint ("slices", "Slices",
          "Slices per picture, of whole macroblock rows (0: as many as the "
          "picture's size makes worth coding in parallel, one per about 20 "
          "kbit, at most one per row; a value at or above the rows: one per "
          "row; MPEG-2: always one per row). Each slice costs a header and "
          "restarts the predictors; fewer slices save those bits but leave "
          "fewer independent parts to resynchronise on and to code in "
          "parallel", 0, 175,
          DEFAULT_SLICES, rw | GST_PARAM_MUTABLE_PLAYING));
  g_object_class_install_property (gobject_class, PROP_FRAME_OFFSET,
      g_param_spec_uint64 ("frame-offset", "Frame offset",
          "Frames before the first one in the whole stream, added to the "
          "position its timestamps give (stream time): the GOP time codes "
          "count from it, so that a piece of a chunked encode that starts "
          "at frame N, given N, writes what the whole encode writes there",
          0, G_MAXUINT64 / 2, DEFAULT_FRAME_OFFSET,
          rw | GST_PARAM_MUTABLE_READY));
  g_object_class_install_property (gobject_class, PROP_VBV_INITIAL_FULLNESS,
      g_param_spec_double ("vbv-initial-fullness", "VBV initial fullness",
          "Constant bit rate: the VBV buffer's fullness, as a fraction of "
          "it, when the first picture is decoded (0: the encoder's choice, "
          "0.8); a piece of a chunked encode starts at what the one before "
          "ends with", 0.0, 1.0, 0.0, rw | GST_PARAM_MUTABLE_READY));
  g_object_class_install_property (gobject_class, PROP_VBV_FINAL_FULLNESS,
      g_param_spec_double ("vbv-final-fullness", "VBV final fullness",
          "The fullness, as a fraction of the VBV buffer, that the last "
          "picture leaves for a picture after it (0: any): a piece of a "
          "chunked encode ends where the next one starts (at a constant "
          "rate its vbv-initial-fullness, at a variable rate full, 1); "
          "needs the stream's length (stream-frames, or upstream's "
          "duration)", 0.0, 1.0, 0.0,
          rw | GST_PARAM_MUTABLE_READY));
  g_object_class_install_property (gobject_class, PROP_STREAM_FRAMES,
      g_param_spec_uint64 ("stream-frames", "Stream frames",
          "Frames the stream will hold, for vbv-final-fullness and the "
          "automatic ip-factor of the last GOP (0: from upstream's "
          "duration, where it answers)", 0, G_MAXUINT64 / 2, 0,
          rw | GST_PARAM_MUTABLE_READY));
  g_object_class_install_property (gobject_class, PROP_STATS,
      g_param_spec_boxed ("stats", "Statistics",
          "Frames, bytes, VBV re-encodes, pictures repeated, pictures of DC "
          "levels only, pictures that did not fit the VBV buffer, P "
          "pictures coded again as I at cuts, and stuffing, "
          "the VBV buffer size used (units of 16384 bits), "
          "device time per stage (0 unless the context times launches: "
          "GST_CL_PROFILING=1) and host time waiting and entropy coding "
          "(ns)",
          GST_TYPE_STRUCTURE, G_PARAM_READABLE | G_PARAM_STATIC_STRINGS));

  /**
   * GstClMpegEnc:post-messages:
   *
   * Post a "clmpegenc" element message for the frame that completes each
   * interval: the totals so far and the interval's frames, bytes, bit
   * rate, mean quantiser and coding speed.
   */
  g_object_class_install_property (gobject_class, PROP_POST_MESSAGES,
      g_param_spec_boolean ("post-messages", "Post messages",
          "Post a \"clmpegenc\" element message with the coding progress "
          "for each interval", DEFAULT_POST_MESSAGES,
          rw | GST_PARAM_MUTABLE_PLAYING));
  /**
   * GstClMpegEnc:interval:
   *
   * Stream time between progress messages, in nanoseconds; 0: every frame.
   */
  g_object_class_install_property (gobject_class, PROP_INTERVAL,
      g_param_spec_uint64 ("interval", "Interval",
          "Stream time between progress messages in nanoseconds (0: every "
          "frame)", 0, G_MAXUINT64, DEFAULT_INTERVAL,
          rw | GST_PARAM_MUTABLE_PLAYING));

  gst_element_class_add_static_pad_template (element_class, &sink_template);
  gst_element_class_add_static_pad_template (element_class, &src_template);
  gst_element_class_set_static_metadata (element_class,
      "OpenCL MPEG-1 and MPEG-2 video encoder",
      "Codec/Encoder/Video/Hardware", "MPEG-1 and MPEG-2 video (ISO/IEC "
      "11172-2, 13818-2) encoder with its transform stages on an OpenCL "
      "device", "gst-clvideo developers");

  element_class->set_context = gst_cl_mpeg_enc_set_context;
  element_class->change_state = gst_cl_mpeg_enc_change_state;

  enc_class->start = gst_cl_mpeg_enc_start;
  enc_class->stop = gst_cl_mpeg_enc_stop;
  enc_class->set_format = gst_cl_mpeg_enc_set_format;
  enc_class->handle_frame = gst_cl_mpeg_enc_handle_frame;
  enc_class->finish = gst_cl_mpeg_enc_finish;
  enc_class->flush = gst_cl_mpeg_enc_flush;
  enc_class->propose_allocation = gst_cl_mpeg_enc_propose_allocation;
  enc_class->sink_query = gst_cl_mpeg_enc_sink_query;
  enc_class->getcaps = gst_cl_mpeg_enc_getcaps;
  enc_class->src_query = gst_cl_mpeg_enc_src_query;

  gst_type_mark_as_plugin_api (GST_TYPE_CL_MPEG_ENC_SPEED_PRESET, 0);
  gst_type_mark_as_plugin_api (GST_TYPE_CL_MPEG_ENC_FORMAT, 0);
  gst_type_mark_as_plugin_api (GST_TYPE_CL_MPEG_ENC_RATE_CONTROL, 0);
}

static void
gst_cl_mpeg_enc_init (GstClMpegEnc * self)
{
  static const GstClMpegEngineCallbacks callbacks = {
    picture_done, engine_warning,
  };
  static const GstClMpegEngineSettings defaults = {
    .gop_size = DEFAULT_GOP_SIZE,
    .quantizer = DEFAULT_QUANTIZER,
    .bitrate = DEFAULT_BITRATE,
    .max_bitrate = DEFAULT_MAX_BITRATE,
    .intra_dc_precision = DEFAULT_INTRA_DC_PRECISION,
    .non_linear_quant = DEFAULT_NON_LINEAR_QUANT,
    .vbv_size = DEFAULT_VBV_SIZE,
    .slices = DEFAULT_SLICES,
    .search_range = DEFAULT_SEARCH_RANGE,
    .ip_factor = DEFAULT_IP_FACTOR,
    .b_frames = DEFAULT_B_FRAMES,
    .closed_gop = DEFAULT_CLOSED_GOP,
    .b_adapt = DEFAULT_B_ADAPT,
    .scene_cut = DEFAULT_SCENE_CUT,
    .pb_factor = DEFAULT_PB_FACTOR,
    .adaptive = DEFAULT_ADAPTIVE_QUANT,
    .subpel = DEFAULT_SUBPEL,
    .rdo = DEFAULT_RDO,
    .motion_method = DEFAULT_MOTION_METHOD,
  };

  self->settings = defaults;
  /* (the search's effort comes from the preset) */
  self->speed_preset = DEFAULT_SPEED_PRESET;
  apply_speed_preset (self);
  self->format = DEFAULT_FORMAT;
  self->pulldown = DEFAULT_PULLDOWN;
  self->post_messages = DEFAULT_POST_MESSAGES;
  self->interval = DEFAULT_INTERVAL;
  self->engine = gst_cl_mpeg_engine_new (GST_OBJECT (self), &self->settings,
      &callbacks, self);
}
