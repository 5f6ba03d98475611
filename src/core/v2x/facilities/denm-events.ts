/** The DENM events and traffic directions by name, apart from the DENM service so the scenario schema loads without it. */
export type DenmEvent = 'hard-braking' | 'emergency-brake' | 'collision-risk' | 'stationary';
export const DENM_EVENTS: readonly DenmEvent[] = ['hard-braking', 'emergency-brake', 'collision-risk', 'stationary'];

export const TRAFFIC_DIRECTIONS = {
  all: 'allTrafficDirections',
  upstream: 'upstreamTraffic',
  downstream: 'downstreamTraffic',
  opposite: 'oppositeTraffic',
} as const;
