import type { IptablesRule } from './operation-schema.js';

export type IptablesAction = '-I' | '-A' | '-D' | '-C';

/** The exact argv for one rule; `-D` with the same spec is the inverse of `-I`/`-A`. */
export function iptablesArgv(action: IptablesAction, rule: IptablesRule): string[] {
  return ['iptables', '-w', '-t', 'filter', ...ruleSpec(action, rule)];
}

/**
 * `iptables-restore --noflush` input applying `action` to each rule in order, as one transaction:
 * the same rules, in the same order, as one `iptables` call per rule. Every field was validated
 * (names, CIDRs, `cavsim:` comments), so none can carry a space or a newline.
 */
export function iptablesRestoreInput(action: Exclude<IptablesAction, '-C'>, rules: readonly IptablesRule[]): string {
  return ['*filter', ...rules.map((r) => ruleSpec(action, r).join(' ')), 'COMMIT', ''].join('\n');
}

function ruleSpec(action: IptablesAction, rule: IptablesRule): string[] {
  return [
    action,
    rule.chain,
    ...(rule.in ? ['-i', rule.in] : []),
    ...(rule.out ? ['-o', rule.out] : []),
    ...(rule.source ? ['-s', rule.source] : []),
    ...(rule.destination ? ['-d', rule.destination] : []),
    ...(rule.tcpPort !== undefined ? ['-p', 'tcp', '--dport', String(rule.tcpPort)] : []),
    ...(rule.udpPort !== undefined ? ['-p', 'udp', '--dport', String(rule.udpPort)] : []),
    '-m',
    'comment',
    '--comment',
    rule.comment,
    '-j',
    rule.jump,
  ];
}
