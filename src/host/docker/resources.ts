import { UserInputError } from '../../errors.js';
import type { ContainerResources } from './docker-port.js';

/** As written in a scenario: `resources: {cpus: 0.5, memory: 256m}`. */
export interface ResourceLimits {
  cpus?: number | string;
  memory?: number | string;
}

const MEMORY_UNITS: Record<string, number> = { '': 1, b: 1, k: 1024, m: 1024 ** 2, g: 1024 ** 3 };
/** Docker refuses memory limits below 6 MiB. */
const MIN_MEMORY_BYTES = 6 * 1024 ** 2;

/**
 * Turns scenario limits into Docker's units. Memory follows `docker run --memory`: a number of
 * bytes or a number with b, k, m or g (binary multiples; `kb`, `mi`, `mib` are accepted too).
 */
export function parseResources(limits: ResourceLimits, where = 'resources'): ContainerResources {
  const out: ContainerResources = {};
  if (limits.cpus !== undefined) out.nanoCpus = parseCpus(limits.cpus, `${where}.cpus`);
  if (limits.memory !== undefined) out.memoryBytes = parseMemory(limits.memory, `${where}.memory`);
  return out;
}

export function parseCpus(value: number | string, where = 'cpus'): number {
  const cpus = typeof value === 'number' ? value : Number(value.trim());
  if (!Number.isFinite(cpus) || cpus <= 0) {
    throw new UserInputError(`${where}: expected a positive number of CPUs such as 0.5, got ${JSON.stringify(value)}`);
  }
  return Math.round(cpus * 1e9);
}

export function parseMemory(value: number | string, where = 'memory'): number {
  let bytes: number;
  if (typeof value === 'number') {
    bytes = value;
  } else {
    const match = /^(\d+(?:\.\d+)?)\s*([bkmg]?)(?:ib|i|b)?$/i.exec(value.trim());
    if (!match) {
      throw new UserInputError(`${where}: expected a size such as 256m or 1g, got ${JSON.stringify(value)}`);
    }
    bytes = Number(match[1]) * MEMORY_UNITS[match[2].toLowerCase()];
  }
  bytes = Math.floor(bytes);
  if (!Number.isFinite(bytes) || bytes < MIN_MEMORY_BYTES) {
    throw new UserInputError(`${where}: Docker needs at least 6m of memory, got ${JSON.stringify(value)}`);
  }
  return bytes;
}
