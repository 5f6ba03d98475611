import { describe, expect, it } from 'vitest';
import { checkHosts } from '../../../../src/api/doctor/host-checks.js';
import type { HostEngine } from '../../../../src/host/docker/host-engines.js';

const IMAGES = ['cavsim/base:bookworm', 'cavsim/vehicle:latest'];
const HERE: Record<string, string> = { 'cavsim/base:bookworm': 'sha256:b1', 'cavsim/vehicle:latest': 'sha256:v1' };

function engine(
  name: string,
  opts: { tunnelAddress?: string; silent?: boolean; images?: Record<string, string>; cores?: number },
): HostEngine {
  return {
    host: {
      name,
      engineUrl: opts.tunnelAddress ? `tcp://${opts.tunnelAddress}:2376` : 'unix:///var/run/docker.sock',
      ...(opts.tunnelAddress ? { tunnelAddress: opts.tunnelAddress } : {}),
      ...(opts.cores ? { cores: opts.cores } : {}),
    } as HostEngine['host'],
    docker: {
      ping: () => (opts.silent ? new Promise(() => {}) : Promise.resolve()),
      inspectImage: async (tag: string) => (opts.images?.[tag] ? { id: opts.images[tag] } : undefined),
    } as unknown as HostEngine['docker'],
  };
}

/** `ip route get`: 10.0.0.0/24 is routed from 10.0.0.1, anything else is not. */
const commands = {
  run: async (argv: readonly string[]) => {
    const to = argv.at(-1)!;
    return to.startsWith('10.0.0.')
      ? { exitCode: 0, stdout: `${to} dev eth0 src 10.0.0.1 uid 0 \\    cache `, stderr: '' }
      : { exitCode: 2, stdout: '', stderr: 'RTNETLINK answers: Network is unreachable' };
  },
} as never;

describe('cavsim doctor --hosts: each host of the file', () => {
  it('names the engine that answers, its route and cores; the images as the same build, or a note that the first run ships them', async () => {
    const results = await checkHosts(
      [
        engine('lab-1', { tunnelAddress: '10.0.0.11', images: HERE, cores: 4 }),
        engine('lab-2', {
          tunnelAddress: '10.0.0.12',
          images: { 'cavsim/base:bookworm': 'sha256:b1', 'cavsim/vehicle:latest': 'sha256:old' },
        }),
        engine('here', {}),
      ],
      { local: { inspectImage: async (tag: string) => (HERE[tag] ? { id: HERE[tag] } : undefined) } as never, commands, images: IMAGES },
    );
    expect(results).toEqual([
      { name: 'Host lab-1', ok: true, detail: 'tcp://10.0.0.11:2376 answers; VXLAN from 10.0.0.1 to 10.0.0.11; 4 cores' },
      { name: 'Host lab-1 images', ok: true, detail: 'cavsim/base:bookworm, cavsim/vehicle:latest: the same build as here' },
      { name: 'Host lab-2', ok: true, detail: 'tcp://10.0.0.12:2376 answers; VXLAN from 10.0.0.1 to 10.0.0.12' },
      {
        name: 'Host lab-2 images',
        ok: false,
        advisory: true,
        detail: 'cavsim/vehicle:latest is another build: the first run ships it (docker save here, load there; tens of seconds)',
      },
      { name: 'Host here', ok: true, detail: "unix:///var/run/docker.sock answers; the run's own engine: the cars dealt to it stay here" },
    ]);
  });

  it('fails a host whose engine does not answer, or that this machine has no route to, with the fix', async () => {
    const results = await checkHosts(
      [engine('gone', { tunnelAddress: '10.0.0.13', silent: true }), engine('far', { tunnelAddress: '192.0.2.7', images: HERE })],
      { local: { inspectImage: async () => undefined } as never, commands, images: IMAGES, pingMs: 50 },
    );
    expect(results.map((r) => [r.name, r.ok, r.advisory])).toEqual([
      ['Host gone', false, undefined],
      ['Host far', false, undefined],
    ]);
    expect(results[0].detail).toBe('its Docker engine at tcp://10.0.0.13:2376 does not answer: no answer in 0.05 s');
    expect(results[0].fix).toMatch(/docs\/multi-host\.md/);
    expect(results[1].detail).toMatch(
      /far: this host has no route to its tunnel address 192\.0\.2\.7 \(RTNETLINK answers: Network is unreachable\)/,
    );
    expect(results[1].fix).toMatch(/tunnelAddress/);
  });
});
