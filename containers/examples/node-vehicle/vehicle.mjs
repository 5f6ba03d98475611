#!/usr/bin/env node
// A cavsim vehicle in Node.js, written against docs/control-protocol.md only (the `ws` package for
// the WebSocket, rosbridge v2 JSON on top). It holds a cruise speed and, with --ttc, is the thesis's
// car0: when the time to collision with an observed car falls below the threshold it brakes for good
// and warns another car over V2V. Any car brakes for good when such a warning reaches it. Time comes
// from /clock, V2V goes through /carN/v2v/send and /carN/v2v/received, so the same code runs in the
// simulated runtime (in virtual time) and the emulated one (in containers, over the real channel).
//
//   node vehicle.mjs [--speed M_S] [--ttc S] [--warn CAR] [--observe CAR ...]
// Environment (set by cavsim): CAVSIM_VEHICLE, CAVSIM_SIM_URL, CAVSIM_RUN_DIR, CAVSIM_CONNECT_TIMEOUT_MS.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import WebSocket from 'ws';

const ODOMETRY = 'nav_msgs/msg/Odometry';
const DRIVE = 'ackermann_msgs/msg/AckermannDriveStamped';
const STRING = 'std_msgs/msg/String';
const CLOCK = 'rosgraph_msgs/msg/Clock';

function parseArgs(argv) {
  const opts = { speed: 5, ttc: 0, warn: '*', observe: undefined };
  for (let i = 0; i < argv.length; i++) {
    const flag = argv[i];
    if (flag === '--observe') {
      opts.observe = [];
      while (argv[i + 1] && !argv[i + 1].startsWith('--')) opts.observe.push(argv[++i]);
    } else if (flag === '--speed' || flag === '--ttc') opts[flag.slice(2)] = Number(argv[++i]);
    else if (flag === '--warn') opts.warn = argv[++i];
    else throw new Error(`unknown option ${flag}`);
  }
  return opts;
}

const log = (line) => process.stderr.write(`[node-vehicle] ${line}\n`);
const yawOf = (odom) => 2 * Math.atan2(odom.pose.pose.orientation.z, odom.pose.pose.orientation.w);
const seconds = (stamp) => stamp.sec + stamp.nanosec / 1e9;

/** The thesis's Eq. 3.7: distance over the closing speed along the line between the centres. */
function timeToCollision(a, b) {
  const dx = b.pose.pose.position.x - a.pose.pose.position.x;
  const dy = b.pose.pose.position.y - a.pose.pose.position.y;
  const d = Math.hypot(dx, dy);
  if (d === 0) return undefined;
  let closing = 0;
  for (const [odom, sign] of [
    [a, 1],
    [b, -1],
  ]) {
    const yaw = yawOf(odom);
    closing += (sign * odom.twist.twist.linear.x * (Math.cos(yaw) * dx + Math.sin(yaw) * dy)) / d;
  }
  return closing > 1e-9 ? d / closing : undefined;
}

function observedFromScenario(me) {
  try {
    const scenario = JSON.parse(readFileSync(join(process.env.CAVSIM_RUN_DIR ?? '.', 'scenario.resolved.json'), 'utf8'));
    return scenario.vehicles.find((v) => v.name === me)?.observes ?? [];
  } catch (err) {
    log(`no observes list from the scenario (${err.message}); watching no other car`);
    return [];
  }
}

async function connect(url, timeoutMs) {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    try {
      return await new Promise((resolve, reject) => {
        const ws = new WebSocket(url, { perMessageDeflate: false });
        ws.once('open', () => resolve(ws));
        ws.once('error', reject);
      });
    } catch (err) {
      if (Date.now() > deadline) throw new Error(`no simulator at ${url} within ${timeoutMs} ms: ${err.message}`);
      await new Promise((r) => setTimeout(r, 200));
    }
  }
}

async function main() {
  const opts = parseArgs(process.argv.slice(2));
  const me = process.env.CAVSIM_VEHICLE;
  const url = process.env.CAVSIM_SIM_URL;
  const observe = opts.observe ?? observedFromScenario(me);
  log(
    `${me}: cruise ${opts.speed} m/s${opts.ttc ? `, brake and warn ${opts.warn} below TTC ${opts.ttc} s to ${observe.join(', ') || 'nobody'}` : ''}; connecting to ${url}`,
  );
  const ws = await connect(url, Number(process.env.CAVSIM_CONNECT_TIMEOUT_MS ?? 30000));
  const op = (fields) => ws.send(JSON.stringify(fields));
  const publishJson = (topic, data) => op({ op: 'publish', topic, msg: { data: JSON.stringify(data) } });

  const topics = { drive: `/${me}/drive`, odom: `/${me}/odom`, send: `/${me}/v2v/send`, received: `/${me}/v2v/received` };
  for (const [topic, type] of [
    [topics.drive, DRIVE],
    ['/cavsim/ready', STRING],
    ['/cavsim/events', STRING],
    [topics.send, STRING],
  ])
    op({ op: 'advertise', topic, type });
  for (const [topic, type] of [
    ['/sim_control', STRING],
    ['/clock', CLOCK],
    [topics.received, STRING],
    [topics.odom, ODOMETRY],
    ...observe.map((c) => [`/${c}/odom`, ODOMETRY]),
  ])
    op({ op: 'subscribe', topic, type });
  publishJson('/cavsim/ready', { vehicle: me });

  let t0;
  let simClock = false;
  let now = 0;
  let braked;
  let commands = 0;
  const others = new Map();
  let own;
  let answered = -1;
  const stampNs = (m) => m.header.stamp.sec * 1e9 + m.header.stamp.nanosec;

  // Answers each of its own odometry messages once the observed cars' odometry of the same step is
  // here too (the simulator publishes the cars one after another), like a ROS exact-time synchroniser.
  function answerWhenInStep() {
    if (!own || t0 === undefined || (!simClock && Date.now() * 1e6 < t0)) return;
    const step = stampNs(own);
    if (step <= answered || observe.some((c) => !others.has(c) || stampNs(others.get(c)) < step)) return;
    answered = step;
    if (!simClock) now = (Date.now() * 1e6 - t0) / 1e9;
    if (opts.ttc > 0 && braked === undefined) {
      for (const [name, other] of others) {
        const ttc = timeToCollision(own, other);
        if (ttc === undefined || ttc >= opts.ttc) continue;
        // Warn first: what a vehicle publishes before its drive command belongs to this tick.
        publishJson(topics.send, { to: opts.warn, type: 'emergency-brake', body: { ttc_s: ttc, about: name } });
        event('brake-sent', { ttc_s: +ttc.toFixed(6), about: name, to: opts.warn });
        braked = `TTC ${ttc.toFixed(3)} s to ${name}`;
        event('emergency-brake', { reason: braked });
        break;
      }
    }
    op({
      op: 'publish',
      topic: topics.drive,
      msg: {
        header: { stamp: own.header.stamp, frame_id: `${me}/base_link` },
        drive: { speed: braked ? 0 : opts.speed, steering_angle: 0 },
      },
    });
    commands++;
  }
  const event = (name, detail) =>
    publishJson('/cavsim/events', {
      vehicle: me,
      t_s: simClock ? now : (Date.now() * 1e6 - t0) / 1e9,
      event: name,
      ...(detail ? { detail } : {}),
    });

  return new Promise((resolve) => {
    ws.on('close', () => {
      log(`${me}: the simulator went away before it said stop`);
      resolve(1);
    });
    ws.on('message', (text) => {
      const frame = JSON.parse(String(text));
      if (frame.op === 'status') return log(`bridge ${frame.level}: ${frame.msg}`);
      if (frame.op !== 'publish') return;
      const { topic, msg } = frame;
      if (topic === '/sim_control') {
        const control = JSON.parse(msg.data);
        if (control.cmd === 'start' && t0 === undefined) {
          t0 = Number(control.t0_epoch_ns);
          simClock = control.clock === 'sim';
        } else if (control.cmd === 'stop') {
          log(`${me}: stop (${control.reason ?? 'end of run'}) after ${commands} drive commands`);
          ws.removeAllListeners('close');
          ws.close();
          resolve(0);
        }
      } else if (topic === '/clock') {
        now = seconds(msg.clock);
      } else if (topic === topics.received) {
        const m = JSON.parse(msg.data);
        if (m.type === 'emergency-brake' && braked === undefined) {
          braked = `message ${m.id} from ${m.from}`;
          event('brake-received', { from: m.from, id: m.id });
          event('emergency-brake', { reason: braked });
        }
      } else if (topic === topics.odom) {
        own = msg;
        answerWhenInStep();
      } else if (topic.endsWith('/odom')) {
        others.set(topic.split('/')[1], msg);
        answerWhenInStep();
      }
    });
  });
}

main().then(
  (status) => process.exit(status),
  (err) => {
    log(err.stack ?? String(err));
    process.exit(1);
  },
);
