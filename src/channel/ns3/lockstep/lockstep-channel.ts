import { loadScaledTimeout } from '../../../util/load-scaled-timeout.js';
import {
  CHANNEL_LOSS_REASONS,
  type ChannelBusySample,
  type ChannelFrame,
  type Delivery,
  type LossReason,
  type V2VChannel,
} from '../../frames.js';
import { LineFields } from './line-fields.js';
import { channelBusyWindowNs } from './lockstep-argv.js';
import { LockstepProcess, type ProcessEnd } from './lockstep-process.js';
import type { LockstepProcessPool } from './process-pool.js';

/** Where each car is and how it moves, in node (vehicle index) order. */
export interface NodeMotion {
  x: number;
  y: number;
  vx: number;
  vy: number;
}

export interface LockstepChannelOptions {
  binary: string;
  argv: readonly string[];
  /** Vehicle names in node order. */
  names: readonly string[];
  /** Called at each transmission time and sync, for channels whose outcome depends on positions. */
  motion?: () => readonly NodeMotion[];
  /** Time from a send call until the frame reaches the radio [s], drawn per frame; none when omitted. */
  stackDelay?: () => number;
  /**
   * Nothing in the run acts on a delivery (no car's apps read what they receive): `advanceTo` does
   * not wait for ns-3, whose outcomes are logged as they come back, and `settle` waits at the end.
   */
  outcomesOnlyLogged?: boolean;
  /** How long a quiet machine may take to set up (default 20 s); scaled by the machine's load (load-scaled-timeout.ts). */
  readyTimeoutMs?: number;
  /** Where the process comes from and goes back to when the run ends cleanly; without one, the run starts its own and ends it. */
  pool?: LockstepProcessPool;
}

/** ns-3 sets up in ~30 ms; a quiet machine that gives it no READY within this has a broken program. */
const READY_QUIET_MS = 20_000;
const LOSS_REASONS: ReadonlySet<string> = new Set<LossReason>(CHANNEL_LOSS_REASONS);
const ns = (seconds: number) => Math.round(seconds * 1e9);
/** Positions go to ns-3 in integer micrometres (and velocities in um/s): far cheaper than a double's shortest text. */
const um = (metres: number) => Math.round(metres * 1e6);
const SPACE = 0x20;
const CODE_R = 0x52;
const CODE_L = 0x4c;
/** Steps whose commands go to ns-3 in one write when nothing waits for its answers. */
const BATCH_STEPS = 10;

/**
 * The V2V channel as a real ns-3 process in lock-step virtual time (ns3-scripts/lockstep-channel.cc).
 * Frames are buffered with their send times; `advanceTo(now)` hands them (and the cars' positions)
 * to ns-3, runs it to `now` and collects what each frame did at each receiver. While no frame is
 * in flight and none was sent, ns-3 has nothing to do and is not asked (over wifi, once a 100 ms
 * window for its channel busy ratios): that keeps a run with few messages almost as fast as the
 * builtin model. In a run where nothing acts on a delivery (beacons that are only measured), Node
 * does not wait at all: ns-3 gets the same commands, batched, and its outcomes are logged as they
 * come back. A process from a pool (process-pool.ts) serves many runs,
 * one at a time: a run that ends cleanly hands it back for the next.
 */
export class LockstepChannel<T> implements V2VChannel<T> {
  /** Frames in flight with the number of receivers whose outcome has not come back. */
  private readonly frames = new Map<number, { frame: ChannelFrame<T>; open: number }>();
  private readonly nodeOf: ReadonlyMap<string, number>;
  private readonly outcomes: Delivery<T>[] = [];
  /** The window ns-3 reports each node's busy time over [ns] (wifi), and the windows reported and not yet taken. */
  private readonly busyWindowNs: number | undefined;
  private readonly busy: ChannelBusySample[] = [];
  private askedNs = 0;
  private pending: string[] = [];
  private readonly fields = new LineFields();
  private nextEventNs = -1;
  private frameCount = 0;
  private positionsAtNs = -1;
  private readyTimer: NodeJS.Timeout | undefined;
  private isReady = false;
  private waiting: { resolve: () => void; reject: (e: Error) => void } | undefined;
  /** An advance already asked of ns-3 (by `prefetch`) and its answer. */
  private inFlight: { toNs: number; answered: Promise<void> } | undefined;
  private exit: ProcessEnd | undefined;
  private closed = false;
  /** Advances asked of ns-3 whose answer has not come back (outcomes-only-logged runs). */
  private unanswered = 0;
  private stepsUnsent = 0;
  /** How many times ns-3 was asked to advance (the rest were skipped). */
  syncs = 0;

  get pid(): number | undefined {
    return this.process.pid;
  }

  private constructor(
    private readonly process: LockstepProcess,
    private readonly opts: LockstepChannelOptions,
  ) {
    this.nodeOf = new Map(opts.names.map((n, i) => [n, i]));
    this.busyWindowNs = channelBusyWindowNs(opts.argv);
    this.ready = new Promise<void>((resolve, reject) => {
      this.readyResolve = resolve;
      this.readyReject = reject;
    });
    this.ready.catch(() => {}); // a death is reported by the step that needs ns-3
  }

  /**
   * Begins a run on a serving process and returns at once: ns-3 sets up while the run begins, and
   * commands wait in the pipe until it reads them. A process that is not ready within the timeout
   * is killed, which fails the next step with its name.
   */
  static start<T>(opts: LockstepChannelOptions): LockstepChannel<T> {
    const process = opts.pool ? opts.pool.acquire(opts.binary) : LockstepProcess.spawn(opts.binary);
    const channel = new LockstepChannel<T>(process, opts);
    const timeout = loadScaledTimeout(opts.readyTimeoutMs ?? READY_QUIET_MS);
    channel.readyTimer = setTimeout(() => {
      channel.timedOut = `no READY within ${timeout.describe}`;
      process.kill();
    }, timeout.ms);
    try {
      process.beginRun(opts.argv, { line: (text) => channel.onStdoutLine(text), ended: (how) => channel.onEnded(how) });
    } catch (err) {
      clearTimeout(channel.readyTimer);
      process.close();
      throw err;
    }
    return channel;
  }

  private timedOut: string | undefined;

  private onEnded(how: ProcessEnd): void {
    this.exit = how;
    clearTimeout(this.readyTimer);
    this.readyReject(this.deathError());
    this.fail(this.deathError());
  }

  /** Resolves when ns-3 has set up (read its arguments and files); rejects if it died first. */
  readonly ready: Promise<void>;
  private readyResolve!: () => void;
  private readyReject!: (e: Error) => void;

  send(frame: ChannelFrame<T>, now: number): void {
    // ns-3 ends on a frame to its own sender: the runtimes refuse those where they are sent, never here
    if (!frame.broadcast && frame.to[0] === frame.from) throw new Error(`a frame from ${frame.from} to itself is not a channel frame`);
    const number = ++this.frameCount;
    this.frames.set(number, { frame, open: frame.to.length });
    this.queuePositions(ns(now));
    const dest = frame.broadcast ? -1 : this.node(frame.to[0]);
    const at = ns(now + (this.opts.stackDelay?.() ?? 0));
    this.pending.push(`T ${number} ${this.node(frame.from)} ${dest} ${frame.sizeBytes} ${at}`);
  }

  async advanceTo(now: number): Promise<void> {
    const nowNs = ns(now);
    if (this.opts.outcomesOnlyLogged) return this.advanceWithoutWaiting(nowNs);
    if (this.inFlight) {
      const { toNs, answered } = this.inFlight;
      this.inFlight = undefined;
      await answered;
      if (toNs === nowNs && !this.pending.length) return;
    }
    if (this.exit) throw this.deathError();
    if (!this.needsSync(nowNs)) {
      // ns-3 reports a busy window only when asked past its end; no positions, so its motion is what it would have been
      if (this.busyWindowEndsBy(nowNs)) await this.ask(nowNs);
      return;
    }
    this.queuePositions(nowNs);
    await this.ask(nowNs);
  }

  private busyWindowEndsBy(toNs: number): boolean {
    const w = this.busyWindowNs;
    return w !== undefined && Math.floor(toNs / w) > Math.floor(this.askedNs / w);
  }

  /**
   * Positions and an advance for every step (a waiting run skips the steps with nothing in
   * flight), the frames as they are sent, written BATCH_STEPS steps at a time; what comes back is
   * read whenever Node's loop reads its input. The frames and their times are a waiting run's, and
   * so are the outcomes (tested).
   */
  private advanceWithoutWaiting(nowNs: number): void {
    if (this.exit) throw this.deathError();
    this.queuePositions(nowNs);
    this.pending.push(`A ${nowNs}`);
    this.unanswered++;
    if (++this.stepsUnsent >= BATCH_STEPS) this.writePending();
  }

  private writePending(): void {
    if (!this.pending.length) return;
    this.process.write(`${this.pending.join('\n')}\n`);
    this.pending = [];
    this.stepsUnsent = 0;
  }

  async settle(now: number): Promise<void> {
    if (!this.opts.outcomesOnlyLogged) return this.advanceTo(now);
    this.advanceWithoutWaiting(ns(now));
    this.writePending();
    if (!this.unanswered) return;
    await new Promise<void>((resolve, reject) => (this.waiting = { resolve, reject }));
  }

  prefetch(next: number): void {
    if (this.opts.outcomesOnlyLogged) return;
    const nextNs = ns(next);
    if (this.inFlight || this.exit || !this.needsSync(nextNs)) return;
    const answered = this.ask(nextNs);
    answered.catch(() => {}); // observed by the advanceTo that takes it
    this.inFlight = { toNs: nextNs, answered };
  }

  private needsSync(toNs: number): boolean {
    return this.pending.length > 0 || (this.nextEventNs >= 0 && this.nextEventNs <= toNs);
  }

  private ask(toNs: number): Promise<void> {
    this.askedNs = toNs;
    this.pending.push(`A ${toNs}`);
    const text = `${this.pending.join('\n')}\n`;
    this.pending = [];
    this.syncs++;
    const answered = new Promise<void>((resolve, reject) => (this.waiting = { resolve, reject }));
    this.process.write(text);
    return answered;
  }

  takeChannelBusy(now: number): ChannelBusySample[] {
    let n = 0;
    while (n < this.busy.length && this.busy[n].end <= now + 1e-12) n++;
    return n ? this.busy.splice(0, n) : [];
  }

  deliverDue(now: number): Delivery<T>[] {
    let n = 0;
    while (n < this.outcomes.length && this.outcomes[n].at <= now + 1e-12) n++;
    return n ? this.outcomes.splice(0, n) : [];
  }

  /**
   * Ends the run. After a clean run (every request answered) the process goes back to the pool
   * for the next; otherwise it is ended, which the run does not wait for.
   */
  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    clearTimeout(this.readyTimer);
    // what waits for ns-3 to have read its files (the walls file) must not wait forever
    if (!this.isReady) this.readyReject(new Error('the run ended before ns-3 was ready'));
    if (this.exit) return;
    if (this.isReady && !this.waiting && !this.inFlight && !this.unanswered && !this.pending.length) {
      this.process.finishRun();
      if (this.opts.pool) this.opts.pool.release(this.process);
      else this.process.close();
    } else {
      this.process.close();
    }
  }

  /** Resolves when the process has exited. */
  get exited(): Promise<void> {
    return this.process.exited;
  }

  private node(name: string): number {
    const i = this.nodeOf.get(name);
    if (i === undefined) throw new Error(`no ns-3 node for vehicle ${name}`);
    return i;
  }

  /** Positions matter to a radio channel only: they are sent once per time a frame is sent or ns-3 advances. */
  private queuePositions(atNs: number): void {
    if (!this.opts.motion || this.positionsAtNs === atNs) return;
    this.positionsAtNs = atNs;
    const motion = this.opts.motion();
    for (let i = 0; i < motion.length; i++) {
      const m = motion[i];
      this.pending.push(`P ${i} ${atNs} ${um(m.x)} ${um(m.y)} ${um(m.vx)} ${um(m.vy)}`);
    }
  }

  private onStdoutLine(line: string): void {
    try {
      this.onLine(line);
    } catch (err) {
      this.fail(new Error(`ns-3 channel process wrote an unreadable line "${line.slice(0, 120)}": ${(err as Error).message}`));
      this.process.kill();
    }
  }

  private onLine(line: string): void {
    const kind = line.charCodeAt(0);
    if (line.length > 1 && line.charCodeAt(1) === SPACE && (kind === CODE_R || kind === CODE_L))
      return this.onOutcome(line, kind === CODE_L);
    const f = line.split(' ');
    if (f[0] === 'READY') {
      clearTimeout(this.readyTimer);
      this.isReady = true;
      return this.readyResolve();
    }
    if (f[0] === 'B') return this.onBusy(f);
    if (f[0] === 'D') {
      this.nextEventNs = Number(f[1]);
      if (this.opts.outcomesOnlyLogged && --this.unanswered > 0) return;
      const w = this.waiting;
      this.waiting = undefined;
      w?.resolve();
      return;
    }
    throw new Error('unknown record');
  }

  /** `R <frame> <node> <t> <rx_dbm> <los>` or `L <frame> <node> <t> <reason> <rx_dbm> <los>`. */
  private onOutcome(line: string, lost: boolean): void {
    const f = this.fields.reset(line);
    f.text(); // R or L
    const number = f.integer();
    const entry = this.frames.get(number);
    const to = this.opts.names[f.integer()];
    if (!entry || to === undefined) throw new Error('unknown frame or node');
    if (--entry.open === 0) this.frames.delete(number);
    const frame = entry.frame;
    const at = f.integer() / 1e9;
    const reason = lost ? f.text() : undefined;
    const power = f.text();
    const los = f.text();
    if (reason !== undefined && !LOSS_REASONS.has(reason)) throw new Error(`unknown loss reason ${reason}`);
    // built field by field: spreads cost far more at a hundred thousand outcomes a run
    const outcome: Delivery<T> = { payload: frame.payload, to, at };
    if (reason !== undefined) outcome.lost = reason as LossReason;
    if (power !== 'nan') outcome.rxPowerDbm = Number(power);
    if (los === '1' || los === '0') outcome.lineOfSight = los === '1';
    this.outcomes.push(outcome);
  }

  /** `B <node> <window end> <busy>`, in ns. */
  private onBusy(f: string[]): void {
    const car = this.opts.names[Number(f[1])];
    const endNs = Number(f[2]);
    const busyNs = Number(f[3]);
    const w = this.busyWindowNs;
    if (car === undefined || w === undefined || !Number.isInteger(endNs) || !(busyNs >= 0 && busyNs <= w))
      throw new Error('bad busy window');
    this.busy.push({ car, start: (endNs - w) / 1e9, end: endNs / 1e9, busyRatio: busyNs / w });
  }

  private deathError(): Error {
    const how = this.exit?.signal ? `was killed by ${this.exit.signal}` : `exited with status ${this.exit?.code}`;
    const tail = [this.exit?.stderrTail, this.timedOut].filter(Boolean).join('\n');
    return new Error(`ns-3 channel process (lock-step) ${how}${tail ? `: ${tail}` : ''}`);
  }

  private fail(err: Error): void {
    const w = this.waiting;
    this.waiting = undefined;
    w?.reject(err);
  }
}
