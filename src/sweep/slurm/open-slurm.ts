import { statSync } from 'node:fs';
import { EnvironmentError } from '../../errors.js';
import { createCommandRunner } from '../../host/exec/command-runner.js';
import { SlurmExecutor, type SlurmExecutorOptions } from './slurm-executor.js';
import { slurmCommands } from './slurm-port.js';

/** The Slurm executor, once `sbatch` answers here. */
export async function openSlurm(options: SlurmExecutorOptions, env: NodeJS.ProcessEnv = process.env): Promise<SlurmExecutor> {
  // sbatch with a SLURM_CONF that names no file retries for a minute in silence: say it at once.
  const conf = env.SLURM_CONF;
  if (conf !== undefined && !statSync(conf, { throwIfNoEntry: false })?.isFile()) {
    throw new EnvironmentError(
      `SLURM_CONF=${conf}: no such file`,
      'export the slurm.conf path your cluster (or `scripts/local-slurm.sh start`) gives, or unset SLURM_CONF to use the default',
    );
  }
  const runner = createCommandRunner();
  const probe = await runner.run(['sbatch', '--version'], { allowFailure: true }).catch(() => ({ exitCode: -1, stderr: '' }));
  if (probe.exitCode !== 0) {
    throw new EnvironmentError(
      '--executor slurm: `sbatch` does not run on this machine',
      'run the sweep on a Slurm login node, or start a one-node Slurm here: sudo bash scripts/local-slurm.sh start, then export the SLURM_CONF it prints',
    );
  }
  return new SlurmExecutor(slurmCommands(runner), options);
}
