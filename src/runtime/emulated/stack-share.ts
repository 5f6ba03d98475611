import { UserInputError } from '../../errors.js';
import { interpolatedQuantile } from '../../util/percentile.js';

/**
 * The stack share of an emulated run's V2V delay (docs/hostnet.md, "The stack share and its calibration"): what the path outside
 * ns-3's model adds to every frame (both containers' stacks, veth, bridge, tap, ns-3's hand-over,
 * the receiving program's wake-up). Measured before the cars move by probes over the whole path
 * while ns-3 applies `PROBE_DELAY_S`, and taken out of the delay ns-3 applies for the run.
 */
export const STACK_SHARE = {
  /** The delay ns-3 applies while probing: small, but a timed delivery as in the run. */
  probeDelayS: 0.001,
  /** Probes each way; the first `warmUp` of each are left out (first sends, first wake-ups). */
  probesPerDirection: 30,
  warmUp: 5,
  intervalMs: 5,
  sizeBytes: 200,
  /** Fewer samples than this (a lossy channel) and the share is not measured, the delay not calibrated. */
  minSamples: 10,
  /**
   * A spread (p75 - p25 of the samples) above this makes the run invalid: its delays vary more than
   * one calibration can take out. The tails (p10, p90) are reported; a loaded machine widens them first.
   * 2 ms: at load 7-9 on 2 cores the spread was 0.2-1.7 ms in 10 runs out of 12, 3.2 and 4.9 in the
   * others; the p50 the calibration uses is still good to ~0.15 ms at 2 ms with 80 probes, ~0.19 ms with 50.
   */
  spreadLimitMs: 2,
} as const;

/** What summary.json says under `timing.stack_calibration`. */
export interface StackCalibration {
  configured_delay_ms: number;
  /** The delay ns-3 applied for the run: configured minus the stack share p50 (unchanged when not measured). */
  applied_delay_ms: number;
  stack_share_p50_ms: number | null;
  stack_share_p10_ms: number | null;
  stack_share_p90_ms: number | null;
  /** p75 - p25. */
  spread_ms: number | null;
  spread_limit_ms: number;
  samples: number;
  /** Why the delay was not calibrated, when it was not. */
  not_calibrated?: string;
}

export interface CalibrationResult {
  calibration: StackCalibration;
  /** What the run says about it (a warning in summary.json and on the terminal). */
  warning: string;
  /** Set when the spread exceeds the limit: the run's invalid reason. */
  invalid?: string;
}

const round3 = (x: number) => Math.round(x * 1000) / 1000;

/**
 * From the probes' one-way latencies [ms] (measured while the channel model itself held each probe
 * `probeDelayS`: the probe delay and the probe's serialisation), the delay
 * ns-3 applies for the run. Throws UserInputError (exit 2) when the configured delay is below the
 * stack share: no delay ns-3 could apply would give it.
 */
export function calibrateDelay(p: { delayS: number; latenciesMs: readonly number[]; probeDelayS?: number }): CalibrationResult {
  const configured = p.delayS * 1000;
  const probeMs = (p.probeDelayS ?? STACK_SHARE.probeDelayS) * 1000;
  const shares = p.latenciesMs.map((l) => l - probeMs).sort((a, b) => a - b);
  if (shares.length < STACK_SHARE.minSamples)
    return notCalibrated(
      p.delayS,
      `only ${shares.length} of the probes arrived (at least ${STACK_SHARE.minSamples} needed)`,
      shares.length,
    );
  const base = { configured_delay_ms: round3(configured), spread_limit_ms: STACK_SHARE.spreadLimitMs, samples: shares.length };
  const [p10, p25, p50, p75, p90] = [0.1, 0.25, 0.5, 0.75, 0.9].map((q) => round3(interpolatedQuantile(shares, q)));
  if (configured < p50)
    throw new UserInputError(
      `network.delay ${round3(configured)} ms is below this machine's stack share, ${p50} ms measured before the start (p50 of ${shares.length} probes): no channel delay gives it`,
      [],
      `set network.delay to at least ${Math.ceil(p50 * 10) / 10} ms, or use --runtime sim, whose delay has no stack share`,
    );
  const spread = round3(p75 - p25);
  const applied = round3(configured - p50);
  const invalid =
    spread > STACK_SHARE.spreadLimitMs
      ? `the stack share varied by ${spread} ms (p75 - p25 of ${shares.length} probes before the start; allowed ${STACK_SHARE.spreadLimitMs} ms): V2V delays are not true to network.delay within the calibration (timing.stack_calibration)`
      : undefined;
  return {
    calibration: {
      ...base,
      applied_delay_ms: applied,
      stack_share_p50_ms: p50,
      stack_share_p10_ms: p10,
      stack_share_p90_ms: p90,
      spread_ms: spread,
    },
    warning: `network.delay ${round3(configured)} ms: ns-3 applies ${applied} ms, the stack share of this machine (${p50} ms p50, spread ${spread} ms, measured before the start) taken out so the cars see the setting`,
    ...(invalid ? { invalid } : {}),
  };
}

/** The configured delay applied as it is, and why. */
export function notCalibrated(delayS: number, why: string, samples = 0): CalibrationResult {
  const configured = round3(delayS * 1000);
  return {
    calibration: {
      configured_delay_ms: configured,
      applied_delay_ms: configured,
      stack_share_p50_ms: null,
      stack_share_p10_ms: null,
      stack_share_p90_ms: null,
      spread_ms: null,
      spread_limit_ms: STACK_SHARE.spreadLimitMs,
      samples,
      not_calibrated: why,
    },
    warning: `network.delay is not calibrated: ${why}; measured V2V delays include this machine's stack share (about 0.5-1 ms) on top of the setting`,
  };
}
