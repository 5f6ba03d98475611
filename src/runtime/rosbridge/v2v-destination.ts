/**
 * Why a V2V message's `to` is not `*` or another car of the run (`others`), or undefined: the
 * sender-side check of both runtimes (issue 52), so a frame to the sender itself, to no car or to
 * a name that is no name never reaches a channel (ns-3 in lock-step ends on a frame to its sender).
 */
export function destinationProblem(s: { to: string }, self: string, others: ReadonlySet<string>): string | undefined {
  if (s.to === '*' || others.has(s.to)) return undefined;
  if (s.to === self) return 'addressed to the sending car itself';
  return /^[A-Za-z0-9_-]+$/.test(s.to) ? `${JSON.stringify(s.to)} is no car of this run` : `${JSON.stringify(s.to)} is not a car's name`;
}
