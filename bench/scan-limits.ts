/**
 * Two limits of the machine the scan benchmark runs on, measured on the same
 * corpus in the same run, so that its ratios can be read against them:
 *
 * - How much two threads can gain. Two `scan --workers 1` processes run at
 *   once, each on the whole corpus, against one alone: on a machine whose two
 *   cores share what a scan leans on (memory bandwidth, caches), each of the
 *   two is slower than the one alone, and a scan split over two threads cannot
 *   beat half of that.
 * - How fast every call can be stored at all. The corpus's calls, as the
 *   daemon's transcript source makes them, inserted in one transaction into a
 *   fresh store: through BreakerBar's own `Store` (what a first start stores,
 *   with none of the daemon around it: no reading, no groups, no other
 *   writer), as a plain loop of the store's two INSERTs (a turn row and a call
 *   row per call), and as the same loop with only the unique keys indexed. A
 *   first start can be no faster than the cheapest way its rows can be written.
 *
 * Each measurement runs in a fresh child process (this file with a mode
 * argument), as the readers it is compared with do.
 */
import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import type { CallEvent } from '../main/core/calls/events.js';
import { configSchema } from '../main/core/config/index.js';
import { readTranscriptFile, scanScratch } from '../main/core/scan/read.js';
import { BacklogMode } from '../main/core/store/backlog-mode.js';
import type { Db } from '../main/core/store/database.js';
import { Store } from '../main/core/store/db.js';
import { callValues, INSERT_CALL_SQL, INSERT_TURN_SQL, recordTurnValues } from '../main/core/store/rows.js';
import { listTranscripts } from './scan-corpus.js';

const SELF = fileURLToPath(import.meta.url);
const CLI = fileURLToPath(new URL('../main/cli/index.js', import.meta.url));
const run = promisify(execFile);

export interface ParallelCost {
  /** One `scan --workers 1` alone, s. */
  alone: number;
  /** Each of two run at once (the slower), s. */
  together: number;
}

async function timeScanOne(stateDir: string): Promise<number> {
  const t0 = performance.now();
  await run(process.execPath, [CLI, 'scan', stateDir, '--json', '--workers', '1'], { maxBuffer: 64 << 20 });
  return (performance.now() - t0) / 1000;
}

/** Fastest of `rounds`, alone and two at once, alternating. */
export async function parallelCost(stateDir: string, rounds: number): Promise<ParallelCost> {
  let alone = Number.POSITIVE_INFINITY;
  let together = Number.POSITIVE_INFINITY;
  for (let round = 0; round < rounds; round++) {
    alone = Math.min(alone, await timeScanOne(stateDir));
    const pair = await Promise.all([timeScanOne(stateDir), timeScanOne(stateDir)]);
    together = Math.min(together, Math.max(...pair));
  }
  return { alone, together };
}

export interface StoreFloor {
  calls: number;
  /** Seconds to store every call in one transaction, each way. */
  store: number;
  plain: number;
  keysOnly: number;
}

/** Every call of the JSONL transcripts under `stateDir`, as the daemon's source makes them. */
function corpusCalls(stateDir: string): CallEvent[] {
  const calls: CallEvent[] = [];
  const options = { maxLineBytes: configSchema.shape.ingest.shape.maxLineBytes.default };
  const scratch = scanScratch();
  const counts = { lines: 0, malformed: 0, undecodable: 0, firstUndecodable: null };
  for (const path of listTranscripts(join(stateDir, 'agents'))) {
    readTranscriptFile(path, options, scratch, counts, (record) => {
      if (record.kind === 'call') calls.push(record.call);
    });
  }
  return calls;
}

/** The store's secondary indexes on calls and turns: all but the unique keys. */
function dropSecondaryIndexes(db: Db): void {
  const names = db
    .prepare(
      "SELECT name FROM sqlite_master WHERE type = 'index' AND tbl_name IN ('calls', 'turns') AND sql IS NOT NULL",
    )
    .pluck()
    .all() as string[];
  for (const name of names) db.exec(`DROP INDEX ${name}`);
}

/** The two rows a transcript call becomes (see `Store`), inserted by a plain loop in one transaction. */
function insertPlainly(db: Db, calls: readonly CallEvent[]): void {
  const turn = db.prepare(INSERT_TURN_SQL);
  const call = db.prepare(INSERT_CALL_SQL);
  db.transaction(() => {
    for (const event of calls) {
      turn.run(recordTurnValues(event));
      // A turn OpenClaw wrote itself (no upstream request) is a turn row only, as the store keeps it.
      if (event.upstream !== false) call.run(callValues(event));
    }
  }).immediate();
}

type FloorMode = 'store' | 'plain' | 'keysOnly';

/** In a child: the corpus's calls stored one way into a fresh database; prints seconds and rows stored. */
function measureFloor(mode: FloorMode, stateDir: string): { seconds: number; calls: number; stored: number } {
  const calls = corpusCalls(stateDir);
  const upstream = calls.filter((call) => call.upstream !== false).length;
  const dir = mkdtempSync(join(tmpdir(), 'bb-store-floor-'));
  try {
    const store = Store.open(join(dir, 'breakerbar.db'));
    // Tuned as the ingest writer tunes its connection for a backlog (page cache, statement journals).
    new BacklogMode(store.db).beforeGroup(calls.length);
    if (mode === 'keysOnly') dropSecondaryIndexes(store.db);
    const t0 = performance.now();
    if (mode === 'store') store.commit({ events: calls });
    else insertPlainly(store.db, calls);
    const seconds = (performance.now() - t0) / 1000;
    const stored = store.db.prepare('SELECT count(*) FROM calls').pluck().get() as number;
    store.db.close();
    return { seconds, calls: upstream, stored };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

async function floorInChild(mode: FloorMode, stateDir: string): Promise<{ seconds: number; calls: number }> {
  const { stdout } = await run(process.execPath, [SELF, mode, stateDir], { maxBuffer: 1 << 20 });
  const result = JSON.parse(stdout) as { seconds: number; calls: number; stored: number };
  if (result.stored !== result.calls)
    throw new Error(`store floor (${mode}): ${result.stored} of ${result.calls} stored`);
  return result;
}

/** Fastest of `rounds` per way of storing. */
export async function storeFloor(stateDir: string, rounds: number): Promise<StoreFloor> {
  const best = { store: Number.POSITIVE_INFINITY, plain: Number.POSITIVE_INFINITY, keysOnly: Number.POSITIVE_INFINITY };
  let calls = 0;
  for (let round = 0; round < rounds; round++) {
    for (const mode of ['store', 'plain', 'keysOnly'] as const) {
      const result = await floorInChild(mode, stateDir);
      best[mode] = Math.min(best[mode], result.seconds);
      calls = result.calls;
    }
  }
  return { calls, ...best };
}

if (process.argv[1] === SELF) {
  const [mode, stateDir] = process.argv.slice(2) as [FloorMode, string];
  process.stdout.write(JSON.stringify(measureFloor(mode, stateDir)));
}
