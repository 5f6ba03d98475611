/**
 * Absolute paths to a `tap-creator` helper compiled into libns3-tap-bridge. TapBridge execs the
 * path it was built with, which on Debian points into the package build tree, not to the
 * installed helper in /usr/libexec/ns3/.
 */
export function tapCreatorPathsIn(library: Buffer): string[] {
  const found = new Set<string>();
  // Printable runs, like `strings`.
  for (const match of library.toString('latin1').matchAll(/[\x20-\x7e]{8,}/g)) {
    const text = match[0];
    if (text.startsWith('/') && /tap-creator$/.test(text)) found.add(text);
  }
  return [...found];
}
