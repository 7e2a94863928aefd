// `npm run reference`: rewrites docs/reference/ from the code's tables (scripts/reference/pages.ts).
import { mkdirSync, writeFileSync } from 'node:fs';
import { referencePages } from './reference/pages.ts';

const dir = new URL('../docs/reference/', import.meta.url);
mkdirSync(dir, { recursive: true });
for (const [name, text] of referencePages()) writeFileSync(new URL(name, dir), text);
process.stdout.write(`wrote ${[...referencePages().keys()].join(', ')} in ${dir.pathname}\n`);
