import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { readLinkBytes } from '../../../../src/host/network/link-bytes.js';

describe('readLinkBytes', () => {
  it("reads an interface's rx/tx byte counters from sysfs, and undefined for one that is gone", () => {
    const sysfs = mkdtempSync(join(tmpdir(), 'sysfs-'));
    try {
      mkdirSync(join(sysfs, 'eth9/statistics'), { recursive: true });
      writeFileSync(join(sysfs, 'eth9/statistics/rx_bytes'), '1234\n');
      writeFileSync(join(sysfs, 'eth9/statistics/tx_bytes'), '98765\n');
      expect(readLinkBytes('eth9', sysfs)).toEqual({ rx: 1234, tx: 98765 });
      expect(readLinkBytes('nope0', sysfs)).toBeUndefined();
    } finally {
      rmSync(sysfs, { recursive: true, force: true });
    }
  });

  it("reads this host's loopback counters", () => {
    const lo = readLinkBytes('lo');
    expect(lo?.rx).toBeGreaterThanOrEqual(0);
    expect(lo?.tx).toBeGreaterThanOrEqual(0);
  });
});
