import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { beforeAll, describe, expect, it } from 'vitest';
import type { RunEvent } from '../../../src/run/events.js';
import { readMeasuredSoFar } from '../../../src/run/measured-so-far.js';
import { RUN_FILES } from '../../../src/run/run-files.js';
import { RunSession } from '../../../src/run/run-session.js';
import { type RunSummary, unstartedSummary } from '../../../src/run/summary.js';
import { loadScenario } from '../../../src/scenario/load-scenario.js';
import type { ResolvedScenario } from '../../../src/scenario/resolved.js';
import { EventBus } from '../../../src/util/event-bus.js';
import { scratchDir } from '../../support/scratch-dir.js';

const HEAD_ON = fileURLToPath(new URL('../../../scenarios/head-on-brake.yaml', import.meta.url));
const runsDir = scratchDir('cavsim-run-session-');
let scenario: ResolvedScenario;
beforeAll(async () => {
  scenario = { ...(await loadScenario(HEAD_ON, { runtime: 'sim' })), warnings: ['a warning the user must see'] };
});

function openSession(events = new EventBus<RunEvent>()) {
  const seen: RunEvent[] = [];
  events.on((e) => seen.push(e));
  return {
    seen,
    session: RunSession.open('sim', scenario, { runsDir, events, command: ['up', 'x.yaml'] }, { 'cavsim/vehicle:latest': 'sha256:abc' }),
  };
}
const summaryOf = (dir: string) => JSON.parse(readFileSync(join(dir, RUN_FILES.summary), 'utf8')) as RunSummary;

describe('one run session for both runtimes', () => {
  it('opens the folder with the resolved scenario and the manifest, and says the warnings', async () => {
    const { seen, session: opening } = openSession();
    const session = await opening;
    expect(existsSync(join(session.folder.dir, RUN_FILES.scenario))).toBe(true);
    const manifest = JSON.parse(readFileSync(join(session.folder.dir, RUN_FILES.manifest), 'utf8'));
    expect(manifest.images).toEqual({ 'cavsim/vehicle:latest': 'sha256:abc' });
    expect(seen).toContainEqual({ type: 'log', level: 'warn', message: 'a warning the user must see' });
    await session.close(new Error('done with it'));
  });

  it('a scope releases its own cleanups first, once; what it left is released at close before older cleanups; a failure is said once', async () => {
    const { seen, session: opening } = openSession();
    const session = await opening;
    const order: string[] = [];
    session.defer('host side', () => order.push('host side'));
    const running = session.scope('the running run');
    running.defer('link', () => order.push('link'));
    running.defer('broken timer', () => {
      throw new Error('timer gone');
    });
    await running.release();
    expect(order).toEqual(['link']);
    running.defer('late relay', () => order.push('late relay'));
    await session.close(new Error('cut short'));
    expect(order).toEqual(['link', 'late relay', 'host side']);
    expect(seen.filter((e) => e.type === 'log' && e.message === 'closing broken timer failed: timer gone')).toHaveLength(1);
  });

  it('runs deferred cleanups newest first, before the summary, and says the summary last', async () => {
    const { seen, session: opening } = openSession();
    const session = await opening;
    const order: string[] = [];
    session.defer('first', () => order.push('first'));
    session.defer('second', () => order.push('second'));
    session.defer('broken', () => {
      throw new Error('disk gone');
    });
    await session.releaseResources();
    expect(order).toEqual(['second', 'first']);
    expect(seen).toContainEqual({ type: 'log', level: 'warn', message: 'closing broken failed: disk gone' });
    session.finish({ interrupted: 'stopped by the user' });
    const summary = await session.close();
    expect(summary.status).toBe('interrupted');
    expect(seen.at(-1)).toMatchObject({ type: 'summary', runDir: session.folder.dir });
    expect(summaryOf(session.folder.dir).status).toBe('interrupted');
  });

  it('a run closed without being finished is failed, with the error that cut it short', async () => {
    const session = await openSession().session;
    const summary = await session.close(new Error('the map could not be read'));
    expect(summary).toMatchObject({ status: 'failed', reason: 'the map could not be read' });
    expect(summaryOf(session.folder.dir).status).toBe('failed');
    expect(await session.close()).toBe(summary); // idempotent
  });

  it('finishes once: a later finish or close does not rewrite the verdict', async () => {
    const session = await openSession().session;
    const measured = readMeasuredSoFar(session.folder.dir, ['car0', 'car1']);
    const first = session.finish({
      measured: { recorder: measured, simTime: 1, steps: 100, wallTime: 1 },
      invalid: 'the ns-3 channel fell 1060 ms behind real time',
    });
    expect(first).toMatchObject({ status: 'invalid', reason: 'the ns-3 channel fell 1060 ms behind real time' });
    expect(session.finish({ failure: new Error('late') })).toBe(first);
    expect((await session.close(new Error('later still'))).status).toBe('invalid');
  });

  it("a simulator that could not start leaves only why; the summary is built whole from the run's scenario, failed with that reason", async () => {
    const session = await openSession().session;
    session.folder.writeSummary(unstartedSummary(session.runId, 'the map could not be read'));
    const summary = session.finish({ wallTime: 0 });
    expect(summary).toMatchObject({
      status: 'failed',
      reason: 'the simulator could not start: the map could not be read',
      scenario: 'head-on-brake',
      steps: 0,
    });
    expect(summary.parameters).toBeDefined();
    await session.close();
  });

  it('`await using` closes it', async () => {
    let dir: string;
    {
      await using session = await openSession().session;
      dir = session.folder.dir;
    }
    expect(summaryOf(dir).status).toBe('failed');
  });
});
