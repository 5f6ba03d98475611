import { interpolatedQuantile } from '../../util/percentile.js';
import type { EmulatedRunPlan } from './plan-emulated.js';
import { RUN_HOST } from './remote-plan.js';

/**
 * The timing gates of a run over several hosts (docs/multi-host.md, "Timing gates"). Each host with
 * cars is probed against the reference pair the calibration uses: what a frame to and from that
 * host adds, and how far its clock is from the reference car's host.
 */
export const HOST_TIMING = {
  /** A host's pair p50 less the reference pair's: above it, that host's frames are not true to network.delay. */
  addedDelayLimitMs: 0.5,
  /** An offset certainly beyond this (|offset| less half the best round trip) skews V2V latencies between hosts by more. */
  clockOffsetLimitMs: 0.5,
  /** What a tunnel should add on one machine (local hosts), p99; reported, not gated (a p99 of 25 round trips is a busy machine's tail). */
  addedDelayGoalP99Ms: 0.2,
  /** Fewer matched round trips than this and a host is not measured (the run is invalid). */
  minSamples: 10,
} as const;

/** One-way latencies [ms] by probe sequence number, each the receiver's clock less the sender's. */
export interface PairSamples {
  aToB: ReadonlyMap<number, number>;
  bToA: ReadonlyMap<number, number>;
}

/** Indices into `plan.vehicles`: the pair the calibration probes, and one pair per other host with cars. */
export interface TimingPairs {
  reference: [number, number];
  hosts: { host: string; pair: [number, number] }[];
}

/** A car's host: its remote host's name, or the run's own. */
export const hostOfCar = (v: EmulatedRunPlan['vehicles'][number]): string => v.host ?? RUN_HOST;
const label = (host: string) => (host === RUN_HOST ? 'the run’s host' : host);

/**
 * The reference pair: two cars on the run's host when there are two (their share holds no tunnel),
 * else the first two cars. Every other host with cars is paired with the reference's first car;
 * a host already in the reference pair reuses its probes.
 */
export function timingPairs(plan: Pick<EmulatedRunPlan, 'vehicles'>): TimingPairs {
  const cars = plan.vehicles;
  const local = cars.flatMap((v, i) => (v.host === undefined ? [i] : []));
  const reference: [number, number] = local.length >= 2 ? [local[0], local[1]] : [0, 1];
  const refHost = hostOfCar(cars[reference[0]]);
  const hosts: TimingPairs['hosts'] = [];
  const seen = new Set([refHost]);
  cars.forEach((v, i) => {
    const host = hostOfCar(v);
    if (seen.has(host)) return;
    seen.add(host);
    const inReference = hostOfCar(cars[reference[1]]) === host;
    hosts.push({ host, pair: inReference ? reference : [reference[0], i] });
  });
  return { reference, hosts };
}

/** Round trips matched by sequence number: each one's mean one-way delay and NTP's offset (b's clock less a's). */
function roundTrips(s: PairSamples): { oneWay: number; offset: number }[] {
  return [...s.aToB].flatMap(([seq, ab]) => {
    const ba = s.bToA.get(seq);
    return ba === undefined ? [] : [{ oneWay: (ab + ba) / 2, offset: (ab - ba) / 2 }];
  });
}

const round3 = (x: number) => Math.round(x * 1000) / 1000;
const quantiles = (xs: number[]) => {
  const sorted = [...xs].sort((a, b) => a - b);
  return { p50: interpolatedQuantile(sorted, 0.5), p99: interpolatedQuantile(sorted, 0.99) };
};

/** What summary.json says of one host under `timing.hosts.per_host`. */
export interface HostTimingFigures {
  host: string;
  pair: string;
  samples: number;
  /** Mean one-way delay of the pair's round trips, less the reference pair's: p50 against p50, p99 against p99. */
  added_delay_p50_ms: number | null;
  added_delay_p99_ms: number | null;
  /** This host's clock less the reference car's host's, from the round trip with the least delay. */
  clock_offset_ms: number | null;
  /** |offset| less what the legs' asymmetry can explain (that round trip's delay beyond the channel's own): at least this far off. */
  clock_offset_certain_ms: number | null;
  not_measured?: string;
}

export interface HostTimingResult {
  figures: { reference: { pair: string; hosts: string[] }; limits: typeof HOST_TIMING; per_host: HostTimingFigures[] };
  /** One line per host for the terminal. */
  lines: string[];
  invalid?: string;
}

/**
 * The gates from the probes: `channelMs` is the symmetric delay the channel model held each probe
 * (taken out before judging the offset's certainty); `samples` by host, an Error where its probe failed.
 */
export function judgeHostTiming(p: {
  plan: Pick<EmulatedRunPlan, 'vehicles'>;
  pairs: TimingPairs;
  reference: PairSamples | Error;
  samples: ReadonlyMap<string, PairSamples | Error>;
  channelMs: number;
}): HostTimingResult {
  const name = ([a, b]: [number, number]) => `${p.plan.vehicles[a].vehicle}<->${p.plan.vehicles[b].vehicle}`;
  const refTrips = p.reference instanceof Error ? [] : roundTrips(p.reference);
  const ref = refTrips.length >= HOST_TIMING.minSamples ? quantiles(refTrips.map((t) => t.oneWay)) : undefined;
  const problems: string[] = [];
  const lines: string[] = [];
  const perHost = p.pairs.hosts.map(({ host, pair }): HostTimingFigures => {
    const got = p.samples.get(host) ?? new Error('not probed');
    const trips = got instanceof Error ? [] : roundTrips(got);
    const base = { host, pair: name(pair), samples: trips.length };
    const why =
      got instanceof Error
        ? `its probe failed: ${got.message}`
        : !ref
          ? `the reference pair ${name(p.pairs.reference)} got too few round trips`
          : trips.length < HOST_TIMING.minSamples
            ? `only ${trips.length} round trips arrived (at least ${HOST_TIMING.minSamples} needed)`
            : undefined;
    if (why || !ref) {
      problems.push(`${label(host)}: its added delay and clock offset could not be measured (${why})`);
      return {
        ...base,
        added_delay_p50_ms: null,
        added_delay_p99_ms: null,
        clock_offset_ms: null,
        clock_offset_certain_ms: null,
        not_measured: why,
      };
    }
    const q = quantiles(trips.map((t) => t.oneWay));
    const best = trips.reduce((x, t) => (t.oneWay < x.oneWay ? t : x));
    const figures = {
      ...base,
      added_delay_p50_ms: round3(q.p50 - ref.p50),
      added_delay_p99_ms: round3(q.p99 - ref.p99),
      clock_offset_ms: round3(best.offset),
      clock_offset_certain_ms: round3(Math.max(0, Math.abs(best.offset) - Math.max(0, best.oneWay - p.channelMs))),
    };
    lines.push(
      `${label(host)} (${figures.pair} against ${name(p.pairs.reference)}): +${figures.added_delay_p50_ms} ms p50, +${figures.added_delay_p99_ms} ms p99; clock offset ${figures.clock_offset_ms} ms`,
    );
    if (figures.added_delay_p50_ms > HOST_TIMING.addedDelayLimitMs)
      problems.push(
        `${label(host)} adds ${figures.added_delay_p50_ms} ms p50 to its cars' V2V frames (limit ${HOST_TIMING.addedDelayLimitMs} ms): they are not true to network.delay (timing.hosts)`,
      );
    if (figures.clock_offset_certain_ms > HOST_TIMING.clockOffsetLimitMs)
      problems.push(
        `${label(host)}'s clock is at least ${figures.clock_offset_certain_ms} ms off (limit ${HOST_TIMING.clockOffsetLimitMs} ms): V2V latencies between hosts are wrong by it; synchronise the hosts' clocks (chrony or PTP)`,
      );
    return figures;
  });
  // summary.json names hosts as the hosts file and per_host do; the run's own as RUN_HOST
  const refCars = p.pairs.reference.map((i) => hostOfCar(p.plan.vehicles[i]));
  return {
    figures: { reference: { pair: name(p.pairs.reference), hosts: refCars }, limits: HOST_TIMING, per_host: perHost },
    lines,
    ...(problems.length ? { invalid: problems.join('; ') } : {}),
  };
}
