/* A blocking WebSocket client (RFC 6455) for the control link's text messages, over ws:// on IPv4. */
#ifndef LIGHT_CAR_WS_CLIENT_H
#define LIGHT_CAR_WS_CLIENT_H

#include <stddef.h>

struct ws {
  int fd;
  char *buf;     /* received bytes not yet returned */
  size_t len, cap;
  size_t consumed; /* bytes of buf taken by the message returned last */
  char saved;      /* the byte under the NUL that ends that message */
  unsigned char masks[256];
  size_t mask_at;
};

/* Connects to ws://A.B.C.D:PORT, retrying until timeout_ms while the address is not there yet. */
const char *ws_connect(struct ws *ws, const char *url, long timeout_ms);
/* Sends one text message, masked as a client must. 0 on success. */
int ws_send_text(struct ws *ws, const char *text, size_t len);
/* One read of what the simulator sent (blocks until something came): 0 when the link closed. */
int ws_read_some(struct ws *ws);
/* The next whole text message read so far, valid until the next call; NULL when none is whole yet
   (or *closed, when the link closed or broke the protocol). */
const char *ws_take_text(struct ws *ws, size_t *len, int *closed);
void ws_close(struct ws *ws);

#endif
