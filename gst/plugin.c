/* gst-clvideo: the clvideo plugin
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include <gst/gst.h>

#include "gstclcolorlowpass.h"
#include "gstclcontrast.h"
#include "gstclhistogram.h"
#include "gstclmotionsearch.h"
#include "gstclmpegenc.h"
#include "gstclsmooth.h"
#include "gstcltransfer.h"

static gboolean
plugin_init (GstPlugin * plugin)
{
  gboolean ok = TRUE;

  ok &= gst_element_register (plugin, "clupload", GST_RANK_NONE,
      GST_TYPE_CL_UPLOAD);
  ok &= gst_element_register (plugin, "cldownload", GST_RANK_NONE,
      GST_TYPE_CL_DOWNLOAD);
  ok &= gst_element_register (plugin, "clcolorlowpass", GST_RANK_NONE,
      GST_TYPE_CL_COLOR_LOWPASS);
  ok &= gst_element_register (plugin, "clhistogram", GST_RANK_NONE,
      GST_TYPE_CL_HISTOGRAM);
  ok &= gst_element_register (plugin, "clcontrast", GST_RANK_NONE,
      GST_TYPE_CL_CONTRAST);
  ok &= gst_element_register (plugin, "clsmooth", GST_RANK_NONE,
      GST_TYPE_CL_SMOOTH);
  ok &= gst_element_register (plugin, "clmotionsearch", GST_RANK_NONE,
      GST_TYPE_CL_MOTION_SEARCH_ELEMENT);
  ok &= gst_element_register (plugin, "clmpegenc", GST_RANK_NONE,
      GST_TYPE_CL_MPEG_ENC);
  return ok;
}

GST_PLUGIN_DEFINE (GST_VERSION_MAJOR, GST_VERSION_MINOR, clvideo,
    "OpenCL video processing: conversion, filters, motion search, MPEG-1",
    plugin_init, VERSION, GST_LICENSE, GST_PACKAGE_NAME, GST_PACKAGE_ORIGIN)
