import type { ResolvedScenario } from '../scenario/resolved.js';

/** A follower and the car it keeps its gap to, with the gap policy it was given. */
export interface PlatoonLink {
  follower: string;
  predecessor: string;
  timeGap: number;
  standstill: number;
}

/** Every car with a `cacc` app, ordered down the string from the leader. */
export function platoonLinks(scenario: ResolvedScenario): PlatoonLink[] {
  const links = scenario.vehicles.flatMap((v) =>
    v.apps.flatMap((a) =>
      a.type === 'cacc' ? [{ follower: v.name, predecessor: a.predecessor, timeGap: a.timeGap, standstill: a.standstill }] : [],
    ),
  );
  const followers = new Set(links.map((l) => l.follower));
  const ordered: PlatoonLink[] = [];
  let frontier = links.filter((l) => !followers.has(l.predecessor));
  while (frontier.length) {
    ordered.push(...frontier);
    const reached = new Set(frontier.map((l) => l.follower));
    frontier = links.filter((l) => reached.has(l.predecessor) && !ordered.includes(l));
  }
  return ordered;
}

export interface FollowerFigures {
  vehicle: string;
  predecessor: string;
  /** Largest |gap - (standstill + timeGap * v)| over the run [m]. */
  max_gap_error_m: number;
  min_gap_m: number;
  /** Smallest gap / own speed while moving faster than 1 m/s [s]; null if it never did. */
  min_time_headway_s: number | null;
}

export interface PlatoonSummary {
  followers: FollowerFigures[];
  /**
   * Down the string, each follower's peak gap error over its predecessor's (for every follower whose
   * predecessor follows too); stable when none exceeds 1. Null with fewer than two followers in line.
   */
  string_stability: { ratios: { vehicle: string; ratio: number | null }[]; stable: boolean } | null;
}

const MOVING = 1; // m/s

/** Gap errors and time headways of a platoon, step by step. */
export class PlatoonFigures {
  private readonly followers: FollowerFigures[];

  constructor(private readonly links: readonly PlatoonLink[]) {
    this.followers = links.map((l) => ({
      vehicle: l.follower,
      predecessor: l.predecessor,
      max_gap_error_m: 0,
      min_gap_m: Infinity,
      min_time_headway_s: null,
    }));
  }

  /** `gap(a, b)`: bumper-to-bumper gap between two cars this step; `speed(car)`: its speed. */
  record(gap: (a: string, b: string) => number | undefined, speed: (car: string) => number): void {
    this.links.forEach((l, i) => {
      const g = gap(l.predecessor, l.follower);
      if (g === undefined) return;
      const f = this.followers[i];
      const v = speed(l.follower);
      f.max_gap_error_m = Math.max(f.max_gap_error_m, Math.abs(g - (l.standstill + l.timeGap * v)));
      f.min_gap_m = Math.min(f.min_gap_m, g);
      if (v > MOVING) f.min_time_headway_s = Math.min(f.min_time_headway_s ?? Infinity, g / v);
    });
  }

  summary(round: (v: number) => number): PlatoonSummary {
    const followers = this.followers.map((f) => ({
      ...f,
      max_gap_error_m: round(f.max_gap_error_m),
      min_gap_m: round(f.min_gap_m),
      min_time_headway_s: f.min_time_headway_s === null ? null : round(f.min_time_headway_s),
    }));
    const byName = new Map(followers.map((f) => [f.vehicle, f]));
    const ratios = followers.flatMap((f) => {
      const ahead = byName.get(f.predecessor);
      if (!ahead) return [];
      return [{ vehicle: f.vehicle, ratio: ahead.max_gap_error_m > 0 ? round(f.max_gap_error_m / ahead.max_gap_error_m) : null }];
    });
    return {
      followers,
      string_stability: ratios.length ? { ratios, stable: ratios.every((r) => r.ratio !== null && r.ratio <= 1) } : null,
    };
  }
}
