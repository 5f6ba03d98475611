import { EventEmitter } from 'node:events';
import { describe, expect, it } from 'vitest';
import type { RunOutcome } from '../../../src/api/run-simulated.js';
import { chooseJobs } from '../../../src/sweep/run-one.js';
import type { RunRequest } from '../../../src/sweep/run-points.js';
import { type PoolWorker, startSimWorkerPool } from '../../../src/sweep/sim-worker-pool.js';

/** A stand-in worker thread: answers each run after a tick; `crashOn` makes it exit during that run id. */
class FakeWorker extends EventEmitter implements PoolWorker {
  terminated = false;
  /** What happened at the end, in order. */
  readonly ending: string[] = [];
  constructor(private readonly crashOn?: string) {
    super();
  }
  postMessage(msg: { seq: number; request: RunRequest } | { close: true }): void {
    if ('close' in msg) {
      this.ending.push('asked to close');
      setTimeout(() => {
        this.ending.push('closed its ns-3');
        this.emit('message', { closed: true });
      }, 5);
      return;
    }
    setTimeout(() => {
      if (msg.request.runId === this.crashOn) this.emit('exit', 1);
      else this.emit('message', { seq: msg.seq, ok: true, outcome: { runDir: msg.request.runId } as unknown as RunOutcome });
    }, 1);
  }
  async terminate(): Promise<number> {
    this.terminated = true;
    this.ending.push('terminated');
    return 0;
  }
}

const request = (runId: string): RunRequest => ({ runtime: 'sim', scenarioFile: 's.yaml', overrides: [], runsDir: '/runs', runId });

function fakePool(size: number, crashOn?: string) {
  const started: FakeWorker[] = [];
  const pool = startSimWorkerPool('worker.js', size, () => {
    const w = new FakeWorker(crashOn);
    started.push(w);
    return w;
  });
  return { pool, started };
}

describe('the sweep worker pool', () => {
  it('starts no thread before a run, and a 2-run sweep with --jobs 64 starts 2', async () => {
    const { pool, started } = fakePool(64);
    expect(started).toHaveLength(0);
    const outcomes = await Promise.all([pool.run(request('p000')), pool.run(request('p001'))]);
    expect(outcomes.map((o) => o.runDir)).toEqual(['p000', 'p001']);
    expect(started).toHaveLength(2);
    expect(pool.threads()).toBe(2);
    await pool.close();
    expect(started.every((w) => w.terminated)).toBe(true);
    expect(pool.threads()).toBe(0);
  });

  it('lets each thread end its ns-3 processes before terminating it (a sweep left ns-3 running after it exited)', async () => {
    const { pool, started } = fakePool(2);
    await Promise.all([pool.run(request('a')), pool.run(request('b'))]);
    await pool.close();
    for (const w of started) expect(w.ending).toEqual(['asked to close', 'closed its ns-3', 'terminated']);
  });

  it('reuses a free thread rather than starting another, and never starts more than its size', async () => {
    const { pool, started } = fakePool(3);
    for (const id of ['a', 'b', 'c']) await pool.run(request(id));
    expect(started).toHaveLength(1);
    await Promise.all(Array.from({ length: 10 }, (_, i) => pool.run(request(`q${i}`))));
    expect(started).toHaveLength(3);
    await pool.close();
  });

  it('a thread that dies fails its run only; the next run gets a fresh thread', async () => {
    const { pool, started } = fakePool(1, 'boom');
    await expect(pool.run(request('boom'))).rejects.toThrow(/exited \(code 1\) during run boom/);
    expect(started[0].terminated).toBe(true);
    await expect(pool.run(request('fine'))).resolves.toMatchObject({ runDir: 'fine' });
    expect(started).toHaveLength(2);
    await pool.close();
  });
});

describe('runs at once', () => {
  it('caps --jobs to the cores, with a note, and to the runs planned', () => {
    expect(chooseJobs({ requested: 64, runtime: 'sim', cores: 8, runs: 2 })).toEqual({
      jobs: 2,
      note: '--jobs 64: this machine has 8 cores; running at most 8 at once',
    });
    expect(chooseJobs({ requested: 64, runtime: 'sim', cores: 8, runs: 100 })).toMatchObject({ jobs: 8 });
    expect(chooseJobs({ requested: 4, runtime: 'sim', cores: 8, runs: 100 })).toEqual({ jobs: 4 });
    expect(chooseJobs({ requested: 4, runtime: 'docker', cores: 2 })).toMatchObject({ jobs: 2 });
  });

  it('defaults to every core for simulated runs and one for emulated runs, without a note', () => {
    expect(chooseJobs({ runtime: 'sim', cores: 8, runs: 100 })).toEqual({ jobs: 8 });
    expect(chooseJobs({ runtime: 'sim', cores: 8, runs: 3 })).toEqual({ jobs: 3 });
    expect(chooseJobs({ runtime: 'sim', cores: 8 })).toEqual({ jobs: 8 });
    expect(chooseJobs({ runtime: 'docker', cores: 8, runs: 100 })).toEqual({ jobs: 1 });
  });
});
