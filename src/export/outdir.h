/* outdir.h — an exporter's output directory, written whole or not at all:
 * its files go to a new directory beside it, renamed to it when complete
 * (an empty directory of that name is replaced; anything else is never
 * overwritten), removed when the export fails. */
#ifndef TF_EXPORT_OUTDIR_H
#define TF_EXPORT_OUTDIR_H

#include <limits.h>
#include <stddef.h>

#ifndef PATH_MAX
#define PATH_MAX 4096
#endif

typedef struct xp_outdir {
  char path[PATH_MAX];     /* the directory's absolute path */
  char tmp[PATH_MAX + 32]; /* where it is written */
  int existing;            /* 1: an empty directory is there now */
  int made;                /* tmp exists */
} xp_outdir;

/* Check that `dir` can be written: 0, or -1 with why in err (its parent
 * does not exist; it exists and is not an empty directory). */
int xp_outdir_check(xp_outdir *o, const char *dir, char *err, size_t errlen);
/* Create the directory it is written in (o->tmp): 0, or -1 with why. */
int xp_outdir_begin(xp_outdir *o, char *err, size_t errlen);
/* Put it in place: 0, or -1 with why (o->tmp stays). */
int xp_outdir_commit(xp_outdir *o, char *err, size_t errlen);
/* Remove o->tmp and the files in it (after a failure). */
void xp_outdir_discard(xp_outdir *o);

/* One output file, the same way: written as `path`.tmp-XXXXXX beside it,
 * renamed to path when complete (replacing a file of that name). */
#include <stdio.h>
typedef struct xp_outfile {
  char path[PATH_MAX];
  char tmp[PATH_MAX + 32];
  FILE *f; /* open on tmp */
} xp_outfile;
/* Create tmp: 0, or -1 with why (the parent directory does not exist, path
 * is a directory). */
int xp_outfile_open(xp_outfile *o, const char *path, char *err, size_t errlen);
/* Close and rename: 0, or -1 with why (writing failed); tmp is removed then. */
int xp_outfile_commit(xp_outfile *o, char *err, size_t errlen);
/* Close and remove tmp (after a failure); also of an unopened one. */
void xp_outfile_discard(xp_outfile *o);

#endif
