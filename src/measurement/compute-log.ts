import { percentileOfSorted } from '../util/percentile.js';
import type { TickCost } from '../world/compute-time.js';
import { CsvLog } from './csv-log.js';

export const COMPUTE_COLUMNS = ['step', 't_s', 'vehicle', 'answer_ms', 'cpu_ms', 'applied_ms'] as const;

interface Spread {
  p50_ms: number;
  p99_ms: number;
  max_ms: number;
  mean_ms: number;
}

/** Per vehicle: its compute model, ticks, and the spread of each figure. */
export interface ComputeFigures {
  model: string;
  ticks: number;
  answer: Spread | null;
  cpu: Spread | null;
  applied: Spread | null;
}

/**
 * `compute.csv`: what every control tick cost each car (the wall-clock time to answer, its CPU time
 * where readable) and the compute time applied in virtual time. The costs are measured on this
 * host, so they differ from run to run even where the simulation does not.
 */
export class ComputeLog {
  private readonly csv: CsvLog;
  private readonly figures = new Map<string, { model: string; answer: number[]; cpu: number[]; applied: number[] }>();

  constructor(file: string, models: ReadonlyMap<string, string>) {
    this.csv = new CsvLog(file, COMPUTE_COLUMNS);
    for (const [name, model] of models) this.figures.set(name, { model, answer: [], cpu: [], applied: [] });
  }

  add(step: number, t: number, vehicle: string, cost: TickCost, appliedS: number): void {
    const f = this.figures.get(vehicle);
    if (!f) return;
    const ms = (s: number | undefined) => (s === undefined ? undefined : s * 1000);
    this.csv.add([step, t, vehicle, ms(cost.wallS), ms(cost.cpuS), ms(appliedS)]);
    f.answer.push(cost.wallS * 1000);
    if (cost.cpuS !== undefined) f.cpu.push(cost.cpuS * 1000);
    f.applied.push(appliedS * 1000);
  }

  flush(): void {
    this.csv.flush();
  }

  close(): void {
    this.csv.close();
  }

  summary(): Record<string, ComputeFigures> {
    const out: Record<string, ComputeFigures> = {};
    for (const [name, f] of this.figures)
      out[name] = { model: f.model, ticks: f.answer.length, answer: spread(f.answer), cpu: spread(f.cpu), applied: spread(f.applied) };
    return out;
  }
}

function spread(values: number[]): Spread | null {
  if (!values.length) return null;
  const sorted = [...values].sort((a, b) => a - b);
  const round = (v: number) => +v.toFixed(3);
  return {
    p50_ms: round(percentileOfSorted(sorted, 50)!),
    p99_ms: round(percentileOfSorted(sorted, 99)!),
    max_ms: round(sorted[sorted.length - 1]),
    mean_ms: round(sorted.reduce((s, v) => s + v, 0) / sorted.length),
  };
}
