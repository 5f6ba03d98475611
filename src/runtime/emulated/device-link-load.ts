import type { LinkBytes } from '../../host/network/link-bytes.js';

/** The window the load is measured over: ETSI's channel busy ratio uses 100 ms too. */
export const LOAD_WINDOW_MS = 100;

export interface DeviceLink {
  vehicle: string;
  /** The host's end of the device's V2V link (its `external.v2v.interface`). */
  interface: string;
}

/** What crossed one device's V2V link during the run, seen from the host's interface. */
export interface DeviceLinkLoad {
  interface: string;
  to_device_bytes: number;
  from_device_bytes: number;
  /** The busiest window's rate toward the device / from it [bit/s]. */
  to_device_peak_bps: number;
  from_device_peak_bps: number;
  window_ms: number;
  /** The channel's data rate, the most the modelled medium could carry [bit/s]. */
  channel_rate_bps: number;
}

/**
 * Samples each device link's byte counters every window while the run goes. The channel (ns-3)
 * delivers the virtual cars' frames to the device; the device's own medium may be slower than the
 * modelled one, or the channel may let several senders through at its rate each (`latency`): the
 * load tells whether the real link carried more than the modelled medium could (seed 000's concern).
 */
export class DeviceLinkLoadWatch {
  private readonly last = new Map<string, LinkBytes>();
  private readonly first = new Map<string, LinkBytes>();
  private readonly peaks = new Map<string, { to: number; from: number }>();
  private timer?: NodeJS.Timeout;
  private lastAtMs = 0;

  constructor(
    private readonly links: readonly DeviceLink[],
    private readonly read: (name: string) => LinkBytes | undefined,
    private readonly nowMs: () => number = () => performance.now(),
  ) {}

  start(): void {
    if (!this.links.length) return;
    this.sample();
    this.timer = setInterval(() => this.sample(), LOAD_WINDOW_MS);
    this.timer.unref();
  }

  /** Takes the last sample and stops; what each link carried, by vehicle. */
  stop(channelRateBps: number): Record<string, DeviceLinkLoad> {
    if (this.timer) this.sample();
    clearInterval(this.timer);
    this.timer = undefined;
    const loads: Record<string, DeviceLinkLoad> = {};
    for (const link of this.links) {
      const first = this.first.get(link.interface);
      const last = this.last.get(link.interface);
      if (!first || !last) continue;
      const peak = this.peaks.get(link.interface) ?? { to: 0, from: 0 };
      loads[link.vehicle] = {
        interface: link.interface,
        // The host's interface sends toward the device and receives from it.
        to_device_bytes: last.tx - first.tx,
        from_device_bytes: last.rx - first.rx,
        to_device_peak_bps: Math.round(peak.to),
        from_device_peak_bps: Math.round(peak.from),
        window_ms: LOAD_WINDOW_MS,
        channel_rate_bps: channelRateBps,
      };
    }
    return loads;
  }

  /** A sample is taken when the timer fires; a late timer spreads its bytes over the longer window. */
  sample(): void {
    const now = this.nowMs();
    const elapsedS = Math.max(LOAD_WINDOW_MS, now - this.lastAtMs) / 1000;
    for (const link of this.links) {
      const bytes = this.read(link.interface);
      if (!bytes) continue;
      const before = this.last.get(link.interface);
      if (!before) this.first.set(link.interface, bytes);
      else {
        const peak = this.peaks.get(link.interface) ?? { to: 0, from: 0 };
        peak.to = Math.max(peak.to, ((bytes.tx - before.tx) * 8) / elapsedS);
        peak.from = Math.max(peak.from, ((bytes.rx - before.rx) * 8) / elapsedS);
        this.peaks.set(link.interface, peak);
      }
      this.last.set(link.interface, bytes);
    }
    this.lastAtMs = now;
  }
}

/** A warning for each device link that carried more, in some window, than the modelled medium could. */
export function deviceLoadWarnings(loads: Record<string, DeviceLinkLoad>): string[] {
  const mbps = (bps: number) => `${(bps / 1e6).toFixed(2)} Mb/s`;
  return Object.entries(loads).flatMap(([vehicle, l]) =>
    (['to', 'from'] as const).flatMap((way) => {
      const peak = way === 'to' ? l.to_device_peak_bps : l.from_device_peak_bps;
      if (peak <= l.channel_rate_bps) return [];
      return [
        `${vehicle}'s device link (${l.interface}) carried ${mbps(peak)} ${way} the device in ${l.window_ms} ms, more than the channel's ${mbps(l.channel_rate_bps)}: the real medium carried more than the modelled one could (timing.external_v2v.${vehicle})`,
      ];
    }),
  );
}
