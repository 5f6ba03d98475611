export type { DriveCommand, VehicleParams, VehicleState } from './types.js';
export {
  F1TENTH_DEFAULT_INTEGRATOR,
  F1TENTH_DEFAULT_PARAMS,
  F1TENTH_STEER_DELAY_STEPS,
  F1TENTH_TIMESTEP,
} from './defaults.js';
export {
  GRAVITY,
  KINEMATIC_SWITCH_SPEED,
  constrainAcceleration,
  constrainSteeringVelocity,
  singleTrackDerivatives,
  singleTrackDerivativesInto,
  type VehicleStateDerivative,
} from './dynamics.js';
export {
  STEER_DEADBAND,
  accelerationForCommand,
  commandToDynamicsInputs,
  steeringVelocityForCommand,
  type DynamicsInputs,
} from './command-conversion.js';
export type { IntegratorKind } from './integration.js';
export { VehicleModel, createInitialState, type InitialPose, type VehicleModelOptions } from './vehicle-model.js';
export {
  findCollisions,
  footprintCorners,
  footprintsOverlap,
  type Footprint,
  type OverlapOptions,
  type Pose,
} from './footprint.js';
