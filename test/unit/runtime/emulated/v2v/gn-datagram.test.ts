import { createSocket } from 'node:dgram';
import { describe, expect, it } from 'vitest';
import type { V2VMessage, VehicleApp } from '../../../../../src/core/control/vehicle-context.js';
import { camState } from '../../../../../src/core/v2x/apps/neighbour-table.js';
import { createWarning } from '../../../../../src/core/v2x/apps/warning.js';
import { createCam } from '../../../../../src/core/v2x/facilities/ca-service.js';
import { denmOf } from '../../../../../src/core/v2x/facilities/den-service.js';
import { DEFAULT_GEO_REFERENCE } from '../../../../../src/core/v2x/networking/geo-reference.js';
import { stationIdOf } from '../../../../../src/core/v2x/networking/station-id.js';
import { bodyOfPacket } from '../../../../../src/runtime/emulated/v2v/packet-body.js';
import { type Arrival, type ForgedArrival, V2VEndpoint } from '../../../../../src/runtime/emulated/v2v/transport.js';
import { decodeDatagram, encodeDatagram, messageBytes, padTo } from '../../../../../src/runtime/emulated/v2v/wire.js';
import { VehicleAgent } from '../../../../../src/world/vehicle-agent.js';

const ref = DEFAULT_GEO_REFERENCE;
const station = (name: string) => ({ stationId: stationIdOf(name), stationType: 5, length: 0.58, width: 0.31 });

/** The first message an app sends, ticked at 10 ms steps on a car driving east at 10 m/s. */
function firstMessage(name: string, app: VehicleApp): V2VMessage {
  let t = 0;
  const sent: V2VMessage[] = [];
  const agent = new VehicleAgent(
    name,
    [app],
    {
      now: () => t,
      own: () => ({ t, x: 10 * t, y: -1, yaw: 0, v: 10, steer: 0, yawRate: 0 }),
      others: () => new Map(),
      scan: () => undefined,
      publishDrive: () => {},
      transmit: (m) => sent.push(m),
      log: () => {},
    },
    ref,
  );
  for (let step = 0; !sent.length && step < 200; step++) {
    t = step * 0.01;
    agent.tick();
  }
  expect(sent[0]?.packet).toBeInstanceOf(Uint8Array);
  return sent[0];
}

const cam = (name: string) =>
  firstMessage(name, createCam(name, { minInterval: 0.1, maxInterval: 1, nGenCam: 3, lowFrequencyInterval: 0.5 }, station(name), ref));
const denm = (name: string) =>
  firstMessage(
    name,
    createWarning(
      { at: 0, every: 0.1, for: 1, to: '*', event: 'hard-braking', format: 'denm' },
      { station: station(name), geoReference: ref },
    ),
  );

describe('the GN datagram (wire.ts)', () => {
  it("carries a CAM's and a DENM's packet byte for byte after a JSON header line with the id the channel program looks for", () => {
    for (const msg of [cam('car1'), denm('car1')]) {
      const wire = encodeDatagram({
        id: msg.id,
        from: 'car1',
        to: '*',
        type: msg.type,
        sentAtNs: '1795768736674103925',
        body: msg.body,
        packet: msg.packet,
      });
      const newline = wire.indexOf(0x0a);
      expect(wire.subarray(0, newline).toString()).toBe(
        `{"id":"${msg.id}","from":"car1","to":"*","type":"${msg.type}","sentAtNs":"1795768736674103925","gn":${msg.packet!.length}}`,
      );
      expect(Buffer.compare(wire.subarray(newline + 1), Buffer.from(msg.packet!))).toBe(0);
      const back = decodeDatagram(wire)!;
      expect(back).toMatchObject({ id: msg.id, from: 'car1', to: '*', type: msg.type, sentAtNs: '1795768736674103925', body: {} });
      expect(Array.from(back.packet!)).toEqual(Array.from(msg.packet!));
      expect(messageBytes(back, wire.length)).toBe(msg.packet!.length);
    }
  });

  it("keeps JSON datagrams as they were, pretty-printed ones too, and takes a GN datagram whose packet length is not its header's for stray traffic", () => {
    const json = { id: 'car2-1', from: 'car2', to: '*', type: 'beacon', sentAtNs: '5', body: { x: 1 } };
    const plain = padTo(encodeDatagram(json), 300);
    expect(plain.length).toBe(300);
    expect(decodeDatagram(plain)).toEqual(json);
    expect(messageBytes(decodeDatagram(plain)!, plain.length)).toBe(300);
    expect(decodeDatagram(Buffer.from(JSON.stringify(json, null, 2)))).toEqual(json);
    const msg = cam('car1');
    const wire = encodeDatagram({ ...json, type: 'cam', packet: msg.packet });
    expect(decodeDatagram(wire.subarray(0, wire.length - 1))).toBeUndefined();
    expect(decodeDatagram(Buffer.concat([wire, Buffer.from([0])]))).toBeUndefined();
  });

  it('ignores datagrams with a field missing, mistyped, out of bounds or (in a GN header) unknown', () => {
    const json = { id: 'car2-1', from: 'car2', to: '*', type: 'beacon', sentAtNs: '5', body: { x: 1 } };
    const bad = [
      { ...json, id: '' },
      { ...json, from: 7 },
      { ...json, sentAtNs: '-5' },
      { ...json, body: [1] },
      { ...json, type: 'x'.repeat(65) },
      [json],
      'text',
    ];
    for (const d of bad) expect(decodeDatagram(Buffer.from(JSON.stringify(d)))).toBeUndefined();
    expect(decodeDatagram(Buffer.from(JSON.stringify({ ...json, extra: 1 })))).toEqual(json);
    const packet = Buffer.from([1, 2, 3]);
    const header = (h: object) => Buffer.concat([Buffer.from(`${JSON.stringify(h)}\n`), packet]);
    const { body: _, ...identity } = json;
    expect(decodeDatagram(header({ ...identity, gn: 3 }))?.packet).toEqual(new Uint8Array(packet));
    expect(decodeDatagram(header({ ...identity, gn: 3, body: {} }))).toBeUndefined();
    expect(decodeDatagram(header({ ...identity, gn: 2.5 }))).toBeUndefined();
  });

  it('hands own code (JSON only) the decoded CAM and DENM', () => {
    const c = cam('car1');
    expect(bodyOfPacket('cam', c.packet!)).toMatchObject({
      stationId: stationIdOf('car1'),
      stationType: 5,
      highFrequency: { speedValue: 1000, headingValue: 900 },
    });
    const d = denm('car1');
    expect(bodyOfPacket('denm', d.packet!)).toMatchObject({
      denm: {
        management: { actionId: { originatingStationId: stationIdOf('car1') } },
        situation: { eventType: { causeCode: 99, subCauseCode: 1 } },
      },
      area: { radius: 200 },
    });
    expect(bodyOfPacket('cam', new Uint8Array([1, 2, 3]))).toEqual({});
  });
});

const sendRaw = (source: string, port: number, bytes: Buffer) =>
  new Promise<void>((resolve, reject) => {
    const s = createSocket('udp4');
    s.bind(0, source, () => s.send(bytes, port, '127.0.0.1', (err) => (s.close(), err ? reject(err) : resolve())));
  });

describe('V2V endpoint with GN datagrams', () => {
  it("sends a packet as itself, sized as the packet; the receiver decodes it as the simulated runtime's apps do", async () => {
    const arrivals: Arrival[] = [];
    const rx = await V2VEndpoint.open({ name: 'car2', bindAddress: '127.0.0.1', port: 0, onArrival: (a) => arrivals.push(a) });
    const tx = await V2VEndpoint.open({ name: 'car1', bindAddress: '127.0.0.1', port: 0, onArrival: () => {} });
    try {
      const c = cam('car1');
      const d = denm('car1');
      const sentCam = await tx.sendStamped({
        id: 'car1-1',
        to: '*',
        address: '127.0.0.1',
        port: rx.localPort,
        type: 'cam',
        body: c.body,
        packet: c.packet,
        sizeBytes: 500,
      });
      expect(sentCam.size).toBe(c.packet!.length);
      expect(
        await tx.send({ id: 'car1-2', to: '*', address: '127.0.0.1', port: rx.localPort, type: 'denm', body: d.body, packet: d.packet }),
      ).toBe(d.packet!.length);
      await expect.poll(() => arrivals.length).toBe(2);
      expect(arrivals.map((a) => a.size)).toEqual([c.packet!.length, d.packet!.length]);
      expect(arrivals[0].datagram.sentAtNs).toBe(sentCam.sentAtNs.toString());
      const asMessage = (a: Arrival): V2VMessage => ({
        id: a.datagram.id,
        from: a.datagram.from,
        to: a.datagram.to,
        type: a.datagram.type,
        sentAt: 0,
        body: a.datagram.body,
        packet: a.datagram.packet,
      });
      expect(camState(asMessage(arrivals[0]), ref, 1)).toEqual(camState(c, ref, 1));
      expect(camState(asMessage(arrivals[0]), ref, 1)?.state.v).toBeCloseTo(10, 1);
      expect(denmOf(asMessage(arrivals[1]))).toEqual(denmOf(d));
    } finally {
      await Promise.all([rx.close(), tx.close()]);
    }
  });

  it('a GN packet from another station than the peer it came from is dropped and reported, as a datagram naming another car is', async () => {
    const arrivals: Arrival[] = [];
    const forged: ForgedArrival[] = [];
    const rx = await V2VEndpoint.open({
      name: 'me',
      bindAddress: '127.0.0.1',
      port: 0,
      acceptFrom: new Set(['127.0.0.9']),
      peerNames: new Map([['127.0.0.9', 'car1']]),
      onForged: (f) => forged.push(f),
      onArrival: (a) => arrivals.push(a),
    });
    try {
      const mine = cam('car1');
      const car7s = cam('car7');
      const wire = (id: string, from: string, msg: V2VMessage) =>
        encodeDatagram({ id, from, to: '*', type: 'cam', sentAtNs: '1', body: {}, packet: msg.packet });
      await sendRaw('127.0.0.9', rx.localPort, wire('honest', 'car1', mine));
      await sendRaw('127.0.0.9', rx.localPort, wire('car7-packet', 'car1', car7s));
      await sendRaw('127.0.0.9', rx.localPort, wire('as-car7', 'car7', car7s));
      await new Promise((r) => setTimeout(r, 100));
      expect(arrivals.map((a) => a.datagram.id)).toEqual(['honest']);
      expect(forged).toEqual([
        { claimed: `station ${stationIdOf('car7')}`, sender: 'car1', id: 'car7-packet' },
        { claimed: 'car7', sender: 'car1', id: 'as-car7' },
      ]);
    } finally {
      await rx.close();
    }
  });
});
