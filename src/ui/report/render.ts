import { mkdirSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { Resvg } from '@resvg/resvg-js';
import * as vega from 'vega';
import type { TopLevelSpec } from 'vega-lite';
import * as vegaLite from 'vega-lite';
import { writeFileNoFollow } from '../../util/write-no-follow.js';

/** The fonts come from an npm package, so the PNGs look the same on every machine. */
const FONT_DIR = join(dirname(createRequire(import.meta.url).resolve('dejavu-fonts-ttf/package.json')), 'ttf');
export const FONT_FAMILY = 'DejaVu Sans';
const FONT_FILES = ['DejaVuSans.ttf', 'DejaVuSans-Bold.ttf', 'DejaVuSans-Oblique.ttf'].map((f) => join(FONT_DIR, f));
const [REGULAR, BOLD, OBLIQUE] = FONT_FILES;

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

/** The figure's files: the three renderings and the Vega-Lite spec (data inlined) they came from. */
export interface FigureFiles {
  svg: string;
  png: string;
  pdf: string;
  spec: string;
}

/** Vector PDF of an SVG, one page of the figure's size, with the same fonts as the PNG. */
export async function svgToPdf(svg: string): Promise<Buffer> {
  // Loaded on first use: pdfkit and its font engine take a few hundred ms to import, which every
  // command that never draws a figure (a sweep with --no-plots, `up`) would otherwise pay.
  const [{ default: PDFDocument }, { default: SVGtoPDF }] = await Promise.all([import('pdfkit'), import('svg-to-pdfkit')]);
  const size = /<svg[^>]*\swidth="([\d.]+)"[^>]*\sheight="([\d.]+)"/.exec(svg);
  const [width, height] = size ? [Number(size[1]), Number(size[2])] : [800, 600];
  // SVG pixels are 1/96 in, PDF points 1/72 in.
  const page = [(width * 72) / 96, (height * 72) / 96];
  const doc = new PDFDocument({ size: page, margin: 0, info: { Producer: 'cavsim', Creator: 'cavsim' } });
  doc.registerFont(FONT_FAMILY, REGULAR);
  doc.registerFont(`${FONT_FAMILY} Bold`, BOLD);
  doc.registerFont(`${FONT_FAMILY} Oblique`, OBLIQUE);
  const chunks: Buffer[] = [];
  doc.on('data', (c: Buffer) => chunks.push(c));
  const done = new Promise<Buffer>((resolve, reject) => {
    doc.on('end', () => resolve(Buffer.concat(chunks)));
    doc.on('error', reject);
  });
  SVGtoPDF(doc, svg, 0, 0, {
    width: page[0],
    height: page[1],
    fontCallback: (_family: string, bold: boolean, italic: boolean) =>
      bold ? `${FONT_FAMILY} Bold` : italic ? `${FONT_FAMILY} Oblique` : FONT_FAMILY,
  });
  doc.end();
  return done;
}

/** Writes `<dir>/<name>.svg`, `.png`, `.pdf` and `.vl.json`; returns their paths. */
export async function writeFigure(dir: string, name: string, spec: TopLevelSpec): Promise<FigureFiles> {
  mkdirSync(dir, { recursive: true });
  const svg = await vegaLiteToSvg(spec);
  const paths = {
    svg: join(dir, `${name}.svg`),
    png: join(dir, `${name}.png`),
    pdf: join(dir, `${name}.pdf`),
    spec: join(dir, `${name}.vl.json`),
  };
  writeFileNoFollow(paths.svg, svg);
  writeFileNoFollow(paths.png, svgToPng(svg));
  writeFileNoFollow(paths.pdf, await svgToPdf(svg));
  writeFileNoFollow(paths.spec, `${JSON.stringify({ ...spec, config: { ...FIGURE_CONFIG, ...(spec.config ?? {}) } }, null, 2)}\n`);
  return paths;
}

/** Every file of a figure, in the order `cavsim report` lists them. */
export const figurePaths = (f: FigureFiles) => [f.svg, f.png, f.pdf, f.spec];
