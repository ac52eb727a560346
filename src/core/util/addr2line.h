/* addr2line.h — call sites as people read them: a module-relative return
 * address resolved to its function and file:line by the module's debug
 * information (binutils' addr2line, one process per module for all of its
 * addresses). Used by `tracefold stats`, the EFG's site labels and genapp's
 * site names. */
#ifndef TF_ADDR2LINE_H
#define TF_ADDR2LINE_H

#include <stddef.h>
#include <stdint.h>

typedef struct tf_where {
  char func[512];  /* the function ("??" when unknown) */
  char line[1024]; /* addr2line's "/path/file.c:61 (discriminator 2)" ("??:0" when unknown) */
} tf_where;

/* Resolve the return addresses offsets[0..n) of module (each the call's: the
 * address before the return) into out[0..n), "??" where nothing is known.
 * -1 (out all "??") when the module cannot be quoted for the shell, addr2line
 * cannot run, or memory is short; else 0. */
int tf_addr2line(const char *module, const uint64_t *offsets, uint32_t n, tf_where *out);

/* "/path/ring.c:61 (discriminator 2)" -> "ring.c:61" into out; 0 (out "")
 * when the line is unknown ("??:0", "file.c:?", "??"). */
int tf_where_short(const char *line, char *out, size_t len);

#endif
