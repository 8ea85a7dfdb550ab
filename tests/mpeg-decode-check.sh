#!/usr/bin/env bash
# gst-clvideo: decode an MPEG-1 or MPEG-2 video elementary stream with
# three independent decoders and check that each decodes it cleanly.
# SPDX-License-Identifier: LGPL-2.1-or-later
#
# Usage: tests/mpeg-decode-check.sh [--frames N] [--size WxH] FILE.m1v|.m2v
#
#   ffmpeg     -v error -err_detect explode: any message is a failure
#   mpeg2dec   (libmpeg2) to a PGM pipe: frames counted from the images,
#              whose size is the coded size (rounded up to macroblocks)
#   gstreamer  filesrc ! mpegvideoparse ! avdec_mpegvideo (MPEG-2:
#              avdec_mpeg2video) ! fakesink, with
#              libav's own error log on: any ERROR or WARNING line, or an
#              error from the pipeline, is a failure
#
# Prints one line per decoder (frames, size). Exits 0 when every decoder
# succeeded and all agree on frame count and size (and match --frames and
# --size when given), 1 otherwise, 2 on bad usage, 77 when a decoder is
# not installed (the meson convention for a skipped test).
set -uo pipefail

frames=""
size=""
while [ $# -gt 1 ]; do
  case "$1" in
    --frames) frames="$2"; shift 2 ;;
    --size) size="$2"; shift 2 ;;
    *) break ;;
  esac
done
if [ $# -ne 1 ] || [ ! -r "$1" ]; then
  echo "usage: $0 [--frames N] [--size WxH] FILE.m1v (a readable file)" >&2
  exit 2
fi
file="$1"

missing=""
command -v ffmpeg >/dev/null || missing="$missing ffmpeg(ffmpeg)"
command -v mpeg2dec >/dev/null || missing="$missing mpeg2dec(mpeg2dec)"
command -v python3 >/dev/null || missing="$missing python3(python3)"
if ! command -v gst-inspect-1.0 >/dev/null; then
  missing="$missing gst-launch-1.0(gstreamer1.0-tools)"
else
  gst-inspect-1.0 mpegvideoparse >/dev/null 2>&1 ||
    missing="$missing mpegvideoparse(gstreamer1.0-plugins-bad)"
  gst-inspect-1.0 avdec_mpegvideo >/dev/null 2>&1 ||
    missing="$missing avdec_mpegvideo(gstreamer1.0-libav)"
fi
# MPEG-2: a sequence extension (extension start code, identifier 1) right
# after the first sequence header; its chroma_format (1 4:2:0, 2 4:2:2)
gst_decoder=avdec_mpegvideo
chroma_format=1
if command -v python3 >/dev/null; then
  chroma_format="$(python3 - "$file" <<'EOF'
import sys
data = open(sys.argv[1], "rb").read()
seq = data.find(b"\x00\x00\x01\xb3")
nxt = data.find(b"\x00\x00\x01", seq + 4) if seq >= 0 else -1
mpeg2 = (nxt >= 0 and data[nxt + 3:nxt + 4] == b"\xb5" and
         len(data) > nxt + 5 and data[nxt + 4] >> 4 == 1)
print((data[nxt + 5] >> 1) & 3 if mpeg2 else 0)
EOF
)"
  if [ "$chroma_format" != 0 ]; then
    gst_decoder=avdec_mpeg2video
  else
    chroma_format=1
  fi
fi
if [ -n "$missing" ]; then
  echo "mpeg-decode-check: skipped, missing (Debian package):$missing" >&2
  exit 77
fi

tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT
status=0
results=()

fail() {
  echo "mpeg-decode-check: $*" >&2
  status=1
}

# one result: "decoder frames WxH"
report() {
  printf '%-10s %5s frames  %s\n' "$1:" "$2" "$3"
  results+=("$2 $3")
}

# ffmpeg: one framecrc line per decoded frame; the header names the size
ffmpeg -nostdin -v error -err_detect explode -i "$file" -fps_mode passthrough \
  -f framecrc - >"$tmp/ff.out" 2>"$tmp/ff.err"
rc=$?
[ "$rc" -eq 0 ] || fail "ffmpeg exited with $rc"
if [ -s "$tmp/ff.err" ]; then
  fail "ffmpeg reported:"
  head -n 20 "$tmp/ff.err" >&2
fi
ff_frames="$(grep -vc '^#' "$tmp/ff.out")"
ff_size="$(sed -n 's/^#dimensions 0: *//p' "$tmp/ff.out")"
report ffmpeg "$ff_frames" "${ff_size:-?}"

# mpeg2dec: PGM images holding Y above U and V side by side, so 3/2 of
# the height (4:2:2: twice it)
mpeg2dec -o pgmpipe "$file" 2>"$tmp/m2.err" | python3 -c '
import sys
data = sys.stdin.buffer.read()
pos, count, dims = 0, 0, "?"
while pos < len(data):
    if data[pos:pos + 2] != b"P5":
        print("bad-pgm ?")
        sys.exit(0)
    fields, end = [], pos + 2
    while len(fields) < 3:
        while data[end:end + 1].isspace():
            end += 1
        start = end
        while end < len(data) and not data[end:end + 1].isspace():
            end += 1
        fields.append(int(data[start:end]))
    w, h = fields[0], fields[1]
    pos = end + 1 + w * h
    count += 1
    dims = "%dx%d" % (w, h // 2 if sys.argv[1] == "2" else h * 2 // 3)
print(count, dims)
' "$chroma_format" >"$tmp/m2.out"
rc=("${PIPESTATUS[@]}")
[ "${rc[0]}" -eq 0 ] || fail "mpeg2dec exited with ${rc[0]}"
if grep -qiE 'error|warning|fail' "$tmp/m2.err"; then
  fail "mpeg2dec reported:"
  head -n 20 "$tmp/m2.err" >&2
fi
read -r m2_frames m2_size <"$tmp/m2.out"
[ "$m2_frames" != "bad-pgm" ] || fail "mpeg2dec wrote something else than PGM images"
printf '%-10s %5s frames  %s (coded size)\n' mpeg2dec: "$m2_frames" "$m2_size"
m2_coded="$m2_size"

# GStreamer: fakesink logs one "chain" line per buffer
GST_DEBUG="libav:2,videodecoder:2" GST_DEBUG_NO_COLOR=1 \
  gst-launch-1.0 -v filesrc location="$file" ! mpegvideoparse ! \
  "$gst_decoder" ! fakesink silent=false >"$tmp/gst.out" 2>&1
rc=$?
[ "$rc" -eq 0 ] || fail "gst-launch-1.0 exited with $rc"
if grep -E '^ERROR|^WARNING| ERROR +| WARN +' "$tmp/gst.out" >"$tmp/gst.err"; then
  fail "the GStreamer pipeline reported:"
  head -n 20 "$tmp/gst.err" >&2
fi
gst_frames="$(grep -c 'last-message = chain' "$tmp/gst.out")"
gst_size="$(sed -n 's/.*fakesink0.GstPad:sink: caps = video\/x-raw.*width=(int)\([0-9]*\), height=(int)\([0-9]*\).*/\1x\2/p' \
  "$tmp/gst.out" | tail -n 1)"
report gstreamer "$gst_frames" "${gst_size:-?}"

# agreement; libmpeg2's size is the one rounded up to 16 (an interlaced
# sequence's height to 32: each field has whole macroblock rows)
for r in "${results[@]}"; do
  if [ "$r" != "${results[0]}" ]; then
    fail "the decoders disagree (frames size): ${results[*]}"
    break
  fi
done
coded="$(echo "${results[0]#* }" | awk -Fx '{ printf "%dx%d", int(($1 + 15) / 16) * 16, int(($2 + 15) / 16) * 16 }')"
coded_fields="$(echo "${results[0]#* }" | awk -Fx '{ printf "%dx%d", int(($1 + 15) / 16) * 16, int(($2 + 31) / 32) * 32 }')"
if [ "$m2_frames" != "${results[0]%% *}" ] ||
   { [ "$m2_coded" != "$coded" ] && [ "$m2_coded" != "$coded_fields" ]; }; then
  fail "mpeg2dec decoded $m2_frames frames of $m2_coded, the others ${results[0]} (coded $coded)"
fi
if [ -n "$frames" ] && [ "${results[0]%% *}" != "$frames" ]; then
  fail "expected $frames frames"
fi
if [ -n "$size" ] && [ "${results[0]#* }" != "$size" ]; then
  fail "expected size $size"
fi
[ "$status" -eq 0 ] && echo "decode-check: ok"
exit "$status"
