#!/usr/bin/env node
// A hostile vehicle program, for the fuzz tests of what the simulated runtime refuses (issue 52):
// as a car's own code (CAVSIM_SIM_URL) or as an external device (`--url`, retrying until the run
// listens). It answers every tick so the run goes on, and meanwhile, at fixed ticks, sends what a
// run must refuse, record and never count: malformed CAMs behind a correct GN header from its own
// station (garbage UPER, out-of-range fields, a 63-point path history, wrong lengths, trailing
// octets, a CAM without its packet, a CAM sent as a DENM, an unknown BTP port), well-formed CAMs
// to itself and to cars that do not exist, drive commands stamped in the future or with stamps
// that are no time, a speed of 1e308, another car's /drive, /sim_control, bad JSON and a flood.
// With `--honest` it does the same ticks with none of that: one well-formed CAM where the hostile
// run sends a malformed one, and the clamped values where it sends 1e308 (the control run).
import WebSocket from 'ws';

const args = process.argv.slice(2);
const opt = (name, fallback) => (args.includes(name) ? args[args.indexOf(name) + 1] : fallback);
const honest = args.includes('--honest');
const me = opt('--vehicle', process.env.CAVSIM_VEHICLE);
const url = opt('--url', process.env.CAVSIM_SIM_URL);
const other = opt('--other', 'car0');
const flood = Number(opt('--flood', '2000'));
// the default body's limits (src/core/physics/defaults.ts): what 1e308 and 1e3 are clamped to
const V_MAX = 20.0;
const S_MAX = 0.4189;

const dist = new URL('../../../dist/', import.meta.url);
const { encodeCam } = await import(new URL('core/v2x/codec/cam-pdu.js', dist));
const { encodeShb, BTP_PORT_CAM } = await import(new URL('core/v2x/networking/geonetworking.js', dist));
const { camOf, positionVectorOf } = await import(new URL('core/v2x/facilities/vehicle-state.js', dist));
const { stationIdOf } = await import(new URL('core/v2x/networking/station-id.js', dist));
const REF = { lat: 48.7758, lon: 9.1829 };
const GN_BTP = 44;

function camPacket(odom, t, lowFrequency = false) {
  const q = odom.pose.pose.orientation;
  const state = {
    t,
    x: odom.pose.pose.position.x,
    y: odom.pose.pose.position.y,
    yaw: 2 * Math.atan2(q.z, q.w),
    v: Math.max(0, odom.twist.twist.linear.x),
    yawRate: odom.twist.twist.angular.z,
    acceleration: 0,
  };
  const facts = { stationId: stationIdOf(me), stationType: 5, length: 0.58, width: 0.31 };
  const cam = camOf(state, facts, REF, lowFrequency);
  return {
    cam,
    facts,
    state,
    packet: encodeShb({ source: positionVectorOf(state, facts, REF), btpPort: BTP_PORT_CAM, trafficClass: 2, payload: encodeCam(cam) }),
  };
}

/** A GN packet with `payload` behind `good`'s header, its length field fixed to match (or `claimed`). */
function withPayload(good, payload, claimed) {
  const out = new Uint8Array(GN_BTP + payload.length);
  out.set(good.subarray(0, GN_BTP));
  out.set(payload, GN_BTP);
  new DataView(out.buffer).setUint16(8, claimed ?? payload.length + 4);
  return out;
}

/** Sets `count` bits at bit `at` of a copy of `bytes` to `value`. */
function setBits(bytes, at, count, value) {
  const out = Uint8Array.from(bytes);
  for (let i = 0; i < count; i++) {
    const bit = (value >> (count - 1 - i)) & 1;
    const p = at + i;
    out[p >> 3] = (out[p >> 3] & ~(0x80 >> (p & 7))) | (bit << (7 - (p & 7)));
  }
  return out;
}

// bit offsets in a CAM's UPER (cam-pdu.ts): headingValue (12 bits, 0..3601), and the path history's
// size (6 bits, 0..40) after the high-frequency container and vehicleRole and exteriorLights
const HEADING_AT = 208;
const PATH_SIZE_AT = 208 + 12 + 7 + 14 + 7 + 2 + 10 + 3 + 6 + 9 + 7 + 11 + 3 + 1 + 2 + 16 + 4 + 1 + 4 + 8;

/** The malformed variants, each sent as a `cam` unless it says otherwise: `[name, request]`. */
function malformed(n, odom, t) {
  const good = camPacket(odom, t).packet;
  const payload = good.subarray(GN_BTP);
  const b64 = (p) => Buffer.from(p).toString('base64');
  const garbage = Uint8Array.from(payload, (_, i) => (i * 73 + n * 31 + 5) & 0xff);
  const variants = [
    ['garbage-uper', { packet: b64(withPayload(good, garbage)) }],
    ['heading-out-of-range', { packet: b64(withPayload(good, setBits(payload, HEADING_AT, 12, 4095))) }],
    ['path-history-63', { packet: b64(withPayload(good, setBits(camPacket(odom, t, true).packet.subarray(GN_BTP), PATH_SIZE_AT, 6, 63))) }],
    ['huge-claimed-length', { packet: b64(withPayload(good, payload, 65535)) }],
    ['truncated', { packet: b64(withPayload(good, payload.subarray(0, payload.length - 3))) }],
    ['trailing-octets', { packet: b64(withPayload(good, Uint8Array.from([...payload, 0, 0]))) }],
    ['no-packet', { body: { stationId: 1, speed: 1e308 } }],
    ['cam-as-denm', { type: 'denm', packet: b64(good) }],
    ['unknown-btp-port', { packet: b64(setBits(good, 40 * 8, 16, 9999)) }],
  ];
  return variants[n % variants.length];
}

let ws;
let ticks = 0;
const op = (o) => ws.send(JSON.stringify(o));
const publishJson = (topic, data) => op({ op: 'publish', topic, msg: { data: JSON.stringify(data) } });
const send = (request) => publishJson(`/${me}/v2v/send`, { to: '*', type: 'cam', ...request });
const drive = (header, speed, steer = 0) =>
  op({ op: 'publish', topic: `/${me}/drive`, msg: { header, drive: { speed, steering_angle: steer } } });

function onTick(odom) {
  const n = ticks++;
  const stamp = odom.header.stamp;
  const t = stamp.sec + stamp.nanosec / 1e9;
  const speed = Number(opt('--speed', '2'));
  if (n > 0 && n % 5 === 0) {
    if (honest) send({ packet: Buffer.from(camPacket(odom, t).packet).toString('base64') });
    else send(malformed(n / 5 - 1, odom, t)[1]);
  }
  if (!honest && n === 3) send({ to: me, packet: Buffer.from(camPacket(odom, t).packet).toString('base64') });
  if (!honest && n === 4)
    for (const to of ['car9', `${other} ${me}`, '\u0000']) send({ to, packet: Buffer.from(camPacket(odom, t).packet).toString('base64') });
  if (!honest && n === 6) {
    for (const sec of [2 ** 53 + 1, 1e12]) drive({ stamp: { sec, nanosec: 0 }, frame_id: me }, 30);
    for (const s of ['yesterday', null]) drive({ stamp: s, frame_id: me }, 30);
    drive({ stamp: { sec: stamp.sec, nanosec: stamp.nanosec + 0.5 }, frame_id: me }, 30);
  }
  if (!honest && n === 8) {
    publishJson('/sim_control', { cmd: 'stop', reason: 'hostile' });
    op({ op: 'publish', topic: `/${other}/drive`, msg: { header: odom.header, drive: { speed: 0, steering_angle: 0 } } });
    op({ op: 'subscribe', topic: `/${other}/v2v/received`, type: 'std_msgs/msg/String' });
    ws.send('{"op": "publish", "topic": ');
    ws.send(Buffer.from([1, 2, 3]), { binary: true });
    publishJson(`/${me}/v2v/send`, { to: '*', size_bytes: 1e9 });
    // a receipt of a frame that never crossed the channel: in emulation only its relay reports its V2V
    const now = BigInt(stamp.sec) * 1_000_000_000n + BigInt(stamp.nanosec);
    publishJson('/cavsim/v2v', {
      kind: 'received',
      id: `${other}-forged`,
      from: other,
      to: me,
      type: 'cam',
      sent_ns: String(now),
      received_ns: String(now + 1_000_000n),
      size_bytes: 200,
    });
  }
  if (!honest && n === 9) for (let i = 0; i < flood; i++) ws.send(`flood ${i}`);
  // the tick's answer: at tick 7 outside the car's limits (the honest run sends the limits themselves)
  if (n === 7) drive(odom.header, honest ? V_MAX : 1e308, honest ? S_MAX : 1e3);
  else drive(odom.header, speed);
}

function connect() {
  ws = new WebSocket(url);
  ws.on('error', () => {});
  ws.on('close', () => {
    if (ticks === 0) setTimeout(connect, 100);
    else process.exit(0);
  });
  ws.on('open', () => {
    for (const [topic, type] of [
      [`/${me}/drive`, 'ackermann_msgs/msg/AckermannDriveStamped'],
      ['/cavsim/ready', 'std_msgs/msg/String'],
      [`/${me}/v2v/send`, 'std_msgs/msg/String'],
    ])
      op({ op: 'advertise', topic, type });
    if (!honest) op({ op: 'advertise', topic: '/sim_control', type: 'std_msgs/msg/String' });
    op({ op: 'subscribe', topic: `/${me}/odom`, type: 'nav_msgs/msg/Odometry' });
    op({ op: 'subscribe', topic: '/sim_control', type: 'std_msgs/msg/String' });
    publishJson('/cavsim/ready', { vehicle: me });
  });
  ws.on('message', (text) => {
    const frame = JSON.parse(String(text));
    if (frame.op === 'publish' && frame.topic === '/sim_control' && JSON.parse(frame.msg.data).cmd === 'stop') return ws.close();
    if (frame.op === 'publish' && frame.topic === `/${me}/odom`) onTick(frame.msg);
  });
}
connect();
