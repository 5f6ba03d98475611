import { describe, expect, it } from 'vitest';
import { emptyRunData, mergeRunData, RunDataStore } from '../../../../src/ui/viewer/run-data.js';

const VEHICLES = [
  't_s,vehicle,x_m,y_m,yaw_rad,speed_mps,steer_rad,yaw_rate_radps,cmd_speed_mps,cmd_steer_rad,braking,collided',
  '0,car0,-20,-1,0,10,0,0,10,0,0,0',
  '0,car1,20,-1,3.141593,10,0,0,10,0,0,0',
  '0.01,car0,-19.9,-1.0001234,0,9.98765,0,0,10,0,1,0',
  '0.01,car1,19.9,-1,3.141593,10,0,0,10,0,0,1',
];
const PAIRS = ['t_s,a,b,distance_m,closing_speed_mps,ttc_s', '0,car0,car1,40,20,2', '0.01,car0,car1,39.8,0,'];

describe('RunDataStore', () => {
  it('turns vehicles.csv into per-car columns, rounded to mm, with flags and goal points', () => {
    const goals: string[] = [];
    const store = new RunDataStore((name, pose) => {
      goals.push(`${name}@${pose.x}`);
      return name === 'car0' ? 7 : -1;
    });
    store.ingest('vehicles', VEHICLES);
    expect(store.data.vehicles.car0).toEqual({
      t: [0, 0.01],
      x: [-20, -19.9],
      y: [-1, -1],
      yaw: [0, 0],
      v: [10, 9.988],
      braking: [0, 1],
      collided: [0, 0],
      goal: [7, 7],
    });
    expect(store.data.vehicles.car1.collided).toEqual([0, 1]);
    // biome-ignore lint/suspicious/noApproximativeNumericConstant: the value as rounded in the CSV under test
    expect(store.data.vehicles.car1.yaw).toEqual([3.1416, 3.1416]);
    expect(goals).toEqual(['car0@-20', 'car1@20', 'car0@-19.9', 'car1@19.9']);
    expect(store.lastTime).toBe(0.01);
  });

  it('reads an empty TTC cell (not closing) as null', () => {
    const store = new RunDataStore();
    store.ingest('pairs', PAIRS);
    expect(store.data.pairs['car0|car1']).toEqual({ a: 'car0', b: 'car1', t: [0, 0.01], d: [40, 39.8], ttc: [2, null] });
  });

  it('reads quoted event details and V2V rows', () => {
    const store = new RunDataStore();
    store.ingest('events', ['t_s,vehicle,event,detail', '1.3,car0,brake-sent,"{""to"":""car1""}"', '1.51,car1,emergency-brake,']);
    store.ingest('v2v', ['id,from,to,type,sent_s,received_s,latency_ms,size_bytes', 'car0-1,car0,car1,emergency-brake,1.3,1.51,210,130']);
    store.ingest('collisions', ['t_s,a,b,speed_a_mps,speed_b_mps', '2.5,car0,car1,3,4']);
    expect(store.data.events).toEqual([
      { t: 1.3, vehicle: 'car0', event: 'brake-sent', detail: '{"to":"car1"}' },
      { t: 1.51, vehicle: 'car1', event: 'emergency-brake', detail: '' },
    ]);
    expect(store.data.v2v).toEqual([
      { id: 'car0-1', from: 'car0', to: 'car1', type: 'emergency-brake', sent: 1.3, received: 1.51, size: 130 },
    ]);
    expect(store.data.collisions).toEqual([{ t: 2.5, a: 'car0', b: 'car1' }]);
  });

  it('gives the same data whether the lines come at once or in batches, and the batches merge to it', () => {
    const whole = new RunDataStore();
    whole.ingest('vehicles', VEHICLES);
    for (let cut = 1; cut < VEHICLES.length; cut++) {
      const parts = new RunDataStore();
      const merged = emptyRunData();
      mergeRunData(merged, parts.ingest('vehicles', VEHICLES.slice(0, cut)));
      const second = parts.ingest('vehicles', VEHICLES.slice(cut));
      mergeRunData(merged, second);
      expect(parts.data).toEqual(whole.data);
      expect(merged).toEqual(whole.data);
      // The second batch is a delta: only the rows after the cut.
      const rowsInSecond = Object.values(second.vehicles).reduce((n, s) => n + s.t.length, 0);
      expect(rowsInSecond).toBe(VEHICLES.length - cut);
    }
  });

  it('skips rows it cannot read instead of drawing a car at NaN', () => {
    const store = new RunDataStore();
    store.ingest('vehicles', [VEHICLES[0], '0,car0,oops,-1,0,10,0,0,10,0,0,0', '0,"car0,-20,-1', VEHICLES[1], VEHICLES[2]]);
    expect(store.data.vehicles.car0.x).toEqual([-20]);
    expect(store.data.vehicles.car1.x).toEqual([20]);
  });
});
