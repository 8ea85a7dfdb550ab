#!/usr/bin/env bash
# gst-clvideo: the test suite under AddressSanitizer and
# UndefinedBehaviorSanitizer.
# SPDX-License-Identifier: LGPL-2.1-or-later
#
# Usage: tests/sanitize.sh [meson test arguments, e.g. a test name]
# Environment: SANITIZE_BUILD_DIR (default build-sanitize), GST_CL_DEVICE;
# ASAN_OPTIONS, UBSAN_OPTIONS and LSAN_OPTIONS are added to ours.
# As root, missing Debian packages are installed first.
#
# The build directory is configured with GCC, -Db_sanitize=address,undefined
# and -Db_lundef=false (the plugin takes the runtimes' symbols from the
# process). GCC links the runtimes as shared libraries, so programs that
# were not built with them but load the plugin (gst-plugin-scanner,
# gst-launch-1.0) need them loaded first: tests/meson.build writes wrappers
# for these two that preload them, and gives them to the tests of such a
# build.
#
# The C references the tests compare with (tests/*-ref.c) are built
# without the sanitizers: they are the tests' oracles (tests/meson.build).
#
# Every report fails its test: AddressSanitizer stops at the first error,
# UndefinedBehaviorSanitizer too (halt_on_error), LeakSanitizer reports at
# exit, but for the system libraries' leaks in tests/lsan.supp.
set -euo pipefail

export BUILD_DIR="${SANITIZE_BUILD_DIR:-build-sanitize}"
export CC=gcc
# no GObject introspection: the scanner runs a program linked with the
# sanitized library at build time, which would need the runtimes preloaded
CLVIDEO_MESON_OPTIONS=(-Db_sanitize=address,undefined -Db_lundef=false
  -Dintrospection=disabled
  -Dtests=enabled)

# shellcheck source=pipelines/setup.sh
. "$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)/../pipelines/setup.sh" || exit 1

sanitize="$(meson introspect --buildoptions "$CLVIDEO_BUILD" |
  python3 -c 'import json, sys
print(next((o["value"] for o in json.load(sys.stdin) if o["name"] == "b_sanitize"), ""))')"
if [ "$sanitize" != "address,undefined" ]; then
  echo "sanitize: $CLVIDEO_BUILD is configured with b_sanitize=$sanitize," \
    "not address,undefined" >&2
  exit 1
fi

# fast_unwind_on_malloc=0: GLib and GStreamer are built without frame
# pointers; the fast unwinder stops at g_malloc, which would leave a leak
# without the frames of ours that a suppression must not match.
# intercept_tls_get_addr=0: GCC 12's runtime takes some of glibc's dynamic
# TLS blocks for an old glibc's and hands LeakSanitizer a range that is not
# mapped ("Tracer caught signal 11" in many test processes,
# google/sanitizers#1322). Dynamic TLS is then scanned only as the heap
# chunks it is made of; our code keeps nothing in thread-local storage.
export ASAN_OPTIONS="detect_leaks=1:fast_unwind_on_malloc=0:intercept_tls_get_addr=0${ASAN_OPTIONS:+:$ASAN_OPTIONS}"
export UBSAN_OPTIONS="halt_on_error=1:print_stacktrace=1${UBSAN_OPTIONS:+:$UBSAN_OPTIONS}"
export LSAN_OPTIONS="suppressions=$CLVIDEO_ROOT/tests/lsan.supp:print_suppressions=0${LSAN_OPTIONS:+:$LSAN_OPTIONS}"

# the sanitizers make the tests about twice as slow: twice the time limits
# (meson's for each test, check's for each test case)
export CK_TIMEOUT_MULTIPLIER=2

cd "$CLVIDEO_ROOT"
status=0
# (without arguments, all tests but the suite 'unsanitized': see
# tests/meson.build)
[ "$#" -gt 0 ] || set -- --no-suite unsanitized
meson test -C "$CLVIDEO_BUILD" --no-rebuild --print-errorlogs \
  --num-processes 2 --timeout-multiplier 2 "$@" || status=$?
exit "$status"
