/* gst-clvideo: two 8x8 blocks side by side in the rows of 16-lane
 * vectors (lanes 0-7 the left block's row, 8-15 the right one's), and
 * their transposition, shared by the encoder's transforms and the motion
 * search's SATD, whose sources include this file
 * SPDX-License-Identifier: LGPL-2.1-or-later */

#ifndef GST_CL_PAIRS_CL
#define GST_CL_PAIRS_CL

/* the first (ZIP_LO) or last (ZIP_HI) four elements of each half of x
 * interleaved with those of y, as a T (int16 or short16) */
#define ZIP_LO(T, x, y) (T) ((x).s0, (y).s0, (x).s1, (y).s1, (x).s2, \
      (y).s2, (x).s3, (y).s3, (x).s8, (y).s8, (x).s9, (y).s9, (x).sa, \
      (y).sa, (x).sb, (y).sb)
#define ZIP_HI(T, x, y) (T) ((x).s4, (y).s4, (x).s5, (y).s5, (x).s6, \
      (y).s6, (x).s7, (y).s7, (x).sc, (y).sc, (x).sd, (y).sd, (x).se, \
      (y).se, (x).sf, (y).sf)

/* Transposes both 8x8 halves of the T rows @v: three rounds of
 * interleaving rows i and i + 4 into rows 2i and 2i + 1 move every
 * element's row bits into its column bits. On short16, each interleave
 * is one AVX2 unpack. */
#define TRANSPOSE_PAIR(T, v) do { \
    T t_[8]; \
    _Pragma ("unroll") \
    for (int round_ = 0; round_ < 3; round_++) { \
      _Pragma ("unroll") \
      for (int i_ = 0; i_ < 4; i_++) { \
        t_[2 * i_] = ZIP_LO (T, (v)[i_], (v)[i_ + 4]); \
        t_[2 * i_ + 1] = ZIP_HI (T, (v)[i_], (v)[i_ + 4]); \
      } \
      _Pragma ("unroll") \
      for (int i_ = 0; i_ < 8; i_++) \
        (v)[i_] = t_[i_]; \
    } \
  } while (0)

static void
transpose_pair (int16 * v)
{
  TRANSPOSE_PAIR (int16, v);
}

static void
transpose_pair_short (short16 * v)
{
  TRANSPOSE_PAIR (short16, v);
}

#endif /* GST_CL_PAIRS_CL */
