/**
 * `npm run bench`: every area registers a suite here. Suites compare side by side within one run
 * and report ratios, because absolute figures on shared machines are noisy.
 * `npm run bench -- [--list] [suite ...]`: no names runs every suite; an unknown name exits 2.
 */
import { resolveSuiteArgs } from './suite-args.js';

export interface BenchRow {
  suite: string;
  name: string;
  value: number;
  unit: string;
  target?: string;
  note?: string;
}

export type BenchSuite = { name: string; needsRoot?: boolean; run: () => Promise<BenchRow[]> };

/** Names are listed here so `--list` and argument checks need not load every suite's module. */
const suites: Array<{ name: string; load: () => Promise<BenchSuite> }> = [
  { name: 'simulated-runtime', load: () => import('./sim-bench.js').then((m) => m.suite) },
  { name: 'emulated-runtime', load: () => import('./emulated-bench.js').then((m) => m.suite) },
  { name: 'emulated-delay', load: () => import('./emulated-delay-bench.js').then((m) => m.suite) },
  { name: 'control-link', load: () => import('./control-link-bench.js').then((m) => m.suite) },
  { name: 'lidar', load: () => import('./lidar-bench.js').then((m) => m.suite) },
  { name: 'fleet', load: () => import('./fleet-bench.js').then((m) => m.suite) },
  { name: 'radio', load: () => import('./radio-bench.js').then((m) => m.suite) },
  { name: 'sidelink', load: () => import('./sidelink-bench.js').then((m) => m.suite) },
  { name: 'sweep', load: () => import('./sweep-bench.js').then((m) => m.suite) },
  { name: 'lidar-runtime', load: () => import('./lidar-runtime-bench.js').then((m) => m.suite) },
  { name: 'emulation', load: () => import('./emulation-bench.js').then((m) => m.suite) },
  { name: 'host-network', load: () => import('./hostnet-bench.js').then((m) => m.suite) },
  { name: 'channel-delay', load: () => import('./channel-delay-bench.js').then((m) => m.suite) },
  { name: 'channel-engines', load: () => import('./channel-engine-bench.js').then((m) => m.suite) },
  { name: 'own-code', load: () => import('./own-code-bench.js').then((m) => m.suite) },
  { name: 'mcap', load: () => import('./mcap-bench.js').then((m) => m.suite) },
  { name: 'its-messages', load: () => import('./its-message-bench.js').then((m) => m.suite) },
  { name: 'report', load: () => import('./report-bench.js').then((m) => m.suite) },
];

async function main() {
  const args = resolveSuiteArgs(
    process.argv.slice(2),
    suites.map((s) => s.name),
  );
  if (args.kind === 'error') {
    for (const message of args.messages) console.error(message);
    process.exitCode = 2;
    return;
  }
  if (args.kind === 'list') {
    for (const s of suites) console.log(s.name);
    return;
  }
  const rows: BenchRow[] = [];
  for (const name of args.names) {
    const suite = await suites.find((s) => s.name === name)!.load();
    if (suite.name !== name) throw new Error(`bench registry lists "${name}" but the module's suite is "${suite.name}"`);
    if (suite.needsRoot && process.getuid?.() !== 0) {
      console.log(`# ${suite.name}: skipped (needs root)`);
      continue;
    }
    console.log(`# ${suite.name}`);
    for (const row of await suite.run()) {
      rows.push(row);
      const target = row.target ? `  (target ${row.target})` : '';
      console.log(`  ${row.name.padEnd(48)} ${formatValue(row.value).padStart(12)} ${row.unit}${target}${row.note ? `  ${row.note}` : ''}`);
    }
  }
  if (process.env.BENCH_JSON) console.log(JSON.stringify(rows));
}

function formatValue(v: number): string {
  return Math.abs(v) >= 100 ? v.toFixed(0) : Math.abs(v) >= 1 ? v.toFixed(2) : v.toPrecision(3);
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
