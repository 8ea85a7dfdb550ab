/* gst-clvideo: MPEG-1 and MPEG-2 encoding engine: frame scheduling
 * between the device stages, the slice coders and the rate control
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * Two slots carry a frame each from its device stages (upload and padding,
 * motion search, macroblock stages) to its entropy coding: the device
 * works on one while the host codes the slices of the other. With a bit
 * rate the quantiser of a frame depends on the size of the one before, so
 * its macroblock stages wait for that; a picture the VBV model refuses is
 * coded again, coarser (finish_slot).
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include "gstclmpegengine.h"

#include <math.h>
#include <string.h>

#include <gst/cl/gstclerror.h>
#include <gst/cl/gstclhostmemory.h>
#include <gst/cl/gstclmemory.h>
#include "gstclmotionsearchcompute.h"
#include "gstclmpegbitwriter.h"
#include "gstclmpegheaders.h"
#include "gstclmpegprofile.h"
#include "gstclmpegratecontrol.h"
#include "gstclmpegtransform.h"
#include "gstclmpegvlc.h"

/* the element's category: the engine's log is the element's */
GST_DEBUG_CATEGORY_EXTERN (gst_cl_mpeg_enc_debug);
#define GST_CAT_DEFAULT gst_cl_mpeg_enc_debug

/* an inter macroblock must predict better than its own activity by this
 * much (SAD units) to beat intra coding */
#define INTRA_BIAS 384
/* rate-distortion decisions: lambda in 1/16 q^2 per bit of squared
 * error, and in 1/16 q per bit of SAD for the vectors */
#define RD_LAMBDA 14
#define MV_LAMBDA 4
/* B pictures: a vector other than zero must lower the SAD by this many
 * quantiser steps more than its bits weigh: still macroblocks are then
 * skipped where their neighbours are, and a vector that hardly beats zero
 * seldom pays for itself where the levels are dropped (measured on four
 * clips against 4: bikes -15%, walkers -11%, foreman +0.7%, parkjoy
 * +0.8% BD-rate) */
#define B_ZERO_MARGIN 24
/* Adaptive B pictures: a GOP has B pictures where the last GOPs' P
 * pictures further on, with the B pictures between, took less than this
 * share of the bits a frame of P pictures a frame after their reference
 * took (each picture's bits times its quantiser, at the P pictures'
 * scale). Below 1: a B picture's coarser quantiser costs PSNR. Measured
 * on the real-content set, where the share ranges from 0.6 to 1.8 and B
 * pictures pay on the clips below about 0.9. */
#define B_ADAPT_SHARE 0.88
/* ... and the GOP tries the other spacing where the share is within
 * these bounds, or where it has not for B_ADAPT_PROBE_GOPS GOPs: a
 * choice this clear costs what the trial costs (a P picture for two B
 * pictures) in most GOPs */
#define B_ADAPT_CLEAR_LOW 0.75
#define B_ADAPT_CLEAR_HIGH 1.05
#define B_ADAPT_PROBE_GOPS 4
/* The bits a slice should hold (by the records' estimate, see
 * auto_slices) when the encoder chooses the slices: each slice costs about
 * 60 bits (its header, and the first and last macroblocks that it must
 * code even where they could be skipped), 0.3% of this, and pictures this
 * many times larger still have a slice for each of several threads (a
 * 1080p P picture of 150 kbit: 8). A fixed size, not the host's thread
 * count: the stream must not depend on the machine. */
#define SLICE_TASK_BITS 20000
/* GPU layout: the packed levels read with a picture's records beyond half
 * as many again as the last picture of its type had (a still picture's
 * few vary by more than half) */
#define PACKED_SLACK 4096
/* VBV buffer when not set: half a second at the bit rate (more where
 * the stream needs it) */
#define AUTO_VBV_SECONDS 0.5
/* vbv_buffer_size's unit */
#define VBV_UNIT_BITS 16384ULL

/* one frame between its device stages and its entropy coding */
typedef struct
{
  GstVideoCodecFrame *frame;
  cl_mem cur, vectors, records, levels;
  /* B pictures: the backward vectors, the prediction mpeg_predict_b
   * chose and its choices */
  cl_mem bvectors, bpred, choices;
  /* interlaced pictures: the field prediction and its choices (B: the
   * forward ones, then the backward ones) */
  cl_mem fpred, fields, bfpred, bfields;
  gboolean field_motion;        /* the field prediction competed */
  /* interlaced P and B pictures: the top fields' vectors towards the
   * reference's (B: forward, backward), where @field_searched
   * (search_fields) */
  cl_mem field_vectors[2];
  gboolean field_searched;
  GstClMpegMbRecord *rec;       /* mapped results, once @ready */
  GstClMpegBChoice *ch;         /* mapped choices (B), once @ready */
  GstClMpegFieldChoice *fc;     /* mapped field choices, once @ready */
  GstClMpegFieldChoice *bfc;    /* ... the backward ones (B) */
  gint16 *lev;                  /* mapped levels (CPU layout) */
  /* GPU layout: the levels packed on the device and @offsets (where each
   * macroblock's levels start, then the summary's parts: see
   * gst_cl_mpeg_transform_pack) read back into page-locked memory (the
   * driver copies into pageable memory with the CPU, and may block until
   * the copy is done) */
  cl_mem offsets, packed;
  GstMapInfo packed_map, offsets_map;
  gint16 *packed_host;
  guint32 *mb_offsets;
  /* the packed levels read with the records, and whether the rest are */
  guint32 levels_ahead;
  gboolean levels_read;
  /* what the engine reads of the records besides the slices, once they
   * are ready (slot_summary) */
  GstClMpegRecordsSummary summary;
  gboolean summarized;
  cl_event ready;
  guint type;                   /* GST_CL_MPEG_PICTURE_I, _P or _B */
  gboolean gop_start, seq_start;
  gboolean gop_closed;          /* gop_start: no B picture before it */
  guint quant;
  guint dc_shift;               /* intra DC precision above 8 bits */
  /* MPEG-2: the intra blocks' levels priced with table B.15 (else B.14),
   * and coded with it (intra_vlc_format), whichever takes fewer bits */
  gboolean intra_vlc, intra_vlc_format;
  /* an interlaced sequence: the frame is coded as two fields, the top one
   * first; a progressive frame of 3:2 pulldown shows its first field again
   * after the second */
  gboolean interlaced, top_field_first, repeat_first_field;
  /* reconstruction buffers: the reference (B: the forward one), the
   * backward reference (B), the reconstruction */
  guint ref, bwd, out;
  /* where the fields of the frame and of its references lie in time (the
   * field search's candidates) */
  GstClMpegFieldTiming fwd_timing, bwd_timing;
  guint temporal_reference;
  guint64 display;              /* its place in display order */
  guint64 gop_frame;            /* first picture of its GOP, in the sequence */
  gboolean encoded;
  /* the rate control's last resorts when even quantiser 31 is too many
   * bits: intra DC only; P every macroblock skipped */
  gboolean dc_only, all_skipped;
  /* adaptive B pictures: frames from an anchor to its forward reference;
   * a B picture: whether its backward anchor is a P picture */
  guint distance;
  gboolean after_p;
  /* with B pictures: upstream's motion from the frame to its forward
   * reference (see carry_trail), borrowed; NULL: none */
  cl_mem trail;
} Slot;

#define INTRA(s) ((s)->type == GST_CL_MPEG_PICTURE_I)

/* a B frame, its temporal_reference and its place in display order
 * (what 3:2 pulldown's fields follow) */
typedef struct
{
  GstVideoCodecFrame *frame;
  guint temporal_reference;
  guint64 display;
  cl_mem trail;                 /* see carry_trail; owned */
} Waiting;

struct _GstClMpegEngine
{
  GstObject *parent;            /* what the log names */
  GstClMpegEngineCallbacks cb;
  gpointer user_data;
  GMutex settings_lock;
  GstClMpegEngineSettings settings;

  /* the elements' shared context, and a sibling of it on a command queue
   * of the engine's own, on which all its device work runs: beside the
   * other encoders' and elements' (NVIDIA's driver serialises the
   * launches of one queue) */
  GstClContext *shared, *ctx;
  GstClMpegTransform *tr;
  GstClMotionSearch *ms;
  /* the picture (its place in display order) whose decimated levels @ms
   * keeps from its last search, G_MAXUINT64: none. A P picture whose
   * reference's source that is takes them for its reference's coarse
   * levels: the source instead of its reconstruction, one decimation a
   * picture instead of two, and as many bits on the real-content set. */
  guint64 ms_levels_display;
  /* B pictures' searches, forward and backward: each follows its own
   * motion */
  GstClMotionSearch *ms_b[2];
  /* interlaced pictures: the searches of the top fields (search_fields),
   * P, then B forward and backward */
  GstClMotionSearch *ms_field[3];
  /* the field search's reaches (gst_cl_mpeg_transform_field_search) */
  guint field_reach, field_seed_reach;
  GstBufferPool *staging;
  /* page-locked host memory (GPU layout: the packed levels' read-back) */
  GstAllocator *host_alloc;
  /* GPU layout: the packed levels of the last picture of each type
   * (GST_CL_MPEG_PICTURE_I, _P, _B), for how many to read with the
   * records */
  guint32 packed_seen[4];
  GstVideoInfo info;
  guint mb_width, mb_height;
  /* the anchors' reconstructions in turn, and the B pictures' (which no
   * picture predicts from) */
  cl_mem recon[4];
  guint last_recon;
  /* the place in display order of the frame of each reconstruction */
  guint64 recon_display[4];
  cl_mem zero_vectors;          /* B: a picture of zero vectors */
  /* B: the last P picture's vectors, towards the anchor before it
   * anchor_span frames away, while it is the last anchor (else
   * anchor_span 0) */
  cl_mem anchor_vectors;
  guint anchor_span;
  /* B: upstream's vectors carried from frame to frame back to the last
   * anchor (carry_trail), in fields from free_trails: the last anchor's
   * (owned), and the last frame's (borrowed: a waiting frame's, or
   * zero_vectors where the last frame is that anchor; NULL where
   * unknown). b_between: a B picture's backward vectors made from them. */
  GQueue free_trails;
  cl_mem anchor_trail, last_trail, b_between;
  /* a frame each: on the device (pending); its decisions made, its
   * slices coded by the workers (coding, see slices_async); and the next
   * one, put on the device meanwhile */
  Slot slots[3];
  guint next_slot;
  Slot *pending, *coding;

  /* stream */
  GstClMpegSequenceParams seq;
  const GstClMpeg2Level *level; /* MPEG-2's bounds; NULL: MPEG-1 */
  gint fps_n, fps_d;             /* pictures a second (pulldown: 4/5 of the
                                 * frame rate the stream signals) */
  gdouble frame_period;         /* seconds, at the signalled frame rate */
  guint64 seq_frames;           /* pictures so far in the sequence */
  guint64 frames_in;            /* frames taken since configured or flushed */
  guint64 display_first;        /* the first one's place in the stream */
  /* frame periods the last anchor coded is shown for (0: none yet in the
   * sequence): with B pictures, the time to the decoding after an
   * anchor's (13818-2 C.9) */
  gdouble anchor_shown;
  guint b_frames;               /* the sequence's B pictures per anchor */
  gboolean non_linear;          /* MPEG-2's non-linear quantiser_scale */
  guint last_anchor;            /* the type of the last anchor coded */
  /* adaptive B pictures: the bits of P pictures a frame after their
   * reference, and of P pictures further on with their B pictures, and
   * the frames they cover (see record_b_adapt) */
  gdouble near_bits, far_bits, near_frames, far_frames;
  gboolean b_adapt_on;          /* the last GOP's choice: B pictures */
  gboolean dc_precision_warned; /* intra-dc-precision above the profile's */
  guint gops_unprobed;          /* GOPs since one tried the other spacing */
  gboolean top_field_first;     /* the field order last marked on a buffer */
  guint64 length;               /* frames in the stream; G_MAXUINT64:
                                 * unknown */
  /* B frames waiting for the anchor after them (Waiting, display order) */
  GQueue waiting;
  /* the input's timestamps in display order, not yet given as a decoding
   * timestamp, and the last given */
  GQueue pts;
  GstClockTime last_pts;
  /* the "bitrate", "max-bitrate" and "vbv-buffer-size" the sequence
   * follows */
  guint seq_bitrate, seq_max_bitrate, seq_vbv_size;
  guint gop_pos;                /* frames since the GOP's I picture */
  /* the GOP's B pictures before its I picture (an open GOP's), and
   * whether it may end with B pictures */
  guint gop_lead;
  gboolean gop_open;
  guint64 gop_first;            /* the GOP's first frame displayed */
  gboolean need_sequence;
  GstClMpegRateControl rc;
  guint avg_activity;

  /* entropy coding */
  GThreadPool *workers;
  GstClMpegBitWriter *rows;
  GstClMpegMbRecord *skip_recs; /* a picture of skipped macroblocks */
  GstClMpegBChoice *skip_choices;       /* ... forward, zero vector (B) */
  GMutex job_lock;
  GCond job_cond;
  guint job_left;
  gint job_next;                /* the next slice to code (atomic) */
  guint job_rows, job_slices;   /* macroblock rows per slice, slices */
  Slot *job_slot;
  const GstClMpegMbRecord *job_recs;
  const GstClMpegBChoice *job_choices;
  const GstClMpegFieldChoice *job_fields, *job_bfields;
  GstClMpegPictureCoding job_coding;

  /* statistics */
  guint64 frames_out, bytes_out, vlc_ns, wait_ns;
  /* P pictures the rate control coded as a repeat of their reference,
   * pictures it coded with DC levels only, pictures over the VBV buffer's
   * fullness that went out as they were */
  guint64 repeated, dc_only, underflows, scene_cuts;
  guint64 recoded;              /* pictures coded again but for the VBV */
};

/* Passes a warning to the element, formatted. */
static void
warn (GstClMpegEngine * e, GQuark domain, gint code, const gchar * format,
    ...) G_GNUC_PRINTF (4, 5);

static void
warn (GstClMpegEngine * e, GQuark domain, gint code, const gchar * format,
    ...)
{
  va_list args;
  gchar *text;

  va_start (args, format);
  text = g_strdup_vprintf (format, args);
  va_end (args);
  e->cb.warning (domain, code, text, e->user_data);
  g_free (text);
}

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

/* wait_event (@event), the time counted as waiting for the device */
static gboolean
wait_device (GstClMpegEngine * e, cl_event * event, GError ** error)
{
  gint64 t0 = g_get_monotonic_time ();
  gboolean ok = wait_event (event, error);

  e->wait_ns += (g_get_monotonic_time () - t0) * 1000;
  return ok;
}

/* Page-locked host memory of @size bytes, zeroed, mapped into @map
 * (host_free) */
static gboolean
host_alloc (GstClMpegEngine * e, gsize size, GstMapInfo * map,
    GError ** error)
{
  GstMemory *mem;

  if (!e->host_alloc)
    e->host_alloc = gst_cl_host_allocator_new (e->ctx);
  mem = gst_allocator_alloc (e->host_alloc, size, NULL);
  if (!mem || !gst_memory_map (mem, map, GST_MAP_READWRITE)) {
    g_set_error (error, GST_CL_ERROR, GST_CL_ERROR_CALL, "%" G_GSIZE_FORMAT
        " bytes of page-locked host memory, for the levels' read-back, "
        "could not be allocated (the clhostmemory log says why)", size);
    if (mem)
      gst_memory_unref (mem);
    memset (map, 0, sizeof (*map));
    return FALSE;
  }
  memset (map->data, 0, size);
  return TRUE;
}

static void
host_free (GstMapInfo * map)
{
  GstMemory *mem = map->memory;

  if (mem) {
    gst_memory_unmap (mem, map);
    gst_memory_unref (mem);
  }
  memset (map, 0, sizeof (*map));
}

static void
slot_unmap (GstClMpegEngine * e, Slot * s)
{
  /* on the way out: the commands' own errors were reported */
  wait_event (&s->ready, NULL);
  if (s->rec)
    clEnqueueUnmapMemObject (e->ctx->queue, s->records, s->rec, 0, NULL,
        NULL);
  if (s->lev)
    clEnqueueUnmapMemObject (e->ctx->queue, s->levels, s->lev, 0, NULL,
        NULL);
  if (s->ch)
    clEnqueueUnmapMemObject (e->ctx->queue, s->choices, s->ch, 0, NULL,
        NULL);
  if (s->fc)
    clEnqueueUnmapMemObject (e->ctx->queue, s->fields, s->fc, 0, NULL,
        NULL);
  if (s->bfc)
    clEnqueueUnmapMemObject (e->ctx->queue, s->bfields, s->bfc, 0, NULL,
        NULL);
  s->rec = NULL;
  s->lev = NULL;
  s->ch = NULL;
  s->fc = NULL;
  s->bfc = NULL;
}

static void
slot_drop_frame (GstClMpegEngine * e, Slot * s)
{
  slot_unmap (e, s);
  if (s->frame)
    gst_video_codec_frame_unref (s->frame);
  s->frame = NULL;
  s->encoded = FALSE;
}

/* Waits for the workers' slices of the job (@done: those this thread
 * coded itself) */
static void
wait_slices (GstClMpegEngine * e, guint done)
{
  g_mutex_lock (&e->job_lock);
  e->job_left -= done;
  while (e->job_left > 0)
    g_cond_wait (&e->job_cond, &e->job_lock);
  g_mutex_unlock (&e->job_lock);
  /* workers still queued for this job find no slice, whatever comes
   * next */
  g_atomic_int_set (&e->job_next, G_MAXINT / 2);
}

/* Drops the frame whose slices the workers code, once they are done */
static void
drop_coding (GstClMpegEngine * e)
{
  if (!e->coding)
    return;
  wait_slices (e, 0);
  slot_drop_frame (e, e->coding);
  e->coding = NULL;
}

static void
release_mem (cl_mem * m)
{
  if (*m)
    clReleaseMemObject (*m);
  *m = NULL;
}

/* Gives the trail field *@m (if any) back to the free ones */
static void
trail_free (GstClMpegEngine * e, cl_mem * m)
{
  if (*m)
    g_queue_push_head (&e->free_trails, *m);
  *m = NULL;
}

/* Drops the B frames waiting for their anchor, and the timestamps of
 * the frames not given out. */
static void
drop_waiting (GstClMpegEngine * e)
{
  Waiting *w;

  while ((w = g_queue_pop_head (&e->waiting))) {
    gst_video_codec_frame_unref (w->frame);
    trail_free (e, &w->trail);
    g_free (w);
  }
  /* (the next frame's motion follows none from before) */
  e->last_trail = NULL;
  while (!g_queue_is_empty (&e->pts))
    g_free (g_queue_pop_head (&e->pts));
  e->last_pts = GST_CLOCK_TIME_NONE;
}

void
gst_cl_mpeg_engine_release (GstClMpegEngine * e)
{
  guint i;

  drop_coding (e);
  for (i = 0; i < G_N_ELEMENTS (e->slots); i++) {
    Slot *s = &e->slots[i];
    slot_drop_frame (e, s);
    release_mem (&s->cur);
    release_mem (&s->vectors);
    release_mem (&s->records);
    release_mem (&s->levels);
    release_mem (&s->bvectors);
    release_mem (&s->bpred);
    release_mem (&s->choices);
    release_mem (&s->fpred);
    release_mem (&s->fields);
    release_mem (&s->bfpred);
    release_mem (&s->bfields);
    release_mem (&s->field_vectors[0]);
    release_mem (&s->field_vectors[1]);
    release_mem (&s->offsets);
    release_mem (&s->packed);
    host_free (&s->packed_map);
    host_free (&s->offsets_map);
    s->packed_host = NULL;
    s->mb_offsets = NULL;
  }
  gst_clear_object (&e->host_alloc);
  e->pending = NULL;
  drop_waiting (e);
  for (i = 0; i < G_N_ELEMENTS (e->recon); i++)
    release_mem (&e->recon[i]);
  release_mem (&e->zero_vectors);
  release_mem (&e->anchor_vectors);
  e->anchor_span = 0;
  trail_free (e, &e->anchor_trail);
  while (!g_queue_is_empty (&e->free_trails))
    clReleaseMemObject (g_queue_pop_head (&e->free_trails));
  release_mem (&e->b_between);
  g_clear_pointer (&e->ms, gst_cl_motion_search_free);
  for (i = 0; i < G_N_ELEMENTS (e->ms_field); i++)
    g_clear_pointer (&e->ms_field[i], gst_cl_motion_search_free);
  g_clear_pointer (&e->ms_b[0], gst_cl_motion_search_free);
  g_clear_pointer (&e->ms_b[1], gst_cl_motion_search_free);
  g_clear_pointer (&e->tr, gst_cl_mpeg_transform_free);
  if (e->staging) {
    gst_buffer_pool_set_active (e->staging, FALSE);
    gst_clear_object (&e->staging);
  }
  if (e->rows) {
    for (i = 0; i < e->mb_height; i++)
      gst_cl_mpeg_bit_writer_clear (&e->rows[i]);
    g_clear_pointer (&e->rows, g_free);
  }
  g_clear_pointer (&e->skip_recs, g_free);
  g_clear_pointer (&e->skip_choices, g_free);
  gst_clear_object (&e->ctx);
  gst_clear_object (&e->shared);
}

/* A field search's prediction and choices, into @pred and @fields */
static gboolean
alloc_field_search (GstClMpegEngine * e, cl_mem * pred, cl_mem * fields,
    GError ** error)
{
  return (*pred = gst_cl_mpeg_transform_alloc (e->tr,
          gst_cl_mpeg_transform_picture_size (e->tr), error)) &&
      (*fields = gst_cl_mpeg_transform_alloc (e->tr,
          gst_cl_mpeg_transform_field_choices_size (e->tr), error));
}

static gboolean
setup_device (GstClMpegEngine * e, GError ** error)
{
  GstClMotionSearchParams mp = { 0, };
  GstClMotionEffort effort;
  gsize pic, rec, lev, vec;
  guint i, d, w = GST_VIDEO_INFO_WIDTH (&e->info);
  guint h = GST_VIDEO_INFO_HEIGHT (&e->info);

  e->tr = gst_cl_mpeg_transform_new_format (e->ctx, w, h, e->seq.interlaced,
      e->seq.chroma_422, error);
  /* (now, not at the first B picture or interlaced one: a stall there) */
  if (!e->tr || !gst_cl_mpeg_transform_prepare (e->tr, e->b_frames > 0,
          e->seq.interlaced, error))
    return FALSE;
  e->mb_width = gst_cl_mpeg_transform_mb_width (e->tr);
  e->mb_height = gst_cl_mpeg_transform_mb_height (e->tr);
  pic = gst_cl_mpeg_transform_picture_size (e->tr);
  rec = gst_cl_mpeg_transform_records_size (e->tr);
  lev = gst_cl_mpeg_transform_levels_size (e->tr);
  vec = gst_cl_mpeg_transform_vectors_size (e->tr);
  for (i = 0; i < G_N_ELEMENTS (e->recon); i++)
    if (!(e->recon[i] = gst_cl_mpeg_transform_alloc (e->tr, pic,
                error)))
      return FALSE;
  for (i = 0; i < G_N_ELEMENTS (e->slots); i++) {
    Slot *s = &e->slots[i];
    if (!(s->cur = gst_cl_mpeg_transform_alloc (e->tr, pic, error)) ||
        !(s->vectors = gst_cl_mpeg_transform_alloc (e->tr, vec, error)) ||
        !(s->records = gst_cl_mpeg_transform_alloc (e->tr, rec, error)) ||
        !(s->levels = gst_cl_mpeg_transform_alloc (e->tr, lev, error)))
      return FALSE;
    if (i == 0 && e->b_frames > 0 &&
        (!(e->zero_vectors = gst_cl_mpeg_transform_alloc (e->tr, vec,
                    error)) ||
            !(e->anchor_vectors = gst_cl_mpeg_transform_alloc (e->tr, vec,
                    error)) ||
            !(e->b_between = gst_cl_mpeg_transform_alloc (e->tr, vec,
                    error)) ||
            !gst_cl_mpeg_transform_zero_vectors (e->tr, e->zero_vectors,
                error)))
      return FALSE;
    if (e->b_frames > 0 &&
        (!(s->bvectors = gst_cl_mpeg_transform_alloc (e->tr, vec, error)) ||
            !(s->bpred = gst_cl_mpeg_transform_alloc (e->tr, pic, error)) ||
            !(s->choices = gst_cl_mpeg_transform_alloc (e->tr,
                    gst_cl_mpeg_transform_choices_size (e->tr), error))))
      return FALSE;
    /* (B pictures search the fields towards each anchor) */
    if (e->seq.interlaced && (!alloc_field_search (e, &s->fpred, &s->fields,
                error) || (e->b_frames > 0 && !alloc_field_search (e,
                    &s->bfpred, &s->bfields, error))))
      return FALSE;
    if (gst_cl_mpeg_transform_packs_levels (e->tr)) {
      gsize n = (gsize) e->mb_width * e->mb_height;
      if (!(s->offsets = gst_cl_mpeg_transform_alloc (e->tr,
                  gst_cl_mpeg_transform_offsets_size (e->tr), error)) ||
          !(s->packed = gst_cl_mpeg_transform_alloc (e->tr, lev, error)) ||
          /* the entropy coder may read 64 levels past the last */
          !host_alloc (e, (n * GST_CL_MPEG_MB_LEVELS + 64) * sizeof (gint16),
              &s->packed_map, error) ||
          !host_alloc (e, gst_cl_mpeg_transform_offsets_size (e->tr),
              &s->offsets_map, error))
        return FALSE;
      s->packed_host = (gint16 *) s->packed_map.data;
      s->mb_offsets = (guint32 *) s->offsets_map.data;
    }
  }
  g_mutex_lock (&e->settings_lock);
  mp.block_size = 16;
  mp.search_range = e->settings.search_range;
  mp.subpel = e->settings.subpel;
  mp.method = e->settings.motion_method;
  effort = e->settings.motion_effort;
  g_mutex_unlock (&e->settings_lock);
  e->field_reach = effort == GST_CL_MOTION_EFFORT_HIGH ?
      GST_CL_MPEG_FIELD_REACH_HIGH : GST_CL_MPEG_FIELD_REACH;
  e->field_seed_reach = effort == GST_CL_MOTION_EFFORT_HIGH ?
      GST_CL_MPEG_FIELD_REACH_HIGH : GST_CL_MPEG_FIELD_SEED_REACH;
  if (mp.search_range > 0) {
    e->ms = gst_cl_motion_search_new (e->ctx, &mp, error);
    if (!e->ms)
      return FALSE;
    gst_cl_motion_search_set_effort (e->ms, effort);
    /* the searches of the top fields: as thorough as the frame's at
     * high effort; at medium effort the lightest, for the field search's
     * narrower second grid (a tenth more of the encoder's time on POCL;
     * at the frame search's effort with the wider grid, a fifth) */
    if (e->seq.interlaced && effort >= GST_CL_MOTION_EFFORT_MEDIUM) {
      for (i = 0; i < (e->b_frames > 0 ? 3u : 1u); i++) {
        if (!(e->ms_field[i] = gst_cl_motion_search_new (e->ctx, &mp,
                    error)))
          return FALSE;
        gst_cl_motion_search_set_effort (e->ms_field[i],
            effort == GST_CL_MOTION_EFFORT_HIGH ? effort :
            GST_CL_MOTION_EFFORT_LOW);
      }
      /* each slot's: forward, and backward with B pictures */
      for (i = 0; i < G_N_ELEMENTS (e->slots); i++)
        for (d = 0; d < (e->b_frames > 0 ? 2u : 1u); d++)
          if (!(e->slots[i].field_vectors[d] =
                  gst_cl_mpeg_transform_alloc (e->tr, vec, error)))
            return FALSE;
    }
    for (i = 0; i < 2 && e->b_frames > 0; i++) {
      if (!(e->ms_b[i] = gst_cl_motion_search_new (e->ctx, &mp, error)))
        return FALSE;
      gst_cl_motion_search_set_effort (e->ms_b[i], effort);
    }
  }
  e->skip_recs = g_new0 (GstClMpegMbRecord,
      (gsize) e->mb_width * e->mb_height);
  for (i = 0; i < e->mb_width * e->mb_height; i++) {
    e->skip_recs[i].flags = GST_CL_MPEG_MB_SKIPPABLE;
    e->skip_recs[i].quant = 31;
    e->skip_recs[i].n_blocks = e->seq.chroma_422 ? GST_CL_MPEG_BLOCKS_422 :
        GST_CL_MPEG_BLOCKS_420;
  }
  e->skip_choices = g_new0 (GstClMpegBChoice,
      (gsize) e->mb_width * e->mb_height);
  for (i = 0; i < e->mb_width * e->mb_height; i++)
    e->skip_choices[i].directions = GST_CL_MPEG_B_FORWARD;
  e->rows = g_new0 (GstClMpegBitWriter, e->mb_height);
  for (i = 0; i < e->mb_height; i++)
    gst_cl_mpeg_bit_writer_init (&e->rows[i],
        (gsize) e->mb_width * 64);
  return TRUE;
}

/* ---- entropy coding on worker threads ---- */

/* Codes slice @slice (job_rows macroblock rows) into the writer of its
 * first row; those of its other rows stay empty. */
static void
code_slice (GstClMpegEngine * e, guint slice)
{
  Slot *s = e->job_slot;
  guint row = slice * e->job_rows, i;
  guint rows = MIN (e->job_rows, e->mb_height - row);
  gsize first = (gsize) row * e->mb_width;

  for (i = 0; i < rows; i++)
    gst_cl_mpeg_bit_writer_reset (&e->rows[row + i]);
  gst_cl_mpeg_write_slice (&e->rows[row], row, e->mb_width * rows,
      &e->job_coding, e->job_recs + first,
      e->job_choices ? e->job_choices + first : NULL,
      e->job_fields ? e->job_fields + first : NULL,
      e->job_bfields ? e->job_bfields + first : NULL,
      s->packed ? s->packed_host : s->lev + first * GST_CL_MPEG_MB_LEVELS,
      s->packed ? s->mb_offsets + first : NULL);
}

/* Codes slices while there are slices left; returns how many. */
static guint
code_slices_left (GstClMpegEngine * e)
{
  guint done = 0;
  gint slice;

  while ((slice = g_atomic_int_add (&e->job_next, 1)) <
      (gint) e->job_slices) {
    code_slice (e, slice);
    done++;
  }
  return done;
}

static void
worker_func (gpointer data G_GNUC_UNUSED, gpointer user_data)
{
  GstClMpegEngine *e = user_data;
  guint done = code_slices_left (e);

  /* a worker that starts late finds no slice left: nothing to report */
  if (!done)
    return;
  g_mutex_lock (&e->job_lock);
  e->job_left -= done;
  if (e->job_left == 0)
    g_cond_signal (&e->job_cond);
  g_mutex_unlock (&e->job_lock);
}

/* The slices of a picture of the records summed up in @sum when "slices"
 * leaves them to the encoder: one per SLICE_TASK_BITS of the picture's
 * estimated size (16 bits a coded macroblock, 3 a level position up to
 * each block's last, 8 a B picture's macroblock without levels, which is
 * skipped only where it repeats its neighbour: within a factor of two,
 * which is all the choice needs), at least one, at most one per row. A
 * still picture of skipped macroblocks takes one slice instead of one per
 * row, whose headers were most of its bits. */
static guint
auto_slices (GstClMpegEngine * e, const GstClMpegRecordsSummary * sum,
    gboolean bidir)
{
  guint n = e->mb_width * e->mb_height;
  guint64 bits = 16 * (guint64) sum->coded + 3 * sum->coded_last_sum +
      (bidir ? 8 * (guint64) (n - sum->coded) : 0);

  return CLAMP ((bits + SLICE_TASK_BITS - 1) / SLICE_TASK_BITS, 1,
      e->mb_height);
}

/* The summary of the records of @s, ready, for the coding of @s they
 * come from: read back with them where the device packs the levels (with
 * the packed levels' offsets), else summed here */
static const GstClMpegRecordsSummary *
slot_summary (GstClMpegEngine * e, Slot * s)
{
  guint n = e->mb_width * e->mb_height;

  if (s->summarized)
    return &s->summary;
  if (s->packed)
    gst_cl_mpeg_transform_pack_summary (e->tr, s->mb_offsets,
        &s->summary);
  else
    gst_cl_mpeg_records_summarize (s->rec, n, &s->summary);
  s->summarized = TRUE;
  return &s->summary;
}

/* The summary of the records the slices of @s are coded from
 * (e->job_recs): its own, or where every macroblock is skipped those of
 * e->skip_recs, summed into @skipped */
static const GstClMpegRecordsSummary *
job_summary (GstClMpegEngine * e, Slot * s,
    GstClMpegRecordsSummary * skipped)
{
  if (!s->all_skipped)
    return slot_summary (e, s);
  gst_cl_mpeg_records_summarize (e->skip_recs, e->mb_width * e->mb_height,
      skipped);
  return skipped;
}

/* Codes every slice of @s into e->rows, in parallel; with @async, on the
 * workers alone, returning at once (wait_slices waits for them). */
static void
code_slices (GstClMpegEngine * e, Slot * s,
    const GstClMpegPictureCoding * pc, gboolean async)
{
  GstClMpegRecordsSummary skipped;
  guint slice, i, slices;

  g_mutex_lock (&e->settings_lock);
  slices = e->settings.slices;
  g_mutex_unlock (&e->settings_lock);
  e->job_slot = s;
  e->job_recs = s->all_skipped ? e->skip_recs : s->rec;
  e->job_choices = s->type != GST_CL_MPEG_PICTURE_B ? NULL :
      s->all_skipped ? e->skip_choices : s->ch;
  e->job_fields = s->all_skipped ? NULL : s->fc;
  e->job_bfields = s->all_skipped ? NULL : s->bfc;
  /* rows per slice, as even as whole rows allow; an MPEG-2 slice stays in
   * its row */
  if (e->seq.mpeg2 || slices > e->mb_height)
    slices = e->mb_height;
  else if (slices == 0)
    slices = auto_slices (e, job_summary (e, s, &skipped),
        s->type == GST_CL_MPEG_PICTURE_B);
  e->job_rows = (e->mb_height + slices - 1) / slices;
  e->job_slices = (e->mb_height + e->job_rows - 1) / e->job_rows;
  e->job_coding = *pc;
  if (!e->workers || (e->job_slices == 1 && !async)) {
    for (slice = 0; slice < e->job_slices; slice++)
      code_slice (e, slice);
    e->job_left = 0;
    return;
  }
  e->job_left = e->job_slices;
  g_atomic_int_set (&e->job_next, 0);
  /* the workers and this thread take slices in turn until none is left:
   * while the device's threads keep the cores busy, workers may wake up
   * late, and this thread does not wait for them to start; a worker
   * more than the slices left to others would only be woken for nothing */
  for (i = MIN ((guint) g_thread_pool_get_max_threads (e->workers),
          e->job_slices - !async); i > 0; i--)
    g_thread_pool_push (e->workers, GUINT_TO_POINTER (1), NULL);
  if (!async)
    wait_slices (e, code_slices_left (e));
}

/* ---- device stages ---- */

/* Device copy of the input frame (whose layout the element checked): the
 * buffer itself when it is OpenCL memory of our context, its samples
 * borrowed on a CPU device (*@borrowed, to release), else a staged upload
 * (*@staged, to unref). */
static gboolean
device_frame (GstClMpegEngine * e, GstBuffer * in, GstClFrame * clf,
    GstBuffer ** staged, cl_mem * borrowed, GError ** error)
{
  *staged = NULL;
  *borrowed = NULL;
  if (gst_buffer_is_cl (in, e->shared)) {
    gst_cl_frame_init (clf, &e->info, in);
    return TRUE;
  }
  if (gst_cl_frame_borrow (e->ctx, &e->info, in, clf)) {
    *borrowed = clf->mem;
    return TRUE;
  }
  return gst_cl_stage_frame (e->ctx, &e->staging, &e->info, in,
      staged, clf, error);
}

/* The largest f_code the stream may use: MPEG-1's (4 with constrained
 * parameters), or the level's vertical bound (below its horizontal one;
 * both components share one f_code) */
static guint
max_f_code (GstClMpegEngine * e)
{
  if (e->level)
    return MIN (e->level->max_f_code_v, 7);
  return e->seq.constrained ? 4 : 7;
}

/* The vectors an upstream clmotionsearch left on @in (between it and the
 * frame before it), when they fit our grid; NULL otherwise */
static cl_mem
upstream_vectors (GstClMpegEngine * e, GstBuffer * in)
{
  GstClMotionMeta *meta = gst_buffer_get_cl_motion_meta (in);

  if (!meta || meta->context != e->shared || meta->block_size != 16 ||
      meta->blocks_x != e->mb_width || meta->blocks_y != e->mb_height)
    return NULL;
  return meta->vectors;
}

/* The frames between the picture of @s and its reference @ref in display
 * order, negative where the reference comes later (a B picture's
 * backward one) */
static gint
frames_to (GstClMpegEngine * e, const Slot * s, guint ref)
{
  gint64 d = (gint64) s->display - (gint64) e->recon_display[ref];

  return (gint) CLAMP (d, -G_MAXINT16, G_MAXINT16);
}

/* Whether @ms can start from other vectors than its own last ones
 * (gst_cl_motion_search_run_seeded) */
static gboolean
searches_from_seed (GstClMotionSearch * ms)
{
  return gst_cl_motion_search_get_params (ms)->method ==
      GST_CL_MOTION_METHOD_HIERARCHICAL;
}

/* Upstream's vectors carried across this many frames or fewer lead the
 * search at full resolution only (see carry_trail); further (a P
 * picture three frames on) the whole search runs around them, which
 * found 3% fewer bytes on a fast pan, 0 to 0.4% on real clips. */
#define TRAIL_FULL_RES_FRAMES 2

/* B pictures search from upstream's vectors (each towards the frame
 * before) carried across the frames back to the last anchor: the frame
 * of @in's into *@trail (a trail field, or NULL): its upstream vectors
 * followed by the frame before's trail (zero where that is the anchor).
 * NULL where a frame on the way had none, or without B pictures. Scaled
 * vectors a frame apart miss where the motion changes between anchors;
 * these follow it. */
static gboolean
carry_trail (GstClMpegEngine * e, GstBuffer * in, cl_mem * trail,
    GError ** error)
{
  cl_mem up = e->b_between && e->ms_b[0] && searches_from_seed (e->ms_b[0]) ?
      upstream_vectors (e, in) : NULL;

  *trail = NULL;
  if (up && e->last_trail) {
    *trail = g_queue_pop_head (&e->free_trails);
    if (!*trail && !(*trail = gst_cl_mpeg_transform_alloc (e->tr,
                gst_cl_mpeg_transform_vectors_size (e->tr), error)))
      return FALSE;
    if (!gst_cl_mpeg_transform_follow_vectors (e->tr, up, e->last_trail, 1,
            *trail, error)) {
      trail_free (e, trail);
      return FALSE;
    }
  }
  e->last_trail = *trail;
  return TRUE;
}

/* The anchor just coded from @trail (owned) is the last: the B pictures
 * before it take their backward vectors from its trail, and the frames
 * after it start theirs (the anchor's vectors to itself: zero) */
static void
anchor_trail_is (GstClMpegEngine * e, cl_mem trail)
{
  trail_free (e, &e->anchor_trail);
  e->anchor_trail = trail;
  e->last_trail = e->zero_vectors;
}

/* The vectors of the picture of @s towards reconstruction @ref, into
 * @vectors, by @ms: its own search, or where it can one from @seed
 * (vectors between pictures @seed_span frames apart: an upstream
 * search's a frame apart, or the last P picture's), scaled to the frames
 * between, against the reconstruction, the vectors priced as the encoder
 * prices them; @seed_span 0: @seed's vectors lead from this picture to
 * that reference (upstream's carried across the frames between, see
 * carry_trail). Those, and upstream's a frame from the reference,
 * follow the motion closely and the search stays at full resolution
 * (up to TRAIL_FULL_RES_FRAMES); otherwise the whole search runs around
 * the vectors (at full resolution only, a P picture three frames on
 * took 5 to 15% more bytes on real content from scaled upstream
 * vectors, a B picture two frames from its anchor 8 to 11% on fast
 * motion). */
static gboolean
search_towards (GstClMpegEngine * e, GstClMotionSearch * ms, Slot * s,
    guint ref, cl_mem seed, guint seed_span, cl_mem vectors,
    GError ** error)
{
  GstClPlane cur, ref_plane;
  gint frames = frames_to (e, s, ref);

  gst_cl_mpeg_transform_plane (e->tr, s->cur, 0, &cur);
  gst_cl_mpeg_transform_plane (e->tr, e->recon[ref], 0, &ref_plane);
  if (seed && searches_from_seed (ms)) {
    gboolean whole = seed_span ? seed_span != 1 || ABS (frames) != 1 :
        ABS (frames) > TRAIL_FULL_RES_FRAMES;

    GST_LOG_OBJECT (e->parent, "search from vectors times %d / %u", frames,
        seed_span);
    if (!gst_cl_motion_search_run_seeded (ms, &cur, &ref_plane, seed,
            seed_span ? frames : 1, MAX (seed_span, 1), whole, vectors,
            error))
      return FALSE;
  } else if (!gst_cl_motion_search_run (ms, &cur, &ref_plane, vectors, error))
    return FALSE;
  return gst_cl_mpeg_transform_fit_vectors (e->tr, vectors, max_f_code (e),
      error);
}

/* The engine's motion searches that exist (P, then B forward and
 * backward, then the top fields' likewise) into @out; returns how many */
#define MOTION_SEARCHES 6
static guint
motion_searches (GstClMpegEngine * e,
    GstClMotionSearch * out[MOTION_SEARCHES])
{
  GstClMotionSearch *const all[MOTION_SEARCHES] = { e->ms, e->ms_b[0],
    e->ms_b[1], e->ms_field[0], e->ms_field[1], e->ms_field[2]
  };
  guint i, n = 0;

  for (i = 0; i < G_N_ELEMENTS (all); i++)
    if (all[i])
      out[n++] = all[i];
  return n;
}

/* The searches follow nothing from before: at each GOP (after a flush
 * too), which so depends on nothing before it (a GOP coded on its own, as
 * a piece of a chunked encode, gives the same bytes) */
static void
forget_motion (GstClMpegEngine * e)
{
  GstClMotionSearch *ms[MOTION_SEARCHES];
  guint i, n = motion_searches (e, ms);

  for (i = 0; i < n; i++)
    gst_cl_motion_search_forget (ms[i]);
  e->ms_levels_display = G_MAXUINT64;
}

/* The searches' price of a vector's bits, in sixteenths of a SAD unit a
 * bit, for each step of the quantiser the picture is expected at: a bit
 * is worth more SAD as the quantiser grows */
#define VECTOR_PRICE_PER_QUANT 20

/* With rate-distortion decisions the searches rank their half-pel
 * positions by SATD, which follows what the DCT codes more closely than
 * the SAD, unless the speed preset keeps the cheaper SAD (as without
 * rdo). Their vectors' bits are priced at the quantiser @s is expected
 * at. */
static void
set_search_cost (GstClMpegEngine * e, const Slot * s)
{
  gdouble quant = gst_cl_mpeg_rate_control_expected_quant (&e->rc, s->type);
  guint price = MIN (lround (quant * VECTOR_PRICE_PER_QUANT),
      GST_CL_MOTION_VECTOR_PRICE_MAX);
  GstClMotionSearch *ms[MOTION_SEARCHES];
  guint i, n = motion_searches (e, ms);
  gboolean satd;

  g_mutex_lock (&e->settings_lock);
  satd = e->settings.rdo && e->settings.search_satd;
  g_mutex_unlock (&e->settings_lock);
  for (i = 0; i < n; i++) {
    gst_cl_motion_search_set_subpel_satd (ms[i], satd);
    gst_cl_motion_search_set_vector_price (ms[i], price);
  }
}

/* The forward and backward vectors of the B picture of @s: from
 * upstream's vectors carried to each anchor where they are (its trail
 * and the backward anchor's, see carry_trail), else from @upstream's
 * vectors (see search_towards), else from the last P picture's (the
 * anchor after it) where the motion it found is known */
static gboolean
search_b (GstClMpegEngine * e, Slot * s, cl_mem upstream, GError ** error)
{
  const guint refs[2] = { s->ref, s->bwd };
  const cl_mem vectors[2] = { s->vectors, s->bvectors };
  cl_mem seeds[2] = { upstream, upstream };
  guint spans[2] = { 1, 1 }, i;

  if (!upstream && e->anchor_span) {
    seeds[0] = seeds[1] = e->anchor_vectors;
    spans[0] = spans[1] = e->anchor_span;
  }
  if (s->trail) {
    seeds[0] = s->trail;
    spans[0] = 0;
    if (e->anchor_trail) {
      if (!gst_cl_mpeg_transform_follow_vectors (e->tr, s->trail,
              e->anchor_trail, -1, e->b_between, error))
        return FALSE;
      seeds[1] = e->b_between;
      spans[1] = 0;
    }
  }
  for (i = 0; i < 2; i++) {
    if (!(e->ms_b[i] ? search_towards (e, e->ms_b[i], s, refs[i], seeds[i],
                spans[i], vectors[i], error) :
            gst_cl_mpeg_transform_zero_vectors (e->tr, vectors[i], error)))
      return FALSE;
  }
  return TRUE;
}

/* Keeps the vectors of the P picture of @s for the B pictures before it */
static gboolean
keep_anchor_vectors (GstClMpegEngine * e, Slot * s, GError ** error)
{
  gboolean ok;

  if (!e->anchor_vectors)
    return TRUE;
  ok = gst_cl_mpeg_transform_copy_vectors (e->tr, s->vectors,
      e->anchor_vectors, error);
  e->anchor_span = ok ? s->distance : 0;
  return ok;
}

/* The luma of the top field of @picture into @plane */
static void
top_field_plane (GstClMpegEngine * e, cl_mem picture, GstClPlane * plane)
{
  gst_cl_mpeg_transform_plane (e->tr, picture, 0, plane);
  plane->stride *= 2;
  plane->height /= 2;
}

/* Interlaced P and B pictures where field prediction competes (with
 * rdo), at medium and high effort: the vectors of the top field's 16x16
 * blocks towards each reference's top field, which lead the field search
 * beside the frame vectors. On woven frames of fast motion the frame vectors
 * are a poor start for the fields (docs/performance.md, Interlaced
 * video). */
static gboolean
search_fields (GstClMpegEngine * e, Slot * s, GError ** error)
{
  const gboolean b = s->type == GST_CL_MPEG_PICTURE_B;
  const guint refs[2] = { s->ref, s->bwd };
  GstClPlane cur, ref;
  gboolean rdo;
  guint i;

  g_mutex_lock (&e->settings_lock);
  rdo = e->settings.rdo;
  g_mutex_unlock (&e->settings_lock);
  s->field_searched = e->ms_field[0] && s->interlaced && !INTRA (s) && rdo;
  if (!s->field_searched)
    return TRUE;
  top_field_plane (e, s->cur, &cur);
  for (i = 0; i < (b ? 2 : 1); i++) {
    top_field_plane (e, e->recon[refs[i]], &ref);
    if (!gst_cl_motion_search_run (e->ms_field[b ? 1 + i : 0], &cur, &ref,
            s->field_vectors[i], error))
      return FALSE;
  }
  return TRUE;
}

/* The top fields' vectors of @s towards its forward (@d 0) or backward
 * reference, where search_fields found them; else NULL */
static cl_mem
searched_field_vectors (const Slot * s, guint d)
{
  return s->field_searched ? s->field_vectors[d] : NULL;
}

/* Uploads and pads the frame of @s, and finds its vectors (P, B). */
static gboolean
submit_input (GstClMpegEngine * e, Slot * s, GError ** error)
{
  GstBuffer *in = s->frame->input_buffer, *staged = NULL;
  cl_mem borrowed, seed;
  GstClFrame clf;
  gboolean ok, refine;

  if (!device_frame (e, in, &clf, &staged, &borrowed, error))
    return FALSE;
  ok = gst_cl_mpeg_transform_load (e->tr, &clf, s->cur, error);
  /* the in-order queue has read the staging buffer before any later
   * upload into it; a borrowed frame stays mapped until it is read */
  if (staged)
    gst_buffer_unref (staged);
  if (borrowed)
    clReleaseMemObject (borrowed);
  if (ok && s->gop_start)
    forget_motion (e);
  if (INTRA (s))
    e->anchor_span = 0;
  if (!ok || INTRA (s))
    return ok;
  set_search_cost (e, s);
  seed = upstream_vectors (e, in);
  if (s->type == GST_CL_MPEG_PICTURE_B)
    return search_b (e, s, seed, error) && search_fields (e, s, error);
  /* upstream's vectors serve as they are a frame apart where the search
   * cannot start from them (none, or the full method) or is not to */
  g_mutex_lock (&e->settings_lock);
  refine = e->settings.refine_upstream_vectors;
  g_mutex_unlock (&e->settings_lock);
  if (seed && s->distance == 1 && !(refine && e->ms
          && searches_from_seed (e->ms))) {
    GST_LOG_OBJECT (e->parent, "vectors from upstream");
    ok = gst_cl_mpeg_transform_copy_vectors (e->tr, seed, s->vectors, error)
        && gst_cl_mpeg_transform_fit_vectors (e->tr, s->vectors,
        max_f_code (e), error);
  } else if (e->ms) {
    gst_cl_motion_search_set_reference_is_last (e->ms,
        e->ms_levels_display == e->recon_display[s->ref]);
    ok = search_towards (e, e->ms, s, s->ref, s->trail ? s->trail : seed,
        s->trail ? 0 : 1, s->vectors, error);
    e->ms_levels_display = ok ? s->display : G_MAXUINT64;
  } else {
    ok = gst_cl_mpeg_transform_zero_vectors (e->tr, s->vectors, error);
  }
  return ok && keep_anchor_vectors (e, s, error) &&
      search_fields (e, s, error);
}

/* Enqueues the mapping of the field choices in @fields into *@mapped */
static gboolean
map_field_choices (GstClMpegEngine * e, cl_mem fields,
    GstClMpegFieldChoice ** mapped, GError ** error)
{
  cl_int ret;

  *mapped = clEnqueueMapBuffer (e->ctx->queue, fields, CL_FALSE,
      CL_MAP_READ, 0, gst_cl_mpeg_transform_field_choices_size (e->tr), 0,
      NULL, NULL, &ret);
  return gst_cl_check (ret, "clEnqueueMapBuffer", error);
}

/* Enqueues the read-back of @s's packed levels with its records: the
 * offsets, and as many levels as the last picture of its type had, half
 * as many again (where there are more, read_packed_levels reads the rest
 * once the records say, behind the next frame's device work), s->ready
 * the event of the last read. Reading them all before the next frame's
 * work goes to the device would wait for the records in between, the
 * device idle. */
static gboolean
read_back_packed (GstClMpegEngine * e, Slot * s, GError ** error)
{
  guint n = e->mb_width * e->mb_height;
  /* (the first picture of a type: a sixth of the most there can be) */
  guint64 seen = e->packed_seen[s->type] ? e->packed_seen[s->type] :
      (guint64) n * 64;
  cl_int ret;

  s->levels_ahead = MIN (seen + seen / 2 + PACKED_SLACK,
      (guint64) n * GST_CL_MPEG_MB_LEVELS);
  ret = clEnqueueReadBuffer (e->ctx->queue, s->offsets, CL_FALSE, 0,
      gst_cl_mpeg_transform_offsets_size (e->tr), s->mb_offsets, 0, NULL,
      NULL);
  if (!gst_cl_check (ret, "clEnqueueReadBuffer", error))
    return FALSE;
  ret = clEnqueueReadBuffer (e->ctx->queue, s->packed, CL_FALSE, 0,
      (gsize) s->levels_ahead * sizeof (gint16), s->packed_host, 0, NULL,
      &s->ready);
  return gst_cl_check (ret, "clEnqueueReadBuffer", error);
}

/* Enqueues the macroblock stages of @s and the mapping of their results. */
static gboolean
submit_encode (GstClMpegEngine * e, Slot * s, GError ** error)
{
  GstClMpegEncodeParams p;
  gboolean rdo;
  guint range, dc_bits;
  /* 13818-2 8.2: 11 bits in the 4:2:2 profile, 10 in simple and main */
  const guint most_dc_bits = e->seq.chroma_422 ? 11 : 10;
  cl_int ret;

  p.p_picture = !INTRA (s);
  p.qscale = s->quant;
  g_mutex_lock (&e->settings_lock);
  p.adaptive = e->settings.adaptive;
  rdo = e->settings.rdo;
  dc_bits = e->settings.intra_dc_precision;
  g_mutex_unlock (&e->settings_lock);
  s->dc_shift = e->seq.mpeg2 ? CLAMP (dc_bits, 8, most_dc_bits) - 8 : 0;
  if (e->seq.mpeg2 && dc_bits > most_dc_bits && !e->dc_precision_warned) {
    warn (e, GST_LIBRARY_ERROR, GST_LIBRARY_ERROR_SETTINGS,
        "intra-dc-precision %u is beyond the %s profile: %u bits are coded "
        "(11 needs 4:2:2 input, Y42B)", dc_bits, e->seq.chroma_422 ?
        "4:2:2" : "main", most_dc_bits);
    e->dc_precision_warned = TRUE;
  }
  p.avg_activity = e->avg_activity;
  p.intra_bias = INTRA_BIAS;
  p.dc_only = s->dc_only;
  p.rd_lambda = rdo ? RD_LAMBDA : 0;
  p.mv_lambda = rdo ? MV_LAMBDA : 0;
  p.mpeg2 = e->seq.mpeg2;
  p.dc_shift = s->dc_shift;
  p.field_dct = s->interlaced;
  p.alternate_scan = s->interlaced;
  p.intra_vlc = s->intra_vlc;
  p.non_linear = e->non_linear;
  /* interlaced P and B pictures: field prediction competes (with the
   * rate-distortion decisions; P: in the macroblock decisions, B: with
   * the frame prediction chosen) */
  p.field_motion = s->field_motion = s->interlaced && !INTRA (s) && rdo &&
      !s->dc_only;
  range = 16 << (max_f_code (e) - 1);
  if (s->type == GST_CL_MPEG_PICTURE_B) {
    /* the B picture's prediction, coded as a P picture's with zero
     * vectors */
    const cl_mem field_pred[2] = { s->fpred, s->bfpred };
    const cl_mem fields[2] = { s->fields, s->bfields };
    guint lambda16 = MV_LAMBDA * s->quant, zero_bias =
        B_ZERO_MARGIN * s->quant;
    if (!gst_cl_mpeg_transform_predict_b (e->tr, s->cur, e->recon[s->ref],
            e->recon[s->bwd], s->vectors, s->bvectors, lambda16, zero_bias,
            s->bpred, s->choices, error) ||
        (s->field_motion && (!gst_cl_mpeg_transform_field_search (e->tr,
                    s->cur, e->recon[s->ref], s->vectors,
                    searched_field_vectors (s, 0), range, e->field_reach,
                    e->field_seed_reach, &s->fwd_timing, lambda16, s->fpred,
                    s->fields, error) ||
                !gst_cl_mpeg_transform_field_search (e->tr, s->cur,
                    e->recon[s->bwd], s->bvectors,
                    searched_field_vectors (s, 1), range, e->field_reach,
                    e->field_seed_reach, &s->bwd_timing, lambda16, s->bfpred,
                    s->bfields, error) ||
                !gst_cl_mpeg_transform_choose_b_fields (e->tr, s->cur,
                    s->vectors, s->bvectors, field_pred, fields, lambda16,
                    zero_bias, s->bpred, s->choices, error))) ||
        !gst_cl_mpeg_transform_encode (e->tr, s->cur, s->bpred,
            e->zero_vectors, NULL, NULL, &p, s->records, s->levels,
            e->recon[s->out], error))
      return FALSE;
  } else if ((s->field_motion && !gst_cl_mpeg_transform_field_search (e->tr,
              s->cur, e->recon[s->ref], s->vectors,
              searched_field_vectors (s, 0), range, e->field_reach,
              e->field_seed_reach, &s->fwd_timing, MV_LAMBDA * s->quant,
              s->fpred, s->fields, error)) ||
      !gst_cl_mpeg_transform_encode (e->tr, s->cur, e->recon[s->ref],
          s->vectors, s->fpred, s->fields, &p, s->records, s->levels,
          e->recon[s->out], error))
    return FALSE;
  s->levels_read = FALSE;
  s->summarized = FALSE;
  /* packed levels are read with the records (read_back_packed); whole
   * ones are mapped with them */
  if (s->packed && !gst_cl_mpeg_transform_pack (e->tr, s->records,
          s->levels, s->offsets, s->packed, error))
    return FALSE;
  /* (before the records: their event, or the packed levels' after them,
   * is the last) */
  if (s->field_motion && (!map_field_choices (e, s->fields, &s->fc, error) ||
          (s->type == GST_CL_MPEG_PICTURE_B &&
              !map_field_choices (e, s->bfields, &s->bfc, error))))
    return FALSE;
  if (s->type == GST_CL_MPEG_PICTURE_B) {
    s->ch = clEnqueueMapBuffer (e->ctx->queue, s->choices, CL_FALSE,
        CL_MAP_READ, 0, gst_cl_mpeg_transform_choices_size (e->tr), 0, NULL,
        NULL, &ret);
    if (!gst_cl_check (ret, "clEnqueueMapBuffer", error))
      return FALSE;
  }
  s->rec = clEnqueueMapBuffer (e->ctx->queue, s->records, CL_FALSE,
      CL_MAP_READ, 0, gst_cl_mpeg_transform_records_size (e->tr), 0, NULL,
      NULL, &ret);
  if (!gst_cl_check (ret, "clEnqueueMapBuffer", error))
    return FALSE;
  if (s->packed && !read_back_packed (e, s, error))
    return FALSE;
  if (!s->packed) {
    s->lev = clEnqueueMapBuffer (e->ctx->queue, s->levels, CL_FALSE,
        CL_MAP_READ, 0, gst_cl_mpeg_transform_levels_size (e->tr), 0,
        NULL, &s->ready, &ret);
    if (!gst_cl_check (ret, "clEnqueueMapBuffer", error))
      return FALSE;
  }
  GST_CL_COUNT_HOST_MAP (e->ctx);
  s->encoded = TRUE;
  /* start the device now: the host codes the previous frame meanwhile */
  return gst_cl_check (clFlush (e->ctx->queue), "clFlush", error);
}

/* ---- coding a frame ---- */

/* Frames at the signalled rate shown before the frame at @display (in
 * display order): with 3:2 pulldown, each four of the pictures take ten
 * field periods (3, 2, 3, 2) */
static guint64
display_frames (GstClMpegEngine * e, guint64 display)
{
  static const guint fields_before[4] = { 0, 3, 5, 8 };

  if (!e->seq.pulldown)
    return display;
  return (display / 4 * 10 + fields_before[display % 4]) / 2;
}

/* Seconds from the decoding of @s, shown for @shown frame periods, to the
 * next picture's: with B pictures, an anchor's decoding is followed by
 * the display of the anchor before it (the first of a sequence: its own),
 * any other by its own (13818-2 C.9) */
static gdouble
decoding_interval (GstClMpegEngine * e, const Slot * s, gdouble shown)
{
  if (e->seq.b_pictures && s->type != GST_CL_MPEG_PICTURE_B &&
      e->anchor_shown > 0)
    shown = e->anchor_shown;
  return shown * e->frame_period;
}

/* The headers in front of @s's slices, its vbv_delay from the buffer's
 * model as it stands */
static void
write_headers (GstClMpegEngine * e, const Slot * s,
    const GstClMpegPictureCoding * pc, GstBitWriter * hw)
{
  if (s->seq_start)
    gst_cl_mpeg_write_sequence_header (hw, &e->seq);
  if (s->gop_start)
    gst_cl_mpeg_write_gop_header (hw, display_frames (e, s->gop_frame),
        e->seq.frame_rate_code, s->gop_closed);
  gst_cl_mpeg_write_picture_header (hw, s->temporal_reference,
      gst_cl_mpeg_rate_control_vbv_delay (&e->rc,
          gst_bit_writer_get_size (hw) + 32), pc);
}

/* What leaves the picture about to go out too few bits, for the rate
 * control's warnings: the first finds the fullness set, not one the bit
 * rate left */
static const gchar *
vbv_limit (GstClMpegEngine * e)
{
  return e->frames_out == 0 && e->rc.initial_fullness > 0 ?
      "vbv-initial-fullness" : "bit rate";
}

/* How @s's picture is coded into @pc: its f_codes from its vectors */
static void
picture_coding (GstClMpegEngine * e, Slot * s, GstClMpegPictureCoding * pc)
{
  guint n = e->mb_width * e->mb_height;
  /* (a frame of two fields scans its blocks' levels in alternate order:
   * their vertical frequencies run higher) */
  GstClMpegPictureCoding c = { s->type, 1, e->seq.mpeg2, s->dc_shift, 1,
    s->interlaced, s->top_field_first, s->repeat_first_field, s->interlaced,
    s->intra_vlc_format, e->seq.chroma_422, e->non_linear
  };

  if (s->type == GST_CL_MPEG_PICTURE_B && !s->all_skipped)
    gst_cl_mpeg_choose_b_f_codes (s->rec, s->ch, s->fc, s->bfc, n, &c.f_code,
        &c.backward_f_code);
  else if (!INTRA (s) && !s->all_skipped)
    c.f_code = s->fc ? gst_cl_mpeg_choose_f_code (s->rec, s->fc, n) :
        gst_cl_mpeg_f_code_for_reach (slot_summary (e, s)->vector_reach);
  *pc = c;
}

/* The picture of @s, coded as @pc says, its slices in e->rows: its
 * headers and slices in a buffer, where the rate control takes it; NULL
 * and the quantiser to code it at instead (*@requant) where not */
static GstBuffer *
assemble (GstClMpegEngine * e, Slot * s, gboolean end,
    const GstClMpegPictureCoding * pc, guint64 * bits, guint * requant)
{
  GstBitWriter hw;
  guint n = e->mb_width * e->mb_height, i;
  gdouble shown = s->repeat_first_field ? 1.5 : 1.0;
  guint64 total, model, stuff = 0, qsum, header_bytes;
  GstClMpegRecordsSummary skipped;
  GstBuffer *out;
  GstMapInfo map;
  gsize off;

  /* a few dozen bytes a picture: a writer of their own costs nothing */
  gst_bit_writer_init_with_size (&hw, 256, FALSE);
  gst_cl_mpeg_rate_control_set_interval (&e->rc, decoding_interval (e, s,
          shown));
  write_headers (e, s, pc, &hw);
  header_bytes = gst_bit_writer_get_size (&hw) / 8;
  total = header_bytes;
  for (i = 0; i < e->mb_height; i++)
    total += e->rows[i].size;
  if (end)
    total += 4;
  /* the bits the VBV model counts: a piece of a chunked encode that ends
   * at an agreed fullness loses its end code in the join */
  model = (total - (end && e->rc.final_bits > 0 ? 4 : 0)) * 8;
  *requant = gst_cl_mpeg_rate_control_check (&e->rc, s->type,
      s->dc_only, model, s->quant);
  *bits = total * 8;
  if (*requant && !s->all_skipped && !(INTRA (s) && s->dc_only)) {
    gst_bit_writer_reset (&hw);
    return NULL;
  }
  /* the last resort goes out as it is: over the room the rate control
   * leaves for the next I picture is no fault yet, over the buffer is */
  if (gst_cl_mpeg_rate_control_underflows (&e->rc, model)) {
    gdouble fullness = e->rc.fullness;
    guint late = gst_cl_mpeg_rate_control_wait (&e->rc, model);

    /* (once: at a rate below what any picture takes, every one) */
    if (e->underflows++ == 0)
      warn (e, GST_STREAM_ERROR, GST_STREAM_ERROR_ENCODE, "The %s is too "
          "low for this content: picture %" G_GUINT64_FORMAT ", of %"
          G_GUINT64_FORMAT " bits, does not fit the VBV buffer (%.0f bits "
          "there)%s (the stats' vbv-underflows counts those that follow)",
          vbv_limit (e), e->frames_out, model, fullness, late ? "; it is "
          "decoded late, and the picture before it shown longer" : "");
    /* (low_delay: its vbv_delay says when it is decoded) */
    if (late) {
      gst_bit_writer_reset (&hw);
      gst_bit_writer_init_with_size (&hw, 256, FALSE);
      write_headers (e, s, pc, &hw);
    }
  }
  *requant = 0;
  stuff = gst_cl_mpeg_rate_control_stuffing (&e->rc, model) / 8;

  out = gst_buffer_new_allocate (NULL, total + stuff, NULL);
  gst_buffer_map (out, &map, GST_MAP_WRITE);
  memcpy (map.data, gst_bit_writer_get_data (&hw), header_bytes);
  gst_bit_writer_reset (&hw);
  off = header_bytes;
  for (i = 0; i < e->mb_height; i++) {
    memcpy (map.data + off, e->rows[i].data, e->rows[i].size);
    off += e->rows[i].size;
  }
  /* zero stuffing goes before the next start code */
  memset (map.data + off, 0, stuff);
  off += stuff;
  if (end) {
    static const guint8 end_code[4] = { 0, 0, 1, 0xb7 };
    memcpy (map.data + off, end_code, 4);
  }
  gst_buffer_unmap (out, &map);

  qsum = job_summary (e, s, &skipped)->quant_sum;
  *bits = (total + stuff) * 8;
  gst_cl_mpeg_rate_control_update (&e->rc, s->type, model, stuff * 8,
      (gdouble) qsum / n, s->dc_only || s->all_skipped);
  if (s->type != GST_CL_MPEG_PICTURE_B)
    e->anchor_shown = shown;
  if (e->rc.final_bits > 0 && e->rc.pictures_left == 0 &&
      e->rc.fullness + 8 < e->rc.final_bits)
    warn (e, GST_STREAM_ERROR, GST_STREAM_ERROR_ENCODE, "The stream ends "
        "with %.0f bits in the VBV buffer, below the %.0f of "
        "vbv-final-fullness: the bit rate is too low for this content "
        "(a stream joined after it would underflow)", e->rc.fullness,
        e->rc.final_bits);
  return out;
}

/* Reads the packed levels of @s that its read-back (read_back_packed)
 * left, now that its records (complete) say how many there are, and
 * keeps their number for the next picture of its type */
static gboolean
read_packed_levels (GstClMpegEngine * e, Slot * s, GError ** error)
{
  guint32 total;
  cl_int ret;

  if (!s->packed || !s->encoded || s->levels_read || s->all_skipped)
    return TRUE;
  total = slot_summary (e, s)->packed_total;
  e->packed_seen[s->type] = total;
  if (total > s->levels_ahead) {
    GST_DEBUG_OBJECT (e->parent, "%u packed levels, %u read ahead", total,
        s->levels_ahead);
    ret = clEnqueueReadBuffer (e->ctx->queue, s->packed, CL_TRUE,
        (gsize) s->levels_ahead * sizeof (gint16),
        (gsize) (total - s->levels_ahead) * sizeof (gint16),
        s->packed_host + s->levels_ahead, 0, NULL, NULL);
    if (!gst_cl_check (ret, "clEnqueueReadBuffer", error))
      return FALSE;
  }
  s->levels_read = TRUE;
  return TRUE;
}

static gchar
picture_letter (const Slot * s)
{
  return "?IPB"[MIN (s->type, 3)];
}

/* The decoding timestamp of the next picture out: the earliest input
 * timestamp not given yet; where B pictures delay the anchors, the one
 * before it (the first: a frame earlier, for which the element asks for
 * input timestamps late enough, gst_video_encoder_set_min_pts()), never
 * after the presentation timestamp of the picture: in coding order, the
 * picture at n is at least the (n - 1)th in display order. */
static GstClockTime
next_dts (GstClMpegEngine * e)
{
  GstClockTime *pts = g_queue_pop_head (&e->pts), dts = GST_CLOCK_TIME_NONE;
  GstClockTime delay = gst_util_uint64_scale (GST_SECOND, e->fps_d, e->fps_n);

  if (pts && GST_CLOCK_TIME_IS_VALID (*pts)) {
    if (e->b_frames == 0)
      dts = *pts;
    else if (GST_CLOCK_TIME_IS_VALID (e->last_pts))
      dts = e->last_pts;
    else
      dts = *pts >= delay ? *pts - delay : 0;
  }
  e->last_pts = pts ? *pts : GST_CLOCK_TIME_NONE;
  g_free (pts);
  return dts;
}

/* The slot of the frame coded after @s's, if any */
static Slot *
slot_after (GstClMpegEngine * e, Slot * s)
{
  return &e->slots[(s - e->slots + 1) % G_N_ELEMENTS (e->slots)];
}

/* Adaptive B pictures: counts the @bits of @s, coded, in the bits a
 * frame of P pictures a frame after their reference take (near), or of
 * P pictures further on with the B pictures before them (far); I
 * pictures, and the B pictures before one, in neither. */
static void
record_b_adapt (GstClMpegEngine * e, Slot * s, guint64 bits)
{
  /* (bits at the P pictures' quantiser: about inversely proportional) */
  gdouble scaled = (gdouble) bits * s->quant;

  if (s->dc_only || s->all_skipped)
    return;
  if (s->type == GST_CL_MPEG_PICTURE_B && s->after_p) {
    e->far_bits += scaled / e->rc.pb_factor;
  } else if (s->type == GST_CL_MPEG_PICTURE_P && s->distance == 1) {
    e->near_bits += scaled;
    e->near_frames++;
  } else if (s->type == GST_CL_MPEG_PICTURE_P && s->distance > 1) {
    e->far_bits += scaled;
    e->far_frames += s->distance;
  }
}

/* The B pictures of the GOP that starts, per anchor, into the rate
 * control's plan (the GOP's pattern, gst_cl_mpeg_gop_position_is_b):
 * with @adapt, the sequence's where they took fewer bits than P pictures
 * alone (see B_ADAPT_SHARE) in the last GOPs, else none; and the other
 * spacing between the GOP's first two P pictures, to go on measuring
 * both */
static void
plan_gop_b (GstClMpegEngine * e, gboolean adapt)
{
  e->rc.b_frames = e->rc.probe_b = e->b_frames;
  if (adapt && e->b_frames > 0) {
    gboolean probe = TRUE;

    if (e->near_frames > 0 && e->far_frames > 0) {
      gdouble share = (e->far_bits / e->far_frames) /
          (e->near_bits / e->near_frames);

      e->b_adapt_on = share < B_ADAPT_SHARE;
      probe = share > B_ADAPT_CLEAR_LOW && share < B_ADAPT_CLEAR_HIGH;
      GST_DEBUG_OBJECT (e->parent, "B pictures: %.0f bits a frame with them, "
          "%.2f of those without (at quantiser 1): %s", e->far_bits /
          e->far_frames, share, e->b_adapt_on ? "on" : "off");
      /* (the GOP before weighs half as much as the last) */
      e->near_bits /= 2;
      e->far_bits /= 2;
      e->near_frames /= 2;
      e->far_frames /= 2;
    }
    if (probe || ++e->gops_unprobed >= B_ADAPT_PROBE_GOPS)
      e->gops_unprobed = 0;
    e->rc.b_frames = e->b_adapt_on ? e->b_frames : 0;
    e->rc.probe_b = e->gops_unprobed > 0 ? e->rc.b_frames :
        e->b_adapt_on ? 0 : e->b_frames;
  }
}

/* Whether the P picture of @s, as the device coded it, is a cut: at
 * least scene-cut percent of its macroblocks intra (without B pictures,
 * whose frames before an anchor would belong to its GOP; not the last
 * picture before a GOP starts anyway) */
static gboolean
is_scene_cut (GstClMpegEngine * e, Slot * s)
{
  const Slot *next = slot_after (e, s);
  guint n = e->mb_width * e->mb_height, percent;

  if (s->type != GST_CL_MPEG_PICTURE_P || s->dc_only || e->b_frames > 0 ||
      (next->frame && next->gop_start))
    return FALSE;
  g_mutex_lock (&e->settings_lock);
  percent = e->settings.scene_cut;
  g_mutex_unlock (&e->settings_lock);
  if (percent == 0)
    return FALSE;
  return slot_summary (e, s)->intra * 100 >= percent * n;
}

/* How many macroblocks of @s, coded, copy their reference */
static guint
slot_copies (GstClMpegEngine * e, Slot * s)
{
  if (s->all_skipped)
    return e->mb_width * e->mb_height;
  return slot_summary (e, s)->skippable;
}

/* The P picture of @s, coded, to the rate control's automatic I picture
 * factor */
static void
count_copies (GstClMpegEngine * e, Slot * s)
{
  if (s->type == GST_CL_MPEG_PICTURE_P)
    gst_cl_mpeg_rate_control_count_copies (&e->rc, e->mb_width *
        e->mb_height, slot_copies (e, s));
}

/* The rate control's quantiser for @s, of @type (@gop_start: first of its
 * GOP), told first how many frames the stream holds from @s's on (for an
 * I picture's factor), where its length is known */
static guint
slot_quant (GstClMpegEngine * e, const Slot * s, guint type,
    gboolean gop_start)
{
  guint64 at = s->display - MIN (s->display, e->display_first);

  gst_cl_mpeg_rate_control_set_i_reach (&e->rc, e->length == G_MAXUINT64 ?
      0 : e->length - MIN (e->length, at));
  return gst_cl_mpeg_rate_control_quant (&e->rc, type, gop_start);
}

/* The first I picture of a sequence, @s, with the automatic factor: its
 * quantiser came from a guess (a cut's, from the scene before). Where the
 * P picture that predicts from it is on the device already (a constant
 * quantiser), its copies replace the guess, and @s is coded again where
 * its quantiser changes (*@again): a still scene's first GOP then gains
 * what the later ones do, and one in motion spends no more on its I
 * picture than they do. (A cut's P picture predicted from the cut coded
 * as a P picture: near enough to count its copies.) */
static gboolean
learn_ip_factor (GstClMpegEngine * e, Slot * s, gboolean * again,
    GError ** error)
{
  Slot *next = slot_after (e, s);
  guint quant;

  *again = FALSE;
  /* (with a bit rate the quantiser is asked for once: the P picture waits
   * for this one's size) */
  if (e->rc.bit_rate > 0 || !INTRA (s) ||
      !gst_cl_mpeg_rate_control_guesses_ip_factor (&e->rc) || !next->frame || !next->encoded || next->type != GST_CL_MPEG_PICTURE_P
      || next->ref != s->out)
    return TRUE;
  if (!wait_device (e, &next->ready, error))
    return FALSE;
  gst_cl_mpeg_rate_control_learn_ip_factor (&e->rc, e->mb_width *
      e->mb_height, slot_copies (e, next));
  quant = slot_quant (e, s, s->type, s->gop_start);
  GST_DEBUG_OBJECT (e->parent, "I picture %" G_GUINT64_FORMAT ": quantiser "
      "%u from the copies of the P picture after it (%u before)", s->display,
      quant, s->quant);
  *again = quant != s->quant;
  s->quant = quant;
  return TRUE;
}

/* Codes the cut of @s as the I picture of a new GOP (and sequence), and
 * the frame after it, already on the device, as the GOP's next picture */
static void
restart_gop_at (GstClMpegEngine * e, Slot * s)
{
  Slot *next = slot_after (e, s);

  GST_DEBUG_OBJECT (e->parent, "picture %" G_GUINT64_FORMAT " (display %"
      G_GUINT64_FORMAT ") is a cut: coded as an I picture", e->frames_out,
      s->display);
  if (next->frame)
    next->temporal_reference -= s->temporal_reference;
  e->gop_pos -= s->temporal_reference;
  e->gop_first = s->display;
  s->type = GST_CL_MPEG_PICTURE_I;
  s->gop_start = s->seq_start = s->gop_closed = TRUE;
  s->gop_frame = s->display;
  s->temporal_reference = 0;
  s->quant = slot_quant (e, s, s->type, TRUE);
  /* (its factor, the scene before's, is a guess for this one) */
  gst_cl_mpeg_rate_control_guess_ip_factor (&e->rc);
  s->intra_vlc = FALSE;
  e->scene_cuts++;
  e->recoded++;
}

/* MPEG-2: codes the intra blocks of @s with the table that takes fewer
 * bits for its levels as they are (table B.15 codes large levels
 * shorter, B.14 runs of small ones and end_of_block). An I picture whose
 * levels were priced with B.14 and take fewer bits in B.15 is priced
 * with B.15 to be coded again: TRUE. (So the choice depends on the
 * picture alone: P and B pictures, with few intra macroblocks, are
 * priced with B.14.) */
static gboolean
reprices_intra_table (GstClMpegEngine * e, Slot * s)
{
  guint64 bits[2];

  if (!e->seq.mpeg2 || s->dc_only || s->all_skipped) {
    /* (no AC level: B.14's shorter end_of_block) */
    s->intra_vlc_format = FALSE;
    return FALSE;
  }
  gst_cl_mpeg_intra_table_bits (s->rec, e->mb_width * e->mb_height,
      INTRA (s), s->packed ? s->packed_host : s->lev,
      s->packed ? s->mb_offsets : NULL, bits);
  s->intra_vlc_format = bits[1] < bits[0];
  if (!INTRA (s) || !s->intra_vlc_format || s->intra_vlc)
    return FALSE;
  s->intra_vlc = TRUE;
  return TRUE;
}

/* Waits for the device results of @s: its records, and its packed levels
 * (the rest read once the records say how many); the time counted as
 * waiting for the device */
static gboolean
wait_results (GstClMpegEngine * e, Slot * s, GError ** error)
{
  return wait_device (e, &s->ready, error) &&
      read_packed_levels (e, s, error);
}

/* Waits for the device results of @s and makes the decisions that code
 * it again: an I picture's quantiser from the P picture after it, a cut
 * coded as an I picture, MPEG-2's intra table; each recoding is waited
 * for and decided on in turn. */
static gboolean
decide_slot (GstClMpegEngine * e, Slot * s, GError ** error)
{
  guint64 recoded = e->recoded;
  gboolean learnt;

  for (;;) {
    if (!wait_results (e, s, error) ||
        !learn_ip_factor (e, s, &learnt, error))
      return FALSE;
    if (learnt)
      e->recoded++;
    else if (is_scene_cut (e, s))
      restart_gop_at (e, s);
    else if (reprices_intra_table (e, s))
      e->recoded++;
    if (e->recoded == recoded)
      return TRUE;
    recoded = e->recoded;
    slot_unmap (e, s);
    if (!submit_encode (e, s, error))
      return FALSE;
  }
}

/* Decides on @s (decide_slot) and codes its slices into e->rows, its
 * picture's coding in e->job_coding (code_slices; @async: on the
 * workers) */
static gboolean
decide_and_code_slices (GstClMpegEngine * e, Slot * s, gboolean async,
    GError ** error)
{
  GstClMpegPictureCoding pc;
  gint64 t0;

  if (!decide_slot (e, s, error))
    return FALSE;
  picture_coding (e, s, &pc);
  t0 = g_get_monotonic_time ();
  code_slices (e, s, &pc, async);
  e->vlc_ns += (g_get_monotonic_time () - t0) * 1000;
  return TRUE;
}

/* What the pictures after @s's, coded for good, take from it: the mean
 * activity (adaptive quantisers) and its copies (the I pictures'
 * automatic factor) */
static void
learn_from_picture (GstClMpegEngine * e, Slot * s)
{
  e->avg_activity = MAX (slot_summary (e, s)->activity_sum /
      (e->mb_width * e->mb_height), 1);
  count_copies (e, s);
}

/* Gives out the frame of @s, its picture @out of @bits coded */
static GstFlowReturn
picture_out (GstClMpegEngine * e, Slot * s, GstBuffer * out, guint64 bits)
{
  GstVideoCodecFrame *frame;

  record_b_adapt (e, s, bits);
  slot_unmap (e, s);
  /* each block its mean alone: the application must know (once) */
  if (s->dc_only && !s->all_skipped && e->dc_only++ == 0)
    warn (e, GST_STREAM_ERROR, GST_STREAM_ERROR_ENCODE, "The %s is too low "
        "for this content: picture %" G_GUINT64_FORMAT " is coded with DC "
        "levels only (each block's mean), to keep the VBV buffer from "
        "underflowing (the stats' dc-only-pictures counts those that "
        "follow)", vbv_limit (e), e->frames_out);

  frame = s->frame;
  s->frame = NULL;
  s->encoded = FALSE;
  frame->output_buffer = out;
  if (INTRA (s))
    GST_VIDEO_CODEC_FRAME_SET_SYNC_POINT (frame);
  else
    GST_VIDEO_CODEC_FRAME_UNSET_SYNC_POINT (frame);
  frame->dts = next_dts (e);
  e->frames_out++;
  e->bytes_out += bits / 8;
  GST_LOG_OBJECT (e->parent, "picture %c q %u: %" G_GUINT64_FORMAT " bits",
      picture_letter (s), s->quant, bits);
  return e->cb.picture_done (frame, bits / 8, s->quant, e->user_data);
}

/* Waits for the device results of @s, codes the picture (again, coarser,
 * while it would underflow the VBV or leave no room for the next I
 * picture: at quantiser 31 with DC levels only, a P picture then with
 * its macroblocks skipped) and finishes its frame. */
static GstFlowReturn
finish_slot (GstClMpegEngine * e, Slot * s, gboolean end, GError ** error)
{
  GstBuffer *out;
  guint64 bits = 0;
  guint requant = 0;

  for (;;) {
    if (!decide_and_code_slices (e, s, FALSE, error))
      return GST_FLOW_ERROR;
    out = assemble (e, s, end, &e->job_coding, &bits, &requant);
    if (out)
      break;
    GST_DEBUG_OBJECT (e->parent, "%c picture of %" G_GUINT64_FORMAT " bits "
        "too large for the VBV buffer (%.0f bits there): quantiser %u%s -> "
        "%u", picture_letter (s), bits, e->rc.fullness, s->quant,
        s->dc_only ? " DC only" : "", requant);
    e->rc.reencodes++;
    if (requant > e->rc.max_quant && !INTRA (s) && s->dc_only) {
      /* every macroblock skipped: the reference is the reconstruction (a
       * B picture's, the forward one, is no reference) */
      gsize size = gst_cl_mpeg_transform_picture_size (e->tr);
      cl_int ret = s->type == GST_CL_MPEG_PICTURE_B ? CL_SUCCESS :
          clEnqueueCopyBuffer (e->ctx->queue, e->recon[s->ref],
          e->recon[s->out], 0, 0, size, 0, NULL, NULL);
      if (!gst_cl_check (ret, "clEnqueueCopyBuffer", error))
        return GST_FLOW_ERROR;
      s->all_skipped = TRUE;
      /* the picture shown is not the one given: the application must
       * know (once; the stats count the others) */
      if (e->repeated++ == 0)
        warn (e, GST_STREAM_ERROR, GST_STREAM_ERROR_ENCODE, "The bit rate "
            "is too low for this content: picture %" G_GUINT64_FORMAT " is "
            "coded as a repeat of the one before, to keep the VBV buffer "
            "from underflowing (the stats' repeated-pictures counts those "
            "that follow)", e->frames_out);
      continue;
    }
    slot_unmap (e, s);
    if (requant > e->rc.max_quant)
      s->dc_only = TRUE;
    s->quant = MIN (requant, e->rc.max_quant);
    if (!submit_encode (e, s, error))
      return GST_FLOW_ERROR;
  }
  learn_from_picture (e, s);
  return picture_out (e, s, out, bits);
}

/* Whether the engine may code a picture's slices while the next frame
 * goes on the device (slices_async), the rate control aside */
static gboolean
may_code_slices_async (GstClMpegEngine * e)
{
  return e->workers && e->ctx && !e->ctx->cpu_layout && e->b_frames == 0;
}

/* Whether the slices of a picture are coded on the workers while the
 * engine puts the next frame on the device (e->coding): with the GPU
 * layout (a device beside the host, where the streaming thread's
 * launches and slices, not the device, bound the rate), with workers, and
 * where nothing codes a picture again once its slices are coded (no
 * buffer model: the rate control takes every size) nor plans a GOP from
 * its size (no B pictures). The stream is the same; its frames come out
 * a frame later. */
static gboolean
slices_async (GstClMpegEngine * e)
{
  return may_code_slices_async (e) && e->rc.bit_rate <= 0 &&
      e->rc.peak_rate <= 0;
}

/* Makes the decisions on @s, waiting for its device results, and leaves
 * its slices to the workers: it becomes e->coding. */
static gboolean
start_coding (GstClMpegEngine * e, Slot * s, GError ** error)
{
  if (!decide_and_code_slices (e, s, TRUE, error))
    return FALSE;
  /* (where finish_slot learns it: before the next frame's coding) */
  learn_from_picture (e, s);
  e->coding = s;
  GST_LOG_OBJECT (e->parent, "%c picture: %u slices to the workers",
      picture_letter (s), e->job_slices);
  return TRUE;
}

/* Gives out the frame whose slices the workers code (e->coding), if
 * any, once they are done. */
static GstFlowReturn
finish_coding (GstClMpegEngine * e, GError ** error)
{
  Slot *s = e->coding;
  guint64 bits = 0;
  guint requant = 0;
  GstBuffer *out;
  gint64 t0;

  if (!s)
    return GST_FLOW_OK;
  e->coding = NULL;
  t0 = g_get_monotonic_time ();
  wait_slices (e, 0);
  e->vlc_ns += (g_get_monotonic_time () - t0) * 1000;
  out = assemble (e, s, FALSE, &e->job_coding, &bits, &requant);
  if (!out) {
    /* (slices_async: no buffer model refuses a picture) */
    g_set_error (error, GST_CORE_ERROR, GST_CORE_ERROR_FAILED,
        "picture %" G_GUINT64_FORMAT " refused by the rate control after "
        "its slices were coded", e->frames_out);
    slot_drop_frame (e, s);
    return GST_FLOW_ERROR;
  }
  return picture_out (e, s, out, bits);
}

/* Finishes the frames on the device and coded, if any. */
static GstFlowReturn
finish_pending (GstClMpegEngine * e, gboolean end, GError ** error)
{
  Slot *s = e->pending;
  GstFlowReturn ret = finish_coding (e, error);

  if (ret != GST_FLOW_OK)
    return ret;
  e->pending = NULL;
  if (!s)
    return GST_FLOW_OK;
  return finish_slot (e, s, end, error);
}

/* ---- sequences and GOPs ---- */

/* The largest vbv_buffer_size the stream may signal, units of
 * VBV_UNIT_BITS: MPEG-1's field, or the MPEG-2 level's bound */
static guint
max_vbv_size (GstClMpegEngine * e)
{
  return e->level ? e->level->max_vbv_bits / VBV_UNIT_BITS : 1023;
}

/* The VBV buffer (units of VBV_UNIT_BITS) at the bit rate the sequence
 * header signals: @vbv as set (0: half a second), raised to the smallest
 * that the stream needs (gst_cl_mpeg_rate_control_min_buffer_bits); a
 * value set smaller gets a warning that names the one used. */
static guint
choose_vbv_size (GstClMpegEngine * e, guint vbv)
{
  guint64 bit_rate = e->seq.bit_rate_code * 400ULL;
  gdouble fps = (gdouble) e->fps_n / e->fps_d;
  guint64 forced = gst_cl_mpeg_rate_control_forced_picture_bits (
      e->mb_width, e->mb_height);
  guint64 min_bits = gst_cl_mpeg_rate_control_min_buffer_bits (bit_rate, fps,
      forced);
  guint largest = max_vbv_size (e);
  guint needed = MIN ((min_bits + VBV_UNIT_BITS - 1) / VBV_UNIT_BITS,
      largest);
  gchar *why;

  if (vbv == 0) {
    vbv = (guint) (bit_rate * AUTO_VBV_SECONDS / VBV_UNIT_BITS + 0.5);
    GST_DEBUG_OBJECT (e->parent, "vbv-buffer-size 0: half a second is %u, the "
        "stream needs %u", vbv, needed);
    return MIN (MAX (vbv, needed), largest);
  }
  if (vbv > largest) {
    warn (e, GST_LIBRARY_ERROR, GST_LIBRARY_ERROR_SETTINGS, "vbv-buffer-size "
        "%u (%.0f kbit) is larger than the %s level allows; using %u (%.0f "
        "kbit)", vbv, vbv * (gdouble) VBV_UNIT_BITS / 1000.0,
        e->level->name, largest, largest * (gdouble) VBV_UNIT_BITS / 1000.0);
    return largest;
  }
  if (vbv >= needed)
    return vbv;
  if (min_bits > 2.0 * bit_rate / fps + 1)
    why = g_strdup_printf ("too small for the largest picture the encoder "
        "may have to write at %ux%u (an I picture of DC levels only, %.0f "
        "kbit%s)", e->seq.width, e->seq.height, forced / 1000.0,
        forced > min_bits ? ", more than the bit rate brings in within the "
        "longest vbv_delay" : "");
  else
    why = g_strdup_printf ("smaller than two pictures at %.0f kbit/s and "
        "%.4g fps", bit_rate / 1000.0, fps);
  warn (e, GST_LIBRARY_ERROR, GST_LIBRARY_ERROR_SETTINGS, "vbv-buffer-size "
      "%u (%.0f kbit) is %s; using %u (%.0f kbit)", vbv,
      vbv * (gdouble) VBV_UNIT_BITS / 1000.0, why, needed,
      needed * (gdouble) VBV_UNIT_BITS / 1000.0);
  g_free (why);
  return needed;
}

/* @kbps within the MPEG-2 level's peak rate, with a warning naming
 * @what where it is not */
static guint
level_rate (GstClMpegEngine * e, guint kbps, const gchar * what)
{
  if (!e->level || kbps <= e->level->max_kbps)
    return kbps;
  warn (e, GST_LIBRARY_ERROR, GST_LIBRARY_ERROR_SETTINGS, "%s %u kbit/s is "
      "more than the %s level allows; using %u kbit/s", what, kbps,
      e->level->name, e->level->max_kbps);
  return e->level->max_kbps;
}

/* A piece of a chunked encode ends where the next one starts: with
 * "vbv-final-fullness" and the stream's length known, the rate control
 * plans for the end */
static void
plan_end (GstClMpegEngine * e)
{
  gdouble final_fullness;

  g_mutex_lock (&e->settings_lock);
  final_fullness = e->settings.vbv_final_fullness;
  g_mutex_unlock (&e->settings_lock);
  if (final_fullness <= 0 || e->length == G_MAXUINT64)
    return;
  GST_DEBUG_OBJECT (e->parent, "%" G_GUINT64_FORMAT " frames left, then a "
      "VBV fullness of %.0f bits", e->length - MIN (e->length,
          e->frames_out), final_fullness * e->rc.max_fullness);
  if (e->length > e->frames_out)
    gst_cl_mpeg_rate_control_set_end (&e->rc, e->length - e->frames_out,
        final_fullness * e->rc.max_fullness);
}

/* Starts a sequence at the bit rates and VBV buffer the properties set
 * now, with a rate control that keeps to them (MPEG-1 keeps both for a
 * whole sequence; so does this encoder in MPEG-2): a constant rate
 * (bitrate), a variable one (bitrate on average under max-bitrate), or a
 * constant quantiser, under max-bitrate where set (MPEG-2: under the
 * level's peak otherwise). The sequence header carries the constant rate
 * or the peak. */
static void
start_rate_sequence (GstClMpegEngine * e)
{
  guint bitrate, max_bitrate, peak, vbv, gop_size, quantizer;
  gdouble ip_factor, pb_factor;

  g_mutex_lock (&e->settings_lock);
  bitrate = e->settings.bitrate;
  max_bitrate = e->settings.max_bitrate;
  vbv = e->settings.vbv_size;
  gop_size = e->settings.gop_size;
  quantizer = e->settings.quantizer;
  ip_factor = e->settings.ip_factor;
  pb_factor = e->settings.pb_factor;
  e->rc.initial_fullness = e->settings.vbv_initial_fullness;
  g_mutex_unlock (&e->settings_lock);
  e->seq_bitrate = bitrate;
  e->seq_max_bitrate = max_bitrate;
  e->seq_vbv_size = vbv;
  bitrate = level_rate (e, bitrate, "bitrate");
  peak = level_rate (e, max_bitrate, "max-bitrate");
  if (bitrate > 0 && peak <= bitrate)
    peak = 0;                   /* a constant rate */
  else if (bitrate == 0 && peak == 0 && e->level)
    peak = e->level->max_kbps;
  if (bitrate > 0 || peak > 0) {
    e->seq.bit_rate_code = MIN (((peak ? peak : bitrate) * 1000ULL + 399) /
        400, e->level ? 0x3fffffff : 0x3fffe);
    /* (a constant quantiser under the level's peak: the level's buffer) */
    if (bitrate > 0 || max_bitrate > 0 || vbv > 0)
      vbv = choose_vbv_size (e, vbv);
    else
      vbv = max_vbv_size (e);
  } else {
    /* MPEG-1's variable rate, no model */
    e->seq.bit_rate_code = 0x3ffff;
    if (vbv == 0)
      vbv = max_vbv_size (e);
  }
  e->seq.vbv_size_code = CLAMP (vbv, 1, max_vbv_size (e));
  /* the model runs at the rates the stream signals, as a decoder's does
   * (an odd number of kbit/s is rounded up to whole 400 bit/s) */
  gst_cl_mpeg_rate_control_init (&e->rc, bitrate > 0 ? (peak ?
          bitrate * 1000ULL : e->seq.bit_rate_code * 400ULL) : 0,
      peak ? e->seq.bit_rate_code * 400ULL : 0,
      e->seq.vbv_size_code * VBV_UNIT_BITS,
      (gdouble) e->fps_n / e->fps_d, gop_size, e->b_frames, quantizer,
      ip_factor, pb_factor, e->mb_width, e->mb_height);
  gst_cl_mpeg_rate_control_set_non_linear (&e->rc, e->non_linear);
  gst_cl_mpeg_rate_control_set_low_delay (&e->rc, e->seq.mpeg2 &&
      !e->seq.b_pictures ? e->frame_period / 2 : 0);
  plan_end (e);
  GST_DEBUG_OBJECT (e->parent, "%s, %u kbit/s, peak %u kbit/s, VBV buffer "
      "%u", bitrate > 0 ? (peak ? "variable rate" : "constant rate") :
      "constant quantiser", bitrate, peak, e->seq.vbv_size_code);
  e->seq_frames = 0;
  e->anchor_shown = 0;
  e->gop_pos = 0;
  e->need_sequence = TRUE;
}

/* With 3:2 pulldown: whether the frame at @display shows three fields */
static gboolean
pulldown_repeats (guint64 display)
{
  return display % 2 == 0;
}

/* How an interlaced sequence codes @frame, at @display in display order:
 * as two fields where the caps (interleaved) or the buffer (mixed) say it
 * holds two, and which of them comes first: the caps' field order, else
 * the buffer's flag where it is marked interlaced, else the order of the
 * last frame so marked (at first the top one, as most interlaced video
 * has it). With 3:2 pulldown, progressive frames shown for three fields
 * (top, bottom, top), two (bottom, top), three (bottom, top, bottom), two
 * (top, bottom) in turn, so that the fields alternate. */
static void
frame_fields (GstClMpegEngine * e, GstVideoCodecFrame * frame,
    guint64 display, gboolean * interlaced, gboolean * top_field_first,
    gboolean * repeat_first_field)
{
  GstBuffer *in = frame->input_buffer;
  GstVideoFieldOrder order = GST_VIDEO_INFO_FIELD_ORDER (&e->info);
  gboolean marked = in && (GST_BUFFER_FLAG_IS_SET (in,
          GST_VIDEO_BUFFER_FLAG_INTERLACED) || GST_BUFFER_FLAG_IS_SET (in,
          GST_VIDEO_BUFFER_FLAG_TFF));

  *interlaced = *top_field_first = *repeat_first_field = FALSE;
  if (e->seq.pulldown) {
    *top_field_first = display % 4 == 0 || display % 4 == 3;
    *repeat_first_field = pulldown_repeats (display);
    return;
  }
  if (!e->seq.interlaced)
    return;
  *interlaced = GST_VIDEO_INFO_INTERLACE_MODE (&e->info) ==
      GST_VIDEO_INTERLACE_MODE_INTERLEAVED || (in &&
      GST_BUFFER_FLAG_IS_SET (in, GST_VIDEO_BUFFER_FLAG_INTERLACED));
  if (order != GST_VIDEO_FIELD_ORDER_UNKNOWN)
    *top_field_first = order == GST_VIDEO_FIELD_ORDER_TOP_FIELD_FIRST;
  else if (marked)
    *top_field_first = e->top_field_first =
        GST_BUFFER_FLAG_IS_SET (in, GST_VIDEO_BUFFER_FLAG_TFF);
  else
    *top_field_first = e->top_field_first;
}

/* Puts @frame, of @type and @temporal_reference (@gop_start: the I
 * picture that starts a GOP and a sequence), on the device and finishes
 * the frame queued before it. */
/* Where the fields of the frame at @display and of the reference frame
 * at @ref_display lie in time, for the field search (a frame's fields
 * one field period apart, in the order @top_field_first gives) */
static void
field_timing (guint64 display, guint64 ref_display, gboolean top_field_first,
    GstClMpegFieldTiming * timing)
{
  gboolean later = ref_display > display;
  guint64 frames = later ? ref_display - display : display - ref_display;

  /* (no reference yet, or one too far for steady motion: unscaled) */
  timing->span = frames >= 1 && frames <= 16 ? 2 * frames : 0;
  timing->order = later == top_field_first ? -1 : 1;
  timing->dual_prime = FALSE;
}

static GstFlowReturn
code_picture (GstClMpegEngine * e, GstVideoCodecFrame * frame, guint type,
    guint temporal_reference, guint64 display, gboolean gop_start,
    cl_mem trail, GError ** error)
{
  gboolean cq = e->rc.bit_rate <= 0;
  Slot *s = &e->slots[e->next_slot];
  GstFlowReturn ret;
  guint64 reencodes;

  g_assert (s != e->pending && s != e->coding && s->frame == NULL);
  s->frame = frame;             /* the reference the base class gave us */
  s->dc_only = s->all_skipped = FALSE;
  s->type = type;
  s->gop_start = s->seq_start = gop_start;
  s->gop_closed = e->gop_lead == 0;
  s->gop_frame = e->gop_first;
  s->temporal_reference = temporal_reference;
  s->display = display;
  s->trail = trail;
  /* (priced with B.14 first: see reprices_intra_table) */
  s->intra_vlc = s->intra_vlc_format = FALSE;
  frame_fields (e, frame, display, &s->interlaced, &s->top_field_first,
      &s->repeat_first_field);
  if (type == GST_CL_MPEG_PICTURE_B) {
    /* between the last two anchors, into a reconstruction of its own */
    s->ref = (e->last_recon + 2) % 3;
    s->bwd = e->last_recon;
    s->out = 3;
  } else {
    s->ref = s->bwd = e->last_recon;
    s->out = (e->last_recon + 1) % 3;
    e->last_recon = s->out;
  }
  s->distance = display - e->recon_display[s->ref];
  s->after_p = e->last_anchor == GST_CL_MPEG_PICTURE_P;
  if (type != GST_CL_MPEG_PICTURE_B)
    e->last_anchor = type;
  e->recon_display[s->out] = display;
  field_timing (display, e->recon_display[s->ref], s->top_field_first,
      &s->fwd_timing);
  field_timing (display, e->recon_display[s->bwd], s->top_field_first,
      &s->bwd_timing);
  /* dual prime: P pictures right after their reference */
  s->fwd_timing.dual_prime = type == GST_CL_MPEG_PICTURE_P;

  if (!submit_input (e, s, error))
    goto failed;
  /* With a constant quantiser the device can code this frame while the
   * host codes the previous one. With a bit rate the quantiser depends on
   * the previous frame's size: the device meanwhile pads the frame and
   * searches its vectors. */
  if (cq) {
    s->quant = slot_quant (e, s, type, gop_start);
    if (!submit_encode (e, s, error))
      goto failed;
  }
  reencodes = e->rc.reencodes + e->recoded;
  if (slices_async (e)) {
    /* the frame before that one out, this one's slices to the workers;
     * this one's results waited for first, while the workers still code
     * the slices of the one before */
    Slot *p = e->pending;
    if (p && !wait_results (e, p, error))
      ret = GST_FLOW_ERROR;
    else
      ret = finish_coding (e, error);
    if (ret == GST_FLOW_OK && p) {
      e->pending = NULL;
      if (!start_coding (e, p, error))
        ret = GST_FLOW_ERROR;
    }
  } else {
    ret = finish_pending (e, FALSE, error);
  }
  if (ret != GST_FLOW_OK) {
    slot_drop_frame (e, s);
    return ret;
  }
  /* the frame before was coded again (a constant quantiser under
   * MPEG-2's buffer model, a cut as an I picture, an I picture priced
   * with the other table): this one may have predicted from its first
   * reconstruction, and is coded again from the one decoders see */
  if (cq && e->rc.reencodes + e->recoded != reencodes) {
    slot_unmap (e, s);
    if (!submit_encode (e, s, error))
      goto failed;
  }
  if (!cq) {
    s->quant = slot_quant (e, s, type, gop_start);
    if (!submit_encode (e, s, error))
      goto failed;
  }
  e->pending = s;
  /* (only now: a frame that failed leaves its slot, emptied, to the next
   * one, which would otherwise take the slot still pending) */
  e->next_slot = (e->next_slot + 1) % G_N_ELEMENTS (e->slots);
  return GST_FLOW_OK;

failed:
  slot_drop_frame (e, s);
  return GST_FLOW_ERROR;
}

/* Codes the frames waiting as B pictures, in display order, after the
 * anchor behind them; @ret: that anchor's flow (none is coded unless
 * GST_FLOW_OK). */
static GstFlowReturn
code_b_pictures (GstClMpegEngine * e, GstFlowReturn ret, GError ** error)
{
  Waiting *w;

  while (ret == GST_FLOW_OK && (w = g_queue_pop_head (&e->waiting))) {
    ret = code_picture (e, w->frame, GST_CL_MPEG_PICTURE_B,
        w->temporal_reference, w->display, FALSE, w->trail, error);
    trail_free (e, &w->trail);
    g_free (w);
  }
  return ret;
}

/* Codes the B frames waiting, the last of them as a P picture (the
 * anchor the others predict backward from): the GOP ends. */
static GstFlowReturn
code_waiting (GstClMpegEngine * e, GError ** error)
{
  GstFlowReturn ret;
  Waiting *w = g_queue_pop_tail (&e->waiting);

  if (!w)
    return GST_FLOW_OK;
  ret = code_picture (e, w->frame, GST_CL_MPEG_PICTURE_P,
      w->temporal_reference, w->display, FALSE, w->trail, error);
  anchor_trail_is (e, w->trail);
  g_free (w);
  return code_b_pictures (e, ret, error);
}

GstFlowReturn
gst_cl_mpeg_engine_drain (GstClMpegEngine * e, gboolean end, GError ** error)
{
  GstFlowReturn ret = code_waiting (e, error);

  if (ret != GST_FLOW_OK)
    return ret;
  return finish_pending (e, end, error);
}

GstFlowReturn
gst_cl_mpeg_engine_encode (GstClMpegEngine * e, GstVideoCodecFrame * frame,
    guint64 position, GError ** error)
{
  GstFlowReturn ret;
  guint gop_size, bitrate, max_bitrate, vbv_size, type, pos, lead = 0;
  gboolean rate_set, starts_gop, key, open, adapt;
  guint64 display;
  cl_mem trail;
  GstClockTime *pts;

  g_mutex_lock (&e->settings_lock);
  gop_size = e->settings.gop_size;
  bitrate = e->settings.bitrate;
  max_bitrate = e->settings.max_bitrate;
  vbv_size = e->settings.vbv_size;
  open = !e->settings.closed_gop;
  adapt = e->settings.b_adapt;
  g_mutex_unlock (&e->settings_lock);
  rate_set = bitrate != e->seq_bitrate || vbv_size != e->seq_vbv_size ||
      max_bitrate != e->seq_max_bitrate;
  key = GST_VIDEO_CODEC_FRAME_IS_FORCE_KEYFRAME (frame);
  starts_gop = e->need_sequence || e->gop_pos >= gop_size || key;
  /* an open GOP: the B frames waiting (the GOP before ends with them) are
   * coded after its I picture, predicted from both; a key unit asked for,
   * a new sequence and a new rate close it */
  if (starts_gop && e->gop_open && !e->need_sequence && !key && !rate_set)
    lead = g_queue_get_length (&e->waiting);
  if (starts_gop && lead == 0) {
    /* the GOP before ends with its own pictures: it is closed */
    if ((ret = code_waiting (e, error)) != GST_FLOW_OK) {
      gst_video_codec_frame_unref (frame);
      return ret;
    }
  }
  if (rate_set && starts_gop) {
    /* a bit rate or buffer set while playing: the sequence ends with the
     * GOP, and the next, at the new rate, starts here */
    GST_INFO_OBJECT (e->parent, "bit rate %u -> %u kbit/s, VBV buffer %u -> %u "
        "from picture %" G_GUINT64_FORMAT, e->seq_bitrate, bitrate,
        e->seq_vbv_size, vbv_size, e->frames_out);
    if ((ret = finish_pending (e, TRUE, error)) != GST_FLOW_OK) {
      gst_video_codec_frame_unref (frame);
      return ret;
    }
    start_rate_sequence (e);
  }

  /* display order counts on from the first frame's place in the stream
   * (whatever jitter the later timestamps have) */
  if (e->frames_in++ == 0) {
    e->display_first = position != G_MAXUINT64 ? position : 0;
    /* a piece of a chunked encode (a VBV fullness agreed at its start)
     * goes on from the one before, whose last anchor is the frame before
     * this one: its display time is the first anchor's decoding interval */
    if (e->seq.pulldown && e->rc.initial_fullness > 0 && e->display_first > 0)
      e->anchor_shown = pulldown_repeats (e->display_first - 1) ? 1.5 : 1.0;
  }
  display = e->display_first + e->frames_in - 1;
  if (starts_gop) {
    GList *l;
    guint tr = 0;

    e->gop_pos = 0;
    e->gop_lead = lead;
    /* (the rate control plans the GOP's B pictures alike) */
    e->gop_open = e->rc.open_gop = open;
    plan_gop_b (e, adapt);
    /* (its time code: the display time of its first picture, the first
     * B picture waiting in an open GOP) */
    e->gop_first = display - MIN (display, lead);
    /* (display order from the GOP's first picture) */
    for (l = e->waiting.head; l; l = l->next)
      ((Waiting *) l->data)->temporal_reference = tr++;
  }
  e->need_sequence = FALSE;
  pos = e->gop_pos++;
  e->seq_frames++;
  pts = g_new (GstClockTime, 1);
  *pts = frame->pts;
  g_queue_push_tail (&e->pts, pts);
  if (pos == 0)
    type = GST_CL_MPEG_PICTURE_I;
  else if (gst_cl_mpeg_gop_position_is_b (gop_size, e->rc.b_frames,
          e->rc.probe_b, e->gop_open, pos))
    type = GST_CL_MPEG_PICTURE_B;
  else
    type = GST_CL_MPEG_PICTURE_P;
  /* the upstream elements' work on the frame's samples or vectors in
   * device memory goes before anything the engine's queue does with
   * them, from here on */
  if (((gst_buffer_is_cl (frame->input_buffer, e->shared) ||
              upstream_vectors (e, frame->input_buffer)) &&
          !gst_cl_context_wait_for (e->ctx, e->shared, error)) ||
      !carry_trail (e, frame->input_buffer, &trail, error)) {
    gst_video_codec_frame_unref (frame);
    return GST_FLOW_ERROR;
  }
  if (type == GST_CL_MPEG_PICTURE_B) {
    Waiting *w = g_new (Waiting, 1);
    w->frame = frame;
    w->temporal_reference = e->gop_lead + pos;
    w->display = display;
    w->trail = trail;
    g_queue_push_tail (&e->waiting, w);
    return GST_FLOW_OK;
  }
  /* an anchor, then the B pictures before it */
  ret = code_picture (e, frame, type, e->gop_lead + pos, display, pos == 0,
      trail, error);
  anchor_trail_is (e, trail);
  return code_b_pictures (e, ret, error);
}

/* ---- life cycle ---- */

GstClMpegEngine *
gst_cl_mpeg_engine_new (GstObject * parent,
    const GstClMpegEngineSettings * settings,
    const GstClMpegEngineCallbacks * callbacks, gpointer user_data)
{
  GstClMpegEngine *e = g_new0 (GstClMpegEngine, 1);

  e->parent = parent;
  e->cb = *callbacks;
  e->user_data = user_data;
  g_mutex_init (&e->settings_lock);
  g_queue_init (&e->waiting);
  g_queue_init (&e->free_trails);
  g_queue_init (&e->pts);
  e->last_pts = GST_CLOCK_TIME_NONE;
  e->ms_levels_display = G_MAXUINT64;
  e->length = G_MAXUINT64;
  g_mutex_init (&e->job_lock);
  g_cond_init (&e->job_cond);
  gst_cl_mpeg_engine_set_settings (e, settings);
  return e;
}

void
gst_cl_mpeg_engine_free (GstClMpegEngine * e)
{
  gst_cl_mpeg_engine_stop (e);
  g_mutex_clear (&e->settings_lock);
  g_mutex_clear (&e->job_lock);
  g_cond_clear (&e->job_cond);
  g_free (e);
}

void
gst_cl_mpeg_engine_set_settings (GstClMpegEngine * e,
    const GstClMpegEngineSettings * settings)
{
  g_mutex_lock (&e->settings_lock);
  e->settings = *settings;
  /* what the rate control reads for each picture */
  e->rc.gop_size = MAX (settings->gop_size, 1);
  e->rc.const_quant = settings->quantizer;
  gst_cl_mpeg_rate_control_set_ip_factor (&e->rc, settings->ip_factor);
  e->rc.pb_factor = MAX (settings->pb_factor, 1.0);
  g_mutex_unlock (&e->settings_lock);
}

void
gst_cl_mpeg_engine_start (GstClMpegEngine * e)
{
  guint n = MIN (g_get_num_processors (), 16);

  if (n > 1)
    e->workers = g_thread_pool_new (worker_func, e, n - 1, FALSE, NULL);
  e->frames_out = e->bytes_out = e->vlc_ns = e->wait_ns = 0;
  e->repeated = e->dc_only = e->underflows = e->scene_cuts = e->recoded = 0;
}

gboolean
gst_cl_mpeg_engine_configure (GstClMpegEngine * e, GstClContext * ctx,
    const GstVideoInfo * info, const GstClMpegSequenceParams * seq,
    const GstClMpeg2Level * level, GError ** error)
{
  gst_cl_mpeg_engine_release (e);
  e->shared = gst_object_ref (ctx);
  e->ctx = gst_cl_context_new_sibling (ctx, error);
  if (!e->ctx)
    return FALSE;
  e->info = *info;
  g_mutex_lock (&e->settings_lock);
  e->b_frames = e->settings.b_frames;
  e->non_linear = seq->mpeg2 && e->settings.non_linear_quant;
  g_mutex_unlock (&e->settings_lock);
  e->b_adapt_on = TRUE;
  e->dc_precision_warned = FALSE;
  e->gops_unprobed = 0;
  e->near_bits = e->far_bits = e->near_frames = e->far_frames = 0;
  e->seq = *seq;
  /* (3:2 pulldown: progressive frames in an interlaced sequence) */
  e->seq.pulldown = seq->mpeg2 && seq->pulldown;
  e->seq.interlaced = seq->mpeg2 && (seq->interlaced || seq->pulldown);
  /* (4:2:2 input makes a 4:2:2 sequence, MPEG-2's only) */
  e->seq.chroma_422 = seq->mpeg2 &&
      GST_VIDEO_INFO_FORMAT (info) == GST_VIDEO_FORMAT_Y42B;
  e->top_field_first = TRUE;
  e->frames_in = 0;
  if (!setup_device (e, error)) {
    gst_cl_mpeg_engine_release (e);
    return FALSE;
  }

  e->seq.b_pictures = e->b_frames > 0;
  e->seq.width = GST_VIDEO_INFO_WIDTH (info);
  e->seq.height = GST_VIDEO_INFO_HEIGHT (info);
  e->level = seq->mpeg2 ? level : NULL;
  gst_cl_mpeg_frame_rate (seq->frame_rate_code, &e->fps_n, &e->fps_d);
  e->frame_period = (gdouble) e->fps_d / e->fps_n;
  if (e->seq.pulldown)
    gst_util_fraction_multiply (e->fps_n, e->fps_d, 4, 5, &e->fps_n,
        &e->fps_d);
  start_rate_sequence (e);
  e->avg_activity = 1;
  e->last_recon = 0;
  e->last_anchor = GST_CL_MPEG_PICTURE_I;
  /* (start_rate_sequence logs the rate control) */
  GST_INFO_OBJECT (e->parent, "MPEG-%d %ux%u (%ux%u macroblocks), "
      "frame_rate_code %u, aspect code %u, profile_and_level 0x%02x",
      seq->mpeg2 ? 2 : 1, e->seq.width, e->seq.height, e->mb_width,
      e->mb_height, seq->frame_rate_code, seq->aspect_code,
      seq->profile_level);
  return TRUE;
}

void
gst_cl_mpeg_engine_set_length (GstClMpegEngine * e, guint64 frames)
{
  e->length = frames;
  if (e->tr)
    plan_end (e);
}

gboolean
gst_cl_mpeg_engine_is_configured (GstClMpegEngine * e)
{
  return e->tr != NULL;
}

guint
gst_cl_mpeg_engine_frames_held (GstClMpegEngine * e)
{
  /* (the rate control aside: a bit rate set while playing may stop or
   * start it) */
  return 1 + (may_code_slices_async (e) ? 1 : 0) + e->b_frames;
}

void
gst_cl_mpeg_engine_flush (GstClMpegEngine * e)
{
  drop_coding (e);
  if (e->pending)
    slot_drop_frame (e, e->pending);
  e->pending = NULL;
  drop_waiting (e);
  /* start over with a new sequence (whose GOP's search follows nothing
   * from before: submit_input) */
  e->need_sequence = TRUE;
  e->seq_frames = 0;
  e->frames_in = 0;
  e->anchor_shown = 0;
  gst_cl_mpeg_rate_control_restart (&e->rc);
  /* (what is left of the stream is not known after a seek) */
  e->length = G_MAXUINT64;
}

void
gst_cl_mpeg_engine_stop (GstClMpegEngine * e)
{
  gst_cl_mpeg_engine_release (e);
  if (e->workers)
    g_thread_pool_free (e->workers, FALSE, TRUE);
  e->workers = NULL;
}

void
gst_cl_mpeg_engine_get_stats (GstClMpegEngine * e,
    GstClMpegEngineStats * stats)
{
  stats->frames = e->frames_out;
  stats->bytes = e->bytes_out;
  stats->reencodes = e->rc.reencodes;
  stats->repeated = e->repeated;
  stats->dc_only = e->dc_only;
  stats->underflows = e->underflows;
  stats->scene_cuts = e->scene_cuts;
  stats->stuffing_bytes = e->rc.stuffing_bits / 8;
  stats->vbv_size = e->seq.vbv_size_code;
  stats->wait_ns = e->wait_ns;
  stats->vlc_ns = e->vlc_ns;
  stats->threads = e->workers ?
      g_thread_pool_get_max_threads (e->workers) + 1 : 1;
}
