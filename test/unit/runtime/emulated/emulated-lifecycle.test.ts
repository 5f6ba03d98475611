import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { teardownRuns } from '../../../../src/api/teardown.js';
import type { ChannelExit, StartedChannel } from '../../../../src/channel/ns3/realtime-channel.js';
import { EnvironmentError } from '../../../../src/errors.js';
import type { DockerPort } from '../../../../src/host/docker/docker-port.js';
import { createDockerPort } from '../../../../src/host/docker/dockerode-port.js';
import type { CommandRunner } from '../../../../src/host/exec/command-runner.js';
import { Journal } from '../../../../src/host/journal/journal.js';
import { NS3_PROCESS_KIND } from '../../../../src/host/journal/kinds.js';
import { journalCopyOf, listActiveRuns } from '../../../../src/run/active-runs.js';
import type { ControlLink, EmulatedRunDeps } from '../../../../src/runtime/emulated/emulated-deps.js';
import { runEmulated } from '../../../../src/runtime/emulated/run-emulated.js';
import type { SimulatorStatus } from '../../../../src/runtime/rosbridge/control-topics.js';
import { loadScenario } from '../../../../src/scenario/load-scenario.js';
import { FakeDockerode } from '../../host/docker/fake-dockerode.js';
import { FakeHost } from '../../host/network/fake-host.js';

/**
 * The emulated run lifecycle against recording fakes of the engine, the host network, ns-3 and the
 * simulator's control link: a failure at any step, or a component dying mid-run, ends the run as
 * `failed` with its cause named, and the fake host is left exactly as it was found.
 */
const HEAD_ON = fileURLToPath(new URL('../../../../scenarios/head-on-brake.yaml', import.meta.url));
const scenario = await loadScenario(HEAD_ON, { overrides: ['duration=1s'] });

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'cavsim-lifecycle-'));
  process.env.CAVSIM_STATE_DIR = join(dir, 'state');
});
afterEach(() => {
  rmSync(dir, { recursive: true, force: true });
  delete process.env.CAVSIM_STATE_DIR;
});

interface Fixture {
  deps: EmulatedRunDeps;
  fake: FakeDockerode;
  host: FakeHost;
  /** What the simulator container does once started; default: finish cleanly 30 ms in. */
  onStart: (sim: SimulatorFake) => void;
  killChannel?: (exit: ChannelExit) => void;
  channelsRunning: number;
  /** Each delay [s] the run told ns-3 to apply (the stack-share calibration). */
  delaysSet: number[];
}

interface SimulatorFake {
  finish(status: 'completed' | 'interrupted'): void;
  /** Ends the run as failed, says `stopping`, and exits 1; its `stopped` never reaches the host. */
  failWithoutLastStatus(reason: string): void;
  die(exitCode: number): void;
  killContainer(vehicle: string, exitCode: number): void;
}

function fixture(): Fixture {
  const fake = new FakeDockerode();
  for (const tag of ['cavsim/simulator:latest', 'cavsim/vehicle:latest'])
    fake.images.set(tag, { Id: `sha256:${tag}`, RepoTags: [tag], Config: { Labels: {} } });
  const docker = createDockerPort(fake);
  const host = new FakeHost();
  const containerNamed = (suffix: string) => [...fake.containers.values()].find((c) => c.name.endsWith(suffix))!;
  const f: Fixture = {
    fake,
    host,
    channelsRunning: 0,
    delaysSet: [],
    onStart: (sim) => setTimeout(() => sim.finish('completed'), 30),
    deps: undefined as unknown as EmulatedRunDeps,
  };
  const listeners: ((s: SimulatorStatus) => void)[] = [];
  const publish = (phase: SimulatorStatus['phase']) => listeners.forEach((l) => l({ phase } as SimulatorStatus));
  const runDirOf = () => join(dir, 'runs', listActiveRuns()[0].runId);
  const sim: SimulatorFake = {
    finish(status) {
      // stopped after the run was torn down, or after it died: a no-op, as for a real one
      if (!containerNamed('-sim')?.running) return;
      publish('stopping');
      writeFileSync(
        join(runDirOf(), 'summary.json'),
        JSON.stringify({ ...summaryStub(), status, ...(status === 'interrupted' ? { reason: 'stop requested' } : {}) }),
      );
      Object.assign(containerNamed('-sim'), { running: false, exitCode: 0 });
      publish('stopped');
    },
    failWithoutLastStatus(reason) {
      publish('stopping');
      writeFileSync(join(runDirOf(), 'summary.json'), JSON.stringify({ ...summaryStub(), status: 'failed', reason }));
      Object.assign(containerNamed('-sim'), { running: false, exitCode: 1 });
    },
    die(exitCode) {
      Object.assign(containerNamed('-sim'), { running: false, exitCode });
    },
    killContainer(vehicle, exitCode) {
      Object.assign(containerNamed(`-${vehicle}`), { running: false, exitCode });
    },
  };
  let closeLink!: () => void;
  const link: ControlLink = {
    waitForVehicles: async () => {},
    start: async () => f.onStart(sim),
    stop: async () => void setTimeout(() => sim.finish('interrupted'), 5),
    onStatus: (l) => void listeners.push(l),
    onOdometry: () => {},
    closed: new Promise<void>((r) => (closeLink = r)),
    close: async () => closeLink(),
  };
  f.deps = {
    docker,
    hostNet: host,
    runner: {} as CommandRunner,
    repoRoot: '/nonexistent',
    connectControl: async () => link,
    prepareImages: async () => {},
    channel: {
      compile: async () => '/fake/channel-tap',
      start: async (p) => {
        p.journal.record(NS3_PROCESS_KIND, '999999', { pid: 999999, startTime: 'not-a-real-process' });
        f.channelsRunning++;
        let exit!: (e: ChannelExit) => void;
        const exited = new Promise<ChannelExit>((r) => (exit = r));
        f.killChannel = exit;
        const channel: StartedChannel = {
          identity: { pid: 999999, startTime: 'not-a-real-process' },
          logPath: p.logPath,
          exited,
          lagSamplesMs: () => [],
          positionsPort: () => undefined,
          lastLogLines: () => ['channel-tap: killed'],
          setDelay: async (delayS) => void f.delaysSet.push(delayS),
          stop: async () => void f.channelsRunning--,
          [Symbol.asyncDispose]: async () => {},
        };
        return channel;
      },
    },
  };
  return f;
}

/** The stack probes (docker exec in each car) answer as if every frame took the probe delay plus `shareMs`. */
function probesMeasure(f: Fixture, shareMs: number): void {
  const exec: DockerPort['exec'] = async (_container, cmd) => {
    const cfg = JSON.parse(cmd.at(-1)!) as { count: number };
    const received = Array.from({ length: cfg.count }, (_, seq) => ({ seq, latency_ms: 1 + shareMs }));
    return { exitCode: 0, stdout: JSON.stringify({ sent: cfg.count, received }), stderr: '' };
  };
  f.deps = { ...f.deps, docker: Object.assign(Object.create(f.deps.docker), { exec }) };
}

function summaryStub() {
  return {
    schema: 'cavsim.summary/1',
    run_id: 'x',
    scenario: scenario.name,
    runtime: 'docker',
    seed: 1,
    duration_s: 1,
    sim_time_s: 0.5,
    wall_time_s: 0.5,
    steps: 50,
    min_ttc_s: null,
    min_distance_m: null,
    collision: false,
    first_collision_t_s: null,
    pairs: [],
    collisions: [],
    v2v: { sent: 0, received: 0, lost: 0, p50_ms: null, p99_ms: null, max_ms: null, mean_ms: null },
    events: [],
    parameters: scenario,
  };
}

function expectNothingLeft(f: Fixture, runDir: string) {
  expect(f.fake.containers.size).toBe(0);
  expect(f.fake.networks.size).toBe(0);
  expect(f.host.state()).toEqual({ links: [], netns: [], rules: [] });
  expect(listActiveRuns()).toEqual([]);
  expect(Journal.open(join(runDir, 'journal.jsonl')).outstanding()).toEqual([]);
}

const run = (f: Fixture) => runEmulated(scenario, f.deps, { runsDir: join(dir, 'runs'), failureSettleMs: 20 });

describe('emulated run lifecycle (fakes)', () => {
  it('completes, and teardown leaves the fake host empty', async () => {
    const f = fixture();
    const { summary, runDir } = await run(f);
    expect(summary.status).toBe('completed');
    expect(summary.steps).toBe(50);
    expectNothingLeft(f, runDir);
  });

  it('a delay below the stack share the probes measure fails the run with exit 2 before the cars start, and leaves nothing behind', async () => {
    const f = fixture();
    let started = false;
    f.onStart = (sim) => {
      started = true;
      sim.finish('completed');
    };
    probesMeasure(f, 12); // head-on-brake's delay is 10 ms
    const { summary, runDir } = await run(f);
    expect(summary.status).toBe('failed');
    expect(summary.exit_status).toBe(2);
    expect(summary.reason).toMatch(/network\.delay 10 ms is below this machine's stack share, 11\.98 ms measured before the start/);
    expect(started).toBe(false);
    expect(f.delaysSet).toEqual([]);
    expectNothingLeft(f, runDir);
  });

  it('a calibrated run tells ns-3 the delay less the share, and says the calibration in summary.json', async () => {
    const f = fixture();
    probesMeasure(f, 0.6);
    const { summary, runDir } = await run(f);
    expect(summary.status).toBe('completed');
    expect(f.delaysSet).toHaveLength(1);
    // head-on-brake: csma at 100 Mbit/s, whose model holds a 200 B probe 0.0197 ms itself (not stack share)
    const share = 0.6 - (246 * 8 * 1000) / 100e6;
    expect(f.delaysSet[0] * 1000).toBeCloseTo(10 - share, 3);
    const written = JSON.parse(readFileSync(join(runDir, 'summary.json'), 'utf8'));
    expect(written.timing.stack_calibration).toMatchObject({ configured_delay_ms: 10, spread_ms: 0 });
    expect(written.timing.stack_calibration.stack_share_p50_ms).toBeCloseTo(share, 3);
    expect(written.timing.stack_calibration.applied_delay_ms).toBeCloseTo(10 - share, 3);
    expect(written.warnings).toContainEqual(expect.stringMatching(/network\.delay 10 ms: ns-3 applies 9\.42 ms/));
    expectNothingLeft(f, runDir);
  });

  it('a failure at the Nth engine call, at any N, fails the run (or is retried) and leaves nothing behind', async () => {
    const clean = fixture();
    await run(clean);
    const calls = clean.fake.calls.length;
    const statuses: string[] = [];
    for (let n = 1; n <= calls; n++) {
      const f = fixture();
      f.fake.failOnCall(n);
      const { summary, runDir } = await run(f);
      statuses.push(summary.status);
      // A failed wait on a container is asked again, a failure in the teardown leaves the result
      // alone; every other engine failure fails the run.
      expect(['failed', 'completed'], `engine call ${n}`).toContain(summary.status);
      if (summary.status === 'failed') expect(summary.reason).toMatch(/injected failure/);
      // A failure inside the run's own teardown leaves the run in the index: `cavsim teardown` finishes it.
      if (f.fake.containers.size || f.fake.networks.size) {
        expect(listActiveRuns().map((r) => r.runId)).toEqual([basename(runDir)]);
        // This test process owns the run and is alive, so only --force tears it down.
        expect((await teardownRuns({ all: true }, f.deps, join(dir, 'runs'))).live).toHaveLength(1);
        await teardownRuns({ all: true, force: true }, f.deps, join(dir, 'runs'));
      }
      expectNothingLeft(f, runDir);
    }
    expect(statuses.filter((s) => s === 'failed').length).toBeGreaterThan(5);
  });

  it('a run whose folder was deleted with resources still up is undone from the journal kept beside the index', async () => {
    const clean = fixture();
    await run(clean);
    const f = fixture();
    f.fake.failOnCall(clean.fake.calls.length); // the last engine call: a removal in the run's own teardown
    const { runDir } = await run(f);
    expect(f.fake.containers.size + f.fake.networks.size).toBeGreaterThan(0);
    const runId = basename(runDir);
    expect(existsSync(journalCopyOf(runId))).toBe(true);
    rmSync(runDir, { recursive: true, force: true });
    const { undone } = await teardownRuns({ all: true, force: true }, f.deps, join(dir, 'runs'));
    expect(undone.map((u) => [u.runId, u.report.failed.length])).toEqual([[runId, 0]]);
    expect(f.fake.containers.size + f.fake.networks.size).toBe(0);
    expect(f.host.state()).toEqual({ links: [], netns: [], rules: [] });
    expect(listActiveRuns()).toEqual([]);
    expect(existsSync(journalCopyOf(runId))).toBe(false);
    expect(existsSync(runDir)).toBe(false);
  });

  it('a failure at the Nth host-network call, at any N, fails the run and leaves nothing behind', async () => {
    let n = 1;
    for (; n < 80; n++) {
      const f = fixture();
      f.host.failOnCall = n;
      const { summary, runDir } = await run(f);
      if (summary.status === 'completed') break;
      expect(summary.status, `host call ${n}`).toBe('failed');
      expect(summary.reason).toMatch(/injected failure on call/);
      expectNothingLeft(f, runDir);
    }
    // every call of the set-up was tried: 13 for two vehicles since host links are one batch (20+ before)
    expect(n).toBeGreaterThan(10);
  });

  it('ns-3 dying mid-run fails the run, names it, and keeps the simulator summary figures', async () => {
    const f = fixture();
    f.onStart = () => setTimeout(() => f.killChannel!({ code: null, signal: 'SIGKILL' }), 20);
    const { summary, runDir } = await run(f);
    expect(summary.status).toBe('failed');
    expect(summary.failed_component).toEqual({
      component: 'ns-3 channel',
      exit_status: null,
      signal: 'SIGKILL',
      last_log_lines: ['channel-tap: killed'],
    });
    expect(summary.reason).toMatch(/^the ns-3 channel was killed by SIGKILL during the run/);
    expect(summary.steps).toBe(50); // what the simulator measured until it was stopped
    expectNothingLeft(f, runDir);
  });

  it('a vehicle container killed mid-run fails the run and names the vehicle', async () => {
    const f = fixture();
    f.onStart = (sim) => setTimeout(() => sim.killContainer('car1', 137), 20);
    const { summary, runDir } = await run(f);
    expect(summary.status).toBe('failed');
    expect(summary.failed_component).toMatchObject({ component: 'vehicle car1 container', exit_status: 137, signal: 'SIGKILL' });
    expectNothingLeft(f, runDir);
  });

  it('the simulator container dying fails the run; its figures come from the CSVs it flushed', async () => {
    const f = fixture();
    f.onStart = (sim) =>
      setTimeout(() => {
        const runDir = join(dir, 'runs', listActiveRuns()[0].runId);
        writeFileSync(
          join(runDir, 'vehicles.csv'),
          't_s,vehicle,x_m,y_m,yaw_rad,speed_mps,steer_rad,yaw_rate_radps,cmd_speed_mps,cmd_steer_rad,braking,collided\n0.01,car0,0,0,0,10,0,0,10,0,0,0\n0.02,car0,0.1,0,0,10,0,0,10,0,0,0\n0.03,car0,0.2',
        );
        sim.die(137);
      }, 20);
    const { summary, runDir } = await run(f);
    expect(summary.status).toBe('failed');
    expect(summary.failed_component).toMatchObject({ component: 'simulator container', exit_status: 137, signal: 'SIGKILL' });
    expect(summary.steps).toBe(2); // the torn last row is not counted
    expect(summary.sim_time_s).toBe(0.02);
    expect(readFileSync(join(runDir, 'vehicles.csv'), 'utf8')).toContain('0.02,car0');
    expectNothingLeft(f, runDir);
  });

  it('a simulator that failed the run itself and exited 1 ends the wait though its last status never came', async () => {
    const f = fixture();
    f.onStart = (sim) => setTimeout(() => sim.failWithoutLastStatus("car1's external device disconnected at t=2.06 s"), 20);
    const { summary, runDir } = await run(f);
    expect(summary.status).toBe('failed');
    expect(summary.reason).toBe("car1's external device disconnected at t=2.06 s");
    expectNothingLeft(f, runDir);
  });

  it('vehicles exiting at the end of the run are not a failure', async () => {
    const f = fixture();
    f.onStart = (sim) =>
      setTimeout(() => {
        sim.killContainer('car0', 0);
        sim.killContainer('car1', 0);
        sim.finish('completed');
      }, 20);
    const { summary, runDir } = await run(f);
    expect(summary.status).toBe('completed');
    expectNothingLeft(f, runDir);
  });

  it('a missing prerequisite keeps its exit status (3) and hint through the run, and nothing is created', async () => {
    const f = fixture();
    f.deps.channel.compile = async () => {
      throw new EnvironmentError('ns-3 development files not found (pkg-config ns3-core)', 'run scripts/setup-ns3.sh as root');
    };
    const { summary, runDir } = await run(f);
    expect(summary).toMatchObject({ status: 'failed', exit_status: 3, hint: 'run scripts/setup-ns3.sh as root' });
    expect(f.fake.calls.filter((c) => c.startsWith('create'))).toEqual([]);
    expectNothingLeft(f, runDir);
  });

  it('a run stopped by the user before the start is interrupted and leaves nothing behind', async () => {
    const f = fixture();
    let asked = 0;
    const { summary, runDir } = await runEmulated(scenario, f.deps, { runsDir: join(dir, 'runs'), shouldStop: () => ++asked > 2 });
    expect(summary.status).toBe('interrupted');
    expect(summary.steps).toBe(0);
    expectNothingLeft(f, runDir);
  });
});
