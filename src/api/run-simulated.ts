import { hostFacts, hostFactsNeed } from '../run/host-facts.js';
import { type RunOutcome, type SimulatedRunOptions, simulateScenario } from '../runtime/sim/simulate-scenario.js';
import { loadScenario } from '../scenario/load-scenario.js';
import type { ResolvedScenario } from '../scenario/resolved.js';

export type { RunOutcome } from '../runtime/sim/simulate-scenario.js';
export type RunScenarioOptions = SimulatedRunOptions;

/** `cavsim up --runtime sim`: validate, run in virtual time, write the run folder. */
export async function runScenarioSimulated(file: string, opts: RunScenarioOptions = {}): Promise<RunOutcome> {
  const scenario = await loadScenario(file, { overrides: opts.overrides, loadMap: opts.loadMap, inputs: opts.inputs, runtime: 'sim' });
  // the run's manifest needs them: git and pkg-config (if the run starts processes at all) answer while the run prepares
  hostFacts(hostFactsNeed('sim', scenario)).catch(() => {});
  return runResolvedSimulated(scenario, opts);
}

/**
 * A resolved scenario in virtual time. The Docker engine is connected only when a car has an
 * `image:` (dockerode is not even loaded otherwise).
 */
export function runResolvedSimulated(scenario: ResolvedScenario, opts: RunScenarioOptions = {}): Promise<RunOutcome> {
  const docker = opts.docker ?? (async () => (await import('../host/docker/dockerode-port.js')).connectDocker());
  return simulateScenario(scenario, { ...opts, docker });
}
