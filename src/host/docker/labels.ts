import type { LabelFilter } from './docker-port.js';

/** Every Docker resource cavsim creates carries these, so leftovers can be found by run id alone. */
export const LABEL = {
  run: 'cavsim.run',
  role: 'cavsim.role',
  vehicle: 'cavsim.vehicle',
  contextHash: 'cavsim.context-hash',
} as const;

export type ContainerRole = 'simulator' | 'vehicle';
/** What a run's container does: a role with an image of its own, or the V2V relay (the vehicle image). */
export type RunContainerRole = ContainerRole | 'v2v-relay';

export function runLabels(runId: string, role?: RunContainerRole, vehicle?: string): Record<string, string> {
  const labels: Record<string, string> = { [LABEL.run]: runId };
  if (role) labels[LABEL.role] = role;
  if (vehicle !== undefined) labels[LABEL.vehicle] = vehicle;
  return labels;
}

/** Filter matching one run, or (runId undefined) anything labelled with some cavsim run id. */
export function runFilter(runId?: string): LabelFilter {
  return { [LABEL.run]: runId ?? true };
}

/** Docker's `label` filter syntax: `key=value` or bare `key`. */
export function toDockerLabelFilter(filter: LabelFilter): string[] {
  return Object.entries(filter).map(([key, value]) => (value === true ? key : `${key}=${value}`));
}
