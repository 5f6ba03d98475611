import { spawnSync } from 'node:child_process';
import { readdirSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readSweepListing } from '../../../src/ui/viewer/sweep-listing.js';
import { startViewServer } from '../../../src/ui/viewer/view-server.js';
import { CHROMIUM, chromiumProblem, requireReal } from '../../support/real-components.js';
import { launchChromium } from './support/browser.js';
import { newRunsDir, ROOT } from './support/run-fixtures.js';

/** `cavsim view sweeps/<id>`: a real sweep's runs listed with their swept values, sorted, and opened. */
const work = newRunsDir();
const real = requireReal('viz/view-sweep.test.ts', chromiumProblem());

function sweep(): string {
  const r = spawnSync(
    'node',
    [
      join(ROOT, 'dist/cli/main.js'),
      'sweep',
      'scenarios/head-on-brake.yaml',
      '--runtime',
      'sim',
      '--delay',
      '100ms,300ms,200ms',
      '--sweeps-dir',
      work,
    ],
    { cwd: ROOT, encoding: 'utf8', env: { ...process.env, CI: '1' } },
  );
  expect(r.status, r.stderr).toBe(0);
  return join(work, readdirSync(work)[0]);
}

describe.skipIf(real.skip)(`cavsim view of a sweep (${CHROMIUM})`, () => {
  let browser: Browser;
  let sweepDir: string;
  beforeAll(async () => {
    real.assertPresent();
    sweepDir = sweep();
    browser = await launchChromium();
  });
  afterAll(async () => {
    await browser?.close();
    rmSync(work, { recursive: true, force: true });
  });

  it('reads every run of the sweep with its swept value and outcome', () => {
    const listing = readSweepListing(sweepDir);
    expect(listing.axisColumns).toEqual(['network.delay_ms']);
    expect(listing.runs.map((r) => r.cells['network.delay_ms']).sort()).toEqual(['100', '200', '300']);
    expect(listing.runs.every((r) => r.openable)).toBe(true);
    expect(listing.runs.find((r) => r.cells['network.delay_ms'] === '300')!.cells.collision).toBe('true');
    expect(listing.answer).toMatch(/collision/);
  });

  it('lists the runs by swept value, sorts by any column, and opens a run in the run view and back', async () => {
    await using server = await startViewServer({ sweepDir });
    const page = await browser.newPage({ viewport: { width: 1400, height: 860 } });
    const problems: string[] = [];
    page.on('pageerror', (e) => problems.push(e.message));
    page.on('response', (r) => r.status() >= 400 && problems.push(`${r.status()} ${r.url()}`));
    await page.goto(server.url);
    await page.waitForFunction(() => (window as any).__cavsimSweep?.ready === true);
    const table = () => page.evaluate(() => (window as any).__cavsimSweep.table() as { columns: string[]; rows: string[][] });
    let t = await table();
    expect(t.columns.slice(0, 2)).toEqual(['run', 'network.delay_ms']);
    expect(t.rows.map((r) => r[1])).toEqual(['100', '200', '300']);
    const collision = t.columns.indexOf('collision');
    expect(t.rows.map((r) => r[collision])).toEqual(['false', 'false', 'true']);

    await page.click('th[data-column="min_distance_m"]');
    t = await table();
    const distance = t.columns.indexOf('min_distance_m');
    const distances = t.rows.map((r) => Number(r[distance]));
    expect(distances).toEqual([...distances].sort((a, b) => a - b));
    await page.click('th[data-column="min_distance_m"]');
    t = await table();
    expect(t.rows.map((r) => Number(r[distance]))).toEqual([...distances].reverse());

    const run300 = t.rows.find((r) => r[1] === '300')![0];
    await page.click(`tr[data-run="${run300}"] a`);
    await page.waitForFunction(() => (window as any).__cavsimView?.ready === true);
    expect(new URL(page.url()).pathname).toBe(`/runs/${run300}/`);
    const drawn = await page.evaluate(async () => {
      const v = (window as any).__cavsimView;
      await v.whenDrawn();
      return v.drawnCars() as { cars: { name: string }[] };
    });
    expect(drawn.cars.map((c) => c.name)).toEqual(['car0', 'car1']);
    expect(await page.textContent('#summary')).toMatch(/collision/i);
    expect(await page.isVisible('#back-to-sweep')).toBe(true);
    await page.click('#back-to-sweep');
    await page.waitForFunction(() => (window as any).__cavsimSweep?.ready === true);
    expect(problems).toEqual([]);
    await page.close();
  });

  it('keeps its tables inside a narrow window, scrolling them in place', async () => {
    await using server = await startViewServer({ sweepDir });
    const page = await browser.newPage({ viewport: { width: 640, height: 700 } });
    await page.goto(server.url);
    await page.waitForFunction(() => (window as any).__cavsimSweep?.ready === true);
    const sizes = await page.evaluate(() => {
      const scroller = document.getElementById('runs')!.parentElement!;
      return {
        page: document.documentElement.scrollWidth,
        window: innerWidth,
        table: document.getElementById('runs')!.scrollWidth,
        box: scroller.clientWidth,
        overflow: getComputedStyle(scroller).overflowX,
      };
    });
    expect(sizes.table).toBeGreaterThan(sizes.window); // twenty columns do not fit 640 px
    expect(sizes.page).toBeLessThanOrEqual(sizes.window);
    expect(sizes.box).toBeLessThanOrEqual(sizes.window);
    expect(sizes.overflow).toBe('auto');
    await page.close();
  });

  it('opens a point: its runs, each openable, and the kinematics figure of those runs', async () => {
    await using server = await startViewServer({ sweepDir });
    const page = await browser.newPage({ viewport: { width: 1400, height: 860 } });
    const problems: string[] = [];
    page.on('pageerror', (e) => problems.push(e.message));
    page.on('response', (r) => r.status() >= 400 && problems.push(`${r.status()} ${r.url()}`));
    await page.goto(server.url);
    await page.waitForFunction(() => (window as any).__cavsimSweep?.ready === true);
    const points = await page.evaluate(() => (window as any).__cavsimSweep.points() as string[]);
    expect(points).toEqual(['network.delay_ms=100', 'network.delay_ms=200', 'network.delay_ms=300']);
    expect(await page.isVisible('#point')).toBe(false);
    await page.click('#points tr[data-point="network.delay_ms=300"]');
    expect(await page.isVisible('#point')).toBe(true);
    expect(await page.textContent('#point-title')).toBe('network.delay_ms=300');
    const listing = readSweepListing(sweepDir);
    const run300 = listing.runs.find((r) => r.cells['network.delay_ms'] === '300')!.run;
    expect(await page.locator('#point-runs a').evaluateAll((as) => as.map((a) => a.getAttribute('href')))).toEqual([`runs/${run300}/`]);
    // the figure is drawn for this point's run and shows in the page
    await page.waitForFunction(
      () => {
        const img = document.getElementById('point-figure') as HTMLImageElement;
        return img.complete && img.naturalWidth > 0;
      },
      undefined,
      { timeout: 30_000 },
    );
    const src = await page.getAttribute('#point-figure', 'src');
    const svg = await (await fetch(new URL(src!, server.url))).text();
    expect(svg).toMatch(/^<svg/);
    expect(svg).toContain(`${run300} (collision)`);
    expect(svg).toContain('car0–car1');
    // and the sweep's own figures are linked
    const plots = await page.locator('#plots a').evaluateAll((as) => as.map((a) => a.getAttribute('href')));
    expect(plots).toContain('plots/closest-approach.png');
    expect((await fetch(new URL('plots/closest-approach.png', server.url))).headers.get('content-type')).toBe('image/png');
    // a point's run opens in the run view
    await page.click('#point-runs a');
    await page.waitForFunction(() => (window as any).__cavsimView?.ready === true);
    expect(new URL(page.url()).pathname).toBe(`/runs/${run300}/`);
    expect(problems).toEqual([]);
    await page.close();
  });

  it('draws no figure for runs the sweep does not have', async () => {
    await using server = await startViewServer({ sweepDir });
    expect((await fetch(`${server.url}api/point-figure.svg?runs=p999`)).status).toBe(404);
    expect((await fetch(`${server.url}api/point-figure.svg?runs=..%2F..`)).status).toBe(404);
    expect((await fetch(`${server.url}plots/nothing.png`)).status).toBe(404);
  });

  it('answers 404 for a run the sweep does not have', async () => {
    await using server = await startViewServer({ sweepDir });
    const res = await fetch(`${server.url}runs/p999/api/meta`);
    expect(res.status).toBe(404);
  });
});
