import { describe, expect, it } from 'vitest';
import type { Delivery } from '../../../src/channel/frames.js';
import { Wifi80211pChannel } from '../../../src/channel/radio/wifi-80211p/wifi-80211p-channel.js';
import type { WifiNetwork } from '../../../src/scenario/resolved.js';
import { wifiNetwork } from '../../support/radio/networks.js';

/** Five cars 30 m apart, each broadcasting 190 bytes every 100 ms for 3 s; every outcome by frame and receiver. */
function outcomes(network: WifiNetwork): Map<string, Delivery<string>> {
  const xs = [0, 30, 60, 90, 120];
  const positions = xs.map((x) => ({ x, y: 0 }));
  const names = xs.map((_, i) => `car${i}`);
  const channel = new Wifi80211pChannel<string>({ network, names, positions: () => positions, seed: 7 });
  const all = new Map<string, Delivery<string>>();
  for (let step = 0; step <= 3500; step++) {
    const now = step / 1000;
    if (step % 100 === 0 && now < 3)
      for (let i = 0; i < names.length; i++)
        channel.send(
          { payload: `${i}@${step}`, from: names[i], to: names.filter((_, j) => j !== i), broadcast: true, sizeBytes: 190 },
          now + i * 1e-4,
        );
    for (const d of channel.deliverDue(now)) all.set(`${d.payload}>${d.to}`, d);
  }
  return all;
}

describe("802.11p's delay and loss, added on top of the radio's own (builtin engine)", () => {
  const plain = outcomes(wifiNetwork());
  const delayed = outcomes({ ...wifiNetwork(), delay: 0.05 });
  const lossy = outcomes({ ...wifiNetwork(), loss: 0.3 });

  it('delay: the same outcomes, each delivery 50 ms later; the radio itself is untouched', () => {
    expect(delayed.size).toBe(plain.size);
    expect(plain.size).toBe(30 * 5 * 4);
    for (const [key, d] of plain) {
      const later = delayed.get(key)!;
      expect(later.lost).toBe(d.lost);
      expect(later.at).toBeCloseTo(d.lost ? d.at : d.at + 0.05, 12);
    }
  });

  it("loss: about 30 % of what the radio delivered is lost as channel-loss; the radio's own losses stay as they were", () => {
    const delivered = [...plain].filter(([, d]) => !d.lost);
    const addedLoss = delivered.filter(([key]) => lossy.get(key)!.lost === 'channel-loss').length / delivered.length;
    expect(addedLoss).toBeGreaterThan(0.22);
    expect(addedLoss).toBeLessThan(0.38);
    for (const [key, d] of plain) if (d.lost) expect(lossy.get(key)!.lost).toBe(d.lost);
    for (const [key, d] of lossy) if (!d.lost) expect(d.at).toBe(plain.get(key)!.at);
  });
});
