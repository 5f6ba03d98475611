import type { LossReason } from '../channel/frames.js';
import { BEACON_MESSAGE } from '../core/v2x/apps/beacon.js';
import type { CamFigures, ChannelBusyFigures } from '../measurement/cam-metrics.js';
import { type MeasuredCbr, measuredCbr } from '../measurement/channel-busy-log.js';
import { type DenmFigures, denmFigures } from '../measurement/denm-metrics.js';
import { firstPerReceiver, latencySummary, valuesOf } from '../measurement/latency-stats.js';
import type { PlatoonSummary } from '../measurement/platoon.js';
import type { Recorder } from '../measurement/recorder.js';
import type { RefusalFigures } from '../measurement/refusal-log.js';
import { ageOfInformation, interArrivalGaps, type SpreadFigures } from '../measurement/update-age.js';
import type { ResolvedScenario } from '../scenario/resolved.js';
import { printed, printedFields } from '../util/print-precision.js';
import { overdueAfter } from './channel-load.js';
import { type DccFigures, dccFigures } from './dcc-figures.js';
import { FLEET_LEFT_OUT } from './fleet-mode.js';
import { type FleetV2v, fleetV2vFigures } from './fleet-v2v.js';
import type { MeasuredFigures } from './measured-so-far.js';
import type { FailedComponent, RunStatus } from './outcome.js';
import { RUN_FILES } from './run-files.js';
import { v2xFigures } from './v2x-files.js';

export type { RunStatus };

/** The loss reason of a frame still in flight when the simulated run ended: its fate is unknown. */
const IN_FLIGHT_AT_END: LossReason = 'run-ended';

/**
 * V2V counts come in two units: messages (`sent`, `lost_messages`) and (message, intended receiver)
 * pairs (`sent_pairs`, `received`, `lost`, `in_flight_at_end`, `lost_by_reason`), with
 * sent_pairs = received + lost + in_flight_at_end = received + the sum of lost_by_reason.
 */
export interface LatencyFigures {
  /** Messages sent. */
  sent: number;
  /** (message, intended receiver) pairs: a broadcast to 4 cars is 4. */
  sent_pairs?: number;
  /** (message, receiver) pairs delivered. */
  received: number;
  /** (message, receiver) pairs lost with a known reason (channel-loss, below-sensitivity, ...; not those in flight at the end). */
  lost: number;
  /** (message, receiver) pairs still in flight when the run ended: fate unknown, `run-ended` in lost_by_reason. */
  in_flight_at_end?: number;
  /**
   * Of those, the pairs sent longer before the end than the channel's own delay allows (channel-load.ts's
   * `overdueAfter`): queued, not delivered; they count in delivery_ratio's denominator.
   */
  still_queued_at_end?: number;
  /** Messages no receiver got (a message still in flight to every receiver when the run ended is not one). */
  lost_messages?: number;
  p50_ms: number | null;
  p99_ms: number | null;
  max_ms: number | null;
  mean_ms: number | null;
  /**
   * Deliveries over every (message, intended receiver) whose fate is known or overdue: the lost, and
   * those still queued long after they were sent (`still_queued_at_end`); frames sent just before the
   * end (in flight, fate unknown) are left out, as in the delivery-distance figure. Null when none.
   */
  delivery_ratio?: number | null;
  /** Set by the run's finish (saturation.ts): whether queues or latencies show the channel carried less than was offered. */
  saturated?: boolean;
  /** (message, receiver) not delivered, by reason (channel-loss, below-sensitivity, ..., and run-ended for those in flight at the end). */
  lost_by_reason?: Record<string, number>;
  /** The same per sender and receiver. */
  pairs?: PairDelivery[];
  /** What the cars put on the channel: frames and payload bytes per second of the run. */
  load?: { frames_per_s: number; bytes_per_s: number };
  /** Age of the newest beacon received, over every pair, sampled every physics step; null without beacons. */
  beacon_age?: SpreadFigures | null;
  /** Simulated runs with CAMs: rates per sender, delivery, inter-reception time and age of information per pair. */
  cam?: CamFigures;
  /**
   * Simulated runs that sent anything: channel busy ratio over 100 ms windows (channel-busy.csv),
   * estimated from the frames' sizes as if every car heard every frame: one figure for all cars.
   */
  channel_busy?: ChannelBusyFigures;
  /** Channels that keep a medium state (a radio): each car's CBR as its radio sensed it (cbr.csv). */
  cbr?: MeasuredCbr;
  /** Cars with reactive DCC (`dcc: reactive`): their share of time in each state. */
  dcc?: DccFigures;
  /** Runs whose cars triggered DENMs: how many, how many were acted on, and the time from event to reception. */
  denm?: DenmFigures;
  /** Fleet runs: delivery against distance with each loss reason's share (DeliveryTable, keys in snake_case), from the counted outcomes. */
  delivery_by_distance?: unknown;
}

export interface PairDelivery {
  from: string;
  to: string;
  expected: number;
  delivered: number;
  delivery_ratio: number | null;
  p50_ms: number | null;
  p99_ms: number | null;
  max_ms: number | null;
  /** Beacons only: age of information at the receiver (sampled every physics step), and time between arrivals. */
  beacon_age?: SpreadFigures | null;
  beacon_interval?: SpreadFigures | null;
}

/**
 * What a simulator that could not start at all (no scenario, no map, its port taken) leaves in
 * summary.json: only why. The host's finish replaces it with a whole summary built from the run's
 * scenario and whatever was measured, through `buildSummary` like every other end.
 */
export interface UnstartedSummary {
  schema: 'cavsim.summary/1';
  run_id: string;
  runtime: 'docker';
  status: 'failed';
  reason: string;
  started: false;
}

export function unstartedSummary(runId: string, reason: string): UnstartedSummary {
  return { schema: 'cavsim.summary/1', run_id: runId, runtime: 'docker', status: 'failed', reason, started: false };
}

export const isUnstarted = (s: RunSummary | UnstartedSummary): s is UnstartedSummary => (s as UnstartedSummary).started === false;

export interface RunSummary {
  schema: 'cavsim.summary/1';
  run_id: string;
  scenario: string;
  runtime: 'sim' | 'docker';
  status: RunStatus;
  reason?: string;
  /** Set when a component's death ended the run. */
  failed_component?: FailedComponent;
  /** What `cavsim up` exits with for this run (see `cavsim --help`); set when the run is finished. */
  exit_status?: number;
  /** How to fix what failed, when the failure says (e.g. a missing prerequisite). */
  hint?: string;
  /** Scenario fields this runtime ignored, as `cavsim validate --runtime` lists them. */
  warnings?: string[];
  seed: number;
  duration_s: number;
  sim_time_s: number;
  wall_time_s: number;
  steps: number;
  min_ttc_s: number | null;
  min_distance_m: number | null;
  /** Smallest bumper-to-bumper gap between any two cars [m]; 0 on contact. */
  min_gap_m: number | null;
  collision: boolean;
  first_collision_t_s: number | null;
  /** Null in fleet runs (`fleet` says why). */
  pairs: Recorder['pairs'] | null;
  collisions: { t_s: number; a: string; b: string; speed_a_mps: number; speed_b_mps: number }[];
  /** Set when V2V outcomes were counted instead of recorded per frame and receiver (run/fleet-mode.ts). */
  fleet?: { reason: string; not_written: string[]; per_pair_figures: string };
  v2v: LatencyFigures;
  /** Cars with a `cacc` app: gap errors, headways and string stability. */
  platoon?: PlatoonSummary;
  events: { t_s: number; vehicle: string; event: string; detail?: Record<string, unknown> }[];
  /** What the run refused from its cars' own code and devices, per car and reason (measurement/refusal-log.ts). */
  refusals?: RefusalFigures;
  timing?: Record<string, unknown>;
  parameters: ResolvedScenario;
}

/** The age figures of every pair pooled: mean of the means, worst p99 and max. */
function pooledAge(pairs: readonly PairDelivery[]): SpreadFigures | null {
  const ages = pairs.flatMap((p) => (p.beacon_age ? [p.beacon_age] : []));
  if (!ages.length) return null;
  return {
    mean_ms: +(ages.reduce((s, a) => s + a.mean_ms, 0) / ages.length).toFixed(3),
    p99_ms: largest(ages.map((a) => a.p99_ms)),
    max_ms: largest(ages.map((a) => a.max_ms)),
  };
}

/**
 * V2V figures for the summary: latency over every receipt (one per receiver), and as lost every
 * message no receiver got. What was still in flight at the end has no known fate and counts in
 * neither deliveries nor losses (only in lost_by_reason, as run-ended).
 */
export function v2vFigures(
  sentIds: ReadonlySet<string>,
  receipts: readonly { id: string; from: string; to: string; type?: string; sentAt: number; receivedAt: number; sizeBytes?: number }[],
  losses: readonly { id: string; from: string; to: string; reason: string; sizeBytes?: number; sentAt?: number }[] = [],
  run?: { timestep: number; end: number; overdueAfter?: number },
): LatencyFigures {
  type Receipt = (typeof receipts)[number];
  const latency = (rs: readonly Receipt[]) => latencySummary(valuesOf(rs, (r) => (r.receivedAt - r.sentAt) * 1000));
  const first = firstPerReceiver(receipts);
  const stats = latency(first);
  const receivedIds = new Set(receipts.map((r) => r.id));
  // (message, receiver) pairs nested by receiver, as in firstPerReceiver: no key string per row
  const receivedByReceiver = idsByReceiver(first);
  const receivedPairCount = first.length;
  const round = (v: number) => (Number.isNaN(v) ? null : printed(v, 'ms'));
  const ratio = (delivered: number, expected: number) => (expected ? +(delivered / expected).toFixed(6) : null);
  // by sender, then receiver: every receipt, the first per (id, receiver) for latency, and the losses
  const byPair = new Map<string, Map<string, { got: Receipt[]; first: Receipt[]; lost: number }>>();
  const pairOf = (r: { from: string; to: string }) => {
    let byTo = byPair.get(r.from);
    if (!byTo) byPair.set(r.from, (byTo = new Map()));
    let entry = byTo.get(r.to);
    if (!entry) byTo.set(r.to, (entry = { got: [], first: [], lost: 0 }));
    return entry;
  };
  for (const r of receipts) pairOf(r).got.push(r);
  for (const r of first) pairOf(r).first.push(r);
  // a (message, receiver) counts once: delivered if any copy arrived, otherwise lost for its first reason
  const lossSeen = new Map<string, Set<string>>();
  const lostPairs: (typeof losses)[number][] = [];
  for (const l of losses) {
    if (receivedByReceiver.get(l.to)?.has(l.id)) continue;
    let ids = lossSeen.get(l.to);
    if (!ids) lossSeen.set(l.to, (ids = new Set()));
    if (ids.has(l.id)) continue;
    ids.add(l.id);
    lostPairs.push(l);
  }
  const judged = lostPairs.filter((l) => l.reason !== IN_FLIGHT_AT_END);
  for (const l of judged) pairOf(l).lost++;
  const byName = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);
  const pairs = [...byPair.keys()].sort(byName).flatMap((from) => {
    const byTo = byPair.get(from)!;
    return [...byTo.keys()].sort(byName).map((to): PairDelivery => {
      const { got, first: firstGot, lost } = byTo.get(to)!;
      const s = latency(firstGot);
      const expected = got.length + lost;
      const beacons = got.filter((r) => r.type === BEACON_MESSAGE);
      const ages =
        run && beacons.length
          ? { beacon_age: ageOfInformation(beacons, run.timestep, run.end), beacon_interval: interArrivalGaps(beacons) }
          : {};
      return {
        from,
        to,
        expected,
        delivered: got.length,
        delivery_ratio: ratio(got.length, expected),
        p50_ms: round(s.p50_ms),
        p99_ms: round(s.p99_ms),
        max_ms: round(s.max_ms),
        ...ages,
      };
    });
  });
  // every transmission has a row per intended receiver: its size once per id
  const bytesById = new Map<string, number>();
  for (const r of receipts) if (r.sizeBytes !== undefined) bytesById.set(r.id, r.sizeBytes);
  for (const r of losses) if (r.sizeBytes !== undefined) bytesById.set(r.id, r.sizeBytes);
  const perSecond = (v: number) => (run && run.end > 0 ? +(v / run.end).toFixed(3) : 0);
  const allBeacons = receipts.filter((r) => r.type === BEACON_MESSAGE);
  const judgedIds = new Set(judged.map((l) => l.id));
  const inFlightIds = new Set(lostPairs.filter((l) => l.reason === IN_FLIGHT_AT_END).map((l) => l.id));
  const lostByReason: Record<string, number> = {};
  for (const l of lostPairs) lostByReason[l.reason] = (lostByReason[l.reason] ?? 0) + 1;
  const inFlightOnly = (id: string) => inFlightIds.has(id) && !judgedIds.has(id);
  const overdueBefore = run?.overdueAfter !== undefined ? run.end - run.overdueAfter : -Infinity;
  const stillQueued = lostPairs.filter((l) => l.reason === IN_FLIGHT_AT_END && l.sentAt !== undefined && l.sentAt < overdueBefore).length;
  return {
    sent: sentIds.size,
    sent_pairs: receivedPairCount + lostPairs.length,
    received: receivedPairCount,
    lost: judged.length,
    in_flight_at_end: lostPairs.length - judged.length,
    ...(run?.overdueAfter !== undefined ? { still_queued_at_end: stillQueued } : {}),
    lost_messages: [...sentIds].filter((id) => !receivedIds.has(id) && !inFlightOnly(id)).length,
    p50_ms: round(stats.p50_ms),
    p99_ms: round(stats.p99_ms),
    max_ms: round(stats.max_ms),
    mean_ms: round(stats.mean_ms),
    delivery_ratio: ratio(receivedPairCount, receivedPairCount + judged.length + stillQueued),
    lost_by_reason: lostByReason,
    pairs,
    ...(run
      ? {
          load: { frames_per_s: perSecond(sentIds.size), bytes_per_s: perSecond([...bytesById.values()].reduce((a, b) => a + b, 0)) },
          beacon_age: allBeacons.length ? pooledAge(pairs) : null,
        }
      : {}),
  };
}

function idsByReceiver(items: readonly { id: string; to: string }[]): Map<string, Set<string>> {
  const byReceiver = new Map<string, Set<string>>();
  for (const r of items) {
    let ids = byReceiver.get(r.to);
    if (!ids) byReceiver.set(r.to, (ids = new Set()));
    ids.add(r.id);
  }
  return byReceiver;
}

export function buildSummary(args: {
  runId: string;
  runtime: 'sim' | 'docker';
  scenario: ResolvedScenario;
  recorder: MeasuredFigures;
  simTime: number;
  steps: number;
  wallTime: number;
  status: RunStatus;
  reason?: string;
  timing?: Record<string, unknown>;
  /** A fleet run's counted V2V outcomes: they replace the per-pair figures. */
  fleet?: FleetV2v;
}): RunSummary {
  const { recorder: r, scenario } = args;
  const every = r.allPairs ?? r.pairs;
  const ttcs = every.flatMap((p) => (p.min_ttc_s === null ? [] : [p.min_ttc_s]));
  const distances = every.map((p) => p.min_distance_m).filter(Number.isFinite);
  const gaps = every.flatMap((p) => (p.min_gap_m === null ? [] : [p.min_gap_m]));
  const firstCollision = r.collisions[0];
  const round = (v: number) => printed(v);
  return {
    schema: 'cavsim.summary/1',
    run_id: args.runId,
    scenario: scenario.name,
    runtime: args.runtime,
    status: args.status,
    ...(args.reason ? { reason: args.reason } : {}),
    seed: scenario.seed,
    duration_s: scenario.duration,
    sim_time_s: round(args.simTime),
    wall_time_s: +args.wallTime.toFixed(4),
    steps: args.steps,
    min_ttc_s: ttcs.length ? round(smallest(ttcs)) : null,
    min_distance_m: distances.length ? round(smallest(distances)) : null,
    min_gap_m: gaps.length ? round(smallest(gaps)) : null,
    collision: r.collisions.length > 0,
    first_collision_t_s: firstCollision ? round(firstCollision.t) : null,
    pairs: args.fleet
      ? null
      : r.pairs.map((p) => ({
          ...p,
          min_distance_t_s: round(p.min_distance_t_s),
          min_ttc_t_s: p.min_ttc_t_s === null ? null : round(p.min_ttc_t_s),
          first_collision_t_s: p.first_collision_t_s === null ? null : round(p.first_collision_t_s),
          min_distance_m: round(p.min_distance_m),
          min_gap_m: p.min_gap_m === null ? null : round(p.min_gap_m),
          min_ttc_s: p.min_ttc_s === null ? null : round(p.min_ttc_s),
        })),
    collisions: r.collisions.map((c) => ({ t_s: round(c.t), a: c.a, b: c.b, speed_a_mps: round(c.speedA), speed_b_mps: round(c.speedB) })),
    ...(args.fleet
      ? {
          fleet: { reason: args.fleet.reason, not_written: [...FLEET_LEFT_OUT.files], per_pair_figures: FLEET_LEFT_OUT.perPair },
          v2v: { ...fleetV2vFigures(args.fleet, args.simTime), beacon_age: null, ...cbrBlock(r), ...dccBlock(scenario, r, args.simTime) },
        }
      : {
          v2v: {
            ...v2vFigures(r.v2vSent, r.v2v, r.v2vLost, {
              timestep: scenario.physics.timestep,
              end: args.simTime,
              overdueAfter: overdueAfter(scenario.network),
            }),
            ...v2xBlocks(r, scenario, args.simTime),
            ...cbrBlock(r),
            ...dccBlock(scenario, r, args.simTime),
            ...denmBlock(r.events, r.v2v),
          },
        }),
    ...(r.platoon ? { platoon: r.platoon.summary(round) } : {}),
    events: r.events.map((e) => ({
      t_s: round(e.t),
      vehicle: e.vehicle,
      event: e.event,
      ...(e.detail ? { detail: printedFields(e.detail) } : {}),
    })),
    ...(args.timing ? { timing: args.timing } : {}),
    parameters: withoutWaypointLists(scenario),
  };
}

/** `cam` and `channel_busy` of the v2v block, when the recorder kept the frames it sent. */
function v2xBlocks(r: MeasuredFigures, scenario: ResolvedScenario, end: number): Pick<LatencyFigures, 'cam' | 'channel_busy'> {
  const f = v2xFigures(r, scenario, end);
  return f ? { ...(f.cam ? { cam: f.cam } : {}), channel_busy: f.channelBusy } : {};
}

function cbrBlock(r: MeasuredFigures): Pick<LatencyFigures, 'cbr'> {
  const cbr = r.cbrSamples && measuredCbr(r.cbrSamples);
  return cbr ? { cbr } : {};
}

function dccBlock(scenario: ResolvedScenario, r: MeasuredFigures, end: number): Pick<LatencyFigures, 'dcc'> {
  const dcc = dccFigures(scenario, r.events, end);
  return dcc ? { dcc } : {};
}

function denmBlock(events: MeasuredFigures['events'], arrivals: MeasuredFigures['v2v']): Pick<LatencyFigures, 'denm'> {
  const denm = denmFigures(events, arrivals);
  return denm ? { denm } : {};
}

/** An event's figures (a TTC of 0.6999999999999977 s) to the summary's 6 decimals; other values as they are. */
/** Math.min of a list too long to spread into arguments (the pairs of hundreds of cars). */
function smallest(values: readonly number[]): number {
  let min = Infinity;
  for (const v of values) if (v < min) min = v;
  return min;
}

function largest(values: readonly number[]): number {
  let max = -Infinity;
  for (const v of values) if (v > max) max = v;
  return max;
}

/**
 * The scenario as summary.json carries it: waypoint lists become their length (they were most of
 * the file); scenario.resolved.json keeps every point.
 */
export function withoutWaypointLists(scenario: ResolvedScenario): ResolvedScenario {
  return {
    ...scenario,
    vehicles: scenario.vehicles.map((v) => {
      const c = v.controller as { waypoints?: unknown };
      return Array.isArray(c.waypoints)
        ? { ...v, controller: { ...v.controller, waypoints: { count: c.waypoints.length, in: RUN_FILES.scenario } } }
        : v;
    }),
  } as ResolvedScenario;
}
