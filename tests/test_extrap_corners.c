/* test_extrap_corners.c — topology from corner ranks (src/core/extrap/
 * corners.h) on synthetic rank groups: each rank's distinct peers are
 * computed here from the grid (neighbours +-1 along every dimension, with
 * wrap-around in the periodic ones) or the hypercube, independently of
 * the code under test.
 *
 *   nonperiodic  1-D, 2-D and 3-D grids: 2^d corners at the expected rank
 *                numbers, the sizes derived from them, and they agree with
 *                the grid (mask 0) but not with its transpose;
 *   periodic     stencil3d's grid (last dimension periodic) and a grid
 *                periodic in one dimension of 4: the corner group agrees
 *                with that mask; fully periodic: no corner group;
 *   hypercube    butterfly's partners at 8 and 16 ranks and a 2x2x2 grid:
 *                every rank alike, so no corners (no 3-D grid claimed);
 *   not_corners  groups that are no grid's corners.
 */
#define _POSIX_C_SOURCE 200809L
#include <stdio.h>
#include <stdlib.h>

#include "check.h"
#include "extrap/corners.h"

#define MAXP 64

/* npeers of every rank of a row-major grid dims[0..nd), dimensions in the
 * mask periodic. */
static void grid_peers(int nd, const int64_t *dims, int periodic, int64_t p, uint32_t *npeers) {
  int64_t stride[3];
  stride[nd - 1] = 1;
  for (int d = nd - 2; d >= 0; d--) stride[d] = stride[d + 1] * dims[d + 1];
  for (int64_t r = 0; r < p; r++) {
    int64_t off[6];
    uint32_t n = 0;
    for (int d = 0; d < nd; d++) {
      int64_t x = r / stride[d] % dims[d];
      for (int s = -1; s <= 1; s += 2) {
        int64_t y = x + s;
        if (periodic >> d & 1) y = (y + dims[d]) % dims[d];
        if (y < 0 || y >= dims[d] || y == x) continue;
        int64_t o = (y - x) * stride[d], dup = 0;
        for (uint32_t i = 0; i < n; i++) dup |= off[i] == o;
        if (!dup) off[n++] = o;
      }
    }
    npeers[r] = n;
  }
}

static void check_nonperiodic(int nd, const int64_t *dims, const int64_t *want, uint32_t nwant) {
  int64_t p = 1, c[MAXP], got[3] = {0};
  for (int d = 0; d < nd; d++) p *= dims[d];
  uint32_t npeers[MAXP];
  grid_peers(nd, dims, 0, p, npeers);
  uint32_t n = tf_corners_group(npeers, p, c);
  CHECKF(n == nwant, "P=%lld: %u corners, expected %u", (long long)p, n, nwant);
  for (uint32_t i = 0; i < n && i < nwant; i++) CHECKF(c[i] == want[i], "corner %u: %lld", i, (long long)c[i]);
  CHECKF(tf_corners_grid(c, n, p, got) == nd, "P=%lld: not %d-D", (long long)p, nd);
  for (int d = 0; d < nd; d++) CHECKF(got[d] == dims[d], "dimension %d: %lld", d, (long long)got[d]);
  CHECK(tf_corners_match(c, n, p, nd, dims) == 0);
  if (nd > 1 && dims[0] != dims[nd - 1]) { /* the transpose has other corners */
    int64_t t[3];
    for (int d = 0; d < nd; d++) t[d] = dims[nd - 1 - d];
    CHECK(tf_corners_match(c, n, p, nd, t) == -1);
  }
}

static void test_nonperiodic(void) {
  check_nonperiodic(1, (const int64_t[]){6}, (const int64_t[]){0, 5}, 2);
  check_nonperiodic(2, (const int64_t[]){4, 3}, (const int64_t[]){0, 2, 9, 11}, 4);
  check_nonperiodic(2, (const int64_t[]){2, 5}, (const int64_t[]){0, 4, 5, 9}, 4);
  check_nonperiodic(3, (const int64_t[]){3, 3, 2}, (const int64_t[]){0, 1, 4, 5, 12, 13, 16, 17}, 8);
  check_nonperiodic(3, (const int64_t[]){2, 3, 4}, (const int64_t[]){0, 3, 8, 11, 12, 15, 20, 23}, 8);
}

static void test_periodic(void) {
  uint32_t npeers[MAXP];
  int64_t c[MAXP], got[3];
  /* stencil3d: 3x2x2, the last dimension periodic (of 2: its wrap is its neighbour) */
  grid_peers(3, (const int64_t[]){3, 2, 2}, 4, 12, npeers);
  uint32_t n = tf_corners_group(npeers, 12, c);
  CHECKF(n == 8, "3x2x2: %u corners", n);
  CHECK(tf_corners_grid(c, n, 12, got) == 3 && got[0] == 3 && got[1] == 2 && got[2] == 2);
  CHECK(tf_corners_match(c, n, 12, 3, (const int64_t[]){3, 2, 2}) == 0);
  /* 3x3x4, the last periodic: 4 corner columns of 4 ranks, no 2^d corners */
  grid_peers(3, (const int64_t[]){3, 3, 4}, 4, 36, npeers);
  n = tf_corners_group(npeers, 36, c);
  CHECKF(n == 16, "3x3x4 periodic z: %u in the group", n);
  CHECK(tf_corners_grid(c, n, 36, got) == 0);
  CHECKF(tf_corners_match(c, n, 36, 3, (const int64_t[]){3, 3, 4}) == 4, "mask %d",
         tf_corners_match(c, n, 36, 3, (const int64_t[]){3, 3, 4}));
  /* 5x4 periodic in its rows: the first and last row */
  grid_peers(2, (const int64_t[]){5, 4}, 2, 20, npeers);
  n = tf_corners_group(npeers, 20, c);
  CHECK(n == 8 && tf_corners_match(c, n, 20, 2, (const int64_t[]){5, 4}) == 2);
  /* fully periodic: every rank alike */
  grid_peers(2, (const int64_t[]){4, 4}, 3, 16, npeers);
  CHECK(tf_corners_group(npeers, 16, c) == 0);
  grid_peers(1, (const int64_t[]){7}, 1, 7, npeers);
  CHECK(tf_corners_group(npeers, 7, c) == 0);
}

static void test_hypercube(void) {
  uint32_t npeers[MAXP];
  int64_t c[MAXP];
  for (int64_t p = 8; p <= 16; p *= 2) { /* butterfly: partners r XOR 2^i, log2 P distinct each */
    for (int64_t r = 0; r < p; r++) npeers[r] = p == 8 ? 3 : 4;
    CHECKF(tf_corners_group(npeers, p, c) == 0, "hypercube of %lld: a corner group", (long long)p);
  }
  grid_peers(3, (const int64_t[]){2, 2, 2}, 0, 8, npeers);
  CHECK(tf_corners_group(npeers, 8, c) == 0);
}

static void test_not_corners(void) {
  int64_t got[3];
  CHECK(tf_corners_grid((const int64_t[]){0, 3, 5}, 3, 6, got) == 0);         /* not 2^d */
  CHECK(tf_corners_grid((const int64_t[]){1, 2, 9, 11}, 4, 12, got) == 0);     /* no rank 0 */
  CHECK(tf_corners_grid((const int64_t[]){0, 2, 8, 11}, 4, 12, got) == 0);     /* not P - row */
  CHECK(tf_corners_grid((const int64_t[]){0, 4, 7, 11}, 4, 12, got) == 0);     /* rows of 5 do not tile 12 */
  CHECK(tf_corners_match((const int64_t[]){0, 2, 9, 11}, 4, 12, 2, (const int64_t[]){4, 4}) == -1); /* 16 != 12 */
  /* masterworker: the workers (1 peer) against the master (P - 1): no 1-D corners */
  uint32_t npeers[6] = {5, 1, 1, 1, 1, 1};
  int64_t c[6];
  uint32_t n = tf_corners_group(npeers, 6, c);
  CHECK(n == 5 && tf_corners_grid(c, n, 6, got) == 0 && tf_corners_match(c, n, 6, 1, (const int64_t[]){6}) == -1);
}

int main(int argc, char **argv) {
  static const test_case cases[] = {
      {"nonperiodic", test_nonperiodic},
      {"periodic", test_periodic},
      {"hypercube", test_hypercube},
      {"not_corners", test_not_corners},
  };
  return run_cases("test_extrap_corners", cases, TEST_NCASES(cases), argc, argv);
}
