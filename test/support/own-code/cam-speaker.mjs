#!/usr/bin/env node
// A vehicle's own code that speaks ETSI CAMs itself, for the tests of standard messages through
// the control protocol: at 1 Hz (at 0.5 s, 1.5 s, ... of its odometry's stamps) it builds a CAM of its own state with cavsim's codec (dist/) and
// sends it as its GN packet (base64) on /carN/v2v/send; each CAM it receives it reports as an event
// `cam-heard` with the station the packet's own bytes name. With `--forge-as CAR`, its first CAM
// claims CAR's station (the runtime must refuse it). It drives straight at its start speed.
import WebSocket from 'ws';

const dist = new URL('../../../dist/', import.meta.url);
const { encodeCam, decodeCam } = await import(new URL('core/v2x/codec/cam-pdu.js', dist));
const { encodeShb, decodeShb, BTP_PORT_CAM } = await import(new URL('core/v2x/networking/geonetworking.js', dist));
const { camOf, positionVectorOf } = await import(new URL('core/v2x/facilities/vehicle-state.js', dist));
const { stationIdOf } = await import(new URL('core/v2x/networking/station-id.js', dist));

const args = process.argv.slice(2);
const forgeAs = args.includes('--forge-as') ? args[args.indexOf('--forge-as') + 1] : undefined;
const me = process.env.CAVSIM_VEHICLE;
const REF = { lat: 48.7758, lon: 9.1829 };
const ws = await openRetrying(process.env.CAVSIM_SIM_URL, Number(process.env.CAVSIM_CONNECT_TIMEOUT_MS ?? 30000));
const op = (o) => ws.send(JSON.stringify(o));
const publishJson = (topic, data) => op({ op: 'publish', topic, msg: { data: JSON.stringify(data) } });
let sentStep = -1;
let speed;

function cam(odom, t, station) {
  const q = odom.pose.pose.orientation;
  const state = {
    t,
    x: odom.pose.pose.position.x,
    y: odom.pose.pose.position.y,
    yaw: 2 * Math.atan2(q.z, q.w),
    v: odom.twist.twist.linear.x,
    yawRate: odom.twist.twist.angular.z,
    acceleration: 0,
  };
  const facts = { stationId: stationIdOf(station), stationType: 5, length: 0.58, width: 0.31 };
  const packet = encodeShb({
    source: positionVectorOf(state, facts, REF),
    btpPort: BTP_PORT_CAM,
    trafficClass: 2,
    payload: encodeCam(camOf(state, facts, REF, sentStep < 0)),
  });
  return Buffer.from(packet).toString('base64');
}

/** A container may start before the simulator listens (docs/control-protocol.md): retry until the deadline. */
async function openRetrying(url, timeoutMs) {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const socket = new WebSocket(url);
    const opened = await new Promise((resolve, reject) => {
      socket.once('open', () => resolve(true));
      socket.once('error', (err) => (Date.now() < deadline ? resolve(false) : reject(err)));
    });
    if (opened) return socket;
    await new Promise((r) => setTimeout(r, 100));
  }
}

for (const [topic, type] of [
  [`/${me}/drive`, 'ackermann_msgs/msg/AckermannDriveStamped'],
  ['/cavsim/ready', 'std_msgs/msg/String'],
  ['/cavsim/events', 'std_msgs/msg/String'],
  [`/${me}/v2v/send`, 'std_msgs/msg/String'],
])
  op({ op: 'advertise', topic, type });
for (const [topic, type] of [
  [`/${me}/odom`, 'nav_msgs/msg/Odometry'],
  [`/${me}/v2v/received`, 'std_msgs/msg/String'],
])
  op({ op: 'subscribe', topic, type });
publishJson('/cavsim/ready', { vehicle: me });
ws.on('message', (text) => {
  const frame = JSON.parse(String(text));
  if (frame.op !== 'publish') return;
  if (frame.topic === `/${me}/v2v/received`) {
    const m = JSON.parse(frame.msg.data);
    if (m.type !== 'cam' || !m.packet) return;
    const decoded = decodeCam(decodeShb(new Uint8Array(Buffer.from(m.packet, 'base64'))).payload);
    return publishJson('/cavsim/events', {
      vehicle: me,
      t_s: m.received_s,
      event: 'cam-heard',
      detail: { from: m.from, station: decoded.stationId, body_station: m.body?.stationId, bytes: Buffer.from(m.packet, 'base64').length },
    });
  }
  if (frame.topic !== `/${me}/odom`) return;
  const odom = frame.msg;
  const t = (odom.header.stamp.sec * 1e9 + odom.header.stamp.nanosec) / 1e9;
  speed ??= odom.twist.twist.linear.x;
  const step = Math.round(t * 100);
  if (step % 100 === 50 && step > sentStep) {
    publishJson(`/${me}/v2v/send`, { to: '*', type: 'cam', packet: cam(odom, t, sentStep < 0 && forgeAs ? forgeAs : me) });
    sentStep = step;
  }
  op({ op: 'publish', topic: `/${me}/drive`, msg: { header: odom.header, drive: { speed, steering_angle: 0 } } });
});
