import { readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runTopics } from '../../../../src/run/mcap/run-topics.js';
import { loadScenario } from '../../../../src/scenario/load-scenario.js';

const ROOT = resolve(import.meta.dirname, '../../../..');

interface Layout {
  configById: Record<string, { topics?: Record<string, unknown>; paths?: { value: string }[]; topicPath?: string }>;
  layout: unknown;
}

/** The panels a layout tree places, by id. */
function placedPanels(node: unknown): string[] {
  if (typeof node === 'string') return [node];
  const split = node as { first: unknown; second: unknown };
  return [...placedPanels(split.first), ...placedPanels(split.second)];
}

describe.each(['head-on-brake', 'platoon-cacc'])('docs/foxglove/%s.layout.json', (name) => {
  it('shows only topics a run of that scenario has, and places every panel it configures', async () => {
    const layout = JSON.parse(readFileSync(join(ROOT, 'docs/foxglove', `${name}.layout.json`), 'utf8')) as Layout;
    const scenario = await loadScenario(join(ROOT, 'scenarios', `${name}.yaml`));
    const topics = new Set(runTopics(scenario).map((t) => t.topic));
    const used = Object.values(layout.configById).flatMap((panel) => [
      ...Object.keys(panel.topics ?? {}),
      ...(panel.paths ?? []).map((p) => p.value.split('.')[0]),
      ...(panel.topicPath ? [panel.topicPath] : []),
    ]);
    expect(used.length).toBeGreaterThan(3);
    expect(used.filter((t) => !topics.has(t))).toEqual([]);
    for (const car of scenario.vehicles) expect(used).toContain(`/${car.name}/odom`);
    expect(placedPanels(layout.layout).sort()).toEqual(Object.keys(layout.configById).sort());
  });
});
