import { createCommandRunner } from '../../host/exec/command-runner.js';

/**
 * Opens `url` in the desktop's browser, fire and forget: some openers stay attached to the browser
 * they start. `onFailure` hears when there is none.
 */
export function openInBrowser(url: string, onFailure: () => void): void {
  void createCommandRunner().run(['xdg-open', url], { allowFailure: true }).catch(onFailure);
}
