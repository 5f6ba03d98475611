import { mkdtempSync, readdirSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { RUN_FILES } from '../../../src/run/run-files.js';
import { RunFolder, temporaryName } from '../../../src/run/run-folder.js';
import type { UnstartedSummary } from '../../../src/run/summary.js';

const root = mkdtempSync(join(tmpdir(), 'cavsim-reserve-'));
afterAll(() => rmSync(root, { recursive: true, force: true }));

describe("a run folder's space reserve", () => {
  it('is the summary temporary file: 1 MiB while the run goes, renamed into the summary at the end', () => {
    const folder = RunFolder.create(root, 'r1');
    folder.reserveSpace();
    expect(RUN_FILES.summaryReserve).toBe(temporaryName(RUN_FILES.summary));
    expect(statSync(folder.file(RUN_FILES.summaryReserve)).size).toBe(1024 * 1024);
    const inode = statSync(folder.file(RUN_FILES.summaryReserve)).ino;

    folder.writeSummary({ schema: 'cavsim.summary/1', run_id: 'r1', status: 'failed' } as unknown as UnstartedSummary);

    expect(readdirSync(folder.dir)).toEqual([RUN_FILES.summary]);
    const summary = statSync(folder.file(RUN_FILES.summary));
    expect(summary.ino).toBe(inode);
    expect(summary.size).toBeLessThan(200);
    expect(folder.readSummary()).toMatchObject({ run_id: 'r1', status: 'failed' });
  });

  it('is made once: a second reservation keeps the first file and does not throw', () => {
    const folder = RunFolder.create(root, 'r2');
    folder.reserveSpace();
    folder.reserveSpace();
    expect(readdirSync(folder.dir)).toEqual([RUN_FILES.summaryReserve]);
  });
});
