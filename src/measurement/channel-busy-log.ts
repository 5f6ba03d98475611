import { CHANNEL_BUSY_WINDOW_S, type ChannelBusySample } from '../channel/frames.js';
import { interpolatedQuantile } from '../util/percentile.js';
import { CBR_COLUMNS } from './csv-columns.js';
import { CsvLog } from './csv-log.js';

/**
 * cbr.csv: each car's channel busy ratio per 100 ms window, as the channel's radio measured it. The
 * file is opened on the first sample, so a run whose channel keeps no medium state has none.
 */
export class ChannelBusyLog {
  readonly samples: ChannelBusySample[] = [];
  private log?: CsvLog;
  private closed = false;

  /** `path`: where cbr.csv goes; without one the samples are only kept (a recorder in a test). */
  constructor(private readonly path?: string) {}

  add(samples: readonly ChannelBusySample[]): void {
    if (!samples.length || this.closed) return;
    if (this.path) this.log ??= new CsvLog(this.path, CBR_COLUMNS);
    for (const s of samples) {
      this.samples.push(s);
      this.log?.add([s.start, s.end, s.car, s.busyRatio]);
    }
  }

  flush(): void {
    this.log?.flush();
  }

  close(): void {
    this.closed = true;
    this.log?.close();
  }
}

/** summary.json's `v2v.cbr`: the channel's own CBR over every car and window, and each car's. */
export interface MeasuredCbr {
  /** The radio's medium state (receiving, sensing energy above its carrier-sense threshold, or transmitting). */
  method: 'medium-state';
  window_s: number;
  /** (car, window) samples. */
  windows: number;
  mean: number;
  p95: number;
  max: number;
  /**
   * Per car, by name: the mean and the largest of its windows. Above PER_CAR_LISTED_MAX_CARS cars,
   * only the PER_CAR_BUSIEST with the highest mean (highest first); every car's windows are in cbr.csv.
   */
  per_car: CarCbr[];
  /** Set when per_car lists the busiest cars only: how many cars, and their means' spread. */
  cars?: number;
  car_means?: { min: number; p50: number; max: number };
  per_car_listed?: string;
}

export interface CarCbr {
  vehicle: string;
  mean: number;
  max: number;
}

/** Up to this many cars, summary.json lists every car's CBR; beyond, the busiest few (a fleet of 500 would add 30 kB). */
export const PER_CAR_LISTED_MAX_CARS = 100;
export const PER_CAR_BUSIEST = 5;

const round = (v: number) => +v.toFixed(6);
const byName = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);

/** Mean, p95 (interpolated) and max over every car and window, and each car's mean and max; undefined without samples. */
export function measuredCbr(samples: readonly ChannelBusySample[]): MeasuredCbr | undefined {
  if (!samples.length) return undefined;
  const all = Float64Array.from(samples, (s) => s.busyRatio).sort();
  return {
    method: 'medium-state',
    window_s: CHANNEL_BUSY_WINDOW_S,
    windows: all.length,
    mean: round(all.reduce((a, b) => a + b, 0) / all.length),
    p95: round(interpolatedQuantile(all, 0.95)),
    max: round(all[all.length - 1]),
    ...perCarFigures(carCbr(samples)),
  };
}

/** Each car's mean and largest window, by name. */
export function carCbr(samples: Iterable<Pick<ChannelBusySample, 'car' | 'busyRatio'>>): CarCbr[] {
  const byCar = new Map<string, { sum: number; n: number; max: number }>();
  for (const s of samples) {
    const c = byCar.get(s.car) ?? { sum: 0, n: 0, max: 0 };
    c.sum += s.busyRatio;
    c.n++;
    c.max = Math.max(c.max, s.busyRatio);
    byCar.set(s.car, c);
  }
  return [...byCar.entries()]
    .sort(([a], [b]) => byName(a, b))
    .map(([vehicle, c]) => ({ vehicle, mean: round(c.sum / c.n), max: round(c.max) }));
}

function perCarFigures(cars: CarCbr[]): Pick<MeasuredCbr, 'per_car' | 'cars' | 'car_means' | 'per_car_listed'> {
  if (cars.length <= PER_CAR_LISTED_MAX_CARS) return { per_car: cars };
  const means = Float64Array.from(cars, (c) => c.mean).sort();
  return {
    per_car: [...cars].sort((a, b) => b.mean - a.mean || byName(a.vehicle, b.vehicle)).slice(0, PER_CAR_BUSIEST),
    cars: cars.length,
    car_means: { min: means[0], p50: round(interpolatedQuantile(means, 0.5)), max: means[means.length - 1] },
    per_car_listed: `the ${PER_CAR_BUSIEST} busiest of ${cars.length} cars; every car's windows are in cbr.csv`,
  };
}
