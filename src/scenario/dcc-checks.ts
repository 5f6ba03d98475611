import type { RuntimeName } from './ignored-fields.js';
import type { ResolvedScenario } from './resolved.js';
import type { ScenarioProblem } from './scenario-problem.js';

const asksForDcc = (app: ResolvedScenario['vehicles'][number]['apps'][number]) => 'dcc' in app && app.dcc === 'reactive';

/** Reactive DCC (ITS-G5's) acts on the channel busy ratio the car's 802.11p radio measures. */
export function dccProblems(s: ResolvedScenario): ScenarioProblem[] {
  if (s.network.channel === 'wifi-80211p') return [];
  return s.vehicles.flatMap((v) =>
    v.apps.flatMap((app, j): ScenarioProblem[] =>
      asksForDcc(app)
        ? [
            {
              path: ['vehicles', v.index, 'apps', j, 'dcc'],
              message: `reactive DCC acts on the channel busy ratio that the car's ITS-G5 (802.11p) radio measures; a ${s.network.channel} channel has none: use network.channel: wifi-80211p, or drop dcc`,
            },
          ]
        : [],
    ),
  );
}

/** The emulated runtime's channel reports no busy ratio to the cars yet: DCC there would never act. */
export function dccRuntimeProblems(s: ResolvedScenario, runtime: RuntimeName): ScenarioProblem[] {
  if (runtime !== 'docker') return [];
  return s.vehicles.flatMap((v) =>
    v.apps.flatMap((app, j): ScenarioProblem[] =>
      asksForDcc(app)
        ? [
            {
              path: ['vehicles', v.index, 'apps', j, 'dcc'],
              message:
                'reactive DCC needs the channel busy ratio, which the emulated runtime does not report yet: run with --runtime sim, or drop dcc',
            },
          ]
        : [],
    ),
  );
}
