export { runDoctor, doctorPassed, runtimeReadiness, type RuntimeReadiness } from './doctor.js';
export { createHostDoctorPorts, findLeftoverRuns } from './host-ports.js';
export { tapCreatorPathsIn } from './tap-creator.js';
export type { CheckResult, DoctorPorts, DoctorOptions, LeftoverRun } from './types.js';
export { doctorThisHost } from './doctor-here.js';
