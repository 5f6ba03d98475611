import { describe, expect, it } from 'vitest';
import { DOCKER_KINDS, HOSTNET_KINDS, NS3_PROCESS_KIND } from '../../../../src/host/journal/kinds.js';

describe('journal kinds', () => {
  it('keep the strings written in journals on disk (teardown of older runs reads them)', () => {
    expect(DOCKER_KINDS).toEqual({ container: 'docker-container', network: 'docker-network' });
    expect(HOSTNET_KINDS).toEqual({
      link: 'hostnet.link',
      links: 'hostnet.links',
      netns: 'hostnet.netns',
      iptables: 'hostnet.iptables',
      iptablesSet: 'hostnet.iptables-set',
      deviceLink: 'hostnet.device-link',
      tunnel: 'hostnet.tunnel',
    });
    expect(NS3_PROCESS_KIND).toBe('ns3.process');
  });

  it('are all distinct', () => {
    const all = [...Object.values(DOCKER_KINDS), ...Object.values(HOSTNET_KINDS), NS3_PROCESS_KIND];
    expect(new Set(all).size).toBe(all.length);
  });
});
