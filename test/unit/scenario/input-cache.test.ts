import { mkdtempSync, rmSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { cachingInputs, uncachedInputs } from '../../../src/scenario/input-cache.js';
import { loadScenario } from '../../../src/scenario/load-scenario.js';
import { packageRoot } from '../../../src/util/package-root.js';

const dir = mkdtempSync(join(tmpdir(), 'cavsim-inputs-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('scenario inputs read once for many loads', () => {
  it('hand out the same parse while a CSV is unchanged, and read it again once it changes', async () => {
    const file = join(dir, 'path.csv');
    writeFileSync(file, 'x,y,speed\n0,0,1\n1,0,1\n');
    const inputs = cachingInputs();
    const first = await inputs.readCsv(file, ['x', 'y', 'speed'], 1 << 20);
    expect(first.rows).toEqual([
      { x: 0, y: 0, speed: 1 },
      { x: 1, y: 0, speed: 1 },
    ]);
    expect(await inputs.readCsv(file, ['x', 'y', 'speed'], 1 << 20)).toBe(first);
    writeFileSync(file, 'x,y,speed\n0,0,2\n1,0,2\n');
    utimesSync(file, new Date(), new Date(Date.now() + 5000)); // a new mtime even on a coarse clock
    const second = await inputs.readCsv(file, ['x', 'y', 'speed'], 1 << 20);
    expect(second).not.toBe(first);
    expect(second.rows[0].speed).toBe(2);
    expect(await uncachedInputs.readCsv(file, ['x', 'y', 'speed'], 1 << 20)).not.toBe(
      await uncachedInputs.readCsv(file, ['x', 'y', 'speed'], 1 << 20),
    );
  });

  it('decode a map once, and a missing file is reported each time, never cached', async () => {
    const inputs = cachingInputs();
    const map = join(packageRoot(), 'maps/corridor.yaml');
    const a = await inputs.readMap(map);
    expect(a.grid).toBeDefined();
    expect(await inputs.readMap(map)).toBe(a);
    const missing = await inputs.readMap(join(dir, 'no-such-map.yaml'));
    expect(missing.problems.join(' ')).toMatch(/cannot read/);
    expect(await inputs.readMap(join(dir, 'no-such-map.yaml'))).not.toBe(missing);
  });

  it('give a scenario loaded through them what a fresh load gives', async () => {
    const file = join(packageRoot(), 'scenarios/platoon-cacc.yaml');
    const inputs = cachingInputs();
    const fresh = await loadScenario(file, { overrides: ['network.delay=20ms'] });
    await loadScenario(file, { inputs });
    expect(await loadScenario(file, { inputs, overrides: ['network.delay=20ms'] })).toEqual(fresh);
  });
});
