import { z } from '../util/zod.js';
import { finite, ranged } from './schema-quantities.js';

/**
 * Every f1tenth_gym vehicle parameter may be overridden; all optional here. Ranges are those of
 * real cars (PARAM_RANGES); relations between parameters and the physics step are cross-checked.
 */
export const vehicleParamsSchema = z
  .object({
    mu: finite('surface friction coefficient').positive().max(5),
    C_Sf: ranged('C_Sf', 'front cornering stiffness [1/rad]'),
    C_Sr: ranged('C_Sr', 'rear cornering stiffness [1/rad]'),
    lf: ranged('lf', 'centre of gravity to front axle [m]'),
    lr: ranged('lr', 'centre of gravity to rear axle [m]'),
    h: finite('height of centre of gravity [m]').nonnegative().max(5),
    m: ranged('m', 'mass [kg]'),
    I: finite('moment of inertia about z [kg m^2]').positive(),
    s_min: ranged('s_min', 'minimum steering angle [rad]'),
    s_max: ranged('s_max', 'maximum steering angle [rad]'),
    sv_min: finite('minimum steering velocity [rad/s]').max(0),
    sv_max: finite('maximum steering velocity [rad/s]').min(0),
    v_switch: finite('switching velocity [m/s]').positive(),
    a_max: finite('maximum longitudinal acceleration [m/s^2]').positive().max(100),
    v_min: ranged('v_min', 'minimum velocity [m/s]').negative('must be below 0 (the speed controller divides by it); e.g. -5'),
    v_max: finite('maximum velocity [m/s]').positive().max(150),
    width: finite('footprint width [m]').positive().max(10),
    length: finite('footprint length [m]').positive().max(30),
  })
  .partial()
  .strict();
