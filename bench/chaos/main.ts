// `npm run chaos`: the long chaos run (at least 200 SIGKILLs) on the machine's PostgreSQL
// (ACQUIRO_TEST_POSTGRES_URL, by default postgresql://postgres@127.0.0.1:5432/test), in a schema
// of its own. `--kills N` and `--seconds S` change its length. Exits 1 when it found an anomaly.
import { parseArgs } from 'node:util';
import { describeFigures, runChaos } from './chaos.ts';

const { values } = parseArgs({ options: { kills: { type: 'string', default: '200' }, seconds: { type: 'string', default: '60' } } });
const figures = await runChaos({
  loadMs: Number(values.seconds) * 1000,
  minKills: Number(values.kills),
  meanKillGapMs: 1_200,
  quietMs: 10_000,
  lanes: 8,
  drainMs: 90_000,
  print: (line) => console.log(line),
});
console.log(describeFigures(figures));
if (!figures.checksFire) console.log('the checks missed a forged acknowledgement: they prove nothing');
process.exit(figures.anomalies.length === 0 && figures.checksFire ? 0 : 1);
