import type { EventSink } from '../util/event-bus.js';
import type { RunSummary } from './summary.js';

/** Typed events a run emits; reporters (ink, plain lines, JSON) subscribe to them. */
export type RunEvent =
  | { type: 'phase'; phase: string; detail?: string }
  | { type: 'log'; level: 'info' | 'warn'; message: string }
  | {
      type: 'progress';
      t: number;
      duration: number;
      cars: { name: string; v: number; braking: boolean; collided: boolean }[];
      minTtc: number | null;
      lateness?: { p99_ms: number; max_ms: number };
    }
  | { type: 'summary'; summary: RunSummary; runDir: string };

/** Where a run's events go (an `EventBus<RunEvent>` from util/event-bus.ts, for one). */
export type RunEvents = EventSink<RunEvent>;
