import { existsSync, mkdtempSync, rmSync, truncateSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PNG } from 'pngjs';
import { afterAll, describe, expect, it } from 'vitest';
import { runScenarioSimulated } from '../../../../src/api/run-simulated.js';
import { validateMapFile } from '../../../../src/core/map/load-map.js';
import { decodeMapImage, encodePgm, MAX_MAP_PIXELS } from '../../../../src/core/map/map-image.js';
import { EXIT_STATUS, UserInputError } from '../../../../src/errors.js';

const dir = mkdtempSync(join(tmpdir(), 'cavsim-map-limits-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

let fileCount = 0;

/** Writes `image` and a YAML naming it (with `yamlExtra` appended) and returns the map's problems. */
async function problemsOf(image: string | Uint8Array, yamlExtra = '', name = 'm.pgm'): Promise<string[]> {
  const base = String(fileCount++);
  writeFileSync(join(dir, `${base}.${name}`), image);
  const yaml = join(dir, `${base}.yaml`);
  writeFileSync(yaml, `image: ${base}.${name}\nresolution: 0.05\norigin: [0, 0, 0]\n${yamlExtra}`);
  return validateMapFile(yaml);
}

/** A PNG signature and IHDR chunk claiming width x height; the CRC is not checked before the size is. */
function forgedPngHeader(width: number, height: number): Uint8Array {
  const bytes = new Uint8Array(33);
  bytes.set([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);
  const view = new DataView(bytes.buffer);
  view.setUint32(8, 13);
  bytes.set([0x49, 0x48, 0x44, 0x52], 12); // IHDR
  view.setUint32(16, width);
  view.setUint32(20, height);
  bytes.set([8, 0, 0, 0, 0], 24);
  return bytes;
}

describe('map image size', () => {
  it('refuses a PGM whose header claims 2e8 x 2e8 pixels, from the header alone', async () => {
    const started = performance.now();
    const [problem] = await problemsOf('P5\n200000000 200000000\n255\n');
    expect(problem).toMatch(
      /^image: ".*m\.pgm" is 200000000 x 200000000 pixels, more than the 16777216 \(4096 x 4096\) cavsim loads; crop it .* twice the resolution\)$/,
    );
    expect(performance.now() - started).toBeLessThan(1000);
  });

  it('refuses a PNG whose IHDR claims 100000 x 100000 pixels before inflating anything', () => {
    expect(() => decodeMapImage(forgedPngHeader(100000, 100000))).toThrow(/^is 100000 x 100000 pixels, more than the 16777216/);
    expect(() => decodeMapImage(forgedPngHeader(4097, 4096))).toThrow(/^is 4097 x 4096 pixels/);
  });

  it('loads a map of exactly the limit', () => {
    const side = Math.sqrt(MAX_MAP_PIXELS);
    const image = decodeMapImage(encodePgm(side, side, new Uint8Array(MAX_MAP_PIXELS).fill(254)));
    expect([image.width, image.height]).toEqual([4096, 4096]);
  });

  it('refuses an image file larger than any map within the limit, without reading it', async () => {
    const sub = join(dir, 'sparse');
    writeFileSync(`${sub}.pgm`, 'P5\n20000 20000\n255\n');
    truncateSync(`${sub}.pgm`, 400_000_018); // sparse: no disk space used
    writeFileSync(`${sub}.yaml`, `image: sparse.pgm\nresolution: 0.05\norigin: [0, 0, 0]\n`);
    expect(await validateMapFile(`${sub}.yaml`)).toEqual([
      `image: "sparse.pgm" (resolved to ${sub}.pgm) is 381 MB, more than the 256 MB cavsim reads for it; give a PGM or PNG of at most 4096 x 4096 pixels`,
    ]);
  });

  it('refuses a device or a FIFO as image or YAML (reading it would never end)', async () => {
    expect(await validateMapFile('/dev/zero')).toEqual(['yaml: /dev/zero is not a regular file; give the map_server YAML file']);
    const yaml = join(dir, 'zero.yaml');
    writeFileSync(yaml, 'image: /dev/zero\nresolution: 0.05\norigin: [0, 0, 0]\n');
    expect(await validateMapFile(yaml)).toEqual([
      'image: "/dev/zero" (resolved to /dev/zero) is not a regular file; give a PGM or PNG of at most 4096 x 4096 pixels',
    ]);
  });

  it('refuses a YAML file of megabytes', async () => {
    const yaml = join(dir, 'big.yaml');
    writeFileSync(yaml, `image: m.pgm\n#${'x'.repeat(2 * 1024 * 1024)}\n`);
    expect(await validateMapFile(yaml)).toEqual([
      `yaml: ${yaml} is 2 MB, more than the 1 MB cavsim reads for it; give the map_server YAML file`,
    ]);
  });
});

describe('malformed images', () => {
  it.each<[string, string | Uint8Array, string]>([
    ['a negative width', 'P5\n-5 10\n255\n', 'PGM header has a bad width: "-5" (must be a whole number above 0)'],
    ['a zero height', 'P5\n10 0\n255\n', 'PGM header has a bad height: "0" (must be a whole number above 0)'],
    ['a width that is not a number', 'P2\nten 10\n255\n', 'PGM header has a bad width: "ten" (must be a whole number above 0)'],
    ['a fractional width', 'P5\n10.5 10\n255\n', 'PGM header has a bad width: "10.5" (must be a whole number above 0)'],
    [
      'a width of a million digits',
      `P5\n${'9'.repeat(1_000_000)} 10\n255\n`,
      `PGM header has a bad width: "${'9'.repeat(21)}…" (must be a whole number above 0)`,
    ],
    ['maxval 0', 'P5\n3 2\n0\n', 'PGM header has a bad maxval: "0" (must be a whole number above 0)'],
    ['maxval above 65535', 'P5\n3 2\n70000\n', 'PGM maxval 70000 is above 65535'],
    ['a header cut short', 'P5\n3', 'PGM header ends before its height; a header reads e.g. "P5 <width> <height> 255"'],
    ['a binary raster shorter than width x height', 'P5\n10 10\n255\nabc', 'PGM raster is truncated: 3 bytes for 10x10 pixels'],
    ['a 16-bit raster of 8-bit length', `P5\n3 2\n1000\n${'\x01'.repeat(6)}`, 'PGM raster is truncated: 6 bytes for 3x2 pixels'],
    ['an ASCII raster shorter than width x height', 'P2\n3 2\n255\n0 255 0 255\n', 'PGM raster is truncated: 4 of 3x2 pixels'],
    ['an ASCII pixel that is not a number', 'P2\n3 2\n255\n0 255 x 255 0 0\n', 'PGM pixel 2 is not a number: "x"'],
    [
      'a PNG cut off after its signature',
      new Uint8Array([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0, 0]),
      'PNG has no IHDR header chunk after its signature; the file is cut short or damaged',
    ],
    ['a PNG of 0 x 5 pixels', forgedPngHeader(0, 5), 'PNG header says 0 x 5 pixels; a map needs at least one'],
  ])('%s', async (_name, image, message) => {
    expect(await problemsOf(image)).toEqual([expect.stringMatching(/^image: ".*m\.pgm" cannot be decoded: /)]);
    expect((await problemsOf(image))[0].replace(/^image: ".*m\.pgm" cannot be decoded: /, '')).toBe(message);
  });

  it('reports a PNG whose data is cut short, without throwing', async () => {
    const png = new PNG({ width: 64, height: 64 });
    png.data.fill(200);
    const bytes = PNG.sync.write(png);
    const [problem] = await problemsOf(bytes.subarray(0, bytes.length / 2));
    expect(problem).toMatch(/^image: ".*m\.pgm" cannot be decoded: ./);
  });
});

describe('map metadata', () => {
  const withFields = (fields: string) => problemsOf(encodePgm(2, 2, new Uint8Array(4).fill(254)), fields);
  const metadataOnly = async (yaml: string) => {
    const file = join(dir, `meta-${fileCount++}.yaml`);
    writeFileSync(join(dir, 'ok.pgm'), encodePgm(2, 2, new Uint8Array(4).fill(254)));
    writeFileSync(file, `image: ok.pgm\n${yaml}`);
    return validateMapFile(file);
  };

  it.each([
    ['resolution: .nan', 'resolution: must be a positive number of metres per cell (e.g. 0.05), got .nan (not a number)'],
    ['resolution: .inf', 'resolution: must be a positive number of metres per cell (e.g. 0.05), got .inf (infinite)'],
    ['resolution: 0', 'resolution: must be a positive number of metres per cell (e.g. 0.05), got 0'],
    ['resolution: 1e-9', 'resolution: 1e-9 m per cell is out of range; use 0.001 to 10 (ROS maps use about 0.05)'],
    ['resolution: 50', 'resolution: 50 m per cell is out of range; use 0.001 to 10 (ROS maps use about 0.05)'],
    ['resolution: "0.05"', 'resolution: must be a positive number of metres per cell (e.g. 0.05), got "0.05"'],
  ])('%s', async (line, message) => {
    expect(await metadataOnly(`${line}\norigin: [0, 0, 0]\n`)).toEqual([message]);
  });

  it.each([
    ['[0, .nan, 0]', 'origin: all of [x, y, yaw] must be finite numbers, got [0, .nan (not a number), 0]'],
    ['[-.inf, 0, 0]', 'origin: all of [x, y, yaw] must be finite numbers, got [-.inf (infinite), 0, 0]'],
    ['[1e20, 0, 0]', 'origin: x and y must lie within ±1000000 m, got [100000000000000000000, 0, 0]; use coordinates local to the map'],
    ['[0, 0]', 'origin: must be [x, y, yaw] (3 numbers), got 2 values'],
  ])('origin: %s', async (origin, message) => {
    expect(await metadataOnly(`resolution: 0.05\norigin: ${origin}\n`)).toEqual([message]);
  });

  it.each([
    ['free_thresh: .nan', 'free_thresh: must be a number within [0, 1], got .nan (not a number)'],
    ['occupied_thresh: -0.1', 'occupied_thresh: must be a number within [0, 1], got -0.1'],
    ['occupied_thresh: 1.5', 'occupied_thresh: must be a number within [0, 1], got 1.5'],
  ])('%s', async (line, message) => {
    expect(await withFields(`${line}\n`)).toEqual([message]);
  });
});

describe('a scenario on a forged map', () => {
  it('is refused with exit 2 before any run folder exists', async () => {
    writeFileSync(join(dir, 'huge.pgm'), 'P5\n200000000 200000000\n255\n');
    writeFileSync(join(dir, 'huge.yaml'), 'image: huge.pgm\nresolution: 0.05\norigin: [0, 0, 0]\n');
    const scenario = join(dir, 'scenario.yaml');
    writeFileSync(scenario, 'name: t\nmap: huge.yaml\nduration: 1s\nvehicles:\n  - name: car0\n    start: { x: 1, y: 1 }\n');
    const runsDir = join(dir, 'runs');
    const err = await runScenarioSimulated(scenario, { runsDir }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(UserInputError);
    expect(EXIT_STATUS[(err as UserInputError).code]).toBe(2);
    expect((err as UserInputError).details).toEqual([
      'map (line 2): huge.yaml: image: "huge.pgm" is 200000000 x 200000000 pixels, more than the 16777216 (4096 x 4096) cavsim loads; crop it to the area the cars use, or scale it down and raise resolution to match (e.g. `convert huge.pgm -resize 50% half.pgm` and twice the resolution)',
    ]);
    expect(existsSync(runsDir)).toBe(false);
  });
});
