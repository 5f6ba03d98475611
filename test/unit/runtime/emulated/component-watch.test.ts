import { spawn } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import type { DockerPort } from '../../../../src/host/docker/docker-port.js';
import { readStartTime } from '../../../../src/host/exec/process-identity.js';
import { ComponentFailedError } from '../../../../src/run/outcome.js';
import { ComponentWatch, containerDeath, type Death } from '../../../../src/runtime/emulated/component-watch.js';

const death = (ms: number, d: Death | undefined = { exit_status: 1, signal: null, last_log_lines: ['bind EADDRINUSE'] }) =>
  new Promise<Death | undefined>((r) => setTimeout(() => r(d), ms));
const never = new Promise<never>(() => {});

describe('ComponentWatch', () => {
  it('a component dying rejects the running step at once, naming it', async () => {
    const watch = new ComponentWatch(50);
    watch.watch('vehicle car7 container', death(10));
    await expect(watch.guard(never)).rejects.toThrow('the vehicle car7 container exited with status 1 during the run: bind EADDRINUSE');
  });

  it("a step's own error gives way to a component death that explains it", async () => {
    const watch = new ComponentWatch(200);
    watch.watch('vehicle car7 container', death(30), { when: 'while starting' });
    const step = new Promise((_, reject) => setTimeout(() => reject(new Error('ip link set cv-1-7v netns 4242: No such process')), 5));
    const err = await watch.guard(step).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ComponentFailedError);
    expect((err as ComponentFailedError).failed.component).toBe('vehicle car7 container');
  });

  it("a step's own error stands when no component died", async () => {
    const watch = new ComponentWatch(20);
    await expect(watch.guard(Promise.reject(new Error('engine said no')))).rejects.toThrow('engine said no');
  });

  it('deaths once the run is ending, within the grace, or after close are not failures', async () => {
    const watch = new ComponentWatch(20);
    watch.watch('vehicle car0 container', death(10), { graceMs: 40 });
    setTimeout(() => watch.runEnding(), 20); // the simulator said "stopping" during the grace
    watch.watch('simulator container', new Promise((r) => setTimeout(() => r(undefined), 5))); // a normal end reports no death
    await new Promise((r) => setTimeout(r, 80));
    expect(watch.failure).toBeUndefined();
    const closed = new ComponentWatch(20);
    closed.watch('ns-3 channel', death(10));
    closed.close();
    await new Promise((r) => setTimeout(r, 30));
    expect(closed.failure).toBeUndefined();
    expect(closed.signal.aborted).toBe(true);
  });

  it('the first death wins', async () => {
    const watch = new ComponentWatch(20);
    watch.watch('control link', death(30));
    watch.watch('simulator container', death(10));
    await expect(watch.guard(never)).rejects.toThrow(/^the simulator container/);
    await new Promise((r) => setTimeout(r, 40));
    expect(watch.failure!.failed.component).toBe('simulator container');
  });

  it('a container whose process ends while the engine is silent is seen to die, and the engine is named', async () => {
    const child = spawn('sleep', ['30']);
    const process = { pid: child.pid!, startTime: readStartTime(child.pid!)! };
    const lost: string[] = [];
    const silentEngine = { waitContainer: () => never, logs: async () => '' } as unknown as DockerPort;
    const watching = containerDeath(silentEngine, 'cavsim-x-car1', new AbortController().signal, {
      process,
      onEngineLost: (m) => lost.push(m),
    });
    setTimeout(() => child.kill('SIGKILL'), 100);
    const d = await watching;
    expect(d).toMatchObject({ exit_status: null, how: expect.stringMatching(/while the Docker engine was not answering/) });
    expect(lost).toEqual(['it did not report the end of cavsim-x-car1']);
  }, 10_000);

  it('an engine that refuses every wait is asked again while the process lives; its silence at the end is remembered', async () => {
    const child = spawn('sleep', ['30']);
    const process = { pid: child.pid!, startTime: readStartTime(child.pid!)! };
    let waits = 0;
    const goneEngine = {
      waitContainer: async () => (waits++, Promise.reject(new Error('connect ECONNREFUSED /var/run/docker.sock'))),
      logs: async () => '',
    } as unknown as DockerPort;
    const watch = new ComponentWatch(20);
    const started = Date.now();
    const watching = containerDeath(goneEngine, 'cavsim-x-sim', watch.signal, { process, onEngineLost: watch.engineLost });
    await new Promise((r) => setTimeout(r, 700));
    expect(waits).toBeGreaterThan(2);
    expect(watch.engineProblem(started)).toBeUndefined();
    child.kill('SIGKILL');
    expect(await watching).toMatchObject({ how: expect.stringMatching(/not answering/) });
    expect(watch.engineProblem(started)).toMatch(
      /^the Docker engine stopped answering \d\.\d s into the run \(it did not report the end of cavsim-x-sim\)/,
    );
  }, 10_000);
});
