import { describe, expect, it } from 'vitest';
import {
  eventReportSchema,
  parseCollisionReport,
  parseJsonData,
  parseSimControl,
  TOPICS,
  v2vReportSchema,
} from '../../../../src/runtime/rosbridge/control-topics.js';

describe('control topics', () => {
  it('names the thesis topics by car', () => {
    expect([TOPICS.drive('car0'), TOPICS.odom('car1'), TOPICS.scan('car2'), TOPICS.simControl]).toEqual([
      '/car0/drive',
      '/car1/odom',
      '/car2/scan',
      '/sim_control',
    ]);
    expect(TOPICS.collision('car3')).toBe('/car3/collision');
  });

  it('parses a collision notice and rejects one without a step or a partner', () => {
    const notice = { vehicle: 'car0', step: 123, t_s: 1.23, with: ['car1', 'wall'], speed_mps: 9.5 };
    expect(parseCollisionReport(JSON.stringify(notice), '/car0/collision')).toEqual(notice);
    expect(() => parseCollisionReport(JSON.stringify({ ...notice, step: 1.5 }), '/car0/collision')).toThrow('step');
    expect(() => parseCollisionReport(JSON.stringify({ ...notice, with: [] }), '/car0/collision')).toThrow('with');
  });

  it('parses start and stop on /sim_control', () => {
    expect(parseSimControl('{"cmd":"start","t0_epoch_ns":"1795335745058842000","extra":1}', '/sim_control')).toEqual({
      cmd: 'start',
      t0_epoch_ns: '1795335745058842000',
    });
    expect(parseSimControl('{"cmd":"stop"}', '/sim_control')).toEqual({ cmd: 'stop' });
  });

  it.each([
    ['nope', '/sim_control: data is not JSON'],
    ['{"cmd":"start"}', 't0_epoch_ns'],
    ['{"cmd":"start","t0_epoch_ns":1795335745058842000}', 't0_epoch_ns'],
    ['{"cmd":"start","t0_epoch_ns":"-5"}', 'epoch nanoseconds'],
    ['{"cmd":"pause"}', 'cmd'],
    ['[1]', 'expected a JSON object'],
    ['{"cmd":"start","t0_epoch_ns":"1","clock":"gps"}', 'clock'],
  ])('rejects %s', (data, error) => {
    expect(() => parseSimControl(data, '/sim_control')).toThrow(error);
  });

  it('parses V2V sent and received reports and app events', () => {
    const received = {
      kind: 'received',
      id: 'car0-1',
      from: 'car0',
      to: 'car1',
      type: 'emergency-brake',
      sent_ns: '100',
      received_ns: '200',
      size_bytes: 120,
    };
    expect(parseJsonData(v2vReportSchema, JSON.stringify(received), '/cavsim/v2v')).toEqual(received);
    expect(() => parseJsonData(v2vReportSchema, JSON.stringify({ ...received, received_ns: undefined }), '/cavsim/v2v')).toThrow(
      'received_ns',
    );
    const event = { vehicle: 'car0', t_s: 1.2, event: 'brake-sent', detail: { ttc_s: 0.69 } };
    expect(parseJsonData(eventReportSchema, JSON.stringify(event), '/cavsim/events')).toEqual(event);
  });
});
