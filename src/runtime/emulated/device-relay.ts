import { connect, createServer, type Server, type Socket } from 'node:net';
import { EnvironmentError } from '../../errors.js';
import { connectableWsUrl } from '../../util/connect-address.js';
import type { ExternalDevicePlan } from './plan-emulated.js';

export interface DeviceRelay {
  /** `ws://host:port` the device connects to. */
  readonly url: string;
  close(): void;
}

/**
 * The host's end of an external device's control link: accepts the device's connection at the
 * scenario's `listen` address, only from the device's own address and one at a time, and carries
 * it to the simulator from the gateway's source port that names this car to the simulator's
 * policy. Any other connection is closed at once and logged.
 */
export function startDeviceRelay(
  device: ExternalDevicePlan,
  simulator: { host: string; port: number },
  log: (line: string) => void,
): Promise<DeviceRelay> {
  let active: Socket | undefined;
  const sockets = new Set<Socket>();
  const server: Server = createServer((incoming) => {
    const from = (incoming.remoteAddress ?? '').replace(/^::ffff:/, '');
    const refuse =
      from !== device.from ? `not ${device.vehicle}'s device (${device.from})` : active ? 'the device is already connected' : undefined;
    if (refuse) {
      log(`device relay ${device.vehicle}: refused ${from}:${incoming.remotePort}: ${refuse}`);
      incoming.destroy();
      return;
    }
    active = incoming;
    const upstream = connect({
      host: simulator.host,
      port: simulator.port,
      localAddress: device.relayFrom.host,
      localPort: device.relayFrom.port,
    });
    for (const s of [incoming, upstream]) {
      sockets.add(s);
      s.setNoDelay(true);
      s.on('error', (err) => log(`device relay ${device.vehicle}: ${s === incoming ? 'device' : 'simulator'} side: ${err.message}`));
      s.on('close', () => {
        sockets.delete(s);
        incoming.destroy();
        upstream.destroy();
        if (active === incoming) active = undefined;
      });
    }
    incoming.pipe(upstream);
    upstream.pipe(incoming);
    log(`device relay ${device.vehicle}: ${from}:${incoming.remotePort} connected`);
  });
  return new Promise((resolve, reject) => {
    server.once('error', (err: NodeJS.ErrnoException) => {
      reject(
        new EnvironmentError(
          `vehicles.${device.vehicle}.external.listen: cannot listen on ${device.listen.host}:${device.listen.port} for the device (${err.code ?? err.message})`,
          err.code === 'EADDRNOTAVAIL'
            ? 'use an address of this host that the device reaches (ip -br addr)'
            : 'choose a free port, or stop what holds it',
        ),
      );
    });
    server.listen(device.listen.port, device.listen.host, () => {
      resolve({
        url: connectableWsUrl(device.listen.host, device.listen.port),
        close() {
          server.close();
          for (const s of sockets) s.destroy();
        },
      });
    });
  });
}
