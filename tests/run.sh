#!/usr/bin/env bash
# gst-clvideo: build and run the test suite.
# SPDX-License-Identifier: LGPL-2.1-or-later
#
# Usage: tests/run.sh [meson test arguments, e.g. a test name]
# Environment: BUILD_DIR (default build), GST_CL_DEVICE (device to test on).
# As root, missing Debian packages are installed first.
set -euo pipefail

# shellcheck source=pipelines/setup.sh
. "$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)/../pipelines/setup.sh" || exit 1

# A build directory configured with -Dtests=disabled would run no test.
tests_option="$(meson introspect --buildoptions "$CLVIDEO_BUILD" |
  python3 -c 'import json, sys
print(next((o["value"] for o in json.load(sys.stdin) if o["name"] == "tests"), ""))')"
if [ "$tests_option" = "disabled" ]; then
  echo "tests: enabling the tests in $CLVIDEO_BUILD (was -Dtests=disabled)"
  meson configure "$CLVIDEO_BUILD" -Dtests=enabled
  ninja -C "$CLVIDEO_BUILD"
fi

cd "$CLVIDEO_ROOT"
status=0
meson test -C "$CLVIDEO_BUILD" --no-rebuild --print-errorlogs \
  --num-processes 2 "$@" || status=$?
exit "$status"
