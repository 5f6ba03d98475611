import type { ScenarioParsed } from './schema.js';
import type { ScenarioProblem } from './schema-issues.js';
import type { ResolvedNetwork } from './resolved.js';

/**
 * The network block with its defaults filled, and what it asks for that does not fit together:
 * a field of another channel kind, or an engine that does not exist yet.
 */
export function resolveNetwork(parsed: ScenarioParsed['network'], script: string | undefined): { network: ResolvedNetwork; problems: ScenarioProblem[] } {
  const problems: ScenarioProblem[] = [];
  const { channel, engine, jitter, delay, dataRate, loss } = parsed;
  if (engine === 'ns3') {
    problems.push({ path: ['network', 'engine'], message: 'engine: ns3 (ns-3 in lock-step with the simulation) is not available yet; remove the field or use engine: builtin' });
  }
  if (channel === 'csma' && jitter !== undefined) {
    problems.push({ path: ['network', 'jitter'], message: 'jitter applies only to channel: latency (the csma channel has a fixed delay); remove it or set channel: latency' });
  }
  const extras = { ...(engine === 'builtin' ? { engine } : {}), ...(script !== undefined ? { script } : {}) };
  const network: ResolvedNetwork =
    channel === 'latency' ? { channel, delay, jitter: jitter ?? 0, dataRate, loss, ...extras } : { channel, delay, dataRate, loss, ...extras };
  return { network, problems };
}
