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
 */
#define GST_CL_CONTEXT_TYPE "gst.cl.context"

/* Environment variable choosing the device when an element's "device"
 * property is unset: an index into the list of devices or a case-insensitive
 * substring of the device or platform name. */
#define GST_CL_DEVICE_ENV "GST_CL_DEVICE"
#define GST_CL_LAYOUT_ENV "GST_CL_LAYOUT"

#define GST_TYPE_CL_CONTEXT (gst_cl_context_get_type ())
GST_CL_API
G_DECLARE_FINAL_TYPE (GstClContext, gst_cl_context, GST, CL_CONTEXT, GstObject)

typedef struct _GstClContextPrivate GstClContextPrivate;

struct _GstClContext
{
  GstObject parent;

  cl_platform_id platform;
  cl_device_id device;
  cl_context context;
  cl_command_queue queue;       /* in-order, profiling enabled when possible */

  cl_device_type device_type;
  gchar *device_name;
  gchar *platform_name;
  guint compute_units;
  guint64 local_mem_size;
  gsize max_work_group_size;
  guint64 global_mem_size;
  /* TRUE for CPU devices: buffers live in host memory and mapping is free */
  gboolean host_unified;
  /* Kernels laid out for CPUs (long vectorisable rows, no local memory)
   * rather than GPUs (work-group tiles in local memory): the device type's
   * choice, or $GST_CL_LAYOUT ("cpu" or "gpu") to test both anywhere. */
  gboolean cpu_layout;

  GstClContextPrivate *priv;
};

/* Counts of host <-> device traffic, for tests and benchmarks. */
typedef struct {
  guint64 host_maps;            /* GstClMemory mapped for host access */
  guint64 uploads;              /* clEnqueueWriteBuffer from system memory */
  guint64 downloads;            /* clEnqueueReadBuffer into system memory */
} GstClTransferCounts;

GST_CL_API
GstClContext *gst_cl_context_new (const gchar * device_spec, GError ** error);
GST_CL_API
GstClContext *gst_cl_context_new_wrapped (cl_context context,
    cl_device_id device, cl_command_queue queue, GError ** error);

GST_CL_API
gboolean gst_cl_context_matches (GstClContext * ctx, const gchar * device_spec);
GST_CL_API
gboolean gst_cl_context_is_gpu (GstClContext * ctx);

/* Number of cl_context objects this process created (wrapped ones excluded). */
GST_CL_API
guint gst_cl_context_get_n_created (void);

/* Lists the usable devices as "index: device (platform, type)" lines. */
GST_CL_API
gchar *gst_cl_describe_devices (void);

/* Returns a new kernel from program @program_name built with @options (the
 * program is compiled once per context, source and options, then cached). */
GST_CL_API
cl_kernel gst_cl_context_create_kernel (GstClContext * ctx,
    const gchar * program_name, const gchar * options,
    const gchar * kernel_name, GError ** error);

/* Enqueues @kernel; its device time is accounted under @label. */
GST_CL_API
gboolean gst_cl_context_enqueue_kernel (GstClContext * ctx, cl_kernel kernel,
    const gchar * label, guint work_dim, const size_t * global_size,
    const size_t * local_size, GError ** error);

/* Waits for all enqueued work of the context to finish. */
GST_CL_API
gboolean gst_cl_context_finish (GstClContext * ctx, GError ** error);

/* Device time statistics per label (complete launches only). */
GST_CL_API
gboolean gst_cl_context_get_kernel_stats (GstClContext * ctx,
    const gchar * label, guint64 * launches, guint64 * total_ns,
    guint64 * min_ns);
GST_CL_API
void gst_cl_context_reset_stats (GstClContext * ctx);

/* Programs this context built from the on-disk binary cache
 * (gstclbinarycache.h) instead of from source. */
GST_CL_API
guint gst_cl_context_get_programs_from_cache (GstClContext * ctx);

GST_CL_API
void gst_cl_context_get_transfer_counts (GstClContext * ctx,
    GstClTransferCounts * counts);
typedef enum {
  GST_CL_TRANSFER_HOST_MAP,
  GST_CL_TRANSFER_UPLOAD,
  GST_CL_TRANSFER_DOWNLOAD,
} GstClTransferKind;

GST_CL_API
void gst_cl_context_count (GstClContext * ctx, GstClTransferKind kind);
#define GST_CL_COUNT_HOST_MAP(ctx) \
  gst_cl_context_count (ctx, GST_CL_TRANSFER_HOST_MAP)
#define GST_CL_COUNT_UPLOAD(ctx) \
  gst_cl_context_count (ctx, GST_CL_TRANSFER_UPLOAD)
#define GST_CL_COUNT_DOWNLOAD(ctx) \
  gst_cl_context_count (ctx, GST_CL_TRANSFER_DOWNLOAD)

/* GstContext sharing, after the GstGL and CUDA libraries */
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

G_END_DECLS
