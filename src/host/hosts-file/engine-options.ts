import { readFileSync } from 'node:fs';
import type { HostEntry } from './load-hosts-file.js';

/** What dockerode needs to reach a host's engine (a subset of its DockerOptions, without importing it). */
export interface EngineOptions {
  protocol?: 'https' | 'ssh';
  host?: string;
  port?: number;
  socketPath?: string;
  username?: string;
  ca?: Buffer;
  cert?: Buffer;
  key?: Buffer;
}

/** The connection options for `connectDocker` of one host of a checked hosts file (reads its TLS files). */
export function engineOptions(host: HostEntry): EngineOptions {
  const e = host.engine;
  if (e.scheme === 'unix') return { socketPath: e.socketPath };
  if (e.scheme === 'ssh') return { protocol: 'ssh', host: e.host, port: e.port, ...(e.user && { username: e.user }) };
  const tls = host.tls;
  return {
    protocol: 'https',
    host: e.host,
    port: e.port,
    ...(tls && { ca: readFileSync(tls.ca), cert: readFileSync(tls.cert), key: readFileSync(tls.key) }),
  };
}
