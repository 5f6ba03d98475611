import type { DockerPort } from '../src/host/docker/docker-port.js';
import { CAVSIM_IMAGES } from '../src/host/docker/images.js';
import { runLabels } from '../src/host/docker/labels.js';

export interface TimerBaseline {
  p50_ms: number;
  p99_ms: number;
  max_ms: number;
}

/**
 * The simulator's own wall clock stepping an empty loop, in a simulator container and nothing
 * else running: how late a step starts on this machine with no experiment at all. Step lateness
 * of a real run is reported as a ratio to this baseline, so a noisy machine shows as a noisy
 * baseline. It is not a lower bound: on an idle virtual machine the CPUs sleep deeper between
 * steps than during a run, and their wake-ups can make the baseline the later of the two.
 */
const BASELINE_SCRIPT = `
const { systemWallClock: clock } = await import('/opt/cavsim/dist/runtime/emulated/containers/wall-clock.js');
const { percentileOfSorted } = await import('/opt/cavsim/dist/util/percentile.js');
const stepNs = 10_000_000n;
const t0 = clock.nowNs() + 100_000_000n;
const late = [];
for (let k = 1; k <= STEPS; k++) {
  const scheduled = t0 + BigInt(k) * stepNs;
  await clock.sleepUntil(scheduled);
  late.push(Number(clock.nowNs() - scheduled) / 1e6);
}
late.sort((a, b) => a - b);
const at = (p) => percentileOfSorted(late, p);
console.log(JSON.stringify({ p50_ms: at(50), p99_ms: at(99), max_ms: late.at(-1) }));
`;

export async function measureTimerBaseline(docker: DockerPort, steps = 1000): Promise<TimerBaseline> {
  const runId = `bench-baseline-${process.pid}`;
  const name = `cavsim-${runId}`;
  await docker.createContainer({
    name,
    image: CAVSIM_IMAGES.simulator,
    labels: runLabels(runId, 'simulator'),
    cmd: ['node', '-e', 'setInterval(() => {}, 1 << 30)'],
    init: true,
  });
  try {
    await docker.startContainer(name);
    const r = await docker.exec(name, ['node', '--input-type=module', '-e', BASELINE_SCRIPT.replace('STEPS', String(steps))]);
    if (r.exitCode !== 0) throw new Error(`timer baseline script failed: ${r.stderr.trim()}`);
    return JSON.parse(r.stdout.trim().split('\n').at(-1)!) as TimerBaseline;
  } finally {
    await docker.removeContainer(name, { force: true });
  }
}
