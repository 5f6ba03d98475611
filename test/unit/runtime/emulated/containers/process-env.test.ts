import { describe, expect, it } from 'vitest';
import { UserInputError } from '../../../../../src/errors.js';
import {
  defaultMapFile,
  parseHostPort,
  parsePeers,
  readSimulatorEnv,
  readVehicleEnv,
} from '../../../../../src/runtime/emulated/containers/process-env.js';

describe('container environment contract', () => {
  it('gives the simulator its defaults', () => {
    expect(readSimulatorEnv({ CAVSIM_RUN_DIR: '/run/cavsim' })).toEqual({
      runDir: '/run/cavsim',
      runId: 'cavsim',
      bind: { host: '0.0.0.0', port: 9090 },
    });
    expect(
      readSimulatorEnv({
        CAVSIM_RUN_DIR: '/r',
        CAVSIM_RUN_ID: '20261122-101530-a3f9',
        CAVSIM_MAP: '/m/x.yaml',
        CAVSIM_BIND: '127.0.0.1:0',
      }),
    ).toEqual({
      runDir: '/r',
      runId: '20261122-101530-a3f9',
      mapFile: '/m/x.yaml',
      bind: { host: '127.0.0.1', port: 0 },
    });
    expect(defaultMapFile('/run/cavsim', '/home/u/cavsim/maps/corridor.yaml')).toBe('/run/cavsim/map/corridor.yaml');
  });

  it('reads a vehicle environment with peers given with and without ports', () => {
    const env = readVehicleEnv({
      CAVSIM_RUN_DIR: '/run/cavsim',
      CAVSIM_VEHICLE: 'car0',
      CAVSIM_SIM_URL: 'ws://10.211.4.2:9090',
      CAVSIM_V2V_PEERS: '{"car1":"10.210.4.3","car2":"127.0.0.1:47002"}',
    });
    expect(env.peers).toEqual([
      { name: 'car1', address: '10.210.4.3', port: 7400 },
      { name: 'car2', address: '127.0.0.1', port: 47002 },
    ]);
    expect(env.bind).toEqual({ host: '0.0.0.0', port: 7400 });
    expect(env.connectTimeoutMs).toBe(30_000);
  });

  it.each([
    [{}, 'CAVSIM_SIM_URL is not set'],
    [{ CAVSIM_SIM_URL: 'http://x:9090', CAVSIM_RUN_DIR: '/r', CAVSIM_VEHICLE: 'car0' }, 'ws:// URL'],
    [{ CAVSIM_SIM_URL: 'ws://x:9090', CAVSIM_RUN_DIR: '/r' }, 'CAVSIM_VEHICLE is not set'],
    [{ CAVSIM_SIM_URL: 'ws://x:9090', CAVSIM_RUN_DIR: '/r', CAVSIM_VEHICLE: 'car0', CAVSIM_V2V_PEERS: '["car1"]' }, 'JSON object'],
    [
      { CAVSIM_SIM_URL: 'ws://x:9090', CAVSIM_RUN_DIR: '/r', CAVSIM_VEHICLE: 'car0', CAVSIM_V2V_PEERS: '{"car1":7}' },
      'CAVSIM_V2V_PEERS.car1',
    ],
    [
      { CAVSIM_SIM_URL: 'ws://x:9090', CAVSIM_RUN_DIR: '/r', CAVSIM_VEHICLE: 'car0', CAVSIM_V2V_BIND: '1.2.3.4:99999' },
      'CAVSIM_V2V_BIND must be host[:port]',
    ],
  ])('rejects %j as a user error', (env, message) => {
    expect(() => readVehicleEnv(env)).toThrow(UserInputError);
    expect(() => readVehicleEnv(env)).toThrow(message);
  });

  it('parses host:port', () => {
    expect(parseHostPort('sim', 'X', 9090)).toEqual({ host: 'sim', port: 9090 });
    expect(parsePeers('{}')).toEqual([]);
  });
});
