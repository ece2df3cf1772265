/* The names nearest to a misspelt one (an option, a command, a config key), so that a message
 * can offer them instead of the whole list. */
#ifndef FOX_NEAREST_H
#define FOX_NEAREST_H

#include <stddef.h>

/* Up to 3 of `names` (NULL-terminated when n < 0, else the first n) nearest to `word` by edit
 * distance (adjacent swaps count one), as "did you mean 'a', 'b' or 'c'?" in buf; an empty
 * string when none is near. */
void nearest_names(const char *word, const char *const *names, int n, char *buf, size_t size);

#endif
