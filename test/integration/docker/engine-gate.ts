import { connectDocker } from '../../../src/docker/dockerode-port.js';

export const IN_CI = process.env.CI === 'true';

/**
 * Connects to the engine and decides whether a Docker test file runs. Outside CI an unreachable
 * engine skips the file with a printed reason; under CI=true the file runs and `requireEngine()`
 * fails it with the reason, so CI can never pass without having exercised Docker.
 */
export async function probeEngine(file: string) {
  const docker = connectDocker();
  const problem = await docker.ping().then(
    () => undefined,
    (err: Error) => err.message,
  );
  if (problem && !IN_CI) console.warn(`[${file}] SKIPPED: ${problem}. Start it with \`sudo scripts/setup-docker.sh\`.`);
  return {
    docker,
    skip: problem !== undefined && !IN_CI,
    requireEngine() {
      if (problem) throw new Error(`Docker engine not reachable under CI=true: ${problem}. CI must run scripts/setup-docker.sh first.`);
    },
  };
}
