import { describe, expect, it } from 'vitest';
import { clientPolicy, singleVehiclePolicy } from '../../../../src/runtime/rosbridge/client-policy.js';

const CAR0 = '10.211.7.10';
const CAR1 = '10.211.7.11';
const ORCH = '10.211.7.1';
const multi = clientPolicy({ [ORCH]: 'orchestrator', [CAR0]: 'car0', [CAR1]: 'car1' }, { car0: ['car1'], car1: [] });
const send = { data: JSON.stringify({ to: 'car1', type: 'x', body: {} }) };

describe('client policy: own-code topics (V2V send/received, /clock)', () => {
  it('lets a vehicle publish its own /carN/v2v/send and /carN/v2v/received, whatever the message', () => {
    expect(multi.publish(CAR0, '/car0/v2v/send', send)).toBeUndefined();
    expect(multi.publish(CAR0, '/car0/v2v/received', {})).toBeUndefined();
    expect(multi.publish(`::ffff:${CAR1}`, '/car1/v2v/send', send)).toBeUndefined();
    expect(multi.publish(CAR1, '/car1/v2v/received', { data: 'x' })).toBeUndefined();
  });

  it('refuses publishing another vehicle’s V2V topics, or /clock', () => {
    expect(multi.publish(CAR0, '/car1/v2v/send', send)).toBe('car0 may not publish /car1/v2v/send');
    expect(multi.publish(CAR0, '/car1/v2v/received', {})).toBe('car0 may not publish /car1/v2v/received');
    expect(multi.publish(CAR1, '/car0/v2v/send', send)).toBe('car1 may not publish /car0/v2v/send');
    expect(multi.publish(CAR0, '/clock', { clock: { sec: 0, nanosec: 0 } })).toBe('car0 may not publish /clock');
  });

  it('lets a vehicle subscribe /clock and its own V2V topics, not another’s', () => {
    for (const topic of ['/clock', '/car0/v2v/send', '/car0/v2v/received']) expect(multi.subscribe(CAR0, topic)).toBeUndefined();
    for (const topic of ['/clock', '/car1/v2v/send', '/car1/v2v/received']) expect(multi.subscribe(CAR1, topic)).toBeUndefined();
    expect(multi.subscribe(CAR0, '/car1/v2v/received')).toBe('car0 may not subscribe to /car1/v2v/received');
    expect(multi.subscribe(CAR0, '/car1/v2v/send')).toBe('car0 may not subscribe to /car1/v2v/send');
    expect(multi.subscribe(CAR1, '/car0/v2v/received')).toBe('car1 may not subscribe to /car0/v2v/received');
  });

  it('refuses unknown addresses for the new topics too, and lets the orchestrator read them', () => {
    expect(multi.publish('10.211.7.99', '/car0/v2v/send', send)).toBe('10.211.7.99 is not a client of this run');
    expect(multi.subscribe('10.211.7.99', '/clock')).toBe('10.211.7.99 is not a client of this run');
    expect(multi.publish(ORCH, '/car0/v2v/send', send)).toBe('the orchestrator publishes only /sim_control');
    expect(multi.subscribe(ORCH, '/car0/v2v/received')).toBeUndefined();
    expect(multi.subscribe(ORCH, '/clock')).toBeUndefined();
  });
});

describe('singleVehiclePolicy', () => {
  const p = singleVehiclePolicy('car0', ['car1']);
  const anyone = ['127.0.0.1', '::1', '10.0.0.5', ''];

  it('treats every address as the vehicle', () => {
    for (const a of anyone) {
      expect(p.publish(a, '/car0/drive', {})).toBeUndefined();
      expect(p.subscribe(a, '/car0/odom')).toBeUndefined();
    }
  });

  it('lets the vehicle publish its own drive, V2V topics and reports about itself', () => {
    expect(p.publish('127.0.0.1', '/car0/v2v/send', send)).toBeUndefined();
    expect(p.publish('127.0.0.1', '/car0/v2v/received', {})).toBeUndefined();
    expect(p.publish('127.0.0.1', '/cavsim/ready', { data: JSON.stringify({ vehicle: 'car0' }) })).toBeUndefined();
    expect(p.publish('127.0.0.1', '/cavsim/events', { data: JSON.stringify({ vehicle: 'car0', t_s: 0, event: 'e' }) })).toBeUndefined();
    expect(p.publish('127.0.0.1', '/cavsim/v2v', { data: JSON.stringify({ kind: 'sent', from: 'car0', to: 'car1' }) })).toBeUndefined();
  });

  it('refuses what would reach another vehicle or steer the run', () => {
    expect(p.publish('127.0.0.1', '/car1/drive', {})).toBe('car0 may not publish /car1/drive');
    expect(p.publish('127.0.0.1', '/car1/v2v/send', send)).toBe('car0 may not publish /car1/v2v/send');
    expect(p.publish('127.0.0.1', '/car1/v2v/received', {})).toBe('car0 may not publish /car1/v2v/received');
    expect(p.publish('127.0.0.1', '/clock', {})).toBe('car0 may not publish /clock');
    expect(p.publish('127.0.0.1', '/sim_control', {})).toBe('car0 may not publish /sim_control');
    expect(p.publish('127.0.0.1', '/cavsim/ready', { data: JSON.stringify({ vehicle: 'car1' }) })).toBe(
      'car0 may publish on /cavsim/ready only about itself',
    );
    expect(p.publish('127.0.0.1', '/cavsim/events', { data: JSON.stringify({ vehicle: 'car1' }) })).toMatch(/only about itself/);
  });

  it('lets the vehicle subscribe its own topics, /clock, the run topics and the cars it observes', () => {
    for (const topic of [
      '/car0/drive',
      '/car0/odom',
      '/car0/scan',
      '/car0/collision',
      '/car0/v2v/send',
      '/car0/v2v/received',
      '/clock',
      '/sim_control',
      '/cavsim/status',
      '/car1/odom',
    ]) {
      expect(p.subscribe('127.0.0.1', topic)).toBeUndefined();
    }
  });

  it('refuses subscribing to another car’s scan, V2V topics, drive or unobserved odometry', () => {
    for (const topic of [
      '/car1/scan',
      '/car1/v2v/send',
      '/car1/v2v/received',
      '/car1/drive',
      '/car1/collision',
      '/car2/odom',
      '/cavsim/v2v',
      '/cavsim/events',
    ]) {
      expect(p.subscribe('127.0.0.1', topic)).toBe(`car0 may not subscribe to ${topic}`);
    }
  });

  it('observes nothing when given no observed cars', () => {
    const lone = singleVehiclePolicy('car3', []);
    expect(lone.subscribe('127.0.0.1', '/car3/odom')).toBeUndefined();
    expect(lone.subscribe('127.0.0.1', '/car0/odom')).toBe('car3 may not subscribe to /car0/odom');
  });
});

describe('client policy: an own-code car and its V2V relay share an address', () => {
  const RELAY = `${CAR1}:907`;
  const relayed = clientPolicy(
    { [ORCH]: 'orchestrator', [CAR0]: 'car0', [CAR1]: 'car1', [RELAY]: 'car1' },
    { car0: [], car1: [] },
    new Set(),
    new Set([RELAY]),
  );
  const receipt = { data: JSON.stringify({ kind: 'received', id: 'car0-1', from: 'car0', to: 'car1', type: 'cam' }) };
  const event = { data: JSON.stringify({ vehicle: 'car1', t_s: 1, event: 'brake-sent' }) };

  it('takes the car’s /cavsim/v2v reports from its relay’s source port alone', () => {
    expect(relayed.publish(`${RELAY}`, '/cavsim/v2v', receipt)).toBeUndefined();
    expect(relayed.publish(`::ffff:${RELAY}`, '/cavsim/v2v', receipt)).toBeUndefined();
    expect(relayed.publish(`${CAR1}:41000`, '/cavsim/v2v', receipt)).toBe(
      "car1's V2V reports come from its V2V relay; its own code may not publish /cavsim/v2v",
    );
  });

  it('leaves the rest of the car’s rights as they were, for the code and the relay alike', () => {
    for (const from of [`${CAR1}:41000`, RELAY]) {
      expect(relayed.publish(from, '/cavsim/events', event)).toBeUndefined();
      expect(relayed.publish(from, '/car1/drive', {})).toBeUndefined();
      expect(relayed.publish(from, '/car0/drive', {})).toBe('car1 may not publish /car0/drive');
    }
    // a car without a relay (cavsim's own vehicle program) still reports its own V2V
    expect(
      relayed.publish(`${CAR0}:41001`, '/cavsim/v2v', { data: JSON.stringify({ kind: 'sent', id: 'car0-1', from: 'car0' }) }),
    ).toBeUndefined();
  });
});
