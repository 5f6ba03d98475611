#include "control-text.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "json-scan.h"

int publish_topic(const char *text, char *topic, size_t size) {
  static const char prefix[] = "{\"op\":\"publish\",\"topic\":\"";
  if (strncmp(text, prefix, sizeof prefix - 1) != 0) return 0;
  const char *start = text + sizeof prefix - 1, *end = strchr(start, '"');
  if (!end || (size_t)(end - start) >= size) return 0;
  memcpy(topic, start, (size_t)(end - start));
  topic[end - start] = '\0';
  return 1;
}

int parse_odometry(const char *msg, struct odometry *o) {
  const char *c = msg;
  long long sec, nanosec;
  double z, w;
  if (!json_integer_after(&c, "\"stamp\":{\"sec\":", &sec) || !json_integer_after(&c, "\"nanosec\":", &nanosec)) return 0;
  if (!json_number_after(&c, "\"position\":{\"x\":", &o->x) || !json_number_after(&c, "\"y\":", &o->y)) return 0;
  if (!(c = strstr(c, "\"orientation\":")) || !json_number_after(&c, "\"z\":", &z) || !json_number_after(&c, "\"w\":", &w)) return 0;
  if (!json_number_after(&c, "\"linear\":{\"x\":", &o->v)) return 0;
  /* optional in the message, 0 when absent, as parseOdometryMsg has it */
  o->yaw_rate = 0;
  if ((c = strstr(c, "\"angular\":{"))) json_number_after(&c, "\"z\":", &o->yaw_rate);
  o->stamp_ns = sec * 1000000000LL + nanosec;
  o->yaw = 2 * atan2(z, w);
  return 1;
}

int parse_sim_control(const char *msg, long long *t0_ns) {
  const char *c = msg;
  if (strstr(msg, "\\\"cmd\\\":\\\"stop\\\"")) return 'x';
  if (!strstr(msg, "\\\"cmd\\\":\\\"start\\\"") || !json_integer_after(&c, "\\\"t0_epoch_ns\\\":\\\"", t0_ns)) return 0;
  return 's';
}

long parse_collision(const char *msg, char *with, size_t size, double *t_s) {
  const char *c = msg;
  long long step;
  if (!json_integer_after(&c, "\\\"step\\\":", &step) || !json_number_after(&c, "\\\"t_s\\\":", t_s)) return -1;
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
