import type { CommandRunner } from '../../host/exec/command-runner.js';

/** How a finished array task ended, as the controller remembers it (for MinJobAge seconds). */
export interface TaskEnd {
  state: string;
  exitCode: string;
  reason?: string;
}

/** What the sweep needs of Slurm: submit an array, see which tasks are still queued or running, cancel. */
export interface SlurmPort {
  /** `sbatch --parsable`: the job id. */
  submit(scriptPath: string): Promise<string>;
  /** Array tasks still in the queue (pending or running), by index, with their state. */
  queued(jobId: string): Promise<Map<number, string>>;
  /** How task `index` ended, while the controller still knows; undefined otherwise. */
  taskEnd(jobId: string, index: number): Promise<TaskEnd | undefined>;
  cancel(jobId: string): Promise<void>;
}

/** The real Slurm, through its commands (no slurmdbd needed: squeue and scontrol, not sacct). */
export function slurmCommands(runner: CommandRunner): SlurmPort {
  return {
    async submit(scriptPath) {
      const { stdout } = await runner.run(['sbatch', '--parsable', scriptPath]);
      return stdout.trim().split(';')[0];
    },
    async queued(jobId) {
      const { stdout } = await runner.run(['squeue', '-h', '-r', '-j', jobId, '-o', '%i %T'], { allowFailure: true });
      const tasks = new Map<number, string>();
      for (const line of stdout.split('\n')) {
        const m = /^\d+_(\d+)\s+(\S+)/.exec(line.trim());
        if (m) tasks.set(Number(m[1]), m[2]);
      }
      return tasks;
    },
    async taskEnd(jobId, index) {
      const { stdout, exitCode } = await runner.run(['scontrol', 'show', 'job', '-o', `${jobId}_${index}`], { allowFailure: true });
      if (exitCode !== 0) return undefined;
      const field = (name: string) => new RegExp(`\\b${name}=(\\S+)`).exec(stdout)?.[1];
      const state = field('JobState');
      if (!state) return undefined;
      const reason = field('Reason');
      return { state, exitCode: field('ExitCode') ?? '', ...(reason && reason !== 'None' ? { reason } : {}) };
    },
    async cancel(jobId) {
      await runner.run(['scancel', jobId], { allowFailure: true });
    },
  };
}
