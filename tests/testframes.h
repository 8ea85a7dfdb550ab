/* gst-clvideo: test frames of 8-bit YUV, GRAY8 and packed RGB formats
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#pragma once

#include <gst/video/video.h>
#include <gst/cl/gstclcontext.h>
#include "testutil.h"

G_BEGIN_DECLS

/* Where the samples of one component are, written down by hand from the
 * format definitions (not taken from GstVideoFormatInfo, as the elements
 * do, so that a wrong table on either side shows). */
typedef struct
{
  const gchar *channel;         /* "Y", "U", "V", "R", "G", "B" */
  gint plane;
  gint byte;                    /* of the sample within its pixel */
  gint pstride;                 /* bytes from one sample to the next */
  gint wshift, hshift;          /* subsampling: size = ceil(size / 2^shift) */
} TestComponent;

typedef struct
{
  const gchar *name;
  gint n_planes;
  gint n_comps;
  TestComponent comp[3];
} TestFormat;

extern const TestFormat frame_formats[];
extern const guint n_frame_formats;

const TestFormat *test_format_find (const gchar * name);
gboolean test_format_is_rgb (const TestFormat * f);

typedef enum
{
  CONTENT_RANDOM,               /* every byte, padding included */
  CONTENT_CONSTANT,             /* one value per component */
  CONTENT_NATURAL,              /* gradients, a disc, lines and noise, in a
                                 * narrow range of values */
} TestContent;

const gchar *test_content_name (TestContent c);

/* A frame and where its samples are. */
typedef struct
{
  const TestFormat *fmt;
  gint width, height;
  gsize offset[GST_VIDEO_MAX_PLANES];
  gint stride[GST_VIDEO_MAX_PLANES];
  gboolean meta;                /* has a GstVideoMeta with that layout */
  GstBuffer *buffer;
  gchar *desc;
} TestFrame;

/* A system-memory frame. @extra < 0: the default layout of
 * gst_video_info_set_format(), no video meta. Otherwise every plane's
 * stride is its row bytes + @extra and the planes start @gap bytes after
 * the previous one ends (the first at @gap), described by a meta. */
void test_frame_make (TestFrame * frame, const TestFormat * f, gint width,
    gint height, gint extra, gsize gap, TestContent content, guint32 seed);

/* The same in OpenCL memory of @ctx: a sub-memory at @mem_offset into the
 * cl buffer, always with a meta (@extra >= 0). */
void test_frame_make_cl (TestFrame * frame, GstClContext * ctx,
    const TestFormat * f, gint width, gint height, gint extra, gsize gap,
    gsize mem_offset, TestContent content, guint32 seed);

void test_frame_clear (TestFrame * frame);

/* Component @c's size in samples. */
void test_frame_comp_size (const TestFrame * frame, guint c, gint * w,
    gint * h);

/* The caps of @frame, system memory. */
GstCaps *test_frame_caps (const TestFrame * frame);

/* Copies component @c of the mapped frame @data into a packed @w x @h
 * array. */
void test_frame_extract (const TestFrame * frame, const guint8 * data,
    guint c, guint8 * out);

G_END_DECLS
