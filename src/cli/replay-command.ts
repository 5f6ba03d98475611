import { dirname, resolve } from 'node:path';
import type { Command } from 'commander';
import type { ReplayOutcome } from '../api/replay.js';
import { RUN_EXIT_STATUS } from '../run/outcome.js';
import { checkRunFolder } from '../run/read-run-folder.js';
import { RUNS_DIR } from '../run/run-folder.js';
import { checkWritableFolder, chooseFolder } from '../util/writable-folder.js';
import { printJson } from './json-output.js';

/** Exit status of a replay whose run ended but whose measurements differ from the original's. */
export const REPLAY_DIFFERS_EXIT = 1;

export function registerReplayCommand(program: Command): void {
  program
    .command('replay')
    .description('run a finished run again from its manifest and say whether the outcome is identical')
    .argument('<run-dir>', 'runs/<run-id>')
    .option('--runs-dir <dir>', 'where the replay is written (default: beside the original run)')
    .option('--json', 'print the comparison as JSON')
    .action(async (dir: string, flags: { runsDir?: string; json?: boolean }) => {
      checkRunFolder(dir, 'run folder', 'pass runs/<run-id> as printed by `cavsim up`');
      const runsDir = checkWritableFolder(
        flags.runsDir !== undefined
          ? chooseFolder(RUNS_DIR, flags.runsDir)
          : { path: dirname(resolve(dir)), origin: `the folder holding ${dir}` },
      );
      let stop = false;
      const onSigint = () => (stop = true);
      process.once('SIGINT', onSigint);
      try {
        const { replayRun } = await import('../api/replay.js');
        const outcome = await replayRun(dir, { runsDir, shouldStop: () => stop, command: process.argv.slice(2) });
        if (flags.json) printJson(replayJson(outcome));
        else process.stdout.write(describeReplay(outcome));
        process.exitCode = replayExitStatus(outcome);
      } finally {
        process.off('SIGINT', onSigint);
      }
    });
}

export function replayExitStatus(o: ReplayOutcome): number {
  const s = o.replay.summary;
  if (s.status !== 'completed') return s.exit_status ?? RUN_EXIT_STATUS[s.status];
  return agrees(o) ? 0 : REPLAY_DIFFERS_EXIT;
}

/** The simulated runtime must reproduce every measurement; an emulated run (real time) its verdict. */
function agrees(o: ReplayOutcome): boolean {
  if (o.manifest.runtime === 'sim') return o.comparison.identical;
  return o.comparison.summary.every((d) => d.key !== 'status' && d.key !== 'collision');
}

export function replayJson(o: ReplayOutcome) {
  return {
    run_dir: o.originalDir,
    replay_dir: o.replay.runDir,
    runtime: o.manifest.runtime,
    identical: o.comparison.identical,
    agrees: agrees(o),
    status: o.replay.summary.status,
    ...(o.replay.summary.reason ? { reason: o.replay.summary.reason } : {}),
    files: o.comparison.files.map((f) => ({
      file: f.file,
      identical: f.identical,
      ...(f.firstDifference ? { first_difference: f.firstDifference } : {}),
    })),
    summary_differences: o.comparison.summary,
    notes: o.notes,
  };
}

export function describeReplay(o: ReplayOutcome): string {
  const c = o.comparison;
  const lines = [`replay of ${o.manifest.run_id} (${o.manifest.runtime}, seed ${o.manifest.seed}) in ${o.replay.runDir}`];
  if (o.replay.summary.status !== 'completed')
    lines.push(`  the replay ended ${o.replay.summary.status}${o.replay.summary.reason ? `: ${o.replay.summary.reason}` : ''}`);
  if (c.identical) lines.push(`  identical: ${c.files.map((f) => f.file).join(', ')} byte for byte, and the summary`);
  else {
    for (const f of c.files) {
      if (f.identical) lines.push(`  same     ${f.file}`);
      else
        lines.push(
          `  differs  ${f.file} from line ${f.firstDifference!.line}:`,
          `             was ${f.firstDifference!.original}`,
          `             now ${f.firstDifference!.replay}`,
        );
    }
    for (const d of c.summary)
      lines.push(`  differs  summary ${d.key}: was ${JSON.stringify(d.original)}, now ${JSON.stringify(d.replay)}`);
    if (o.manifest.runtime === 'docker')
      lines.push(
        `  emulated runs are real time: their numbers vary from run to run; the verdict ${agrees(o) ? 'agrees' : 'does not agree'}`,
      );
  }
  for (const n of o.notes) lines.push(`  note: ${n}`);
  return `${lines.join('\n')}\n`;
}
