import type { Command } from 'commander';
import { describeNetwork } from '../scenario/describe-network.js';
import { requireCjs } from '../util/require-cjs.js';
import { printLoadWarnings, printWarnings } from './print-warnings.js';

const { Option } = requireCjs('commander') as typeof import('commander');

const collect = (value: string, previous: string[]) => [...previous, value];

/** validate: loads only the scenario's reader (zod, yaml, the map), nothing a run needs. */
export function registerValidateCommand(program: Command): void {
  program
    .command('validate')
    .description('check a scenario file and everything it names; prints every problem with its line')
    .argument('<scenario>', 'scenario YAML file')
    .option('--set <path=value>', 'override a field, e.g. network.delay=100ms (repeatable)', collect, [])
    .option('--json', 'print the resolved scenario as JSON')
    .addOption(new Option('--runtime <runtime>', 'warn about fields this runtime ignores').choices(['docker', 'sim']).default('docker'))
    .action(async (file: string, opts: { set: string[]; json?: boolean; runtime: 'docker' | 'sim' }) => {
      const { loadScenario } = await import('../scenario/load-scenario.js');
      const scenario = await loadScenario(file, { overrides: opts.set, runtime: opts.runtime });
      printWarnings(scenario.warnings, opts.runtime);
      printLoadWarnings(scenario, opts.runtime);
      if (opts.json) process.stdout.write(`${JSON.stringify(scenario, null, 2)}\n`);
      else
        process.stdout.write(
          `${file}: valid (${scenario.vehicles.length} vehicles, ${scenario.duration} s, ${describeNetwork(scenario.network)})\n`,
        );
    });
}
