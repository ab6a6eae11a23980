/** `npm run bench`: runs every bench/*.bench.ts in turn, each in its own process, and prints its figures. */
import { readdirSync } from 'node:fs';
import { spawnSync } from 'node:child_process';

const only = process.argv[2];
const benches = readdirSync('bench').filter((f) => f.endsWith('.bench.ts') && (!only || f.includes(only))).sort();
let failed = 0;
for (const file of benches) {
  console.log(`\n== ${file}`);
  const result = spawnSync(process.execPath, [`bench/${file}`], { stdio: 'inherit' });
  if (result.status !== 0) failed++;
}
process.exit(failed ? 1 : 0);
