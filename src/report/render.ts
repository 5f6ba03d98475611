import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { mkdirSync, writeFileSync } from 'node:fs';
import * as vega from 'vega';
import * as vegaLite from 'vega-lite';
import type { TopLevelSpec } from 'vega-lite';
import { Resvg } from '@resvg/resvg-js';

/** The fonts come from an npm package, so the PNGs look the same on every machine. */
const FONT_DIR = join(dirname(createRequire(import.meta.url).resolve('dejavu-fonts-ttf/package.json')), 'ttf');
export const FONT_FAMILY = 'DejaVu Sans';
const FONT_FILES = ['DejaVuSans.ttf', 'DejaVuSans-Bold.ttf', 'DejaVuSans-Oblique.ttf'].map((f) => join(FONT_DIR, f));

/** Looks shared by every figure: paper-friendly sizes, one font, light grid. */
export const FIGURE_CONFIG = {
  font: FONT_FAMILY,
  background: 'white',
  padding: 12,
  axis: { labelFontSize: 12, titleFontSize: 13, titleFontWeight: 'normal', gridColor: '#e6e6e6', tickColor: '#888', domainColor: '#888' },
  legend: { labelFontSize: 12, titleFontSize: 12, titleFontWeight: 'normal', orient: 'bottom' },
  header: { labelFontSize: 13, titleFontSize: 13, titleFontWeight: 'normal' },
  title: { fontSize: 15, fontWeight: 'normal', anchor: 'start' },
  view: { stroke: '#bbb' },
} as const;

export async function vegaLiteToSvg(spec: TopLevelSpec): Promise<string> {
  const compiled = vegaLite.compile({ ...spec, config: { ...FIGURE_CONFIG, ...(spec.config ?? {}) } } as TopLevelSpec).spec;
  const view = new vega.View(vega.parse(compiled), { renderer: 'none' });
  try {
    return await view.toSVG();
  } finally {
    view.finalize();
  }
}

/** PNG at `scale` times the SVG's size (2 gives print-quality pixels for a column-wide figure). */
export function svgToPng(svg: string, scale = 2): Buffer {
  const resvg = new Resvg(svg, {
    font: { fontFiles: FONT_FILES, loadSystemFonts: false, defaultFontFamily: FONT_FAMILY, sansSerifFamily: FONT_FAMILY },
    fitTo: { mode: 'zoom', value: scale },
    background: 'white',
  });
  return resvg.render().asPng();
}

/** Writes `<dir>/<name>.svg` and `<dir>/<name>.png`; returns both paths. */
export async function writeFigure(dir: string, name: string, spec: TopLevelSpec): Promise<{ svg: string; png: string }> {
  mkdirSync(dir, { recursive: true });
  const svg = await vegaLiteToSvg(spec);
  const paths = { svg: join(dir, `${name}.svg`), png: join(dir, `${name}.png`) };
  writeFileSync(paths.svg, svg);
  writeFileSync(paths.png, svgToPng(svg));
  return paths;
}
