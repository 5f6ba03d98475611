import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import { readFile } from 'node:fs/promises';
import { basename, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { AddressInfo } from 'node:net';
import { loadMap } from '../map/load-map.js';
import { occupancyGridPng } from './map-png.js';
import { RunSource, type RunSourcePorts } from './run-source.js';
import { isEmptyRunData } from './run-data.js';

export interface ViewServerOptions {
  /** A run folder: runs/<run-id>, holding scenario.resolved.json and the CSVs. */
  runDir: string;
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
const PAGE_DIR = fileURLToPath(new URL('../../src/viz/page/', import.meta.url));
const PAGE_FILES: Record<string, string> = {
  '/': 'index.html',
  '/index.html': 'index.html',
  '/view.css': 'view.css',
  '/view.js': 'view.js',
  '/series.js': 'series.js',
  '/world.js': 'world.js',
  '/charts.js': 'charts.js',
  '/feed.js': 'feed.js',
};
const CONTENT_TYPES: Record<string, string> = {
  html: 'text/html; charset=utf-8',
  css: 'text/css; charset=utf-8',
  js: 'text/javascript; charset=utf-8',
};

const defaultPorts = (): RunSourcePorts => ({
  async readText(path) {
    try {
      return await readFile(path, 'utf8');
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
      throw err;
    }
  },
  loadMap: (yamlPath) => loadMap(yamlPath),
});

/**
 * Serves the replay page of one run on 127.0.0.1. With `live: true` it also tails the run's CSVs
 * and pushes each batch of new rows to open pages as server-sent events (`/api/live`), until the
 * run's summary.json appears.
 */
export async function startViewServer(opts: ViewServerOptions): Promise<ViewServer> {
  const runDir = resolve(opts.runDir);
  const live = opts.live === true;
  const source = new RunSource(runDir, basename(runDir), { ...defaultPorts(), ...opts.ports });
  await source.poll();
  let mapPng: Buffer | undefined = source.grid ? occupancyGridPng(source.grid) : undefined;
  let dataJson: string | undefined;
  const listeners = new Set<ServerResponse>();

  const send = (res: ServerResponse, event: string, payload: unknown) => res.write(`event: ${event}\ndata: ${JSON.stringify(payload)}\n\n`);
  const broadcast = (event: string, payload: unknown) => {
    for (const res of listeners) send(res, event, payload);
  };

  let polling: NodeJS.Timeout | undefined;
  let heartbeat: NodeJS.Timeout | undefined;
  if (live) {
    let busy = false;
    const tick = async () => {
      if (busy) return;
      busy = true;
      try {
        const wasReady = source.ready;
        const result = await source.poll();
        if (!wasReady && source.ready) {
          mapPng = source.grid ? occupancyGridPng(source.grid) : undefined;
          broadcast('ready', {});
        }
        if (!isEmptyRunData(result.delta)) {
          dataJson = undefined;
          broadcast('append', result.delta);
        }
        if (result.summaryArrived) {
          broadcast('summary', source.summary);
          clearInterval(polling);
          polling = undefined;
        }
      } catch (err) {
        broadcast('problem', { message: err instanceof Error ? err.message : String(err) });
      } finally {
        busy = false;
      }
    };
    if (source.summary === null) polling = setInterval(tick, opts.pollIntervalMs ?? 200);
    heartbeat = setInterval(() => {
      for (const res of listeners) res.write(': keep-alive\n\n');
    }, 15_000);
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
    const page = PAGE_FILES[url.pathname];
    if (page) {
      const body = await readFile(PAGE_DIR + page);
      res.writeHead(200, { 'content-type': CONTENT_TYPES[page.split('.').pop()!], 'cache-control': 'no-store' }).end(body);
      return;
    }
    switch (url.pathname) {
      case '/api/meta': {
        const meta = source.meta(live);
        if (!meta) return json(res, 503, { waiting: 'scenario.resolved.json has not been written yet' });
        return json(res, 200, { ...meta, hasScans: !source.scans.isEmpty });
      }
      case '/api/data':
        dataJson ??= JSON.stringify(source.data);
        res.writeHead(200, { 'content-type': 'application/json', 'cache-control': 'no-store' }).end(dataJson);
        return;
      case '/api/map.png':
        if (!mapPng) return json(res, 404, { problem: source.mapProblem ?? 'no map' });
        res.writeHead(200, { 'content-type': 'image/png', 'cache-control': 'no-store' }).end(mapPng);
        return;
      case '/api/scans': {
        const t = Number(url.searchParams.get('t'));
        return json(res, 200, Number.isFinite(t) ? source.scans.at(t) : []);
      }
      case '/api/live':
        res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-store', connection: 'keep-alive' });
        // Snapshot and later appends go down the same stream, so nothing falls between them.
        send(res, 'snapshot', source.data);
        if (source.summary !== null) send(res, 'summary', source.summary);
        listeners.add(res);
        req.on('close', () => listeners.delete(res));
        return;
      default:
        json(res, 404, { problem: `no such path ${url.pathname}` });
    }
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
      clearInterval(polling);
      clearInterval(heartbeat);
      for (const res of listeners) res.end();
      listeners.clear();
      server.close(() => done());
      server.closeAllConnections();
    }));

  return { url: `http://${VIEW_HOST}:${port}/`, port, live, close, [Symbol.asyncDispose]: close };
}

function json(res: ServerResponse, status: number, body: unknown): void {
  res.writeHead(status, { 'content-type': 'application/json', 'cache-control': 'no-store' }).end(JSON.stringify(body));
}

/** A Host header naming anything but loopback means a page on another origin (DNS rebinding). */
export function isLoopbackHost(host: string | undefined, port: number): boolean {
  if (!host) return false;
  return [`127.0.0.1:${port}`, `localhost:${port}`, `[::1]:${port}`].includes(host.toLowerCase());
}
