import { rmSync } from 'node:fs';
import type { OccupancyGrid } from '../../core/map/occupancy-grid.js';
import type { ResolvedScenario } from '../../scenario/resolved.js';
import { packageVersion } from '../host-facts.js';
import { RUN_FILES } from '../run-files.js';
import type { RunFolder } from '../run-folder.js';
import type { SimRunRecording } from './sim-recording.js';

/** Whether a run writes run.mcap: as `record.mcap` says, else the command's default (`up` yes, sweeps no). */
export const recordsMcap = (scenario: Pick<ResolvedScenario, 'record'>, byDefault = true) => scenario.record?.mcap ?? byDefault;

/**
 * Writes run.mcap from the run's CSVs, for either runtime. A recording that cannot be written
 * leaves the measurements as they are: the caller gets the reason to warn with.
 */
export async function recordRunMcap(
  folder: RunFolder,
  scenario: ResolvedScenario,
  p: { runtime: 'sim' | 'docker'; grid?: OccupancyGrid; timeBaseNs?: bigint; byDefault?: boolean },
): Promise<string | undefined> {
  if (!recordsMcap(scenario, p.byDefault)) return undefined;
  try {
    const { writeRunMcap } = await import('./mcap-recording.js');
    await writeRunMcap({
      runDir: folder.dir,
      scenario,
      grid: p.grid,
      timeBaseNs: p.timeBaseNs,
      runtime: p.runtime,
      runId: folder.runId,
      library: `cavsim ${packageVersion()}`,
    });
    return undefined;
  } catch (err) {
    // Half a recording is no use (`cavsim mcap` writes it again from the CSVs) and may hold a full disk.
    rmSync(folder.file(`${RUN_FILES.mcap}.partial`), { force: true });
    return `${RUN_FILES.mcap} was not written: ${err instanceof Error ? err.message : String(err)}`;
  }
}

/** The simulated runtime's run.mcap, recorded as the run goes (close it when the run ends). */
export async function openSimRecording(folder: RunFolder, scenario: ResolvedScenario, grid: OccupancyGrid): Promise<SimRunRecording> {
  const { SimRunRecording } = await import('./sim-recording.js');
  return new SimRunRecording({
    runDir: folder.dir,
    scenario,
    grid,
    runtime: 'sim',
    runId: folder.runId,
    library: `cavsim ${packageVersion()}`,
  });
}
