#!/usr/bin/env node
/**
 * The stack-share probe (docs/hostnet.md, "The stack share and its calibration"): run by the host with `docker exec` in the container
 * that owns a car's V2V socket, before the run starts. It opens a V2V endpoint (the vehicles' own
 * receive path) on the probe port of the car's channel address, sends `count` stamped datagrams of
 * `sizeBytes` to its peer from `startAtMs` on, every `intervalMs`, and prints one JSON line: the
 * one-way latencies [ms] of the peer's datagrams it received, in order, and how many it sent.
 * argv[2]: the ProbeConfig as JSON.
 */
import { type ProbeConfig, type ProbeReport, STACK_PROBE_TYPE } from '../v2v/stack-probe.js';
import { V2VEndpoint } from '../v2v/transport.js';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, Math.max(0, ms)));

async function main(): Promise<void> {
  const cfg = JSON.parse(process.argv[2] ?? '{}') as ProbeConfig;
  const received: ProbeReport['received'] = [];
  let peerDone = () => {};
  const peerFinished = new Promise<void>((resolve) => {
    peerDone = resolve;
  });
  const endpoint = await V2VEndpoint.open({
    name: cfg.name,
    bindAddress: cfg.bind,
    port: cfg.port,
    acceptFrom: new Set([cfg.peer.address]),
    peerNames: new Map([[cfg.peer.address, cfg.peer.name]]),
    onArrival: (a) => {
      if (a.datagram.type !== STACK_PROBE_TYPE) return;
      const seq = Number(a.datagram.id.slice(a.datagram.id.lastIndexOf('-') + 1));
      received.push({ seq, latency_ms: Number(a.receivedNs - BigInt(a.datagram.sentAtNs)) / 1e6 });
      if (seq === cfg.count - 1) peerDone();
    },
  });
  await endpoint.warmUp();
  await endpoint.connect([{ address: cfg.peer.address, port: cfg.port }]);
  let sent = 0;
  // started late: begin now, rather than send the overdue datagrams back to back
  const startAtMs = Math.max(cfg.startAtMs, Date.now());
  for (let seq = 0; seq < cfg.count; seq++) {
    await sleep(startAtMs + seq * cfg.intervalMs - Date.now());
    await endpoint
      .send({
        id: `${cfg.name}-probe-${seq}`,
        to: cfg.peer.name,
        address: cfg.peer.address,
        port: cfg.port,
        type: STACK_PROBE_TYPE,
        body: {},
        sizeBytes: cfg.sizeBytes,
      })
      .then(
        () => sent++,
        () => {}, // the peer not bound yet: an ICMP error on a warm-up send
      );
  }
  // until the peer's last datagram, or the linger when it was lost (a timer that keeps the process alive no longer)
  await Promise.race([new Promise((r) => setTimeout(r, cfg.lingerMs).unref()), peerFinished]);
  await endpoint.close();
  process.stdout.write(`${JSON.stringify({ sent, received } satisfies ProbeReport)}\n`);
}

main().catch((err: unknown) => {
  process.stderr.write(`stack probe: ${err instanceof Error ? err.message : String(err)}\n`);
  process.exitCode = 1;
});
