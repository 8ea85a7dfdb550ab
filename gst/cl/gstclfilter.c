/* gst-clvideo: base class of the cl video elements
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * Everything the elements have in common: the device context (property,
 * GstContext sharing), caps with and without the memory:OpenCL feature,
 * buffer pools of device memory in both directions, and the staging of
 * system-memory input onto the device, and the non-blocking reads behind
 * element messages (flushed at EOS and on a flush). Subclasses only build
 * and run their kernels.
 */
#include <gst/cl/gstclfilter.h>
#include <gst/cl/gstclhostmemory.h>
#include <gst/cl/gstclreadback.h>

GST_DEBUG_CATEGORY_STATIC (gst_cl_filter_debug);
#define GST_CAT_DEFAULT gst_cl_filter_debug

typedef struct
{
  GstClContext *context;
  gchar *device;
  GstVideoInfo in_info, out_info;
  GstBufferPool *staging_pool;  /* device copies of system-memory input */
  gboolean negotiated;
  GstBuffer *input;             /* while processing: the incoming buffer */
  GstClockTime frame_duration;  /* from the input framerate, or NONE */
  GstClReadback *readback;      /* reads behind element messages */
} GstClFilterPrivate;

enum
{
  PROP_0,
  PROP_DEVICE,
};

G_DEFINE_ABSTRACT_TYPE_WITH_CODE (GstClFilter, gst_cl_filter,
    GST_TYPE_BASE_TRANSFORM, G_ADD_PRIVATE (GstClFilter);
    GST_DEBUG_CATEGORY_INIT (gst_cl_filter_debug, "clfilter", 0,
        "OpenCL filter base class"));

#define PRIV(f) ((GstClFilterPrivate *) gst_cl_filter_get_instance_private (f))

/**
 * gst_cl_filter_get_context:
 * @filter: a #GstClFilter
 *
 * The element's OpenCL context: set from the READY state on, %NULL in
 * NULL. Meant for the virtual methods, which run while it cannot change.
 *
 * Returns: (transfer none) (nullable): the context
 *
 * Since: 0.1
 */
GstClContext *
gst_cl_filter_get_context (GstClFilter * filter)
{
  return PRIV (filter)->context;
}

/**
 * gst_cl_filter_get_in_info:
 * @filter: a #GstClFilter
 *
 * The video info of the negotiated input caps; valid once
 * #GstClFilterClass.set_info has been called. Not MT safe: for the
 * streaming thread.
 *
 * Returns: (transfer none): the input video info
 *
 * Since: 0.1
 */
const GstVideoInfo *
gst_cl_filter_get_in_info (GstClFilter * filter)
{
  return &PRIV (filter)->in_info;
}

/**
 * gst_cl_filter_get_out_info:
 * @filter: a #GstClFilter
 *
 * The video info of the negotiated output caps, as
 * gst_cl_filter_get_in_info() for the input.
 *
 * Returns: (transfer none): the output video info
 *
 * Since: 0.1
 */
const GstVideoInfo *
gst_cl_filter_get_out_info (GstClFilter * filter)
{
  return &PRIV (filter)->out_info;
}

/**
 * gst_cl_filter_get_input_buffer:
 * @filter: a #GstClFilter
 *
 * The buffer being processed as it came in (before any staging on the
 * device), for its metas. Valid inside #GstClFilterClass.process and
 * #GstClFilterClass.process_ip only.
 *
 * Returns: (transfer none) (nullable): the input buffer, %NULL outside
 *   processing
 *
 * Since: 0.1
 */
GstBuffer *
gst_cl_filter_get_input_buffer (GstClFilter * filter)
{
  return PRIV (filter)->input;
}

/**
 * gst_cl_filter_get_frame_duration:
 * @filter: a #GstClFilter
 * @buffer: a frame of the negotiated input
 *
 * The duration of @buffer, or where it has none that of one frame at the
 * input framerate. Not MT safe: for the streaming thread.
 *
 * Returns: the duration, or %GST_CLOCK_TIME_NONE when neither is known
 *   (variable framerate)
 *
 * Since: 0.1
 */
GstClockTime
gst_cl_filter_get_frame_duration (GstClFilter * filter, GstBuffer * buffer)
{
  if (GST_BUFFER_DURATION_IS_VALID (buffer))
    return GST_BUFFER_DURATION (buffer);
  return PRIV (filter)->frame_duration;
}

/* A read for a message completed: the subclass fills it in, we post it. */
static void
message_read (GstStructure * s, gconstpointer data, gsize size,
    gpointer user_data)
{
  GstClFilter *self = user_data;

  GST_CL_FILTER_GET_CLASS (self)->fill_message (self, s, data, size);
  GST_LOG_OBJECT (self, "posting %" GST_PTR_FORMAT, s);
  gst_element_post_message (GST_ELEMENT (self),
      gst_message_new_element (GST_OBJECT (self), s));
}

/**
 * gst_cl_filter_read_message:
 * @filter: a #GstClFilter whose class has #GstClFilterClass.fill_message
 * @mem: device buffer holding the result
 * @offset: where the result starts in @mem, in bytes
 * @size: the size of the result in bytes
 * @s: (transfer full): the element message's structure, for instance from
 *   gst_cl_frame_message_structure_new()
 * @error: return location for a #GError, or %NULL
 *
 * Enqueues a non-blocking read of a result the element's kernels compute
 * (behind them on the in-order queue), for an element message: once the
 * read has completed, #GstClFilterClass.fill_message completes @s from the
 * bytes and the base class posts it. Completed reads are picked up after
 * each frame is processed; at EOS and on a flush the base class waits for
 * all of them. Messages are posted in the order of the reads.
 *
 * Call it from #GstClFilterClass.process or #GstClFilterClass.process_ip.
 * Not MT safe.
 *
 * Returns: %FALSE, with @error set, when the read cannot be enqueued (@s is
 *   freed then)
 *
 * Since: 0.1
 */
gboolean
gst_cl_filter_read_message (GstClFilter * filter, cl_mem mem, gsize offset,
    gsize size, GstStructure * s, GError ** error)
{
  GstClFilterPrivate *priv = PRIV (filter);

  g_return_val_if_fail (GST_CL_FILTER_GET_CLASS (filter)->fill_message,
      FALSE);
  if (!priv->readback)
    priv->readback = gst_cl_readback_new (priv->context, message_read, filter);
  return gst_cl_readback_push (priv->readback, mem, offset, size, s, error);
}

/* Posts the messages whose reads have completed; with @wait, all of them.
 * FALSE: the element errored out. */
static gboolean
post_messages (GstClFilter * self, gboolean wait)
{
  GstClFilterPrivate *priv = PRIV (self);
  GError *error = NULL;

  if (priv->readback && !gst_cl_readback_poll (priv->readback, wait, &error)) {
    GST_CL_ELEMENT_ERROR (self, error);
    return FALSE;
  }
  return TRUE;
}

/**
 * gst_cl_kernel_set_arg:
 * @kernel: an OpenCL kernel
 * @index: (inout): the argument to set; incremented on success
 * @size: the size of the value in bytes
 * @value: (nullable): the value, as for clSetKernelArg()
 * @error: return location for a #GError, or %NULL
 *
 * Sets argument *@index of @kernel and moves @index to the next, so that a
 * kernel's arguments are set in a chain of calls. MT safe for distinct
 * kernels (OpenCL's rule for clSetKernelArg()).
 *
 * Returns: %FALSE, with @error naming the call and the CL_* code, on
 *   failure
 *
 * Since: 0.1
 */
gboolean
gst_cl_kernel_set_arg (cl_kernel kernel, guint * index, gsize size,
    const void *value, GError ** error)
{
  cl_int ret = clSetKernelArg (kernel, *index, size, value);
  if (ret != CL_SUCCESS) {
    g_set_error (error, GST_CL_ERROR, GST_CL_ERROR_CALL,
        "OpenCL call clSetKernelArg (argument %u) failed: %s (%d)", *index,
        gst_cl_error_name (ret), ret);
    return FALSE;
  }
  (*index)++;
  return TRUE;
}

/**
 * gst_cl_kernel_set_frame_args:
 * @kernel: an OpenCL kernel
 * @index: (inout): the first argument to set; moved past the last set
 * @frame: the frame
 * @error: return location for a #GError, or %NULL
 *
 * Sets the arguments that describe @frame, from *@index on: its device
 * buffer, then each plane's offset and stride as cl_int (buffer, offset0,
 * stride0, ..., offsetN-1, strideN-1). MT safe for distinct kernels.
 *
 * Returns: %FALSE, with @error set, on failure
 *
 * Since: 0.1
 */
gboolean
gst_cl_kernel_set_frame_args (cl_kernel kernel, guint * index,
    GstClFrame * frame, GError ** error)
{
  guint p;

  if (!gst_cl_kernel_set_arg (kernel, index, sizeof (cl_mem), &frame->mem,
          error))
    return FALSE;
  for (p = 0; p < GST_VIDEO_INFO_N_PLANES (&frame->info); p++) {
    cl_int offset = frame->info.offset[p];
    cl_int stride = frame->info.stride[p];
    if (!gst_cl_kernel_set_arg (kernel, index, sizeof (offset), &offset,
            error) ||
        !gst_cl_kernel_set_arg (kernel, index, sizeof (stride), &stride,
            error))
      return FALSE;
  }
  return TRUE;
}

/**
 * gst_cl_filter_class_add_pad_templates:
 * @klass: the element class, in its class_init
 * @sink_formats: the sink pad's formats, comma-separated ("NV12, I420")
 * @src_formats: the source pad's formats, likewise
 * @sink_system: the sink pad takes system memory
 * @sink_cl: the sink pad takes memory:OpenCL
 * @src_system: the source pad gives system memory
 * @src_cl: the source pad gives memory:OpenCL
 *
 * Installs the "sink" and "src" always pad templates: raw video of the
 * formats, any size up to 32767 and any framerate, in the memory features
 * asked for (memory:OpenCL first, the preferred one).
 *
 * Since: 0.1
 */
void
gst_cl_filter_class_add_pad_templates (GstElementClass * klass,
    const gchar * sink_formats, const gchar * src_formats,
    gboolean sink_system, gboolean sink_cl, gboolean src_system,
    gboolean src_cl)
{
  const gchar *formats[2] = { sink_formats, src_formats };
  gboolean system[2] = { sink_system, src_system };
  gboolean cl[2] = { sink_cl, src_cl };
  guint i;

  for (i = 0; i < 2; i++) {
    GstCaps *caps = gst_caps_new_empty ();
    gchar *s;
    if (cl[i]) {
      s = g_strdup_printf ("video/x-raw(" GST_CAPS_FEATURE_MEMORY_CL "), "
          "format=(string){ %s }, width=(int)[1, 32767], "
          "height=(int)[1, 32767], framerate=(fraction)[0/1, 2147483647/1]",
          formats[i]);
      gst_caps_append (caps, gst_caps_from_string (s));
      g_free (s);
    }
    if (system[i]) {
      s = g_strdup_printf ("video/x-raw, format=(string){ %s }, "
          "width=(int)[1, 32767], height=(int)[1, 32767], "
          "framerate=(fraction)[0/1, 2147483647/1]", formats[i]);
      gst_caps_append (caps, gst_caps_from_string (s));
      g_free (s);
    }
    gst_element_class_add_pad_template (klass,
        gst_pad_template_new (i == 0 ? "sink" : "src",
            i == 0 ? GST_PAD_SINK : GST_PAD_SRC, GST_PAD_ALWAYS, caps));
    gst_caps_unref (caps);
  }
}

/* ---- properties, context ---- */

static void
gst_cl_filter_set_property (GObject * object, guint prop_id,
    const GValue * value, GParamSpec * pspec)
{
  GstClFilterPrivate *priv = PRIV (GST_CL_FILTER (object));

  switch (prop_id) {
    case PROP_DEVICE:
      GST_OBJECT_LOCK (object);
      g_free (priv->device);
      priv->device = g_value_dup_string (value);
      GST_OBJECT_UNLOCK (object);
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
      break;
  }
}

static void
gst_cl_filter_get_property (GObject * object, guint prop_id, GValue * value,
    GParamSpec * pspec)
{
  GstClFilterPrivate *priv = PRIV (GST_CL_FILTER (object));

  switch (prop_id) {
    case PROP_DEVICE:
      GST_OBJECT_LOCK (object);
      g_value_set_string (value, priv->device);
      GST_OBJECT_UNLOCK (object);
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
      break;
  }
}

static void
gst_cl_filter_set_context (GstElement * element, GstContext * context)
{
  GstClFilterPrivate *priv = PRIV (GST_CL_FILTER (element));

  gst_cl_handle_set_context (element, context, priv->device, &priv->context);
  GST_ELEMENT_CLASS (gst_cl_filter_parent_class)->set_context (element,
      context);
}

static void
release_device_objects (GstClFilter * self)
{
  GstClFilterClass *klass = GST_CL_FILTER_GET_CLASS (self);
  GstClFilterPrivate *priv = PRIV (self);

  if (klass->release)
    klass->release (self);
  if (priv->staging_pool) {
    gst_buffer_pool_set_active (priv->staging_pool, FALSE);
    gst_clear_object (&priv->staging_pool);
  }
}

static GstStateChangeReturn
gst_cl_filter_change_state (GstElement * element, GstStateChange transition)
{
  GstClFilter *self = GST_CL_FILTER (element);
  GstClFilterPrivate *priv = PRIV (self);
  GstStateChangeReturn ret;

  if (transition == GST_STATE_CHANGE_NULL_TO_READY) {
    if (!gst_cl_ensure_element_data (element, priv->device, &priv->context))
      return GST_STATE_CHANGE_FAILURE;
  }

  ret = GST_ELEMENT_CLASS (gst_cl_filter_parent_class)->change_state (element,
      transition);
  if (ret == GST_STATE_CHANGE_FAILURE)
    return ret;

  if (transition == GST_STATE_CHANGE_READY_TO_NULL) {
    release_device_objects (self);
    priv->negotiated = FALSE;
    GST_OBJECT_LOCK (element);
    gst_clear_object (&priv->context);
    GST_OBJECT_UNLOCK (element);
  }
  return ret;
}

static gboolean
gst_cl_filter_query (GstBaseTransform * trans, GstPadDirection direction,
    GstQuery * query)
{
  GstClFilterPrivate *priv = PRIV (GST_CL_FILTER (trans));

  if (GST_QUERY_TYPE (query) == GST_QUERY_CONTEXT) {
    GstClContext *ctx = NULL;
    gboolean ret;
    GST_OBJECT_LOCK (trans);
    if (priv->context)
      ctx = gst_object_ref (priv->context);
    GST_OBJECT_UNLOCK (trans);
    ret = gst_cl_handle_context_query (GST_ELEMENT (trans), query, ctx);
    if (ctx)
      gst_object_unref (ctx);
    if (ret)
      return TRUE;
  }
  return GST_BASE_TRANSFORM_CLASS (gst_cl_filter_parent_class)->query (trans,
      direction, query);
}

/* ---- caps ---- */

static GstCaps *
gst_cl_filter_default_transform_video_caps (GstClFilter * filter G_GNUC_UNUSED,
    GstPadDirection direction G_GNUC_UNUSED, GstCaps * caps)
{
  return gst_caps_ref (caps);
}

static GstCaps *
gst_cl_filter_transform_caps (GstBaseTransform * trans,
    GstPadDirection direction, GstCaps * caps, GstCaps * filter)
{
  GstClFilter *self = GST_CL_FILTER (trans);
  GstClFilterClass *klass = GST_CL_FILTER_GET_CLASS (self);
  GstPad *other = direction == GST_PAD_SINK ? trans->srcpad : trans->sinkpad;
  GstCaps *plain, *mapped, *with_cl, *tmpl, *result;
  guint i;

  if (klass->process_ip) {
    /* in place: the buffers pass through, their memory with them */
    tmpl = gst_pad_get_pad_template_caps (other);
    result = gst_caps_intersect_full (caps, tmpl, GST_CAPS_INTERSECT_FIRST);
    gst_caps_unref (tmpl);
    goto filter;
  }

  plain = gst_caps_copy (caps);
  for (i = 0; i < gst_caps_get_size (plain); i++)
    gst_caps_set_features (plain, i, NULL);
  plain = gst_caps_simplify (plain);
  mapped = klass->transform_video_caps (self, direction, plain);
  gst_caps_unref (plain);

  /* the device-memory variant first: it is preferred where both fit */
  with_cl = gst_caps_copy (mapped);
  for (i = 0; i < gst_caps_get_size (with_cl); i++)
    gst_caps_set_features (with_cl, i,
        gst_caps_features_new (GST_CAPS_FEATURE_MEMORY_CL, NULL));
  with_cl = gst_caps_merge (with_cl, mapped);

  tmpl = gst_pad_get_pad_template_caps (other);
  result = gst_caps_intersect_full (with_cl, tmpl, GST_CAPS_INTERSECT_FIRST);
  gst_caps_unref (tmpl);
  gst_caps_unref (with_cl);

filter:
  if (filter) {
    GstCaps *tmp = gst_caps_intersect_full (filter, result,
        GST_CAPS_INTERSECT_FIRST);
    gst_caps_unref (result);
    result = tmp;
  }
  GST_LOG_OBJECT (self, "%s caps %" GST_PTR_FORMAT " -> %" GST_PTR_FORMAT,
      direction == GST_PAD_SINK ? "sink" : "src", caps, result);
  return result;
}

static gboolean
gst_cl_filter_set_caps (GstBaseTransform * trans, GstCaps * incaps,
    GstCaps * outcaps)
{
  GstClFilter *self = GST_CL_FILTER (trans);
  GstClFilterClass *klass = GST_CL_FILTER_GET_CLASS (self);
  GstClFilterPrivate *priv = PRIV (self);
  GError *error = NULL;

  if (!gst_video_info_from_caps (&priv->in_info, incaps) ||
      !gst_video_info_from_caps (&priv->out_info, outcaps)) {
    GST_ELEMENT_ERROR (self, CORE, NEGOTIATION, (NULL),
        ("invalid caps %" GST_PTR_FORMAT " -> %" GST_PTR_FORMAT, incaps,
            outcaps));
    return FALSE;
  }
  if (!priv->context) {
    GST_ELEMENT_ERROR (self, CORE, STATE_CHANGE,
        ("No OpenCL context: the element was not started"), (NULL));
    return FALSE;
  }

  priv->frame_duration = GST_VIDEO_INFO_FPS_N (&priv->in_info) > 0 ?
      gst_util_uint64_scale_int (GST_SECOND,
      GST_VIDEO_INFO_FPS_D (&priv->in_info),
      GST_VIDEO_INFO_FPS_N (&priv->in_info)) : GST_CLOCK_TIME_NONE;
  release_device_objects (self);
  if (klass->set_info && !klass->set_info (self, &priv->in_info,
          &priv->out_info, &error)) {
    GST_CL_ELEMENT_ERROR (self, error);
    return FALSE;
  }
  priv->negotiated = TRUE;
  GST_DEBUG_OBJECT (self, "configured %" GST_PTR_FORMAT " -> %" GST_PTR_FORMAT,
      incaps, outcaps);
  return TRUE;
}

/* Without a pool downstream, GstBaseTransform would size output buffers
 * like the input ones; but the output is a frame of the output caps,
 * whatever layout the input's video meta gives it. */
static gboolean
gst_cl_filter_transform_size (GstBaseTransform * trans G_GNUC_UNUSED,
    GstPadDirection direction G_GNUC_UNUSED, GstCaps * caps G_GNUC_UNUSED,
    gsize size G_GNUC_UNUSED, GstCaps * othercaps, gsize * othersize)
{
  GstVideoInfo info;

  if (!gst_video_info_from_caps (&info, othercaps))
    return FALSE;
  *othersize = info.size;
  return TRUE;
}

/* ---- allocation ---- */

static gboolean
gst_cl_filter_propose_allocation (GstBaseTransform * trans,
    GstQuery * decide_query, GstQuery * query)
{
  GstClFilterPrivate *priv = PRIV (GST_CL_FILTER (trans));
  gboolean in_place = GST_CL_FILTER_GET_CLASS (trans)->process_ip != NULL;
  GstCaps *caps = NULL;
  gboolean need_pool = FALSE;
  GstBufferPool *pool;
  GstVideoInfo info;

  /* in place, the parent forwards the query downstream: whatever
   * downstream answers suits our buffers too, even nothing */
  if (!GST_BASE_TRANSFORM_CLASS (gst_cl_filter_parent_class)->
      propose_allocation (trans, decide_query, query) && !in_place)
    return FALSE;
  if (gst_base_transform_is_passthrough (trans))
    return TRUE;

  gst_query_add_allocation_meta (query, GST_VIDEO_META_API_TYPE, NULL);
  gst_query_parse_allocation (query, &caps, &need_pool);
  if (!caps || !need_pool || !priv->context ||
      !gst_video_info_from_caps (&info, caps))
    return TRUE;
  /* in place, a pool from downstream is where the frames end up anyway */
  if (in_place && gst_query_get_n_allocation_pools (query) > 0)
    return TRUE;

  /* upstream writing where the upload reads (page-locked host memory) or
   * straight into device buffers (devices that share host memory) spares
   * a copy */
  pool = gst_cl_upload_pool_new (priv->context, caps, 2);
  if (pool) {
    gst_query_add_allocation_pool (query, pool, info.size, 2, 0);
    gst_object_unref (pool);
  }
  return TRUE;
}

static gboolean
gst_cl_filter_decide_allocation (GstBaseTransform * trans, GstQuery * query)
{
  GstClFilter *self = GST_CL_FILTER (trans);
  GstClFilterPrivate *priv = PRIV (self);
  GstCaps *caps = NULL;
  GstBufferPool *pool;
  GstVideoInfo info;
  guint min = 2;

  gst_query_parse_allocation (query, &caps, NULL);
  if (!caps || !gst_video_info_from_caps (&info, caps))
    return FALSE;

  if (GST_CL_FILTER_GET_CLASS (self)->output_system_memory) {
    /* Without a pool from downstream every frame would be a fresh
     * allocation, whose pages the kernel must fault in and clear: at large
     * sizes that costs more than the copy itself. */
    if (gst_query_get_n_allocation_pools (query) == 0) {
      pool = gst_video_buffer_pool_new ();
      gst_query_add_allocation_pool (query, pool, info.size, 2, 0);
      gst_object_unref (pool);
    }
    return GST_BASE_TRANSFORM_CLASS (gst_cl_filter_parent_class)->
        decide_allocation (trans, query);
  }
  if (gst_query_get_n_allocation_pools (query) > 0)
    gst_query_parse_nth_allocation_pool (query, 0, NULL, NULL, &min, NULL);

  /* Always our own pool: even under system-memory caps our buffers map for
   * the host, and the kernels can write them. */
  pool = gst_cl_buffer_pool_new_for_caps (priv->context, caps, MAX (min, 2));
  if (!pool) {
    GST_ELEMENT_ERROR (self, RESOURCE, SETTINGS,
        ("Cannot configure a pool of OpenCL buffers for %" GST_PTR_FORMAT,
            caps), (NULL));
    return FALSE;
  }
  if (gst_query_get_n_allocation_pools (query) > 0)
    gst_query_set_nth_allocation_pool (query, 0, pool, info.size, MAX (min, 2),
        0);
  else
    gst_query_add_allocation_pool (query, pool, info.size, MAX (min, 2), 0);
  gst_object_unref (pool);
  return TRUE;
}

/* ---- processing ---- */

static GstFlowReturn
gst_cl_filter_prepare_output_buffer (GstBaseTransform * trans,
    GstBuffer * inbuf, GstBuffer ** outbuf)
{
  GstClFilterPrivate *priv = PRIV (GST_CL_FILTER (trans));
  GstFlowReturn ret;

  ret = GST_BASE_TRANSFORM_CLASS (gst_cl_filter_parent_class)->
      prepare_output_buffer (trans, inbuf, outbuf);
  if (ret == GST_FLOW_ERROR)
    GST_ELEMENT_ERROR (trans, RESOURCE, NO_SPACE_LEFT,
        ("Cannot allocate an output buffer of %" G_GSIZE_FORMAT " bytes on "
            "the OpenCL device (out of device memory?)",
            priv->out_info.size), (NULL));
  return ret;
}

/* Whether @buf can be processed: caps negotiated, and a video meta that
 * is no proof of size checked (the copies and kernels read the planes
 * where it says). */
static GstFlowReturn
check_input (GstClFilter * self, GstBuffer * buf)
{
  GstClFilterPrivate *priv = PRIV (self);

  if (!priv->negotiated)
    return GST_FLOW_NOT_NEGOTIATED;
  if (!gst_cl_element_check_input_frame (GST_ELEMENT (self), &priv->in_info,
          buf))
    return GST_FLOW_ERROR;
  return GST_FLOW_OK;
}

/* The device frame of input @buf: @buf itself when it is OpenCL memory of
 * the context, else a copy staged on the device, returned in @staged. */
static gboolean
device_frame (GstClFilter * self, GstBuffer * buf, GstBuffer ** staged,
    GstClFrame * frame)
{
  GstClFilterPrivate *priv = PRIV (self);
  GError *error = NULL;

  *staged = NULL;
  if (gst_buffer_is_cl (buf, priv->context)) {
    gst_cl_frame_init (frame, &priv->in_info, buf);
    return TRUE;
  }
  if (!gst_cl_stage_frame (priv->context, &priv->staging_pool,
          &priv->in_info, buf, staged, frame, &error)) {
    GST_CL_ELEMENT_ERROR (self, error);
    return FALSE;
  }
  return TRUE;
}

/* After the subclass processed a frame. The staging buffer may go back to
 * its pool at once: the in-order queue runs the kernels before any later
 * upload into it. */
static GstFlowReturn
frame_done (GstClFilter * self, GstBuffer * staged, gboolean ok,
    GError * error)
{
  PRIV (self)->input = NULL;
  if (staged)
    gst_buffer_unref (staged);
  if (!ok) {
    GST_CL_ELEMENT_ERROR (self, error);
    return GST_FLOW_ERROR;
  }
  return post_messages (self, FALSE) ? GST_FLOW_OK : GST_FLOW_ERROR;
}

static GstFlowReturn
gst_cl_filter_transform (GstBaseTransform * trans, GstBuffer * inbuf,
    GstBuffer * outbuf)
{
  GstClFilter *self = GST_CL_FILTER (trans);
  GstClFilterClass *klass = GST_CL_FILTER_GET_CLASS (self);
  GstClFilterPrivate *priv = PRIV (self);
  GstBuffer *staged;
  GstClFrame in, out;
  GError *error = NULL;
  GstFlowReturn ret;
  gboolean ok;

  ret = check_input (self, inbuf);
  if (ret != GST_FLOW_OK)
    return ret;
  if (klass->transform_system)
    return klass->transform_system (self, inbuf, outbuf);

  if (!gst_buffer_is_cl (outbuf, priv->context)) {
    GST_ELEMENT_ERROR (self, CORE, NEGOTIATION, (NULL),
        ("output buffer is not OpenCL memory of this element's context"));
    return GST_FLOW_ERROR;
  }
  if (!device_frame (self, inbuf, &staged, &in))
    return GST_FLOW_ERROR;
  gst_cl_frame_init (&out, &priv->out_info, outbuf);

  priv->input = inbuf;
  ok = klass->process (self, &in, &out, &error);
  if (ok)
    gst_cl_memory_mark_written (gst_buffer_peek_memory (outbuf, 0));
  return frame_done (self, staged, ok, error);
}

/* In-place elements: the frame passes through, the kernels only read it
 * (system memory through a staging copy, as in transform). */
static GstFlowReturn
gst_cl_filter_transform_ip (GstBaseTransform * trans, GstBuffer * buf)
{
  GstClFilter *self = GST_CL_FILTER (trans);
  GstClFilterClass *klass = GST_CL_FILTER_GET_CLASS (self);
  GstBuffer *staged;
  GstClFrame frame;
  GError *error = NULL;
  GstFlowReturn ret;
  gboolean ok;

  if (!klass->process_ip)
    return GST_FLOW_OK;
  ret = check_input (self, buf);
  if (ret != GST_FLOW_OK)
    return ret;
  if (!device_frame (self, buf, &staged, &frame))
    return GST_FLOW_ERROR;

  PRIV (self)->input = buf;
  ok = klass->process_ip (self, buf, &frame, &error);
  return frame_done (self, staged, ok, error);
}

/* ---- events, state ---- */

static void
reset (GstClFilter * self)
{
  GstClFilterClass *klass = GST_CL_FILTER_GET_CLASS (self);

  if (klass->reset)
    klass->reset (self);
}

static gboolean
gst_cl_filter_sink_event (GstBaseTransform * trans, GstEvent * event)
{
  GstClFilter *self = GST_CL_FILTER (trans);

  switch (GST_EVENT_TYPE (event)) {
    case GST_EVENT_EOS:
    case GST_EVENT_FLUSH_STOP:
      /* what is still on its way from the device goes out now */
      post_messages (self, TRUE);
      if (GST_EVENT_TYPE (event) == GST_EVENT_FLUSH_STOP)
        reset (self);
      break;
    default:
      break;
  }
  return GST_BASE_TRANSFORM_CLASS (gst_cl_filter_parent_class)->sink_event
      (trans, event);
}

static gboolean
gst_cl_filter_start (GstBaseTransform * trans)
{
  reset (GST_CL_FILTER (trans));
  return TRUE;
}

static gboolean
gst_cl_filter_stop (GstBaseTransform * trans)
{
  GstClFilter *self = GST_CL_FILTER (trans);

  g_clear_pointer (&PRIV (self)->readback, gst_cl_readback_free);
  reset (self);
  return TRUE;
}

static void
gst_cl_filter_finalize (GObject * object)
{
  GstClFilterPrivate *priv = PRIV (GST_CL_FILTER (object));

  g_clear_pointer (&priv->readback, gst_cl_readback_free);
  g_free (priv->device);
  gst_clear_object (&priv->context);
  G_OBJECT_CLASS (gst_cl_filter_parent_class)->finalize (object);
}

static void
gst_cl_filter_class_init (GstClFilterClass * klass)
{
  GObjectClass *gobject_class = G_OBJECT_CLASS (klass);
  GstElementClass *element_class = GST_ELEMENT_CLASS (klass);
  GstBaseTransformClass *trans_class = GST_BASE_TRANSFORM_CLASS (klass);

  gobject_class->set_property = gst_cl_filter_set_property;
  gobject_class->get_property = gst_cl_filter_get_property;
  gobject_class->finalize = gst_cl_filter_finalize;

  /**
   * GstClFilter:device:
   *
   * The OpenCL device: an index into the list of devices, or a
   * case-insensitive part of the device or platform name ("GPU", "CPU",
   * "NVIDIA", "pthread"). When unset, $GST_CL_DEVICE is read, else the
   * first GPU, accelerator, then CPU is used. A context shared by another
   * element or the application is used when it is on that device.
   */
  g_object_class_install_property (gobject_class, PROP_DEVICE,
      gst_cl_param_spec_device (GST_PARAM_MUTABLE_READY));

  element_class->set_context = gst_cl_filter_set_context;
  element_class->change_state = gst_cl_filter_change_state;

  trans_class->query = gst_cl_filter_query;
  trans_class->sink_event = gst_cl_filter_sink_event;
  trans_class->start = gst_cl_filter_start;
  trans_class->stop = gst_cl_filter_stop;
  trans_class->transform_caps = gst_cl_filter_transform_caps;
  trans_class->set_caps = gst_cl_filter_set_caps;
  trans_class->transform_size = gst_cl_filter_transform_size;
  trans_class->propose_allocation = gst_cl_filter_propose_allocation;
  trans_class->decide_allocation = gst_cl_filter_decide_allocation;
  trans_class->transform = gst_cl_filter_transform;
  trans_class->transform_ip = gst_cl_filter_transform_ip;
  trans_class->transform_ip_on_passthrough = FALSE;
  trans_class->prepare_output_buffer = gst_cl_filter_prepare_output_buffer;
  trans_class->passthrough_on_same_caps = FALSE;

  klass->transform_video_caps = gst_cl_filter_default_transform_video_caps;
}

static void
gst_cl_filter_init (GstClFilter * self)
{
  PRIV (self)->frame_duration = GST_CLOCK_TIME_NONE;
}
