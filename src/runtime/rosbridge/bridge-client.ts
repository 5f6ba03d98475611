import type { JsonObject, StatusLevel } from './protocol.js';
import { TextWebSocket } from './text-websocket.js';

export interface BridgeStatus {
  level: StatusLevel;
  msg: string;
  id?: string;
}

export interface ConnectOptions {
  /** Keep retrying a refused or failed connection until this much time has passed [ms]. */
  timeoutMs?: number;
  retryDelayMs?: number;
  /** The connection's source port (a V2V relay's privileged one, which the simulator knows it by). */
  localPort?: number;
}

/**
 * A small rosbridge v2 client: advertise, publish, subscribe. Used by the vehicle process and
 * the orchestrator; any other rosbridge client (roslibjs, roslibpy) speaks to the same server.
 */
export class BridgeClient {
  private readonly handlers = new Map<string, Set<(msg: JsonObject) => void>>();
  private readonly statusHandlers = new Set<(s: BridgeStatus) => void>();
  private nextId = 1;
  /** Resolves when the connection ends, for whatever reason. */
  readonly closed: Promise<{ code: number; reason: string }>;

  private constructor(private readonly socket: TextWebSocket) {
    this.closed = new Promise((resolve) => socket.on('close', (code, reason) => resolve({ code, reason })));
    socket.on('message', (text) => this.dispatch(text));
  }

  static async connect(url: string, opts: ConnectOptions = {}): Promise<BridgeClient> {
    const deadline = Date.now() + (opts.timeoutMs ?? 0);
    for (;;) {
      try {
        return new BridgeClient(await TextWebSocket.open(url, { localPort: opts.localPort }));
      } catch (err) {
        if (Date.now() + (opts.retryDelayMs ?? 200) > deadline) {
          throw new Error(`cannot connect to ${url}: ${err instanceof Error ? err.message : String(err)}`);
        }
        await new Promise((r) => setTimeout(r, opts.retryDelayMs ?? 200));
      }
    }
  }

  get isOpen(): boolean {
    return this.socket.readyState === 'open';
  }

  advertise(topic: string, type: string, opts: { latch?: boolean } = {}): void {
    this.send({ op: 'advertise', id: this.id('advertise', topic), topic, type, ...(opts.latch ? { latch: true } : {}) });
  }

  unadvertise(topic: string): void {
    this.send({ op: 'unadvertise', topic });
  }

  publish(topic: string, msg: JsonObject): void {
    this.send({ op: 'publish', topic, msg });
  }

  subscribe(topic: string, type: string, handler: (msg: JsonObject) => void): () => void {
    let set = this.handlers.get(topic);
    if (!set) {
      set = new Set();
      this.handlers.set(topic, set);
      this.send({ op: 'subscribe', id: this.id('subscribe', topic), topic, type });
    }
    set.add(handler);
    return () => {
      set!.delete(handler);
      if (set!.size === 0 && this.handlers.get(topic) === set) {
        this.handlers.delete(topic);
        this.send({ op: 'unsubscribe', topic });
      }
    };
  }

  onStatus(handler: (s: BridgeStatus) => void): () => void {
    this.statusHandlers.add(handler);
    return () => this.statusHandlers.delete(handler);
  }

  /**
   * Sends what is queued, then closes. Harmless when already closed. A peer that does not answer the
   * close within `answerMs` (its network namespace gone with it, say) has its connection dropped.
   */
  async close(answerMs = 30_000): Promise<void> {
    this.socket.close(1000);
    const drop = setTimeout(() => this.socket.terminate(), answerMs);
    try {
      await this.closed;
    } finally {
      clearTimeout(drop);
    }
  }

  private id(kind: string, topic: string): string {
    return `${kind}:${topic}:${this.nextId++}`;
  }

  private send(op: JsonObject): void {
    this.socket.send(JSON.stringify(op));
  }

  private dispatch(text: string): void {
    let op: JsonObject;
    try {
      op = JSON.parse(text) as JsonObject;
    } catch {
      return;
    }
    if (op.op === 'publish' && typeof op.topic === 'string' && typeof op.msg === 'object' && op.msg !== null) {
      for (const h of this.handlers.get(op.topic) ?? []) h(op.msg as JsonObject);
    } else if (op.op === 'status') {
      const s: BridgeStatus = { level: op.level as StatusLevel, msg: String(op.msg), ...(typeof op.id === 'string' ? { id: op.id } : {}) };
      for (const h of this.statusHandlers) h(s);
    }
  }
}
