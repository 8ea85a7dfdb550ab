/* gst-clvideo: clhistogram
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
/**
 * SECTION:element-clhistogram
 * @title: clhistogram
 *
 * Computes 256-bin histograms of each frame on an OpenCL device and
 * attaches them to the frame as a #GstClHistogramMeta, which stays on the
 * device: `clcontrast` downstream uses it instead of counting again. The
 * frames pass through unchanged (in place, no copy).
 *
 * YUV and GRAY8 frames give the luma histogram, or with `channels=all`
 * the Y, U and V histograms (chroma planes count their own, subsampled,
 * samples); packed RGB frames give the R, G and B histograms.
 *
 * With `post-messages=true` an element message named "clhistogram" is
 * posted for the frame that completes each `interval`, holding the bins
 * and statistics of every channel (see docs/usage.md for the fields). The
 * bins are read back without stalling the device: the read is queued
 * behind the kernel and the message is posted once it has completed, at a
 * later frame or at the latest at EOS or a flush.
 *
 * ## Example launch line
 * |[
 * gst-launch-1.0 -m videotestsrc num-buffers=30 ! video/x-raw,format=I420 ! clhistogram channels=all post-messages=true ! fakesink
 * ]|
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include "gstclhistogram.h"
#include "gstclvideoenum.h"
#include "gstclhistogramcompute.h"
#include <gst/cl/gstclhistogrammeta.h>
#include <gst/cl/gstclreadback.h>

GST_DEBUG_CATEGORY_STATIC (gst_cl_histogram_debug);
#define GST_CAT_DEFAULT gst_cl_histogram_debug

#define FORMATS "GRAY8, I420, NV12, Y444, Y42B, RGB, BGR, RGBx, BGRx, " \
    "xRGB, xBGR, RGBA, BGRA, ARGB, ABGR"

#define DEFAULT_CHANNELS GST_CL_HISTOGRAM_CHANNELS_LUMA
#define DEFAULT_POST_MESSAGES FALSE
#define DEFAULT_INTERVAL (GST_SECOND / 10)

/* histograms in one device buffer: the most any format has */
#define MAX_HISTOGRAMS 3

enum
{
  PROP_0,
  PROP_CHANNELS,
  PROP_POST_MESSAGES,
  PROP_INTERVAL,
};

typedef enum
{
  KIND_GRAY,
  KIND_YUV,
  KIND_RGB,
} FormatKind;

struct _GstClHistogram
{
  GstClFilter parent;

  /* properties */
  GstClHistogramChannels channels_prop;
  gboolean post_messages;
  guint64 interval;

  /* per negotiation */
  FormatKind kind;
  guint comps[MAX_HISTOGRAMS];
  GstClHistogramChannel channels[MAX_HISTOGRAMS];
  guint64 pixels[MAX_HISTOGRAMS];

  /* device objects */
  GstClHistogramCompute *compute;
  GstBufferPool *bins_pool;     /* MAX_HISTOGRAMS * 256 cl_uint each */

  /* messages */
  GstClockTime elapsed;         /* frame time since the last message */
};

G_DEFINE_TYPE_WITH_CODE (GstClHistogram, gst_cl_histogram, GST_TYPE_CL_FILTER,
    GST_DEBUG_CATEGORY_INIT (gst_cl_histogram_debug, "clhistogram", 0,
        "OpenCL histograms"));

#define GST_TYPE_CL_HISTOGRAM_CHANNELS (gst_cl_histogram_channels_get_type ())
static GType
gst_cl_histogram_channels_get_type (void)
{
  static GType type = 0;
  static const GEnumValue values[] = {
    {GST_CL_HISTOGRAM_CHANNELS_LUMA, "Luma only (YUV and GRAY8)", "luma"},
    {GST_CL_HISTOGRAM_CHANNELS_ALL, "Y, U and V (YUV)", "all"},
    {0, NULL, NULL}
  };
  return gst_cl_video_enum_type (&type, "GstClHistogramChannels", values);
}

/* ---- statistics for the messages ---- */

/* Percentile @pct of @n samples: the smallest value v whose cumulative
 * count reaches pct % of them, 100 * cum(v) >= pct * n. */
static guint
percentile (const guint32 * bins, guint64 n, guint pct)
{
  guint64 cum = 0;
  guint v;

  for (v = 0; v < GST_CL_HISTOGRAM_BINS; v++) {
    cum += bins[v];
    if (cum * 100 >= (guint64) pct * n)
      return v;
  }
  return GST_CL_HISTOGRAM_BINS - 1;
}

static void
add_channel_fields (GstStructure * s, const gchar * name, const guint32 * bins)
{
  static const guint pcts[] = { 1, 5, 50, 95, 99 };
  GValue array = G_VALUE_INIT;
  guint64 n = 0, sum = 0;
  guint v, i, vmin = 0, vmax = 0;
  gboolean any = FALSE;
  gchar *field;

  gst_value_array_init (&array, GST_CL_HISTOGRAM_BINS);
  for (v = 0; v < GST_CL_HISTOGRAM_BINS; v++) {
    GValue item = G_VALUE_INIT;
    g_value_init (&item, G_TYPE_UINT);
    g_value_set_uint (&item, bins[v]);
    gst_value_array_append_and_take_value (&array, &item);
    n += bins[v];
    sum += (guint64) v * bins[v];
    if (bins[v]) {
      if (!any)
        vmin = v;
      vmax = v;
      any = TRUE;
    }
  }
  field = g_strconcat (name, "-bins", NULL);
  gst_structure_take_value (s, field, &array);
  g_free (field);

#define SET(suffix, type, value)                                        \
  G_STMT_START {                                                        \
    gchar *f_ = g_strconcat (name, suffix, NULL);                       \
    gst_structure_set (s, f_, type, value, NULL);                       \
    g_free (f_);                                                        \
  } G_STMT_END
  SET ("-min", G_TYPE_UINT, vmin);
  SET ("-max", G_TYPE_UINT, vmax);
  SET ("-mean", G_TYPE_DOUBLE, n ? (gdouble) sum / (gdouble) n : 0.0);
  for (i = 0; i < G_N_ELEMENTS (pcts); i++) {
    gchar suffix[8];
    g_snprintf (suffix, sizeof (suffix), "-p%u", pcts[i]);
    SET (suffix, G_TYPE_UINT, percentile (bins, n, pcts[i]));
  }
#undef SET
}

/* A read of the bins completed: the message gets their statistics. */
static void
gst_cl_histogram_fill_message (GstClFilter * filter G_GNUC_UNUSED,
    GstStructure * s, gconstpointer data, gsize size)
{
  const GValue *names = gst_structure_get_value (s, "channels");
  const guint32 *bins = data;
  guint i, n = gst_value_array_get_size (names);

  g_assert (size >= n * GST_CL_HISTOGRAM_BINS * sizeof (guint32));
  for (i = 0; i < n; i++)
    add_channel_fields (s,
        g_value_get_string (gst_value_array_get_value (names, i)),
        bins + i * GST_CL_HISTOGRAM_BINS);
}

/* The message skeleton for @buf: times and channels; the bins follow. */
static GstStructure *
message_structure (GstClHistogram * self, GstBuffer * buf, guint n,
    GstClockTime duration)
{
  GValue names = G_VALUE_INIT;
  GstStructure *s;
  guint i;

  s = gst_cl_frame_message_structure_new ("clhistogram",
      &GST_BASE_TRANSFORM (self)->segment, buf, duration);
  gst_value_array_init (&names, n);
  for (i = 0; i < n; i++) {
    GValue v = G_VALUE_INIT;
    gchar *field;
    const gchar *name = gst_cl_histogram_channel_get_name (self->channels[i]);

    g_value_init (&v, G_TYPE_STRING);
    g_value_set_string (&v, name);
    gst_value_array_append_and_take_value (&names, &v);
    field = g_strconcat (name, "-pixels", NULL);
    gst_structure_set (s, field, G_TYPE_UINT64, self->pixels[i], NULL);
    g_free (field);
  }
  gst_structure_take_value (s, "channels", &names);
  return s;
}

/* ---- processing ---- */

static gboolean
gst_cl_histogram_set_info (GstClFilter * filter, GstVideoInfo * in,
    GstVideoInfo * out G_GNUC_UNUSED, GError ** error G_GNUC_UNUSED)
{
  GstClHistogram *self = GST_CL_HISTOGRAM (filter);
  const GstVideoFormatInfo *finfo = in->finfo;
  guint i;

  if (GST_VIDEO_FORMAT_INFO_IS_RGB (finfo)) {
    self->kind = KIND_RGB;
    self->comps[0] = GST_VIDEO_COMP_R;
    self->comps[1] = GST_VIDEO_COMP_G;
    self->comps[2] = GST_VIDEO_COMP_B;
    self->channels[0] = GST_CL_HISTOGRAM_CHANNEL_R;
    self->channels[1] = GST_CL_HISTOGRAM_CHANNEL_G;
    self->channels[2] = GST_CL_HISTOGRAM_CHANNEL_B;
  } else {
    self->kind = GST_VIDEO_FORMAT_INFO_IS_GRAY (finfo) ? KIND_GRAY : KIND_YUV;
    self->comps[0] = GST_VIDEO_COMP_Y;
    self->comps[1] = GST_VIDEO_COMP_U;
    self->comps[2] = GST_VIDEO_COMP_V;
    self->channels[0] = GST_CL_HISTOGRAM_CHANNEL_Y;
    self->channels[1] = GST_CL_HISTOGRAM_CHANNEL_U;
    self->channels[2] = GST_CL_HISTOGRAM_CHANNEL_V;
  }
  for (i = 0; i < MAX_HISTOGRAMS; i++) {
    if (i < GST_VIDEO_INFO_N_COMPONENTS (in))
      self->pixels[i] = (guint64) GST_VIDEO_INFO_COMP_WIDTH (in,
          self->comps[i]) * GST_VIDEO_INFO_COMP_HEIGHT (in, self->comps[i]);
    else
      self->pixels[i] = 0;
  }
  return TRUE;
}

static void
gst_cl_histogram_release (GstClFilter * filter)
{
  GstClHistogram *self = GST_CL_HISTOGRAM (filter);

  g_clear_pointer (&self->compute, gst_cl_histogram_compute_free);
  if (self->bins_pool) {
    /* buffers still held by metas are freed when they come back */
    gst_buffer_pool_set_active (self->bins_pool, FALSE);
    gst_clear_object (&self->bins_pool);
  }
}

/* Device buffers for the bins, recycled once no frame's meta uses them. */
static gboolean
ensure_bins_pool (GstClHistogram * self, GstClContext * ctx, GError ** error)
{
  GstAllocator *alloc;
  GstStructure *config;

  if (self->bins_pool)
    return TRUE;
  self->bins_pool = gst_buffer_pool_new ();
  alloc = gst_cl_allocator_new (ctx);
  config = gst_buffer_pool_get_config (self->bins_pool);
  gst_buffer_pool_config_set_params (config, NULL,
      MAX_HISTOGRAMS * GST_CL_HISTOGRAM_BINS * sizeof (cl_uint), 2, 0);
  gst_buffer_pool_config_set_allocator (config, alloc, NULL);
  gst_object_unref (alloc);
  if (!gst_buffer_pool_set_config (self->bins_pool, config) ||
      !gst_buffer_pool_set_active (self->bins_pool, TRUE)) {
    gst_clear_object (&self->bins_pool);
    g_set_error (error, GST_CL_ERROR, GST_CL_ERROR_CALL,
        "Cannot start a pool of OpenCL buffers for the histograms");
    return FALSE;
  }
  return TRUE;
}

static gboolean
drop_histogram_meta (GstBuffer * buffer G_GNUC_UNUSED, GstMeta ** meta,
    gpointer user_data G_GNUC_UNUSED)
{
  if ((*meta)->info->api == GST_CL_HISTOGRAM_META_API_TYPE)
    *meta = NULL;
  return TRUE;
}

static gboolean
gst_cl_histogram_process_ip (GstClFilter * filter, GstBuffer * buffer,
    GstClFrame * frame, GError ** error)
{
  GstClHistogram *self = GST_CL_HISTOGRAM (filter);
  GstClContext *ctx = gst_cl_filter_get_context (filter);
  GstClHistogramChannels which;
  gboolean post;
  guint64 interval;
  GstBuffer *storage = NULL;
  GstClockTime duration;
  cl_mem bins;
  guint n;

  GST_OBJECT_LOCK (self);
  which = self->channels_prop;
  post = self->post_messages;
  interval = self->interval;
  GST_OBJECT_UNLOCK (self);

  if (self->kind == KIND_RGB)
    n = 3;
  else if (self->kind == KIND_YUV && which == GST_CL_HISTOGRAM_CHANNELS_ALL)
    n = 3;
  else
    n = 1;

  if (!self->compute)
    self->compute = gst_cl_histogram_compute_new (ctx);
  if (!ensure_bins_pool (self, ctx, error))
    return FALSE;
  if (gst_buffer_pool_acquire_buffer (self->bins_pool, &storage, NULL) !=
      GST_FLOW_OK) {
    g_set_error (error, GST_CL_ERROR, GST_CL_ERROR_CALL,
        "Cannot allocate an OpenCL buffer for the histograms (out of device "
        "memory?)");
    return FALSE;
  }
  bins = ((GstClMemory *) gst_buffer_peek_memory (storage, 0))->buffer;
  if (!gst_cl_histogram_compute_frame (self->compute, frame, n, self->comps,
          bins, error)) {
    gst_buffer_unref (storage);
    return FALSE;
  }

  /* a shallow copy of a buffer an upstream clhistogram saw may carry its
   * meta: the new one replaces it */
  gst_buffer_foreach_meta (buffer, drop_histogram_meta, NULL);
  gst_buffer_add_cl_histogram_meta (buffer, ctx, bins, storage, n,
      self->channels, self->pixels);
  gst_buffer_unref (storage);

  duration = gst_cl_filter_get_frame_duration (filter, buffer);
  if (gst_cl_interval_complete (&self->elapsed, duration, interval) && post)
    return gst_cl_filter_read_message (filter, bins, 0,
        (gsize) n * GST_CL_HISTOGRAM_BINS * sizeof (cl_uint),
        message_structure (self, buffer, n, duration), error);
  return TRUE;
}

/* the message interval starts over */
static void
gst_cl_histogram_reset (GstClFilter * filter)
{
  GST_CL_HISTOGRAM (filter)->elapsed = 0;
}

/* ---- GObject ---- */

static void
gst_cl_histogram_set_property (GObject * object, guint prop_id,
    const GValue * value, GParamSpec * pspec)
{
  GstClHistogram *self = GST_CL_HISTOGRAM (object);

  GST_OBJECT_LOCK (self);
  switch (prop_id) {
    case PROP_CHANNELS:
      self->channels_prop = g_value_get_enum (value);
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
gst_cl_histogram_get_property (GObject * object, guint prop_id,
    GValue * value, GParamSpec * pspec)
{
  GstClHistogram *self = GST_CL_HISTOGRAM (object);

  GST_OBJECT_LOCK (self);
  switch (prop_id) {
    case PROP_CHANNELS:
      g_value_set_enum (value, self->channels_prop);
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
gst_cl_histogram_class_init (GstClHistogramClass * klass)
{
  GObjectClass *gobject_class = G_OBJECT_CLASS (klass);
  GstElementClass *element_class = GST_ELEMENT_CLASS (klass);
  GstClFilterClass *filter_class = GST_CL_FILTER_CLASS (klass);
  const GParamFlags flags = G_PARAM_READWRITE | G_PARAM_STATIC_STRINGS |
      GST_PARAM_MUTABLE_PLAYING;

  gobject_class->set_property = gst_cl_histogram_set_property;
  gobject_class->get_property = gst_cl_histogram_get_property;

  /**
   * GstClHistogram:channels:
   *
   * For YUV formats: the luma histogram only, or those of Y, U and V.
   * GRAY8 has luma only; RGB formats always give R, G and B.
   */
  g_object_class_install_property (gobject_class, PROP_CHANNELS,
      g_param_spec_enum ("channels", "Channels",
          "Histograms of YUV frames: luma only, or Y, U and V (RGB frames "
          "always give R, G and B)", GST_TYPE_CL_HISTOGRAM_CHANNELS,
          DEFAULT_CHANNELS, flags));
  /**
   * GstClHistogram:post-messages:
   *
   * Post a "clhistogram" element message for the frame that completes
   * each interval.
   */
  g_object_class_install_property (gobject_class, PROP_POST_MESSAGES,
      g_param_spec_boolean ("post-messages", "Post messages",
          "Post a \"clhistogram\" element message with the bins and "
          "statistics for each interval", DEFAULT_POST_MESSAGES, flags));
  /**
   * GstClHistogram:interval:
   *
   * Stream time between messages, in nanoseconds; 0: every frame.
   */
  g_object_class_install_property (gobject_class, PROP_INTERVAL,
      g_param_spec_uint64 ("interval", "Interval",
          "Time between messages in nanoseconds (0: every frame)", 0,
          G_MAXUINT64, DEFAULT_INTERVAL, flags));

  gst_element_class_set_static_metadata (element_class,
      "OpenCL histogram", "Filter/Analyzer/Video",
      "Computes per-frame histograms on an OpenCL device and attaches them "
      "to the frames", "gst-clvideo developers");
  gst_cl_filter_class_add_pad_templates (element_class, FORMATS, FORMATS,
      TRUE, TRUE, TRUE, TRUE);

  filter_class->set_info = gst_cl_histogram_set_info;
  filter_class->process_ip = gst_cl_histogram_process_ip;
  filter_class->release = gst_cl_histogram_release;
  filter_class->reset = gst_cl_histogram_reset;
  filter_class->fill_message = gst_cl_histogram_fill_message;

  gst_type_mark_as_plugin_api (GST_TYPE_CL_HISTOGRAM_CHANNELS, 0);
}

static void
gst_cl_histogram_init (GstClHistogram * self)
{
  self->channels_prop = DEFAULT_CHANNELS;
  self->post_messages = DEFAULT_POST_MESSAGES;
  self->interval = DEFAULT_INTERVAL;
  /* the frames go through untouched; only metas are added */
  gst_base_transform_set_in_place (GST_BASE_TRANSFORM (self), TRUE);
}
