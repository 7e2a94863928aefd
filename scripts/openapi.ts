// `npm run openapi`: rewrites docs/openapi.json from the code (src/http/openapi.ts).
import { writeFileSync } from 'node:fs';
import { openApiText } from '../src/http/openapi.ts';

const target = new URL('../docs/openapi.json', import.meta.url);
writeFileSync(target, openApiText());
process.stdout.write(`wrote ${target.pathname}\n`);
