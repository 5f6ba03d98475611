import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { EnvironmentError } from '../../../../src/errors.js';
import type { DockerPort } from '../../../../src/host/docker/docker-port.js';
import { createDockerPort } from '../../../../src/host/docker/dockerode-port.js';
import { hostEngines, pingHosts } from '../../../../src/host/docker/host-engines.js';
import type { EngineOptions } from '../../../../src/host/hosts-file/engine-options.js';
import { loadHostsFile } from '../../../../src/host/hosts-file/load-hosts-file.js';
import { scratchDir } from '../../../support/scratch-dir.js';
import { FakeDockerode } from './fake-dockerode.js';

async function twoHosts() {
  const dir = scratchDir('cavsim-host-engines-');
  mkdirSync(join(dir, 'tls'));
  for (const f of ['ca', 'cert', 'key']) writeFileSync(join(dir, 'tls', `${f}.pem`), `${f} of the client\n`);
  writeFileSync(
    join(dir, 'hosts.yaml'),
    [
      'hosts:',
      '  - name: lab-pc-1',
      '    engine: tcp://10.0.0.11:2376',
      '    tls: { ca: tls/ca.pem, cert: tls/cert.pem, key: tls/key.pem }',
      '  - name: lab-pc-2',
      '    engine: ssh://root@10.0.0.12',
    ].join('\n'),
  );
  return loadHostsFile(join(dir, 'hosts.yaml'));
}

describe('hostEngines', () => {
  it("gives each host a DockerPort built from the loader's engine options (TLS files read, SSH user)", async () => {
    const file = await twoHosts();
    const seen: EngineOptions[] = [];
    const engines = hostEngines(file, (options) => {
      seen.push(options);
      return createDockerPort(new FakeDockerode());
    });
    expect(engines.map((e) => e.host.name)).toEqual(['lab-pc-1', 'lab-pc-2']);
    expect(seen[0]).toMatchObject({ protocol: 'https', host: '10.0.0.11', port: 2376 });
    expect(seen[0].ca?.toString()).toBe('ca of the client\n');
    expect(seen[0].cert?.toString()).toBe('cert of the client\n');
    expect(seen[0].key?.toString()).toBe('key of the client\n');
    expect(seen[1]).toEqual({ protocol: 'ssh', host: '10.0.0.12', port: 22, username: 'root' });
  });
});

describe('pingHosts', () => {
  const engine = (name: string, docker: Pick<DockerPort, 'ping'>) => ({
    host: { name, engineUrl: `tcp://${name}:2376`, engine: { scheme: 'tcp' as const, host: name, port: 2376 } },
    docker: docker as DockerPort,
  });

  it('resolves when every engine answers', async () => {
    await expect(
      pingHosts([engine('a', createDockerPort(new FakeDockerode())), engine('b', createDockerPort(new FakeDockerode()))]),
    ).resolves.toBeUndefined();
  });

  it('names every host whose engine does not answer (refused, or silent past the timeout), with the fix', async () => {
    const down = new FakeDockerode();
    down.reachable = false;
    const silent = { ping: () => new Promise<void>(() => {}) };
    const err = await pingHosts(
      [engine('up', createDockerPort(new FakeDockerode())), engine('down', createDockerPort(down)), engine('mute', silent)],
      50,
    ).then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(err).toBeInstanceOf(EnvironmentError);
    const e = err as EnvironmentError;
    expect(e.message).toMatch(
      /^2 hosts' Docker engines do not answer: down \(tcp:\/\/down:2376\): Docker engine not reachable: connect ENOENT/,
    );
    expect(e.message).toContain('; mute (tcp://mute:2376): no answer in 0.05 s');
    expect(e.message).not.toContain('up (');
    expect(e.hint).toContain('--tlsverify');
    expect(e.hint).toContain('scripts/local-hosts.sh start N');
  });
});
