import { describe, expect, it } from 'vitest';
import { isLoopbackHost } from '../../../../src/ui/viewer/view-server.js';

describe('isLoopbackHost', () => {
  it.each([
    ['127.0.0.1:8080', true],
    ['localhost:8080', true],
    ['LOCALHOST:8080', true],
    ['[::1]:8080', true],
    ['127.0.0.1:8081', false],
    ['evil.example:8080', false],
    ['127.0.0.1', false],
    [undefined, false],
  ])('%s -> %s', (host, ok) => {
    expect(isLoopbackHost(host, 8080)).toBe(ok);
  });
});
