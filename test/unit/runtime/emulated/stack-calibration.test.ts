import { describe, expect, it } from 'vitest';
import { EXIT_STATUS, UserInputError } from '../../../../src/errors.js';
import type { ExecResult } from '../../../../src/host/docker/docker-port.js';
import { STACK_PROBE_PORT } from '../../../../src/ports.js';
import { LIGHT_CAR_PROGRAM } from '../../../../src/runtime/emulated/light-car.js';
import { BUILTIN_CHANNEL, planEmulatedRun } from '../../../../src/runtime/emulated/plan-emulated.js';
import { probeBeforeStart } from '../../../../src/runtime/emulated/stack-calibration.js';
import { calibrateDelay, STACK_SHARE } from '../../../../src/runtime/emulated/stack-share.js';
import type { ProbeConfig, ProbeReport } from '../../../../src/runtime/emulated/v2v/stack-probe.js';
import { loadScenario } from '../../../../src/scenario/load-scenario.js';
import type { ResolvedNetwork } from '../../../../src/scenario/resolved.js';
import { packageRoot } from '../../../../src/util/package-root.js';

const HEAD_ON = await loadScenario(`${packageRoot()}/scenarios/head-on-brake.yaml`, { runtime: 'docker' });

/** Latencies as probes measure them while ns-3 applies the probe delay: share + 1 ms. */
const probed = (shares: number[]) => shares.map((s) => s + STACK_SHARE.probeDelayS * 1000);
const shares = (n: number, centre: number, step = 0.01) => Array.from({ length: n }, (_, i) => centre + (i - (n - 1) / 2) * step);

describe('calibrateDelay: the stack share taken out of the delay ns-3 applies', () => {
  it('applies the configured delay less the share p50, and reports p10/p50/p90 and the spread', () => {
    const r = calibrateDelay({ delayS: 0.02, latenciesMs: probed(shares(80, 0.6)) });
    expect(r.calibration.stack_share_p50_ms).toBeCloseTo(0.6, 2);
    expect(r.calibration.applied_delay_ms).toBeCloseTo(19.4, 2);
    expect(r.calibration.configured_delay_ms).toBe(20);
    expect(r.calibration.stack_share_p10_ms).toBeLessThan(r.calibration.stack_share_p50_ms!);
    expect(r.calibration.stack_share_p90_ms).toBeGreaterThan(r.calibration.stack_share_p50_ms!);
    // p75 - p25 of 80 evenly spaced samples 0.01 ms apart
    expect(r.calibration.spread_ms).toBeCloseTo(0.395, 2);
    expect(r.calibration.samples).toBe(80);
    expect(r.invalid).toBeUndefined();
    expect(r.warning).toMatch(/network\.delay 20 ms: ns-3 applies 19\.4\d* ms.*stack share .*0\.6\d* ms p50/);
  });

  it('a few slow probes move neither the share nor the spread much (p50 and the interquartile range)', () => {
    const r = calibrateDelay({ delayS: 0.01, latenciesMs: probed([...Array(70).fill(0.5), ...Array(10).fill(25)]) });
    expect(r.calibration.stack_share_p50_ms).toBeCloseTo(0.5, 3);
    expect(r.calibration.spread_ms).toBeCloseTo(0, 3);
    expect(r.calibration.stack_share_p90_ms).toBeGreaterThan(5);
    expect(r.invalid).toBeUndefined();
  });

  it('a spread above the limit makes the run invalid, saying the figure and the limit', () => {
    const r = calibrateDelay({ delayS: 0.1, latenciesMs: probed(shares(80, 3, 0.1)) });
    expect(r.calibration.spread_ms).toBeGreaterThan(STACK_SHARE.spreadLimitMs);
    expect(r.invalid).toMatch(new RegExp(`varied by ${r.calibration.spread_ms} ms.*allowed ${STACK_SHARE.spreadLimitMs} ms`));
    expect(r.calibration.applied_delay_ms).toBeCloseTo(100 - r.calibration.stack_share_p50_ms!, 3);
  });

  it('refuses a configured delay below the share: exit 2, naming network.delay and the measured figure', () => {
    let thrown: unknown;
    try {
      calibrateDelay({ delayS: 0.0004, latenciesMs: probed(shares(40, 0.7)) });
    } catch (err) {
      thrown = err;
    }
    expect(thrown).toBeInstanceOf(UserInputError);
    const err = thrown as UserInputError;
    expect(EXIT_STATUS[err.code]).toBe(2);
    expect(err.message).toMatch(/network\.delay 0\.4 ms is below this machine's stack share, 0\.7\d* ms measured/);
    expect(err.hint).toMatch(/at least 0\.7 ms/);
  });

  it('too few probes arrived (a lossy channel): the configured delay applies, and the run says why', () => {
    const r = calibrateDelay({ delayS: 0.01, latenciesMs: probed([0.6, 0.7]) });
    expect(r.calibration.applied_delay_ms).toBe(10);
    expect(r.calibration.stack_share_p50_ms).toBeNull();
    expect(r.calibration.not_calibrated).toMatch(/only 2 of the probes arrived/);
    expect(r.warning).toMatch(/not calibrated/);
  });
});

/** A docker port whose exec answers as the probe program would, each car receiving `received` from its peer. */
function fakeDocker(received: (cfg: ProbeConfig) => ProbeReport['received'] | Error) {
  const calls: { container: string; cfg: ProbeConfig; cmd: readonly string[] }[] = [];
  return {
    calls,
    exec: async (container: string, cmd: readonly string[]): Promise<ExecResult> => {
      const cfg = JSON.parse(cmd.at(-1)!) as ProbeConfig;
      calls.push({ container, cfg, cmd });
      const r = received(cfg);
      if (r instanceof Error) return { exitCode: 1, stdout: '', stderr: r.message };
      return { exitCode: 0, stdout: `${JSON.stringify({ sent: cfg.count, received: r })}\n`, stderr: '' };
    },
  };
}

const fakeChannel = () => {
  const set: [number, number][] = [];
  return { set, setDelay: async (delayS: number, jitterS: number) => void set.push([delayS, jitterS]) };
};

const latencies = (cfg: ProbeConfig, shareMs: number) =>
  Array.from({ length: cfg.count }, (_, seq) => ({ seq, latency_ms: STACK_SHARE.probeDelayS * 1000 + shareMs + (seq % 3) * 0.01 }));

function plan(network: Partial<ResolvedNetwork>, ownScript?: string) {
  const patched = { ...HEAD_ON.network, ...network, ...(ownScript ? { script: ownScript } : {}) } as ResolvedNetwork;
  return planEmulatedRun({ ...HEAD_ON, network: patched }, '20260101-000000-abcd', '/tmp/never-written');
}

describe('the calibration in an emulated run (fakes)', () => {
  it('ns-3 starts with the probe delay and no jitter; the plan keeps the setting to calibrate; a own program is left as set', () => {
    const p = plan({ channel: 'latency', delay: 0.05, jitter: 0.002 });
    expect(p.channel.args).toContain('--delay=1ms');
    expect(p.channel.args).toContain('--jitter=0s');
    // a 200 B probe + IPv4/UDP headers at 100 Mbit/s
    expect(p.channel.calibrate).toEqual({ delayS: 0.05, jitterS: 0.002, probeFrameS: (228 * 8) / 100e6 });
    const own = plan({ channel: 'latency', delay: 0.05, jitter: 0 }, '/somewhere/own.cc');
    expect(own.channel.script).not.toBe(BUILTIN_CHANNEL);
    expect(own.channel.calibrate).toBeUndefined();
    expect(own.channel.args).toContain('--delay=50ms');
  });

  it('probes both ways on the probe port from the cars` channel addresses, leaves out the warm-up, and sets the calibrated delay', async () => {
    const p = plan({ channel: 'csma', delay: 0.02 });
    const docker = fakeDocker((cfg) => latencies(cfg, 0.6));
    const channel = fakeChannel();
    const r = await probeBeforeStart(docker, p, channel);
    expect(docker.calls.map((c) => c.container).sort()).toEqual(p.vehicles.map((v) => v.name).sort());
    for (const { cfg } of docker.calls) {
      expect(cfg.port).toBe(STACK_PROBE_PORT);
      expect(cfg.bind).toBe(p.vehicles.find((v) => v.vehicle === cfg.name)!.v2vIp);
      expect(cfg.peer.address).toBe(p.vehicles.find((v) => v.vehicle === cfg.peer.name)!.v2vIp);
    }
    expect(r.calibration!.calibration.samples).toBe(2 * (STACK_SHARE.probesPerDirection - STACK_SHARE.warmUp));
    // the probes' serialisation in the model (246 B with Ethernet framing at 100 Mbit/s) is not stack share
    expect(r.calibration!.calibration.stack_share_p50_ms).toBeCloseTo(0.61 - (246 * 8 * 1000) / 100e6, 3);
    expect(channel.set).toHaveLength(1);
    expect(channel.set[0][0]).toBeCloseTo(0.02 - r.calibration!.calibration.stack_share_p50_ms! / 1000, 9);
    expect(channel.set[0][1]).toBe(0);
  });

  it('probes each car through the program that receives its frames: Node’s probe, or the light-car program’s', async () => {
    const p = plan({ channel: 'csma', delay: 0.02 });
    const docker = fakeDocker((cfg) => latencies(cfg, 0.3));
    await probeBeforeStart(docker, p, fakeChannel());
    expect(docker.calls.map((c) => c.cmd.slice(0, 2))).toEqual([
      ['node', '/opt/cavsim/dist/runtime/emulated/containers/stack-probe-main.js'],
      ['node', '/opt/cavsim/dist/runtime/emulated/containers/stack-probe-main.js'],
    ]);
    const light = { ...p, vehicles: p.vehicles.map((v) => ({ ...v, cmd: [LIGHT_CAR_PROGRAM] })) };
    const lightDocker = fakeDocker((cfg) => latencies(cfg, 0.3));
    await probeBeforeStart(lightDocker, light, fakeChannel());
    expect(lightDocker.calls.map((c) => c.cmd.slice(0, 2))).toEqual([
      [LIGHT_CAR_PROGRAM, '--probe'],
      [LIGHT_CAR_PROGRAM, '--probe'],
    ]);
  });

  it('a refused delay sets nothing: the run fails before the cars move', async () => {
    const channel = fakeChannel();
    await expect(
      probeBeforeStart(
        fakeDocker((cfg) => latencies(cfg, 2)),
        plan({ channel: 'latency', delay: 0.001, jitter: 0 }),
        channel,
      ),
    ).rejects.toThrow(/network\.delay 1 ms is below this machine's stack share/);
    expect(channel.set).toEqual([]);
  });

  it('a probe that cannot run leaves the configured delay in force, and says so', async () => {
    const channel = fakeChannel();
    const r = await probeBeforeStart(
      fakeDocker(() => new Error('node: not found')),
      plan({ channel: 'latency', delay: 0.03, jitter: 0.001 }),
      channel,
    );
    expect(channel.set).toEqual([[0.03, 0.001]]);
    expect(r.calibration!.calibration.not_calibrated).toMatch(/node: not found/);
  });
});
