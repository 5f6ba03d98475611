/* cavsim's beacon app (src/core/v2x/apps/beacon.ts) for a light car. */
#ifndef LIGHT_CAR_BEACON_H
#define LIGHT_CAR_BEACON_H

struct beacon {
  double period;  /* [s] */
  long size;      /* the datagram is padded to this many bytes */
  char to[64];    /* a car's name or * */
  double offset;  /* the first beacon's offset within the period, as the TypeScript app draws it */
  double next;
  int started;
  /* the acceleration tracker */
  int seen;
  double previous_t, previous_v, acceleration;
};

struct car_state { double t, x, y, yaw, v, yaw_rate; };

/* Parses `beacon RATE SIZE TO OFFSET` at *cursor; 1 when it did. */
int beacon_parse(struct beacon *b, char **cursor);
/* One tick at time `now` [s]: 1 when a beacon is due, with its body (JSON) in body[size]. */
int beacon_tick(struct beacon *b, double now, const struct car_state *own, char *body, unsigned long size);

#endif
