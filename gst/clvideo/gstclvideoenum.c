/* gst-clvideo: the plugin's enum types
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "gstclvideoenum.h"

GType
gst_cl_video_enum_type (GType * type, const gchar * name,
    const GEnumValue * values)
{
  if (g_once_init_enter (type)) {
    GType t = g_enum_register_static (name, values);
    g_once_init_leave (type, t);
  }
  return *type;
}
