import { describe, expect, it } from 'vitest';
import { whyIgnored } from '../../../src/scenario/ignored-fields.js';
import { loadScenario } from '../../../src/scenario/load-scenario.js';
import { scenarioWorkspace } from '../../support/scenario-workspace.js';

const workspace = scenarioWorkspace('ignored');

const scenario = `name: t
map: maps/corridor.yaml
duration: 2s
network: { delay: 10ms, loss: 0.1 }
vehicles:
  - name: car0
    start: { x: -20, y: -1 }
    image: my/vehicle:1
    command: [python3, drive.py]
    resources: { cpus: 0.5 }
  - name: car1
    start: { x: 20, y: -1, yaw: 3.14159 }
    command: [python3, drive.py]
    resources: { cpus: 0.5 }
`;

describe('fields the chosen runtime ignores are warned about, located like errors', () => {
  const file = workspace.write(scenario, 'ignored.yaml');

  it('the simulated runtime runs own code (an image in a container, a command on this host) and names the CPU limit it cannot apply', async () => {
    const s = await loadScenario(file, { runtime: 'sim' });
    expect(s.warnings).toEqual([
      expect.stringMatching(/^vehicles\.car1\.resources \(line 14\): ignored: CPU and memory limits apply to containers/),
    ]);
  });

  it('the emulated runtime names a compute model, which only virtual time applies', async () => {
    const s = await loadScenario(file, {
      runtime: 'docker',
      overrides: ['vehicles.car0.compute.model=fixed', 'vehicles.car0.compute.fixed=5ms'],
    });
    expect(s.warnings).toEqual([
      expect.stringMatching(/^vehicles\.car0\.compute \(from --set\): ignored: emulated code takes its real time/),
    ]);
  });

  it('the emulated runtime runs the frame loss (in ns-3) and warns about nothing here', async () => {
    const s = await loadScenario(file, { runtime: 'docker' });
    expect(s.warnings ?? []).toEqual([]);
  });

  it('--set fields are warned about too, marked as such', async () => {
    const s = await loadScenario(file, { runtime: 'sim', overrides: ['timing.maxStepLateness=1ms'] });
    expect(s.warnings).toContainEqual(
      expect.stringMatching(/^timing\.maxStepLateness \(from --set\): ignored: virtual time is never late/),
    );
  });

  it('without a runtime there is nothing to warn about', async () => {
    expect((await loadScenario(file)).warnings).toBeUndefined();
  });

  it('whyIgnored matches swept paths by car name or index', () => {
    expect(whyIgnored('network.engine', 'docker')).toMatch(/always runs the channel in ns-3/);
    expect(whyIgnored('network.loss', 'docker')).toBeUndefined();
    expect(whyIgnored('network.loss', 'sim')).toBeUndefined();
    expect(whyIgnored('vehicles.car1.resources.cpus', 'sim')).toMatch(/CPU and memory/);
    expect(whyIgnored('vehicles[0].image', 'sim')).toBeUndefined();
    expect(whyIgnored('vehicles.car0.compute.fixed', 'docker')).toMatch(/real time/);
    expect(whyIgnored('network.delay', 'docker')).toBeUndefined();
  });
});
