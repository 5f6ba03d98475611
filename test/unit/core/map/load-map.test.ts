import path from 'node:path';
import { PNG } from 'pngjs';
import { describe, expect, it } from 'vitest';
import { loadMap, type ReadFileBytes, validateMapFile } from '../../../../src/core/map/load-map.js';
import { encodePgm } from '../../../../src/core/map/map-image.js';
import { UserInputError } from '../../../../src/errors.js';

/** In-memory file system for the loader's one port. */
function memoryFiles(files: Record<string, string | Uint8Array>): ReadFileBytes {
  return async (p) => {
    const f = files[path.resolve(p)];
    if (f === undefined) throw Object.assign(new Error(`ENOENT: ${p}`), { code: 'ENOENT' });
    return typeof f === 'string' ? new TextEncoder().encode(f) : f;
  };
}

const yaml = (extra = '', image = 'm.pgm') =>
  `image: ${image}\nresolution: 0.5\norigin: [-1.0, -2.0, 0.0]\nnegate: 0\noccupied_thresh: 0.65\nfree_thresh: 0.196\n${extra}`;

// 3x2 image, top row first: black, white, mid-grey (unknown) / white, black, white
const PIXELS = new Uint8Array([0, 255, 205, 254, 0, 255]);
const EXPECT_TOP_FIRST = [1, 0, 1, 0, 1, 0];

function flagsTopFirst(grid: Awaited<ReturnType<typeof loadMap>>): number[] {
  const out: number[] = [];
  for (let row = grid.height - 1; row >= 0; row--)
    for (let col = 0; col < grid.width; col++) out.push(grid.isOccupiedCell(col, row) ? 1 : 0);
  return out;
}

describe('loadMap', () => {
  it('reads a P5 PGM with the map_server trinary thresholds', async () => {
    const read = memoryFiles({ [path.resolve('/m/a.yaml')]: yaml(), [path.resolve('/m/m.pgm')]: encodePgm(3, 2, PIXELS, 'test') });
    const grid = await loadMap('/m/a.yaml', read);
    expect([grid.width, grid.height, grid.resolution]).toEqual([3, 2, 0.5]);
    expect(grid.origin).toEqual({ x: -1, y: -2, yaw: 0 });
    expect(flagsTopFirst(grid)).toEqual(EXPECT_TOP_FIRST);
    // top-left pixel (black) is the cell at world (-1..-0.5, -1..-1.5)
    expect(grid.isOccupiedWorld(-0.75, -1.25)).toBe(true);
    expect(grid.isOccupiedWorld(-0.25, -1.25)).toBe(false);
  });

  it('reads a P2 ASCII PGM with comments and a maxval other than 255', async () => {
    const p2 = 'P2\n# a comment\n3 2\n# another\n15\n0 15 12\n15 0 15\n';
    const read = memoryFiles({ [path.resolve('/m/a.yaml')]: yaml(), [path.resolve('/m/m.pgm')]: p2 });
    expect(flagsTopFirst(await loadMap('/m/a.yaml', read))).toEqual(EXPECT_TOP_FIRST);
  });

  it('reads a PNG (colour averaged) relative to the YAML file', async () => {
    const png = new PNG({ width: 3, height: 2 });
    PIXELS.forEach((v, i) => png.data.set([v, v, v, 255], 4 * i));
    png.data.set([255, 255, 240, 255], 4); // slightly tinted white still counts as free
    const read = memoryFiles({
      [path.resolve('/m/sub/a.yaml')]: yaml('', '../img/m.png'),
      [path.resolve('/m/img/m.png')]: PNG.sync.write(png),
    });
    expect(flagsTopFirst(await loadMap('/m/sub/a.yaml', read))).toEqual(EXPECT_TOP_FIRST);
  });

  it('inverts shades with negate: 1', async () => {
    const read = memoryFiles({
      [path.resolve('/m/a.yaml')]: yaml().replace('negate: 0', 'negate: 1'),
      [path.resolve('/m/m.pgm')]: encodePgm(3, 2, PIXELS),
    });
    // black is now free, white occupied, 205 (p = 0.80) occupied
    expect(flagsTopFirst(await loadMap('/m/a.yaml', read))).toEqual([0, 1, 1, 1, 0, 1]);
  });

  it('applies free_thresh: a light grey becomes free when the threshold is raised', async () => {
    const pixels = new Uint8Array([200, 200, 200, 200, 200, 200]); // p = 0.216
    const files = (t: string) =>
      memoryFiles({
        [path.resolve('/m/a.yaml')]: yaml().replace('free_thresh: 0.196', `free_thresh: ${t}`),
        [path.resolve('/m/m.pgm')]: encodePgm(3, 2, pixels),
      });
    expect(flagsTopFirst(await loadMap('/m/a.yaml', files('0.196')))).toEqual([1, 1, 1, 1, 1, 1]);
    expect(flagsTopFirst(await loadMap('/m/a.yaml', files('0.25')))).toEqual([0, 0, 0, 0, 0, 0]);
  });

  it('loads the shipped corridor map with the documented geometry', async () => {
    const grid = await loadMap(path.resolve('maps/corridor.yaml'));
    expect(grid.resolution).toBe(0.05);
    for (const [x, y] of [
      [0, -1],
      [0, 1],
      [-29.9, -1.9],
      [29.9, 1.9],
    ])
      expect(grid.isOccupiedWorld(x, y)).toBe(false);
    for (const [x, y] of [
      [0, 2.1],
      [0, -2.1],
      [30.1, 0],
      [-30.1, 0],
      [0, 2.3],
    ])
      expect(grid.isOccupiedWorld(x, y)).toBe(true);
  });
});

describe('map validation', () => {
  it('reports every problem at once, each naming its field', async () => {
    const bad =
      'image: missing.pgm\nresolution: -0.05\norigin: [1, 2]\noccupied_thresh: 1.5\nfree_thresh: 0.3\nmode: fancy\ncolour: red\nnegate: 2\n';
    const read = memoryFiles({ [path.resolve('/m/a.yaml')]: bad });
    const problems = await validateMapFile('/m/a.yaml', read);
    expect(problems).toEqual([
      'colour: unknown key; allowed keys are image, resolution, origin, negate, occupied_thresh, free_thresh, mode',
      'resolution: must be a positive number of metres per cell (e.g. 0.05), got -0.05',
      'origin: must be [x, y, yaw] (3 numbers), got 2 values',
      'negate: must be 0 or 1, got 2',
      'occupied_thresh: must be a number within [0, 1], got 1.5',
      'mode: must be one of trinary, scale, raw, got "fancy"',
      `image: cannot read "missing.pgm" (resolved to ${path.resolve('/m/missing.pgm')}): ENOENT; the path is relative to the YAML file`,
    ]);
  });

  it('rejects free_thresh >= occupied_thresh and missing required keys', async () => {
    const read = memoryFiles({ [path.resolve('/m/a.yaml')]: 'occupied_thresh: 0.5\nfree_thresh: 0.5\n' });
    expect(await validateMapFile('/m/a.yaml', read)).toEqual([
      'image: missing; give the path of the PGM or PNG file, relative to this YAML',
      'resolution: missing; give metres per cell, e.g. 0.05',
      'origin: missing; give [x, y, yaw] of the lower-left pixel, e.g. [-10.0, -5.0, 0.0]',
      'free_thresh: must be below occupied_thresh (0.5 >= 0.5); e.g. free_thresh: 0.196, occupied_thresh: 0.65',
    ]);
  });

  it('reports undecodable and truncated images', async () => {
    const read = memoryFiles({
      [path.resolve('/m/a.yaml')]: yaml(),
      [path.resolve('/m/m.pgm')]: new TextEncoder().encode('P5\n10 10\n255\nabc'),
      [path.resolve('/m/b.yaml')]: yaml('', 'm.jpg'),
      [path.resolve('/m/m.jpg')]: new Uint8Array([0xff, 0xd8, 0xff]),
    });
    expect(await validateMapFile('/m/a.yaml', read)).toEqual([
      'image: "m.pgm" cannot be decoded: PGM raster is truncated: 3 bytes for 10x10 pixels',
    ]);
    expect((await validateMapFile('/m/b.yaml', read))[0]).toMatch(/^image: "m.jpg" cannot be decoded: unsupported image format/);
  });

  it('reports an unreadable YAML and broken YAML syntax', async () => {
    const read = memoryFiles({ [path.resolve('/m/a.yaml')]: 'image: [unclosed\n' });
    expect(await validateMapFile('/m/none.yaml', read)).toEqual([`yaml: cannot read /m/none.yaml (ENOENT); check the map path`]);
    const [first] = await validateMapFile('/m/a.yaml', read);
    expect(first).toMatch(/^yaml: .*; fix the YAML syntax$/);
  });

  it('loadMap throws UserInputError carrying the same messages', async () => {
    const read = memoryFiles({
      [path.resolve('/m/a.yaml')]: 'image: m.pgm\nresolution: fine\norigin: [0, 0, 0]\n',
      [path.resolve('/m/m.pgm')]: encodePgm(3, 2, PIXELS),
    });
    const err = await loadMap('/m/a.yaml', read).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(UserInputError);
    expect((err as UserInputError).code).toBe('USER_INPUT');
    expect((err as UserInputError).details).toEqual(['resolution: must be a positive number of metres per cell (e.g. 0.05), got "fine"']);
  });

  it('finds no problems in the shipped maps', async () => {
    for (const name of ['corridor', 'loop', 'intersection', 'open']) {
      expect(await validateMapFile(path.resolve(`maps/${name}.yaml`))).toEqual([]);
    }
  });
});

describe('a map path that points at a file that is not a map', () => {
  it('says so without echoing a line of it (a secret file read under sudo stays secret)', async () => {
    const read = memoryFiles({ [path.resolve('/m/shadow')]: 'root:$6$abcdef:19000:0:99999:7:::\ndaemon:*:19000:0:99999:7:::\n' });
    const problems = await validateMapFile('/m/shadow', read);
    expect(problems).toEqual([expect.stringMatching(/^yaml: not a map_server map file: it has none of image, resolution, origin/)]);
    expect(problems.join('\n')).not.toMatch(/abcdef|daemon/);
  });

  it('names an unknown key of a real map only when it reads as a key', async () => {
    const read = memoryFiles({ [path.resolve('/m/a.yaml')]: 'image: m.pgm\nresolution: 0.05\norigin: [0, 0, 0]\n"root:$6$abc": 1\n' });
    expect((await validateMapFile('/m/a.yaml', read)).join('\n')).toMatch(/a key that is not a map field: unknown key/);
  });
});
