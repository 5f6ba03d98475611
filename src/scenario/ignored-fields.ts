import type { ResolvedScenario } from './resolved.js';
import type { ScenarioProblem } from './scenario-problem.js';
import { TIMING_DEFAULTS } from './schema.js';

export type RuntimeName = 'sim' | 'docker';

interface IgnoredField {
  /** Dotted path; `*` stands for one vehicle (a name or an index). */
  pattern: string;
  /** True when the scenario gives the field a value that would matter elsewhere. */
  given: (s: ResolvedScenario, vehicle: ResolvedScenario['vehicles'][number]) => boolean;
  why: string;
}

const IGNORED: Record<RuntimeName, IgnoredField[]> = {
  sim: [
    {
      pattern: 'vehicles.*.resources',
      given: (_, v) => !v.image && (v.resources.cpus !== undefined || v.resources.memory !== undefined),
      why: 'CPU and memory limits apply to containers: a vehicle with an image, or --runtime docker',
    },
    {
      pattern: 'network.script',
      given: (s) => s.network.script !== undefined,
      why: 'the simulated runtime has its own channel model; an ns-3 script runs only with --runtime docker',
    },
    {
      pattern: 'timing.maxStepLateness',
      given: (s) => s.timing.maxStepLateness !== TIMING_DEFAULTS.maxStepLateness,
      why: 'virtual time is never late; the limit applies to emulated runs',
    },
    {
      pattern: 'timing.maxLateFraction',
      given: (s) => s.timing.maxLateFraction !== TIMING_DEFAULTS.maxLateFraction,
      why: 'virtual time is never late; the limit applies to emulated runs',
    },
  ],
  docker: [
    {
      pattern: 'vehicles.*.compute',
      given: (_, v) => v.compute.model !== 'none',
      why: 'emulated code takes its real time (limit it with resources.cpus); compute models that time in virtual time',
    },
    {
      pattern: 'network.engine',
      given: (s) => s.network.engine !== undefined,
      why: "the emulated runtime always runs the channel in ns-3 in real time; engine chooses the simulated runtime's channel model",
    },
    {
      pattern: 'record.v2v',
      given: (s) => s.record?.v2v !== undefined,
      why: 'the emulated runtime writes v2v.csv for every run; fleets without it are simulated runs',
    },
  ],
};

/** One warning per field the scenario sets that `runtime` does not use. */
export function ignoredFields(s: ResolvedScenario, runtime: RuntimeName): ScenarioProblem[] {
  const warnings: ScenarioProblem[] = [];
  for (const field of IGNORED[runtime]) {
    const parts = field.pattern.split('.');
    if (parts[1] !== '*') {
      if (field.given(s, s.vehicles[0])) warnings.push({ path: parts, message: `ignored: ${field.why}` });
      continue;
    }
    for (const v of s.vehicles)
      if (field.given(s, v)) warnings.push({ path: ['vehicles', v.index, ...parts.slice(2)], message: `ignored: ${field.why}` });
  }
  return warnings;
}

/** Why `runtime` ignores the field at `path` (as `--set` or a sweep names it), if it does. */
export function whyIgnored(path: string, runtime: RuntimeName): string | undefined {
  const segments = path.split(/[.[\]]+/).filter(Boolean);
  const field = IGNORED[runtime].find(({ pattern }) => {
    const parts = pattern.split('.');
    return parts.every((p, i) => p === '*' || p === segments[i]) && segments.length >= parts.length;
  });
  return field?.why;
}
