import type { ResolvedScenario } from './resolved.js';
import type { ScenarioProblem } from './scenario-problem.js';

/**
 * Problems with cars a traffic block wrote, told as the block's: no one wrote `vehicles[412]`, so
 * a problem there points at the field that made it (its params, apps, control rate, name prefix,
 * speed) and is said once, not once per car. A problem with one car's place (a wall of a given
 * map, a written car in the way) is said for each car, by name.
 */
export function asTrafficProblems(
  problems: readonly ScenarioProblem[],
  s: Pick<ResolvedScenario, 'traffic' | 'vehicles'>,
): ScenarioProblem[] {
  const t = s.traffic;
  if (!t) return [...problems];
  const said = new Set<string>();
  const out: ScenarioProblem[] = [];
  for (const p of problems) {
    const index = p.path[0] === 'vehicles' && typeof p.path[1] === 'number' ? p.path[1] : -1;
    if (index < t.first || index >= t.first + t.count) {
      out.push(p);
      continue;
    }
    const moved = relocated(p, s.vehicles[index].name);
    const key = JSON.stringify(moved.path);
    if (said.has(key)) continue;
    if (p.path[2] !== 'start') said.add(key);
    out.push(moved);
  }
  return out;
}

function relocated(p: ScenarioProblem, name: string): ScenarioProblem {
  const [field, ...rest] = p.path.slice(2);
  switch (field) {
    case 'name':
      return { path: ['traffic', 'namePrefix'], message: `${p.message}; give traffic.namePrefix another prefix` };
    case 'start':
      return { path: ['traffic'], message: `${name}: ${p.message}` };
    case 'controller':
      return { path: ['traffic', 'speed'], message: p.message };
    default:
      return { path: ['traffic', ...(field === undefined ? [] : [field]), ...rest], message: p.message };
  }
}
