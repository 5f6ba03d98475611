import { describe, expect, it } from 'vitest';
import type { LinkBytes } from '../../../../src/host/network/link-bytes.js';
import { DeviceLinkLoadWatch, deviceLoadWarnings } from '../../../../src/runtime/emulated/device-link-load.js';

function fakeLink(samples: LinkBytes[]) {
  let i = 0;
  let now = 0;
  return {
    read: () => samples[Math.min(i, samples.length - 1)],
    nowMs: () => now,
    advance(ms: number) {
      i++;
      now += ms;
    },
  };
}

describe("the load on an external device's V2V link", () => {
  it("counts the bytes each way from the host's interface (tx toward the device) and keeps the busiest window", () => {
    const link = fakeLink([
      { rx: 1000, tx: 5000 },
      { rx: 1000 + 1250, tx: 5000 + 12_500 }, // 100 ms: 0.1 Mb/s from, 1 Mb/s to the device
      { rx: 1000 + 1250 + 125, tx: 5000 + 12_500 + 125_000 }, // 100 ms: 10 Mb/s to the device
    ]);
    const watch = new DeviceLinkLoadWatch([{ vehicle: 'car1', interface: 'enp3s0' }], link.read, link.nowMs);
    watch.sample();
    link.advance(100);
    watch.sample();
    link.advance(100);
    watch.sample();
    const loads = watch.stop(6e6);
    expect(loads).toEqual({
      car1: {
        interface: 'enp3s0',
        to_device_bytes: 137_500,
        from_device_bytes: 1375,
        to_device_peak_bps: 10_000_000,
        from_device_peak_bps: 100_000,
        window_ms: 100,
        channel_rate_bps: 6e6,
      },
    });
    expect(deviceLoadWarnings(loads)).toEqual([
      "car1's device link (enp3s0) carried 10.00 Mb/s to the device in 100 ms, more than the channel's 6.00 Mb/s: the real medium carried more than the modelled one could (timing.external_v2v.car1)",
    ]);
  });

  it('spreads the bytes of a late sample over the time that really passed', () => {
    const link = fakeLink([
      { rx: 0, tx: 0 },
      { rx: 0, tx: 125_000 },
    ]);
    const watch = new DeviceLinkLoadWatch([{ vehicle: 'car1', interface: 'v2v0' }], link.read, link.nowMs);
    watch.sample();
    link.advance(400);
    watch.sample();
    expect(watch.stop(100e6).car1.to_device_peak_bps).toBe(2_500_000);
  });

  it('reports nothing for an interface it could not read, and no warning within the channel rate', () => {
    const watch = new DeviceLinkLoadWatch(
      [{ vehicle: 'car1', interface: 'gone0' }],
      () => undefined,
      () => 0,
    );
    watch.sample();
    expect(watch.stop(6e6)).toEqual({});
    expect(
      deviceLoadWarnings({
        car1: {
          interface: 'x',
          to_device_bytes: 10,
          from_device_bytes: 10,
          to_device_peak_bps: 6e6,
          from_device_peak_bps: 0,
          window_ms: 100,
          channel_rate_bps: 6e6,
        },
      }),
    ).toEqual([]);
  });
});
