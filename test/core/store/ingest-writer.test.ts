/**
 * The ingest writer: batches stored atomically with their cursors, grouped
 * while one group is being stored, one bad batch never holding back the
 * others; in this thread under the TypeScript test runner, and in a worker
 * thread from the compiled module (dist/, built by `npm run build`).
 */
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { CallEvent } from '../../../main/core/calls/events.js';
import { silentLogger } from '../../../main/core/runtime/log.js';
import type { Batch } from '../../../main/core/store/batch.js';
import { Store } from '../../../main/core/store/db.js';
import { IngestWriter, MAX_GROUP_EVENTS } from '../../../main/core/store/ingest-writer.js';

let dir: string;
let store: Store;
const writers: Array<{ close(): Promise<void> }> = [];

beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'bb-writer-'));
  store = Store.open(join(dir, 'breakerbar.sqlite'));
});

afterEach(async () => {
  for (const writer of writers.splice(0)) await writer.close();
  store.close();
  rmSync(dir, { recursive: true, force: true });
});

function call(n: number, overrides: Partial<CallEvent> = {}): CallEvent {
  return {
    key: `agent/entry-${n}@${1_000 + n}`,
    ts: 1_000 + n,
    source: 'jsonl',
    agentId: 'agent',
    sessionId: 'session',
    dep: 'zhipu/glm-5.1',
    provider: 'zhipu',
    model: 'glm-5.1',
    api: 'openai-completions',
    stopReason: 'stop',
    outcome: 'ok',
    phase: 'complete',
    httpStatus: null,
    errorCode: null,
    retryAfterMs: null,
    credential: null,
    usage: { input: 1, output: 1, cacheRead: 0, cacheWrite: 0, totalTokens: 2, cost: 0 },
    role: 'record',
    runId: null,
    ...overrides,
  };
}

function batch(key: string, from: number, to: number): Batch {
  const events = Array.from({ length: to - from }, (_, i) => call(from + i));
  return { events, cursor: { source: 'jsonl', key, path: `/x/${key}.jsonl`, position: to } };
}

function writerOn(target: Store, dbPath: string | null): IngestWriter {
  const writer = new IngestWriter({ store: target, dbPath, log: silentLogger });
  writers.push(writer);
  return writer;
}

const storedCalls = (target: Store) => target.summary().calls;

describe('IngestWriter (in this thread)', () => {
  it('stores each batch with its cursor and answers with the caller’s own events', async () => {
    const writer = writerOn(store, join(dir, 'breakerbar.sqlite'));
    expect(writer.mode).toBe('thread');
    const first = batch('a', 0, 3);
    const result = await writer.commit(first);
    expect(result).toMatchObject({ inserted: 3, duplicates: 0, turns: 3 });
    expect(result.stored).toHaveLength(3);
    for (const [i, event] of result.stored.entries()) expect(event).toBe(first.events[i]);
    expect(store.cursors('jsonl')).toEqual([
      { source: 'jsonl', key: 'a', path: '/x/a.jsonl', position: 3, detail: null },
    ]);
    // Read again: duplicates, nothing stored twice.
    expect(await writer.commit(batch('a', 0, 3))).toMatchObject({ inserted: 0, duplicates: 3, stored: [] });
  });

  it('batches queued while a group is stored go together, and one that fails takes no other with it', async () => {
    const writer = writerOn(store, null);
    const first = writer.commit(batch('a', 0, 2));
    // Queued behind the first: one group of three, the middle one impossible to store (no dependency).
    const bad = batch('b', 2, 4);
    (bad.events[1] as { dep: unknown }).dep = null;
    const results = await Promise.allSettled([
      first,
      writer.commit(batch('c', 4, 6)),
      writer.commit(bad),
      writer.commit(batch('d', 6, 8)),
    ]);
    expect(results.map((r) => r.status)).toEqual(['fulfilled', 'fulfilled', 'rejected', 'fulfilled']);
    expect(storedCalls(store)).toBe(6);
    expect(store.cursors('jsonl').map((c) => c.key)).toEqual(['a', 'c', 'd']);
  });

  it('stores everything queued before it closes (more than one group holds), then refuses', async () => {
    const writer = writerOn(store, null);
    const pending: Array<Promise<unknown>> = [];
    // 3,000 events: more than one group's worth, whatever the groups' size.
    expect(3000).toBeGreaterThan(MAX_GROUP_EVENTS);
    for (let i = 0; i < 10; i++) pending.push(writer.commit(batch(`k${i}`, i * 300, (i + 1) * 300)));
    await writer.close();
    await Promise.all(pending);
    expect(storedCalls(store)).toBe(3000);
    await expect(writer.commit(batch('late', 5000, 5001))).rejects.toThrow(/closed/);
  });
});

/** The compiled writer, whose thread only runs from JavaScript. */
const COMPILED = new URL('../../../dist/main/core/store/ingest-writer.js', import.meta.url);

describe.skipIf(!existsSync(COMPILED))('IngestWriter (worker thread, compiled)', () => {
  async function compiled(): Promise<typeof import('../../../main/core/store/ingest-writer.js')> {
    return import(COMPILED.href);
  }

  it('stores in its own thread, checkpoints there, and what it stored is visible to the main connection', async () => {
    const { IngestWriter: Compiled } = await compiled();
    const writer = new Compiled({ store, dbPath: join(dir, 'breakerbar.sqlite'), log: silentLogger });
    writers.push(writer);
    expect(writer.mode).toBe('worker');
    // The main connection no longer checkpoints: the thread does.
    expect(store.db.pragma('wal_autocheckpoint', { simple: true })).toBe(0);
    const results = await Promise.all([writer.commit(batch('a', 0, 100)), writer.commit(batch('b', 100, 250))]);
    expect(results.map((r) => r.inserted)).toEqual([100, 150]);
    expect(results[1]?.stored[0]?.key).toBe('agent/entry-100@1100');
    expect(storedCalls(store)).toBe(250);
    // A write of the main connection meanwhile waits its turn instead of failing.
    const more = writer.commit(batch('c', 250, 750));
    store.setMeta('main.write', '1');
    await more;
    expect(storedCalls(store)).toBe(750);
    expect(store.getMeta('main.write')).toBe('1');
  });

  it('falls back to this thread when its thread cannot open the database', async () => {
    const { IngestWriter: Compiled } = await compiled();
    const notADatabase = join(dir, 'garbage.sqlite');
    writeFileSync(notADatabase, 'this is not a database, it is text long enough to have a header page');
    const writer = new Compiled({ store, dbPath: notADatabase, log: silentLogger });
    writers.push(writer);
    // The first commit may be the one that learns the thread is gone: it is then read again by its source.
    await writer.commit(batch('a', 0, 2)).catch(() => undefined);
    await expect(writer.commit(batch('b', 2, 4))).resolves.toMatchObject({ inserted: 2 });
    expect(writer.mode).toBe('thread');
    expect(store.db.pragma('wal_autocheckpoint', { simple: true })).toBe(1000);
  });
});
