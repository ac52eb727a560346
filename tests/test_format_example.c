/* test_format_example.c — doc/FORMAT.md's worked example (section 1.13),
 * read from the document itself when the test runs, so that an edit that
 * breaks the example fails here.
 *
 * The section has three code blocks: the annotated hex dump (offset,
 * bytes, meaning), the same bytes as plain hex, and what `tracefold dump`
 * prints. Cases:
 *
 *   doc     the dump's offsets follow its bytes without gap; its bytes
 *           equal the plain hex; both hold as many bytes as the text says
 *           ("A complete, valid N-byte flat file", "The same N bytes");
 *   decode  the bytes, written to a file, open with the reference reader
 *           (tf_file_open, tf_file_next). The test then walks what the
 *           reader returned in file order (header, function table, call
 *           sites, events, end record, checksum) and, for each item,
 *           encodes the decoded value again by the rules of FORMAT.md part
 *           1 (its own uvar, svar, string and CRC-32 code) and takes the
 *           next line of the annotated dump: its bytes must be that
 *           encoding, and its meaning must state the decoded value ("rank
 *           1", "fn 1 (MPI_Waitall)", "statuses.tag: length 2", "TF_NONE",
 *           "CRC-32 0xf4c6c6d6 of bytes 0000..00da", ...). Every dump line
 *           must be used;
 *   contents  the text before the dump says what the file holds ("rank 1
 *           of 2, ...", the call site, each event's compute and duration):
 *           the values the reader decodes;
 *   dump    `tracefold dump` of the file prints the document's lines.
 *
 * The paths of FORMAT.md and of the tracefold CLI are compiled in
 * (TF_FORMAT_MD, TF_CLI: tests/CMakeLists.txt); TF_FORMAT_MD in the
 * environment overrides the first. Command line: tests/check.h. */
#define _POSIX_C_SOURCE 200809L
#include <inttypes.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "check.h"
#include "tracefold.h"

#ifndef TF_FORMAT_MD
#define TF_FORMAT_MD "doc/FORMAT.md"
#endif

enum { MAX_BYTES = 4096, MAX_LINES = 256, MAX_TEXT = 160 };

/* one line of the annotated dump that has an offset (continuation lines
 * add their bytes to it) */
typedef struct dump_line {
  unsigned offset;
  unsigned char bytes[64];
  size_t nbytes;
  char meaning[MAX_TEXT];
  int lineno; /* in FORMAT.md */
} dump_line;

static struct {
  int loaded, ok;
  const char *doc;
  size_t stated;                        /* "A complete, valid N-byte flat file" */
  size_t stated_plain;                  /* "The same N bytes as plain hex" */
  dump_line lines[MAX_LINES];           /* annotated dump */
  size_t nlines;
  int offsets_ok;                       /* every offset = the bytes before it */
  unsigned char dumped[MAX_BYTES];      /* the annotated dump's bytes */
  size_t ndumped;
  unsigned char plain[MAX_BYTES];       /* the plain hex block */
  size_t nplain;
  char *dump_text;                      /* the `tracefold dump` block */
  char *prose;                          /* the text before the first block */
  char path[256];                       /* the bytes, as a file */
} ex;

/* ---------------------------------------------------------------- the document */

static int hexval(int c) {
  return c >= '0' && c <= '9' ? c - '0' : c >= 'a' && c <= 'f' ? c - 'a' + 10 : c >= 'A' && c <= 'F' ? c - 'A' + 10 : -1;
}
static int is_hex_pair(const char *p) { return hexval(p[0]) >= 0 && hexval(p[1]) >= 0; }

/* bytes "xx xx xx" from p, up to two spaces or the end; returns the rest */
static const char *parse_bytes(const char *p, dump_line *l, int lineno) {
  while (is_hex_pair(p) && (p[2] == ' ' || p[2] == '\n' || p[2] == 0)) {
    if (l->nbytes < sizeof l->bytes) l->bytes[l->nbytes] = (unsigned char)(hexval(p[0]) * 16 + hexval(p[1]));
    else CHECKF(0, "FORMAT.md line %d: more than %zu bytes on one dump line", lineno, sizeof l->bytes);
    l->nbytes++;
    p += 2;
    if (p[0] == ' ' && p[1] != ' ') p++;
    else break;
  }
  return p;
}

static void trim_into(char *out, size_t len, const char *p) {
  while (*p == ' ') p++;
  size_t n = strcspn(p, "\n");
  while (n > 0 && p[n - 1] == ' ') n--;
  if (n >= len) n = len - 1;
  memcpy(out, p, n);
  out[n] = 0;
}

static void annotated_line(const char *s, int lineno) {
  if (hexval(s[0]) >= 0 && hexval(s[1]) >= 0 && hexval(s[2]) >= 0 && hexval(s[3]) >= 0 && s[4] == ' ' &&
      s[5] == ' ') { /* "0000  54 46 ...   meaning" */
    if (ex.nlines == MAX_LINES) {
      CHECKF(0, "FORMAT.md: more than %d dump lines", MAX_LINES);
      return;
    }
    dump_line *l = &ex.lines[ex.nlines++];
    memset(l, 0, sizeof *l);
    l->offset = (unsigned)strtoul(s, NULL, 16);
    l->lineno = lineno;
    trim_into(l->meaning, sizeof l->meaning, parse_bytes(s + 6, l, lineno));
  } else if (strncmp(s, "      ", 6) == 0 && is_hex_pair(s + 6) && ex.nlines > 0) { /* continued bytes */
    dump_line *l = &ex.lines[ex.nlines - 1];
    const char *rest = parse_bytes(s + 6, l, lineno);
    char more[MAX_TEXT];
    trim_into(more, sizeof more, rest);
    CHECKF(more[0] == 0, "FORMAT.md line %d: a continuation line with a meaning (\"%s\")", lineno, more);
  }
  /* else a label ("-- function 0") or a blank line */
}

static void plain_line(const char *s, int lineno) {
  for (const char *p = s; *p && *p != '\n'; p += 2) {
    if (!is_hex_pair(p)) {
      CHECKF(0, "FORMAT.md line %d: not plain hex: %s", lineno, s);
      return;
    }
    if (ex.nplain < MAX_BYTES) ex.plain[ex.nplain++] = (unsigned char)(hexval(p[0]) * 16 + hexval(p[1]));
  }
}

static void append(char **text, const char *s) {
  size_t n = *text ? strlen(*text) : 0, m = strlen(s);
  char *t = realloc(*text, n + m + 1);
  if (!t) abort();
  memcpy(t + n, s, m + 1);
  *text = t;
}

/* Section 1.13 of FORMAT.md, up to the next "## " heading: its three code
 * blocks and the byte counts its text states. */
static int parse_doc(void) {
  FILE *f = fopen(ex.doc, "r");
  CHECKF(f != NULL, "cannot open %s", ex.doc);
  if (!f) return 0;
  char s[1024];
  int lineno = 0, in_section = 0, in_block = 0, nblocks = 0;
  while (fgets(s, sizeof s, f)) {
    lineno++;
    if (strncmp(s, "## ", 3) == 0) {
      if (in_section) break;
      in_section = strncmp(s, "## 1.13 Worked example", 22) == 0;
      continue;
    }
    if (!in_section) continue;
    if (strncmp(s, "```", 3) == 0) {
      in_block = !in_block;
      nblocks += in_block;
      continue;
    }
    if (!in_block) {
      const char *p;
      if (nblocks == 0) append(&ex.prose, s);
      if ((p = strstr(s, "A complete, valid ")) && strstr(p, "-byte flat file")) ex.stated = strtoul(p + 18, NULL, 10);
      if ((p = strstr(s, "The same ")) && strstr(p, " bytes as plain hex")) ex.stated_plain = strtoul(p + 9, NULL, 10);
      continue;
    }
    if (nblocks == 1) annotated_line(s, lineno);
    else if (nblocks == 2) plain_line(s, lineno);
    else if (nblocks == 3) append(&ex.dump_text, s);
  }
  fclose(f);
  CHECKF(lineno > 0 && in_section, "%s: no section \"## 1.13 Worked example\"", ex.doc);
  CHECKF(nblocks == 3, "%s 1.13: %d code blocks, expected 3 (annotated dump, plain hex, tracefold dump)", ex.doc, nblocks);
  CHECKF(ex.nlines > 0 && ex.nplain > 0, "%s 1.13: no bytes found", ex.doc);
  return nblocks == 3 && ex.nlines > 0 && ex.nplain > 0;
}

static int load(void) {
  if (ex.loaded) return ex.ok;
  ex.loaded = 1;
  ex.doc = getenv("TF_FORMAT_MD") ? getenv("TF_FORMAT_MD") : TF_FORMAT_MD;
  if (!parse_doc()) return 0;
  ex.offsets_ok = 1;
  for (size_t i = 0; i < ex.nlines; i++) {
    const dump_line *l = &ex.lines[i];
    if (l->offset != ex.ndumped) {
      CHECKF(0, "FORMAT.md line %d: offset %04x, but the bytes before it end at %04zx", l->lineno, l->offset,
             ex.ndumped);
      ex.offsets_ok = 0;
    }
    for (size_t k = 0; k < l->nbytes && ex.ndumped < MAX_BYTES; k++) ex.dumped[ex.ndumped++] = l->bytes[k];
  }
  const char *tmp = getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp";
  snprintf(ex.path, sizeof ex.path, "%s/tf-format-example.XXXXXX", tmp);
  int fd = mkstemp(ex.path);
  CHECKF(fd >= 0, "mkstemp %s", ex.path);
  if (fd < 0) return 0;
  ssize_t w = write(fd, ex.dumped, ex.ndumped);
  close(fd);
  CHECKF(w == (ssize_t)ex.ndumped, "writing %s", ex.path);
  ex.ok = w == (ssize_t)ex.ndumped;
  return ex.ok;
}

static void unload(void) {
  if (ex.path[0]) remove(ex.path);
  free(ex.dump_text);
  free(ex.prose);
}

/* ---------------------------------------------------------------- encodings (FORMAT.md 1.2, 1.10) */

typedef struct enc {
  unsigned char b[64];
  size_t n;
} enc;

static void put_u8(enc *e, unsigned v) {
  if (e->n < sizeof e->b) e->b[e->n] = (unsigned char)v;
  e->n++;
}
static void put_u32(enc *e, uint32_t v) {
  for (int i = 0; i < 4; i++) put_u8(e, (v >> (8 * i)) & 0xff);
}
static void put_u64(enc *e, uint64_t v) {
  for (int i = 0; i < 8; i++) put_u8(e, (unsigned)(v >> (8 * i)) & 0xff);
}
static void put_uvar(enc *e, uint64_t v) {
  while (v >= 0x80) {
    put_u8(e, (unsigned)(v & 0x7f) | 0x80);
    v >>= 7;
  }
  put_u8(e, (unsigned)v);
}
static void put_svar(enc *e, int64_t v) { put_uvar(e, ((uint64_t)v << 1) ^ (uint64_t)(v >> 63)); }
static void put_string(enc *e, const char *s) {
  size_t n = strlen(s);
  put_uvar(e, n);
  for (size_t i = 0; i < n; i++) put_u8(e, (unsigned char)s[i]);
}

static uint32_t crc32_ieee(const unsigned char *d, size_t n) { /* bit by bit: 0xEDB88320, ~0 in and out */
  uint32_t c = 0xffffffffu;
  for (size_t i = 0; i < n; i++) {
    c ^= d[i];
    for (int k = 0; k < 8; k++) c = c & 1 ? (c >> 1) ^ 0xedb88320u : c >> 1;
  }
  return c ^ 0xffffffffu;
}

/* ---------------------------------------------------------------- the walk */

static size_t next_line; /* the next line of the annotated dump to compare */

static void bytes_text(const unsigned char *b, size_t n, char *out, size_t len) {
  out[0] = 0;
  for (size_t i = 0; i < n && strlen(out) + 4 < len; i++) snprintf(out + strlen(out), len - strlen(out), "%02x ", b[i]);
}

/* The next dump line holds exactly e's bytes and its meaning states `claim`
 * (contains it; with exact, is it). */
static void expect_line(const enc *e, int exact, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static void expect_line(const enc *e, int exact, const char *fmt, ...) {
  char claim[MAX_TEXT];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(claim, sizeof claim, fmt, ap);
  va_end(ap);
  if (next_line >= ex.nlines) {
    CHECKF(0, "the annotated dump ends before \"%s\"", claim);
    return;
  }
  const dump_line *l = &ex.lines[next_line++];
  char want[200], got[200];
  bytes_text(e->b, e->n, want, sizeof want);
  bytes_text(l->bytes, l->nbytes, got, sizeof got);
  CHECKF(e->n == l->nbytes && memcmp(e->b, l->bytes, e->n) == 0,
         "FORMAT.md line %d (%04x, \"%s\"): bytes %s; the decoded value encodes as %s", l->lineno, l->offset,
         l->meaning, got, want);
  CHECKF(exact ? strcmp(l->meaning, claim) == 0 : strstr(l->meaning, claim) != NULL,
         "FORMAT.md line %d (%04x): the meaning \"%s\" does not state %s\"%s\" (the value the reader decoded)",
         l->lineno, l->offset, l->meaning, exact ? "exactly " : "", claim);
}

static void uvar_line(uint64_t v, const char *claim_fmt, uint64_t claim_v) {
  enc e = {.n = 0};
  put_uvar(&e, v);
  expect_line(&e, 0, claim_fmt, claim_v);
}

static void string_line(const char *what, const char *s) {
  enc e = {.n = 0};
  put_string(&e, s);
  expect_line(&e, 0, "%s \"%s\"", what, s);
  const dump_line *l = next_line ? &ex.lines[next_line - 1] : NULL;
  const char *n = l ? strstr(l->meaning, "\" (") : NULL; /* name "array_of_requests" (17 bytes) */
  if (n && strstr(n, " bytes)"))
    CHECKF(strtoul(n + 3, NULL, 10) == strlen(s), "FORMAT.md line %d: \"%s\" is %zu bytes long", l->lineno, s,
           strlen(s));
}

static const char *special_name(int64_t v) {
  static const struct {
    int64_t v;
    const char *name;
  } names[] = {{TF_NONE, "TF_NONE"},       {TF_ANY_SOURCE, "TF_ANY_SOURCE"}, {TF_PROC_NULL, "TF_PROC_NULL"},
               {TF_ROOT, "TF_ROOT"},       {TF_ANY_TAG, "TF_ANY_TAG"},       {TF_UNDEFINED, "TF_UNDEFINED"},
               {TF_NULL_HANDLE, "TF_NULL_HANDLE"}};
  for (size_t i = 0; i < sizeof names / sizeof names[0]; i++)
    if (names[i].v == v) return names[i].name;
  return NULL;
}

/* The value vector of one event laid out by its function's fields (1.8):
 * a scalar is one line "FIELD = V"; an array a line "FIELD: length N" and
 * one line per element, its value alone (a special value by its name). */
static void value_lines(const tf_func_desc *fd, const tf_event *ev) {
  uint32_t k = 0;
  for (uint32_t j = 0; j < fd->nfields && k < ev->nvals; j++) {
    const tf_field_desc *fl = &fd->fields[j];
    enc e = {.n = 0};
    put_svar(&e, ev->vals[k]);
    if (!fl->is_array) {
      const char *sp = special_name(ev->vals[k]);
      if (sp) expect_line(&e, 0, "%s = %s", fl->name, sp);
      else expect_line(&e, 0, "%s = %" PRId64, fl->name, ev->vals[k]);
      k++;
      continue;
    }
    int64_t len = ev->vals[k++];
    expect_line(&e, 0, "%s: length %" PRId64, fl->name, len);
    for (int64_t i = 0; i < len && k < ev->nvals; i++, k++) {
      enc el = {.n = 0};
      put_svar(&el, ev->vals[k]);
      const char *sp = special_name(ev->vals[k]);
      if (sp) expect_line(&el, 1, "%s", sp);
      else expect_line(&el, 1, "%" PRId64, ev->vals[k]);
    }
  }
  CHECKF(k == ev->nvals, "%s: %u values, the fields take %u", fd->name, ev->nvals, k);
}

/* the example's bytes, opened by the reference reader (NULL if it refuses them) */
static tf_file_reader *open_example(void) {
  if (!load()) return NULL;
  char err[512] = "";
  tf_file_reader *r = NULL;
  tf_status st = tf_file_open(ex.path, &r, err, sizeof err);
  CHECKF(st == TF_OK, "the reference reader refuses the example: %s (%s)", tf_status_name(st), err);
  return st == TF_OK ? r : NULL;
}

static const char *const timing_names[] = {"none", "stats", "histogram", "path"}; /* FORMAT.md 1.4 */

static void test_decode(void) {
  tf_file_reader *r = open_example();
  if (!r) return;
  const tf_file_info *in = tf_file_get_info(r);
  static const char *const unit[] = {"wall-clock ns", "instructions", "CPU-time ns"};
  CHECK(in->kind == TF_FILE_FLAT);
  CHECK(in->timing < 4 && in->unit < 3);
  if (in->kind != TF_FILE_FLAT || in->timing >= 4 || in->unit >= 3) {
    tf_file_close(r);
    return;
  }
  next_line = 0;

  /* 1.3, 1.4: magic, version, header */
  enc e = {.n = 0};
  for (size_t i = 0; i < 8; i++) put_u8(&e, (unsigned char)TF_FLAT_MAGIC[i]);
  expect_line(&e, 0, "magic \"TFFLAT\\r\\n\"");
  e.n = 0;
  put_u32(&e, TF_FLAT_VERSION);
  expect_line(&e, 0, "version %d (u32 LE)", TF_FLAT_VERSION);
  uvar_line((uint64_t)in->rank, "rank %" PRIu64, (uint64_t)in->rank);
  uvar_line((uint64_t)in->nranks, "nranks %" PRIu64, (uint64_t)in->nranks);
  e.n = 0;
  put_svar(&e, in->thread_level);
  expect_line(&e, 0, "thread_level %d (svar)", in->thread_level);
  uvar_line(in->start_unix_ns, "start_unix_ns %" PRIu64, in->start_unix_ns);
  string_line("exe", in->exe);
  string_line("mpi", in->mpi);
  e.n = 0;
  put_uvar(&e, in->timing);
  expect_line(&e, 0, "timing %u (%s)", in->timing, timing_names[in->timing]);
  uvar_line(in->bins, "bins %" PRIu64, in->bins);
  e.n = 0;
  put_uvar(&e, in->unit);
  expect_line(&e, 0, "unit %u (%s)", in->unit, unit[in->unit]);
  e.n = 0; /* version 3: the run */
  put_u64(&e, in->run_id);
  expect_line(&e, 0, "run 0x%016" PRIx64 " (u64 LE)", in->run_id);
  uvar_line(in->run_start_unix_ns, "run_start_unix_ns %" PRIu64, in->run_start_unix_ns);
  uvar_line(in->nfuncs, "nfuncs %" PRIu64, in->nfuncs);

  /* 1.5: the function table */
  for (uint32_t f = 0; f < in->nfuncs; f++) {
    const tf_func_desc *fd = &in->funcs[f];
    string_line("name", fd->name);
    uvar_line(fd->nfields, "nfields %" PRIu64, fd->nfields);
    for (uint32_t j = 0; j < fd->nfields; j++) {
      e.n = 0;
      put_u8(&e, (unsigned)fd->fields[j].kind);
      put_u8(&e, (unsigned)fd->fields[j].is_array);
      expect_line(&e, 0, "kind %d (%s), %s", (int)fd->fields[j].kind, tf_field_kind_name(fd->fields[j].kind),
                  fd->fields[j].is_array ? "array" : "scalar");
      string_line("name", fd->fields[j].name);
    }
  }

  /* 1.7: records; a call-site record just before the first event that uses it */
  uint32_t declared = 0;
  uint64_t nevents = 0;
  tf_event ev;
  int rc;
  while ((rc = tf_file_next(r, &ev)) == 1) {
    nevents++;
    uint32_t cs = 0;
    while (cs < in->ncallsites && in->callsites[cs].sig != ev.callsite) cs++;
    CHECKF(cs < in->ncallsites, "event %" PRIu64 ": call site %016" PRIx64 " not declared", nevents, ev.callsite);
    CHECK(ev.fn < in->nfuncs);
    if (cs >= in->ncallsites || ev.fn >= in->nfuncs) break;
    for (; declared <= cs; declared++) {
      const tf_callsite *c = &in->callsites[declared];
      uvar_line(2, "tag %" PRIu64, 2);
      uvar_line(declared, "index %" PRIu64, declared);
      e.n = 0;
      put_u64(&e, c->sig);
      expect_line(&e, 0, "sig 0x%016" PRIx64 " (u64 LE)", c->sig);
      string_line("module", c->module);
      uvar_line(c->offset, "offset 0x%" PRIx64, c->offset);
    }
    uvar_line(1, "tag %" PRIu64, 1);
    e.n = 0;
    put_uvar(&e, ev.fn);
    expect_line(&e, 0, "fn %u (%s)", ev.fn, in->funcs[ev.fn].name);
    uvar_line(ev.thread, "thread %" PRIu64, ev.thread);
    uvar_line(cs, "callsite %" PRIu64, cs);
    uvar_line(ev.compute_ns, "compute_ns %" PRIu64, ev.compute_ns);
    uvar_line(ev.duration_ns, "duration_ns %" PRIu64, ev.duration_ns);
    uvar_line(ev.nvals, "nvals %" PRIu64, ev.nvals);
    value_lines(&in->funcs[ev.fn], &ev);
  }
  CHECKF(rc == 0, "tf_file_next: %s", tf_file_error(r));
  CHECK(in->lost_events == 0 && in->partial == 0); /* the example has no lost or partial record */
  uvar_line(0, "tag %" PRIu64, 0);
  uvar_line(in->nevents, "nevents %" PRIu64, in->nevents);
  CHECKF(in->nevents == nevents, "the end record says %" PRIu64 " events, the reader returned %" PRIu64, in->nevents,
         nevents);

  /* 1.10: the checksum, computed here */
  if (ex.ndumped >= 4) {
    uint32_t crc = crc32_ieee(ex.dumped, ex.ndumped - 4);
    e.n = 0;
    put_u32(&e, crc);
    expect_line(&e, 0, "CRC-32 0x%08x of bytes 0000..%04zx", crc, ex.ndumped - 5);
  }
  CHECKF(next_line == ex.nlines, "the annotated dump has %zu lines the file's structure does not account for (from line %d)",
         ex.nlines - next_line, next_line < ex.nlines ? ex.lines[next_line].lineno : 0);
  printf("   %zu bytes, %zu dump lines: every one is the encoding of the value the reader decoded, and says so\n",
         ex.ndumped, ex.nlines);
  tf_file_close(r);
}

/* The paragraphs before the dump say what the file holds: in their words
 * (whitespace runs taken as one space), the values the reader decodes. */
static void prose(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static void prose(const char *fmt, ...) {
  static char *flat; /* ex.prose, each run of whitespace one space */
  if (!flat && ex.prose) {
    flat = malloc(strlen(ex.prose) + 1);
    if (!flat) abort();
    size_t n = 0;
    for (const char *p = ex.prose; *p; p++) {
      int space = *p == ' ' || *p == '\n' || *p == '\t';
      if (!space) flat[n++] = *p;
      else if (n > 0 && flat[n - 1] != ' ') flat[n++] = ' ';
    }
    flat[n] = 0;
    free(ex.prose);
    ex.prose = flat;
  }
  char claim[MAX_TEXT];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(claim, sizeof claim, fmt, ap);
  va_end(ap);
  CHECKF(flat && strstr(flat, claim), "FORMAT.md 1.13 does not say \"%s\" (what the reader decodes)", claim);
}

static void test_contents(void) {
  tf_file_reader *r = open_example();
  if (!r) return;
  const tf_file_info *in = tf_file_get_info(r);
  static const char *const unit[] = {"ns", "instructions", "CPU-time ns"};
  static const char *const number[] = {"no", "one", "two", "three", "four"};
  prose("Contents: rank %d of %d, thread level %d, `start_unix_ns` = %" PRIu64 ", exe `%s`, MPI `%s`, timing %u (%s) "
        "with %u bins, compute in %s;",
        in->rank, in->nranks, in->thread_level, in->start_unix_ns, in->exe, in->mpi, in->timing,
        in->timing < 4 ? timing_names[in->timing] : "?", in->bins, in->unit < 3 ? unit[in->unit] : "?");
  prose("run `0x%016" PRIx64 "` started at %" PRIu64 ";", in->run_id, in->run_start_unix_ns);
  CHECKF(in->ncallsites == 1, "%u call sites; the text describes one", in->ncallsites);
  if (in->ncallsites == 1)
    prose("one call site (index 0, signature `0x%016" PRIx64 "`, module `%s`, offset `0x%" PRIx64 "`);",
          in->callsites[0].sig, in->callsites[0].module, in->callsites[0].offset);
  prose("this one has only %s,", in->nfuncs < 5 ? number[in->nfuncs] : "?");
  for (uint32_t f = 0; f < in->nfuncs; f++) prose("`%s`", in->funcs[f].name);
  tf_event ev;
  uint32_t thread = 0;
  uint64_t k = 0;
  while (tf_file_next(r, &ev) == 1) {
    k++;
    prose("%" PRIu64 ". `%s", k, in->funcs[ev.fn].name);
    prose("compute %" PRIu64 " ns, duration %" PRIu64 " ns", ev.compute_ns, ev.duration_ns);
    CHECKF(k == 1 || ev.thread == thread, "event %" PRIu64 " on thread %u; the text puts all on one", k, ev.thread);
    thread = ev.thread;
  }
  prose("%s events on thread %u at that site:", k < 5 ? number[k] : "?", thread);
  tf_file_close(r);
}

static void test_doc(void) {
  if (!load()) return;
  CHECK(ex.offsets_ok);
  CHECKF(ex.ndumped == ex.nplain && memcmp(ex.dumped, ex.plain, ex.nplain) == 0,
         "the annotated dump (%zu bytes) and the plain hex (%zu bytes) differ", ex.ndumped, ex.nplain);
  CHECKF(ex.stated == ex.ndumped, "the text says a %zu-byte file, the dump holds %zu bytes", ex.stated, ex.ndumped);
  CHECKF(ex.stated_plain == ex.nplain, "the text says %zu bytes of plain hex, there are %zu", ex.stated_plain,
         ex.nplain);
  printf("   %s 1.13: %zu bytes in %zu dump lines = the plain hex\n", ex.doc, ex.ndumped, ex.nlines);
}

static void test_dump(void) {
#ifdef TF_CLI
  if (!load()) return;
  char cmd[600];
  snprintf(cmd, sizeof cmd, "'%s' dump '%s'", TF_CLI, ex.path);
  FILE *p = popen(cmd, "r");
  CHECKF(p != NULL, "popen %s", cmd);
  if (!p) return;
  char *out = NULL, s[1024];
  while (fgets(s, sizeof s, p)) append(&out, s);
  int status = pclose(p);
  CHECKF(status == 0, "%s: exit status %d", cmd, status);
  CHECKF(out && ex.dump_text && strcmp(out, ex.dump_text) == 0, "tracefold dump prints\n%swhere FORMAT.md shows\n%s",
         out ? out : "(nothing)\n", ex.dump_text ? ex.dump_text : "(nothing)\n");
  free(out);
#else
  printf("   (no TF_CLI: not checked)\n");
#endif
}

int main(int argc, char **argv) {
  static const test_case cases[] = {
      {"doc", test_doc},
      {"decode", test_decode},
      {"contents", test_contents},
      {"dump", test_dump},
  };
  int rc = run_cases("test_format_example", cases, TEST_NCASES(cases), argc, argv);
  unload();
  return rc;
}
