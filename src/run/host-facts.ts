import { readFileSync } from 'node:fs';
import { platform, release } from 'node:os';
import { join } from 'node:path';
import { commandOutput } from '../host/exec/command-output.js';
import type { CommandRunner } from '../host/exec/command-runner.js';
import { channelKind } from '../scenario/channel-kinds.js';
import { type ResolvedScenario, runsOwnCode } from '../scenario/resolved.js';
import { packageRoot } from '../util/package-root.js';
import { readHeadCommit } from './git-head.js';

/** What a run's result depends on besides its scenario: this cavsim, Node, the kernel, ns-3. */
export interface HostFacts {
  cavsim: { version: string; commit: string | null; modified: boolean | null };
  node: string;
  kernel: string;
  platform: string;
  ns3: string | null;
}

const PACKAGE_ROOT = packageRoot();

/**
 * What a run asks of the host. `processes: false` for a run that starts no process of its own (the
 * simulated runtime on the builtin engine, say): its facts then start none either, before its first
 * step or after: the commit is read from .git (null if only git could tell), `modified` is null
 * (only `git status` knows it) and `ns3` is null (the run used none).
 */
export interface HostFactsNeed {
  processes: boolean;
}

/**
 * Whether a run starts processes of its own: the emulated runtime, a channel ns-3 runs (or may run:
 * the engine not chosen yet), a car driven by its own code. Only then are its host facts asked of
 * git and pkg-config.
 */
export function hostFactsNeed(runtime: 'sim' | 'docker', scenario: Pick<ResolvedScenario, 'network' | 'vehicles'>): HostFactsNeed {
  const ns3 = channelKind(scenario.network.channel).ns3 && scenario.network.engine !== 'builtin';
  return { processes: runtime !== 'sim' || ns3 || scenario.vehicles.some(runsOwnCode) };
}

const asked = new Map<boolean, Promise<HostFacts>>();

/**
 * Asked once per process and need: a sweep writes a manifest for every run without paying for it
 * again. A command that will write a manifest asks early (without waiting), so git and pkg-config
 * run while it loads its scenario. `runner`: run the commands through it instead (tests).
 */
export function hostFacts(need: HostFactsNeed = { processes: true }, runner?: CommandRunner): Promise<HostFacts> {
  let facts = asked.get(need.processes);
  if (!facts) {
    facts = readHostFacts(need.processes ? (runner ? outputThrough(runner) : commandOutput) : undefined);
    asked.set(need.processes, facts);
  }
  return facts;
}

const outputThrough = (runner: CommandRunner) => async (argv: readonly string[]) => {
  const r = await runner.run(argv, { allowFailure: true }).catch(() => undefined);
  return r?.exitCode === 0 ? r.stdout.trim() : null;
};

/** `output` undefined: no command is started, and what only a command tells is null. */
async function readHostFacts(output?: (argv: readonly string[]) => Promise<string | null>): Promise<HostFacts> {
  const ask = output ?? (async () => null);
  const [commit, changes, ns3] = await Promise.all([
    readHeadCommit(PACKAGE_ROOT) ?? ask(['git', '-C', PACKAGE_ROOT, 'rev-parse', 'HEAD']),
    ask(['git', '-C', PACKAGE_ROOT, 'status', '--porcelain', '--untracked-files=no']),
    ask(['pkg-config', '--modversion', 'ns3-core']),
  ]);
  return {
    cavsim: { version: packageVersion(), commit, modified: commit === null || changes === null ? null : changes.length > 0 },
    node: process.version,
    kernel: release(),
    platform: platform(),
    ns3: ns3 || null,
  };
}

export function packageVersion(): string {
  const pkg = JSON.parse(readFileSync(join(PACKAGE_ROOT, 'package.json'), 'utf8')) as { version: string };
  return pkg.version;
}
