/* gst-clvideo: the motion vector, one definition for C and OpenCL C
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * Written in the common subset of C and OpenCL C 1.2: kernels include it
 * as "gstclmotionvector.h" (expanded from the plugin's kernel sources),
 * so that the host, the kernels and the tests share one layout. Include
 * guards rather than #pragma once: an OpenCL compiler sees it inside the
 * kernel's own source.
 */
#ifndef __GST_CL_MOTION_VECTOR_H__
#define __GST_CL_MOTION_VECTOR_H__

#ifdef __OPENCL_VERSION__
/* the GLib names of the fixed-width types the shared structures use */
typedef char gint8;
typedef uchar guint8;
typedef short gint16;
typedef ushort guint16;
typedef int gint32;
typedef uint guint32;
#else
#include <glib.h>
#endif

/**
 * GstClMotionVector:
 * @dx: horizontal displacement in half-pel units
 * @dy: vertical displacement in half-pel units
 * @sad: sum of absolute luma differences between the block and its
 *   prediction, over the block's visible samples
 *
 * The motion of one block: the block whose top-left sample is (x, y) in
 * the current picture is predicted from position (x + dx / 2, y + dy / 2)
 * of the reference picture (half-pel positions interpolated with the
 * MPEG-1 rule). A full-pel search gives even @dx and @dy. 8 bytes, also
 * the layout of the vectors of a #GstClMotionMeta.
 */
typedef struct {
  gint16 dx, dy;
  guint32 sad;
} GstClMotionVector;

#ifndef __OPENCL_VERSION__
G_STATIC_ASSERT (sizeof (GstClMotionVector) == 8);
G_STATIC_ASSERT (G_STRUCT_OFFSET (GstClMotionVector, sad) == 4);
#endif

#endif /* __GST_CL_MOTION_VECTOR_H__ */
