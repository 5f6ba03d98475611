import { describe, expect, it } from 'vitest';
import { ComponentWatch, type Death } from '../../../../src/runtime/emulated/component-watch.js';
import { ComponentFailedError } from '../../../../src/run/outcome.js';

const death = (ms: number, d: Death | undefined = { exit_status: 1, signal: null, last_log_lines: ['bind EADDRINUSE'] }) => new Promise<Death | undefined>((r) => setTimeout(() => r(d), ms));
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
});
