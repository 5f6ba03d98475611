import type { StartedChannel } from '../../channel/ns3/realtime-channel.js';
import type { DockerPort } from '../../host/docker/docker-port.js';
import { STACK_PROBE_PORT } from '../../ports.js';
import { LIGHT_CAR_PROGRAM } from './light-car.js';
import type { EmulatedRunPlan } from './plan-emulated.js';
import { type CalibrationResult, calibrateDelay, notCalibrated, STACK_SHARE } from './stack-share.js';
import type { ProbeConfig, ProbeReport } from './v2v/stack-probe.js';

const PROBE_SCRIPT = '/opt/cavsim/dist/runtime/emulated/containers/stack-probe-main.js';
/** From the exec calls to the first send: both probe programs start and bind well within it, even on a loaded machine. */
const START_MARGIN_MS = 1000;

/**
 * Two cars whose V2V socket lives in a cavsim container: their own, or their relay's (a car running
 * its own code); each probed through the program that receives its frames in the run.
 */
function probeEnds(plan: EmulatedRunPlan): { container: string; vehicle: string; ip: string; probe: (cfg: string) => string[] }[] {
  const relayOf = new Map(plan.v2vRelays.map((r) => [r.vehicle, r.name]));
  return plan.vehicles.slice(0, 2).map((v) => ({
    container: relayOf.get(v.vehicle) ?? v.name,
    vehicle: v.vehicle,
    ip: v.v2vIp,
    probe: (cfg) => (v.cmd?.[0] === LIGHT_CAR_PROGRAM ? [LIGHT_CAR_PROGRAM, '--probe', cfg] : ['node', PROBE_SCRIPT, cfg]),
  }));
}

/** Both probes at once, each sending to the other; the one-way latencies [ms] both received, warm-up left out. */
export async function probeStack(docker: Pick<DockerPort, 'exec'>, plan: EmulatedRunPlan, nowMs = Date.now()): Promise<number[]> {
  const ends = probeEnds(plan);
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
        lingerMs: STACK_SHARE.probeDelayS * 1000 + 200,
      };
      const r = await docker.exec(self.container, self.probe(JSON.stringify(cfg)));
      if (r.exitCode !== 0) throw new Error(`the stack probe in ${self.container} failed: ${r.stderr.trim() || `exit ${r.exitCode}`}`);
      return JSON.parse(r.stdout.trim().split('\n').at(-1) ?? '{}') as ProbeReport;
    }),
  );
  return reports.flatMap((r) => (r.received ?? []).filter((x) => x.seq >= STACK_SHARE.warmUp).map((x) => x.latency_ms));
}

/**
 * Measures the stack share and tells ns-3 the delay to apply for the run (the configured one, less
 * the share); ns-3 started with the probe delay. Throws UserInputError when the configured delay is
 * below the share. A probe that could not run leaves the delay uncalibrated, said in the result.
 */
export async function calibrateChannelDelay(
  docker: Pick<DockerPort, 'exec'>,
  plan: EmulatedRunPlan,
  channel: Pick<StartedChannel, 'setDelay'>,
): Promise<CalibrationResult | undefined> {
  const target = plan.channel.calibrate;
  if (!target) return undefined;
  const result =
    probeEnds(plan).length < 2
      ? notCalibrated(target.delayS, 'fewer than two cars run in containers, so there is no path to probe')
      : await probeStack(docker, plan).then(
          (latenciesMs) =>
            calibrateDelay({ delayS: target.delayS, latenciesMs, probeDelayS: STACK_SHARE.probeDelayS + target.probeFrameS }),
          (err: unknown) => notCalibrated(target.delayS, err instanceof Error ? err.message : String(err)),
        );
  await channel.setDelay(result.calibration.applied_delay_ms / 1000, target.jitterS);
  return result;
}
