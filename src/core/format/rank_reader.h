/* rank_reader.h — the per-rank file reader's internal entry points (its
 * public ones are tf_file_* in tracefold.h): files held in memory, and the
 * folded segments of a compressed file for code that walks its loops. */
#ifndef TF_RANK_READER_H
#define TF_RANK_READER_H

#include <stddef.h>
#include <stdint.h>

#include "fold/folder.h"
#include "fold/streams.h"
#include "tracefold.h"

/* Open a per-rank file held in memory (data is taken over, freed on close
 * or failure); like tf_file_open. */
tf_status tf_file_open_mem(uint8_t *data, size_t len, const char *name, tf_file_reader **out, char *err,
                           size_t errlen);

/* The folded segments of a compressed trace file, for tools that walk the
 * loop structure: number of segments (0 for a flat file), their node lists
 * and lengths, and (orders may be NULL) the order of each one's streams. */
uint32_t tf_file_folded(const tf_file_reader *r, tf_fnode **const **segs, const uint32_t **segn,
                        const tf_order **orders);

#endif
