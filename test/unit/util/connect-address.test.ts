import type { NetworkInterfaceInfo } from 'node:os';
import { describe, expect, it } from 'vitest';
import { connectableWsUrl } from '../../../src/util/connect-address.js';

const iface = (address: string, internal: boolean, family: 'IPv4' | 'IPv6' = 'IPv4'): NetworkInterfaceInfo =>
  family === 'IPv4'
    ? { address, internal, family, netmask: '', mac: '', cidr: null }
    : { address, internal, family, netmask: '', mac: '', cidr: null, scopeid: 0 };

describe('the ws:// address printed to connect to', () => {
  it('is the listening address itself when it is one', () => {
    expect(connectableWsUrl('127.0.0.1', 8765)).toBe('ws://127.0.0.1:8765');
    expect(connectableWsUrl('10.213.0.1', 9000)).toBe('ws://10.213.0.1:9000');
  });

  it("for 0.0.0.0 (no address to connect to) is this host's external IPv4 address, else loopback", () => {
    const interfaces = () => ({ lo: [iface('127.0.0.1', true)], eth0: [iface('fe80::1', false, 'IPv6'), iface('192.168.1.5', false)] });
    expect(connectableWsUrl('0.0.0.0', 8765, interfaces)).toBe('ws://192.168.1.5:8765');
    expect(connectableWsUrl('0.0.0.0', 8765, () => ({ lo: [iface('127.0.0.1', true)] }))).toBe('ws://127.0.0.1:8765');
    expect(connectableWsUrl('0.0.0.0', 8765)).not.toContain('0.0.0.0');
  });
});
