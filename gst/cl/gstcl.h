/* gst-clvideo: the OpenCL runtime library, all of its public headers
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#pragma once

#include <gst/cl/cl-prelude.h>
#include <gst/cl/gstclerror.h>
#include <gst/cl/gstclcontext.h>
#include <gst/cl/gstclmemory.h>
#include <gst/cl/gstclhostmemory.h>
#include <gst/cl/gstclbufferpool.h>
#include <gst/cl/gstclfilter.h>
#include <gst/cl/gstclreadback.h>
#include <gst/cl/gstclhistogrammeta.h>
#include <gst/cl/gstclmotionmeta.h>
