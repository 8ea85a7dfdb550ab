/* gst-clvideo: sums of absolute differences of byte rows, and the MPEG
 * half-pel averages of rows, shared by the motion search and the encoder,
 * whose sources include this file
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * sad_acc_t accumulates |a - b| over the lanes of uchar16 (or uchar8)
 * rows: sad_acc_t s = SAD_ZERO; s = sad_add16 (s, a, b); ...;
 * sad_total (s). Up to 256 rows fit.
 *
 * On x86 CPUs (POCL) the sum of a row is one psadbw: the portable form,
 * a vector |a - b| (max - min: POCL turns abs_diff on wide vectors into
 * scalar code) widened to 16 bits and added, takes about three times as
 * long there. GPUs and other compilers take the portable form. */

#ifndef GST_CL_SAD_CL
#define GST_CL_SAD_CL

/* Clang building for the CPU layout: its builtins may be asked for
 * (__has_builtin) and used; GPU compilers are left the portable forms */
#if GST_CL_CPU_LAYOUT && defined(__clang__) && defined(__has_builtin)
#define CPU_CLANG_BUILTINS 1
#endif

/* 16 or 8 bytes at any address. POCL moves vloadn data piecewise where
 * it cannot prove the address aligned; clang loads a vector type of
 * alignment 1 in one instruction. */
#if GST_CL_CPU_LAYOUT && defined(__clang__)
typedef uchar16 uchar16_any __attribute__ ((aligned (1)));
typedef uchar8 uchar8_any __attribute__ ((aligned (1)));
#define LOAD16_ANY(p) (*(__global const uchar16_any *) (p))
#define LOAD8_ANY(p) (*(__global const uchar8_any *) (p))
#define STORE16_ANY(v, p) (*(__global uchar16_any *) (p) = (v))
#define STORE8_ANY(v, p) (*(__global uchar8_any *) (p) = (v))
#else
#define LOAD16_ANY(p) vload16 (0, (p))
#define LOAD8_ANY(p) vload8 (0, (p))
#define STORE16_ANY(v, p) vstore16 ((v), 0, (p))
#define STORE8_ANY(v, p) vstore8 ((v), 0, (p))
#endif

/* A hint that the line at @p will be read (PREFETCH_WRITE: written)
 * soon (CPUs: the first touch of a picture's rows otherwise waits on
 * memory); nothing elsewhere */
#if defined(CPU_CLANG_BUILTINS) && __has_builtin(__builtin_prefetch)
#define PREFETCH(p) __builtin_prefetch ((p))
#define PREFETCH_WRITE(p) __builtin_prefetch ((p), 1)
#else
#define PREFETCH(p) ((void) 0)
#define PREFETCH_WRITE(p) ((void) 0)
#endif

/* The next 64-byte line of each of the @n rows @stride apart at @p,
 * which the blocks to the right read (@write: and write) */
static inline void
prefetch_next_lines (__global const uchar * p, int stride, int n, int write)
{
  for (int i = 0; i < n; i++) {
    if (write)
      PREFETCH_WRITE (p + i * stride + 64);
    else
      PREFETCH (p + i * stride + 64);
  }
}

#if defined(CPU_CLANG_BUILTINS) && defined(__x86_64__)
#if __has_builtin(__builtin_ia32_psadbw128)
#define SAD_PSADBW 1
#endif
#endif

#ifdef SAD_PSADBW

typedef char sad_bytes_t __attribute__ ((vector_size (16)));
/* the two 64-bit halves' sums */
typedef long sad_acc_t __attribute__ ((vector_size (16)));
#define SAD_ZERO ((sad_acc_t) { 0, 0 })

static inline sad_acc_t
sad_add16 (sad_acc_t acc, uchar16 a, uchar16 b)
{
  return acc + __builtin_ia32_psadbw128 ((sad_bytes_t) a, (sad_bytes_t) b);
}

static inline uint
sad_total (sad_acc_t acc)
{
  return (uint) (acc[0] + acc[1]);
}

/* the sums of lanes 0 to 7 and of lanes 8 to 15 alone */
static inline uint
sad_left (sad_acc_t acc)
{
  return (uint) acc[0];
}

static inline uint
sad_right (sad_acc_t acc)
{
  return (uint) acc[1];
}

#else

typedef ushort16 sad_acc_t;
#define SAD_ZERO ((ushort16) (0))

static inline sad_acc_t
sad_add16 (sad_acc_t acc, uchar16 a, uchar16 b)
{
  return acc + convert_ushort16 (max (a, b) - min (a, b));
}

/* the sum of the eight lanes of @a8 */
static inline uint
sad_sum8 (ushort8 a8)
{
  ushort4 a4 = a8.lo + a8.hi;
  ushort2 a2 = a4.lo + a4.hi;
  return (uint) a2.x + a2.y;
}

static inline uint
sad_total (sad_acc_t acc)
{
  return sad_sum8 (acc.lo + acc.hi);
}

/* the sums of lanes 0 to 7 and of lanes 8 to 15 alone */
static inline uint
sad_left (sad_acc_t acc)
{
  return sad_sum8 (acc.lo);
}

static inline uint
sad_right (sad_acc_t acc)
{
  return sad_sum8 (acc.hi);
}

#endif

/* x86 with SSE4.1: the SADs of a 4-byte row against eight consecutive
 * offsets in one mpsadbw */
#if defined(SAD_PSADBW) && defined(__SSE4_1__)
#if __has_builtin(__builtin_ia32_mpsadbw128)
#define SAD_MPSADBW 1

typedef short sad_shorts_t __attribute__ ((vector_size (16)));

/* lane j: sum over k < 4 of |a[j + k] - b[k]|, j = 0 .. 7 */
static inline ushort8
sad4_at8 (uchar16 a, uchar16 b)
{
  sad_shorts_t s = (sad_shorts_t)
      __builtin_ia32_mpsadbw128 ((sad_bytes_t) a, (sad_bytes_t) b, 0);
  return (ushort8) (s[0], s[1], s[2], s[3], s[4], s[5], s[6], s[7]);
}
#endif
#endif

/* an 8-byte row */
static inline sad_acc_t
sad_add8 (sad_acc_t acc, uchar8 a, uchar8 b)
{
  return sad_add16 (acc, (uchar16) (a, (uchar8) (0)), (uchar16) (b,
          (uchar8) (0)));
}

/* MPEG half-pel prediction rows: (a + b + 1) >> 1 for a sample between
 * two, (a + b + c + d + 2) >> 2 between four. Written as the widened sums
 * that compilers for x86 turn into pavgb for the first. */
static inline uchar16
half_avg2 (uchar16 a, uchar16 b)
{
  return convert_uchar16 ((convert_ushort16 (a) + convert_ushort16 (b) +
          (ushort) 1) >> (ushort) 1);
}

static inline uchar16
half_avg4 (uchar16 a, uchar16 b, uchar16 c, uchar16 d)
{
  return convert_uchar16 ((convert_ushort16 (a) + convert_ushort16 (b) +
          convert_ushort16 (c) + convert_ushort16 (d) + (ushort) 2) >>
      (ushort) 2);
}

/* the sum of the lanes of @v */
static inline int
sum8 (int8 v)
{
  int4 a = v.lo + v.hi;
  int2 b = a.lo + a.hi;
  return b.x + b.y;
}

/* the sum of the lanes of @v */
static inline int
sum16 (int16 v)
{
  return sum8 (v.lo + v.hi);
}

#endif /* GST_CL_SAD_CL */
