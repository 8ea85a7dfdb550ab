/* gst-clvideo: clmpegenc
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
/**
 * SECTION:element-clmpegenc
 * @title: clmpegenc
 *
 * Encodes I420 or NV12 video into an MPEG-1 video elementary stream
 * (ISO/IEC 11172-2) with I and P pictures. The per-macroblock work runs on
 * an OpenCL device (kernels/mpegenc.cl): motion-compensated half-pel
 * prediction from the reconstructed previous picture, which stays on the
 * device, the intra/inter decision, forward DCT, quantisation and the
 * decoder's reconstruction (IEEE 1180 accurate inverse DCT, mismatch
 * control). The host codes the slices (by default one per macroblock row,
 * "slices") in parallel on worker threads while the device works on the
 * next frame.
 *
 * Motion vectors come from an upstream `clmotionsearch` (its
 * GstClMotionMeta, 16x16 blocks) when the buffer carries them, otherwise
 * from the same search run here against the reconstructed reference
 * ("motion-method", "search-range", "subpel").
 *
 * Every GOP is closed and starts with a sequence header, so a stream can
 * be cut at any GOP; a sequence end code ends the stream, and a change of
 * size starts a new sequence. With "bitrate" set, the quantiser follows a
 * target bit rate under a VBV buffer model that neither underflows (a
 * picture too large is coded again, coarser) nor overflows (zero
 * stuffing); with "bitrate" 0 the quantiser is constant ("quantizer").
 * Either way I pictures are coded finer than P pictures, by "ip-factor":
 * every P picture of the GOP predicts from them.
 *
 * MPEG-1 knows only the frame rates 23.976, 24, 25, 29.97, 30, 50, 59.94
 * and 60, and the pad templates list them: `videorate` in front converts
 * any other rate to the nearest of them by itself; without it, another
 * rate (and none, 0/1) is refused with an error that names them. Any size
 * up to 4095x2800 works (`videoscale` in front fits a larger one): the
 * picture is padded to whole macroblocks and the true size is written in
 * the sequence header.
 *
 * ## Example launch line
 * |[
 * gst-launch-1.0 videotestsrc num-buffers=100 ! video/x-raw,width=640,height=480,framerate=25/1 ! clmpegenc quantizer=4 ! filesink location=out.m1v
 * ]|
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include "gstclmpegenc.h"

#include <string.h>

#include <gst/cl/gstclbufferpool.h>
#include <gst/cl/gstclcontext.h>
#include <gst/cl/gstclmemory.h>
#include <gst/cl/gstclmotionmeta.h>
#include "gstclmotionsearchcompute.h"
#include "gstclmpegbitwriter.h"
#include "gstclmpegheaders.h"
#include "gstclmpegratecontrol.h"
#include "gstclmpegtransform.h"
#include "gstclmpegvlc.h"
#include <gst/cl/gstclreadback.h>

GST_DEBUG_CATEGORY_STATIC (gst_cl_mpeg_enc_debug);
#define GST_CAT_DEFAULT gst_cl_mpeg_enc_debug

#define DEFAULT_GOP_SIZE 12
#define DEFAULT_QUANTIZER 4
#define DEFAULT_IP_FACTOR 1.4
#define DEFAULT_BITRATE 0
#define DEFAULT_VBV_SIZE 0
#define DEFAULT_ADAPTIVE_QUANT FALSE
#define DEFAULT_SEARCH_RANGE 16
#define DEFAULT_SUBPEL TRUE
#define DEFAULT_MOTION_METHOD GST_CL_MOTION_METHOD_AUTO
#define DEFAULT_RDO TRUE
#define DEFAULT_SLICES 0
#define DEFAULT_POST_MESSAGES FALSE
#define DEFAULT_INTERVAL GST_SECOND

/* an inter macroblock must predict better than its own activity by this
 * much (SAD units) to beat intra coding */
#define INTRA_BIAS 384
/* rate-distortion decisions: lambda in 1/16 q^2 per bit of squared
 * error, and in 1/16 q per bit of SAD for the vectors */
#define RD_LAMBDA 16
#define MV_LAMBDA 2
/* VBV buffer when not set: half a second at the bit rate (more where
 * the stream needs it) */
#define AUTO_VBV_SECONDS 0.5
/* vbv_buffer_size's unit */
#define VBV_UNIT_BITS 16384ULL

#define MAX_WIDTH 4095
#define MAX_HEIGHT 2800         /* 175 slice rows */

enum
{
  PROP_0,
  PROP_DEVICE,
  PROP_GOP_SIZE,
  PROP_QUANTIZER,
  PROP_IP_FACTOR,
  PROP_BITRATE,
  PROP_VBV_BUFFER_SIZE,
  PROP_ADAPTIVE_QUANT,
  PROP_SEARCH_RANGE,
  PROP_SUBPEL,
  PROP_MOTION_METHOD,
  PROP_RDO,
  PROP_SLICES,
  PROP_STATS,
  PROP_POST_MESSAGES,
  PROP_INTERVAL,
};

/* one frame between its device stages and its entropy coding */
typedef struct
{
  GstVideoCodecFrame *frame;
  cl_mem cur, vectors, records, levels;
  GstClMpegMbRecord *rec;       /* mapped results, once @ready */
  gint16 *lev;                  /* mapped levels (CPU layout) */
  /* GPU layout: the levels packed on the device and read back */
  cl_mem offsets, packed;
  gint16 *packed_host;
  guint32 *mb_offsets;
  gboolean levels_read;
  cl_event levels_ready;        /* the read of the packed levels */
  cl_event ready;
  gboolean intra, gop_start, seq_start;
  guint quant;
  guint ref, out;               /* reconstruction buffers */
  guint temporal_reference;
  guint64 gop_frame;            /* first picture of its GOP, in the sequence */
  gboolean encoded;
  /* the rate control's last resorts when even quantiser 31 is too many
   * bits: intra DC only; P every macroblock skipped */
  gboolean dc_only, all_skipped;
} Slot;

struct _GstClMpegEnc
{
  GstVideoEncoder parent;

  /* properties */
  gchar *device;
  guint gop_size, quantizer, bitrate, vbv_size, search_range;
  gdouble ip_factor;
  gboolean adaptive, subpel, rdo;
  guint slices;
  GstClMotionMethod motion_method;
  gboolean post_messages;
  guint64 interval;

  GstClContext *ctx;
  GstClMpegTransform *tr;
  GstClMotionSearch *ms;
  GstBufferPool *staging;
  GstVideoCodecState *input_state;
  GstVideoInfo info;
  guint mb_width, mb_height;
  cl_mem recon[3];
  guint last_recon;
  Slot slots[2];
  guint next_slot;
  Slot *pending;

  /* stream */
  GstClMpegSequenceParams seq;
  gint fps_n, fps_d;
  gint refused_fps_n, refused_fps_d;    /* the rate last refused, if any */
  guint64 seq_frames;           /* pictures so far in the sequence */
  /* the "bitrate" and "vbv-buffer-size" the sequence follows */
  guint seq_bitrate, seq_vbv_size;
  guint gop_pos;
  guint64 gop_first;
  gboolean need_sequence;
  GstClMpegRateControl rc;
  guint avg_activity;

  /* entropy coding */
  GThreadPool *workers;
  GstClMpegBitWriter *rows;
  GstClMpegMbRecord *skip_recs; /* a picture of skipped macroblocks */
  GMutex job_lock;
  GCond job_cond;
  guint job_left;
  gint job_next;                /* the next slice to code (atomic) */
  guint job_rows, job_slices;   /* macroblock rows per slice, slices */
  Slot *job_slot;
  const GstClMpegMbRecord *job_recs;
  guint job_f_code;

  /* statistics */
  guint64 frames_out, bytes_out, vlc_ns, wait_ns;
  /* P pictures the rate control coded as a repeat of their reference,
   * pictures it coded with DC levels only */
  guint64 repeated, dc_only;
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
        "OpenCL MPEG-1 video encoder"));

/* MPEG-1's frame rates (frame_rate_code 1 to 8) */
#define MPEG1_RATES "framerate=(fraction){ 24000/1001, 24/1, 25/1, " \
  "30000/1001, 30/1, 50/1, 60000/1001, 60/1 }"

#define SINK_CAPS_STR(feature) \
  "video/x-raw" feature ", format=(string){ I420, NV12 }, " \
  "width=(int)[1, 4095], height=(int)[1, 2800], " MPEG1_RATES

static GstStaticPadTemplate sink_template = GST_STATIC_PAD_TEMPLATE ("sink",
    GST_PAD_SINK, GST_PAD_ALWAYS,
    GST_STATIC_CAPS (SINK_CAPS_STR ("(" GST_CAPS_FEATURE_MEMORY_CL ")") "; "
        SINK_CAPS_STR ("")));

static GstStaticPadTemplate src_template = GST_STATIC_PAD_TEMPLATE ("src",
    GST_PAD_SRC, GST_PAD_ALWAYS,
    GST_STATIC_CAPS ("video/mpeg, mpegversion=(int)1, "
        "systemstream=(boolean)false, width=(int)[1, 4095], "
        "height=(int)[1, 2800], " MPEG1_RATES));

static GstStructure *make_stats (GstClMpegEnc * self);

/* ---- device objects ---- */

/* Waits for *@event, if any, and lets it go. */
static gboolean
wait_event (cl_event * event, GError ** error)
{
  cl_int ret;

  if (!*event)
    return TRUE;
  ret = clWaitForEvents (1, event);
  clReleaseEvent (*event);
  *event = NULL;
  return gst_cl_check (ret, "clWaitForEvents", error);
}

static void
slot_unmap (GstClMpegEnc * self, Slot * s)
{
  /* on the way out: the commands' own errors were reported */
  wait_event (&s->levels_ready, NULL);
  wait_event (&s->ready, NULL);
  if (s->rec)
    clEnqueueUnmapMemObject (self->ctx->queue, s->records, s->rec, 0, NULL,
        NULL);
  if (s->lev)
    clEnqueueUnmapMemObject (self->ctx->queue, s->levels, s->lev, 0, NULL,
        NULL);
  s->rec = NULL;
  s->lev = NULL;
}

static void
slot_drop_frame (GstClMpegEnc * self, Slot * s)
{
  slot_unmap (self, s);
  if (s->frame)
    gst_video_codec_frame_unref (s->frame);
  s->frame = NULL;
  s->encoded = FALSE;
}

static void
release_mem (cl_mem * m)
{
  if (*m)
    clReleaseMemObject (*m);
  *m = NULL;
}

static void
release_device (GstClMpegEnc * self)
{
  guint i;

  for (i = 0; i < 2; i++) {
    Slot *s = &self->slots[i];
    slot_drop_frame (self, s);
    release_mem (&s->cur);
    release_mem (&s->vectors);
    release_mem (&s->records);
    release_mem (&s->levels);
    release_mem (&s->offsets);
    release_mem (&s->packed);
    g_clear_pointer (&s->packed_host, g_free);
    g_clear_pointer (&s->mb_offsets, g_free);
  }
  self->pending = NULL;
  for (i = 0; i < 3; i++)
    release_mem (&self->recon[i]);
  g_clear_pointer (&self->ms, gst_cl_motion_search_free);
  g_clear_pointer (&self->tr, gst_cl_mpeg_transform_free);
  if (self->staging) {
    gst_buffer_pool_set_active (self->staging, FALSE);
    gst_clear_object (&self->staging);
  }
  if (self->rows) {
    for (i = 0; i < self->mb_height; i++)
      gst_cl_mpeg_bit_writer_clear (&self->rows[i]);
    g_clear_pointer (&self->rows, g_free);
  }
  g_clear_pointer (&self->skip_recs, g_free);
}

static gboolean
setup_device (GstClMpegEnc * self, GError ** error)
{
  GstClMotionSearchParams mp = { 0, };
  gsize pic, rec, lev, vec;
  guint i, w = GST_VIDEO_INFO_WIDTH (&self->info);
  guint h = GST_VIDEO_INFO_HEIGHT (&self->info);

  self->tr = gst_cl_mpeg_transform_new (self->ctx, w, h, error);
  if (!self->tr)
    return FALSE;
  self->mb_width = gst_cl_mpeg_transform_mb_width (self->tr);
  self->mb_height = gst_cl_mpeg_transform_mb_height (self->tr);
  pic = gst_cl_mpeg_transform_picture_size (self->tr);
  rec = gst_cl_mpeg_transform_records_size (self->tr);
  lev = gst_cl_mpeg_transform_levels_size (self->tr);
  vec = (gsize) self->mb_width * self->mb_height * sizeof (GstClMotionVector);
  for (i = 0; i < 3; i++)
    if (!(self->recon[i] = gst_cl_mpeg_transform_alloc (self->tr, pic,
                error)))
      return FALSE;
  for (i = 0; i < 2; i++) {
    Slot *s = &self->slots[i];
    if (!(s->cur = gst_cl_mpeg_transform_alloc (self->tr, pic, error)) ||
        !(s->vectors = gst_cl_mpeg_transform_alloc (self->tr, vec, error)) ||
        !(s->records = gst_cl_mpeg_transform_alloc (self->tr, rec, error)) ||
        !(s->levels = gst_cl_mpeg_transform_alloc (self->tr, lev, error)))
      return FALSE;
    if (gst_cl_mpeg_transform_packs_levels (self->tr)) {
      gsize n = (gsize) self->mb_width * self->mb_height;
      if (!(s->offsets = gst_cl_mpeg_transform_alloc (self->tr,
                  (n + 1) * sizeof (guint32), error)) ||
          !(s->packed = gst_cl_mpeg_transform_alloc (self->tr, lev, error)))
        return FALSE;
      /* the entropy coder may read 64 levels past the last */
      s->packed_host = g_new0 (gint16, n * GST_CL_MPEG_MB_LEVELS + 64);
      s->mb_offsets = g_new (guint32, n);
    }
  }
  GST_OBJECT_LOCK (self);
  mp.block_size = 16;
  mp.search_range = self->search_range;
  mp.subpel = self->subpel;
  mp.method = self->motion_method;
  GST_OBJECT_UNLOCK (self);
  if (mp.search_range > 0) {
    self->ms = gst_cl_motion_search_new (self->ctx, &mp, error);
    if (!self->ms)
      return FALSE;
  }
  self->skip_recs = g_new0 (GstClMpegMbRecord,
      (gsize) self->mb_width * self->mb_height);
  for (i = 0; i < self->mb_width * self->mb_height; i++) {
    self->skip_recs[i].flags = GST_CL_MPEG_MB_SKIPPABLE;
    self->skip_recs[i].quant = 31;
  }
  self->rows = g_new0 (GstClMpegBitWriter, self->mb_height);
  for (i = 0; i < self->mb_height; i++)
    gst_cl_mpeg_bit_writer_init (&self->rows[i],
        (gsize) self->mb_width * 64);
  return TRUE;
}

/* ---- entropy coding on worker threads ---- */

/* Codes slice @slice (job_rows macroblock rows) into the writer of its
 * first row; those of its other rows stay empty. */
static void
code_slice (GstClMpegEnc * self, guint slice)
{
  Slot *s = self->job_slot;
  guint row = slice * self->job_rows, i;
  guint rows = MIN (self->job_rows, self->mb_height - row);
  gsize first = (gsize) row * self->mb_width;

  for (i = 0; i < rows; i++)
    gst_cl_mpeg_bit_writer_reset (&self->rows[row + i]);
  gst_cl_mpeg_write_slice (&self->rows[row], row, self->mb_width * rows,
      s->intra ? GST_CL_MPEG_PICTURE_I : GST_CL_MPEG_PICTURE_P,
      self->job_f_code, self->job_recs + first,
      s->packed ? s->packed_host : s->lev + first * GST_CL_MPEG_MB_LEVELS,
      s->packed ? s->mb_offsets + first : NULL);
}

/* Codes slices while there are slices left; returns how many. */
static guint
code_slices_left (GstClMpegEnc * self)
{
  guint done = 0;
  gint slice;

  while ((slice = g_atomic_int_add (&self->job_next, 1)) <
      (gint) self->job_slices) {
    code_slice (self, slice);
    done++;
  }
  return done;
}

static void
worker_func (gpointer data G_GNUC_UNUSED, gpointer user_data)
{
  GstClMpegEnc *self = user_data;
  guint done = code_slices_left (self);

  /* a worker that starts late finds no slice left: nothing to report */
  if (!done)
    return;
  g_mutex_lock (&self->job_lock);
  self->job_left -= done;
  if (self->job_left == 0)
    g_cond_signal (&self->job_cond);
  g_mutex_unlock (&self->job_lock);
}

/* Codes every slice of @s into self->rows, in parallel. */
static void
code_slices (GstClMpegEnc * self, Slot * s, guint f_code)
{
  guint slice, i, done, slices;

  GST_OBJECT_LOCK (self);
  slices = self->slices;
  GST_OBJECT_UNLOCK (self);
  /* rows per slice, as even as whole rows allow */
  if (slices == 0 || slices > self->mb_height)
    slices = self->mb_height;
  self->job_rows = (self->mb_height + slices - 1) / slices;
  self->job_slices = (self->mb_height + self->job_rows - 1) / self->job_rows;
  self->job_slot = s;
  self->job_recs = s->all_skipped ? self->skip_recs : s->rec;
  self->job_f_code = f_code;
  if (!self->workers || self->job_slices == 1) {
    for (slice = 0; slice < self->job_slices; slice++)
      code_slice (self, slice);
    return;
  }
  self->job_left = self->job_slices;
  g_atomic_int_set (&self->job_next, 0);
  /* the workers and this thread take slices in turn until none is left:
   * while the device's threads keep the cores busy, workers may wake up
   * late, and this thread does not wait for them to start */
  for (i = g_thread_pool_get_max_threads (self->workers); i > 0; i--)
    g_thread_pool_push (self->workers, GUINT_TO_POINTER (1), NULL);
  done = code_slices_left (self);
  g_mutex_lock (&self->job_lock);
  self->job_left -= done;
  while (self->job_left > 0)
    g_cond_wait (&self->job_cond, &self->job_lock);
  g_mutex_unlock (&self->job_lock);
  /* workers still queued for this job find no slice, whatever comes
   * next */
  g_atomic_int_set (&self->job_next, G_MAXINT / 2);
}

/* ---- device stages ---- */

/* Device copy of the input frame (whose layout handle_frame checked): the
 * buffer itself when it is OpenCL memory of our context, its samples
 * borrowed on a CPU device (*@borrowed, to release), else a staged upload
 * (*@staged, to unref). */
static gboolean
device_frame (GstClMpegEnc * self, GstBuffer * in, GstClFrame * clf,
    GstBuffer ** staged, cl_mem * borrowed, GError ** error)
{
  *staged = NULL;
  *borrowed = NULL;
  if (gst_buffer_is_cl (in, self->ctx)) {
    gst_cl_frame_init (clf, &self->info, in);
    return TRUE;
  }
  if (gst_cl_frame_borrow (self->ctx, &self->info, in, clf)) {
    *borrowed = clf->mem;
    return TRUE;
  }
  return gst_cl_stage_frame (self->ctx, &self->staging, &self->info, in,
      staged, clf, error);
}

/* Vectors of an upstream clmotionsearch, when they fit our grid. */
static gboolean
upstream_vectors (GstClMpegEnc * self, GstBuffer * in, Slot * s,
    GError ** error)
{
  GstClMotionMeta *meta = gst_buffer_get_cl_motion_meta (in);
  cl_int ret;

  if (!meta || meta->context != self->ctx || meta->block_size != 16 ||
      meta->blocks_x != self->mb_width || meta->blocks_y != self->mb_height)
    return FALSE;
  ret = clEnqueueCopyBuffer (self->ctx->queue, meta->vectors, s->vectors, 0,
      0, (gsize) self->mb_width * self->mb_height * sizeof (GstClMotionVector),
      0, NULL, NULL);
  if (!gst_cl_check (ret, "clEnqueueCopyBuffer", error))
    return FALSE;
  GST_LOG_OBJECT (self, "vectors from upstream");
  return TRUE;
}

/* Uploads and pads the frame of @s, and finds its vectors (P). */
static gboolean
submit_input (GstClMpegEnc * self, Slot * s, GError ** error)
{
  GstBuffer *in = s->frame->input_buffer, *staged = NULL;
  cl_mem borrowed;
  GstClFrame clf;
  gboolean ok;

  if (!device_frame (self, in, &clf, &staged, &borrowed, error))
    return FALSE;
  ok = gst_cl_mpeg_transform_load (self->tr, &clf, s->cur, error);
  /* the in-order queue has read the staging buffer before any later
   * upload into it; a borrowed frame stays mapped until it is read */
  if (staged)
    gst_buffer_unref (staged);
  if (borrowed)
    clReleaseMemObject (borrowed);
  if (!ok || s->intra)
    return ok;
  if (upstream_vectors (self, in, s, error))
    return TRUE;
  if (self->ms) {
    GstClPlane cur, ref;
    gst_cl_mpeg_transform_plane (self->tr, s->cur, 0, &cur);
    gst_cl_mpeg_transform_plane (self->tr, self->recon[s->ref], 0, &ref);
    return gst_cl_motion_search_run (self->ms, &cur, &ref, s->vectors, error);
  }
  return gst_cl_mpeg_transform_zero_vectors (self->tr, s->vectors, error);
}

/* Enqueues the macroblock stages of @s and the mapping of their results. */
static gboolean
submit_encode (GstClMpegEnc * self, Slot * s, GError ** error)
{
  GstClMpegEncodeParams p;
  gboolean rdo;
  cl_int ret;

  p.p_picture = !s->intra;
  p.qscale = s->quant;
  GST_OBJECT_LOCK (self);
  p.adaptive = self->adaptive;
  rdo = self->rdo;
  GST_OBJECT_UNLOCK (self);
  p.avg_activity = self->avg_activity;
  p.intra_bias = INTRA_BIAS;
  p.dc_only = s->dc_only;
  p.rd_lambda = rdo ? RD_LAMBDA : 0;
  p.mv_lambda = rdo ? MV_LAMBDA : 0;
  if (!gst_cl_mpeg_transform_encode (self->tr, s->cur, self->recon[s->ref],
          s->vectors, &p, s->records, s->levels, self->recon[s->out], error))
    return FALSE;
  s->levels_read = FALSE;
  /* packed levels are read once the records give their size; whole ones
   * are mapped with the records */
  if (s->packed && !gst_cl_mpeg_transform_pack (self->tr, s->records,
          s->levels, s->offsets, s->packed, error))
    return FALSE;
  s->rec = clEnqueueMapBuffer (self->ctx->queue, s->records, CL_FALSE,
      CL_MAP_READ, 0, gst_cl_mpeg_transform_records_size (self->tr), 0, NULL,
      s->packed ? &s->ready : NULL, &ret);
  if (!gst_cl_check (ret, "clEnqueueMapBuffer", error))
    return FALSE;
  if (!s->packed) {
    s->lev = clEnqueueMapBuffer (self->ctx->queue, s->levels, CL_FALSE,
        CL_MAP_READ, 0, gst_cl_mpeg_transform_levels_size (self->tr), 0,
        NULL, &s->ready, &ret);
    if (!gst_cl_check (ret, "clEnqueueMapBuffer", error))
      return FALSE;
  }
  GST_CL_COUNT_HOST_MAP (self->ctx);
  s->encoded = TRUE;
  /* start the device now: the host codes the previous frame meanwhile */
  return gst_cl_check (clFlush (self->ctx->queue), "clFlush", error);
}

/* ---- coding a frame ---- */

static GstBuffer *
assemble (GstClMpegEnc * self, Slot * s, gboolean end, guint64 * bits,
    guint * requant)
{
  GstBitWriter hw;
  guint n = self->mb_width * self->mb_height, i, f_code = 1;
  guint64 total, stuff = 0, qsum = 0, asum = 0, header_bytes;
  GstBuffer *out;
  GstMapInfo map;
  gsize off;
  gint64 t0;

  t0 = g_get_monotonic_time ();
  if (!s->intra && !s->all_skipped)
    f_code = gst_cl_mpeg_choose_f_code (s->rec, n);
  code_slices (self, s, f_code);
  self->vlc_ns += (g_get_monotonic_time () - t0) * 1000;

  /* a few dozen bytes a picture: a writer of their own costs nothing */
  gst_bit_writer_init_with_size (&hw, 256, FALSE);
  if (s->seq_start)
    gst_cl_mpeg_write_sequence_header (&hw, &self->seq);
  if (s->gop_start)
    gst_cl_mpeg_write_gop_header (&hw, s->gop_frame,
        self->seq.frame_rate_code, TRUE);
  gst_cl_mpeg_write_picture_header (&hw, s->temporal_reference,
      s->intra ? GST_CL_MPEG_PICTURE_I : GST_CL_MPEG_PICTURE_P,
      gst_cl_mpeg_rate_control_vbv_delay (&self->rc,
          gst_bit_writer_get_size (&hw) + 32), f_code);
  header_bytes = gst_bit_writer_get_size (&hw) / 8;
  total = header_bytes;
  for (i = 0; i < self->mb_height; i++)
    total += self->rows[i].size;
  if (end)
    total += 4;
  *requant = gst_cl_mpeg_rate_control_check (&self->rc, s->intra,
      s->dc_only, total * 8, s->quant);
  *bits = total * 8;
  if (*requant && !s->all_skipped && !(s->intra && s->dc_only)) {
    gst_bit_writer_reset (&hw);
    return NULL;
  }
  /* the last resort goes out as it is: over the room the rate control
   * leaves for the next I picture is no fault yet, over the buffer is */
  if (gst_cl_mpeg_rate_control_underflows (&self->rc, total * 8))
    GST_ELEMENT_WARNING (self, STREAM, ENCODE, ("The bit rate is too low for "
            "this content: a picture of %" G_GUINT64_FORMAT " bits does not "
            "fit the VBV buffer (%.0f bits there)", total * 8,
            self->rc.fullness), (NULL));
  *requant = 0;
  stuff = gst_cl_mpeg_rate_control_stuffing (&self->rc, total * 8) / 8;

  out = gst_buffer_new_allocate (NULL, total + stuff, NULL);
  gst_buffer_map (out, &map, GST_MAP_WRITE);
  memcpy (map.data, gst_bit_writer_get_data (&hw), header_bytes);
  gst_bit_writer_reset (&hw);
  off = header_bytes;
  for (i = 0; i < self->mb_height; i++) {
    memcpy (map.data + off, self->rows[i].data, self->rows[i].size);
    off += self->rows[i].size;
  }
  /* zero stuffing goes before the next start code */
  memset (map.data + off, 0, stuff);
  off += stuff;
  if (end) {
    static const guint8 end_code[4] = { 0, 0, 1, 0xb7 };
    memcpy (map.data + off, end_code, 4);
  }
  gst_buffer_unmap (out, &map);

  for (i = 0; i < n; i++) {
    qsum += self->job_recs[i].quant;
    asum += s->rec[i].activity;
  }
  self->avg_activity = MAX (asum / n, 1);
  *bits = (total + stuff) * 8;
  gst_cl_mpeg_rate_control_update (&self->rc, s->intra, total * 8, stuff * 8,
      (gdouble) qsum / n, s->dc_only || s->all_skipped);
  return out;
}

/* Starts the read of the packed levels of @s, as many as its records
 * say (waiting for the records first), unless there is none to do;
 * @blocking waits for it too. */
static gboolean
read_packed_levels (GstClMpegEnc * self, Slot * s, gboolean blocking,
    GError ** error)
{
  guint n = self->mb_width * self->mb_height;
  guint32 total;
  cl_int ret = CL_SUCCESS;

  if (!s->packed || !s->encoded || s->levels_read || s->all_skipped)
    return TRUE;
  if (!wait_event (&s->ready, error))
    return FALSE;
  total = gst_cl_mpeg_packed_offsets (s->rec, n, s->mb_offsets);
  if (total > 0)
    ret = clEnqueueReadBuffer (self->ctx->queue, s->packed,
        blocking ? CL_TRUE : CL_FALSE, 0, (gsize) total * sizeof (gint16),
        s->packed_host, 0, NULL, blocking ? NULL : &s->levels_ready);
  if (!gst_cl_check (ret, "clEnqueueReadBuffer", error))
    return FALSE;
  if (!blocking && !gst_cl_check (clFlush (self->ctx->queue), "clFlush",
          error))
    return FALSE;
  s->levels_read = TRUE;
  return TRUE;
}

static void
progress_restart (GstClMpegEnc * self)
{
  self->progress_time = 0;
  self->progress_frames = self->progress_bytes = self->progress_quant = 0;
  self->progress_start_us = g_get_monotonic_time ();
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
    wall = (g_get_monotonic_time () - self->progress_start_us) / 1e6;
    st = gst_cl_frame_message_structure_new ("clmpegenc",
        &GST_VIDEO_ENCODER (self)->input_segment, frame->input_buffer,
        duration);
    gst_structure_set (st, "frames", G_TYPE_UINT64, self->frames_out,
        "bytes", G_TYPE_UINT64, self->bytes_out,
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

/* Waits for the device results of @s, codes the picture (again, coarser,
 * while it would underflow the VBV or leave no room for the next I
 * picture: at quantiser 31 with DC levels only, a P picture then with
 * its macroblocks skipped) and finishes its frame. */
static GstFlowReturn
finish_slot (GstClMpegEnc * self, Slot * s, gboolean end)
{
  GstVideoCodecFrame *frame;
  GError *error = NULL;
  GstBuffer *out;
  guint64 bits = 0;
  guint requant = 0;
  gint64 t0;

  for (;;) {
    t0 = g_get_monotonic_time ();
    if (!wait_event (&s->ready, &error) ||
        !read_packed_levels (self, s, TRUE, &error) ||
        !wait_event (&s->levels_ready, &error))
      goto failed;
    self->wait_ns += (g_get_monotonic_time () - t0) * 1000;
    out = assemble (self, s, end, &bits, &requant);
    if (out)
      break;
    GST_DEBUG_OBJECT (self, "%c picture of %" G_GUINT64_FORMAT " bits "
        "too large for the VBV buffer (%.0f bits there): quantiser %u%s -> "
        "%u", s->intra ? 'I' : 'P', bits, self->rc.fullness, s->quant,
        s->dc_only ? " DC only" : "", requant);
    self->rc.reencodes++;
    if (requant > 31 && !s->intra && s->dc_only) {
      /* every macroblock skipped: the reference is the reconstruction */
      gsize size = gst_cl_mpeg_transform_picture_size (self->tr);
      cl_int ret = clEnqueueCopyBuffer (self->ctx->queue,
          self->recon[s->ref], self->recon[s->out], 0, 0, size, 0, NULL, NULL);
      if (!gst_cl_check (ret, "clEnqueueCopyBuffer", &error))
        goto failed;
      s->all_skipped = TRUE;
      /* the picture shown is not the one given: the application must
       * know (once; the stats count the others) */
      if (self->repeated++ == 0)
        GST_ELEMENT_WARNING (self, STREAM, ENCODE, ("The bit rate is too "
                "low for this content: picture %" G_GUINT64_FORMAT " is "
                "coded as a repeat of the one before, to keep the VBV buffer "
                "from underflowing (the stats' repeated-pictures counts "
                "those that follow)", self->frames_out), (NULL));
      continue;
    }
    slot_unmap (self, s);
    if (requant > 31)
      s->dc_only = TRUE;
    s->quant = MIN (requant, 31);
    if (!submit_encode (self, s, &error))
      goto failed;
  }
  slot_unmap (self, s);
  /* each block its mean alone: the application must know (once) */
  if (s->dc_only && !s->all_skipped && self->dc_only++ == 0)
    GST_ELEMENT_WARNING (self, STREAM, ENCODE, ("The bit rate is too low "
            "for this content: picture %" G_GUINT64_FORMAT " is coded with "
            "DC levels only (each block's mean), to keep the VBV buffer "
            "from underflowing (the stats' dc-only-pictures counts those "
            "that follow)", self->frames_out), (NULL));

  frame = s->frame;
  s->frame = NULL;
  s->encoded = FALSE;
  frame->output_buffer = out;
  if (s->intra)
    GST_VIDEO_CODEC_FRAME_SET_SYNC_POINT (frame);
  else
    GST_VIDEO_CODEC_FRAME_UNSET_SYNC_POINT (frame);
  frame->dts = frame->pts;
  self->frames_out++;
  self->bytes_out += bits / 8;
  count_progress (self, frame, bits / 8, s->quant);
  GST_LOG_OBJECT (self, "picture %c q %u: %" G_GUINT64_FORMAT " bits",
      s->intra ? 'I' : 'P', s->quant, bits);
  return gst_video_encoder_finish_frame (GST_VIDEO_ENCODER (self), frame);

failed:
  GST_CL_ELEMENT_ERROR (self, error);
  return GST_FLOW_ERROR;
}

static GstFlowReturn
drain (GstClMpegEnc * self, gboolean end)
{
  Slot *s = self->pending;

  self->pending = NULL;
  if (!s)
    return GST_FLOW_OK;
  return finish_slot (self, s, end);
}

/* ---- GstVideoEncoder ---- */

static gboolean
gst_cl_mpeg_enc_start (GstVideoEncoder * enc)
{
  GstClMpegEnc *self = GST_CL_MPEG_ENC (enc);
  guint n = MIN (g_get_num_processors (), 16);

  if (n > 1)
    self->workers = g_thread_pool_new (worker_func, self, n - 1, FALSE, NULL);
  self->frames_out = self->bytes_out = self->vlc_ns = self->wait_ns = 0;
  self->repeated = self->dc_only = 0;
  self->refused_fps_n = self->refused_fps_d = 0;
  self->progress_elapsed = 0;
  progress_restart (self);
  return TRUE;
}

static gboolean
gst_cl_mpeg_enc_stop (GstVideoEncoder * enc)
{
  GstClMpegEnc *self = GST_CL_MPEG_ENC (enc);

  release_device (self);
  if (self->workers)
    g_thread_pool_free (self->workers, FALSE, TRUE);
  self->workers = NULL;
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

/* The VBV buffer (units of VBV_UNIT_BITS) at the bit rate the sequence
 * header signals: @vbv as set (0: half a second), raised to the smallest
 * that the stream needs (gst_cl_mpeg_rate_control_min_buffer_bits); a
 * value set smaller gets a warning that names the one used. */
static guint
choose_vbv_size (GstClMpegEnc * self, guint vbv)
{
  guint64 bit_rate = self->seq.bit_rate_code * 400ULL;
  gdouble fps = (gdouble) self->fps_n / self->fps_d;
  guint64 forced = gst_cl_mpeg_rate_control_forced_picture_bits (
      self->mb_width, self->mb_height);
  guint64 min_bits = gst_cl_mpeg_rate_control_min_buffer_bits (bit_rate, fps,
      forced);
  guint needed = MIN ((min_bits + VBV_UNIT_BITS - 1) / VBV_UNIT_BITS, 1023);
  gchar *why;

  if (vbv == 0) {
    vbv = (guint) (bit_rate * AUTO_VBV_SECONDS / VBV_UNIT_BITS + 0.5);
    GST_DEBUG_OBJECT (self, "vbv-buffer-size 0: half a second is %u, the "
        "stream needs %u", vbv, needed);
    return MAX (vbv, needed);
  }
  if (vbv >= needed)
    return vbv;
  if (min_bits > 2.0 * bit_rate / fps + 1)
    why = g_strdup_printf ("too small for the largest picture the encoder "
        "may have to write at %ux%u (an I picture of DC levels only, %.0f "
        "kbit%s)", self->seq.width, self->seq.height, forced / 1000.0,
        forced > min_bits ? ", more than the bit rate brings in within the "
        "longest vbv_delay" : "");
  else
    why = g_strdup_printf ("smaller than two pictures at %.0f kbit/s and "
        "%.4g fps", bit_rate / 1000.0, fps);
  GST_ELEMENT_WARNING (self, LIBRARY, SETTINGS, ("vbv-buffer-size %u (%.0f "
          "kbit) is %s; using %u (%.0f kbit)", vbv,
          vbv * (gdouble) VBV_UNIT_BITS / 1000.0, why, needed,
          needed * (gdouble) VBV_UNIT_BITS / 1000.0), (NULL));
  g_free (why);
  return needed;
}

/* Starts a sequence at the bit rate and VBV buffer the properties set
 * now, with a rate control that keeps to them (MPEG-1 keeps both for a
 * whole sequence). */
static void
start_rate_sequence (GstClMpegEnc * self)
{
  guint bitrate, vbv;

  GST_OBJECT_LOCK (self);
  bitrate = self->bitrate;
  vbv = self->vbv_size;
  GST_OBJECT_UNLOCK (self);
  self->seq_bitrate = bitrate;
  self->seq_vbv_size = vbv;
  if (bitrate > 0) {
    self->seq.bit_rate_code = MIN ((bitrate * 1000ULL + 399) / 400, 0x3fffe);
    vbv = choose_vbv_size (self, vbv);
  } else {
    self->seq.bit_rate_code = 0x3ffff;
    if (vbv == 0)
      vbv = 1023;
  }
  self->seq.vbv_size_code = CLAMP (vbv, 1, 1023);
  /* the model runs at the rate the stream signals, as a decoder's does
   * (an odd number of kbit/s is rounded up to whole 400 bit/s) */
  gst_cl_mpeg_rate_control_init (&self->rc, bitrate > 0 ?
      self->seq.bit_rate_code * 400ULL : 0,
      self->seq.vbv_size_code * VBV_UNIT_BITS,
      (gdouble) self->fps_n / self->fps_d, self->gop_size, self->quantizer,
      self->ip_factor, self->mb_width, self->mb_height);
  self->seq_frames = 0;
  self->gop_pos = 0;
  self->need_sequence = TRUE;
}

static gboolean
gst_cl_mpeg_enc_set_format (GstVideoEncoder * enc, GstVideoCodecState * state)
{
  GstClMpegEnc *self = GST_CL_MPEG_ENC (enc);
  GstVideoInfo *info = &state->info;
  GstVideoCodecState *out_state;
  GstCaps *caps;
  GError *error = NULL;
  gboolean exact;
  gint fps_n = GST_VIDEO_INFO_FPS_N (info), fps_d = GST_VIDEO_INFO_FPS_D (info);
  guint code;

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

  release_device (self);
  self->info = *info;
  if (!setup_device (self, &error)) {
    GST_CL_ELEMENT_ERROR (self, error);
    release_device (self);
    return FALSE;
  }

  gst_cl_mpeg_frame_rate (code, &self->fps_n, &self->fps_d);
  self->seq.width = GST_VIDEO_INFO_WIDTH (info);
  self->seq.height = GST_VIDEO_INFO_HEIGHT (info);
  self->seq.frame_rate_code = code;
  self->seq.aspect_code = gst_cl_mpeg_aspect_code (GST_VIDEO_INFO_PAR_N (info),
      GST_VIDEO_INFO_PAR_D (info), &exact);
  /* (the application hears of what the stream will not carry as given) */
  if (!exact)
    GST_ELEMENT_WARNING (self, STREAM, FORMAT,
        ("MPEG-1 has no code for the pixel aspect ratio %d/%d: coded as the "
            "nearest it has, %.4f", GST_VIDEO_INFO_PAR_N (info),
            GST_VIDEO_INFO_PAR_D (info),
            gst_cl_mpeg_aspect_ratio (self->seq.aspect_code)),
        ("pel_aspect_ratio code %u", self->seq.aspect_code));
  if (GST_VIDEO_INFO_IS_INTERLACED (info))
    GST_ELEMENT_WARNING (self, STREAM, FORMAT,
        ("The input is interlaced (%s): MPEG-1 codes it as progressive "
            "frames, both fields in each", gst_video_interlace_mode_to_string
            (GST_VIDEO_INFO_INTERLACE_MODE (info))),
        ("deinterlace first for motion without combing"));

  start_rate_sequence (self);
  self->avg_activity = 1;
  self->last_recon = 0;

  if (self->input_state)
    gst_video_codec_state_unref (self->input_state);
  self->input_state = gst_video_codec_state_ref (state);

  caps = gst_caps_new_simple ("video/mpeg", "mpegversion", G_TYPE_INT, 1,
      "systemstream", G_TYPE_BOOLEAN, FALSE, NULL);
  out_state = gst_video_encoder_set_output_state (enc, caps, state);
  /* the rate actually coded */
  out_state->info.fps_n = self->fps_n;
  out_state->info.fps_d = self->fps_d;
  gst_video_codec_state_unref (out_state);
  {
    GstClockTime lat = gst_util_uint64_scale (GST_SECOND, self->fps_d,
        self->fps_n);
    gst_video_encoder_set_latency (enc, lat, lat);
  }
  GST_INFO_OBJECT (self, "%ux%u (%ux%u macroblocks), frame_rate_code %u, "
      "aspect code %u, %s", self->seq.width, self->seq.height,
      self->mb_width, self->mb_height, code, self->seq.aspect_code,
      self->seq_bitrate ? "constant bit rate" : "constant quantiser");
  return gst_video_encoder_negotiate (enc);
}

static GstFlowReturn
gst_cl_mpeg_enc_handle_frame (GstVideoEncoder * enc,
    GstVideoCodecFrame * frame)
{
  GstClMpegEnc *self = GST_CL_MPEG_ENC (enc);
  Slot *s;
  GError *error = NULL;
  GstFlowReturn ret;
  guint gop_size, bitrate, vbv_size;
  gboolean cq, rate_set, starts_gop;

  if (!self->tr) {
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
  GST_OBJECT_LOCK (self);
  gop_size = self->gop_size;
  bitrate = self->bitrate;
  vbv_size = self->vbv_size;
  GST_OBJECT_UNLOCK (self);
  rate_set = bitrate != self->seq_bitrate || vbv_size != self->seq_vbv_size;
  starts_gop = self->need_sequence || self->gop_pos >= gop_size ||
      GST_VIDEO_CODEC_FRAME_IS_FORCE_KEYFRAME (frame);
  if (rate_set && starts_gop) {
    /* a bit rate or buffer set while playing: the sequence ends with the
     * GOP, and the next, at the new rate, starts here */
    GST_INFO_OBJECT (self, "bit rate %u -> %u kbit/s, VBV buffer %u -> %u "
        "from picture %" G_GUINT64_FORMAT, self->seq_bitrate, bitrate,
        self->seq_vbv_size, vbv_size, self->frames_out);
    if ((ret = drain (self, TRUE)) != GST_FLOW_OK) {
      gst_video_codec_frame_unref (frame);
      return ret;
    }
    start_rate_sequence (self);
  }
  cq = self->rc.bit_rate <= 0;

  s = &self->slots[self->next_slot];
  self->next_slot ^= 1;
  g_assert (s != self->pending && s->frame == NULL);
  s->frame = frame;             /* the reference the base class gave us */
  s->dc_only = s->all_skipped = FALSE;

  if (starts_gop)
    self->gop_pos = 0;
  s->intra = self->gop_pos == 0;
  s->gop_start = s->intra;
  s->seq_start = s->intra;
  if (s->gop_start)
    self->gop_first = self->seq_frames;
  s->gop_frame = self->gop_first;
  s->temporal_reference = self->gop_pos;
  self->need_sequence = FALSE;
  self->gop_pos++;
  self->seq_frames++;
  s->ref = self->last_recon;
  s->out = (self->last_recon + 1) % 3;
  self->last_recon = s->out;

  /* the previous frame's levels go back to the host ahead of this
   * frame's device work, not behind it */
  if (self->pending && !read_packed_levels (self, self->pending, FALSE,
          &error))
    goto failed;
  if (!submit_input (self, s, &error))
    goto failed;
  /* With a constant quantiser the device can code this frame while the
   * host codes the previous one. With a bit rate the quantiser depends on
   * the previous frame's size: the device meanwhile pads the frame and
   * searches its vectors. */
  if (cq) {
    s->quant = gst_cl_mpeg_rate_control_quant (&self->rc, s->intra,
        s->gop_start);
    if (!submit_encode (self, s, &error))
      goto failed;
  }
  ret = drain (self, FALSE);
  if (ret != GST_FLOW_OK) {
    slot_drop_frame (self, s);
    return ret;
  }
  if (!cq) {
    s->quant = gst_cl_mpeg_rate_control_quant (&self->rc, s->intra,
        s->gop_start);
    if (!submit_encode (self, s, &error))
      goto failed;
  }
  self->pending = s;
  return GST_FLOW_OK;

failed:
  slot_drop_frame (self, s);
  GST_CL_ELEMENT_ERROR (self, error);
  return GST_FLOW_ERROR;
}

static void
log_stage_times (GstClMpegEnc * self)
{
  GstStructure *st;
  guint64 n = MAX (self->frames_out, 1), load, search, enc, wait, vlc;

  if (!self->ctx || !self->frames_out ||
      gst_debug_category_get_threshold (GST_CAT_DEFAULT) < GST_LEVEL_INFO)
    return;
  st = make_stats (self);
  gst_structure_get (st, "device-load-ns", G_TYPE_UINT64, &load,
      "device-search-ns", G_TYPE_UINT64, &search, "device-encode-ns",
      G_TYPE_UINT64, &enc, "host-wait-ns", G_TYPE_UINT64, &wait,
      "host-vlc-ns", G_TYPE_UINT64, &vlc, NULL);
  GST_INFO_OBJECT (self, "stage times per frame over %" G_GUINT64_FORMAT
      " frames (ms): device pad %.3f, search %.3f, macroblocks %.3f; host "
      "waiting %.3f, entropy coding %.3f (%u threads)", self->frames_out,
      load / 1e6 / n, search / 1e6 / n, enc / 1e6 / n, wait / 1e6 / n,
      vlc / 1e6 / n, self->workers ?
      g_thread_pool_get_max_threads (self->workers) + 1 : 1);
  gst_structure_free (st);
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
gst_cl_mpeg_enc_flush (GstVideoEncoder * enc)
{
  GstClMpegEnc *self = GST_CL_MPEG_ENC (enc);

  if (self->pending)
    slot_drop_frame (self, self->pending);
  self->pending = NULL;
  /* start over with a new sequence */
  self->need_sequence = TRUE;
  self->seq_frames = 0;
  gst_cl_mpeg_rate_control_restart (&self->rc);
  self->progress_elapsed = 0;
  progress_restart (self);
  return TRUE;
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
  /* upstream writing straight into device buffers spares a copy */
  if (caps && need_pool && self->ctx && gst_video_info_from_caps (&info, caps)
      && gst_query_get_n_allocation_pools (query) == 0) {
    GstBufferPool *pool = gst_cl_buffer_pool_new_for_caps (self->ctx, caps, 3);
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

/* Caps the sink pad refused: where the frame rate is all that is wrong,
 * the error says so and names MPEG-1's rates (else the source's bare
 * "not-negotiated" is all a user would see). */
static void
explain_refused_caps (GstClMpegEnc * self, GstCaps * caps)
{
  GstCaps *with_rate, *templ;
  gint fps_n, fps_d;

  if (!gst_caps_is_fixed (caps) ||
      !gst_structure_get_fraction (gst_caps_get_structure (caps, 0),
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
    release_device (self);
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
  return gst_structure_new ("clmpegenc-stats",
      "frames", G_TYPE_UINT64, self->frames_out,
      "bytes", G_TYPE_UINT64, self->bytes_out,
      "reencodes", G_TYPE_UINT64, self->rc.reencodes,
      "repeated-pictures", G_TYPE_UINT64, self->repeated,
      "dc-only-pictures", G_TYPE_UINT64, self->dc_only,
      "stuffing-bytes", G_TYPE_UINT64, self->rc.stuffing_bits / 8,
      "vbv-buffer-size", G_TYPE_UINT, self->seq.vbv_size_code,
      "device-load-ns", G_TYPE_UINT64, load_ns,
      "device-search-ns", G_TYPE_UINT64, ms_ns,
      "device-encode-ns", G_TYPE_UINT64, enc_ns,
      "host-wait-ns", G_TYPE_UINT64, self->wait_ns,
      "host-vlc-ns", G_TYPE_UINT64, self->vlc_ns, NULL);
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
      self->gop_size = g_value_get_uint (value);
      self->rc.gop_size = MAX (self->gop_size, 1);
      break;
    case PROP_QUANTIZER:
      self->quantizer = g_value_get_uint (value);
      self->rc.const_quant = self->quantizer;
      break;
    case PROP_IP_FACTOR:
      self->ip_factor = g_value_get_double (value);
      self->rc.ip_factor = self->ip_factor;
      break;
    case PROP_BITRATE:
      self->bitrate = g_value_get_uint (value);
      break;
    case PROP_VBV_BUFFER_SIZE:
      self->vbv_size = g_value_get_uint (value);
      break;
    case PROP_ADAPTIVE_QUANT:
      self->adaptive = g_value_get_boolean (value);
      break;
    case PROP_SEARCH_RANGE:
      self->search_range = g_value_get_uint (value);
      break;
    case PROP_SUBPEL:
      self->subpel = g_value_get_boolean (value);
      break;
    case PROP_MOTION_METHOD:
      self->motion_method = g_value_get_enum (value);
      break;
    case PROP_RDO:
      self->rdo = g_value_get_boolean (value);
      break;
    case PROP_SLICES:
      self->slices = g_value_get_uint (value);
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
      g_value_set_uint (value, self->gop_size);
      break;
    case PROP_QUANTIZER:
      g_value_set_uint (value, self->quantizer);
      break;
    case PROP_IP_FACTOR:
      g_value_set_double (value, self->ip_factor);
      break;
    case PROP_BITRATE:
      g_value_set_uint (value, self->bitrate);
      break;
    case PROP_VBV_BUFFER_SIZE:
      g_value_set_uint (value, self->vbv_size);
      break;
    case PROP_ADAPTIVE_QUANT:
      g_value_set_boolean (value, self->adaptive);
      break;
    case PROP_SEARCH_RANGE:
      g_value_set_uint (value, self->search_range);
      break;
    case PROP_SUBPEL:
      g_value_set_boolean (value, self->subpel);
      break;
    case PROP_MOTION_METHOD:
      g_value_set_enum (value, self->motion_method);
      break;
    case PROP_RDO:
      g_value_set_boolean (value, self->rdo);
      break;
    case PROP_SLICES:
      g_value_set_uint (value, self->slices);
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
  g_mutex_clear (&self->job_lock);
  g_cond_clear (&self->job_cond);
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
      g_param_spec_string ("device", "Device",
          "OpenCL device: index, part of the device or platform name, or "
          "type (GPU, CPU, accelerator); default: $GST_CL_DEVICE, else the "
          "first GPU, accelerator, CPU",
          NULL, rw | GST_PARAM_MUTABLE_READY));
  g_object_class_install_property (gobject_class, PROP_GOP_SIZE,
      g_param_spec_uint ("gop-size", "GOP size",
          "Pictures per group of pictures (an I picture, then P pictures)",
          1, 1000, DEFAULT_GOP_SIZE, rw | GST_PARAM_MUTABLE_PLAYING));
  g_object_class_install_property (gobject_class, PROP_QUANTIZER,
      g_param_spec_uint ("quantizer", "Quantizer",
          "quantiser_scale of P pictures when bitrate is 0 (1 finest .. 31 "
          "coarsest; I pictures: this / ip-factor)",
          1, 31, DEFAULT_QUANTIZER, rw | GST_PARAM_MUTABLE_PLAYING));
  g_object_class_install_property (gobject_class, PROP_IP_FACTOR,
      g_param_spec_double ("ip-factor", "I/P quantiser factor",
          "Quantiser of P pictures over that of I pictures (I pictures, "
          "which the GOP's P pictures predict from, are coded finer; with "
          "a bit rate too)", 1.0, 4.0, DEFAULT_IP_FACTOR,
          rw | GST_PARAM_MUTABLE_PLAYING));
  g_object_class_install_property (gobject_class, PROP_BITRATE,
      g_param_spec_uint ("bitrate", "Bit rate",
          "Target bit rate in kbit/s under the VBV buffer model "
          "(0: constant quantiser); set while playing, it applies from the "
          "next GOP, which starts a new sequence", 0, 100000, DEFAULT_BITRATE,
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
          "How the motion search looks, when no upstream vectors come: "
          "hierarchical (coarse to fine, many times faster on CPUs), full "
          "(every displacement of the window), or auto (hierarchical on CPU "
          "devices, full on GPUs)", GST_TYPE_CL_MOTION_METHOD,
          DEFAULT_MOTION_METHOD, rw | GST_PARAM_MUTABLE_READY));
  g_object_class_install_property (gobject_class, PROP_RDO,
      g_param_spec_boolean ("rdo", "Rate-distortion optimisation",
          "Trellis quantisation (each block's levels chosen for the least "
          "squared error plus lambda times bits of its run-level codes), and "
          "in P pictures the zero vector, the best moving vector and intra "
          "coded and compared the same way, levels kept only where they pay "
          "for the macroblock's header (off: rounding with a dead zone, SAD "
          "rules for the vector and intra)", DEFAULT_RDO,
          rw | GST_PARAM_MUTABLE_PLAYING));
  g_object_class_install_property (gobject_class, PROP_SLICES,
      g_param_spec_uint ("slices", "Slices",
          "Slices per picture, of whole macroblock rows (0: one per row). "
          "Each slice costs a header and restarts the predictors; fewer "
          "slices save those bits but leave fewer independent parts to "
          "resynchronise on and to code in parallel", 0, 175,
          DEFAULT_SLICES, rw | GST_PARAM_MUTABLE_PLAYING));
  g_object_class_install_property (gobject_class, PROP_STATS,
      g_param_spec_boxed ("stats", "Statistics",
          "Frames, bytes, VBV re-encodes, pictures repeated, pictures of DC "
          "levels only and stuffing, "
          "the VBV buffer size used (units of 16384 bits), "
          "device time per stage and host time waiting and entropy coding "
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
      "OpenCL MPEG-1 video encoder", "Codec/Encoder/Video/Hardware",
      "MPEG-1 video (ISO/IEC 11172-2) encoder with its transform stages "
      "on an OpenCL device", "gst-clvideo developers");

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
  enc_class->src_query = gst_cl_mpeg_enc_src_query;
}

static void
gst_cl_mpeg_enc_init (GstClMpegEnc * self)
{
  self->gop_size = DEFAULT_GOP_SIZE;
  self->quantizer = DEFAULT_QUANTIZER;
  self->bitrate = DEFAULT_BITRATE;
  self->vbv_size = DEFAULT_VBV_SIZE;
  self->adaptive = DEFAULT_ADAPTIVE_QUANT;
  self->search_range = DEFAULT_SEARCH_RANGE;
  self->subpel = DEFAULT_SUBPEL;
  self->motion_method = DEFAULT_MOTION_METHOD;
  self->rdo = DEFAULT_RDO;
  self->slices = DEFAULT_SLICES;
  self->post_messages = DEFAULT_POST_MESSAGES;
  self->interval = DEFAULT_INTERVAL;
  self->rc.const_quant = DEFAULT_QUANTIZER;
  self->ip_factor = DEFAULT_IP_FACTOR;
  self->rc.ip_factor = DEFAULT_IP_FACTOR;
  g_mutex_init (&self->job_lock);
  g_cond_init (&self->job_cond);
}
