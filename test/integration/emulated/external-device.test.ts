import { type ChildProcess, spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runScenarioEmulated } from '../../../src/api/run-emulated.js';
import { listActiveRuns } from '../../../src/run/active-runs.js';
import { dockerProblem, ns3Problem, requireReal, rootProblem } from '../../support/real-components.js';
import { emulatedHostState } from './host-state.js';
import { createNamespaceDevice, ip, type NamespaceDevice, quietly, removeNamespaceDevice } from './support/namespace-device.js';

/**
 * A device cavsim does not start drives a car of an emulated run: a network namespace plays the
 * device (a Raspberry Pi on a cable), with one veth for its control link and one for its V2V. The
 * Python example runs in it, written against docs/control-protocol.md only, and connects to the
 * address the scenario gives; the host relays it to the simulator, which knows it as car1.
 */
const ROOT = fileURLToPath(new URL('../../../', import.meta.url));
const EXAMPLE = join(ROOT, 'containers/examples/python-vehicle/vehicle.py');
const tag = String(process.pid % 10000);
const octet = 1 + (process.pid % 250);
const NETNS = `cavsim-it-x${tag}`;
const CONTROL_HOST = `xch${tag}`;
const CONTROL_DEVICE = `xcd${tag}`;
const V2V_HOST = `xvh${tag}`;
const V2V_DEVICE = `xvd${tag}`;
const HOST_IP = `10.213.${octet}.1`;
const DEVICE_IP = `10.213.${octet}.2`;
const PORT = 19000 + (process.pid % 1000);
const DEVICE_MAC = '02:de:00:00:00:01';
const CRUISE = 6;
const STOP_DISTANCE = 8;
const PARKED_X = 10;
const workDir = mkdtempSync(join(tmpdir(), 'cavsim-external-'));
const runsDir = join(workDir, 'runs');
mkdirSync(runsDir);
const stateDir = mkdtempSync(join(tmpdir(), 'cavsim-state-'));
process.env.CAVSIM_STATE_DIR = stateDir;

const real = requireReal('emulated/external-device.test.ts', rootProblem() ?? ns3Problem() ?? (await dockerProblem()));

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

function writeScenario(name: string, connectTimeout = '60s'): string {
  const file = join(workDir, `${name}.yaml`);
  writeFileSync(
    file,
    `name: ${name}
map: ${join(ROOT, 'maps/corridor.yaml')}
duration: 6s
network: { channel: csma, delay: 10ms, dataRate: 100Mbps }
vehicles:
  - name: car0
    start: { x: ${PARKED_X}, y: -1, yaw: 3.141592653589793, speed: 0 }
  - name: car1
    start: { x: -20, y: -1, yaw: 0, speed: 0 }
    observes: [car0]
    external:
      role: controller
      listen: "${HOST_IP}:${PORT}"
      from: ${DEVICE_IP}
      connectTimeout: ${connectTimeout}
      v2v: { interface: ${V2V_HOST}, mac: "${DEVICE_MAC}" }
`,
  );
  return file;
}

/** The device: the Python example, retried until the run listens for it (it starts after the containers). */
function startDevice(): ChildProcess {
  const python = `python3 -u ${EXAMPLE} --url ws://${HOST_IP}:${PORT} --vehicle car1 --speed ${CRUISE} --stop-distance ${STOP_DISTANCE} --observe car0`;
  return spawn('ip', ['netns', 'exec', NETNS, 'bash', '-c', `for i in $(seq 1 400); do ${python} && exit 0; sleep 0.3; done; exit 1`], {
    stdio: ['ignore', 'ignore', 'pipe'],
  });
}

function csvRows(file: string): Record<string, string>[] {
  const [header, ...lines] = readFileSync(file, 'utf8').trim().split('\n');
  const columns = header.split(',');
  return lines.map((line) => Object.fromEntries(line.split(',').map((v, i) => [columns[i], v])));
}

describe.skipIf(real.skip)('an external device drives a car of an emulated run (namespace device, Docker + ns-3)', () => {
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

  it('drives car1 from the device: cruises, stops short of car0, every step answered; the host gets its interfaces back', async () => {
    const device = startDevice();
    let deviceLog = '';
    device.stderr!.on('data', (d) => (deviceLog += d));
    try {
      const { summary, runDir } = await runScenarioEmulated(writeScenario('external-controller'), { runsDir });
      console.log(
        `[external-device] status ${summary.status}${summary.reason ? ` (${summary.reason})` : ''}, min distance ${summary.min_distance_m} m, commands ${summary.timing?.control_commands}, lag p50/p99 ${summary.timing?.control_lag_p50_ms}/${summary.timing?.control_lag_p99_ms} ms`,
      );
      expect(['completed', 'invalid'], `${summary.reason}\n${deviceLog.slice(-2000)}`).toContain(summary.status);
      if (summary.status === 'invalid') expect(summary.reason).toMatch(/late/);
      expect(summary.collision).toBe(false);
      const car1 = csvRows(join(runDir, 'vehicles.csv')).filter((r) => r.vehicle === 'car1');
      const commanded = car1.map((r) => Number(r.cmd_speed_mps));
      const firstCruise = commanded.indexOf(CRUISE);
      const firstStop = commanded.indexOf(0, firstCruise);
      expect(firstCruise).toBeGreaterThan(0);
      expect(firstStop).toBeGreaterThan(firstCruise);
      expect(PARKED_X - Number(car1[firstStop].x_m)).toBeLessThan(STOP_DISTANCE + 0.3);
      expect(summary.min_distance_m!).toBeGreaterThan(3);
      const load = (summary.timing!.external_v2v as Record<string, Record<string, number | string>>).car1;
      expect(load).toMatchObject({ interface: V2V_HOST, channel_rate_bps: 100e6, window_ms: 100 });
      expect(load.to_device_bytes).toBeGreaterThanOrEqual(0);
    } finally {
      device.kill('SIGKILL');
    }
    expect(emulatedHostState()).toEqual(before);
    expect(linkLine(V2V_HOST)).not.toMatch(/\bmaster\b/);
    expect(listActiveRuns()).toEqual([]);
  });

  it('fails naming the car when the device drops out mid-run, keeps what it measured, and restores the host', async () => {
    const device = startDevice();
    let dropped = false;
    try {
      const { summary, runDir } = await runScenarioEmulated(writeScenario('external-drop'), {
        runsDir,
        events: {
          emit(e) {
            // The device's computer dies at t=2 s: every process in the namespace, at once.
            if (e.type !== 'progress' || e.t < 2 || dropped) return;
            dropped = true;
            quietly('bash', ['-c', `ip netns pids ${NETNS} | xargs -r kill -9`]);
          },
        },
      });
      expect(dropped).toBe(true);
      expect(summary.status).toBe('failed');
      expect(summary.reason).toMatch(/^car1's external device disconnected at t=(2|3)\.\d\d s/);
      const times = csvRows(join(runDir, 'vehicles.csv')).map((r) => Number(r.t_s));
      expect(Math.max(...times)).toBeGreaterThanOrEqual(2);
      expect(Math.max(...times)).toBeLessThan(4);
    } finally {
      device.kill('SIGKILL');
    }
    expect(emulatedHostState()).toEqual(before);
    expect(linkLine(V2V_HOST)).not.toMatch(/\bmaster\b/);
    expect(listActiveRuns()).toEqual([]);
  });

  it('fails naming the car and its address when the device never connects, and leaves the host as it was', async () => {
    const { summary } = await runScenarioEmulated(writeScenario('external-absent', '2s'), { runsDir });
    expect(summary.status).toBe('failed');
    expect(summary.reason).toBe(
      `car1's external device (${DEVICE_IP}) did not connect to ws://${HOST_IP}:${PORT} and say ready within 2 s`,
    );
    expect(emulatedHostState()).toEqual(before);
    expect(listActiveRuns()).toEqual([]);
  });
});

function linkLine(name: string): string {
  return ip('-o', 'link', 'show', 'dev', name);
}
