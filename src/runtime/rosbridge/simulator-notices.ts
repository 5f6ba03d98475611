import { PlainFields } from '../../util/plain-fields.js';
import { jsonOfData, ProtocolError } from './protocol.js';

/**
 * What the simulator tells vehicles: `/sim_control` and `/carN/collision`. Checked by hand, not
 * with zod: these are the only payloads a vehicle process reads, and zod was half its start-up.
 */

const EPOCH_NS = { pattern: /^\d{1,20}$/, patternText: 'epoch nanoseconds as a decimal string' };

/** `/sim_control` data (JSON inside std_msgs/String). */
export type SimControl = { cmd: 'start'; t0_epoch_ns: string; clock?: 'wall' | 'sim' } | { cmd: 'stop'; reason?: string };

/**
 * `/carN/collision` data (latched): the car hit another car or a wall in physics step `step` and is
 * frozen there. Published before that step's odometry, so a vehicle knows before it would tick.
 */
export interface CollisionReport {
  vehicle: string;
  step: number;
  t_s: number;
  /** What it hit in that step: other cars' names and/or 'wall'. */
  with: string[];
  speed_mps: number;
}

export function parseSimControl(data: string, topic: string): SimControl {
  const f = fieldsOf(data, topic);
  const cmd = f.oneOf('cmd', ['start', 'stop'] as const);
  let control: SimControl | undefined;
  if (cmd === 'start') {
    const t0 = f.string('t0_epoch_ns', EPOCH_NS);
    const clock = f.raw('clock') === undefined ? undefined : f.oneOf('clock', ['wall', 'sim'] as const);
    control = { cmd, t0_epoch_ns: t0, ...(clock ? { clock } : {}) };
  } else if (cmd === 'stop') {
    const reason = f.optionalString('reason');
    control = { cmd, ...(reason !== undefined ? { reason } : {}) };
  }
  return checked(f, topic, control);
}

export function parseCollisionReport(data: string, topic: string): CollisionReport {
  const f = fieldsOf(data, topic);
  const report = {
    vehicle: f.string('vehicle'),
    step: f.number('step', { integer: true, min: 0 }),
    t_s: f.number('t_s'),
    with: f.stringList('with', { min: 1 }),
    speed_mps: f.number('speed_mps'),
  };
  return checked(f, topic, report);
}

function fieldsOf(data: string, topic: string): PlainFields {
  const fields = PlainFields.of(jsonOfData(data, topic));
  if (!fields) throw new ProtocolError(`${topic}: (data): expected a JSON object`);
  return fields;
}

function checked<T>(f: PlainFields, topic: string, value: T | undefined): T {
  if (f.issues.length || value === undefined) throw new ProtocolError(`${topic}: ${f.issues.join('; ')}`);
  return value;
}
