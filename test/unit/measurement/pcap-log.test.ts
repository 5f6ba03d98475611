import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { BROADCAST_MAC, ethernetFrame, PCAP_EPOCH_UNIX_S, PcapLog } from '../../../src/measurement/pcap-log.js';

const dirs: string[] = [];
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

/** Each record's time [s since the ITS epoch] and its frame's last octet. */
function records(file: string): { t: number; mark: number }[] {
  const buf = readFileSync(file);
  const out: { t: number; mark: number }[] = [];
  for (let at = 24; at < buf.length; ) {
    const length = buf.readUInt32LE(at + 8);
    out.push({ t: buf.readUInt32LE(at) - PCAP_EPOCH_UNIX_S + buf.readUInt32LE(at + 4) / 1e6, mark: buf[at + 16 + length - 1] });
    at += 16 + length;
  }
  return out;
}

describe('PcapLog', () => {
  it('writes the frames of one flush in time order (ties in the order added), flushes after it following on', () => {
    const dir = mkdtempSync(join(tmpdir(), 'cavsim-pcap-'));
    dirs.push(dir);
    const log = new PcapLog(join(dir, 'v2v.pcap'));
    const frame = (mark: number) => ethernetFrame(BROADCAST_MAC, BROADCAST_MAC, 0x8947, new Uint8Array([mark]));
    log.add(0.012, frame(1));
    log.add(0.0105, frame(2));
    log.add(0.012, frame(3));
    log.add(0.011, frame(4));
    log.flush();
    log.add(0.02, frame(5));
    log.add(0.019, frame(6));
    log.close();
    expect(records(join(dir, 'v2v.pcap'))).toEqual([
      { t: 0.0105, mark: 2 },
      { t: 0.011, mark: 4 },
      { t: 0.012, mark: 1 },
      { t: 0.012, mark: 3 },
      { t: 0.019, mark: 6 },
      { t: 0.02, mark: 5 },
    ]);
    expect(log.frames).toBe(6);
  });
});
