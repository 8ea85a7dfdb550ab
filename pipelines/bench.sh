#!/bin/sh
# Runs the benchmark on the chosen device (GST_CL_DEVICE or --device) and
# prints a Markdown table; see docs/performance.md for recorded figures.
set -eu
root=$(cd "$(dirname "$0")/.." && pwd)
build=${BUILD_DIR:-$root/build}
export GST_PLUGIN_PATH="$build/gst${GST_PLUGIN_PATH:+:$GST_PLUGIN_PATH}"
export CLBENCH_DIR="$root/pipelines"
exec "$build/pipelines/clbench" "$@"
