import { describe, expect, it } from 'vitest';
import type { V2VMessage } from '../../../../../src/core/control/vehicle-context.js';
import { NeighbourTable } from '../../../../../src/core/v2x/apps/neighbour-table.js';
import { decodeCam } from '../../../../../src/core/v2x/codec/cam-pdu.js';
import { createCam } from '../../../../../src/core/v2x/facilities/ca-service.js';
import type { GeoReference } from '../../../../../src/core/v2x/networking/geo-reference.js';
import { decodeShb } from '../../../../../src/core/v2x/networking/geonetworking.js';
import { stationIdOf } from '../../../../../src/core/v2x/networking/station-id.js';
import { fakeContext } from '../../control/fake-context.js';

const REF: GeoReference = { lat: 48.7758, lon: 9.1829 };
const OPTS = { minInterval: 0.1, maxInterval: 1, nGenCam: 3, lowFrequencyInterval: 0.5 };
const STATION = { stationId: stationIdOf('car0'), stationType: 5, length: 0.58, width: 0.31 };

/** Ticks the app at 100 Hz for `seconds` on a car driving east at `speed`; returns what it sent. */
function drive(seconds: number, speed: (t: number) => number, opts: Partial<typeof OPTS & { rate: number }> = {}) {
  const { ctx, state } = fakeContext({ own: { x: 0, y: 2, v: speed(0) } });
  const sent: V2VMessage[] = [];
  ctx.send = (to, type, body, o) =>
    void sent.push({
      id: `car0-${sent.length + 1}`,
      from: 'car0',
      to,
      type,
      body,
      sentAt: state.t,
      ...(o?.packet ? { packet: o.packet } : {}),
    });
  const app = createCam('car0', { ...OPTS, ...opts }, STATION, REF);
  for (let i = 0; i <= seconds * 100; i++) {
    state.t = i / 100;
    const v = speed(state.t);
    state.own = { ...state.own!, t: state.t, x: state.own!.x + v * 0.01, v };
    app.onTick!(ctx);
  }
  return sent;
}

describe('the cam app', () => {
  it('broadcasts GN single-hop packets with a CAM on BTP port 2001, at least once a second', () => {
    const sent = drive(3, () => 0);
    expect(sent.length).toBeGreaterThanOrEqual(3);
    for (const m of sent) {
      expect(m.to).toBe('*');
      const packet = decodeShb(m.packet!);
      expect(packet.btpPort).toBe(2001);
      expect(decodeCam(packet.payload).stationId).toBe(STATION.stationId);
    }
    const times = sent.map((m) => m.sentAt);
    expect(times.slice(1).every((t, i) => t - times[i] > 0.99 && t - times[i] < 1.01)).toBe(true);
  });

  it('sends more often while the speed changes, and at a fixed rate when given one', () => {
    expect(drive(2, (t) => 2 + 8 * t).length).toBeGreaterThanOrEqual(19); // 0.8 m/s per 100 ms: every check
    expect(drive(2, (t) => 2 + 5 * t)).toHaveLength(10); // 0.5 m/s per 100 ms is not more than 0.5: every other check
    expect(drive(2, (t) => 2 + 5 * t, { rate: 2 })).toHaveLength(4);
  });

  it("feeds a receiver's neighbour table with the sender's state, decoded from the packet", () => {
    const sent = drive(1, () => 10);
    const last = sent.at(-1)!;
    const table = new NeighbourTable(REF);
    expect(table.update(last, last.sentAt + 0.005)).toBe(true);
    const n = table.view().get('car0')!;
    expect(n.state.t).toBeCloseTo(last.sentAt, 3);
    expect(n.state.v).toBeCloseTo(10, 2);
    expect(n.state.y).toBeCloseTo(2, 2);
    expect(n.state.x).toBeCloseTo(10 * last.sentAt + 0.1, 1);
    expect(n.state.yaw).toBeCloseTo(0, 3);
    // a CAM whose bytes were damaged is no neighbour's state
    const broken = { ...last, packet: last.packet!.slice(0, 50) };
    expect(new NeighbourTable(REF).update(broken, 2)).toBe(false);
  });
});
