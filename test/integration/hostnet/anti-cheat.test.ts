import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runProbes } from '../../../bench/testbed/probe-runner.js';
import { startTestbed } from '../../../bench/testbed/testbed.js';
import { createCommandRunner } from '../../../src/host/exec/command-runner.js';
import { Journal } from '../../../src/host/journal/journal.js';
import { createDirectOps } from '../../../src/host/network/hostnet-port.js';
import { ns3Problem, requireReal, rootProblem } from '../../support/real-components.js';
import { buildEntryPoints } from './support/build.js';

const real = requireReal('hostnet/anti-cheat.test.ts', rootProblem() ?? ns3Problem());

describe.skipIf(real.skip)('anti-cheat rules on the control (Docker-side) network', () => {
  let probeJs = '';
  let dir = '';
  beforeAll(() => {
    real.assertPresent();
    probeJs = buildEntryPoints().probe;
    dir = mkdtempSync(join(tmpdir(), 'cavsim-anticheat-'));
  });
  afterAll(() => {
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  it('drops vehicle-to-vehicle traffic on eth0 and passes vehicle-to-simulator traffic', async () => {
    const runId = `it-anticheat-${process.pid}`;
    const runner = createCommandRunner();
    const ops = createDirectOps(runner);
    const journal = Journal.open(join(dir, 'journal.jsonl'));
    const bed = await startTestbed({
      runId,
      vehicleCount: 2,
      network: { delay: 0.01 },
      runDir: dir,
      journal,
      ops,
      runner,
      withChannel: false,
      controlThird: 3,
    });
    try {
      const [v0, v1] = bed.standIns.vehicles;
      const sim = bed.standIns.simulator;
      const common = { count: 3, rate: 10, lingerMs: 800 };
      const { received } = await runProbes(probeJs, [
        {
          ...common,
          netns: v0.netns.name,
          name: 'v0',
          bind: v0.controlIp,
          csv: join(dir, 'v0.csv'),
          peers: [
            { name: 'sim', address: sim.controlIp },
            { name: 'v1', address: v1.controlIp },
          ],
        },
        {
          ...common,
          netns: v1.netns.name,
          name: 'v1',
          bind: v1.controlIp,
          csv: join(dir, 'v1.csv'),
          peers: [{ name: 'v0', address: v0.controlIp }],
        },
        {
          ...common,
          netns: sim.netns.name,
          name: 'sim',
          bind: sim.controlIp,
          csv: join(dir, 'sim.csv'),
          peers: [
            { name: 'v0', address: v0.controlIp },
            { name: 'v1', address: v1.controlIp },
          ],
        },
      ]);
      const pairs = (from: string, to: string) => received.filter((r) => r.from === from && r.to === to).length;
      expect(pairs('v0', 'sim')).toBe(3);
      expect(pairs('sim', 'v0')).toBe(3);
      expect(pairs('sim', 'v1')).toBe(3);
      expect(pairs('v0', 'v1')).toBe(0);
      expect(pairs('v1', 'v0')).toBe(0);
    } finally {
      const report = await bed.teardown();
      expect(report.failed).toEqual([]);
    }
  });
});
