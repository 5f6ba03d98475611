import { F1TENTH_DEFAULT_PARAMS } from '../core/physics/defaults.js';
import { type LeaderPath, poseBehindOnPath } from './platoon-path.js';
import type { ScenarioProblem } from './scenario-problem.js';
import { parseDuration } from './units.js';
import { MAX_VEHICLES } from './vehicle-limit.js';

/** The largest platoon a block may generate: as many cars as a scenario holds. */
export const MAX_PLATOON_CARS = MAX_VEHICLES;

type Data = Record<string, unknown>;
const isObject = (v: unknown): v is Data => typeof v === 'object' && v !== null && !Array.isArray(v);

/**
 * A `platoon:` block written as cars: `cars` vehicles named `<name>0`, `<name>1`, ..., the first
 * the `leader` entry as written, each next one the `follower` entry placed behind its predecessor
 * along the leader's path (its waypoints, `leaderPath`; without them on the leader's heading), at
 * the leader's speed, `spacing` metres between centres along the path (by default the gap its
 * `cacc` app keeps at that speed plus one car length), with every `cacc` app's
 * predecessor set to the car ahead. The cars join the scenario's `vehicles`; everything else about
 * them is validated as any vehicle is. So `--set platoon.cars=4,8,12` sweeps the platoon's length.
 */
export function expandPlatoon(
  data: Data,
  leaderPath?: LeaderPath,
): { data: Data; problems: ScenarioProblem[]; followers?: PlatoonFollower[] } {
  const block = data.platoon;
  if (block === undefined) return { data, problems: [] };
  const problem = (path: (string | number)[], message: string) => ({ data, problems: [{ path: ['platoon', ...path], message }] });
  if (!isObject(block)) return problem([], 'a platoon is a mapping: cars, leader, follower (docs/apps.md)');
  const unknown = Object.keys(block).filter((k) => !['cars', 'name', 'leader', 'follower', 'spacing'].includes(k));
  if (unknown.length) return problem([unknown[0]], `unknown field "${unknown[0]}"; a platoon has cars, name, leader, follower and spacing`);
  const { cars, leader, follower } = block;
  if (typeof cars !== 'number' || !Number.isInteger(cars) || cars < 2 || cars > MAX_PLATOON_CARS)
    return problem(['cars'], `give a whole number of cars from 2 to ${MAX_PLATOON_CARS}`);
  if (!isObject(leader) || !isObject(leader.start))
    return problem(['leader'], 'give the leader as a vehicle entry with a start: { x, y, yaw, speed }');
  if (!isObject(follower))
    return problem(['follower'], 'give the follower as a vehicle entry (controller, apps, ...) without name and start');
  if ('name' in follower || 'start' in follower)
    return problem(['follower'], 'a follower takes its name and start from its place in the platoon: remove them');
  const prefix = block.name ?? 'car';
  if (typeof prefix !== 'string' || !/^[a-z][a-z0-9]{0,9}$/.test(prefix))
    return problem(['name'], 'use 1-10 lowercase letters and digits starting with a letter, e.g. car');

  const { x, y, yaw = 0, speed = 0 } = leader.start as { x?: unknown; y?: unknown; yaw?: unknown; speed?: unknown };
  if (![x, y, yaw, speed].every((v) => typeof v === 'number' && Number.isFinite(v)))
    return problem(['leader', 'start'], 'x, y (and yaw, speed) must be numbers');
  const spacing = block.spacing ?? defaultSpacing(follower, data, speed as number);
  if (typeof spacing !== 'number' || !(spacing > 0))
    return problem(['spacing'], 'give the distance between neighbouring cars\u2019 centres in metres, e.g. 8.6');

  const name = (i: number) => `${prefix}${i}`;
  const generated: Data[] = [{ name: name(0), ...leader }];
  const followers: PlatoonFollower[] = [];
  for (let i = 1; i < cars; i++) {
    const back = i * spacing;
    const onPath = leaderPath && poseBehindOnPath(leaderPath, { x: x as number, y: y as number }, back);
    const start = onPath
      ? { ...onPath, speed }
      : { x: (x as number) - back * Math.cos(yaw as number), y: (y as number) - back * Math.sin(yaw as number), yaw, speed };
    followers.push({ name: name(i), back, cars });
    const apps = Array.isArray(follower.apps)
      ? follower.apps.map((a) => (isObject(a) && a.type === 'cacc' ? { ...a, predecessor: name(i - 1) } : a))
      : follower.apps;
    generated.push({
      ...follower,
      name: name(i),
      start,
      ...(apps !== undefined ? { apps } : {}),
    });
  }
  const { platoon: _block, ...rest } = data;
  const vehicles = Array.isArray(data.vehicles) ? data.vehicles : [];
  return { data: { ...rest, vehicles: [...generated, ...vehicles] }, problems: [], followers };
}

/** A car a platoon block wrote behind its leader: a problem with its start is the block's. */
export interface PlatoonFollower {
  name: string;
  /** Metres behind the leader along its path. */
  back: number;
  cars: number;
}

/**
 * A problem with cars a platoon block wrote, told as the block's, with what to change there: a
 * follower's start (a wall, another car) is not written anywhere the user could move it, and a
 * lidar goes into the block's leader or follower entry, not a vehicle's.
 */
export function asPlatoonProblem(
  p: ScenarioProblem,
  vehicleNames: readonly unknown[],
  followers: readonly PlatoonFollower[],
): ScenarioProblem {
  if (p.path[0] === 'record' && p.path[1] === 'scans' && p.message.startsWith('no car has a lidar')) {
    return {
      ...p,
      message:
        "no car has a lidar to record; give the platoon's cars one with platoon.follower.lidar (and platoon.leader.lidar), e.g. --set platoon.follower.lidar.enabled=true, or drop record.scans",
    };
  }
  if (p.path[0] !== 'vehicles' || p.path[2] !== 'start') return p;
  const name = typeof p.path[1] === 'number' ? vehicleNames[p.path[1]] : p.path[1];
  const f = followers.find((c) => c.name === name);
  if (!f) return p;
  const what = p.message.split(';')[0].replace(/^the car /, '');
  return {
    path: ['platoon'],
    message: `${f.name}, ${+f.back.toFixed(2)} m behind the leader along its path, ${what}; use fewer cars (platoon.cars, now ${f.cars}) or less spacing (platoon.spacing), or start the leader where the path behind it is free`,
  };
}

/** The gap the follower's `cacc` app keeps at `speed` (its defaults when none), plus one car length. */
function defaultSpacing(follower: Data, data: Data, speed: number): number {
  const cacc = (Array.isArray(follower.apps) ? follower.apps : []).find((a): a is Data => isObject(a) && a.type === 'cacc') ?? {};
  const timeGap = cacc.timeGap === undefined ? 0.6 : parseDuration(cacc.timeGap);
  const standstill = typeof cacc.standstill === 'number' ? cacc.standstill : 2;
  const params =
    (isObject(follower.params) ? follower.params : undefined) ??
    (isObject(data.physics) && isObject(data.physics.params) ? data.physics.params : {});
  const length = typeof params.length === 'number' ? params.length : F1TENTH_DEFAULT_PARAMS.length;
  const gap = typeof timeGap === 'number' ? timeGap : timeGap.ok ? timeGap.value : 0.6;
  return standstill + gap * speed + length;
}
