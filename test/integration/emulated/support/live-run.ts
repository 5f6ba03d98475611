import { type ChildProcess, spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { runScenarioEmulated } from '../../../../src/api/run-emulated.js';
import { Journal } from '../../../../src/host/journal/journal.js';
import { NS3_PROCESS_KIND } from '../../../../src/host/journal/kinds.js';
import type { RunEvent } from '../../../../src/run/events.js';
import { newRunId } from '../../../../src/run/run-folder.js';
import type { EmulatedRunPlan } from '../../../../src/runtime/emulated/plan-emulated.js';
import type { EmulatedRunOptions, EmulatedRunOutcome } from '../../../../src/runtime/emulated/run-emulated.js';
import { EventBus } from '../../../../src/util/event-bus.js';

/** An emulated run started through the API, with a hook once its scenario is running in real time. */
export interface LiveRun {
  runId: string;
  runDir: string;
  /** Resolves when the run reports `running` (the `start` command was sent). */
  running: Promise<void>;
  outcome: Promise<EmulatedRunOutcome>;
  plan(): EmulatedRunPlan;
  ns3Pid(): number;
}

export function startLiveRun(file: string, p: { runsDir: string; overrides?: string[] } & Partial<EmulatedRunOptions>): LiveRun {
  const runId = newRunId();
  const events = new EventBus<RunEvent>();
  const running = new Promise<void>((resolve) => events.on((e) => e.type === 'phase' && e.phase === 'running' && resolve()));
  const runDir = join(p.runsDir, runId);
  const outcome = runScenarioEmulated(file, {
    overrides: p.overrides,
    runsDir: p.runsDir,
    runId,
    events,
    keep: p.keep,
    shouldStop: p.shouldStop,
  });
  return {
    runId,
    runDir,
    running: Promise.race([running, outcome.then(() => Promise.reject(new Error('the run ended before it was running')))]),
    outcome,
    plan: () => JSON.parse(readFileSync(join(runDir, 'plan.json'), 'utf8')) as EmulatedRunPlan,
    ns3Pid: () =>
      Number(
        Journal.open(join(runDir, 'journal.jsonl'))
          .outstanding()
          .find((e) => e.kind === NS3_PROCESS_KIND)!.id,
      ),
  };
}

export const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** `cavsim ...` as a child process; `until` resolves when its output matches. */
export function spawnCli(
  cli: string,
  args: string[],
  env: NodeJS.ProcessEnv = process.env,
): { child: ChildProcess; output: () => string; until(re: RegExp, timeoutMs?: number): Promise<void>; exit: Promise<number | null> } {
  const child = spawn('node', [cli, ...args], { env: { ...env, CI: 'true' }, stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  const waiters: { re: RegExp; resolve: () => void }[] = [];
  const onData = (d: Buffer) => {
    output += d.toString();
    for (const w of waiters.filter((w) => w.re.test(output))) w.resolve();
  };
  child.stdout!.on('data', onData);
  child.stderr!.on('data', onData);
  const exit = new Promise<number | null>((r) => child.once('exit', (code) => r(code)));
  return {
    child,
    output: () => output,
    exit,
    until: (re, timeoutMs = 240_000) =>
      new Promise<void>((resolve, reject) => {
        if (re.test(output)) return resolve();
        const timer = setTimeout(() => reject(new Error(`no ${re} within ${timeoutMs} ms:\n${output}`)), timeoutMs);
        waiters.push({ re, resolve: () => (clearTimeout(timer), resolve()) });
        void exit.then(() => setTimeout(() => reject(new Error(`exited before ${re}:\n${output}`)), 50));
      }),
  };
}
