import { join } from 'node:path';
import { resolveHostsFile } from '../host/hosts-file/load-hosts-file.js';
import { describePlacement, placeVehicles } from '../runtime/emulated/placement.js';
import { type EmulatedRunPlan, planEmulatedRun } from '../runtime/emulated/plan-emulated.js';
import type { ResolvedScenario } from '../scenario/resolved.js';
import { lightCarsEnabled } from './light-cars.js';

export interface PlannedEmulatedRun {
  plan: EmulatedRunPlan;
  /** With a hosts file: which car runs where, as `cavsim up` prints it. */
  placement?: string;
}

/**
 * What an emulated run of the scenario would create (`cavsim plan`), its cars placed on the hosts of
 * a hosts file when one is given (else `$CAVSIM_HOSTS`), as `cavsim up` would place them. The file is
 * checked; no engine is asked and nothing on any host is touched.
 */
export async function planScenarioEmulated(
  scenario: ResolvedScenario,
  opts: { runId: string; runsDir: string; hostsFile?: string },
): Promise<PlannedEmulatedRun> {
  const hosts = await resolveHostsFile(opts.hostsFile);
  const placement = hosts ? placeVehicles(scenario, hosts.hosts) : undefined;
  const plan = planEmulatedRun(scenario, opts.runId, join(opts.runsDir, opts.runId), {
    lightCars: lightCarsEnabled(),
    ...(placement ? { placement } : {}),
  });
  return { plan, ...(placement ? { placement: describePlacement(placement) } : {}) };
}
