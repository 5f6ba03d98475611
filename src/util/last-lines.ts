/** Last non-empty lines of a log text. */
export function lastLines(text: string | undefined, n = 5): string[] {
  return (text ?? '')
    .split('\n')
    .map((l) => l.trimEnd())
    .filter(Boolean)
    .slice(-n);
}
