/**
 * `up --keep`: the container's program stays (idle) after the run, so the container keeps running
 * and its network stays reachable (`docker exec ... ping`), until `cavsim teardown` stops it.
 */
export async function stayUpIfKept(env: NodeJS.ProcessEnv, log: (line: string) => void): Promise<void> {
  if (env.CAVSIM_KEEP !== '1') return;
  log('the run is kept: staying up until stopped (cavsim teardown)');
  const timer = setInterval(() => {}, 1 << 30);
  await new Promise<void>((resolve) => {
    for (const signal of ['SIGTERM', 'SIGINT'] as const) process.once(signal, () => resolve());
  });
  clearInterval(timer);
}
