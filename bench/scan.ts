/**
 * Scan speed: `breakerbar scan --json` (the real command, node start-up
 * included) on a generated corpus of real-shaped OpenClaw transcripts, timed
 * in the same run as every other reader of the same files: `cat` (the I/O
 * bound), a straightforward Node reader (readline + JSON.parse per line),
 * `jq -R 'fromjson?'` and ccusage's OpenClaw report; then the daemon's first
 * start over the same state directory, until every call is stored; then two
 * limits of the machine that the ratios are read against (scan-limits.ts).
 * Every reader's figures must match what the generator wrote.
 */
import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { availableParallelism, tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { type BackfillResult, firstStart, installation, startGateway } from './load.js';
import { machine, recordSection, summarize } from './report.js';
import { CCUSAGE_VERSION, type CcusageTiming, installCcusage, sameCcusageTotals, timeCcusage } from './scan-ccusage.js';
import { type CorpusStats, generateCorpus, listTranscripts } from './scan-corpus.js';
import { type ParallelCost, parallelCost, type StoreFloor, storeFloor } from './scan-limits.js';
import { type ScanCounts, type Timing, timeCat, timeJq, timeReadlineReference } from './scan-references.js';

const CLI = fileURLToPath(new URL('../main/cli/index.js', import.meta.url));
const run = promisify(execFile);

/**
 * What the acceptance asks, as ratios measured in one run: the scan against ccusage's report of the same files,
 * and the daemon's first start against its floor, the scan's time plus storing every call in one transaction.
 */
const TARGETS = { ccusage: 1.5, firstStart: 1.3, loopMs: 100 };

interface ScanTiming {
  seconds: number;
  calls: number;
  malformed: number;
  lines: number;
  tokens: number;
}

async function timeBreakerbarScan(dir: string, workers?: number): Promise<ScanTiming> {
  const t0 = performance.now();
  const args = [CLI, 'scan', dir, '--json', ...(workers ? ['--workers', String(workers)] : [])];
  const { stdout } = await run(process.execPath, args, { maxBuffer: 64 << 20 });
  const seconds = (performance.now() - t0) / 1000;
  const result = JSON.parse(stdout) as Omit<ScanTiming, 'seconds'>;
  return { seconds, ...result };
}

const canonical = (counts: ScanCounts) =>
  JSON.stringify(Object.fromEntries(Object.entries(counts.byStopReason).sort(([a], [b]) => a.localeCompare(b))));

interface Measured {
  cat: Timing;
  readline: Timing;
  jq: Timing;
  ccusage: CcusageTiming;
  scan: ScanTiming;
  scanOne: ScanTiming;
}

/** Fastest of `rounds` per reader; `cat` before each, so every reader starts from a warm page cache. */
async function measureReaders(stateDir: string, files: string[], rounds: number, ccusage: string): Promise<Measured> {
  // On a shared machine other work only ever slows a run down: the fastest round is the truest.
  const fastest = <T extends { seconds: number }>(a: T | undefined, b: T): T => (a && a.seconds <= b.seconds ? a : b);
  const best: Partial<Measured> = {};
  const warm = async () => {
    best.cat = fastest(best.cat, await timeCat(files));
  };
  for (let round = 0; round < rounds; round++) {
    await warm();
    best.readline = fastest(best.readline, await timeReadlineReference(files));
    await warm();
    best.jq = fastest(best.jq, await timeJq(files));
    await warm();
    best.ccusage = fastest(best.ccusage, await timeCcusage(stateDir, ccusage));
    await warm();
    best.scan = fastest(best.scan, await timeBreakerbarScan(stateDir));
    await warm();
    best.scanOne = fastest(best.scanOne, await timeBreakerbarScan(stateDir, 1));
    process.stdout.write(`round ${round + 1}/${rounds} done\n`);
  }
  const { cat, readline, jq, ccusage: cc, scan, scanOne } = best;
  if (!cat || !readline || !jq || !cc || !scan || !scanOne) throw new Error('no rounds ran');
  return { cat, readline, jq, ccusage: cc, scan, scanOne };
}

function exactness(m: Measured, stats: CorpusStats) {
  const expected = canonical({ assistant: stats.assistant, byStopReason: stats.byStopReason });
  const scanExact = (s: ScanTiming) =>
    s.calls === stats.assistant && s.malformed === stats.malformed && s.tokens === stats.tokens.total;
  return {
    readline: canonical(m.readline.counts) === expected,
    jq: canonical(m.jq.counts) === expected,
    ccusage: sameCcusageTotals(m.ccusage.totals, stats.ccusage),
    scan: scanExact(m.scan),
    scanOne: scanExact(m.scanOne),
  };
}

interface Limits {
  parallel: ParallelCost;
  floor: StoreFloor;
}

/** The first start's floor (seconds): reading as fast as the scan, then storing every call at once. */
function firstStartFloor(m: Measured, floor: StoreFloor): number {
  return m.scan.seconds + floor.store;
}

/** The limits paragraph: what two threads can gain here, and what storing every call costs at least. */
function limitsMarkdown(m: Measured, limits: Limits): string {
  const { parallel, floor } = limits;
  const scanTarget = m.ccusage.seconds / TARGETS.ccusage;
  const s = (seconds: number) => `${seconds.toFixed(2)} s`;
  return `Limits of this machine (same run, same corpus; \`bench/scan-limits.ts\`):
- **Two threads.** One \`scan --workers 1\` alone took ${s(parallel.alone)}; two at once took ${s(parallel.together)} each
  (${(parallel.together / parallel.alone).toFixed(2)}× as long). Split perfectly over two threads, the same work cannot take
  less than half of that: ${s(parallel.together / 2)}, against ${s(scanTarget)} for ${TARGETS.ccusage}× ccusage.
- **Storing.** The corpus's ${floor.calls} calls, stored in one transaction into a fresh store, with nothing else running:
  through BreakerBar's \`Store\` ${s(floor.store)} (the floor the first start is measured against); as a plain loop of its
  two INSERTs (a turn row and a call row) ${s(floor.plain)}; the same with only the unique keys indexed ${s(floor.keysOnly)}.`;
}

function markdown(m: Measured, stats: CorpusStats, start: BackfillResult, rounds: number, limits: Limits): string {
  const mb = stats.bytes / 1e6;
  const exact = exactness(m, stats);
  const yes = (ok: boolean | null) => (ok === null ? '—' : ok ? 'yes' : '**NO**');
  const row = (name: string, seconds: number, ok: boolean | null, note: string) =>
    `| ${name} | ${seconds.toFixed(2)} | ${(mb / seconds).toFixed(0)} | ${yes(ok)} | ${note} |`;
  const ratio = (reference: number) => reference / m.scan.seconds;
  const startFloor = firstStartFloor(m, limits.floor);
  const startRatio = start.doneMs / 1000 / startFloor;
  const met = (ok: boolean) => (ok ? 'met' : '**not met**');
  return `## Scan speed (\`npm run bench -- scan\`)

\`breakerbar scan --json\` and every other reader on one generated OpenClaw state directory: ${stats.files} transcripts,
${mb.toFixed(0)} MB (${stats.lines} lines, ${stats.assistant} model calls, ${stats.malformed} malformed lines; one session in ten written
with spaces after \`:\` and \`,\`; answers, thinking and tool output carry long text with escapes and Chinese), measured on
${machine()}. Fastest of ${rounds} rounds per reader, each after a \`cat\` of the same files (warm page cache); every time
includes the program's start.

| reader | seconds | MB/s | figures exact | what it is |
|---|---:|---:|---|---|
${row('cat', m.cat.seconds, null, 'the I/O bound')}
${row('readline + JSON.parse', m.readline.seconds, exact.readline, 'the straightforward Node reader, counting assistant messages by stopReason (one thread; timed inside its process)')}
${row("jq -R 'fromjson?'", m.jq.seconds, exact.jq, 'the same count in jq')}
${row(`ccusage ${CCUSAGE_VERSION} openclaw daily --json --offline`, m.ccusage.seconds, exact.ccusage, 'token totals per day (no call outcomes); a native binary, several threads')}
${row('breakerbar scan --json --workers 1', m.scanOne.seconds, exact.scanOne, 'every call classified, dependencies, tokens, dedup, storms; one thread')}
${row('**breakerbar scan --json**', m.scan.seconds, exact.scan, `as shipped: one worker thread per core (${availableParallelism()} here)`)}
| breakerbar daemon, first start | ${(start.doneMs / 1000).toFixed(2)} | ${(mb / (start.doneMs / 1000)).toFixed(0)} | ${yes(start.stored === stats.assistant)} | spawned on a fresh data directory → all ${stats.assistant} calls stored (\`count(*)\` polled every 100 ms) |

Ratios (same run), scan against: **ccusage ${ratio(m.ccusage.seconds).toFixed(2)}×** (target ≥ ${TARGETS.ccusage}: ${met(ratio(m.ccusage.seconds) >= TARGETS.ccusage)}),
readline ${ratio(m.readline.seconds).toFixed(2)}×, jq ${ratio(m.jq.seconds).toFixed(2)}×, cat ${ratio(m.cat.seconds).toFixed(3)}×.
Daemon first start: **${startRatio.toFixed(2)}× its floor**, the scan's time plus storing every call in one transaction
(${m.scan.seconds.toFixed(2)} + ${limits.floor.store.toFixed(2)} s; target ≤ ${TARGETS.firstStart}: ${met(startRatio <= TARGETS.firstStart)}),
event-loop delay max **${start.loopMaxMs.toFixed(0)} ms** from its second second on (≤ ${TARGETS.loopMs}: ${met(start.loopMaxMs <= TARGETS.loopMs)}; the first second,
loading modules and opening the store, ${start.startupLoopMs.toFixed(0)} ms), \`/healthz\` p99 ${start.healthz.p99.toFixed(0)} ms over
${start.healthz.n} requests (${start.healthzFailures} failed), daemon CPU ${start.daemonCpu.toFixed(1)} s over all threads
(${start.mainThreadCpu.toFixed(1)} s on the event loop).

${limitsMarkdown(m, limits)}`;
}

export async function scanBench(megabytes = 540, rounds = 3): Promise<void> {
  const ccusage = await installCcusage();
  const gateway = await startGateway();
  const root = mkdtempSync(join(tmpdir(), 'bb-scan-corpus-'));
  try {
    const { stateDir } = installation(root, gateway.baseUrl);
    const stats = await generateCorpus(stateDir, megabytes * 1e6);
    const files = listTranscripts(stateDir);
    process.stdout.write(
      `corpus: ${stats.files} files, ${(stats.bytes / 1e6).toFixed(0)} MB, ${stats.lines} lines, ${stats.assistant} calls, ${stats.malformed} malformed\n`,
    );
    const measured = await measureReaders(stateDir, files, rounds, ccusage);
    const start = await firstStart(gateway, root, stats);
    const limits = { parallel: await parallelCost(stateDir, rounds), floor: await storeFloor(stateDir, rounds) };
    const text = markdown(measured, stats, start, rounds, limits);
    process.stdout.write(`\n${text}\n`);
    recordSection('scan', text);

    const scan = measured.scan.seconds;
    const x = (n: number) => `${n.toFixed(2)}×`;
    summarize('scan', 'scan vs ccusage', x(measured.ccusage.seconds / scan), `≥ ${TARGETS.ccusage}×`);
    summarize('scan', 'scan vs readline + JSON.parse', x(measured.readline.seconds / scan));
    summarize('scan', 'scan vs jq', x(measured.jq.seconds / scan));
    summarize(
      'scan',
      'first start / (scan + one-transaction store)',
      x(start.doneMs / 1000 / firstStartFloor(measured, limits.floor)),
      `≤ ${TARGETS.firstStart}×`,
    );
    summarize('scan', 'first start: event-loop max', `${start.loopMaxMs.toFixed(0)} ms`, `≤ ${TARGETS.loopMs} ms`);
    summarize('scan', 'two scans at once / one alone', x(limits.parallel.together / limits.parallel.alone));
    const exact = exactness(measured, stats);
    if (!Object.values(exact).every(Boolean) || start.stored !== stats.assistant) process.exitCode = 1;
  } finally {
    gateway.child.disconnect();
    gateway.child.kill();
    rmSync(root, { recursive: true, force: true });
  }
}
