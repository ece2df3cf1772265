/* Text that reaches a terminal (one line of UTF-8 without control characters) or a page. */
#include "util/text.h"

#include <stddef.h>
#include <stdio.h>

/* The length of the UTF-8 sequence that byte `c` starts; 0 for a byte that starts none. */
static int utf8_len_(unsigned c) {
  if (c < 0x80)
    return 1;
  if ((c & 0xE0) == 0xC0)
    return 2;
  if ((c & 0xF0) == 0xE0)
    return 3;
  return (c & 0xF8) == 0xF0 ? 4 : 0;
}

/* The first byte of `s` that is not UTF-8 text (overlong forms and surrogates included) or
 * starts a control character (C0, DEL, C1), or NULL. */
const char *text_bad_char(const char *s) {
  static const unsigned long least[] = {0, 0, 0x80, 0x800, 0x10000};
  for (const unsigned char *p = (const unsigned char *)s; *p;) {
    int n = utf8_len_(*p);
    if (n == 0)
      return (const char *)p;
    unsigned long cp = n == 1 ? *p : *p & (0x7Fu >> n);
    for (int i = 1; i < n; i++) {
      if ((p[i] & 0xC0) != 0x80)
        return (const char *)p;
      cp = cp << 6 | (p[i] & 0x3Fu);
    }
    if (cp < least[n] || cp > 0x10FFFF || (cp >= 0xD800 && cp <= 0xDFFF) || cp < 0x20 ||
        (cp >= 0x7F && cp <= 0x9F))
      return (const char *)p;
    p += n;
  }
  return NULL;
}

void text_defuse(char *s) {
  for (unsigned char *p = (unsigned char *)s; *p; p++) {
    if ((*p < 0x20 && *p != '\n' && *p != '\t') || *p == 0x7F)
      *p = '?';
    else if (*p == 0xC2 && p[1] >= 0x80 && p[1] <= 0x9F) /* C1, as UTF-8 */
      p[0] = '?', p[1] = '?';
  }
}

void text_escape_html(FILE *f, const char *s) {
  for (; *s; s++) {
    unsigned char c = (unsigned char)*s;
    switch (c) {
    case '&': fputs("&amp;", f); break;
    case '<': fputs("&lt;", f); break;
    case '>': fputs("&gt;", f); break;
    case '"': fputs("&quot;", f); break;
    case '\'': fputs("&#39;", f); break;
    default:
      if ((c < 0x20 && c != '\t' && c != '\n' && c != '\r') || c == 0x7f)
        fputs("&#xfffd;", f);
      else
        fputc(c, f);
    }
  }
}
