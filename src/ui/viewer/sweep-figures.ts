import { existsSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import type { ServerResponse } from 'node:http';
import { join } from 'node:path';
import { RUN_FILES } from '../../run/run-files.js';

/** Names of a sweep's runs (runs/<name>/) and of its figures (plots/<name>.<ext>). */
export const RUN_NAME = /^[A-Za-z0-9._-]+$/;
const PLOT_PATH = /^\/plots\/([A-Za-z0-9_-]+)\.(png|svg)$/;
/** A point's figure draws at most this many of its runs (seeds), one row each. */
const MAX_POINT_ROWS = 6;

/**
 * The figures of a sweep's page: the sweep's own (plots/*.png|svg, as `cavsim sweep` or `report`
 * drew them) and, per point, the kinematics figure of that point's runs, drawn when first asked for
 * (`api/point-figure.svg?runs=p000,p001`). Answers false for other paths.
 */
export function sweepFigureRoutes(sweepDir: string) {
  const drawn = new Map<string, Promise<string>>();
  const draw = async (names: string[]): Promise<string> => {
    // loaded on first use: vega and the figure code are heavy, and most views never draw
    const [{ kinematicsFigure }, { readRunTraces }, { vegaLiteToSvg }] = await Promise.all([
      import('../report/kinematics-figure.js'),
      import('../report/read-run.js'),
      import('../report/render.js'),
    ]);
    const runs = names.map((name) => {
      const traces = readRunTraces(join(sweepDir, 'runs', name));
      return { label: `${name}${traces.summary.collision ? ' (collision)' : ''}`, traces };
    });
    return vegaLiteToSvg(kinematicsFigure(runs, `${runs[0].traces.summary.scenario}: ${names.join(', ')}`));
  };
  return async (path: string, url: URL, res: ServerResponse): Promise<boolean> => {
    const plot = PLOT_PATH.exec(path);
    if (plot) {
      const file = join(sweepDir, 'plots', `${plot[1]}.${plot[2]}`);
      if (!existsSync(file)) res.writeHead(404, { 'content-type': 'text/plain' }).end('the sweep has no such figure');
      else
        res
          .writeHead(200, { 'content-type': plot[2] === 'png' ? 'image/png' : 'image/svg+xml', 'cache-control': 'no-store' })
          .end(await readFile(file));
      return true;
    }
    if (path !== '/api/point-figure.svg') return false;
    const names = (url.searchParams.get('runs') ?? '').split(',').filter(Boolean).slice(0, MAX_POINT_ROWS);
    if (!names.length || !names.every((n) => RUN_NAME.test(n) && existsSync(join(sweepDir, 'runs', n, RUN_FILES.summary)))) {
      res.writeHead(404, { 'content-type': 'text/plain' }).end('no such finished run in this sweep');
      return true;
    }
    const key = names.join(',');
    let svg = drawn.get(key);
    if (!svg) drawn.set(key, (svg = draw(names)));
    try {
      res.writeHead(200, { 'content-type': 'image/svg+xml', 'cache-control': 'no-store' }).end(await svg);
    } catch (err) {
      drawn.delete(key);
      throw err;
    }
    return true;
  };
}

/** The sweep figures that are there to show, by name (closest-approach, v2x, kinematics, ...). */
export function sweepPlots(sweepDir: string): string[] {
  return ['closest-approach', 'kinematics', 'v2x', 'delivery-distance'].filter((n) => existsSync(join(sweepDir, 'plots', `${n}.png`)));
}
