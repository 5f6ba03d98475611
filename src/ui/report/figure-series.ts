import type { RunTraces } from './read-run.js';

/** Lines per panel a reader can still tell apart (and a legend that stays a few rows). */
export const MAX_PAIRS = 6;
export const MAX_CARS = 8;

/** Which cars and pairs a figure draws, and what it left out, in words for its subtitle. */
export interface SeriesChoice {
  cars: string[];
  pairs: string[];
  /** `neighbours`: each CACC follower with its predecessor; `closest`: the closest approaches. */
  pairRule: 'all' | 'neighbours' | 'closest';
  notes: string[];
}

const pairKey = (a: string, b: string) => `${a}–${b}`;

/** Each CACC follower and its predecessor, in the order of the fleet: a platoon's neighbouring pairs. */
function neighbourPairs(traces: RunTraces, known: Set<string>): string[] {
  const vehicles = traces.summary.parameters?.vehicles ?? [];
  const out: string[] = [];
  for (const v of vehicles) {
    for (const app of v.apps ?? []) {
      if (app.type !== 'cacc' || !('predecessor' in app) || typeof app.predecessor !== 'string') continue;
      const key = [pairKey(app.predecessor, v.name), pairKey(v.name, app.predecessor)].find((k) => known.has(k));
      if (key && !out.includes(key)) out.push(key);
    }
  }
  return out;
}

/** The smallest gap (or centre distance, in older runs) each pair came to over all runs. */
function closestApproach(runs: readonly RunTraces[]): Map<string, number> {
  const closest = new Map<string, number>();
  for (const r of runs) {
    for (const s of r.pairs) {
      const d = s.gap ?? s.distance;
      if (Number.isFinite(d) && d < (closest.get(s.pair) ?? Infinity)) closest.set(s.pair, d);
    }
  }
  return closest;
}

/**
 * The pairs and cars of a kinematics figure. A platoon (cars with a `cacc` app) shows its
 * neighbouring pairs, since the gap between car0 and car5 means nothing to anyone; other fleets show
 * every pair up to MAX_PAIRS, else the MAX_PAIRS with the closest approach. Cars beyond MAX_CARS are
 * cut to those in the pairs shown, in fleet order. What was left out is said in `notes`.
 */
export function chooseSeries(runs: readonly RunTraces[]): SeriesChoice {
  const allPairs = [...new Set(runs.flatMap((r) => r.pairs.map((p) => p.pair)))];
  const allCars = [...new Set(runs.flatMap((r) => r.vehicles.map((v) => v.vehicle)))];
  const known = new Set(allPairs);
  const neighbours = [...new Set(runs.flatMap((r) => neighbourPairs(r, known)))];
  const closest = closestApproach(runs);
  const byApproach = (keys: string[]) => [...keys].sort((a, b) => (closest.get(a) ?? Infinity) - (closest.get(b) ?? Infinity));
  const notes: string[] = [];
  let pairs: string[];
  let pairRule: SeriesChoice['pairRule'];
  if (neighbours.length) {
    pairRule = 'neighbours';
    const kept = new Set(byApproach(neighbours).slice(0, MAX_PAIRS));
    pairs = neighbours.filter((p) => kept.has(p));
    const cut = neighbours.length > pairs.length ? `, the ${pairs.length} closest of ${neighbours.length}` : '';
    notes.push(`pairs: each follower and the car it follows${cut} (${allPairs.length - pairs.length} other pairs left out)`);
  } else if (allPairs.length <= MAX_PAIRS) {
    pairRule = 'all';
    pairs = allPairs;
  } else {
    pairRule = 'closest';
    const kept = new Set(byApproach(allPairs).slice(0, MAX_PAIRS));
    pairs = allPairs.filter((p) => kept.has(p));
    notes.push(`pairs: the ${pairs.length} of ${allPairs.length} with the closest approach (${allPairs.length - pairs.length} left out)`);
  }
  let cars = allCars;
  if (allCars.length > MAX_CARS) {
    const inPairs = new Set(pairs.flatMap((p) => p.split('–')));
    const wanted = allCars.filter((c) => inPairs.has(c));
    cars = (wanted.length ? wanted : allCars).slice(0, MAX_CARS);
    notes.push(`speed: ${cars.length} of ${allCars.length} cars, those in the pairs shown`);
  }
  return { cars, pairs, pairRule, notes };
}
