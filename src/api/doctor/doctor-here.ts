import { defaultRunsDir } from '../../run/run-folder.js';
import { realHostPorts } from '../host-ports.js';
import { runDoctor } from './doctor.js';
import { createHostDoctorPorts } from './host-ports.js';
import type { CheckResult } from './types.js';

/** `cavsim doctor` on this machine, with its real Docker engine and commands. */
export function doctorThisHost(): Promise<CheckResult[]> {
  const { docker, commands } = realHostPorts();
  return runDoctor(createHostDoctorPorts({ docker, commands, runsDir: defaultRunsDir() }));
}
