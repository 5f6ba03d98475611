/*
 * cavsim's vehicle program for a light car: cavsim's own pure pursuit, lane keeping, open loop or idle, beacons
 * as its only apps, no lidar. It does what vehicle-main.js does for such a car, waking on poll()
 * instead of Node's event loop: a fraction of the CPU per control tick, so more cars fit on a core,
 * and V2V receive stamps from the kernel (docs/containers.md, "Light cars").
 * Environment: CAVSIM_VEHICLE, CAVSIM_SIM_URL, CAVSIM_LIGHT_CONTROLLER, CAVSIM_V2V_BIND,
 * CAVSIM_V2V_PEERS, CAVSIM_CONNECT_TIMEOUT_MS, CAVSIM_KEEP. `--parity` ticks the controller and
 * beacons on odometry messages from stdin, one per line; `--probe CONFIG` is the stack-share probe.
 */
#include <errno.h>
#include <math.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "beacon.h"
#include "control-text.h"
#include "controller.h"
#include "stack-probe.h"
#include "v2v.h"
#include "ws-client.h"

#define MAX_BEACONS 8
/* How long the V2V socket waits for eth1's address (the host adds it after every container started). */
#define EADDR_WAIT_MS 600000L

static volatile sig_atomic_t interrupted;
static const char *car = "vehicle";

static void on_signal(int signal) { interrupted = signal; }

static void say(const char *format, const char *detail) {
  fprintf(stderr, "[cavsim-%s] vehicle %s: ", car, car);
  fprintf(stderr, format, detail);
  fputc('\n', stderr);
}

struct session {
  struct controller controller;
  struct beacon beacons[MAX_BEACONS];
  int n_beacons, has_v2v;
  struct v2v v2v;
  struct ws ws;
  long long step_ns, t0_ns;
  long last_ticked, collided_step, ticks, seq;
};

static long step_of(long long stamp_ns, long long step_ns) { return (long)llround((double)stamp_ns / (double)step_ns); }

static int send_text(struct ws *ws, const char *text) { return ws_send_text(ws, text, strlen(text)); }

/* A std_msgs/String on `topic` whose data is the JSON `inner`, escaped into the string. */
static int publish_data(struct ws *ws, const char *topic, const char *inner) {
  char frame[8192];
  int n = snprintf(frame, sizeof frame, "{\"op\":\"publish\",\"topic\":\"%s\",\"msg\":{\"data\":\"", topic);
  for (const char *p = inner; *p && n < (int)sizeof frame - 8; p++) {
    if (*p == '"' || *p == '\\') frame[n++] = '\\';
    frame[n++] = *p;
  }
  n += snprintf(frame + n, sizeof frame - (size_t)n, "\"}}");
  return ws_send_text(ws, frame, (size_t)n);
}

static int report_event(struct session *s, double t_s, const char *event, const char *detail) {
  char inner[2048];
  snprintf(inner, sizeof inner, "{\"vehicle\":\"%s\",\"t_s\":%.17g,\"event\":\"%s\",\"detail\":%s}", car, t_s, event, detail);
  return publish_data(&s->ws, "/cavsim/events", inner);
}

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
      "{\"op\":\"advertise\",\"topic\":\"/cavsim/v2v\",\"type\":\"std_msgs/msg/String\"}",
      "{\"op\":\"advertise\",\"topic\":\"/cavsim/events\",\"type\":\"std_msgs/msg/String\"}",
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

static int send_beacon(struct session *s, const struct beacon *b, const char *body, double now) {
  char id[96], inner[4096], detail[256];
  long long sent_ns = 0;
  snprintf(id, sizeof id, "%s-%ld", car, ++s->seq);
  const long size = s->has_v2v ? v2v_send(&s->v2v, id, b->to, "beacon", body, b->size, &sent_ns) : 0;
  if (size == 0) {
    snprintf(detail, sizeof detail, "{\"id\":\"%s\",\"to\":\"%s\"}", id, b->to);
    return report_event(s, now, "v2v-no-route", detail);
  }
  if (size < 0) {
    snprintf(detail, sizeof detail, "{\"id\":\"%s\",\"error\":\"%s\"}", id, strerror(errno));
    return report_event(s, now, "v2v-send-failed", detail);
  }
  snprintf(inner, sizeof inner, "{\"kind\":\"sent\",\"id\":\"%s\",\"from\":\"%s\",\"to\":\"%s\",\"type\":\"beacon\",\"size_bytes\":%ld,\"sent_ns\":\"%lld\",\"body\":%s}",
           id, car, b->to, size, sent_ns, body);
  return publish_data(&s->ws, "/cavsim/v2v", inner);
}

/* The controller's command (published first, as the Node agent publishes at the tick's end before its sends go out), then the beacons. */
static int tick(struct session *s, const struct odometry *o, long step) {
  struct drive d;
  const double now = (double)step * s->controller.timestep;
  if (controller_tick(&s->controller, step, o->x, o->y, o->yaw, o->v, &d) && publish_drive(&s->ws, o->stamp_ns, &d) != 0) return -1;
  const struct car_state own = {.t = now, .x = o->x, .y = o->y, .yaw = o->yaw, .v = o->v, .yaw_rate = o->yaw_rate};
  char body[1024];
  for (int i = 0; i < s->n_beacons; i++)
    if (beacon_tick(&s->beacons[i], now, &own, body, sizeof body) && send_beacon(s, &s->beacons[i], body, now) != 0) return -1;
  return 0;
}

static int on_odometry(struct session *s, const char *msg) {
  struct odometry o;
  if (!parse_odometry(msg, &o)) {
    say("%s", "bad odometry, ignored");
    return 0;
  }
  const long step = step_of(o.stamp_ns, s->step_ns);
  if (s->t0_ns < 0 || epoch_ns() < s->t0_ns) return 0;
  if (step <= s->last_ticked || step % s->controller.period != 0) return 0;
  if (s->collided_step >= 0 && step >= s->collided_step) return 0;
  s->last_ticked = step;
  s->ticks++;
  return tick(s, &o, step);
}

static int on_arrival(struct session *s, const struct v2v_arrival *a) {
  char inner[768];
  if (a->forged_sender) {
    snprintf(inner, sizeof inner, "{\"claimed\":\"%s\",\"sender\":\"%s\",\"id\":\"%s\"}", a->from, a->forged_sender, a->id);
    return report_event(s, s->t0_ns < 0 ? 0 : (double)(epoch_ns() - s->t0_ns) / 1e9, "v2v-forged", inner);
  }
  if (s->t0_ns < 0) return 0;
  snprintf(inner, sizeof inner,
           "{\"kind\":\"received\",\"id\":\"%s\",\"from\":\"%s\",\"to\":\"%s\",\"type\":\"%s\",\"sent_ns\":\"%s\",\"received_ns\":\"%lld\",\"size_bytes\":%ld}",
           a->id, a->from, car, a->type, a->sent_ns, a->received_ns, a->size);
  return publish_data(&s->ws, "/cavsim/v2v", inner);
}

/* 1: stopped by the simulator; 0: not yet; -1: the link closed or failed. */
static int on_message(struct session *s, const char *text) {
  char topic[128], own_topic[160];
  if (!publish_topic(text, topic, sizeof topic)) return 0;
  const char *msg = strstr(text, "\"msg\":");
  if (!msg) return 0;
  snprintf(own_topic, sizeof own_topic, "/%s/odom", car);
  if (strcmp(topic, own_topic) == 0) return on_odometry(s, msg);
  if (strcmp(topic, "/sim_control") == 0) {
    long long t0;
    const int cmd = parse_sim_control(msg, &t0);
    if (cmd == 'x') return 1;
    if (cmd == 's' && s->t0_ns < 0) s->t0_ns = t0;
    return 0;
  }
  snprintf(own_topic, sizeof own_topic, "/%s/collision", car);
  if (strcmp(topic, own_topic) == 0 && s->collided_step < 0) {
    char with[256], line[400];
    double t_s;
    s->collided_step = parse_collision(msg, with, sizeof with, &t_s);
    snprintf(line, sizeof line, "collided with %s in step %ld (t=%.2f s); its apps are no longer ticked", with, s->collided_step, t_s);
    if (s->collided_step >= 0) say("%s", line);
  }
  return 0;
}

/* 0: stopped by the simulator (or a signal); 1: the link closed first (or failed). */
static int drive(struct session *s) {
  struct pollfd fds[2] = {{.fd = s->ws.fd, .events = POLLIN}, {.fd = s->has_v2v ? s->v2v.fd : -1, .events = POLLIN}};
  for (;;) {
    if (poll(fds, 2, -1) < 0) {
      if (errno == EINTR && interrupted) return 0;
      continue;
    }
    struct v2v_arrival a;
    int more = fds[1].revents != 0;
    while (more)
      if (v2v_receive(&s->v2v, &a, &more) && on_arrival(s, &a) != 0) return 1;
    if (!fds[0].revents) continue;
    if (!ws_read_some(&s->ws)) return interrupted ? 0 : 1;
    size_t len;
    int closed, result;
    const char *text;
    while ((text = ws_take_text(&s->ws, &len, &closed)))
      if ((result = on_message(s, text)) != 0) return result > 0 ? 0 : 1;
    if (closed) return 1;
  }
}

static int parity(struct session *s) {
  char *line = NULL, body[1024];
  size_t size = 0;
  while (getline(&line, &size, stdin) > 0) {
    struct odometry o;
    struct drive d;
    if (!parse_odometry(line, &o)) {
      printf("bad\n");
      continue;
    }
    const long step = step_of(o.stamp_ns, s->step_ns);
    if (controller_tick(&s->controller, step, o.x, o.y, o.yaw, o.v, &d)) printf("%ld %.17g %.17g", step, d.speed, d.steer);
    else printf("%ld none", step);
    const double now = (double)step * s->controller.timestep;
    const struct car_state own = {.t = now, .x = o.x, .y = o.y, .yaw = o.yaw, .v = o.v, .yaw_rate = o.yaw_rate};
    for (int i = 0; i < s->n_beacons; i++)
      if (beacon_tick(&s->beacons[i], now, &own, body, sizeof body)) printf(" beacon %s", body);
    printf("\n");
  }
  free(line);
  return 0;
}

/* The controller, then `beacon ...` lines and `v2v` (the car has a V2V socket). */
static const char *parse_spec(struct session *s, const char *spec) {
  size_t used;
  const char *error = controller_parse(&s->controller, spec, &used);
  if (error) return error;
  char *rest = strdup(spec + used), *cursor = rest, word[16];
  int n;
  while (!error && sscanf(cursor, " %15s%n", word, &n) == 1) {
    if (strcmp(word, "v2v") == 0) s->has_v2v = 1, cursor += n;
    else if (strcmp(word, "beacon") != 0) error = "has a line that is neither beacon nor v2v";
    else if (s->n_beacons == MAX_BEACONS || !beacon_parse(&s->beacons[s->n_beacons++], &cursor)) error = "has a beacon it cannot read";
  }
  free(rest);
  s->step_ns = llround(s->controller.timestep * 1e9);
  return error;
}

int main(int argc, char **argv) {
  if (argc > 1 && strcmp(argv[1], "--probe") == 0) return stack_probe(argc > 2 ? argv[2] : NULL);
  const char *spec = getenv("CAVSIM_LIGHT_CONTROLLER"), *url = getenv("CAVSIM_SIM_URL"), *timeout = getenv("CAVSIM_CONNECT_TIMEOUT_MS");
  car = getenv("CAVSIM_VEHICLE") ? getenv("CAVSIM_VEHICLE") : car;
  static struct session s = {.t0_ns = -1, .last_ticked = -1, .collided_step = -1};
  const char *error = spec ? parse_spec(&s, spec) : "is not set";
  if (error) {
    say("CAVSIM_LIGHT_CONTROLLER %s", error);
    return 1;
  }
  if (argc > 1 && strcmp(argv[1], "--parity") == 0) return parity(&s);
  if (!url || !getenv("CAVSIM_VEHICLE")) {
    say("%s", "CAVSIM_VEHICLE and CAVSIM_SIM_URL must be set");
    return 1;
  }
  struct sigaction action = {.sa_handler = on_signal};
  sigaction(SIGTERM, &action, NULL);
  sigaction(SIGINT, &action, NULL);
  if (s.has_v2v && (error = v2v_open(&s.v2v, car, getenv("CAVSIM_V2V_BIND"), getenv("CAVSIM_V2V_PEERS"), EADDR_WAIT_MS))) {
    say("no V2V socket: %s", error);
    return 1;
  }
  if ((error = ws_connect(&s.ws, url, timeout ? atol(timeout) : 30000))) {
    say("cannot reach the simulator: %s", error);
    return 1;
  }
  const int code = open_session(&s.ws) != 0 ? 1 : drive(&s);
  char detail[200], last[48] = "";
  if (s.last_ticked >= 0) snprintf(last, sizeof last, ", last in step %ld", s.last_ticked);
  snprintf(detail, sizeof detail, "%s (apps ticked %ld times%s)",
           interrupted ? "interrupted by a signal" : code ? "the connection to the simulator closed before it said stop" : "stopped by the simulator",
           s.ticks, last);
  say("%s", detail);
  ws_close(&s.ws);
  if (getenv("CAVSIM_KEEP") && strcmp(getenv("CAVSIM_KEEP"), "1") == 0 && !interrupted) {
    say("%s", "the run is kept: staying up until stopped (cavsim teardown)");
    while (!interrupted) pause();
  }
  return code;
}
