import { join } from 'node:path';
import { DEFAULT_GEO_REFERENCE } from '../../../core/v2x/networking/geo-reference.js';
import { ComputeLog } from '../../../measurement/compute-log.js';
import { CsvLog } from '../../../measurement/csv-log.js';
import { platoonLinks } from '../../../measurement/platoon.js';
import { FLUSH_EVERY_STEP, Recorder } from '../../../measurement/recorder.js';
import { ScanLog } from '../../../measurement/scan-log.js';
import { V2VCapture } from '../../../measurement/v2v-capture.js';
import { RUN_FILES, recorderFiles } from '../../../run/run-files.js';
import type { ResolvedScenario } from '../../../scenario/resolved.js';

const TIMING_COLUMNS = ['step', 't_s', 'lateness_ms', 'compute_ms'];

/** The files the simulator container writes into the run folder while the run goes. */
export class SimulatorLogs {
  readonly recorder: Recorder;
  readonly timingCsv: CsvLog;
  /** Each stamped drive command's answer time: a car's control loop as it ran in real time. */
  readonly computeLog: ComputeLog;
  readonly scanLog?: ScanLog;
  /** v2v.pcap: every frame a vehicle reported sending, at its send stamp. */
  readonly capture: V2VCapture;

  constructor(scenario: ResolvedScenario, runDir: string) {
    this.recorder = new Recorder(
      recorderFiles(runDir),
      scenario.vehicles.map((v) => v.name),
      FLUSH_EVERY_STEP,
      scenario.vehicles.map((v) => v.params),
      platoonLinks(scenario),
    );
    this.timingCsv = new CsvLog(join(runDir, RUN_FILES.timing), TIMING_COLUMNS);
    this.computeLog = new ComputeLog(join(runDir, RUN_FILES.compute), new Map(scenario.vehicles.map((v) => [v.name, 'real-time'])));
    if (scenario.record?.scans) this.scanLog = new ScanLog(join(runDir, RUN_FILES.scans));
    this.capture = new V2VCapture(join(runDir, RUN_FILES.pcap), scenario.geoReference ?? DEFAULT_GEO_REFERENCE);
  }

  /** The logs the recorder does not flush itself, every progress report. */
  flush(): void {
    this.timingCsv.flush();
    this.capture.flush();
    this.computeLog.flush();
    this.scanLog?.flush();
  }

  /**
   * Runs `last` (the last rows: the channel's losses), then closes every log whatever the others
   * do: on a full disk the first failure is the run's, and is returned.
   */
  close(last: () => void): unknown {
    let failure: unknown;
    for (const close of [
      last,
      () => this.recorder.closeTransmissions('not-received'),
      () => this.recorder.close(),
      () => this.timingCsv.close(),
      () => this.computeLog.close(),
      () => this.scanLog?.close(),
      () => this.capture.close(),
    ]) {
      try {
        close();
      } catch (err) {
        failure ??= err;
      }
    }
    return failure;
  }
}
