import { join, resolve } from 'node:path';
import type { Command } from 'commander';
import { checkRunFolder, readRunSummary } from '../run/read-run-folder.js';
import { SweepFolder } from '../sweep/sweep-folder.js';
import { checkWritableFolder } from '../util/writable-folder.js';
import { addFigureFlags, figureProgress, figureSize } from './figure-flags.js';
import { printJson } from './json-output.js';

export function registerReportCommand(program: Command): void {
  const command = program
    .command('report')
    .description('(re)draw the figures and tables of a sweep folder or a run folder, as SVG and PNG')
    .argument('<dir>', 'sweeps/<id> or runs/<run-id>')
    .option('--run-plots', "for a sweep, also draw each run's own kinematics figure")
    .option('--json', 'print the files written as JSON: {dir, tables, figures}');
  addFigureFlags(command).action(
    async (dir: string, flags: { runPlots?: boolean; json?: boolean; figureWidth?: number; fontSize?: number }) => {
      checkRunFolder(
        dir,
        'sweep or run folder',
        'pass sweeps/<id> as printed by `cavsim sweep`, or runs/<run-id> as printed by `cavsim up`',
      );
      if (SweepFolder.isSweepDir(dir)) SweepFolder.open(dir, dir);
      else readRunSummary(dir);
      checkWritableFolder({ path: join(dir, 'plots'), origin: dir });
      // the figure engines (vega, resvg) load only for the commands that draw
      const { writeReport } = await import('../ui/report/report.js');
      const files = await writeReport(dir, { runPlots: flags.runPlots, size: figureSize(flags), ...figureProgress });
      if (flags.json) printJson({ dir: resolve(dir), tables: files.tables, figures: files.figures });
      else for (const f of [...files.tables, ...files.figures]) process.stdout.write(`${f}\n`);
    },
  );
}
