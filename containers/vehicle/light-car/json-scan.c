#include "json-scan.h"

#include <stdlib.h>
#include <string.h>

int json_number_after(const char **cursor, const char *key, double *out) {
  const char *at = strstr(*cursor, key);
  if (!at) return 0;
  char *end;
  *out = strtod(at + strlen(key), &end);
  if (end == at + strlen(key)) return 0;
  *cursor = end;
  return 1;
}

int json_integer_after(const char **cursor, const char *key, long long *out) {
  const char *at = strstr(*cursor, key);
  if (!at) return 0;
  char *end;
  *out = strtoll(at + strlen(key), &end, 10);
  if (end == at + strlen(key)) return 0;
  *cursor = end;
  return 1;
}

int json_string_after(const char *json, const char *key, char *out, size_t size) {
  const char *at = strstr(json, key);
  if (!at || at[strlen(key)] != '"') return 0;
  at += strlen(key) + 1;
  const size_t len = strcspn(at, "\"\\");
  if (at[len] != '"' || len >= size) return 0;
  memcpy(out, at, len);
  out[len] = '\0';
  return 1;
}
