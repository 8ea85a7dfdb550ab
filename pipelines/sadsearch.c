/* gst-clvideo benchmark: full-search block matching on the host
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * The CPU yardstick of the motion stage: a plain exhaustive search whose
 * SADs come from psadbw (_mm_sad_epu8 on 16-byte rows, _mm256_sad_epu8 on
 * pairs of rows), the instruction set picked at run time. No early exits,
 * so it does the same work as the kernels it is compared with. Blocks that
 * are not 16 samples wide (block size 8, or cut by the right edge) take
 * the scalar path.
 */
#include "sadsearch.h"

#include <stdlib.h>

#if defined(__x86_64__) || defined(__i386__)
#include <immintrin.h>
#define HAVE_X86 1
#endif

typedef enum
{
  ISA_SCALAR,
  ISA_SSE2,
  ISA_AVX2,
} Isa;

/* One block's search: where it is and which candidates are allowed. */
typedef struct
{
  const guint8 *cur;            /* the block's first sample */
  gsize cur_stride;
  const guint8 *ref;            /* reference sample at the block's (0,0) */
  gsize ref_stride;
  guint bw, bh;                 /* visible samples */
  gint dx0, dx1, dy0, dy1;      /* candidates dx in [dx0, dx1], dy alike */
} Window;

typedef struct
{
  guint32 sad;
  guint manh;
  gint dx, dy;
} Best;

static Isa
detect_isa (void)
{
#ifdef HAVE_X86
  __builtin_cpu_init ();
  if (__builtin_cpu_supports ("avx2"))
    return ISA_AVX2;
  if (__builtin_cpu_supports ("sse2"))
    return ISA_SSE2;
#endif
  return ISA_SCALAR;
}

const gchar *
sad_search_isa (void)
{
  static const gchar *names[] = { "scalar", "sse2", "avx2" };
  return names[detect_isa ()];
}

/* Candidates come in raster order, so only a strictly better one wins. */
static inline void
consider (Best * best, guint32 sad, gint dx, gint dy)
{
  const guint manh = abs (dx) + abs (dy);
  if (sad < best->sad || (sad == best->sad && manh < best->manh)) {
    best->sad = sad;
    best->manh = manh;
    best->dx = dx;
    best->dy = dy;
  }
}

static void
search_scalar (const Window * w, Best * best)
{
  gint dx, dy;
  guint r, c;

  for (dy = w->dy0; dy <= w->dy1; dy++)
    for (dx = w->dx0; dx <= w->dx1; dx++) {
      const guint8 *p = w->ref + (gssize) dy * (gssize) w->ref_stride + dx;
      guint32 sad = 0;
      for (r = 0; r < w->bh; r++)
        for (c = 0; c < w->bw; c++)
          sad += abs ((gint) w->cur[r * w->cur_stride + c] -
              (gint) p[r * w->ref_stride + c]);
      consider (best, sad, dx, dy);
    }
}

#ifdef HAVE_X86
/* @rows rows of 16 samples; a constant @rows unrolls, keeping the block in
 * registers across candidates. */
static inline __attribute__ ((always_inline))
void
search_sse2_rows (const Window * w, Best * best, const guint rows)
{
  __m128i c[16];
  gint dx, dy;
  guint r;

  for (r = 0; r < rows; r++)
    c[r] = _mm_loadu_si128 ((const __m128i *) (w->cur + r * w->cur_stride));
  for (dy = w->dy0; dy <= w->dy1; dy++)
    for (dx = w->dx0; dx <= w->dx1; dx++) {
      const guint8 *p = w->ref + (gssize) dy * (gssize) w->ref_stride + dx;
      __m128i acc = _mm_setzero_si128 ();
      for (r = 0; r < rows; r++)
        acc = _mm_add_epi32 (acc, _mm_sad_epu8 (c[r],
                _mm_loadu_si128 ((const __m128i *) (p + r * w->ref_stride))));
      consider (best, _mm_cvtsi128_si32 (acc) +
          _mm_cvtsi128_si32 (_mm_unpackhi_epi64 (acc, acc)), dx, dy);
    }
}

static void
search_sse2 (const Window * w, Best * best)
{
  if (w->bh == 16)
    search_sse2_rows (w, best, 16);
  else
    search_sse2_rows (w, best, w->bh);
}

static inline __attribute__ ((always_inline, target ("avx2")))
__m256i
load_pair (const guint8 * p, gsize stride)
{
  return _mm256_inserti128_si256 (_mm256_castsi128_si256 (_mm_loadu_si128
          ((const __m128i *) p)), _mm_loadu_si128 ((const __m128i *) (p +
              stride)), 1);
}

/* Two rows per _mm256_sad_epu8; an odd last row on its own. */
static inline __attribute__ ((always_inline, target ("avx2")))
void
search_avx2_rows (const Window * w, Best * best, const guint rows)
{
  __m256i c[8];
  __m128i last = _mm_setzero_si128 ();
  const guint pairs = rows / 2;
  gint dx, dy;
  guint r;

  for (r = 0; r < pairs; r++)
    c[r] = load_pair (w->cur + 2 * r * w->cur_stride, w->cur_stride);
  if (rows & 1)
    last = _mm_loadu_si128 ((const __m128i *) (w->cur + (rows - 1) *
            w->cur_stride));
  for (dy = w->dy0; dy <= w->dy1; dy++)
    for (dx = w->dx0; dx <= w->dx1; dx++) {
      const guint8 *p = w->ref + (gssize) dy * (gssize) w->ref_stride + dx;
      __m256i acc = _mm256_setzero_si256 ();
      __m128i sum;
      for (r = 0; r < pairs; r++)
        acc = _mm256_add_epi32 (acc, _mm256_sad_epu8 (c[r],
                load_pair (p + 2 * r * w->ref_stride, w->ref_stride)));
      sum = _mm_add_epi32 (_mm256_castsi256_si128 (acc),
          _mm256_extracti128_si256 (acc, 1));
      if (rows & 1)
        sum = _mm_add_epi32 (sum, _mm_sad_epu8 (last,
                _mm_loadu_si128 ((const __m128i *) (p + (rows - 1) *
                        w->ref_stride))));
      consider (best, _mm_cvtsi128_si32 (sum) +
          _mm_cvtsi128_si32 (_mm_unpackhi_epi64 (sum, sum)), dx, dy);
    }
}

__attribute__ ((target ("avx2")))
static void
search_avx2 (const Window * w, Best * best)
{
  if (w->bh == 16)
    search_avx2_rows (w, best, 16);
  else
    search_avx2_rows (w, best, w->bh);
}
#endif

typedef struct
{
  const guint8 *cur, *ref;
  gsize cur_stride, ref_stride;
  guint width, height, block, range;
  guint first_row, row_step;
  Isa isa;
  SadVector *out;
} Job;

static gpointer
search_rows (gpointer data)
{
  const Job *job = data;
  const guint bx_n = (job->width + job->block - 1) / job->block;
  const guint by_n = (job->height + job->block - 1) / job->block;
  const gint range = job->range;
  guint bx, by;

  for (by = job->first_row; by < by_n; by += job->row_step) {
    for (bx = 0; bx < bx_n; bx++) {
      const gint x0 = bx * job->block, y0 = by * job->block;
      Window w;
      Best best = { G_MAXUINT32, G_MAXUINT, 0, 0 };
      SadVector *v = job->out + (gsize) by * bx_n + bx;

      w.bw = MIN (job->block, job->width - x0);
      w.bh = MIN (job->block, job->height - y0);
      w.cur = job->cur + (gsize) y0 * job->cur_stride + x0;
      w.cur_stride = job->cur_stride;
      w.ref = job->ref + (gsize) y0 * job->ref_stride + x0;
      w.ref_stride = job->ref_stride;
      /* the reference block must lie inside the plane */
      w.dx0 = MAX (-range, -x0);
      w.dx1 = MIN (range - 1, (gint) (job->width - w.bw) - x0);
      w.dy0 = MAX (-range, -y0);
      w.dy1 = MIN (range - 1, (gint) (job->height - w.bh) - y0);
#ifdef HAVE_X86
      if (w.bw == 16 && job->isa == ISA_AVX2)
        search_avx2 (&w, &best);
      else if (w.bw == 16 && job->isa == ISA_SSE2)
        search_sse2 (&w, &best);
      else
#endif
        search_scalar (&w, &best);
      v->dx = 2 * best.dx;
      v->dy = 2 * best.dy;
      v->sad = best.sad;
    }
  }
  return NULL;
}

void
sad_search_full (const guint8 * cur, gsize cur_stride, const guint8 * ref,
    gsize ref_stride, guint width, guint height, guint block, guint range,
    guint threads, SadVector * out)
{
  Job *jobs;
  GThread **th;
  guint i;

  threads = MAX (threads, 1);
  jobs = g_new (Job, threads);
  th = g_new0 (GThread *, threads);
  for (i = 0; i < threads; i++) {
    Job j = { cur, ref, cur_stride, ref_stride, width, height, block, range,
      i, threads, detect_isa (), out
    };
    jobs[i] = j;
    /* block rows interleaved over the threads: borders cost the same */
    if (i > 0)
      th[i] = g_thread_new ("sadsearch", search_rows, &jobs[i]);
  }
  search_rows (&jobs[0]);
  for (i = 1; i < threads; i++)
    g_thread_join (th[i]);
  g_free (th);
  g_free (jobs);
}
