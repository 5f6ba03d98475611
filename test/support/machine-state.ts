import { execFileSync } from 'node:child_process';

const lines = (text: string) => text.split('\n').filter((l) => l.trim());
/** Links of a cavsim run (a run tag of 6 hex digits), which a run the lead starts meanwhile may add or remove. */
const RUN_LINK = /^\d+: (br|cv|tap|vx)-[0-9a-f]{6}-/;

/** `ip -o -d link` less what changes on its own: bridge timers, docker0's carrier, veths of containers on docker0. */
export function linkLines(text: string): string[] {
  return lines(text)
    .filter((l) => !RUN_LINK.test(l) && !/ master docker0 /.test(l))
    .map((l) =>
      l.replace(/\b(\w+_timer)\s+[\d.]+/g, '$1 *').replace(/^(\d+: docker0: <)(?:NO-CARRIER,)?([^>]*>.*? state )(?:UP|DOWN)\b/, '$1$2*'),
    );
}

/** `iptables-save` less comments, packet counters and rules of cavsim runs (`cavsim:<run>` comments). */
export function ruleLines(text: string): string[] {
  return lines(text)
    .filter((l) => !l.startsWith('#') && !l.includes('cavsim:'))
    .map((l) => l.replace(/\[\d+:\d+\]/g, '[*]'));
}

/**
 * A host's links and filter rules as a command runner sees them (`run(file, args)`): this machine's,
 * or a local host's through `docker exec`. Resources of cavsim runs that may come and go meanwhile
 * are left out (see linkLines, ruleLines).
 */
export function networkState(run: (file: string, args: string[]) => string = (f, a) => execFileSync(f, a, { encoding: 'utf8' })) {
  return { links: linkLines(run('ip', ['-o', '-d', 'link'])), iptables: ruleLines(run('iptables-save', [])) };
}

/** This machine's containers, networks and volumes (names; those labelled as a cavsim run's left out), links and rules. */
export function machineState() {
  const run = (file: string, args: string[]) => execFileSync(file, args, { encoding: 'utf8' });
  const docker = (what: string[], name = '.Name') =>
    lines(run('docker', [...what, '--format', `{{${name}}}\t{{.Label "cavsim.run"}}`]))
      .filter((l) => l.endsWith('\t'))
      .sort();
  return {
    containers: docker(['ps', '-a'], '.Names'),
    networks: docker(['network', 'ls']),
    volumes: docker(['volume', 'ls']),
    ...networkState(run),
  };
}
