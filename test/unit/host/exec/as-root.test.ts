import { describe, expect, it } from 'vitest';
import { asRoot } from '../../../../src/host/exec/as-root.js';

describe('asRoot', () => {
  it('prints a root command as is for root, who may have no sudo, and behind sudo for anyone else', () => {
    expect(asRoot('scripts/setup-docker.sh', 0)).toBe('scripts/setup-docker.sh');
    expect(asRoot('scripts/setup-docker.sh', 1000)).toBe('sudo scripts/setup-docker.sh');
  });
});
