/* platform.h — SimGrid platforms for `tracefold simulate` (platform.c). */
#ifndef TF_PLATFORM_H
#define TF_PLATFORM_H

#include <stddef.h>

typedef enum tf_quantity { TF_Q_BANDWIDTH, TF_Q_LATENCY, TF_Q_SPEED } tf_quantity;

/* "10Gbps" -> bytes/s, "1us" -> s, "2Gf" -> flop/s (a bare number: those
 * base units); 0, or -1 if s is not such a quantity > 0. */
int tf_parse_quantity(tf_quantity q, const char *s, double *out);
const char *tf_quantity_units(tf_quantity q); /* what is expected, for messages */

/* The generated platform: `nodes` hosts of `speed` flop/s and `cores`
 * cores, each on a private link; node to node a message sees `latency` and
 * at most `bandwidth`. */
typedef struct tf_platform {
  int nodes, cores;
  double bandwidth, latency, speed; /* B/s, s, flop/s */
} tf_platform;
int tf_platform_write(const char *path, const tf_platform *p, char *err, size_t errlen);

/* The hosts a platform file declares (<host id>, and the hosts of each
 * <cluster>), in order; 0, or -1 with why in err. */
typedef struct tf_hosts {
  char **names;
  size_t n, cap;
} tf_hosts;
int tf_platform_hosts(const char *path, tf_hosts *h, char *err, size_t errlen);
void tf_hosts_free(tf_hosts *h);

/* A hostfile placing `ranks` ranks on the hosts, consecutive ranks on one
 * host when there are more ranks than hosts (only if `fold`). */
int tf_hostfile_write(const char *path, const tf_hosts *h, int ranks, int fold, char *err, size_t errlen);

#endif
