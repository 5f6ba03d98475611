import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Command } from 'commander';
import { afterAll, describe, expect, it } from 'vitest';
import { registerWaypointsCommand } from '../../../../src/cli/waypoints-command.js';
import { parseNumericCsv } from '../../../../src/core/control/waypoints.js';
import { UserInputError } from '../../../../src/errors.js';

const dir = mkdtempSync(join(tmpdir(), 'cavsim-wp-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

async function cavsim(...args: string[]): Promise<void> {
  const program = new Command('cavsim').exitOverride();
  registerWaypointsCommand(program);
  await program.parseAsync(['node', 'cavsim', ...args]);
}

describe('cavsim waypoints', () => {
  it('resample writes x,y,yaw,speed at the asked spacing', async () => {
    writeFileSync(join(dir, 'line.csv'), 'x,y,speed\n0,0,1\n2,0,3\n');
    await cavsim('waypoints', 'resample', join(dir, 'line.csv'), '-o', join(dir, 'out.csv'), '--spacing', '0.5');
    const text = readFileSync(join(dir, 'out.csv'), 'utf8');
    expect(text.split('\n')[0]).toBe('x,y,yaw,speed');
    const { rows, errors } = parseNumericCsv(text, ['x', 'y', 'yaw', 'speed']);
    expect(errors).toEqual([]);
    expect(rows.map((r) => r.x)).toEqual([0, 0.5, 1, 1.5, 2]);
    expect(rows.map((r) => r.speed)).toEqual([1, 1.5, 2, 2.5, 3]);
  });

  it('record turns a run folder into waypoints of one car', async () => {
    const run = join(dir, 'run');
    mkdirSync(run);
    const rows = Array.from({ length: 11 }, (_, i) => `${i * 0.1},car0,0,${i * 0.2},1.5708,2,0,0,2,0,0,0`);
    writeFileSync(
      join(run, 'vehicles.csv'),
      ['t_s,vehicle,x_m,y_m,yaw_rad,speed_mps,steer_rad,yaw_rate_radps,cmd_speed_mps,cmd_steer_rad,braking,collided', ...rows].join('\n') +
        '\n',
    );
    await cavsim('waypoints', 'record', run, '--vehicle', 'car0', '-o', join(dir, 'rec.csv'), '--spacing', '0.5');
    const { rows: wp } = parseNumericCsv(readFileSync(join(dir, 'rec.csv'), 'utf8'), ['x', 'y', 'yaw', 'speed']);
    expect(wp.map((r) => r.y)).toEqual([0, 0.5, 1, 1.5, 2]);
    expect(wp.every((r) => r.speed === 2 && Math.abs(r.yaw - Math.PI / 2) < 1e-3)).toBe(true);
  });

  it('reports user errors: missing file, unknown car, bad spacing', async () => {
    await expect(cavsim('waypoints', 'resample', join(dir, 'nope.csv'), '-o', join(dir, 'x.csv'))).rejects.toThrow(UserInputError);
    await expect(cavsim('waypoints', 'record', join(dir, 'run'), '--vehicle', 'car7')).rejects.toThrow(/no vehicle "car7"/);
    await expect(cavsim('waypoints', 'resample', join(dir, 'line.csv'), '-o', '-', '--spacing', '-1')).rejects.toThrow(
      /--spacing "-1": give a distance in metres of at least 0.001/,
    );
  });
});
