import { type ChildProcess, spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parse } from 'csv-parse/sync';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runScenarioEmulated } from '../../../src/api/run-emulated.js';
import type { BodyFigures } from '../../../src/measurement/body-reports.js';
import { V2V_PORT } from '../../../src/ports.js';
import { listActiveRuns } from '../../../src/run/active-runs.js';
import type { RunSummary } from '../../../src/run/summary.js';
import { dockerProblem, ns3Problem, requireReal, rootProblem } from '../../support/real-components.js';
import { emulatedHostState } from './host-state.js';
import { createNamespaceDevice, ip, type NamespaceDevice, quietly, removeNamespaceDevice } from './support/namespace-device.js';

/**
 * Mixed reality in an emulated run: a network namespace plays a physical car (role body) with one
 * veth for its control link and one for its V2V, which the run joins to the ns-3 channel. body.py
 * in it moves itself toward a virtual car and reports its pose; the virtual car's lidar and TTC see
 * it, and its warning crosses ns-3 to brake the virtual car, whose beacons cross back to it.
 */
const ROOT = fileURLToPath(new URL('../../../', import.meta.url));
const BODY = join(ROOT, 'containers/examples/python-vehicle/body.py');
const tag = String(process.pid % 10000);
const octet = 1 + ((process.pid + 7) % 250);
const NETNS = `cavsim-it-b${tag}`;
const CONTROL_HOST = `bch${tag}`;
const CONTROL_DEVICE = `bcd${tag}`;
const V2V_HOST = `bvh${tag}`;
const V2V_DEVICE = `bvd${tag}`;
const HOST_IP = `10.214.${octet}.1`;
const DEVICE_IP = `10.214.${octet}.2`;
const PORT = 21000 + (process.pid % 1000);
const DEVICE_MAC = '02:de:00:00:00:02';
const workDir = mkdtempSync(join(tmpdir(), 'cavsim-body-'));
const runsDir = join(workDir, 'runs');
mkdirSync(runsDir);
const stateDir = mkdtempSync(join(tmpdir(), 'cavsim-state-'));
process.env.CAVSIM_STATE_DIR = stateDir;

const real = requireReal('emulated/external-body.test.ts', rootProblem() ?? ns3Problem() ?? (await dockerProblem()));
const DEVICE: NamespaceDevice = {
  netns: NETNS,
  controlHost: CONTROL_HOST,
  controlDevice: CONTROL_DEVICE,
  v2vHost: V2V_HOST,
  v2vDevice: V2V_DEVICE,
  hostIp: HOST_IP,
  deviceIp: DEVICE_IP,
  mac: DEVICE_MAC,
};
type Row = Record<string, string>;
const rows = (dir: string, file: string) => parse(readFileSync(join(dir, file), 'utf8'), { columns: true }) as Row[];

const TOWARD = {
  car0: '{ x: 10, y: -1, yaw: 3.141592653589793, speed: 0 }',
  car1: `{ x: -10, y: -1, yaw: 0, speed: 4 }
    controller: { type: open-loop, schedule: [{ t: 0s, speed: 4, steer: 0 }] }
    lidar: { rate: 20Hz, beams: 181, fov: 3.14159 }
    apps: [{ type: brake-receiver }, { type: beacon, rate: 10Hz }]`,
};

function writeScenario(
  name = 'external-body',
  gates = 'maxPoseLag: 200ms\n      maxClockOffset: 50ms',
  network = '{ channel: csma, delay: 2ms, dataRate: 100Mbps }',
  cars = TOWARD,
): string {
  const file = join(workDir, `${name}.yaml`);
  writeFileSync(
    file,
    `name: ${name}
map: ${join(ROOT, 'maps/corridor.yaml')}
duration: 3s
network: ${network}
${cars.car1.includes('lidar') ? 'record: { scans: true }\n' : ''}vehicles:
  - name: car0
    start: ${cars.car0}
    observes: [car1]
    external:
      role: body
      listen: "${HOST_IP}:${PORT}"
      from: ${DEVICE_IP}
      v2v: { interface: ${V2V_HOST}, mac: "${DEVICE_MAC}" }
      connectTimeout: 60s
      ${gates}
  - name: car1
    start: ${cars.car1}
`,
  );
  return file;
}

/** The physical car, once the run has said where its V2V lives: its NIC gets that address, body.py starts. */
function startBody(
  v2vIp: string,
  faults: string[] = [],
  motion = ['--x', '10', '--y', '-1', '--yaw', String(Math.PI), '--speed', '2'],
): ChildProcess {
  const base = v2vIp.split('.').slice(0, 3).join('.');
  ip('-n', NETNS, 'addr', 'add', `${v2vIp}/24`, 'dev', V2V_DEVICE);
  const args = [
    '-u',
    BODY,
    '--url',
    `ws://${HOST_IP}:${PORT}`,
    '--vehicle',
    'car0',
    ...motion,
    '--v2v-bind',
    `${v2vIp}:${V2V_PORT}`,
    '--v2v-peer',
    `car1=${base}.2:${V2V_PORT}`,
    '--observe',
    'car1',
    '--warn',
    'car1',
    '--warn-distance',
    '8',
    ...faults,
  ];
  return spawn('ip', ['netns', 'exec', NETNS, 'python3', ...args], { stdio: ['ignore', 'ignore', 'pipe'] });
}

describe.skipIf(real.skip)('a physical car (role: body) in an emulated run (namespace device, Docker + ns-3)', () => {
  let before: ReturnType<typeof emulatedHostState>;
  beforeAll(() => {
    real.assertPresent();
    createNamespaceDevice(DEVICE);
    before = emulatedHostState();
  });
  afterAll(() => {
    removeNamespaceDevice(DEVICE);
    rmSync(workDir, { recursive: true, force: true });
    rmSync(stateDir, { recursive: true, force: true });
  });

  it("is mirrored where it reports; the virtual car's lidar and TTC see it; its warning crosses ns-3 and brakes the virtual car, whose beacons cross back; the host is restored", async () => {
    let device: ChildProcess | undefined;
    let deviceLog = '';
    try {
      const { summary, runDir } = await runScenarioEmulated(writeScenario(), {
        runsDir,
        events: {
          emit(e) {
            const v2vIp =
              e.type === 'phase' && e.phase === 'devices' ? /its V2V address is ([\d.]+)\/24/.exec(e.detail ?? '')?.[1] : undefined;
            if (!v2vIp || device) return;
            device = startBody(v2vIp);
            device.stderr!.on('data', (d) => (deviceLog += d));
          },
        },
      });
      const body = (summary.timing!.external as Record<string, BodyFigures>).car0;
      console.log(
        `[external-body] ${summary.status}${summary.reason ? ` (${summary.reason})` : ''}: ${body?.reports} reports (${body?.reports_per_s}/s), pose lag p50/p99/max ${body?.pose_lag_p50_ms}/${body?.pose_lag_p99_ms}/${body?.pose_lag_max_ms} ms, clock offset ${body?.clock_offset_ms} ms (rtt p50 ${body?.clock_rtt_p50_ms} ms)`,
      );
      expectCompletedOrLate(summary, deviceLog);
      expect(summary.collision).toBe(false);

      const car0 = rows(runDir, 'vehicles.csv').filter((r) => r.vehicle === 'car0');
      for (const r of car0.filter((r) => Number(r.t_s) >= 0.2)) expect(Number(r.x_m), `t=${r.t_s}`).toBeCloseTo(10 - 2 * Number(r.t_s), 0);

      const scan = rows(runDir, 'scans.csv').find((r) => r.vehicle === 'car1' && Number(r.t_s) === 1)!;
      const ranges = scan.ranges.split(';').map(Number);
      const ahead = ranges[Math.round((0 - Number(scan.angle_min)) / Number(scan.angle_increment))];
      const at = (car: string) => rows(runDir, 'vehicles.csv').find((r) => r.vehicle === car && Number(r.t_s) === 1)!;
      const gap = Number(at('car0').x_m) - Number(at('car1').x_m);
      expect(ahead).toBeLessThan(gap);
      expect(ahead).toBeGreaterThan(gap - 1);
      const early = rows(runDir, 'pairs.csv').find((p) => Number(p.t_s) === 1)!;
      expect(early).toMatchObject({ a: 'car0', b: 'car1' });
      expect(Number(early.ttc_s)).toBeGreaterThan(0);

      const events = rows(runDir, 'events.csv').map((e) => `${e.vehicle} ${e.event}`);
      const v2vText = readFileSync(join(runDir, 'v2v.csv'), 'utf8');
      expect(events, `${deviceLog.slice(-1500)}\n${v2vText.slice(0, 1500)}`).toEqual(
        expect.arrayContaining(['car0 brake-sent', 'car1 brake-received', 'car1 emergency-brake']),
      );
      const v2v = rows(runDir, 'v2v.csv');
      const warning = v2v.filter((m) => m.from === 'car0');
      expect(warning).toHaveLength(1);
      expect(warning[0]).toMatchObject({ to: 'car1', type: 'emergency-brake' });
      // Through ns-3's 2 ms channel, both ways.
      expect(Number(warning[0].latency_ms)).toBeGreaterThanOrEqual(2);
      const beacons = v2v.filter((m) => m.from === 'car1' && m.to === 'car0' && m.received_s !== '');
      expect(beacons.length).toBeGreaterThan(15);
      for (const b of beacons) expect(Number(b.latency_ms)).toBeGreaterThanOrEqual(1.5);
      const car1 = rows(runDir, 'vehicles.csv').filter((r) => r.vehicle === 'car1');
      expect(car1.at(-1)!.braking).toBe('1');

      const load = (summary.timing!.external_v2v as Record<string, Record<string, number>>).car0;
      expect(load.to_device_bytes).toBeGreaterThan(beacons.length * 100);
      expect(load.from_device_bytes).toBeGreaterThan(100);
      expect(body).toMatchObject({ role: 'body' });
      expect(body.reports_per_s).toBeGreaterThan(40);
      expect(Math.abs(body.clock_offset_ms!)).toBeLessThan(5);
    } finally {
      device?.kill('SIGKILL');
      quietly('bash', ['-c', `ip netns pids ${NETNS} | xargs -r kill -9`]);
      quietly('ip', ['-n', NETNS, 'addr', 'flush', 'dev', V2V_DEVICE]);
    }
    expect(emulatedHostState()).toEqual(before);
    expect(ip('-o', 'link', 'show', 'dev', V2V_HOST)).not.toMatch(/\bmaster\b/);
    expect(listActiveRuns()).toEqual([]);
  });

  it('is invalid, naming the car, when its pose reports arrive 200 ms after their stamp; the host is restored', async () => {
    let device: ChildProcess | undefined;
    try {
      const { summary } = await runScenarioEmulated(writeScenario('external-body-lag', 'maxPoseLag: 50ms'), {
        runsDir,
        events: {
          emit(e) {
            const v2vIp =
              e.type === 'phase' && e.phase === 'devices' ? /its V2V address is ([\d.]+)\/24/.exec(e.detail ?? '')?.[1] : undefined;
            if (v2vIp && !device) device = startBody(v2vIp, ['--lag-ms', '200']);
          },
        },
      });
      expect(summary.status).toBe('invalid');
      expect(summary.reason).toMatch(/car0's pose reports lagged 2\d\d(\.\d+)? ms at p99 \(external\.maxPoseLag 50 ms/);
    } finally {
      device?.kill('SIGKILL');
      quietly('bash', ['-c', `ip netns pids ${NETNS} | xargs -r kill -9`]);
      quietly('ip', ['-n', NETNS, 'addr', 'flush', 'dev', V2V_DEVICE]);
    }
    expect(emulatedHostState()).toEqual(before);
    expect(listActiveRuns()).toEqual([]);
  });

  it("on 802.11p, moves its ns-3 node where it reports: the parked car's beacons reach it near and are lost once it has driven away", async () => {
    let device: ChildProcess | undefined;
    const away = {
      car0: '{ x: -6, y: -1, yaw: 0, speed: 0 }',
      car1: `{ x: -10, y: -1, yaw: 0, speed: 0 }
    controller: { type: open-loop, schedule: [{ t: 0s, speed: 0, steer: 0 }] }
    apps: [{ type: beacon, rate: 10Hz }]`,
    };
    try {
      const { summary, runDir } = await runScenarioEmulated(
        writeScenario(
          'external-body-wifi',
          'maxPoseLag: 200ms\n      maxClockOffset: 50ms',
          '{ channel: wifi-80211p, txPower: -10dBm, obstacles: none }',
          away,
        ),
        {
          runsDir,
          events: {
            emit(e) {
              const v2vIp =
                e.type === 'phase' && e.phase === 'devices' ? /its V2V address is ([\d.]+)\/24/.exec(e.detail ?? '')?.[1] : undefined;
              if (v2vIp && !device) device = startBody(v2vIp, [], ['--x', '-6', '--y', '-1', '--yaw', '0', '--speed', '5']);
            },
          },
        },
      );
      expectCompletedOrLate(summary, '');
      const beacons = rows(runDir, 'v2v.csv').filter((m) => m.from === 'car1' && m.to === 'car0');
      const near = beacons.filter((b) => Number(b.sent_s) < 0.5);
      const far = beacons.filter((b) => Number(b.sent_s) > 2.5);
      console.log(
        `[external-body wifi] near: ${near.map((b) => `${b.distance_m}m ${b.outcome} ${b.rx_power_dbm}`).join('; ')} | far: ${far.map((b) => `${b.distance_m}m ${b.outcome} ${b.rx_power_dbm}`).join('; ')}`,
      );
      expect(near.length).toBeGreaterThan(2);
      expect(near.every((b) => b.outcome === 'delivered')).toBe(true);
      expect(far.length).toBeGreaterThan(2);
      expect(far.every((b) => b.outcome !== 'delivered')).toBe(true);
      // ns-3's received power falls as the reported car drives on: its node follows the reports.
      expect(Number(far.at(-1)!.rx_power_dbm)).toBeLessThan(Number(far[0].rx_power_dbm));
    } finally {
      device?.kill('SIGKILL');
      quietly('bash', ['-c', `ip netns pids ${NETNS} | xargs -r kill -9`]);
      quietly('ip', ['-n', NETNS, 'addr', 'flush', 'dev', V2V_DEVICE]);
    }
    expect(emulatedHostState()).toEqual(before);
    expect(listActiveRuns()).toEqual([]);
  });
});

/** Completed, or invalid for this loaded machine's lateness alone (the emulated tests allow it), never for the device. */
function expectCompletedOrLate(s: RunSummary, log: string): void {
  expect(['completed', 'invalid'], `${s.reason}\n${log.slice(-3000)}`).toContain(s.status);
  if (s.status === 'invalid') {
    expect(s.reason).toMatch(/late/);
    expect(s.reason).not.toMatch(/car0's/);
  }
}
