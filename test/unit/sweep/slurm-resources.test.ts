import { describe, expect, it } from 'vitest';
import { jobScript, SLURM_DEFAULTS, slurmResourceProblems } from '../../../src/sweep/slurm/job-script.js';

const ok = { ...SLURM_DEFAULTS };

describe('Slurm resources a sweep asks for', () => {
  it.each(['30', '30:00', '2:00:00', '1-00', '1-12:30', '7-00:00:00'])('accepts the time limit %s', (time) => {
    expect(slurmResourceProblems({ ...ok, time })).toEqual([]);
  });

  it.each(['forever', '0', '0:00', '-5', '1:2:3:4', '30:00\n#SBATCH --uid=0', ''])('refuses the time limit %j', (time) => {
    expect(slurmResourceProblems({ ...ok, time })).toEqual([expect.stringMatching(/^--time: .* is not a Slurm time limit/)]);
  });

  it.each(['2G', '512M', '1024', '1T'])('accepts the memory %s', (memory) => {
    expect(slurmResourceProblems({ ...ok, memory })).toEqual([]);
  });

  it.each(['-2G', '0', '2 G', '2GB', '2G;id'])('refuses the memory %j', (memory) => {
    expect(slurmResourceProblems({ ...ok, memory })).toEqual([expect.stringMatching(/^--mem: /)]);
  });

  it('refuses a partition that is not a name, and says all problems at once', () => {
    expect(slurmResourceProblems({ ...ok, partition: 'a b', time: 'x', memory: 'y' })).toHaveLength(3);
    expect(slurmResourceProblems({ ...ok, partition: 'debug' })).toEqual([]);
  });

  it('writes no job script from resources it would refuse (the script runs on a node as a shell script)', () => {
    const base = {
      jobName: 'cavsim-x',
      tasks: 2,
      sweepDir: '/data/x',
      batch: 0,
      logDir: '/data/x/slurm',
      cavsim: ['/usr/bin/node', 'main.js'],
    };
    expect(() => jobScript({ ...base, resources: { ...ok, partition: 'debug\nrm -rf /' } })).toThrow(
      /refusing to write a job script: --partition/,
    );
    expect(() => jobScript({ ...base, logDir: '/data/x\n#SBATCH --uid=0', resources: ok })).toThrow(/line break/);
  });
});
