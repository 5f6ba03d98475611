/**
 * How long `cavsim view` takes to show a 60 s run of 10 cars: `node dist-bench/bench/viewer/load-bench.js` (after `npx tsc -p bench/tsconfig.json`).
 * Runs the ring scenario in the simulated runtime, then measures the server's start (reading and
 * parsing the CSVs), the size of the data the page downloads, and the page's load in headless
 * Chromium from navigation to the first drawn frame. Prints the figures; asserts nothing.
 */
import { mkdtempSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { runScenarioSimulated } from '../../src/api/run-simulated.js';
import { startViewServer } from '../../src/ui/viewer/view-server.js';
import { ringScenarioYaml } from './ring-scenario.js';

const CHROMIUM_ARGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
];

async function main(): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), 'cavsim-view-bench-'));
  try {
    const file = join(dir, 'ring.yaml');
    writeFileSync(file, ringScenarioYaml({ cars: 10, duration: 60, delayMs: 20 }));
    const { runDir } = await runScenarioSimulated(file, { runsDir: dir });
    const csvBytes = ['vehicles', 'pairs', 'collisions', 'v2v', 'events'].reduce((n, f) => n + statSync(join(runDir, `${f}.csv`)).size, 0);

    const started = performance.now();
    await using server = await startViewServer({ runDir });
    const serverStartMs = performance.now() - started;

    const { chromium } = await import('playwright-core');
    const browser = await chromium.launch({ executablePath: '/usr/bin/chromium', args: CHROMIUM_ARGS });
    try {
      const loads: number[] = [];
      let dataBytes = 0;
      for (let i = 0; i < 3; i++) {
        const page = await browser.newPage({ viewport: { width: 1400, height: 860 } });
        page.on('response', async (r) => {
          if (r.url().endsWith('/api/data')) dataBytes = (await r.body()).length;
        });
        const t0 = performance.now();
        await page.goto(server.url);
        await page.waitForFunction(() => (globalThis as any).__cavsimView?.ready === true);
        await page.evaluate(() => (globalThis as any).__cavsimView.whenDrawn());
        loads.push(performance.now() - t0);
        await page.close();
      }
      const mb = (n: number) => (n / 1e6).toFixed(1);
      console.log(`run: 10 cars, 60 s, ${mb(csvBytes)} MB of CSV`);
      console.log(`server start (read + parse CSVs): ${serverStartMs.toFixed(0)} ms`);
      console.log(`/api/data: ${mb(dataBytes)} MB of JSON`);
      console.log(`page load to first frame (navigation -> drawn), 3 loads: ${loads.map((l) => l.toFixed(0)).join(', ')} ms`);
    } finally {
      await browser.close();
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

await main();
