import { Command } from 'commander';
import { writeReport } from '../report/report.js';

export function registerReportCommand(program: Command): void {
  program
    .command('report')
    .description('(re)draw the figures and tables of a sweep folder or a run folder, as SVG and PNG')
    .argument('<dir>', 'sweeps/<id> or runs/<run-id>')
    .option('--run-plots', "for a sweep, also draw each run's own kinematics figure")
    .action(async (dir: string, flags: { runPlots?: boolean }) => {
      const files = await writeReport(dir, { runPlots: flags.runPlots });
      for (const f of [...files.tables, ...files.figures]) process.stdout.write(`${f}\n`);
    });
}
