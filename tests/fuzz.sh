#!/usr/bin/env bash
# gst-clvideo: build the libFuzzer targets with clang and run each one over
# its corpus and then for a bounded time.
# SPDX-License-Identifier: LGPL-2.1-or-later
#
# Usage: tests/fuzz.sh [meson test arguments, e.g. fuzz-mpegcheck]
# Environment: FUZZ_BUILD_DIR (default build-fuzz), FUZZ_SECONDS (how long
# each target fuzzes after its corpus, default 60).
# As root, missing Debian packages (clang, its libFuzzer) are installed
# first.
#
# The targets (tests/fuzz/fuzz-*.c) are built with
# -fsanitize=fuzzer,address,undefined; a crash, a sanitizer report, a
# leak, an input running over 10 s or a failed check of the target fails
# the test and leaves the input in the build directory
# (tests/fuzz/NAME-crash-*). Inputs that add coverage go to
# tests/fuzz/corpus-NAME in the build directory, never to the source tree.
set -euo pipefail

export BUILD_DIR="${FUZZ_BUILD_DIR:-build-fuzz}"
export CC=clang
# llvm: llvm-symbolizer, for the reports' stack traces
CLVIDEO_EXTRA_PACKAGES=(clang libclang-rt-14-dev llvm)
# (no GObject introspection: the targets do not use it)
CLVIDEO_MESON_OPTIONS=(-Dfuzzing=enabled -Dtests=disabled
  -Dintrospection=disabled)

# shellcheck source=pipelines/setup.sh
. "$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)/../pipelines/setup.sh" || exit 1

seconds="${FUZZ_SECONDS:-60}"
current="$(meson introspect --buildoptions "$CLVIDEO_BUILD" |
  python3 -c 'import json, sys
options = {o["name"]: o["value"] for o in json.load(sys.stdin)}
print(options.get("fuzzing", ""), options.get("fuzz_seconds", ""))')"
if [ "$current" != "enabled $seconds" ]; then
  meson configure "$CLVIDEO_BUILD" -Dfuzzing=enabled -Dfuzz_seconds="$seconds"
fi

cd "$CLVIDEO_ROOT"
status=0
meson test -C "$CLVIDEO_BUILD" --print-errorlogs --num-processes 2 \
  --suite fuzz "$@" || status=$?
exit "$status"
