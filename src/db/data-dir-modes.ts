// The embedded database's files hold every merchant's data and keys: readable by their owner
// only. PGlite sets its own modes on the files it creates (0666 for many), whatever the umask, so
// the tree is tightened after PGlite has opened or closed the directory; the directory itself is
// 0700, so nobody else can reach a file in it even in between.
import { chmodSync, lstatSync, readdirSync } from 'node:fs';
import { join } from 'node:path';

/** Takes every group and other permission off `dir` and everything under it (symbolic links untouched). */
export function restrictToOwner(dir: string): void {
  const visit = (path: string) => {
    let stat;
    try {
      stat = lstatSync(path);
    } catch {
      return; // removed meanwhile (PGlite's temporary files)
    }
    if (stat.isSymbolicLink()) return;
    if ((stat.mode & 0o077) !== 0) {
      try {
        chmodSync(path, stat.mode & 0o700);
      } catch {
        return;
      }
    }
    if (stat.isDirectory()) for (const name of readdirSync(path)) visit(join(path, name));
  };
  visit(dir);
}
