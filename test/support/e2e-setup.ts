// Global setup of the e2e project: the page tests need Debian's Chromium and a font with Chinese
// glyphs (without one the Chinese pages render as boxes); the test run installs them
// (test/support/provision.ts).
import { spawnSync } from 'node:child_process';
import { CHROMIUM } from './chromium.ts';
import { executable, onPath, provision, type Missing } from './provision.ts';

export const PACKAGES = { chromium: 'chromium', font: 'fonts-noto-cjk', fontconfig: 'fontconfig' } as const;

/** What the page tests lack on this machine, as Debian packages and as words for a person. */
export function missing(): Missing {
  const packages: string[] = [];
  const what: string[] = [];
  if (!executable(CHROMIUM)) {
    // A browser named by ACQUIRO_CHROMIUM is the operator's to provide; apt installs /usr/bin/chromium.
    if (process.env.ACQUIRO_CHROMIUM) throw new Error(`ACQUIRO_CHROMIUM=${CHROMIUM} is not an executable file`);
    packages.push(PACKAGES.chromium);
    what.push(`Chromium (${CHROMIUM})`);
  }
  if (!onPath('fc-list')) {
    packages.push(PACKAGES.fontconfig, PACKAGES.font);
    what.push('fontconfig and a font with Chinese glyphs');
  } else if (spawnSync('fc-list', [':lang=zh', 'family'], { encoding: 'utf8' }).stdout.trim() === '') {
    packages.push(PACKAGES.font);
    what.push('a font with Chinese glyphs (fc-list :lang=zh finds none)');
  }
  return { packages, what };
}

export default async function setup(): Promise<void> {
  await provision('page (e2e)', missing, 'then run npm test again (or point ACQUIRO_CHROMIUM at a Chromium elsewhere).');
}
