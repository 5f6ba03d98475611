import { readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
// @ts-expect-error roslib 2.1's published types re-export ./src/RosLib, which the package does not ship
import { Ros, Topic } from 'roslib';
import { afterAll, describe, expect, it } from 'vitest';
import { startSimulatorProcess } from '../../../src/runtime/emulated/containers/simulator-process.js';
import { systemWallClock } from '../../../src/runtime/emulated/containers/wall-clock.js';
import { epochNs } from '../../../src/runtime/emulated/v2v/wire.js';
import { loadScenario } from '../../../src/scenario/load-scenario.js';
import { prepareRunDir, repoRoot } from './support.js';

interface LaserScanMsg {
  header: { frame_id: string };
  angle_min: number;
  angle_increment: number;
  range_max: number;
  ranges: number[];
}

interface OdometryMsg {
  header: { frame_id: string; stamp: { sec: number; nanosec: number } };
  child_frame_id: string;
  twist: { twist: { linear: { x: number } } };
}

/**
 * roslibjs, an existing third-party rosbridge client, used unchanged: it subscribes to a car's
 * odometry, starts the run on /sim_control and brakes the car through /car0/drive.
 */
describe('a third-party rosbridge client (roslibjs) against the simulator', () => {
  const dirs: string[] = [];
  afterAll(() => dirs.forEach((d) => rmSync(d, { recursive: true, force: true })));

  it('sees /car0/odom and stops car0 by publishing on /car0/drive', async () => {
    const scenario = await loadScenario(join(repoRoot, 'scenarios/head-on-brake.yaml'), { overrides: ['duration=2s'] });
    const runDir = prepareRunDir(scenario);
    dirs.push(runDir);
    const sim = await startSimulatorProcess({
      runDir,
      runId: 'roslib-test',
      bind: { host: '127.0.0.1', port: 0 },
      clock: systemWallClock,
      stopGraceMs: 50,
    });

    const ros = new Ros({});
    await new Promise<void>((ok, fail) => {
      ros.on('connection', () => ok());
      ros.on('error', fail);
      void ros.connect(`ws://127.0.0.1:${sim.port}`);
    });
    const odom = new Topic<OdometryMsg>({ ros, name: '/car0/odom', messageType: 'nav_msgs/msg/Odometry' });
    const drive = new Topic({ ros, name: '/car0/drive', messageType: 'ackermann_msgs/msg/AckermannDriveStamped' });
    const simControl = new Topic({ ros, name: '/sim_control', messageType: 'std_msgs/String' });

    const speeds: number[] = [];
    let first!: OdometryMsg;
    const stopped = new Promise<void>((ok) =>
      odom.subscribe((m: OdometryMsg) => {
        first ??= m;
        speeds.push(m.twist.twist.linear.x);
        if (m.header.stamp.sec + m.header.stamp.nanosec > 0 && m.twist.twist.linear.x < 0.05) ok();
      }),
    );
    drive.publish({
      header: { stamp: { sec: 0, nanosec: 0 }, frame_id: 'car0/base_link' },
      drive: { steering_angle: 0, steering_angle_velocity: 0, speed: 0, acceleration: 0, jerk: 0 },
    });
    simControl.publish({ data: JSON.stringify({ cmd: 'start', t0_epoch_ns: (epochNs() + 100_000_000n).toString() }) });

    await stopped;
    expect(first.header.frame_id).toBe('map');
    expect(first.child_frame_id).toBe('car0/base_link');
    expect(speeds[0]).toBe(10); // the start speed, before the command acted
    const { summary, exitCode } = await sim.finished;
    ros.close();

    expect(exitCode).toBe(0);
    expect(summary.runtime).toBe('docker');
    const car0Rows = readFileSync(join(runDir, 'vehicles.csv'), 'utf8')
      .split('\n')
      .filter((l) => l.split(',')[1] === 'car0');
    expect(car0Rows.at(-1)!.split(',')[5]).toBe('0'); // speed_mps at the end
    expect(car0Rows.every((r) => r.split(',')[8] === '0')).toBe(true); // cmd_speed_mps from the first row on
  });

  it('reads /car0/scan as a sensor_msgs/LaserScan, beam for beam', async () => {
    const scenario = await loadScenario(join(repoRoot, 'scenarios/loop-gap-follow.yaml'), { overrides: ['duration=0.5s'] });
    const lidar = scenario.vehicles[0].lidar!;
    const runDir = prepareRunDir(scenario);
    dirs.push(runDir);
    const sim = await startSimulatorProcess({
      runDir,
      runId: 'roslib-scan',
      bind: { host: '127.0.0.1', port: 0 },
      clock: systemWallClock,
      stopGraceMs: 50,
    });
    const ros = new Ros({});
    await new Promise<void>((ok, fail) => {
      ros.on('connection', () => ok());
      ros.on('error', fail);
      void ros.connect(`ws://127.0.0.1:${sim.port}`);
    });
    const scans: LaserScanMsg[] = [];
    const scanTopic = new Topic<LaserScanMsg>({ ros, name: '/car0/scan', messageType: 'sensor_msgs/msg/LaserScan' });
    const simControl = new Topic({ ros, name: '/sim_control', messageType: 'std_msgs/String' });
    scanTopic.subscribe((m: LaserScanMsg) => scans.push(m));
    // Subscriptions are handled in order on one connection, so start follows the subscribe.
    simControl.publish({ data: JSON.stringify({ cmd: 'start', t0_epoch_ns: (epochNs() + 100_000_000n).toString() }) });
    const { exitCode } = await sim.finished;
    ros.close();

    expect(exitCode).toBe(0);
    expect(scans.length).toBeGreaterThan(0);
    const first = scans[0];
    expect(first.header.frame_id).toBe('car0/base_link');
    expect(first.ranges).toHaveLength(lidar.beams);
    expect(first.angle_min).toBeCloseTo(-lidar.fov / 2, 6);
    expect(first.angle_increment).toBeCloseTo(lidar.fov / (lidar.beams - 1), 6);
    expect(first.range_max).toBe(lidar.rangeMax);
    // every beam in range: the loop's walls are within 30 m everywhere
    expect(first.ranges.every((r) => r > 0 && r <= lidar.rangeMax)).toBe(true);
  });
});
