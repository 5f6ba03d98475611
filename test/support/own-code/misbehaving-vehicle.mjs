#!/usr/bin/env node
// A vehicle's own code that goes wrong on purpose, for the tests of the simulated runtime's tick
// barrier: it connects and says ready like any vehicle, answers ticks until `--from-tick N`, then
// `--hang` (stops answering, stays connected) or `--crash STATUS` (exits with that status).
// `--ready-after MS` holds the connection that long before saying ready (an external device that
// keeps its car's link while another tries to take it).
import WebSocket from 'ws';

const args = process.argv.slice(2);
const opt = (name, fallback) => (args.includes(name) ? args[args.indexOf(name) + 1] : fallback);
const fromTick = Number(opt('--from-tick', '0'));
const crash = opt('--crash', undefined);
const readyAfterMs = Number(opt('--ready-after', '0'));
const me = process.env.CAVSIM_VEHICLE;
const ws = new WebSocket(process.env.CAVSIM_SIM_URL);
const op = (o) => ws.send(JSON.stringify(o));
let ticks = 0;
ws.on('open', () => {
  op({ op: 'advertise', topic: `/${me}/drive`, type: 'ackermann_msgs/msg/AckermannDriveStamped' });
  op({ op: 'advertise', topic: '/cavsim/ready', type: 'std_msgs/msg/String' });
  op({ op: 'subscribe', topic: `/${me}/odom`, type: 'nav_msgs/msg/Odometry' });
  setTimeout(() => op({ op: 'publish', topic: '/cavsim/ready', msg: { data: JSON.stringify({ vehicle: me }) } }), readyAfterMs);
});
ws.on('message', (text) => {
  const frame = JSON.parse(String(text));
  if (frame.op !== 'publish' || frame.topic !== `/${me}/odom`) return;
  if (ticks++ >= fromTick) {
    if (crash !== undefined) {
      process.stderr.write(`misbehaving vehicle ${me}: crashing on purpose at tick ${ticks - 1}\n`);
      process.exit(Number(crash));
    }
    return; // hang: connected, silent
  }
  op({ op: 'publish', topic: `/${me}/drive`, msg: { header: frame.msg.header, drive: { speed: 1, steering_angle: 0 } } });
});
