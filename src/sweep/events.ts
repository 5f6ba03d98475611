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

export interface SweepEvents {
  emit(event: SweepEvent): void;
}

export class SweepEventBus implements SweepEvents {
  private listeners: ((e: SweepEvent) => void)[] = [];
  on(listener: (e: SweepEvent) => void): () => void {
    this.listeners.push(listener);
    return () => {
      this.listeners = this.listeners.filter((l) => l !== listener);
    };
  }
  emit(event: SweepEvent): void {
    for (const l of this.listeners) l(event);
  }
}

export const silentEvents: SweepEvents = { emit: () => {} };
