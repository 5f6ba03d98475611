import { existsSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runScenarioSimulated } from '../../../src/api/run-simulated.js';
import { startViewServer, type ViewServer } from '../../../src/ui/viewer/view-server.js';
import { CHROMIUM, chromiumProblem, requireReal } from '../../support/real-components.js';
import { launchChromium } from './support/browser.js';
import { headOnRun, newRunsDir, ROOT } from './support/run-fixtures.js';

/**
 * The view with runs the runtimes really recorded: lidar from `record: { scans: true }`, layers
 * switched on and off, a link to a moment (`#t=`), and labels that do not cover each other when
 * the cars collide.
 */
const runsDir = newRunsDir();
const real = requireReal('viz/view-layers.test.ts', chromiumProblem());
const view = (page: Page) =>
  page.evaluate(async () => {
    const v = (window as any).__cavsimView;
    await v.whenDrawn();
    return {
      t: v.time() as number,
      scans: v.drawnScans() as { rays: number }[],
      layers: v.drawnLayers() as string[],
      labels: v.labelBoxes() as { cx: number; top: number; w: number }[],
    };
  });

async function open(browser: Browser, server: ViewServer, hash = ''): Promise<Page> {
  const page = await browser.newPage({ viewport: { width: 1400, height: 860 } });
  await page.goto(`${server.url}${hash}`);
  await page.waitForFunction(() => (window as any).__cavsimView?.ready === true);
  return page;
}

describe.skipIf(real.skip)(`cavsim view: recorded lidar, layers, links to a time (${CHROMIUM})`, () => {
  let browser: Browser;
  beforeAll(async () => {
    real.assertPresent();
    browser = await launchChromium();
  });
  afterAll(async () => {
    await browser?.close();
    rmSync(runsDir, { recursive: true, force: true });
  });

  it('draws the scans a simulated run recorded with record.scans, and hides them with the lidar layer off', async () => {
    const { runDir, summary } = await runScenarioSimulated(join(ROOT, 'scenarios/loop-gap-follow.yaml'), {
      overrides: ['duration=2s', 'record.scans=true'],
      runsDir,
    });
    expect(summary.status).toBe('completed');
    const scans = readFileSync(join(runDir, 'scans.csv'), 'utf8').trim().split('\n');
    expect(scans[0]).toBe('t_s,vehicle,angle_min,angle_increment,ranges');
    expect(scans.length - 1).toBe(200); // 100 Hz for 2 s, one car
    expect(scans[1].split(',')[4].split(';').length).toBe(1080);

    await using server = await startViewServer({ runDir });
    const page = await open(browser, server, '#t=1.00');
    await page.waitForFunction(() => (window as any).__cavsimView.drawnScans().length === 1);
    let drawn = await view(page);
    expect(drawn.t).toBeCloseTo(1, 6);
    expect(drawn.scans[0].rays).toBe(360);
    expect(drawn.layers).toContain('lidar');
    await page.evaluate(() => (window as any).__cavsimView.setLayer('lidar', false));
    drawn = await view(page);
    expect(drawn.layers).not.toContain('lidar');
    expect(drawn.layers).toContain('trails');
    await page.close();
  });

  it('opens at the time in its address, and keeps the address on the time shown when paused', async () => {
    const runDir = await headOnRun(runsDir, '300ms');
    await using server = await startViewServer({ runDir });
    const page = await open(browser, server, '#t=2.50');
    expect((await view(page)).t).toBeCloseTo(2.5, 6);
    await page.evaluate(() => (window as any).__cavsimView.setTime(1.25));
    await view(page);
    expect(await page.evaluate(() => location.hash)).toBe('#t=1.25');
    expect(await page.locator('#time-link').getAttribute('href')).toBe('#t=1.25');
    // the lidar switch says why it is off in a run without scans
    expect(await page.locator('#layers input[data-layer="lidar"]').isDisabled()).toBe(true);
    await page.close();
  });

  it('lifts the labels of colliding cars apart', async () => {
    const runDir = await headOnRun(runsDir, '300ms');
    const summary = JSON.parse(readFileSync(join(runDir, 'summary.json'), 'utf8'));
    expect(summary.collision).toBe(true);
    expect(existsSync(join(runDir, 'scans.csv'))).toBe(false);
    await using server = await startViewServer({ runDir });
    const page = await open(browser, server);
    await page.evaluate((t) => (window as any).__cavsimView.setTime(t), summary.first_collision_t_s + 0.5);
    const { labels } = await view(page);
    expect(labels).toHaveLength(2);
    const [a, b] = labels;
    const overlap = Math.abs(a.cx - b.cx) < (a.w + b.w) / 2 && Math.abs(a.top - b.top) < 16;
    expect(overlap).toBe(false);
    await page.close();
  });

  it('names every pair of a four-car run in the TTC and distance charts, in rows that fit', async () => {
    // pairs.csv has rows for pairs within 10 m (or a TTC of at most 5 s): four cars 3 m apart on the loop's straight
    const file = join(runsDir, 'four-close.yaml');
    const car = (i: number) =>
      `  - name: car${i}\n    start: { x: ${-4.5 + 3 * i}, y: -8, yaw: 0, speed: 2 }\n    controller: { type: pure-pursuit, waypoints: ${join(ROOT, 'maps/loop.centerline.csv')}, lookahead: 1.5, loop: true, speedScale: 0.5 }`;
    writeFileSync(
      file,
      `name: four-close\nmap: ${join(ROOT, 'maps/loop.yaml')}\nduration: 2s\nvehicles:\n${[0, 1, 2, 3].map(car).join('\n')}\n`,
    );
    const { runDir } = await runScenarioSimulated(file, { runsDir });
    await using server = await startViewServer({ runDir });
    const page = await open(browser, server, '#t=1.00');
    const charts = await page.evaluate(async () => {
      const v = (window as any).__cavsimView;
      await v.whenDrawn();
      return Object.fromEntries(['ttc', 'distance'].map((c) => [c, { series: v.chartSeries(c), legend: v.chartLegend(c) }]));
    });
    for (const { series, legend } of Object.values(charts) as { series: string[]; legend: { label: string; row: number }[] }[]) {
      expect(series).toHaveLength(6);
      expect(legend.map((e) => e.label)).toEqual(series);
      expect(Math.max(...legend.map((e) => e.row))).toBeGreaterThan(0);
    }
    await page.close();
  });
});
