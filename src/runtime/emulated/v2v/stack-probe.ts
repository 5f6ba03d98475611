/** What the host tells the stack-share probe (containers/stack-probe-main.ts) and what it answers. */
export interface ProbeConfig {
  name: string;
  bind: string;
  port: number;
  peer: { name: string; address: string };
  count: number;
  intervalMs: number;
  /** Epoch milliseconds of the first send: both probes bind well before either sends. */
  startAtMs: number;
  sizeBytes: number;
  /** How long to wait for the peer's last datagrams after the own last send. */
  lingerMs: number;
}

export interface ProbeReport {
  sent: number;
  /** The peer's datagrams received: their sequence number and one-way latency [ms]. */
  received: { seq: number; latency_ms: number }[];
}

export const STACK_PROBE_TYPE = 'stack-probe';
