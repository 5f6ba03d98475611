import { describe, expect, it } from 'vitest';
import { clientPolicy } from '../../../../src/runtime/rosbridge/client-policy.js';

const policy = clientPolicy({ '10.211.7.1': 'orchestrator', '10.211.7.10': 'car0', '10.211.7.11': 'car1' }, { car0: ['car1'], car1: [] });
const report = (value: Record<string, unknown>) => ({ data: JSON.stringify(value) });

describe('control-link client policy', () => {
  it('lets a vehicle publish its own drive commands and reports about itself only', () => {
    expect(policy.publish('10.211.7.10', '/car0/drive', {})).toBeUndefined();
    expect(policy.publish('::ffff:10.211.7.10', '/car0/drive', {})).toBeUndefined();
    expect(policy.publish('10.211.7.10', '/cavsim/ready', report({ vehicle: 'car0' }))).toBeUndefined();
    expect(policy.publish('10.211.7.10', '/cavsim/v2v', report({ kind: 'sent', from: 'car0', to: 'car1' }))).toBeUndefined();
    expect(policy.publish('10.211.7.11', '/cavsim/v2v', report({ kind: 'received', from: 'car0', to: 'car1' }))).toBeUndefined();
    expect(policy.publish('10.211.7.10', '/cavsim/events', report({ vehicle: 'car0', t_s: 1, event: 'x' }))).toBeUndefined();
  });

  it('refuses every publish that would reach another vehicle or steer the run', () => {
    expect(policy.publish('10.211.7.10', '/car1/drive', {})).toBe('car0 may not publish /car1/drive');
    expect(policy.publish('10.211.7.10', '/car1/odom', {})).toBe('car0 may not publish /car1/odom');
    expect(policy.publish('10.211.7.10', '/sim_control', {})).toBe('car0 may not publish /sim_control');
    expect(policy.publish('10.211.7.10', '/cavsim/v2v', report({ kind: 'received', from: 'car0', to: 'car1' }))).toBe(
      'car0 may publish on /cavsim/v2v only about itself',
    );
    expect(policy.publish('10.211.7.10', '/cavsim/events', report({ vehicle: 'car1' }))).toMatch(/only about itself/);
    expect(policy.publish('10.211.7.10', '/cavsim/events', { data: 'not json' })).toMatch(/only about itself/);
    expect(policy.publish('10.211.7.99', '/car0/drive', {})).toBe('10.211.7.99 is not a client of this run');
    expect(policy.publish('10.211.7.1', '/car0/drive', {})).toBe('the orchestrator publishes only /sim_control');
    expect(policy.publish('10.211.7.1', '/sim_control', {})).toBeUndefined();
  });

  it('lets a vehicle read its own topics, the run topics and the cars it observes, nothing else', () => {
    for (const topic of ['/car0/odom', '/car0/scan', '/car0/collision', '/sim_control', '/cavsim/status', '/car1/odom'])
      expect(policy.subscribe('10.211.7.10', topic)).toBeUndefined();
    expect(policy.subscribe('10.211.7.11', '/car0/odom')).toBe('car1 may not subscribe to /car0/odom');
    expect(policy.subscribe('10.211.7.10', '/car1/scan')).toBe('car0 may not subscribe to /car1/scan');
    expect(policy.subscribe('10.211.7.10', '/cavsim/v2v')).toMatch(/may not subscribe/);
    expect(policy.subscribe('10.211.7.1', '/car1/scan')).toBeUndefined();
  });

  it("shows a vehicle the run's status with its own car and the cars it observes only", () => {
    const status = {
      protocol: 'cavsim.control/1',
      phase: 'running',
      t_s: 1,
      cars: [car('car0'), car('car1'), car('car2')],
      min_ttc_s: 0.4,
      lateness: null,
    };
    const seen = (address: string) => JSON.parse(String(policy.viewOf!(address, '/cavsim/status', report(status)).data));
    expect(policy.viewed.has('/cavsim/status')).toBe(true);
    expect(seen('10.211.7.10')).toMatchObject({ phase: 'running', t_s: 1, min_ttc_s: null, cars: [car('car0'), car('car1')] });
    expect(seen('10.211.7.11')).toMatchObject({ min_ttc_s: null, cars: [car('car1')] });
    expect(seen('10.211.7.1')).toEqual(status);
    expect(seen('10.211.7.99').cars).toEqual([]);
  });
});

function car(name: string) {
  return { name, v: 3, braking: true, collided: false };
}

describe('a device relayed by the host', () => {
  const relayed = clientPolicy(
    { '10.211.7.1': 'orchestrator', '10.211.7.10': 'car0', '10.211.7.1:31001': 'car1' },
    { car0: [], car1: ['car0'] },
  );

  it('is known by the gateway address and its relay source port, with a vehicle rights and no more', () => {
    expect(relayed.publish('10.211.7.1:31001', '/car1/drive', {})).toBeUndefined();
    expect(relayed.publish('::ffff:10.211.7.1:31001', '/cavsim/ready', report({ vehicle: 'car1' }))).toBeUndefined();
    expect(relayed.publish('10.211.7.1:31001', '/sim_control', {})).toBe('car1 may not publish /sim_control');
    expect(relayed.subscribe('10.211.7.1:31001', '/car0/odom')).toBeUndefined();
    expect(relayed.subscribe('10.211.7.1:31001', '/car0/scan')).toBe('car1 may not subscribe to /car0/scan');
  });

  it('leaves every other port of the gateway the orchestrator, and a vehicle known by its address from any port', () => {
    expect(relayed.publish('10.211.7.1:45678', '/sim_control', {})).toBeUndefined();
    expect(relayed.publish('10.211.7.1:45678', '/car1/drive', {})).toBe('the orchestrator publishes only /sim_control');
    expect(relayed.publish('10.211.7.10:51234', '/car0/drive', {})).toBeUndefined();
  });
});
