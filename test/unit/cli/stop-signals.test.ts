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

  it('keeps listening until uninstalled, then listens no more', () => {
    const before = process.listenerCount('SIGHUP');
    const stop = installStopSignals(() => {});
    expect(process.listenerCount('SIGHUP')).toBe(before + 1);
    send('SIGHUP');
    send('SIGHUP');
    expect(process.listenerCount('SIGHUP')).toBe(before + 1);
    expect(stop.reason()).toMatch(/SIGHUP/);
    stop.uninstall();
    expect(process.listenerCount('SIGHUP')).toBe(before);
  });
});
