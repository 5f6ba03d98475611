/* A light car's controller: cavsim's pure pursuit, lane keeping, open loop or idle, as src/core/control has them. */
#ifndef LIGHT_CAR_CONTROLLER_H
#define LIGHT_CAR_CONTROLLER_H

#include <stddef.h>

enum controller_kind { CONTROLLER_IDLE, CONTROLLER_PURE_PURSUIT, CONTROLLER_OPEN_LOOP, CONTROLLER_LANE_KEEPING };

struct controller {
  enum controller_kind kind;
  double timestep;  /* physics step [s] */
  long period;      /* physics steps per control tick */
  /* pure pursuit */
  double lookahead, tolerance, gain, speed_scale, max_steer;
  /* lane keeping (and max_steer) */
  double lane_y, direction, speed, lookahead_time, min_lookahead, wheelbase;
  /* pure pursuit: x, y, speed per waypoint; open loop: t, speed, steer per entry */
  double *rows;
  size_t n_rows;
  size_t next_entry; /* open loop: entries already due */
};

struct drive { double speed, steer; };

/* Parses the controller part of CAVSIM_LIGHT_CONTROLLER (written by src/runtime/emulated/light-car.ts):
   NULL or an error; *used: how many characters it took. */
const char *controller_parse(struct controller *c, const char *text, size_t *used);

/* One tick at physics step `step` with the car at (x, y, yaw) at speed v: 1 and *out when it drives, else 0. */
int controller_tick(struct controller *c, long step, double x, double y, double yaw, double v, struct drive *out);

#endif
