/* A light car's V2V socket on its eth1 address: datagrams as src/runtime/emulated/v2v/wire.ts has them. */
#ifndef LIGHT_CAR_V2V_H
#define LIGHT_CAR_V2V_H

#include <netinet/in.h>

#define V2V_MAX_PEERS 256

struct v2v_peer {
  char name[64];
  struct sockaddr_in addr;
};

struct v2v {
  int fd;
  char self[64];
  struct v2v_peer peers[V2V_MAX_PEERS];
  int n_peers;
};

struct v2v_arrival {
  char id[96], from[64], to[64], type[64], sent_ns[24];
  long long received_ns; /* the kernel's receive stamp (SO_TIMESTAMPNS): not when this program got the CPU */
  long size;
  const char *forged_sender; /* set when the datagram claims another sender than the peer it came from */
};

/* Binds CAVSIM_V2V_BIND (waiting for the address while the host sets up eth1) and reads CAVSIM_V2V_PEERS. */
const char *v2v_open(struct v2v *v, const char *self, const char *bind, const char *peers_json, long wait_ms);
/* Sends the datagram to `to` (a car, or * for every peer), padded to `size`; 0 when no peer is `to`.
   *sent_ns: the first send's stamp. Returns the datagram's bytes, or -1. */
long v2v_send(struct v2v *v, const char *id, const char *to, const char *type, const char *body, long size, long long *sent_ns);
/* One datagram waiting on the socket: 1 when it is for this car, 0 when there was none or it was dropped. */
int v2v_receive(struct v2v *v, struct v2v_arrival *a, int *more);

long long epoch_ns(void);

#endif
