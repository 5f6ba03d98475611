import { Worker } from 'node:worker_threads';
import type { RunOutcome } from '../api/run-simulated.js';
import { CavsimError, type ErrorCode } from '../errors.js';
import type { RunRequest } from './run-points.js';

type Reply = { seq: number; ok: true; outcome: RunOutcome } | { seq: number; ok: false; error: { code: ErrorCode; message: string; hint?: string; details: string[] } };

interface Slot {
  worker: Worker;
  busy: boolean;
}

/**
 * `size` worker threads, each running one simulated scenario at a time. `run` waits for a free
 * thread; `close` ends every thread and is harmless to call twice.
 */
export function startSimWorkerPool(workerFile: string, size: number) {
  const slots: Slot[] = Array.from({ length: size }, () => ({ worker: new Worker(workerFile), busy: false }));
  const waiting: ((slot: Slot) => void)[] = [];
  let seq = 0;
  let closed = false;

  const acquire = () =>
    new Promise<Slot>((resolve) => {
      const free = slots.find((s) => !s.busy);
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
    slot.worker = new Worker(workerFile);
  };

  const run = async (request: RunRequest): Promise<RunOutcome> => {
    if (closed) throw new Error('the worker pool is closed');
    const slot = await acquire();
    const mine = ++seq;
    try {
      const reply = await new Promise<Reply>((resolve, reject) => {
        const onMessage = (m: Reply) => {
          if (m.seq !== mine) return;
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
    await Promise.all(slots.map((s) => s.worker.terminate()));
  };

  return { run, close };
}
