import { describe, expect, it } from 'vitest';
import { UserInputError } from '../../../../src/errors.js';
import { parseResources } from '../../../../src/host/docker/resources.js';

const MiB = 1024 * 1024;

describe('parseResources', () => {
  it.each([
    [
      { cpus: 0.5, memory: '256m' },
      { nanoCpus: 500_000_000, memoryBytes: 256 * MiB },
    ],
    [
      { cpus: '2', memory: '1g' },
      { nanoCpus: 2_000_000_000, memoryBytes: 1024 * MiB },
    ],
    [{ memory: '512MiB' }, { memoryBytes: 512 * MiB }],
    [{ memory: '64mb' }, { memoryBytes: 64 * MiB }],
    [{ memory: '1.5g' }, { memoryBytes: 1536 * MiB }],
    [{ memory: 8 * MiB }, { memoryBytes: 8 * MiB }],
    [{ memory: '10240k' }, { memoryBytes: 10 * MiB }],
    [{ cpus: 0.25 }, { nanoCpus: 250_000_000 }],
    [{}, {}],
  ])('%j -> %j', (input, expected) => {
    expect(parseResources(input)).toEqual(expected);
  });

  it.each([
    [{ cpus: 0 }, /cpus: expected a positive number/],
    [{ cpus: -1 }, /cpus: expected a positive number/],
    [{ cpus: 'half' }, /cpus: expected a positive number/],
    [{ memory: '256x' }, /memory: expected a size such as 256m/],
    [{ memory: '1m' }, /memory: Docker needs at least 6m/],
    [{ memory: 100 }, /memory: Docker needs at least 6m/],
  ])('rejects %j', (input, message) => {
    expect(() => parseResources(input, 'vehicles.car1.resources')).toThrow(UserInputError);
    expect(() => parseResources(input, 'vehicles.car1.resources')).toThrow(message);
  });

  it('names the scenario path in its message', () => {
    expect(() => parseResources({ memory: 'lots' }, 'vehicles.car1.resources')).toThrow(/^vehicles\.car1\.resources\.memory:/);
  });
});
