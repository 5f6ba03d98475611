/* Reading the few fields a light car needs from the simulator's messages (cavsim's own JSON, key order known). */
#ifndef LIGHT_CAR_CONTROL_TEXT_H
#define LIGHT_CAR_CONTROL_TEXT_H

#include <stddef.h>

struct odometry {
  long long stamp_ns;
  double x, y, yaw, v, yaw_rate;
};

/* The topic of a publish op into topic[size]; 0 when the text is no publish op. */
int publish_topic(const char *text, char *topic, size_t size);
/* A nav_msgs/Odometry as odometryJson writes it (src/runtime/rosbridge/ros-messages.ts); 0 when it is not one. */
int parse_odometry(const char *msg, struct odometry *o);
/* /sim_control: 's' start (with *t0_ns), 'x' stop, 0 otherwise. */
int parse_sim_control(const char *msg, long long *t0_ns);
/* /<car>/collision: the step the car collided in (or -1), what it hit as "car1, wall" and when [s]. */
long parse_collision(const char *msg, char *with, size_t size, double *t_s);

#endif
