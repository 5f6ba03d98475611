import { readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { PNG } from 'pngjs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runScenarioSimulated } from '../../../src/api/run-simulated.js';
import { startViewServer, type ViewServer } from '../../../src/ui/viewer/view-server.js';
import { CHROMIUM, chromiumProblem, requireReal } from '../../support/real-components.js';
import { launchChromium } from './support/browser.js';
import { newRunsDir, ROOT } from './support/run-fixtures.js';

/**
 * The platoon of six on the 200 m highway (scenarios/platoon-cacc.yaml), at 70 % frame loss so it
 * collides and its CACC falls back to ACC and back dozens of times: the view fits the cars, not
 * the road; V2V rings stay thin and few; the events list follows the time to the collision.
 */
const runsDir = newRunsDir();
const real = requireReal('viz/view-platoon.test.ts', chromiumProblem());

type Car = { name: string; px: number; py: number };
const drawn = (page: Page) =>
  page.evaluate(async () => {
    const v = (window as any).__cavsimView;
    await v.whenDrawn();
    return { cars: v.drawnCars().cars as Car[], rings: v.drawnRings() as { vehicle: string; kind: string }[] };
  });

async function open(browser: Browser, server: ViewServer, hash = ''): Promise<Page> {
  const page = await browser.newPage({ viewport: { width: 1400, height: 860 } });
  await page.goto(`${server.url}${hash}`);
  await page.waitForFunction(() => (window as any).__cavsimView?.ready === true);
  return page;
}

describe.skipIf(real.skip)(`cavsim view of a platoon (${CHROMIUM})`, () => {
  let browser: Browser;
  let runDir: string;
  beforeAll(async () => {
    real.assertPresent();
    const run = await runScenarioSimulated(join(ROOT, 'scenarios/platoon-cacc.yaml'), { overrides: ['network.loss=0.7'], runsDir });
    expect(run.summary.collision).toBe(true);
    runDir = run.runDir;
    browser = await launchChromium();
  });
  afterAll(async () => {
    await browser?.close();
    rmSync(runsDir, { recursive: true, force: true });
  });

  it('opens fitted to the cars over the whole run, not to the 200 m road', async () => {
    await using server = await startViewServer({ runDir });
    const page = await open(browser, server);
    await drawn(page);
    const canvas = (await page.locator('#world').boundingBox())!;
    const tEnd = await page.evaluate(() => (window as any).__cavsimView.tEnd() as number);
    const box = { minX: Infinity, maxX: -Infinity, minY: Infinity, maxY: -Infinity };
    for (let t = 0; t <= tEnd; t += 0.25) {
      const cars = await page.evaluate((at) => (window as any).__cavsimView.carsAt(at) as Car[], t);
      for (const c of cars) {
        box.minX = Math.min(box.minX, c.px);
        box.maxX = Math.max(box.maxX, c.px);
        box.minY = Math.min(box.minY, c.py);
        box.maxY = Math.max(box.maxY, c.py);
      }
    }
    // every car at every time is on the canvas, with a margin
    expect(box.minX).toBeGreaterThan(canvas.x + 10);
    expect(box.maxX).toBeLessThan(canvas.x + canvas.width - 10);
    expect(box.minY).toBeGreaterThan(canvas.y + 10);
    expect(box.maxY).toBeLessThan(canvas.y + canvas.height - 10);
    // and they use most of its width (the road, 200 m, is about twice as long as their path)
    expect((box.maxX - box.minX) / canvas.width).toBeGreaterThan(0.7);
    await page.close();
  });

  it('draws V2V rings under the cars, thin and few: at most one sent and one received ring per car', async () => {
    await using server = await startViewServer({ runDir });
    const page = await open(browser, server, '#t=4.50');
    const canvas = (await page.locator('#world').boundingBox())!;
    await page.evaluate(() => (window as any).__cavsimView.setLayer('labels', false));
    const shot = async () => PNG.sync.read(await page.screenshot({ clip: canvas }));
    await page.evaluate(() => (window as any).__cavsimView.setLayer('v2v', false));
    await drawn(page);
    const without = await shot();
    await page.evaluate(() => (window as any).__cavsimView.setLayer('v2v', true));
    const { cars, rings } = await drawn(page);
    const withV2v = await shot();
    // messages are on the air at 4.5 s: rings are drawn, but never more than two per car
    expect(rings.length).toBeGreaterThan(0);
    for (const car of cars) {
      expect(rings.filter((r) => r.vehicle === car.name && r.kind === 'sent').length).toBeLessThanOrEqual(1);
      expect(rings.filter((r) => r.vehicle === car.name && r.kind === 'received').length).toBeLessThanOrEqual(1);
    }
    // around each car (30 px), the V2V layer changes few pixels, and none of the car itself
    for (const car of cars) {
      const cx = Math.round(car.px - canvas.x);
      const cy = Math.round(car.py - canvas.y);
      let changed = 0;
      let all = 0;
      for (let y = cy - 30; y <= cy + 30; y++) {
        for (let x = cx - 30; x <= cx + 30; x++) {
          if ((x - cx) ** 2 + (y - cy) ** 2 > 900 || x < 0 || y < 0 || x >= without.width || y >= without.height) continue;
          const i = (y * without.width + x) * 4;
          const d =
            Math.abs(without.data[i] - withV2v.data[i]) +
            Math.abs(without.data[i + 1] - withV2v.data[i + 1]) +
            Math.abs(without.data[i + 2] - withV2v.data[i + 2]);
          all++;
          if (d > 60) changed++;
        }
      }
      expect(changed / all, `${car.name}: share of pixels within 30 px the V2V layer changed`).toBeLessThan(0.15);
      const i = (cy * without.width + cx - 2) * 4; // just behind the centre: the car's body colour
      expect([...withV2v.data.subarray(i, i + 3)]).toEqual([...without.data.subarray(i, i + 3)]);
    }
    await page.close();
  });

  it('follows the time in the events list: seeking to the collision shows and marks it', async () => {
    const [, first] = readFileSync(join(runDir, 'collisions.csv'), 'utf8').trim().split('\n');
    const [t, a, b] = first.split(',');
    await using server = await startViewServer({ runDir });
    const page = await open(browser, server);
    const current = () =>
      page.evaluate(() => {
        const list = document.getElementById('event-log')!;
        const li = list.querySelector('li.current') as HTMLElement | null;
        if (!li) return null;
        const l = list.getBoundingClientRect();
        const r = li.getBoundingClientRect();
        return {
          text: li.textContent!,
          visible: r.top >= l.top - 1 && r.bottom <= l.bottom + 1,
          entries: list.children.length,
          scrolls: list.scrollHeight > list.clientHeight,
        };
      });
    await page.evaluate((at) => (window as any).__cavsimView.setTime(at), Number(t));
    const atCollision = await current();
    expect(atCollision?.text).toContain(`collision ${a}–${b}`);
    expect(atCollision?.visible).toBe(true);
    expect(atCollision?.scrolls).toBe(true); // more entries than the list shows: it had to scroll there
    await page.evaluate(() => (window as any).__cavsimView.setTime(0.1));
    const atStart = await current();
    expect(atStart?.text).toMatch(/^0\.(0|1)\d s {2}car\d {2}cacc-mode$/);
    expect(atStart?.visible).toBe(true);
    await page.close();
  });
});
