#include "control-text.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

int publish_topic(const char *text, char *topic, size_t size) {
  static const char prefix[] = "{\"op\":\"publish\",\"topic\":\"";
  if (strncmp(text, prefix, sizeof prefix - 1) != 0) return 0;
  const char *start = text + sizeof prefix - 1, *end = strchr(start, '"');
  if (!end || (size_t)(end - start) >= size) return 0;
  memcpy(topic, start, (size_t)(end - start));
  topic[end - start] = '\0';
  return 1;
}

/* The number after `key`, searched from *cursor on; moves the cursor past it. */
static int number_after(const char **cursor, const char *key, double *out) {
  const char *at = strstr(*cursor, key);
  if (!at) return 0;
  char *end;
  *out = strtod(at + strlen(key), &end);
  if (end == at + strlen(key)) return 0;
  *cursor = end;
  return 1;
}

static int integer_after(const char **cursor, const char *key, long long *out) {
  const char *at = strstr(*cursor, key);
  if (!at) return 0;
  char *end;
  *out = strtoll(at + strlen(key), &end, 10);
  if (end == at + strlen(key)) return 0;
  *cursor = end;
  return 1;
}

int parse_odometry(const char *msg, struct odometry *o) {
  const char *c = msg;
  long long sec, nanosec;
  double z, w;
  if (!integer_after(&c, "\"stamp\":{\"sec\":", &sec) || !integer_after(&c, "\"nanosec\":", &nanosec)) return 0;
  if (!number_after(&c, "\"position\":{\"x\":", &o->x) || !number_after(&c, "\"y\":", &o->y)) return 0;
  if (!(c = strstr(c, "\"orientation\":")) || !number_after(&c, "\"z\":", &z) || !number_after(&c, "\"w\":", &w)) return 0;
  if (!number_after(&c, "\"linear\":{\"x\":", &o->v)) return 0;
  /* optional in the message, 0 when absent, as parseOdometryMsg has it */
  o->yaw_rate = 0;
  if ((c = strstr(c, "\"angular\":{"))) number_after(&c, "\"z\":", &o->yaw_rate);
  o->stamp_ns = sec * 1000000000LL + nanosec;
  o->yaw = 2 * atan2(z, w);
  return 1;
}

int parse_sim_control(const char *msg, long long *t0_ns) {
  const char *c = msg;
  if (strstr(msg, "\\\"cmd\\\":\\\"stop\\\"")) return 'x';
  if (!strstr(msg, "\\\"cmd\\\":\\\"start\\\"") || !integer_after(&c, "\\\"t0_epoch_ns\\\":\\\"", t0_ns)) return 0;
  return 's';
}

long parse_collision(const char *msg, char *with, size_t size, double *t_s) {
  const char *c = msg;
  long long step;
  if (!integer_after(&c, "\\\"step\\\":", &step) || !number_after(&c, "\\\"t_s\\\":", t_s)) return -1;
  const char *list = strstr(c, "\\\"with\\\":[");
  size_t n = 0;
  for (list = list ? strchr(list, '[') + 1 : "]"; *list && *list != ']' && n + 3 < size; list++) {
    if (*list == '\\' || *list == '"') continue;
    with[n++] = *list;
    if (*list == ',') with[n++] = ' ';
  }
  with[n] = '\0';
  return (long)step;
}
