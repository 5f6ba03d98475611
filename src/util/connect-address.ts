import { type NetworkInterfaceInfo, networkInterfaces } from 'node:os';

type Interfaces = NodeJS.Dict<NetworkInterfaceInfo[]>;

const WILDCARDS = new Set(['0.0.0.0', '::', '']);

/**
 * The ws:// address a client connects to for a server listening on `host`: the address itself, or
 * for a wildcard (0.0.0.0, which is no address to connect to) this host's first external IPv4
 * address (reachable from this host and from others alike), else loopback.
 */
export function connectableWsUrl(host: string, port: number, interfaces: () => Interfaces = networkInterfaces): string {
  if (!WILDCARDS.has(host)) return `ws://${host.includes(':') ? `[${host}]` : host}:${port}`;
  const external = Object.values(interfaces())
    .flatMap((list) => list ?? [])
    .find((i) => i.family === 'IPv4' && !i.internal)?.address;
  return `ws://${external ?? '127.0.0.1'}:${port}`;
}
