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

/**
 * A paper's sizes: a figure as wide as one column (3.5 in) or a two-column page (7.16 in), and the
 * labels' font size in points. Unset: each figure's own width and the fonts above.
 */
export interface FigureSize {
  /** Inches; `column` and `page` name the usual two. */
  widthIn?: number;
  /** Points (1/72 in) of axis and legend labels; titles a little larger. */
  fontPt?: number;
}

export const FIGURE_WIDTHS = { column: 3.5, page: 7.16 } as const;
const PX_PER_IN = 96;
const PX_PER_PT = 96 / 72;

/** The shared look with the labels at `fontPt` points (titles 1 and 2 pt larger). */
export function figureConfig(size: FigureSize = {}) {
  if (size.fontPt === undefined) return FIGURE_CONFIG;
  const label = size.fontPt * PX_PER_PT;
  const title = (size.fontPt + 1) * PX_PER_PT;
  return {
    ...FIGURE_CONFIG,
    axis: { ...FIGURE_CONFIG.axis, labelFontSize: label, titleFontSize: title },
    legend: { ...FIGURE_CONFIG.legend, labelFontSize: label, titleFontSize: label },
    header: { ...FIGURE_CONFIG.header, labelFontSize: title, titleFontSize: title },
    title: { ...FIGURE_CONFIG.title, fontSize: (size.fontPt + 2) * PX_PER_PT, subtitleFontSize: label },
  };
}

/** Pixels (1/96 in, as SVG counts them) a figure of this size may use across, padding included. */
export const targetWidthPx = (size: FigureSize) => (size.widthIn === undefined ? undefined : size.widthIn * PX_PER_IN);

/**
 * Sets the SVG's outer size to `widthIn` inches, the drawing scaled to fit (figures laid out for
 * the width scale by a few per cent at most; others shrink as a whole, fonts with them).
 */
export function fitSvgWidth(svg: string, widthIn: number | undefined): string {
  if (widthIn === undefined) return svg;
  const size = /<svg([^>]*)\swidth="([\d.]+)"([^>]*)\sheight="([\d.]+)"/.exec(svg);
  if (!size) return svg;
  const [w, h] = [Number(size[2]), Number(size[4])];
  const width = widthIn * PX_PER_IN;
  const height = +((h * width) / w).toFixed(2);
  const head = `<svg${size[1]} width="${+width.toFixed(2)}"${size[3]} height="${height}"`;
  const openTag = svg.slice(0, svg.indexOf('>') + 1);
  const withBox = /viewBox=/.test(openTag) ? head : `${head} viewBox="0 0 ${w} ${h}"`;
  return svg.replace(size[0], withBox);
}

/** Lines of at most about `maxPx` pixels at `fontPx` (DejaVu Sans averages about 0.58 em a character). */
export function wrapText(text: string, maxPx: number | undefined, fontPx = 15): string | string[] {
  if (maxPx === undefined) return text;
  // Titles start after the first panel's axis: leave that room.
  const perLine = Math.max(12, Math.floor((maxPx * 0.7) / (fontPx * 0.58)));
  const lines: string[] = [];
  for (const word of text.split(' ')) {
    const last = lines.at(-1);
    if (last !== undefined && `${last} ${word}`.length <= perLine) lines[lines.length - 1] = `${last} ${word}`;
    else lines.push(word);
  }
  return lines.length === 1 ? lines[0] : lines;
}

/**
 * A figure laid out for a width: built once for the width, measured, and built again with the
 * width its axes, labels and legend took beyond the panels given back, so the drawing lands within
 * a few per cent of the width and the final scaling leaves the fonts at their size.
 */
export async function layOut(build: (widthPx?: number) => TopLevelSpec | undefined, size: FigureSize): Promise<TopLevelSpec | undefined> {
  const target = targetWidthPx(size);
  let w = target;
  let spec = build(w);
  if (target === undefined || w === undefined || !spec) return spec;
  // The width beyond the panels (axes, titles, legend) moves a little with them: a few rounds settle it.
  for (let round = 0; round < 3; round++) {
    const svg = await vegaLiteToSvg(spec, { ...size, widthIn: undefined });
    const width = Number(/<svg[^>]*\swidth="([\d.]+)"/.exec(svg)?.[1] ?? target);
    if (Math.abs(width - target) / target < 0.03) break;
    w = Math.max(target * 0.2, w + target - width);
    spec = build(w) ?? spec;
  }
  return spec;
}

/** The shared look under a figure's own config, merged one level deep (a figure's legend direction keeps the shared fonts). */
function mergedConfig(spec: TopLevelSpec, size: FigureSize): Record<string, unknown> {
  const base: Record<string, unknown> = figureConfig(size);
  const own = (spec.config ?? {}) as Record<string, unknown>;
  const out = { ...base };
  for (const [k, v] of Object.entries(own))
    out[k] = v && typeof v === 'object' && base[k] && typeof base[k] === 'object' ? { ...(base[k] as object), ...v } : v;
  return out;
}

// biome-ignore lint/suspicious/noControlCharactersInRegex: these are the characters it removes
const NOT_XML = /[\u0000-\u0008\u000B\u000C\u000E-\u001F\uFFFE\uFFFF]/g;

export async function vegaLiteToSvg(spec: TopLevelSpec, size: FigureSize = {}): Promise<string> {
  const compiled = vegaLite.compile({ ...spec, config: mergedConfig(spec, size) } as TopLevelSpec).spec;
  const view = new vega.View(vega.parse(compiled), { renderer: 'none' });
  try {
    // a label from a damaged run folder (a vehicle named "\u0000") may hold characters XML has no place for
    return fitSvgWidth((await view.toSVG()).replace(NOT_XML, '\uFFFD'), size.widthIn);
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
export async function writeFigure(dir: string, name: string, spec: TopLevelSpec, size: FigureSize = {}): Promise<FigureFiles> {
  mkdirSync(dir, { recursive: true });
  const svg = await vegaLiteToSvg(spec, size);
  const paths = {
    svg: join(dir, `${name}.svg`),
    png: join(dir, `${name}.png`),
    pdf: join(dir, `${name}.pdf`),
    spec: join(dir, `${name}.vl.json`),
  };
  writeFileNoFollow(paths.svg, svg);
  writeFileNoFollow(paths.png, svgToPng(svg));
  writeFileNoFollow(paths.pdf, await svgToPdf(svg));
  writeFileNoFollow(paths.spec, `${JSON.stringify({ ...spec, config: mergedConfig(spec, size) }, null, 2)}\n`);
  return paths;
}

/** Every file of a figure, in the order `cavsim report` lists them. */
export const figurePaths = (f: FigureFiles) => [f.svg, f.png, f.pdf, f.spec];
