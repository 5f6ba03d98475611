import { resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { VehicleSession } from '../../../../../../src/runtime/emulated/containers/vehicle-session.js';
import { systemWallClock } from '../../../../../../src/runtime/emulated/containers/wall-clock.js';
import { rehearseControlLink } from '../../../../../../src/runtime/emulated/containers/warm-up/control-link-rehearsal.js';
import { loadScenario } from '../../../../../../src/scenario/load-scenario.js';
import type { ResolvedScenario, ResolvedVehicle } from '../../../../../../src/scenario/resolved.js';

const scenario = (file: string) => loadScenario(resolve(import.meta.dirname, '../../../../../../scenarios', file));

function rehearse(s: ResolvedScenario, v: ResolvedVehicle, limits: { ticks: number; budgetMs: number }) {
  const peers = s.vehicles.filter((o) => o !== v).map((o, i) => ({ name: o.name, address: `10.0.0.${i + 2}`, port: 7400 }));
  const cfg = { runDir: '/nonexistent', vehicle: v.name, peers, bind: { host: '10.0.0.1', port: 7400 }, clock: systemWallClock };
  // a loaded machine may take longer than a real rehearsal waits for an answer: every tick waits for its own here
  return rehearseControlLink(s, v, (client, v2v, simUrl) => new VehicleSession(s, v, client, v2v, { ...cfg, simUrl }), {
    answerWaitMs: 10_000,
    ...limits,
  });
}

describe('rehearseControlLink', () => {
  it('ticks every car of the head-on scenario the requested number of times, over a real loopback WebSocket', async () => {
    const s = await scenario('head-on-brake.yaml');
    for (const v of s.vehicles) expect(await rehearse(s, v, { ticks: 50, budgetMs: 60_000 })).toEqual({ ticks: 50, answered: 50 });
  });

  it('answers every tick of a pure-pursuit car on the loop, and none of an idle car', async () => {
    const s = await scenario('loop-pure-pursuit.yaml');
    expect(await rehearse(s, s.vehicles[0], { ticks: 40, budgetMs: 60_000 })).toEqual({ ticks: 40, answered: 40 });
    const idle = { ...s.vehicles[0], controller: { type: 'idle' } } as ResolvedVehicle;
    expect(await rehearse(s, idle, { ticks: 10, budgetMs: 60_000 })).toEqual({ ticks: 10, answered: 0 });
  });

  it('rehearses cars that observe others, scan, or run a slower controller', async () => {
    for (const file of ['mixed-four.yaml', 'loop-gap-follow.yaml', 'platoon-cacc-cam.yaml']) {
      const s = await scenario(file);
      for (const v of s.vehicles) expect((await rehearse(s, v, { ticks: 20, budgetMs: 60_000 })).ticks, `${file} ${v.name}`).toBe(20);
    }
  });

  it('stops at its time budget', async () => {
    const s = await scenario('loop-rrt.yaml');
    expect((await rehearse(s, s.vehicles[0], { ticks: 1_000_000, budgetMs: 50 })).ticks).toBeLessThan(1_000_000);
  });

  it('works on its own copy of the apps: the scenario is unchanged afterwards', async () => {
    const s = await scenario('mixed-four.yaml');
    const before = JSON.stringify(s);
    for (const v of s.vehicles) await rehearse(s, v, { ticks: 30, budgetMs: 60_000 });
    expect(JSON.stringify(s)).toBe(before);
  });
});
