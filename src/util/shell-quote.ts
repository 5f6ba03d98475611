/** A word as a POSIX shell reads it back: as is when it holds no special characters, else single-quoted. */
export const shellQuote = (word: string): string => (/^[A-Za-z0-9_@%+=:,./-]+$/.test(word) ? word : `'${word.replace(/'/g, `'\\''`)}'`);
