/* Text that reaches a terminal or a page: names and values are printed by report, info and the
 * progress line, so a control character (an ANSI escape) in them would reach the user's
 * terminal; the HTML report and its SVG plots escape what they show. */
#ifndef FOX_TEXT_H
#define FOX_TEXT_H

#include <stdio.h>

/* The first byte of s that is not one line of UTF-8 text: invalid UTF-8 (overlong forms and
 * surrogates too) or a C0/C1 control character (U+0000-001F, U+007F-009F); NULL when s is clean. */
const char *text_bad_char(const char *s);
/* Replaces in place every C0 control but newline and tab, DEL and every C1 control (UTF-8
 * C2 80-9F) by '?': strings read from files (a host name, a failure's reason, a CSV's name)
 * are printed as they are. */
void text_defuse(char *s);
/* Writes s as text for HTML or SVG, in an element or a quoted attribute: & < > " ' as
 * references, a control character other than tab and line breaks as U+FFFD (HTML allows none). */
void text_escape_html(FILE *f, const char *s);

#endif
