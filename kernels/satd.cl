/* gst-clvideo: the SATD (sum of the magnitudes of the Hadamard
 * transform's coefficients) of a macroblock's 16 x 16 luma residual, by
 * which the motion search ranks its half-pel vectors and the encoder the
 * directions of a B picture's macroblocks, and of a field's 16 x 8, by
 * which the encoder's field search ranks its half-pel vectors
 * SPDX-License-Identifier: LGPL-2.1-or-later */

#ifndef GST_CL_SATD_CL
#define GST_CL_SATD_CL

#include "sad.cl"
#include "pairs.cl"

/* The Hadamard transform of order 8 down the columns of the rows @r of
 * a pair of blocks, its outputs in another order (which the sum of their
 * magnitudes does not see): three rounds of sums and differences of rows
 * 2^k apart, whole vectors each. */
static inline void
hadamard8_rows (short16 * r)
{
  #pragma unroll
  for (int s = 1; s < 8; s <<= 1) {
    #pragma unroll
    for (int y = 0; y < 8; y++)
      if (!(y & s)) {
        short16 a = r[y], b = r[y + s];
        r[y] = a + b;
        r[y + s] = a - b;
      }
  }
}

/* The magnitudes of the Hadamard coefficients of the pair of 8 x 8
 * blocks in the 8 rows @r (transformed in place), summed lane by lane:
 * down the columns, then, the pair transposed, down the columns again.
 * No coefficient leaves 16 bits (255 x 64 at most). */
static inline int16
pair_hadamard_magnitudes (short16 * r)
{
  int16 acc = 0;
  hadamard8_rows (r);
  transpose_pair_short (r);
  hadamard8_rows (r);
  /* magnitudes as max (x, -x) (POCL splits abs on wide vectors), four
   * rows summed in 16 bits (4 x 16320 fits) before widening */
  #pragma unroll
  for (int y = 0; y < 8; y += 4) {
    ushort16 m = 0;
    #pragma unroll
    for (int i = y; i < y + 4; i++)
      m += as_ushort16 (max (r[i], -r[i]));
    acc += convert_int16 (m);
  }
  return acc;
}

/* The SATD of the 16 rows of residual @d (each row's two halves in two 8
 * x 8 blocks, the transforms in place) */
static uint
satd16 (short16 * d)
{
  return (uint) sum16 (pair_hadamard_magnitudes (d) +
      pair_hadamard_magnitudes (d + 8));
}

/* The SATD of the 8 rows of residual @d: a pair of 8 x 8 blocks, as a
 * field's 8 lines of a macroblock */
static uint
satd8_rows (short16 * d)
{
  return (uint) sum16 (pair_hadamard_magnitudes (d));
}

#endif /* GST_CL_SATD_CL */
