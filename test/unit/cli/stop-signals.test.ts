import { describe, expect, it } from 'vitest';
import { installStopSignals } from '../../../src/cli/stop-signals.js';

const send = (signal: NodeJS.Signals) => process.emit(signal as 'SIGINT', signal);

describe('stop signals of `cavsim up`', () => {
  it('the first of SIGINT, SIGTERM, SIGHUP asks the run to stop and says why; later ones only say it is still tearing down', () => {
    const said: string[] = [];
    const stop = installStopSignals((line) => said.push(line));
    try {
      expect(stop.requested()).toBe(false);
      send('SIGTERM');
      expect(stop.requested()).toBe(true);
      expect(stop.reason()).toBe('stopped by SIGTERM');
      send('SIGINT');
      expect(stop.reason()).toBe('stopped by SIGTERM');
      expect(said[1]).toMatch(/^SIGINT again: still stopping and undoing what the run created/);
    } finally {
      stop.uninstall();
    }
  });

  it('keeps listening until uninstalled, and a signal then no longer stops anything', () => {
    const before = process.listenerCount('SIGHUP');
    const said: string[] = [];
    const stop = installStopSignals((line) => said.push(line));
    expect(process.listenerCount('SIGHUP')).toBe(before + 1);
    expect(stop.requested()).toBe(false);
    stop.uninstall();
    expect(process.listenerCount('SIGHUP')).toBe(before + 1);
    send('SIGHUP');
    expect(stop.requested()).toBe(false);
    expect(said).toEqual(['SIGHUP: the run and its teardown are over; cavsim is exiting\n']);
  });

  // Last, as what it leaves listening lasts until the process exits, as it does in the CLI.
  it('after a signal, a later one (a second Ctrl-C after a fast teardown) is answered, not left to kill the exiting process', () => {
    const said: string[] = [];
    const before = process.listenerCount('SIGINT');
    const stop = installStopSignals((line) => said.push(line));
    send('SIGINT');
    stop.uninstall();
    stop.uninstall();
    expect(process.listenerCount('SIGINT')).toBe(before + 1);
    send('SIGINT');
    expect(said.at(-1)).toBe('SIGINT again: the run and its teardown are over; cavsim is exiting\n');
  });
});
