/* gst-clvideo: PSNR between 8-bit 4:2:0 frames, and a reader of raw I420
 * and YUV4MPEG2 (y4m) files, for the tests and the benchmark
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * PSNR = 10 log10(255^2 / MSE) per plane. Identical planes give +inf;
 * means over frames cap each frame at PSNR_CAP dB so that one identical
 * frame does not make the mean infinite.
 */
#pragma once

#include <stdio.h>
#include <glib.h>

G_BEGIN_DECLS

#define PSNR_CAP 100.0

/* Sum of squared differences of a @width x @height plane. */
guint64 psnr_plane_sse (const guint8 * a, gint stride_a, const guint8 * b,
    gint stride_b, guint width, guint height);
/* dB from a mean squared error; +inf for 0. */
gdouble psnr_from_mse (gdouble mse);
/* Mean squared error of Y, U, V between two tightly packed I420 frames. */
void psnr_i420_mse (const guint8 * a, const guint8 * b, guint width,
    guint height, gdouble mse[3]);
/* Bytes of a tightly packed I420 frame (chroma rounded up). */
gsize psnr_i420_size (guint width, guint height);

/* The macroblock (16x16 luma, 8x8 of each chroma plane) whose plane has
 * the largest mean squared error: a frame's mean hides one broken block. */
typedef struct
{
  gdouble mse;
  guint plane;                  /* 0 Y, 1 U, 2 V */
  guint mb_x, mb_y;
} PsnrMacroblock;

/* ... of tightly packed I420 frames, or Y42B ones where @chroma_422 (a
 * macroblock's chroma 8 wide and 16 high) */
void psnr_planar_worst_macroblock (const guint8 * a, const guint8 * b,
    guint width, guint height, gboolean chroma_422, PsnrMacroblock * worst);
void psnr_i420_worst_macroblock (const guint8 * a, const guint8 * b,
    guint width, guint height, PsnrMacroblock * worst);

/* Frames from a y4m file (4:2:0 only) or a raw I420 file. */
typedef struct
{
  FILE *file;
  gboolean y4m;
  guint width, height;
  gint fps_n, fps_d;            /* 0/0 for raw files */
  gsize frame_size;
  gchar *name;
} YuvReader;

/* @path "-" reads stdin. A file starting with "YUV4MPEG2 " is read as y4m
 * (its header gives the size); anything else is raw I420 of @width x
 * @height (0 then: an error). */
YuvReader *yuv_reader_open (const gchar * path, guint width, guint height,
    GError ** error);
/* Reads one frame into @frame (frame_size bytes): 1, or 0 at the end of
 * the file, or -1 with @error set. */
gint yuv_reader_read (YuvReader * r, guint8 * frame, GError ** error);
void yuv_reader_close (YuvReader * r);

G_END_DECLS
