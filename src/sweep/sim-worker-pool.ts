import { Worker } from 'node:worker_threads';
import type { RunOutcome } from '../api/run-simulated.js';
import { CavsimError, type ErrorCode } from '../errors.js';
import type { RunRequest } from './run-points.js';

type RunReply =
  | { seq: number; ok: true; outcome: RunOutcome }
  | { seq: number; ok: false; error: { code: ErrorCode; message: string; hint?: string; details: string[] } };
export type Reply = RunReply | typeof POOL_CLOSED;

/** Asks a worker to end its ns-3 processes before it is terminated; it answers POOL_CLOSED. */
export const CLOSE_POOL = Object.freeze({ close: true as const });
export const POOL_CLOSED = Object.freeze({ closed: true as const });

/** How long a worker gets to end its ns-3 processes (their own wait is 1.5 s) before it is terminated anyway. */
const CLOSE_WAIT_MS = 3000;

/** What the pool needs of a worker thread; tests pass fakes. */
export interface PoolWorker {
  on(event: 'message', listener: (reply: Reply) => void): unknown;
  on(event: 'error', listener: (err: Error) => void): unknown;
  on(event: 'exit', listener: (code: number) => void): unknown;
  off(event: 'message', listener: (reply: Reply) => void): unknown;
  off(event: 'error', listener: (err: Error) => void): unknown;
  off(event: 'exit', listener: (code: number) => void): unknown;
  postMessage(message: unknown): void;
  terminate(): Promise<number>;
}

export type StartWorker = (workerFile: string) => PoolWorker;

const startThread: StartWorker = (workerFile) => new Worker(workerFile);

interface Slot {
  worker: PoolWorker;
  busy: boolean;
}

/**
 * Up to `size` worker threads, each running one simulated scenario at a time. A thread is started
 * only when a run finds none free (a thread costs tens of megabytes and a second to warm up), so
 * a sweep of two runs starts two. `run` waits for a free thread; `close` ends every thread and is
 * harmless to call twice.
 */
export function startSimWorkerPool(workerFile: string, size: number, startWorker: StartWorker = startThread) {
  const slots: Slot[] = [];
  const waiting: ((slot: Slot) => void)[] = [];
  let seq = 0;
  let closed = false;

  const acquire = () =>
    new Promise<Slot>((resolve) => {
      let free = slots.find((s) => !s.busy);
      if (!free && slots.length < size) {
        free = { worker: startWorker(workerFile), busy: false };
        slots.push(free);
      }
      if (free) {
        free.busy = true;
        resolve(free);
      } else waiting.push(resolve);
    });

  const release = (slot: Slot) => {
    const next = waiting.shift();
    if (next) next(slot);
    else slot.busy = false;
  };

  /** A thread that crashed fails its run only; the next run gets a fresh thread. */
  const replace = (slot: Slot) => {
    if (closed) return;
    void slot.worker.terminate();
    slot.worker = startWorker(workerFile);
  };

  const run = async (request: RunRequest): Promise<RunOutcome> => {
    if (closed) throw new Error('the worker pool is closed');
    const slot = await acquire();
    const mine = ++seq;
    try {
      const reply = await new Promise<RunReply>((resolve, reject) => {
        const onMessage = (m: Reply) => {
          if (!('seq' in m) || m.seq !== mine) return;
          cleanup();
          resolve(m);
        };
        const onError = (err: Error) => {
          cleanup();
          replace(slot);
          reject(err);
        };
        const onExit = (code: number) => {
          cleanup();
          replace(slot);
          reject(new Error(`sweep worker thread exited (code ${code}) during run ${request.runId}`));
        };
        const cleanup = () => {
          slot.worker.off('message', onMessage);
          slot.worker.off('error', onError);
          slot.worker.off('exit', onExit);
        };
        slot.worker.on('message', onMessage);
        slot.worker.on('error', onError);
        slot.worker.on('exit', onExit);
        slot.worker.postMessage({ seq: mine, request });
      });
      if (reply.ok) return reply.outcome;
      throw new CavsimError(reply.error.code, reply.error.message, reply.error.hint, reply.error.details);
    } finally {
      release(slot);
    }
  };

  const close = async () => {
    if (closed) return;
    closed = true;
    await Promise.all(slots.map((s) => endWorker(s.worker)));
  };

  /** Threads running now (started and not ended by close). */
  const threads = () => (closed ? 0 : slots.length);

  return { run, close, threads };
}

/**
 * Ends a worker after its ns-3 processes: terminating a thread at once stops its event loop before
 * it can wait for them, and the sweep then exited with ns-3 still running.
 */
async function endWorker(worker: PoolWorker): Promise<void> {
  await new Promise<void>((resolve) => {
    const done = () => {
      clearTimeout(timer);
      worker.off('message', onMessage);
      worker.off('exit', done);
      resolve();
    };
    const onMessage = (m: Reply) => {
      if ('closed' in m) done();
    };
    const timer = setTimeout(done, CLOSE_WAIT_MS);
    worker.on('message', onMessage);
    worker.on('exit', done);
    worker.postMessage(CLOSE_POOL);
  });
  await worker.terminate();
}
