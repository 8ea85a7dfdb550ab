/* gst-clvideo: kernel sources
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "gstclprogram-private.h"
#include <gst/cl/gstclerror.h>

#include <string.h>

/* the tables of gst_cl_kernel_sources_register(), first registered first */
static GMutex tables_lock;
static GPtrArray *tables;

void
gst_cl_kernel_sources_register (const GstClKernelSource * table)
{
  g_mutex_lock (&tables_lock);
  if (!tables)
    tables = g_ptr_array_new ();
  if (!g_ptr_array_find (tables, table, NULL))
    g_ptr_array_add (tables, (gpointer) table);
  g_mutex_unlock (&tables_lock);
}

/* the registered source of @name, or NULL */
static gchar *
find_registered_source (const gchar * name)
{
  gchar *text = NULL;
  guint t, i;

  g_mutex_lock (&tables_lock);
  for (t = 0; tables && t < tables->len && !text; t++) {
    const GstClKernelSource *table = g_ptr_array_index (tables, t);
    for (i = 0; table[i].name && !text; i++) {
      if (g_str_equal (table[i].name, name))
        text = g_strdup (table[i].source);
    }
  }
  g_mutex_unlock (&tables_lock);
  return text;
}

/* the file name of source @name: NAME.cl, or a header's own name */
static gchar *
source_file_name (const gchar * name)
{
  return g_str_has_suffix (name, ".h") ? g_strdup (name) :
      g_strconcat (name, ".cl", NULL);
}

/* the text of kernels/NAME.cl (or of header NAME.h), as it is */
static gchar *
read_source (const gchar * name, GError ** error)
{
  const gchar *dir = g_getenv (GST_CL_KERNEL_DIR_ENV);
  gchar *text;

  if (dir && *dir) {
    gchar *file = source_file_name (name);
    gchar *path = g_build_filename (dir, file, NULL);
    gchar *text = NULL;
    g_free (file);
    if (g_file_test (path, G_FILE_TEST_EXISTS)) {
      GError *err = NULL;
      if (!g_file_get_contents (path, &text, NULL, &err)) {
        g_set_error (error, GST_CL_ERROR, GST_CL_ERROR_KERNEL_SOURCE,
            "Cannot read kernel source %s: %s", path, err->message);
        g_error_free (err);
      }
      g_free (path);
      return text;
    }
    g_free (path);
  }

  text = find_registered_source (name);
  if (text)
    return text;
  g_set_error (error, GST_CL_ERROR, GST_CL_ERROR_KERNEL_SOURCE,
      "No OpenCL kernel source named '%s'", name);
  return NULL;
}

/* deepest nesting of includes: deeper is taken for a cycle */
#define MAX_INCLUDE_DEPTH 8

/* The source named by line @l when it is '#include "OTHER.cl"' (OTHER)
 * or '#include "OTHER.h"' (a header shared with the host, OTHER.h), else
 * NULL. */
static gchar *
included_name (const gchar * l)
{
  const gchar *start, *end;

  while (*l == ' ' || *l == '\t')
    l++;
  if (!g_str_has_prefix (l, "#include \""))
    return NULL;
  start = l + strlen ("#include \"");
  end = strchr (start, '"');
  if (!end)
    return NULL;
  if (end - start > 3 && g_str_has_prefix (end - 3, ".cl\""))
    return g_strndup (start, end - 3 - start);
  if (end - start > 2 && g_str_has_prefix (end - 2, ".h\""))
    return g_strndup (start, end - start);
  return NULL;
}

/* @text with every line '#include "OTHER.cl"' or '#include "OTHER.h"'
 * replaced by that source, looked up as @text was: helpers shared by
 * several programs, and the structures shared with the host, live in one
 * file and every compiler still gets one self-contained string. #line
 * directives keep the build log's line numbers those of the files. Takes
 * @text. */
static gchar *
expand_includes (const gchar * name, gchar * text, guint depth,
    GError ** error)
{
  GString *out;
  gchar **lines, *file;
  guint i;

  if (!strstr (text, "#include"))
    return text;
  file = source_file_name (name);
  if (depth >= MAX_INCLUDE_DEPTH) {
    g_set_error (error, GST_CL_ERROR, GST_CL_ERROR_KERNEL_SOURCE,
        "Kernel source %s: includes nested deeper than %d (a cycle?)",
        file, MAX_INCLUDE_DEPTH);
    g_free (file);
    g_free (text);
    return NULL;
  }
  out = g_string_sized_new (strlen (text));
  lines = g_strsplit (text, "\n", -1);
  g_free (text);
  for (i = 0; lines[i]; i++) {
    gchar *other = included_name (lines[i]), *other_file, *included;

    if (!other) {
      g_string_append (out, lines[i]);
      if (lines[i + 1])
        g_string_append_c (out, '\n');
      continue;
    }
    included = read_source (other, error);
    if (included)
      included = expand_includes (other, included, depth + 1, error);
    if (!included) {
      g_free (other);
      g_free (file);
      g_strfreev (lines);
      g_string_free (out, TRUE);
      return NULL;
    }
    other_file = source_file_name (other);
    g_string_append_printf (out, "#line 1 \"%s\"\n%s\n#line %u \"%s\"\n",
        other_file, included, i + 2, file);
    g_free (other_file);
    g_free (included);
    g_free (other);
  }
  g_free (file);
  g_strfreev (lines);
  return g_string_free (out, FALSE);
}

gchar *
gst_cl_kernel_source_lookup (const gchar * name, GError ** error)
{
  gchar *text = read_source (name, error);

  return text ? expand_includes (name, text, 0, error) : NULL;
}
