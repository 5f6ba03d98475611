/** Gravity as f1tenth_gym writes it [m/s^2]. */
export const GRAVITY = 9.81;

/** Below this |v| the single-track model falls back to the kinematic model (division by v). */
export const KINEMATIC_SWITCH_SPEED = 0.5;
