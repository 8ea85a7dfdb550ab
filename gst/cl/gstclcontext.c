/* gst-clvideo: the shared OpenCL device context
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
/**
 * SECTION:gstclcontext
 * @title: GstClContext
 * @short_description: the OpenCL device context that cl elements share
 *
 * A #GstClContext wraps an OpenCL device, a context on it and one in-order
 * command queue. The cl elements of a pipeline share one, found or made by
 * gst_cl_ensure_element_data() and passed around as a #GstContext of type
 * #GST_CL_CONTEXT_TYPE. An application can make one with
 * gst_cl_context_new() (or wrap its own OpenCL objects with
 * gst_cl_context_new_wrapped()) and hand it to its pipelines with
 * gst_context_new_cl_context() and gst_element_set_context(), or answer
 * their `need-context` messages with it.
 *
 * All functions of a context may be called from any thread.
 *
 * Since: 0.1
 */
#include <gst/cl/gstclcontext.h>
#include "gstclprogram-private.h"
#include "gstclbinarycache-private.h"

#include <string.h>

GST_DEBUG_CATEGORY_STATIC (gst_cl_context_debug);
#define GST_CAT_DEFAULT gst_cl_context_debug
/* Kernel device times are logged here: GST_DEBUG=clprofile:6 */
GST_DEBUG_CATEGORY_STATIC (gst_cl_profile_debug);

typedef struct {
  guint64 launches;
  guint64 total_ns;
  guint64 min_ns;
} KernelStats;

typedef struct {
  cl_event event;
  const gchar *label;           /* interned */
  const gchar *function;        /* interned; NULL unless logged */
} PendingLaunch;

struct _GstClContextPrivate
{
  GMutex lock;
  GHashTable *programs;         /* "name\nOPTIONS" -> cl_program */
  GHashTable *stats;            /* interned label -> KernelStats */
  GQueue pending;               /* PendingLaunch, oldest first */
  gboolean profiling;
  gboolean owns_context;
  gsize counts[3];               /* GstClTransferKind -> count */
  guint programs_from_cache;    /* built from the binary cache */
  /* a sibling's (gst_cl_context_new_sibling): the context whose
   * programs, statistics and counts it shares */
  GstClContext *root;
};

/* The context that keeps @ctx's programs, statistics and counts */
static inline GstClContext *
owner_of (GstClContext * ctx)
{
  return ctx->priv->root ? ctx->priv->root : ctx;
}

enum
{
  PROP_0,
  PROP_DEVICE_NAME,
  PROP_PLATFORM_NAME,
  PROP_DEVICE_TYPE,
  PROP_COMPUTE_UNITS,
  PROP_LOCAL_MEM_SIZE,
  PROP_GLOBAL_MEM_SIZE,
  PROP_MAX_WORK_GROUP_SIZE,
  PROP_HOST_UNIFIED,
  PROP_CPU_LAYOUT,
};

G_DEFINE_TYPE_WITH_CODE (GstClContext, gst_cl_context, GST_TYPE_OBJECT,
    G_ADD_PRIVATE (GstClContext);
    GST_DEBUG_CATEGORY_INIT (gst_cl_context_debug, "clcontext", 0,
        "OpenCL device context");
    GST_DEBUG_CATEGORY_INIT (gst_cl_profile_debug, "clprofile", 0,
        "OpenCL kernel device times"));

static gint n_contexts_created = 0;

static void
release_program (gpointer program)
{
  clReleaseProgram ((cl_program) program);
}

static void
gst_cl_context_init (GstClContext * self)
{
  self->priv = gst_cl_context_get_instance_private (self);
  g_mutex_init (&self->priv->lock);
  self->priv->programs = g_hash_table_new_full (g_str_hash, g_str_equal,
      g_free, release_program);
  self->priv->stats = g_hash_table_new_full (g_direct_hash, g_direct_equal,
      NULL, g_free);
  g_queue_init (&self->priv->pending);
}

static void harvest_launches (GstClContext * self, gboolean wait);

static void
gst_cl_context_finalize (GObject * object)
{
  GstClContext *self = GST_CL_CONTEXT (object);

  if (self->queue) {
    clFinish (self->queue);
    g_mutex_lock (&self->priv->lock);
    harvest_launches (self, TRUE);
    g_mutex_unlock (&self->priv->lock);
  }
  g_hash_table_destroy (self->priv->programs);
  g_hash_table_destroy (self->priv->stats);
  if (self->queue)
    clReleaseCommandQueue (self->queue);
  if (self->context)
    clReleaseContext (self->context);
  if (self->device)
    clReleaseDevice (self->device);
  g_free (self->device_name);
  g_free (self->platform_name);
  g_mutex_clear (&self->priv->lock);
  if (self->priv->root)
    gst_object_unref (self->priv->root);
  G_OBJECT_CLASS (gst_cl_context_parent_class)->finalize (object);
}

static const gchar *device_type_name (cl_device_type t);

static void
gst_cl_context_get_property (GObject * object, guint prop_id, GValue * value,
    GParamSpec * pspec)
{
  GstClContext *self = GST_CL_CONTEXT (object);

  /* set once when the context is made: no lock needed */
  switch (prop_id) {
    case PROP_DEVICE_NAME:
      g_value_set_string (value, self->device_name);
      break;
    case PROP_PLATFORM_NAME:
      g_value_set_string (value, self->platform_name);
      break;
    case PROP_DEVICE_TYPE:
      g_value_set_string (value, device_type_name (self->device_type));
      break;
    case PROP_COMPUTE_UNITS:
      g_value_set_uint (value, self->compute_units);
      break;
    case PROP_LOCAL_MEM_SIZE:
      g_value_set_uint64 (value, self->local_mem_size);
      break;
    case PROP_GLOBAL_MEM_SIZE:
      g_value_set_uint64 (value, self->global_mem_size);
      break;
    case PROP_MAX_WORK_GROUP_SIZE:
      g_value_set_uint64 (value, self->max_work_group_size);
      break;
    case PROP_HOST_UNIFIED:
      g_value_set_boolean (value, self->host_unified);
      break;
    case PROP_CPU_LAYOUT:
      g_value_set_boolean (value, self->cpu_layout);
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
      break;
  }
}

static void
gst_cl_context_class_init (GstClContextClass * klass)
{
  GObjectClass *gobject_class = G_OBJECT_CLASS (klass);
  const GParamFlags flags = G_PARAM_READABLE | G_PARAM_STATIC_STRINGS;

  gobject_class->finalize = gst_cl_context_finalize;
  gobject_class->get_property = gst_cl_context_get_property;

  /**
   * GstClContext:device-name:
   *
   * The device's name (CL_DEVICE_NAME).
   *
   * Since: 0.1
   */
  g_object_class_install_property (gobject_class, PROP_DEVICE_NAME,
      g_param_spec_string ("device-name", "Device name",
          "The OpenCL device's name", NULL, flags));
  /**
   * GstClContext:platform-name:
   *
   * The name of the device's platform (CL_PLATFORM_NAME).
   *
   * Since: 0.1
   */
  g_object_class_install_property (gobject_class, PROP_PLATFORM_NAME,
      g_param_spec_string ("platform-name", "Platform name",
          "The OpenCL platform's name", NULL, flags));
  /**
   * GstClContext:device-type:
   *
   * "GPU", "accelerator", "CPU" or "other".
   *
   * Since: 0.1
   */
  g_object_class_install_property (gobject_class, PROP_DEVICE_TYPE,
      g_param_spec_string ("device-type", "Device type",
          "GPU, accelerator, CPU or other", NULL, flags));
  /**
   * GstClContext:compute-units:
   *
   * The device's compute units (CL_DEVICE_MAX_COMPUTE_UNITS).
   *
   * Since: 0.1
   */
  g_object_class_install_property (gobject_class, PROP_COMPUTE_UNITS,
      g_param_spec_uint ("compute-units", "Compute units",
          "The device's compute units", 0, G_MAXUINT, 0, flags));
  /**
   * GstClContext:local-mem-size:
   *
   * Bytes of local memory per work-group (CL_DEVICE_LOCAL_MEM_SIZE).
   *
   * Since: 0.1
   */
  g_object_class_install_property (gobject_class, PROP_LOCAL_MEM_SIZE,
      g_param_spec_uint64 ("local-mem-size", "Local memory size",
          "Bytes of local memory per work-group", 0, G_MAXUINT64, 0, flags));
  /**
   * GstClContext:global-mem-size:
   *
   * Bytes of global memory (CL_DEVICE_GLOBAL_MEM_SIZE; 0: unknown).
   *
   * Since: 0.1
   */
  g_object_class_install_property (gobject_class, PROP_GLOBAL_MEM_SIZE,
      g_param_spec_uint64 ("global-mem-size", "Global memory size",
          "Bytes of global memory (0: unknown)", 0, G_MAXUINT64, 0, flags));
  /**
   * GstClContext:max-work-group-size:
   *
   * The largest work-group (CL_DEVICE_MAX_WORK_GROUP_SIZE).
   *
   * Since: 0.1
   */
  g_object_class_install_property (gobject_class, PROP_MAX_WORK_GROUP_SIZE,
      g_param_spec_uint64 ("max-work-group-size", "Max work-group size",
          "Work-items in a work-group at the most", 0, G_MAXUINT64, 0,
          flags));
  /**
   * GstClContext:host-unified:
   *
   * Whether buffers live in host memory (CPU devices): mapping them costs
   * no copy.
   *
   * Since: 0.1
   */
  g_object_class_install_property (gobject_class, PROP_HOST_UNIFIED,
      g_param_spec_boolean ("host-unified", "Host unified",
          "Buffers live in host memory", FALSE, flags));
  /**
   * GstClContext:cpu-layout:
   *
   * Whether kernels are laid out for CPUs rather than GPUs.
   *
   * Since: 0.1
   */
  g_object_class_install_property (gobject_class, PROP_CPU_LAYOUT,
      g_param_spec_boolean ("cpu-layout", "CPU layout",
          "Kernels are laid out for CPUs", FALSE, flags));
}

/* ---- device enumeration ---- */

typedef struct {
  cl_platform_id platform;
  cl_device_id device;
  cl_device_type type;
  gchar *name;
  gchar *platform_name;
} DeviceEntry;

/* clGetDeviceInfo of @param (named @name) into @value of @size bytes; on
 * an error a warning that names the call, the parameter and the code, and
 * FALSE (@value is left as it was: the caller's fallback). */
static gboolean
device_info (cl_device_id d, cl_device_info param, const gchar * name,
    size_t size, void *value)
{
  cl_int ret = clGetDeviceInfo (d, param, size, value, NULL);

  if (ret == CL_SUCCESS)
    return TRUE;
  GST_WARNING ("clGetDeviceInfo (%s): %s", name, gst_cl_error_name (ret));
  return FALSE;
}

#define DEVICE_INFO(d, param, value) \
  device_info (d, param, #param, sizeof (*(value)), value)

/* A string parameter of a platform or device ("" when it cannot be had,
 * with a warning naming the call, the parameter and the code). */
static gchar *
info_string (cl_platform_id p, cl_device_id d, cl_uint what,
    const gchar * name)
{
  const gchar *call = d ? "clGetDeviceInfo" : "clGetPlatformInfo";
  size_t size = 0;
  gchar *s = NULL;
  cl_int ret;

  ret = d ? clGetDeviceInfo (d, what, 0, NULL, &size) :
      clGetPlatformInfo (p, what, 0, NULL, &size);
  if (ret == CL_SUCCESS && size > 0) {
    s = g_malloc0 (size + 1);
    ret = d ? clGetDeviceInfo (d, what, size, s, NULL) :
        clGetPlatformInfo (p, what, size, s, NULL);
  }
  if (ret != CL_SUCCESS) {
    GST_WARNING ("%s (%s): %s", call, name, gst_cl_error_name (ret));
    g_free (s);
    s = NULL;
  }
  return s ? g_strstrip (s) : g_strdup ("");
}

#define get_platform_string(p, what) info_string (p, NULL, what, #what)
#define get_device_string(d, what) info_string (NULL, d, what, #what)

static void
device_entry_clear (DeviceEntry * e)
{
  g_free (e->name);
  g_free (e->platform_name);
}

/* All devices of all platforms, in platform order. */
static GArray *
list_devices (GError ** error)
{
  cl_uint n_platforms = 0, i;
  cl_platform_id *platforms;
  GArray *list;
  cl_int ret;

  ret = clGetPlatformIDs (0, NULL, &n_platforms);
  if (ret == -1001 /* CL_PLATFORM_NOT_FOUND_KHR */  || n_platforms == 0) {
    g_set_error (error, GST_CL_ERROR, GST_CL_ERROR_NO_PLATFORM,
        "No OpenCL platform is installed (install an OpenCL driver, for "
        "example pocl-opencl-icd for the CPU, or check OCL_ICD_VENDORS)");
    return NULL;
  }
  if (!gst_cl_check (ret, "clGetPlatformIDs", error))
    return NULL;

  platforms = g_new0 (cl_platform_id, n_platforms);
  ret = clGetPlatformIDs (n_platforms, platforms, NULL);
  if (!gst_cl_check (ret, "clGetPlatformIDs", error)) {
    g_free (platforms);
    return NULL;
  }

  list = g_array_new (FALSE, TRUE, sizeof (DeviceEntry));
  g_array_set_clear_func (list, (GDestroyNotify) device_entry_clear);
  for (i = 0; i < n_platforms; i++) {
    cl_uint n_devices = 0, j;
    cl_device_id *devices;
    gchar *pname;

    if (clGetDeviceIDs (platforms[i], CL_DEVICE_TYPE_ALL, 0, NULL,
            &n_devices) != CL_SUCCESS || n_devices == 0)
      continue;
    devices = g_new0 (cl_device_id, n_devices);
    if (clGetDeviceIDs (platforms[i], CL_DEVICE_TYPE_ALL, n_devices, devices,
            NULL) != CL_SUCCESS) {
      g_free (devices);
      continue;
    }
    pname = get_platform_string (platforms[i], CL_PLATFORM_NAME);
    for (j = 0; j < n_devices; j++) {
      DeviceEntry e = { platforms[i], devices[j], 0, NULL, NULL };
      cl_bool available = CL_TRUE;
      /* unknown: listed (a context on it says what is wrong), of type
       * "other" */
      DEVICE_INFO (devices[j], CL_DEVICE_AVAILABLE, &available);
      if (!available)
        continue;
      DEVICE_INFO (devices[j], CL_DEVICE_TYPE, &e.type);
      e.name = get_device_string (devices[j], CL_DEVICE_NAME);
      e.platform_name = g_strdup (pname);
      g_array_append_val (list, e);
    }
    g_free (pname);
    g_free (devices);
  }
  g_free (platforms);

  if (list->len == 0) {
    g_array_unref (list);
    g_set_error (error, GST_CL_ERROR, GST_CL_ERROR_NO_PLATFORM,
        "No available OpenCL device was found on any platform");
    return NULL;
  }
  return list;
}

static const gchar *
device_type_name (cl_device_type t)
{
  if (t & CL_DEVICE_TYPE_GPU)
    return "GPU";
  if (t & CL_DEVICE_TYPE_ACCELERATOR)
    return "accelerator";
  if (t & CL_DEVICE_TYPE_CPU)
    return "CPU";
  return "other";
}

static gboolean
entry_matches (const DeviceEntry * e, guint index, const gchar * spec)
{
  gchar *end = NULL;
  guint64 want;
  gchar *lspec, *lname, *lplat;
  gboolean found;

  want = g_ascii_strtoull (spec, &end, 10);
  if (end && end != spec && *end == '\0')
    return want == index;

  lspec = g_ascii_strdown (spec, -1);
  lname = g_ascii_strdown (e->name, -1);
  lplat = g_ascii_strdown (e->platform_name, -1);
  found = strstr (lname, lspec) != NULL || strstr (lplat, lspec) != NULL
      || g_ascii_strcasecmp (spec, device_type_name (e->type)) == 0;
  g_free (lspec);
  g_free (lname);
  g_free (lplat);
  return found;
}

static const gchar *
effective_spec (const gchar * device_spec)
{
  if (device_spec && *device_spec)
    return device_spec;
  device_spec = g_getenv (GST_CL_DEVICE_ENV);
  if (device_spec && *device_spec)
    return device_spec;
  return NULL;
}

/**
 * gst_cl_describe_devices:
 *
 * Lists the usable OpenCL devices, one line each: "index: device
 * (platform, type)", the index being what a device spec may name.
 *
 * Returns: (transfer full): the list, empty when there is no device
 *
 * Since: 0.1
 */
gchar *
gst_cl_describe_devices (void)
{
  GArray *list = list_devices (NULL);
  GString *s = g_string_new (NULL);
  guint i;

  if (!list)
    return g_string_free (s, FALSE);
  for (i = 0; i < list->len; i++) {
    DeviceEntry *e = &g_array_index (list, DeviceEntry, i);
    g_string_append_printf (s, "%u: %s (%s, %s)\n", i, e->name,
        e->platform_name, device_type_name (e->type));
  }
  g_array_unref (list);
  return g_string_free (s, FALSE);
}

/* The device's properties. Where one cannot be had: the type "other"
 * (copies, not borrowed host memory, and the GPU layout, right on any
 * device), one compute unit, the 32 KiB of local memory and the work-group
 * size of 1 that OpenCL 1.2 promises at least, global memory unknown (0),
 * no platform name; each with a warning. */
static void
query_device_properties (GstClContext * self)
{
  cl_uint cu = 1;
  cl_ulong lmem = 32 * 1024, gmem = 0;
  size_t wg = 1;
  cl_platform_id platform = NULL;
  const gchar *layout;

  self->device_type = 0;
  DEVICE_INFO (self->device, CL_DEVICE_TYPE, &self->device_type);
  DEVICE_INFO (self->device, CL_DEVICE_MAX_COMPUTE_UNITS, &cu);
  DEVICE_INFO (self->device, CL_DEVICE_LOCAL_MEM_SIZE, &lmem);
  DEVICE_INFO (self->device, CL_DEVICE_GLOBAL_MEM_SIZE, &gmem);
  DEVICE_INFO (self->device, CL_DEVICE_MAX_WORK_GROUP_SIZE, &wg);
  if (!self->platform) {
    DEVICE_INFO (self->device, CL_DEVICE_PLATFORM, &platform);
    self->platform = platform;
  }
  self->compute_units = cu;
  self->local_mem_size = lmem;
  self->global_mem_size = gmem;
  self->max_work_group_size = wg;
  self->device_name = get_device_string (self->device, CL_DEVICE_NAME);
  self->platform_name = get_platform_string (self->platform, CL_PLATFORM_NAME);
  self->host_unified = (self->device_type & CL_DEVICE_TYPE_CPU) != 0;
  self->cpu_layout = self->host_unified;
  layout = g_getenv (GST_CL_LAYOUT_ENV);
  if (layout && g_ascii_strcasecmp (layout, "cpu") == 0)
    self->cpu_layout = TRUE;
  else if (layout && g_ascii_strcasecmp (layout, "gpu") == 0)
    self->cpu_layout = FALSE;
}

/* Whether a new context's queue times its launches: asked for through
 * GST_CL_PROFILING_ENV, or by logging them (GST_DEBUG=clprofile:6). On
 * an H200 timing cost a fifth to a quarter of the 1080p encoding rate. */
static gboolean
profiling_wanted (void)
{
  const gchar *env = g_getenv (GST_CL_PROFILING_ENV);

  if (env && *env && g_strcmp0 (env, "0") != 0)
    return TRUE;
  return gst_debug_category_get_threshold (gst_cl_profile_debug) >=
      GST_LEVEL_LOG;
}

static cl_command_queue
create_queue (GstClContext * self, GError ** error)
{
  cl_queue_properties props[] = { CL_QUEUE_PROPERTIES,
    CL_QUEUE_PROFILING_ENABLE, 0
  };
  cl_int ret;
  cl_command_queue q;

  if (profiling_wanted ()) {
    q = clCreateCommandQueueWithProperties (self->context, self->device,
        props, &ret);
    if (ret == CL_SUCCESS) {
      self->priv->profiling = TRUE;
      return q;
    }
  }
  q = clCreateCommandQueueWithProperties (self->context, self->device, NULL,
      &ret);
  if (!gst_cl_check (ret, "clCreateCommandQueueWithProperties", error))
    return NULL;
  return q;
}

/**
 * gst_cl_context_new:
 * @device_spec: (nullable): the device: an index into the list of
 *   gst_cl_describe_devices(), a case-insensitive substring of the device
 *   or platform name, or a device type ("GPU", "CPU", "accelerator");
 *   %NULL or "" for #GST_CL_DEVICE_ENV, else the first GPU, accelerator or
 *   CPU
 * @error: return location for a #GError
 *
 * Makes a context on the device @device_spec picks, with an in-order
 * command queue (timing its launches where #GST_CL_PROFILING_ENV asks).
 * Counted by gst_cl_context_get_n_created().
 *
 * Returns: (transfer full) (nullable): the new context, or %NULL with
 *   @error set (#GST_CL_ERROR_NO_PLATFORM: no platform, or no device
 *   matches; #GST_CL_ERROR_CALL: an OpenCL call failed)
 *
 * Since: 0.1
 */
GstClContext *
gst_cl_context_new (const gchar * device_spec, GError ** error)
{
  static const cl_device_type preference[] = {
    CL_DEVICE_TYPE_GPU, CL_DEVICE_TYPE_ACCELERATOR, CL_DEVICE_TYPE_CPU,
    CL_DEVICE_TYPE_ALL
  };
  GArray *list;
  const gchar *spec = effective_spec (device_spec);
  DeviceEntry *chosen = NULL;
  GstClContext *self;
  cl_context_properties props[3];
  cl_int ret;
  guint i, p;

  /* make sure the debug categories exist before logging */
  g_type_ensure (GST_TYPE_CL_CONTEXT);

  list = list_devices (error);
  if (!list)
    return NULL;

  if (spec) {
    for (i = 0; i < list->len && !chosen; i++)
      if (entry_matches (&g_array_index (list, DeviceEntry, i), i, spec))
        chosen = &g_array_index (list, DeviceEntry, i);
    if (!chosen) {
      gchar *devices = gst_cl_describe_devices ();
      g_set_error (error, GST_CL_ERROR, GST_CL_ERROR_NO_PLATFORM,
          "No OpenCL device matches '%s'; available devices:\n%s", spec,
          devices);
      g_free (devices);
      g_array_unref (list);
      return NULL;
    }
  } else {
    for (p = 0; p < G_N_ELEMENTS (preference) && !chosen; p++)
      for (i = 0; i < list->len && !chosen; i++)
        if (g_array_index (list, DeviceEntry, i).type & preference[p])
          chosen = &g_array_index (list, DeviceEntry, i);
    /* none of a known type (its type could not be had): the first */
    if (!chosen)
      chosen = &g_array_index (list, DeviceEntry, 0);
  }

  self = g_object_new (GST_TYPE_CL_CONTEXT, NULL);
  gst_object_ref_sink (self);
  self->platform = chosen->platform;
  self->device = chosen->device;
  g_array_unref (list);

  props[0] = CL_CONTEXT_PLATFORM;
  props[1] = (cl_context_properties) self->platform;
  props[2] = 0;
  self->context = clCreateContext (props, 1, &self->device, NULL, NULL, &ret);
  if (!gst_cl_check (ret, "clCreateContext", error)) {
    self->device = NULL;
    gst_object_unref (self);
    return NULL;
  }
  clRetainDevice (self->device);
  self->priv->owns_context = TRUE;
  g_atomic_int_inc (&n_contexts_created);
  query_device_properties (self);

  self->queue = create_queue (self, error);
  if (!self->queue) {
    gst_object_unref (self);
    return NULL;
  }
  GST_INFO_OBJECT (self, "created context on %s (%s, %s, %u compute units, "
      "%" G_GUINT64_FORMAT " KiB local memory)", self->device_name,
      self->platform_name, device_type_name (self->device_type),
      self->compute_units, self->local_mem_size / 1024);
  return self;
}

/**
 * gst_cl_context_new_wrapped: (skip)
 * @context: the application's OpenCL context (retained)
 * @device: a device of @context (retained)
 * @queue: (nullable): an in-order command queue on @device (retained),
 *   whose launches are timed where it has profiling, or %NULL for a new
 *   one (as gst_cl_context_new() makes)
 * @error: return location for a #GError
 *
 * Wraps an application's own OpenCL objects, so that the cl elements work
 * on them. Not counted by gst_cl_context_get_n_created().
 *
 * Returns: (transfer full) (nullable): the new context, or %NULL with
 *   @error set (an out-of-order @queue is refused)
 *
 * Since: 0.1
 */
GstClContext *
gst_cl_context_new_wrapped (cl_context context, cl_device_id device,
    cl_command_queue queue, GError ** error)
{
  GstClContext *self;

  g_return_val_if_fail (context != NULL && device != NULL, NULL);
  self = g_object_new (GST_TYPE_CL_CONTEXT, NULL);
  gst_object_ref_sink (self);
  if (!gst_cl_check (clRetainContext (context), "clRetainContext", error) ||
      !gst_cl_check (clRetainDevice (device), "clRetainDevice", error)) {
    gst_object_unref (self);
    return NULL;
  }
  self->context = context;
  self->device = device;
  query_device_properties (self);
  if (queue) {
    cl_command_queue_properties qp = 0;
    if (!gst_cl_check (clRetainCommandQueue (queue), "clRetainCommandQueue",
            error)) {
      gst_object_unref (self);
      return NULL;
    }
    self->queue = queue;
    clGetCommandQueueInfo (queue, CL_QUEUE_PROPERTIES, sizeof (qp), &qp, NULL);
    if (qp & CL_QUEUE_OUT_OF_ORDER_EXEC_MODE_ENABLE) {
      g_set_error (error, GST_CL_ERROR, GST_CL_ERROR_CALL,
          "The application's command queue must be in-order");
      gst_object_unref (self);
      return NULL;
    }
    self->priv->profiling = (qp & CL_QUEUE_PROFILING_ENABLE) != 0;
  } else {
    self->queue = create_queue (self, error);
    if (!self->queue) {
      gst_object_unref (self);
      return NULL;
    }
  }
  return self;
}

/**
 * gst_cl_context_get_n_created:
 *
 * The number of OpenCL contexts that gst_cl_context_new() made in this
 * process (wrapped ones not counted), for tests: the elements of a
 * pipeline make one between them.
 *
 * Returns: the count
 *
 * Since: 0.1
 */
guint
gst_cl_context_get_n_created (void)
{
  return g_atomic_int_get (&n_contexts_created);
}

/**
 * gst_cl_context_new_sibling:
 * @ctx: a #GstClContext
 * @error: return location for a #GError
 *
 * A context on @ctx's OpenCL context and device with an in-order command
 * queue of its own (timed as #GST_CL_PROFILING_ENV says), so that an
 * element's work runs beside the other elements' instead of behind it:
 * on NVIDIA's driver the launches of one queue do not overlap with each
 * other's, those of two queues do. It shares @ctx's programs, kernel
 * statistics and transfer counts, and memory made on either serves both;
 * the order between the two queues is the caller's
 * (gst_cl_context_wait_for()). Not counted by
 * gst_cl_context_get_n_created().
 *
 * Returns: (transfer full) (nullable): the sibling, or %NULL with @error
 *   set
 *
 * Since: 0.1
 */
GstClContext *
gst_cl_context_new_sibling (GstClContext * ctx, GError ** error)
{
  GstClContext *self;

  g_return_val_if_fail (GST_IS_CL_CONTEXT (ctx), NULL);
  self = gst_cl_context_new_wrapped (ctx->context, ctx->device, NULL, error);
  if (!self)
    return NULL;
  self->priv->root = gst_object_ref (owner_of (ctx));
  /* the kernels' layout is the one @ctx chose */
  self->cpu_layout = ctx->cpu_layout;
  return self;
}

/**
 * gst_cl_context_wait_for:
 * @ctx: a #GstClContext
 * @other: a context on the same OpenCL context (a sibling, or the one
 *   it was made from)
 * @error: return location for a #GError
 *
 * Makes the work enqueued on @ctx from now on wait until all that is
 * enqueued on @other so far has completed (a marker on @other's queue,
 * flushed, and a barrier on @ctx's). Nothing where both share a queue.
 *
 * Returns: %TRUE on success, else %FALSE with @error set
 *
 * Since: 0.1
 */
gboolean
gst_cl_context_wait_for (GstClContext * ctx, GstClContext * other,
    GError ** error)
{
  cl_event marker;
  cl_int ret;

  g_return_val_if_fail (GST_IS_CL_CONTEXT (ctx), FALSE);
  g_return_val_if_fail (GST_IS_CL_CONTEXT (other), FALSE);
  if (ctx->queue == other->queue)
    return TRUE;
  ret = clEnqueueMarkerWithWaitList (other->queue, 0, NULL, &marker);
  if (!gst_cl_check (ret, "clEnqueueMarkerWithWaitList", error))
    return FALSE;
  /* a queue that is never flushed would leave the barrier waiting */
  ret = clFlush (other->queue);
  if (gst_cl_check (ret, "clFlush", error)) {
    ret = clEnqueueBarrierWithWaitList (ctx->queue, 1, &marker, NULL);
    gst_cl_check (ret, "clEnqueueBarrierWithWaitList", error);
  }
  clReleaseEvent (marker);
  return ret == CL_SUCCESS;
}

/**
 * gst_cl_context_get_device_name:
 * @ctx: a #GstClContext
 *
 * Returns: (transfer none): the device's name, as long as @ctx lives
 *
 * Since: 0.1
 */
const gchar *
gst_cl_context_get_device_name (GstClContext * ctx)
{
  g_return_val_if_fail (GST_IS_CL_CONTEXT (ctx), NULL);
  return ctx->device_name;
}

/**
 * gst_cl_context_get_platform_name:
 * @ctx: a #GstClContext
 *
 * Returns: (transfer none): the name of the device's platform, as long as
 *   @ctx lives
 *
 * Since: 0.1
 */
const gchar *
gst_cl_context_get_platform_name (GstClContext * ctx)
{
  g_return_val_if_fail (GST_IS_CL_CONTEXT (ctx), NULL);
  return ctx->platform_name;
}

/**
 * gst_cl_context_is_gpu:
 * @ctx: a #GstClContext
 *
 * Returns: whether the context's device is a GPU
 *
 * Since: 0.1
 */
gboolean
gst_cl_context_is_gpu (GstClContext * ctx)
{
  g_return_val_if_fail (GST_IS_CL_CONTEXT (ctx), FALSE);
  return (ctx->device_type & CL_DEVICE_TYPE_GPU) != 0;
}

/**
 * gst_cl_context_matches:
 * @ctx: a #GstClContext
 * @device_spec: (nullable): a device spec, as for gst_cl_context_new()
 *
 * Whether @ctx suits an element whose device choice is @device_spec: the
 * first device that the spec (else #GST_CL_DEVICE_ENV) picks must be the
 * context's device. Without a choice any context suits.
 *
 * Returns: %TRUE when @ctx suits @device_spec
 *
 * Since: 0.1
 */
gboolean
gst_cl_context_matches (GstClContext * ctx, const gchar * device_spec)
{
  const gchar *spec = effective_spec (device_spec);
  GArray *list;
  gboolean match = FALSE;
  guint i;

  g_return_val_if_fail (GST_IS_CL_CONTEXT (ctx), FALSE);

  if (!spec)
    return TRUE;
  list = list_devices (NULL);
  if (!list)
    return FALSE;
  for (i = 0; i < list->len; i++) {
    DeviceEntry *e = &g_array_index (list, DeviceEntry, i);
    if (entry_matches (e, i, spec)) {
      /* the first device that the spec picks must be this context's */
      match = e->device == ctx->device;
      break;
    }
  }
  g_array_unref (list);
  return match;
}

/* ---- programs ---- */

static gchar *
get_build_log (GstClContext * self, cl_program program)
{
  size_t size = 0;
  gchar *log;
  clGetProgramBuildInfo (program, self->device, CL_PROGRAM_BUILD_LOG, 0, NULL,
      &size);
  log = g_malloc0 (size + 1);
  if (size)
    clGetProgramBuildInfo (program, self->device, CL_PROGRAM_BUILD_LOG, size,
        log, NULL);
  return g_strstrip (log);
}

static cl_program
get_program (GstClContext * self, const gchar * name, const gchar * options,
    GError ** error)
{
  gchar *key = g_strconcat (name, "\n", options ? options : "", NULL);
  cl_program program = g_hash_table_lookup (self->priv->programs, key);
  gchar *source, *full_options, *cache_path;
  const gchar *src_ptr, *extra_options;
  cl_int ret;

  if (program) {
    g_free (key);
    return program;
  }

  source = gst_cl_kernel_source_lookup (name, error);
  if (!source) {
    g_free (key);
    return NULL;
  }
  extra_options = g_getenv (GST_CL_BUILD_OPTIONS_ENV);
  full_options = g_strdup_printf ("-cl-std=CL1.2 -DGST_CL_CPU_LAYOUT=%d %s %s",
      self->cpu_layout ? 1 : 0, options ? options : "",
      extra_options ? extra_options : "");
  cache_path = gst_cl_binary_cache_path (self->device, source, full_options);
  program = cache_path ? gst_cl_binary_cache_load (self->context,
      self->device, cache_path, full_options) : NULL;
  if (program) {
    self->priv->programs_from_cache++;
    goto done;
  }

  src_ptr = source;
  program = clCreateProgramWithSource (self->context, 1, &src_ptr, NULL, &ret);
  if (!gst_cl_check (ret, "clCreateProgramWithSource", error)) {
    program = NULL;
    goto done;
  }
  ret = clBuildProgram (program, 1, &self->device, full_options, NULL, NULL);
  if (ret != CL_SUCCESS) {
    gchar *log = get_build_log (self, program);
    g_set_error (error, GST_CL_ERROR, GST_CL_ERROR_BUILD,
        "clBuildProgram of kernels/%s.cl failed: %s (%d)\noptions: %s\n"
        "build log:\n%s", name, gst_cl_error_name (ret), ret, full_options,
        log);
    g_free (log);
    clReleaseProgram (program);
    program = NULL;
    goto done;
  }
  {
    /* a compiler's warnings, for who debugs a kernel */
    gchar *log = get_build_log (self, program);
    if (*log)
      GST_INFO_OBJECT (self, "kernels/%s.cl build log:\n%s", name, log);
    g_free (log);
  }
  if (cache_path)
    gst_cl_binary_cache_store (program, cache_path);

done:
  g_free (source);
  g_free (cache_path);
  if (!program) {
    g_free (full_options);
    g_free (key);
    return NULL;
  }
  GST_DEBUG_OBJECT (self, "built kernels/%s.cl with %s", name, full_options);
  g_free (full_options);
  g_hash_table_insert (self->priv->programs, key, program);
  return program;
}

/**
 * gst_cl_context_create_kernel: (skip)
 * @ctx: a #GstClContext
 * @program_name: a kernel source registered with the library (the
 *   plugin's kernels/NAME.cl)
 * @options: (nullable): build options
 * @kernel_name: the kernel function
 * @error: return location for a #GError
 *
 * A new kernel of program @program_name built with @options. The program
 * is built once per context, source and options (or loaded from the
 * binary cache), then kept. MT safe.
 *
 * Returns: (transfer full) (nullable): the kernel, to release with
 *   clReleaseKernel(), or %NULL with @error set
 *
 * Since: 0.1
 */
cl_kernel
gst_cl_context_create_kernel (GstClContext * ctx, const gchar * program_name,
    const gchar * options, const gchar * kernel_name, GError ** error)
{
  GstClContext *owner = owner_of (ctx);
  cl_program program;
  cl_kernel kernel = NULL;
  cl_int ret;

  g_mutex_lock (&owner->priv->lock);
  program = get_program (owner, program_name, options, error);
  if (program) {
    kernel = clCreateKernel (program, kernel_name, &ret);
    if (!gst_cl_check (ret, "clCreateKernel", error))
      kernel = NULL;
  }
  g_mutex_unlock (&owner->priv->lock);
  return kernel;
}

/* ---- launches and profiling ---- */

/* Counts a launch under @label (interned) in the statistics of @self's
 * owner, with its device time @ns where @timed. Called with @self's lock
 * held; a sibling's takes its owner's then (always in that order). */
static void
record_launch (GstClContext * self, const gchar * label, gboolean timed,
    guint64 ns)
{
  GstClContext *owner = owner_of (self);
  KernelStats *st;

  if (owner != self)
    g_mutex_lock (&owner->priv->lock);
  st = g_hash_table_lookup (owner->priv->stats, label);
  if (!st) {
    st = g_new0 (KernelStats, 1);
    st->min_ns = G_MAXUINT64;
    g_hash_table_insert (owner->priv->stats, (gpointer) label, st);
  }
  st->launches++;
  if (timed) {
    st->total_ns += ns;
    st->min_ns = MIN (st->min_ns, ns);
  }
  if (owner != self)
    g_mutex_unlock (&owner->priv->lock);
}

/* Moves finished launches into the statistics; with @wait, all of them.
 * Called with the lock held. */
static void
harvest_launches (GstClContext * self, gboolean wait)
{
  PendingLaunch *pl;

  while ((pl = g_queue_peek_head (&self->priv->pending))) {
    cl_int status = CL_QUEUED;
    cl_ulong start = 0, end = 0;

    if (wait)
      clWaitForEvents (1, &pl->event);
    clGetEventInfo (pl->event, CL_EVENT_COMMAND_EXECUTION_STATUS,
        sizeof (status), &status, NULL);
    if (status > CL_COMPLETE)
      break;                    /* still queued or running */
    g_queue_pop_head (&self->priv->pending);
    if (status == CL_COMPLETE &&
        clGetEventProfilingInfo (pl->event, CL_PROFILING_COMMAND_START,
            sizeof (start), &start, NULL) == CL_SUCCESS &&
        clGetEventProfilingInfo (pl->event, CL_PROFILING_COMMAND_END,
            sizeof (end), &end, NULL) == CL_SUCCESS && end >= start) {
      record_launch (self, pl->label, TRUE, end - start);
      GST_CAT_LOG_OBJECT (gst_cl_profile_debug, self, "%s %s: %.3f ms",
          pl->label, GST_STR_NULL (pl->function), (end - start) / 1e6);
    }
    clReleaseEvent (pl->event);
    g_free (pl);
  }
}

/**
 * gst_cl_context_enqueue_kernel: (skip)
 * @ctx: a #GstClContext
 * @kernel: a kernel of @ctx, its arguments set
 * @label: what its device time is accounted under (see
 *   gst_cl_context_get_kernel_stats())
 * @work_dim: 1 to 3
 * @global_size: @work_dim global sizes
 * @local_size: (nullable): @work_dim work-group sizes, or %NULL
 * @error: return location for a #GError
 *
 * Enqueues @kernel on the context's queue without waiting. MT safe (the
 * kernel's arguments are the caller's to keep from other threads).
 *
 * Returns: %TRUE when enqueued, else %FALSE with @error set
 *
 * Since: 0.1
 */
gboolean
gst_cl_context_enqueue_kernel (GstClContext * ctx, cl_kernel kernel,
    const gchar * label, guint work_dim, const size_t * global_size,
    const size_t * local_size, GError ** error)
{
  cl_event event = NULL;
  cl_int ret;

  ret = clEnqueueNDRangeKernel (ctx->queue, kernel, work_dim, NULL,
      global_size, local_size, 0, NULL, ctx->priv->profiling ? &event : NULL);
  if (!gst_cl_check (ret, "clEnqueueNDRangeKernel", error))
    return FALSE;
  if (event) {
    PendingLaunch *pl = g_new (PendingLaunch, 1);
    pl->event = event;
    pl->label = g_intern_string (label);
    pl->function = NULL;
    if (gst_debug_category_get_threshold (gst_cl_profile_debug) >=
        GST_LEVEL_LOG) {
      /* the stage's label says where the time is counted; the log also
       * names the kernel, to profile the stage's parts */
      gchar name[128];
      if (clGetKernelInfo (kernel, CL_KERNEL_FUNCTION_NAME, sizeof name,
              name, NULL) == CL_SUCCESS)
        pl->function = g_intern_string (name);
    }
    g_mutex_lock (&ctx->priv->lock);
    g_queue_push_tail (&ctx->priv->pending, pl);
    /* keep the list short without ever stalling the pipeline on it */
    harvest_launches (ctx, FALSE);
    g_mutex_unlock (&ctx->priv->lock);
  } else {
    /* untimed: counted as enqueued (the statistics wait for the queue) */
    g_mutex_lock (&ctx->priv->lock);
    record_launch (ctx, g_intern_string (label), FALSE, 0);
    g_mutex_unlock (&ctx->priv->lock);
  }
  return TRUE;
}

/**
 * gst_cl_context_finish:
 * @ctx: a #GstClContext
 * @error: return location for a #GError
 *
 * Waits until all work enqueued on the context's queue has completed.
 *
 * Returns: %TRUE on success, else %FALSE with @error set
 *
 * Since: 0.1
 */
gboolean
gst_cl_context_finish (GstClContext * ctx, GError ** error)
{
  return gst_cl_check (clFinish (ctx->queue), "clFinish", error);
}

/**
 * gst_cl_context_has_extension:
 * @ctx: a #GstClContext
 * @name: the name of an OpenCL extension, such as
 *   "cl_khr_int64_extended_atomics"
 *
 * Whether the device of @ctx has the extension @name (%FALSE, with a
 * warning, where its extensions cannot be had). MT safe.
 *
 * Returns: whether the device has @name
 *
 * Since: 0.1
 */
gboolean
gst_cl_context_has_extension (GstClContext * ctx, const gchar * name)
{
  gchar *all, **names;
  gboolean found;

  g_return_val_if_fail (GST_IS_CL_CONTEXT (ctx), FALSE);
  g_return_val_if_fail (name != NULL, FALSE);
  /* (the list may hold empty names between two spaces) */
  if (!*name)
    return FALSE;
  all = get_device_string (ctx->device, CL_DEVICE_EXTENSIONS);
  /* (a space-separated list: a name is found whole, not as a prefix) */
  names = g_strsplit (all, " ", -1);
  found = g_strv_contains ((const gchar * const *) names, name);
  g_strfreev (names);
  g_free (all);
  return found;
}

/**
 * gst_cl_context_get_kernel_stats:
 * @ctx: a #GstClContext
 * @label: a label given to gst_cl_context_enqueue_kernel()
 * @launches: (out) (optional): completed launches under @label
 * @total_ns: (out) (optional): their device time, in nanoseconds (0 on a
 *   queue that does not time launches, see #GST_CL_PROFILING_ENV)
 * @min_ns: (out) (optional): the shortest one's device time (0 likewise)
 *
 * Statistics of the launches under @label: how many, and their device
 * time where the queue times them (waits for the queue first). MT safe.
 *
 * Returns: whether any launch under @label completed
 *
 * Since: 0.1
 */
gboolean
gst_cl_context_get_kernel_stats (GstClContext * ctx, const gchar * label,
    guint64 * launches, guint64 * total_ns, guint64 * min_ns)
{
  GstClContext *owner = owner_of (ctx);
  KernelStats *st;
  gboolean found;

  clFinish (ctx->queue);
  g_mutex_lock (&ctx->priv->lock);
  harvest_launches (ctx, TRUE);
  g_mutex_unlock (&ctx->priv->lock);
  g_mutex_lock (&owner->priv->lock);
  st = g_hash_table_lookup (owner->priv->stats, g_intern_string (label));
  found = st != NULL;
  if (launches)
    *launches = st ? st->launches : 0;
  if (total_ns)
    *total_ns = st ? st->total_ns : 0;
  if (min_ns)
    *min_ns = st && st->min_ns != G_MAXUINT64 ? st->min_ns : 0;
  g_mutex_unlock (&owner->priv->lock);
  return found;
}

/**
 * gst_cl_context_reset_stats:
 * @ctx: a #GstClContext
 *
 * Clears the kernel statistics and the transfer counts (waits for the
 * queue first). MT safe.
 *
 * Since: 0.1
 */
void
gst_cl_context_reset_stats (GstClContext * ctx)
{
  GstClContext *owner = owner_of (ctx);

  clFinish (ctx->queue);
  g_mutex_lock (&ctx->priv->lock);
  harvest_launches (ctx, TRUE);
  g_mutex_unlock (&ctx->priv->lock);
  g_mutex_lock (&owner->priv->lock);
  g_hash_table_remove_all (owner->priv->stats);
  memset (owner->priv->counts, 0, sizeof (owner->priv->counts));
  g_mutex_unlock (&owner->priv->lock);
}

/**
 * gst_cl_context_count:
 * @ctx: a #GstClContext
 * @kind: what was transferred
 *
 * Counts one transfer (see gst_cl_context_get_transfer_counts()). MT safe.
 *
 * Since: 0.1
 */
void
gst_cl_context_count (GstClContext * ctx, GstClTransferKind kind)
{
  g_atomic_pointer_add (&owner_of (ctx)->priv->counts[kind], 1);
}

/**
 * gst_cl_context_get_transfer_counts:
 * @ctx: a #GstClContext
 * @counts: (out caller-allocates): the counts
 *
 * The host <-> device transfers counted so far. MT safe.
 *
 * Since: 0.1
 */
void
gst_cl_context_get_transfer_counts (GstClContext * ctx,
    GstClTransferCounts * counts)
{
  GstClContext *owner = owner_of (ctx);

  counts->host_maps = g_atomic_pointer_get (&
      owner->priv->counts[GST_CL_TRANSFER_HOST_MAP]);
  counts->uploads = g_atomic_pointer_get (&
      owner->priv->counts[GST_CL_TRANSFER_UPLOAD]);
  counts->downloads = g_atomic_pointer_get (&
      owner->priv->counts[GST_CL_TRANSFER_DOWNLOAD]);
}

/**
 * gst_cl_context_get_programs_from_cache:
 * @ctx: a #GstClContext
 *
 * How many of the programs this context built came from the on-disk
 * binary cache rather than from source. MT safe.
 *
 * Returns: the count
 *
 * Since: 0.1
 */
guint
gst_cl_context_get_programs_from_cache (GstClContext * ctx)
{
  GstClContext *owner = owner_of (ctx);
  guint n;

  g_mutex_lock (&owner->priv->lock);
  n = owner->priv->programs_from_cache;
  g_mutex_unlock (&owner->priv->lock);
  return n;
}

/* ---- GstContext sharing ---- */

/**
 * gst_context_new_cl_context:
 * @ctx: a #GstClContext
 *
 * A persistent #GstContext of type #GST_CL_CONTEXT_TYPE holding @ctx, to
 * give to gst_element_set_context() (on a pipeline, or on the element of a
 * `need-context` message).
 *
 * Returns: (transfer full): the new #GstContext
 *
 * Since: 0.1
 */
GstContext *
gst_context_new_cl_context (GstClContext * ctx)
{
  GstContext *context;

  g_return_val_if_fail (GST_IS_CL_CONTEXT (ctx), NULL);
  context = gst_context_new (GST_CL_CONTEXT_TYPE, TRUE);
  gst_structure_set (gst_context_writable_structure (context), "context",
      GST_TYPE_CL_CONTEXT, ctx, NULL);
  return context;
}

/**
 * gst_context_get_cl_context:
 * @context: a #GstContext
 * @ctx: (out) (transfer full) (optional): the #GstClContext it holds
 *
 * Returns: %TRUE when @context is of type #GST_CL_CONTEXT_TYPE and holds a
 *   #GstClContext
 *
 * Since: 0.1
 */
gboolean
gst_context_get_cl_context (GstContext * context, GstClContext ** ctx)
{
  const GstStructure *s;
  GstClContext *found = NULL;

  g_return_val_if_fail (GST_IS_CONTEXT (context), FALSE);
  if (g_strcmp0 (gst_context_get_context_type (context),
          GST_CL_CONTEXT_TYPE) != 0)
    return FALSE;
  s = gst_context_get_structure (context);
  if (!gst_structure_get (s, "context", GST_TYPE_CL_CONTEXT, &found, NULL) ||
      !found)
    return FALSE;
  if (ctx)
    *ctx = found;
  else
    gst_object_unref (found);
  return TRUE;
}

/* Stores @ctx (taken) in *@ctx_ptr unless another thread (a set_context)
 * got there first; the element's object lock guards *@ctx_ptr. */
static void
install_context (GstElement * element, GstClContext ** ctx_ptr,
    GstClContext * ctx)
{
  GST_OBJECT_LOCK (element);
  if (*ctx_ptr == NULL) {
    *ctx_ptr = ctx;
    ctx = NULL;
  }
  GST_OBJECT_UNLOCK (element);
  if (ctx)
    gst_object_unref (ctx);
}

static gboolean
has_context (GstElement * element, GstClContext ** ctx_ptr)
{
  gboolean has;

  GST_OBJECT_LOCK (element);
  has = *ctx_ptr != NULL;
  GST_OBJECT_UNLOCK (element);
  return has;
}

/* Takes a context from @context when it suits @device_spec. */
static gboolean
adopt_context (GstElement * element, GstContext * context,
    const gchar * device_spec, GstClContext ** ctx_ptr)
{
  GstClContext *found = NULL;

  if (!gst_context_get_cl_context (context, &found))
    return FALSE;
  if (!gst_cl_context_matches (found, device_spec)) {
    GST_DEBUG_OBJECT (element, "shared context on %s does not match device "
        "'%s'", found->device_name, effective_spec (device_spec));
    gst_object_unref (found);
    return FALSE;
  }
  install_context (element, ctx_ptr, found);
  return TRUE;
}

/**
 * gst_cl_handle_set_context:
 * @element: a cl element
 * @context: (nullable): the #GstContext given to its set_context
 * @device_spec: (nullable): the element's device choice
 * @ctx_ptr: (inout) (transfer full) (nullable): the element's context
 *
 * For an element's #GstElementClass.set_context(): takes the #GstClContext
 * of @context into *@ctx_ptr when the element has none yet and it suits
 * @device_spec (see gst_cl_context_matches()). *@ctx_ptr is written under
 * the element's object lock. The element must chain up to its parent
 * class's set_context() too.
 *
 * Returns: whether a context was taken
 *
 * Since: 0.1
 */
gboolean
gst_cl_handle_set_context (GstElement * element, GstContext * context,
    const gchar * device_spec, GstClContext ** ctx_ptr)
{
  g_return_val_if_fail (GST_IS_ELEMENT (element), FALSE);
  g_return_val_if_fail (ctx_ptr != NULL, FALSE);
  if (!context || has_context (element, ctx_ptr))
    return FALSE;
  return adopt_context (element, context, device_spec, ctx_ptr);
}

/**
 * gst_cl_handle_context_query:
 * @element: a cl element
 * @query: a #GstQuery of type %GST_QUERY_CONTEXT
 * @ctx: (nullable): the element's context, if it has one
 *
 * For an element's query handlers: answers a context query of type
 * #GST_CL_CONTEXT_TYPE with @ctx.
 *
 * Returns: whether the query was answered
 *
 * Since: 0.1
 */
gboolean
gst_cl_handle_context_query (GstElement * element, GstQuery * query,
    GstClContext * ctx)
{
  const gchar *type = NULL;
  GstContext *context, *old = NULL;

  g_return_val_if_fail (GST_IS_ELEMENT (element), FALSE);
  g_return_val_if_fail (GST_IS_QUERY (query), FALSE);
  if (!ctx || !gst_query_parse_context_type (query, &type) ||
      g_strcmp0 (type, GST_CL_CONTEXT_TYPE) != 0)
    return FALSE;
  gst_query_parse_context (query, &old);
  if (old)
    context = gst_context_copy (old);
  else
    context = gst_context_new (GST_CL_CONTEXT_TYPE, TRUE);
  gst_structure_set (gst_context_writable_structure (context), "context",
      GST_TYPE_CL_CONTEXT, ctx, NULL);
  gst_query_set_context (query, context);
  gst_context_unref (context);
  GST_LOG_OBJECT (element, "answered context query with %" GST_PTR_FORMAT,
      ctx);
  return TRUE;
}

static gboolean
pad_query_context (const GValue * item, GValue * value, gpointer user_data)
{
  GstPad *pad = g_value_get_object (item);
  GstQuery *query = user_data;
  if (gst_pad_peer_query (pad, query)) {
    g_value_set_boolean (value, TRUE);
    return FALSE;               /* stop */
  }
  return TRUE;
}

static gboolean
run_context_query (GstElement * element, GstQuery * query,
    GstPadDirection direction)
{
  GstIterator *it = direction == GST_PAD_SRC ?
      gst_element_iterate_src_pads (element) :
      gst_element_iterate_sink_pads (element);
  GValue res = G_VALUE_INIT;
  gboolean found;

  g_value_init (&res, G_TYPE_BOOLEAN);
  g_value_set_boolean (&res, FALSE);
  while (gst_iterator_fold (it, pad_query_context, &res, query) ==
      GST_ITERATOR_RESYNC)
    gst_iterator_resync (it);
  found = g_value_get_boolean (&res);
  gst_iterator_free (it);
  return found;
}

/* Steps 1 and 2 of gst_cl_ensure_element_data(): a context from the
 * neighbours, else from the application or a bin. */
static gboolean
find_context (GstElement * element, const gchar * device_spec,
    GstClContext ** ctx_ptr)
{
  GstQuery *query;
  GstContext *context = NULL;

  query = gst_query_new_context (GST_CL_CONTEXT_TYPE);
  if (run_context_query (element, query, GST_PAD_SRC) ||
      run_context_query (element, query, GST_PAD_SINK)) {
    gst_query_parse_context (query, &context);
    if (context)
      adopt_context (element, context, device_spec, ctx_ptr);
  }
  gst_query_unref (query);
  if (has_context (element, ctx_ptr)) {
    GST_DEBUG_OBJECT (element, "using context of a neighbour");
    return TRUE;
  }

  /* a synchronous answer: the bins (which keep the contexts they have
   * seen) and the application's sync handler call set_context */
  gst_element_post_message (element,
      gst_message_new_need_context (GST_OBJECT_CAST (element),
          GST_CL_CONTEXT_TYPE));
  if (has_context (element, ctx_ptr)) {
    GST_DEBUG_OBJECT (element, "using context set by the application or "
        "a bin");
    return TRUE;
  }
  return FALSE;
}

/* One lock for the whole process around query-or-create, as CUDA's
 * gst_cuda_ensure_element_context() has: elements of one pipeline that
 * start at once in different threads would each find nothing and make a
 * context of their own. Held, the first makes one and posts have-context
 * (the bins keep it) before the next asks. Recursive: a sync handler may
 * start another element from inside the need-context message. */
static GRecMutex ensure_lock;

/**
 * gst_cl_ensure_element_data:
 * @element: a cl element
 * @device_spec: (nullable): the element's device choice (see
 *   gst_cl_context_new())
 * @ctx_ptr: (inout) (transfer full) (nullable): the element's context; its
 *   element's set_context() must store into the same place (with
 *   gst_cl_handle_set_context())
 *
 * Makes sure the element has a #GstClContext, for its change from NULL to
 * READY. Unless *@ctx_ptr is set already it
 *
 * 1. queries the neighbours downstream, then upstream, for a context;
 * 2. posts a `need-context` message, which the bins (from the contexts
 *    they have seen) or the application (from a bus sync handler) answer
 *    with gst_element_set_context();
 * 3. else makes a context on the device of @device_spec, sets it on
 *    @element and posts a `have-context` message, so that the other
 *    elements of its pipeline find it at step 2.
 *
 * A context found is only taken when it suits @device_spec.
 *
 * MT safe: one process-wide lock is held over the three steps, so that
 * the elements of one pipeline that start at the same time in several
 * threads end with one context. Elements of separate pipelines share a
 * context only where the application hands the same one to both: a
 * #GstContext travels within one pipeline.
 *
 * Returns: %TRUE when the element has a context, else %FALSE with an
 *   element error posted
 *
 * Since: 0.1
 */
gboolean
gst_cl_ensure_element_data (GstElement * element, const gchar * device_spec,
    GstClContext ** ctx_ptr)
{
  GstContext *context;
  GstClContext *created, *ctx;
  GError *error = NULL;
  gboolean ret = TRUE;

  g_return_val_if_fail (GST_IS_ELEMENT (element), FALSE);
  g_return_val_if_fail (ctx_ptr != NULL, FALSE);

  g_rec_mutex_lock (&ensure_lock);
  if (has_context (element, ctx_ptr) ||
      find_context (element, device_spec, ctx_ptr))
    goto done;

  /* 3. make one and tell everybody */
  created = gst_cl_context_new (device_spec, &error);
  if (!created) {
    GST_CL_ELEMENT_ERROR (element, error);
    ret = FALSE;
    goto done;
  }
  install_context (element, ctx_ptr, created);

  GST_OBJECT_LOCK (element);
  ctx = gst_object_ref (*ctx_ptr);
  GST_OBJECT_UNLOCK (element);
  context = gst_context_new_cl_context (ctx);
  gst_element_set_context (element, context);
  gst_element_post_message (element,
      gst_message_new_have_context (GST_OBJECT_CAST (element), context));
  GST_INFO_OBJECT (element, "created OpenCL context on %s",
      ctx->device_name);
  gst_object_unref (ctx);

done:
  g_rec_mutex_unlock (&ensure_lock);
  return ret;
}

/**
 * gst_cl_param_spec_device:
 * @flags: the flags of the property; G_PARAM_READWRITE and
 *   G_PARAM_STATIC_STRINGS are added
 *
 * The "device" property of an element that runs on an OpenCL device: a
 * string in the syntax of gst_cl_context_new()'s @device_spec, which the
 * element passes to gst_cl_ensure_element_data(). Every cl element
 * describes it alike.
 *
 * Returns: (transfer floating): a new #GParamSpec
 *
 * Since: 0.1
 */
GParamSpec *
gst_cl_param_spec_device (GParamFlags flags)
{
  return g_param_spec_string ("device", "Device",
      "OpenCL device: index, part of the device or platform name, or "
      "type (GPU, CPU, accelerator); default: $GST_CL_DEVICE, else the "
      "first GPU, accelerator, CPU", NULL,
      flags | G_PARAM_READWRITE | G_PARAM_STATIC_STRINGS);
}
