#!/usr/bin/env bash
# gst-clvideo: make sure the build dependencies are installed and the tree
# is configured and built.
# SPDX-License-Identifier: LGPL-2.1-or-later
#
# Run it (bash pipelines/setup.sh) or source it from another script; it
# works from any directory. When sourced it leaves two variables behind:
#   CLVIDEO_ROOT   the repository root
#   CLVIDEO_BUILD  the build directory ($BUILD_DIR, default build/, relative
#                  paths taken from the repository root)
#
# Missing Debian packages are installed with apt-get when running as root;
# otherwise the script prints the command to run and fails. It prints
# nothing when there is nothing to do.

# Debian 12 packages needed to build, test and run the demos.
CLVIDEO_PACKAGES=(
  build-essential
  meson
  ninja-build
  pkg-config
  python3
  libgstreamer1.0-dev
  libgstreamer-plugins-base1.0-dev
  gstreamer1.0-tools
  gstreamer1.0-plugins-base
  gstreamer1.0-plugins-good
  ocl-icd-opencl-dev
  opencl-c-headers
  ocl-icd-libopencl1
  pocl-opencl-icd
  clinfo
  libpng-dev
  ffmpeg
  # MPEG-1 stream checks (decoders) and the encoder benchmark's peers
  mpeg2dec
  mjpegtools
  gstreamer1.0-libav
  gstreamer1.0-plugins-bad
  # pipelines/chunk-encode.sh's jobs
  parallel
  # the Python example of docs/usage.md (GStreamer's overrides read the
  # array fields of messages)
  python3-gi
  python3-gst-1.0
  # GObject introspection of libgstcl-1.0 (GstCl-1.0.gir and its typelib)
  # and pipelines/cl-metas.py, which reads the metas through it
  gobject-introspection
  libgirepository1.0-dev
  gir1.2-gstreamer-1.0
  gir1.2-gst-plugins-base-1.0
)
# A script with a build of its own (tests/sanitize.sh, tests/fuzz.sh) sets
# these before sourcing this file: packages it needs beyond the above, and
# options for `meson setup` of its build directory (arrays; CC in the
# environment picks the compiler, as for meson).
CLVIDEO_PACKAGES+=(${CLVIDEO_EXTRA_PACKAGES[@]+"${CLVIDEO_EXTRA_PACKAGES[@]}"})

CLVIDEO_ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
CLVIDEO_BUILD="${BUILD_DIR:-build}"
case "$CLVIDEO_BUILD" in
  /*) ;;
  *) CLVIDEO_BUILD="$CLVIDEO_ROOT/$CLVIDEO_BUILD" ;;
esac

clvideo_missing_packages() {
  local pkg status
  for pkg in "${CLVIDEO_PACKAGES[@]}"; do
    status="$(dpkg-query -W -f='${db:Status-Status}' "$pkg" 2>/dev/null || true)"
    if [ "$status" != "installed" ]; then
      printf '%s\n' "$pkg"
    fi
  done
}

clvideo_install_packages() {
  local missing
  if ! command -v dpkg-query >/dev/null 2>&1; then
    echo "setup: no dpkg-query (not a Debian system?); not checking packages." >&2
    echo "setup: needed (Debian names): ${CLVIDEO_PACKAGES[*]}" >&2
    return 0
  fi
  mapfile -t missing < <(clvideo_missing_packages)
  if [ "${#missing[@]}" -eq 0 ]; then
    return 0
  fi
  if [ "$(id -u)" -ne 0 ]; then
    echo "setup: missing packages: ${missing[*]}" >&2
    echo "setup: install them with:" >&2
    echo "  sudo apt-get install -y ${missing[*]}" >&2
    return 1
  fi
  echo "setup: installing ${missing[*]}"
  if ! { apt-get update &&
    DEBIAN_FRONTEND=noninteractive apt-get install -y "${missing[@]}"; } </dev/null; then
    echo "setup: apt-get failed" >&2
    return 1
  fi
}

clvideo_build() {
  local log
  if [ ! -f "$CLVIDEO_BUILD/build.ninja" ]; then
    echo "setup: configuring $CLVIDEO_BUILD"
    meson setup ${CLVIDEO_MESON_OPTIONS[@]+"${CLVIDEO_MESON_OPTIONS[@]}"} \
      "$CLVIDEO_BUILD" "$CLVIDEO_ROOT" || {
      echo "setup: meson setup failed" >&2
      return 1
    }
  fi
  # tests/meson.build looks for test-NAME.c files at configure time: one
  # added since then needs a reconfigure to be built
  local src
  for src in "$CLVIDEO_ROOT"/tests/test-*.c; do
    [ -e "$src" ] || continue
    if [ "$src" -nt "$CLVIDEO_BUILD/build.ninja" ] &&
      ! grep -q "${src##*/}" "$CLVIDEO_BUILD/build.ninja"; then
      echo "setup: reconfiguring $CLVIDEO_BUILD for tests/${src##*/}"
      meson setup --reconfigure "$CLVIDEO_BUILD" "$CLVIDEO_ROOT" >/dev/null || {
        echo "setup: meson setup --reconfigure failed" >&2
        return 1
      }
      break
    fi
  done
  # stay quiet when the build is up to date
  log="$(ninja -C "$CLVIDEO_BUILD" -n 2>&1)" || {
    printf '%s\n' "$log" >&2
    echo "setup: ninja failed" >&2
    return 1
  }
  case "$log" in
    *"no work to do"*) return 0 ;;
  esac
  ninja -C "$CLVIDEO_BUILD" || {
    echo "setup: build failed" >&2
    return 1
  }
}

clvideo_setup() {
  clvideo_install_packages && clvideo_build
}

if (return 0 2>/dev/null); then
  # sourced: the caller decides what a failure means
  clvideo_setup
else
  clvideo_setup
  exit $?
fi
