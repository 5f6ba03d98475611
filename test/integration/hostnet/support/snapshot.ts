import { execFileSync } from 'node:child_process';

/** Host state that teardown must restore exactly: links, namespaces, filter rules, our processes. */
export interface HostSnapshot {
  links: string;
  netns: string;
  iptables: string;
  processes: string;
}

const run = (file: string, args: string[]) => execFileSync(file, args, { encoding: 'utf8' });

export function snapshotHost(processMarkers: string[]): HostSnapshot {
  return {
    // Bridge timers tick on their own. Docker's default bridge has carrier only while some
    // container (an image build's, say) is attached to it: Docker's business, not a leftover.
    // Everything else in `ip -d link` is static.
    links: run('ip', ['-d', 'link'])
      .replace(/\b(\w+_timer)\s+[\d.]+/g, '$1 *')
      .replace(/^(\d+: docker0: <)(?:NO-CARRIER,)?([^>]*>.*? state )(?:UP|DOWN)\b/m, '$1$2*'),
    netns: run('ip', ['netns', 'list']),
    iptables: run('iptables-save', [])
      .split('\n')
      .filter((l) => !l.startsWith('#'))
      .map((l) => l.replace(/\[\d+:\d+\]/g, '[*]'))
      .join('\n'),
    // A killed orphan stays a zombie until init gets round to reaping it: dead, so not a leftover.
    processes: run('ps', ['-eo', 'pid,stat,args'])
      .split('\n')
      .filter((l) => processMarkers.some((m) => l.includes(m)) && !l.includes('ps -eo'))
      .filter((l) => !/^\s*\d+\s+Z/.test(l))
      .join('\n'),
  };
}
