/* Reading a field of cavsim's own JSON by the text before its value: key order and spacing are
   known, and the values read hold no escapes. */
#ifndef LIGHT_CAR_JSON_SCAN_H
#define LIGHT_CAR_JSON_SCAN_H

#include <stddef.h>

/* The number right after `key`, searched from *cursor on; moves the cursor past it. 0 when absent. */
int json_number_after(const char **cursor, const char *key, double *out);
int json_integer_after(const char **cursor, const char *key, long long *out);
/* The string value right after `key` (`"name":`) into out[size]; 0 when absent, not a string, escaped or too long. */
int json_string_after(const char *json, const char *key, char *out, size_t size);

#endif
