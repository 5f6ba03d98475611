import { execFileSync } from 'node:child_process';
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

const real = requireReal('hostnet/device-link.test.ts', rootProblem() ?? ns3Problem());

const ip = (...args: string[]) => execFileSync('ip', args, { encoding: 'utf8' });
const linkLine = (name: string) => ip('-o', 'link', 'show', 'dev', name);

/**
 * A device cavsim does not run (a Raspberry Pi, an F1Tenth car's computer) joins the run's channel
 * through an interface of its own on the host. Here a network namespace plays the device, behind a
 * veth pair the test (the "user") creates: cavsim joins the host end to the device's bridge, the
 * device talks to a stand-in vehicle through ns-3 and nothing else, and teardown hands the
 * interface back as it was, not deleted.
 */
describe.skipIf(real.skip)('a device joined to the channel by its interface on the host', () => {
  const tag = String(process.pid % 100000);
  const deviceNetns = `cavsim-it-dev${tag}`;
  const hostEnd = `dvh${tag}`;
  const deviceEnd = `dvd${tag}`;
  const deviceMac = '02:de:00:00:00:01';
  let probeJs = '';
  let dir = '';
  beforeAll(() => {
    real.assertPresent();
    probeJs = buildEntryPoints().probe;
    dir = mkdtempSync(join(tmpdir(), 'cavsim-device-'));
    ip('netns', 'add', deviceNetns);
    ip('link', 'add', 'name', hostEnd, 'type', 'veth', 'peer', 'name', deviceEnd);
    for (const name of [hostEnd]) execFileSync('sysctl', ['-q', '-w', `net/ipv6/conf/${name}/disable_ipv6=1`]);
    ip('link', 'set', 'dev', deviceEnd, 'netns', deviceNetns);
    ip('-n', deviceNetns, 'link', 'set', 'dev', deviceEnd, 'address', deviceMac);
    execFileSync('ip', ['netns', 'exec', deviceNetns, 'sysctl', '-q', '-w', `net/ipv6/conf/${deviceEnd}/disable_ipv6=1`]);
    ip('-n', deviceNetns, 'link', 'set', 'dev', deviceEnd, 'up');
  });
  afterAll(() => {
    try {
      ip('link', 'delete', 'dev', hostEnd);
    } catch {
      /* already gone with the namespace */
    }
    try {
      ip('netns', 'delete', deviceNetns);
    } catch {
      /* never created */
    }
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  it('exchanges datagrams with a vehicle only through ns-3, and gets its interface back unchanged', async () => {
    const before = linkLine(hostEnd);
    expect(before).not.toMatch(/\bmaster\b/);
    const runId = `it-dev-${process.pid}`;
    const runDir = join(dir, runId);
    const runner = createCommandRunner();
    const ops = createDirectOps(runner);
    const journal = Journal.open(join(runDir, 'journal.jsonl'));
    const frameLogPath = join(runDir, 'frames.log');
    const bed = await startTestbed({
      runId,
      vehicleCount: 1,
      network: { delay: 0.02 },
      runDir,
      journal,
      ops,
      runner,
      channelArgs: [`--frameLog=${frameLogPath}`],
      devices: [{ name: 'rc', device: { interface: hostEnd, mac: deviceMac } }],
    });
    const [vehicle, device] = bed.plan.vehicles;
    try {
      expect(linkLine(hostEnd)).toMatch(new RegExp(`master ${device.links.bridge}\\b`));
      // What the device's owner configures on it: the planned address, and the car's MAC (or ARP).
      ip('-n', deviceNetns, 'addr', 'add', device.cidr, 'dev', deviceEnd);
      ip('-n', deviceNetns, 'neigh', 'replace', vehicle.ip, 'lladdr', vehicle.mac, 'dev', deviceEnd, 'nud', 'permanent');
      const { received, expected } = await runProbes(probeJs, [
        {
          netns: bed.standIns.vehicles[0].netns.name,
          name: vehicle.name,
          bind: vehicle.ip,
          peers: [{ name: 'rc', address: device.ip }],
          count: 10,
          rate: 10,
          csv: join(runDir, 'v0.csv'),
          lingerMs: 300,
        },
        {
          netns: deviceNetns,
          name: 'rc',
          bind: device.ip,
          peers: [{ name: vehicle.name, address: vehicle.ip }],
          count: 10,
          rate: 10,
          startOffsetMs: 30,
          csv: join(runDir, 'rc.csv'),
          lingerMs: 300,
        },
      ]);
      const stats = summariseLatency(received, expected);
      expect(stats.lost).toBe(0);
      expect(received).toHaveLength(20);
      // Every datagram took the channel's 20 ms: none went around it.
      for (const r of received) expect(r.latency_ms, `${r.from} -> ${r.to}`).toBeGreaterThanOrEqual(19.5);
    } finally {
      await bed.channel?.stop();
      const report = await bed.teardown();
      expect(report.failed).toEqual([]);
    }
    const log = parseFrameLog(readFileSync(frameLogPath, 'utf8'));
    expect(log.sent.filter((f) => f.label.startsWith(OTHER_FRAME))).toEqual([]);
    expect(log.sent.filter((f) => f.node === 1)).toHaveLength(10);
    expect(log.sent.filter((f) => f.node === 0)).toHaveLength(10);
    // Released, not deleted: the same interface, in no bridge, down as the test left it.
    const after = linkLine(hostEnd);
    expect(after).not.toMatch(/\bmaster\b/);
    expect(after).not.toMatch(/<[^>]*\bUP\b/);
  });
});
