#include "controller.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

static const char *MAGIC = "cavsim.light-car/1";

static int read_numbers(char **cursor, double *out, size_t n) {
  for (size_t i = 0; i < n; i++) {
    char *end;
    out[i] = strtod(*cursor, &end);
    if (end == *cursor) return 0;
    *cursor = end;
  }
  return 1;
}

static int read_word(char **cursor, char *word, size_t size) {
  char *p = *cursor;
  while (*p == ' ' || *p == '\n' || *p == '\t') p++;
  size_t len = strcspn(p, " \n\t");
  if (len == 0 || len >= size) return 0;
  memcpy(word, p, len);
  word[len] = '\0';
  *cursor = p + len;
  return 1;
}

const char *controller_parse(struct controller *c, const char *text, size_t *used) {
  memset(c, 0, sizeof *c);
  char *copy = strdup(text), *cursor = copy, word[32];
  const char *error = NULL;
  double head[2], n;
  if (!read_word(&cursor, word, sizeof word) || strcmp(word, MAGIC) != 0) error = "does not start with cavsim.light-car/1";
  else if (!read_numbers(&cursor, head, 2) || head[0] <= 0 || head[1] < 1) error = "lacks the timestep and control period";
  else if (!read_word(&cursor, word, sizeof word)) error = "names no controller";
  if (error) goto done;
  c->timestep = head[0];
  c->period = (long)head[1];
  size_t columns = 3;
  if (strcmp(word, "idle") == 0) {
    c->kind = CONTROLLER_IDLE;
    goto done;
  } else if (strcmp(word, "pure-pursuit") == 0) {
    double p[5];
    c->kind = CONTROLLER_PURE_PURSUIT;
    if (!read_numbers(&cursor, p, 5)) { error = "pure-pursuit lacks lookahead, tolerance, gain, speed scale, max steer"; goto done; }
    c->lookahead = p[0], c->tolerance = p[1], c->gain = p[2], c->speed_scale = p[3], c->max_steer = p[4];
  } else if (strcmp(word, "lane-keeping") == 0) {
    double p[7];
    c->kind = CONTROLLER_LANE_KEEPING;
    if (!read_numbers(&cursor, p, 7)) error = "lane-keeping lacks y, direction, speed, lookahead time, min lookahead, wheelbase, max steer";
    else c->lane_y = p[0], c->direction = p[1], c->speed = p[2], c->lookahead_time = p[3], c->min_lookahead = p[4], c->wheelbase = p[5], c->max_steer = p[6];
    goto done;
  } else if (strcmp(word, "open-loop") == 0) {
    c->kind = CONTROLLER_OPEN_LOOP;
  } else {
    error = "names an unknown controller";
    goto done;
  }
  if (!read_numbers(&cursor, &n, 1) || n < 0) { error = "lacks the row count"; goto done; }
  c->n_rows = (size_t)n;
  c->rows = calloc(c->n_rows * columns + 1, sizeof(double));
  if (!read_numbers(&cursor, c->rows, c->n_rows * columns)) error = "has fewer rows than it says";
done:
  *used = (size_t)(cursor - copy);
  free(copy);
  return error;
}

/* chooseGoalPoint of src/core/control/pure-pursuit.ts, the same operations in the same order. */
static long goal_point(const struct controller *c, double x, double y, double yaw, double *local_x, double *local_y) {
  const double co = cos(yaw), si = sin(yaw);
  const double inner = fmax(0, c->lookahead - c->tolerance), outer = c->lookahead + c->tolerance;
  const double inner2 = inner * inner, outer2 = outer * outer;
  const double *w = c->rows;
  long best = -1;
  double best_d2 = INFINITY;
  for (size_t i = 0; i < c->n_rows; i++) {
    const double dx = w[3 * i] - x, dy = w[3 * i + 1] - y, d2 = dx * dx + dy * dy;
    if (d2 < inner2 || d2 > outer2 || d2 >= best_d2 || co * dx + si * dy <= 0) continue;
    best = (long)i;
    best_d2 = d2;
  }
  if (best < 0) {
    double gap = INFINITY;
    for (size_t i = 0; i < c->n_rows; i++) {
      const double dx = w[3 * i] - x, dy = w[3 * i + 1] - y;
      if (co * dx + si * dy <= 0) continue;
      const double g = fabs(sqrt(dx * dx + dy * dy) - c->lookahead);
      if (g < gap) {
        gap = g;
        best = (long)i;
      }
    }
  }
  if (best < 0) return -1;
  const double dx = w[3 * best] - x, dy = w[3 * best + 1] - y;
  *local_x = co * dx + si * dy;
  *local_y = -si * dx + co * dy;
  return best;
}

/* laneKeepingSteer of src/core/control/lane-keeping.ts, the same operations in the same order. */
static double lane_keeping_steer(const struct controller *c, double y, double yaw, double v) {
  const double lookahead = fmax(c->min_lookahead, c->lookahead_time * fabs(v));
  const double dx = c->direction * lookahead, dy = c->lane_y - y;
  const double co = cos(yaw), si = sin(yaw);
  const double local_x = co * dx + si * dy, local_y = -si * dx + co * dy;
  const double curvature = (2 * local_y) / (local_x * local_x + local_y * local_y);
  return fmax(-c->max_steer, fmin(c->max_steer, atan(c->wheelbase * curvature)));
}

int controller_tick(struct controller *c, long step, double x, double y, double yaw, double v, struct drive *out) {
  if (c->kind == CONTROLLER_LANE_KEEPING) {
    out->speed = c->speed;
    out->steer = lane_keeping_steer(c, y, yaw, v);
    return 1;
  }
  if (c->kind == CONTROLLER_PURE_PURSUIT) {
    double lx, ly;
    const long goal = goal_point(c, x, y, yaw, &lx, &ly);
    if (goal < 0) {
      out->speed = 0, out->steer = 0;
      return 1;
    }
    const double curvature = (2 * ly) / (lx * lx + ly * ly) /* x ** 2 in JS: correctly rounded, so the same */;
    out->steer = fmax(-c->max_steer, fmin(c->max_steer, c->gain * curvature));
    out->speed = c->rows[3 * goal + 2] * c->speed_scale;
    return 1;
  }
  if (c->kind == CONTROLLER_OPEN_LOOP) {
    /* the tick's time as the emulated vehicle session has it: step x timestep */
    const double now = (double)step * c->timestep;
    while (c->next_entry < c->n_rows && c->rows[3 * c->next_entry] <= now + 1e-9) c->next_entry++;
    if (c->next_entry == 0) return 0;
    out->speed = c->rows[3 * (c->next_entry - 1) + 1];
    out->steer = c->rows[3 * (c->next_entry - 1) + 2];
    return 1;
  }
  return 0;
}
