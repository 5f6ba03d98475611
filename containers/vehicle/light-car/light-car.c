/*
 * cavsim's vehicle program for a light car: cavsim's own pure pursuit, open loop or idle, with no
 * apps, no lidar and no V2V. It does what vehicle-main.js does for such a car, with a blocking read
 * per message instead of Node's event loop: a tenth of the CPU per control tick, so more cars fit
 * on a core (docs/containers.md, "Light cars").
 * Environment: CAVSIM_VEHICLE, CAVSIM_SIM_URL, CAVSIM_LIGHT_CONTROLLER, CAVSIM_CONNECT_TIMEOUT_MS,
 * CAVSIM_KEEP. `--parity` ticks the controller on odometry messages from stdin, one per line.
 */
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "control-text.h"
#include "controller.h"
#include "ws-client.h"

static volatile sig_atomic_t interrupted;
static const char *car = "vehicle";

static void on_signal(int signal) { interrupted = signal; }

static void say(const char *format, const char *detail) {
  fprintf(stderr, "[cavsim-%s] vehicle %s: ", car, car);
  fprintf(stderr, format, detail);
  fputc('\n', stderr);
}

static long long wall_ns(void) {
  struct timespec ts;
  clock_gettime(CLOCK_REALTIME, &ts);
  return ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

static long step_of(long long stamp_ns, long long step_ns) { return (long)llround((double)stamp_ns / (double)step_ns); }

static int send_text(struct ws *ws, const char *text) { return ws_send_text(ws, text, strlen(text)); }

static int publish_drive(struct ws *ws, long long stamp_ns, const struct drive *d) {
  char frame[512];
  snprintf(frame, sizeof frame,
           "{\"op\":\"publish\",\"topic\":\"/%s/drive\",\"msg\":{\"header\":{\"stamp\":{\"sec\":%lld,\"nanosec\":%lld},"
           "\"frame_id\":\"%s/base_link\"},\"drive\":{\"steering_angle\":%.17g,\"steering_angle_velocity\":0,"
           "\"speed\":%.17g,\"acceleration\":0,\"jerk\":0}}}",
           car, stamp_ns / 1000000000LL, stamp_ns % 1000000000LL, car, d->steer, d->speed);
  return send_text(ws, frame);
}

static int open_session(struct ws *ws) {
  char frame[256];
  const char *ops[] = {
      "{\"op\":\"advertise\",\"topic\":\"/%s/drive\",\"type\":\"ackermann_msgs/msg/AckermannDriveStamped\"}",
      "{\"op\":\"advertise\",\"topic\":\"/cavsim/ready\",\"type\":\"std_msgs/msg/String\"}",
      "{\"op\":\"subscribe\",\"topic\":\"/sim_control\",\"type\":\"std_msgs/msg/String\"}",
      "{\"op\":\"subscribe\",\"topic\":\"/%s/odom\",\"type\":\"nav_msgs/msg/Odometry\"}",
      "{\"op\":\"subscribe\",\"topic\":\"/%s/collision\",\"type\":\"std_msgs/msg/String\"}",
      "{\"op\":\"publish\",\"topic\":\"/cavsim/ready\",\"msg\":{\"data\":\"{\\\"vehicle\\\":\\\"%s\\\"}\"}}",
  };
  for (size_t i = 0; i < sizeof ops / sizeof *ops; i++) {
    /* every op names the car at most once; the others ignore the argument */
    snprintf(frame, sizeof frame, ops[i], car);
    if (send_text(ws, frame) != 0) return -1;
  }
  return 0;
}

struct session {
  struct controller controller;
  long long step_ns, t0_ns;
  long last_ticked, collided_step, ticks;
};

static int on_odometry(struct session *s, struct ws *ws, const char *msg) {
  struct odometry o;
  if (!parse_odometry(msg, &o)) {
    say("%s", "bad odometry, ignored");
    return 0;
  }
  const long step = step_of(o.stamp_ns, s->step_ns);
  if (s->t0_ns < 0 || wall_ns() < s->t0_ns) return 0;
  if (step <= s->last_ticked || step % s->controller.period != 0) return 0;
  if (s->collided_step >= 0 && step >= s->collided_step) return 0;
  s->last_ticked = step;
  s->ticks++;
  struct drive d;
  if (!controller_tick(&s->controller, step, o.x, o.y, o.yaw, &d)) return 0;
  return publish_drive(ws, o.stamp_ns, &d);
}

/* 0: stopped by the simulator; 1: the link closed first (or failed). */
static int drive(struct session *s, struct ws *ws) {
  char topic[128], odom_topic[128], collision_topic[128];
  snprintf(odom_topic, sizeof odom_topic, "/%s/odom", car);
  snprintf(collision_topic, sizeof collision_topic, "/%s/collision", car);
  for (;;) {
    size_t len;
    const char *text = ws_next_text(ws, &len);
    if (!text) return interrupted ? 0 : 1;
    if (!publish_topic(text, topic, sizeof topic)) continue;
    const char *msg = strstr(text, "\"msg\":");
    if (!msg) continue;
    if (strcmp(topic, odom_topic) == 0) {
      if (on_odometry(s, ws, msg) != 0) return 1;
    } else if (strcmp(topic, "/sim_control") == 0) {
      long long t0;
      const int cmd = parse_sim_control(msg, &t0);
      if (cmd == 'x') return 0;
      if (cmd == 's' && s->t0_ns < 0) s->t0_ns = t0;
    } else if (strcmp(topic, collision_topic) == 0 && s->collided_step < 0) {
      char with[256], line[400];
      double t_s;
      s->collided_step = parse_collision(msg, with, sizeof with, &t_s);
      snprintf(line, sizeof line, "collided with %s in step %ld (t=%.2f s); its apps are no longer ticked", with, s->collided_step, t_s);
      if (s->collided_step >= 0) say("%s", line);
    }
  }
}

static int parity(struct controller *c) {
  char *line = NULL;
  size_t size = 0;
  const long long step_ns = llround(c->timestep * 1e9);
  while (getline(&line, &size, stdin) > 0) {
    struct odometry o;
    struct drive d;
    if (!parse_odometry(line, &o)) {
      printf("bad\n");
      continue;
    }
    const long step = step_of(o.stamp_ns, step_ns);
    if (controller_tick(c, step, o.x, o.y, o.yaw, &d)) printf("%ld %.17g %.17g\n", step, d.speed, d.steer);
    else printf("%ld none\n", step);
  }
  free(line);
  return 0;
}

int main(int argc, char **argv) {
  const char *spec = getenv("CAVSIM_LIGHT_CONTROLLER"), *url = getenv("CAVSIM_SIM_URL");
  car = getenv("CAVSIM_VEHICLE") ? getenv("CAVSIM_VEHICLE") : car;
  struct session s = {.t0_ns = -1, .last_ticked = -1, .collided_step = -1};
  const char *error = spec ? controller_parse(&s.controller, spec) : "is not set";
  if (error) {
    say("CAVSIM_LIGHT_CONTROLLER %s", error);
    return 1;
  }
  if (argc > 1 && strcmp(argv[1], "--parity") == 0) return parity(&s.controller);
  if (!url || !getenv("CAVSIM_VEHICLE")) {
    say("%s", "CAVSIM_VEHICLE and CAVSIM_SIM_URL must be set");
    return 1;
  }
  s.step_ns = llround(s.controller.timestep * 1e9);
  struct sigaction action = {.sa_handler = on_signal};
  sigaction(SIGTERM, &action, NULL);
  sigaction(SIGINT, &action, NULL);
  const char *timeout = getenv("CAVSIM_CONNECT_TIMEOUT_MS");
  struct ws ws;
  if ((error = ws_connect(&ws, url, timeout ? atol(timeout) : 30000))) {
    say("cannot reach the simulator: %s", error);
    return 1;
  }
  int code = open_session(&ws) != 0 ? 1 : drive(&s, &ws);
  char detail[200], last[48] = "";
  if (s.last_ticked >= 0) snprintf(last, sizeof last, ", last in step %ld", s.last_ticked);
  snprintf(detail, sizeof detail, "%s (apps ticked %ld times%s)",
           interrupted ? "interrupted by a signal" : code ? "the connection to the simulator closed before it said stop" : "stopped by the simulator",
           s.ticks, last);
  say("%s", detail);
  ws_close(&ws);
  if (getenv("CAVSIM_KEEP") && strcmp(getenv("CAVSIM_KEEP"), "1") == 0 && !interrupted) {
    say("%s", "the run is kept: staying up until stopped (cavsim teardown)");
    while (!interrupted) pause();
  }
  return code;
}
