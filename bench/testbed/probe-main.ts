#!/usr/bin/env node
/**
 * Stand-in vehicle for tests and benches, run inside a vehicle's network namespace:
 *   node probe-main.js --name a --bind 10.210.7.1 [--port 7400] --peers b=10.210.7.2,c=10.210.7.3[:port] \
 *     --count 20 --rate 5 [--start-at-ms <epoch ms> | --start-from-stdin] --linger-ms 2000 --csv v2v-a.csv
 * Sends `count` messages at `rate` per second to every peer, logs every arrival to the CSV and
 * prints one JSON line of sent (id, to) pairs on exit. Prints PROBE-READY once bound; with
 * --start-from-stdin it then reads the start time (epoch ms) as one line from stdin, so several
 * probes in different namespaces can start together.
 */
import { createInterface } from 'node:readline';
import { parseArgs } from 'node:util';
import { ReceiptCsv, toReceipt } from '../../src/measurement/receipt-log.js';
import { V2VEndpoint } from '../../src/runtime/emulated/v2v/transport.js';
import { V2V_PORT } from '../../src/runtime/emulated/v2v/wire.js';

const { values } = parseArgs({
  options: {
    name: { type: 'string' },
    bind: { type: 'string' },
    port: { type: 'string', default: String(V2V_PORT) },
    peers: { type: 'string', default: '' },
    count: { type: 'string', default: '0' },
    rate: { type: 'string', default: '1' },
    'start-at-ms': { type: 'string' },
    'start-from-stdin': { type: 'boolean', default: false },
    'linger-ms': { type: 'string', default: '1000' },
    csv: { type: 'string' },
    'size-bytes': { type: 'string', default: '0' },
  },
});

async function main() {
  if (!values.name || !values.bind || !values.csv) throw new Error('--name, --bind and --csv are required');
  const name = values.name;
  const peers = values.peers
    .split(',')
    .filter(Boolean)
    .map((p) => {
      const [peer, target] = p.split('=');
      const [address, port] = target.split(':');
      return { peer, address, port: port ? Number(port) : V2V_PORT };
    });
  const count = Number(values.count);
  const intervalMs = 1000 / Number(values.rate);
  const csv = new ReceiptCsv(values.csv);
  const endpoint = await V2VEndpoint.open({
    name,
    bindAddress: values.bind,
    port: Number(values.port),
    onArrival: (a) => csv.append(toReceipt(a.datagram, BigInt(a.datagram.sentAtNs), a.receivedNs, a.size)),
  });
  console.log('PROBE-READY');
  const startAt = values['start-from-stdin']
    ? Number(await firstStdinLine())
    : values['start-at-ms']
      ? Number(values['start-at-ms'])
      : Date.now();
  await sleep(Math.max(0, startAt - Date.now()));
  const sent: Array<{ id: string; to: string }> = [];
  const padding = 'x'.repeat(Number(values['size-bytes']));
  for (let seq = 0; seq < count; seq++) {
    for (const { peer, address, port } of peers) {
      const id = `${name}-${seq}`;
      // A refused send (e.g. EPERM from an anti-cheat rule) is a lost message, not a crash.
      sent.push({ id, to: peer });
      await endpoint
        .send({ id, to: peer, address, port, type: 'probe', body: padding ? { seq, padding } : { seq } })
        .catch((err: Error) => {
          console.error(`send ${id} to ${peer} failed: ${err.message}`);
        });
    }
    await sleep(startAt + (seq + 1) * intervalMs - Date.now());
  }
  await sleep(Number(values['linger-ms']));
  await endpoint.close();
  csv.close();
  console.log(JSON.stringify({ sent }));
}

async function firstStdinLine(): Promise<string> {
  for await (const line of createInterface({ input: process.stdin })) return line;
  throw new Error('stdin closed before a start time arrived');
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, Math.max(0, ms)));

main().catch((err) => {
  console.error(err instanceof Error ? err.message : err);
  process.exit(1);
});
