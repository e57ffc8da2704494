/**
 * Agent-database read speed: `breakerbar scan --json` (the real command, node
 * start-up included) and its in-thread read path, against a straightforward
 * better-sqlite3 reader (`SELECT event_json, event_zstd` + `zstdDecompressSync`
 * + `JSON.parse`), in the same run on the same databases, in MB/s of transcript
 * events (their decompressed JSON bytes).
 *
 * The databases hold the scan benchmark's corpus (same generator, same seed),
 * one per agent, in OpenClaw 2026.9.6's own layout: the `CREATE TABLE`
 * statements are taken from the database that version wrote (the test
 * fixture), events are compressed by OpenClaw's own rule (`storedPayload`),
 * and each file stays in WAL mode with a writer connection open while it is
 * read, as a running gateway leaves it.
 *
 * Every timing runs in a fresh child process (this file, run with a mode
 * argument), so no reader inherits another's heap or page-cache warmth it did
 * not earn: each reader is timed after a pass that reads the files whole.
 */
import { execFile } from 'node:child_process';
import { mkdirSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { constants, zstdCompressSync, zstdDecompressSync } from 'node:zlib';
import Database from 'better-sqlite3';
import { readInput, type ScanInput, scanScratch } from '../main/core/scan/read.js';
import { findAgentDatabases } from '../main/core/sources/agent-database.js';
import { agentDatabasePath } from '../main/simulator/openclaw-db.js';
import { machine, recordSection, summarize } from './report.js';
import { generateCorpus } from './scan-corpus.js';

const SELF = fileURLToPath(import.meta.url);
const CLI = fileURLToPath(new URL('../main/cli/index.js', import.meta.url));
/** A database openclaw@2026.9.6 wrote: the source of the schema, so it is OpenClaw's and not a copy of it. */
const FIXTURE = fileURLToPath(new URL('../../test/fixtures/openclaw-2026.9.6/openclaw-agent.sqlite', import.meta.url));
const run = promisify(execFile);

/** OpenClaw's limits for compressing an event (its `prepareTranscriptPayload`, 2026.9.6). */
const MIN_COMPRESS_BYTES = 1024;
const MAX_PAYLOAD_BYTES = 4 * 1024 * 1024;

interface Counts {
  rows: number;
  malformed: number;
  byStopReason: Record<string, number>;
}

/** The two tables `transcript_events` needs, exactly as OpenClaw 2026.9.6 created them. */
function openclawSchema(): string {
  const fixture = new Database(FIXTURE, { readonly: true });
  try {
    const tables = fixture
      .prepare(
        "SELECT sql FROM sqlite_master WHERE type = 'table' AND name IN ('session_windows', 'transcript_events')",
      )
      .pluck()
      .all() as string[];
    if (tables.length !== 2) throw new Error(`${FIXTURE}: expected session_windows and transcript_events`);
    // session_windows first: transcript_events refers to it.
    return tables
      .sort((a, b) => (a.includes('session_windows (') ? -1 : b.includes('session_windows (') ? 1 : 0))
      .join(';\n');
  } finally {
    fixture.close();
  }
}

interface StoredPayload {
  json: string | null;
  zstd: Buffer | null;
  bytes: number;
  navigation: string | null;
}

/**
 * How OpenClaw 2026.9.6 stores one event: zstd level 1 with a checksum when the
 * JSON is 1 KiB to 4 MiB, holds no `\u` escape or NUL, is not a session header,
 * and the frame plus its navigation projection saves at least a tenth (64 bytes
 * at least); otherwise as text.
 */
function storedPayload(line: string): StoredPayload {
  const bytes = Buffer.byteLength(line, 'utf8');
  const plain = { json: line, zstd: null, bytes, navigation: null };
  if (bytes < MIN_COMPRESS_BYTES || bytes > MAX_PAYLOAD_BYTES || line.includes('\\u') || line.includes('\0'))
    return plain;
  let event: {
    type?: string;
    id?: string;
    parentId?: string | null;
    timestamp?: string;
    message?: Record<string, unknown>;
  };
  try {
    event = JSON.parse(line);
  } catch {
    return plain;
  }
  if (event.type === 'session') return plain;
  const frame = zstdCompressSync(Buffer.from(line, 'utf8'), {
    params: { [constants.ZSTD_c_compressionLevel]: 1, [constants.ZSTD_c_checksumFlag]: 1 },
  });
  const limit = bytes - Math.max(64, Math.ceil(bytes / 10));
  const entry = { type: event.type, id: event.id, parentId: event.parentId, timestamp: event.timestamp };
  const message = event.message;
  const navigation = JSON.stringify({
    version: 1,
    report: { kind: 'canonical', hasParentId: event.parentId !== undefined, entry },
    navigation: { ...entry, ...(message ? { message: { role: message.role } } : {}) },
    reset: { ...entry, ...(message ? { message: { role: message.role } } : {}) },
    model: {
      ...entry,
      ...(message
        ? {
            message: {
              role: message.role,
              provider: message.provider,
              model: message.model,
              stopReason: message.stopReason,
              timestamp: message.timestamp,
              content: [],
            },
          }
        : {}),
    },
    modelBytes: bytes,
    modelWithoutCheckpointBytes: bytes,
    withoutCustomDataBytes: bytes,
  });
  if (frame.length + Buffer.byteLength(navigation) > limit) return plain;
  return { json: null, zstd: frame, bytes, navigation };
}

interface Built {
  databases: number;
  rows: number;
  compressedRows: number;
  /** Decompressed JSON bytes of every event: the unit of the MB/s figures. */
  eventBytes: number;
  compressedEventBytes: number;
  /** Writer connections left open (WAL mode, as a running gateway holds them). */
  writers: Database.Database[];
}

/** One agent database per agent of the JSONL corpus in `jsonlDir`, each session's lines in order. */
export function buildDatabases(jsonlDir: string, stateDir: string): Built {
  const schema = openclawSchema();
  const built: Built = {
    databases: 0,
    rows: 0,
    compressedRows: 0,
    eventBytes: 0,
    compressedEventBytes: 0,
    writers: [],
  };
  for (const agentId of readdirSync(join(jsonlDir, 'agents')).sort()) {
    const sessionsDir = join(jsonlDir, 'agents', agentId, 'sessions');
    const path = agentDatabasePath(stateDir, agentId);
    mkdirSync(dirname(path), { recursive: true });
    const db = new Database(path);
    built.writers.push(db);
    db.pragma('journal_mode = WAL');
    db.pragma('busy_timeout = 5000');
    // OpenClaw's session_windows refers to session_nodes and conversations, which BreakerBar never reads.
    db.pragma('foreign_keys = OFF');
    db.exec(schema);
    db.pragma('user_version = 23');
    const window = db.prepare(
      `INSERT INTO session_windows (session_id, session_key, reason, created_at, updated_at) VALUES (?, ?, 'initial', ?, ?)`,
    );
    const event = db.prepare(
      `INSERT INTO transcript_events (session_id, seq, event_json, created_at, event_zstd, event_utf8_bytes, navigation_json)
       VALUES (?, ?, ?, ?, ?, ?, ?)`,
    );
    for (const file of readdirSync(sessionsDir).sort()) {
      const sessionId = file.replace(/\.jsonl$/, '');
      const lines = readFileSync(join(sessionsDir, file), 'utf8').split('\n');
      if (lines[lines.length - 1] === '') lines.pop();
      db.transaction(() => {
        const started = Date.now();
        window.run(sessionId, `agent:${agentId}:${sessionId}`, started, started);
        lines.forEach((line, seq) => {
          const time = Date.parse(/"timestamp":"([^"]+)"/.exec(line)?.[1] ?? '');
          const stored = storedPayload(line);
          event.run(
            sessionId,
            seq,
            stored.json,
            Number.isFinite(time) ? time : started,
            stored.zstd,
            stored.bytes,
            stored.navigation,
          );
          built.rows++;
          built.eventBytes += stored.bytes;
          if (stored.zstd) {
            built.compressedRows++;
            built.compressedEventBytes += stored.bytes;
          }
        });
      })();
    }
    built.databases++;
  }
  return built;
}

function databaseBytes(stateDir: string): number {
  let total = 0;
  for (const { path } of findAgentDatabases(stateDir)) {
    for (const suffix of ['', '-wal']) {
      try {
        total += statSync(path + suffix).size;
      } catch {
        // no WAL file: nothing to add
      }
    }
  }
  return total;
}

// ---- the readers, each run in a child process -------------------------------------------------

/** The straightforward reader: every row, decompressed where needed, parsed, assistant messages counted. */
function straightforward(stateDir: string): Counts {
  const counts: Counts = { rows: 0, malformed: 0, byStopReason: {} };
  for (const { path } of findAgentDatabases(stateDir)) {
    const db = new Database(path, { readonly: true });
    try {
      for (const row of db.prepare('SELECT event_json, event_zstd FROM transcript_events').iterate() as Iterable<{
        event_json: string | null;
        event_zstd: Buffer | null;
      }>) {
        counts.rows++;
        const json = row.event_json ?? zstdDecompressSync(row.event_zstd as Buffer).toString('utf8');
        let value: { type?: string; message?: { role?: string; stopReason?: string } };
        try {
          value = JSON.parse(json);
        } catch {
          counts.malformed++;
          continue;
        }
        if (value?.type === 'message' && value.message?.role === 'assistant') {
          const stop = String(value.message.stopReason);
          counts.byStopReason[stop] = (counts.byStopReason[stop] ?? 0) + 1;
        }
      }
    } finally {
      db.close();
    }
  }
  return counts;
}

/** BreakerBar's read path alone, on this thread: what each scan worker does with a database. */
function breakerbarInThread(stateDir: string): Counts & { calls: number; undecodable: number } {
  const scratch = scanScratch();
  const counts = { rows: 0, malformed: 0, byStopReason: {}, calls: 0, undecodable: 0 };
  for (const { path, agentId } of findAgentDatabases(stateDir)) {
    const input: ScanInput = { kind: 'sqlite', path, agentId, bytes: 0 };
    const result = readInput(input, { maxLineBytes: MAX_PAYLOAD_BYTES }, scratch);
    if (result.error) throw new Error(result.error);
    counts.rows += result.lines;
    counts.malformed += result.malformed;
    counts.calls += result.calls.count;
    counts.undecodable += result.undecodable;
  }
  return counts;
}

/** Reads every database file whole, so that each reader starts from the same warm page cache. */
function warm(stateDir: string): void {
  for (const { path } of findAgentDatabases(stateDir)) {
    for (const suffix of ['', '-wal']) {
      try {
        readFileSync(path + suffix);
      } catch {
        // no WAL file
      }
    }
  }
}

const MODES = { straightforward, breakerbarInThread, warm } as const;
type Mode = keyof typeof MODES;

if (process.argv[1] === SELF) {
  const [mode, stateDir] = process.argv.slice(2) as [Mode, string];
  const t0 = performance.now();
  const counts = MODES[mode](stateDir);
  const seconds = (performance.now() - t0) / 1000;
  process.stdout.write(JSON.stringify({ seconds, counts }));
}

interface Timing<C> {
  seconds: number;
  counts: C;
}

async function inChild<C>(mode: Mode, stateDir: string): Promise<Timing<C>> {
  const { stdout } = await run(process.execPath, [SELF, mode, stateDir], { maxBuffer: 64 << 20 });
  return JSON.parse(stdout) as Timing<C>;
}

interface ScanJson {
  calls: number;
  malformed: number;
  lines: number;
  undecodable?: number;
}

async function timeCli(stateDir: string, workers?: number): Promise<Timing<ScanJson>> {
  const t0 = performance.now();
  const args = [CLI, 'scan', stateDir, '--json', ...(workers ? ['--workers', String(workers)] : [])];
  const { stdout } = await run(process.execPath, args, { maxBuffer: 64 << 20 });
  return { seconds: (performance.now() - t0) / 1000, counts: JSON.parse(stdout) as ScanJson };
}

const canonical = (byStopReason: Record<string, number>) =>
  JSON.stringify(Object.fromEntries(Object.entries(byStopReason).sort(([a], [b]) => a.localeCompare(b))));

export async function agentDbBench(megabytes = 300, rounds = 3): Promise<void> {
  const dir = join(tmpdir(), `bb-agentdb-${process.pid}`);
  const jsonlDir = join(dir, 'jsonl');
  const stateDir = join(dir, 'state');
  let built: Built | undefined;
  try {
    const stats = await generateCorpus(jsonlDir, megabytes * 1e6);
    built = buildDatabases(jsonlDir, stateDir);
    rmSync(jsonlDir, { recursive: true, force: true });
    const mb = built.eventBytes / 1e6;
    const fileMb = databaseBytes(stateDir) / 1e6;
    process.stdout.write(
      `databases: ${built.databases}, ${built.rows} rows (${built.compressedRows} zstd), ${mb.toFixed(0)} MB of events, ` +
        `${fileMb.toFixed(0)} MB on disk, ${stats.assistant} calls, ${stats.malformed} malformed\n`,
    );
    const load = loadavg()[0] as number;
    const fastest = <T extends { seconds: number }>(a: T | undefined, b: T): T => (a && a.seconds <= b.seconds ? a : b);
    let reference: Timing<Counts> | undefined;
    let inThread: Timing<Counts & { calls: number; undecodable: number }> | undefined;
    let cli: Timing<ScanJson> | undefined;
    let cliOne: Timing<ScanJson> | undefined;
    let startup: Timing<ScanJson> | undefined;
    const empty = join(dir, 'empty');
    mkdirSync(empty);
    for (let round = 0; round < rounds; round++) {
      await inChild('warm', stateDir);
      reference = fastest(reference, await inChild('straightforward', stateDir));
      await inChild('warm', stateDir);
      inThread = fastest(inThread, await inChild('breakerbarInThread', stateDir));
      await inChild('warm', stateDir);
      cli = fastest(cli, await timeCli(stateDir));
      await inChild('warm', stateDir);
      cliOne = fastest(cliOne, await timeCli(stateDir, 1));
      startup = fastest(startup, await timeCli(empty));
      process.stdout.write(`round ${round + 1}/${rounds} done\n`);
    }
    if (!reference || !inThread || !cli || !cliOne || !startup) throw new Error('no rounds ran');

    const expected = canonical(stats.byStopReason);
    const bb = (c: { calls: number; malformed: number; lines: number; undecodable?: number }) =>
      c.calls === stats.assistant && c.malformed === stats.malformed && c.lines === built?.rows && !c.undecodable;
    const exact = {
      reference:
        canonical(reference.counts.byStopReason) === expected &&
        reference.counts.malformed === stats.malformed &&
        reference.counts.rows === built.rows,
      inThread: bb({ ...inThread.counts, lines: inThread.counts.rows }),
      cli: bb(cli.counts),
      cliOne: bb(cliOne.counts),
    };
    const rate = (seconds: number) => mb / seconds;
    const row = (name: string, seconds: number, ok: boolean, note: string) =>
      `| ${name} | ${seconds.toFixed(2)} | ${rate(seconds).toFixed(0)} | ${(reference!.seconds / seconds).toFixed(2)}× | ${ok ? 'yes' : '**NO**'} | ${note} |`;
    const markdown = `## Agent-database read speed (\`npm run bench -- agentdb\`)

\`breakerbar scan --json\` on ${built.databases} agent databases in OpenClaw 2026.9.6's layout (schema taken from a
database that version wrote; WAL mode, a writer connection open, as a running gateway leaves them) holding the scan
corpus: ${built.rows} rows, ${mb.toFixed(0)} MB of events as JSON (${fileMb.toFixed(0)} MB on disk), ${stats.assistant}
model calls, ${stats.malformed} malformed rows; ${built.compressedRows} rows (${((100 * built.compressedEventBytes) / built.eventBytes).toFixed(0)} % of the event bytes)
zstd-compressed by OpenClaw's rule (1 KiB or more, no \`\\u\` escape, saves ≥ 10 %). MB/s are of decompressed event
JSON. Fastest of ${rounds} rounds per reader, each in a fresh process after a pass that reads the files whole;
measured on ${machine()}, load average ${load.toFixed(1)} at the start (shared machine).

| reader | seconds | MB/s | vs straightforward | counts exact | what it is |
|---|---:|---:|---:|---|---|
${row('better-sqlite3 SELECT + JSON.parse', reference.seconds, exact.reference, '`SELECT event_json, event_zstd` iterated, `zstdDecompressSync` where needed, `JSON.parse`, assistant messages counted by stopReason (node start-up not included)')}
${row('BreakerBar read path, in-thread', inThread.seconds, exact.inThread, "scan's reader (`readInput`, `main/core/scan/agent-database.ts`) over every database on one thread: rows visited, zstd decoded into one reused buffer, each event's quote bitmap, parsed and classified (node start-up not included)")}
${row('breakerbar scan --json --workers 1', cliOne.seconds, exact.cliOne, 'the command on one thread, node start-up included')}
${row('**breakerbar scan --json**', cli.seconds, exact.cli, 'the command as shipped: databases spread over worker threads, node start-up included')}

Ratio (same run): **scan / straightforward = ${(reference.seconds / cli.seconds).toFixed(2)}×** (target ≥ 3); read path
alone ${(reference.seconds / inThread.seconds).toFixed(2)}×.
The command's own start-up (\`breakerbar scan --json\` of an empty directory) took ${startup.seconds.toFixed(2)} s of its time;
the straightforward reader's figure leaves node's start-up out.`;
    process.stdout.write(`\n${markdown}\n`);
    recordSection('agentdb', markdown);
    summarize(
      'agentdb',
      'scan / straightforward (MB/s ratio)',
      `${(reference.seconds / cli.seconds).toFixed(2)}×`,
      '≥ 3×',
    );
    summarize('agentdb', 'read path alone / straightforward', `${(reference.seconds / inThread.seconds).toFixed(2)}×`);
    if (!Object.values(exact).every(Boolean)) process.exitCode = 1;
  } finally {
    for (const writer of built?.writers ?? []) writer.close();
    rmSync(dir, { recursive: true, force: true });
  }
}
