import { existsSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { V2VMessage } from '../../../src/core/control/vehicle-context.js';
import { DEFAULT_GEO_REFERENCE } from '../../../src/core/v2x/networking/geo-reference.js';
import { decodeShb } from '../../../src/core/v2x/networking/geonetworking.js';
import { stationIdOf, stationMac } from '../../../src/core/v2x/networking/station-id.js';
import { PCAP_EPOCH_UNIX_S } from '../../../src/measurement/pcap-log.js';
import { BTP_PORT_CAVSIM_JSON, V2VCapture } from '../../../src/measurement/v2v-capture.js';
import { scratchDir } from '../../support/scratch-dir.js';

const own = { t: 2, x: 10, y: 0, yaw: 0, v: 5, steer: 0, yawRate: 0 };
const warning: V2VMessage = { id: 'car0-1', from: 'car0', to: 'car1', sentAt: 2.5, type: 'warning', body: { event: 'hard-braking' } };

/** The records of a pcap file: time [s since the ITS epoch] and frame. */
function records(file: string): { t: number; frame: Buffer }[] {
  const bytes = readFileSync(file);
  expect(bytes.readUInt32LE(0)).toBe(0xa1b2c3d4);
  expect(bytes.readUInt32LE(20)).toBe(1); // Ethernet
  const out = [];
  for (let at = 24; at < bytes.length; ) {
    const length = bytes.readUInt32LE(at + 8);
    out.push({
      t: bytes.readUInt32LE(at) - PCAP_EPOCH_UNIX_S + bytes.readUInt32LE(at + 4) / 1e6,
      frame: bytes.subarray(at + 16, at + 16 + length),
    });
    at += 16 + length;
  }
  return out;
}

describe('v2v.pcap', () => {
  it('writes each message sent as an Ethernet/GeoNetworking frame at its send time; JSON messages padded to their size on BTP-B 47000', () => {
    const file = join(scratchDir('cavsim-pcap-'), 'v2v.pcap');
    const capture = new V2VCapture(file, DEFAULT_GEO_REFERENCE);
    capture.sent(warning, own, 300);
    capture.close();
    const [r] = records(file);
    expect(r.t).toBeCloseTo(2.5, 6);
    expect(r.frame.subarray(0, 6)).toEqual(Buffer.from(stationMac(stationIdOf('car1'))));
    expect(r.frame.subarray(6, 12)).toEqual(Buffer.from(stationMac(stationIdOf('car0'))));
    expect(r.frame.readUInt16BE(12)).toBe(0x8947);
    const packet = decodeShb(r.frame.subarray(14));
    expect(packet.btpPort).toBe(BTP_PORT_CAVSIM_JSON);
    expect(packet.payload).toHaveLength(300);
    expect(packet.source.timestampMs).toBe(2500);
    expect(JSON.parse(Buffer.from(packet.payload).toString('utf8').replace(/\0+$/, ''))).toMatchObject({ id: 'car0-1', type: 'warning' });
  });

  it('makes no file for a run that sent nothing, and writes through no link at its name', () => {
    const dir = scratchDir('cavsim-pcap-');
    new V2VCapture(join(dir, 'v2v.pcap'), DEFAULT_GEO_REFERENCE).close();
    expect(existsSync(join(dir, 'v2v.pcap'))).toBe(false);
    writeFileSync(join(dir, 'elsewhere'), 'keep');
    symlinkSync(join(dir, 'elsewhere'), join(dir, 'linked.pcap'));
    const capture = new V2VCapture(join(dir, 'linked.pcap'), DEFAULT_GEO_REFERENCE);
    capture.sent(warning, own, 0);
    expect(() => capture.flush()).toThrow(/ELOOP/);
    expect(readFileSync(join(dir, 'elsewhere'), 'utf8')).toBe('keep');
  });
});
