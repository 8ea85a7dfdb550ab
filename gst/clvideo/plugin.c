/* gst-clvideo: the clvideo plugin
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include <gst/gst.h>
#include <CL/cl.h>

#include <gst/cl/gstclerror.h>

#include "gstclvideokernels.h"
#include "gstclcolorlowpass.h"
#include "gstclcontrast.h"
#include "gstclhistogram.h"
#include "gstclmotionsearch.h"
#include "gstclmpegenc.h"
#include "gstclsmooth.h"
#include "gstcltransfer.h"

GST_DEBUG_CATEGORY_STATIC (gst_cl_plugin_debug);
#define GST_CAT_DEFAULT gst_cl_plugin_debug

/* Whether OpenCL has a device here (any platform, any kind): without one
 * the encoder could only fail to start */
static gboolean
have_cl_device (void)
{
  cl_platform_id platforms[16];
  cl_uint n_platforms = 0, i;
  cl_int ret;

  ret = clGetPlatformIDs (G_N_ELEMENTS (platforms), platforms, &n_platforms);
  if (ret != CL_SUCCESS) {
    GST_INFO ("clGetPlatformIDs: %s", gst_cl_error_name (ret));
    return FALSE;
  }
  for (i = 0; i < MIN (n_platforms, G_N_ELEMENTS (platforms)); i++) {
    cl_uint n_devices = 0;
    ret = clGetDeviceIDs (platforms[i], CL_DEVICE_TYPE_ALL, 0, NULL,
        &n_devices);
    if (ret == CL_SUCCESS && n_devices > 0)
      return TRUE;
    if (ret != CL_SUCCESS && ret != CL_DEVICE_NOT_FOUND)
      GST_INFO ("clGetDeviceIDs (platform %u): %s", i,
          gst_cl_error_name (ret));
  }
  return FALSE;
}

static gboolean
plugin_init (GstPlugin * plugin)
{
  static const gchar *icd_env[] = { "OCL_ICD_VENDORS", "OPENCL_VENDOR_PATH",
    NULL
  };
  static const gchar *icd_paths[] = { "/etc/OpenCL/vendors", NULL };
  static const gchar *icd_suffixes[] = { ".icd", NULL };
  static const struct
  {
    const gchar *name;
    GType (*get_type) (void);
  } elements[] = {
    {"clupload", gst_cl_upload_get_type},
    {"cldownload", gst_cl_download_get_type},
    {"clcolorlowpass", gst_cl_color_lowpass_get_type},
    {"clhistogram", gst_cl_histogram_get_type},
    {"clcontrast", gst_cl_contrast_get_type},
    {"clsmooth", gst_cl_smooth_get_type},
    {"clmotionsearch", gst_cl_motion_search_element_get_type},
    {"clmpegenc", gst_cl_mpeg_enc_get_type},
  };
  gboolean ok = TRUE;
  guint mpeg_rank, i;

  GST_DEBUG_CATEGORY_INIT (gst_cl_plugin_debug, "clplugin", 0,
      "clvideo plugin registration");
  gst_cl_video_register_kernels ();
  /* The registry keeps the ranks below: it is rebuilt when the OpenCL
   * drivers installed change. */
  gst_plugin_add_dependency (plugin, icd_env, icd_paths, icd_suffixes,
      GST_PLUGIN_DEPENDENCY_FLAG_FILE_NAME_IS_SUFFIX);
  /* clmpegenc is offered to autoplugging (encodebin, transcoders) where
   * OpenCL has a device; the filters are not autoplugged */
  mpeg_rank = have_cl_device ()? GST_RANK_PRIMARY : GST_RANK_NONE;

  for (i = 0; i < G_N_ELEMENTS (elements); i++) {
    guint rank = g_str_equal (elements[i].name, "clmpegenc") ? mpeg_rank :
        GST_RANK_NONE;
    ok &= gst_element_register (plugin, elements[i].name, rank,
        elements[i].get_type ());
  }
  return ok;
}

GST_PLUGIN_DEFINE (GST_VERSION_MAJOR, GST_VERSION_MINOR, clvideo,
    "OpenCL video processing: conversion, filters, motion search, MPEG-1",
    plugin_init, VERSION, GST_LICENSE, GST_PACKAGE_NAME, GST_PACKAGE_ORIGIN)
