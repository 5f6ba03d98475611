export { doctorPassed, type RuntimeReadiness, runDoctor, runtimeReadiness } from './doctor.js';
export { doctorThisHost } from './doctor-here.js';
export { createHostDoctorPorts, findLeftoverRuns } from './host-ports.js';
export { tapCreatorPathsIn } from './tap-creator.js';
export type { CheckResult, DoctorOptions, DoctorPorts, LeftoverRun } from './types.js';
