import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { LIGHT_CAR_BUILT } from '../runtime/emulated/light-car.js';
import { packageRoot } from '../util/package-root.js';

/**
 * Whether emulated runs give the light-car program to the cars that may run it: the build has it
 * (`npm run build` with a C compiler) and CAVSIM_LIGHT_CARS is not 0 (0: every car on Node's vehicle
 * program, to compare the two).
 */
export function lightCarsEnabled(): boolean {
  return process.env.CAVSIM_LIGHT_CARS !== '0' && existsSync(join(packageRoot(), LIGHT_CAR_BUILT));
}
