/* container.h — the framing of a merged trace file (doc/FORMAT.md 3.1):
 * magic, version, then its sections, with their checksums and compression.
 * Version 6 keeps every section in one body (one zstd frame, possibly with
 * the built-in dictionary, and one CRC for the file); versions 2 to 5 frame,
 * compress and check each section apart. What the sections hold is
 * merged_codec.c's. */
#ifndef TF_CONTAINER_H
#define TF_CONTAINER_H

#include "tracefold.h"
#include "util/bytes.h"

typedef struct tf_section {
  uint8_t id;
  const uint8_t *data; /* its content (raw, decompressed) */
  size_t len;
  size_t at; /* where it starts: byte of the file (versions 2-5) or of the body (6) */
} tf_section;

typedef struct tf_container {
  uint32_t version;
  tf_section *sec; /* in file order */
  uint32_t n;
  uint8_t **owned; /* decompressed contents */
  uint32_t nowned;
} tf_container;

/* A body being written: its bytes in b, but for ranges of the caller's
 * that stand among them uncopied (a flat run's bytes, megabytes of them on
 * an irregular stream): ext[i] comes right before b's byte ext[i].at. The
 * ranges must stay where they are until the file is put. */
typedef struct tf_body_ext {
  size_t at;
  const uint8_t *p;
  size_t len;
} tf_body_ext;
typedef struct tf_body {
  tf_buf b;
  tf_body_ext *ext;
  size_t next, cap_ext;
  size_t ext_len; /* the ranges' bytes: the body is b.len + ext_len long */
  int failed;
} tf_body;
/* Append len bytes at p to the body, not copied (see above). */
void tf_body_put_ext(tf_body *body, const uint8_t *p, size_t len);
void tf_body_free(tf_body *body);

/* Writing (always the current version): sections into body, then the file. */
void tf_container_put_section(tf_body *body, uint8_t id, const tf_buf *content);
/* The same section written straight into body, its content never copied
 * whole: open it (returns where its content starts), put the content into
 * body->b and its ranges, close it (its length goes in front, the content
 * moves up). */
size_t tf_container_open_section(tf_body *body, uint8_t id);
void tf_container_close_section(tf_body *body, size_t start);
/* The file: magic, version, body stored (zstd_level 0) or in one zstd frame,
 * with or without the built-in dictionary, whichever is smallest; CRC. A
 * large body (flat runs' bytes) is compressed as a stream, piece after
 * piece, never copied whole, at level 3 at most with tables of 2.6 MB. */
void tf_container_put_file(tf_buf *out, const tf_body *body, int zstd_level);

/* Reading: the file's sections, checked and decompressed. TF_OK, or an
 * error (err: the file's name and what is wrong) with *c empty. */
tf_status tf_container_read(const uint8_t *data, size_t len, const char *name, tf_container *c, char *err,
                            size_t errlen);
void tf_container_free(tf_container *c);

/* The first section alone, from the file's first len bytes (a prefix of
 * it will do: nothing is checked beyond that section, no checksum), its
 * content decompressed into buf (room cap) where it has to be. TF_OK,
 * TF_ERR_VERSION, TF_ERR_NOMEM or TF_ERR_FORMAT (also: longer than cap). */
tf_status tf_container_first_section(const uint8_t *data, size_t len, uint8_t *buf, size_t cap, uint32_t *version,
                                     tf_section *out);

#endif
