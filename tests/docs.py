#!/usr/bin/env python3
# SPDX-License-Identifier: LGPL-2.1-or-later
"""Runs what README.md and docs/*.md show, so that the docs stay true.

  docs.py pipelines SRCDIR BUILDDIR       every gst-launch-1.0 and
      gst-inspect-1.0 line of the docs' code blocks, headless: display
      sinks become fakesink, videotestsrc sends at most MAX_BUFFERS
      buffers, files are read and written in a temporary directory
  docs.py c-example SRCDIR BUILDDIR       README's C program, built and run
      by the README's shell block that follows it, against the build tree
  docs.py python-example SRCDIR BUILDDIR  the Python example of
      docs/usage.md (exit 77, a skip, without python3-gi or python3-gst-1.0)
  docs.py lists SRCDIR BUILDDIR           the lists in the docs against the
      sources: packages, elements, debug categories
  docs.py element-tables SRCDIR BUILDDIR  docs/usage.md's pad and property
      tables against what docs/gen-element-docs.py writes from
      gst-inspect-1.0 of the built plugin

A code block after a line '<!-- not run: REASON -->' is not run; the
test prints it with its reason. Everything else must pass: an example that
needs what a headless machine without a GPU lacks (a camera, a display
that fakesink cannot stand for, the network, a source other than
videotestsrc that never ends) must carry the marker.
"""

import os
import re
import shlex
import subprocess
import sys
import tempfile
import time

MAX_BUFFERS = 10
DISPLAY_SINKS = {'autovideosink', 'xvimagesink', 'ximagesink', 'glimagesink'}
TIMEOUT = 60
SKIP = 77
# inputs that examples read, made in the temporary directory first
INPUTS = {
    'photo.png': 'videotestsrc num-buffers=1 pattern=smpte ! '
                 'video/x-raw,width=320,height=240 ! videoconvert ! pngenc ! '
                 'filesink location=photo.png',
}


class Block:
    def __init__(self, path, line, lang, text, not_run):
        self.path, self.line, self.lang = path, line, lang
        self.text, self.not_run = text, not_run


def code_blocks(path):
    """The fenced code blocks of a Markdown file, in order."""
    blocks, lines = [], open(path, encoding='utf-8').read().split('\n')
    i, marker = 0, None
    while i < len(lines):
        m = re.match(r'<!--\s*not run:\s*(.*?)\s*-->', lines[i])
        if m:
            marker = m.group(1)
        elif lines[i].startswith('```'):
            lang, start, body = lines[i][3:].strip(), i + 1, []
            i += 1
            while i < len(lines) and not lines[i].startswith('```'):
                body.append(lines[i])
                i += 1
            blocks.append(Block(path, start, lang, '\n'.join(body), marker))
            marker = None
        elif lines[i].strip():
            marker = None
        i += 1
    return blocks


def doc_files(srcdir):
    docs = os.path.join(srcdir, 'docs')
    return [os.path.join(srcdir, 'README.md')] + sorted(
        os.path.join(docs, f) for f in os.listdir(docs) if f.endswith('.md'))


def shell_lines(text):
    """The commands of a shell block, continuation lines joined, each with
    the offset of its first line in the block."""
    out, cur, first = [], '', 0
    for n, line in enumerate(text.split('\n')):
        if not cur:
            first = n
        if line.endswith('\\'):
            cur += line[:-1] + ' '
            continue
        cur += line
        if cur.strip() and not cur.lstrip().startswith('#'):
            out.append((first, cur.strip()))
        cur = ''
    return out


def headless(argv):
    """@argv (a gst-launch-1.0 command) with display sinks replaced and
    every videotestsrc bounded to MAX_BUFFERS buffers."""
    out, i = [], 0
    while i < len(argv):
        tok = argv[i]
        out.append('fakesink' if tok in DISPLAY_SINKS else tok)
        if tok == 'videotestsrc':
            props, j = [], i + 1
            while j < len(argv) and argv[j] != '!':
                props.append(argv[j])
                j += 1
            kept = [p for p in props if not p.startswith('num-buffers=')]
            given = [int(p.split('=', 1)[1]) for p in props
                     if p.startswith('num-buffers=')]
            n = min(given + [MAX_BUFFERS])
            out += kept + ['num-buffers=%d' % n]
            i = j
            continue
        if tok.startswith('location=') and os.path.isabs(tok[9:]):
            out[-1] = 'location=' + os.path.basename(tok[9:])
        i += 1
    return out


def run_pipelines(srcdir, builddir):
    tmp = tempfile.mkdtemp(prefix='docs-pipelines-')
    env = dict(os.environ)
    for name, pipeline in INPUTS.items():
        subprocess.run(['gst-launch-1.0', '-q'] + shlex.split(pipeline),
                       cwd=tmp, env=env, check=True, timeout=TIMEOUT,
                       stdout=subprocess.DEVNULL)
    failed, ran, not_run = [], 0, []
    start = time.monotonic()
    for block in [b for f in doc_files(srcdir) for b in code_blocks(f)]:
        if block.lang not in ('sh', 'bash', 'shell'):
            continue
        for offset, line in shell_lines(block.text):
            where = '%s:%d' % (os.path.relpath(block.path, srcdir),
                               block.line + 1 + offset)
            argv = shlex.split(line)
            cmd_env = dict(env)
            while argv and re.match(r'^[A-Z_][A-Z0-9_]*=', argv[0]):
                key, value = argv.pop(0).split('=', 1)
                cmd_env[key] = value
            if not argv or argv[0] not in ('gst-launch-1.0',
                                           'gst-inspect-1.0'):
                continue
            if block.not_run:
                not_run.append((where, block.not_run, line))
                continue
            if argv[0] == 'gst-launch-1.0':
                argv = headless(argv)
            t0 = time.monotonic()
            try:
                res = subprocess.run(argv, cwd=tmp, env=cmd_env,
                                     stdout=subprocess.PIPE,
                                     stderr=subprocess.STDOUT,
                                     timeout=TIMEOUT)
                ok, output = res.returncode == 0, res.stdout.decode(
                    'utf-8', 'replace')
            except subprocess.TimeoutExpired:
                ok, output = False, 'timed out after %d s' % TIMEOUT
            ran += 1
            print('%s %s (%.1f s): %s' % ('ok  ' if ok else 'FAIL', where,
                  time.monotonic() - t0, ' '.join(argv)), flush=True)
            if not ok:
                failed.append((where, line, output[-2000:]))
    for where, reason, line in not_run:
        print('not run (%s) %s: %s' % (reason, where, line))
    print('%d lines run in %.0f s, %d failed, %d not run' % (
        ran, time.monotonic() - start, len(failed), len(not_run)))
    for where, line, output in failed:
        print('\nFAILED %s: %s\n%s' % (where, line, output))
    return 1 if failed or ran == 0 else 0


def readme_blocks(srcdir):
    return code_blocks(os.path.join(srcdir, 'README.md'))


def run_c_example(srcdir, builddir):
    """Writes README's C block to app.c and runs the shell block after it
    (the build tree's variables, the cc line, ./app) in a temporary
    directory, $PWD/build standing for the build directory."""
    blocks = readme_blocks(srcdir)
    idx = [i for i, b in enumerate(blocks) if b.lang == 'c']
    if len(idx) != 1:
        print('README.md should hold one C block, has %d' % len(idx))
        return 1
    script = next((b for b in blocks[idx[0] + 1:] if b.lang == 'sh'), None)
    if script is None or not re.search(r'^cc ', script.text, re.M):
        print('no shell block with a cc line after README.md\'s C block')
        return 1
    tmp = tempfile.mkdtemp(prefix='docs-c-example-')
    with open(os.path.join(tmp, 'app.c'), 'w', encoding='utf-8') as f:
        f.write(blocks[idx[0]].text + '\n')
    text = script.text.replace('$PWD/build', os.path.abspath(builddir))
    print(text)
    env = dict(os.environ, GST_DEBUG='clcontext:4')
    res = subprocess.run(['bash', '-e', '-x', '-c', text], cwd=tmp, env=env,
                         stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                         timeout=300)
    output = res.stdout.decode('utf-8', 'replace')
    print(output)
    if res.returncode != 0:
        print('the README\'s C example failed (exit %d)' % res.returncode)
        return 1
    # the application's context, and no other: the elements took it
    created = output.count('created context on')
    if created != 1 or 'ran on ' not in output:
        print('expected one context, the application\'s, and "ran on": '
              '%d created' % created)
        return 1
    return 0


def run_python_example(srcdir, builddir):
    """Runs the Python block of docs/usage.md with this interpreter."""
    blocks = [b for b in code_blocks(os.path.join(srcdir, 'docs', 'usage.md'))
              if b.lang == 'python']
    if len(blocks) != 1:
        print('docs/usage.md should hold one Python block, has %d'
              % len(blocks))
        return 1
    probe = subprocess.run([sys.executable, '-c',
                            'import gi, os, gi.overrides as o\n'
                            'gi.require_version("Gst", "1.0")\n'
                            'from gi.repository import Gst\n'
                            'assert any(os.path.exists(os.path.join(p, '
                            '"Gst.py")) for p in o.__path__)'],
                           stdout=subprocess.DEVNULL,
                           stderr=subprocess.DEVNULL)
    if probe.returncode != 0:
        print('SKIP: the Python example needs python3-gi and '
              'python3-gst-1.0 (GStreamer\'s overrides, which read array '
              'fields) for %s; install them to run it' % sys.executable)
        return SKIP
    tmp = tempfile.mkdtemp(prefix='docs-python-example-')
    script = os.path.join(tmp, 'histogram.py')
    with open(script, 'w', encoding='utf-8') as f:
        f.write(blocks[0].text + '\n')
    res = subprocess.run([sys.executable, script], cwd=tmp,
                         stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                         timeout=300)
    output = res.stdout.decode('utf-8', 'replace')
    print(output)
    lines = [l for l in output.split('\n') if re.match(r'^\d+ ', l)]
    if res.returncode != 0 or not lines:
        print('the Python example failed (exit %d, %d result lines)'
              % (res.returncode, len(lines)))
        return 1
    return 0


def paragraph_with(path, pattern):
    """The paragraph (or list item) of @path that matches @pattern."""
    text = open(path, encoding='utf-8').read()
    for para in re.split(r'\n\s*\n|\n(?=- )', text):
        if re.search(pattern, para):
            return para
    return ''


def check_lists(srcdir, builddir):
    errors = []
    readme = os.path.join(srcdir, 'README.md')
    usage = os.path.join(srcdir, 'docs', 'usage.md')

    # the packages pipelines/setup.sh installs, as README.md lists them
    setup = open(os.path.join(srcdir, 'pipelines', 'setup.sh')).read()
    array = re.search(r'CLVIDEO_PACKAGES=\((.*?)\n\)', setup, re.S).group(1)
    packages = [w for line in array.split('\n')
                for w in line.split('#', 1)[0].split()]
    para = paragraph_with(readme, r'The packages are')
    m = re.search(r'The packages are.*?:\s*`([^`]*)`', para, re.S)
    listed = m.group(1).split() if m else []
    if listed != packages:
        errors.append('README.md lists the packages %s; setup.sh installs %s'
                      % (listed, packages))

    # every element of the plugin, in usage.md's opening lines and README
    plugin = open(os.path.join(srcdir, 'gst', 'clvideo', 'plugin.c')).read()
    sources = ''.join(open(os.path.join(root, f)).read()
                      for root, _, files in os.walk(os.path.join(srcdir, 'gst'))
                      for f in files if f.endswith('.c'))
    elements = sorted(set(re.findall(
        r'\{\s*"(\w+)"\s*,\s*gst_\w+_get_type\s*\}', plugin)))
    opening = paragraph_with(usage, r'elements of the `clvideo` plugin')
    for e in elements:
        if '`%s`' % e not in opening:
            errors.append('docs/usage.md\'s opening paragraph misses `%s`'
                          % e)
        if '| `%s`' % e not in open(readme).read():
            errors.append('README.md\'s element table misses `%s`' % e)
    if not elements:
        errors.append('no elements found in gst/clvideo/plugin.c\'s table')

    # every debug category, where the docs list them
    categories = sorted(set(re.findall(
        r'GST_DEBUG_CATEGORY_INIT\s*\(\s*\w+\s*,\s*"(\w+)"', sources)))
    for path, pattern in ((readme, r'[Dd]ebug categories'),
                          (usage, r'Debug categories:')):
        para = paragraph_with(path, pattern)
        named = set(re.findall(r'`(\w+)`', para))
        for c in categories:
            if c not in named:
                errors.append('%s\'s list of debug categories misses `%s`'
                              % (os.path.relpath(path, srcdir), c))
        for c in sorted(named - set(categories) - set(elements)):
            if c.startswith('cl'):
                errors.append('%s names a debug category `%s` that gst/ '
                              'does not define'
                              % (os.path.relpath(path, srcdir), c))

    # the encoder's property is "quantizer", as gst-inspect shows it
    for path in doc_files(srcdir):
        for n, line in enumerate(open(path, encoding='utf-8'), 1):
            if re.search(r'`quantiser\b|\bquantiser=', line):
                errors.append('%s:%d names the property "quantiser": %s'
                              % (os.path.relpath(path, srcdir), n,
                                 line.strip()))
    for e in errors:
        print(e)
    print('%d elements, %d debug categories, %d packages; %d errors'
          % (len(elements), len(categories), len(packages), len(errors)))
    return 1 if errors else 0


def check_element_tables(srcdir, builddir):
    """The generated parts of docs/usage.md, as the generator would write
    them now (it prints the difference and how to regenerate)."""
    env = dict(os.environ,
               GST_PLUGIN_PATH=os.path.join(os.path.abspath(builddir), 'gst'))
    res = subprocess.run([sys.executable,
                          os.path.join(srcdir, 'docs', 'gen-element-docs.py'),
                          '--check', os.path.join(srcdir, 'docs', 'usage.md')],
                         env=env, timeout=TIMEOUT * 5)
    return 1 if res.returncode else 0


def main():
    modes = {'pipelines': run_pipelines, 'c-example': run_c_example,
             'python-example': run_python_example, 'lists': check_lists,
             'element-tables': check_element_tables}
    if len(sys.argv) != 4 or sys.argv[1] not in modes:
        print(__doc__)
        return 2
    return modes[sys.argv[1]](sys.argv[2], sys.argv[3])


if __name__ == '__main__':
    sys.exit(main())
