#include "v2v.h"

#include <arpa/inet.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "json-scan.h"

long long epoch_ns(void) {
  struct timespec ts;
  clock_gettime(CLOCK_REALTIME, &ts);
  return ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

static int parse_address(const char *text, struct sockaddr_in *addr) {
  char host[32];
  unsigned port = 7400;
  if (sscanf(text, "%31[0-9.]:%u", host, &port) < 1 || port == 0 || port > 65535) return 0;
  memset(addr, 0, sizeof *addr);
  addr->sin_family = AF_INET;
  addr->sin_port = htons((unsigned short)port);
  return inet_pton(AF_INET, host, &addr->sin_addr) == 1;
}

/* {"car1":"10.210.7.3:7400",...} as the plan writes it: names and addresses without escapes */
static const char *parse_peers(struct v2v *v, const char *json) {
  const char *p = json;
  while ((p = strchr(p, '"'))) {
    char name[64], address[64];
    int used = 0;
    if (sscanf(p, "\"%63[^\"]\":\"%63[^\"]\"%n", name, address, &used) != 2 || !used) return "CAVSIM_V2V_PEERS is not {\"car\":\"address:port\"}";
    if (v->n_peers == V2V_MAX_PEERS) return "CAVSIM_V2V_PEERS names too many cars";
    struct v2v_peer *peer = &v->peers[v->n_peers++];
    snprintf(peer->name, sizeof peer->name, "%s", name);
    if (!parse_address(address, &peer->addr)) return "CAVSIM_V2V_PEERS has an address that is not IPv4:port";
    p += used;
  }
  return NULL;
}

const char *v2v_open(struct v2v *v, const char *self, const char *bind_to, const char *peers_json, long wait_ms) {
  struct sockaddr_in addr;
  memset(v, 0, sizeof *v);
  snprintf(v->self, sizeof v->self, "%s", self);
  if (!bind_to || !parse_address(bind_to, &addr)) return "CAVSIM_V2V_BIND is not IPv4:port";
  const char *error = parse_peers(v, peers_json ? peers_json : "{}");
  if (error) return error;
  v->fd = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
  int one = 1;
  if (v->fd < 0 || setsockopt(v->fd, SOL_SOCKET, SO_TIMESTAMPNS, &one, sizeof one) != 0) return "no UDP socket with receive stamps";
  for (long waited = 0; bind(v->fd, (struct sockaddr *)&addr, sizeof addr) != 0; waited += 50) {
    /* the host adds eth1 after the container started */
    if (errno != EADDRNOTAVAIL || waited > wait_ms) return strerror(errno);
    usleep(50000);
  }
  return NULL;
}

long v2v_send(struct v2v *v, const char *id, const char *to, const char *type, const char *body, long size, long long *sent_ns) {
  char datagram[65536];
  long length = -1, sent = 0;
  for (int i = 0; i < v->n_peers; i++) {
    if (strcmp(to, "*") != 0 && strcmp(to, v->peers[i].name) != 0) continue;
    /* stamped at the last moment before each send, as the Node program does */
    const long long now = epoch_ns();
    length = snprintf(datagram, sizeof datagram, "{\"id\":\"%s\",\"from\":\"%s\",\"to\":\"%s\",\"type\":\"%s\",\"sentAtNs\":\"%lld\",\"body\":%s}", id,
                      v->self, to, type, now, body);
    if (length < 0 || length >= (long)sizeof datagram) return -1;
    /* padded with spaces, which JSON allows after the value */
    if (length < size && size < (long)sizeof datagram) memset(datagram + length, ' ', (size_t)(size - length)), length = size;
    if (sendto(v->fd, datagram, (size_t)length, 0, (struct sockaddr *)&v->peers[i].addr, sizeof v->peers[i].addr) != length) return -1;
    if (sent++ == 0) *sent_ns = now;
  }
  return sent ? length : 0;
}

int v2v_receive(struct v2v *v, struct v2v_arrival *a, int *more) {
  char datagram[65536], control[256];
  struct sockaddr_in from;
  struct iovec io = {.iov_base = datagram, .iov_len = sizeof datagram - 1};
  struct msghdr msg = {.msg_name = &from, .msg_namelen = sizeof from, .msg_iov = &io, .msg_iovlen = 1, .msg_control = control, .msg_controllen = sizeof control};
  const ssize_t n = recvmsg(v->fd, &msg, MSG_DONTWAIT);
  *more = n >= 0;
  if (n < 0) return 0;
  datagram[n] = '\0';
  a->received_ns = epoch_ns();
  for (struct cmsghdr *c = CMSG_FIRSTHDR(&msg); c; c = CMSG_NXTHDR(&msg, c)) {
    if (c->cmsg_level == SOL_SOCKET && c->cmsg_type == SCM_TIMESTAMPNS) {
      struct timespec ts;
      memcpy(&ts, CMSG_DATA(c), sizeof ts);
      a->received_ns = ts.tv_sec * 1000000000LL + ts.tv_nsec;
    }
  }
  /* only the other cars, over the channel, may deliver */
  const struct v2v_peer *peer = NULL;
  for (int i = 0; i < v->n_peers && !peer; i++)
    if (v->peers[i].addr.sin_addr.s_addr == from.sin_addr.s_addr) peer = &v->peers[i];
  if (!peer || datagram[0] != '{' || !strstr(datagram, "\"body\":")) return 0;
  if (!json_string_after(datagram, "\"id\":", a->id, sizeof a->id) || !json_string_after(datagram, "\"from\":", a->from, sizeof a->from) ||
      !json_string_after(datagram, "\"to\":", a->to, sizeof a->to) || !json_string_after(datagram, "\"type\":", a->type, sizeof a->type) ||
      !json_string_after(datagram, "\"sentAtNs\":", a->sent_ns, sizeof a->sent_ns) || strspn(a->sent_ns, "0123456789") != strlen(a->sent_ns))
    return 0;
  a->size = (long)n;
  a->forged_sender = strcmp(a->from, peer->name) != 0 ? peer->name : NULL;
  if (a->forged_sender) return 1;
  if (strcmp(a->from, v->self) == 0 || (strcmp(a->to, "*") != 0 && strcmp(a->to, v->self) != 0)) return 0;
  return 1;
}
