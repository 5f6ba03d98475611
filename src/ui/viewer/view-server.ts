import { readFile } from 'node:fs/promises';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join, resolve } from 'node:path';
import { RUN_FILES } from '../../run/run-files.js';
import { packageRoot } from '../../util/package-root.js';
import { openRunRoutes, type RunRoutes, sendJson } from './run-routes.js';
import type { RunSourcePorts } from './run-source.js';
import { sweepFigureRoutes, sweepPlots } from './sweep-figures.js';
import { readSweepListing } from './sweep-listing.js';

export interface ViewServerOptions {
  /** A run folder: runs/<run-id>, holding scenario.resolved.json and the CSVs. */
  runDir?: string;
  /** Or a sweep folder: the page lists its runs, and opens each at /runs/<name>/. */
  sweepDir?: string;
  /** Follow the CSVs while a run writes them and push new rows to open pages. */
  live?: boolean;
  /** 0 (default) picks a free port. The server listens on 127.0.0.1 only. */
  port?: number;
  /** How often live mode looks for new rows. */
  pollIntervalMs?: number;
  ports?: Partial<RunSourcePorts>;
}

/** A started view server: only it can stop itself, and stopping twice is harmless. */
export interface ViewServer {
  readonly url: string;
  readonly port: number;
  readonly live: boolean;
  close(): Promise<void>;
  [Symbol.asyncDispose](): Promise<void>;
}

export const VIEW_HOST = '127.0.0.1';

/** The page: plain ES modules and a stylesheet, read from the source tree (no build step, no CDN). */
const PAGE_DIR = join(packageRoot(), 'src/ui/viewer/page/');
const RUN_PAGE_FILES: Record<string, string> = {
  '/': 'index.html',
  '/index.html': 'index.html',
  '/view.css': 'view.css',
  '/view.js': 'view.js',
  '/series.js': 'series.js',
  '/world.js': 'world.js',
  '/charts.js': 'charts.js',
  '/feed.js': 'feed.js',
};
const SWEEP_PAGE_FILES: Record<string, string> = {
  '/': 'sweep.html',
  '/index.html': 'sweep.html',
  '/sweep.js': 'sweep.js',
  '/feed.js': 'feed.js',
  '/series.js': 'series.js',
  '/view.css': 'view.css',
};
const CONTENT_TYPES: Record<string, string> = {
  html: 'text/html; charset=utf-8',
  css: 'text/css; charset=utf-8',
  js: 'text/javascript; charset=utf-8',
};
/** A run's path under a sweep: /runs/<name>/<rest>. */
const SWEEP_RUN_PATH = /^\/runs\/([A-Za-z0-9._-]+)(\/.*)?$/;

/**
 * Serves the replay page of one run on 127.0.0.1 (with `live: true`, the run as it is written), or
 * a sweep's list of runs, each of which opens in the same replay page.
 */
export async function startViewServer(opts: ViewServerOptions): Promise<ViewServer> {
  const live = opts.live === true;
  let routes: (path: string, url: URL, req: IncomingMessage, res: ServerResponse) => Promise<void>;
  let closeRoutes: () => void;
  if (opts.sweepDir !== undefined) {
    const sweepDir = resolve(opts.sweepDir);
    const runs = new Map<string, Promise<RunRoutes>>();
    const figures = sweepFigureRoutes(sweepDir);
    routes = async (path, url, req, res) => {
      const inRun = SWEEP_RUN_PATH.exec(path);
      if (!inRun) {
        if (path === '/api/sweep') return sendJson(res, 200, { ...readSweepListing(sweepDir), plots: sweepPlots(sweepDir) });
        if (await figures(path, url, res)) return;
        return servePage(SWEEP_PAGE_FILES, path, res);
      }
      const [, name, rest] = inRun;
      // the page's own paths are relative to the run's folder-like address
      if (rest === undefined) return void res.writeHead(301, { location: `/runs/${name}/` }).end();
      const runDir = join(sweepDir, 'runs', name);
      let run = runs.get(name);
      if (!run) {
        run = readFile(join(runDir, RUN_FILES.scenario)).then(
          () => openRunRoutes({ runDir, live: false, ports: opts.ports }),
          () => Promise.reject(new Error(`the sweep has no run ${name}`)),
        );
        runs.set(name, run);
        run.catch(() => runs.delete(name));
      }
      const opened = await run.catch(() => undefined);
      if (!opened) return sendJson(res, 404, { problem: `the sweep has no run ${name}` });
      if (!opened.handle(rest, url, req, res)) await servePage(RUN_PAGE_FILES, rest, res);
    };
    closeRoutes = () => {
      for (const run of runs.values())
        void run.then(
          (r) => r.close(),
          () => {},
        );
    };
  } else {
    const run = await openRunRoutes({ runDir: opts.runDir ?? '.', live, pollIntervalMs: opts.pollIntervalMs, ports: opts.ports });
    routes = async (path, url, req, res) => {
      if (!run.handle(path, url, req, res)) await servePage(RUN_PAGE_FILES, path, res);
    };
    closeRoutes = () => run.close();
  }

  const server = createServer((req, res) => {
    handle(req, res).catch((err) => {
      if (!res.headersSent) res.writeHead(500, { 'content-type': 'text/plain' });
      res.end(`internal error: ${err instanceof Error ? err.message : String(err)}`);
    });
  });

  async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    if (!isLoopbackHost(req.headers.host, port)) {
      res.writeHead(403, { 'content-type': 'text/plain' }).end('the view answers only to 127.0.0.1 / localhost');
      return;
    }
    if (req.method !== 'GET' && req.method !== 'HEAD') {
      res.writeHead(405, { allow: 'GET' }).end();
      return;
    }
    const url = new URL(req.url ?? '/', `http://${VIEW_HOST}`);
    await routes(url.pathname, url, req, res);
  }

  await new Promise<void>((ok, fail) => {
    server.once('error', fail);
    server.listen(opts.port ?? 0, VIEW_HOST, () => {
      server.off('error', fail);
      ok();
    });
  });
  const port = (server.address() as AddressInfo).port;

  let closed: Promise<void> | undefined;
  const close = () =>
    (closed ??= new Promise<void>((done) => {
      closeRoutes();
      server.close(() => done());
      server.closeAllConnections();
    }));

  return { url: `http://${VIEW_HOST}:${port}/`, port, live, close, [Symbol.asyncDispose]: close };
}

async function servePage(files: Record<string, string>, path: string, res: ServerResponse): Promise<void> {
  const page = files[path];
  if (!page) return sendJson(res, 404, { problem: `no such path ${path}` });
  const body = await readFile(PAGE_DIR + page);
  res.writeHead(200, { 'content-type': CONTENT_TYPES[page.split('.').pop()!], 'cache-control': 'no-store' }).end(body);
}

/** A Host header naming anything but loopback means a page on another origin (DNS rebinding). */
export function isLoopbackHost(host: string | undefined, port: number): boolean {
  if (!host) return false;
  return [`127.0.0.1:${port}`, `localhost:${port}`, `[::1]:${port}`].includes(host.toLowerCase());
}
