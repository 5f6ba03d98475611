import { UserInputError } from '../../errors.js';
import { MAX_REMOTE_HOSTS } from '../../host/network/tunnel-plan.js';
import type { ResolvedScenario } from '../../scenario/resolved.js';

/** A host of the hosts file as placement sees it: no `tunnelAddress` is the run's own engine (unix://). */
export interface PlacementHost {
  name: string;
  tunnelAddress?: string;
  cores?: number;
}

/** Which remote host each remote car runs on; every other vehicle stays on the run's host. */
export interface Placement {
  /** Vehicle name to the name of the remote host it runs on. */
  remote: Record<string, string>;
  /** Vehicles that stay on the run's host although hosts were given, each with why. */
  local: Array<{ vehicle: string; why: string }>;
}

/**
 * Cars in containers are dealt over the hosts of the file in proportion to their `cores` (smooth
 * weighted round-robin, ties to the host listed first), so with equal cores, or none given, the first
 * car goes to the first host, the next to the second, and so on. A host without `cores` counts as
 * the host with the fewest listed. A car running its own image or command goes with its V2V relay,
 * whose namespace it shares. A host without a tunnel address is the run's own engine: cars dealt to
 * it stay here. An external device stays on the run's host, as do the simulator and ns-3. Pure.
 */
export function placeVehicles(scenario: Pick<ResolvedScenario, 'vehicles'>, hosts: readonly PlacementHost[]): Placement {
  if (hosts.length < 1) throw new UserInputError('the hosts file lists no host', [], 'list at least one host (docs/multi-host.md)');
  if (hosts.length > MAX_REMOTE_HOSTS)
    throw new UserInputError(`the hosts file lists ${hosts.length} hosts; a run spans at most ${MAX_REMOTE_HOSTS}`, [], 'list fewer hosts');
  const remote: Record<string, string> = {};
  const local: Placement['local'] = [];
  const nextHost = dealer(hosts);
  for (const v of scenario.vehicles) {
    if (v.external) {
      local.push({ vehicle: v.name, why: 'an external device joins the run on its host' });
      continue;
    }
    const host = nextHost();
    if (host.tunnelAddress === undefined) local.push({ vehicle: v.name, why: `${host.name} is the run's own engine` });
    else remote[v.name] = host.name;
  }
  return { remote, local };
}

/** Each call names the next host to deal a car to: smooth weighted round-robin by cores. */
function dealer(hosts: readonly PlacementHost[]): () => PlacementHost {
  const listed = hosts.flatMap((h) => (h.cores === undefined ? [] : [h.cores]));
  const fewest = listed.length ? Math.min(...listed) : 1;
  const weights = hosts.map((h) => h.cores ?? fewest);
  const total = weights.reduce((a, b) => a + b, 0);
  const credit = hosts.map(() => 0);
  return () => {
    let best = 0;
    for (let i = 0; i < hosts.length; i++) {
      credit[i] += weights[i];
      if (credit[i] > credit[best]) best = i;
    }
    credit[best] -= total;
    return hosts[best];
  };
}

/** One line for the reporter: which car runs where. */
export function describePlacement(p: Placement): string {
  const byHost = new Map<string, string[]>();
  for (const [car, host] of Object.entries(p.remote)) byHost.set(host, [...(byHost.get(host) ?? []), car]);
  const remote = [...byHost].map(([host, cars]) => `${cars.join(', ')} on ${host}`);
  const local = p.local.map((l) => `${l.vehicle} here (${l.why})`);
  return [...remote, ...local].join('; ') || 'no cars';
}
