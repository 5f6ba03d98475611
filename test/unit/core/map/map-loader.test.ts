import { copyFileSync, mkdtempSync, readFileSync, rmSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { cachingMapLoader, loadMapFromDisk, type MapLoader } from '../../../../src/core/map/map-loader.js';

const MAPS = resolve(import.meta.dirname, '../../../../maps');
const dirs: string[] = [];
afterEach(() => dirs.splice(0).forEach((d) => rmSync(d, { recursive: true, force: true })));

function corridorCopy(): string {
  const dir = mkdtempSync(join(tmpdir(), 'cavsim-map-cache-'));
  dirs.push(dir);
  copyFileSync(join(MAPS, 'corridor.yaml'), join(dir, 'corridor.yaml'));
  copyFileSync(join(MAPS, 'corridor.pgm'), join(dir, 'corridor.pgm'));
  return join(dir, 'corridor.yaml');
}

function counting(): { load: MapLoader; calls: () => number } {
  let calls = 0;
  return { load: (p) => (calls++, loadMapFromDisk(p)), calls: () => calls };
}

describe('cachingMapLoader', () => {
  it('decodes a map once and hands every caller the same grid', async () => {
    const yaml = corridorCopy();
    const { load, calls } = counting();
    const cached = cachingMapLoader(load);
    const [a, b] = await Promise.all([cached(yaml), cached(yaml)]);
    const c = await cached(join(yaml, '..', './corridor.yaml'));
    expect(calls()).toBe(1);
    expect(b).toBe(a);
    expect(c).toBe(a);
    expect(a.width).toBe((await loadMapFromDisk(yaml)).width);
  });

  it('reads the map again when its YAML or its image changed', async () => {
    const yaml = corridorCopy();
    const { load, calls } = counting();
    const cached = cachingMapLoader(load);
    const first = await cached(yaml);

    writeFileSync(yaml, readFileSync(yaml, 'utf8').replace('resolution: 0.05', 'resolution: 0.1'));
    const coarser = await cached(yaml);
    expect(calls()).toBe(2);
    expect(coarser.resolution).toBe(0.1);
    expect(first.resolution).toBe(0.05);

    const image = join(yaml, '..', 'corridor.pgm');
    const later = new Date(Date.now() + 60_000);
    utimesSync(image, later, later);
    expect(await cached(yaml)).not.toBe(coarser);
    expect(calls()).toBe(3);
  });

  it('does not keep a failed load: the next call tries again', async () => {
    const yaml = corridorCopy();
    let calls = 0;
    const cached = cachingMapLoader((p) => (++calls === 1 ? Promise.reject(new Error('disk hiccup')) : loadMapFromDisk(p)));
    await expect(cached(yaml)).rejects.toThrow('disk hiccup');
    expect((await cached(yaml)).resolution).toBe(0.05);
    expect(calls).toBe(2);
  });
});
