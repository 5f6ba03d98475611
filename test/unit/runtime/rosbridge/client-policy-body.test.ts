import { describe, expect, it } from 'vitest';
import { clientPolicy } from '../../../../src/runtime/rosbridge/client-policy.js';

const BODY = '10.211.7.2:41000';
const CAR1 = '10.211.7.11';
const ORCH = '10.211.7.1';
const policy = clientPolicy(
  { [ORCH]: 'orchestrator', [BODY]: 'car0', [CAR1]: 'car1' },
  { car0: ['car1'], car1: ['car0'] },
  new Set(['car0']),
);
const json = (data: object) => ({ data: JSON.stringify(data) });

describe('client policy: a physical car (role: body)', () => {
  it('lets its device publish its own pose and clock answers, and reports about itself', () => {
    expect(policy.publish(BODY, '/car0/body/odom', {})).toBeUndefined();
    expect(policy.publish(BODY, '/car0/body/sync_reply', json({ seq: 1 }))).toBeUndefined();
    expect(policy.publish(BODY, '/cavsim/ready', json({ vehicle: 'car0' }))).toBeUndefined();
    expect(policy.publish(BODY, '/cavsim/v2v', json({ kind: 'sent', from: 'car0' }))).toBeUndefined();
    expect(policy.publish(BODY, '/cavsim/v2v', json({ kind: 'received', to: 'car0' }))).toBeUndefined();
  });

  it("refuses it any drive command, another car's topics, reports about others and /sim_control", () => {
    expect(policy.publish(BODY, '/car0/drive', {})).toBe(
      'car0 is a physical car (role: body): it reports its pose on /car0/body/odom, cavsim never drives it',
    );
    expect(policy.publish(BODY, '/car1/drive', {})).toBe('car0 may not publish /car1/drive');
    expect(policy.publish(BODY, '/car0/v2v/send', {})).toBe('car0 may not publish /car0/v2v/send');
    expect(policy.publish(BODY, '/sim_control', json({ cmd: 'stop' }))).toBe('car0 may not publish /sim_control');
    expect(policy.publish(BODY, '/cavsim/v2v', json({ kind: 'sent', from: 'car1' }))).toBe(
      'car0 may publish on /cavsim/v2v only about itself',
    );
  });

  it("refuses a virtual car the physical car's topics", () => {
    expect(policy.publish(CAR1, '/car0/body/odom', {})).toBe('car1 may not publish /car0/body/odom');
    expect(policy.publish(CAR1, '/car1/body/odom', {})).toBe('car1 may not publish /car1/body/odom');
    expect(policy.subscribe(CAR1, '/car0/body/sync')).toBe('car1 may not subscribe to /car0/body/sync');
    expect(policy.publish(CAR1, '/car1/drive', {})).toBeUndefined();
  });

  it('lets its device read its probes, its mirrored odometry and the cars it observes', () => {
    for (const topic of ['/car0/body/sync', '/car0/odom', '/car0/collision', '/car1/odom', '/sim_control', '/cavsim/status'])
      expect(policy.subscribe(BODY, topic), topic).toBeUndefined();
    expect(policy.subscribe(BODY, '/car0/drive')).toBe('car0 may not subscribe to /car0/drive');
  });
});
