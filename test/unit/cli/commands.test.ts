import { Command } from 'commander';
import { describe, expect, it } from 'vitest';
import { COMMAND_NAMES, registerCommands } from '../../../src/cli/commands.js';

/** The table main.ts registers one command from must name every command, in --help's order. */
describe('the command table', () => {
  it('names every registered command, in order', async () => {
    const program = new Command('cavsim');
    await registerCommands(program);
    expect(program.commands.map((c) => c.name())).toEqual(COMMAND_NAMES);
  });

  it('a command named first registers that command (and those of its module) alone', async () => {
    for (const name of COMMAND_NAMES) {
      const program = new Command('cavsim');
      await registerCommands(program, ['node', 'cavsim', name]);
      const names = program.commands.map((c) => c.name());
      expect(names).toContain(name);
      expect(names.length).toBeLessThan(COMMAND_NAMES.length);
    }
  });

  it('anything else (--help, help, an option, a misspelt command) registers them all', async () => {
    for (const first of ['--help', 'help', '--verbose', 'validat', undefined]) {
      const program = new Command('cavsim');
      await registerCommands(program, ['node', 'cavsim', ...(first === undefined ? [] : [first])]);
      expect(program.commands.length).toBe(COMMAND_NAMES.length);
    }
  });
});
