#!/usr/bin/env python3
# gst-clvideo: element reference tables of docs/usage.md from gst-inspect-1.0
# SPDX-License-Identifier: LGPL-2.1-or-later
"""Writes the pad and property tables of docs/usage.md from what
gst-inspect-1.0 says of the built plugin, between the markers

  <!-- gst-inspect ELEMENT begin ... -->
  <!-- gst-inspect ELEMENT end -->

and leaves the prose around them as it is.

  gen-element-docs.py [--builddir BUILDDIR] [--check] [USAGE_MD]

--builddir takes the plugin from BUILDDIR/gst (otherwise GST_PLUGIN_PATH
says where it is); --check writes nothing and exits 1, with a diff, when
the file differs from what would be written. USAGE_MD defaults to the
docs/usage.md next to this script.

Only what is the same on any machine is written: the elements' own
properties and those of the OpenCL base class (not GstObject's nor those
GStreamer's base classes add, which vary with the GStreamer version), the
declared defaults (not what "auto" resolves to on a device) and the pad
templates. Every element of the plugin needs a pair of markers.
"""

import argparse
import difflib
import os
import re
import subprocess
import sys
import tempfile

# GstObject's properties and those of GStreamer's base classes
INHERITED = {'name', 'parent', 'qos', 'min-force-key-unit-interval'}
CHANGEABLE = {
    'changeable in NULL, READY, PAUSED or PLAYING state': 'while playing',
    'changeable only in NULL, READY or PAUSED state': 'in NULL to PAUSED',
    'changeable only in NULL or READY state': 'in NULL, READY',
}
MARKER = re.compile(r'^<!-- gst-inspect (\S+) begin\b.*?-->\n(.*?)'
                    r'^<!-- gst-inspect \1 end -->$', re.M | re.S)
BEGIN = ('<!-- gst-inspect %s begin: written by docs/gen-element-docs.py '
         'from gst-inspect-1.0, do not edit -->\n')
REGEN = 'python3 docs/gen-element-docs.py --builddir build'


def inspect(args, env):
    res = subprocess.run(['gst-inspect-1.0'] + args, env=env,
                         stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                         timeout=120)
    if res.returncode != 0:
        sys.exit('gst-inspect-1.0 %s failed (exit %d): %s'
                 % (' '.join(args), res.returncode,
                    res.stderr.decode('utf-8', 'replace').strip()))
    return res.stdout.decode('utf-8')


def plugin_elements(env):
    text = inspect(['clvideo'], env)
    return sorted(re.findall(r'^  (\w+): ', text, re.M))


def section(text, title):
    """The lines of a top-level section of gst-inspect's output."""
    m = re.search(r'^%s:\n(.*?)(?=^\S|\Z)' % re.escape(title), text,
                  re.M | re.S)
    return m.group(1).split('\n') if m else []


# ---- caps ----

def value_text(v):
    v = v.strip()
    m = re.match(r'^\{ (.*) \}$', v)
    if m:
        return ', '.join('`%s`' % re.sub(r'^\(\w+\)', '', x.strip())
                         for x in m.group(1).split(','))
    m = re.match(r'^\[ (.*), (.*) \]$', v)
    if m:
        return '%s to %s' % (m.group(1).strip(), m.group(2).strip())
    return '`%s`' % re.sub(r'^\(\w+\)', '', v)


def caps_text(lines):
    """Structures with the same fields are one, their names joined."""
    structs = []
    for line in lines:
        if not line.strip():
            continue
        m = re.match(r'^\s+([\w-]+): (.*)$', line)
        if m and structs and re.match(r'^\s{8,}', line):
            structs[-1][1].append('%s %s' % (m.group(1),
                                             value_text(m.group(2))))
        else:
            structs.append((line.strip(), []))
    merged = []
    for name, fields in structs:
        for other in merged:
            if other[1] == fields:
                other[0].append(name)
                break
        else:
            merged.append(([name], fields))
    return '; '.join(' or '.join('`%s`' % n for n in names) +
                     (': ' + ', '.join(fields) if fields else '')
                     for names, fields in merged)


def pad_table(text):
    rows, lines, i = [], section(text, 'Pad Templates'), 0
    while i < len(lines):
        m = re.match(r"^  (\w+) template: '([^']*)'", lines[i])
        if not m:
            i += 1
            continue
        direction, name, avail, caps = m.group(1).lower(), m.group(2), '', []
        i += 1
        while i < len(lines) and not re.match(r'^  \S', lines[i]):
            a = re.match(r'^\s+Availability: (.*)', lines[i])
            if a:
                avail = a.group(1).lower()
            elif not re.match(r'^\s+Capabilities:', lines[i]):
                caps.append(lines[i])
            i += 1
        rows.append('| `%s` | %s, %s | %s |'
                    % (name, direction, avail, caps_text(caps)))
    return ['| pad | direction | caps |', '|-----|-----------|------|'] + rows


# ---- properties ----

def number(s):
    s = s.strip()
    if re.match(r'^-?\d+$', s):
        return s
    return '%g' % float(s)


def type_cells(lines):
    """(type, default, range or values) from a property's type lines."""
    head = lines[0].strip() if lines else ''
    m = re.match(r'^Enum "(\w+)" Default: (-?\d+), "([^"]*)"', head)
    if m:
        values = []
        for line in lines[1:]:
            v = re.match(r'^\s+\((-?\d+)\): (\S+)\s+- (.*)$', line)
            if v:
                values.append('`%s`: %s' % (v.group(2), v.group(3).strip()))
        return 'enum `%s`' % m.group(1), '`%s`' % m.group(3), \
            '; '.join(values)
    m = re.match(r'^Flags "(\w+)" Default: \S+, "([^"]*)"', head)
    if m:
        return 'flags `%s`' % m.group(1), '`%s`' % m.group(2), ''
    m = re.match(r'^([\w ]+?)\. Range: (.*?) - (.*?) Default: (.*?)\s*$',
                 head)
    if m:
        return m.group(1).lower(), '`%s`' % number(m.group(4)), \
            '%s to %s' % (number(m.group(2)), number(m.group(3)))
    m = re.match(r'^(\w+)\. Default: (.*?)\s*$', head)
    if m:
        return m.group(1).lower(), '`%s`' % m.group(2).strip('"'), ''
    m = re.match(r'^Boxed pointer of type "(\w+)"', head)
    if m:
        return '`%s`' % m.group(1), '', ''
    m = re.match(r'^Object of type "(\w+)"', head)
    if m:
        return 'object `%s`' % m.group(1), '', ''
    sys.exit('gen-element-docs.py: unknown property type line %r' % head)


def changeable(flags):
    words = [f.strip() for f in flags.split(',')]
    out = []
    if 'writable' not in words:
        out.append('read only')
    for phrase, text in CHANGEABLE.items():
        if phrase in flags:
            out.append(text)
    if 'controllable' in words:
        out.append('controllable')
    return ', '.join(out)


def cell(s):
    return s.replace('|', '\\|')


def property_table(text):
    props, cur = [], None
    for line in section(text, 'Element Properties'):
        m = re.match(r'^  (\S[^:]*?)\s*: (.*)$', line)
        if m:
            cur = {'name': m.group(1), 'blurb': m.group(2), 'flags': '',
                   'type': []}
            props.append(cur)
        elif cur is not None and line.strip():
            f = re.match(r'^\s+flags: (.*)$', line)
            if f and not cur['flags']:
                cur['flags'] = f.group(1)
            else:
                cur['type'].append(line)
    rows = []
    for p in sorted(props, key=lambda p: p['name']):
        if p['name'] in INHERITED:
            continue
        typ, default, values = type_cells(p['type'])
        rows.append('| `%s` | %s | %s | %s | %s | %s |'
                    % (p['name'], typ, default, cell(values),
                       changeable(p['flags']), cell(p['blurb'])))
    return ['| property | type | default | range or values | changeable '
            '| description |',
            '|----------|------|---------|-----------------|------------'
            '|-------------|'] + rows


def generated(element, env):
    text = inspect([element], env)
    return '\n'.join([''] + pad_table(text) + [''] + property_table(text) +
                     ['', ''])


def regenerate(usage, env):
    elements = plugin_elements(env)
    if not elements:
        sys.exit('gst-inspect-1.0 lists no element of the clvideo plugin: '
                 'is GST_PLUGIN_PATH (or --builddir) right, and is there an '
                 'OpenCL device?')
    missing = [e for e in elements
               if not re.search(r'^<!-- gst-inspect %s begin\b' % e, usage,
                                re.M)]
    if missing:
        sys.exit('docs/usage.md has no markers for %s' % ', '.join(missing))

    def block(m):
        if m.group(1) not in elements:
            sys.exit('docs/usage.md has markers for %s, which the plugin '
                     'does not have' % m.group(1))
        return (BEGIN % m.group(1) + generated(m.group(1), env) +
                '<!-- gst-inspect %s end -->' % m.group(1))
    return MARKER.sub(block, usage)


def main():
    here = os.path.dirname(os.path.abspath(__file__))
    ap = argparse.ArgumentParser(description=__doc__.split('\n')[0])
    ap.add_argument('--builddir')
    ap.add_argument('--check', action='store_true')
    ap.add_argument('usage', nargs='?', default=os.path.join(here, 'usage.md'))
    args = ap.parse_args()

    env = dict(os.environ, GST_INSPECT_NO_COLORS='1', PAGER='cat')
    tmp = None
    if args.builddir:
        tmp = tempfile.TemporaryDirectory(prefix='gen-element-docs-')
        env['GST_PLUGIN_PATH'] = os.path.join(
            os.path.abspath(args.builddir), 'gst')
        env['GST_REGISTRY'] = os.path.join(tmp.name, 'registry.bin')

    with open(args.usage, encoding='utf-8') as f:
        old = f.read()
    new = regenerate(old, env)
    if args.check:
        if new == old:
            print('%s: the generated parts are up to date' % args.usage)
            return 0
        sys.stdout.writelines(difflib.unified_diff(
            old.splitlines(True), new.splitlines(True), args.usage,
            args.usage + ' (regenerated)'))
        print('\n%s: the generated parts differ from what gst-inspect-1.0 '
              'says of the plugin now; regenerate them with\n  %s\nand '
              'commit the result (move anything the prose must say outside '
              'the markers)' % (args.usage, REGEN))
        return 1
    if new != old:
        with open(args.usage, 'w', encoding='utf-8') as f:
            f.write(new)
    return 0


if __name__ == '__main__':
    sys.exit(main())
