/** Vehicle parameters of f1tenth_gym's single-track model (SI units, radians). */
export interface VehicleParams {
  mu: number; // surface friction coefficient
  C_Sf: number; // cornering stiffness front [1/rad]
  C_Sr: number; // cornering stiffness rear [1/rad]
  lf: number; // centre of gravity to front axle [m]
  lr: number; // centre of gravity to rear axle [m]
  h: number; // height of centre of gravity [m]
  m: number; // total mass [kg]
  I: number; // moment of inertia about z [kg m^2]
  s_min: number; // steering angle limits [rad]
  s_max: number;
  sv_min: number; // steering velocity limits [rad/s]
  sv_max: number;
  v_switch: number; // switching velocity for the acceleration constraint [m/s]
  a_max: number; // maximum longitudinal acceleration [m/s^2]
  v_min: number; // velocity limits [m/s]
  v_max: number;
  width: number; // footprint [m]
  length: number;
}

/** f1tenth_gym's standard state vector, named. */
export interface VehicleState {
  x: number;
  y: number;
  steer: number; // front wheel steering angle delta [rad]
  v: number; // longitudinal velocity [m/s]
  yaw: number; // heading psi [rad]
  yawRate: number; // psi dot [rad/s]
  slip: number; // slip angle beta [rad]
}

/** What a controller asks for, as in ackermann_msgs/AckermannDrive. */
export interface DriveCommand {
  speed: number; // desired longitudinal speed [m/s]
  steer: number; // desired steering angle [rad]
}
