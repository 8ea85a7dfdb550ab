/* gst-clvideo: libFuzzer entry point for the binary cache's file parser
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * Feeds arbitrary bytes to gst_cl_binary_cache_parse, the check every
 * cache file passes before its payload reaches the OpenCL driver; no
 * device is needed. Beyond the sanitizers' findings, a file it accepts
 * must be exactly what gst_cl_binary_cache_pack writes for its payload
 * (the format has one encoding), and a file it refuses must have a
 * reason.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <gst/cl/gstclbinarycache-private.h>

int LLVMFuzzerTestOneInput (const uint8_t * data, size_t size);

int
LLVMFuzzerTestOneInput (const uint8_t * data, size_t size)
{
  const gchar *reason = NULL;
  gsize payload_size = 0, packed_size = 0;
  const guint8 *payload;
  guint8 *packed;

  payload = gst_cl_binary_cache_parse (data, size, &payload_size, &reason);
  if (!payload) {
    if (!reason)
      abort ();
    return 0;
  }
  if (reason || payload != data + GST_CL_BINARY_CACHE_HEADER_SIZE ||
      payload_size + GST_CL_BINARY_CACHE_HEADER_SIZE != size)
    abort ();
  packed = gst_cl_binary_cache_pack (payload, payload_size, &packed_size);
  if (packed_size != size || memcmp (packed, data, size) != 0)
    abort ();
  g_free (packed);
  return 0;
}
