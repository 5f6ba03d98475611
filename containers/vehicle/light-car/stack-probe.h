/* The stack-share probe (src/runtime/emulated/containers/stack-probe-main.ts) through a light car's own receive path. */
#ifndef LIGHT_CAR_STACK_PROBE_H
#define LIGHT_CAR_STACK_PROBE_H

/* Runs the probe the ProbeConfig JSON describes; prints its ProbeReport on stdout. Exit status. */
int stack_probe(const char *config_json);

#endif
