/* gst-clvideo: MPEG-1 encoder device stages
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * mpeg_load pads an I420/NV12 frame (Y42B: MPEG_CHROMA_422 below) to whole
 * macroblocks (edge samples replicated) into a planar picture: Y (W x H),
 * Cb, Cr (W/2 x H/2; 4:2:2 W/2 x H).
 *
 * mpeg_encode_mb runs one work-group of 64 work-items per macroblock, one
 * work-item per sample position of the 8x8 blocks (six; 4:2:2 eight):
 * motion-compensated prediction (half-pel, MPEG-1 averages) from the
 * reconstructed reference, intra/inter decision, forward DCT,
 * quantisation, zigzag, coded block pattern, then the decoder's
 * reconstruction (dequantisation with mismatch control, inverse DCT,
 * clamp) into the next reference. mpeg_transform_mb does its first
 * steps, to the candidates' transforms, and mpeg_trellis_blocks their
 * trellis quantisation, before it (see GstClMpegTrellisJob).
 * Everything is exact (integer arithmetic; the CPU layout divides in
 * floats where the truncated quotient is provably exact), so that every
 * device and the C reference in tests/mpegenc-ref.c agree to the bit.
 *
 * mpeg_encode_mb_cpu (CPU layout) does the same for one macroblock per
 * work-item, in vectors (see below).
 *
 * A build holds the kernels of its layout only (GST_CL_CPU_LAYOUT), and of
 * the groups in MPEG_KERNELS (all without it): a driver asked for the
 * program's binary compiles every kernel in it, and a stream without B
 * pictures or interlace needs none of theirs.
 */

#include "gstclvideotypes.h"
#include "common.cl"
#include "sad.cl"
#include "pairs.cl"
#include "satd.cl"

/* the kernel groups, bits of MPEG_KERNELS: those of every stream, those of
 * B pictures, those of the field search (gstclmpegtransform.c) */
#define MPEG_KERNELS_CORE 1
#define MPEG_KERNELS_B 2
#define MPEG_KERNELS_FIELD 4
#ifndef MPEG_KERNELS
#define MPEG_KERNELS 7
#endif
#define MPEG_KERNELS_OF(group) ((MPEG_KERNELS) & MPEG_KERNELS_##group)

/* 4:2:2 (a build with -DMPEG_CHROMA_422=1): chroma planes of the luma's
 * height, 16 chroma lines and eight blocks a macroblock (Y0..Y3, then Cb
 * and Cr of its upper and of its lower eight chroma lines), chroma
 * vectors halved horizontally only (13818-2 6.1.3, 7.6.3.7) */
#ifndef MPEG_CHROMA_422
#define MPEG_CHROMA_422 0
#endif
#if MPEG_CHROMA_422
#define MB_BLOCKS GST_CL_MPEG_BLOCKS_422
#define CHROMA_ROWS 16
#else
#define MB_BLOCKS GST_CL_MPEG_BLOCKS_420
#define CHROMA_ROWS 8
#endif
/* rows of a chroma plane of a picture @H luma rows high */
#define CHROMA_HEIGHT(H) ((H) * CHROMA_ROWS / 16)
/* CPU layout: blocks side by side in pairs, a macroblock in rows of 16
 * samples (luma, then Cb | Cr) */
#define MB_PAIRS (MB_BLOCKS / 2)
#define MB_ROWS (16 + CHROMA_ROWS)

/* the chroma vector of luma vector @v: halved (truncated towards zero)
 * where chroma is subsampled */
static int2
chroma_vector (int2 v)
{
  return (int2) (v.x / 2, MPEG_CHROMA_422 ? v.y : v.y / 2);
}

#define ZERO_VECTOR_BIAS 64
/* With rate-distortion decisions a moving candidate is coded only where
 * its SAD undercuts the zero vector's by more than this many quantiser
 * steps: a smaller gain hardly ever pays for its vector and header, and
 * coding the candidate to find that out costs more than it brings */
#define MOVING_MARGIN 4
/* In an interlaced frame a macroblock's luma is transformed in field
 * blocks where the lines of each field are this much smoother (sum of
 * absolute vertical differences of the residual over the macroblock)
 * than the frame's: where both are alike, frame blocks keep the
 * lines' vertical correlation across both fields. On the interlaced
 * real-content set against FFmpeg's best: 256 +0.6%, 0 +2.0%, 1024
 * +2.8% */
#define FIELD_DCT_MARGIN 256

/* round (16384 * c(k) / 2 * cos ((2n + 1) k pi / 16)), [k][n] */
__constant int DCT_C[64] = {
  5793, 5793, 5793, 5793, 5793, 5793, 5793, 5793,
  8035, 6811, 4551, 1598, -1598, -4551, -6811, -8035,
  7568, 3135, -3135, -7568, -7568, -3135, 3135, 7568,
  6811, -1598, -8035, -4551, 4551, 8035, 1598, -6811,
  5793, -5793, -5793, 5793, 5793, -5793, -5793, 5793,
  4551, -8035, 1598, 6811, -6811, -1598, 8035, -4551,
  3135, -7568, 7568, -3135, -3135, 7568, -7568, 3135,
  1598, -4551, 6811, -8035, 8035, -6811, 4551, -1598,
};

/* The forward DCT in 16-bit fixed point, the same integers in every
 * layout (and in the tests' reference): each 1-D pass splits the cosine
 * sums into even and odd halves and takes every product as the top half
 * of a 16 x 16-bit one, (a c) >> 16, with c the cosine below in 2^16
 * steps; x86 does eight or sixteen of those in one instruction. Rows see
 * the residual times 16, columns the rows' outputs halved (rounded), and
 * the result is divided by 8 (rounded): within 0.94 of the exact DCT,
 * and no sum leaves 16 bits for any residual in [-255, 255]. The columns'
 * DC and 4th coefficients take the products of e0 and e1 apart, whose
 * sum could exceed 16 bits there. */
#define FDCT_C1 32138           /* round (65536 cos (k pi / 16) / 2) */
#define FDCT_C2 30274
#define FDCT_C3 27246
#define FDCT_C4 23170
#define FDCT_C5 18205
#define FDCT_C6 12540
#define FDCT_C7 6393
#define FDCT_MUL(a, c) (((a) * (c)) >> 16)

/* natural position -> scan index: [0] the zigzag scan, [1] MPEG-2's
 * alternate scan (13818-2 7.3, alternate_scan 1) */
__constant uchar SCAN_INDEX[2][64] = {
  {
        0, 1, 5, 6, 14, 15, 27, 28, 2, 4, 7, 13, 16, 26, 29, 42,
        3, 8, 12, 17, 25, 30, 41, 43, 9, 11, 18, 24, 31, 40, 44, 53,
        10, 19, 23, 32, 39, 45, 52, 54, 20, 22, 33, 38, 46, 51, 55, 60,
        21, 34, 37, 47, 50, 56, 59, 61, 35, 36, 48, 49, 57, 58, 62, 63,
      }, {
        0, 4, 6, 20, 22, 36, 38, 52, 1, 5, 7, 21, 23, 37, 39, 53,
        2, 8, 19, 24, 34, 40, 50, 54, 3, 9, 18, 25, 35, 41, 51, 55,
        10, 17, 26, 30, 42, 46, 56, 60, 11, 16, 27, 31, 43, 47, 57, 61,
        12, 15, 28, 32, 44, 48, 58, 62, 13, 14, 29, 33, 45, 49, 59, 63,
      }
};

/* scan index -> natural position, the same two scans */
__constant uchar SCAN_NATURAL[2][64] = {
  {
        0, 1, 8, 16, 9, 2, 3, 10, 17, 24, 32, 25, 18, 11, 4, 5,
        12, 19, 26, 33, 40, 48, 41, 34, 27, 20, 13, 6, 7, 14, 21, 28,
        35, 42, 49, 56, 57, 50, 43, 36, 29, 22, 15, 23, 30, 37, 44, 51,
        58, 59, 52, 45, 38, 31, 39, 46, 53, 60, 61, 54, 47, 55, 62, 63,
      }, {
        0, 8, 16, 24, 1, 9, 2, 10, 17, 25, 32, 40, 48, 56, 57, 49,
        41, 33, 26, 18, 3, 11, 4, 12, 19, 27, 34, 42, 50, 58, 35, 43,
        51, 59, 20, 28, 5, 13, 6, 14, 21, 29, 36, 44, 52, 60, 37, 45,
        53, 61, 22, 30, 7, 15, 23, 31, 38, 46, 54, 62, 39, 47, 55, 63,
      }
};

/* the default intra quantiser matrix, natural order */
__constant uchar INTRA_W[64] = {
  8, 16, 19, 22, 26, 27, 29, 34, 16, 16, 22, 24, 27, 29, 34, 37,
  19, 22, 26, 27, 29, 34, 34, 38, 22, 22, 26, 27, 29, 34, 37, 40,
  22, 26, 27, 29, 32, 35, 40, 48, 26, 27, 29, 32, 35, 40, 48, 58,
  26, 27, 29, 34, 38, 46, 56, 69, 27, 29, 35, 38, 46, 56, 69, 83,
};

/* Intra DC level of the coefficient @F at 8 + @dc_shift bits of
 * precision: F / intra_dc_mult (8, 4, 2, 1; 13818-2 table 7-4), rounded,
 * within the precision's range */
static int
intra_dc_level (int F, int dc_shift)
{
  return clamp ((F + (4 >> dc_shift)) >> (3 - dc_shift), 0,
      (256 << dc_shift) - 1);
}

/* Level of coefficient @F at natural position @pos: intra DC
 * (intra_dc_level), intra AC against the default matrix (rounding offset
 * 3/8), inter flat 16 with the offset -1/4 (a dead zone below 2.5 q:
 * small inter levels cost more bits than they bring). */
static int
quantise (int F, int intra, uint pos, int q, int dc_shift)
{
  int a = abs (F), L;
  if (intra && pos == 0)
    return intra_dc_level (F, dc_shift);
  /* most levels are zero: no division for them */
  if (intra) {
    int qw = q * INTRA_W[pos], n = 64 * a + 3 * qw;
    L = n < 8 * qw ? 0 : min (n / (8 * qw), 255);
  } else {
    int n = 2 * a - q;
    L = n < 4 * q ? 0 : min (n / (4 * q), 255);
  }
  return F < 0 ? -L : L;
}

/* The least quantiser from @q up at which coefficient magnitude @a at
 * natural position @pos takes a level MPEG-1 can code, +-255 at most
 * (the escape codes' range): the intra level floor ((64 a + 3 q W) / 8 q W) stays
 * below 256 while 64 a < 2045 q W, the non-intra one floor ((2 a - q) / 4
 * q) while 2 a < 1025 q. A sharp black and white edge needs more than 255
 * at quantisers below 4 (clipped, it showed as a wrong block); the
 * macroblock's quantiser rises instead. (|a| < 2048 fits at 9, and the
 * non-linear scale codes every quantiser to 12: what this gives is
 * coded.) */
static int
fitting_quant (int q, int a, int intra, uint pos)
{
  return max (q, intra ? 64 * a / (2045 * INTRA_W[pos]) + 1 :
      2 * a / 1025 + 1);
}

/* The decoder's coefficient (11172-2 2.4.4.1, 2.4.4.2; 13818-2 7.4 with
 * intra_dc_precision 8 and the linear quantiser_scale, whose steps are
 * MPEG-1's): MPEG-1's mismatch control makes every non-zero AC value odd;
 * MPEG-2's toggles one coefficient of the block afterwards instead
 * (mismatch_toggle). */
static int
dequantise (int L, int intra, uint pos, int q, int mpeg2, int dc_shift)
{
  int D;
  if (intra && pos == 0)
    return (8 >> dc_shift) * L;
  if (L == 0)
    return 0;
  if (intra)
    D = (2 * L * q * INTRA_W[pos]) / 16;
  else
    D = ((2 * L + (L > 0 ? 1 : -1)) * q * 16) / 16;
  if (!mpeg2 && (D & 1) == 0)
    D -= D > 0 ? 1 : -1;
  return clamp (D, -2048, 2047);
}

/* MPEG-2's mismatch control (13818-2 7.4.4): where the sum of a coded
 * block's coefficients is even, the last one's lowest bit flips. Returns
 * what to XOR that coefficient with, from the XOR of all their lowest
 * bits. */
static int
mismatch_toggle (int parity, int coded)
{
  return coded && !(parity & 1);
}

/* Bits of an escaped run-level pair: MPEG-1 codes levels beyond 127 in
 * 16 bits instead of 8, MPEG-2 all of them in 12 */
static int
escape_bits (int level, int mpeg2)
{
  return mpeg2 ? 24 : level <= 127 ? 20 : 28;
}

/* ---- rate-distortion optimised quantisation ----
 *
 * The levels of a block are chosen to minimise 4 * squared error +
 * lambda4 * bits over the run-level codes that carry them: a shortest
 * path over scan positions whose states are "the last coded level sits
 * at position k - 1" (k = start: none yet). Each position offers the two
 * levels around its coefficient (the reconstruction above it and the one
 * below) or zero; the squared error is counted in the DCT domain (the
 * transform is orthonormal), as the gain of a level over leaving the
 * coefficient out. A state whose cost is not below that of a later one
 * is dropped: code lengths never fall as runs grow, so nothing reached
 * from it could win. */

#define RD_RUNS 32
#define RD_LEVELS 41
/* after the run-level code lengths: vector component lengths, 0..32 */
#define RD_MV_BITS (RD_RUNS * RD_LEVELS)
#define RD_MV_MAX 32
/* then coded_block_pattern lengths, 0..63 */
#define RD_CBP_BITS (RD_MV_BITS + RD_MV_MAX + 1)
/* then dct_dc_size_luma, dct_dc_size_chroma code lengths, 0..11 each */
#define RD_DC_BITS (RD_CBP_BITS + 64)
#define RD_DC_SIZES 12
/* then the run-level code lengths of table B.15, as B.14's; each table's
 * entry 0 (run 0, level 0) is its end_of_block's */
#define RD_ONE_BITS (RD_DC_BITS + 2 * RD_DC_SIZES)
/* the shorter end_of_block (B.14's), a bound for either table */
#define RD_EOB_BITS 2
/* (0, 1) opening a non-intra block: "1s" */
#define RD_OPENING_BITS 2

/* |dequantise (level)| for @level > 0 (before MPEG-2's mismatch
 * control, which the trellis does not foresee) */
static int
level_magnitude (int level, int intra, uint pos, int q, int mpeg2)
{
  int d = intra ? (2 * level * q * INTRA_W[pos]) / 16 : (2 * level + 1) * q;
  return min (mpeg2 ? d : (d - 1) | 1, 2047);
}

/* The run-level code lengths of a block's levels: table B.15 for intra
 * blocks where @intra_vlc says, else B.14 */
static __global const uchar *
coeff_bits (__global const uchar * rd_bits, int intra, uint intra_vlc)
{
  return rd_bits + (intra && intra_vlc ? RD_ONE_BITS : 0);
}

/* lowest set bit of @m != 0 (OpenCL 1.2 has clz but no ctz) */
static uint
lowest_bit (ulong m)
{
  return 63 - (uint) clz (m & (~m + 1));
}

/* m = ceil (2^32 / 2q) = (2^32 + e) / 2q, 0 <= e < 2q: t m / 2^32 = t /
 * 2q + t e / (2q 2^32) lies below the next integer while t e < 2^32, true
 * for every t = a + q - 1 < 2^16 in rd_quantise, so (t m) >> 32 is t /
 * 2q, without a division per coefficient (and this one division once per
 * macroblock, not per block) */
static ulong
rd_step_inverse (int q)
{
  return ((1UL << 32) + 2 * q - 1) / (2 * q);
}

/* The levels @L (scan order) of the coefficients @F (scan order; the
 * scan's natural positions in @natural),
 * looking only at the indices set in @cand, those whose level 1 lies
 * nearer than zero (the others are left out; an intra block's DC, index
 * 0, is never looked at). Writes the non-zero levels only, sets their
 * bits in *@coded, their cost against leaving the block out in *@delta
 * (non-intra: 0 or below) and returns the index of the last plus one (0:
 * none). @m2q is rd_step_inverse (@q); @mpeg2 prices MPEG-2's
 * reconstruction and escapes. Not inlined: its scalar loop then
 * has the registers to itself (inlined in the CPU layout's vector code, a
 * third of it was spills). */
__attribute__ ((noinline)) static int
rd_quantise (const int *F, ulong cand, int *L, ulong * coded, int *delta,
    int intra, int q, ulong m2q, int lambda4, __global const uchar * bits,
    int mpeg2, __constant uchar * natural)
{
  const int start = intra ? 1 : 0;
  int cost[65];
  uchar from[65], level[65], live[65];
  int n_live = 1, s, k, end, end_cost;

  cost[start] = 0;
  live[0] = start;
  if (intra)
    cand &= ~1UL;
  while (cand) {
    const int i = lowest_bit (cand);
    const uint pos = natural[i];
    const int a = abs (F[i]);
    /* the opening (0, 1) of a non-intra block: only the first
     * coefficient has it, from the only state there is then */
    const int opening = !intra && i == 0;
    int hi, best = INT_MAX, best_k = 0, best_l = 0;

    cand &= cand - 1;
    /* the lowest level whose reconstruction reaches a */
    if (intra) {
      const int qw = q * INTRA_W[pos];
      hi = (8 * a + qw - 1) / qw;
    } else {
      hi = max ((int) (((ulong) (a + q - 1) * m2q) >> 32), 1);
    }
    hi = min (hi, 255);
    for (int l = hi; l >= max (hi - 1, 1); l--) {
      const int e = a - level_magnitude (l, intra, pos, q, mpeg2);
      const int gain = 4 * (a * a - e * e);
      /* the code lengths of level l, one run after another (0: none,
       * an escape) */
      __global const uchar *col = bits + min (l, RD_LEVELS - 1);
      const int in_table = l < RD_LEVELS;
      const int escape = lambda4 * escape_bits (l, mpeg2) - gain;
      const int opening_cost = RD_OPENING_BITS * lambda4 - gain;
      /* (a level that pays less than its own code may still pay by
       * shortening the next level's run: only those that add error are
       * left out) */
      if (gain <= 0)
        continue;
      for (s = 0; s < n_live; s++) {
        const int run = i - live[s];
        const int n = in_table && run < RD_RUNS ? col[run * RD_LEVELS] : 0;
        const int c = cost[live[s]] + (opening && l == 1 ? opening_cost :
            n ? lambda4 * n - gain : escape);
        if (c < best) {
          best = c;
          best_k = live[s];
          best_l = l;
        }
      }
    }
    if (best == INT_MAX)
      continue;
    cost[i + 1] = best;
    from[i + 1] = (uchar) best_k;
    level[i + 1] = (uchar) best_l;
    while (n_live > 0 && cost[live[n_live - 1]] >= best)
      n_live--;
    live[n_live++] = (uchar) (i + 1);
  }

  /* end of block; a non-intra block may also be left out (cost 0) */
  end = start;
  end_cost = intra ? bits[0] * lambda4 : 0;
  for (s = 0; s < n_live; s++) {
    int c = cost[live[s]] + bits[0] * lambda4;
    if (live[s] > start && c < end_cost) {
      end_cost = c;
      end = live[s];
    }
  }
  *coded = 0;
  *delta = end_cost;
  for (k = end; k > start; k = from[k]) {
    L[k - 1] = F[k - 1] < 0 ? -(int) level[k] : level[k];
    *coded |= 1UL << (k - 1);
  }
  return end > start ? end : 0;
}


/* lambda4 of quantiser @q: @rd_lambda / 16 q^2 per bit, times 4 */
static int
rd_lambda4 (uint rd_lambda, int q)
{
  return ((int) rd_lambda * q * q + 2) >> 2;
}

static void
write_record (__global GstClMpegMbRecord * rec, const int *last, int dx,
    int dy, int intra, int field, int field_motion, int q, int act,
    int cost)
{
  uchar cbp = 0;
  for (int b = 0; b < MB_BLOCKS; b++)
    if (last[b])
      cbp |= (1 << (MB_BLOCKS - 1)) >> b;
  /* all eight in one store (POCL made the bytes masked stores, which
   * took a tenth of the CPU layout's macroblock kernel on an AMD EPYC) */
  STORE8_ANY (convert_uchar8 ((int8) (last[0], last[1], last[2], last[3],
              last[4], last[5], MB_BLOCKS > 6 ? last[6] : 0,
              MB_BLOCKS > 7 ? last[7] : 0)), rec->last);
  rec->dx = (short) dx;
  rec->dy = (short) dy;
  rec->cbp = cbp;
  rec->quant = (uchar) q;
  rec->n_blocks = MB_BLOCKS;
  rec->activity = act;
  rec->cost = cost;
  rec->flags = (intra ? GST_CL_MPEG_MB_INTRA : 0) |
      (!intra && !field_motion && dx == 0 && dy == 0 && cbp == 0 ?
      GST_CL_MPEG_MB_SKIPPABLE : 0) | (field ? GST_CL_MPEG_MB_FIELD_DCT : 0) |
      (field_motion ? GST_CL_MPEG_MB_FIELD_MOTION : 0);
}

/* The quantiser (quantiser_scale / 2) from @q up that the picture's
 * scale codes: linear 1 to 31; non-linear (its even quantiser_scale
 * values, 13818-2 table 7-6) every one to 12, every second to 28, every
 * fourth to 56 */
static int
coded_quant (int q, uint non_linear)
{
  if (!non_linear)
    return clamp (q, 1, 31);
  q = clamp (q, 1, 56);
  return q <= 12 ? q : q <= 28 ? (q + 1) & ~1 : (q + 3) & ~3;
}

/* TM5 adaptive quantiser: 0.5 .. 2 times the picture's */
static int
mb_quant (uint qscale, uint adaptive, uint act, uint avg_act,
    uint non_linear)
{
  int q = qscale;
  if (adaptive) {
    uint avg = max (avg_act, 1u);
    q = (qscale * (2 * act + avg) + (act + 2 * avg) / 2) / (act + 2 * avg);
  }
  return coded_quant (q, non_linear);
}

/* The vector of macroblock @mb, clamped so that the whole prediction
 * (half-pel neighbours included) lies inside the padded picture. */
static int2
clamp_vector (int2 v, uint mbx, uint mby, uint W, uint H)
{
  v.x = clamp (v.x, -32 * (int) mbx, 2 * ((int) W - 16 - 16 * (int) mbx));
  v.y = clamp (v.y, -32 * (int) mby, 2 * ((int) H - 16 - 16 * (int) mby));
  return v;
}

static int2
mb_vector (__global const GstClMotionVector * vectors, uint mb, uint mbx,
    uint mby, uint W, uint H)
{
  return clamp_vector ((int2) (vectors[mb].dx, vectors[mb].dy), mbx, mby, W,
      H);
}

/* The vector predictor assumed for macroblock @mb: its left neighbour's
 * vector (the one that neighbour codes when it takes it), zero at the
 * start of a row (slice). */
static int2
mb_predictor (__global const GstClMotionVector * vectors, uint mb, uint mbx,
    uint mby, uint W, uint H)
{
  return mbx ? mb_vector (vectors, mb - 1, mbx - 1, mby, W, H) : (int2) (0,
      0);
}

/* bits of a vector that differs by @d from its predictor */
static int
vector_bits (__global const uchar * bits, int2 d)
{
  return bits[RD_MV_BITS + min (abs (d.x), (uint) RD_MV_MAX)] +
      bits[RD_MV_BITS + min (abs (d.y), (uint) RD_MV_MAX)];
}

/* ---- mpeg_fit_vectors: a P picture's forward_f_code ----
 *
 * The larger forward_f_code, the further a vector reaches and the more
 * bits each coded difference takes. mpeg_fit_vectors weighs each f_code:
 * the exact bits of the vectors it codes (each against its left
 * neighbour, both within its range) and OUTLIER_BITS for each vector past
 * its range, summed by work-groups of FIT_ITEMS over runs of the
 * macroblocks, each adding its sums to the totals (integer atomics: the
 * order does not change them). The last work-group to finish then keeps
 * the cheapest up to max_f_code (an MPEG-2 level's limit) and clamps each
 * vector to it, so that a few stray vectors do not make the whole
 * picture pay for a wide range while a fast pan gets the range it needs;
 * one launch, where a second kernel for the clamp cost the host a launch
 * each P picture. */

#if GST_CL_CPU_LAYOUT
/* (see gst_cl_mpeg_transform_fit_vectors) */
#define FIT_ITEMS GST_CL_MPEG_FIT_ITEMS_CPU
#else
#define FIT_ITEMS GST_CL_MPEG_FIT_ITEMS
#endif
#define F_CODES GST_CL_MPEG_F_CODES
/* What a vector past the range is taken to cost: its block falls back to
 * the clamped vector, its neighbour's, the zero vector or intra; stray
 * vectors in flat areas lose nothing, a small fast object its residual */
#define OUTLIER_BITS 64

/* the code length of motion_code @m (0..16), its sign apart, from the
 * f_code 2 lengths of the table */
static int
motion_code_bits (__global const uchar * bits, int m)
{
  return m ? bits[RD_MV_BITS + 2 * m] - 2 : bits[RD_MV_BITS];
}

/* bits of a vector component @d away from its predictor, both within the
 * range of forward_f_code @f (the difference wraps as the decoder's sum
 * does) */
static int
component_bits (__global const uchar * bits, int d, int f)
{
  int scale = 1 << (f - 1), range = 32 * scale;

  if (d < -16 * scale)
    d += range;
  else if (d >= 16 * scale)
    d -= range;
  if (!d)
    return motion_code_bits (bits, 0);
  return motion_code_bits (bits, (abs (d) + scale - 1) >> (f - 1)) + f;
}

static int2
clamp_to_f_code (int2 v, int f)
{
  int reach = 16 << (f - 1);
  return clamp (v, -reach, reach - 1);
}

/* The totals of a picture: F_CODES sums and a count of the work-groups
 * done (FIT_SET words at @totals + FIT_SET x args.totals, zeroed
 * before). Each work-group adds up the macroblocks of its run, FIT_ITEMS
 * x per_item of them from its first, a work-item each in turn; the last
 * one picks the f_code, clamps every vector to it and zeroes the other
 * set for the next picture. */
#define FIT_SET GST_CL_MPEG_FIT_SET_WORDS
#define FIT_LOADS 8
#if MPEG_KERNELS_OF (CORE)
__kernel __attribute__ ((reqd_work_group_size (FIT_ITEMS, 1, 1)))
void
mpeg_fit_vectors (__global GstClMotionVector * vectors,
    __global const uchar * bits, __global uint * totals,
    const GstClMpegFitArgs args)
{
  /* the work-items' costs, an f_code a row, summed a row at a time
   * side by side; then the sums the last group reads */
  __local uint red[F_CODES][FIT_ITEMS];
  __local uint least_of[F_CODES];
  /* whether this group is the last; the f_code index it picked */
  __local uint last, picked;
  __global uint *sums = totals + FIT_SET * args.totals;
  const uint mb_width = args.mb_width;
  const uint t = get_local_id (0), n = mb_width * args.mb_height;
  const uint W = 16 * mb_width, H = 16 * args.mb_height;
  const uint first = get_group_id (0) * FIT_ITEMS * args.per_item;
  const uint end = min (n, first + FIT_ITEMS * args.per_item);
  uint cost[F_CODES];
  int f;

  for (f = 0; f < F_CODES; f++)
    cost[f] = 0;
  for (uint mb = first + t; mb < end; mb += FIT_ITEMS) {
    uint mbx = mb % mb_width, mby = mb / mb_width;
    int2 v = mb_vector (vectors, mb, mbx, mby, W, H);
    int2 pred = mb_predictor (vectors, mb, mbx, mby, W, H);
    for (f = 1; f <= F_CODES; f++) {
      int2 p = clamp_to_f_code (pred, f);
      int2 w = clamp_to_f_code (v, f);
      cost[f - 1] += w.x != v.x || w.y != v.y ? OUTLIER_BITS :
          component_bits (bits, v.x - p.x, f) +
          component_bits (bits, v.y - p.y, f);
    }
  }
  /* (one tree for all f_codes: a barrier a level, not a level an f_code;
   * the atomics a work-item an f_code, issued together) */
  for (f = 0; f < F_CODES; f++)
    red[f][t] = cost[f];
  barrier (CLK_LOCAL_MEM_FENCE);
  for (uint d = FIT_ITEMS / 2; d > 0; d >>= 1) {
    if (t < d)
      for (f = 0; f < F_CODES; f++)
        red[f][t] += red[f][t + d];
    barrier (CLK_LOCAL_MEM_FENCE);
  }
  for (uint g = t; g < F_CODES; g += FIT_ITEMS)
    atomic_add (&sums[g], red[g][0]);
  /* (this group's sums added before it counts itself done) */
  mem_fence (CLK_GLOBAL_MEM_FENCE);
  barrier (CLK_GLOBAL_MEM_FENCE | CLK_LOCAL_MEM_FENCE);
  if (t == 0)
    last = atomic_inc (&sums[F_CODES]) == get_num_groups (0) - 1;
  barrier (CLK_LOCAL_MEM_FENCE);
  if (!last)
    return;
  mem_fence (CLK_GLOBAL_MEM_FENCE);
  /* (the sums read as atomics: all groups' additions; a work-item each,
   * at once) */
  for (uint g = t; g < F_CODES; g += FIT_ITEMS)
    least_of[g] = atomic_or (&sums[g], 0u);
  barrier (CLK_LOCAL_MEM_FENCE);
  for (uint g = t; g < FIT_SET; g += FIT_ITEMS)
    totals[FIT_SET * (1 - args.totals) + g] = 0;
  if (t == 0) {
    uint least = least_of[0], best = 0;
    for (uint g = 1; g < min (args.max_f_code, (uint) F_CODES); g++)
      if (least_of[g] < least) {
        least = least_of[g];
        best = g;
      }
    picked = best;
  }
  barrier (CLK_LOCAL_MEM_FENCE);
  /* (every other group has read the vectors: it counted itself done.
   * One work-group walks them all, FIT_LOADS read at once a work-item:
   * a load at a time waited on each.) */
  for (uint base = t; base < n; base += FIT_LOADS * FIT_ITEMS) {
    short2 got[FIT_LOADS];
    for (int k = 0; k < FIT_LOADS; k++)
      if (base + k * FIT_ITEMS < n)
        got[k] = (short2) (vectors[base + k * FIT_ITEMS].dx,
            vectors[base + k * FIT_ITEMS].dy);
    for (int k = 0; k < FIT_LOADS; k++) {
      uint mb = base + k * FIT_ITEMS;
      if (mb >= n)
        break;
      int2 v = clamp_to_f_code (clamp_vector (convert_int2 (got[k]),
              mb % mb_width, mb / mb_width, W, H), picked + 1);
      vectors[mb].dx = v.x;
      vectors[mb].dy = v.y;
    }
  }
}
#endif

/* ---- mpeg_follow_vectors: motion carried across frames ----
 *
 * @out = @a + @sign @b, vectors in half-pel units, @b read at the
 * macroblock that holds the centre of @a's macroblock moved by @a (@sign
 * 1: @a towards the frame before, @b from there on: the motion over
 * both) or by @a - @b (@sign -1: @a and @b towards one frame, @b from a
 * later one: the vectors from @a's frame to @b's, @b taken where the
 * content of @a's macroblock lies in @b's frame). A work-item per
 * macroblock; each vector within the search's reach. */
#if MPEG_KERNELS_OF (B)
__kernel void
mpeg_follow_vectors (__global const GstClMotionVector * a,
    __global const GstClMotionVector * b, __global GstClMotionVector * out,
    const uint mb_width, const uint mb_height, const int sign)
{
  const uint mb = get_global_id (0);
  const int reach = 2 * GST_CL_MOTION_SEARCH_LIMIT;

  if (mb >= mb_width * mb_height)
    return;
  GstClMotionVector va = a[mb], vb = b[mb], r;
  int2 to = (int2) (va.dx, va.dy);
  if (sign < 0)
    to -= (int2) (vb.dx, vb.dy);
  /* the centre (16 m + 8 samples, in half-pel units 32 m + 16) moved */
  int x = clamp ((32 * (int) (mb % mb_width) + 16 + to.x) >> 5, 0,
      (int) mb_width - 1);
  int y = clamp ((32 * (int) (mb / mb_width) + 16 + to.y) >> 5, 0,
      (int) mb_height - 1);
  vb = b[y * (int) mb_width + x];
  r.dx = (short) clamp (va.dx + sign * vb.dx, -reach, reach);
  r.dy = (short) clamp (va.dy + sign * vb.dy, -reach, reach);
  r.sad = 0;
  out[mb] = r;
}
#endif

/* The lambda of the macroblock decisions (header, vector, mode bits):
 * 3/4 of the quantisation's @lambda4, the better trade-off measured. */
static long
mode_lambda (int lambda4)
{
  return lambda4 * 3 / 4;
}

/* bits of coded_block_pattern @cbp: in 4:2:2 the code of its 4:2:0 part,
 * then coded_block_pattern_1's two bits */
static int
cbp_bits (__global const uchar * bits, int cbp)
{
  return MPEG_CHROMA_422 ? bits[RD_CBP_BITS + (cbp >> 2)] + 2 :
      bits[RD_CBP_BITS + cbp];
}

/* Cost (4 x squared error + lambda x bits) of an inter macroblock whose
 * vectors take @mv_bits (-1: the zero vector, none coded): the
 * coefficients' @energy, lowered by @delta when its
 * levels (@cbp) are coded; the header as a skipped macroblock (zero
 * vector: nothing), "no MC, coded" ("01"), "MC, not coded" ("001" and the
 * vector) or "MC, coded" ("1", the vector), weighed by mode_lambda; the
 * levels dropped when that is cheaper (*@keep cleared). */
static long
inter_cost (long energy, int delta, int cbp, int mv_bits, int lambda4,
    __global const uchar * bits, int *keep)
{
  long lambda = mode_lambda (lambda4);
  int moving = mv_bits >= 0;
  long header = moving ? lambda * (mv_bits + 3) : 0;
  long coded = cbp ? delta + lambda * (cbp_bits (bits, cbp) +
      (moving ? -2 : 2)) : 0;
  *keep = coded < 0;
  return energy + header + (*keep ? coded : 0);
}

/* Cost of an intra macroblock in a P picture: @energy (4 x squared error
 * of its DC levels and of no AC level) lowered by @delta of its AC levels
 * (see rd_quantise), and mb_type "00011" and the DC differentials @dc
 * (the blocks' in order) with the predictors at their reset value (the
 * middle of the range of 8 + @dc_shift bits), as after a non-intra
 * macroblock, each chroma block predicted from the one before of its
 * component (4:2:2); bits weighed as in inter_cost. */
static long
intra_cost (long energy, int delta, const int *dc, int lambda4,
    __global const uchar * bits, int dc_shift)
{
  const int reset = 128 << dc_shift;
  /* the predictors of Y, Cb, Cr */
  int n = 5, prev[3] = { reset, reset, reset };
  for (int b = 0; b < MB_BLOCKS; b++) {
    const int comp = b < 4 ? 0 : 1 + (b & 1);
    int d = dc[b] - prev[comp];
    int size = d ? 32 - (int) clz ((uint) abs (d)) : 0;
    n += bits[RD_DC_BITS + (comp ? RD_DC_SIZES : 0) + size] + size;
    prev[comp] = dc[b];
  }
  return energy + delta + mode_lambda (lambda4) * n;
}

/* The fewest bits of an intra macroblock's header in a P picture: its
 * mb_type and its blocks' DC differentials of the shortest sizes (see
 * intra_cost) */
static int
intra_min_bits (__global const uchar * bits)
{
  int luma = INT_MAX, chroma = INT_MAX;
  for (int size = 0; size < RD_DC_SIZES; size++) {
    luma = min (luma, bits[RD_DC_BITS + size] + size);
    chroma = min (chroma, bits[RD_DC_BITS + RD_DC_SIZES + size] + size);
  }
  return 5 + 4 * luma + (MB_BLOCKS - 4) * chroma;
}

/* Of the searched vector @v (SAD @sv) and the predictor's own vector @p
 * (@sp), the one with the least SAD + @mv_lambda16 / 16 * its bits from
 * @pred (v on ties); its SAD in *@sad. Whether the macroblock moves at
 * all is decided on its coded form (inter_cost). */
static int2
choose_moving (int sv, int sp, int2 v, int2 p, int2 pred, int mv_lambda16,
    __global const uchar * bits, int *sad)
{
  int jv = 16 * sv + mv_lambda16 * vector_bits (bits, v - pred);
  int jp = 16 * sp + mv_lambda16 * vector_bits (bits, p - pred);
  *sad = jp < jv ? sp : sv;
  return jp < jv ? p : v;
}

/* Of the searched vector @v (SAD @sv) and the predictor's own vector @w
 * (@sw), the one choose_moving did not take (@taken) into *@second, its
 * SAD into *@sad; returns whether it is coded too, as a candidate of its
 * own: where it differs from @taken and from zero and predicts clearly
 * better than the zero vector (@s0; quantiser @q). Their SADs often rank
 * them otherwise than their coded costs do. (The vectors of the neighbours
 * above may take its place: take_above.) */
static int
second_vector (int2 v, int sv, int2 w, int sw, int2 taken, int s0, int q,
    int2 * second, int *sad)
{
  const int took_w = taken.x == w.x && taken.y == w.y;
  *second = took_w ? v : w;
  *sad = took_w ? sv : sw;
  return (second->x != taken.x || second->y != taken.y) &&
      (second->x || second->y) && *sad + MOVING_MARGIN * q < s0;
}

/* The second moving candidate is transformed and coded only where it
 * may rival the first: where its luma SATD plus SAD, a vector bit at
 * SECOND_RIVAL_PRICE mv_lambda16 / 16, lies less than SECOND_RIVAL_MARGIN
 * q above the first's. SATD ranks the coded costs better than the SADs
 * that chose the pair; the margin keeps the near ones, which only the
 * coded macroblocks tell apart. On the real-content set (I and P
 * against FFmpeg's best) margins of 256, 128 and 64 cost 0.03, 0.07 and
 * 0.12 points (at 64 jellyfish turns positive), no second candidate 0.8;
 * at 128 the macroblock kernel takes about 8% less time at 1080p. */
#define SECOND_RIVAL_MARGIN 128
#define SECOND_RIVAL_PRICE 16

/* Whether the second moving candidate (luma SATD plus SAD @t_second,
 * @second_bits vector bits) may rival the first (@t_first, @first_bits)
 * at quantiser @q (see SECOND_RIVAL_MARGIN) */
static int
second_rivals (int t_second, int second_bits, int t_first, int first_bits,
    int q, int mv_lambda16)
{
  const long price = SECOND_RIVAL_PRICE * (long) mv_lambda16;
  return 16 * (long) t_second + price * second_bits <
      16 * ((long) t_first + SECOND_RIVAL_MARGIN * q) + price * first_bits;
}

/* The searched vector of the macroblock above @mb (@right 0), or above
 * and to the right (1), clamped for @mb; zero where there is none */
static int2
above_vector (__global const GstClMotionVector * vectors, uint mb, uint mbx,
    uint mby, uint right, uint mb_width, uint W, uint H)
{
  return mby && mbx + right < mb_width ? clamp_vector (mb_vector (vectors,
          mb - mb_width + right, mbx + right, mby - 1, W, H), mbx, mby, W,
      H) : (int2) (0, 0);
}

/* Whether an above_vector @above may be the second moving candidate (see
 * second_vector): it is not zero, not the vector taken (@taken), nor the
 * second where there is one (@has) */
static int
above_competes (int2 above, int2 taken, int has, int2 second)
{
  return (above.x || above.y) && (above.x != taken.x || above.y != taken.y)
      && !(has && above.x == second.x && above.y == second.y);
}

/* Takes @above_competes's vector @above (SAD @sa, @above_bits from the
 * predictor) as the second moving candidate (*@has, *@second, its SAD
 * *@sad_second, its bits *@second_bits) where it predicts clearly better
 * than the zero vector (@s0), and better by SAD + @mv_lambda16 / 16 per
 * vector bit than the second where there is one; returns whether it
 * did. The left neighbour's and the searched vector often both miss
 * motion that the row above found. */
static int
take_above (int2 above, int sa, int above_bits, int *has, int2 * second,
    int *sad_second, int *second_bits, int s0, int q, int mv_lambda16)
{
  if (sa + MOVING_MARGIN * q >= s0 || (*has &&
          16 * sa + mv_lambda16 * above_bits >=
          16 * *sad_second + mv_lambda16 * *second_bits))
    return 0;
  *has = 1;
  *second = above;
  *sad_second = sa;
  *second_bits = above_bits;
  return 1;
}

/* Inter or intra from the SADs of the zero vector (@s0) and of @v (@sv),
 * and the activity: the zero vector unless @v is clearly better (it can
 * be skipped), intra unless the prediction beats the activity by
 * @intra_bias. Returns the vector coded (zero for intra). Without
 * rate-distortion decisions only. */
static int2
decide (int s0, int sv, int act, uint intra_bias, int2 v, int *intra,
    int *cost)
{
  int best = sv;
  if (s0 <= sv + ZERO_VECTOR_BIAS) {
    v = (int2) (0, 0);
    best = s0;
  }
  *intra = best > act + (int) intra_bias;
  *cost = *intra ? act : best;
  return *intra ? (int2) (0, 0) : v;
}

#if !GST_CL_CPU_LAYOUT
#if MPEG_KERNELS_OF (CORE)
__kernel void
mpeg_load (__global const uchar * src, __global uchar * dst,
    const GstClMpegLoadArgs args)
{
  const uint y_off = args.y.offset, y_stride = args.y.stride;
  const uint u_off = args.u.offset, u_stride = args.u.stride;
  const uint v_off = args.v.offset, v_stride = args.v.stride;
  const uint c_ps = args.chroma_pixel_stride;
  const uint width = args.width, height = args.height;
  const uint W = args.padded_width, H = args.padded_height;
  const uint cx = get_global_id (0), cy = get_global_id (1);
  const uint CW = W / 2, CH = CHROMA_HEIGHT (H), cw = (width + 1) / 2;
  const uint ch = MPEG_CHROMA_422 ? height : (height + 1) / 2, rows = H / CH;
  uint sx, sy, i;

  if (cx >= CW || cy >= CH)
    return;
  /* the luma samples over this chroma sample: 2 x 2, or 2 x 1 (4:2:2) */
  for (i = 0; i < 2 * rows; i++) {
    uint x = 2 * cx + (i & 1), y = rows * cy + (i >> 1);
    dst[y * W + x] = src[y_off + min (y, height - 1) * y_stride +
        min (x, width - 1)];
  }
  sx = min (cx, cw - 1);
  sy = min (cy, ch - 1);
  dst[W * H + cy * CW + cx] = src[u_off + sy * u_stride + sx * c_ps];
  dst[W * H + CW * CH + cy * CW + cx] =
      src[v_off + sy * v_stride + sx * c_ps];
}
#endif
#endif

#if GST_CL_CPU_LAYOUT
/* CPU layout: one work-item per chroma row, the two luma rows over it and
 * that chroma row of both planes, in long runs the compiler vectorises. */
#if MPEG_KERNELS_OF (CORE)
__kernel void
mpeg_load_rows (__global const uchar * src, __global uchar * dst,
    const GstClMpegLoadArgs args)
{
  const uint y_off = args.y.offset, y_stride = args.y.stride;
  const uint u_off = args.u.offset, u_stride = args.u.stride;
  const uint v_off = args.v.offset, v_stride = args.v.stride;
  const uint c_ps = args.chroma_pixel_stride;
  const uint width = args.width, height = args.height;
  const uint W = args.padded_width, H = args.padded_height;
  const uint cy = get_global_id (0);
  const uint CW = W / 2, CH = CHROMA_HEIGHT (H), cw = (width + 1) / 2;
  const uint ch = MPEG_CHROMA_422 ? height : (height + 1) / 2, rows = H / CH;
  __global const uchar *su, *sv;
  __global uchar *du, *dv;
  uint x, i;

  if (cy >= CH)
    return;
  for (i = 0; i < rows; i++) {
    uint y = rows * cy + i;
    __global const uchar *s = src + y_off + min (y, height - 1) * y_stride;
    __global uchar *d = dst + y * W;
    for (x = 0; x < width; x++)
      d[x] = s[x];
    for (; x < W; x++)
      d[x] = s[width - 1];
  }
  su = src + u_off + min (cy, ch - 1) * u_stride;
  sv = src + v_off + min (cy, ch - 1) * v_stride;
  du = dst + W * H + cy * CW;
  dv = dst + W * H + CW * CH + cy * CW;
  if (c_ps == 1) {
    for (x = 0; x < cw; x++) {
      du[x] = su[x];
      dv[x] = sv[x];
    }
  } else {
    for (x = 0; x < cw; x++) {
      du[x] = su[2 * x];
      dv[x] = sv[2 * x];
    }
  }
  for (; x < CW; x++) {
    du[x] = su[(cw - 1) * c_ps];
    dv[x] = sv[(cw - 1) * c_ps];
  }
}
#endif
#endif

/* Sum of @v over the work-group (64 items); every item gets it. */
static int
group_sum (__local int *red, int v, uint t)
{
  int s;
  barrier (CLK_LOCAL_MEM_FENCE);
  red[t] = v;
  barrier (CLK_LOCAL_MEM_FENCE);
  for (uint n = 32; n > 0; n >>= 1) {
    if (t < n)
      red[t] += red[t + n];
    barrier (CLK_LOCAL_MEM_FENCE);
  }
  s = red[0];
  return s;
}

static int
predict (__global const uchar * p, uint stride, int x, int y, int fx, int fy,
    int hx, int hy)
{
  __global const uchar *s = p + (y + fy) * (int) stride + x + fx;
  if (hx && hy)
    return (s[0] + s[1] + s[stride] + s[stride + 1] + 2) >> 2;
  if (hx)
    return (s[0] + s[1] + 1) >> 1;
  if (hy)
    return (s[0] + s[stride] + 1) >> 1;
  return s[0];
}

/* This work-item's sample (row @r, column @c) of each block's prediction
 * with the luma vector @v (chroma: chroma_vector) */
static void
predict_samples (__global const uchar * ref, uint W, uint CW,
    const uint * off, const int *bx, const int *by, const int *bc, uint r,
    uint c, int2 v, int *out)
{
  const int2 cv = chroma_vector (v);
  for (int b = 0; b < MB_BLOCKS; b++) {
    int x = bx[b] + c, y = by[b] + r;
    if (b < 4)
      out[b] = predict (ref, W, x, y, v.x >> 1, v.y >> 1, v.x & 1, v.y & 1);
    else
      out[b] = predict (ref + off[bc[b]], CW, x, y, cv.x >> 1, cv.y >> 1,
          cv.x & 1, cv.y & 1);
  }
}

/* The macroblock's luma, of which this work-item holds sample (row @r,
 * column @c) of each block (frame lines) in @v, into @m (256 ints of
 * local memory), 16 x 16 in raster order, for every work-item to read */
static void
store_luma (__local int *m, const int *v, uint r, uint c)
{
  barrier (CLK_LOCAL_MEM_FENCE);
  for (int b = 0; b < 4; b++)
    m[((b >> 1) * 8 + r) * 16 + (b & 1) * 8 + c] = v[b];
  barrier (CLK_LOCAL_MEM_FENCE);
}

/* Whether the luma residual whose samples this work-item holds in @v
 * (store_luma) is smoother down the lines of each field than down the
 * frame's (FIELD_DCT_MARGIN) */
static int
prefers_field_dct (__local int *m, __local int *red, const int *v, uint r,
    uint c, uint t)
{
  int frame = 0, field = 0;
  store_luma (m, v, r, c);
  for (int b = 0; b < 4; b++) {
    int y = (b >> 1) * 8 + r, i = y * 16 + (b & 1) * 8 + c;
    if (y < 15)
      frame += abs (m[i] - m[i + 16]);
    if (y < 14)
      field += abs (m[i] - m[i + 32]);
  }
  /* (one sum of the differences: a work-group sum is eight barriers) */
  return group_sum (red, frame - field, t) > FIELD_DCT_MARGIN;
}

/* Where sample (row @r, column @c) of block @b of a macroblock in field
 * blocks (@to_field) or in frame blocks lies in the other arrangement: an
 * index into MB_BLOCKS x 64 samples. Row r of field blocks Y0 and Y1 is
 * line 2 r of the macroblock, of Y2 and Y3 line 2 r + 1; in 4:2:2 the
 * chroma blocks follow (13818-2 6.1.3), 4:2:0's stay in frame blocks. */
static int
rearranged_source (int b, uint r, uint c, int to_field)
{
  /* upper or lower block (frame), top or bottom field; left or right,
   * or chroma component */
  const int part = b < 4 ? b >> 1 : (b - 4) >> 1, side = b & 1;
  const int base = b < 4 ? 0 : 4, line = to_field ? 2 * r + part :
      part * 8 + r;
  if (!MPEG_CHROMA_422 && b >= 4)
    return b * 64 + r * 8 + c;
  /* the line in the arrangement held: frame or field blocks */
  return (base + (to_field ? 2 * (line >> 3) + side : 2 * (line & 1) +
          side)) * 64 + (to_field ? line & 7 : line >> 1) * 8 + c;
}

/* This work-item's samples @v of each block, frame blocks, as the field
 * blocks' (@to_field), or the other way round, through @m (MB_BLOCKS x
 * 64 ints of local memory) */
static void
rearrange_blocks (__local int *m, int *v, uint r, uint c, int to_field)
{
  barrier (CLK_LOCAL_MEM_FENCE);
  for (int b = 0; b < MB_BLOCKS; b++)
    m[b * 64 + r * 8 + c] = v[b];
  barrier (CLK_LOCAL_MEM_FENCE);
  for (int b = 0; b < MB_BLOCKS; b++)
    v[b] = m[rearranged_source (b, r, c, to_field)];
}

/* The first line of block @b of a macroblock in row @mby, its line step
 * in *@step: a frame block, or a field block where @field (4:2:0 chroma
 * stays in frame blocks) */
static int
block_first_line (int field, uint mby, int b, int *step)
{
  const int fb = field && (b < 4 || MPEG_CHROMA_422);
  *step = fb ? 2 : 1;
  return b < 4 ? mby * 16 + (b >> 1) * (fb ? 1 : 8) : mby * CHROMA_ROWS +
      ((b - 4) >> 1) * (fb ? 1 : 8);
}

/* block_first_line of every block into @by, @ys */
static void
block_rows (int field, uint mby, int *by, int *ys)
{
  for (int b = 0; b < MB_BLOCKS; b++)
    by[b] = block_first_line (field, mby, b, &ys[b]);
}

/* Sample (line @y, column @x) of a macroblock's luma held in frame
 * blocks @f */
static int
luma_at (__local const int (*f)[64], int y, int x)
{
  return f[(y >> 3) * 2 + (x >> 3)][(y & 7) * 8 + (x & 7)];
}

/* Whether the samples held in frame blocks @f are smoother down the
 * lines of each field than down the frame's (as prefers_field_dct, read
 * where they lie) */
static int
samples_prefer_field_dct (__local const int (*f)[64], __local int *red,
    uint r, uint c, uint t)
{
  int frame = 0, field = 0;
  for (int b = 0; b < 4; b++) {
    const int y = (b >> 1) * 8 + r, x = (b & 1) * 8 + c;
    const int v = f[b][r * 8 + c];
    if (y < 15)
      frame += abs (v - luma_at (f, y + 1, x));
    if (y < 14)
      field += abs (v - luma_at (f, y + 2, x));
  }
  return group_sum (red, frame - field, t) > FIELD_DCT_MARGIN;
}

/* ---- mpeg_predict_b: a B picture's predictions ----
 *
 * For each macroblock, of the forward prediction (from @fwd with the
 * vector of the least luma SAD + lambda16 / 16 x its bits among the one
 * in @fvec, its left neighbour's and zero), the backward one (@bwd,
 * @bvec, likewise) and their average (interpolated), the one that
 * b_directions ranks first (by SATD plus SAD, and the bits of its
 * macroblock_type, coded, and of its vectors against the left
 * neighbour's of the same direction, as mb_predictor assumes) goes into
 * @pred, all six blocks, and its directions and vectors into @choices.
 * mpeg_encode_mb then codes the picture as a P picture predicted from
 * @pred with zero vectors: coded, not coded or intra, and its
 * reconstruction is the decoder's. */

/* macroblock_type bits of coded forward, backward and interpolated
 * macroblocks (11172-2 table B.2d) */
#define B_FORWARD_TYPE_BITS 4
#define B_BACKWARD_TYPE_BITS 3
#define B_INTERPOLATED_TYPE_BITS 2
/* what a bit weighs against the SATD plus SAD in b_directions, in
 * lambda16 / 16, and by how many times zero_bias a single direction's
 * zero vector is favoured there: on the real-content set with two B
 * pictures against FFmpeg's best, 32 and 2 -12.72% on the mean (0: 32
 * -12.57%, 20 -12.54%, 48 -12.48%, 4 -12.25%; 1: -12.69%, 4: -12.62%),
 * and the SAD alone, a bit at 1 and zero_bias once (before), -12.00% */
#define B_DIRECTION_PRICE 32
#define B_DIRECTION_ZERO_BIAS 2
/* candidate vectors per direction */
#define B_CANDIDATES 3

/* sample (@x, @y) of plane @p (@stride) predicted with the half-pel
 * vector @v */
static int
predict_at (__global const uchar * p, uint stride, int x, int y, int2 v)
{
  return predict (p, stride, x, y, v.x >> 1, v.y >> 1, v.x & 1, v.y & 1);
}

/* Of the candidate vectors @c of a direction (the searched one, the left
 * neighbour's, zero) with the luma SADs @sad, the one with the least
 * SAD + lambda16 / 16 x its bits from @pred (the first on ties), zero's
 * SAD lowered by @zero_bias (a still macroblock is skipped where its
 * neighbour is, a moving one seldom) */
static int2
b_candidate (const int2 * c, const int *sad, int2 pred, long lambda16,
    int zero_bias, __global const uchar * bits)
{
  int best = 0;
  long j[B_CANDIDATES];
  for (int k = 0; k < B_CANDIDATES; k++) {
    int s = c[k].x || c[k].y ? sad[k] : sad[k] - zero_bias;
    j[k] = 16 * (long) s + lambda16 * vector_bits (bits, c[k] - pred);
    if (j[k] < j[best])
      best = k;
  }
  return c[best];
}

/* The candidates of each direction of macroblock (@mbx, @mby): the
 * searched vector, the predictor's (its left neighbour's searched one,
 * which that neighbour codes when it takes it), zero; the predictors in
 * *@pf and *@pb */
static void
b_candidates (__global const GstClMotionVector * fvec,
    __global const GstClMotionVector * bvec, uint mb, uint mbx, uint mby,
    uint W, uint H, int2 * fc, int2 * bc, int2 * pf, int2 * pb)
{
  *pf = mb_predictor (fvec, mb, mbx, mby, W, H);
  *pb = mb_predictor (bvec, mb, mbx, mby, W, H);
  fc[0] = mb_vector (fvec, mb, mbx, mby, W, H);
  bc[0] = mb_vector (bvec, mb, mbx, mby, W, H);
  fc[1] = clamp_vector (*pf, mbx, mby, W, H);
  bc[1] = clamp_vector (*pb, mbx, mby, W, H);
  fc[2] = bc[2] = (int2) (0, 0);
}

/* The SATD plus SAD of the 16 luma rows @src less @pred (satd16) */
static int
luma_satd_sad (const uchar16 * src, const uchar16 * pred)
{
  short16 d[16];
  ushort16 m = 0;               /* (16 x 255 fits) */
  #pragma unroll
  for (int y = 0; y < 16; y++) {
    d[y] = convert_short16 (src[y]) - convert_short16 (pred[y]);
    m += as_ushort16 (max (d[y], -d[y]));
  }
  return (int) satd16 (d) + sum16 (convert_int16 (m));
}

/* luma_satd_sad of the macroblock's luma at @o (row stride @W) of @cur
 * against the prediction @a, or where @average is set the average of @a
 * and @b */
static int
mb_satd_sad (__global const uchar * cur, __global const uchar * a,
    __global const uchar * b, int average, uint o, uint W)
{
  uchar16 src[16], p[16];
  for (int y = 0; y < 16; y++) {
    src[y] = vload16 (0, cur + o + y * W);
    p[y] = vload16 (0, a + o + y * W);
    if (average)
      p[y] = half_avg2 (p[y], vload16 (0, b + o + y * W));
  }
  return luma_satd_sad (src, p);
}

/* The directions of the macroblock from the SATD plus SAD of the luma
 * residual of each prediction (@tf forward, @tb backward, @ti
 * interpolated; see satd16), lowered by B_DIRECTION_ZERO_BIAS @zero_bias
 * for a single direction's zero vector (see b_candidate), and the bits of
 * its macroblock_type and vectors (@vf, @vb from the predictors @pf, @pb)
 * at B_DIRECTION_PRICE lambda16 / 16 a bit. The SAD alone chose the
 * interpolated prediction, which averages noise away, beyond what its
 * coded residual gains. */
static uint
b_directions (int tf, int tb, int ti, int2 vf, int2 vb, int2 pf, int2 pb,
    long lambda16, int zero_bias, __global const uchar * bits)
{
  const long price = B_DIRECTION_PRICE * lambda16;
  const int bf = vector_bits (bits, vf - pf), bb = vector_bits (bits,
      vb - pb);
  const int still = B_DIRECTION_ZERO_BIAS * zero_bias;
  long best = 16 * (long) ti + price * (B_INTERPOLATED_TYPE_BITS + bf + bb);
  const long jf = 16 * (long) (vf.x || vf.y ? tf : tf - still) +
      price * (B_FORWARD_TYPE_BITS + bf);
  const long jb = 16 * (long) (vb.x || vb.y ? tb : tb - still) +
      price * (B_BACKWARD_TYPE_BITS + bb);
  uint dirs = GST_CL_MPEG_B_FORWARD | GST_CL_MPEG_B_BACKWARD;

  if (jf < best) {
    dirs = GST_CL_MPEG_B_FORWARD;
    best = jf;
  }
  if (jb < best)
    dirs = GST_CL_MPEG_B_BACKWARD;
  return dirs;
}

static void
write_choice (__global GstClMpegBChoice * c, uint dirs, int2 vf, int2 vb)
{
  c->fdx = (short) (dirs & GST_CL_MPEG_B_FORWARD ? vf.x : 0);
  c->fdy = (short) (dirs & GST_CL_MPEG_B_FORWARD ? vf.y : 0);
  c->bdx = (short) (dirs & GST_CL_MPEG_B_BACKWARD ? vb.x : 0);
  c->bdy = (short) (dirs & GST_CL_MPEG_B_BACKWARD ? vb.y : 0);
  c->directions = dirs;
}

/* where component @c (0 Y, 1 Cb, 2 Cr) of a W x H picture starts */
static uint
plane_offset (uint W, uint H, int c)
{
  return c ? W * H + (c - 1) * (W / 2) * CHROMA_HEIGHT (H) : 0;
}

/* Sample (@x, @y) of component @c (0 Y, 1 Cb, 2 Cr) of the prediction of
 * @dirs with the luma vectors @vf and @vb (chroma: chroma_vector) */
static uchar
b_sample (__global const uchar * fwd, __global const uchar * bwd, uint W,
    uint H, int c, int x, int y, uint dirs, int2 vf, int2 vb)
{
  const uint off = plane_offset (W, H, c);
  const uint stride = c ? W / 2 : W;
  int a = dirs & GST_CL_MPEG_B_FORWARD ? predict_at (fwd + off, stride, x,
      y, c ? chroma_vector (vf) : vf) : 0;
  int b = dirs & GST_CL_MPEG_B_BACKWARD ? predict_at (bwd + off, stride, x,
      y, c ? chroma_vector (vb) : vb) : 0;
  return (uchar) (dirs == (GST_CL_MPEG_B_FORWARD | GST_CL_MPEG_B_BACKWARD) ?
      (a + b + 1) >> 1 : a + b);
}

#if !GST_CL_CPU_LAYOUT
/* Coefficient @k of the order-8 Hadamard transform of the eight values
 * @stride apart from @p: each +-1 times, the sign the parity of the bits
 * its place shares with @k */
static int
hadamard8_coeff (__local const int *p, uint stride, uint k)
{
  int c = 0;
  for (uint j = 0; j < 8; j++)
    c += popcount (k & j) & 1 ? -p[stride * j] : p[stride * j];
  return c;
}

/* The SATD plus SAD (see satd16) of the luma residual of @n 8 x 8 blocks
 * (two or four) whose samples @d work-item @t of the 64 holds, @n of
 * them, each at its index @at of @res (64 block + 8 row + column: the
 * blocks one after the other). The transform is separable: each
 * work-item makes @n of the 64 @n coefficients along the rows, then @n
 * down the columns (hadamard8_coeff), and the magnitudes are summed
 * across the group. */
static int
group_blocks_satd_sad (__local int *res, __local int *red, const int *d,
    const int *at, uint n, uint t)
{
  int sum = 0, along[4];
  for (uint i = 0; i < n; i++) {
    res[at[i]] = d[i];
    sum += abs (d[i]);
  }
  barrier (CLK_LOCAL_MEM_FENCE);
  /* output k: coefficient k & 7 of row k >> 3 (the blocks' rows in turn) */
  for (uint i = 0; i < n; i++) {
    const uint k = n * t + i;
    along[i] = hadamard8_coeff (res + (k & ~7u), 1, k & 7);
  }
  barrier (CLK_LOCAL_MEM_FENCE);
  for (uint i = 0; i < n; i++)
    res[n * t + i] = along[i];
  barrier (CLK_LOCAL_MEM_FENCE);
  /* output k: coefficient (k >> 3) & 7 down column k & 7 of block k >> 6 */
  for (uint i = 0; i < n; i++) {
    const uint k = n * t + i;
    sum += abs (hadamard8_coeff (res + (k & ~63u) + (k & 7), 8,
            (k >> 3) & 7));
  }
  /* (group_sum's barrier: every work-item has read @res before it is
   * written again) */
  return group_sum (red, sum, t);
}

/* ... of the macroblock's four luma blocks, four samples a work-item */
static int
group_satd_sad (__local int *res, __local int *red, const int *d,
    const int *at, uint t)
{
  return group_blocks_satd_sad (res, red, d, at, 4, t);
}

/* GPU layout: a work-group of 64 per macroblock, each work-item four
 * luma samples of a row and one sample of each chroma block */
#if MPEG_KERNELS_OF (B)
__kernel __attribute__ ((reqd_work_group_size (64, 1, 1)))
void
mpeg_predict_b (__global const uchar * cur, __global const uchar * fwd,
    __global const uchar * bwd, __global const GstClMotionVector * fvec,
    __global const GstClMotionVector * bvec, __global const uchar * bits,
    __global uchar * pred, __global GstClMpegBChoice * choices,
    const GstClMpegPredictArgs args)
{
  const uint mb = get_group_id (0), t = get_local_id (0);
  const uint mbx = mb % args.mb_width, mby = mb / args.mb_width;
  const uint W = args.mb_width * 16, H = args.mb_height * 16;
  const int x0 = mbx * 16 + (t & 3) * 4, y = mby * 16 + (t >> 2);
  const long lambda16 = args.lambda16;
  __local int red[64], res[256];
  int2 vf, vb, pf, pb, fc[B_CANDIDATES], bc[B_CANDIDATES];
  int sf[B_CANDIDATES] = { 0 }, sb[B_CANDIDATES] = { 0 };
  int df[4], db[4], di[4], at[4];
  uint dirs;

  b_candidates (fvec, bvec, mb, mbx, mby, W, H, fc, bc, &pf, &pb);
  for (int x = x0; x < x0 + 4; x++) {
    int o = cur[y * W + x];
    for (int k = 0; k < B_CANDIDATES; k++) {
      sf[k] += abs (o - predict_at (fwd, W, x, y, fc[k]));
      sb[k] += abs (o - predict_at (bwd, W, x, y, bc[k]));
    }
  }
  for (int k = 0; k < B_CANDIDATES; k++) {
    sf[k] = group_sum (red, sf[k], t);
    sb[k] = group_sum (red, sb[k], t);
  }
  vf = b_candidate (fc, sf, pf, lambda16, args.zero_bias, bits);
  vb = b_candidate (bc, sb, pb, lambda16, args.zero_bias, bits);
  for (int i = 0; i < 4; i++) {
    int x = x0 + i, o = cur[y * W + x];
    int a = predict_at (fwd, W, x, y, vf), b = predict_at (bwd, W, x, y, vb);
    int bx = (x & 15) >> 3, by = (y & 15) >> 3;
    at[i] = 64 * (2 * by + bx) + 8 * (y & 7) + (x & 7);
    df[i] = o - a;
    db[i] = o - b;
    di[i] = o - ((a + b + 1) >> 1);
  }
  dirs = b_directions (group_satd_sad (res, red, df, at, t),
      group_satd_sad (res, red, db, at, t), group_satd_sad (res, red, di,
          at, t),
      vf, vb, pf, pb, lambda16, args.zero_bias, bits);
  if (t == 0)
    write_choice (&choices[mb], dirs, vf, vb);
  for (int x = x0; x < x0 + 4; x++)
    pred[y * W + x] = b_sample (fwd, bwd, W, H, 0, x, y, dirs, vf, vb);
  for (int c = 1; c < 3; c++)
    for (int k = t; k < 8 * CHROMA_ROWS; k += 64) {
      const int cx = mbx * 8 + (k & 7), cy = mby * CHROMA_ROWS + (k >> 3);
      pred[plane_offset (W, H, c) + cy * (W / 2) + cx] =
          b_sample (fwd, bwd, W, H, c, cx, cy, dirs, vf, vb);
    }
}
#endif
#endif

/* ---- mpeg_field_search: field prediction in interlaced P pictures ----
 *
 * Each field of the macroblock (its even lines, then its odd ones) takes
 * the vector and the reference field (13818-2 7.6.3.1, frame_motion_type
 * 1) of least cost (field_cost: luma SAD + lambda16 / 16 per bit of the
 * vector against the left neighbour's frame vector as a field vector)
 * among: the zero vector from the field of its own parity; in each
 * reference field, a grid of full-pel vectors up to args.reach samples
 * each way around the macroblock's frame vector as a field vector (a
 * frame vector of dy half-pels moves field p by dy / 2 + p - s half
 * field lines in field s), and where args.seed_reach is not 0 another
 * that many samples each way around the vector that a search of the top
 * fields found for the 16x16 block over the macroblock (@field_vectors,
 * a row of blocks over two rows of macroblocks), taken as a frame
 * vector; from the best, up to
 * FIELD_STEPS steps of one sample towards the cheapest of its eight
 * neighbours while that is cheaper; then the half-pel vectors around the
 * best. Every vector keeps its prediction inside the picture and within
 * [-range, range - 1]. The prediction of the six blocks goes into @pred,
 * the vectors into @choices with their SAD and the bits of both vectors
 * against the left neighbour's frame vector as a field vector, and the
 * selects'. */

/* whether field vector @v of macroblock (@mbx, @mby) predicts from inside
 * a field of a W x H picture, within [-@range, @range - 1] */
static int
field_vector_fits (int2 v, int mbx, int mby, int W, int H, int range)
{
  int x0 = mbx * 16 + (v.x >> 1), y0 = mby * 8 + (v.y >> 1);
  return v.x >= -range && v.x < range && v.y >= -range && v.y < range &&
      x0 >= 0 && x0 + 16 + (v.x & 1) <= W && y0 >= 0 &&
      y0 + 8 + (v.y & 1) <= H / 2;
}

/* POCL moves vloadn / vstoren data piecewise where it cannot prove them
 * aligned; plain vector accesses are single instructions. The macroblock's
 * own rows are aligned (buffers start on 128 bytes, luma rows of a
 * macroblock on 16, chroma rows on 8, each pair's levels on 256). The
 * prediction reads rows anywhere: its 16-byte rows POCL loads whole here
 * (vmovdqu), its 8-byte chroma rows go through LOAD8_ANY. */

/* row @i of 16 (@wide) or 8 samples at @s, the 8 in the low half */
#define PRED_ROW(s, i, stride, wide) ((wide) ? vload16 (0, (s) + (i) *      \
        (stride)) : (uchar16) (LOAD8_ANY ((s) + (i) * (stride)), (uchar8) 0))

/* @n rows of 16 (@wide) or 8 samples of the prediction at @s: the
 * MPEG-1 half-pel averages: between four samples where @hx and @hy are
 * both set, between two where one is, the samples themselves where
 * neither is. (Inlined: every caller's @n is a constant, and the rows
 * unroll only where it is known.) */
__attribute__ ((always_inline)) static void
predict_rows (__global const uchar * s, int stride, int hx, int hy, int n,
    int wide, uchar16 * out)
{
  if (hx && hy) {
    #pragma unroll
    for (int i = 0; i < n; i++)
      out[i] = half_avg4 (PRED_ROW (s, i, stride, wide),
          PRED_ROW (s + 1, i, stride, wide),
          PRED_ROW (s + stride, i, stride, wide),
          PRED_ROW (s + stride + 1, i, stride, wide));
  } else if (hx || hy) {
    __global const uchar *o = s + hx + hy * stride;
    #pragma unroll
    for (int i = 0; i < n; i++)
      out[i] = half_avg2 (PRED_ROW (s, i, stride, wide),
          PRED_ROW (o, i, stride, wide));
  } else {
    #pragma unroll
    for (int i = 0; i < n; i++)
      out[i] = PRED_ROW (s, i, stride, wide);
  }
}

/* the 16 (@wide) or 8 samples at column @x of line @y of a field whose
 * lines lie @stride apart from @p, predicted with the field vector @v */
static uchar16
field_row_of (__global const uchar * p, int stride, int x, int y, int2 v,
    int wide)
{
  uchar16 row;
  predict_rows (p + (y + (v.y >> 1)) * stride + x + (v.x >> 1), stride,
      v.x & 1, v.y & 1, 1, wide, &row);
  return row;
}

static uchar16
field_row (__global const uchar * p, int stride, int x, int y, int2 v)
{
  return field_row_of (p, stride, x, y, v, 1);
}

/* line @i of field @p of the macroblock */
static uchar16
field_line (__global const uchar * cur, int W, int mbx, int mby, int p,
    int i)
{
  return LOAD16_ANY (cur + (mby * 16 + 2 * i + p) * W + mbx * 16);
}

/* luma SAD of line @i of field @p of the macroblock predicted from field
 * @s of @ref with @v */
static int
field_line_sad (__global const uchar * cur, __global const uchar * ref,
    int W, int mbx, int mby, int p, int s, int2 v, int i)
{
  return (int) sad_total (sad_add16 (SAD_ZERO, field_line (cur, W, mbx, mby,
              p, i), field_row (ref + s * W, 2 * W, mbx * 16, mby * 8 + i,
              v)));
}

/* luma SAD of field @p of the macroblock predicted from field @s of
 * @ref with @v */
static int
field_sad (__global const uchar * cur, __global const uchar * ref, int W,
    int mbx, int mby, int p, int s, int2 v)
{
  sad_acc_t acc = SAD_ZERO;
  for (int i = 0; i < 8; i++)
    acc = sad_add16 (acc, field_line (cur, W, mbx, mby, p, i),
        field_row (ref + s * W, 2 * W, mbx * 16, mby * 8 + i, v));
  return (int) sad_total (acc);
}

/* the first sample of the macroblock's block in field @s of @ref (lines
 * 2 @W apart) at the whole samples of the field vector @v */
static __global const uchar *
field_block_at (__global const uchar * ref, int W, int mbx, int mby, int s,
    int2 v)
{
  return ref + (2 * (mby * 8 + (v.y >> 1)) + s) * W + mbx * 16 + (v.x >> 1);
}

/* the 8 lines of a field of the macroblock predicted from field @s of
 * @ref with @v, in one predict_rows (one branch on the half-pels) */
static void
field_lines_predicted (__global const uchar * ref, int W, int mbx, int mby,
    int s, int2 v, uchar16 * rows)
{
  predict_rows (field_block_at (ref, W, mbx, mby, s, v), 2 * W, v.x & 1,
      v.y & 1, 8, 1, rows);
}

/* the SAD of a field's 8 @lines against the 8 @rows */
static int
lines_sad (const uchar16 * lines, const uchar16 * rows)
{
  sad_acc_t acc[2] = { SAD_ZERO, SAD_ZERO };
  #pragma unroll
  for (int i = 0; i < 8; i++)
    acc[i & 1] = sad_add16 (acc[i & 1], lines[i], rows[i]);
  return (int) sad_total (acc[0] + acc[1]);
}

/* field_sad of field @p's 8 @lines (field_line) */
static int
field_lines_sad (const uchar16 * lines, __global const uchar * ref, int W,
    int mbx, int mby, int s, int2 v)
{
  uchar16 rows[8];
  field_lines_predicted (ref, W, mbx, mby, s, v, rows);
  return lines_sad (lines, rows);
}

/* A P picture's field prediction is priced at this many bits more than
 * its vectors': of the same SATD as the frame vector's it leaves a
 * residual that costs more to code. And what a bit weighs against the
 * SATD plus SAD, in mv_lambda16 / 16 (see takes_field_prediction). On
 * the interlaced real-content set against FFmpeg's best: 16 and 4 -6.52%
 * on the mean, 16 and 0 -6.50%, 16 and 10 -6.38%, 8 and 4 -6.29%, 20
 * and 4 -6.47%, 32 and 10 -5.45%; by SAD at 1 and 10 (before) -5.53%. */
#define FIELD_MOTION_EXTRA_BITS 4
#define FIELD_MOTION_PRICE 16

/* Whether the field prediction @f, of luma SATD plus SAD @field_t, costs
 * less (16 SATD plus SAD + FIELD_MOTION_PRICE @mv_lambda16 per vector
 * bit, FIELD_MOTION_EXTRA_BITS more) than the frame vector's (@frame_t,
 * *@bits); its SAD and bits become *@sad and *@bits then. By SAD the
 * choice took the field prediction, whose two vectors follow the fields'
 * motion apart, where its residual coded no cheaper: 1.0% more bits on
 * interlaced content. */
static int
takes_field_prediction (__global const GstClMpegFieldChoice * f,
    int field_t, int frame_t, int mv_lambda16, int *sad, int *bits)
{
  const long price = FIELD_MOTION_PRICE * (long) mv_lambda16;
  if (16 * (long) field_t + price * ((int) f->bits + FIELD_MOTION_EXTRA_BITS)
      >= 16 * (long) frame_t + price * *bits)
    return 0;
  *sad = f->sad;
  *bits = f->bits;
  return 1;
}

/* The full-pel grid is searched args.reach samples each way around the
 * frame vector (and args.seed_reach around the top fields' vector too),
 * then up to FIELD_STEPS one-sample steps follow the least SAD. On
 * woven frames of fast handheld motion the frame vector is poor for the
 * fields, and the least SAD lies far from it: on the interlaced
 * real-content set against FFmpeg's best, cockatoo at reach 2 +6.6%, 3
 * +4.9%, 4 +3.4%, 6 +0.8% (the set's mean at reach 4 -5.4% against
 * -4.7%); at 1080i on POCL the field search takes 44, 67 and 104 ms a P
 * picture. The grids of reach 2 around both vectors: cockatoo +2.8%, the
 * mean -5.7%, every clip as good or better, for about a quarter more of
 * the encoder's time (a search of the top fields at medium effort); of
 * reach 2 and 1 (at low effort) cockatoo +4.0%, the mean -5.4%, for a
 * tenth more (medium effort); of reach 4 around both (high effort)
 * cockatoo -1.4%, the mean -6.5%; around the top fields' vector alone
 * +8.1%; a coarse grid 3 or 4 samples apart, then a fine one around its
 * best, +4.4% and +4.6%. */
#define FIELD_STEPS 8

/* the candidates of a reach: the zero vector, a grid per reference field */
static int
field_side (int reach)
{
  return 2 * reach + 1;
}

static int
field_candidates (int reach)
{
  return 1 + 2 * field_side (reach) * field_side (reach);
}

/* Component @v of a frame vector that spans @span field periods, scaled
 * to @dt periods (rounded half away from zero) */
static int
scale_to_fields (int v, int dt, int span)
{
  int a = (abs (v) * dt + span / 2) / span;
  return v < 0 ? -a : a;
}

/* The vector of the top fields' 16x16 block over macroblock (@mbx,
 * @mby) in @field_vectors, as a frame vector: its vertical component
 * doubled (field lines lie two frame lines apart) */
static int2
field_seed (__global const GstClMotionVector * field_vectors, int mb_width,
    int mbx, int mby)
{
  __global const GstClMotionVector *v = &field_vectors[mby / 2 * mb_width +
      mbx];
  return (int2) (v->dx, 2 * v->dy);
}

/* The first (top left) vector of the grid of field @p towards field @s
 * around the frame vector @fv: @fv scaled to the fields (field_candidate),
 * on full samples, @reach samples up and left */
static int2
field_grid_corner (int2 fv, int p, int s, int span, int order, int reach)
{
  if (span) {
    const int dt = span + order * (p - s);
    fv = (int2) (scale_to_fields (fv.x, dt, span), scale_to_fields (fv.y, dt,
            span));
  }
  return (int2) ((fv.x & ~1) - 2 * reach,
      (((fv.y >> 1) + p - s) & ~1) - 2 * reach);
}

/* whether grids of @seed_reach (0: none) lie around the top fields'
 * vector @sv as well: not where that is the frame vector @fv */
static int
has_seed_grids (int seed_reach, int2 fv, int2 sv)
{
  return seed_reach && (sv.x != fv.x || sv.y != fv.y);
}

/* the candidates searched: field_candidates (@reach), and those of the
 * grids around @sv (has_seed_grids) */
static int
field_search_count (int reach, int seed_reach, int2 fv, int2 sv)
{
  const int n = field_candidates (reach);
  return has_seed_grids (seed_reach, fv, sv) ? n +
      field_candidates (seed_reach) - 1 : n;
}

/* the field_search_count () full-pel candidates of field @p in search
 * order: @i 0 the zero vector from the field of its parity, then per
 * reference field the frame vector @fv as a field vector and the grid
 * around it, row by row, then the same around @sv (of @seed_reach);
 * their reference field in *@s. Motion is taken to be steady: the frame
 * vector, found over @span field periods, is scaled to the span +
 * @order (p - s) periods between the two fields (the nearer field of a
 * fast pan is then found, not only the one of the same parity); @span 0
 * keeps it as it is. */
static int2
field_candidate (int i, int p, int2 fv, int2 sv, int span, int order,
    int reach, int seed_reach, int *s)
{
  const int n = field_candidates (reach);
  if (i >= n) {
    fv = sv;
    i -= n - 1;
    reach = seed_reach;
  }
  const int side = field_side (reach), k = (i - 1) % (side * side);
  if (i == 0) {
    *s = p;
    return (int2) (0, 0);
  }
  *s = (i - 1) / (side * side);
  return field_grid_corner (fv, p, *s, span, order, reach) +
      2 * (int2) (k % side, k / side);
}

/* what a search ranks field vector @v of SAD @sad by: 16 SAD +
 * @lambda16 per bit of its difference from @pred */
static int
field_cost (int sad, int2 v, int2 pred, int lambda16,
    __global const uchar * bits)
{
  return 16 * sad + lambda16 * vector_bits (bits, v - pred);
}

/* The half-pel field vectors around the full-sample one and itself are
 * ranked by the SATD plus SAD of the field's luma residual (a pair of 8
 * x 8 blocks), a vector bit at FIELD_HALF_PRICE lambda16 / 16: SAD
 * rewards a half-pel position's average of two or four samples, which
 * smooths noise away, beyond what the coded residual gains (as in the
 * motion search's refinement). On the interlaced real-content set
 * against FFmpeg's best: I and P pictures -7.17% -> -7.69% (every clip
 * gains, cockatoo +0.8% -> -0.4%), with B pictures -7.17% -> -7.67%; a
 * bit at 4, 8, 32 times: -7.70, -7.70, -7.66%. */
#define FIELD_HALF_PRICE 16

/* the cost of a field vector @v of SATD plus SAD @satd_sad, by
 * FIELD_HALF_PRICE */
static long
field_half_cost (int satd_sad, int2 v, int2 pred, int lambda16,
    __global const uchar * bits)
{
  return 16 * (long) satd_sad + FIELD_HALF_PRICE * (long) lambda16 *
      vector_bits (bits, v - pred);
}

/* ---- dual prime (13818-2 7.6.3.6): an interlaced P picture right after
 * its reference predicts each field as the mean of its prediction from
 * the reference field of its parity, with one coded vector, and from the
 * other one, with that vector scaled to the fields' distance in time and
 * moved by a small differential (dmvector: -1, 0 or 1 each way). The
 * search tries DUAL_PRIME_SEEDS vectors without a differential, the
 * eight others with the best, then steps its vector once around. On the
 * interlaced real-content set against FFmpeg's best, I and P pictures,
 * the mean: -1.2% without dual prime, -4.6% so; each seed with each
 * differential first -4.8% for 13% more of the encoder's time (POCL). */
#define DUAL_PRIME_SEEDS 4
/* Dual prime then replaces the fields' own vectors where the SATD plus
 * SAD of its luma residual (frame lines), a vector bit at
 * DUAL_PRIME_PRICE lambda16 / 16, is lower than theirs: by SAD, whose
 * search chose both, it won where its average of two fields smoothed
 * noise away beyond what its coded residual gained. On the interlaced
 * real-content set against FFmpeg's best: I and P pictures -6.51% ->
 * -7.17% (every clip gains, cockatoo +1.5% -> +0.8%), with B pictures
 * -7.01% -> -7.17%; a bit at 8, 12, 24, 32 times: -7.02, -7.12, -7.21,
 * -7.19%; the lines in field blocks instead -7.11%. */
#define DUAL_PRIME_PRICE 16
/* (the GPU layout takes a work-item a line of each seed's 16, of 64) */
typedef char dual_prime_seeds_check[DUAL_PRIME_SEEDS * 16 <= 64 ? 1 : -1];

/* the differential of try @k of nine */
static int2
dual_prime_dmv (int k)
{
  return (int2) (k % 3 - 1, k / 3 - 1);
}

/* the vector to the reference field of the other parity for field @p,
 * from the same-parity vector @v (over two field periods), the @m
 * periods between the two fields, and @dmv: v m / 2 rounded half up,
 * moved half a field line towards field @p */
static int
dual_prime_scaled (int v, int m)
{
  return (v * m + (v > 0 ? 1 : 0)) >> 1;
}

static int2
dual_prime_vector (int2 v, int2 dmv, int m, int p)
{
  return (int2) (dual_prime_scaled (v.x, m), dual_prime_scaled (v.y, m)) +
      dmv + (int2) (0, p ? 1 : -1);
}

/* field periods from the other parity's reference field to field @p */
static int
dual_prime_span (int span, int order, int p)
{
  return span + order * (p ? 1 : -1);
}

/* the dual prime prediction of the sample at (@x, line @y of field @p)
 * of a plane whose fields start @line apart with lines @stride apart:
 * the mean, rounded up, of the predictions with @same from field @p and
 * with @other from the other field */
static int
dual_prime_sample (__global const uchar * ref, int line, int stride, int x,
    int y, int p, int2 same, int2 other)
{
  return (predict (ref + p * line, stride, x, y, same.x >> 1, same.y >> 1,
          same.x & 1, same.y & 1) + predict (ref + (1 - p) * line, stride, x,
          y, other.x >> 1, other.y >> 1, other.x & 1, other.y & 1) + 1) >> 1;
}

/* the other parity's vectors of each field for @v and @dmv, and whether
 * all three predict from inside the fields (the coded one within
 * [-@range, @range - 1]) */
static int
dual_prime_fits (int2 v, int2 dmv, int span, int order, int mbx, int mby,
    int W, int H, int range, int2 * other)
{
  for (int p = 0; p < 2; p++) {
    other[p] = dual_prime_vector (v, dmv, dual_prime_span (span, order, p),
        p);
    if (!field_vector_fits (other[p], mbx, mby, W, H, 1 << 20))
      return 0;
  }
  return field_vector_fits (v, mbx, mby, W, H, range);
}

/* luma SAD of line @i of field @p of the macroblock under dual prime
 * with @v and @other (the field's vector to the other parity): the two
 * predictions averaged, rounded up (half_avg2) */
static int
dual_prime_line_sad (__global const uchar * cur, __global const uchar * ref,
    int W, int mbx, int mby, int2 v, int2 other, int p, int i)
{
  return (int) sad_total (sad_add16 (SAD_ZERO, field_line (cur, W, mbx, mby,
              p, i), half_avg2 (field_row (ref + p * W, 2 * W, mbx * 16,
                  mby * 8 + i, v), field_row (ref + (1 - p) * W, 2 * W,
                  mbx * 16, mby * 8 + i, other))));
}

/* luma SAD of the macroblock under dual prime with @v and @other, field
 * @p's 8 lines in @lines[p] */
static int
dual_prime_sad (const uchar16 (*lines)[8], __global const uchar * ref,
    int W, int mbx, int mby, int2 v, const int2 * other)
{
  int sad = 0;
  for (int p = 0; p < 2; p++) {
    uchar16 same[8], from_other[8];
    field_lines_predicted (ref, W, mbx, mby, p, v, same);
    field_lines_predicted (ref, W, mbx, mby, 1 - p, other[p], from_other);
    #pragma unroll
    for (int i = 0; i < 8; i++)
      same[i] = half_avg2 (same[i], from_other[i]);
    sad += lines_sad (lines[p], same);
  }
  return sad;
}

/* dmvector's bits (13818-2 table B.11) */
static int
dmv_bits (int2 dmv)
{
  return (dmv.x ? 2 : 1) + (dmv.y ? 2 : 1);
}

/* Whether dual prime, of luma SATD plus SAD @dual_t and @dual_bits,
 * costs less than the fields' own vectors (@field_t, @field_bits) at
 * DUAL_PRIME_PRICE @lambda16 / 16 a bit */
static int
dual_prime_pays (int dual_t, int dual_bits, int field_t, int field_bits,
    int lambda16)
{
  const long price = DUAL_PRIME_PRICE * (long) lambda16;
  return 16 * (long) dual_t + price * dual_bits <
      16 * (long) field_t + price * field_bits;
}

/* the cost of dual prime with @v and @dmv of SAD @sad against the
 * predictor @pv, as field_cost */
static int
dual_prime_try_cost (int sad, int2 v, int2 dmv, int2 pv, int lambda16,
    __global const uchar * bits)
{
  return field_cost (sad, v, pv, lambda16, bits) + lambda16 * dmv_bits (dmv);
}

/* ... its SAD into *@sad; INT_MAX where it does not fit */
static int
dual_prime_cost (const uchar16 (*lines)[8], __global const uchar * ref,
    __global const uchar * bits, int2 v, int2 dmv, int2 pv, int lambda16,
    int span, int order, int mbx, int mby, int W, int H, int range, int *sad)
{
  int2 other[2];
  if (!dual_prime_fits (v, dmv, span, order, mbx, mby, W, H, range, other))
    return INT_MAX;
  *sad = dual_prime_sad (lines, ref, W, mbx, mby, v, other);
  return dual_prime_try_cost (*sad, v, dmv, pv, lambda16, bits);
}

/* the vector of dual prime's seed @i: the frame vector @fv as a field
 * vector, the search's vector of each field where that came from the
 * field of its parity (else the zero vector), the zero vector */
static int2
dual_prime_seed (int i, int2 fv, int2 top, int top_s, int2 bottom,
    int bottom_s)
{
  if (i == 0)
    return (int2) (fv.x, fv.y >> 1);
  if (i == 1 && top_s == 0)
    return top;
  if (i == 2 && bottom_s == 1)
    return bottom;
  return (int2) (0, 0);
}

/* writes samples @k0, @k0 + @step, ... of the prediction of field @p
 * of the macroblock into @pred: its 128 luma samples (8 lines of 16),
 * then its 8 CHROMA_ROWS chroma ones (both components' lines): from
 * field @s with @v, or (@dual) by dual prime with @v and @other */
static void
write_field_prediction (__global const uchar * ref, __global uchar * pred,
    int W, int H, int mbx, int mby, int p, int s, int2 v, int dual,
    int2 other, int k0, int step)
{
  const int CW = W / 2;
  const int2 cv = chroma_vector (v), co = chroma_vector (other);
  for (int k = k0; k < 128; k += step) {
    const int i = k / 16, x = mbx * 16 + k % 16, y = mby * 8 + i;
    pred[(mby * 16 + 2 * i + p) * W + x] = (uchar) (dual ?
        dual_prime_sample (ref, W, 2 * W, x, y, p, v, other) :
        predict (ref + s * W, 2 * W, x, y, v.x >> 1, v.y >> 1, v.x & 1,
            v.y & 1));
  }
  for (int k = k0; k < 8 * CHROMA_ROWS; k += step) {
    const int c = 1 + k / (4 * CHROMA_ROWS), i = k % (4 * CHROMA_ROWS) / 8;
    const int x = mbx * 8 + k % 8, y = mby * CHROMA_ROWS / 2 + i;
    const uint off = plane_offset (W, H, c);
    pred[off + (mby * CHROMA_ROWS + 2 * i + p) * CW + x] = (uchar) (dual ?
        dual_prime_sample (ref + off, CW, 2 * CW, x, y, p, cv, co) :
        predict (ref + off + s * CW, 2 * CW, x, y, cv.x >> 1, cv.y >> 1,
            cv.x & 1, cv.y & 1));
  }
}

#if GST_CL_CPU_LAYOUT
/* line @y of field @p's prediction in a plane @w wide whose fields start
 * @w apart, at column @x, 16 (@wide) or 8 samples: from field @s with
 * @v, or (@dual) by dual prime with @v and @other (dual_prime_sample) */
static uchar16
field_prediction_row (__global const uchar * ref, int w, int x, int y,
    int p, int s, int2 v, int dual, int2 other, int wide)
{
  if (dual)
    return half_avg2 (field_row_of (ref + p * w, 2 * w, x, y, v, wide),
        field_row_of (ref + (1 - p) * w, 2 * w, x, y, other, wide));
  return field_row_of (ref + s * w, 2 * w, x, y, v, wide);
}

/* write_field_prediction, all samples, a line at a time */
static void
write_field_prediction_rows (__global const uchar * ref,
    __global uchar * pred, int W, int H, int mbx, int mby, int p, int s,
    int2 v, int dual, int2 other)
{
  const int CW = W / 2;
  const int2 cv = chroma_vector (v), co = chroma_vector (other);
  for (int i = 0; i < 8; i++)
    vstore16 (field_prediction_row (ref, W, mbx * 16, mby * 8 + i, p, s, v,
            dual, other, 1), 0, pred + (mby * 16 + 2 * i + p) * W +
        mbx * 16);
  for (int c = 1; c < 3; c++) {
    const uint off = plane_offset (W, H, c);
    for (int i = 0; i < CHROMA_ROWS / 2; i++)
      vstore8 (field_prediction_row (ref + off, CW, mbx * 8,
              mby * CHROMA_ROWS / 2 + i, p, s, cv, dual, co, 0).lo, 0,
          pred + off + (mby * CHROMA_ROWS + 2 * i + p) * CW + mbx * 8);
  }
}
#endif

/* the field choice of macroblock @mb: per field @v and @s, @sad of both
 * and @n_bits; or, @dual, dual prime with @v[0] and @dmv */
static void
write_field_choice (__global GstClMpegFieldChoice * c, const int2 * v,
    const int *s, int sad, int n_bits, int dual, int2 dmv)
{
  for (int p = 0; p < 2; p++) {
    c->dx[p] = (short) v[dual ? 0 : p].x;
    c->dy[p] = (short) v[dual ? 0 : p].y;
    c->select[p] = (uchar) (dual ? p : s[p]);
  }
  c->bits = (ushort) n_bits;
  c->sad = (uint) sad;
  c->dual_prime = (uchar) dual;
  c->dmv[0] = (char) dmv.x;
  c->dmv[1] = (char) dmv.y;
  c->reserved = 0;
}

#if GST_CL_CPU_LAYOUT
/* The first least of the half-pel vectors around *@v and itself by
 * field_half_cost, of the field whose @lines these are, from field @s:
 * into *@v, its SAD into *@sad */
static void
field_half_by_satd (const uchar16 * lines, __global const uchar * ref,
    __global const uchar * bits, int2 pred, int lambda16, int W, int H,
    int mbx, int mby, int s, int range, int2 * v, int *sad)
{
  const int2 from = *v;
  long best = LONG_MAX;
  for (int k = 0; k < 9; k++) {
    const int2 h = from + (int2) (k % 3 - 1, k / 3 - 1);
    uchar16 rows[8];
    short16 d[8];
    ushort16 m = 0;             /* (8 x 255 fits) */
    if (k != 4 && !field_vector_fits (h, mbx, mby, W, H, range))
      continue;
    field_lines_predicted (ref, W, mbx, mby, s, h, rows);
    #pragma unroll
    for (int i = 0; i < 8; i++) {
      d[i] = convert_short16 (lines[i]) - convert_short16 (rows[i]);
      m += as_ushort16 (max (d[i], -d[i]));
    }
    const int sd = sum16 (convert_int16 (m));
    const long c = field_half_cost ((int) satd8_rows (d) + sd, h, pred,
        lambda16, bits);
    if (c < best) {
      best = c;
      *v = h;
      *sad = sd;
    }
  }
}
#endif

#if GST_CL_CPU_LAYOUT
/* The eight tries around the dual prime vector *@v (@vector) or around
 * its differential *@dmv: the first that costs less than *@cost takes its
 * place, its SAD into *@sad */
static void
dual_prime_steps (const uchar16 (*lines)[8], __global const uchar * ref,
    __global const uchar * bits, int vector, int2 * v, int2 * dmv,
    int *cost, int *sad, int2 pv, int lambda16, int span, int order,
    int mbx, int mby, int W, int H, int range)
{
  const int2 from = vector ? *v : *dmv;
  for (int n = 0; n < 8; n++) {
    const int2 h = from + dual_prime_dmv (n + (n >= 4));
    int try_sad, c = dual_prime_cost (lines, ref, bits, vector ? h : *v,
        vector ? *dmv : h, pv, lambda16, span, order, mbx, mby, W, H, range,
        &try_sad);
    if (c < *cost) {
      *cost = c;
      *sad = try_sad;
      *(vector ? v : dmv) = h;
    }
  }
}

/* field_lines_sad at a full-sample vector @v: its rows loaded as they
 * are */
static int
field_sad_full (const uchar16 * lines, __global const uchar * ref, int W,
    int mbx, int mby, int s, int2 v)
{
  __global const uchar *r = field_block_at (ref, W, mbx, mby, s, v);
  uchar16 rows[8];
  #pragma unroll
  for (int i = 0; i < 8; i++)
    rows[i] = LOAD16_ANY (r + 2 * i * W);
  return lines_sad (lines, rows);
}

/* The first least of *@cost and the costs (field_cost) of the eight
 * vectors a sample (two half-pels) around *@v of the field whose @lines
 * these are, from field @s: *@v, *@cost and its SAD *@sad become it;
 * whether it moved */
static int
field_neighbours (const uchar16 * lines, __global const uchar * ref,
    __global const uchar * bits, int2 pred, int lambda16, int W, int H,
    int mbx, int mby, int s, int range, int2 * v, int *cost, int *sad)
{
  const int2 from = *v;
  for (int k = 0; k < 9; k++) {
    int2 h = from + 2 * (int2) (k % 3 - 1, k / 3 - 1);
    int d, c;
    if (k == 4 || !field_vector_fits (h, mbx, mby, W, H, range))
      continue;
    d = field_lines_sad (lines, ref, W, mbx, mby, s, h);
    c = field_cost (d, h, pred, lambda16, bits);
    if (c < *cost) {
      *cost = c;
      *sad = d;
      *v = h;
    }
  }
  return v->x != from.x || v->y != from.y;
}

#if MPEG_KERNELS_OF (FIELD)
__kernel void
mpeg_field_search (__global const uchar * cur, __global const uchar * ref,
    __global const GstClMotionVector * vectors,
    __global const GstClMotionVector * field_vectors,
    __global const uchar * bits, __global uchar * pred,
    __global GstClMpegFieldChoice * choices, const GstClMpegFieldArgs args)
{
  const uint mb = get_global_id (0);
  const int mbx = mb % args.mb_width, mby = mb / args.mb_width;
  const int W = args.mb_width * 16, H = args.mb_height * 16;
  const int range = args.range, lambda16 = args.lambda16;
  int2 fv, sv, pv, best_v[2], dmv = (int2) (0, 0), other[2] = {
    (int2) (0, 0), (int2) (0, 0)
  };
  int best_s[2], total = 0, n_bits = 2, dual = 0, seeded;
  /* each field's 8 lines */
  uchar16 lines[2][8];

  if (mb >= args.mb_width * args.mb_height)
    return;
  for (int p = 0; p < 2; p++)
    for (int i = 0; i < 8; i++)
      lines[p][i] = field_line (cur, W, mbx, mby, p, i);
  fv = (int2) (vectors[mb].dx, vectors[mb].dy);
  sv = args.seed_reach ? field_seed (field_vectors, args.mb_width, mbx, mby)
      : fv;
  seeded = has_seed_grids (args.seed_reach, fv, sv);
  pv = mbx ? (int2) (vectors[mb - 1].dx, vectors[mb - 1].dy) : (int2) (0, 0);
  pv.y >>= 1;
  for (int p = 0; p < 2; p++) {
    int2 bv = (int2) (0, 0), c;
    int bs = p, best = field_sad_full (lines[p], ref, W, mbx, mby, p, bv);
    int cost = field_cost (best, bv, pv, lambda16, bits);
    /* field_candidate's order, grid by grid (no division a candidate) */
    for (int g = 0; g < (seeded ? 2 : 1); g++)
      for (int s = 0; s < 2; s++) {
        const int reach = g ? args.seed_reach : args.reach;
        const int2 corner = field_grid_corner (g ? sv : fv, p, s, args.span,
            args.order, reach);
        for (int y = 0; y < field_side (reach); y++)
          for (int x = 0; x < field_side (reach); x++) {
            int sad, j;
            c = corner + 2 * (int2) (x, y);
            if (!field_vector_fits (c, mbx, mby, W, H, range))
              continue;
            sad = field_sad_full (lines[p], ref, W, mbx, mby, s, c);
            j = field_cost (sad, c, pv, lambda16, bits);
            if (j < cost) {
              cost = j;
              best = sad;
              bv = c;
              bs = s;
            }
          }
      }
    /* one-sample steps, then the half-pel vectors around the best */
    for (int step = 0; step < FIELD_STEPS; step++)
      if (!field_neighbours (lines[p], ref, bits, pv, lambda16, W, H, mbx,
              mby, bs, range, &bv, &cost, &best))
        break;
    field_half_by_satd (lines[p], ref, bits, pv, lambda16, W, H, mbx, mby,
        bs, range, &bv, &best);
    best_v[p] = bv;
    best_s[p] = bs;
    total += best;
    n_bits += vector_bits (bits, bv - pv);
  }
  if (args.dual_prime) {
    /* each seed without a differential, the other differentials of the
     * best, then one step of its vector (the first seed where none
     * fits) */
    int dcost = INT_MAX, dsad = 0, sad, c;
    int2 dv = dual_prime_seed (0, fv, best_v[0], best_s[0], best_v[1],
        best_s[1]);
    for (int i = 0; i < DUAL_PRIME_SEEDS; i++) {
      int2 v = dual_prime_seed (i, fv, best_v[0], best_s[0], best_v[1],
          best_s[1]);
      c = dual_prime_cost (lines, ref, bits, v, (int2) (0, 0), pv,
          lambda16, args.span, args.order, mbx, mby, W, H, range, &sad);
      if (c < dcost) {
        dcost = c;
        dsad = sad;
        dv = v;
      }
    }
    dual_prime_steps (lines, ref, bits, 0, &dv, &dmv, &dcost, &dsad, pv,
        lambda16, args.span, args.order, mbx, mby, W, H, range);
    if (dcost < INT_MAX)
      dual_prime_steps (lines, ref, bits, 1, &dv, &dmv, &dcost, &dsad, pv,
          lambda16, args.span, args.order, mbx, mby, W, H, range);
    /* (see DUAL_PRIME_PRICE) */
    int take_dual = 0;
    if (dcost < INT_MAX) {
      uchar16 src_rows[16], pf[16], pd[16];
      /* (@other: read only where dual prime is taken) */
      dual_prime_fits (dv, dmv, args.span, args.order, mbx, mby, W, H,
          range, other);
      for (int p = 0; p < 2; p++)
        for (int i = 0; i < 8; i++) {
          src_rows[2 * i + p] = lines[p][i];
          pf[2 * i + p] = field_prediction_row (ref, W, mbx * 16,
              mby * 8 + i, p, best_s[p], best_v[p], 0, (int2) (0, 0), 1);
          pd[2 * i + p] = field_prediction_row (ref, W, mbx * 16,
              mby * 8 + i, p, 0, dv, 1, other[p], 1);
        }
      take_dual = dual_prime_pays (luma_satd_sad (src_rows, pd),
          vector_bits (bits, dv - pv) + dmv_bits (dmv),
          luma_satd_sad (src_rows, pf), n_bits, lambda16);
    }
    if (take_dual) {
      dual = 1;
      total = dsad;
      n_bits = vector_bits (bits, dv - pv) + dmv_bits (dmv);
      best_v[0] = dv;
    }
  }
  for (int p = 0; p < 2; p++)
    write_field_prediction_rows (ref, pred, W, H, mbx, mby, p, best_s[p],
        best_v[dual ? 0 : p], dual, other[p]);
  write_field_choice (&choices[mb], best_v, best_s, total, n_bits, dual,
      dual ? dmv : (int2) (0, 0));
}
#endif
#else
/* GPU layout: a work-group of 64 per macroblock, the grid's candidates a
 * work-item each in turns, then one line of a neighbour; the same choices
 * (the first least cost in search order) */
#if MPEG_KERNELS_OF (FIELD)
__kernel __attribute__ ((reqd_work_group_size (64, 1, 1)))
void
mpeg_field_search (__global const uchar * cur, __global const uchar * ref,
    __global const GstClMotionVector * vectors,
    __global const GstClMotionVector * field_vectors,
    __global const uchar * bits, __global uchar * pred,
    __global GstClMpegFieldChoice * choices, const GstClMpegFieldArgs args)
{
  const uint mb = get_group_id (0), t = get_local_id (0);
  const int mbx = mb % args.mb_width, mby = mb / args.mb_width;
  const int W = args.mb_width * 16, H = args.mb_height * 16;
  const int range = args.range;
  const int2 fv = (int2) (vectors[mb].dx, vectors[mb].dy);
  const int2 sv = args.seed_reach ? field_seed (field_vectors,
      args.mb_width, mbx, mby) : fv;
  const int n_candidates = field_search_count (args.reach, args.seed_reach,
      fv, sv);
  const int2 pv = mbx ? (int2) (vectors[mb - 1].dx, vectors[mb - 1].dy >> 1)
      : (int2) (0, 0);
  const int lambda16 = args.lambda16;
  __local int sad[64], cost[64], index[64];
  __local int2 best_v[2];
  __local int best_s[2], best_sad[2], best_cost[2], moved;
  __local int2 dual_v, dual_dmv;
  __local int dual_cost, dual_sad;
  __local int red[64], res[256];

  for (int p = 0; p < 2; p++) {
    /* the candidates a work-item each, in turns of 64: each keeps its
     * first least, then the least of those, the first in search order
     * on a tie (as the CPU layout's) */
    {
      int own = -1, own_cost = INT_MAX, own_sad = 0;
      for (int i = t; i < n_candidates; i += 64) {
        int s;
        const int2 c = field_candidate (i, p, fv, sv, args.span, args.order,
            args.reach, args.seed_reach, &s);
        if (i == 0 || field_vector_fits (c, mbx, mby, W, H, range)) {
          const int d = field_sad (cur, ref, W, mbx, mby, p, s, c);
          const int j = field_cost (d, c, pv, lambda16, bits);
          if (j < own_cost) {
            own_cost = j;
            own_sad = d;
            own = i;
          }
        }
      }
      cost[t] = own_cost;
      sad[t] = own_sad;
      index[t] = own;
    }
    barrier (CLK_LOCAL_MEM_FENCE);
    if (t == 0) {
      int b = 0, s;
      for (int i = 1; i < 64; i++)
        if (cost[i] < cost[b] || (cost[i] == cost[b] && index[i] >= 0 &&
                index[i] < index[b]))
          b = i;
      best_v[p] = field_candidate (index[b], p, fv, sv, args.span,
          args.order, args.reach, args.seed_reach, &s);
      best_s[p] = s;
      best_sad[p] = sad[b];
      best_cost[p] = cost[b];
    }
    barrier (CLK_LOCAL_MEM_FENCE);
    /* one-sample steps towards the cheapest of the eight neighbours
     * while it is cheaper: a pass takes a work-item a line of a
     * neighbour */
    for (int pass = 0; pass < FIELD_STEPS; pass++) {
      const int k = t / 8 + (t >= 32);
      const int2 h = best_v[p] + 2 * (int2) (k % 3 - 1, k / 3 - 1);
      if (field_vector_fits (h, mbx, mby, W, H, range))
        sad[t] = field_line_sad (cur, ref, W, mbx, mby, p, best_s[p], h,
            t % 8);
      barrier (CLK_LOCAL_MEM_FENCE);
      if (t == 0) {
        const int2 from = best_v[p];
        moved = 0;
        for (int n = 0; n < 8; n++) {
          const int kn = n + (n >= 4);
          const int2 hn = from + 2 * (int2) (kn % 3 - 1, kn / 3 - 1);
          int sum = 0, j;
          if (!field_vector_fits (hn, mbx, mby, W, H, range))
            continue;
          for (int i = 0; i < 8; i++)
            sum += sad[8 * n + i];
          j = field_cost (sum, hn, pv, lambda16, bits);
          if (j < best_cost[p]) {
            best_cost[p] = j;
            best_sad[p] = sum;
            best_v[p] = hn;
            moved = 1;
          }
        }
      }
      barrier (CLK_LOCAL_MEM_FENCE);
      if (!moved)
        break;
    }
    /* then the half-pel vectors around the best and itself by
     * field_half_cost, in turn, a work-item two samples of a line */
    {
      const int line = t >> 3, x = mbx * 16 + (t & 7) * 2;
      const int2 from = best_v[p];
      int at[2], own[2], sad_of = best_sad[p];
      int2 v_of = from;
      long least = LONG_MAX;
      for (int i = 0; i < 2; i++) {
        at[i] = 64 * (((t & 7) * 2 + i) >> 3) + 8 * line + (((t & 7) * 2 +
                i) & 7);
        own[i] = cur[(mby * 16 + 2 * line + p) * W + x + i];
      }
      for (int k = 0; k < 9; k++) {
        const int2 h = from + (int2) (k % 3 - 1, k / 3 - 1);
        int d[2];
        if (k != 4 && !field_vector_fits (h, mbx, mby, W, H, range))
          continue;
        for (int i = 0; i < 2; i++)
          d[i] = own[i] - predict (ref + best_s[p] * W, 2 * W, x + i,
              mby * 8 + line, h.x >> 1, h.y >> 1, h.x & 1, h.y & 1);
        const int sd = group_sum (red, abs (d[0]) + abs (d[1]), t);
        const long c = field_half_cost (group_blocks_satd_sad (res, red, d,
                at, 2, t), h, pv, lambda16, bits);
        if (c < least) {
          least = c;
          v_of = h;
          sad_of = sd;
        }
      }
      barrier (CLK_LOCAL_MEM_FENCE);
      if (t == 0) {
        best_v[p] = v_of;
        best_sad[p] = sad_of;
      }
    }
    barrier (CLK_LOCAL_MEM_FENCE);
  }
  if (args.dual_prime) {
    /* the seeds without a differential, a work-item a line of each (the
     * first seed where none fits) */
    {
      const int k = t / 16, row = t % 16;
      const int2 v = dual_prime_seed (k, fv, best_v[0], best_s[0],
          best_v[1], best_s[1]);
      int2 o[2];
      sad[t] = dual_prime_fits (v, (int2) (0, 0), args.span, args.order, mbx,
          mby, W, H, range, o) ? dual_prime_line_sad (cur, ref, W, mbx, mby,
          v, o[row / 8], row / 8, row % 8) : -1;
    }
    barrier (CLK_LOCAL_MEM_FENCE);
    if (t == 0) {
      int b = 0;
      dual_cost = INT_MAX;
      dual_sad = 0;
      for (int k = 0; k < DUAL_PRIME_SEEDS; k++) {
        const int2 v = dual_prime_seed (k, fv, best_v[0], best_s[0],
            best_v[1], best_s[1]);
        int sum = 0, c;
        if (sad[16 * k] < 0)
          continue;
        for (int r = 0; r < 16; r++)
          sum += sad[16 * k + r];
        c = dual_prime_try_cost (sum, v, (int2) (0, 0), pv, lambda16, bits);
        if (c < dual_cost) {
          dual_cost = c;
          dual_sad = sum;
          b = k;
        }
      }
      dual_v = dual_prime_seed (b, fv, best_v[0], best_s[0], best_v[1],
          best_s[1]);
      dual_dmv = (int2) (0, 0);
    }
    barrier (CLK_LOCAL_MEM_FENCE);
    /* the other eight differentials of the best, then (where any fit)
     * one step of its vector: a work-item a line of each field */
    for (int step = 0; step < 2; step++) {
      const int n = t / 8, j = t % 8, kn = n + (n >= 4);
      const int2 from_v = dual_v, from_d = dual_dmv;
      const int2 v = step ? from_v + dual_prime_dmv (kn) : from_v;
      const int2 d = step ? from_d : dual_prime_dmv (kn);
      int2 o[2];
      sad[t] = (!step || dual_cost < INT_MAX) && dual_prime_fits (v, d,
          args.span, args.order, mbx, mby, W, H, range, o) ?
          dual_prime_line_sad (cur, ref, W, mbx, mby, v, o[0], 0, j) +
          dual_prime_line_sad (cur, ref, W, mbx, mby, v, o[1], 1, j) : -1;
      barrier (CLK_LOCAL_MEM_FENCE);
      if (t == 0)
        for (int m = 0; m < 8; m++) {
          const int km = m + (m >= 4);
          const int2 vm = step ? from_v + dual_prime_dmv (km) : from_v;
          const int2 dm = step ? from_d : dual_prime_dmv (km);
          int sum = 0, c;
          if (sad[8 * m] < 0)
            continue;
          for (int r = 0; r < 8; r++)
            sum += sad[8 * m + r];
          c = dual_prime_try_cost (sum, vm, dm, pv, lambda16, bits);
          if (c < dual_cost) {
            dual_cost = c;
            dual_sad = sum;
            dual_v = vm;
            dual_dmv = dm;
          }
        }
      barrier (CLK_LOCAL_MEM_FENCE);
    }
  }
  {
    const int field_bits = 2 + vector_bits (bits, best_v[0] - pv) +
        vector_bits (bits, best_v[1] - pv);
    int dual = 0;
    int2 v[2] = { best_v[0], best_v[1] }, other[2] = { (int2) (0, 0),
      (int2) (0, 0)
    };
    const int s[2] = { best_s[0], best_s[1] };
    /* (see DUAL_PRIME_PRICE) a work-item four luma samples of a frame
     * line */
    if (args.dual_prime && dual_cost < INT_MAX) {
      const int x0 = mbx * 16 + (t & 3) * 4, y = mby * 16 + (t >> 2);
      const int p = y & 1, line = mby * 8 + (t >> 3);
      int d_dual[4], d_field[4], at[4];
      /* (@other: read only where dual prime is taken) */
      dual_prime_fits (dual_v, dual_dmv, args.span, args.order, mbx, mby, W,
          H, range, other);
      for (int i = 0; i < 4; i++) {
        const int x = x0 + i, o = cur[y * W + x];
        at[i] = 64 * (2 * ((y & 15) >> 3) + ((x & 15) >> 3)) +
            8 * (y & 7) + (x & 7);
        d_dual[i] = o - dual_prime_sample (ref, W, 2 * W, x, line, p, dual_v,
            other[p]);
        d_field[i] = o - predict (ref + best_s[p] * W, 2 * W, x, line,
            best_v[p].x >> 1, best_v[p].y >> 1, best_v[p].x & 1,
            best_v[p].y & 1);
      }
      dual = dual_prime_pays (group_satd_sad (res, red, d_dual, at, t),
          vector_bits (bits, dual_v - pv) + dmv_bits (dual_dmv),
          group_satd_sad (res, red, d_field, at, t), field_bits, lambda16);
    }
    if (dual)
      v[0] = v[1] = dual_v;
    for (int p = 0; p < 2; p++)
      write_field_prediction (ref, pred, W, H, mbx, mby, p, s[p], v[p], dual,
          other[p], t, 64);
    if (t == 0)
      write_field_choice (&choices[mb], v, s, dual ? dual_sad : best_sad[0] +
          best_sad[1], dual ? vector_bits (bits, dual_v - pv) +
          dmv_bits (dual_dmv) : field_bits, dual, dual ? dual_dmv :
          (int2) (0, 0));
  }
}
#endif
#endif

/* ---- mpeg_choose_b_fields: field prediction in interlaced B pictures ----
 *
 * One work-item per macroblock, in every layout, after mpeg_predict_b:
 * the forward, backward and interpolated field predictions (from
 * mpeg_field_search towards each anchor) compete with the frame
 * prediction chosen, as b_directions weighs directions: the SATD plus SAD
 * of their luma residual (the frame prediction's lowered by
 * B_DIRECTION_ZERO_BIAS zero_bias where it is a single direction's zero
 * vector) + B_DIRECTION_PRICE lambda16 / 16 x the bits of their type and
 * vectors (both kinds code a frame_motion_type alike). By SAD at lambda16
 * / 16 a bit instead, interlaced content with B pictures took 1.3% more
 * bits. Where a field prediction costs less it replaces the
 * macroblock's in @pred,
 * and its choice becomes its directions with GST_CL_MPEG_B_FIELD (frame
 * vectors zero; the field vectors are the field choices'). */

/* macroblock_type bits of the directions @dirs */
static int
b_type_bits (uint dirs)
{
  return dirs == GST_CL_MPEG_B_FORWARD ? B_FORWARD_TYPE_BITS :
      dirs == GST_CL_MPEG_B_BACKWARD ? B_BACKWARD_TYPE_BITS :
      B_INTERPOLATED_TYPE_BITS;
}

#if MPEG_KERNELS_OF (FIELD)
__kernel void
mpeg_choose_b_fields (__global const uchar * cur,
    __global const GstClMotionVector * fvec,
    __global const GstClMotionVector * bvec, __global const uchar * bits,
    __global const uchar * field_fwd, __global const uchar * field_bwd,
    __global const GstClMpegFieldChoice * fields_fwd,
    __global const GstClMpegFieldChoice * fields_bwd,
    __global uchar * pred, __global GstClMpegBChoice * choices,
    const GstClMpegPredictArgs args)
{
  const uint mb = get_global_id (0);
  const uint mbx = mb % args.mb_width, mby = mb / args.mb_width;
  const uint W = args.mb_width * 16, H = args.mb_height * 16;
  const uint o = mby * 16 * W + mbx * 16;
  const long price = B_DIRECTION_PRICE * (long) args.lambda16;
  uint dirs, field = 0;
  int2 vf, vb, pf, pb;
  int t;
  long j, jf, jb, ji;

  if (mb >= args.mb_width * args.mb_height)
    return;
  dirs = choices[mb].directions;
  vf = (int2) (choices[mb].fdx, choices[mb].fdy);
  vb = (int2) (choices[mb].bdx, choices[mb].bdy);
  pf = mb_predictor (fvec, mb, mbx, mby, W, H);
  pb = mb_predictor (bvec, mb, mbx, mby, W, H);
  t = mb_satd_sad (cur, pred, pred, 0, o, W);
  if ((dirs == GST_CL_MPEG_B_FORWARD && !vf.x && !vf.y) ||
      (dirs == GST_CL_MPEG_B_BACKWARD && !vb.x && !vb.y))
    t -= B_DIRECTION_ZERO_BIAS * args.zero_bias;
  j = 16 * (long) t + price * (b_type_bits (dirs) +
      (dirs & GST_CL_MPEG_B_FORWARD ? vector_bits (bits, vf - pf) : 0) +
      (dirs & GST_CL_MPEG_B_BACKWARD ? vector_bits (bits, vb - pb) : 0));
  jf = 16 * (long) mb_satd_sad (cur, field_fwd, field_fwd, 0, o, W) +
      price * (B_FORWARD_TYPE_BITS + fields_fwd[mb].bits);
  jb = 16 * (long) mb_satd_sad (cur, field_bwd, field_bwd, 0, o, W) +
      price * (B_BACKWARD_TYPE_BITS + fields_bwd[mb].bits);
  ji = 16 * (long) mb_satd_sad (cur, field_fwd, field_bwd, 1, o, W) +
      price * (B_INTERPOLATED_TYPE_BITS + fields_fwd[mb].bits +
      fields_bwd[mb].bits);
  if (jf < j) {
    field = GST_CL_MPEG_B_FORWARD;
    j = jf;
  }
  if (jb < j) {
    field = GST_CL_MPEG_B_BACKWARD;
    j = jb;
  }
  if (ji < j)
    field = GST_CL_MPEG_B_FORWARD | GST_CL_MPEG_B_BACKWARD;
  if (!field)
    return;
  for (uint c = 0; c < 3; c++) {
    const uint n = c ? 8 : 16, rows = c ? CHROMA_ROWS : 16;
    const uint stride = c ? W / 2 : W, off = plane_offset (W, H, c);
    for (uint y = mby * rows; y < mby * rows + rows; y++)
      for (uint x = mbx * n; x < mbx * n + n; x++) {
        uint i = off + y * stride + x;
        pred[i] = field == GST_CL_MPEG_B_FORWARD ? field_fwd[i] :
            field == GST_CL_MPEG_B_BACKWARD ? field_bwd[i] :
            (uchar) (((int) field_fwd[i] + (int) field_bwd[i] + 1) >> 1);
      }
  }
  choices[mb].fdx = choices[mb].fdy = 0;
  choices[mb].bdx = choices[mb].bdy = 0;
  choices[mb].directions = field | GST_CL_MPEG_B_FIELD;
}
#endif


#if !GST_CL_CPU_LAYOUT
/* The signed cosines that coefficient k of the 1-D forward DCT takes
 * (see FDCT_C1), applied to d0..d3 (k odd), to e2, e3 (k = 2, 6) or to
 * e0 + e1 or e0 - e1 (k = 0, 4), or with [1], split, to e0 and e1 */
__constant short FDCT_TERMS[2][8][4] = {
  {
        {FDCT_C4, 0, 0, 0},
        {FDCT_C1, FDCT_C3, FDCT_C5, FDCT_C7},
        {FDCT_C2, FDCT_C6, 0, 0},
        {FDCT_C3, -FDCT_C7, -FDCT_C1, -FDCT_C5},
        {FDCT_C4, 0, 0, 0},
        {FDCT_C5, -FDCT_C1, FDCT_C7, FDCT_C3},
        {FDCT_C6, -FDCT_C2, 0, 0},
        {FDCT_C7, -FDCT_C5, FDCT_C3, -FDCT_C1},
      }, {
        {FDCT_C4, FDCT_C4, 0, 0},
        {FDCT_C1, FDCT_C3, FDCT_C5, FDCT_C7},
        {FDCT_C2, FDCT_C6, 0, 0},
        {FDCT_C3, -FDCT_C7, -FDCT_C1, -FDCT_C5},
        {FDCT_C4, -FDCT_C4, 0, 0},
        {FDCT_C5, -FDCT_C1, FDCT_C7, FDCT_C3},
        {FDCT_C6, -FDCT_C2, 0, 0},
        {FDCT_C7, -FDCT_C5, FDCT_C3, -FDCT_C1},
      }
};

/* The magnitudes of FDCT_TERMS[@split_dc][@k] in *@mag, their signs in
 * *@neg (-1: negative, else 0): what fdct_coeff takes */
static void
fdct_terms (int k, int split_dc, int4 * mag, int4 * neg)
{
  int4 c = convert_int4 (vload4 (0, FDCT_TERMS[split_dc][k]));
  *mag = convert_int4 (abs (c));
  *neg = c >> 31;
}

/* Coefficient @k of the 1-D forward DCT of @v, as the CPU layout's
 * vectors compute it (a product by a negative cosine is that by its
 * magnitude, negated), the DC and 4th split when @split_dc; @mag and @neg
 * from fdct_terms. The same instructions for every k: the work-items of
 * a row differ in k. */
static int
fdct_coeff (const int *v, int k, int split_dc, int4 mag, int4 neg)
{
  const int s0 = v[0] + v[7], s1 = v[1] + v[6], s2 = v[2] + v[5];
  const int s3 = v[3] + v[4], d0 = v[0] - v[7], d1 = v[1] - v[6];
  const int d2 = v[2] - v[5], d3 = v[3] - v[4];
  const int e0 = s0 + s3, e1 = s1 + s2, e2 = s0 - s3, e3 = s1 - s2;
  const int odd = k & 1, mid = (k & 3) == 2;
  const int4 a = (int4) (odd ? d0 : mid ? e2 : split_dc ? e0 : k ? e0 - e1 :
      e0 + e1, odd ? d1 : mid ? e3 : split_dc ? e1 : 0, odd ? d2 : 0,
      odd ? d3 : 0);
  const int4 p = (FDCT_MUL (a, mag) ^ neg) - neg;

  return p.x + p.y + p.z + p.w;
}

/* inter_cost of a candidate from its blocks' levels: @last and @delta of
 * each block (mpeg_trellis_blocks, trellis_fourth), the @energy of its
 * coefficients */
static long
candidate_cost (long energy, __local const int *last,
    __local const int *delta, int mv_bits, int lambda4,
    __global const uchar * rd_bits, int *keep)
{
  int d = 0, cbp = 0;
  for (int b = 0; b < MB_BLOCKS; b++) {
    d += delta[b];
    cbp |= last[b] ? (1 << (MB_BLOCKS - 1)) >> b : 0;
  }
  return inter_cost (energy, d, cbp, mv_bits, lambda4, rd_bits, keep);
}

/* Of the zero vector's candidate (0) and, where @moving, the moving one's
 * (1, its vector @mv_bits), with their energies @energy_zero and
 * @energy_mv (transform_candidate), the one that costs less (the zero vector
 * on ties); its cost into *@j, whether its levels are worth coding into
 * *@keep */
static int
inter_choice (long energy_zero, long energy_mv,
    __local int (*last_l)[MB_BLOCKS], __local int (*delta_l)[MB_BLOCKS],
    int moving, int mv_bits, int lambda4, __global const uchar * rd_bits,
    int *keep, long *j)
{
  int keep_mv;
  long j_mv;
  *j = candidate_cost (energy_zero, last_l[0], delta_l[0], -1, lambda4,
      rd_bits, keep);
  if (!moving)
    return 0;
  j_mv = candidate_cost (energy_mv, last_l[1], delta_l[1], mv_bits, lambda4,
      rd_bits, &keep_mv);
  if (j_mv >= *j)
    return 0;
  *j = j_mv;
  *keep = keep_mv;
  return 1;
}

/* The slot of mpeg_encode_mb's fourth candidate of an interlaced
 * picture in its arrays of coefficients (it is transformed after the
 * first's levels are found) */
#define FOURTH_SLOT 0

/* Candidate @k of a macroblock, its residual (@ci, intra: its samples)
 * in @blk: forward DCT into @coef, the quantiser its coefficients need
 * into cand_q[k] (at least @q); with rate-distortion decisions (@rd) its
 * coefficients in scan order into zz[@slot] and those that can take a
 * level into cand[@slot], for the trellis (store_job, trellis_fourth).
 * Returns, with @rd, 4 times the energy of its coefficients (of an intra
 * DC: its quantisation error). @blk and @tmp are scratch. (The encoder's
 * arguments one by one: given the address of the kernel's argument,
 * NVIDIA's compiler kept it in memory, and mpeg_encode_mb took a sixth
 * longer on an H200.) */
static long
transform_candidate (int k, int slot, int ci, int q, int rd, int mpeg2,
    int dc_only, int dc_shift, int alternate_scan,
    __local int (*blk)[64], __local int (*tmp)[64],
    __local short (*zz)[MB_BLOCKS][64], __local uint (*cand)[MB_BLOCKS][2],
    __local int *cand_q,
    __local int *red, int4 row_mag, int4 row_neg, int4 col_mag,
    int4 col_neg, int *coef, uint t, uint r, uint c)
{
  long energy = 0;
  int b;

  if (t < 2 * MB_BLOCKS)
    cand[slot][t >> 1][t & 1] = 0;
  if (t == 0)
    cand_q[k] = q;
  barrier (CLK_LOCAL_MEM_FENCE);
  /* rows of the residual times 16, halved, then columns */
  for (b = 0; b < MB_BLOCKS; b++) {
    int v[8];
    for (int n = 0; n < 8; n++)
      v[n] = 16 * blk[b][r * 8 + n];
    tmp[b][t] = (fdct_coeff (v, c, 0, row_mag, row_neg) + 1) >> 1;
  }
  barrier (CLK_LOCAL_MEM_FENCE);
  for (b = 0; b < MB_BLOCKS; b++) {
    int v[8];
    for (int m = 0; m < 8; m++)
      v[m] = tmp[b][m * 8 + c];
    coef[b] = (fdct_coeff (v, r, 1, col_mag, col_neg) + 4) >> 3;
  }
  if (!dc_only) {
    int fit = q;
    for (b = 0; b < MB_BLOCKS; b++)
      if (!ci || t != 0)
        fit = fitting_quant (fit, abs (coef[b]), ci, t);
    if (fit > q)
      atomic_max (&cand_q[k], fit);
  }
  barrier (CLK_LOCAL_MEM_FENCE);
  if (rd) {
    /* each work-item marks which of its coefficients can take a level
     * (twice them above the first reconstruction): the trellis walks
     * those only */
    const int qk = cand_q[k];
    const int mag1 = level_magnitude (1, ci, t, qk, mpeg2);
    const uint z = SCAN_INDEX[alternate_scan][t];
    int e = 0;
    for (b = 0; b < MB_BLOCKS; b++) {
      /* intra DC: its quantisation error */
      int err = ci && t == 0 ? coef[b] - (8 >> dc_shift) *
          intra_dc_level (coef[b], dc_shift) : coef[b];
      e += err * err;
      zz[slot][b][z] = (short) coef[b];
      if (2 * abs (coef[b]) > mag1)
        atomic_or (&cand[slot][b][z >> 5], 1u << (z & 31));
    }
    energy = 4 * (long) group_sum (red, e, t);
  }
  return energy;
}

/* The levels of the fourth candidate's blocks (non-intra, transformed by
 * transform_candidate into slot FOURTH_SLOT) by the trellis
 * (rd_quantise), each block's in a work-item of its own: into lv[3],
 * each block's last and delta into last_l[3] and delta_l[3]. (The other
 * candidates' blocks go through mpeg_trellis_blocks.) */
static void
trellis_fourth (int q, int lambda4, ulong m2q,
    __global const uchar * rd_bits, int mpeg2, int alternate_scan,
    int intra_vlc, __local short (*zz)[MB_BLOCKS][64],
    __local int (*lv)[MB_BLOCKS][64], __local uint (*cand)[MB_BLOCKS][2],
    __local int *cand_q, __local int (*last_l)[MB_BLOCKS],
    __local int (*delta_l)[MB_BLOCKS], uint t)
{
  const int slot = FOURTH_SLOT;

  for (int b = 0; b < MB_BLOCKS; b++)
    lv[3][b][t] = 0;
  barrier (CLK_LOCAL_MEM_FENCE);
  if (t < MB_BLOCKS) {
    const uint b = t;
    const int qk = cand_q[3];
    int F[64], L[64], last, delta;
    ulong coded, c = cand[slot][b][0] | ((ulong) cand[slot][b][1] << 32), m;
    for (m = c; m; m &= m - 1) {
      uint i = lowest_bit (m);
      F[i] = zz[slot][b][i];
    }
    last = rd_quantise (F, c, L, &coded, &delta, 0, qk,
        qk == q ? m2q : rd_step_inverse (qk), lambda4,
        coeff_bits (rd_bits, 0, intra_vlc), mpeg2,
        SCAN_NATURAL[alternate_scan]);
    for (m = coded; m; m &= m - 1) {
      uint i = lowest_bit (m);
      lv[3][b][i] = L[i];
    }
    last_l[3][b] = last;
    delta_l[3][b] = delta;
  }
  barrier (CLK_LOCAL_MEM_FENCE);
}

/* The GPU layout's place of work-item get_local_id (0) (row @r, column
 * @c of each block) of macroblock get_group_id (0) (column @mbx, row
 * @mby) in a picture of W x H luma samples, and where its planes start
 * (@off), as constants of the function it opens */
#define MB_PLACE(args) \
  const uint mb = get_group_id (0); \
  const uint mbx = mb % (args).mb_width, mby = mb / (args).mb_width; \
  const uint t = get_local_id (0), r = t >> 3, c = t & 7; \
  const uint W = (args).mb_width * 16, H = (args).mb_height * 16; \
  const uint CW = W / 2; \
  const uint off[3] = { 0, W * H, W * H + CW * CHROMA_HEIGHT (H) }

/* The samples of macroblock get_group_id (0) into @blk and @own (in
 * frame blocks), the blocks' places into @bx, @by, @ys, @bc (column,
 * first line and line step, plane), no prediction in @prd */
static void
load_macroblock (__global const uchar * cur, const GstClMpegEncodeArgs args,
    __local int (*blk)[64], int *own, int *prd, int *bx, int *by, int *ys,
    int *bc)
{
  MB_PLACE (args);

  for (int b = 0; b < MB_BLOCKS; b++) {
    bc[b] = b < 4 ? 0 : 1 + (b & 1);
    bx[b] = b < 4 ? mbx * 16 + (b & 1) * 8 : mbx * 8;
  }
  block_rows (0, mby, by, ys);
  for (int b = 0; b < MB_BLOCKS; b++) {
    uint s = b < 4 ? W : CW;
    blk[b][t] = cur[off[bc[b]] + (by[b] + r) * s + bx[b] + c];
    own[b] = blk[b][t];
    prd[b] = 0;
  }
}

/* The decisions of the macroblock loaded (load_macroblock) before its
 * candidates are transformed, but frame or field blocks (plan_fields):
 * its activity and quantiser, then in P pictures the prediction so far
 * and the moving candidate, from the SADs of the vectors. @red is
 * scratch. */
static GstClMpegMbPlan
plan_macroblock (__global const uchar * ref,
    __global const GstClMotionVector * vectors,
    __global const uchar * rd_bits, __global const uchar * fpred,
    __global const GstClMpegFieldChoice * fields,
    const GstClMpegEncodeArgs args, __local int (*blk)[64],
    __local int *red, __local int *res, const int *own, const int *bx,
    const int *by)
{
  MB_PLACE (args);
  int sum, act, intra, dx = 0, dy = 0, q, cost;
  int moving = 0, sad_mv = 0, intra_cand = 0, field_mv = 0, alt_bits = -1;
  int second_bits = -1, sad_second = 0;
  int2 alt = (int2) (0, 0), second = (int2) (0, 0);
  GstClMpegMbPlan plan;

  /* activity: sum of |sample - mean| over the luma, in 1/256 steps */
  sum = group_sum (red, blk[0][t] + blk[1][t] + blk[2][t] + blk[3][t], t);
  act = group_sum (red, abs (256 * blk[0][t] - sum) +
      abs (256 * blk[1][t] - sum) + abs (256 * blk[2][t] - sum) +
      abs (256 * blk[3][t] - sum), t) >> 8;
  /* (the decisions below weigh SADs against it) */
  q = mb_quant (args.qscale, args.adaptive, act, args.avg_activity,
      args.non_linear);

  intra = !args.p_picture;
  cost = act;
  if (args.p_picture) {
    /* the vector choice belongs to the rate-distortion decisions */
    int s0 = 0, sv = 0, sp = 0;
    int mv_lambda16 = args.rd_lambda && !args.dc_only ?
        args.mv_lambda * args.qscale : 0;
    int2 v = mb_vector (vectors, mb, mbx, mby, W, H);
    int2 pred = mb_predictor (vectors, mb, mbx, mby, W, H);
    int2 pv = clamp_vector (pred, mbx, mby, W, H);
    for (int b = 0; b < 4; b++) {
      int x = bx[b] + c, y = by[b] + r;
      s0 += abs (own[b] - (int) ref[y * W + x]);
      sv += abs (own[b] - predict (ref, W, x, y, v.x >> 1, v.y >> 1,
              v.x & 1, v.y & 1));
      if (mv_lambda16)
        sp += abs (own[b] - predict (ref, W, x, y, pv.x >> 1, pv.y >> 1,
                pv.x & 1, pv.y & 1));
    }
    s0 = group_sum (red, s0, t);
    sv = group_sum (red, sv, t);
    if (mv_lambda16) {
      /* zero or the better moving vector: decided on the coded
       * macroblocks below, where the moving one predicts clearly better
       * (else it could only cost more) */
      const int2 searched = v;
      const int s_searched = sv;
      sp = group_sum (red, sp, t);
      v = choose_moving (sv, sp, v, pv, pred, mv_lambda16, rd_bits, &sv);
      /* (see mpeg_encode_mb_cpu) */
      int has_second = !args.field_dct && second_vector (searched,
          s_searched, pv, sp, v, s0, q, &second, &sad_second);
      if (has_second)
        second_bits = vector_bits (rd_bits, second - pred);
      for (int right = 0; right < 2 && !args.field_dct; right++) {
        const int2 above = above_vector (vectors, mb, mbx, mby, right,
            args.mb_width, W, H);
        if (above_competes (above, v, has_second, second)) {
          int sa = 0, above_bits = vector_bits (rd_bits, above - pred);
          for (int b = 0; b < 4; b++)
            sa += abs (own[b] - predict (ref, W, bx[b] + c, by[b] + r,
                    above.x >> 1, above.y >> 1, above.x & 1, above.y & 1));
          sa = group_sum (red, sa, t);
          take_above (above, sa, above_bits, &has_second, &second,
              &sad_second, &second_bits, s0, q, mv_lambda16);
        }
      }
      alt_bits = vector_bits (rd_bits, v - pred);
      /* the moving vector's luma residual, for the second candidate's
       * and the field prediction's tests */
      int d_first[4], at[4];
      if (has_second || args.field_motion)
        for (int b = 0; b < 4; b++) {
          at[b] = 64 * b + t;
          d_first[b] = own[b] - predict (ref, W, bx[b] + c, by[b] + r,
              v.x >> 1, v.y >> 1, v.x & 1, v.y & 1);
        }
      if (has_second) {
        int d_second[4];
        for (int b = 0; b < 4; b++)
          d_second[b] = own[b] - predict (ref, W, bx[b] + c, by[b] + r,
              second.x >> 1, second.y >> 1, second.x & 1, second.y & 1);
        const int t_first = group_satd_sad (res, red, d_first, at, t);
        if (!second_rivals (group_satd_sad (res, red, d_second, at, t),
                second_bits, t_first, v.x || v.y ? alt_bits : 0, q,
                mv_lambda16))
          second_bits = -1;
      }
      /* the field prediction instead where it is cheaper */
      if (args.field_motion) {
        int d_field[4];
        for (int b = 0; b < 4; b++)
          d_field[b] = own[b] - (int) fpred[(by[b] + r) * W + bx[b] + c];
        const int t_frame = group_satd_sad (res, red, d_first, at, t);
        field_mv = takes_field_prediction (&fields[mb],
            group_satd_sad (res, red, d_field, at, t), t_frame, mv_lambda16,
            &sv, &alt_bits);
      }
      if (field_mv)
        v = (int2) (0, 0);
      /* intra competes too where it is plausible at all */
      intra_cand = min (s0, sv) > act / 4;
      cost = s0;
      moving = !intra && (field_mv || v.x || v.y) &&
          sv + MOVING_MARGIN * q < s0;
      alt = v;
      sad_mv = sv;
      v = (int2) (0, 0);
    } else {
      v = decide (s0, sv, act, args.intra_bias, v, &intra, &cost);
    }
    dx = v.x;
    dy = v.y;
  }
  plan.act = act;
  plan.q = q;
  plan.intra = intra;
  plan.dx = dx;
  plan.dy = dy;
  plan.cost = cost;
  plan.moving = moving;
  plan.sad_mv = sad_mv;
  plan.intra_cand = intra_cand;
  plan.field = plan.field_in = 0;
  plan.field_mv = field_mv;
  plan.alt_bits = alt_bits;
  plan.alt_x = alt.x;
  plan.alt_y = alt.y;
  plan.second_bits = second_bits;
  plan.second_x = second.x;
  plan.second_y = second.y;
  plan.sad_second = sad_second;
  return plan;
}

/* The predictions of plan @p into @prd (the prediction so far), @prd_mv
 * (the moving candidate's) and @prd_second (the second moving one's), in
 * frame blocks */
static void
predict_plan (__global const uchar * ref, __global const uchar * fpred,
    const GstClMpegEncodeArgs args, const GstClMpegMbPlan * p,
    const int *bx, const int *by, const int *bc, int *prd, int *prd_mv,
    int *prd_second)
{
  MB_PLACE (args);

  if (!args.p_picture)
    return;
  if (!p->intra)
    predict_samples (ref, W, CW, off, bx, by, bc, r, c, (int2) (p->dx,
            p->dy), prd);
  if (p->moving)
    predict_samples (p->field_mv ? fpred : ref, W, CW, off, bx, by, bc, r,
        c, (int2) (p->alt_x, p->alt_y), prd_mv);
  if (p->second_bits >= 0)
    predict_samples (ref, W, CW, off, bx, by, bc, r, c, (int2) (p->second_x,
            p->second_y), prd_second);
}

/* Interlaced pictures (field_dct): whether the intra candidate's samples
 * (@blk, frame blocks) prefer field blocks, and whether the predictions
 * do, by the residual of the moving candidate where there is one, else
 * of the prediction so far (intra: the samples), into @p. @tmp and @red
 * are scratch. */
static void
plan_fields (const GstClMpegEncodeArgs args, __local int (*blk)[64],
    __local int (*tmp)[64], __local int *red, const int *own,
    const int *prd, const int *prd_mv, GstClMpegMbPlan * p)
{
  const uint t = get_local_id (0);
  const uint r = t >> 3, c = t & 7;
  int res[4];

  if (!args.field_dct)
    return;
  /* (asked of every macroblock: one barrier region fewer, which POCL
   * compiles in a fraction of the time) */
  p->field_in = samples_prefer_field_dct (blk, red, r, c, t);
  for (int b = 0; b < 4; b++)
    res[b] = own[b] - (p->moving ? prd_mv[b] : prd[b]);
  p->field = prefers_field_dct ((__local int *) tmp, red, res, r, c, t);
}

/* The blocks of plan @p: @own, @prd and @prd_mv rearranged into field
 * blocks where it says; the intra candidate's samples in its own blocks
 * into @intra_src, whether they are field blocks into *@intra_field.
 * @tmp is scratch. */
static void
arrange_blocks (__global const uchar * cur, const GstClMpegEncodeArgs args,
    const GstClMpegMbPlan * p, __local int (*tmp)[64],
    __local uchar (*intra_src)[64], __local int *intra_field, int *own,
    int *prd, int *prd_mv, const int *bx, const int *bc)
{
  MB_PLACE (args);

  if (args.field_dct) {
    if (p->field) {
      rearrange_blocks ((__local int *) tmp, own, r, c, 1);
      rearrange_blocks ((__local int *) tmp, prd, r, c, 1);
      if (p->moving)
        rearrange_blocks ((__local int *) tmp, prd_mv, r, c, 1);
    }
    barrier (CLK_LOCAL_MEM_FENCE);
  }
  /* (in local memory: kept in a register across the candidates, it
   * slowed the kernel by a sixth on an H200) */
  if (t == 0)
    *intra_field = p->field_in;
  if (p->intra_cand)
    for (int b = 0; b < MB_BLOCKS; b++) {
      int step, y = block_first_line (p->field_in, mby, b, &step) + r * step;
      intra_src[b][t] = cur[off[bc[b]] + y * (b < 4 ? W : CW) + bx[b] + c];
    }
}

/* the candidates mpeg_transform_mb transforms for the GstClMpegMbPlan
 * @p, bit k candidate k */
#define CANDIDATES(p) \
  (1u | (uint) (p).moving << 1 | (uint) (p).intra_cand << 2 | \
      (uint) ((p).second_bits >= 0) << 3)

/* The plan @p and its candidates in @ks, transformed
 * (transform_candidate), into @job: with rate-distortion decisions (@rd)
 * for mpeg_trellis_blocks, else the first one's coefficients @coef and
 * quantiser only */
static void
store_job (__global GstClMpegTrellisJob * job, const GstClMpegMbPlan * p,
    uint ks, int rd, __local short (*zz)[MB_BLOCKS][64],
    __local uint (*cand)[MB_BLOCKS][2], __local const int *cand_q,
    const long *energy, const int *coef, uint t)
{
  barrier (CLK_LOCAL_MEM_FENCE);
  if (t == 0)
    job->plan = *p;
  if (!rd) {
    for (int b = 0; b < MB_BLOCKS; b++)
      job->coef[0][b][t] = (short) coef[b];
    if (t == 0)
      job->cand_quant[0] = cand_q[0];
    return;
  }
  for (int k = 0; k < GST_CL_MPEG_TRELLIS_CANDIDATES; k++) {
    if (!((ks >> k) & 1))
      continue;
    for (int b = 0; b < MB_BLOCKS; b++)
      job->coef[k][b][t] = zz[k][b][t];
    if (t < 2 * MB_BLOCKS)
      job->mask[k][t >> 1][t & 1] = cand[k][t >> 1][t & 1];
    if (t == 0) {
      job->cand_quant[k] = cand_q[k];
      job->energy[k] = (int) (energy[k] >> 2);
    }
  }
  if (t == 0)
    job->candidates = ks;
}

/* What store_job and mpeg_trellis_blocks left in @job for the candidates
 * in @ks: with @rd their levels into lv, each block's last and delta into
 * last_l and delta_l, their quantisers into cand_q, their energies into
 * @energy; else the first one's coefficients into @coef and its
 * quantiser */
static void
load_job (__global const GstClMpegTrellisJob * job, uint ks, int rd,
    __local int (*lv)[MB_BLOCKS][64], __local int (*last_l)[MB_BLOCKS],
    __local int (*delta_l)[MB_BLOCKS], __local int *cand_q, long *energy,
    int *coef, uint t)
{
  if (!rd) {
    for (int b = 0; b < MB_BLOCKS; b++)
      coef[b] = job->coef[0][b][t];
    if (t == 0)
      cand_q[0] = job->cand_quant[0];
  }
  for (int k = 0; rd && k < GST_CL_MPEG_TRELLIS_CANDIDATES; k++) {
    if (!((ks >> k) & 1))
      continue;
    for (int b = 0; b < MB_BLOCKS; b++)
      lv[k][b][t] = (job->coded[k][b][t >> 5] >> (t & 31)) & 1 ?
          job->coef[k][b][t] : 0;
    if (t < MB_BLOCKS) {
      last_l[k][t] = job->last[k][t];
      delta_l[k][t] = job->delta[k][t];
    }
    if (t == 0)
      cand_q[k] = job->cand_quant[k];
    energy[k] = 4 * (long) job->energy[k];
  }
  barrier (CLK_LOCAL_MEM_FENCE);
}

/* The trellis of every candidate block of a picture's jobs (see
 * GstClMpegTrellisJob), a work-item a block: candidate by
 * candidate, then macroblock by macroblock, so that the lanes of a warp
 * walk blocks of one kind. The same walk as trellis_fourth's. */
#if MPEG_KERNELS_OF (CORE)
__kernel __attribute__ ((reqd_work_group_size (64, 1, 1)))
void
mpeg_trellis_blocks (__global GstClMpegTrellisJob * jobs,
    __global const uchar * rd_bits, const GstClMpegEncodeArgs args)
{
  const uint n = args.mb_width * args.mb_height, g = get_global_id (0);
  const uint k = g / (n * MB_BLOCKS), mb = g / MB_BLOCKS % n;
  const uint b = g % MB_BLOCKS;
  __global GstClMpegTrellisJob *job = &jobs[mb];
  __global short *coef;
  int F[64], L[64], last, delta, ci, q, qk, dc = 0;
  ulong coded, c, m;

  if (k >= GST_CL_MPEG_TRELLIS_CANDIDATES || !((job->candidates >> k) & 1))
    return;
  coef = job->coef[k][b];
  ci = job->plan.intra || k == 2;
  q = job->plan.q;
  qk = job->cand_quant[k];
  c = job->mask[k][b][0] | ((ulong) job->mask[k][b][1] << 32);
  for (m = c; m; m &= m - 1) {
    uint i = lowest_bit (m);
    F[i] = coef[i];
  }
  if (ci)
    dc = intra_dc_level (coef[0], args.dc_shift);
  last = rd_quantise (F, c, L, &coded, &delta, ci, qk, rd_step_inverse (qk),
      rd_lambda4 (args.rd_lambda, q), coeff_bits (rd_bits, ci,
          args.intra_vlc), args.mpeg2, SCAN_NATURAL[args.alternate_scan]);
  for (m = coded; m; m &= m - 1) {
    uint i = lowest_bit (m);
    coef[i] = (short) L[i];
  }
  if (ci) {
    coef[0] = (short) dc;
    coded |= 1;
    last = max (last, dc != 0);
  }
  job->coded[k][b][0] = (uint) coded;
  job->coded[k][b][1] = (uint) (coded >> 32);
  job->last[k][b] = last;
  job->delta[k][b] = delta;
}
#endif

/* GPU layout, first launch: each macroblock's candidates, transformed,
 * into its job (see GstClMpegTrellisJob) */
#if MPEG_KERNELS_OF (CORE)
__kernel __attribute__ ((reqd_work_group_size (64, 1, 1)))
void
mpeg_transform_mb (__global const uchar * cur, __global const uchar * ref,
    __global const GstClMotionVector * vectors,
    __global const uchar * rd_bits, __global const uchar * fpred,
    __global const GstClMpegFieldChoice * fields,
    __global GstClMpegTrellisJob * jobs, const GstClMpegEncodeArgs args)
{
  const uint t = get_local_id (0);
  const uint r = t >> 3, c = t & 7;
  const int rd = args.rd_lambda && !args.dc_only;
  __local int blk[MB_BLOCKS][64];
  __local int tmp[MB_BLOCKS][64];
  __local int red[64];
  /* the coefficients in scan order of the candidates, and which of them
   * can take a level, for the trellis */
  __local short zz[GST_CL_MPEG_TRELLIS_CANDIDATES][MB_BLOCKS][64];
  __local uint cand[GST_CL_MPEG_TRELLIS_CANDIDATES][MB_BLOCKS][2];
  __local int cand_q[GST_CL_MPEG_TRELLIS_CANDIDATES];
  __local uchar intra_src[MB_BLOCKS][64];
  __local int intra_field;
  int own[MB_BLOCKS], prd[MB_BLOCKS], prd_mv[MB_BLOCKS];
  int prd_second[MB_BLOCKS];
  int bx[MB_BLOCKS], by[MB_BLOCKS], ys[MB_BLOCKS], bc[MB_BLOCKS];
  int coef[MB_BLOCKS];
  int4 row_mag, row_neg, col_mag, col_neg;
  long energy[GST_CL_MPEG_TRELLIS_CANDIDATES];
  GstClMpegMbPlan p;

  load_macroblock (cur, args, blk, own, prd, bx, by, ys, bc);
  p = plan_macroblock (ref, vectors, rd_bits, fpred, fields, args, blk,
      red, tmp[0], own, bx, by);
  predict_plan (ref, fpred, args, &p, bx, by, bc, prd, prd_mv, prd_second);
  plan_fields (args, blk, tmp, red, own, prd, prd_mv, &p);
  arrange_blocks (cur, args, &p, tmp, intra_src, &intra_field, own, prd,
      prd_mv, bx, bc);
  /* this work-item's cosines: coefficient c of its row, r of its column */
  fdct_terms (c, 0, &row_mag, &row_neg);
  fdct_terms (r, 1, &col_mag, &col_neg);
  /* each candidate prediction (two where a moving one competes with the
   * zero vector): residual, forward DCT. (The candidates unrolled: in a
   * loop with the interlaced pictures' fourth one, NVIDIA's compiler made
   * the kernel 18% slower on an H200, on progressive pictures, which never
   * try it, too.) */
  #pragma unroll
  for (int k = 0; k < GST_CL_MPEG_TRELLIS_CANDIDATES; k++) {
    /* 0: the prediction chosen so far (intra in I pictures), 1: the
     * moving one, 2: intra, 3: the second moving one */
    if (!((CANDIDATES (p) >> k) & 1))
      continue;
    for (int b = 0; b < MB_BLOCKS; b++)
      blk[b][t] = k == 2 ? intra_src[b][t] : own[b] - (k == 1 ?
          prd_mv[b] : k == 3 ? prd_second[b] : prd[b]);
    energy[k] = transform_candidate (k, k, k == 2 || p.intra, p.q, rd,
        args.mpeg2, args.dc_only, args.dc_shift, args.alternate_scan, blk,
        tmp, zz, cand, cand_q, red, row_mag, row_neg, col_mag, col_neg,
        coef, t, r, c);
  }
  store_job (&jobs[get_group_id (0)], &p, CANDIDATES (p), rd, zz, cand,
      cand_q, energy, coef, t);
}
#endif

/* GPU layout, last launch: the rate-distortion decisions from the
 * candidates' levels in the jobs, the fourth candidate (progressive: the
 * second moving one; interlaced: the other arrangement), the
 * levels kept and the reconstruction. (@vectors and @fields, which
 * mpeg_transform_mb read, are there for the arguments of the CPU
 * layout's kernel.) */
#if MPEG_KERNELS_OF (CORE)
__kernel __attribute__ ((reqd_work_group_size (64, 1, 1)))
void
mpeg_encode_mb (__global const uchar * cur, __global const uchar * ref,
    __global uchar * recon, __global const GstClMotionVector * vectors,
    __global GstClMpegMbRecord * records, __global short *levels,
    __global const uchar * rd_bits, __global const uchar * fpred,
    __global const GstClMpegFieldChoice * fields,
    __global const GstClMpegTrellisJob * jobs,
    const GstClMpegEncodeArgs args)
{
  MB_PLACE (args);

  __local int blk[MB_BLOCKS][64];
  __local int tmp[MB_BLOCKS][64];
  __local int red[64];
  /* the fourth candidate's coefficients in scan order, and which of them
   * can take a level, for the trellis (see CAND_SLOT) */
  __local short zz[1][MB_BLOCKS][64];
  __local int lv[4][MB_BLOCKS][64];
  __local int last_l[4][MB_BLOCKS];
  __local int delta_l[4][MB_BLOCKS];
  __local uint cand[1][MB_BLOCKS][2];
  /* per block, the XOR of its coefficients' lowest bits (MPEG-2) */
  __local int parity[MB_BLOCKS];
  /* each candidate's quantiser (see fitting_quant) */
  __local int cand_q[4];
  /* the intra candidate's samples in its own blocks */
  __local uchar intra_src[MB_BLOCKS][64];
  __local int intra_field;
  int4 row_mag, row_neg, col_mag, col_neg;

  /* this work-item's sample of each block, its predictions */
  int own[MB_BLOCKS], prd[MB_BLOCKS], prd_mv[MB_BLOCKS];
  /* (predict_plan's; never written here: only progressive pictures have
   * a second moving candidate, and they predict the chosen one alone) */
  int prd_second[MB_BLOCKS];
  /* the blocks' places: column, first line and line step, plane */
  int bx[MB_BLOCKS], by[MB_BLOCKS], ys[MB_BLOCKS], bc[MB_BLOCKS];
  int coef[MB_BLOCKS];
  int act, intra, dx, dy, q, cost, b, lambda4, rd;
  ulong m2q;
  /* chosen: the candidate whose levels are coded (those of
   * mpeg_transform_mb, 3 the fourth one); field_mv: whether the moving
   * one predicts field by field, then whether the macroblock does */
  int drop = 0, moving, chosen = 0, sad_mv, intra_cand;
  int field, field_mv, alt_bits;
  /* (in registers: in local memory, the kernel took a sixth longer on an
   * H200) */
  long energy[4];
  int2 alt;
  GstClMpegMbPlan p = jobs[mb].plan;

  /* (from where mpeg_transform_mb left it) */
  load_macroblock (cur, args, blk, own, prd, bx, by, ys, bc);
  /* interlaced pictures rearrange the predictions and may transform one
   * again; progressive ones need only the chosen one's samples, predicted
   * once chosen (the job holds the candidates' costs) */
  if (args.field_dct)
    predict_plan (ref, fpred, args, &p, bx, by, bc, prd, prd_mv,
        prd_second);
  arrange_blocks (cur, args, &p, tmp, intra_src, &intra_field, own, prd,
      prd_mv, bx, bc);
  act = p.act;
  q = p.q;
  intra = p.intra;
  dx = p.dx;
  dy = p.dy;
  cost = p.cost;
  moving = p.moving;
  sad_mv = p.sad_mv;
  intra_cand = p.intra_cand;
  field = p.field;
  field_mv = p.field_mv;
  alt_bits = p.alt_bits;
  alt = (int2) (p.alt_x, p.alt_y);
  if (t < MB_BLOCKS)
    last_l[0][t] = 0;
  lambda4 = rd_lambda4 (args.rd_lambda, q);
  rd = args.rd_lambda && !args.dc_only;
  m2q = rd_step_inverse (q);
  /* this work-item's cosines: coefficient c of its row, r of its column */
  fdct_terms (c, 0, &row_mag, &row_neg);
  fdct_terms (r, 1, &col_mag, &col_neg);
  load_job (&jobs[mb], CANDIDATES (p), rd, lv, last_l, delta_l, cand_q,
      energy, coef, t);
  /* 3 of interlaced pictures: the better of 0 and 1 in the other
   * arrangement, frame or field blocks (its residual rearranged), where
   * its levels are worth coding (see mpeg_encode_mb_cpu). (3 of
   * progressive ones, the second moving candidate, is in the job.) */
  if (rd && !intra && args.field_dct) {
    int worth;
    long j_better;
    const int better = inter_choice (energy[0], energy[1], last_l, delta_l,
        moving, alt_bits, lambda4, rd_bits, &worth, &j_better);
    if (worth) {
      for (b = 0; b < MB_BLOCKS; b++)
        tmp[b][t] = own[b] - (better ? prd_mv[b] : prd[b]);
      barrier (CLK_LOCAL_MEM_FENCE);
      for (b = 0; b < MB_BLOCKS; b++)
        blk[b][t] = ((__local int *) tmp)[rearranged_source (b, r, c,
                !field)];
      energy[3] = transform_candidate (3, FOURTH_SLOT, 0, q, rd, args.mpeg2,
          args.dc_only, args.dc_shift, args.alternate_scan, blk, tmp, zz,
          cand, cand_q, red, row_mag, row_neg, col_mag, col_neg, coef, t, r,
          c);
      trellis_fourth (q, lambda4, m2q, rd_bits, args.mpeg2,
          args.alternate_scan, args.intra_vlc, zz, lv, cand, cand_q, last_l,
          delta_l, t);
    }
  }
  if (rd && !intra) {
    int delta = 0, dc[MB_BLOCKS], keep;
    long j;
    chosen = inter_choice (energy[0], energy[1], last_l, delta_l, moving,
        alt_bits, lambda4, rd_bits, &keep, &j);
    field_mv = field_mv && chosen;
    if (chosen) {
      dx = alt.x;
      dy = alt.y;
      cost = sad_mv;
      for (b = 0; b < MB_BLOCKS && args.field_dct; b++)
        prd[b] = prd_mv[b];
    }
    if (p.second_bits >= 0) {
      int keep_second;
      const long j_second = candidate_cost (energy[3], last_l[3],
          delta_l[3], p.second_bits, lambda4, rd_bits, &keep_second);
      if (j_second < j) {
        j = j_second;
        chosen = 3;
        keep = keep_second;
        dx = p.second_x;
        dy = p.second_y;
        cost = p.sad_second;
      }
    }
    drop = !keep;
    /* the other arrangement, tried where these levels are worth coding,
     * taken where it costs less */
    if (args.field_dct && !drop) {
      int keep_other;
      const long j_other = candidate_cost (energy[3], last_l[3], delta_l[3],
          chosen ? alt_bits : -1, lambda4, rd_bits, &keep_other);
      if (j_other < j) {
        j = j_other;
        chosen = 3;
        field = !field;
      }
    }
    /* intra only against a prediction whose levels are worth coding (see
     * mpeg_encode_mb_cpu) */
    if (intra_cand && !drop) {
      for (b = 0; b < MB_BLOCKS; b++) {
        delta += delta_l[2][b];
        dc[b] = lv[2][b][0];
      }
      if (intra_cost (energy[2], delta, dc, lambda4, rd_bits,
              args.dc_shift) < j) {
        chosen = 2;
        field_mv = 0;
        intra = 1;
        drop = 0;
        dx = dy = 0;
        cost = act;
        for (b = 0; b < MB_BLOCKS; b++)
          prd[b] = 0;
      }
    }
  }

  /* intra chosen over a prediction: its own blocks */
  if (chosen == 2)
    field = intra_field;
  if (!args.field_dct && !intra)
    predict_samples (ref, W, CW, off, bx, by, bc, r, c, (int2) (dx, dy),
        prd);
  block_rows (field, mby, by, ys);
  /* the prediction chosen, in the other arrangement */
  if (chosen == 3 && args.field_dct)
    rearrange_blocks ((__local int *) tmp, prd, r, c, field);
  /* the levels, dequantisation with mismatch control; the last resort of
   * the rate control keeps the DC levels only */
  q = cand_q[chosen];
  for (b = 0; b < MB_BLOCKS; b++) {
    int L;
    if (rd) {
      L = drop ? 0 : lv[chosen][b][SCAN_INDEX[args.alternate_scan][t]];
    } else {
      L = args.dc_only && t != 0 ? 0 : quantise (coef[b], intra, t, q,
          args.dc_shift);
      if (L)
        atomic_max (&last_l[0][b], SCAN_INDEX[args.alternate_scan][t] + 1);
    }
    levels[(size_t) mb * GST_CL_MPEG_MB_LEVELS + b * 64 +
        SCAN_INDEX[args.alternate_scan][t]] = (short) L;
    blk[b][t] = dequantise (L, intra, t, q, args.mpeg2, args.dc_shift);
  }
  if (args.mpeg2) {
    if (t < MB_BLOCKS)
      parity[t] = 0;
    barrier (CLK_LOCAL_MEM_FENCE);
    for (b = 0; b < MB_BLOCKS; b++)
      if (blk[b][t] & 1)
        atomic_xor (&parity[b], 1);
    barrier (CLK_LOCAL_MEM_FENCE);
    if (t == 63)
      for (b = 0; b < MB_BLOCKS; b++)
        blk[b][63] ^= mismatch_toggle (parity[b], intra ||
            (!drop && last_l[chosen][b]));
  }
  barrier (CLK_LOCAL_MEM_FENCE);

  /* inverse DCT rows: 5 fractional bits kept, clamped to 16 bits (no
   * dequantised residual of 8-bit samples comes near; the clamp keeps the
   * column sums inside 32 bits whatever the levels) */
  for (b = 0; b < MB_BLOCKS; b++) {
    int s = 0;
    for (int k = 0; k < 8; k++)
      s += DCT_C[k * 8 + c] * blk[b][r * 8 + k];
    tmp[b][t] = clamp ((s + (1 << 8)) >> 9, -32768, 32767);
  }
  barrier (CLK_LOCAL_MEM_FENCE);
  for (b = 0; b < MB_BLOCKS; b++) {
    int s = 0;
    uint st = b < 4 ? W : CW;
    for (int k = 0; k < 8; k++)
      s += DCT_C[k * 8 + r] * tmp[b][k * 8 + c];
    recon[off[bc[b]] + (by[b] + r * ys[b]) * st + bx[b] + c] =
        (uchar) clamp (prd[b] + ((s + (1 << 18)) >> 19), 0, 255);
  }

  if (t == 0) {
    int last[MB_BLOCKS];
    for (b = 0; b < MB_BLOCKS; b++)
      last[b] = drop ? 0 : last_l[chosen][b];
    write_record (&records[mb], last, dx, dy, intra, field,
        field_mv, q, act, cost);
  }
}
#endif
#endif

/* ---- CPU layout: one work-item per macroblock, in vectors ----
 *
 * The same arithmetic as mpeg_encode_mb, with the six blocks taken in
 * pairs side by side, an int16 (short16 in the forward DCT) per row
 * (lanes 0-7 the left block's row, 8-15 the right one's): Y0|Y1, Y2|Y3
 * and Cb|Cr. A 1-D transform down the columns is then plain vector
 * arithmetic on eight rows, and one along the rows is the same on the
 * pair transposed (each half on its own). The inverse transform splits
 * the sums of the cosine matrix into their even and odd halves (its rows
 * are symmetric or antisymmetric), which gives the very same integers
 * with a third of the multiplications.
 * POCL scalarises abs_diff on wide vectors (AVX-512): absolute values
 * and differences are spelt with max, min and select here. */


/* lanes 0 and 8: the DC positions of the two blocks */
#define DC_LANES (int16) (-1, 0, 0, 0, 0, 0, 0, 0, -1, 0, 0, 0, 0, 0, 0, 0)

/* FDCT_MUL on 16-bit lanes, spelt so that x86 makes it one pmulhw */
#define FDCT_MUL16(a, c) convert_short16 (FDCT_MUL (convert_int16 (a), (c)))

/* the 1-D forward DCT down the columns (see FDCT_C1), the DC and 4th
 * coefficients split when @split_dc (inlined: called, its rows went
 * through memory both ways) */
__attribute__ ((always_inline)) static void
fdct_cols (short16 * v, int split_dc)
{
  short16 s0 = v[0] + v[7], s1 = v[1] + v[6], s2 = v[2] + v[5];
  short16 s3 = v[3] + v[4], d0 = v[0] - v[7], d1 = v[1] - v[6];
  short16 d2 = v[2] - v[5], d3 = v[3] - v[4];
  short16 e0 = s0 + s3, e1 = s1 + s2, e2 = s0 - s3, e3 = s1 - s2;

  if (split_dc) {
    short16 a = FDCT_MUL16 (e0, FDCT_C4), b = FDCT_MUL16 (e1, FDCT_C4);
    v[0] = a + b;
    v[4] = a - b;
  } else {
    v[0] = FDCT_MUL16 (e0 + e1, FDCT_C4);
    v[4] = FDCT_MUL16 (e0 - e1, FDCT_C4);
  }
  v[2] = FDCT_MUL16 (e2, FDCT_C2) + FDCT_MUL16 (e3, FDCT_C6);
  v[6] = FDCT_MUL16 (e2, FDCT_C6) - FDCT_MUL16 (e3, FDCT_C2);
  v[1] = FDCT_MUL16 (d0, FDCT_C1) + FDCT_MUL16 (d1, FDCT_C3) +
      FDCT_MUL16 (d2, FDCT_C5) + FDCT_MUL16 (d3, FDCT_C7);
  v[3] = FDCT_MUL16 (d0, FDCT_C3) - FDCT_MUL16 (d1, FDCT_C7) -
      FDCT_MUL16 (d2, FDCT_C1) - FDCT_MUL16 (d3, FDCT_C5);
  v[5] = FDCT_MUL16 (d0, FDCT_C5) - FDCT_MUL16 (d1, FDCT_C1) +
      FDCT_MUL16 (d2, FDCT_C7) + FDCT_MUL16 (d3, FDCT_C3);
  v[7] = FDCT_MUL16 (d0, FDCT_C7) - FDCT_MUL16 (d1, FDCT_C5) +
      FDCT_MUL16 (d2, FDCT_C3) - FDCT_MUL16 (d3, FDCT_C1);
}

/* v[n] = (sum_k DCT_C[k][n] v[k] + round) >> shift, down the columns,
 * clamped to 16 bits when @clamp16 */
static void
idct_cols (int16 * v, int shift, int clamp16)
{
  const int r = 1 << (shift - 1);
  int16 a = 5793 * (v[0] + v[4]), b = 5793 * (v[0] - v[4]);
  int16 c = 7568 * v[2] + 3135 * v[6], d = 3135 * v[2] - 7568 * v[6];
  int16 e0 = a + c + r, e3 = a - c + r, e1 = b + d + r, e2 = b - d + r;
  int16 o0 = 8035 * v[1] + 6811 * v[3] + 4551 * v[5] + 1598 * v[7];
  int16 o1 = 6811 * v[1] - 1598 * v[3] - 8035 * v[5] - 4551 * v[7];
  int16 o2 = 4551 * v[1] - 8035 * v[3] + 1598 * v[5] + 6811 * v[7];
  int16 o3 = 1598 * v[1] - 4551 * v[3] + 6811 * v[5] - 8035 * v[7];

  v[0] = (e0 + o0) >> shift;
  v[7] = (e0 - o0) >> shift;
  v[1] = (e1 + o1) >> shift;
  v[6] = (e1 - o1) >> shift;
  v[2] = (e2 + o2) >> shift;
  v[5] = (e2 - o2) >> shift;
  v[3] = (e3 + o3) >> shift;
  v[4] = (e3 - o3) >> shift;
  if (clamp16) {
    #pragma unroll
    for (int i = 0; i < 8; i++)
      v[i] = min (max (v[i], -32768), 32767);
  }
}

/* bit c of a row of eight, in both halves */
#define ROW_BITS (int16) (1, 2, 4, 8, 16, 32, 64, 128, 1, 2, 4, 8, 16, 32, \
    64, 128)

/* The lanes of @t (-1 or 0) as bits: bit k for lane k */
static uint
lane_mask (int16 t)
{
#if defined(CPU_CLANG_BUILTINS) && defined(__x86_64__) && \
    __has_builtin(__builtin_ia32_pmovmskb128)
  /* one pmovmskb of the lanes narrowed to bytes */
  typedef char lane_bytes_t __attribute__ ((vector_size (16)));
  return (uint) __builtin_ia32_pmovmskb128 ((lane_bytes_t) convert_char16 (t));
#else
  int16 c = select ((int16) 0, ROW_BITS, t);
  return (uint) sum8 (c.lo) | (uint) sum8 (c.hi) << 8;
#endif
}

/* The lanes of the rows @t (-1 or 0) of a pair as the bits of each
 * block: bit 8 r + c of *@left is lane c of row r, of *@right lane 8 + c */
static void
pair_masks (const short16 * t, ulong * left, ulong * right)
{
#if defined(CPU_CLANG_BUILTINS) && defined(__AVX2__) && \
    __has_builtin(__builtin_ia32_packsswb256) && \
    __has_builtin(__builtin_ia32_pmovmskb256)
  /* two rows narrowed to bytes at once: per 128-bit half, row 2k then
   * row 2k + 1, so that one pmovmskb gives the left block's 16 bits of
   * the two rows, then the right block's */
  typedef short words_t __attribute__ ((vector_size (32)));
  typedef char bytes_t __attribute__ ((vector_size (32)));
  ulong l = 0, r = 0;
  #pragma unroll
  for (int k = 0; k < 4; k++) {
    uint m = (uint) __builtin_ia32_pmovmskb256 (__builtin_ia32_packsswb256 (
            (words_t) t[2 * k], (words_t) t[2 * k + 1]));
    l |= (ulong) (m & 0xffff) << (16 * k);
    r |= (ulong) (m >> 16) << (16 * k);
  }
  *left = l;
  *right = r;
#else
  ulong l = 0, r = 0;
  #pragma unroll
  for (int i = 0; i < 8; i++) {
    uint c = lane_mask (convert_int16 (t[i]));
    l |= (ulong) (c & 0xff) << (8 * i);
    r |= (ulong) (c >> 8) << (8 * i);
  }
  *left = l;
  *right = r;
#endif
}

/* Squares of the lanes of @x (|x| <= 2^14), added in eights: the sum of
 * the result is that of the squares */
static int8
square_sums (short16 x)
{
#if defined(CPU_CLANG_BUILTINS) && defined(__AVX2__) && \
    __has_builtin(__builtin_ia32_pmaddwd256)
  /* one pmaddwd: the squares of neighbouring lanes added */
  typedef short words_t __attribute__ ((vector_size (32)));
  return as_int8 (__builtin_ia32_pmaddwd256 ((words_t) x, (words_t) x));
#else
  int16 w = convert_int16 (x);
  return w.lo * w.lo + w.hi * w.hi;
#endif
}

static int
max8 (int8 v)
{
  int4 a = max (v.lo, v.hi);
  int2 b = max (a.lo, a.hi);
  return max (b.x, b.y);
}

/* sum of |a - b| over 16 rows */
static int
sad_rows (const uchar16 * a, const uchar16 * b)
{
  sad_acc_t s = SAD_ZERO;
  #pragma unroll
  for (int i = 0; i < 16; i++)
    s = sad_add16 (s, a[i], b[i]);
  return (int) sad_total (s);
}

/* only where the CPU layout is used (sad.cl): GPU compilers need not take
 * vectors of 64 */
#ifdef CPU_CLANG_BUILTINS
#if __has_builtin(__builtin_shufflevector)
#define HAVE_SHUFFLEVECTOR 1
#endif
#endif

#ifdef HAVE_SHUFFLEVECTOR
/* Clang: the zigzag scans of both blocks as two shuffles of the whole
 * pair (a few permutes on AVX-512) */
typedef short short32_t __attribute__ ((ext_vector_type (32)));
typedef short short64_t __attribute__ ((ext_vector_type (64)));

#define IOTA32 0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, \
      17, 18, 19, 20, 21, 22, 23, 24, 25, 26, 27, 28, 29, 30, 31
#define IOTA64 IOTA32, 32, 33, 34, 35, 36, 37, 38, 39, 40, 41, 42, 43, 44, \
      45, 46, 47, 48, 49, 50, 51, 52, 53, 54, 55, 56, 57, 58, 59, 60, 61, \
      62, 63
/* element 16 r + c + o of the pair (row r, column c of the block in lanes
 * o .. o + 7) in zigzag order */
#define ZIGZAG_PAIR(o) 0 + o, 1 + o, 16 + o, 32 + o, 17 + o, 2 + o, 3 + o, \
      18 + o, 33 + o, 48 + o, 64 + o, 49 + o, 34 + o, 19 + o, 4 + o, 5 + o, \
      20 + o, 35 + o, 50 + o, 65 + o, 80 + o, 96 + o, 81 + o, 66 + o, \
      51 + o, 36 + o, 21 + o, 6 + o, 7 + o, 22 + o, 37 + o, 52 + o, 67 + o, \
      82 + o, 97 + o, 112 + o, 113 + o, 98 + o, 83 + o, 68 + o, 53 + o, \
      38 + o, 23 + o, 39 + o, 54 + o, 69 + o, 84 + o, 99 + o, 114 + o, \
      115 + o, 100 + o, 85 + o, 70 + o, 55 + o, 71 + o, 86 + o, 101 + o, \
      116 + o, 117 + o, 102 + o, 87 + o, 103 + o, 118 + o, 119 + o
/* ... in alternate scan order */
#define ALTERNATE_PAIR(o) 0 + o, 16 + o, 32 + o, 48 + o, 1 + o, 17 + o, \
      2 + o, 18 + o, 33 + o, 49 + o, 64 + o, 80 + o, 96 + o, 112 + o, \
      113 + o, 97 + o, 81 + o, 65 + o, 50 + o, 34 + o, 3 + o, 19 + o, 4 + o, \
      20 + o, 35 + o, 51 + o, 66 + o, 82 + o, 98 + o, 114 + o, 67 + o, \
      83 + o, 99 + o, 115 + o, 36 + o, 52 + o, 5 + o, 21 + o, 6 + o, 22 + o, \
      37 + o, 53 + o, 68 + o, 84 + o, 100 + o, 116 + o, 69 + o, 85 + o, \
      101 + o, 117 + o, 38 + o, 54 + o, 7 + o, 23 + o, 39 + o, 55 + o, \
      70 + o, 86 + o, 102 + o, 118 + o, 71 + o, 87 + o, 103 + o, 119 + o

static void
store_zigzag (__global short * o, short64_t z)
{
  __global short16 *o16 = (__global short16 *) o;
  short32_t h = z.lo, g = z.hi;
  o16[0] = h.lo;
  o16[1] = h.hi;
  o16[2] = g.lo;
  o16[3] = g.hi;
}

/* The levels of the pair @L (natural rows) to @o, each block's 64 in
 * zigzag order (@alt: alternate scan order). */
static void
store_levels (__global short * o, const short16 * r, int alt)
{
  short64_t top, bottom;
  top = __builtin_shufflevector (
      __builtin_shufflevector (r[0], r[1], IOTA32),
      __builtin_shufflevector (r[2], r[3], IOTA32), IOTA64);
  bottom = __builtin_shufflevector (
      __builtin_shufflevector (r[4], r[5], IOTA32),
      __builtin_shufflevector (r[6], r[7], IOTA32), IOTA64);
  if (alt) {
    store_zigzag (o, __builtin_shufflevector (top, bottom,
            ALTERNATE_PAIR (0)));
    store_zigzag (o + 64, __builtin_shufflevector (top, bottom,
            ALTERNATE_PAIR (8)));
  } else {
    store_zigzag (o, __builtin_shufflevector (top, bottom, ZIGZAG_PAIR (0)));
    store_zigzag (o + 64, __builtin_shufflevector (top, bottom,
            ZIGZAG_PAIR (8)));
  }
}
#else
/* The levels of the pair @L (natural rows) to @o, each block's 64 in
 * zigzag order (@alt: alternate scan order). */
static void
store_levels (__global short * o, const short16 * L, int alt)
{
  const short *nat = (const short *) L;
  for (int b = 0; b < 2; b++)
    for (int z = 0; z < 64; z++) {
      uint n = SCAN_NATURAL[alt][z];
      o[64 * b + z] = nat[(n >> 3) * 16 + 8 * b + (n & 7)];
    }
}
#endif

/* Intra DC levels of the pair's first row @x0, in the DC lanes (see
 * intra_dc_level) */
static int16
intra_dc_levels (int16 x0, int dc_shift)
{
  return min (max ((x0 + (4 >> dc_shift)) >> (3 - dc_shift), 0),
      (256 << dc_shift) - 1);
}

/* Quantiser steps of @q for the pairs: level_magnitude (1), and intra q
 * W and, without rate-distortion quantisation, the reciprocal of 16 q W
 * for the division in quantise_pairs (non-intra blocks have one step for
 * all, and no @qw nor @rcp) */
static void
quant_steps (int q, int intra, int rd, int mpeg2, int16 * qw,
    float16 * rcp, int16 * mag1)
{
  #pragma unroll
  for (int i = 0; i < 8; i++) {
    if (intra) {
      int8 w = q * convert_int8 (vload8 (i, INTRA_W));
      qw[i] = (int16) (w, w);
      if (!rd)
        rcp[i] = 1.0f / convert_float16 (16 * qw[i]);
      mag1[i] = (2 * qw[i]) >> 4;
    } else {
      mag1[i] = 3 * q;
    }
    mag1[i] = min (mpeg2 ? mag1[i] : (mag1[i] - 1) | 1, 2047);
  }
}

/* fitting_quant over the three pairs' coefficients @xs: from each
 * position's largest magnitude (an intra block's DC aside) */
static int
pairs_fitting_quant (const short16 * xs, int intra, int q)
{
  int16 top[8];
  /* (in 32-bit lanes: NVIDIA's compiler took the nested maxima of the
   * 16-bit lanes' magnitudes for the first one's) */
  #pragma unroll
  for (int i = 0; i < 8; i++)
    top[i] = convert_int16 (max (max (abs (convert_int16 (xs[i])),
                abs (convert_int16 (xs[8 + i]))),
            max (abs (convert_int16 (xs[16 + i])),
                abs (convert_int16 (xs[MB_ROWS - 8 + i])))));
  if (!intra) {
    int16 a = top[0];
    #pragma unroll
    for (int i = 1; i < 8; i++)
      a = max (a, top[i]);
    return max (q, 2 * max8 (max (a.lo, a.hi)) / 1025 + 1);
  }
  top[0] = select (top[0], (int16) 0, DC_LANES);
  /* (only a sharp edge at quantisers below 4 takes a second round) */
  for (;; q++) {
    int16 over = 0;
    #pragma unroll
    for (int i = 0; i < 8; i++) {
      int8 w = convert_int8 (vload8 (i, INTRA_W));
      over |= 64 * top[i] >= 2045 * q * (int16) (w, w);
    }
    if (!any (over))
      return q;
  }
}

/* Whether the non-intra pair of blocks @src predicted by @pred (8 rows
 * of both) quantises to no level at quantiser @q without rate-distortion
 * quantisation, by the SAD of each block: a level is 0 where a
 * coefficient's magnitude a has 2 a < 5 q. Each pass of the transform
 * (fdct_cols) adds at most 0.4905 times the magnitudes of its inputs
 * (the largest cosine 32138 / 65536) and at most 4 for the truncations
 * of its products; with the scaling and roundings between, |x| <=
 * 0.2406 SAD + 2.6 for every coefficient x of a block, so that a SAD of
 * at most 10 q - 11 leaves all its levels 0. */
static int
pair_quantises_to_zero (const uchar16 * src, const uchar16 * pred, int q)
{
  sad_acc_t acc = SAD_ZERO;
  #pragma unroll
  for (int i = 0; i < 8; i++)
    acc = sad_add16 (acc, src[i], pred[i]);
  return (int) max (sad_left (acc), sad_right (acc)) <= 10 * q - 11;
}

/* The levels of the macroblock @src predicted by @pred (MB_ROWS rows:
 * luma, then Cb | Cr), pair by pair in natural rows into @levels_of
 * (MB_PAIRS x 8),
 * at quantiser *@q and its steps, or at the one fitting_quant raises it
 * to (then *@q); with trellis quantisation also the blocks' summed cost
 * against none (*@rd_delta), their coded pattern (*@rd_cbp), and the
 * energy of the coefficients (*@energy, 4 x squared error of coding
 * none; intra: of the DC levels and no AC level). Returns 0, with no
 * levels, when the candidate's cost cannot fall below @skip_at, @header
 * included. */
static int
quantise_pairs (const uchar16 * src, const uchar16 * pred, int intra,
    int *q_io, int m, ulong m2q, const int16 * qw, const float16 * rcp,
    const int16 * mag1, uint rd_lambda, int lambda4, uint dc_only, int mpeg2,
    int dc_shift, __global const uchar * rd_bits, long header, long skip_at,
    short16 * levels_of, int *rd_delta, int *rd_cbp, long *energy, int alt,
    uint intra_vlc)
{
  __global const uchar *coeff = coeff_bits (rd_bits, intra, intra_vlc);
  int q = *q_io;
  int16 qw_fit[8], mag1_fit[8];
  float16 rcp_fit[8];
  /* the coefficients in 16-bit lanes (|x| <= 4096), half the work of
   * 32-bit ones on a CPU */
  short16 xs[MB_ROWS];
  int e = 0;
  const int16 cap2 = 2 * lambda4, cap3 = 3 * lambda4;
  /* a candidate that may lose: the least cost of the pairs so far, at
   * two or three bits per coded coefficient; the least that each pair's
   * levels can change its cost by, and that of the pairs not yet
   * quantised */
  const int stop_early = skip_at != LONG_MAX;
  long floor2_sum = 0, floor3_sum = 0, slack[MB_PAIRS], slack_left;
  short16 cand_above[8];
  int i, p;
  /* non-intra levels without rate-distortion quantisation, whose energy
   * nobody reads: pairs of a small residual are known to take none */
  const int plain_inter = !intra && (!rd_lambda || dc_only);
  uint zero_pairs = 0;

  *rd_delta = 0;
  *rd_cbp = 0;
  /* the transforms first: a candidate whose least possible cost reaches
   * @skip_at cannot win, and is not quantised. Each coefficient is left
   * out, or coded for at least three bits ("11s"), or two for the first
   * of a non-intra block ("1s"); every intra block has its
   * end_of_block. */
  for (p = 0; p < MB_PAIRS; p++) {
    int16 floor2 = 0, floor3 = 0;
    int8 squares = 0;
    short16 h[8], x[8];
    int e_pair;

    /* a pair that must quantise to nothing is not transformed */
    if (plain_inter && pair_quantises_to_zero (src + 8 * p, pred + 8 * p,
            q)) {
      zero_pairs |= 1 << p;
      #pragma unroll
      for (i = 0; i < 8; i++)
        xs[8 * p + i] = 0;
      continue;
    }
    /* rows of the residual times 16, halved, then columns */
    #pragma unroll
    for (i = 0; i < 8; i++)
      h[i] = (short) 16 * (convert_short16 (src[8 * p + i]) -
          convert_short16 (pred[8 * p + i]));
    transpose_pair_short (h);
    fdct_cols (h, 0);
    #pragma unroll
    for (i = 0; i < 8; i++)
      h[i] = (h[i] + (short) 1) >> (short) 1;
    transpose_pair_short (h);
    fdct_cols (h, 1);
    /* (h + 4) >> 3, as ((h >> 2) + 1) >> 1 in 16 bits */
    #pragma unroll
    for (i = 0; i < 8; i++)
      x[i] = ((h[i] >> (short) 2) + (short) 1) >> (short) 1;
    #pragma unroll
    for (i = 0; i < 8; i++) {
      squares += square_sums (x[i]);
      xs[8 * p + i] = x[i];
    }
    e_pair = sum8 (squares);
    /* intra: the DC coefficient's error instead of itself */
    int16 x0 = convert_int16 (x[0]), dc_err = 0;
    if (intra) {
      dc_err = x0 - (8 >> dc_shift) * intra_dc_levels (x0, dc_shift);
      e_pair += dc_err.s0 * dc_err.s0 - x0.s0 * x0.s0 +
          dc_err.s8 * dc_err.s8 - x0.s8 * x0.s8;
    }
    e += e_pair;
    /* non-intra: three bits each, one less for each block's first; or
     * two bits each, whichever bound is higher. Every pair adds to it:
     * the pairs so far may suffice. (A candidate without a bound skips
     * this.) */
    if (stop_early) {
      #pragma unroll
      for (i = 0; i < 8; i++) {
        int16 w = convert_int16 (x[i]);
        floor2 += min (4 * w * w, cap2);
        floor3 += min (4 * w * w, cap3);
      }
      if (intra)
        floor3 += select ((int16) 0, 4 * dc_err * dc_err + RD_EOB_BITS *
            lambda4 - min (4 * x0 * x0, cap3), DC_LANES);
      const int f2 = sum16 (floor2), f3 = sum16 (floor3);
      floor2_sum += f2;
      floor3_sum += f3;
      slack[p] = (intra ? f3 : max (f2, f3 - 2 * lambda4)) - 4 * e_pair;
      if (header + (intra ? floor3_sum : max (floor2_sum, floor3_sum -
                  2 * (p + 1) * lambda4)) >= skip_at)
        return 0;
    }
  }
  *energy = 4 * (long) e;
  slack_left = 0;
  if (stop_early)
    for (p = 0; p < MB_PAIRS; p++)
      slack_left += slack[p];
  if (!dc_only) {
    const int fit = pairs_fitting_quant (xs, intra, q);
    if (fit > q) {
      q = fit;
      *q_io = q;
      m = ((1 << 18) + q - 1) / q;
      m2q = rd_step_inverse (q);
      quant_steps (q, intra, rd_lambda != 0, mpeg2, qw_fit, rcp_fit,
          mag1_fit);
      qw = qw_fit;
      rcp = rcp_fit;
      mag1 = mag1_fit;
    }
  }
  /* (only for candidates that got this far) a coefficient of magnitude
   * a is a candidate where level 1 lies nearer than zero, 2 a > mag1,
   * that is a > mag1 >> 1 */
  if (rd_lambda && !dc_only) {
    #pragma unroll
    for (i = 0; i < 8; i++)
      cand_above[i] = convert_short16 (mag1[i] >> 1);
  }

  for (p = 0; p < MB_PAIRS; p++) {
    int16 L[8], A[8];
    short16 x[8];

    if (zero_pairs & (1 << p)) {
      #pragma unroll
      for (i = 0; i < 8; i++)
        levels_of[8 * p + i] = 0;
      continue;
    }
    #pragma unroll
    for (i = 0; i < 8; i++)
      x[i] = xs[8 * p + i];

    if (rd_lambda && !dc_only) {
      /* rd_quantise on each block of the pair, given the coefficients
       * that can take a level (twice them above the first
       * reconstruction), found in vectors; most blocks have few */
      /* (whole vectors: POCL's vstore16 and vload16 on private arrays
       * move a lane at a time) */
      short16 nat[8];
      int16 lev_nat[8];
      int F[64], Z[64], delta;
      ulong cand[2];
      short16 t[8];
      #pragma unroll
      for (i = 0; i < 8; i++)
        t[i] = max (x[i], -x[i]) > cand_above[i];
      pair_masks (t, &cand[0], &cand[1]);
      /* a block without candidates takes no level: left out (non-intra)
       * or its end_of_block alone (intra) */
      if (intra)
        *rd_delta += coeff[0] * lambda4 * ((cand[0] == 0) + (cand[1] == 0));
      if (cand[0] | cand[1]) {
        #pragma unroll
        for (i = 0; i < 8; i++) {
          nat[i] = x[i];
          lev_nat[i] = 0;
        }
      }
      for (int b = 0; b < 2; b++) {
        ulong zc = 0, m = cand[b], coded;
        if (!m)
          continue;
        /* natural -> scan order, reading the coefficients on the way */
        while (m) {
          uint n = lowest_bit (m), z = SCAN_INDEX[alt][n];
          m &= m - 1;
          zc |= 1UL << z;
          F[z] = ((const short *) nat)[(n >> 3) * 16 + 8 * b + (n & 7)];
        }
        rd_quantise (F, zc, Z, &coded, &delta, intra, q, m2q, lambda4,
            coeff, mpeg2, SCAN_NATURAL[alt]);
        *rd_delta += delta;
        *rd_cbp |= coded ? (1 << (MB_BLOCKS - 1)) >> (2 * p + b) : 0;
        while (coded) {
          uint z = lowest_bit (coded), n = SCAN_NATURAL[alt][z];
          coded &= coded - 1;
          ((int *) lev_nat)[(n >> 3) * 16 + 8 * b + (n & 7)] = Z[z];
        }
      }
      #pragma unroll
      for (i = 0; i < 8; i++) {
        L[i] = cand[0] | cand[1] ? lev_nat[i] : 0;
        A[i] = max (L[i], -L[i]);
      }
    } else {
      #pragma unroll
      for (i = 0; i < 8; i++) {
        int16 a = convert_int16 (max (x[i], -x[i])), l;
        if (intra) {
          /* floor (n / d) for n = 64 a + 3 q W, d = 8 q W, as the
           * truncation of (2n + 1) / 2d, which lies 1 / 2d or more away
           * from any integer. In floats (2n + 1 < 2^19 exact, the
           * reciprocal 2.5 ulp off at worst, the product 0.5 ulp) the
           * error is below 3.5 2^-23 (2n + 1) / 2d < 1 / 2d: exact. */
          l = convert_int16 (convert_float16 (128 * a + 6 * qw[i] + 1) *
              rcp[i]);
        } else {
          /* (2 a - q) / 4q = floor (t / q) with t = (2 a - q) >> 2 (floors
           * nest); t is capped at 256 q - 1, the first value of level 255.
           * With m = ceil (2^18 / q) = (2^18 + e) / q, 0 <= e < q,
           * t m / 2^18 = t / q + t e / (q 2^18), and t e < 256 q (q - 1)
           * < 2^18 keeps that below the next integer: (t m) >> 18 is
           * floor (t / q) exactly, and t m < 2^31. */
          int16 t = min (max ((2 * a - q) >> 2, 0), 256 * q - 1);
          l = (t * m) >> 18;
        }
        A[i] = intra ? min (l, 255) : l;
        L[i] = select (A[i], -A[i], convert_int16 (x[i]) < 0);
      }
    }
    if (intra)
      L[0] = select (L[0], intra_dc_levels (convert_int16 (x[0]), dc_shift),
          DC_LANES);
    if (dc_only) {
      /* last resort of the rate control: DC only */
      L[0] &= DC_LANES;
      #pragma unroll
      for (i = 1; i < 8; i++)
        L[i] = 0;
    }
    #pragma unroll
    for (i = 0; i < 8; i++)
      levels_of[8 * p + i] = convert_short16 (L[i]);
    /* a candidate stops as soon as the levels found so far and the least
     * change of the pairs left make it reach @skip_at (a non-intra one
     * can still drop its levels: its energy is the most it costs) */
    if (stop_early) {
      long change;
      slack_left -= slack[p];
      change = *rd_delta + slack_left;
      if (p < MB_PAIRS - 1 && header + *energy + (intra ? change :
              min (change, 0L)) >=
          skip_at)
        return 0;
    }
  }
  return 1;
}

/* Chroma rows 16 to MB_ROWS - 1 (Cb | Cr) of the prediction with the
 * luma vector @v (chroma: chroma_vector) */
static void
predict_chroma (__global const uchar * ref, int co, int cro, int CW, int2 v,
    uchar16 * pred)
{
  const int2 cv = chroma_vector (v);
  int c = co + (cv.y >> 1) * CW + (cv.x >> 1);
  uchar16 cb[CHROMA_ROWS], cr[CHROMA_ROWS];
  predict_rows (ref + c, CW, cv.x & 1, cv.y & 1, CHROMA_ROWS, 0, cb);
  predict_rows (ref + c + cro, CW, cv.x & 1, cv.y & 1, CHROMA_ROWS, 0, cr);
  #pragma unroll
  for (int i = 0; i < CHROMA_ROWS; i++)
    pred[16 + i] = (uchar16) (cb[i].lo, cr[i].lo);
}

/* CPU layout of mpeg_predict_b: one work-item per macroblock, its rows
 * in vectors */

/* The 16 luma rows at @o of the B picture's luma predicted from @ref
 * with @v */
static void
predict_b_luma (__global const uchar * ref, int o, int W, int2 v,
    uchar16 * rows)
{
  predict_rows (ref + o + (v.y >> 1) * W + (v.x >> 1), W, v.x & 1, v.y & 1,
      16, 1, rows);
}

/* The luma SADs @sad of the macroblock's rows @src against its
 * predictions from @ref at @o with the candidates @c, each vector's
 * prediction made once */
static void
b_candidate_sads (const uchar16 * src, __global const uchar * ref, int o,
    int W, const int2 * c, int *sad)
{
  uchar16 rows[16];
  for (int k = 0; k < B_CANDIDATES; k++) {
    int same = -1;
    for (int j = 0; j < k; j++)
      if (same < 0 && c[j].x == c[k].x && c[j].y == c[k].y)
        same = j;
    if (same >= 0) {
      sad[k] = sad[same];
      continue;
    }
    predict_b_luma (ref, o, W, c[k], rows);
    sad[k] = sad_rows (src, rows);
  }
}

/* The chroma rows (Cb, then Cr) of the prediction of @dirs with the luma
 * vectors @vf and @vb into the picture @pred */
static void
predict_b_chroma (__global const uchar * fwd, __global const uchar * bwd,
    uint W, uint H, uint mbx, uint mby, uint dirs, int2 vf, int2 vb,
    __global uchar * pred)
{
  const int CW = W / 2;
  const int2 cf = chroma_vector (vf), cb = chroma_vector (vb);
  for (int c = 1; c < 3; c++) {
    const int o = plane_offset (W, H, c) + mby * CHROMA_ROWS * CW + mbx * 8;
    uchar16 f[CHROMA_ROWS], b[CHROMA_ROWS];
    if (dirs & GST_CL_MPEG_B_FORWARD)
      predict_rows (fwd + o + (cf.y >> 1) * CW + (cf.x >> 1), CW, cf.x & 1,
          cf.y & 1, CHROMA_ROWS, 0, f);
    if (dirs & GST_CL_MPEG_B_BACKWARD)
      predict_rows (bwd + o + (cb.y >> 1) * CW + (cb.x >> 1), CW, cb.x & 1,
          cb.y & 1, CHROMA_ROWS, 0, b);
    #pragma unroll
    for (int i = 0; i < CHROMA_ROWS; i++) {
      uchar16 r = dirs == GST_CL_MPEG_B_FORWARD ? f[i] :
          dirs == GST_CL_MPEG_B_BACKWARD ? b[i] : half_avg2 (f[i], b[i]);
      *(__global uchar8 *) (pred + o + i * CW) = r.lo;
    }
  }
}

/* (CPU layout only: GPUs have mpeg_predict_b) */
#if MPEG_KERNELS_OF (B) && GST_CL_CPU_LAYOUT
__kernel void
mpeg_predict_b_cpu (__global const uchar * cur, __global const uchar * fwd,
    __global const uchar * bwd, __global const GstClMotionVector * fvec,
    __global const GstClMotionVector * bvec, __global const uchar * bits,
    __global uchar * pred, __global GstClMpegBChoice * choices,
    const GstClMpegPredictArgs args)
{
  const uint mb = get_global_id (0);
  const uint mbx = mb % args.mb_width, mby = mb / args.mb_width;
  const uint W = args.mb_width * 16, H = args.mb_height * 16;
  const int o = mby * 16 * W + mbx * 16;
  const long lambda16 = args.lambda16;
  int2 vf, vb, pf, pb, fc[B_CANDIDATES], bc[B_CANDIDATES];
  int sf[B_CANDIDATES], sb[B_CANDIDATES];
  uchar16 src[16], f[16], b[16], out[16];
  uint dirs;

  if (mb >= args.mb_width * args.mb_height)
    return;
  #pragma unroll
  for (int i = 0; i < 16; i++)
    src[i] = *(__global const uchar16 *) (cur + o + i * W);
  prefetch_next_lines (cur + o, W, 16, 0);
  b_candidates (fvec, bvec, mb, mbx, mby, W, H, fc, bc, &pf, &pb);
  b_candidate_sads (src, fwd, o, W, fc, sf);
  b_candidate_sads (src, bwd, o, W, bc, sb);
  vf = b_candidate (fc, sf, pf, lambda16, args.zero_bias, bits);
  vb = b_candidate (bc, sb, pb, lambda16, args.zero_bias, bits);
  predict_b_luma (fwd, o, W, vf, f);
  predict_b_luma (bwd, o, W, vb, b);
  #pragma unroll
  for (int i = 0; i < 16; i++)
    out[i] = half_avg2 (f[i], b[i]);
  dirs = b_directions (luma_satd_sad (src, f), luma_satd_sad (src, b),
      luma_satd_sad (src, out), vf, vb, pf, pb, lambda16, args.zero_bias,
      bits);
  write_choice (&choices[mb], dirs, vf, vb);
  #pragma unroll
  for (int i = 0; i < 16; i++)
    *(__global uchar16 *) (pred + o + i * W) =
        dirs == GST_CL_MPEG_B_FORWARD ? f[i] :
        dirs == GST_CL_MPEG_B_BACKWARD ? b[i] : out[i];
  predict_b_chroma (fwd, bwd, W, H, mbx, mby, dirs, vf, vb, pred);
}
#endif


#if GST_CL_CPU_LAYOUT
/* Whether the luma residual of @src less @pred (rows 0-15) is smoother
 * down the lines of each field than down the frame's (FIELD_DCT_MARGIN) */
static int
rows_prefer_field_dct (const uchar16 * src, const uchar16 * pred)
{
  int16 d[16], frame = 0, field = 0;
  #pragma unroll
  for (int i = 0; i < 16; i++)
    d[i] = convert_int16 (src[i]) - convert_int16 (pred[i]);
  #pragma unroll
  for (int i = 0; i < 15; i++)
    frame += max (d[i] - d[i + 1], d[i + 1] - d[i]);
  #pragma unroll
  for (int i = 0; i < 14; i++)
    field += max (d[i] - d[i + 2], d[i + 2] - d[i]);
  return sum16 (field) + FIELD_DCT_MARGIN < sum16 (frame);
}

/* Luma rows 0-15 of @v (frame lines) as the field blocks': lines 0, 2,
 * .. 14 (Y0 | Y1), then 1, 3, .. 15 (Y2 | Y3) */
static void
to_field_rows (uchar16 * v)
{
  uchar16 f[16];
  #pragma unroll
  for (int i = 0; i < 16; i++)
    f[i] = v[i];
  #pragma unroll
  for (int i = 0; i < 8; i++) {
    v[i] = f[2 * i];
    v[8 + i] = f[2 * i + 1];
  }
}

/* The inter candidate of cost @j_c, vector @v, SAD @sad, levels @lv (the
 * kept ones where @keep_c) at quantiser @q_c and prediction @p, taken as
 * the macroblock's choice so far */
static void
take_inter (long j_c, int2 v, int keep_c, int sad, const short16 * lv,
    int q_c, const uchar16 * p, long *j, int *dx, int *dy, int *keep,
    int *cost, const short16 ** kept, int *q_kept, uchar16 * pred)
{
  *j = j_c;
  *dx = v.x;
  *dy = v.y;
  *keep = keep_c;
  *cost = sad;
  *kept = lv;
  *q_kept = q_c;
  #pragma unroll
  for (int i = 0; i < MB_ROWS; i++)
    pred[i] = p[i];
}

#if MPEG_KERNELS_OF (CORE)
__kernel void
mpeg_encode_mb_cpu (__global const uchar * cur, __global const uchar * ref,
    __global uchar * recon, __global const GstClMotionVector * vectors,
    __global GstClMpegMbRecord * records, __global short *levels,
    __global const uchar * rd_bits, __global const uchar * fpred,
    __global const GstClMpegFieldChoice * fields,
    const GstClMpegEncodeArgs args)
{
  const uint mb = get_global_id (0);
  const int mbx = mb % args.mb_width, mby = mb / args.mb_width;
  const int W = args.mb_width * 16, H = args.mb_height * 16, CW = W / 2;
  /* offsets of the macroblock in the luma and the chroma planes */
  const int yo = mby * 16 * W + mbx * 16;
  const int co = W * H + mby * CHROMA_ROWS * CW + mbx * 8;
  const int cro = CW * CHROMA_HEIGHT (H);
  /* rows 0-15 luma, then Cb | Cr */
  uchar16 src[MB_ROWS], pred[MB_ROWS];
  int16 qw[8], zz1[8], mag1[8];
  float16 rcp[8];
  int last[MB_BLOCKS];
  int sum, act, intra, dx = 0, dy = 0, q, q_kept, cost, m = 0, i, p;
  int lambda4;
  ulong m2q;
  /* the levels in 16-bit lanes, those of the moving candidate, and
   * those kept (none: nothing coded). @kept points at either array up to
   * the end, so both belong to the kernel's scope: an array declared in
   * the decisions' block ends with the block (reading it later is
   * undefined), and NVIDIA's compiler gave its storage to the variables
   * of the reconstruction loop below. */
  short16 levels_of[MB_ROWS], levels_mv[MB_ROWS];
  const short16 *kept = levels_of;
  int rd_delta = 0, rd_cbp = 0, moving = 0, sad_mv = 0, sad_zero = 0;
  int field = 0, field_mv = 0, field_chosen = 0, alt_bits = -1;
  long energy;
  int intra_cand = 0;
  int2 alt = (int2) (0, 0);
  uchar16 pred_mv[MB_ROWS];
  __global short *lev = levels + (size_t) mb * GST_CL_MPEG_MB_LEVELS;
  /* the second moving candidate (second_vector), its prediction and
   * levels */
  int has_second = 0, second_bits = 0, sad_second = 0;
  int2 second = (int2) (0, 0);
  uchar16 pred_second[MB_ROWS];
  short16 levels_second[MB_ROWS];

  if (mb >= args.mb_width * args.mb_height)
    return;
  #pragma unroll
  for (i = 0; i < 16; i++)
    src[i] = vload16 (0, cur + yo + i * W);
  #pragma unroll
  for (i = 0; i < CHROMA_ROWS; i++)
    src[16 + i] = (uchar16) (*(__global const uchar8 *) (cur + co + i * CW),
        *(__global const uchar8 *) (cur + co + cro + i * CW));
  /* the next lines of the rows, which the macroblocks to the right read
   * and write */
  prefetch_next_lines (cur + yo, W, 16, 0);
  prefetch_next_lines (cur + co, CW, CHROMA_ROWS, 0);
  prefetch_next_lines (cur + co + cro, CW, CHROMA_ROWS, 0);
  prefetch_next_lines (recon + yo, W, 16, 1);
  prefetch_next_lines (recon + co, CW, CHROMA_ROWS, 1);
  prefetch_next_lines (recon + co + cro, CW, CHROMA_ROWS, 1);

  /* activity: sum of |sample - mean| over the luma, in 1/256 steps.
   * With sum = 256 m + f (0 <= f < 256) and S (v) the sum of |sample -
   * v|: |256 x - sum| is 256 (m - x) + f for x <= m and 256 (x - m) - f
   * above, and S (m + 1) - S (m) counts the first less the second, so
   * the total is 256 S (m) + f (S (m + 1) - S (m)): three sums of
   * absolute differences (psadbw) instead of 32-bit lanes. */
  {
    sad_acc_t s = SAD_ZERO, sm = SAD_ZERO, sm1 = SAD_ZERO;
    #pragma unroll
    for (i = 0; i < 16; i++)
      s = sad_add16 (s, src[i], (uchar16) (0));
    sum = (int) sad_total (s);
    /* (m = 255: every sample is 255, f = 0) */
    const uchar16 mv = (uchar16) (sum >> 8), mv1 = (uchar16) min ((sum >>
            8) + 1, 255);
    #pragma unroll
    for (i = 0; i < 16; i++) {
      sm = sad_add16 (sm, src[i], mv);
      sm1 = sad_add16 (sm1, src[i], mv1);
    }
    act = (256 * (int) sad_total (sm) + (sum & 255) *
        ((int) sad_total (sm1) - (int) sad_total (sm))) >> 8;
  }

  q = mb_quant (args.qscale, args.adaptive, act, args.avg_activity,
      args.non_linear);
  lambda4 = rd_lambda4 (args.rd_lambda, q);
  intra = !args.p_picture;
  cost = act;
  if (args.p_picture) {
    uchar16 pv[16];
    int2 v = mb_vector (vectors, mb, mbx, mby, W, H);
    /* the vector choice belongs to the rate-distortion decisions */
    int s0, sv;
    int mv_lambda16 = args.rd_lambda && !args.dc_only ?
        args.mv_lambda * args.qscale : 0;
    #pragma unroll
    for (i = 0; i < 16; i++)
      pred[i] = vload16 (0, ref + yo + i * W);
    s0 = sad_rows (src, pred);
    sv = s0;
    if (v.x || v.y) {
      predict_rows (ref + yo + (v.y >> 1) * W + (v.x >> 1), W, v.x & 1,
          v.y & 1, 16, 1, pv);
      sv = sad_rows (src, pv);
    }
    if (mv_lambda16) {
      /* the predictor's vector as a candidate too */
      int2 p = mb_predictor (vectors, mb, mbx, mby, W, H);
      int2 w = clamp_vector (p, mbx, mby, W, H);
      /* its prediction is made only when it is neither of the others */
      int own = (w.x || w.y) && (w.x != v.x || w.y != v.y);
      int sp = w.x || w.y ? sv : s0;
      uchar16 pw[16];
      if (own) {
        predict_rows (ref + yo + (w.y >> 1) * W + (w.x >> 1), W, w.x & 1,
            w.y & 1, 16, 1, pw);
        sp = sad_rows (src, pw);
      }
      const int2 searched = v;
      const int s_searched = sv;
      v = choose_moving (sv, sp, v, w, p, mv_lambda16, rd_bits, &sv);
      /* (the other's prediction left in pw where there are two) */
      if (own && v.x == w.x && v.y == w.y)
        #pragma unroll
        for (i = 0; i < 16; i++) {
          const uchar16 t = pv[i];
          pv[i] = pw[i];
          pw[i] = t;
        }
      /* progressive pictures: an interlaced one's fourth try is the
       * other arrangement of its blocks */
      has_second = !args.field_dct && second_vector (searched, s_searched,
          w, sp, v, s0, q, &second, &sad_second);
      if (has_second) {
        second_bits = vector_bits (rd_bits, second - p);
        #pragma unroll
        for (i = 0; i < 16; i++)
          pred_second[i] = own ? pw[i] : pv[i];
      }
      /* or the one above's, or the one above and to the right's */
      for (int right = 0; right < 2 && !args.field_dct; right++) {
        const int2 above = above_vector (vectors, mb, mbx, mby, right,
            args.mb_width, W, H);
        if (above_competes (above, v, has_second, second)) {
          uchar16 pa[16];
          int sa, above_bits = vector_bits (rd_bits, above - p);
          predict_rows (ref + yo + (above.y >> 1) * W + (above.x >> 1), W,
              above.x & 1, above.y & 1, 16, 1, pa);
          sa = sad_rows (src, pa);
          if (take_above (above, sa, above_bits, &has_second, &second,
                  &sad_second, &second_bits, s0, q, mv_lambda16)) {
            #pragma unroll
            for (i = 0; i < 16; i++)
              pred_second[i] = pa[i];
          }
        }
      }
      alt_bits = vector_bits (rd_bits, v - p);
      if (has_second)
        has_second = second_rivals (luma_satd_sad (src, pred_second),
            second_bits, luma_satd_sad (src, v.x || v.y ? pv : pred),
            v.x || v.y ? alt_bits : 0, q, mv_lambda16);
      if (has_second)
        predict_chroma (ref, co, cro, CW, second, pred_second);
      /* the field prediction instead where it is cheaper */
      if (args.field_motion) {
        uchar16 pf[16];
        #pragma unroll
        for (i = 0; i < 16; i++)
          pf[i] = vload16 (0, fpred + yo + i * W);
        field_mv = takes_field_prediction (&fields[mb], luma_satd_sad (src,
                pf), luma_satd_sad (src, v.x || v.y ? pv : pred),
            mv_lambda16, &sv, &alt_bits);
        if (field_mv) {
          v = (int2) (0, 0);
          #pragma unroll
          for (i = 0; i < 16; i++)
            pv[i] = pf[i];
        }
      }
      /* intra competes too where it is plausible at all */
      intra_cand = min (s0, sv) > act / 4;
      cost = s0;
      sad_zero = s0;
      sad_mv = sv;
      /* zero or v: decided on the coded macroblocks below, where v
       * predicts clearly better (else it could only cost more) */
      moving = !intra && (field_mv || v.x || v.y) &&
          sv + MOVING_MARGIN * q < s0;
      if (moving) {
        #pragma unroll
        for (i = 0; i < 16; i++)
          pred_mv[i] = pv[i];
        predict_chroma (field_mv ? fpred : ref, co, cro, CW, v, pred_mv);
      }
      dx = dy = 0;
      alt = v;
    } else {
      v = decide (s0, sv, act, args.intra_bias, v, &intra, &cost);
      dx = v.x;
      dy = v.y;
      if (!intra && (dx || dy))
        #pragma unroll
        for (i = 0; i < 16; i++)
          pred[i] = pv[i];
    }
    if (!intra)
      predict_chroma (ref, co, cro, CW, (int2) (dx, dy), pred);
  }
  if (intra)
    #pragma unroll
    for (i = 0; i < MB_ROWS; i++)
      pred[i] = 0;
  /* the intra candidate's blocks, frame or field as its samples prefer */
  uchar16 src_in[MB_ROWS];
  int field_in = 0;
  if (args.field_dct && intra_cand) {
    uchar16 none[16];
    #pragma unroll
    for (i = 0; i < 16; i++)
      none[i] = 0;
    field_in = rows_prefer_field_dct (src, none);
    #pragma unroll
    for (i = 0; i < MB_ROWS; i++)
      src_in[i] = src[i];
    if (field_in) {
      to_field_rows (src_in);
      if (MPEG_CHROMA_422)
        to_field_rows (src_in + 16);
    }
  }
  /* the samples and predictions in frame blocks, for the other
   * arrangement's try below */
  uchar16 src_frame[MB_ROWS], pred_frame[MB_ROWS], pred_mv_frame[MB_ROWS];
  if (args.field_dct) {
    #pragma unroll
    for (i = 0; i < MB_ROWS; i++) {
      src_frame[i] = src[i];
      pred_frame[i] = pred[i];
      pred_mv_frame[i] = pred_mv[i];
    }
    /* frame or field blocks, by the residual of the moving candidate
     * where there is one, else of the prediction so far (intra: the
     * samples): the arrangement coded first */
    field = rows_prefer_field_dct (src, moving ? pred_mv : pred);
    if (field) {
      to_field_rows (src);
      to_field_rows (pred);
      if (moving)
        to_field_rows (pred_mv);
      /* (4:2:2: the chroma blocks follow, 13818-2 6.1.3) */
      if (MPEG_CHROMA_422) {
        to_field_rows (src + 16);
        to_field_rows (pred + 16);
        if (moving)
          to_field_rows (pred_mv + 16);
      }
    }
  }

  /* quantiser steps: intra q W (and the reciprocal of 8 q W for the
   * division, see below), inter m = ceil (2^18 / q) */
  #pragma unroll
  for (i = 0; i < 8; i++) {
    int8 z = convert_int8 (vload8 (i, SCAN_INDEX[args.alternate_scan])) + 1;
    zz1[i] = (int16) (z, z);
  }
  m = ((1 << 18) + q - 1) / q;
  m2q = rd_step_inverse (q);
  quant_steps (q, intra, args.rd_lambda && !args.dc_only, args.mpeg2, qw,
      rcp, mag1);
  /* the quantiser of the levels kept (see fitting_quant) */
  q_kept = q;

  /* the levels of the three pairs first: rate-distortion decisions take
   * the whole macroblock before anything is reconstructed */
  if (args.rd_lambda && !args.dc_only && !intra) {
    int keep = 0, keep_mv = 0, delta_mv, cbp_mv, q_mv = q;
    long j = LONG_MAX, j_mv = LONG_MAX, energy_mv;

    /* the zero vector and the moving candidate: the one coded first
     * bounds the other. The moving one goes first where it predicts
     * much better than the zero vector (it then mostly wins), else
     * second. The zero vector wins ties: it is left out only where its
     * least possible cost lies above the moving one's, which must cost
     * strictly less than the zero vector's to win. */
    const int moving_first = moving && sad_zero - sad_mv > 8 * q;
    const long header_mv = moving ? mode_lambda (lambda4) *
        (alt_bits + 3) : 0;
    if (moving_first && quantise_pairs (src, pred_mv, 0, &q_mv, m, m2q, qw,
            rcp, mag1, args.rd_lambda, lambda4, args.dc_only, args.mpeg2,
            args.dc_shift, rd_bits, header_mv, LONG_MAX, levels_mv,
            &delta_mv, &cbp_mv, &energy_mv, args.alternate_scan,
            args.intra_vlc))
      j_mv = inter_cost (energy_mv, delta_mv, cbp_mv, alt_bits, lambda4,
          rd_bits, &keep_mv);
    if (quantise_pairs (src, pred, 0, &q_kept, m, m2q, qw, rcp, mag1,
            args.rd_lambda, lambda4, args.dc_only, args.mpeg2, args.dc_shift,
            rd_bits, 0, moving_first ? j_mv + 1 : LONG_MAX, levels_of,
            &rd_delta, &rd_cbp, &energy, args.alternate_scan,
            args.intra_vlc))
      j = inter_cost (energy, rd_delta, rd_cbp, -1, lambda4, rd_bits, &keep);
    if (moving && !moving_first && quantise_pairs (src, pred_mv, 0, &q_mv,
            m, m2q, qw, rcp, mag1, args.rd_lambda, lambda4, args.dc_only,
            args.mpeg2, args.dc_shift, rd_bits, header_mv, j, levels_mv,
            &delta_mv, &cbp_mv, &energy_mv, args.alternate_scan,
            args.intra_vlc))
      j_mv = inter_cost (energy_mv, delta_mv, cbp_mv, alt_bits, lambda4,
          rd_bits, &keep_mv);
    if (j_mv < j) {
      take_inter (j_mv, alt, keep_mv, sad_mv, levels_mv, q_mv, pred_mv, &j,
          &dx, &dy, &keep, &cost, &kept, &q_kept, pred);
      field_chosen = field_mv;
    }
    if (has_second) {
      int keep_second, delta_second, cbp_second, q_second = q;
      long energy_second;
      if (quantise_pairs (src, pred_second, 0, &q_second, m, m2q, qw, rcp,
              mag1, args.rd_lambda, lambda4, args.dc_only, args.mpeg2,
              args.dc_shift, rd_bits,
              mode_lambda (lambda4) * (second_bits + 3), j, levels_second,
              &delta_second, &cbp_second, &energy_second,
              args.alternate_scan, args.intra_vlc)) {
        const long j_second = inter_cost (energy_second, delta_second,
            cbp_second, second_bits, lambda4, rd_bits, &keep_second);
        if (j_second < j)
          take_inter (j_second, second, keep_second, sad_second,
              levels_second, q_second, pred_second, &j, &dx, &dy, &keep,
              &cost, &kept, &q_kept, pred);
      }
    }
    /* the prediction chosen in the other arrangement, frame or field
     * blocks, taken where it costs less (the first arrangement's bound:
     * a guess from the residual's vertical differences) */
    if (args.field_dct && keep) {
      const int chose_mv = kept == levels_mv;
      uchar16 src_other[MB_ROWS], pred_other[MB_ROWS];
      short16 *levels_other = chose_mv ? levels_of : levels_mv;
      int q_other = q, delta_other, cbp_other, keep_other;
      long energy_other;
      #pragma unroll
      for (i = 0; i < MB_ROWS; i++) {
        src_other[i] = src_frame[i];
        pred_other[i] = chose_mv ? pred_mv_frame[i] : pred_frame[i];
      }
      if (!field) {
        to_field_rows (src_other);
        to_field_rows (pred_other);
        if (MPEG_CHROMA_422) {
          to_field_rows (src_other + 16);
          to_field_rows (pred_other + 16);
        }
      }
      if (quantise_pairs (src_other, pred_other, 0, &q_other, m, m2q, qw,
              rcp, mag1, args.rd_lambda, lambda4, args.dc_only, args.mpeg2,
              args.dc_shift, rd_bits, chose_mv ? header_mv : 0, j,
              levels_other, &delta_other, &cbp_other, &energy_other,
              args.alternate_scan, args.intra_vlc)) {
        long j_other = inter_cost (energy_other, delta_other, cbp_other,
            chose_mv ? alt_bits : -1, lambda4, rd_bits, &keep_other);
        if (j_other < j) {
          j = j_other;
          field = !field;
          kept = levels_other;
          q_kept = q_other;
          #pragma unroll
          for (i = 0; i < MB_ROWS; i++)
            pred[i] = pred_other[i];
        }
      }
    }
    if (!keep)
      kept = 0;
    /* intra only against a prediction whose levels are worth coding:
     * where the best prediction leaves nothing to code, intra, which must
     * code every DC level, hardly ever wins, and transforming the source
     * to find that out was a fifth of the kernel's work */
    if (intra_cand && keep) {
      int16 qw_in[8], mag1_in[8];
      float16 rcp_in[8];
      uchar16 none[MB_ROWS];
      int delta_in, cbp_in, dc[MB_BLOCKS], take = 0, q_in = q;
      long energy_in;
      quant_steps (q, 1, 1, args.mpeg2, qw_in, rcp_in, mag1_in);
      #pragma unroll
      for (i = 0; i < MB_ROWS; i++)
        none[i] = 0;
      /* (into levels_of: the zero vector's are not needed past here) */
      short16 *levels_in = kept == levels_of ? levels_mv : levels_of;
      if (quantise_pairs (args.field_dct ? src_in : src, none, 1, &q_in, m,
              m2q, qw_in, rcp_in,
              mag1_in, args.rd_lambda, lambda4, args.dc_only, args.mpeg2,
              args.dc_shift, rd_bits,
              mode_lambda (lambda4) * intra_min_bits (rd_bits), j, levels_in,
              &delta_in, &cbp_in, &energy_in, args.alternate_scan,
              args.intra_vlc)) {
        for (p = 0; p < MB_PAIRS; p++) {
          dc[2 * p] = levels_in[8 * p].s0;
          dc[2 * p + 1] = levels_in[8 * p].s8;
        }
        take = intra_cost (energy_in, delta_in, dc, lambda4, rd_bits,
            args.dc_shift) < j;
      }
      if (take) {
        intra = 1;
        field_chosen = 0;
        if (args.field_dct)
          field = field_in;
        dx = dy = 0;
        cost = act;
        kept = levels_in;
        q_kept = q_in;
        #pragma unroll
        for (i = 0; i < MB_ROWS; i++)
          pred[i] = 0;
        #pragma unroll
        for (i = 0; i < 8; i++)
          qw[i] = qw_in[i];
      }
    }
  } else {
    quantise_pairs (src, pred, intra, &q_kept, m, m2q, qw, rcp, mag1,
        args.rd_lambda, lambda4, args.dc_only, args.mpeg2, args.dc_shift,
        rd_bits, 0, LONG_MAX, levels_of, &rd_delta, &rd_cbp, &energy,
        args.alternate_scan, args.intra_vlc);
  }
  /* the reconstruction's steps: those of a raised quantiser */
  if (intra && q_kept != q)
    quant_steps (q_kept, 1, 1, args.mpeg2, qw, rcp, mag1);
  q = q_kept;

  for (p = 0; p < MB_PAIRS; p++) {
    int16 x[8], L[8], A[8], lm = 0;
    short16 nonzero = 0;
    uchar16 o[8];
    int ll = 0, lr = 0;

    if (kept)
      #pragma unroll
      for (i = 0; i < 8; i++)
        nonzero |= kept[8 * p + i];
    /* (most pairs of a P picture have no level: one test for them) */
    long4 n4 = as_long4 (nonzero);
    long2 n2 = n4.lo | n4.hi;
    if (intra || (n2.x | n2.y)) {
      #pragma unroll
      for (i = 0; i < 8; i++)
        L[i] = convert_int16 (kept[8 * p + i]);
      /* (an intra DC lane of A is not used: that coefficient is 8 L) */
      #pragma unroll
      for (i = 0; i < 8; i++) {
        A[i] = max (L[i], -L[i]);
        lm = max (lm, select ((int16) 0, zz1[i], L[i] != 0));
      }
      ll = max8 (lm.lo);
      lr = max8 (lm.hi);
    }
    last[2 * p] = ll;
    last[2 * p + 1] = lr;
    /* the entropy coder reads a block's levels up to its last only: a
     * pair without any is not written, but for an intra one, whose DC
     * level is read even where it is 0 (a black block) */
    if (intra || ll || lr)
      store_levels (lev + 128 * p, kept + 8 * p, args.alternate_scan);

    if (!intra && !ll && !lr) {
      /* no level in the pair: the prediction itself */
      #pragma unroll
      for (i = 0; i < 8; i++)
        o[i] = pred[8 * p + i];
    } else {
      /* the decoder's coefficients (dequantisation, mismatch control) */
      int toggled = 0;
      #pragma unroll
      for (i = 0; i < 8; i++) {
        int16 d = intra ? (A[i] * qw[i]) >> 3 : (2 * A[i] + 1) * q;
        /* MPEG-1's mismatch control: even values one nearer zero,
         * (d - 1) | 1 */
        if (!args.mpeg2)
          d = (d - 1) | 1;
        d = select (d, (int16) 0, A[i] == 0);
        x[i] = select (min (d, 2047), -min (d, 2048), L[i] < 0);
      }
      if (intra)
        x[0] = select (x[0], (8 >> args.dc_shift) * L[0], DC_LANES);
      if (args.mpeg2) {
        /* MPEG-2's: the lowest bits of each block's coefficients
         * XORed, row by row, then across the block's eight lanes */
        int16 odd = x[0];
        int8 o8;
        int4 o4;
        int2 o2;
        #pragma unroll
        for (i = 1; i < 8; i++)
          odd ^= x[i];
        o8 = (int8) (odd.lo.even ^ odd.lo.odd, odd.hi.even ^ odd.hi.odd);
        o4 = o8.even ^ o8.odd;
        o2 = o4.even ^ o4.odd;
        const int tl = mismatch_toggle (o2.x, intra || ll);
        const int tr = mismatch_toggle (o2.y, intra || lr);
        /* (F[7][7] of each block: row 7, lanes 7 and 15) */
        x[7].s7 ^= tl;
        x[7].sf ^= tr;
        toggled = tl | tr;
      }

      if (ll <= 1 && lr <= 1 && !toggled) {
        /* at most the DC coefficients: each half is flat */
        int16 f = min (max ((5793 * x[0] + (1 << 8)) >> 9, -32768), 32767);
        f = (5793 * f + (1 << 18)) >> 19;
        f = (int16) (f.s0, f.s0, f.s0, f.s0, f.s0, f.s0, f.s0, f.s0,
            f.s8, f.s8, f.s8, f.s8, f.s8, f.s8, f.s8, f.s8);
        #pragma unroll
        for (i = 0; i < 8; i++)
          x[i] = f;
      } else {
        /* rows (5 fractional bits kept, clamped to 16 bits), columns */
        transpose_pair (x);
        idct_cols (x, 9, 1);
        transpose_pair (x);
        idct_cols (x, 19, 0);
      }
      #pragma unroll
      for (i = 0; i < 8; i++)
        o[i] = convert_uchar16 (min (max (x[i] +
                    convert_int16 (pred[8 * p + i]), 0), 255));
    }
    #pragma unroll
    for (i = 0; i < 8; i++) {
      if (p < 2) {
        *(__global uchar16 *) (recon + yo + (field ? 2 * i + p : 8 * p +
                    i) * W) = o[i];
      } else {
        /* (4:2:0: p is 2, its chroma always in frame blocks) */
        const int line = field && MPEG_CHROMA_422 ? 2 * i + p - 2 :
            8 * (p - 2) + i;
        *(__global uchar8 *) (recon + co + line * CW) = o[i].lo;
        *(__global uchar8 *) (recon + co + cro + line * CW) = o[i].hi;
      }
    }
  }
  write_record (&records[mb], last, dx, dy, intra, field, field_chosen, q,
      act, cost);
}
#endif
#endif

#if !GST_CL_CPU_LAYOUT
/* ---- packed levels for the read-back (GPU layout) ----
 *
 * A discrete device sends its results over the bus: instead of every
 * block's 64 levels (6.3 MB a 1080p picture) only those the entropy coder
 * reads cross it, the levels of each block up to its last non-zero one
 * (an intra block at least its DC), block after block, macroblock after
 * macroblock. Where each macroblock's levels start, and the sums of the
 * records the host decides with (GstClMpegPackSummary), cross with them:
 * the host scans no record before it codes the slices. */

static uint
coded_levels (__global const GstClMpegMbRecord * r, int b)
{
  uint n = r->last[b];
  return (r->flags & GST_CL_MPEG_MB_INTRA) ? max (n, 1u) : n;
}

#define PACK_ITEMS GST_CL_MPEG_PACK_ITEMS

/* The GstClMpegPackSummary of the nt (a power of 2) work-items' @v, for
 * all of them: the sum of each word, the largest vector_reach; @parts
 * holds nt. Every work-item of the group must call it. */
__attribute__ ((always_inline)) static inline uint8
group_summary (uint8 v, __local uint8 * parts, int lid, int nt)
{
  const uint8 reach = (uint8) (0, 0, 0, 0, 0, 0, 0, 0x80000000u);

  parts[lid] = v;
  barrier (CLK_LOCAL_MEM_FENCE);
  for (int k = nt / 2; k > 0; k >>= 1) {
    if (lid < k)
      parts[lid] = select (parts[lid] + parts[lid + k],
          max (parts[lid], parts[lid + k]), reach);
    barrier (CLK_LOCAL_MEM_FENCE);
  }
  v = parts[0];
  /* everyone has read it before @parts is written again */
  barrier (CLK_LOCAL_MEM_FENCE);
  return v;
}

/* The offsets and the summary in two steps, each spread over the device:
 * mpeg_pack_counts, a work-item per macroblock, writes where its levels
 * start within its work-group's run of PACK_ITEMS macroblocks
 * (@offsets[mb]) and each run's summary (GST_CL_MPEG_PACK_PARTS_AT,
 * word by word: the runs' totals side by side); mpeg_pack_levels makes
 * each macroblock's offset the runs' totals before it plus its own. */
#if MPEG_KERNELS_OF (CORE)
__kernel __attribute__ ((reqd_work_group_size (PACK_ITEMS, 1, 1)))
void
mpeg_pack_counts (__global const GstClMpegMbRecord * records,
    __global uint * offsets, uint n)
{
  __local uint sums[PACK_ITEMS];
  __local uint8 parts[PACK_ITEMS];
  const uint mb = get_global_id (0), t = get_local_id (0);
  uint count = 0;
  uint8 mine = 0;

  if (mb < n) {
    __global const GstClMpegMbRecord *r = &records[mb];
    const uint intra = (r->flags & GST_CL_MPEG_MB_INTRA) != 0;
    const uint skippable = (r->flags & GST_CL_MPEG_MB_SKIPPABLE) != 0;
    const uint coded = (uint) (intra || !skippable);
    uint last = 0;
    for (int b = 0; b < MB_BLOCKS; b++) {
      count += coded_levels (r, b);
      last += r->last[b];
    }
    const int lo = min (r->dx, r->dy), hi = max (r->dx, r->dy);
    const uint reach = intra ? 1u : (uint) max (max (-lo, hi + 1), 1);
    mine = (uint8) (count, intra, skippable, coded, coded ? last : 0u,
        (uint) r->quant, r->activity, reach);
  }
  const uint upto = group_prefix (count, sums, t, PACK_ITEMS);
  const uint8 run = group_summary (mine, parts, t, PACK_ITEMS);
  if (mb < n)
    offsets[mb] = upto - count;
  if (t == 0) {
    __global uint *summary = offsets + GST_CL_MPEG_PACK_PARTS_AT (n) +
        get_group_id (0);
    uint words[GST_CL_MPEG_PACK_SUMMARY_WORDS];
    vstore8 (run, 0, words);
    for (int k = 0; k < GST_CL_MPEG_PACK_SUMMARY_WORDS; k++)
      summary[k * GST_CL_MPEG_PACK_RUNS (n)] = words[k];
  }
}
#endif

/* One work-group of 64 per macroblock, a work-item per zigzag index. */
#if MPEG_KERNELS_OF (CORE)
__kernel __attribute__ ((reqd_work_group_size (64, 1, 1)))
void
mpeg_pack_levels (__global const GstClMpegMbRecord * records,
    __global const short * levels, __global uint * offsets,
    __global short * packed, uint n)
{
  __local int red[64];
  const uint mb = get_group_id (0), t = get_local_id (0);
  __global const GstClMpegMbRecord *r = &records[mb];
  uint at = offsets[mb];
  int before = 0;

  /* (word 0 of the runs' summaries, their packed_total, side by side) */
  for (uint run = t; run < mb / PACK_ITEMS; run += 64)
    before += offsets[GST_CL_MPEG_PACK_PARTS_AT (n) + run];
  at += (uint) group_sum (red, before, t);
  /* (every work-item has read the offset before it is replaced) */
  barrier (CLK_GLOBAL_MEM_FENCE);
  if (t == 0)
    offsets[mb] = at;
  for (int b = 0; b < MB_BLOCKS; b++) {
    uint c = coded_levels (r, b);
    if (t < c)
      packed[at + t] = levels[(size_t) mb * GST_CL_MPEG_MB_LEVELS + b * 64 + t];
    at += c;
  }
}
#endif

#endif /* !GST_CL_CPU_LAYOUT */
