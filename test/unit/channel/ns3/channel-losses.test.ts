import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parse } from 'csv-parse/sync';
import { afterAll, describe, expect, it } from 'vitest';
import { parseChannelLosses, readChannelLosses } from '../../../../src/channel/ns3/channel-losses.js';
import { Recorder } from '../../../../src/measurement/recorder.js';
import { recorderFiles } from '../../../../src/run/run-files.js';

const dir = mkdtempSync(join(tmpdir(), 'cavsim-losses-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe("the real-time program's loss file", () => {
  it('reads reason, power and line of sight per frame and receiver; skips a line cut short or unknown', () => {
    const text = [
      'lost car0-1 1 below-sensitivity -88.193862 0',
      'lost car1-4 0 channel-loss nan -',
      'lost car0-2 1 rx-err',
      'lost car0-3 1 teleported nan -',
      'lost car0-5 x rx-error nan -',
      'lost car0-6 2 propagation -93.5 -',
      'lost car0-7 2 collision -70.25 1',
      'lost car0-8 0 rx-error -80 -',
      '',
    ].join('\n');
    expect(parseChannelLosses(text)).toEqual([
      { id: 'car0-1', node: 1, reason: 'below-sensitivity', rxPowerDbm: -88.193862, lineOfSight: false },
      { id: 'car1-4', node: 0, reason: 'channel-loss' },
      { id: 'car0-6', node: 2, reason: 'propagation', rxPowerDbm: -93.5 },
      { id: 'car0-7', node: 2, reason: 'collision', rxPowerDbm: -70.25, lineOfSight: true },
      // a program from before the split
      { id: 'car0-8', node: 0, reason: 'rx-error', rxPowerDbm: -80 },
    ]);
    expect(readChannelLosses(join(dir, 'absent.txt'))).toEqual([]);
  });

  it("a reported loss settles only that receiver's open row; the rest end as not received", () => {
    const recorder = new Recorder(recorderFiles(dir), ['car0', 'car1', 'car2']);
    recorder.recordSent({ id: 'car0-1', from: 'car0', to: ['car1', 'car2'], type: 'beacon', sentAt: 1.5, sizeBytes: 300 });
    recorder.recordLossOf('car0-1', 'car1', 'below-sensitivity', { rxPowerDbm: -90, lineOfSight: false });
    recorder.recordLossOf('car0-1', 'car1', 'rx-error'); // already settled: ignored
    recorder.recordLossOf('car9-9', 'car1', 'rx-error'); // never sent: ignored
    recorder.closeTransmissions('not-received');
    recorder.close();
    const rows = parse(readFileSync(join(dir, 'v2v.csv'), 'utf8'), { columns: true }) as Record<string, string>[];
    expect(rows.map((r) => [r.to, r.outcome, r.rx_power_dbm, r.line_of_sight])).toEqual([
      ['car1', 'below-sensitivity', '-90', 'false'],
      ['car2', 'not-received', '', ''],
    ]);
  });
});
