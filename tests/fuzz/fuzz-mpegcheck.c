/* gst-clvideo: libFuzzer entry point for the MPEG-1 and MPEG-2 stream
 * checker
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * Feeds arbitrary bytes to mpegcheck_run, which parses every macroblock
 * of the stream, with and without the macroblock layer; no device is
 * needed. Beyond the sanitizers' findings: the checker never fails to
 * give a result, a stream it passes has each of its pictures' macroblocks
 * accounted for exactly once, and its report can be written.
 */
#include <stdint.h>
#include <stdlib.h>

#include "mpegcheck.h"

int LLVMFuzzerTestOneInput (const uint8_t * data, size_t size);

static void
check_passed_stream (const MpegCheckResult * r)
{
  guint i;

  for (i = 0; i < r->pictures->len; i++) {
    const MpegCheckPicture *pic =
        &g_array_index (r->pictures, MpegCheckPicture, i);
    const MpegCheckSequence *s;
    guint mbs;

    if (pic->sequence >= r->sequences->len)
      abort ();
    s = &g_array_index (r->sequences, MpegCheckSequence, pic->sequence);
    /* an interlaced MPEG-2 frame has whole macroblock rows in each field */
    mbs = ((s->width + 15) / 16) * (s->mpeg2 && !s->progressive_sequence ?
        2 * ((s->height + 31) / 32) : (s->height + 15) / 16);
    if (pic->n_mb_coded + pic->n_mb_skipped != mbs || pic->mb_syntax_error)
      abort ();
    if (pic->coding_type == 1 && pic->n_mb_intra != mbs)
      abort ();
  }
}

int
LLVMFuzzerTestOneInput (const uint8_t * data, size_t size)
{
  MpegCheckOptions opts;
  MpegCheckResult *r;
  gchar *text;

  mpegcheck_options_init (&opts);
  r = mpegcheck_run (data, size, &opts);
  if (!r)
    abort ();
  if (mpegcheck_passed (r))
    check_passed_stream (r);
  text = mpegcheck_report (r, TRUE);
  g_free (text);
  mpegcheck_result_free (r);

  /* the quick structural check on the same bytes */
  opts.check_macroblocks = FALSE;
  opts.require_end_code = FALSE;
  r = mpegcheck_run (data, size, &opts);
  if (!r || r->n_macroblocks != 0)
    abort ();
  text = mpegcheck_errors_text (r);
  g_free (text);
  mpegcheck_result_free (r);
  return 0;
}
