/* json.c — JSON and HTML text; see json.h. */
#include "json.h"

void xp_json_str(FILE *f, const char *s) {
  fputc('"', f);
  for (const unsigned char *p = (const unsigned char *)(s ? s : ""); *p; p++) {
    if (*p == '"' || *p == '\\') fprintf(f, "\\%c", *p);
    else if (*p == '\n') fputs("\\n", f);
    else if (*p < 0x20 || *p == '<' || *p == '>' || *p == '&') fprintf(f, "\\u%04x", *p);
    else fputc(*p, f);
  }
  fputc('"', f);
}

void xp_json_value(FILE *f, int64_t v) {
  if (v > TF_SPECIAL_MAX) {
    fprintf(f, "%lld", (long long)v);
    return;
  }
  char b[64];
  tf_format_value(v, b, sizeof b);
  xp_json_str(f, b);
}

void xp_json_fields(FILE *f, const tf_func_desc *fd, const tf_field_value *fields) {
  for (uint32_t k = 0; k < fd->nfields; k++) {
    const tf_field_value *v = &fields[k];
    if (!v->desc || (!v->desc->is_array && (v->n == 0 || v->v[0] == TF_NONE))) continue;
    fputc(',', f);
    xp_json_str(f, v->desc->name);
    fputc(':', f);
    if (!v->desc->is_array) {
      xp_json_value(f, v->v[0]);
      continue;
    }
    fputc('[', f);
    for (uint32_t j = 0; j < v->n; j++) {
      if (j) fputc(',', f);
      xp_json_value(f, v->v[j]);
    }
    fputc(']', f);
  }
}

void xp_html_text(FILE *f, const char *s) {
  for (const char *p = s ? s : ""; *p; p++) {
    switch (*p) {
    case '&': fputs("&amp;", f); break;
    case '<': fputs("&lt;", f); break;
    case '>': fputs("&gt;", f); break;
    case '"': fputs("&quot;", f); break;
    default: fputc(*p, f);
    }
  }
}
