import { channelLoadWarnings } from '../run/channel-load.js';
import type { RunEvent } from '../run/events.js';
import type { ResolvedScenario } from '../scenario/resolved.js';
import type { EventBus } from '../util/event-bus.js';

/** Fields the runtime ignores, listed like errors, on stderr so `--json` output stays clean. */
export function printWarnings(warnings: readonly string[] | undefined, runtime: string): void {
  if (!warnings?.length) return;
  process.stderr.write(
    `warning: the ${runtime} runtime ignores ${warnings.length === 1 ? 'a field' : `${warnings.length} fields`} of this scenario\n${warnings.map((w) => `  ${w}\n`).join('')}`,
  );
}

/** With `--json`, no reporter prints the run's warnings; they still belong on stderr. */
export function printWarningsFromEvents(events: EventBus<RunEvent>): void {
  events.on((e) => {
    if (e.type === 'log' && e.level === 'warn') process.stderr.write(`warning: ${e.message}\n`);
  });
}

/** `validate` and `plan`: the channel's offered load against its capacity, when the apps would saturate it (run/channel-load.ts). */
export function printLoadWarnings(scenario: ResolvedScenario, runtime: 'docker' | 'sim'): void {
  for (const w of channelLoadWarnings(scenario, runtime)) process.stderr.write(`warning: ${w}\n`);
}
