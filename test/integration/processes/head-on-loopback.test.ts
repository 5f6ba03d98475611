import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runResolvedSimulated } from '../../../src/api/run-simulated.js';
import { loadScenario } from '../../../src/scenario/load-scenario.js';
import { buildEntryPoints, repoRoot, runOnLoopback } from './support.js';

/**
 * The simulator and two vehicle programs as separate processes on loopback, speaking the control
 * protocol and V2V over real sockets: the head-on brake scenario must end as the simulated
 * runtime says it does with (almost) no channel delay, since loopback adds none.
 */
describe('simulator-main and vehicle-main on loopback: head-on-brake', () => {
  let entry: ReturnType<typeof buildEntryPoints>;
  const cleanup: string[] = [];
  beforeAll(() => {
    entry = buildEntryPoints();
  });
  afterAll(() => {
    for (const d of cleanup) rmSync(d, { recursive: true, force: true });
  });

  it('runs to completion without collision, with V2V receipts and timing figures, matching the simulated runtime', async () => {
    const scenario = await loadScenario(join(repoRoot, 'scenarios/head-on-brake.yaml'), { overrides: ['network.delay=10ms'] });
    const referenceDir = mkdtempSync(join(tmpdir(), 'cavsim-reference-'));
    cleanup.push(referenceDir);
    if (!('delay' in scenario.network)) throw new Error('the head-on scenario has a channel with a delay');
    const reference = await runResolvedSimulated({ ...scenario, network: { ...scenario.network, delay: 0 } }, { runsDir: referenceDir });
    const run = await runOnLoopback(entry, scenario, { runId: 'loopback-test' });
    const { runDir, summary } = run;
    cleanup.push(runDir);

    expect(run.ready.ready).toEqual(scenario.vehicles.map((v) => v.name));
    expect(run.stopped).toMatchObject({ phase: 'stopped', status: expect.stringMatching(/^(completed|invalid)$/) });
    expect(run.simExit, run.sim.stderr()).toBe(0);
    run.vehicles.forEach((v) => expect(v.exit, v.child.stderr()).toBe(0));

    const timing = summary.timing as Record<string, number>;
    console.log(
      `loopback timing: ${JSON.stringify(timing)}; min distance ${summary.min_distance_m} (simulated ${reference.summary.min_distance_m}); v2v ${JSON.stringify(summary.v2v)}`,
    );
    expect(summary.runtime).toBe('docker');
    expect(summary.run_id).toBe('loopback-test');
    expect(summary.steps).toBe(Math.round(scenario.duration / scenario.physics.timestep));

    // The brake message went car0 -> car1 over UDP and its receipt reached the one v2v.csv.
    expect(summary.v2v).toMatchObject({ sent: 1, received: 1, lost: 0 });
    expect(summary.v2v.p50_ms).toBeGreaterThanOrEqual(0);
    const v2vRows = readFileSync(join(runDir, 'v2v.csv'), 'utf8').trim().split('\n');
    expect(v2vRows).toHaveLength(2);
    expect(v2vRows[1]).toMatch(/^car0-\d+,car0,car1,emergency-brake,/);
    expect(summary.events.map((e) => `${e.vehicle}:${e.event}`)).toEqual(
      expect.arrayContaining(['car0:brake-sent', 'car1:brake-received', 'car1:emergency-brake']),
    );

    // Timing: figures for every step, and a verdict that follows them.
    expect(timing.steps).toBe(summary.steps);
    for (const key of [
      'step_lateness_p50_ms',
      'step_lateness_p99_ms',
      'step_lateness_max_ms',
      'late_fraction',
      'control_lag_p50_ms',
      'late_command_fraction',
      'late_command_steps',
    ])
      expect(typeof timing[key]).toBe('number');
    // each late command answered a step; the steps are counted once however many cars missed them
    expect(timing.late_command_steps).toBeLessThanOrEqual(timing.late_commands);
    expect(timing.late_command_steps > 0).toBe(timing.late_commands > 0);
    expect(timing.control_commands).toBeGreaterThan(0);
    expect(timing.step_lateness_p50_ms).toBeLessThanOrEqual(timing.step_lateness_p99_ms);
    expect(timing.step_lateness_p99_ms).toBeLessThanOrEqual(timing.step_lateness_max_ms);
    expect(readFileSync(join(runDir, 'timing.csv'), 'utf8').trim().split('\n')).toHaveLength(summary.steps + 1);
    const timingFailed =
      timing.late_fraction > scenario.timing.maxLateFraction || timing.late_command_fraction > scenario.timing.maxLateFraction;
    expect(summary.status).toBe(timingFailed ? 'invalid' : 'completed');

    if (summary.status === 'completed') {
      // Real time held: the outcome is the simulated runtime's with (almost) no channel delay.
      expect(summary.collision).toBe(reference.summary.collision);
      expect(summary.collision).toBe(false);
      expect(Math.abs(summary.min_distance_m! - reference.summary.min_distance_m!)).toBeLessThan(0.3);
    } else {
      // A starved machine (steps or commands late) must say so rather than report a valid result.
      expect(summary.reason).toMatch(/physics steps .* late|drive commands .* too late/);
    }
  });
});
