import { describe, expect, it, vi } from 'vitest';
import { encodeCam } from '../../../../../src/core/v2x/codec/cam-pdu.js';
import { camOf, positionVectorOf } from '../../../../../src/core/v2x/facilities/vehicle-state.js';
import { BTP_PORT_CAM, encodeShb, GN_BTP_HEADER_BYTES } from '../../../../../src/core/v2x/networking/geonetworking.js';
import { stationIdOf } from '../../../../../src/core/v2x/networking/station-id.js';
import { decideSend, relayArrival } from '../../../../../src/runtime/emulated/containers/v2v-relay-checks.js';
import { VehicleSession } from '../../../../../src/runtime/emulated/containers/vehicle-session.js';
import type { Arrival } from '../../../../../src/runtime/emulated/v2v/transport.js';
import type { BridgeClient } from '../../../../../src/runtime/rosbridge/bridge-client.js';
import { loadScenario } from '../../../../../src/scenario/load-scenario.js';
import type { VehicleAgent } from '../../../../../src/world/vehicle-agent.js';

/** The emulated runtime's V2V gate (issue 52): the V2V relay of an own-code car, and a vehicle program, with fakes for their links. */
const REF = { lat: 48.7758, lon: 9.1829 };
const camPacket = (car: string) => {
  const state = { t: 1.5, x: 10, y: -1, yaw: 0.1, v: 8, yawRate: 0.01, acceleration: 0.5 };
  const facts = { stationId: stationIdOf(car), stationType: 5, length: 0.58, width: 0.31 };
  return encodeShb({
    source: positionVectorOf(state, facts, REF),
    btpPort: BTP_PORT_CAM,
    trafficClass: 2,
    payload: encodeCam(camOf(state, facts, REF, false)),
  });
};
/** car's GN header with garbage UPER behind it, the length field matching. */
const garbageCam = (car: string) => {
  const good = camPacket(car);
  const out = new Uint8Array(GN_BTP_HEADER_BYTES + 12).fill(0xff);
  out.set(good.subarray(0, GN_BTP_HEADER_BYTES));
  new DataView(out.buffer).setUint16(8, 12 + 4);
  return out;
};
const b64 = (p: Uint8Array) => Buffer.from(p).toString('base64');
const PEERS = new Set(['car0', 'car1', 'car2']);

describe('the V2V relay of an own-code car: what it sends', () => {
  it('refuses an address that is not * or another car, before anything reaches ns-3, with the simulated runtime’s reasons', () => {
    const cam = b64(camPacket('car3'));
    expect(decideSend({ to: 'car3', type: 'cam', packet: cam }, 'car3', PEERS)).toEqual({
      refused: 'v2v-destination',
      reason: 'addressed to the sending car itself',
    });
    expect(decideSend({ to: 'car9', type: 'cam', packet: cam }, 'car3', PEERS)).toEqual({
      refused: 'v2v-destination',
      reason: '"car9" is no car of this run',
    });
    for (const to of ['car0 car3', '\u0000', ''])
      expect(decideSend({ to, type: 'cam', packet: cam }, 'car3', PEERS)).toEqual({
        refused: 'v2v-destination',
        reason: `${JSON.stringify(to)} is not a car's name`,
      });
  });

  it('refuses a packet from another station; sends a malformed one marked as such, a good one unmarked', () => {
    expect(decideSend({ to: '*', type: 'cam', packet: b64(camPacket('car0')) }, 'car3', PEERS)).toMatchObject({ refused: 'v2v-source' });
    const bad = decideSend({ to: '*', type: 'cam', packet: b64(garbageCam('car3')) }, 'car3', PEERS);
    expect(bad).toMatchObject({ packet: garbageCam('car3'), malformed: expect.stringMatching(/^cam: /) });
    expect(decideSend({ to: 'car0', type: 'cam', packet: b64(camPacket('car3')) }, 'car3', PEERS)).toEqual({ packet: camPacket('car3') });
    // a CAM with no packet is none; any other message is no standard message
    expect(decideSend({ to: '*', type: 'cam' }, 'car3', PEERS)).toEqual({
      malformed: 'a cam travels as its GeoNetworking packet; none was sent',
    });
    expect(decideSend({ to: '*', type: 'data' }, 'car3', PEERS)).toEqual({});
  });
});

const arrival = (from: string, packet: Uint8Array | undefined, type = 'cam'): Arrival => ({
  datagram: {
    id: `${from}-1`,
    from,
    to: '*',
    type,
    sentAtNs: '1000500000000',
    body: packet ? {} : { n: 1 },
    ...(packet ? { packet } : {}),
  },
  receivedNs: 1_000_502_000_000n,
  size: packet?.length ?? 20,
});

describe('the receive-side gate in emulation', () => {
  const runTime = (ns: bigint) => Number(ns - 1_000_000_000_000n) / 1e9;

  it('the relay hands own code a good CAM decoded, a malformed one never; both get a receipt, the malformed one saying why', () => {
    const good = relayArrival(arrival('car0', camPacket('car0')), 'car3', runTime)!;
    expect(good.receipt.malformed).toBeUndefined();
    expect(good.received).toMatchObject({ from: 'car0', to: 'car3', type: 'cam', sent_s: 0.5, received_s: 0.502 });
    expect(good.received!.body).toHaveProperty('stationId', stationIdOf('car0'));
    const bad = relayArrival(arrival('car0', garbageCam('car0')), 'car3', runTime)!;
    expect(bad.received).toBeUndefined();
    expect(bad.receipt).toMatchObject({
      kind: 'received',
      id: 'car0-1',
      from: 'car0',
      to: 'car3',
      malformed: expect.stringMatching(/^cam: /),
    });
    expect(relayArrival(arrival('car0', undefined, 'data'), 'car3', runTime)!.received).toMatchObject({ body: { n: 1 } });
    expect(relayArrival(arrival('car3', camPacket('car3')), 'car3', runTime)).toBeUndefined();
  });

  it('a vehicle program’s apps never see a malformed CAM; its receipt says malformed', async () => {
    const scenario = await loadScenario(new URL('../../../../../scenarios/cam-highway.yaml', import.meta.url).pathname);
    const spec = scenario.vehicles[0];
    const subscriptions = new Map<string, (msg: Record<string, unknown>) => void>();
    const published: { topic: string; data: Record<string, unknown> }[] = [];
    const client = {
      advertise: () => {},
      subscribe: (topic: string, _type: string, cb: (msg: Record<string, unknown>) => void) => subscriptions.set(topic, cb),
      publish: (topic: string, msg: { data: string }) => published.push({ topic, data: JSON.parse(msg.data) }),
      onStatus: () => {},
      closed: new Promise(() => {}),
      close: async () => {},
    } as unknown as BridgeClient;
    const peers = scenario.vehicles.slice(1).map((v, i) => ({ name: v.name, address: `10.0.0.${i + 2}`, port: 7400 }));
    const session = new VehicleSession(
      scenario,
      spec,
      client,
      { sendStamped: vi.fn(), close: async () => {} },
      {
        runDir: '/nonexistent',
        vehicle: spec.name,
        simUrl: 'ws://127.0.0.1:1',
        peers,
        bind: { host: '10.0.0.1', port: 7400 },
        clock: { nowNs: () => 1_000_600_000_000n, sleepUntil: async () => {} },
      },
    );
    subscriptions.get('/sim_control')!({ data: JSON.stringify({ cmd: 'start', t0_epoch_ns: '1000000000000' }) });
    const receive = vi.spyOn((session as unknown as { agent: VehicleAgent }).agent, 'receive');
    session.onArrival(arrival('car1', garbageCam('car1')));
    session.onArrival(arrival('car1', camPacket('car1')));
    expect(receive).toHaveBeenCalledTimes(1);
    expect(receive.mock.calls[0][0]).toMatchObject({ from: 'car1', type: 'cam', sentAt: 0.5 });
    const receipts = published.filter((p) => p.topic === '/cavsim/v2v').map((p) => p.data);
    expect(receipts).toHaveLength(2);
    expect(receipts[0]).toMatchObject({ kind: 'received', from: 'car1', to: spec.name, malformed: expect.stringMatching(/^cam: /) });
    expect(receipts[1]).not.toHaveProperty('malformed');
    session.finish(0, 'test over');
  });
});
