import type { ChannelBusySample } from '../../channel/frames.js';
import { frameAirTime, MAC_FRAME_OVERHEAD_BYTES } from '../../channel/radio/wifi-80211p/ofdm-timing.js';
import { dccTableFor, ReactiveDcc } from '../../core/v2x/facilities/reactive-dcc.js';
import type { ResolvedScenario } from '../../scenario/resolved.js';

/**
 * A CAM as cavsim sends it is well under this (GN + BTP + a CAM with its low-frequency container):
 * the size that picks a CAM-only car's DCC table.
 */
const CAM_TABLE_BYTES = 200;

/**
 * The reactive DCC of every car one of whose apps asks for it (`dcc: reactive`), fed with the car's
 * own channel busy ratio per 100 ms window as its radio measured it. A car's table (Annex A.1 or
 * A.2) follows the air time of its largest gated packet at the channel's rate.
 */
export class CarCongestionControl {
  private readonly byCar = new Map<string, ReactiveDcc>();

  constructor(
    scenario: Pick<ResolvedScenario, 'vehicles' | 'network'>,
    private readonly onChange: (car: string, state: string, cbr: number) => void,
  ) {
    const rate = scenario.network.channel === 'wifi-80211p' ? scenario.network.rate : undefined;
    if (rate === undefined) return;
    for (const v of scenario.vehicles) {
      let largest = 0;
      for (const app of v.apps) {
        if (!('dcc' in app) || app.dcc !== 'reactive') continue;
        largest = Math.max(largest, app.type === 'beacon' ? app.size : CAM_TABLE_BYTES);
      }
      if (largest > 0) this.byCar.set(v.name, new ReactiveDcc(dccTableFor(frameAirTime(largest + MAC_FRAME_OVERHEAD_BYTES, rate))));
    }
  }

  get active(): boolean {
    return this.byCar.size > 0;
  }

  observe(samples: readonly ChannelBusySample[]): void {
    for (const s of samples) {
      const dcc = this.byCar.get(s.car);
      if (!dcc) continue;
      const before = dcc.state;
      if (dcc.observe(s.busyRatio) !== before) this.onChange(s.car, dcc.state, s.busyRatio);
    }
  }

  /** The least interval between two of `car`'s gated packets now [s]; 0 for a car without DCC. */
  interval(car: string): number {
    return this.byCar.get(car)?.offTime ?? 0;
  }
}
