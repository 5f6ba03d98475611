import { mkdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { PNG } from 'pngjs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type CarSample, Recorder } from '../../../src/measurement/recorder.js';
import { recorderFiles } from '../../../src/run/run-files.js';
import { RunFolder } from '../../../src/run/run-folder.js';
import { loadScenario } from '../../../src/scenario/load-scenario.js';
import { startViewServer, type ViewServer } from '../../../src/ui/viewer/view-server.js';
import { CHROMIUM, chromiumProblem, requireReal } from '../../support/real-components.js';
import { launchChromium } from './support/browser.js';
import { headOnRun, newRunsDir, ROOT, readVehicleRows, ringRun, rowsAt, type VehicleRow, writeScans } from './support/run-fixtures.js';

// Screenshots go to a scratch folder; CAVSIM_SCREENSHOT_DIR=docs/img refreshes the README's pictures.
const SHOTS = process.env.CAVSIM_SCREENSHOT_DIR ? join(ROOT, process.env.CAVSIM_SCREENSHOT_DIR) : join(tmpdir(), 'cavsim-screenshots');
const VIEWPORT = { width: 1400, height: 860 };
const runsDir = newRunsDir();
const real = requireReal('viz/view-page.test.ts', chromiumProblem());

interface DrawnCar {
  name: string;
  t: number;
  x: number;
  y: number;
  yaw: number;
  px: number;
  py: number;
  color: string;
}

/** The cars of the last frame, once the page has drawn everything asked of it. */
const drawnCars = (page: Page) =>
  page.evaluate(async () => {
    const view = (window as any).__cavsimView;
    await view.whenDrawn();
    return view.drawnCars() as { t: number; cars: DrawnCar[] };
  });
const viewTime = (page: Page) => page.evaluate(() => (window as any).__cavsimView.time() as number);

async function openView(browser: Browser, server: ViewServer): Promise<Page> {
  const page = await browser.newPage({ viewport: VIEWPORT, deviceScaleFactor: 1 });
  const problems: string[] = [];
  page.on('pageerror', (e) => problems.push(e.message));
  page.on('requestfailed', (r) => {
    // The page closes the live event stream itself once the run has finished.
    if (r.url().endsWith('/api/live') && r.failure()?.errorText === 'net::ERR_ABORTED') return;
    problems.push(`request failed: ${r.url()} (${r.failure()?.errorText})`);
  });
  page.on('request', (r) => {
    if (!r.url().startsWith(server.url) && !r.url().startsWith('data:')) problems.push(`request off the machine: ${r.url()}`);
  });
  (page as any).problems = problems;
  await page.goto(server.url);
  await page.waitForFunction(() => (window as any).__cavsimView?.ready === true);
  return page;
}

/** The viewport as RGB, to check what was really painted. */
async function pixels(page: Page): Promise<(x: number, y: number) => [number, number, number]> {
  const png = PNG.sync.read(await page.screenshot());
  return (x, y) => {
    const i = (Math.round(y) * png.width + Math.round(x)) * 4;
    return [png.data[i], png.data[i + 1], png.data[i + 2]];
  };
}

const rgbOf = (hex: string): [number, number, number] => {
  const n = parseInt(hex.slice(1), 16);
  return [n >> 16, (n >> 8) & 255, n & 255];
};
const near = (a: number[], b: number[], tol = 6) => a.every((v, i) => Math.abs(v - b[i]) <= tol);

/** The slider is moved the way a user does: a click on the track. */
async function clickSliderAt(page: Page, fraction: number): Promise<void> {
  const box = (await page.locator('#slider').boundingBox())!;
  await page.mouse.click(box.x + box.width * fraction, box.y + box.height / 2);
}

function expectDrawnWhereCsvSays(drawn: { t: number; cars: DrawnCar[] }, csv: Map<string, VehicleRow>): void {
  expect(drawn.cars.map((c) => c.name).sort()).toEqual([...csv.keys()].sort());
  for (const car of drawn.cars) {
    const row = csv.get(car.name)!;
    expect(car.t).toBeCloseTo(row.t, 6);
    expect(car.x).toBeCloseTo(row.x, 3);
    expect(car.y).toBeCloseTo(row.y, 3);
    expect(car.yaw).toBeCloseTo(row.yaw, 3);
  }
}

describe.skipIf(real.skip)(`cavsim view in headless Chromium (${CHROMIUM}; install with scripts/setup-browser.sh)`, () => {
  let browser: Browser;
  beforeAll(async () => {
    real.assertPresent();
    browser = await launchChromium();
    mkdirSync(SHOTS, { recursive: true });
  });
  afterAll(async () => {
    await browser?.close();
    rmSync(runsDir, { recursive: true, force: true });
  });

  it('draws the cars where vehicles.csv puts them, and the slider moves them', async () => {
    const runDir = await headOnRun(runsDir);
    const rows = readVehicleRows(runDir);
    await using server = await startViewServer({ runDir });
    const page = await openView(browser, server);

    await clickSliderAt(page, 0.2);
    const first = await drawnCars(page);
    expect(first.t).toBeGreaterThan(0.5);
    expect(first.t).toBeLessThan(1.5);
    expect(await viewTime(page)).toBe(first.t);
    expectDrawnWhereCsvSays(first, rowsAt(rows, first.t));
    expect(Number(await page.locator('#world').getAttribute('data-time'))).toBeCloseTo(first.t, 3);
    let pixel = await pixels(page);
    for (const car of first.cars) expect(near(pixel(car.px, car.py), rgbOf(car.color)), `${car.name} painted at its position`).toBe(true);

    await clickSliderAt(page, 0.45);
    const second = await drawnCars(page);
    expect(second.t).toBeGreaterThan(first.t + 0.5);
    expectDrawnWhereCsvSays(second, rowsAt(rows, second.t));
    pixel = await pixels(page);
    for (const car of second.cars) {
      const before = first.cars.find((c) => c.name === car.name)!;
      expect(Math.hypot(car.px - before.px, car.py - before.py), `${car.name} moved on screen`).toBeGreaterThan(20);
      expect(near(pixel(car.px, car.py), rgbOf(car.color)), `${car.name} painted at its new position`).toBe(true);
      expect(near(pixel(before.px, before.py), rgbOf(car.color)), `${car.name} no longer painted at its old position`).toBe(false);
    }

    // One arrow key press is one time step.
    await page.keyboard.press('ArrowRight');
    expect(await viewTime(page)).toBeCloseTo(second.t + 0.01, 6);

    // Play runs the clock forward; pause stops it.
    await page.click('#play');
    await page.waitForFunction((t) => (window as any).__cavsimView.time() > t + 0.2, second.t);
    await page.click('#play');
    const paused = await viewTime(page);
    expect(await page.evaluate(() => (window as any).__cavsimView.playing())).toBe(false);
    expectDrawnWhereCsvSays(await drawnCars(page), rowsAt(rows, paused));

    // The moment the brake message is in flight, zoomed in on the cars: the README's picture.
    await page.evaluate(() => (window as any).__cavsimView.setTime(1.42));
    const { cars } = await drawnCars(page);
    const mid = { x: (cars[0].px + cars[1].px) / 2, y: (cars[0].py + cars[1].py) / 2 };
    await page.mouse.move(mid.x, mid.y);
    for (let i = 0; i < 4; i++) await page.mouse.wheel(0, -240);
    expectDrawnWhereCsvSays(await drawnCars(page), rowsAt(rows, 1.42));
    await page.screenshot({ path: join(SHOTS, 'viz-head-on.png') });
    expect((page as any).problems).toEqual([]);
    await page.close();
  });

  it('draws lidar rays when scans.csv exists, and V2V messages in flight', async () => {
    const runDir = await ringRun(runsDir);
    await writeScans(runDir);
    const rows = readVehicleRows(runDir);
    await using server = await startViewServer({ runDir });
    const page = await openView(browser, server);
    // halfway through the 100 ms flight of the run's first brake broadcast (car5's, at about 5.5 s)
    const brake = readFileSync(join(runDir, 'v2v.csv'), 'utf8')
      .split('\n')
      .filter((l) => l.split(',')[3] === 'emergency-brake');
    const first = brake.filter((l) => l.split(',')[0] === brake[0].split(',')[0]);
    const inFlight = Math.round((Number(first[0].split(',')[4]) + 0.05) * 100) / 100;
    await page.evaluate((t) => (window as any).__cavsimView.setTime(t), inFlight);
    // The scans of t=0 (fetched when the page opened) may still be on screen: wait for those of inFlight.
    await page.waitForFunction((t) => {
      const drawn = (window as any).__cavsimView.drawnScans() as { t: number }[];
      return drawn.length === 6 && drawn.every((s) => Math.abs(s.t - t) < 1e-6);
    }, inFlight);
    const scans = await page.evaluate(() => (window as any).__cavsimView.drawnScans());
    for (const s of scans) {
      expect(s.rays).toBe(360);
      expect(s.t).toBeCloseTo(inFlight, 6);
    }
    expect(first).toHaveLength(5);
    expect(await page.locator('#v2v-log li.active').count()).toBe(5);
    expectDrawnWhereCsvSays(await drawnCars(page), rowsAt(rows, inFlight)); // also waits for the frame with the rays
    await page.screenshot({ path: join(SHOTS, 'viz-ring.png') });
    expect((page as any).problems).toEqual([]);
    await page.close();
  });

  it('follows a live run as its recorder writes, and drops the LIVE badge at the summary', async () => {
    const scenario = await loadScenario(join(ROOT, 'scenarios/head-on-brake.yaml'));
    const folder = RunFolder.create(runsDir, 'live-page');
    folder.writeScenario(scenario);
    const recorder = new Recorder(recorderFiles(folder.dir), ['car0', 'car1']);
    await using server = await startViewServer({ runDir: folder.dir, live: true, pollIntervalMs: 20 });
    const car = (name: string, x: number, v: number): CarSample => ({
      name,
      x,
      y: -1,
      yaw: name === 'car0' ? 0 : Math.PI,
      v,
      steer: 0,
      yawRate: 0,
      cmdSpeed: v,
      cmdSteer: 0,
      braking: false,
      collided: false,
    });
    const write = (from: number, to: number) => {
      for (let step = from; step < to; step++)
        recorder.recordStep(step / 100, [car('car0', -20 + step / 10, 10), car('car1', 20 - step / 10, 10)]);
    };
    write(0, 20);
    const page = await openView(browser, server);
    await page.locator('#live-badge').waitFor({ state: 'visible' });
    expect(await page.locator('#live-badge').textContent()).toBe('LIVE');
    write(20, 120);
    await page.waitForFunction(() => (window as any).__cavsimView.tEnd() >= 1.19);
    // Left at the live edge, the view follows it.
    await page.waitForFunction(() => (window as any).__cavsimView.drawnCars().t >= 1.19);
    const drawn = await drawnCars(page);
    expect(drawn.cars.find((c) => c.name === 'car0')!.x).toBeCloseTo(-20 + 119 / 10, 3);
    expect(drawn.cars.find((c) => c.name === 'car1')!.x).toBeCloseTo(20 - 119 / 10, 3);
    recorder.close();
    folder.writeSummary({
      run_id: 'live-page',
      status: 'completed',
      min_ttc_s: 1,
      min_distance_m: 16.2,
      collision: false,
      v2v: { p50_ms: null },
    } as never);
    await page.locator('#live-badge').waitFor({ state: 'hidden' });
    expect(await page.locator('#summary').textContent()).toContain('completed');
    expect((page as any).problems).toEqual([]);
    await page.close();
  });
});
