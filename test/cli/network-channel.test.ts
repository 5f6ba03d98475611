import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { runScenarioEmulated } from '../../src/api/run-emulated.js';
import { UserInputError } from '../../src/errors.js';
import type { EmulatedRunDeps } from '../../src/runtime/emulated/emulated-deps.js';

/** The latency channel through the CLI: the simulated runtime runs it, the emulated one refuses it before touching the host. */
const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const CLI = join(ROOT, 'dist/cli/main.js');
const runsDir = mkdtempSync(join(tmpdir(), 'cavsim-channel-'));
afterAll(() => rmSync(runsDir, { recursive: true, force: true }));
const env = { ...process.env, CAVSIM_RUNS_DIR: runsDir, CI: 'true' };
const cavsim = (...args: string[]) => spawnSync('node', [CLI, ...args], { cwd: ROOT, encoding: 'utf8', env });
const HEAD_ON = 'scenarios/head-on-brake.yaml';
const BLIND_CORNER = 'scenarios/blind-corner.yaml';
const LATENCY = ['--set', 'network.channel=latency', '--set', 'network.jitter=2ms'];

describe('network.channel: latency on the command line', () => {
  it('validate --runtime docker and plan accept latency and wifi-80211p and plan the channel program for each', () => {
    expect(cavsim('validate', HEAD_ON, '--runtime', 'docker', ...LATENCY).status).toBe(0);
    const plan = cavsim('plan', HEAD_ON, ...LATENCY);
    expect(plan.status).toBe(0);
    // ns-3 starts at the stack-share probe delay; the setting is applied, less the measured share, once probed
    const channel = JSON.parse(plan.stdout).channel;
    expect(channel.args).toEqual(
      expect.arrayContaining(['--channel=latency', '--delay=1ms', '--jitter=0s', '--dataRate=100Mbps', '--loss=0']),
    );
    expect(channel.calibrate).toMatchObject({ delayS: 0.01, jitterS: 0.002 });
    expect(cavsim('validate', BLIND_CORNER, '--runtime', 'docker').status).toBe(0);
    const wifi = JSON.parse(cavsim('plan', BLIND_CORNER).stdout);
    expect(wifi.channel.args).toEqual(
      expect.arrayContaining(['--channel=wifi-80211p', '--txPower=0', '--propagation=log-distance', '--rate=OfdmRate6MbpsBW10MHz']),
    );
    expect(wifi.channel.args.find((a: string) => a.startsWith('--macs='))).toMatch(
      /^--macs=([0-9a-f]{2}:){5}[0-9a-f]{2},([0-9a-f]{2}:){5}[0-9a-f]{2}$/,
    );
    expect(wifi.channel.obstacleFile).toMatch(/walls\.grid$/);
    const switched = cavsim('validate', HEAD_ON, '--runtime', 'docker', '--set', 'network.channel=wifi-80211p');
    expect(switched.status).toBe(2);
    expect(switched.stderr).toMatch(
      /network\.dataRate \(line \d+\): dataRate applies only to channel: csma or latency; remove it or change network.channel/,
    );
  });

  it('validate --runtime sim accepts it; jitter with csma is refused with the fix', () => {
    expect(cavsim('validate', HEAD_ON, '--runtime', 'sim', ...LATENCY).status).toBe(0);
    const csma = cavsim('validate', HEAD_ON, '--runtime', 'sim', '--set', 'network.jitter=2ms');
    expect(csma.status).toBe(2);
    expect(csma.stderr).toMatch(
      /network\.jitter \(from --set\): jitter applies only to channel: latency .* remove it or set channel: latency/,
    );
  });

  it('the builtin engine takes wifi-80211p; a carrier-sense threshold out of range exits 2 naming it', () => {
    const ok = cavsim('validate', BLIND_CORNER, '--runtime', 'sim', '--set', 'network.engine=builtin');
    expect(ok.status).toBe(0);
    const bad = cavsim(
      'validate',
      HEAD_ON,
      '--runtime',
      'sim',
      '--set',
      'network.channel=wifi-80211p',
      '--set',
      'network.csThreshold=5dBm',
    );
    expect(bad.status).toBe(2);
    expect(bad.stderr).toMatch(/network\.csThreshold \(from --set\): 5dBm is out of range/);
  });

  it('up --runtime sim runs it', () => {
    const r = cavsim('up', HEAD_ON, '--runtime', 'sim', '--json', ...LATENCY);
    expect(r.status).toBe(0);
    const summary = JSON.parse(r.stdout);
    expect(summary.parameters.network).toMatchObject({ channel: 'latency', jitter: 0.002 });
    expect(summary.v2v.p50_ms).toBeGreaterThanOrEqual(10);
    expect(summary.v2v.p50_ms).toBeLessThan(12.1);
  });

  it('up --runtime docker refuses a channel program that is not there before Docker is reached', async () => {
    const docker = new Proxy({}, { get: () => () => Promise.reject(new Error('Docker was reached')) });
    const deps = { docker } as unknown as EmulatedRunDeps;
    await expect(
      runScenarioEmulated(join(ROOT, BLIND_CORNER), { runsDir, deps, overrides: ['network.script=../ns3-scripts/no-such-channel.cc'] }),
    ).rejects.toBeInstanceOf(UserInputError);
  });
});
