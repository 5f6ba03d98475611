/**
 * `npm run bench`: every area registers a suite here. Suites compare side by side within one run
 * and report ratios, because absolute figures on shared machines are noisy.
 */
export interface BenchRow {
  suite: string;
  name: string;
  value: number;
  unit: string;
  target?: string;
  note?: string;
}

export type BenchSuite = { name: string; needsRoot?: boolean; run: () => Promise<BenchRow[]> };

const suites: Array<() => Promise<BenchSuite>> = [
  () => import('./sim-bench.js').then((m) => m.suite),
  () => import('./emulated-bench.js').then((m) => m.suite),
  () => import('./lidar-bench.js').then((m) => m.suite),
  () => import('./sweep-bench.js').then((m) => m.suite),
  () => import('./lidar-runtime-bench.js').then((m) => m.suite),
  () => import('./emulation-bench.js').then((m) => m.suite),
];

async function main() {
  const only = process.argv[2];
  const rows: BenchRow[] = [];
  for (const load of suites) {
    const suite = await load();
    if (only && suite.name !== only) continue;
    if (suite.needsRoot && process.getuid?.() !== 0) {
      console.log(`# ${suite.name}: skipped (needs root)`);
      continue;
    }
    console.log(`# ${suite.name}`);
    for (const row of await suite.run()) {
      rows.push(row);
      const target = row.target ? `  (target ${row.target})` : '';
      console.log(`  ${row.name.padEnd(48)} ${formatValue(row.value).padStart(12)} ${row.unit}${target}${row.note ? '  ' + row.note : ''}`);
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
