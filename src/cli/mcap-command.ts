import type { Command } from 'commander';
import { recordMcapOf } from '../api/record-mcap.js';
import { checkRunFolder } from '../run/read-run-folder.js';
import { printJson } from './json-output.js';

export function registerMcapCommand(program: Command): void {
  program
    .command('mcap')
    .description('write run.mcap (ROS 2 messages for Foxglove and rosbag2) from a run folder')
    .argument('<run-dir>', 'runs/<run-id>')
    .option('--json', 'print {file, messages, channels} as JSON')
    .action(async (dir: string, flags: { json?: boolean }) => {
      checkRunFolder(dir, 'run folder', 'pass runs/<run-id> as printed by `cavsim up`');
      const written = await recordMcapOf(dir);
      if (flags.json) printJson(written);
      else process.stdout.write(`${written.file}: ${written.messages} messages on ${written.channels} channels\n`);
    });
}
