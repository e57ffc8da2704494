/**
 * Rule: during a backfill the backlog is known and shrinks to zero: `pending` (and
 * `breakerbar_ingest_backlog_bytes`) counts every byte of the transcripts not yet stored, including files
 * listed but not looked at yet, and reads 0 once everything is stored.
 */
import { mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { BreakerbarMetrics } from '../../../main/core/metrics/breakerbar-metrics.js';
import { silentLogger } from '../../../main/core/runtime/log.js';
import { JsonlTranscriptSource } from '../../../main/core/sources/transcripts-jsonl.js';
import { Store } from '../../../main/core/store/db.js';
import { IngestWriter } from '../../../main/core/store/ingest-writer.js';
import { allCalls, sessionsDir, writeStateDir } from '../../helpers/transcripts.js';

const START = Date.parse('2026-07-01T08:00:00.000Z');

let root: string;
let store: Store;
let writer: IngestWriter;
let source: JsonlTranscriptSource | null = null;

beforeEach(() => {
  root = mkdtempSync(join(tmpdir(), 'bb-backlog-'));
  const dbPath = join(root, 'breakerbar.sqlite');
  store = Store.open(dbPath);
  writer = new IngestWriter({ store, dbPath, log: silentLogger });
});

afterEach(async () => {
  await source?.stop();
  await writer.close();
  store.close();
  rmSync(root, { recursive: true, force: true });
});

/** The value of `name{source="jsonl"}` in the exposition. */
async function scrape(metrics: BreakerbarMetrics, name: string): Promise<number | null> {
  const { body } = await metrics.exposition();
  const line = body.split('\n').find((l) => l.startsWith(`${name}{source="jsonl"} `));
  return line === undefined ? null : Number(line.split(' ')[1]);
}

describe('the backlog during a backfill', () => {
  it('counts every unstored byte from the first look, shrinks while reading, and is 0 once stored', async () => {
    const stateDir = join(root, 'openclaw');
    const sessions = writeStateDir(stateDir, {
      agents: ['main', 'ops'],
      sessionsPerAgent: 40,
      turns: 20,
      start: START,
    });
    const bytes = sessions.reduce(
      (sum, s) => sum + statSync(join(sessionsDir(stateDir, s.agentId), `${s.sessionId}.jsonl`)).size,
      0,
    );
    source = new JsonlTranscriptSource({
      stateDir,
      includeArchives: false,
      sink: {
        cursors: (kind) => store.cursors(kind),
        commit: (b) => store.commit(b),
        commitLater: (b) => writer.commit(b),
      },
      cutoff: 0,
      reconcileIntervalMs: 60_000,
      maxLineBytes: 1024 * 1024,
      log: silentLogger,
    });
    const current = source;
    const metrics = new BreakerbarMetrics({
      snapshots: () => [],
      sources: () => [current.status()],
      stalledSessions: () => [],
    });

    // The first listing queues all 80 files; none has been read yet, every byte is pending.
    current.start();
    expect(current.status()).toMatchObject({ pending: bytes, pendingUnit: 'bytes' });
    expect(await scrape(metrics, 'breakerbar_ingest_backlog_bytes')).toBe(bytes);
    expect(await scrape(metrics, 'breakerbar_ingest_pending')).toBe(bytes);

    // Looked at after each stored batch: the backlog only shrinks, and is never 0 before the end.
    const seen: number[] = [];
    const deadline = Date.now() + 30_000;
    while (!current.caughtUp) {
      if (Date.now() > deadline) throw new Error('the backfill did not finish within 30 s');
      seen.push(current.status().pending);
      await new Promise<void>((resolve) => setImmediate(resolve));
    }
    const during = seen.filter((pending) => pending > 0);
    expect(during.length).toBeGreaterThan(10);
    for (let i = 1; i < seen.length; i++) expect(seen[i]).toBeLessThanOrEqual(seen[i - 1] as number);

    expect(store.summary().calls).toBe(allCalls(sessions).length);
    expect(current.status().pending).toBe(0);
    expect(await scrape(metrics, 'breakerbar_ingest_backlog_bytes')).toBe(0);
  });
});
