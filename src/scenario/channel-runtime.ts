import { CHANNEL_KINDS } from './channel-kinds.js';
import type { RuntimeName } from './ignored-fields.js';
import type { ResolvedScenario } from './resolved.js';
import type { ScenarioProblem } from './scenario-problem.js';

/** The emulated runtime runs the channel in ns-3: a kind with no ns-3 program is refused before anything starts. */
export function channelRuntimeProblems(s: Pick<ResolvedScenario, 'network'>, runtime: RuntimeName): ScenarioProblem[] {
  if (runtime !== 'docker' || CHANNEL_KINDS[s.network.channel].ns3) return [];
  return [
    {
      path: ['network', 'channel'],
      message: `${s.network.channel} has no ns-3 program, and the emulated runtime runs its channel in ns-3: run it with --runtime sim`,
    },
  ];
}
