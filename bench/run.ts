/**
 * `npm run bench -- <name ...>`: runs benchmarks and records their figures in
 * docs/benchmarks.md. Names: scan, latency, idle, api (or all).
 */
import { apiBench } from './api.js';
import { idleBench } from './idle.js';
import { latencyBench } from './latency.js';
import { scanBench } from './scan.js';

const BENCHES: Record<string, () => Promise<void>> = {
  scan: () => scanBench(Number(process.env.BENCH_SCAN_MB ?? 500), Number(process.env.BENCH_ROUNDS ?? 3)),
  latency: () => latencyBench(),
  api: () => apiBench(),
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
