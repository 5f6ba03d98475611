import { spawnSync } from 'node:child_process';
import { beforeAll, describe, expect, it } from 'vitest';
import { ns3Problem, requireReal, rootProblem } from '../../support/real-components.js';
import { buildEntryPoints } from './support/build.js';

const real = requireReal('hostnet/privileged-helper.test.ts', rootProblem() ?? ns3Problem());

describe.skipIf(real.skip)('the privileged helper as a program', () => {
  let helper = '';
  const call = (op: unknown) => {
    const r = spawnSync(process.execPath, [helper], { input: JSON.stringify(op), encoding: 'utf8' });
    return { code: r.status, out: r.stdout.trim(), err: r.stderr };
  };
  beforeAll(() => {
    real.assertPresent();
    helper = buildEntryPoints().helper;
  });

  it('executes one validated operation from stdin and answers in JSON', () => {
    const name = `br-it${process.pid % 100000}`;
    try {
      expect(call({ op: 'create-bridge', name, alias: 'cavsim:it-helper' })).toMatchObject({ code: 0, out: '{"ok":true}' });
      expect(JSON.parse(call({ op: 'link-info', name }).out)).toEqual({ ok: true, exists: true, alias: 'cavsim:it-helper', up: false });
    } finally {
      expect(call({ op: 'delete-link', name }).code).toBe(0);
    }
    expect(JSON.parse(call({ op: 'link-info', name }).out)).toEqual({ ok: true, exists: false });
    expect(call({ op: 'delete-link', name }).code).toBe(0); // already gone: still success
  });

  it('refuses anything that is not a valid operation, running nothing', () => {
    const r = call({ op: 'delete-link', name: 'lo; reboot' });
    expect(r.code).toBe(2);
    expect(r.err).toContain('invalid operation');
    expect(r.err).not.toContain('+ ip');
    expect(spawnSync(process.execPath, [helper], { input: 'not json', encoding: 'utf8' }).status).toBe(2);
  });
});
