/* json.c — the small JSON reader of json.h: recursive descent over the
 * text, values allocated from one arena, integers exact as int64. */
#include "json.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define JSON_MAXDEPTH 512

typedef struct chunk {
  struct chunk *next;
  size_t used, cap;
  max_align_t data[];
} chunk;

struct json_doc {
  chunk *chunks;
  json root;
};

typedef struct parser {
  const char *p, *end, *start;
  const char *name;
  json_doc *doc;
  char *err;
  size_t errlen;
  int depth;
  int failed;
} parser;

static void *arena(parser *ps, size_t n) {
  n = (n + sizeof(max_align_t) - 1) / sizeof(max_align_t) * sizeof(max_align_t);
  chunk *c = ps->doc->chunks;
  if (!c || c->cap - c->used < n) {
    size_t cap = n > 65536 ? n : 65536;
    c = malloc(sizeof *c + cap);
    if (!c) return NULL;
    c->next = ps->doc->chunks;
    c->used = 0;
    c->cap = cap;
    ps->doc->chunks = c;
  }
  void *r = (char *)c->data + c->used;
  c->used += n;
  return r;
}

void json_where(const char *text, const char *at, uint32_t *line, uint32_t *col) {
  *line = 1;
  *col = 1;
  for (const char *q = text; q < at; q++) {
    if (*q == '\n') {
      (*line)++;
      *col = 1;
    } else {
      (*col)++;
    }
  }
}

static int perr(parser *ps, const char *what) {
  if (ps->failed) return -1;
  ps->failed = 1;
  uint32_t line, col;
  json_where(ps->start, ps->p < ps->end ? ps->p : ps->end, &line, &col);
  if (ps->p >= ps->end)
    snprintf(ps->err, ps->errlen, "%s:%u:%u: bad JSON: the text ends early (%s)", ps->name, line, col, what);
  else
    snprintf(ps->err, ps->errlen, "%s:%u:%u: bad JSON: %s, found '%c'", ps->name, line, col, what,
             *ps->p >= 0x20 && *ps->p < 0x7f ? *ps->p : '?');
  return -1;
}

static int nomem(parser *ps) {
  if (!ps->failed) snprintf(ps->err, ps->errlen, "%s: out of memory", ps->name);
  ps->failed = 1;
  return -1;
}

static void skip_ws(parser *ps) {
  while (ps->p < ps->end && (*ps->p == ' ' || *ps->p == '\t' || *ps->p == '\n' || *ps->p == '\r')) ps->p++;
}

static int hexval(char c) {
  return c >= '0' && c <= '9' ? c - '0' : c >= 'a' && c <= 'f' ? c - 'a' + 10 : c >= 'A' && c <= 'F' ? c - 'A' + 10 : -1;
}

/* A string at ps->p (the opening quote): its bytes, unescaped, NUL-terminated. */
static int parse_string(parser *ps, const char **out) {
  const char *q = ps->p + 1;
  size_t n = 0;
  while (q < ps->end && *q != '"') { /* an upper bound of the length */
    if (*q == '\\') q++;
    q++;
    n++;
  }
  char *s = arena(ps, 4 * n + 1), *o = s;
  if (!s) return nomem(ps);
  ps->p++;
  for (;;) {
    if (ps->p >= ps->end) return perr(ps, "a string is not closed");
    unsigned char c = (unsigned char)*ps->p;
    if (c == '"') break;
    if (c < 0x20) return perr(ps, "a control character inside a string");
    if (c != '\\') {
      *o++ = (char)c;
      ps->p++;
      continue;
    }
    ps->p++;
    if (ps->p >= ps->end) return perr(ps, "an escape is not complete");
    char e = *ps->p++;
    switch (e) {
    case '"': *o++ = '"'; break;
    case '\\': *o++ = '\\'; break;
    case '/': *o++ = '/'; break;
    case 'b': *o++ = '\b'; break;
    case 'f': *o++ = '\f'; break;
    case 'n': *o++ = '\n'; break;
    case 'r': *o++ = '\r'; break;
    case 't': *o++ = '\t'; break;
    case 'u': {
      unsigned v = 0;
      for (int k = 0; k < 4; k++) {
        int h = ps->p < ps->end ? hexval(*ps->p) : -1;
        if (h < 0) return perr(ps, "\\u takes four hexadecimal digits");
        v = v * 16 + (unsigned)h;
        ps->p++;
      }
      if (v < 0x80) { /* UTF-8 (surrogates are kept as they are: names here are ASCII) */
        *o++ = (char)v;
      } else if (v < 0x800) {
        *o++ = (char)(0xc0 | v >> 6);
        *o++ = (char)(0x80 | (v & 0x3f));
      } else {
        *o++ = (char)(0xe0 | v >> 12);
        *o++ = (char)(0x80 | ((v >> 6) & 0x3f));
        *o++ = (char)(0x80 | (v & 0x3f));
      }
      break;
    }
    default: ps->p--; return perr(ps, "an unknown escape in a string");
    }
  }
  ps->p++;
  *o = 0;
  *out = s;
  return 0;
}

static int parse_number(parser *ps, json *v) {
  const char *q = ps->p;
  int neg = q < ps->end && *q == '-';
  if (neg) q++;
  if (q >= ps->end || *q < '0' || *q > '9') return perr(ps, "expected a value");
  if (*q == '0' && q + 1 < ps->end && q[1] >= '0' && q[1] <= '9') {
    ps->p = q + 1;
    return perr(ps, "a number with a leading zero");
  }
  const char *digits = q;
  while (q < ps->end && *q >= '0' && *q <= '9') q++;
  int frac = 0;
  if (q < ps->end && *q == '.') {
    frac = 1;
    q++;
    if (q >= ps->end || *q < '0' || *q > '9') {
      ps->p = q;
      return perr(ps, "expected digits after the decimal point");
    }
    while (q < ps->end && *q >= '0' && *q <= '9') q++;
  }
  if (q < ps->end && (*q == 'e' || *q == 'E')) {
    frac = 1;
    q++;
    if (q < ps->end && (*q == '+' || *q == '-')) q++;
    if (q >= ps->end || *q < '0' || *q > '9') {
      ps->p = q;
      return perr(ps, "expected digits in the exponent");
    }
    while (q < ps->end && *q >= '0' && *q <= '9') q++;
  }
  char buf[400];
  size_t n = (size_t)(q - ps->p);
  if (n >= sizeof buf) return perr(ps, "a number too long");
  memcpy(buf, ps->p, n);
  buf[n] = 0;
  if (!frac) { /* exactly, as int64: -9223372036854775808 .. 9223372036854775807 */
    uint64_t u = 0;
    for (const char *d = digits; d < q; d++) {
      unsigned dig = (unsigned)(*d - '0');
      if (u > (UINT64_MAX - dig) / 10) return perr(ps, "an integer beyond 64 bits");
      u = u * 10 + dig;
    }
    if (neg ? u > (uint64_t)INT64_MAX + 1 : u > (uint64_t)INT64_MAX) return perr(ps, "an integer beyond int64");
    v->type = JSON_INT;
    v->i = neg ? (int64_t)(0 - u) : (int64_t)u;
    v->d = (double)v->i;
  } else {
    v->type = JSON_NUM;
    v->d = strtod(buf, NULL);
  }
  ps->p = q;
  return 0;
}

static int parse_value(parser *ps, json *v);

/* Elements or members, gathered in a growing array, then copied into the arena. */
static int parse_container(parser *ps, json *v, int object) {
  char close = object ? '}' : ']';
  ps->p++;
  if (++ps->depth > JSON_MAXDEPTH) return perr(ps, "nesting deeper than 512 levels");
  json *items = NULL;
  const char **keys = NULL;
  uint32_t n = 0, cap = 0;
  int rc = 0;
  skip_ws(ps);
  if (ps->p < ps->end && *ps->p == close) {
    ps->p++;
  } else {
    for (;;) {
      if (n == cap) {
        cap = cap ? 2 * cap : 8;
        json *ni = realloc(items, cap * sizeof *ni);
        const char **nk = object ? realloc(keys, cap * sizeof *nk) : NULL;
        if (ni) items = ni;
        if (nk) keys = nk;
        if (!ni || (object && !nk)) {
          rc = nomem(ps);
          break;
        }
      }
      skip_ws(ps);
      if (object) {
        if (ps->p >= ps->end || *ps->p != '"') {
          rc = perr(ps, "expected a member name in quotes");
          break;
        }
        if ((rc = parse_string(ps, &keys[n]))) break;
        skip_ws(ps);
        if (ps->p >= ps->end || *ps->p != ':') {
          rc = perr(ps, "expected ':' after a member name");
          break;
        }
        ps->p++;
      }
      if ((rc = parse_value(ps, &items[n]))) break;
      n++;
      skip_ws(ps);
      if (ps->p < ps->end && *ps->p == ',') {
        ps->p++;
        continue;
      }
      if (ps->p < ps->end && *ps->p == close) {
        ps->p++;
        break;
      }
      rc = perr(ps, object ? "expected ',' or '}' in an object" : "expected ',' or ']' in an array");
      break;
    }
  }
  if (!rc) {
    v->type = object ? JSON_OBJ : JSON_ARR;
    v->n = n;
    v->a = arena(ps, (n ? n : 1) * sizeof *v->a);
    v->keys = object ? arena(ps, (n ? n : 1) * sizeof *v->keys) : NULL;
    if (!v->a || (object && !v->keys)) {
      rc = nomem(ps);
    } else {
      if (n) memcpy(v->a, items, n * sizeof *items);
      if (object && n) memcpy(v->keys, keys, n * sizeof *keys);
    }
  }
  free(items);
  free(keys);
  ps->depth--;
  return rc;
}

static int literal(parser *ps, const char *word) {
  size_t n = strlen(word);
  if ((size_t)(ps->end - ps->p) < n || memcmp(ps->p, word, n) != 0) return perr(ps, "expected a value");
  ps->p += n;
  return 0;
}

static int parse_value(parser *ps, json *v) {
  skip_ws(ps);
  *v = (json){.at = ps->p};
  if (ps->p >= ps->end) return perr(ps, "a value was expected");
  switch (*ps->p) {
  case '{': return parse_container(ps, v, 1);
  case '[': return parse_container(ps, v, 0);
  case '"': v->type = JSON_STR; return parse_string(ps, &v->s);
  case 't': v->type = JSON_BOOL; v->i = 1; return literal(ps, "true");
  case 'f': v->type = JSON_BOOL; return literal(ps, "false");
  case 'n': v->type = JSON_NULL; return literal(ps, "null");
  default: return parse_number(ps, v);
  }
}

int json_parse(const char *text, size_t len, const char *name, json_doc **doc, const json **root, char *err,
               size_t errlen) {
  *doc = NULL;
  *root = NULL;
  json_doc *d = calloc(1, sizeof *d);
  if (!d) {
    snprintf(err, errlen, "%s: out of memory", name);
    return -1;
  }
  parser ps = {.p = text, .end = text + len, .start = text, .name = name, .doc = d, .err = err, .errlen = errlen};
  if (parse_value(&ps, &d->root) == 0) {
    skip_ws(&ps);
    if (ps.p < ps.end) perr(&ps, "the text goes on after the JSON value");
  }
  if (ps.failed) {
    json_free(d);
    return -1;
  }
  *doc = d;
  *root = &d->root;
  return 0;
}

void json_free(json_doc *doc) {
  if (!doc) return;
  for (chunk *c = doc->chunks, *n; c; c = n) {
    n = c->next;
    free(c);
  }
  free(doc);
}

const json *json_get(const json *v, const char *key) {
  if (!v || v->type != JSON_OBJ) return NULL;
  for (uint32_t i = 0; i < v->n; i++)
    if (strcmp(v->keys[i], key) == 0) return &v->a[i];
  return NULL;
}

const char *json_type_name(json_type t) {
  static const char *const names[] = {"null", "a boolean", "an integer", "a number", "a string", "an array",
                                      "an object"};
  return t <= JSON_OBJ ? names[t] : "?";
}
