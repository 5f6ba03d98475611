import { readFileSync } from 'node:fs';
import type { TopLevelSpec } from 'vega-lite';
import { describe, expect, it } from 'vitest';
import { wilsonInterval } from '../../../../src/sweep/stats.js';
import { fieldTitle } from '../../../../src/ui/report/field-names.js';
import { figurePaths, writeFigure } from '../../../../src/ui/report/render.js';
import { scratchDir } from '../../../support/scratch-dir.js';

const SPEC = {
  $schema: 'https://vega.github.io/schema/vega-lite/v6.json',
  title: 'head-on-brake: a test figure',
  data: {
    values: [
      { x: 1, y: 2 },
      { x: 2, y: 3 },
    ],
  },
  mark: 'line',
  encoding: { x: { field: 'x', type: 'quantitative', title: 'V2V delay [ms]' }, y: { field: 'y', type: 'quantitative', title: 'gap [m]' } },
} as TopLevelSpec;

describe('figure files', () => {
  it('writes SVG, PNG, a vector PDF and the Vega-Lite spec with its data', async () => {
    const dir = scratchDir('cavsim-figure-');
    const files = await writeFigure(dir, 'test', SPEC);
    expect(figurePaths(files).map((f) => f.slice(dir.length + 1))).toEqual(['test.svg', 'test.png', 'test.pdf', 'test.vl.json']);
    const pdf = readFileSync(files.pdf);
    expect(pdf.subarray(0, 5).toString('latin1')).toBe('%PDF-');
    expect(pdf.length).toBeGreaterThan(2000);
    // the fonts are embedded, so it prints the same everywhere
    expect(pdf.toString('latin1')).toMatch(/FontFile2|DejaVu/);
    const spec = JSON.parse(readFileSync(files.spec, 'utf8'));
    expect(spec).toMatchObject({
      $schema: expect.stringContaining('vega-lite'),
      title: 'head-on-brake: a test figure',
      data: {
        values: [
          { x: 1, y: 2 },
          { x: 2, y: 3 },
        ],
      },
    });
    expect(spec.config.font).toBe('DejaVu Sans');
    expect(readFileSync(files.svg, 'utf8')).toContain('V2V delay [ms]');
  });

  it('names swept fields as a reader would, with units', () => {
    expect(fieldTitle('network.delay', 'ms')).toBe('V2V delay [ms]');
    expect(fieldTitle('vehicles.car1.start.speed', 'm/s')).toBe('initial speed [m/s]');
    expect(fieldTitle('vehicles.*.apps.beacon.rate', 'Hz')).toBe('beacon rate [Hz]');
    expect(fieldTitle('network.loss')).toBe('frame loss probability');
    expect(fieldTitle('physics.params.lf', 'm')).toBe('physics.params.lf [m]');
  });

  it('gives the 95% Wilson interval of a share', () => {
    const a = wilsonInterval(1, 3);
    expect(a.lo).toBeCloseTo(0.0615, 3);
    expect(a.hi).toBeCloseTo(0.7923, 3);
    expect(wilsonInterval(0, 10).lo).toBe(0);
    expect(wilsonInterval(10, 10).hi).toBe(1);
    expect(wilsonInterval(0, 0)).toEqual({ lo: 0, hi: 1 });
  });
});
