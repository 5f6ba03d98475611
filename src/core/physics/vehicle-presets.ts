import { F1TENTH_DEFAULT_PARAMS } from './defaults.js';
import type { VehicleParams } from './types.js';

/**
 * Full-size cars for the single-track model: CommonRoad's published vehicle parameter sets
 * (M. Althoff, M. Koschi, S. Manzinger, "CommonRoad: Composable benchmarks for motion planning on
 * roads", IEEE IV 2017; commonroad-vehicle-models, PYTHON/vehiclemodels/parameters_vehicle{1,2,3}.py,
 * values from the US DOT vehicle dynamics data). f1tenth_gym's own car is CommonRoad's single-track
 * model with these parameters scaled down.
 *
 * How CommonRoad's fields map to cavsim's (as its vehicle_dynamics_st does): mu = tire.p_dy1,
 * C_Sf = C_Sr = -tire.p_ky1 / tire.p_dy1, lf = a, lr = b, h = h_s (the sprung mass's centre of
 * gravity), I = I_z, s_min/s_max = steering.min/max, sv_min/sv_max = steering.v_min/v_max, and the
 * longitudinal limits as they are. CommonRoad gives mass, lengths and inertia in US units (slug,
 * ft, slug ft²); they are converted here with its own factors (1 lbf = 4.4482216152605 N,
 * 1 ft = 0.3048 m) and rounded to 0.01 mm, 1 g and 0.001 kg m².
 */
const round = (v: number, digits: number) => +v.toFixed(digits);

const SLUG_KG = 4.4482216152605 / 0.3048;
const FT_M = 0.3048;
const SLUG_FT2_KG_M2 = 4.4482216152605 * 0.3048;

/** The three sets share CommonRoad's ADAMS tyre: p_dy1 = 1.0489, p_ky1 = -21.92. */
const TYRE = { mu: 1.0489, C_Sf: round(21.92 / 1.0489, 4), C_Sr: round(21.92 / 1.0489, 4) };

/** Vehicle 1: Ford Escort. */
export const COMMONROAD_FORD_ESCORT: Readonly<VehicleParams> = Object.freeze({
  ...TYRE,
  lf: round(2.9 * FT_M, 5),
  lr: round(4.95 * FT_M, 5),
  h: round(1.95 * FT_M, 5),
  m: round(84 * SLUG_KG, 3),
  I: round(1135 * SLUG_FT2_KG_M2, 3),
  s_min: -0.91,
  s_max: 0.91,
  sv_min: -0.4,
  sv_max: 0.4,
  v_switch: 4.755,
  a_max: 11.5,
  v_min: -13.9,
  v_max: 45.8,
  width: 1.674,
  length: 4.298,
});

/** Vehicle 2: BMW 320i (length with US bumpers). */
export const COMMONROAD_BMW_320I: Readonly<VehicleParams> = Object.freeze({
  ...TYRE,
  lf: round(3.793293 * FT_M, 5),
  lr: round(4.667707 * FT_M, 5),
  h: round(2.01355 * FT_M, 5),
  m: round(74.91452 * SLUG_KG, 3),
  I: round(1321.416 * SLUG_FT2_KG_M2, 3),
  s_min: -1.066,
  s_max: 1.066,
  sv_min: -0.4,
  sv_max: 0.4,
  v_switch: 7.319,
  a_max: 11.5,
  v_min: -13.6,
  v_max: 50.8,
  width: 1.61,
  length: 4.508,
});

/** Vehicle 3: VW Vanagon. */
export const COMMONROAD_VW_VANAGON: Readonly<VehicleParams> = Object.freeze({
  ...TYRE,
  lf: round(3.775563 * FT_M, 5),
  lr: round(4.334437 * FT_M, 5),
  h: round(2.639405 * FT_M, 5),
  m: round(101.3367 * SLUG_KG, 3),
  I: round(1824.078 * SLUG_FT2_KG_M2, 3),
  s_min: -1.023,
  s_max: 1.023,
  sv_min: -0.4,
  sv_max: 0.4,
  v_switch: 7.824,
  a_max: 11.5,
  v_min: -11.2,
  v_max: 41.7,
  width: 1.844,
  length: 4.569,
});

/** Named vehicle parameter sets a scenario may start from (`traffic.vehicle`). */
export const VEHICLE_PRESETS = {
  f1tenth: F1TENTH_DEFAULT_PARAMS,
  'commonroad-ford-escort': COMMONROAD_FORD_ESCORT,
  'commonroad-bmw-320i': COMMONROAD_BMW_320I,
  'commonroad-vw-vanagon': COMMONROAD_VW_VANAGON,
} as const satisfies Record<string, Readonly<VehicleParams>>;

export type VehiclePresetName = keyof typeof VEHICLE_PRESETS;
export const VEHICLE_PRESET_NAMES = Object.keys(VEHICLE_PRESETS) as VehiclePresetName[];
