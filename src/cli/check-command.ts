import { join } from 'node:path';
import { type Command, Option } from 'commander';
import { UserInputError } from '../errors.js';
import type { RunEvent } from '../run/events.js';
import { checkRunId } from '../run/run-folder.js';
import { EventBus } from '../util/event-bus.js';
import { checkWritableFolder, chooseFolder } from '../util/writable-folder.js';
import { decimal } from './flag-values.js';
import { printJson } from './json-output.js';
import { printWarningsFromEvents } from './print-warnings.js';
import { installStopSignals } from './stop-signals.js';

const collect = (value: string, previous: string[]) => [...previous, value];

/** A length flag in metres: `50m` or `50`, more than 0. */
const metres = (flag: string) => {
  const number = decimal(flag, 'a length in metres greater than 0, e.g. 50m', (n) => n > 0);
  return (text: string) => number(text.trim().replace(/m$/i, ''));
};

interface ChannelCheckFlags {
  bin: number;
  maxDistance: number;
  set: string[];
  maxMad?: number;
  checksDir?: string;
  checkId?: string;
  plots: boolean;
  json?: boolean;
}

/** `cavsim check channel`: the builtin 802.11p engine against ns-3 on one scenario. */
export function registerCheckCommand(program: Command): void {
  const check = program.command('check').description('compare what cavsim models against a reference');
  check
    .command('channel')
    .description(
      'run a wifi-80211p scenario twice in the simulated runtime, with the builtin engine and with ns-3, and compare delivery against distance (by loss reason) and CBR',
    )
    .argument('<scenario>', 'scenario YAML file, network.channel: wifi-80211p')
    .addOption(new Option('--bin <length>', 'width of the distance bins').argParser(metres('--bin')).default(50, '50m'))
    .addOption(new Option('--max-distance <length>', 'distance the bins reach').argParser(metres('--max-distance')).default(500, '500m'))
    .option('--set <path=value>', 'override a field, e.g. network.txPower=20dBm (repeatable)', collect, [])
    .option(
      '--max-mad <mad>',
      'exit 1 when the delivery MAD or the CBR mean difference is above this (e.g. 0.03)',
      decimal('--max-mad', 'a deviation from 0 to 1, e.g. 0.03', (n) => n >= 0 && n <= 1),
    )
    .option('--checks-dir <dir>', 'where check folders are written (default ./checks or $CAVSIM_CHECKS_DIR)')
    .option('--check-id <id>', 'name of the check folder; default: date, time and 4 random hex digits')
    .option('--no-plots', 'skip the figure')
    .option('--json', 'print the comparison as JSON')
    .addHelpText(
      'after',
      `
The two runs go to <checks dir>/<check id>/runs/builtin and runs/ns3, with channel-check.csv,
channel-check.json and plots/delivery-distance.{svg,png,pdf} beside them (docs/usage.md).

Exit status: 0 both runs completed (the deviations are information), 1 a deviation is over
--max-mad, 2 bad input (a scenario whose network.channel is not wifi-80211p), 3 ns-3 is not
installed; a run that did not complete gives its own status (5 failed, 6 invalid, 130 interrupted).`,
    )
    .action(async (file: string, flags: ChannelCheckFlags) => {
      if (flags.checkId !== undefined) checkRunId('--check-id', flags.checkId);
      const { CHECKS_DIR, checkChannel } = await import('../api/check-channel.js');
      const checksDir = checkWritableFolder(chooseFolder(CHECKS_DIR, flags.checksDir));
      if (flags.bin >= flags.maxDistance)
        throw new UserInputError(`--bin ${flags.bin}m is not less than --max-distance ${flags.maxDistance}m`, [], 'give a narrower --bin');
      const events = new EventBus<RunEvent>();
      if (flags.json) printWarningsFromEvents(events);
      else events.on((await import('../ui/terminal/check/channel-check-text.js')).createCheckReporter());
      const stop = installStopSignals((line) => process.stderr.write(line));
      try {
        const result = await checkChannel(file, {
          overrides: flags.set,
          binWidth: flags.bin,
          maxDistance: flags.maxDistance,
          checksDir,
          ...(flags.checkId !== undefined ? { checkId: flags.checkId } : {}),
          ...(flags.maxMad !== undefined ? { maxMad: flags.maxMad } : {}),
          events,
          shouldStop: stop.requested,
          stopReason: stop.reason,
          command: process.argv.slice(2),
        });
        const figure = flags.plots ? await drawFigure(result) : undefined;
        if (flags.json) printJson({ ...result, figure });
        else process.stdout.write((await import('../ui/terminal/check/channel-check-text.js')).formatChannelCheck(result, figure));
        process.exitCode = result.exitStatus;
      } finally {
        stop.uninstall();
      }
    });
}

/** The figure's PNG path (its SVG, PDF and spec beside it), or undefined when no bin has frames. */
async function drawFigure(result: import('../api/check-channel.js').ChannelCheckResult): Promise<string | undefined> {
  const [{ channelCheckFigure }, { writeFigure }, { CHECK_FILES }] = await Promise.all([
    import('../ui/report/channel-check-figure.js'),
    import('../ui/report/render.js'),
    import('../api/check-channel.js'),
  ]);
  const spec = channelCheckFigure(result);
  return spec ? (await writeFigure(join(result.dir, CHECK_FILES.plots), 'delivery-distance', spec)).png : undefined;
}
