/* outdir.c — an output directory written beside and renamed; see outdir.h. */
#define _XOPEN_SOURCE 700 /* realpath, mkdtemp */
#include "outdir.h"

#include <dirent.h>
#include <errno.h>
#include <libgen.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* Remove the files of a directory written by an exporter (and of the
 * directories in it: an OTF2 archive has one), then the directory. */
static void remove_dir(const char *dir, int depth) {
  DIR *d = opendir(dir);
  if (d) {
    struct dirent *e;
    char p[PATH_MAX + 512];
    while ((e = readdir(d)))
      if (strcmp(e->d_name, ".") && strcmp(e->d_name, "..")) {
        struct stat sb;
        snprintf(p, sizeof p, "%s/%s", dir, e->d_name);
        if (depth < 4 && lstat(p, &sb) == 0 && S_ISDIR(sb.st_mode)) remove_dir(p, depth + 1);
        else unlink(p);
      }
    closedir(d);
  }
  rmdir(dir);
}

/* 1 if `dir` is a directory with nothing in it, 0 if not, -1 if it does not exist. */
static int empty_dir(const char *dir) {
  struct stat sb;
  if (stat(dir, &sb) != 0) return -1;
  if (!S_ISDIR(sb.st_mode)) return 0;
  DIR *d = opendir(dir);
  if (!d) return 0;
  struct dirent *e;
  int empty = 1;
  while (empty && (e = readdir(d))) empty = !strcmp(e->d_name, ".") || !strcmp(e->d_name, "..");
  closedir(d);
  return empty;
}

/* dir's absolute path (its parent must exist). */
static int absolute(const char *dir, char *abs, size_t len) {
  char a[PATH_MAX], b[PATH_MAX], parent[PATH_MAX];
  snprintf(a, sizeof a, "%s", dir);
  snprintf(b, sizeof b, "%s", dir);
  size_t n = strlen(a);
  while (n > 1 && a[n - 1] == '/') {
    n--;
    a[n] = b[n] = 0;
  }
  const char *base = basename(b);
  if (!realpath(dirname(a), parent)) return -1;
  return (size_t)snprintf(abs, len, "%s/%s", strcmp(parent, "/") ? parent : "", base) < len ? 0 : -1;
}

int xp_outdir_check(xp_outdir *o, const char *dir, char *err, size_t errlen) {
  *o = (xp_outdir){0};
  if (absolute(dir, o->path, sizeof o->path)) {
    snprintf(err, errlen, "%s: its parent directory does not exist", dir);
    return -1;
  }
  o->existing = empty_dir(o->path);
  if (o->existing == 0) {
    snprintf(err, errlen, "%s exists and is not an empty directory; not overwriting it", dir);
    return -1;
  }
  return 0;
}

int xp_outdir_begin(xp_outdir *o, char *err, size_t errlen) {
  snprintf(o->tmp, sizeof o->tmp, "%s.tmp-XXXXXX", o->path);
  if (!mkdtemp(o->tmp)) {
    snprintf(err, errlen, "cannot create %s: %s", o->tmp, strerror(errno));
    return -1;
  }
  o->made = 1;
  return 0;
}

int xp_outdir_commit(xp_outdir *o, char *err, size_t errlen) {
  if (o->existing == 1 && rmdir(o->path) != 0) {
    snprintf(err, errlen, "cannot replace %s: %s", o->path, strerror(errno));
    return -1;
  }
  if (rename(o->tmp, o->path) != 0) {
    snprintf(err, errlen, "cannot rename %s to %s: %s", o->tmp, o->path, strerror(errno));
    if (o->existing == 1) mkdir(o->path, 0777);
    return -1;
  }
  o->made = 0;
  return 0;
}

void xp_outdir_discard(xp_outdir *o) {
  if (o->made) remove_dir(o->tmp, 0);
  o->made = 0;
}

int xp_outfile_open(xp_outfile *o, const char *path, char *err, size_t errlen) {
  *o = (xp_outfile){0};
  struct stat sb;
  if (stat(path, &sb) == 0 && S_ISDIR(sb.st_mode)) {
    snprintf(err, errlen, "%s is a directory", path);
    return -1;
  }
  if (absolute(path, o->path, sizeof o->path)) {
    snprintf(err, errlen, "%s: its parent directory does not exist", path);
    return -1;
  }
  snprintf(o->tmp, sizeof o->tmp, "%s.tmp-XXXXXX", o->path);
  int fd = mkstemp(o->tmp);
  if (fd < 0 || !(o->f = fdopen(fd, "w"))) {
    snprintf(err, errlen, "cannot create %s: %s", o->tmp, strerror(errno));
    if (fd >= 0) close(fd);
    if (fd >= 0) unlink(o->tmp);
    o->tmp[0] = 0;
    return -1;
  }
  fchmod(fd, 0644);
  return 0;
}

int xp_outfile_commit(xp_outfile *o, char *err, size_t errlen) {
  int bad = ferror(o->f) != 0;
  bad |= fclose(o->f) != 0;
  o->f = NULL;
  if (bad) {
    snprintf(err, errlen, "cannot write %s: %s", o->tmp, strerror(errno));
    xp_outfile_discard(o);
    return -1;
  }
  if (rename(o->tmp, o->path) != 0) {
    snprintf(err, errlen, "cannot rename %s to %s: %s", o->tmp, o->path, strerror(errno));
    xp_outfile_discard(o);
    return -1;
  }
  o->tmp[0] = 0;
  return 0;
}

void xp_outfile_discard(xp_outfile *o) {
  if (o->f) fclose(o->f);
  o->f = NULL;
  if (o->tmp[0]) unlink(o->tmp);
  o->tmp[0] = 0;
}
