#include "stack-probe.h"

#include <errno.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "json-scan.h"
#include "v2v.h"

#define MAX_PROBES 4096

struct probe_config {
  char name[64], bind[48], peer_name[64], peer_address[32];
  long long start_at_ms;
  long port, count, interval_ms, size_bytes, linger_ms;
};

/* A whole number after `key` anywhere in `json`. */
static int number_of(const char *json, const char *key, long long *out) { return json_integer_after(&json, key, out); }

/* ProbeConfig as stackProbe's JSON.stringify writes it; the peer's fields are searched after "peer". */
static const char *parse_config(const char *json, struct probe_config *c) {
  long long port, count, interval, start, size, linger;
  const char *peer = strstr(json, "\"peer\":");
  if (!json_string_after(json, "\"name\":", c->name, sizeof c->name) || !json_string_after(json, "\"bind\":", c->bind, sizeof c->bind) || !peer ||
      !json_string_after(peer, "\"name\":", c->peer_name, sizeof c->peer_name) || !json_string_after(peer, "\"address\":", c->peer_address, sizeof c->peer_address))
    return "the probe's config lacks name, bind or peer";
  if (!number_of(json, "\"port\":", &port) || !number_of(json, "\"count\":", &count) || !number_of(json, "\"intervalMs\":", &interval) ||
      !number_of(json, "\"startAtMs\":", &start) || !number_of(json, "\"sizeBytes\":", &size) || !number_of(json, "\"lingerMs\":", &linger))
    return "the probe's config lacks a number";
  if (count < 0 || count > MAX_PROBES) return "the probe's count is out of range";
  c->port = (long)port, c->count = (long)count, c->interval_ms = (long)interval;
  c->start_at_ms = start, c->size_bytes = (long)size, c->linger_ms = (long)linger;
  return NULL;
}

/* Receives until the epoch time `until_ns`, recording the peer's probes; earlier once `last_seq` (>= 0) arrived. */
static void receive_until(struct v2v *v, long long until_ns, long last_seq, long *seqs, double *latencies, long *n) {
  for (;;) {
    const long long left_ns = until_ns - epoch_ns();
    if (left_ns <= 0 || (last_seq >= 0 && *n > 0 && seqs[*n - 1] >= last_seq)) return;
    struct pollfd fd = {.fd = v->fd, .events = POLLIN};
    if (poll(&fd, 1, (int)((left_ns + 999999) / 1000000)) <= 0) continue;
    struct v2v_arrival a;
    int more = 1;
    while (more) {
      if (!v2v_receive(v, &a, &more) || a.forged_sender || strcmp(a.type, "stack-probe") != 0 || *n == MAX_PROBES) continue;
      const char *dash = strrchr(a.id, '-');
      seqs[*n] = dash ? atol(dash + 1) : -1;
      latencies[(*n)++] = (double)(a.received_ns - atoll(a.sent_ns)) / 1e6;
    }
  }
}

int stack_probe(const char *config_json) {
  struct probe_config c;
  struct v2v v;
  char bind[64], peers[160], id[96];
  static long seqs[MAX_PROBES];
  static double latencies[MAX_PROBES];
  long received = 0, sent = 0;
  const char *error = config_json ? parse_config(config_json, &c) : "no config";
  if (!error) {
    snprintf(bind, sizeof bind, "%s:%ld", c.bind, c.port);
    snprintf(peers, sizeof peers, "{\"%s\":\"%s:%ld\"}", c.peer_name, c.peer_address, c.port);
    error = v2v_open(&v, c.name, bind, peers, 10000);
  }
  if (error) {
    fprintf(stderr, "stack probe: %s\n", error);
    return 1;
  }
  /* started late: begin now, rather than send the overdue datagrams back to back */
  const long long now_ms = epoch_ns() / 1000000LL;
  const long long start_ms = c.start_at_ms > now_ms ? c.start_at_ms : now_ms;
  for (long seq = 0; seq < c.count; seq++) {
    receive_until(&v, (start_ms + seq * c.interval_ms) * 1000000LL, -1, seqs, latencies, &received);
    long long sent_ns;
    snprintf(id, sizeof id, "%s-probe-%ld", c.name, seq);
    /* a send refused (the peer not bound yet: an ICMP error) is not counted, as in the Node probe */
    if (v2v_send(&v, id, c.peer_name, "stack-probe", "{}", c.size_bytes, &sent_ns) > 0) sent++;
  }
  receive_until(&v, epoch_ns() + c.linger_ms * 1000000LL, c.count - 1, seqs, latencies, &received);
  printf("{\"sent\":%ld,\"received\":[", sent);
  for (long i = 0; i < received; i++) printf("%s{\"seq\":%ld,\"latency_ms\":%.6f}", i ? "," : "", seqs[i], latencies[i]);
  printf("]}\n");
  return 0;
}
