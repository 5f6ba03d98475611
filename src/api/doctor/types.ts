import type { DockerPort } from '../../host/docker/docker-port.js';
import type { ImageSet } from '../../host/docker/images.js';
import type { CommandRunner } from '../../host/exec/command-runner.js';

export interface CheckResult {
  name: string;
  ok: boolean;
  detail: string;
  /** What to run or do when not ok. */
  fix?: string;
  /** Not ok but not blocking: `cavsim up` takes care of it by itself. */
  advisory?: boolean;
}

/** A run directory whose journal still lists resources that were never undone. */
export interface LeftoverRun {
  runId: string;
  journalPath: string;
  outstanding: number;
}

/** Everything the checks touch, passed in so they run against fakes in tests. */
export interface DoctorPorts {
  docker: Pick<DockerPort, 'ping' | 'inspectImage'>;
  commands: CommandRunner;
  fileExists(path: string): Promise<boolean>;
  readFile(path: string): Promise<Buffer>;
  /** Effective user id of this process. */
  uid: number;
  leftoverRuns(): Promise<LeftoverRun[]>;
  /** Builds and loads the posix_spawn addon: why it cannot be used, or undefined when it is. */
  fastProcessStart(): Promise<string | undefined>;
}

export interface DoctorOptions {
  baseImage?: string;
  images?: ImageSet;
}
