/* config.h — the TRACEFOLD_* environment variables, read once at MPI_Init. */
#ifndef TF_CONFIG_H
#define TF_CONFIG_H

#include <stddef.h>
#include <stdint.h>

typedef enum { TF_MODE_COMPRESSED, TF_MODE_FLAT, TF_MODE_BOTH, TF_MODE_OFF } tf_mode;

typedef struct tf_config {
  tf_mode mode;
  const char *output; /* TRACEFOLD_OUTPUT, NULL for the default name */
  size_t memory;      /* TRACEFOLD_MEMORY: cap of one rank's folded trace, bytes */
  uint32_t timing;    /* TRACEFOLD_TIMING: tf_timing_mode */
  uint32_t bins;      /* TRACEFOLD_BINS: bins per histogram */
  uint32_t volume;    /* TRACEFOLD_VOLUME: tf_volume_request */
  uint64_t checkpoint_ns; /* TRACEFOLD_CHECKPOINT: interval between checkpoints, 0 = off */
  int verbose;        /* TRACEFOLD_VERBOSE */
  uint32_t flat_window; /* TRACEFOLD_FLATRUN: events per window of the "folding pays" measure, 0 = off */
} tf_config;

#define TF_DEFAULT_MEMORY ((size_t)256 << 20)
#define TF_FLAT_WINDOW_MIN 64u
#define TF_FLAT_WINDOW_MAX (1u << 24)
#define TF_DEFAULT_CHECKPOINT_NS 10000000000ull /* 10 s */

/* Read and validate. 0 on success; otherwise -1 and one line in err naming
 * the variable, its value and what is accepted. */
int tf_config_read(tf_config *cfg, char *err, size_t errlen);

#endif
