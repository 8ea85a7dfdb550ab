/* gst-clvideo: on-disk cache of built OpenCL programs
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#pragma once

#include <gst/cl/cl-prelude.h>
#include <glib.h>
#include <CL/cl.h>

G_BEGIN_DECLS

/* Environment variable naming the directory of the binary cache; empty
 * turns the cache off. Unset: "gst-clvideo" under the user's cache
 * directory ($XDG_CACHE_HOME, ~/.cache), except on POCL with its own
 * kernel cache on (see gst_cl_binary_cache_path). */
#define GST_CL_CACHE_DIR_ENV "GST_CL_CACHE_DIR"

/* The file that holds (or would hold) the binary of @source built with
 * @options for @device: its name hashes them together with the device's
 * and the driver's names and versions, so that a changed source, option,
 * device or driver never meets an old binary. NULL when the cache is
 * off: GST_CL_CACHE_DIR_ENV empty, or unset on POCL while POCL's kernel
 * cache is on (POCL_KERNEL_CACHE not 0). */
GST_CL_API
gchar *gst_cl_binary_cache_path (cl_device_id device, const gchar * source,
    const gchar * options);

/* A cache file is a header and the driver's binary (the payload):
 *
 *   offset  size  field
 *        0     8  magic, GST_CL_BINARY_CACHE_MAGIC
 *        8     4  format version, GST_CL_BINARY_CACHE_VERSION (little-endian)
 *       12     8  payload length in bytes (little-endian)
 *       20    32  SHA-256 of the payload
 *       52        the payload
 *
 * Every byte of the header is checked: the magic and the version against
 * their values, the length against the file's, the digest against the
 * payload's. */
#define GST_CL_BINARY_CACHE_MAGIC "GSTCLBIN"
#define GST_CL_BINARY_CACHE_VERSION 1
#define GST_CL_BINARY_CACHE_HEADER_SIZE 52

/* The file's contents for @payload of @payload_size bytes, newly
 * allocated; its size in @file_size. */
GST_CL_API
guint8 *gst_cl_binary_cache_pack (const guint8 * payload, gsize payload_size,
    gsize * file_size);

/* The payload of the cache file's contents @data of @size bytes (a pointer
 * into @data) and its size in @payload_size, or NULL when the contents do
 * not verify, with the reason in @reason when not NULL. Needs no OpenCL
 * device. */
GST_CL_API
const guint8 *gst_cl_binary_cache_parse (const guint8 * data, gsize size,
    gsize * payload_size, const gchar ** reason);

/* The program built from the cache file at @path for @device with
 * @options, or NULL: no file, one that does not verify or a binary the
 * driver refuses. The caller then builds from source and stores the
 * result, which replaces the file. */
GST_CL_API
cl_program gst_cl_binary_cache_load (cl_context context, cl_device_id device,
    const gchar * path, const gchar * options);

/* Writes the binary of the built @program to @path: to a temporary file
 * in the same directory, then renamed, so that a reader never sees half a
 * file. Failures (no directory, an unwritable one) are only logged: the
 * cache is an optimisation. */
GST_CL_API
void gst_cl_binary_cache_store (cl_program program, const gchar * path);

G_END_DECLS
