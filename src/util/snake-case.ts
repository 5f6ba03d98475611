/** Keys as cavsim's JSON files and `--json` output spell them: snake_case, values left as they are. */
export function snakeCaseKeys(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(snakeCaseKeys);
  if (value === null || typeof value !== 'object') return value;
  return Object.fromEntries(Object.entries(value).map(([k, v]) => [snakeCase(k), snakeCaseKeys(v)]));
}

/** `lastSafeText` -> `last_safe_text`; keys already in snake_case, and paths like `network.delay`, stay. */
export function snakeCase(key: string): string {
  return key
    .replace(/([a-z0-9])([A-Z])/g, '$1_$2')
    .replace(/([A-Z])([A-Z][a-z])/g, '$1_$2')
    .toLowerCase();
}
