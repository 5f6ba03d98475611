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

export interface RunEvents {
  emit(event: RunEvent): void;
}

export class RunEventBus implements RunEvents {
  private listeners: ((e: RunEvent) => void)[] = [];
  on(listener: (e: RunEvent) => void): () => void {
    this.listeners.push(listener);
    return () => {
      this.listeners = this.listeners.filter((l) => l !== listener);
    };
  }
  emit(event: RunEvent): void {
    for (const l of this.listeners) l(event);
  }
}
