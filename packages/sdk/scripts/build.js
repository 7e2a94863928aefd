// Builds dist/esm (import) and dist/cjs (require), each with its .d.ts declarations, with the
// repository's TypeScript and no bundler: `npm run build`, and `npm pack` through prepack.
import { spawnSync } from 'node:child_process';
import { rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';

const here = new URL('../', import.meta.url);
const tsc = createRequire(import.meta.url).resolve('typescript/bin/tsc');

rmSync(new URL('dist', here), { recursive: true, force: true });
for (const config of ['tsconfig.esm.json', 'tsconfig.cjs.json']) {
  const run = spawnSync(process.execPath, [tsc, '-p', config], { cwd: here, stdio: 'inherit' });
  if (run.status !== 0) process.exit(run.status ?? 1);
}
// dist/cjs holds CommonJS in a package whose "type" is "module": this file tells Node so.
writeFileSync(new URL('dist/cjs/package.json', here), '{ "type": "commonjs" }\n');
