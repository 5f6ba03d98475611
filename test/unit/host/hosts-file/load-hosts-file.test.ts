import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { UserInputError } from '../../../../src/errors.js';
import { parseEngineUrl } from '../../../../src/host/hosts-file/engine-endpoint.js';
import { engineOptions } from '../../../../src/host/hosts-file/engine-options.js';
import { HOSTS_ENV, loadHostsFile, resolveHostsFile } from '../../../../src/host/hosts-file/load-hosts-file.js';
import { scratchDir } from '../../../support/scratch-dir.js';

/** A folder with the client's TLS files, and a hosts file written into it. */
function folder() {
  const dir = scratchDir('cavsim-hosts-file-');
  mkdirSync(join(dir, 'tls'));
  for (const f of ['ca.pem', 'cert.pem', 'key.pem']) writeFileSync(join(dir, 'tls', f), `-----BEGIN ${f}-----\n`);
  const write = (text: string, name = 'hosts.yaml') => {
    writeFileSync(join(dir, name), text);
    return join(dir, name);
  };
  return { dir, write };
}

const TLS = 'tls: { ca: tls/ca.pem, cert: tls/cert.pem, key: tls/key.pem }';

/** The UserInputError a file gives: its message and details. */
async function refusal(text: string) {
  const { write } = folder();
  const err = await loadHostsFile(write(text)).then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(UserInputError);
  return err as UserInputError;
}

describe('the hosts file', () => {
  it('accepts the documented shape: TLS over TCP, SSH and the local socket, with defaults filled in', async () => {
    const { dir, write } = folder();
    const file = write(
      [
        'hosts:',
        '  - name: lab-pc-1',
        '    engine: tcp://10.0.0.11:2376',
        `    ${TLS}`,
        '    cores: 4',
        '  - name: lab-pc-2',
        '    engine: ssh://cavsim@lab-pc-2.local',
        '    tunnelAddress: 10.0.0.12',
        '  - name: here',
        '    engine: unix:///var/run/docker.sock',
      ].join('\n'),
    );
    const loaded = await loadHostsFile(file);
    expect(loaded.file).toBe(file);
    expect(loaded.hosts).toEqual([
      {
        name: 'lab-pc-1',
        engineUrl: 'tcp://10.0.0.11:2376',
        engine: { scheme: 'tcp', host: '10.0.0.11', port: 2376 },
        tls: { ca: join(dir, 'tls/ca.pem'), cert: join(dir, 'tls/cert.pem'), key: join(dir, 'tls/key.pem') },
        tunnelAddress: '10.0.0.11',
        cores: 4,
      },
      {
        name: 'lab-pc-2',
        engineUrl: 'ssh://cavsim@lab-pc-2.local',
        engine: { scheme: 'ssh', host: 'lab-pc-2.local', port: 22, user: 'cavsim' },
        tunnelAddress: '10.0.0.12',
      },
      { name: 'here', engineUrl: 'unix:///var/run/docker.sock', engine: { scheme: 'unix', socketPath: '/var/run/docker.sock' } },
    ]);
    const [tcp, ssh, unix] = loaded.hosts.map(engineOptions);
    expect(tcp).toMatchObject({ protocol: 'https', host: '10.0.0.11', port: 2376 });
    expect(tcp.ca?.toString()).toBe('-----BEGIN ca.pem-----\n');
    expect(tcp.key?.toString()).toBe('-----BEGIN key.pem-----\n');
    expect(ssh).toEqual({ protocol: 'ssh', host: 'lab-pc-2.local', port: 22, username: 'cavsim' });
    expect(unix).toEqual({ socketPath: '/var/run/docker.sock' });
  });

  it('reads JSON too, and TCP without a port is Docker TLS port 2376', async () => {
    const { dir, write } = folder();
    const file = write(
      JSON.stringify({
        hosts: [{ name: 'n1', engine: 'tcp://10.1.2.3', tls: { ca: 'tls/ca.pem', cert: 'tls/cert.pem', key: 'tls/key.pem' } }],
      }),
      'hosts.json',
    );
    const { hosts } = await loadHostsFile(file);
    expect(hosts[0]).toMatchObject({ engine: { scheme: 'tcp', host: '10.1.2.3', port: 2376 }, tunnelAddress: '10.1.2.3' });
    expect(hosts[0].tls?.ca).toBe(join(dir, 'tls/ca.pem'));
  });

  it('is taken from the explicit path first, then from CAVSIM_HOSTS, else there is none', async () => {
    const { write } = folder();
    const a = write('hosts:\n  - { name: a, engine: "unix:///run/a.sock" }\n', 'a.yaml');
    const b = write('hosts:\n  - { name: b, engine: "unix:///run/b.sock" }\n', 'b.yaml');
    expect((await resolveHostsFile(a, { [HOSTS_ENV]: b }))?.hosts[0].name).toBe('a');
    expect((await resolveHostsFile(undefined, { [HOSTS_ENV]: b }))?.hosts[0].name).toBe('b');
    expect(await resolveHostsFile(undefined, {})).toBeUndefined();
    expect(await resolveHostsFile(undefined, { [HOSTS_ENV]: '  ' })).toBeUndefined();
    const missing = await resolveHostsFile(undefined, { [HOSTS_ENV]: '/nonexistent/hosts.yaml' }).catch((e: unknown) => e);
    expect(missing).toBeInstanceOf(UserInputError);
    expect((missing as Error).message).toBe('CAVSIM_HOSTS=/nonexistent/hosts.yaml: the hosts file not found');
  });

  it.each([
    ['an empty file', '', /holds no hosts: list/],
    ['a list at the top', '- name: a\n', /holds no hosts: list/],
    ['broken YAML', 'hosts: [\n', /^line \d+: /],
    ['an empty list', 'hosts: []\n', /^hosts \(line 1\): list at least one host$/],
    [
      'a misspelt top-level key',
      'host:\n  - { name: a, engine: "unix:///x" }\n',
      /^host \(line 1\): unknown field "host"; did you mean "hosts"\?$/,
    ],
  ])('refuses %s, naming the problem', async (_what, text, detail) => {
    const err = await refusal(text);
    expect(err.message).toMatch(/hosts\.yaml is not a valid hosts file$/);
    expect(
      err.details.some((d) => detail.test(d)),
      err.details.join('\n'),
    ).toBe(true);
  });

  it.each([
    ['a misspelt field', '    engin: tcp://10.0.0.1:2376', 'hosts[0].engin (line 3): unknown field "engin"; did you mean "engine"?'],
    ['a missing engine', '    cores: 2', 'hosts[0].engine (line 2): give the Docker engine as a URL'],
    ['an unknown scheme', '    engine: http://10.0.0.1:2375', 'hosts[0].engine (line 3): "http://10.0.0.1:2375" has the scheme http://'],
    ['a socket without a path', '    engine: unix://', 'hosts[0].engine (line 3): "unix://" names no socket'],
    [
      'plain TCP',
      '    engine: tcp://10.0.0.1:2375',
      'hosts[0].tls (line 2): tcp://10.0.0.1:2375 is plain TCP: anyone on that network would be root on a',
    ],
    ['TLS over SSH', `    engine: ssh://root@10.0.0.1\n    ${TLS}`, 'hosts[0].tls (line 4): TLS is for tcp:// engines'],
    [
      'a tunnel for the local engine',
      '    engine: unix:///run/d.sock\n    tunnelAddress: 10.0.0.9',
      "hosts[0].tunnelAddress (line 4): a unix:// engine is the run's own host",
    ],
    [
      'an engine by name without a tunnel address',
      '    engine: ssh://root@pc.lab',
      'hosts[0].tunnelAddress (line 2): the engine\'s host "pc.lab" is not an IPv4 address',
    ],
    [
      'a tunnel address that is not IPv4',
      '    engine: ssh://root@pc.lab\n    tunnelAddress: pc.lab',
      'hosts[0].tunnelAddress (line 4): give the IPv4 address',
    ],
    ['fractional cores', '    engine: unix:///run/d.sock\n    cores: 1.5', 'hosts[0].cores (line 4): give a whole number of cores'],
    ['a bad name', '    engine: unix:///run/d.sock', 'hosts[0].name (line 2): a name is 1-32 letters', '-bad'],
    [
      'a missing TLS file',
      `    engine: tcp://10.0.0.1:2376\n    tls: { ca: tls/ca.pem, cert: nope.pem, key: tls/key.pem }`,
      'hosts[0].tls.cert (line 4): ',
    ],
    [
      'an unknown TLS field',
      `    engine: tcp://10.0.0.1:2376\n    tls: { ca: tls/ca.pem, cert: tls/cert.pem, key: tls/key.pem, verify: true }`,
      'hosts[0].tls.verify (line 4): unknown field "verify"; remove it (fields here: ca, cert, key)',
    ],
  ])('refuses %s, naming the field and its line', async (_what, fields, expected, name = 'a') => {
    const err = await refusal(`hosts:\n  - name: ${name}\n${fields}\n`);
    expect(
      err.details.some((d) => d.startsWith(expected)),
      err.details.join('\n'),
    ).toBe(true);
    expect(err.code).toBe('USER_INPUT');
  });

  it('says that a missing TLS file does not exist, with its absolute path', async () => {
    const err = await refusal(
      `hosts:\n  - name: a\n    engine: tcp://10.0.0.1:2376\n    tls: { ca: tls/ca.pem, cert: nope.pem, key: tls/key.pem }\n`,
    );
    expect(err.details).toEqual([
      expect.stringMatching(/^hosts\[0\]\.tls\.cert \(line 4\): \/\S+\/nope\.pem does not exist; give a PEM file's path/),
    ]);
  });

  it('refuses two hosts with one name, one engine or one tunnel address, naming the second and the first', async () => {
    const err = await refusal(
      [
        'hosts:',
        '  - { name: pc, engine: "ssh://root@10.0.0.1" }',
        '  - { name: PC, engine: "ssh://root@10.0.0.1:22" }',
        '  - { name: other, engine: "ssh://root@pc.lab", tunnelAddress: 10.0.0.1 }',
        '  - { name: here, engine: "unix:///run/a.sock" }',
        '  - { name: here2, engine: "unix:///run/b.sock" }',
      ].join('\n'),
    );
    expect(err.details).toEqual([
      'hosts[1].name (line 3): the name "PC" is also hosts[0]\'s; give every host its own name',
      "hosts[1].engine (line 3): the engine ssh://root@10.0.0.1:22 is also hosts[0]'s; one host, one entry: remove the repeated one",
      "hosts[1].engine (line 3): the tunnel address 10.0.0.1 is also hosts[0]'s; two hosts cannot share the address the run's host sends their VXLAN to; give each its own tunnelAddress",
      "hosts[2].tunnelAddress (line 4): the tunnel address 10.0.0.1 is also hosts[0]'s; two hosts cannot share the address the run's host sends their VXLAN to; give each its own tunnelAddress",
      "hosts[4].engine (line 6): here and here2 are both unix:// engines, both the run's own host; keep one",
    ]);
  });
});

describe('engine URLs', () => {
  it.each([
    ['tcp://[fd00::1]:2376', { scheme: 'tcp', host: 'fd00::1', port: 2376 }],
    ['ssh://lab', { scheme: 'ssh', host: 'lab', port: 22 }],
    ['ssh://me@lab:2222', { scheme: 'ssh', host: 'lab', port: 2222, user: 'me' }],
  ])('%s', (url, endpoint) => expect(parseEngineUrl(url)).toEqual(endpoint));

  it.each([
    ['10.0.0.1:2376', /is not a URL/],
    ['tcp://10.0.0.1:2376/v1.41', /has a path/],
    ['ssh://me:secret@lab', /holds a password; use an SSH key/],
    ['tcp://:2376', /is not a URL|names no host/],
  ])('refuses %s', (url, message) => expect(parseEngineUrl(url)).toMatch(message));
});
