/* gst-clvideo: the shared OpenCL device context
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#pragma once

#include <gst/cl/cl-prelude.h>
#include <gst/gst.h>
#include <CL/cl.h>
#include <gst/cl/gstclerror.h>

G_BEGIN_DECLS

/**
 * GST_CL_CONTEXT_TYPE:
 *
 * The GstContext type name under which cl elements share one OpenCL device
 * context. Its structure holds one field, "context", of type GstClContext.
 * An application answers `need-context` messages of this type (for example
 * from a bus sync handler) with gst_context_new_cl_context() to make every
 * cl element of its pipelines use a device of its choosing.
 *
 * Since: 0.1
 */
#define GST_CL_CONTEXT_TYPE "gst.cl.context"

/**
 * GST_CL_DEVICE_ENV:
 *
 * The environment variable that chooses the device where an element's
 * "device" property (or the device_spec of gst_cl_context_new()) is unset:
 * an index into the list of gst_cl_describe_devices(), or a
 * case-insensitive substring of the device or platform name, or a device
 * type ("GPU", "CPU", "accelerator").
 *
 * Since: 0.1
 */
#define GST_CL_DEVICE_ENV "GST_CL_DEVICE"

/**
 * GST_CL_LAYOUT_ENV:
 *
 * The environment variable that overrides the kernel layout a new context
 * picks from its device type: "cpu" or "gpu" (read when a context is made;
 * for tests of both layouts on one device).
 *
 * Since: 0.1
 */
#define GST_CL_LAYOUT_ENV "GST_CL_LAYOUT"

/**
 * GST_CL_BUILD_OPTIONS_ENV:
 *
 * The environment variable whose OpenCL C build options (such as
 * "-cl-opt-disable") are added to every program a context builds (read
 * at each build; for tests and debugging).
 *
 * Since: 0.1
 */
#define GST_CL_BUILD_OPTIONS_ENV "GST_CL_BUILD_OPTIONS"

/**
 * GST_CL_PROFILING_ENV:
 *
 * The environment variable that asks the contexts made from then on for
 * a queue that times each kernel launch ("1"; unset or "0": not), for
 * the device times of gst_cl_context_get_kernel_stats(). Timing costs
 * some drivers much of their throughput, so it is off by default; it is
 * on too where the `clprofile` debug category logs (level 6).
 *
 * Since: 0.1
 */
#define GST_CL_PROFILING_ENV "GST_CL_PROFILING"

/**
 * GST_TYPE_CL_CONTEXT:
 *
 * The #GType of #GstClContext.
 *
 * Since: 0.1
 */
#define GST_TYPE_CL_CONTEXT (gst_cl_context_get_type ())
GST_CL_API
G_DECLARE_FINAL_TYPE (GstClContext, gst_cl_context, GST, CL_CONTEXT, GstObject)

typedef struct _GstClContextPrivate GstClContextPrivate;

/**
 * GstClContext:
 * @platform: the OpenCL platform of @device
 * @device: the device
 * @context: the OpenCL context on @device
 * @queue: the in-order command queue that all cl elements of the context
 *   enqueue on (profiling enabled where the device can)
 * @device_type: CL_DEVICE_TYPE_* bits of @device
 * @device_name: the device's name
 * @platform_name: the platform's name
 * @compute_units: CL_DEVICE_MAX_COMPUTE_UNITS
 * @local_mem_size: CL_DEVICE_LOCAL_MEM_SIZE, in bytes
 * @max_work_group_size: CL_DEVICE_MAX_WORK_GROUP_SIZE
 * @global_mem_size: CL_DEVICE_GLOBAL_MEM_SIZE, in bytes (0: unknown)
 * @host_unified: %TRUE for CPU devices: buffers live in host memory and
 *   mapping them costs no copy
 * @cpu_layout: kernels are laid out for CPUs (long vectorisable rows, no
 *   local memory) rather than GPUs (work-group tiles in local memory): the
 *   device type's choice, or #GST_CL_LAYOUT_ENV
 *
 * An OpenCL device, its context and one in-order command queue, shared by
 * the cl elements of a pipeline (see gst_cl_ensure_element_data()). The
 * fields are set when the object is made and never change: any thread may
 * read them. The OpenCL handles are for C code; GObject introspection sees
 * the device's description as read-only properties.
 *
 * Since: 0.1
 */
struct _GstClContext
{
  GstObject parent;

  cl_platform_id platform;
  cl_device_id device;
  cl_context context;
  cl_command_queue queue;

  cl_device_type device_type;
  gchar *device_name;
  gchar *platform_name;
  guint compute_units;
  guint64 local_mem_size;
  gsize max_work_group_size;
  guint64 global_mem_size;
  gboolean host_unified;
  gboolean cpu_layout;

  /*< private >*/
  GstClContextPrivate *priv;
};

/**
 * GstClTransferCounts:
 * @host_maps: #GstClMemory mapped for host access
 * @uploads: clEnqueueWriteBuffer calls from system memory
 * @downloads: clEnqueueReadBuffer calls into system memory
 *
 * Counts of the host <-> device traffic of a context since it was made or
 * since gst_cl_context_reset_stats(), for tests and benchmarks.
 *
 * Since: 0.1
 */
typedef struct {
  guint64 host_maps;
  guint64 uploads;
  guint64 downloads;
} GstClTransferCounts;

/**
 * GstClTransferKind:
 * @GST_CL_TRANSFER_HOST_MAP: a #GstClMemory mapped for the host
 * @GST_CL_TRANSFER_UPLOAD: a write from system memory to the device
 * @GST_CL_TRANSFER_DOWNLOAD: a read from the device into system memory
 *
 * What gst_cl_context_count() counts.
 *
 * Since: 0.1
 */
typedef enum {
  GST_CL_TRANSFER_HOST_MAP,
  GST_CL_TRANSFER_UPLOAD,
  GST_CL_TRANSFER_DOWNLOAD,
} GstClTransferKind;

GST_CL_API
GstClContext *gst_cl_context_new (const gchar * device_spec, GError ** error);
GST_CL_API
GstClContext *gst_cl_context_new_wrapped (cl_context context,
    cl_device_id device, cl_command_queue queue, GError ** error);

GST_CL_API
GstClContext *gst_cl_context_new_sibling (GstClContext * ctx,
    GError ** error);
GST_CL_API
gboolean gst_cl_context_wait_for (GstClContext * ctx, GstClContext * other,
    GError ** error);

GST_CL_API
const gchar *gst_cl_context_get_device_name (GstClContext * ctx);
GST_CL_API
const gchar *gst_cl_context_get_platform_name (GstClContext * ctx);
GST_CL_API
gboolean gst_cl_context_matches (GstClContext * ctx, const gchar * device_spec);
GST_CL_API
gboolean gst_cl_context_is_gpu (GstClContext * ctx);

GST_CL_API
guint gst_cl_context_get_n_created (void);

GST_CL_API
gchar *gst_cl_describe_devices (void);

GST_CL_API
cl_kernel gst_cl_context_create_kernel (GstClContext * ctx,
    const gchar * program_name, const gchar * options,
    const gchar * kernel_name, GError ** error);

GST_CL_API
gboolean gst_cl_context_enqueue_kernel (GstClContext * ctx, cl_kernel kernel,
    const gchar * label, guint work_dim, const size_t * global_size,
    const size_t * local_size, GError ** error);

GST_CL_API
gboolean gst_cl_context_finish (GstClContext * ctx, GError ** error);

GST_CL_API
gboolean gst_cl_context_has_extension (GstClContext * ctx,
    const gchar * name);

GST_CL_API
gboolean gst_cl_context_get_kernel_stats (GstClContext * ctx,
    const gchar * label, guint64 * launches, guint64 * total_ns,
    guint64 * min_ns);
GST_CL_API
void gst_cl_context_reset_stats (GstClContext * ctx);

GST_CL_API
guint gst_cl_context_get_programs_from_cache (GstClContext * ctx);

GST_CL_API
void gst_cl_context_get_transfer_counts (GstClContext * ctx,
    GstClTransferCounts * counts);

GST_CL_API
void gst_cl_context_count (GstClContext * ctx, GstClTransferKind kind);

/**
 * GST_CL_COUNT_HOST_MAP:
 * @ctx: a #GstClContext
 *
 * Counts a host mapping of a #GstClMemory of @ctx.
 *
 * Since: 0.1
 */
#define GST_CL_COUNT_HOST_MAP(ctx) \
  gst_cl_context_count (ctx, GST_CL_TRANSFER_HOST_MAP)
/**
 * GST_CL_COUNT_UPLOAD:
 * @ctx: a #GstClContext
 *
 * Counts a write from system memory to the device of @ctx.
 *
 * Since: 0.1
 */
#define GST_CL_COUNT_UPLOAD(ctx) \
  gst_cl_context_count (ctx, GST_CL_TRANSFER_UPLOAD)
/**
 * GST_CL_COUNT_DOWNLOAD:
 * @ctx: a #GstClContext
 *
 * Counts a read from the device of @ctx into system memory.
 *
 * Since: 0.1
 */
#define GST_CL_COUNT_DOWNLOAD(ctx) \
  gst_cl_context_count (ctx, GST_CL_TRANSFER_DOWNLOAD)

GST_CL_API
GstContext *gst_context_new_cl_context (GstClContext * ctx);
GST_CL_API
gboolean gst_context_get_cl_context (GstContext * context, GstClContext ** ctx);

GST_CL_API
gboolean gst_cl_ensure_element_data (GstElement * element,
    const gchar * device_spec, GstClContext ** ctx_ptr);
GST_CL_API
gboolean gst_cl_handle_set_context (GstElement * element, GstContext * context,
    const gchar * device_spec, GstClContext ** ctx_ptr);
GST_CL_API
gboolean gst_cl_handle_context_query (GstElement * element, GstQuery * query,
    GstClContext * ctx);

GST_CL_API
GParamSpec *gst_cl_param_spec_device (GParamFlags flags);

G_END_DECLS
