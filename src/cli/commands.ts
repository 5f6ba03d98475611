import type { Command } from 'commander';

type Register = (program: Command) => void;

/**
 * Every command, in the order `cavsim --help` lists them, with the module that registers it.
 * A module is imported only when one of its commands is wanted, so a command loads the code
 * (and libraries) behind its own options and no other's.
 */
const COMMANDS: readonly { names: readonly string[]; load: () => Promise<Register> }[] = [
  { names: ['view'], load: async () => (await import('./view-command.js')).registerViewCommand },
  {
    names: ['teardown', 'status', 'doctor', 'images', 'plan'],
    load: async () => (await import('./emulation-commands.js')).registerEmulationCommands,
  },
  { names: ['waypoints'], load: async () => (await import('./waypoints-command.js')).registerWaypointsCommand },
  { names: ['sweep'], load: async () => (await import('./sweep-command.js')).registerSweepCommand },
  { names: ['sweep-task'], load: async () => (await import('./sweep-command.js')).registerSweepTaskCommand },
  { names: ['replay'], load: async () => (await import('./replay-command.js')).registerReplayCommand },
  { names: ['mcap'], load: async () => (await import('./mcap-command.js')).registerMcapCommand },
  { names: ['schema'], load: async () => (await import('./schema-command.js')).registerSchemaCommand },
  { names: ['report'], load: async () => (await import('./report-command.js')).registerReportCommand },
  { names: ['check'], load: async () => (await import('./check-command.js')).registerCheckCommand },
  { names: ['validate'], load: async () => (await import('./validate-command.js')).registerValidateCommand },
  { names: ['up', 'summary'], load: async () => (await import('./run-commands.js')).registerRunCommands },
];

/** The names of every command (`help` aside), as registered. */
export const COMMAND_NAMES: readonly string[] = COMMANDS.flatMap((c) => c.names);

/**
 * Registers the commands that `argv` can reach. When its first word is a command's name
 * (`cavsim validate ...`), only that command's module loads: the command parses, helps and fails
 * exactly as with all of them registered. Anything else (`--help`, `help`, an option first, a
 * misspelt command that commander answers with the closest names) registers every command.
 */
export async function registerCommands(program: Command, argv: readonly string[] = []): Promise<void> {
  const first = argv[2];
  const only = COMMANDS.find((c) => first !== undefined && c.names.includes(first));
  const registers = await Promise.all((only ? [only] : COMMANDS).map((c) => c.load()));
  for (const register of registers) register(program);
}
