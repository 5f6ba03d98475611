import { describe, expect, it } from 'vitest';
import { channelLagProblem, NS3_LAG_LIMIT_MS } from '../../../../src/runtime/emulated/run-emulated.js';

describe('ns-3 falling behind real time', () => {
  it('is no problem within the limit, or with no samples', () => {
    expect(channelLagProblem([0.5, 0.6, NS3_LAG_LIMIT_MS])).toBeUndefined();
    expect(channelLagProblem([])).toBeUndefined();
  });

  it('makes the run invalid beyond it, with the figure and where it is recorded', () => {
    expect(channelLagProblem([0.5, 1060.4, 0.7])).toBe(
      `the ns-3 channel fell 1060 ms behind real time (timing.ns3_lag_max_ms; allowed ${NS3_LAG_LIMIT_MS} ms): messages in flight were delivered that much later than the channel's model`,
    );
  });
});
