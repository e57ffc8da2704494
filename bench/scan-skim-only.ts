/**
 * How close does the skimming parser alone get to the scan-speed targets?
 * Generates a corpus (default 500 MB) under /tmp, times cat, readline +
 * JSON.parse, jq and skimJson over the same files, prints throughput, ratios
 * and whether every reader counted the same calls, then removes the corpus.
 *
 * usage: node dist/bench/scan-skim-only.js [MB] [rounds]
 * With rounds > 1 every reader runs that many times and its fastest run
 * counts: on a shared machine, other processes only ever slow a run down.
 */
import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { generateCorpus } from './scan-corpus.js';
import { type ScanCounts, type Timing, timeCat, timeJq, timeReadlineReference, timeSkim } from './scan-references.js';

function listFiles(dir: string): string[] {
  const out: string[] = [];
  for (const e of readdirSync(dir, { withFileTypes: true })) {
    const p = join(dir, e.name);
    if (e.isDirectory()) out.push(...listFiles(p));
    else if (e.name.endsWith('.jsonl')) out.push(p);
  }
  return out.sort();
}

function canonical(c: ScanCounts): string {
  const keys = Object.keys(c.byStopReason).sort();
  return JSON.stringify({
    assistant: c.assistant,
    byStopReason: Object.fromEntries(keys.map((k) => [k, c.byStopReason[k]])),
  });
}

const mbps = (t: Timing) => t.bytes / 1e6 / t.seconds;

async function main(): Promise<void> {
  const mb = Number(process.argv[2] ?? 500);
  if (!Number.isFinite(mb) || mb <= 0) throw new Error(`size must be a positive number of MB, got ${process.argv[2]}`);
  const rounds = Number(process.argv[3] ?? 1);
  if (!Number.isInteger(rounds) || rounds < 1)
    throw new Error(`rounds must be a positive integer, got ${process.argv[3]}`);
  const dir = mkdtempSync(join(tmpdir(), 'bb-scan-corpus-'));
  try {
    const t0 = performance.now();
    const stats = await generateCorpus(dir, mb * 1e6);
    const genSeconds = (performance.now() - t0) / 1000;
    console.log(
      `corpus: ${stats.files} files, ${(stats.bytes / 1e6).toFixed(1)} MB, ${stats.lines} lines, ${stats.assistant} calls, ${stats.malformed} malformed, generated in ${genSeconds.toFixed(1)} s`,
    );
    console.log(`expected stopReasons: ${JSON.stringify(stats.byStopReason)}`);
    const files = listFiles(dir);

    const best = <T extends Timing>(a: T | undefined, b: T): T => (a === undefined || b.seconds < a.seconds ? b : a);
    let cat: Timing | undefined;
    let readline: Timing | undefined;
    let jq: Timing | undefined;
    let skim: Awaited<ReturnType<typeof timeSkim>> | undefined;
    for (let r = 0; r < rounds; r++) {
      // cat before each reader: every reader starts from a warm page cache
      cat = best(cat, await timeCat(files));
      readline = best(readline, await timeReadlineReference(files));
      cat = best(cat, await timeCat(files));
      jq = best(jq, await timeJq(files));
      cat = best(cat, await timeCat(files));
      skim = best(skim, await timeSkim(files));
    }
    if (!cat || !readline || !jq || !skim) throw new Error('no rounds ran');

    if (rounds > 1) console.log(`fastest of ${rounds} rounds each`);
    const row = (name: string, t: Timing) =>
      console.log(`${name.padEnd(10)} ${mbps(t).toFixed(0).padStart(7)} MB/s  ${t.seconds.toFixed(2).padStart(7)} s`);
    row('cat', cat);
    row('readline', readline);
    row('jq', jq);
    row('skim', skim);
    console.log(`skim/readline ${(mbps(skim) / mbps(readline)).toFixed(2)}x (target >= 3, aim 5)`);
    console.log(`skim/jq       ${(mbps(skim) / mbps(jq)).toFixed(2)}x (target >= 4)`);
    console.log(
      `skim lines ${skim.lines}, malformed ${skim.malformed} (generator: ${stats.lines}, ${stats.malformed})`,
    );

    const expected = canonical({ assistant: stats.assistant, byStopReason: stats.byStopReason });
    let agree = skim.lines === stats.lines && skim.malformed === stats.malformed;
    for (const [name, t] of [
      ['readline', readline],
      ['jq', jq],
      ['skim', skim],
    ] as const) {
      const got = canonical(t.counts);
      if (got !== expected) {
        agree = false;
        console.log(`MISMATCH ${name}: ${got}`);
      }
    }
    console.log(agree ? 'counts agree: yes' : 'counts agree: NO');
    if (!agree) process.exitCode = 1;
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

await main();
