/**
 * The host network of an emulated run on its own: set-up and teardown of every bridge, tap, veth,
 * address and rule for N vehicles and the control network, with plain named namespaces standing in
 * for the containers (no Docker, no ns-3). `BENCH_VEHICLES=8,32` picks the counts (default 8, 32).
 * With BENCH_OLD_BUILD (the root of another checkout, built), the same plan with that build's
 * modules, alternating with this build's, and the ratios. Needs root.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { createCommandRunner } from '../src/host/exec/command-runner.js';
import { packageRoot } from '../src/util/package-root.js';
import { interpolatedQuantile } from '../src/util/percentile.js';
import type { BenchRow, BenchSuite } from './main.js';
import { parseVehicleCounts } from './vehicle-scaling.js';

const SUITE = 'host-network';
const ROUNDS = 3;

/** The modules a build needs for this, loaded from its own dist/. */
async function loadBuild(root: string) {
  const load = (path: string) => import(pathToFileURL(join(root, 'dist', path)).href);
  const [ports, plan, setUp, journal] = await Promise.all([
    load('api/host-ports.js'),
    load('host/network/plan.js'),
    load('host/network/set-up.js'),
    load('host/journal/journal.js'),
  ]);
  const hostNet = ports.realHostPorts().hostNet;
  await new Promise((r) => setTimeout(r, 300)); // the posix_spawn addon loads in the background
  return { hostNet, planHostNetwork: plan.planHostNetwork, setUpHostNetwork: setUp.setUpHostNetwork, Journal: journal.Journal };
}
type Build = Awaited<ReturnType<typeof loadBuild>>;

async function setUpAndTearDown(build: Build, vehicles: number, dir: string, runId: string): Promise<{ setUp: number; teardown: number }> {
  const names = Array.from({ length: vehicles + 1 }, (_, i) => `cvb${process.pid % 10000}-${i}`);
  const commands = createCommandRunner();
  for (const name of names) await commands.run(['ip', 'netns', 'add', name]);
  const journal = build.Journal.open(join(dir, `${runId}.jsonl`));
  try {
    const cars = names.slice(0, vehicles).map((name, i) => ({ name: `car${i}`, netns: { name } }));
    const members = [
      { ip: '10.211.250.2', netns: { name: names[vehicles] } },
      ...cars.map((c, i) => ({ vehicle: c.name, ip: `10.211.250.${10 + i}`, netns: c.netns })),
    ];
    const plan = build.planHostNetwork({
      runId,
      vehicles: cars,
      control: { subnet: '10.211.250.0/24', simulatorIp: '10.211.250.2', hostIp: '10.211.250.1', members },
    });
    const t0 = performance.now();
    const net = await build.setUpHostNetwork(plan, { journal, ops: build.hostNet });
    const t1 = performance.now();
    const report = await net.teardown();
    const t2 = performance.now();
    if (report.failed.length) throw new Error(`${runId}: teardown failed for ${report.failed.length} entries`);
    return { setUp: (t1 - t0) / 1000, teardown: (t2 - t1) / 1000 };
  } finally {
    for (const name of names) await commands.run(['ip', 'netns', 'delete', name]);
  }
}

const median = (xs: number[]) =>
  interpolatedQuantile(
    [...xs].sort((a, b) => a - b),
    0.5,
  );

export const suite: BenchSuite = {
  name: SUITE,
  needsRoot: true,
  async run() {
    const counts = parseVehicleCounts(process.env.BENCH_VEHICLES, [8, 32]);
    const oldRoot = process.env.BENCH_OLD_BUILD;
    const builds: Array<[string, Build]> = [['this build', await loadBuild(packageRoot())]];
    if (oldRoot) builds.push(['build before', await loadBuild(oldRoot)]);
    const dir = mkdtempSync(join(tmpdir(), 'cavsim-hostnet-bench-'));
    const rows: BenchRow[] = [];
    try {
      for (const vehicles of counts) {
        const times = new Map(builds.map(([label]) => [label, { setUp: [] as number[], teardown: [] as number[] }]));
        for (let round = 0; round < ROUNDS; round++) {
          // Alternating, and which goes first alternates too: the machine drifts.
          const order = round % 2 === 0 ? builds : [...builds].reverse();
          for (const [label, build] of order) {
            const t = await setUpAndTearDown(
              build,
              vehicles,
              dir,
              `bench-hn-${vehicles}-${round}-${label.replace(' ', '-')}-${process.pid}`,
            );
            times.get(label)!.setUp.push(t.setUp);
            times.get(label)!.teardown.push(t.teardown);
          }
        }
        for (const [label, t] of times) {
          const suffix = label === 'this build' ? '' : `, ${label}`;
          rows.push({
            suite: SUITE,
            name: `${vehicles} vehicles + control network${suffix}: set-up`,
            value: median(t.setUp),
            unit: 's',
            note: `median of ${ROUNDS}`,
          });
          rows.push({
            suite: SUITE,
            name: `${vehicles} vehicles + control network${suffix}: teardown`,
            value: median(t.teardown),
            unit: 's',
            note: `median of ${ROUNDS}`,
          });
        }
        const before = times.get('build before');
        if (before) {
          const now = times.get('this build')!;
          rows.push({
            suite: SUITE,
            name: `${vehicles} vehicles: set-up, this build / build before`,
            value: median(now.setUp) / median(before.setUp),
            unit: 'x',
          });
          rows.push({
            suite: SUITE,
            name: `${vehicles} vehicles: teardown, this build / build before`,
            value: median(now.teardown) / median(before.teardown),
            unit: 'x',
          });
        }
      }
      return rows;
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  },
};
