import { createSocket } from 'node:dgram';
import type { ControlLink } from './emulated-deps.js';

/**
 * Feeds a radio channel in the host's ns-3 process with the cars' motion: every odometry the
 * simulator publishes becomes one datagram "P <node> <x> <y> <vx> <vy>" to the program's
 * 127.0.0.1 port (ns3-scripts/lib/position-feed.h). Returns its closer.
 */
export function relayPositions(link: Pick<ControlLink, 'onOdometry'>, cars: readonly string[], port: number): () => void {
  const socket = createSocket('udp4');
  socket.on('error', () => {}); // a channel that is gone is reported by its own watch
  cars.forEach((car, node) =>
    link.onOdometry(car, (o) => {
      const line = `P ${node} ${o.x} ${o.y} ${o.v * Math.cos(o.yaw)} ${o.v * Math.sin(o.yaw)}`;
      socket.send(line, port, '127.0.0.1');
    }),
  );
  return () => socket.close();
}
