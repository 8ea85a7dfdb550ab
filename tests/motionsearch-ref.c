/* gst-clvideo: plain C motion estimation, full and hierarchical search
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * Written for clarity, straight from the definitions: every candidate is
 * tried and checked for lying inside the window and the plane.
 */
#include "motionsearch-ref.h"
#include "gstclvideotypes.h"

#include <stdlib.h>

#define PX(p, x, y) ((gint) (p)->data[(y) * (p)->stride + (x) * (p)->pstride])

static guint
block_sad (const RefPlane * cur, const RefPlane * ref, gint x0, gint y0,
    gint bw, gint bh, gint dx, gint dy)
{
  guint s = 0;
  gint x, y;

  for (y = 0; y < bh; y++)
    for (x = 0; x < bw; x++)
      s += abs (PX (cur, x0 + x, y0 + y) - PX (ref, x0 + x + dx, y0 + y + dy));
  return s;
}

/* MPEG-1 half-pel prediction of sample (x, y) displaced by (vx, vy)
 * half-pels */
static gint
half_pel (const RefPlane * ref, gint x, gint y, gint vx, gint vy)
{
  /* floor division: the integer part of a negative half-pel vector */
  gint ix = (vx - (vx & 1)) / 2, iy = (vy - (vy & 1)) / 2;
  gint hx = vx & 1, hy = vy & 1;
  gint a = PX (ref, x + ix, y + iy);

  if (hx && hy)
    return (a + PX (ref, x + ix + 1, y + iy) + PX (ref, x + ix, y + iy + 1) +
        PX (ref, x + ix + 1, y + iy + 1) + 2) >> 2;
  if (hx)
    return (a + PX (ref, x + ix + 1, y + iy) + 1) >> 1;
  if (hy)
    return (a + PX (ref, x + ix, y + iy + 1) + 1) >> 1;
  return a;
}

static gboolean
better (guint64 cost, gint mag, guint64 best_cost, gint best_mag)
{
  /* candidates come in raster order: an equal one never wins */
  return cost < best_cost || (cost == best_cost && mag < best_mag);
}

/* The sum of the magnitudes of the 8 x 8 Hadamard transform of the
 * residual of the 8 x 8 block at (x0, y0) against its half-pel
 * prediction by (vx, vy) */
static guint
block_satd8 (const RefPlane * cur, const RefPlane * ref, gint x0, gint y0,
    gint vx, gint vy)
{
  gint d[8][8], x, y, u, v, sum = 0;

  for (y = 0; y < 8; y++)
    for (x = 0; x < 8; x++)
      d[y][x] = PX (cur, x0 + x, y0 + y) -
          half_pel (ref, x0 + x, y0 + y, vx, vy);
  /* H d H with H[u][x] = (-1)^popcount(u & x), unnormalised */
  for (v = 0; v < 8; v++)
    for (u = 0; u < 8; u++) {
      gint c = 0;
      for (y = 0; y < 8; y++)
        for (x = 0; x < 8; x++)
          c += (__builtin_popcount ((v & y) ^ (u & x)) & 1) ? -d[y][x] :
              d[y][x];
      sum += abs (c);
    }
  return sum;
}

/* The bits of vector component @c: 1 for 0, else 4 for |c| = 1, and 2
 * more for each doubling */
static guint
component_bits (gint c)
{
  guint bits = 4, m = ABS (c);

  if (!c)
    return 1;
  while (m >>= 1)
    bits += 2;
  return bits;
}

typedef struct
{
  guint64 cost;
  gint mag, vx, vy;
  guint sad;
} HalfPos;

/* Half-pel refinement of the full-pel vector (fx, fy) of the block at
 * (x0, y0): the 9 half-pel positions around it whose prediction reads
 * only samples inside the plane, in raster order, by SAD; with
 * REF_SUBPEL_SATD a whole 16 x 16 block takes the one with the least SATD
 * of its four 8 x 8 blocks plus its SAD plus twice @price sixteenths a bit
 * of the half-pel vector's components. */
static void
refine_half (const RefPlane * cur, const RefPlane * ref, gint x0, gint y0,
    gint bw, gint bh, gint fx, gint fy, gint subpel, guint price,
    GstClMotionVector * mv)
{
  HalfPos pos[9], *best = NULL;
  gint n = 0, hx, hy, i, j, k;

  for (hy = -1; hy <= 1; hy++) {
    for (hx = -1; hx <= 1; hx++) {
      gint vx = 2 * fx + hx, vy = 2 * fy + hy, x, y;
      gint ix = (vx - (vx & 1)) / 2, iy = (vy - (vy & 1)) / 2;
      guint64 s = 0;
      if (x0 + ix < 0 || y0 + iy < 0 ||
          x0 + ix + bw + (vx & 1) > cur->width ||
          y0 + iy + bh + (vy & 1) > cur->height)
        continue;
      for (y = 0; y < bh; y++)
        for (x = 0; x < bw; x++)
          s += abs (PX (cur, x0 + x, y0 + y) -
              half_pel (ref, x0 + x, y0 + y, vx, vy));
      pos[n].cost = s;
      pos[n].sad = (guint) s;
      pos[n].mag = abs (vx) + abs (vy);
      pos[n].vx = vx;
      pos[n].vy = vy;
      n++;
    }
  }
  /* in raster order: a stable sort by SAD, then magnitude */
  for (i = 1; i < n; i++)
    for (j = i; j > 0 && better (pos[j].cost, pos[j].mag, pos[j - 1].cost,
            pos[j - 1].mag); j--) {
      HalfPos t = pos[j];
      pos[j] = pos[j - 1];
      pos[j - 1] = t;
    }
  if (subpel == REF_SUBPEL_SATD && bw == 16 && bh == 16) {
    for (i = 0; i < n; i++) {
      pos[i].cost = pos[i].sad + 2 * price * (component_bits (pos[i].vx) +
          component_bits (pos[i].vy)) / 16;
      for (k = 0; k < 4; k++)
        pos[i].cost += block_satd8 (cur, ref, x0 + k % 2 * 8,
            y0 + k / 2 * 8, pos[i].vx, pos[i].vy);
    }
    /* ties go to the smaller vector, then to the first in raster order */
    for (i = 0; i < n; i++)
      if (!best || pos[i].cost < best->cost || (pos[i].cost == best->cost &&
              (pos[i].mag < best->mag || (pos[i].mag == best->mag &&
                      (pos[i].vy < best->vy || (pos[i].vy == best->vy &&
                              pos[i].vx < best->vx))))))
        best = &pos[i];
  } else {
    best = &pos[0];
  }
  mv->dx = best->vx;
  mv->dy = best->vy;
  mv->sad = best->sad;
}

void
ref_motion_search (const RefPlane * cur, const RefPlane * ref,
    const RefPlane * cur_chroma, const RefPlane * ref_chroma, gint csx,
    gint csy, guint weight_q, gint bs, gint range, gint subpel,
    GstClMotionVector * out)
{
  gint bx, by, blocks_x = (cur->width + bs - 1) / bs;
  gint blocks_y = (cur->height + bs - 1) / bs;
  gboolean chroma = weight_q > 0 && cur_chroma && ref_chroma;

  for (by = 0; by < blocks_y; by++) {
    for (bx = 0; bx < blocks_x; bx++) {
      gint x0 = bx * bs, y0 = by * bs;
      gint bw = MIN (bs, cur->width - x0), bh = MIN (bs, cur->height - y0);
      guint64 best_cost = G_MAXUINT64;
      gint best_mag = G_MAXINT, fx = 0, fy = 0, dx, dy;
      GstClMotionVector *mv = &out[by * blocks_x + bx];

      for (dy = -range; dy < range; dy++) {
        for (dx = -range; dx < range; dx++) {
          guint64 cost;
          if (x0 + dx < 0 || y0 + dy < 0 || x0 + dx + bw > cur->width ||
              y0 + dy + bh > cur->height)
            continue;
          cost = block_sad (cur, ref, x0, y0, bw, bh, dx, dy);
          if (chroma) {
            /* the chroma samples covering the block, displaced by the
             * vector rounded down to the chroma grid */
            gint cx0 = x0 >> csx, cy0 = y0 >> csy;
            gint cx1 = (x0 + bw + (1 << csx) - 1) >> csx;
            gint cy1 = (y0 + bh + (1 << csy) - 1) >> csy;
            gint cdx = dx >= 0 ? dx >> csx : -((-dx + (1 << csx) - 1) >> csx);
            gint cdy = dy >= 0 ? dy >> csy : -((-dy + (1 << csy) - 1) >> csy);
            guint64 sc = 0;
            gint i;
            for (i = 0; i < 2; i++)
              sc += block_sad (&cur_chroma[i], &ref_chroma[i], cx0, cy0,
                  cx1 - cx0, cy1 - cy0, cdx, cdy);
            cost = 256 * cost + weight_q * sc;
          }
          if (better (cost, abs (dx) + abs (dy), best_cost, best_mag)) {
            best_cost = cost;
            best_mag = abs (dx) + abs (dy);
            fx = dx;
            fy = dy;
          }
        }
      }
      mv->dx = 2 * fx;
      mv->dy = 2 * fy;
      mv->sad = block_sad (cur, ref, x0, y0, bw, bh, fx, fy);
      if (subpel)
        refine_half (cur, ref, x0, y0, bw, bh, fx, fy, subpel, 0, mv);
    }
  }
}

/* ---- hierarchical ---- */

/* @p (its first w x h samples) decimated by s = 2^level: each sample the
 * rounded mean of the s x s samples it covers, coordinates past the last
 * column and row clamped to them; ceil (w / s) x ceil (h / s), packed. */
static RefPlane
decimate (const RefPlane * p, gint w, gint h, gint level)
{
  gint s = 1 << level, dw = (w + s - 1) / s, dh = (h + s - 1) / s, x, y, i,
      j;
  guint8 *data = g_malloc ((gsize) dw * dh);
  RefPlane d = { data, dw, 1, dw, dh };

  for (y = 0; y < dh; y++)
    for (x = 0; x < dw; x++) {
      gint sum = 0;
      for (j = 0; j < s; j++)
        for (i = 0; i < s; i++)
          sum += PX (p, MIN (x * s + i, w - 1), MIN (y * s + j, h - 1));
      data[y * dw + x] = (sum + s * s / 2) / (s * s);
    }
  return d;
}

/* The best candidate so far of one block at one level: least cost (the
 * SAD, plus the vector's price at levels 1 and 0), then least |dx| +
 * |dy|, then first in raster order (dy, then dx). */
typedef struct
{
  guint cost, sad;
  gint mag, dx, dy;
  gboolean any;
} Best;

/* One block (or 16x16 area) at one level */
typedef struct
{
  const RefPlane *cur, *ref;    /* the level's planes */
  gint level, w, h;             /* w x h: the full-resolution picture */
  gint x0, y0, bw, bh;          /* the block at full resolution */
  guint price;                  /* sixteenths of a SAD unit a bit */
  gboolean satd;                /* ranked by SATD (see try_vector) */
} Block;

/* What (dx, dy) adds to its SAD at the level of @k */
static guint
vector_price (const Block * k, gint dx, gint dy)
{
  if (k->level == 2)
    return 0;
  return k->price * (component_bits (dx) + component_bits (dy)) / 16;
}

/* Tries displacement (dx, dy), in samples of the level, for block @k: it
 * counts where 2^level |dx| and 2^level |dy| are at most
 * GST_CL_MOTION_SEARCH_LIMIT and it moves the block to a place inside the
 * w x h picture. */
static void
try_vector (Best * b, const Block * k, gint dx, gint dy)
{
  gint s = 1 << k->level, mag = abs (dx) + abs (dy);
  guint sad, cost;

  if (s * abs (dx) > GST_CL_MOTION_SEARCH_LIMIT ||
      s * abs (dy) > GST_CL_MOTION_SEARCH_LIMIT)
    return;
  if (k->x0 + s * dx < 0 || k->y0 + s * dy < 0 ||
      k->x0 + s * dx + k->bw > k->w || k->y0 + s * dy + k->bh > k->h)
    return;
  sad = block_sad (k->cur, k->ref, k->x0 / s, k->y0 / s,
      (k->bw + s - 1) / s, (k->bh + s - 1) / s, dx, dy);
  cost = sad + vector_price (k, dx, dy);
  if (k->satd) {
    /* the SATD of the residual's four 8 x 8 blocks, plus three times
     * the price */
    gint q;
    cost = 3 * vector_price (k, dx, dy);
    for (q = 0; q < 4; q++)
      cost += block_satd8 (k->cur, k->ref, k->x0 + q % 2 * 8,
          k->y0 + q / 2 * 8, 2 * dx, 2 * dy);
  }
  if (b->any && (cost > b->cost || (cost == b->cost && (mag > b->mag ||
                  (mag == b->mag && (dy > b->dy || (dy == b->dy &&
                              dx >= b->dx)))))))
    return;
  b->cost = cost;
  b->sad = sad;
  b->mag = mag;
  b->dx = dx;
  b->dy = dy;
  b->any = TRUE;
}

/* Vectors of one step, on a grid of gx x gy */
typedef struct
{
  gint *dx, *dy;
  guint *sad;
  gint gx, gy;
} Field;

static Field
field_new (gint w, gint h, gint bs)
{
  Field f;
  f.gx = (w + bs - 1) / bs;
  f.gy = (h + bs - 1) / bs;
  f.dx = g_new0 (gint, f.gx * f.gy);
  f.dy = g_new0 (gint, f.gx * f.gy);
  f.sad = g_new0 (guint, f.gx * f.gy);
  return f;
}

static void
field_free (Field * f)
{
  g_free (f->dx);
  g_free (f->dy);
  g_free (f->sad);
}

/* Tries the vector of grid position (x, y) of @f times @scale, if there is
 * such a position. */
static void
try_field (Best * b, const Block * k, const Field * f, gint x, gint y,
    gint scale)
{
  if (x < 0 || y < 0 || x >= f->gx || y >= f->gy)
    return;
  try_vector (b, k, scale * f->dx[y * f->gx + x], scale * f->dy[y * f->gx +
          x]);
}

/* @v / 2^@n rounded down */
static gint
floor_shift (gint v, gint n)
{
  return v >= 0 ? v >> n : -((-v + (1 << n) - 1) >> n);
}

/* The vectors of the previous search (NULL: none), on a grid of @bs
 * blocks of the picture */
typedef struct
{
  const GstClMotionVector *v;
  gint bs, gx;
} History;

/* Whether the previous search had a vector for the block holding sample
 * (x0, y0); that vector in *@dx, *@dy, in samples of @level */
static gboolean
history_vector (const History * hist, gint x0, gint y0, gint level,
    gint * dx, gint * dy)
{
  const GstClMotionVector *h;

  if (!hist->v)
    return FALSE;
  h = &hist->v[(y0 / hist->bs) * hist->gx + x0 / hist->bs];
  *dx = floor_shift (h->dx, 1 + level);
  *dy = floor_shift (h->dy, 1 + level);
  return TRUE;
}

/* The shift d in [-@reach, @reach] of profile @r against @c (@n values)
 * with the least mean absolute difference of c'[i] and r'[i + d] where
 * both exist, x'[i] = x[i + 1] - x[i], the mean in 1/256 (rounded down)
 * times (64 + |d|) / 64 (rounded down); ties: smaller |d|, then the lower */
static gint
profile_shift (const guint * c, const guint * r, gint n, gint reach)
{
  guint64 best_mean = G_MAXUINT64;
  gint d, i, best = 0;

  for (d = -reach; d <= reach; d++) {
    gint i0 = MAX (0, -d), i1 = MIN (n - 1, n - 1 - d);
    guint64 sum = 0, mean;

    for (i = i0; i < i1; i++)
      sum += ABS (((gint64) c[i + 1] - c[i]) - ((gint64) r[i + d + 1] -
              r[i + d]));
    mean = (sum << 8) / (guint64) MAX (i1 - i0, 1);
    mean = mean * (64 + ABS (d)) >> 6;
    if (mean < best_mean || (mean == best_mean && ABS (d) < ABS (best))) {
      best_mean = mean;
      best = d;
    }
  }
  return best;
}

/* The global motion between the level-2 pictures @c and @r: the shifts
 * that best match their column sums and their row sums, each within
 * half the profile and the search's limit */
static void
global_motion (const RefPlane * c, const RefPlane * r, gint * gx, gint * gy)
{
  gint w = c->width, h = c->height, x, y;
  gint limit = GST_CL_MOTION_SEARCH_LIMIT >> 2;
  guint *cc = g_new0 (guint, w), *rc = g_new0 (guint, w);
  guint *cr = g_new0 (guint, h), *rr = g_new0 (guint, h);

  for (y = 0; y < h; y++)
    for (x = 0; x < w; x++) {
      cc[x] += PX (c, x, y);
      rc[x] += PX (r, x, y);
      cr[y] += PX (c, x, y);
      rr[y] += PX (r, x, y);
    }
  *gx = profile_shift (cc, rc, w, MIN (limit, w / 2));
  *gy = profile_shift (cr, rr, h, MIN (limit, h / 2));
  g_free (cc);
  g_free (rc);
  g_free (cr);
  g_free (rr);
}

/* Tries every displacement of [x0, x1] x [y0, y1] */
static void
try_window (Best * b, const Block * k, gint x0, gint x1, gint y0, gint y1)
{
  gint dx, dy;

  for (dy = y0; dy <= y1; dy++)
    for (dx = x0; dx <= x1; dx++)
      try_vector (b, k, dx, dy);
}

/* the left, top, right and bottom neighbours */
static const gint nb[4][2] = { {-1, 0}, {0, -1}, {1, 0}, {0, 1} };

/* One step over the blocks (or areas) of side @bs at @level; @prev is the
 * previous step's field (NULL for the first). */
static Field
search_step (const RefPlane * cur, const RefPlane * ref, gint level,
    gint pass, gint bs, gint range, const Field * prev, const History * hist,
    gint gx, gint gy, gint squares, gint neighbours, guint price,
    gboolean satd)
{
  gint w = cur->width, h = cur->height, bx, by, i, dx, dy;
  Field f = field_new (w, h, bs);
  RefPlane lc = *cur, lr = *ref;

  if (level > 0) {
    lc = decimate (cur, w, h, level);
    lr = decimate (ref, w, h, level);
  }
  for (by = 0; by < f.gy; by++) {
    for (bx = 0; bx < f.gx; bx++) {
      Block k = { &lc, &lr, level, w, h, bx * bs, by * bs,
        MIN (bs, w - bx * bs), MIN (bs, h - by * bs), price, FALSE
      };
      gint o = by * f.gx + bx;
      Best b = { 0, 0, 0, 0, 0, FALSE };

      gint lo = -floor_shift (range, level), hi = (range - 1) >> level, tx,
          ty;
      gboolean has_tv = history_vector (hist, bx * bs, by * bs, level, &tx,
          &ty);

      if (level == 2) {
        /* the window [-range, range - 1] in level-2 samples, the same
         * around the area's vector of the previous search, and around the
         * global motion where that lies outside the window */
        try_window (&b, &k, lo, hi, lo, hi);
        if (has_tv)
          try_window (&b, &k, tx + lo, tx + hi, ty + lo, ty + hi);
        if (gx < lo || gx > hi || gy < lo || gy > hi)
          try_window (&b, &k, gx + lo, gx + hi, gy + lo, gy + hi);
      } else if (pass == 1) {
        /* the best predictor: the vector of the 16x16 area (holding the
         * block) at the level above, those of its neighbours there, all
         * doubled, and at full resolution zero ... */
        gint px = bx * bs / 16, py = by * bs / 16, step, cx, cy;

        try_field (&b, &k, prev, px, py, 2);
        for (i = 0; i < 4; i++)
          try_field (&b, &k, prev, px + nb[i][0], py + nb[i][1], 2);
        if (level == 0)
          try_vector (&b, &k, 0, 0);
        /* ... and the block's vector of the previous search ... */
        if (has_tv)
          try_vector (&b, &k, tx, ty);
        /* ... then the 3x3 square around it, and at full resolution
         * again around the square's best until that is its centre,
         * @squares squares at most */
        for (step = 0; step < (level ? 1 : squares); step++) {
          if (step && b.dx == cx && b.dy == cy)
            break;
          cx = b.dx;
          cy = b.dy;
          for (dy = -1; dy <= 1; dy++)
            for (dx = -1; dx <= 1; dx++)
              try_vector (&b, &k, cx + dx, cy + dy);
        }
      } else {
        /* propagation: the block's vector of the pass before unless one
         * of its @neighbours' (0 or 4) is better */
        b.dx = prev->dx[o];
        b.dy = prev->dy[o];
        b.sad = prev->sad[o];
        b.cost = b.sad + vector_price (&k, b.dx, b.dy);
        b.mag = abs (b.dx) + abs (b.dy);
        b.any = TRUE;
        /* @satd: whole 16 x 16 blocks rank them all by SATD */
        if (satd && k.bw == 16 && k.bh == 16) {
          k.satd = TRUE;
          b.any = FALSE;
          try_vector (&b, &k, prev->dx[o], prev->dy[o]);
        }
        for (i = 0; i < neighbours; i++)
          try_field (&b, &k, prev, bx + nb[i][0], by + nb[i][1], 1);
      }
      /* the zero vector is always allowed at levels 2 and 0, and a coarser
       * vector doubled stays allowed */
      g_assert (b.any);
      f.dx[o] = b.dx;
      f.dy[o] = b.dy;
      f.sad[o] = b.sad;
    }
  }
  if (level > 0) {
    g_free ((gpointer) lc.data);
    g_free ((gpointer) lr.data);
  }
  return f;
}

/* The passes at full resolution from the level-1 vectors @f1 */
static void
full_resolution (const RefPlane * cur, const RefPlane * ref, gint bs,
    gint range, gint subpel, gint effort, guint price, const History * hist,
    const Field * f1, GstClMotionVector * out)
{
  static const gint squares[] = { 1, 3, 6 }, neighbours[] = { 0, 4, 4 };
  gint sq = squares[effort], nn = neighbours[effort];
  gint i;
  Field p1, p2;

  p1 = search_step (cur, ref, 0, 1, bs, range, f1, hist, 0, 0, sq, nn,
      price, FALSE);
  /* effort 2: a second propagation first */
  if (effort == 2) {
    Field p = search_step (cur, ref, 0, 2, bs, range, &p1, hist, 0, 0, sq,
        nn, price, FALSE);
    field_free (&p1);
    p1 = p;
  }
  p2 = search_step (cur, ref, 0, 2, bs, range, &p1, hist, 0, 0, sq, nn,
      price, subpel == REF_SUBPEL_SATD);

  for (i = 0; i < p2.gx * p2.gy; i++) {
    gint x0 = (i % p2.gx) * bs, y0 = (i / p2.gx) * bs;
    out[i].dx = 2 * p2.dx[i];
    out[i].dy = 2 * p2.dy[i];
    out[i].sad = p2.sad[i];
    if (subpel)
      refine_half (cur, ref, x0, y0, MIN (bs, cur->width - x0),
          MIN (bs, cur->height - y0), p2.dx[i], p2.dy[i], subpel, price,
          &out[i]);
  }
  field_free (&p1);
  field_free (&p2);
}

void
ref_motion_search_hierarchical (const RefPlane * cur, const RefPlane * ref,
    gint bs, gint range, gint subpel, gint effort, guint price,
    const GstClMotionVector * history, GstClMotionVector * out)
{
  static const gint squares[] = { 1, 3, 6 }, neighbours[] = { 0, 4, 4 };
  History hist = { history, bs, (cur->width + bs - 1) / bs };
  gint sq = squares[effort], nn = neighbours[effort];
  RefPlane c2 = decimate (cur, cur->width, cur->height, 2);
  RefPlane r2 = decimate (ref, cur->width, cur->height, 2);
  gint gx, gy;
  Field f2, f1;

  global_motion (&c2, &r2, &gx, &gy);
  g_free ((gpointer) c2.data);
  g_free ((gpointer) r2.data);
  f2 = search_step (cur, ref, 2, 1, 16, range, NULL, &hist, gx, gy, sq, nn,
      price, FALSE);
  f1 = search_step (cur, ref, 1, 1, 16, range, &f2, &hist, 0, 0, sq, nn,
      price, FALSE);
  full_resolution (cur, ref, bs, range, subpel, effort, price, &hist, &f1,
      out);
  field_free (&f2);
  field_free (&f1);
}

/* @v @num / @den to the nearest integer, halves away from zero */
static gint
scale_rounded (gint v, gint num, gint den)
{
  gint x = v * num;
  return (x + (x < 0 ? -(den / 2) : den / 2)) / den;
}

/* floor (@v / 4) */
static gint
floor_quarter (gint v)
{
  return v >= 0 ? v / 4 : -((-v + 3) / 4);
}

void
ref_motion_search_seeded (const RefPlane * cur, const RefPlane * ref,
    gint range, gint subpel, gint effort, guint price,
    const GstClMotionVector * seed, gint num, gint den, gboolean whole,
    GstClMotionVector * out)
{
  const gint limit = 2 * GST_CL_MOTION_SEARCH_LIMIT;
  Field f1 = field_new (cur->width, cur->height, 16);
  GstClMotionVector *scaled = g_new (GstClMotionVector, f1.gx * f1.gy);
  History hist = { scaled, 16, f1.gx };
  gint i;

  for (i = 0; i < f1.gx * f1.gy; i++) {
    scaled[i].dx = CLAMP (scale_rounded (seed[i].dx, num, den), -limit,
        limit);
    scaled[i].dy = CLAMP (scale_rounded (seed[i].dy, num, den), -limit,
        limit);
    scaled[i].sad = 0;
    /* level-1 samples, to the nearest (half rounded up) */
    f1.dx[i] = floor_quarter (scaled[i].dx + 2);
    f1.dy[i] = floor_quarter (scaled[i].dy + 2);
    f1.sad[i] = 0;
  }
  if (whole)
    ref_motion_search_hierarchical (cur, ref, 16, range, subpel, effort,
        price, scaled, out);
  else
    full_resolution (cur, ref, 16, range, subpel, effort, price, &hist, &f1,
        out);
  field_free (&f1);
  g_free (scaled);
}
