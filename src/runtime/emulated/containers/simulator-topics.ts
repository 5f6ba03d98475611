import { withinDriveLimits } from '../../../core/physics/drive-limits.js';
import { type ResolvedScenario, runsOwnCode } from '../../../scenario/resolved.js';
import type { World } from '../../../world/world.js';
import type { BridgeServer } from '../../rosbridge/bridge-server.js';
import type { SimulatorStatus } from '../../rosbridge/control-topics.js';
import {
  eventReportSchema,
  parseJsonData,
  parseSimControl,
  readyReportSchema,
  TOPICS,
  v2vReportSchema,
} from '../../rosbridge/control-topics.js';
import { ProtocolError } from '../../rosbridge/protocol.js';
import { driveStampNs, MSG_TYPES, parseDriveMsg, parseStringMsg } from '../../rosbridge/ros-messages.js';
import type { SimulatorLogs } from './simulator-logs.js';
import type { SimulatorReports } from './simulator-reports.js';
import type { StepTiming } from './step-timing.js';
import type { WallClock } from './wall-clock.js';

/** What the topics read and feed of the simulator's session (simulator-session.ts). */
export interface ServedSession {
  readonly world: World;
  readonly scenario: ResolvedScenario;
  readonly cfg: { clock: WallClock };
  readonly names: readonly string[];
  readonly ready: Set<string>;
  readonly relayReady: Set<string>;
  readonly timing: StepTiming;
  readonly logs: SimulatorLogs;
  readonly reports: SimulatorReports;
  readonly stepNs: bigint;
  readonly lastStepStampNs: bigint;
  /** Reports count only while true (it ends a grace period after the stop). */
  readonly recording: boolean;
  /** Set once `start` arrived. */
  readonly t0?: bigint;
  /** Set while the session waits for `start`. */
  readonly startRequested?: (t0: bigint) => void;
  interrupt(reason: string): void;
  publishStatus(phase: SimulatorStatus['phase']): void;
}

/**
 * The topics the simulator serves: each car's odometry, collision notice, V2V and scan topics and
 * its drive commands in; /sim_control (start, stop), the status and the clock; the cars' ready,
 * V2V and event reports.
 */
export function wireSimulatorTopics(s: ServedSession, b: BridgeServer): void {
  const untrusted = new Set(s.scenario.vehicles.filter(runsOwnCode).map((v) => v.name));
  for (const car of s.world.cars) {
    const name = car.spec.name;
    b.advertise(TOPICS.odom(name), MSG_TYPES.odometry, { latch: true });
    b.advertise(TOPICS.collision(name), MSG_TYPES.string, { latch: true });
    // Own code asks for V2V here and its relay answers with what arrived (either may come first).
    b.advertise(TOPICS.v2vSend(name), MSG_TYPES.string);
    b.advertise(TOPICS.v2vReceived(name), MSG_TYPES.string);
    if (car.spec.lidar) b.advertise(TOPICS.scan(name), MSG_TYPES.laserScan);
    b.subscribe(TOPICS.drive(name), MSG_TYPES.drive, (msg) => {
      if (car.mirrored) throw new ProtocolError(`${name} is a physical car (role: body): cavsim never drives it`);
      const asked = parseDriveMsg(msg);
      const stampNs = driveStampNs(msg, BigInt(s.world.steps) * s.stepNs);
      if (!s.recording) return;
      // untrusted code acts within the car's limits, and what asked for more is counted (as in --runtime sim)
      const command = untrusted.has(name) ? withinDriveLimits(asked, car.spec.params) : asked;
      if (command !== asked)
        s.reports.refusals.refuse(s.world.time, name, 'drive-clamped', {
          speed: asked.speed,
          steer: asked.steer,
          applied: { speed: command.speed, steer: command.steer },
        });
      car.command = command;
      // A vehicle stamps its command with the odometry it answered: how long after that step's
      // scheduled publication the command arrived is the control loop's lag. An answer to the
      // last step's odometry has no step to be applied in: it is logged, but neither on time nor late.
      if (s.t0 !== undefined && stampNs !== undefined) {
        const lagMs = Number(s.cfg.clock.nowNs() - s.t0 - stampNs) / 1e6;
        const step = Number(stampNs / s.stepNs);
        if (stampNs < s.lastStepStampNs) s.timing.addControlLag(lagMs, name, step);
        s.logs.computeLog.add(step, step * s.scenario.physics.timestep, name, { wallS: lagMs / 1000 }, lagMs / 1000);
      }
    });
  }
  b.advertise(TOPICS.simControl, MSG_TYPES.string, { latch: true });
  b.advertise(TOPICS.status, MSG_TYPES.string, { latch: true });
  b.advertise(TOPICS.clock, MSG_TYPES.clock);
  b.subscribe(TOPICS.simControl, MSG_TYPES.string, (msg) => {
    const control = parseSimControl(parseStringMsg(msg), TOPICS.simControl);
    if (control.cmd === 'stop') return s.interrupt(`stop requested on ${TOPICS.simControl}${control.reason ? ` (${control.reason})` : ''}`);
    if (!s.startRequested) throw new ProtocolError('the run has already started or ended');
    s.startRequested(BigInt(control.t0_epoch_ns));
  });
  b.subscribe(TOPICS.ready, MSG_TYPES.string, (msg) => {
    const { vehicle, part } = parseJsonData(readyReportSchema, parseStringMsg(msg), TOPICS.ready);
    if (!s.names.includes(vehicle)) throw new ProtocolError(`no vehicle named ${vehicle} in this scenario`);
    (part === 'v2v-relay' ? s.relayReady : s.ready).add(vehicle);
    if (s.t0 === undefined) s.publishStatus('waiting');
  });
  b.subscribe(TOPICS.v2v, MSG_TYPES.string, (msg) => {
    const r = parseJsonData(v2vReportSchema, parseStringMsg(msg), TOPICS.v2v);
    if (!s.recording) return;
    if (s.t0 === undefined) throw new ProtocolError('V2V reports are recorded only after start');
    s.reports.recordV2V(r, s.t0);
  });
  b.subscribe(TOPICS.events, MSG_TYPES.string, (msg) => {
    const e = parseJsonData(eventReportSchema, parseStringMsg(msg), TOPICS.events);
    if (s.recording) s.reports.recordEvent(e);
  });
}
