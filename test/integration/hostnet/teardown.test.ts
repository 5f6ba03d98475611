import { execFileSync, spawn } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestbed } from '../../../bench/testbed/testbed.js';
import { builtinChannelScript } from '../../../src/channel/ns3/compile.js';
import { EnvironmentError } from '../../../src/errors.js';
import { createCommandRunner } from '../../../src/host/exec/command-runner.js';
import { processUndoers } from '../../../src/host/exec/process-identity.js';
import { Journal } from '../../../src/host/journal/journal.js';
import { createDirectOps } from '../../../src/host/network/hostnet-port.js';
import { runTag } from '../../../src/host/network/names.js';
import { planHostNetwork } from '../../../src/host/network/plan.js';
import { setUpHostNetwork } from '../../../src/host/network/set-up.js';
import { hostNetUndoers } from '../../../src/host/network/undoers.js';
import { ns3Problem, requireReal, rootProblem } from '../../support/real-components.js';
import { buildEntryPoints } from './support/build.js';
import { snapshotHost } from './support/snapshot.js';

const real = requireReal('hostnet/teardown.test.ts', rootProblem() ?? ns3Problem());
const runner = createCommandRunner();
const ops = createDirectOps(runner);
const undoers = { ...hostNetUndoers(ops), ...processUndoers };
const linkExists = (name: string) => execFileSync('ip', ['-o', 'link', 'show'], { encoding: 'utf8' }).includes(` ${name}:`);
const markers = (runId: string) => [runTag(runId), 'probe-main', 'setup-child', 'channel-tap'];

describe.skipIf(real.skip)('teardown restores the host exactly', () => {
  let childJs = '';
  let dir = '';
  beforeAll(() => {
    real.assertPresent();
    childJs = buildEntryPoints().setupChild;
    dir = mkdtempSync(join(tmpdir(), 'cavsim-teardown-'));
  });
  afterAll(() => {
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  it('after a complete run with the channel, and a second teardown is harmless', async () => {
    const runId = `it-full-${process.pid}`;
    const before = snapshotHost(markers(runId));
    const journal = Journal.open(join(dir, `${runId}.jsonl`));
    const bed = await startTestbed({
      runId,
      vehicleCount: 3,
      network: { delay: 0.01 },
      runDir: join(dir, runId),
      journal,
      ops,
      runner,
      controlThird: 5,
    });
    expect(snapshotHost(markers(runId))).not.toEqual(before);
    expect(linkExists(bed.plan.vehicles[0].links.tap)).toBe(true);
    expect((await bed.teardown()).failed).toEqual([]);
    expect(snapshotHost(markers(runId))).toEqual(before);
    expect(await journal.teardown(undoers)).toEqual({ undone: [], failed: [], leftAlone: [] });
  });

  it.each([
    { when: 'half-way through set-up', hangAtOp: 60 },
    { when: 'after the channel started', hangAtOp: undefined },
  ])('after the set-up process was killed with SIGKILL $when', async ({ hangAtOp }) => {
    const runId = `it-kill-${hangAtOp ?? 'run'}-${process.pid}`;
    const before = snapshotHost(markers(runId));
    const journalPath = join(dir, `${runId}.jsonl`);
    const cfg = { runId, journalPath, runDir: join(dir, runId), channelSource: builtinChannelScript(), hangAtOp };
    const child = spawn(process.execPath, [childJs, JSON.stringify(cfg)], { stdio: ['ignore', 'pipe', 'pipe'] });
    let stderr = '';
    child.stderr.on('data', (d) => (stderr += d));
    const hung = await new Promise<string>((resolve, reject) => {
      createInterface({ input: child.stdout }).on('line', (l) => l.startsWith('HANGING') && resolve(l));
      child.once('exit', (code) => reject(new Error(`set-up child exited ${code} before hanging: ${stderr}`)));
    });
    const exited = new Promise((r) => child.once('exit', r));
    child.kill('SIGKILL');
    await exited;

    console.log(hung);
    const journal = Journal.open(journalPath);
    expect(journal.outstanding().length).toBeGreaterThan(3);
    expect(snapshotHost(markers(runId))).not.toEqual(before);
    const report = await journal.teardown(undoers);
    expect(report.failed, hung).toEqual([]);
    expect(snapshotHost(markers(runId))).toEqual(before);
  });

  it('refuses a name it does not own and leaves it, and a foreign br-0 survives', async () => {
    const runId = `it-foreign-${process.pid}`;
    const createdBr0 = !linkExists('br-0');
    const nsName = `cvt-${runTag(runId)}-x`;
    const plan = planHostNetwork({ runId, vehicles: [{ name: 'a', netns: { name: nsName } }] });
    const squatter = plan.vehicles[0].links.tap;
    try {
      if (createdBr0) execFileSync('ip', ['link', 'add', 'br-0', 'type', 'bridge']);
      execFileSync('ip', ['netns', 'add', nsName]);
      execFileSync('ip', ['link', 'add', squatter, 'type', 'bridge']);
      const before = snapshotHost(markers(runId));
      const journal = Journal.open(join(dir, `${runId}.jsonl`));
      const attempt = setUpHostNetwork(plan, { journal, ops });
      await expect(attempt).rejects.toBeInstanceOf(EnvironmentError);
      await expect(attempt).rejects.toThrow(squatter);
      expect(journal.outstanding()).toEqual([]);
      expect(snapshotHost(markers(runId))).toEqual(before);

      execFileSync('ip', ['link', 'delete', squatter]);
      const net = await setUpHostNetwork(plan, { journal, ops });
      expect(linkExists(plan.vehicles[0].links.bridge)).toBe(true);
      expect((await net.teardown()).failed).toEqual([]);
      expect(linkExists('br-0')).toBe(true);
      expect(linkExists(plan.vehicles[0].links.bridge)).toBe(false);
    } finally {
      if (linkExists(squatter)) execFileSync('ip', ['link', 'delete', squatter]);
      if (existsSync(`/run/netns/${nsName}`)) execFileSync('ip', ['netns', 'delete', nsName]);
      if (createdBr0 && linkExists('br-0')) execFileSync('ip', ['link', 'delete', 'br-0']);
    }
  });

  it("puts the run's host links in its device group and deletes them; a user's link given that group number survives", async () => {
    const runId = `it-group-${process.pid}`;
    const nsName = `cvt-${runTag(runId)}-g`;
    const plan = planHostNetwork({ runId, vehicles: [{ name: 'a', netns: { name: nsName } }] });
    const users = `usr${runTag(runId)}`;
    const inGroup = () => execFileSync('ip', ['-o', 'link', 'show', 'group', String(plan.linkGroup)], { encoding: 'utf8' });
    const journal = Journal.open(join(dir, `${runId}.jsonl`));
    try {
      execFileSync('ip', ['netns', 'add', nsName]);
      const before = snapshotHost(markers(runId));
      const net = await setUpHostNetwork(plan, { journal, ops });
      for (const name of [plan.vehicles[0].links.bridge, plan.vehicles[0].links.tap, plan.vehicles[0].links.vethHost])
        expect(inGroup()).toMatch(new RegExp(` ${name}[:@]`));
      expect(execFileSync('ip', ['netns', 'exec', nsName, 'ip', '-o', 'addr', 'show', 'dev', 'eth1'], { encoding: 'utf8' })).toContain(
        plan.vehicles[0].cidr,
      );
      execFileSync('ip', ['link', 'add', users, 'type', 'bridge']);
      execFileSync('ip', ['link', 'set', 'dev', users, 'group', String(plan.linkGroup)]);
      expect((await net.teardown()).failed).toEqual([]);
      expect(linkExists(users)).toBe(true);
      execFileSync('ip', ['link', 'delete', users]);
      // `ip netns list` shows our stand-in's namespace with the id its veth peer gave it: the test's own namespace.
      const withoutIds = (s: ReturnType<typeof snapshotHost>) => ({ ...s, netns: s.netns.replace(/ \(id: \d+\)/g, '') });
      expect(withoutIds(snapshotHost(markers(runId)))).toEqual(withoutIds(before));
    } finally {
      if (linkExists(users)) execFileSync('ip', ['link', 'delete', users]);
      await journal.teardown(undoers);
      if (existsSync(`/run/netns/${nsName}`)) execFileSync('ip', ['netns', 'delete', nsName]);
    }
  });
});
