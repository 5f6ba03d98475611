import { describe, expect, it } from 'vitest';
import { denmFigures } from '../../../src/measurement/denm-metrics.js';

const arrival = (from: string, to: string, sentAt: number, receivedAt: number, type = 'denm') => ({ from, to, type, sentAt, receivedAt });

describe('DENM figures', () => {
  it('are absent from a run whose cars triggered no DENM', () => {
    expect(denmFigures([{ t: 1, vehicle: 'car0', event: 'brake-sent' }], [arrival('car0', 'car1', 1, 1.01, 'brake')])).toBeNull();
  });

  it('time each event to the first of its DENMs at each car, and to the app that acted on it', () => {
    const events = [
      { t: 3.0, vehicle: 'car0', event: 'denm-triggered', detail: { event: 'hard-braking' } },
      { t: 3.02, vehicle: 'car1', event: 'warning-received', detail: { format: 'denm', detected_s: 3.0 } },
      { t: 5.0, vehicle: 'car0', event: 'denm-triggered', detail: { event: 'stationary' } },
    ];
    const arrivals = [
      arrival('car0', 'car1', 3.0, 3.012), // the first DENM of event 1
      arrival('car0', 'car2', 3.0, 3.2), // car2 heard only... this one late
      arrival('car0', 'car1', 3.5, 3.51), // a repetition: not a new reception
      arrival('car0', 'car1', 5.0, 5.011), // event 2
      arrival('car0', 'car1', 2.0, 2.01), // before any event: not counted
      arrival('car1', 'car0', 3.0, 3.01), // another sender, no event of its own
      arrival('car0', 'car1', 3.0, 3.005, 'beacon'),
    ];
    const f = denmFigures(events, arrivals)!;
    expect(f.triggered).toBe(2);
    expect(f.received).toBe(3);
    expect(f.event_to_reception!.max_ms).toBeCloseTo(200, 6);
    expect(f.event_to_reception!.p50_ms).toBeCloseTo(12, 6);
    expect(f.event_to_action).toEqual({ mean_ms: 20, p50_ms: 20, p95_ms: 20, max_ms: 20 });
  });

  it('count a warning sent as a DENM as an event', () => {
    const f = denmFigures(
      [{ t: 1, vehicle: 'car0', event: 'warning-started', detail: { format: 'denm' } }],
      [arrival('car0', 'car1', 1, 1.002)],
    )!;
    expect(f).toMatchObject({ triggered: 1, received: 1, event_to_action: null });
    expect(f.event_to_reception!.p50_ms).toBeCloseTo(2, 6);
  });
});
