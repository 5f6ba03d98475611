import { describe, expect, it } from 'vitest';
import type { V2VMessage } from '../../../../src/core/control/vehicle-context.js';
import { PendingCommands, PendingSends } from '../../../../src/runtime/sim/pending-outputs.js';
import type { WorldCar } from '../../../../src/world/world.js';

const car = (): WorldCar => ({ command: { speed: 0, steer: 0 } }) as unknown as WorldCar;
const cmd = (speed: number, steer = 0) => ({ speed, steer });

describe('PendingCommands', () => {
  it('applies nothing before a command is due and applies it at its step', () => {
    const a = car();
    const p = new PendingCommands();
    p.add(a, 5, cmd(2));
    p.applyFor(4);
    expect(a.command).toEqual(cmd(0));
    p.applyFor(5);
    expect(a.command).toEqual(cmd(2));
  });

  it('applies commands due before the step too, and only once', () => {
    const a = car();
    const p = new PendingCommands();
    p.add(a, 3, cmd(1));
    p.applyFor(10);
    expect(a.command).toEqual(cmd(1));
    a.command = cmd(9);
    p.applyFor(11);
    expect(a.command).toEqual(cmd(9));
  });

  it('lets the command due latest win, whatever order they were added in', () => {
    const a = car();
    const p = new PendingCommands();
    p.add(a, 4, cmd(4)); // issued first, due later
    p.add(a, 2, cmd(2)); // issued later, due earlier
    p.applyFor(5);
    expect(a.command).toEqual(cmd(4));
  });

  it('for commands due at the same step, lets the one issued last win', () => {
    const a = car();
    const p = new PendingCommands();
    p.add(a, 3, cmd(1));
    p.add(a, 3, cmd(2));
    p.add(a, 3, cmd(3));
    p.applyFor(3);
    expect(a.command).toEqual(cmd(3));
  });

  it('applies the commands in order of due step then issue order', () => {
    const applied: number[] = [];
    const recorder = {
      set command(c: { speed: number; steer: number }) {
        applied.push(c.speed);
      },
    } as unknown as WorldCar;
    const p = new PendingCommands();
    p.add(recorder, 5, cmd(51));
    p.add(recorder, 2, cmd(21));
    p.add(recorder, 5, cmd(52));
    p.add(recorder, 1, cmd(11));
    p.add(recorder, 2, cmd(22));
    p.applyFor(5);
    expect(applied).toEqual([11, 21, 22, 51, 52]);
  });

  it('keeps commands due later for their step, per car', () => {
    const a = car();
    const b = car();
    const p = new PendingCommands();
    p.add(a, 2, cmd(1));
    p.add(b, 3, cmd(5, 0.1));
    p.add(a, 6, cmd(7));
    p.applyFor(3);
    expect(a.command).toEqual(cmd(1));
    expect(b.command).toEqual(cmd(5, 0.1));
    p.applyFor(5);
    expect(a.command).toEqual(cmd(1));
    p.applyFor(6);
    expect(a.command).toEqual(cmd(7));
  });
});

const msg = (id: string, sentAt: number): V2VMessage => ({ id, from: 'car0', to: '*', sentAt, type: 'x', body: {} });
const ids = (msgs: V2VMessage[]) => msgs.map((m) => m.id);

describe('PendingSends', () => {
  it('returns nothing when nothing is due', () => {
    const p = new PendingSends();
    expect(p.dueBefore(1)).toEqual([]);
    p.add([msg('a', 0.5)]);
    expect(p.dueBefore(0.4)).toEqual([]);
    expect(ids(p.dueBefore(0.6))).toEqual(['a']);
  });

  it('returns messages sent strictly before t, in time order, and keeps later ones', () => {
    const p = new PendingSends();
    p.add([msg('c', 0.3), msg('a', 0.1)]);
    p.add([msg('b', 0.2)]);
    p.add([msg('d', 0.4)]);
    expect(ids(p.dueBefore(0.3))).toEqual(['a', 'b']);
    expect(ids(p.dueBefore(0.3))).toEqual([]);
    expect(ids(p.dueBefore(0.35))).toEqual(['c']);
    expect(ids(p.dueBefore(10))).toEqual(['d']);
    expect(p.dueBefore(10)).toEqual([]);
  });

  it('does not return a message sent exactly at t', () => {
    const p = new PendingSends();
    p.add([msg('a', 0.02)]);
    expect(p.dueBefore(0.02)).toEqual([]);
    expect(ids(p.dueBefore(0.020001))).toEqual(['a']);
  });

  it('keeps the order messages were added in for equal send times, within and across adds', () => {
    const p = new PendingSends();
    p.add([msg('x1', 0.1), msg('x2', 0.1), msg('x3', 0.1)]);
    p.add([msg('early', 0.05)]);
    p.add([msg('y1', 0.1), msg('y2', 0.1)]);
    p.add([msg('late', 0.2), msg('z1', 0.1)]);
    expect(ids(p.dueBefore(1))).toEqual(['early', 'x1', 'x2', 'x3', 'y1', 'y2', 'z1', 'late']);
  });

  it('ignores an empty add', () => {
    const p = new PendingSends();
    p.add([]);
    expect(p.dueBefore(100)).toEqual([]);
  });

  it('returns the message objects as added', () => {
    const p = new PendingSends();
    const m = msg('a', 0.1);
    p.add([m]);
    expect(p.dueBefore(1)[0]).toBe(m);
  });
});
