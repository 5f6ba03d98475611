import { readFile } from 'node:fs/promises';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { basename, resolve } from 'node:path';
import { loadMap } from '../../core/map/load-map.js';
import { occupancyGridPng } from './map-png.js';
import { isEmptyRunData } from './run-data.js';
import { RunSource, type RunSourcePorts } from './run-source.js';

export const defaultRunSourcePorts = (): RunSourcePorts => ({
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

/** The API of one run's page, under whatever prefix it is served at. */
export interface RunRoutes {
  /** Answers `path` (relative to the run's prefix, e.g. `/api/data`); false when it is not an API path. */
  handle(path: string, url: URL, req: IncomingMessage, res: ServerResponse): boolean;
  close(): void;
}

export function sendJson(res: ServerResponse, status: number, body: unknown): void {
  res.writeHead(status, { 'content-type': 'application/json', 'cache-control': 'no-store' }).end(JSON.stringify(body));
}

/**
 * One run's data for the page. With `live` it also tails the run's CSVs and pushes each batch of
 * new rows to open pages as server-sent events (`api/live`), until the run's summary.json appears.
 */
export async function openRunRoutes(opts: {
  runDir: string;
  live: boolean;
  pollIntervalMs?: number;
  ports?: Partial<RunSourcePorts>;
}): Promise<RunRoutes> {
  const runDir = resolve(opts.runDir);
  const live = opts.live;
  const source = new RunSource(runDir, basename(runDir), { ...defaultRunSourcePorts(), ...opts.ports });
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

  return {
    handle(path, url, req, res) {
      switch (path) {
        case '/api/meta': {
          const meta = source.meta(live);
          if (!meta) sendJson(res, 503, { waiting: 'scenario.resolved.json has not been written yet' });
          else sendJson(res, 200, { ...meta, hasScans: !source.scans.isEmpty });
          return true;
        }
        case '/api/data':
          dataJson ??= JSON.stringify(source.data);
          res.writeHead(200, { 'content-type': 'application/json', 'cache-control': 'no-store' }).end(dataJson);
          return true;
        case '/api/map.png':
          if (!mapPng) sendJson(res, 404, { problem: source.mapProblem ?? 'no map' });
          else res.writeHead(200, { 'content-type': 'image/png', 'cache-control': 'no-store' }).end(mapPng);
          return true;
        case '/api/scans': {
          const t = Number(url.searchParams.get('t'));
          sendJson(res, 200, Number.isFinite(t) ? source.scans.at(t) : []);
          return true;
        }
        case '/api/live':
          res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-store', connection: 'keep-alive' });
          // Snapshot and later appends go down the same stream, so nothing falls between them.
          send(res, 'snapshot', source.data);
          if (source.summary !== null) send(res, 'summary', source.summary);
          listeners.add(res);
          req.on('close', () => listeners.delete(res));
          return true;
        default:
          return false;
      }
    },
    close() {
      clearInterval(polling);
      clearInterval(heartbeat);
      for (const res of listeners) res.end();
      listeners.clear();
    },
  };
}
