import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const SCRIPT = join(fileURLToPath(new URL('../../', import.meta.url)), 'scripts/local-slurm.sh');

/** The one-node Slurm of scripts/local-slurm.sh, started for a test file and stopped after it if it started it. */
export interface LocalSlurm {
  /** The SLURM_CONF the commands need. */
  conf: string;
  /** Stops Slurm if this test file started it. */
  release(): void;
}

export function startLocalSlurm(): LocalSlurm {
  const already = spawnSync('bash', [SCRIPT, 'status'], { encoding: 'utf8' }).status === 0;
  const start = spawnSync('bash', [SCRIPT, 'start'], { encoding: 'utf8' });
  if (start.status !== 0) throw new Error(`local Slurm did not start:\n${start.stderr}`);
  return {
    conf: /export SLURM_CONF=(\S+)/.exec(start.stdout)![1],
    release: () => {
      if (!already) spawnSync('bash', [SCRIPT, 'stop'], { encoding: 'utf8' });
    },
  };
}
