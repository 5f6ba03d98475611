import { describe, expect, it } from 'vitest';
import { commandOutput } from '../../../../src/host/exec/command-output.js';

describe('commandOutput', () => {
  it('gives what the command printed, trimmed', async () => {
    expect(await commandOutput([process.execPath, '-e', 'console.log("  3.37  ")'])).toBe('3.37');
  });

  it('gives null for a command that fails or cannot start', async () => {
    expect(await commandOutput([process.execPath, '-e', 'console.log("x"); process.exit(1)'])).toBeNull();
    expect(await commandOutput(['cavsim-no-such-program-here'])).toBeNull();
  });

  it('passes arguments as they are, with no shell', async () => {
    expect(await commandOutput([process.execPath, '-e', 'console.log(process.argv[1])', '$HOME; echo no'])).toBe('$HOME; echo no');
  });
});
