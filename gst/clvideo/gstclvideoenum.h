/* gst-clvideo: the plugin's enum types
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#pragma once

#include <glib-object.h>

G_BEGIN_DECLS

/* Registers the enum type @name with @values (ending with {0, NULL,
 * NULL}) the first time and stores it in *@type; returns *@type. @type
 * and @values are the caller's statics. MT safe. */
GType gst_cl_video_enum_type (GType * type, const gchar * name,
    const GEnumValue * values);

G_END_DECLS
