export {
  accelerationForCommand,
  commandToDynamicsInputs,
  type DynamicsInputs,
  STEER_DEADBAND,
  steeringVelocityForCommand,
} from './command-conversion.js';
export {
  F1TENTH_DEFAULT_INTEGRATOR,
  F1TENTH_DEFAULT_PARAMS,
  F1TENTH_STEER_DELAY_STEPS,
  F1TENTH_TIMESTEP,
} from './defaults.js';
export {
  constrainAcceleration,
  constrainSteeringVelocity,
  GRAVITY,
  KINEMATIC_SWITCH_SPEED,
  singleTrackDerivatives,
  singleTrackDerivativesInto,
  type VehicleStateDerivative,
} from './dynamics.js';
export {
  type Footprint,
  findCollisions,
  footprintCorners,
  footprintsOverlap,
  type OverlapOptions,
  type Pose,
} from './footprint.js';
export type { IntegratorKind } from './integration.js';
export type { DriveCommand, VehicleParams, VehicleState } from './types.js';
export { createInitialState, type InitialPose, VehicleModel, type VehicleModelOptions } from './vehicle-model.js';
