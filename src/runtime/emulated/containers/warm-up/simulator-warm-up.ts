import type { OccupancyGrid } from '../../../../core/map/occupancy-grid.js';
import type { CsvLogName } from '../../../../measurement/csv-columns.js';
import { warmUpCsvFormatting } from '../../../../measurement/csv-log.js';
import { platoonLinks } from '../../../../measurement/platoon.js';
import { FLUSH_EVERY_STEP, Recorder } from '../../../../measurement/recorder.js';
import { recorderFiles } from '../../../../run/run-files.js';
import type { ResolvedScenario } from '../../../../scenario/resolved.js';
import { createScanners, type Scanner } from '../../../../world/scanners.js';
import { World } from '../../../../world/world.js';
import { eventReportSchema, parseJsonData, v2vReportSchema } from '../../../rosbridge/control-topics.js';
import { LaserScanEncoder } from '../../../rosbridge/laser-scan-msg.js';
import type { JsonObject } from '../../../rosbridge/protocol.js';
import { driveMsg, driveStampNs, odometryJson, parseDriveMsg } from '../../../rosbridge/ros-messages.js';
import { TOPICS } from '../../../rosbridge/topic-names.js';
import { waver } from './rehearsal-odometry.js';

/** A car's lidar with its topic and encoder. */
export interface ScanSource {
  scanner: Scanner;
  topic: string;
  encoder: LaserScanEncoder;
}

export function scanSources(world: World, grid: OccupancyGrid): ScanSource[] {
  return createScanners(world, grid).map((scanner) => ({
    scanner,
    topic: TOPICS.scan(scanner.name),
    encoder: new LaserScanEncoder({ frameId: `${scanner.name}/base_link`, scanTime: scanner.period * world.timestep }),
  }));
}

const STEPS_PER_WORLD = 150;

/**
 * Steps scratch worlds (physics, collisions, scans, odometry, the recorder's rows to /dev/null,
 * drive commands parsed) before the run, so the JIT has compiled the hot path and the first real
 * steps are not late because of it. Two worlds one after the other, both before the run's own is
 * made: code optimized on the first world's objects alone was thrown away at the run's first step
 * (its objects' field layouts differed: a car at rest holds whole numbers), and recompiled inside
 * the run; after two fresh worlds, a third one is nothing new. Scratch lidars have noise
 * generators of their own: the run's are untouched.
 */
export function warmUpSimulator(scenario: ResolvedScenario, grid: OccupancyGrid): void {
  for (let round = 0; round < 2; round++) stepScratchWorld(scenario, grid);
  warmUpReportParsing();
  warmUpCsvFormatting();
}

function stepScratchWorld(scenario: ResolvedScenario, grid: OccupancyGrid): void {
  const stepNs = BigInt(Math.round(scenario.physics.timestep * 1e9));
  const world = new World(scenario, grid);
  const scans = scanSources(world, grid);
  // The recorder's per-pair work is the largest in a step after the link's (32 cars: 496 pairs).
  const recorder = new Recorder(
    nullRecorderFiles(),
    scenario.vehicles.map((v) => v.name),
    FLUSH_EVERY_STEP,
    scenario.vehicles.map((v) => v.params),
    platoonLinks(scenario),
  );
  try {
    for (let i = 0; i < STEPS_PER_WORLD; i++) {
      const stampNs = BigInt(i) * stepNs;
      world.step();
      // Commands as the run's arrive: parsed from JSON, whole numbers and fractions by turns.
      const w = waver(i);
      for (const car of world.cars) {
        odometryJson(car.spec.name, world.odometry(car), stampNs);
        const drive = JSON.parse(
          JSON.stringify(driveMsg({ speed: car.spec.start.speed + w, steer: w }, stampNs, `${car.spec.name}/base_link`)),
        ) as JsonObject;
        car.command = parseDriveMsg(drive);
        driveStampNs(drive, stampNs);
      }
      for (const s of scans) if (i % s.scanner.period === 0) s.encoder.encode(s.scanner.scan(), stampNs);
      recorder.recordWorld(world, () => false);
    }
  } finally {
    recorder.close();
  }
}

/** Every log of a scratch recorder goes to /dev/null. */
function nullRecorderFiles(): Record<CsvLogName, string> {
  return Object.fromEntries(Object.keys(recorderFiles('')).map((name) => [name, '/dev/null'])) as Record<CsvLogName, string>;
}

/**
 * Events and V2V reports arrive first at the moment that matters (a car brakes and warns); parsing
 * samples beforehand keeps that first message from holding up the drive command behind it.
 */
function warmUpReportParsing(rounds = 100): void {
  const event = JSON.stringify({ vehicle: 'warm-up', t_s: 1, event: 'warm-up', detail: { ttc_s: 0.5 } });
  const sent = JSON.stringify({
    kind: 'sent',
    id: 'w-1',
    from: 'a',
    to: 'b',
    type: 'warm-up',
    size_bytes: 64,
    sent_ns: '1',
    packet: Buffer.alloc(96, 7).toString('base64'),
  });
  const received = JSON.stringify({
    kind: 'received',
    id: 'w-1',
    from: 'a',
    to: 'b',
    type: 'warm-up',
    sent_ns: '1',
    received_ns: '2',
    size_bytes: 64,
  });
  for (let i = 0; i < rounds; i++) {
    parseJsonData(eventReportSchema, event, TOPICS.events);
    parseJsonData(v2vReportSchema, sent, TOPICS.v2v);
    parseJsonData(v2vReportSchema, received, TOPICS.v2v);
  }
}
