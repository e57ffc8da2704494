/**
 * `npm run bench -- <name ...>`: runs benchmarks and records their figures in
 * docs/benchmarks.md. Names: scan, latency, idle (or all).
 */
import { idleBench } from './idle.js';
import { latencyBench } from './latency.js';

const BENCHES: Record<string, () => Promise<void>> = {
  latency: () => latencyBench(),
  idle: () => idleBench(),
};

const names = process.argv.slice(2);
const chosen = names.length === 0 || names.includes('all') ? Object.keys(BENCHES) : names;
for (const name of chosen) {
  const bench = BENCHES[name];
  if (!bench) {
    process.stderr.write(`unknown benchmark "${name}"; choose from: ${Object.keys(BENCHES).join(', ')}, all\n`);
    process.exit(2);
  }
  process.stdout.write(`\n== ${name}\n`);
  await bench();
}
