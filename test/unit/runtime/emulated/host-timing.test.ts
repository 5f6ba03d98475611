import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { ExecResult } from '../../../../src/host/docker/docker-port.js';
import { HOST_TIMING, judgeHostTiming, type PairSamples, timingPairs } from '../../../../src/runtime/emulated/host-timing.js';
import { placeVehicles } from '../../../../src/runtime/emulated/placement.js';
import { planEmulatedRun } from '../../../../src/runtime/emulated/plan-emulated.js';
import { RUN_HOST } from '../../../../src/runtime/emulated/remote-plan.js';
import { probeBeforeStart } from '../../../../src/runtime/emulated/stack-calibration.js';
import { STACK_SHARE } from '../../../../src/runtime/emulated/stack-share.js';
import type { ProbeConfig } from '../../../../src/runtime/emulated/v2v/stack-probe.js';
import { loadScenario } from '../../../../src/scenario/load-scenario.js';
import { packageRoot } from '../../../../src/util/package-root.js';

const cars = (...hosts: (string | undefined)[]) => ({
  vehicles: hosts.map((host, i) => ({ vehicle: `car${i}`, ...(host ? { host } : {}) })),
});
type Plan = Parameters<typeof timingPairs>[0];

describe('timingPairs: the reference pair and one pair per other host', () => {
  it('two cars on the run host make the reference (no tunnel in it); each remote host is paired with its first car', () => {
    const p = timingPairs(cars(undefined, 'h1', 'h2', undefined, 'h1', 'h2') as unknown as Plan);
    expect(p.reference).toEqual([0, 3]);
    expect(p.hosts).toEqual([
      { host: 'h1', pair: [0, 1] },
      { host: 'h2', pair: [0, 2] },
    ]);
  });

  it('with every car remote, the first two cars are the reference; a host in it reuses its probes, the first car’s host is the reference', () => {
    const p = timingPairs(cars('h1', 'h2', 'h1', 'h2') as unknown as Plan);
    expect(p.reference).toEqual([0, 1]);
    expect(p.hosts).toEqual([{ host: 'h2', pair: p.reference }]);
    expect(p.hosts[0].pair).toBe(p.reference);
  });

  it('one car here and the rest remote: the run host is a host like the others', () => {
    const p = timingPairs(cars('h1', undefined, 'h2', 'h1') as unknown as Plan);
    expect(p.reference).toEqual([0, 1]);
    expect(p.hosts).toEqual([
      { host: RUN_HOST, pair: [0, 1] },
      { host: 'h2', pair: [0, 2] },
    ]);
  });
});

/** Round trips 10 ms apart: each way `oneWay` ± `offset` (b's clock ahead of a's), with a little spread. */
function samples(oneWayMs: number, offsetMs = 0, n = 40, lost: number[] = []): PairSamples {
  const keep = (seq: number) => !lost.includes(seq);
  const seqs = Array.from({ length: n }, (_, i) => i + STACK_SHARE.warmUp).filter(keep);
  const jitter = (seq: number) => (seq % 4) * 0.01;
  return {
    aToB: new Map(seqs.map((s) => [s, oneWayMs + offsetMs + jitter(s)])),
    bToA: new Map(seqs.map((s) => [s, oneWayMs - offsetMs + jitter(s)])),
  };
}

describe('judgeHostTiming: the gates of a run over hosts', () => {
  const plan = cars(undefined, 'h1', 'h2', undefined) as unknown as Plan;
  const pairs = timingPairs(plan);
  const judge = (h1: PairSamples | Error, h2: PairSamples | Error, reference: PairSamples | Error = samples(1.6)) =>
    judgeHostTiming({
      plan,
      pairs,
      reference,
      samples: new Map([
        ['h1', h1],
        ['h2', h2],
      ]),
      channelMs: 1.0,
    });

  it('reports each host’s added delay (p50 and p99 against the reference’s) and its clock offset, and passes within the limits', () => {
    const r = judge(samples(1.68, 0.3), samples(1.75));
    expect(r.invalid).toBeUndefined();
    const [h1, h2] = r.figures.per_host;
    expect(h1).toMatchObject({ host: 'h1', pair: 'car0<->car1', samples: 40, added_delay_p50_ms: 0.08, added_delay_p99_ms: 0.08 });
    // the offset comes out of the asymmetry; a 0.3 ms offset is within what 0.68 ms of legs beyond the channel can explain
    expect(h1.clock_offset_ms).toBeCloseTo(0.3, 3);
    expect(h1.clock_offset_certain_ms).toBe(0);
    expect(h2).toMatchObject({ host: 'h2', pair: 'car0<->car2', added_delay_p50_ms: 0.15, clock_offset_ms: 0 });
    expect(r.figures.reference).toEqual({ pair: 'car0<->car3', hosts: [RUN_HOST, RUN_HOST] });
    expect(r.figures.limits).toBe(HOST_TIMING);
    expect(r.lines[0]).toMatch(/^h1 \(car0<->car1 against car0<->car3\): \+0\.08 ms p50, \+0\.08 ms p99; clock offset 0\.3 ms$/);
  });

  it('a host adding more than the limit makes the run invalid, naming the host and the figure', () => {
    const r = judge(samples(1.6 + HOST_TIMING.addedDelayLimitMs + 0.2), samples(1.6));
    expect(r.invalid).toMatch(/^h1 adds 0\.7 ms p50 to its cars' V2V frames \(limit 0\.5 ms\)/);
    expect(r.invalid).not.toMatch(/h2/);
  });

  it('a clock certainly off by more than the limit makes the run invalid, naming the host and how to fix it', () => {
    const r = judge(samples(1.6), samples(1.6, 2));
    // legs of 1.6 ms, 1 ms of it the channel's: the asymmetry explains 0.6 of the 2 ms
    expect(r.figures.per_host[1].clock_offset_certain_ms).toBeCloseTo(1.4, 3);
    expect(r.invalid).toMatch(/^h2's clock is at least 1\.4 ms off \(limit 0\.5 ms\).*chrony or PTP/);
  });

  it('matches round trips by sequence number (a lost probe leaves its pair out), and too few makes the run invalid', () => {
    const r = judge(samples(1.6, 0, 40, [7, 9]), samples(1.6, 0, 8));
    expect(r.figures.per_host[0].samples).toBe(38);
    expect(r.figures.per_host[1]).toMatchObject({
      samples: 8,
      added_delay_p50_ms: null,
      not_measured: expect.stringMatching(/only 8 round trips/),
    });
    expect(r.invalid).toMatch(/^h2: its added delay and clock offset could not be measured \(only 8 round trips arrived/);
  });

  it('a probe that failed, or a reference without round trips, measures nothing and says why', () => {
    expect(judge(new Error('exec: no such container'), samples(1.6)).invalid).toMatch(/h1: .*its probe failed: exec: no such container/);
    const r = judge(samples(1.6), samples(1.6), new Error('lost'));
    expect(r.figures.per_host.map((h) => h.not_measured)).toEqual([
      'the reference pair car0<->car3 got too few round trips',
      'the reference pair car0<->car3 got too few round trips',
    ]);
  });
});

describe('the probes of a run over hosts (fakes)', () => {
  it('probes the reference, then each other host in turn, before the run’s delay is set; the figures go to the result', async () => {
    const scenario = await loadScenario(join(packageRoot(), 'scenarios/head-on-brake.yaml'), { runtime: 'docker' });
    const [a, b] = scenario.vehicles;
    const four = { ...scenario, vehicles: [a, b, { ...a, name: 'car2' }, { ...b, name: 'car3' }] };
    const placement = placeVehicles(four, [
      { name: 'here' },
      { name: 'h1', tunnelAddress: '10.219.0.11' },
      { name: 'h2', tunnelAddress: '10.219.0.12' },
    ]);
    const plan = planEmulatedRun(four, '20261129-090000-ab53', '/tmp/never-written', { placement });
    expect(plan.vehicles.map((v) => v.host)).toEqual([undefined, 'h1', 'h2', undefined]);
    const events: string[] = [];
    const exec = async (_container: string, cmd: readonly string[]): Promise<ExecResult> => {
      const cfg = JSON.parse(cmd.at(-1)!) as ProbeConfig;
      events.push(`${cfg.name}->${cfg.peer.name}`);
      // frames to and from car1 (on h1) take 0.1 ms longer
      const latency = 1.6 + ([cfg.name, cfg.peer.name].includes('car1') ? 0.1 : 0);
      const received = Array.from({ length: cfg.count }, (_, seq) => ({ seq, latency_ms: latency }));
      return { exitCode: 0, stdout: `${JSON.stringify({ sent: cfg.count, received })}\n`, stderr: '' };
    };
    const r = await probeBeforeStart({ exec }, plan, { setDelay: async () => void events.push('setDelay') });
    expect(events).toEqual(['car0->car3', 'car3->car0', 'car0->car1', 'car1->car0', 'car0->car2', 'car2->car0', 'setDelay']);
    expect(r.hosts?.figures.per_host).toEqual([
      expect.objectContaining({ host: 'h1', pair: 'car0<->car1', added_delay_p50_ms: 0.1, clock_offset_ms: 0 }),
      expect.objectContaining({ host: 'h2', pair: 'car0<->car2', added_delay_p50_ms: 0 }),
    ]);
    expect(r.hosts?.invalid).toBeUndefined();
    // the calibration's share is the reference pair's, with no tunnel in it
    expect(r.calibration?.calibration.stack_share_p50_ms).toBeCloseTo(0.6 - (246 * 8 * 1000) / 100e6, 3);
  });
});
