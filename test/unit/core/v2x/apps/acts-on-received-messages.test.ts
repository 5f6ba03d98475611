import { describe, expect, it } from 'vitest';
import type { ResolvedVehicle } from '../../../../../src/scenario/resolved.js';
import { actsOnReceivedMessages } from '../../../../../src/world/create-apps.js';

const car = (apps: { type: string }[], own: Partial<Pick<ResolvedVehicle, 'command' | 'image'>> = {}) =>
  ({ apps, ...own }) as unknown as Pick<ResolvedVehicle, 'apps' | 'command' | 'image'>;

describe('whether a car can act on the V2V messages it receives', () => {
  it('a car that only beacons (or runs a scripted event) cannot: its run need not wait for each delivery', () => {
    expect(actsOnReceivedMessages(car([]))).toBe(false);
    expect(actsOnReceivedMessages(car([{ type: 'beacon' }, { type: 'scripted-event' }]))).toBe(false);
  });

  it('a receiving app, a sender that reads its neighbour table, or a car running its own code can', () => {
    for (const type of ['brake-receiver', 'ttc-brake-sender', 'cacc', 'warning', 'warning-receiver'])
      expect(actsOnReceivedMessages(car([{ type: 'beacon' }, { type }])), type).toBe(true);
    expect(actsOnReceivedMessages(car([], { command: ['node', 'car.js'] }))).toBe(true);
    expect(actsOnReceivedMessages(car([], { image: 'my-car:1' }))).toBe(true);
  });
});
