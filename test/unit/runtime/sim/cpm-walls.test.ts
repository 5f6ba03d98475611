import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parse } from 'csv-parse/sync';
import { beforeAll, describe, expect, it } from 'vitest';
import { runScenarioSimulated } from '../../../../src/api/run-simulated.js';
import { loadMap } from '../../../../src/core/map/load-map.js';
import type { OccupancyGrid } from '../../../../src/core/map/occupancy-grid.js';
import { decodeCpm } from '../../../../src/core/v2x/codec/cpm-pdu.js';
import { perceivedObjectsOf } from '../../../../src/core/v2x/facilities/perceived-objects.js';
import { BTP_PORT_CPM, decodeShb } from '../../../../src/core/v2x/networking/geonetworking.js';
import { PCAP_EPOCH_UNIX_S } from '../../../../src/measurement/pcap-log.js';
import { scratchDir } from '../../../support/scratch-dir.js';

/**
 * scenarios/cpm-hidden-obstacle.yaml: car2's lidar sees the buildings' corners and stretches of
 * their walls between car1 and the crossing. None of them is a perceived object of its CPMs; car1,
 * which car2 sees coming north, is, as a moving object.
 */
const ROOT = fileURLToPath(new URL('../../../../', import.meta.url));
const GREF = { lat: 48.7758, lon: 9.1829 };
const ETH_HEADER = 14;

/** Every captured frame of a pcap file: its simulated time [s] and bytes. */
function pcapFrames(file: string): { t: number; bytes: Uint8Array }[] {
  const buf = readFileSync(file);
  const frames: { t: number; bytes: Uint8Array }[] = [];
  for (let off = 24; off + 16 <= buf.length; ) {
    const t = buf.readUInt32LE(off) - PCAP_EPOCH_UNIX_S + buf.readUInt32LE(off + 4) / 1e6;
    const len = buf.readUInt32LE(off + 8);
    frames.push({ t, bytes: buf.subarray(off + 16, off + 16 + len) });
    off += 16 + len;
  }
  return frames;
}

/** Distance from (x, y) to the nearest occupied cell's centre, looked for up to `upTo` [m]. */
function wallDistance(grid: OccupancyGrid, x: number, y: number, upTo: number): number {
  const { col, row } = grid.worldToCell(x, y);
  const n = Math.ceil(upTo / grid.resolution);
  let best = Infinity;
  for (let dr = -n; dr <= n; dr++)
    for (let dc = -n; dc <= n; dc++) {
      if (!grid.isOccupiedCell(col + dc, row + dr)) continue;
      const c = grid.cellToWorld(col + dc, row + dr);
      best = Math.min(best, Math.hypot(c.x - x, c.y - y));
    }
  return best;
}

describe('cpm-hidden-obstacle: the map is never a perceived object', () => {
  let objects: { t: number; x: number; y: number; v: number; yaw: number }[];
  let grid: OccupancyGrid;
  let car1: Map<string, Record<string, string>>;
  beforeAll(async () => {
    const run = await runScenarioSimulated(join(ROOT, 'scenarios/cpm-hidden-obstacle.yaml'), {
      runsDir: scratchDir('cavsim-cpm-walls-'),
      mcapByDefault: false,
    });
    expect(run.summary.status, run.summary.reason).toBe('completed');
    expect(run.summary.collision).toBe(false);
    grid = await loadMap(join(ROOT, 'maps/blind-corner.yaml'));
    objects = pcapFrames(join(run.runDir, 'v2v.pcap')).flatMap(({ t, bytes }) => {
      const packet = decodeShb(bytes.subarray(ETH_HEADER));
      if (packet.btpPort !== BTP_PORT_CPM) return [];
      return perceivedObjectsOf(decodeCpm(packet.payload), GREF, t).map((o) => ({ ...o.state }));
    });
    const rows = parse(readFileSync(join(run.runDir, 'vehicles.csv'), 'utf8'), { columns: true }) as Record<string, string>[];
    car1 = new Map(rows.filter((r) => r.vehicle === 'car1').map((r) => [Number(r.t_s).toFixed(2), r]));
  }, 60_000);

  it('reports no object on a wall or a corner of the buildings', () => {
    expect(objects.length).toBeGreaterThan(5);
    for (const o of objects) expect(wallDistance(grid, o.x, o.y, 0.5), JSON.stringify(o)).toBeGreaterThan(0.5);
  });

  it('reports car1 where vehicles.csv has it, moving north at about its 5 m/s once tracked', () => {
    for (const o of objects) {
      const c = car1.get(o.t.toFixed(2))!;
      expect(Math.hypot(o.x - Number(c.x_m), o.y - Number(c.y_m)), JSON.stringify({ o, c })).toBeLessThan(0.5);
    }
    const tracked = objects.filter((o) => o.v > 1);
    expect(tracked.length).toBeGreaterThan(3);
    for (const o of tracked.slice(2)) {
      expect(o.v).toBeGreaterThan(4);
      expect(o.v).toBeLessThan(6);
      expect(Math.abs(o.yaw - Math.PI / 2)).toBeLessThan(0.2);
    }
  });
});
