import type { AddressInfo } from 'node:net';
import { type WebSocket, WebSocketServer } from 'ws';
import type { ClientPolicy } from './client-policy.js';
import {
  type ClientOp,
  encodePublishFrame,
  encodeServerOp,
  type JsonObject,
  ProtocolError,
  parseClientOp,
  type StatusLevel,
} from './protocol.js';

/** A handler inside the server process for messages clients publish; throw ProtocolError to reject. */
export type TopicHandler = (msg: JsonObject, client: BridgeClientRef) => void;

export interface BridgeClientRef {
  readonly id: number;
  readonly remote: string;
}

interface Topic {
  type?: string;
  latch: boolean;
  /** The last message, encoded, replayed to each new subscriber of a latched topic. */
  latched?: string;
  /** The last message of a latched topic the policy shows each client its own view of. */
  latchedMsg?: JsonObject;
  handlers: Set<TopicHandler>;
}

interface Connection extends BridgeClientRef {
  socket: WebSocket;
  address: string;
  /** topic -> subscription ids (a client may subscribe more than once; it gets each message once). */
  subscriptions: Map<string, Set<string>>;
  advertised: Set<string>;
}

/** A subscriber that has fallen this far behind loses messages rather than stalling the simulator. */
const MAX_BUFFERED_BYTES = 4 * 1024 * 1024;

/**
 * A rosbridge v2 server hosting topics (advertise, unadvertise, publish, subscribe, unsubscribe).
 * Messages published by a client go to every subscribed client and to in-process handlers; the
 * process publishes with `publish`. Every bad op is answered with a status op, never a disconnect.
 */
export class BridgeServer {
  private readonly topics = new Map<string, Topic>();
  private readonly connections = new Set<Connection>();
  private nextClientId = 1;
  private closing?: Promise<void>;
  /** Messages dropped because a subscriber's send buffer was full. */
  dropped = 0;
  /** Told when a client connects, and when it goes (with the WebSocket close code). */
  onClient?: (event: 'connected' | 'disconnected', client: BridgeClientRef, closeCode?: number) => void;
  /**
   * Told of every op answered with an error: `notAllowed` when the policy refused its topic, else
   * the op was malformed or its handler refused it (`topic` when the op got that far).
   */
  onRefused?: (refusal: { op?: string; topic?: string; notAllowed: boolean; message: string; remote: string }) => void;

  private constructor(
    private readonly wss: WebSocketServer,
    private readonly log: (line: string) => void,
    private readonly policy?: ClientPolicy,
    private readonly oneClient = false,
  ) {
    wss.on('connection', (socket, request) => this.accept(socket, request.socket.remoteAddress ?? '', request.socket.remotePort ?? 0));
  }

  /**
   * `policy`: what each client may publish and subscribe to; without one, everything is allowed.
   * `oneClient`: while a client is connected, any other is refused (closed with 1008) and logged.
   */
  static listen(opts: {
    host: string;
    port: number;
    log?: (line: string) => void;
    policy?: ClientPolicy;
    oneClient?: boolean;
  }): Promise<BridgeServer> {
    return new Promise((resolve, reject) => {
      const wss = new WebSocketServer({ host: opts.host, port: opts.port, perMessageDeflate: false });
      wss.once('error', reject);
      wss.once('listening', () => {
        wss.off('error', reject);
        resolve(new BridgeServer(wss, opts.log ?? (() => {}), opts.policy, opts.oneClient));
      });
    });
  }

  get port(): number {
    return (this.wss.address() as AddressInfo).port;
  }

  get host(): string {
    return (this.wss.address() as AddressInfo).address;
  }

  get clientCount(): number {
    return this.connections.size;
  }

  /** Declares a topic the process publishes (or hosts); `latch` replays the last message to late subscribers. */
  advertise(topic: string, type: string, opts: { latch?: boolean } = {}): void {
    const t = this.topic(topic);
    t.type = type;
    if (opts.latch) t.latch = true;
  }

  /** In-process subscription to what clients publish on `topic`; returns the unsubscriber. */
  subscribe(topic: string, type: string, handler: TopicHandler): () => void {
    const t = this.topic(topic);
    t.type ??= type;
    t.handlers.add(handler);
    return () => t.handlers.delete(handler);
  }

  /**
   * Sends a message to every client subscribed to `topic`. It is encoded once for all of them, and
   * not at all when nobody subscribes and the topic is not latched.
   */
  publish(topic: string, msg: JsonObject): void {
    const t = this.topic(topic);
    if (this.policy?.viewOf && this.policy.viewed.has(topic)) return this.fanOutViews(t, topic, msg);
    if (t.latch || this.hasSubscribers(topic)) this.fanOut(t, topic, encodeServerOp({ op: 'publish', topic, msg }));
  }

  /** Like `publish`, for a message the caller encodes itself; `encodeMsg` (its JSON text) is called only when needed. */
  publishJson(topic: string, encodeMsg: () => string): void {
    const t = this.topic(topic);
    if (t.latch || this.hasSubscribers(topic)) this.fanOut(t, topic, encodePublishFrame(topic, encodeMsg()));
  }

  /**
   * Runs `publishes` with every client's TCP socket corked, so the frames it sends go out in one
   * write per client instead of one each (a tick's clock, scans and odometry, say).
   */
  corked(publishes: () => void): void {
    const sockets = [...this.connections].flatMap((c) => {
      const tcp = (c.socket as unknown as { _socket?: { cork(): void; uncork(): void } })._socket;
      return tcp ? [tcp] : [];
    });
    for (const tcp of sockets) tcp.cork();
    try {
      publishes();
    } finally {
      for (const tcp of sockets) tcp.uncork();
    }
  }

  hasSubscribers(topic: string): boolean {
    for (const c of this.connections) if (c.subscriptions.has(topic)) return true;
    return false;
  }

  /** Closes every connection and the listening socket. Calling it again returns the same promise. */
  close(): Promise<void> {
    this.closing ??= new Promise<void>((resolve) => {
      for (const c of this.connections) c.socket.close(1001, 'server shutting down');
      const forceAfter = setTimeout(() => {
        for (const c of this.connections) c.socket.terminate();
      }, 500);
      forceAfter.unref();
      this.wss.close(() => {
        clearTimeout(forceAfter);
        resolve();
      });
    });
    return this.closing;
  }

  private topic(name: string): Topic {
    let t = this.topics.get(name);
    if (!t) {
      t = { latch: false, handlers: new Set() };
      this.topics.set(name, t);
    }
    return t;
  }

  private accept(socket: WebSocket, address: string, port: number): void {
    const remote = `${address}:${port}`;
    if (this.oneClient && this.connections.size) {
      const holder = [...this.connections][0];
      this.log(`bridge: refused ${remote}: this link already has its client (${holder.remote})`);
      socket.close(1008, 'this link already has its client');
      return;
    }
    const conn: Connection = { id: this.nextClientId++, remote, address, socket, subscriptions: new Map(), advertised: new Set() };
    this.connections.add(conn);
    socket.on('message', (data, isBinary) => {
      if (isBinary) {
        this.onRefused?.({ notAllowed: false, message: 'a binary frame', remote });
        return this.status(conn, 'error', 'binary frames are not supported; send JSON text frames');
      }
      this.handle(conn, data.toString());
    });
    socket.on('close', (code) => {
      this.connections.delete(conn);
      this.onClient?.('disconnected', conn, code);
    });
    socket.on('error', (err) => this.log(`bridge: client ${remote}: ${err.message}`));
    this.onClient?.('connected', conn);
  }

  private handle(conn: Connection, text: string): void {
    const parsed = parseClientOp(text);
    if (!parsed.ok) {
      this.onRefused?.({ notAllowed: false, message: parsed.error, remote: conn.remote });
      return this.status(conn, 'error', parsed.error, parsed.id);
    }
    const op = parsed.op;
    try {
      this.apply(conn, op);
    } catch (err) {
      const message = err instanceof Error ? err.message : String(err);
      if (!(err instanceof ProtocolError)) this.log(`bridge: handler for ${op.topic} failed: ${message}`);
      this.onRefused?.({ op: op.op, topic: op.topic, notAllowed: err instanceof NotAllowedError, message, remote: conn.remote });
      this.status(conn, 'error', `${op.op} ${op.topic}: ${message}`, op.id);
    }
  }

  private apply(conn: Connection, op: ClientOp): void {
    switch (op.op) {
      case 'advertise': {
        const t = this.topic(op.topic);
        if (t.type && t.type !== op.type) throw new ProtocolError(`topic already has type ${t.type}, not ${op.type}`);
        t.type = op.type;
        if (op.latch) t.latch = true;
        conn.advertised.add(op.topic);
        return;
      }
      case 'unadvertise':
        if (!conn.advertised.delete(op.topic))
          this.status(conn, 'warning', `unadvertise ${op.topic}: this client had not advertised it`, op.id);
        return;
      case 'subscribe': {
        const refused = this.policy?.subscribe(conn.remote, op.topic);
        if (refused) throw new NotAllowedError(refused);
        const t = this.topic(op.topic);
        if (op.type && t.type && t.type !== op.type) throw new ProtocolError(`topic has type ${t.type}, not ${op.type}`);
        if (op.type) t.type ??= op.type;
        if (op.compression && op.compression !== 'none')
          this.status(
            conn,
            'warning',
            `subscribe ${op.topic}: compression "${op.compression}" is not supported, sending plain JSON`,
            op.id,
          );
        let ids = conn.subscriptions.get(op.topic);
        if (!ids) {
          ids = new Set();
          conn.subscriptions.set(op.topic, ids);
        }
        ids.add(op.id ?? '');
        if (t.latchedMsg) this.send(conn, this.viewFrame(conn, op.topic, t.latchedMsg));
        else if (t.latched) this.send(conn, t.latched);
        return;
      }
      case 'unsubscribe': {
        const ids = conn.subscriptions.get(op.topic);
        if (!ids) return this.status(conn, 'warning', `unsubscribe ${op.topic}: not subscribed`, op.id);
        if (op.id === undefined || ids.size === 1) conn.subscriptions.delete(op.topic);
        else ids.delete(op.id);
        return;
      }
      case 'publish': {
        const refused = this.policy?.publish(conn.remote, op.topic, op.msg);
        if (refused) throw new NotAllowedError(refused);
        const t = this.topics.get(op.topic);
        if (!t?.type && !conn.advertised.has(op.topic))
          throw new ProtocolError('topic is not advertised; advertise it with its type first');
        for (const handler of t!.handlers) handler(op.msg, conn);
        if (t!.latch || this.hasSubscribers(op.topic))
          this.fanOut(t!, op.topic, encodeServerOp({ op: 'publish', topic: op.topic, msg: op.msg }));
        return;
      }
    }
  }

  private fanOut(t: Topic, topic: string, frame: string): void {
    if (t.latch) t.latched = frame;
    for (const c of this.connections) if (c.subscriptions.has(topic)) this.send(c, frame);
  }

  /** Each subscriber gets the message as the policy lets that client see it (its own car's part of the status, say). */
  private fanOutViews(t: Topic, topic: string, msg: JsonObject): void {
    if (t.latch) t.latchedMsg = msg;
    for (const c of this.connections) if (c.subscriptions.has(topic)) this.send(c, this.viewFrame(c, topic, msg));
  }

  private viewFrame(conn: Connection, topic: string, msg: JsonObject): string {
    const view = this.policy?.viewOf?.(conn.remote, topic, msg) ?? msg;
    return encodeServerOp({ op: 'publish', topic, msg: view });
  }

  private send(conn: Connection, frame: string): void {
    if (conn.socket.readyState !== conn.socket.OPEN) return;
    if (conn.socket.bufferedAmount > MAX_BUFFERED_BYTES) {
      this.dropped++;
      return;
    }
    conn.socket.send(frame);
  }

  private status(conn: Connection, level: StatusLevel, msg: string, id?: string): void {
    this.send(conn, encodeServerOp({ op: 'status', level, msg, ...(id !== undefined ? { id } : {}) }));
  }
}

/** The policy refused the op's topic to this client. */
class NotAllowedError extends ProtocolError {}
