/**
 * The ports cavsim listens on inside its containers: below Linux's ephemeral range (32768-60999),
 * from which Docker's embedded DNS and every outgoing socket draw theirs, so they cannot collide.
 */
export const CONTROL_PORT = 9090;
export const V2V_PORT = 7400;
/** The stack-share probes' UDP port on each car's channel address, used only before a run starts. */
export const STACK_PROBE_PORT = 7401;
/**
 * The source port of a V2V relay's control link: privileged, and the vehicle container that shares
 * the relay's network namespace (its own code) runs without CAP_NET_BIND_SERVICE, so only the relay
 * can connect from it and the simulator tells the two apart by it.
 */
export const RELAY_CONTROL_SOURCE_PORT = 907;
