/* json.h — JSON (and HTML) text for the exporters that write it: strings
 * escaped, values of a trace's fields as JSON. */
#ifndef TF_EXPORT_JSON_H
#define TF_EXPORT_JSON_H

#include <stdint.h>
#include <stdio.h>

#include "tracefold.h"

/* s as a JSON string, quotes included; also safe inside an HTML <script>
 * element ("<" is written as \u003c). */
void xp_json_str(FILE *f, const char *s);
/* A recorded value: a number, or a string for the special values ("PROC_NULL", "ANY_SOURCE", ...). */
void xp_json_value(FILE *f, int64_t v);
/* An event's fields as JSON members ("dest":1,"tag":0,...), each preceded
 * by a comma; empty (not significant) fields left out. */
void xp_json_fields(FILE *f, const tf_func_desc *fd, const tf_field_value *fields);
/* s as HTML text (&, <, >, " escaped). */
void xp_html_text(FILE *f, const char *s);

#endif
