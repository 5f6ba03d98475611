/** How cavsim reaches one host's Docker engine, parsed from the hosts file's `engine:` URL. */
export type EngineEndpoint =
  | { scheme: 'tcp'; host: string; port: number }
  | { scheme: 'ssh'; host: string; port: number; user?: string }
  | { scheme: 'unix'; socketPath: string };

/** Docker's TLS port (`dockerd --tlsverify -H tcp://0.0.0.0:2376`), and SSH's. */
export const DEFAULT_PORT = { tcp: 2376, ssh: 22 } as const;

const FORMS = 'tcp://HOST:2376 (with tls), ssh://USER@HOST or unix:///var/run/docker.sock';
const IPV4 = /^(25[0-5]|2[0-4]\d|1\d\d|[1-9]?\d)(\.(25[0-5]|2[0-4]\d|1\d\d|[1-9]?\d)){3}$/;

export const isIpv4 = (text: string) => IPV4.test(text);

/** The endpoint, or why the URL is not one (a sentence naming the fix). */
export function parseEngineUrl(text: string): EngineEndpoint | string {
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    return `"${text}" is not a URL; write ${FORMS}`;
  }
  const scheme = url.protocol.replace(/:$/, '');
  if (scheme === 'unix') {
    if (url.hostname || !url.pathname.startsWith('/') || url.pathname === '/')
      return `"${text}" names no socket; write unix:///var/run/docker.sock (three slashes, an absolute path)`;
    return { scheme, socketPath: decodeURIComponent(url.pathname) };
  }
  if (scheme !== 'tcp' && scheme !== 'ssh') return `"${text}" has the scheme ${scheme}://, which cavsim does not speak; write ${FORMS}`;
  if (!url.hostname) return `"${text}" names no host; write ${scheme === 'tcp' ? 'tcp://HOST:2376' : 'ssh://USER@HOST'}`;
  if (url.pathname && url.pathname !== '/') return `"${text}" has a path (${url.pathname}); an engine URL ends at the port`;
  if (url.password) return `"${text}" holds a password; use an SSH key (ssh-agent) instead`;
  const port = url.port ? Number(url.port) : DEFAULT_PORT[scheme];
  const host = url.hostname.replace(/^\[(.*)\]$/, '$1');
  if (scheme === 'tcp') return { scheme, host, port };
  return url.username ? { scheme, host, port, user: decodeURIComponent(url.username) } : { scheme, host, port };
}

/** One spelling per engine, to find two hosts that are the same engine. */
export function engineKey(e: EngineEndpoint): string {
  return e.scheme === 'unix' ? `unix://${e.socketPath}` : `${e.scheme}://${e.host.toLowerCase()}:${e.port}`;
}
