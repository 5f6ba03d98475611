import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';

/** Runs V8's young-generation collection now, synchronously. */
export type CollectGarbage = () => void;

/**
 * A scavenge lasts a few hundred microseconds to a millisecond or two and otherwise strikes at
 * random, now and then just as a physics step is due. Collected on purpose in the idle part of a
 * step, the young generation stays small, so V8 rarely needs to collect on its own.
 * Undefined when this V8 does not offer the collector (the caller then leaves GC to V8).
 */
export function createIdleCollector(): CollectGarbage | undefined {
  try {
    setFlagsFromString('--expose-gc');
    const gc = runInNewContext('gc') as ((options: { type: 'minor'; execution: 'sync' }) => void) | undefined;
    if (typeof gc !== 'function') return undefined;
    return () => gc({ type: 'minor', execution: 'sync' });
  } catch {
    return undefined;
  }
}
