import type { EventSink } from '../util/event-bus.js';
import type { SweepAnswer } from './answer.js';
import type { CriticalSearchResult } from './critical.js';
import type { SweepPoint } from './grid.js';
import type { SweepResult } from './result-row.js';
import type { Runtime } from './sweep-folder.js';

/** Typed events of a sweep; reporters (plain lines, ink, JSON) subscribe, the core never prints. */
export type SweepEvent =
  | { type: 'sweep-start'; sweepId: string; dir: string; runtime: Runtime; jobs: number; total: number; alreadyDone: number }
  | { type: 'run-start'; point: SweepPoint }
  | { type: 'run-done'; result: SweepResult; done: number; total: number; etaSeconds: number | null }
  | { type: 'warn'; message: string }
  | { type: 'critical-probe'; path: string; value: string; collision: boolean; bracket: { lo: string; hi: string } | null }
  | { type: 'critical-result'; result: CriticalSearchResult }
  | { type: 'answer'; answer: SweepAnswer }
  | { type: 'sweep-done'; sweepId: string; dir: string; done: number; total: number; stopped: boolean; wallSeconds: number };

/** Where a sweep's events go (an `EventBus<SweepEvent>` from util/event-bus.ts, for one). */
export type SweepEvents = EventSink<SweepEvent>;

export const silentEvents: SweepEvents = { emit: () => {} };
