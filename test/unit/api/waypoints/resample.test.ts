import { describe, expect, it } from 'vitest';
import { recordWaypoints } from '../../../../src/api/waypoints/record.js';
import { resamplePolyline } from '../../../../src/api/waypoints/resample.js';
import { parseVehicleTrajectory } from '../../../../src/api/waypoints/trajectory.js';

const gaps = (pts: { x: number; y: number }[]) => pts.slice(1).map((p, i) => Math.hypot(p.x - pts[i].x, p.y - pts[i].y));

describe('resamplePolyline', () => {
  it('spaces points evenly along an open polyline, interpolating speed, yaw along the path', () => {
    const out = resamplePolyline(
      [
        { x: 0, y: 0, speed: 2 },
        { x: 1, y: 0, speed: 4 },
        { x: 1, y: 1, speed: 4 },
      ],
      { spacing: 0.25 },
    );
    expect(out).toHaveLength(9); // 2 m of path: stations 0, 0.25, …, 2
    for (const g of gaps(out).slice(0, 3)) expect(g).toBeCloseTo(0.25, 12);
    expect(out[2]).toMatchObject({ x: 0.5, y: 0, speed: 3, yaw: 0 });
    expect(out[6].x).toBeCloseTo(1, 12);
    expect(out[6].y).toBeCloseTo(0.5, 12);
    expect(out[6].yaw).toBeCloseTo(Math.PI / 2, 12);
    expect(out.at(-1)).toMatchObject({ x: 1, y: 1, speed: 4 });
  });

  it('keeps the end of an open polyline whose length is not a multiple of the spacing', () => {
    const out = resamplePolyline(
      [
        { x: 0, y: 0, speed: 1 },
        { x: 1, y: 0, speed: 1 },
      ],
      { spacing: 0.3 },
    );
    expect(out.map((p) => +p.x.toFixed(9))).toEqual([0, 0.3, 0.6, 0.9, 1]);
  });

  it('spreads points evenly round a closed loop, with yaw continuous at the seam', () => {
    const square = [
      { x: 0, y: 0, speed: 1 },
      { x: 2, y: 0, speed: 1 },
      { x: 2, y: 2, speed: 1 },
      { x: 0, y: 2, speed: 1 },
      { x: 0, y: 0, speed: 1 }, // a repeated first point is dropped
    ];
    const out = resamplePolyline(square, { spacing: 0.5, closed: true });
    expect(out).toHaveLength(16);
    for (const g of gaps([...out, out[0]])) expect(g).toBeCloseTo(0.5, 12);
    // At the start corner the path turns from heading down (−π/2) to heading right (0).
    expect(out[0].yaw).toBeCloseTo(-Math.PI / 4, 12);
  });

  it('rejects a polyline that does not go anywhere and a bad spacing', () => {
    expect(() =>
      resamplePolyline(
        [
          { x: 1, y: 1, speed: 1 },
          { x: 1, y: 1, speed: 2 },
        ],
        { spacing: 0.1 },
      ),
    ).toThrow(/two distinct points/);
    expect(() =>
      resamplePolyline(
        [
          { x: 0, y: 0, speed: 1 },
          { x: 1, y: 0, speed: 1 },
        ],
        { spacing: 0 },
      ),
    ).toThrow(/spacing/);
  });
});

const VEHICLES_CSV = [
  't_s,vehicle,x_m,y_m,yaw_rad,speed_mps,steer_rad,yaw_rate_radps,cmd_speed_mps,cmd_steer_rad,braking,collided',
  ...Array.from({ length: 21 }, (_, i) => [
    `${i * 0.1},car0,${i * 0.1},0,0,${i === 0 ? 0 : 1},0,0,1,0,0,${i >= 15 ? 1 : 0}`,
    `${i * 0.1},car1,5,5,0,0,0,0,0,0,0,0`,
  ]).flat(),
].join('\n');

describe('recording a driven trajectory', () => {
  it('reads one car from vehicles.csv and names the cars when the wanted one is missing', () => {
    const car0 = parseVehicleTrajectory(VEHICLES_CSV, 'car0');
    expect(car0).toHaveLength(21);
    expect(car0[3]).toEqual({ t: 0.30000000000000004, x: 0.30000000000000004, y: 0, yaw: 0, speed: 1, collided: false });
    expect(() => parseVehicleTrajectory(VEHICLES_CSV, 'car9')).toThrow(/no vehicle "car9".*car0, car1/);
    expect(() => parseVehicleTrajectory('t_s,vehicle\n0,car0', 'car0')).toThrow(/lacks column\(s\) x_m, y_m, yaw_rad, speed_mps/);
  });

  it('resamples the path up to the first collision, within the time window, with the driven speeds', () => {
    const samples = parseVehicleTrajectory(VEHICLES_CSV, 'car0');
    const all = recordWaypoints(samples, { spacing: 0.5 });
    expect(all.map((p) => +p.x.toFixed(9))).toEqual([0, 0.5, 1, 1.5]); // collided at t = 1.5 s, x = 1.5
    expect(all[0].speed).toBeCloseTo(0, 12);
    expect(all[1].speed).toBe(1);
    const raised = recordWaypoints(samples, { spacing: 0.5, from: 0, to: 1, minSpeed: 0.5 });
    expect(raised.map((p) => p.speed)).toEqual([0.5, 1, 1]);
    expect(() => recordWaypoints(parseVehicleTrajectory(VEHICLES_CSV, 'car1'), { spacing: 0.5 })).toThrow(/did not move/);
    expect(() => recordWaypoints(samples, { spacing: 0.5, from: 5 })).toThrow(/only 0 sample/);
  });
});
