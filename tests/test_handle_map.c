/* test_handle_map.c — the recorder's handle map (src/recorder/handle_map.c)
 * against a plain array: random puts, finds and removes of clustered keys
 * (as MPI reuses request handles), so that removals shift probe chains
 * back often; every key is found exactly when the reference holds it, with
 * the record last put for it. */
#define _POSIX_C_SOURCE 200809L
#include <stdlib.h>

#include "check.h"
#include "handle_map.h"

#define KEYS 512

static void test_against_array(void) {
  tf_handle_map m = {0};
  int64_t ref[KEYS]; /* id of key k, or -1 */
  for (int k = 0; k < KEYS; k++) ref[k] = -1;
  uint64_t x = 88172645463325252ull;
  long bad = 0;
  for (int64_t op = 0; op < 400000; op++) {
    x ^= x << 13, x ^= x >> 7, x ^= x << 17;
    /* keys in a narrow range and multiples of 64 (hash clusters): long chains */
    uint64_t k = (x >> 8) % KEYS, key = (k % 2 ? k : k * 64) + 0x44000000;
    if (x % 3 == 0) {
      tf_obj *o = tf_map_put(&m, key);
      CHECK(o != NULL);
      o->id = op;
      ref[k] = op;
    } else if (x % 3 == 1) {
      tf_map_remove(&m, key);
      ref[k] = -1;
    }
    if (op % 97 == 0 || x % 3 == 2) /* every key now and then, else the one touched */
      for (uint64_t j = op % 97 == 0 ? 0 : k; j < (op % 97 == 0 ? KEYS : k + 1); j++) {
        tf_obj *o = tf_map_find(&m, (j % 2 ? j : j * 64) + 0x44000000);
        if (ref[j] < 0 ? o != NULL : !o || o->id != ref[j]) bad++;
      }
  }
  size_t live = 0;
  for (int k = 0; k < KEYS; k++) live += ref[k] >= 0;
  CHECKF(bad == 0, "%ld lookups disagreed with the reference", bad);
  CHECKF(m.live == live, "the map counts %zu live records, the reference %zu", m.live, live);
  tf_map_free(&m);
}

int main(int argc, char **argv) {
  static const test_case cases[] = {{"against_array", test_against_array}};
  return run_cases("test_handle_map", cases, TEST_NCASES(cases), argc, argv);
}
