/* json.h — a small JSON reader: exactly what the event flow graph's JSON
 * form needs (efg_read.c), nothing more. Integers are kept exactly as
 * int64 (every value of a trace fits); other numbers as double. Errors
 * name the line and column. One arena per document: json_free frees it all.
 */
#ifndef TF_JSON_H
#define TF_JSON_H

#include <stddef.h>
#include <stdint.h>

typedef enum json_type { JSON_NULL, JSON_BOOL, JSON_INT, JSON_NUM, JSON_STR, JSON_ARR, JSON_OBJ } json_type;

typedef struct json {
  json_type type;
  int64_t i;           /* JSON_INT, JSON_BOOL (0 or 1) */
  double d;            /* JSON_NUM, and JSON_INT as a double */
  const char *s;       /* JSON_STR: NUL-terminated (a \u0000 inside ends it early) */
  uint32_t n;          /* JSON_ARR, JSON_OBJ: elements / members */
  struct json *a;      /* JSON_ARR: elements; JSON_OBJ: member values */
  const char **keys;   /* JSON_OBJ: member names */
  const char *at;      /* where the value starts in the text parsed (json_where) */
} json;

typedef struct json_doc json_doc;

/* Parse text[0..len): 0 and *root (owned by *doc), or -1 with
 * "NAME:LINE:COL: what was expected" in err. Nesting deeper than 512
 * levels is refused. */
int json_parse(const char *text, size_t len, const char *name, json_doc **doc, const json **root, char *err,
               size_t errlen);
void json_free(json_doc *doc); /* NULL: nothing */

/* Member `key` of an object, or NULL (also when v is not an object). */
const json *json_get(const json *v, const char *key);
const char *json_type_name(json_type t); /* "an integer", "a string", ... */
/* Line and column (from 1) of `at` in text (for messages; O(at - text)). */
void json_where(const char *text, const char *at, uint32_t *line, uint32_t *col);

#endif
