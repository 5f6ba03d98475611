import { readFileSync } from 'node:fs';

/** Bytes an interface of this host has received and sent since it came up, from sysfs. */
export interface LinkBytes {
  rx: number;
  tx: number;
}

/** Reads `/sys/class/net/<name>/statistics`; undefined when the interface is gone (or has no counters). */
export function readLinkBytes(name: string, sysfs = '/sys/class/net'): LinkBytes | undefined {
  try {
    const read = (counter: string) => Number(readFileSync(`${sysfs}/${name}/statistics/${counter}`, 'utf8').trim());
    const rx = read('rx_bytes');
    const tx = read('tx_bytes');
    return Number.isFinite(rx) && Number.isFinite(tx) ? { rx, tx } : undefined;
  } catch {
    return undefined;
  }
}
