/**
 * Live latency: how long from a line being appended to a watched transcript
 * until its call is stored, for steady traffic and for bursts, and how many
 * lines are left unread after the bursts (must be 0: the file watcher drops the
 * last event of a burst, the tailer must not).
 */
import { fork } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Monitor } from '../main/api/root/monitor.js';
import { loadConfig } from '../main/core/config/index.js';
import { silentLogger } from '../main/core/runtime/log.js';
import { scan } from '../main/core/scan/scan.js';
import type { TranscriptFormat, WriterCommand } from './latency-writer.js';
import { distribution, machine, recordSection } from './report.js';

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

interface Measured {
  steady: ReturnType<typeof distribution>;
  burst: ReturnType<typeof distribution>;
  steadyCalls: number;
  burstCalls: number;
  unread: number;
  expected: number;
}

export async function latencyBench(): Promise<void> {
  const results: Record<TranscriptFormat, Measured> = {
    jsonl: await measure('jsonl'),
    sqlite: await measure('sqlite'),
  };
  const row = (format: string, name: string, d: ReturnType<typeof distribution>, calls: number) =>
    `| ${format} | ${name} | ${calls} | ${d.p50} | ${d.p90} | ${d.p99} | ${d.max} |`;
  const rows = (['jsonl', 'sqlite'] as const).flatMap((format) => [
    row(format, 'steady (a turn every 50–250 ms)', results[format].steady, results[format].steadyCalls),
    row(format, 'bursts (20 × 300 turns, no pause)', results[format].burst, results[format].burstCalls),
  ]);
  const unread = (['jsonl', 'sqlite'] as const)
    .map((format) => `${format}: **${results[format].unread}** of ${results[format].expected}`)
    .join('; ');
  const markdown = `## Live latency (\`npm run bench -- latency\`)

Append-to-stored latency of the transcript sources, measured in one run on ${machine()}. A separate process
writes real OpenClaw records (a turn is 2–4 records: user, assistant call, tool result, assistant call) for 20
sessions in 4 agents — appended line by line to JSONL transcripts, or inserted one record per transaction into
the agents' SQLite databases (WAL, as the gateway does); the daemon's core (the real \`Monitor\`: watcher,
reconcile, classifier, SQLite commit) reports each call when its transaction has committed. Latency = commit
time − the record's own time, which the writer stamps just before writing (an upper bound).

| format | traffic | calls | p50 ms | p90 ms | p99 ms | max ms |
|---|---|---:|---:|---:|---:|---:|
${rows.join('\n')}

Calls left unread after the bursts (on disk per \`scan\` − stored): ${unread}.
Target: p99 ≤ 250 ms, zero unread.`;
  process.stdout.write(`\n${markdown}\n`);
  recordSection('latency', markdown);
}

async function measure(format: TranscriptFormat): Promise<Measured> {
  const root = mkdtempSync(join(tmpdir(), 'bb-latency-'));
  const stateDir = join(root, 'openclaw');
  const writer = fork(fileURLToPath(new URL('./latency-writer.js', import.meta.url)), [], { stdio: 'inherit' });
  const send = (command: WriterCommand) =>
    new Promise<number>((resolve) => {
      writer.once('message', (reply: { calls: number }) => resolve(reply.calls));
      writer.send(command);
    });
  try {
    await send({ kind: 'setup', stateDir, sessions: 20, format });
    const loaded = loadConfig(undefined, {
      env: { BREAKERBAR_HOME: join(root, 'home'), OPENCLAW_STATE_DIR: stateDir },
      home: root,
      platform: process.platform,
    });
    const monitor = new Monitor(loaded, { log: silentLogger, serve: false, gateway: false });
    let phase: 'steady' | 'burst' = 'steady';
    const latencies = { steady: [] as number[], burst: [] as number[] };
    let stored = 0;
    monitor.on('calls', (calls) => {
      const now = Date.now();
      stored += calls.length;
      for (const call of calls) latencies[phase].push(now - call.ts);
    });
    await monitor.start();
    await sleep(1000);

    process.stdout.write(`${format}: steady traffic, one turn every 50–250 ms across 20 sessions for 30 s\n`);
    const steadyCalls = await send({ kind: 'steady', durationMs: 30_000, minGapMs: 50, maxGapMs: 250 });
    await sleep(1000);

    phase = 'burst';
    let burstCalls = 0;
    const bursts = 20;
    process.stdout.write(`${format}: ${bursts} bursts of 300 turns back to back (half to one session, half over 10)\n`);
    for (let i = 0; i < bursts; i++) {
      burstCalls += await send({ kind: 'burst', turns: 300, files: i % 2 === 0 ? 1 : 10 });
      await sleep(500);
    }
    await sleep(1500);
    const expected = scan([stateDir]).calls;
    const unread = expected - stored;
    await monitor.stop();

    return {
      steady: distribution(latencies.steady),
      burst: distribution(latencies.burst),
      steadyCalls,
      burstCalls,
      unread,
      expected,
    };
  } finally {
    writer.kill();
    rmSync(root, { recursive: true, force: true });
  }
}
