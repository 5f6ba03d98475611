#include "beacon.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int beacon_parse(struct beacon *b, char **cursor) {
  char word[16];
  int used = 0;
  double rate;
  memset(b, 0, sizeof *b);
  if (sscanf(*cursor, " %15s %lf %ld %63s %lf%n", word, &rate, &b->size, b->to, &b->offset, &used) != 5 || strcmp(word, "beacon") != 0)
    return 0;
  if (rate <= 0) return 0;
  b->period = 1 / rate;
  *cursor += used;
  return 1;
}

/* The shortest of %.15g, %.16g and %.17g that reads back to v: JSON as short as JavaScript's, so the
   state fits the beacon's size as it does in the Node program. */
static const char *shortest(char out[32], double v) {
  for (int digits = 15; digits <= 17; digits++) {
    snprintf(out, 32, "%.*g", digits, v);
    if (strtod(out, NULL) == v) break;
  }
  return out;
}

int beacon_tick(struct beacon *b, double now, const struct car_state *own, char *body, unsigned long size) {
  if (b->seen && own->t > b->previous_t) b->acceleration = (own->v - b->previous_v) / (own->t - b->previous_t);
  b->seen = 1;
  b->previous_t = own->t;
  b->previous_v = own->v;
  if (!b->started) {
    b->next = now + b->offset;
    b->started = 1;
  }
  if (now + 1e-9 < b->next) return 0;
  b->next += b->period * fmax(1, floor((now - b->next) / b->period) + 1);
  char n[7][32];
  snprintf(body, size, "{\"x\":%s,\"y\":%s,\"yaw\":%s,\"v\":%s,\"a\":%s,\"yawRate\":%s,\"stamp\":%s}", shortest(n[0], own->x),
           shortest(n[1], own->y), shortest(n[2], own->yaw), shortest(n[3], own->v), shortest(n[4], b->acceleration), shortest(n[5], own->yaw_rate),
           shortest(n[6], own->t));
  return 1;
}
