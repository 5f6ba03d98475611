import type { RuntimeName } from './ignored-fields.js';
import type { ResolvedScenario } from './resolved.js';
import type { ScenarioProblem } from './schema-issues.js';

/**
 * What a runtime cannot run at all. Unlike an ignored field (a warning), running it anyway would
 * measure a different channel than the scenario asks for, so these are refused.
 */
export function unsupportedByRuntime(s: ResolvedScenario, runtime: RuntimeName): ScenarioProblem[] {
  if (runtime === 'docker' && s.network.channel === 'wifi-80211p' && s.network.script !== undefined) {
    return [{ path: ['network', 'script'], message: 'a channel program of your own takes the wired argv only (docs/ns3-argv-contract.md); remove network.script to run wifi-80211p in the built-in program' }];
  }
  return [];
}
