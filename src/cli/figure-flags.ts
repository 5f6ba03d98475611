import type { Command } from 'commander';
import { InvalidArgumentError } from 'commander';

/** Inches of the usual paper widths (`--figure-width`): one column and a two-column page. */
const WIDTHS: Record<string, number> = { column: 3.5, page: 7.16 };

/** `--figure-width column|page|INCHES`: a positive number of inches, at most 40. */
export function figureWidth(text: string): number {
  const inches = WIDTHS[text] ?? (/^\d+(\.\d+)?(in)?$/.test(text) ? parseFloat(text) : NaN);
  if (!(inches >= 1 && inches <= 40))
    throw new InvalidArgumentError('give column (3.5 in), page (7.16 in) or a width in inches from 1 to 40, e.g. 5in');
  return inches;
}

/** `--font-size PT`: the labels' size in points, 5 to 24. */
export function fontSize(text: string): number {
  const pt = /^\d+(\.\d+)?(pt)?$/.test(text) ? parseFloat(text) : NaN;
  if (!(pt >= 5 && pt <= 24)) throw new InvalidArgumentError('give a size in points from 5 to 24, e.g. 8 or 8pt');
  return pt;
}

/** The figure-size flags `cavsim sweep` and `cavsim report` share. */
export function addFigureFlags(command: Command): Command {
  return command
    .option(
      '--figure-width <width>',
      'figures for a paper: column (3.5 in), page (7.16 in) or INCHES (default: critical map and V2X a column wide, the rest their own size)',
      figureWidth,
    )
    .option('--font-size <pt>', "figures' label size in points, e.g. 8 (titles 1-2 pt larger)", fontSize);
}

export const figureSize = (flags: { figureWidth?: number; fontSize?: number }) => ({
  ...(flags.figureWidth !== undefined ? { widthIn: flags.figureWidth } : {}),
  ...(flags.fontSize !== undefined ? { fontPt: flags.fontSize } : {}),
});

/** One stderr line per figure as it is drawn, and why one is left out. */
export const figureProgress = {
  onFigure: (name: string, index: number, total: number) => process.stderr.write(`drawing figure ${index}/${total}: ${name}\n`),
  onSkip: (name: string, why: string) => process.stderr.write(`not drawn: ${name} (${why})\n`),
};
