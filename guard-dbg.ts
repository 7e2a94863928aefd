import { claimDataDir } from './src/db/ownership.ts';
import { PGlite } from '@electric-sql/pglite';
const t = Date.now();
const mode = process.argv[2];
if (mode === 'claim') { const o = await claimDataDir('/tmp/guard-d3/data'); console.error('claimed', Date.now() - t); }
else { process.umask(mode === 'noclaim' ? 0o077 : 0o022); (await import('node:fs')).mkdirSync('/tmp/guard-d3/data', { recursive: true }); }
const db = await PGlite.create('/tmp/guard-d3/data');
console.error('opened', Date.now() - t);
await db.close();
process.exit(0);
