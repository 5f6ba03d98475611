import type { StartedChannel } from '../../channel/ns3/realtime-channel.js';
import type { DockerPort } from '../../host/docker/docker-port.js';
import { STACK_PROBE_PORT } from '../../ports.js';
import { type HostTimingResult, judgeHostTiming, type PairSamples, type TimingPairs, timingPairs } from './host-timing.js';
import { LIGHT_CAR_PROGRAM } from './light-car.js';
import type { EmulatedRunPlan } from './plan-emulated.js';
import { type CalibrationResult, calibrateDelay, notCalibrated, STACK_SHARE } from './stack-share.js';
import type { ProbeConfig, ProbeReport } from './v2v/stack-probe.js';

const PROBE_SCRIPT = '/opt/cavsim/dist/runtime/emulated/containers/stack-probe-main.js';
/**
 * From the exec calls to the first send: time for both probe programs to start and bind on a quiet
 * machine (Node's probe ~0.2 s). A probe that starts later begins when it is ready, and its peer
 * lingers long enough for it (`LATE_START_MS`); only its first datagrams may find the peer unbound.
 */
const START_MARGIN_MS = 300;
const LATE_START_MS = 300;

interface ProbeEnd {
  container: string;
  vehicle: string;
  ip: string;
  probe: (cfg: string) => string[];
}

/**
 * A car whose V2V socket lives in a cavsim container: its own, or its relay's (a car running its own
 * code); probed through the program that receives its frames in the run.
 */
function probeEnd(plan: EmulatedRunPlan, index: number): ProbeEnd | undefined {
  const v = plan.vehicles[index];
  if (!v) return undefined;
  const relay = plan.v2vRelays.find((r) => r.vehicle === v.vehicle);
  return {
    container: relay?.name ?? v.name,
    vehicle: v.vehicle,
    ip: v.v2vIp,
    probe: (cfg) => (v.cmd?.[0] === LIGHT_CAR_PROGRAM ? [LIGHT_CAR_PROGRAM, '--probe', cfg] : ['node', PROBE_SCRIPT, cfg]),
  };
}

/** Both probes at once, each sending to the other: the one-way latencies [ms] each way by sequence number, warm-up left out. */
async function probePair(docker: Pick<DockerPort, 'exec'>, ends: [ProbeEnd, ProbeEnd], nowMs = Date.now()): Promise<PairSamples> {
  const startAtMs = nowMs + START_MARGIN_MS;
  const reports = await Promise.all(
    ends.map(async (self, i) => {
      const peer = ends[1 - i];
      const cfg: ProbeConfig = {
        name: self.vehicle,
        bind: self.ip,
        port: STACK_PROBE_PORT,
        peer: { name: peer.vehicle, address: peer.ip },
        count: STACK_SHARE.probesPerDirection,
        intervalMs: STACK_SHARE.intervalMs,
        // the two directions interleave, so no probe waits behind the other's
        startAtMs: startAtMs + (i * STACK_SHARE.intervalMs) / 2,
        sizeBytes: STACK_SHARE.sizeBytes,
        lingerMs: STACK_SHARE.probeDelayS * 1000 + 200 + LATE_START_MS,
      };
      const r = await docker.exec(self.container, self.probe(JSON.stringify(cfg)));
      if (r.exitCode !== 0) throw new Error(`the stack probe in ${self.container} failed: ${r.stderr.trim() || `exit ${r.exitCode}`}`);
      return JSON.parse(r.stdout.trim().split('\n').at(-1) ?? '{}') as ProbeReport;
    }),
  );
  // each report holds what its end received: the peer's datagrams
  const bySeq = (r: ProbeReport) =>
    new Map((r.received ?? []).filter((x) => x.seq >= STACK_SHARE.warmUp).map((x) => [x.seq, x.latency_ms] as const));
  return { aToB: bySeq(reports[1]), bToA: bySeq(reports[0]) };
}

const asError = (err: unknown) => (err instanceof Error ? err : new Error(String(err)));

/** What the probes before the start gave: the channel's calibration, and each host's timing gates in a run over hosts. */
export interface ProbedTiming {
  calibration?: CalibrationResult;
  hosts?: HostTimingResult;
}

/**
 * Measures the stack share and tells ns-3 the delay to apply for the run (the configured one, less
 * the share); ns-3 started with the probe delay. Throws UserInputError when the configured delay is
 * below the share. A probe that could not run leaves the delay uncalibrated, said in the result.
 * In a run over hosts, each other host's pair is probed too, before the run's delay is set.
 */
export async function probeBeforeStart(
  docker: Pick<DockerPort, 'exec'>,
  plan: EmulatedRunPlan,
  channel: Pick<StartedChannel, 'setDelay'>,
): Promise<ProbedTiming> {
  const target = plan.channel.calibrate;
  const overHosts = plan.vehicles.some((v) => v.host !== undefined);
  if (!target && !overHosts) return {};
  const pairs = timingPairs(plan);
  const ends = (pair: [number, number]) => pair.map((i) => probeEnd(plan, i));
  const probe = (pair: [number, number]): Promise<PairSamples | Error> => {
    const [a, b] = ends(pair);
    if (!a || !b) return Promise.resolve(new Error('fewer than two cars run in containers, so there is no path to probe'));
    return probePair(docker, [a, b]).catch(asError);
  };
  const reference = await probe(pairs.reference);
  const calibration = target
    ? reference instanceof Error
      ? notCalibrated(target.delayS, reference.message)
      : calibrateDelay({
          delayS: target.delayS,
          latenciesMs: [...reference.aToB.values(), ...reference.bToA.values()],
          probeDelayS: STACK_SHARE.probeDelayS + target.probeFrameS,
        })
    : undefined;
  const hosts = overHosts ? await probeHosts(plan, pairs, reference, probe, target) : undefined;
  if (target && calibration) await channel.setDelay(calibration.calibration.applied_delay_ms / 1000, target.jitterS);
  return { ...(calibration ? { calibration } : {}), ...(hosts ? { hosts } : {}) };
}

/** One host after the other (two probes at once would share the channel), reusing the reference's probes for its own hosts. */
async function probeHosts(
  plan: EmulatedRunPlan,
  pairs: TimingPairs,
  reference: PairSamples | Error,
  probe: (pair: [number, number]) => Promise<PairSamples | Error>,
  target: EmulatedRunPlan['channel']['calibrate'],
): Promise<HostTimingResult> {
  const samples = new Map<string, PairSamples | Error>();
  for (const { host, pair } of pairs.hosts) samples.set(host, pair === pairs.reference ? reference : await probe(pair));
  // while probing, a calibrating channel holds each probe its probe delay each way; otherwise its own delay is unknown here
  const channelMs = target ? (STACK_SHARE.probeDelayS + target.probeFrameS) * 1000 : 0;
  return judgeHostTiming({ plan, pairs, reference, samples, channelMs });
}
