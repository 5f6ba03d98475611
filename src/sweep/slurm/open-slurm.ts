import { EnvironmentError } from '../../errors.js';
import { createCommandRunner } from '../../host/exec/command-runner.js';
import { SlurmExecutor, type SlurmExecutorOptions } from './slurm-executor.js';
import { slurmCommands } from './slurm-port.js';

/** The Slurm executor, once `sbatch` answers here. */
export async function openSlurm(options: SlurmExecutorOptions): Promise<SlurmExecutor> {
  const runner = createCommandRunner();
  const probe = await runner.run(['sbatch', '--version'], { allowFailure: true }).catch(() => ({ exitCode: -1, stderr: '' }));
  if (probe.exitCode !== 0) {
    throw new EnvironmentError('--executor slurm: `sbatch` does not run on this machine', 'run the sweep on a Slurm login node, or start a one-node Slurm here: sudo bash scripts/local-slurm.sh start, then export the SLURM_CONF it prints');
  }
  return new SlurmExecutor(slurmCommands(runner), options);
}
