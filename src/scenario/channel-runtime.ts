import { CHANNEL_KINDS } from './channel-kinds.js';
import type { RuntimeName } from './ignored-fields.js';
import { addsDelayOrLoss } from './resolve-network.js';
import type { ResolvedScenario } from './resolved.js';
import type { ScenarioProblem } from './scenario-problem.js';

/** The emulated runtime runs the channel in ns-3: a kind with no ns-3 program is refused before anything starts. */
export function channelRuntimeProblems(s: Pick<ResolvedScenario, 'network'>, runtime: RuntimeName): ScenarioProblem[] {
  if (runtime === 'docker' && addsDelayOrLoss(s.network)) {
    const n = s.network as { delay?: number; loss?: number };
    return (['delay', 'loss'] as const)
      .filter((f) => (n[f] ?? 0) > 0)
      .map((field) => ({
        path: ['network', field],
        message: `${field} on wifi-80211p is added by the simulated runtime's builtin engine only; the emulated runtime's ns-3 does not add it: run it with --runtime sim, or remove ${field}`,
      }));
  }
  if (runtime !== 'docker' || CHANNEL_KINDS[s.network.channel].ns3) return [];
  return [
    {
      path: ['network', 'channel'],
      message: `${s.network.channel} has no ns-3 program, and the emulated runtime runs its channel in ns-3: run it with --runtime sim`,
    },
  ];
}
