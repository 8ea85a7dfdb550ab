/* gst-clvideo: MPEG-1 and MPEG-2 encoding engine: frame scheduling
 * between the device stages, the slice coders and the rate control
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#pragma once

#include <gst/video/video.h>
#include <gst/cl/gstclcontext.h>
#include <gst/cl/gstclmotionmeta.h>
#include "gstclmotionsearchcompute.h"
#include "gstclmpegheaders.h"
#include "gstclmpegprofile.h"

G_BEGIN_DECLS

/**
 * GstClMpegEngine:
 *
 * Codes frames into MPEG-1 or MPEG-2 pictures, one frame behind: while the
 * device works on a frame, the host codes the slices of the one before on
 * worker threads. With B pictures, the frames between two anchors wait
 * for the later one, and come out after it, in coding order, with the
 * decoding timestamps that order takes. Every GOP starts with a
 * sequence header, closed unless settings say otherwise; the rate control
 * recodes a picture that would underflow the VBV buffer. The element
 * around it (clmpegenc) owns the properties, the caps and the bus; the
 * engine hands it each coded frame and what the application must hear
 * of through #GstClMpegEngineCallbacks.
 */
typedef struct _GstClMpegEngine GstClMpegEngine;

/* What the element's properties set. gop_size, quantizer, ip_factor,
 * adaptive, rdo and slices apply from the next picture, bitrate,
 * max_bitrate and vbv_size from the next GOP (which starts a new
 * sequence), the motion
 * search's from the next gst_cl_mpeg_engine_configure(). */
typedef struct
{
  guint gop_size, quantizer, bitrate, max_bitrate, vbv_size, slices;
  guint search_range;
  guint intra_dc_precision;     /* MPEG-2: 8 to 11 bits */
  guint b_frames;               /* B pictures between anchors; from the
                                 * next gst_cl_mpeg_engine_configure() */
  /* MPEG-2: the non-linear quantiser_scale (quantisers to 56), from the
   * next gst_cl_mpeg_engine_configure() */
  gboolean non_linear_quant;
  gboolean b_adapt;             /* from the next GOP: B pictures in the
                                 * GOPs where they pay, P pictures alone
                                 * in the others */
  gdouble ip_factor, pb_factor;
  /* constant rate: the buffer's fullness (fractions of it) when the
   * first picture is removed (0: the encoder's choice) and after the
   * last (0: any), from the next gst_cl_mpeg_engine_configure() */
  gdouble vbv_initial_fullness, vbv_final_fullness;
  gboolean adaptive, subpel, rdo;
  /* with rdo: the motion searches rank their half-pel positions by SATD
   * (else by SAD, as without rdo) */
  gboolean search_satd;
  /* from the next GOP: no B picture predicts from the GOP before (else
   * the frames before an I picture wait for it, B pictures) */
  gboolean closed_gop;
  /* without B pictures: a P picture whose macroblocks are at least this
   * percentage intra (a cut) is coded again as an I picture that starts
   * a GOP; 0: never */
  guint scene_cut;
  GstClMotionMethod motion_method;
  GstClMotionEffort motion_effort;
  /* P pictures a frame from their reference search around upstream's
   * vectors (a GstClMotionMeta) against the reconstruction; else they
   * take those vectors as they are, with no search of their own */
  gboolean refine_upstream_vectors;
} GstClMpegEngineSettings;

typedef struct
{
  /* @frame is coded: its output_buffer holds @bytes at mean quantiser
   * @quant; the callback owns @frame (gst_video_encoder_finish_frame) and
   * returns the flow */
  GstFlowReturn (*picture_done) (GstVideoCodecFrame * frame, guint64 bytes,
      guint quant, gpointer user_data);
  /* a warning for the application (@domain and @code as GStreamer's
   * element warnings) */
  void (*warning) (GQuark domain, gint code, const gchar * text,
      gpointer user_data);
} GstClMpegEngineCallbacks;

typedef struct
{
  guint64 frames, bytes;
  /* VBV re-encodes, P pictures coded as a repeat of their reference,
   * pictures of DC levels only, pictures that did not fit the VBV buffer
   * (the rate control's last resort failed), zero stuffing */
  guint64 reencodes, repeated, dc_only, underflows, stuffing_bytes;
  guint64 scene_cuts;           /* P pictures coded again as I (cuts) */
  guint vbv_size;               /* the sequence's vbv_buffer_size */
  guint64 wait_ns, vlc_ns;      /* host time waiting, entropy coding */
  guint threads;                /* entropy coding threads */
} GstClMpegEngineStats;

/* @parent: what the debug log names. */
GstClMpegEngine *gst_cl_mpeg_engine_new (GstObject * parent,
    const GstClMpegEngineSettings * settings,
    const GstClMpegEngineCallbacks * callbacks, gpointer user_data);
void gst_cl_mpeg_engine_free (GstClMpegEngine * e);

/* Any thread, any time. */
void gst_cl_mpeg_engine_set_settings (GstClMpegEngine * e,
    const GstClMpegEngineSettings * settings);

/* Starts the slice coders and the statistics. */
void gst_cl_mpeg_engine_start (GstClMpegEngine * e);
/* Frames of @info on @ctx from now: a new sequence with the stream type,
 * frame_rate_code, aspect ratio and colour description of @seq (its
 * sizes, chroma format (4:2:2 from Y42B @info), bit rate and buffer
 * fields are the engine's to set); MPEG-2
 * keeps within @level. What is queued must be drained first. */
gboolean gst_cl_mpeg_engine_configure (GstClMpegEngine * e, GstClContext * ctx,
    const GstVideoInfo * info, const GstClMpegSequenceParams * seq,
    const GstClMpeg2Level * level, GError ** error);
gboolean gst_cl_mpeg_engine_is_configured (GstClMpegEngine * e);
/* The most frames the configured engine holds before it gives one out:
 * the one on the device, the one whose slices are coded meanwhile (a
 * constant quantiser on a GPU), and the B frames waiting for their
 * anchor (its latency, in frames). */
guint gst_cl_mpeg_engine_frames_held (GstClMpegEngine * e);
/* The stream holds @frames frames in all (G_MAXUINT64: unknown): what a
 * final VBV fullness needs. Before the first frame, or before
 * gst_cl_mpeg_engine_configure(). */
void gst_cl_mpeg_engine_set_length (GstClMpegEngine * e, guint64 frames);
/* Takes @frame (whose input buffer has the configured layout) and
 * finishes the one before it, if any; GST_FLOW_ERROR with *@error set
 * where the device failed (the callback's flow otherwise). @position is
 * the frame's place in the whole stream, in frames (the GOP time codes
 * count from it), G_MAXUINT64 where unknown: then the frames since the
 * sequence started count. */
GstFlowReturn gst_cl_mpeg_engine_encode (GstClMpegEngine * e,
    GstVideoCodecFrame * frame, guint64 position, GError ** error);
/* Finishes the frames queued (B frames waiting for an anchor: the last
 * becomes a P picture); @end: with a sequence end code. */
GstFlowReturn gst_cl_mpeg_engine_drain (GstClMpegEngine * e, gboolean end,
    GError ** error);
/* Drops the frames queued; the next frame starts a new sequence. */
void gst_cl_mpeg_engine_flush (GstClMpegEngine * e);
/* Lets the device objects and the context go. */
void gst_cl_mpeg_engine_release (GstClMpegEngine * e);
/* Releases, and stops the slice coders. */
void gst_cl_mpeg_engine_stop (GstClMpegEngine * e);

void gst_cl_mpeg_engine_get_stats (GstClMpegEngine * e,
    GstClMpegEngineStats * stats);

G_END_DECLS
