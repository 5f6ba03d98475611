import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runProbes } from '../../../bench/testbed/probe-runner.js';
import { startTestbed } from '../../../bench/testbed/testbed.js';
import { OTHER_FRAME, parseFrameLog } from '../../../src/channel/ns3/frame-log.js';
import { createCommandRunner } from '../../../src/host/exec/command-runner.js';
import { Journal } from '../../../src/host/journal/journal.js';
import { createDirectOps } from '../../../src/host/network/hostnet-port.js';
import { summariseLatency } from '../../../src/measurement/latency-stats.js';
import { ns3Problem, requireReal, rootProblem } from '../../support/real-components.js';
import { buildEntryPoints } from './support/build.js';

const real = requireReal('hostnet/bus-traffic.test.ts', rootProblem() ?? ns3Problem());

/**
 * At 300 ms a CSMA bus carries about three frames a second, so one stray frame (an IGMP report from
 * a snooping bridge, IPv6 neighbour discovery, ARP) makes a message wait a whole extra delay. The
 * channel program's frame log shows everything that entered the bus.
 */
describe.skipIf(real.skip)('what reaches the ns-3 bus', () => {
  let probeJs = '';
  let dir = '';
  beforeAll(() => {
    real.assertPresent();
    probeJs = buildEntryPoints().probe;
    dir = mkdtempSync(join(tmpdir(), 'cavsim-bus-'));
  });
  afterAll(() => {
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  it('carries only the vehicles datagrams, each written only to its receiver tap once the receiver is known', async () => {
    const runId = `it-bus-${process.pid}`;
    const runDir = join(dir, runId);
    const runner = createCommandRunner();
    const ops = createDirectOps(runner);
    const journal = Journal.open(join(runDir, 'journal.jsonl'));
    const frameLogPath = join(runDir, 'frames.log');
    const bed = await startTestbed({
      runId,
      vehicleCount: 3,
      network: { delay: 0.01 },
      runDir,
      journal,
      ops,
      runner,
      channelArgs: [`--frameLog=${frameLogPath}`],
    });
    try {
      const vehicles = bed.plan.vehicles;
      // 2.5 s of traffic covers the kernel's unsolicited IGMP/MLD report window after link-up.
      const { received, expected } = await runProbes(
        probeJs,
        vehicles.map((v, i) => {
          const peer = vehicles[(i + 1) % vehicles.length];
          return {
            netns: bed.standIns.vehicles[i].netns.name,
            name: v.name,
            bind: v.ip,
            peers: [{ name: peer.name, address: peer.ip }],
            count: 10,
            rate: 4,
            startOffsetMs: i * 80,
            csv: join(runDir, `${v.name}.csv`),
            lingerMs: 300,
          };
        }),
      );
      expect(summariseLatency(received, expected).lost).toBe(0);
    } finally {
      await bed.channel?.stop(); // flushes and closes the frame log
      const report = await bed.teardown();
      expect(report.failed).toEqual([]);
    }

    const log = parseFrameLog(readFileSync(frameLogPath, 'utf8'));
    expect(log.sent.filter((f) => f.label.startsWith(OTHER_FRAME))).toEqual([]);
    expect(log.sent).toHaveLength(30);

    const nodeOf = new Map(bed.plan.vehicles.map((v, i) => [v.name, i]));
    const sendersSoFar = new Set<number>();
    for (const frame of [...log.sent].sort((a, b) => a.simNs - b.simNs)) {
      const receiver = nodeOf.get(frame.label.startsWith('v0') ? 'v1' : frame.label.startsWith('v1') ? 'v2' : 'v0')!;
      const writtenTo = log.delivered
        .filter((d) => d.label === frame.label)
        .map((d) => d.node)
        .sort();
      if (sendersSoFar.has(receiver)) expect(writtenTo, frame.label).toEqual([receiver]);
      else expect(writtenTo, frame.label).toContain(receiver); // not learned yet: flooded, like a switch
      sendersSoFar.add(frame.node);
    }
  });
});
