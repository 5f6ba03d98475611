import { existsSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { gridFromJson, gridToJson } from '../../../../src/core/map/grid-json.js';
import { loadMap } from '../../../../src/core/map/load-map.js';
import { mapWallReturns, wallMargin } from '../../../../src/core/sensing/wall-returns.js';
import { readMapGrid } from '../../../../src/runtime/emulated/containers/process-env.js';
import { writeMapGrid } from '../../../../src/runtime/emulated/map-grid-file.js';
import { loadScenario } from '../../../../src/scenario/load-scenario.js';
import { appsNeedMap } from '../../../../src/world/create-apps.js';
import { scratchDir } from '../../../support/scratch-dir.js';

/**
 * The emulated vehicle container's CPM leaves the map's walls out of its objects, as the simulated
 * runtime's does (core/sensing/wall-returns.ts): the host writes the walls as JSON (map/grid.json),
 * the container reads them without YAML. The grid it reads is the map, cell for cell.
 */
const ROOT = fileURLToPath(new URL('../../../../', import.meta.url));
const base = scratchDir('map-grid');
const dir = () => base;

describe('the map’s walls for an emulated vehicle container', () => {
  it('a scenario with a CPM: the host writes map/grid.json, and the container reads back the very grid its walls come from', async () => {
    const scenario = await loadScenario(join(ROOT, 'scenarios/cpm-hidden-obstacle.yaml'));
    const runDir = join(dir(), 'run-cpm');
    mkdirSync(runDir, { recursive: true });
    expect(await writeMapGrid(scenario, runDir)).toBe(join(runDir, 'map/grid.json'));
    const original = await loadMap(scenario.mapFile!);
    const read = readMapGrid(runDir);
    expect([read.width, read.height, read.resolution, read.origin]).toEqual([
      original.width,
      original.height,
      original.resolution,
      original.origin,
    ]);
    expect(Buffer.from(read.occupied).equals(Buffer.from(original.occupied))).toBe(true);
    // the CPM's wall test answers the same for every beam of a sweep around the cars' starts
    const margin = wallMargin(original.resolution, 0.01);
    for (const v of scenario.vehicles.filter(appsNeedMap)) {
      const pose = { x: v.start.x, y: v.start.y, yaw: v.start.yaw };
      const fromDisk = mapWallReturns(original, pose, margin);
      const fromJson = mapWallReturns(read, pose, margin);
      let walls = 0;
      for (let a = -Math.PI; a < Math.PI; a += 0.05)
        for (const range of [2, 5, 10, 20, 40]) {
          expect(fromJson(a, range)).toBe(fromDisk(a, range));
          if (fromDisk(a, range)) walls++;
        }
      expect(walls).toBeGreaterThan(0);
    }
  });

  it('no file for a scenario whose apps never look at the map', async () => {
    const scenario = await loadScenario(join(ROOT, 'scenarios/cam-highway.yaml'));
    const runDir = join(dir(), 'run-cam');
    mkdirSync(runDir, { recursive: true });
    expect(await writeMapGrid(scenario, runDir)).toBeUndefined();
    expect(existsSync(join(runDir, 'map/grid.json'))).toBe(false);
    expect(() => readMapGrid(runDir)).toThrow(/map\/grid\.json cannot be read as the map's grid/);
  });

  it('JSON round trip; anything else is refused naming the field', async () => {
    const grid = await loadMap(join(ROOT, 'maps/corridor.yaml'));
    const json = JSON.parse(JSON.stringify(gridToJson(grid)));
    expect(json.schema).toBe('cavsim.grid/1');
    expect(gridFromJson(json).occupied).toEqual(grid.occupied);
    expect(() => gridFromJson(null)).toThrow(/cavsim\.grid\/1/);
    expect(() => gridFromJson({ ...json, width: '10' })).toThrow(/width must be a finite number/);
    expect(() => gridFromJson({ ...json, origin: { x: 0, y: 0 } })).toThrow(/origin\.yaw/);
    expect(() => gridFromJson({ ...json, occupied: 'not base64!' })).toThrow(/base64/);
    expect(() => gridFromJson({ ...json, width: json.width + 1 })).toThrow(/occupied has/);
  });
});
