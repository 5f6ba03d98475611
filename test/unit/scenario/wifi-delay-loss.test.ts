import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { chooseEngine } from '../../../src/channel/ns3/engine-choice.js';
import { loadScenario } from '../../../src/scenario/load-scenario.js';

const BLIND = fileURLToPath(new URL('../../../scenarios/blind-corner-beacons.yaml', import.meta.url));
const installed = () => Promise.resolve(true);

describe('wifi-80211p takes delay and loss, added on top of the radio (builtin engine)', () => {
  it('resolves them and picks the builtin engine even where ns-3 is installed', async () => {
    const s = await loadScenario(BLIND, { overrides: ['network.delay=50ms', 'network.loss=0.2'], runtime: 'sim' });
    expect(s.network).toMatchObject({ channel: 'wifi-80211p', delay: 0.05, loss: 0.2 });
    expect(await chooseEngine(s.network, installed)).toBe('builtin');
  });

  it('leaves a scenario without them as it was (no delay or loss keys, ns-3 when installed)', async () => {
    const s = await loadScenario(BLIND, { runtime: 'sim' });
    expect('delay' in s.network || 'loss' in s.network).toBe(false);
    expect(await chooseEngine(s.network, installed)).toBe('ns3');
  });

  it('refuses them with engine: ns3 and in the emulated runtime, naming the field and the fix', async () => {
    await expect(loadScenario(BLIND, { overrides: ['network.engine=ns3', 'network.delay=50ms'], runtime: 'sim' })).rejects.toMatchObject({
      details: [
        expect.stringMatching(
          /network.delay \(from --set\): delay on wifi-80211p is added .* builtin engine only; set network.engine: builtin/,
        ),
      ],
    });
    await expect(loadScenario(BLIND, { overrides: ['network.loss=0.1'], runtime: 'docker' })).rejects.toMatchObject({
      details: [expect.stringMatching(/network.loss .*emulated runtime's ns-3 does not add it: run it with --runtime sim/)],
    });
  });

  it('lte-v2x still refuses them', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'cavsim-wifi-delay-'));
    const file = join(dir, 's.yaml');
    writeFileSync(
      file,
      `name: s\nmap: ${fileURLToPath(new URL('../../../maps/open.yaml', import.meta.url))}\nduration: 1s\nnetwork: { channel: lte-v2x, delay: 10ms }\nvehicles:\n  - { name: a, start: { x: 0, y: 0 } }\n`,
    );
    await expect(loadScenario(file, { runtime: 'sim' })).rejects.toMatchObject({
      details: [expect.stringMatching(/network.delay .*delay applies only to/)],
    });
  });
});
