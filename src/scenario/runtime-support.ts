import type { RuntimeName } from './ignored-fields.js';
import type { ResolvedScenario } from './resolved.js';
import type { ScenarioProblem } from './schema-issues.js';

/**
 * What a runtime cannot run at all. Unlike an ignored field (a warning), running it anyway would
 * measure a different channel than the scenario asks for, so these are refused.
 */
export function unsupportedByRuntime(s: ResolvedScenario, runtime: RuntimeName): ScenarioProblem[] {
  if (runtime === 'docker' && s.network.channel === 'wifi-80211p') {
    return [{ path: ['network', 'channel'], message: 'the emulated runtime has no wifi-80211p channel yet; run it with --runtime sim (ns-3 in lock-step)' }];
  }
  return [];
}
