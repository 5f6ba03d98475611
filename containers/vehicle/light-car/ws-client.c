#define _GNU_SOURCE /* memmem */
#include "ws-client.h"

#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

enum { OP_TEXT = 0x1, OP_BINARY = 0x2, OP_CLOSE = 0x8, OP_PING = 0x9, OP_PONG = 0xa };

static long now_ms(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return ts.tv_sec * 1000L + ts.tv_nsec / 1000000L;
}

static int write_all(int fd, const void *data, size_t len) {
  const char *p = data;
  while (len) {
    ssize_t n = write(fd, p, len);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return -1;
    p += n, len -= (size_t)n;
  }
  return 0;
}

/* Reads more bytes into buf; 0 when the peer closed or the read failed. */
static int fill(struct ws *ws) {
  if (ws->cap - ws->len < 65536) {
    ws->cap = ws->cap * 2 + 65536;
    ws->buf = realloc(ws->buf, ws->cap);
  }
  for (;;) {
    ssize_t n = read(ws->fd, ws->buf + ws->len, ws->cap - ws->len);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return 0;
    ws->len += (size_t)n;
    return 1;
  }
}

static const char *parse_url(const char *url, struct sockaddr_in *addr) {
  char host[64];
  unsigned port;
  if (sscanf(url, "ws://%63[0-9.]:%u", host, &port) != 2 || port == 0 || port > 65535) return "CAVSIM_SIM_URL is not ws://IPv4:PORT";
  memset(addr, 0, sizeof *addr);
  addr->sin_family = AF_INET;
  addr->sin_port = htons((uint16_t)port);
  if (inet_pton(AF_INET, host, &addr->sin_addr) != 1) return "CAVSIM_SIM_URL has no IPv4 address";
  return NULL;
}

static const char *handshake(struct ws *ws, const char *url) {
  unsigned char nonce[16];
  char key[25], request[512];
  static const char b64[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
  if (getrandom(nonce, sizeof nonce, 0) != sizeof nonce) return "no random bytes for the handshake";
  for (int i = 0, o = 0; i < 16; i += 3) {
    uint32_t v = (uint32_t)nonce[i] << 16 | (i + 1 < 16 ? nonce[i + 1] << 8 : 0) | (i + 2 < 16 ? nonce[i + 2] : 0);
    key[o++] = b64[v >> 18 & 63], key[o++] = b64[v >> 12 & 63];
    key[o++] = i + 1 < 16 ? b64[v >> 6 & 63] : '=';
    key[o++] = i + 2 < 16 ? b64[v & 63] : '=';
  }
  key[24] = '\0';
  int n = snprintf(request, sizeof request,
                   "GET / HTTP/1.1\r\nHost: %s\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
                   "Sec-WebSocket-Key: %s\r\nSec-WebSocket-Version: 13\r\n\r\n",
                   url + 5, key);
  if (write_all(ws->fd, request, (size_t)n) != 0) return "the handshake could not be sent";
  char *end;
  while (!(end = memmem(ws->buf, ws->len, "\r\n\r\n", 4))) {
    if (ws->len > 16384 || !fill(ws)) return "the simulator closed the link during the handshake";
  }
  /* The server is cavsim's own simulator on a network of the run's: its status line is the check. */
  if (ws->len < 12 || memcmp(ws->buf, "HTTP/1.1 101", 12) != 0) return "the simulator refused the WebSocket handshake";
  size_t head = (size_t)(end + 4 - ws->buf);
  memmove(ws->buf, ws->buf + head, ws->len - head);
  ws->len -= head;
  return NULL;
}

const char *ws_connect(struct ws *ws, const char *url, long timeout_ms) {
  struct sockaddr_in addr;
  const char *error = parse_url(url, &addr);
  if (error) return error;
  memset(ws, 0, sizeof *ws);
  ws->mask_at = sizeof ws->masks;
  const long deadline = now_ms() + timeout_ms;
  for (;;) {
    ws->fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    if (ws->fd < 0) return "no socket";
    if (connect(ws->fd, (struct sockaddr *)&addr, sizeof addr) == 0) break;
    const int err = errno;
    close(ws->fd);
    /* eth0 and the simulator come up while the car starts: wait for them, not for anything else */
    if ((err != ECONNREFUSED && err != ENETUNREACH && err != EHOSTUNREACH && err != EADDRNOTAVAIL) || now_ms() > deadline)
      return strerror(err);
    usleep(20000);
  }
  int one = 1;
  setsockopt(ws->fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
  return handshake(ws, url);
}

static int send_frame(struct ws *ws, int opcode, const char *data, size_t len) {
  unsigned char head[14];
  size_t h = 0;
  head[h++] = (unsigned char)(0x80 | opcode);
  if (len < 126) {
    head[h++] = (unsigned char)(0x80 | len);
  } else if (len < 65536) {
    head[h++] = 0x80 | 126, head[h++] = (unsigned char)(len >> 8), head[h++] = (unsigned char)len;
  } else {
    head[h++] = 0x80 | 127;
    for (int i = 7; i >= 0; i--) head[h++] = (unsigned char)((uint64_t)len >> (8 * i));
  }
  /* masking keys from a pool of random bytes, not a system call per frame */
  if (ws->mask_at + 4 > sizeof ws->masks) {
    if (getrandom(ws->masks, sizeof ws->masks, 0) != (ssize_t)sizeof ws->masks) return -1;
    ws->mask_at = 0;
  }
  unsigned char *mask = ws->masks + ws->mask_at;
  ws->mask_at += 4;
  memcpy(head + h, mask, 4);
  h += 4;
  char stack[4096];
  char *frame = h + len <= sizeof stack ? stack : malloc(h + len);
  memcpy(frame, head, h);
  for (size_t i = 0; i < len; i++) frame[h + i] = (char)(data[i] ^ mask[i & 3]);
  const int result = write_all(ws->fd, frame, h + len);
  if (frame != stack) free(frame);
  return result;
}

int ws_send_text(struct ws *ws, const char *text, size_t len) { return send_frame(ws, OP_TEXT, text, len); }

int ws_read_some(struct ws *ws) { return fill(ws); }

const char *ws_take_text(struct ws *ws, size_t *len, int *closed) {
  if (ws->consumed) ws->buf[ws->consumed] = ws->saved;
  memmove(ws->buf, ws->buf + ws->consumed, ws->len - ws->consumed);
  ws->len -= ws->consumed;
  ws->consumed = 0;
  *closed = 0;
  for (;;) {
    if (ws->len < 2) return NULL;
    const unsigned char *b = (const unsigned char *)ws->buf;
    const int opcode = b[0] & 0x0f, fin = b[0] & 0x80;
    uint64_t size = b[1] & 0x7f;
    const size_t head = size == 126 ? 4 : size == 127 ? 10 : 2;
    /* a server never masks */
    if (b[1] & 0x80) return *closed = 1, NULL;
    if (ws->len < head) return NULL;
    if (size >= 126) {
      size = 0;
      for (size_t i = 2; i < head; i++) size = size << 8 | b[i];
    }
    if (size > (64u << 20)) return *closed = 1, NULL;
    if (ws->len < head + size) return NULL;
    char *payload = ws->buf + head;
    const size_t frame = head + (size_t)size;
    if (opcode == OP_PING) {
      if (send_frame(ws, OP_PONG, payload, (size_t)size) != 0) return *closed = 1, NULL;
    } else if (opcode == OP_CLOSE) {
      send_frame(ws, OP_CLOSE, payload, size >= 2 ? 2 : 0);
      return *closed = 1, NULL;
    } else if ((opcode == OP_TEXT || opcode == OP_BINARY) && fin) {
      /* a NUL after the text lets callers use string functions; the byte it covers is put back next call */
      if (frame >= ws->cap) {
        ws->cap = frame + 1;
        ws->buf = realloc(ws->buf, ws->cap);
        payload = ws->buf + head;
      }
      ws->consumed = frame;
      ws->saved = ws->buf[frame];
      ws->buf[frame] = '\0';
      *len = (size_t)size;
      return payload;
    }
    /* pongs and fragments (cavsim's simulator sends none) are skipped */
    memmove(ws->buf, ws->buf + frame, ws->len - frame);
    ws->len -= frame;
  }
}

void ws_close(struct ws *ws) {
  if (ws->fd >= 0) {
    send_frame(ws, OP_CLOSE, "\x03\xe8", 2);
    close(ws->fd);
    ws->fd = -1;
  }
}
