/**
 * A command that needs root, written the way this user can type it: as is for root (a fresh
 * Debian 12 as root has no `sudo`), behind `sudo` for anyone else.
 */
export const asRoot = (command: string, uid = process.getuid?.() ?? 0): string => (uid === 0 ? command : `sudo ${command}`);
