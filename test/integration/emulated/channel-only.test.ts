import { execFileSync, spawnSync } from 'node:child_process';
import { copyFileSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { V2V_PORT } from '../../../src/ports.js';
import { listActiveRuns } from '../../../src/run/active-runs.js';
import { emulatedHostState } from './host-state.js';
import { emulatedE2e, HEAD_ON, ROOT } from './support/e2e.js';
import { sleep, startLiveRun } from './support/live-run.js';

/**
 * A hostile vehicle image (root in its container) tries every way around the channel during a real
 * emulated run: raw frames with the simulator's address forged, plain UDP over the control network,
 * and the simulator's control link as a relay (and as a window on the other car, through the run's
 * status); and it tries to plant files in the run folder. Nothing
 * it sends reaches car1, nothing it writes lands where cavsim writes, and the run's result is the one
 * the channel produced.
 */
const FIXTURES = join(ROOT, 'test/integration/emulated/fixtures');
const RUN_S = 10;
const { runsDir, real } = await emulatedE2e('channel-only');

const dockerExec = (container: string, ...cmd: string[]) => spawnSync('docker', ['exec', container, ...cmd], { encoding: 'utf8' });
const pidOf = (container: string) =>
  execFileSync('docker', ['inspect', '--format', '{{.State.Pid}}', container], { encoding: 'utf8' }).trim();
const macOf = (pid: string, ifname: string) =>
  JSON.parse(execFileSync('nsenter', ['-t', pid, '-n', 'ip', '-j', 'link', 'show', ifname], { encoding: 'utf8' }))[0].address as string;

describe.skipIf(real.skip)('no path between vehicles but the channel, even for a hostile vehicle image', () => {
  let before: ReturnType<typeof emulatedHostState>;
  beforeAll(() => {
    real.assertPresent();
    before = emulatedHostState();
  });

  it('raw frames, forged addresses, UDP over the control network and the control link deliver nothing', async () => {
    // Long enough for every probe below to reach a running car0 on a loaded machine.
    const run = startLiveRun(HEAD_ON, { runsDir, overrides: [`duration=${RUN_S}s`] });
    await run.running;
    await sleep(300);
    const plan = run.plan();
    const [car0, car1] = plan.vehicles;
    const car0Pid = pidOf(car0.name);
    const car1Mac = macOf(pidOf(car1.name), 'eth0');
    copyFileSync(join(FIXTURES, 'forge-frame.py'), join(run.runDir, 'forge-frame.py'));
    copyFileSync(join(FIXTURES, 'hostile-client.mjs'), join(run.runDir, 'hostile-client.mjs'));
    copyFileSync(join(FIXTURES, 'status-reader.mjs'), join(run.runDir, 'status-reader.mjs'));

    // 1. Inside the vehicle container: no raw sockets at all (NET_RAW is dropped).
    const inside = dockerExec(
      car0.name,
      'python3',
      '/run/cavsim/forge-frame.py',
      'eth0',
      car1Mac,
      plan.simulator.ip,
      car1.ip,
      String(V2V_PORT),
      'forged-inside',
      '3',
    );
    expect(JSON.parse(inside.stdout)).toEqual({ error: expect.stringMatching(/PermissionError|Operation not permitted/) });

    // 2. Plain UDP from the vehicle to car1 over the control network: refused by the eth0 rules.
    const udp = dockerExec(
      car0.name,
      'python3',
      '-c',
      `import socket,sys\ns=socket.socket(socket.AF_INET,socket.SOCK_DGRAM)\ntry:\n  s.sendto(b'{}',('${car1.ip}',${V2V_PORT}))\n  print('sent')\nexcept OSError as e:\n  print(type(e).__name__)`,
    );
    expect(udp.stdout.trim()).toBe('PermissionError');

    // 3. As if the image had kept NET_RAW: frames forged in car0's namespace with the simulator's
    //    address as source, to car1's control address and to its channel address, both on eth0.
    for (const [target, id] of [
      [car1.ip, 'forged-control'],
      [car1.v2vIp, 'forged-channel'],
    ] as const) {
      const forged = execFileSync(
        'nsenter',
        [
          '-t',
          car0Pid,
          '-n',
          'python3',
          join(run.runDir, 'forge-frame.py'),
          'eth0',
          car1Mac,
          plan.simulator.ip,
          target,
          String(V2V_PORT),
          id,
          '3',
        ],
        { encoding: 'utf8' },
      );
      expect(JSON.parse(forged)).toMatchObject({ sent: 3 });
    }

    // 4. The control link as a relay: every publish or subscribe about another car is refused.
    const hostile = dockerExec(car0.name, 'node', '/run/cavsim/hostile-client.mjs');
    expect(hostile.status, `hostile client: ${hostile.stderr}`).toBe(0);
    const refusals = (JSON.parse(hostile.stdout) as { level: string; msg: string }[]).filter((r) => r.level === 'error').map((r) => r.msg);
    expect(refusals).toEqual(
      expect.arrayContaining([
        expect.stringMatching(/publish \/sim_control: car0 may not publish \/sim_control/),
        expect.stringMatching(/publish \/car1\/odom: car0 may not publish \/car1\/odom/),
        expect.stringMatching(/publish \/cavsim\/v2v: car0 may publish on \/cavsim\/v2v only about itself/),
        expect.stringMatching(/subscribe \/car1\/scan: car0 may not subscribe to \/car1\/scan/),
      ]),
    );

    // The run's status shows each car itself and the cars it observes (car0 observes car1, car1 no
    // one), and not the run's closest TTC.
    for (const [car, visible] of [
      [car0, ['car0', 'car1']],
      [car1, ['car1']],
    ] as const) {
      const reader = dockerExec(car.name, 'node', '/run/cavsim/status-reader.mjs');
      const statuses = JSON.parse(reader.stdout || '[]') as { cars: { name: string }[]; min_ttc_s: number | null }[];
      expect(statuses.length, reader.stderr).toBeGreaterThan(0);
      for (const status of statuses)
        expect({ cars: status.cars.map((c) => c.name), ttc: status.min_ttc_s }).toEqual({ cars: visible, ttc: null });
    }

    // 5. The run folder, where root cavsim writes, is read-only to the vehicle: no link to plant
    //    (for a root write to follow), no line to add to the journal that teardown replays.
    //    The summary's temporary file (the run's space reserve while it goes) cannot be written either.
    const plant = dockerExec(
      car0.name,
      'sh',
      '-c',
      'ln -s /etc/shadow /run/cavsim/run.mcap.partial; echo \'{"kind":"host-link","id":"eth0"}\' >> /run/cavsim/journal.jsonl; touch /run/cavsim/planted-by-car0; echo planted > /run/cavsim/.summary.json.tmp',
    );
    expect(plant.stderr).toMatch(/Read-only file system/);
    expect(readdirSync(run.runDir)).not.toContain('planted-by-car0');
    expect(statSync(join(run.runDir, '.summary.json.tmp')).size).toBe(1024 * 1024);
    expect(readFileSync(join(run.runDir, 'journal.jsonl'), 'utf8')).not.toMatch(/"id":"eth0"/);

    // 6. Through the channel itself, from its own channel address, datagrams that claim to be another
    //    car (car7, which does not exist, and car1, the receiver itself): dropped at car1, and the run says so.
    for (const claimed of ['car7', 'car1']) {
      const datagram = JSON.stringify({ id: `forged-as-${claimed}`, from: claimed, to: 'car1', type: 'brake', sentAtNs: '1', body: {} });
      const spoof = dockerExec(
        car0.name,
        'python3',
        '-c',
        `import socket\ns=socket.socket(socket.AF_INET,socket.SOCK_DGRAM)\ns.bind(('${car0.v2vIp}',0))\ns.sendto(${JSON.stringify(datagram)}.encode(),('${car1.v2vIp}',${V2V_PORT}))\nprint('sent')`,
      );
      expect(spoof.stdout.trim(), spoof.stderr).toBe('sent');
    }

    const { summary } = await run.outcome;
    console.log(`[hostile] status ${summary.status}, v2v ${JSON.stringify(summary.v2v)}, ${summary.events.length} events`);
    // The run went its full length (the forged stop was refused) and saw only the real brake message.
    expect(summary.status).toBe('invalid');
    expect(summary.reason).toMatch(/forged V2V senders \(dropped at the receiver\): .*car0 -> car1 claiming to be car7/);
    expect(summary.reason).toMatch(/car0 published \d+ events beyond 100 a second \(dropped\)/);
    const floodRows = readFileSync(join(run.runDir, 'events.csv'), 'utf8')
      .split('\n')
      .filter((l) => l.includes(',flood,')).length;
    // At most 100 in each run second the flood reaches (it may straddle a second or two while the simulator reads it).
    expect(floodRows).toBeGreaterThan(0);
    expect(floodRows).toBeLessThanOrEqual(300);
    expect(summary.sim_time_s).toBeCloseTo(RUN_S, 1);
    expect(summary.v2v).toMatchObject({ sent: 1, received: 1, lost: 0 });
    expect(readFileSync(join(run.runDir, 'v2v.csv'), 'utf8')).not.toMatch(/forged/);
    const car1Log = readFileSync(join(run.runDir, 'logs', `${car1.name}.log`), 'utf8');
    expect(car1Log).not.toMatch(/forged/);
    // car1 braked on the real message only: after car0 sent it. Its send time comes from v2v.csv, not
    // from car0's own events: those share car0's 100 a second with the flood, which may fall in the
    // same run second and drop them.
    const realSend = readFileSync(join(run.runDir, 'v2v.csv'), 'utf8')
      .split('\n')
      .find((l) => l.startsWith('car0-') && l.includes(',car0,car1,'));
    expect(realSend).toBeDefined();
    const sentS = Number(realSend!.split(',')[4]);
    const braked = summary.events.filter((e) => e.vehicle === 'car1');
    expect(braked.length).toBeGreaterThan(0);
    for (const e of braked) expect(e.t_s).toBeGreaterThan(sentS);

    expect(emulatedHostState()).toEqual(before);
    expect(listActiveRuns()).toEqual([]);
  });
});
