import { readFileSync, rmSync } from 'node:fs';
import { request } from 'node:http';
import { join } from 'node:path';
import { PNG } from 'pngjs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadMap } from '../../../src/core/map/load-map.js';
import { type CarSample, Recorder } from '../../../src/measurement/recorder.js';
import { recorderFiles } from '../../../src/run/run-files.js';
import { RunFolder } from '../../../src/run/run-folder.js';
import { loadScenario } from '../../../src/scenario/load-scenario.js';
import { loadScenarioMap } from '../../../src/scenario/scenario-map.js';
import type { RunData } from '../../../src/ui/viewer/run-data.js';
import { startViewServer, type ViewServer } from '../../../src/ui/viewer/view-server.js';
import { headOnRun, newRunsDir, ROOT, readVehicleRows } from './support/run-fixtures.js';
import { SseClient } from './support/sse-client.js';

const runsDir = newRunsDir();
afterAll(() => rmSync(runsDir, { recursive: true, force: true }));

function fetchRaw(url: string, headers: Record<string, string> = {}): Promise<{ status: number; type: string; body: Buffer }> {
  return new Promise((resolve, reject) => {
    const req = request(url, { headers }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => resolve({ status: res.statusCode!, type: String(res.headers['content-type']), body: Buffer.concat(chunks) }));
    });
    req.on('error', reject);
    req.end();
  });
}
const fetchJson = async (url: string) => JSON.parse((await fetchRaw(url)).body.toString('utf8'));

describe('view server, replay of a finished run', () => {
  let runDir: string;
  let server: ViewServer;
  beforeAll(async () => {
    runDir = await headOnRun(runsDir);
    server = await startViewServer({ runDir });
  });
  afterAll(() => server.close());

  it('listens on 127.0.0.1 on a free port and prints a URL for it', () => {
    expect(server.url).toBe(`http://127.0.0.1:${server.port}/`);
    expect(server.port).toBeGreaterThan(0);
  });

  it('serves the page and its modules, nothing from elsewhere', async () => {
    const page = await fetchRaw(server.url);
    expect(page.status).toBe(200);
    const html = page.body.toString('utf8');
    // relative, so the same page serves a run at / and a sweep's run at /runs/<name>/
    expect(html).toContain('<script type="module" src="view.js">');
    expect(html).not.toMatch(/https?:\/\//);
    for (const m of ['/view.js', '/world.js', '/charts.js', '/series.js', '/feed.js', '/view.css']) {
      const res = await fetchRaw(server.url.slice(0, -1) + m);
      expect(res.status, m).toBe(200);
      expect(res.body.toString('utf8'), m).not.toMatch(/\bhttps?:\/\/(?!127\.0\.0\.1)/);
    }
    expect((await fetchRaw(`${server.url}../etc/passwd`)).status).toBe(404);
  });

  it('describes the run: vehicles with sizes and waypoints, the map placement, the summary', async () => {
    const meta = await fetchJson(`${server.url}api/meta`);
    const scenario = await loadScenario(join(ROOT, 'scenarios/head-on-brake.yaml'), { overrides: ['network.delay=200ms'] });
    const grid = await loadScenarioMap(scenario);
    expect(meta.live).toBe(false);
    expect(meta.scenario).toMatchObject({ name: 'head-on-brake', channel: 'csma, delay 200 ms, 100Mbps' });
    expect(meta.vehicles.map((v: { name: string }) => v.name)).toEqual(['car0', 'car1']);
    expect(meta.vehicles[0]).toMatchObject({
      length: scenario.vehicles[0].params.length,
      width: scenario.vehicles[0].params.width,
      controller: 'pure-pursuit',
    });
    const wp = scenario.vehicles[0].controller.type === 'pure-pursuit' ? scenario.vehicles[0].controller.waypoints : [];
    expect(meta.vehicles[0].waypoints.length).toBe(wp.length);
    expect(meta.map).toEqual({ width: grid.width, height: grid.height, resolution: grid.resolution, origin: grid.origin });
    expect(meta.summary.run_id).toBe(meta.runId);
    expect(meta.hasScans).toBe(false);
  });

  it('sends every row of vehicles.csv, in columns', async () => {
    const data = (await fetchJson(`${server.url}api/data`)) as RunData;
    const rows = readVehicleRows(runDir);
    for (const name of ['car0', 'car1']) {
      const mine = rows.filter((r) => r.vehicle === name);
      const s = data.vehicles[name];
      expect(s.t.length).toBe(mine.length);
      for (const i of [0, Math.floor(mine.length / 2), mine.length - 1]) {
        expect(s.t[i]).toBeCloseTo(mine[i].t, 6);
        expect(s.x[i]).toBeCloseTo(mine[i].x, 3);
        expect(s.y[i]).toBeCloseTo(mine[i].y, 3);
      }
      expect(s.goal.some((g) => g >= 0)).toBe(true);
    }
    expect(data.v2v.length).toBe(1);
    expect(data.pairs['car0|car1'].t.length).toBe(rows.length / 2);
  });

  it('draws the occupancy grid as a PNG one pixel per cell, walls dark', async () => {
    const res = await fetchRaw(`${server.url}api/map.png`);
    expect(res.type).toBe('image/png');
    const png = PNG.sync.read(res.body);
    const grid = await loadMap(JSON.parse(readFileSync(join(runDir, 'scenario.resolved.json'), 'utf8')).mapFile);
    expect([png.width, png.height]).toEqual([grid.width, grid.height]);
    const shade = (col: number, row: number) => png.data[((grid.height - 1 - row) * grid.width + col) * 4];
    const free = grid.worldToCell(0, 0);
    const wall = grid.worldToCell(0, -2.2);
    expect(grid.isOccupiedCell(free.col, free.row)).toBe(false);
    expect(grid.isOccupiedCell(wall.col, wall.row)).toBe(true);
    expect(shade(free.col, free.row)).toBeGreaterThan(200);
    expect(shade(wall.col, wall.row)).toBeLessThan(120);
  });

  it('refuses requests that name another host (DNS rebinding)', async () => {
    const res = await fetchRaw(`${server.url}api/data`, { host: 'attacker.example' });
    expect(res.status).toBe(403);
  });

  it('can be closed twice', async () => {
    const s = await startViewServer({ runDir });
    await s.close();
    await s.close();
    await expect(fetchRaw(s.url)).rejects.toThrow();
  });
});

describe('view server, live run', () => {
  it('waits for the scenario, then pushes exactly the rows a recorder writes, then the summary', async () => {
    const scenario = await loadScenario(join(ROOT, 'scenarios/head-on-brake.yaml'));
    const folder = RunFolder.create(runsDir, 'live-run');
    await using server = await startViewServer({ runDir: folder.dir, live: true, pollIntervalMs: 10 });
    expect((await fetchRaw(`${server.url}api/meta`)).status).toBe(503);

    const sse = await SseClient.open(`${server.url}api/live`);
    await sse.waitFor((e) => e.some((x) => x.event === 'snapshot'));
    folder.writeScenario(scenario);
    const recorder = new Recorder(recorderFiles(folder.dir), ['car0', 'car1']);
    await sse.waitFor((e) => e.some((x) => x.event === 'ready'));
    expect((await fetchJson(`${server.url}api/meta`)).live).toBe(true);

    const car = (name: string, x: number): CarSample => ({
      name,
      x,
      y: -1,
      yaw: name === 'car0' ? 0 : Math.PI,
      v: 10,
      steer: 0,
      yawRate: 0,
      cmdSpeed: 10,
      cmdSteer: 0,
      braking: false,
      collided: false,
    });
    const received = () =>
      sse.events
        .filter((e) => e.event === 'append' || e.event === 'snapshot')
        .reduce((n, e) => n + ((e.data as RunData).vehicles.car0?.t.length ?? 0), 0);
    for (let step = 0; step < 30; step++) {
      recorder.recordStep(step * 0.01, [car('car0', -20 + step * 0.1), car('car1', 20 - step * 0.1)]);
      if (step % 10 === 9) await sse.waitFor(() => received() === step + 1);
    }
    recorder.recordEvent(0.29, 'car0', 'brake-sent', { to: 'car1' });
    recorder.close();
    folder.writeSummary({ run_id: 'live-run', status: 'completed' } as never);
    await sse.waitFor((e) => e.some((x) => x.event === 'summary'));

    const xs = sse.events.filter((e) => e.event === 'append').flatMap((e) => (e.data as RunData).vehicles.car0?.x ?? []);
    expect(xs).toEqual(Array.from({ length: 30 }, (_, i) => Math.round((-20 + i * 0.1) * 1000) / 1000));
    const summaryIndex = sse.events.findIndex((e) => e.event === 'summary');
    expect(sse.events.slice(0, summaryIndex).some((e) => e.event === 'append' && (e.data as RunData).events.length === 1)).toBe(true);
    expect((await fetchJson(`${server.url}api/data`)).vehicles.car1.t.length).toBe(30);
    sse.close();
  });
});
