import type { IptablesRule } from './operation-schema.js';

export type IptablesAction = '-I' | '-A' | '-D' | '-C';

/** The exact argv for one rule; `-D` with the same spec is the inverse of `-I`/`-A`. */
export function iptablesArgv(action: IptablesAction, rule: IptablesRule): string[] {
  return [
    'iptables',
    '-w',
    '-t',
    'filter',
    action,
    rule.chain,
    ...(rule.in ? ['-i', rule.in] : []),
    ...(rule.out ? ['-o', rule.out] : []),
    ...(rule.source ? ['-s', rule.source] : []),
    ...(rule.destination ? ['-d', rule.destination] : []),
    '-m',
    'comment',
    '--comment',
    rule.comment,
    '-j',
    rule.jump,
  ];
}
