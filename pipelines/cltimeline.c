/* gst-clvideo: device timeline of any OpenCL program
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * Preloaded into a process (LD_PRELOAD=.../libcltimeline.so), it makes
 * every command queue time its commands and writes one line per command
 * to $CL_TIMELINE_OUT (default cltimeline.txt):
 *
 *   QUEUE THREAD NAME QUEUED SUBMIT START END HOST
 *
 * QUEUE numbers the queues in the order they were first used, THREAD is
 * the enqueueing thread's id, NAME the kernel's function name or the
 * command (write, read, copy, fill, map, unmap, marker, barrier...), then
 * the four profiling times of the device (ns) and the host's monotonic
 * clock at the enqueue (ns); host waits (clWaitForEvents, clFinish) as
 *
 *   W THREAD wait|finish BEGIN END
 *
 * on the host's clock. With CL_TIMELINE_DETAIL set, a kernel's NAME
 * also tells its program and its global size, NAME#P:GXxGY (P numbers the
 * programs in the order their kernels were first enqueued): the steps
 * that one function serves with programs of different build options are
 * told apart. pipelines/cltimeline.py reads them. Timing every
 * command costs the driver an event each: rates fall (by a third to a
 * half on the chain on an H100), so compare builds under it, never a
 * rate taken under it with one taken without.
 */
#define _GNU_SOURCE
#define CL_TARGET_OPENCL_VERSION 300
/* (clCreateCommandQueue too: a program may still call it) */
#define CL_USE_DEPRECATED_OPENCL_1_2_APIS
#include <CL/cl.h>
#include <dlfcn.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

typedef struct
{
  cl_event event;
  cl_command_queue queue;
  int thread;
  char name[48];
  unsigned long long host_ns;
} Pending;

/* commands whose times are not read yet; read once complete, checked
 * every PENDING_CHECK enqueues */
#define MAX_PENDING 8192
#define PENDING_CHECK 512
#define MAX_QUEUES 256

static Pending pending[MAX_PENDING];
static int n_pending;
static cl_command_queue queues[MAX_QUEUES];
static int n_queues;
static FILE *out;
/* programs in the order first seen (CL_TIMELINE_DETAIL) */
#define MAX_PROGRAMS 256
static cl_program programs[MAX_PROGRAMS];
static int n_programs;
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;

static unsigned long long
host_ns (void)
{
  struct timespec ts;

  clock_gettime (CLOCK_MONOTONIC, &ts);
  return ts.tv_sec * 1000000000ull + ts.tv_nsec;
}

/* (under the lock) */
static FILE *
output (void)
{
  if (!out) {
    const char *path = getenv ("CL_TIMELINE_OUT");

    out = fopen (path && *path ? path : "cltimeline.txt", "w");
    if (!out)
      perror ("cltimeline: cannot open CL_TIMELINE_OUT");
  }
  return out;
}

static int
queue_index (cl_command_queue queue)
{
  int i;

  for (i = 0; i < n_queues; i++)
    if (queues[i] == queue)
      return i;
  if (n_queues == MAX_QUEUES)
    return MAX_QUEUES;
  queues[n_queues] = queue;
  return n_queues++;
}

/* Writes the commands that have completed (@all: and those that failed)
 * and forgets them; keeps the others. (Under the lock.) */
static void
write_completed (int all)
{
  static const cl_profiling_info info[4] = { CL_PROFILING_COMMAND_QUEUED,
    CL_PROFILING_COMMAND_SUBMIT, CL_PROFILING_COMMAND_START,
    CL_PROFILING_COMMAND_END
  };
  int i, k, kept = 0;

  for (i = 0; i < n_pending; i++) {
    Pending *p = &pending[i];
    cl_int status = CL_QUEUED;
    cl_ulong t[4] = { 0, 0, 0, 0 };

    if (clGetEventInfo (p->event, CL_EVENT_COMMAND_EXECUTION_STATUS,
            sizeof (status), &status, NULL) != CL_SUCCESS)
      status = -1;
    if (status > CL_COMPLETE && !all) {
      pending[kept++] = *p;
      continue;
    }
    /* (a command that failed or whose times cannot be read: zeros) */
    for (k = 0; status == CL_COMPLETE && k < 4; k++)
      if (clGetEventProfilingInfo (p->event, info[k], sizeof (t[k]), &t[k],
              NULL) != CL_SUCCESS)
        t[k] = 0;
    if (output ())
      fprintf (out, "%d %d %s %llu %llu %llu %llu %llu\n",
          queue_index (p->queue), p->thread, p->name,
          (unsigned long long) t[0], (unsigned long long) t[1],
          (unsigned long long) t[2], (unsigned long long) t[3], p->host_ns);
    clReleaseEvent (p->event);
  }
  n_pending = kept;
}

static void
remember (cl_command_queue queue, cl_event event, const char *name,
    unsigned long long enqueued)
{
  /* (the driver's wait, not this file's, which takes the lock) */
  static __typeof__ (clWaitForEvents) *driver_wait;
  Pending *p;

  if (!driver_wait)
    driver_wait = (__typeof__ (clWaitForEvents) *) dlsym (RTLD_NEXT,
        "clWaitForEvents");
  pthread_mutex_lock (&lock);
  if (n_pending == MAX_PENDING)
    write_completed (0);
  if (n_pending == MAX_PENDING) {
    /* the oldest is still running: wait for it */
    driver_wait (1, &pending[0].event);
    write_completed (0);
  }
  if (n_pending == MAX_PENDING) {
    clReleaseEvent (event);
    pthread_mutex_unlock (&lock);
    return;
  }
  p = &pending[n_pending++];
  p->event = event;
  p->queue = queue;
  p->thread = (int) syscall (SYS_gettid);
  p->host_ns = enqueued;
  snprintf (p->name, sizeof (p->name), "%s", name);
  if (n_pending % PENDING_CHECK == 0)
    write_completed (0);
  pthread_mutex_unlock (&lock);
}

static void
remember_wait (const char *what, unsigned long long begin)
{
  unsigned long long end = host_ns ();

  pthread_mutex_lock (&lock);
  if (output ())
    fprintf (out, "W %d %s %llu %llu\n", (int) syscall (SYS_gettid), what,
        begin, end);
  pthread_mutex_unlock (&lock);
}

__attribute__((destructor))
static void
finish_timeline (void)
{
  pthread_mutex_lock (&lock);
  write_completed (1);
  if (out)
    fclose (out);
  out = NULL;
  pthread_mutex_unlock (&lock);
}

#define REAL(fn) \
  static __typeof__ (fn) *real_##fn; \
  if (!real_##fn) \
    real_##fn = (__typeof__ (fn) *) dlsym (RTLD_NEXT, #fn)

/* The event the driver gets: the caller's where it asks for one (kept
 * for the timeline too), else the timeline's own. */
#define EVENT_BEGIN \
  cl_event own_event = NULL; \
  cl_event *use_event = event ? event : &own_event; \
  unsigned long long enqueued = host_ns ()
#define EVENT_END(queue, name) \
  do { \
    if (ret == CL_SUCCESS) { \
      if (event) \
        clRetainEvent (*use_event); \
      remember (queue, *use_event, name, enqueued); \
    } \
  } while (0)

cl_command_queue
clCreateCommandQueueWithProperties (cl_context context, cl_device_id device,
    const cl_queue_properties * props, cl_int * errcode_ret)
{
  cl_queue_properties with[32];
  int n = 0, timed = 0;

  REAL (clCreateCommandQueueWithProperties);
  for (; props && props[n] && n < 28; n += 2) {
    with[n] = props[n];
    with[n + 1] = props[n + 1];
    if (props[n] == CL_QUEUE_PROPERTIES) {
      with[n + 1] |= CL_QUEUE_PROFILING_ENABLE;
      timed = 1;
    }
  }
  if (!timed) {
    with[n++] = CL_QUEUE_PROPERTIES;
    with[n++] = CL_QUEUE_PROFILING_ENABLE;
  }
  with[n] = 0;
  return real_clCreateCommandQueueWithProperties (context, device, with,
      errcode_ret);
}

cl_command_queue
clCreateCommandQueue (cl_context context, cl_device_id device,
    cl_command_queue_properties props, cl_int * errcode_ret)
{
  REAL (clCreateCommandQueue);
  return real_clCreateCommandQueue (context, device,
      props | CL_QUEUE_PROFILING_ENABLE, errcode_ret);
}

/* The number of @program in the order first seen */
static int
program_index (cl_program program)
{
  int i;

  pthread_mutex_lock (&lock);
  for (i = 0; i < n_programs && programs[i] != program; i++);
  if (i == n_programs && n_programs < MAX_PROGRAMS)
    programs[n_programs++] = program;
  pthread_mutex_unlock (&lock);
  return i;
}

/* appends #P:GXxGY to @name */
static void
add_detail (char *name, size_t size, cl_kernel kernel, cl_uint dims,
    const size_t * global)
{
  cl_program program = NULL;
  size_t len = strlen (name);

  if (clGetKernelInfo (kernel, CL_KERNEL_PROGRAM, sizeof (program), &program,
          NULL) != CL_SUCCESS)
    program = NULL;
  snprintf (name + len, size - len, "#%d:%zux%zu", program_index (program),
      global[0], dims > 1 ? global[1] : (size_t) 1);
}

cl_int
clEnqueueNDRangeKernel (cl_command_queue queue, cl_kernel kernel,
    cl_uint dims, const size_t * offset, const size_t * global,
    const size_t * local, cl_uint n_wait, const cl_event * wait,
    cl_event * event)
{
  char name[48] = "kernel";
  cl_int ret;
  EVENT_BEGIN;

  REAL (clEnqueueNDRangeKernel);
  ret = real_clEnqueueNDRangeKernel (queue, kernel, dims, offset, global,
      local, n_wait, wait, use_event);
  if (clGetKernelInfo (kernel, CL_KERNEL_FUNCTION_NAME, sizeof (name), name,
          NULL) != CL_SUCCESS)
    snprintf (name, sizeof (name), "kernel");
  if (getenv ("CL_TIMELINE_DETAIL"))
    add_detail (name, sizeof (name), kernel, dims, global);
  EVENT_END (queue, name);
  return ret;
}

void *
clEnqueueMapBuffer (cl_command_queue queue, cl_mem buffer, cl_bool blocking,
    cl_map_flags flags, size_t offset, size_t size, cl_uint n_wait,
    const cl_event * wait, cl_event * event, cl_int * errcode_ret)
{
  cl_int ret = CL_SUCCESS;
  void *mapped;
  EVENT_BEGIN;

  REAL (clEnqueueMapBuffer);
  mapped = real_clEnqueueMapBuffer (queue, buffer, blocking, flags, offset,
      size, n_wait, wait, use_event, &ret);
  if (errcode_ret)
    *errcode_ret = ret;
  EVENT_END (queue, "map");
  return mapped;
}

/* A wrapper of the enqueue @fn (returning cl_int, its event pointer
 * last: @params ends with "cl_event * event"), recording the command as
 * @label; @args are the driver's arguments, use_event last. */
#define TIMED_ENQUEUE(fn, label, params, args) \
  cl_int fn params \
  { \
    cl_int ret; \
    EVENT_BEGIN; \
    REAL (fn); \
    ret = real_##fn args; \
    EVENT_END (queue, label); \
    return ret; \
  }

TIMED_ENQUEUE (clEnqueueCopyBuffer, "copy",
    (cl_command_queue queue, cl_mem src, cl_mem dst, size_t src_offset,
        size_t dst_offset, size_t size, cl_uint n_wait,
        const cl_event * wait, cl_event * event),
    (queue, src, dst, src_offset, dst_offset, size, n_wait, wait,
        use_event))

TIMED_ENQUEUE (clEnqueueCopyBufferRect, "copy-rect",
    (cl_command_queue queue, cl_mem src, cl_mem dst,
        const size_t * src_origin, const size_t * dst_origin,
        const size_t * region, size_t src_row_pitch, size_t src_slice_pitch,
        size_t dst_row_pitch, size_t dst_slice_pitch, cl_uint n_wait,
        const cl_event * wait, cl_event * event),
    (queue, src, dst, src_origin, dst_origin, region, src_row_pitch,
        src_slice_pitch, dst_row_pitch, dst_slice_pitch, n_wait, wait,
        use_event))

TIMED_ENQUEUE (clEnqueueWriteBuffer, "write",
    (cl_command_queue queue, cl_mem buffer, cl_bool blocking,
        size_t offset, size_t size, const void *ptr, cl_uint n_wait,
        const cl_event * wait, cl_event * event),
    (queue, buffer, blocking, offset, size, ptr, n_wait, wait, use_event))

TIMED_ENQUEUE (clEnqueueWriteBufferRect, "write-rect",
    (cl_command_queue queue, cl_mem buffer, cl_bool blocking,
        const size_t * buffer_origin, const size_t * host_origin,
        const size_t * region, size_t buffer_row_pitch,
        size_t buffer_slice_pitch, size_t host_row_pitch,
        size_t host_slice_pitch, const void *ptr, cl_uint n_wait,
        const cl_event * wait, cl_event * event),
    (queue, buffer, blocking, buffer_origin, host_origin, region,
        buffer_row_pitch, buffer_slice_pitch, host_row_pitch,
        host_slice_pitch, ptr, n_wait, wait, use_event))

TIMED_ENQUEUE (clEnqueueReadBuffer, "read",
    (cl_command_queue queue, cl_mem buffer, cl_bool blocking,
        size_t offset, size_t size, void *ptr, cl_uint n_wait,
        const cl_event * wait, cl_event * event),
    (queue, buffer, blocking, offset, size, ptr, n_wait, wait, use_event))

TIMED_ENQUEUE (clEnqueueReadBufferRect, "read-rect",
    (cl_command_queue queue, cl_mem buffer, cl_bool blocking,
        const size_t * buffer_origin, const size_t * host_origin,
        const size_t * region, size_t buffer_row_pitch,
        size_t buffer_slice_pitch, size_t host_row_pitch,
        size_t host_slice_pitch, void *ptr, cl_uint n_wait,
        const cl_event * wait, cl_event * event),
    (queue, buffer, blocking, buffer_origin, host_origin, region,
        buffer_row_pitch, buffer_slice_pitch, host_row_pitch,
        host_slice_pitch, ptr, n_wait, wait, use_event))

TIMED_ENQUEUE (clEnqueueFillBuffer, "fill",
    (cl_command_queue queue, cl_mem buffer, const void *pattern,
        size_t pattern_size, size_t offset, size_t size, cl_uint n_wait,
        const cl_event * wait, cl_event * event),
    (queue, buffer, pattern, pattern_size, offset, size, n_wait, wait,
        use_event))

TIMED_ENQUEUE (clEnqueueUnmapMemObject, "unmap",
    (cl_command_queue queue, cl_mem memobj, void *mapped, cl_uint n_wait,
        const cl_event * wait, cl_event * event),
    (queue, memobj, mapped, n_wait, wait, use_event))

TIMED_ENQUEUE (clEnqueueMarkerWithWaitList, "marker",
    (cl_command_queue queue, cl_uint n_wait, const cl_event * wait,
        cl_event * event),
    (queue, n_wait, wait, use_event))

TIMED_ENQUEUE (clEnqueueBarrierWithWaitList, "barrier",
    (cl_command_queue queue, cl_uint n_wait, const cl_event * wait,
        cl_event * event),
    (queue, n_wait, wait, use_event))

cl_int
clWaitForEvents (cl_uint n, const cl_event * events)
{
  unsigned long long begin = host_ns ();
  cl_int ret;

  REAL (clWaitForEvents);
  ret = real_clWaitForEvents (n, events);
  remember_wait ("wait", begin);
  return ret;
}

cl_int
clFinish (cl_command_queue queue)
{
  unsigned long long begin = host_ns ();
  cl_int ret;

  REAL (clFinish);
  ret = real_clFinish (queue);
  remember_wait ("finish", begin);
  return ret;
}
