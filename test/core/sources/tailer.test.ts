/**
 * FileTailer: every complete line exactly once, in order, whatever happens to
 * the files (bursts, partial lines, truncation, rotation, deletion, inode reuse,
 * restarts) and whatever the watcher misses.
 *
 * "manual" tailers have no watcher and no reconcile tick: the test calls
 * `reconcile()` itself (see `look`) and so decides exactly when the tailer looks.
 */
import {
  appendFileSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readlinkSync,
  renameSync,
  rmSync,
  statSync,
  truncateSync,
  unlinkSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import {
  FileTailer,
  type LineBatch,
  type StoredPosition,
  type TailerOptions,
} from '../../../main/core/sources/tailer.js';
import type { FileRole } from '../../../main/core/sources/watcher.js';
import { sleep, until } from '../../helpers/transcripts.js';

/** `.jsonl` files are followed; `.jsonl.reset.<n>` archives only continue a file renamed into them. */
function jsonlRole(path: string): FileRole {
  if (path.endsWith('.jsonl')) return 'follow';
  if (/\.jsonl\.reset\.\d+$/.test(path)) return 'continue';
  return 'ignore';
}

interface Delivery {
  path: string;
  key: string;
  line: Buffer;
}

/** What a tailer handed over: lines, batches, forgotten keys, errors, last committed positions. */
class Recorder {
  readonly deliveries: Delivery[] = [];
  readonly batches: Array<{ path: string; key: string; fromOffset: number; toOffset: number }> = [];
  readonly forgotten: string[] = [];
  readonly errors: Array<{ error: Error; path: string }> = [];
  readonly positions = new Map<string, StoredPosition>();
  oversizedLines = 0;
  /** Consume calls that throw next (a failing database commit). */
  failures = 0;
  /** Runs at the start of every consume call (before it may fail). */
  onConsume: ((batch: LineBatch) => void) | null = null;

  consume(batch: LineBatch): void {
    this.onConsume?.(batch);
    if (this.failures > 0) {
      this.failures--;
      throw new Error('SQLITE_BUSY: database is locked');
    }
    this.batches.push({ path: batch.path, key: batch.key, fromOffset: batch.fromOffset, toOffset: batch.toOffset });
    for (let i = 0; i < batch.lineStarts.length; i++) {
      const line = Buffer.from(batch.buf.subarray(batch.lineStarts[i], batch.lineEnds[i]));
      this.deliveries.push({ path: batch.path, key: batch.key, line });
    }
    this.oversizedLines += batch.oversizedLines;
    this.positions.set(batch.key, { key: batch.key, path: batch.path, position: batch.toOffset });
  }

  linesAt(path: string): string[] {
    return this.deliveries.filter((d) => d.path === path).map((d) => d.line.toString('utf8'));
  }

  linesOf(key: string): string[] {
    return this.deliveries.filter((d) => d.key === key).map((d) => d.line.toString('utf8'));
  }

  /** The lines delivered for `path` joined back into file text. */
  textAt(path: string): string {
    return this.linesAt(path)
      .map((line) => `${line}\n`)
      .join('');
  }

  keysAt(path: string): string[] {
    return [...new Set(this.deliveries.filter((d) => d.path === path).map((d) => d.key))];
  }
}

let dir: string;
const running: FileTailer[] = [];

beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'bb-tailer-'));
});

afterEach(async () => {
  await Promise.all(running.splice(0).map((tailer) => tailer.stop()));
  rmSync(dir, { recursive: true, force: true });
});

/** `storeLater`: the consumer stores each batch a few ms later (a promise), as the ingest writer's thread does. */
type Mode = Partial<TailerOptions> & { storeLater?: boolean };

/** No watcher, no tick: the test decides when the tailer looks (`look`). */
const MANUAL: Mode = { watcherFactory: () => null, reconcileIntervalMs: 3_600_000 };
/** One buffer every step reads into, grown when a step needs more: what the transcript source lends the tailer. */
function oneBuffer(): (bytes: number) => Buffer {
  let buf = Buffer.alloc(0);
  return (bytes) => {
    if (buf.length < bytes) buf = Buffer.alloc(bytes);
    return buf;
  };
}

/** Tailing modes that must give the same results. */
const LIVE_MODES: Array<[string, Mode]> = [
  ['watcher + reconcile', {}],
  ['reconcile only', { watcherFactory: () => null }],
  ['watcher + reconcile, storing later', { storeLater: true }],
  ['watcher + reconcile, one read buffer, storing later', { storeLater: true, scratch: oneBuffer() }],
];

/**
 * Stores after 0–4 ms, in the order asked (one writer): what a commit through a thread looks like. The
 * batch's bytes are read at once, as the transcript source parses them: the tailer may lend the next step
 * the same buffer.
 */
function later(rec: Recorder): (batch: LineBatch) => Promise<void> {
  let previous = Promise.resolve();
  return (lent) => {
    const batch = { ...lent, buf: Buffer.from(lent.buf) };
    const stored = previous.then(
      () => new Promise<void>((resolve) => setTimeout(() => resolve(rec.consume(batch)), Math.random() * 4)),
    );
    previous = stored.catch(() => {});
    return stored;
  };
}

function startTailer({ storeLater, ...options }: Mode = {}, rec = new Recorder()) {
  const tailer = new FileTailer({
    roots: [dir],
    depth: 2,
    roleOf: jsonlRole,
    initialPositions: [],
    consume: storeLater ? later(rec) : (batch) => rec.consume(batch),
    forget: (key) => rec.forgotten.push(key),
    onError: (error, path) => rec.errors.push({ error, path }),
    reconcileIntervalMs: 200,
    maxLineBytes: 1024 * 1024,
    ...options,
  });
  tailer.start();
  running.push(tailer);
  return { tailer, rec };
}

/** One full look: re-list, then wait until every queued file has been read. */
async function look(tailer: FileTailer): Promise<void> {
  tailer.reconcile();
  await until(() => tailer.idle, 5000, 'the tailer to go idle');
}

/** Waits until `path` has delivered at least `text.length` characters, then demands exactly `text`. */
async function expectText(rec: Recorder, path: string, text: string, timeoutMs = 10_000): Promise<void> {
  await until(() => rec.textAt(path).length >= text.length, timeoutMs, `${path} to be read`);
  expect(rec.textAt(path)).toBe(text);
}

/** A line a few dozen bytes long that names its number (lines differ in length, like real ones). */
const lineNo = (n: number, tag = 'l') => JSON.stringify({ n, tag, pad: 'x'.repeat(n % 37) });
const linesText = (lines: readonly string[]) => lines.map((line) => `${line}\n`).join('');
const range = (from: number, to: number, tag?: string) =>
  Array.from({ length: to - from }, (_, i) => lineNo(from + i, tag));

function appendAll(path: string, lines: readonly string[]): void {
  for (const line of lines) appendFileSync(path, `${line}\n`);
}

describe('FileTailer: exactly once, in order', () => {
  describe.each(LIVE_MODES)('%s', (_mode, mode) => {
    it('delivers every complete line exactly once and in order across many appends to several files', async () => {
      const { rec } = startTailer(mode);
      const paths = ['a', 'b', 'c'].map((name) => join(dir, `${name}.jsonl`));
      const written = new Map(paths.map((path) => [path, [] as string[]]));
      for (let round = 0; round < 30; round++) {
        for (const [i, path] of paths.entries()) {
          const lines = range(round * 10, round * 10 + 1 + ((round + i) % 7), path);
          appendAll(path, lines);
          written.get(path)?.push(...lines);
        }
        await sleep(round % 5);
      }
      for (const path of paths) await expectText(rec, path, linesText(written.get(path) ?? []));
      expect(rec.errors).toEqual([]);
    });

    it('leaves zero lines unread after a burst of 1,000 appends with no pause between them', async () => {
      const { tailer, rec } = startTailer(mode);
      const path = join(dir, 'burst.jsonl');
      const lines = range(0, 1000);
      appendAll(path, lines);
      await expectText(rec, path, linesText(lines));
      await look(tailer);
      expect(rec.linesAt(path)).toHaveLength(1000);
    });

    it('leaves zero lines unread after a burst of 1,000 appends separated by tiny random sleeps', async () => {
      const { tailer, rec } = startTailer(mode);
      const path = join(dir, 'burst.jsonl');
      const lines = range(0, 1000);
      for (const [i, line] of lines.entries()) {
        appendFileSync(path, `${line}\n`);
        if (i % 3 === 0) await sleep(Math.random() * 3);
      }
      await expectText(rec, path, linesText(lines));
      await look(tailer);
      expect(rec.linesAt(path)).toHaveLength(1000);
    });
  });

  it('catches the end of a burst the watcher never reports through follow-ups, without any reconcile tick', async () => {
    const path = join(dir, 'burst.jsonl');
    appendAll(path, ['header']);
    // Reconcile tick effectively off: after the first listing only the watcher and follow-ups are left.
    const { rec } = startTailer({ reconcileIntervalMs: 3_600_000 });
    await until(() => rec.deliveries.length === 1, 5000, 'the header');
    const lines = range(0, 1000);
    for (const [i, line] of lines.entries()) {
      appendFileSync(path, `${line}\n`);
      if (i % 3 === 0) await sleep(Math.random() * 3);
    }
    await expectText(rec, path, linesText(['header', ...lines]));
  });

  it('holds a partial last line until its newline arrives, then delivers it once and whole', async () => {
    const { tailer, rec } = startTailer(MANUAL);
    const path = join(dir, 's.jsonl');
    const line = lineNo(1, 'complete-me');
    writeFileSync(path, `${lineNo(0)}\n${line.slice(0, 10)}`);
    await look(tailer);
    // The half line must not be delivered by the follow-up look either.
    await until(() => tailer.settled, 5000, 'the follow-up look');
    expect(rec.linesAt(path)).toEqual([lineNo(0)]);

    appendFileSync(path, line.slice(10, 20));
    await look(tailer);
    expect(rec.linesAt(path)).toEqual([lineNo(0)]);

    appendFileSync(path, `${line.slice(20)}\n`);
    await look(tailer);
    await look(tailer);
    expect(rec.linesAt(path)).toEqual([lineNo(0), line]);
  });

  it('does not start a file whose first line is still incomplete, and reads it from 0 once it is', async () => {
    const { tailer, rec } = startTailer(MANUAL);
    const path = join(dir, 'new.jsonl');
    writeFileSync(path, '{"type":"session","id":"half');
    await look(tailer);
    expect(rec.deliveries).toEqual([]);
    appendFileSync(path, '"}\nsecond\n');
    await look(tailer);
    expect(rec.linesAt(path)).toEqual(['{"type":"session","id":"half"}', 'second']);
  });
});

describe('FileTailer: a consumer that stores later', () => {
  it('reads nothing more of a file while its batch is being stored, even under a new name', async () => {
    const rec = new Recorder();
    const held: Array<() => void> = [];
    const { tailer } = startTailer(
      {
        ...MANUAL,
        consume: (batch) =>
          new Promise<void>((resolve) =>
            held.push(() => {
              rec.consume(batch);
              resolve();
            }),
          ),
      },
      rec,
    );
    const path = join(dir, 'a.jsonl');
    appendAll(path, range(0, 3));
    tailer.reconcile();
    await until(() => held.length === 1, 5000, 'the first batch');
    expect(tailer.idle).toBe(false);

    // Renamed (and appended to) while the first batch is still being stored.
    const renamed = join(dir, 'b.jsonl');
    renameSync(path, renamed);
    appendAll(renamed, range(3, 5));
    tailer.reconcile();
    // The look at the new name waits for the batch: it is put off to a follow-up. A second batch started
    // now would be the bug.
    await until(() => tailer.followingUp(renamed) || held.length > 1, 5000, 'the look at the new name');
    expect(held).toHaveLength(1);
    expect(rec.deliveries).toEqual([]);

    (held.shift() as () => void)();
    // Once stored, the file is taken up under its new name from where the first batch ended.
    await until(() => held.length === 1, 5000, 'the rest under the new name');
    (held.shift() as () => void)();
    await until(() => tailer.idle, 5000, 'the tailer to go idle');
    expect(rec.linesOf(rec.keysAt(path)[0] as string)).toEqual(range(0, 5));
    expect(rec.deliveries.map((d) => d.path)).toEqual([path, path, path, renamed, renamed]);
  });

  it('a batch that could not be stored is read again, once', async () => {
    const rec = new Recorder();
    let fail = true;
    const { tailer } = startTailer(
      {
        ...MANUAL,
        consume: async (batch) => {
          await sleep(1);
          if (fail) {
            fail = false;
            throw new Error('SQLITE_BUSY: database is locked');
          }
          rec.consume(batch);
        },
      },
      rec,
    );
    const path = join(dir, 'a.jsonl');
    appendAll(path, range(0, 4));
    await look(tailer);
    expect(rec.errors.map((e) => e.error.message)).toEqual(['SQLITE_BUSY: database is locked']);
    expect(rec.deliveries).toEqual([]);
    await look(tailer);
    expect(rec.linesAt(path)).toEqual(range(0, 4));
  });
});

describe('FileTailer: truncation, rotation, deletion, inode reuse', () => {
  describe.each(LIVE_MODES)('%s', (_mode, mode) => {
    it('reads a file truncated to 0 and rewritten from 0, and forgets the old key', async () => {
      const { rec } = startTailer(mode);
      const path = join(dir, 't.jsonl');
      const before = range(0, 50, 'before');
      appendAll(path, before);
      await expectText(rec, path, linesText(before));
      const [oldKey] = rec.keysAt(path);

      truncateSync(path, 0);
      const after = range(0, 5, 'after');
      appendAll(path, after);
      await expectText(rec, path, linesText([...before, ...after]));
      await until(() => rec.forgotten.includes(oldKey as string), 5000, 'the old key to be forgotten');
      expect(rec.keysAt(path)).toHaveLength(2);
    });

    it('after rename-rotation delivers the renamed file’s unread tail and the new file from 0', async () => {
      const { tailer, rec } = startTailer(mode);
      const path = join(dir, 'x.jsonl');
      const rotated = `${path}.reset.123`;
      const head = range(0, 20, 'old');
      appendAll(path, head);
      await expectText(rec, path, linesText(head));
      const [oldKey] = rec.keysAt(path);
      // All synchronous: the tailer cannot read the tail before the rename.
      const tail = range(20, 25, 'old');
      const fresh = range(0, 10, 'new');
      appendAll(path, tail);
      renameSync(path, rotated);
      appendAll(path, fresh);
      await expectText(rec, rotated, linesText(tail));
      await expectText(rec, path, linesText([...head, ...fresh]));
      expect(rec.linesOf(oldKey as string)).toEqual([...head, ...tail]);
      await look(tailer);
      expect(rec.forgotten).not.toContain(oldKey);
    });
  });

  it('after rename-rotation to a `continue` name, the tail written before the rename is still delivered (manual looks)', async () => {
    const { tailer, rec } = startTailer(MANUAL);
    const path = join(dir, 'x.jsonl');
    const rotated = `${path}.reset.123`;
    const head = range(0, 3, 'old');
    appendAll(path, head);
    await look(tailer);
    const [oldKey] = rec.keysAt(path);
    const tail = range(3, 5, 'old');
    appendAll(path, tail);
    renameSync(path, rotated);
    const fresh = range(0, 2, 'new');
    appendAll(path, fresh);

    for (let i = 0; i < 3; i++) await look(tailer);
    expect(rec.linesOf(oldKey as string)).toEqual([...head, ...tail]);
    expect(rec.linesAt(rotated)).toEqual(tail);
    expect(rec.linesAt(path)).toEqual([...head, ...fresh]);
    expect(rec.forgotten).toEqual([]);
  });

  it('forgets a rotated file whose new name is ignored (its tail is not ours to read)', async () => {
    const { tailer, rec } = startTailer({ ...MANUAL, roleOf: (p) => (p.endsWith('.jsonl') ? 'follow' : 'ignore') });
    const path = join(dir, 'x.jsonl');
    appendAll(path, range(0, 3));
    await look(tailer);
    const [oldKey] = rec.keysAt(path);
    appendAll(path, range(3, 5));
    renameSync(path, `${path}.old`);
    for (let i = 0; i < 3; i++) await look(tailer);
    expect(rec.linesOf(oldKey as string)).toEqual(range(0, 3));
    expect(rec.forgotten).toEqual([oldKey]);
    expect(rec.errors).toEqual([]);
  });

  describe('rotation to a name that is itself followed (log.1 style), tail delivered once', () => {
    const followBoth = (p: string): FileRole => (/\.log(\.\d+)?$/.test(p) ? 'follow' : 'ignore');

    async function rotateFollowed(order: 'old path first' | 'new name first') {
      const { tailer, rec } = startTailer({ ...MANUAL, roleOf: followBoth });
      const path = join(dir, 'gateway.log');
      const rotated = `${path}.1`;
      appendAll(path, range(0, 3, 'old'));
      await look(tailer);
      const [oldKey] = rec.keysAt(path);
      appendAll(path, range(3, 5, 'old'));
      renameSync(path, rotated);
      appendAll(path, range(0, 2, 'new'));
      // The watcher (or a directory listing) may report either name first.
      const touches = order === 'old path first' ? [path, rotated] : [rotated, path];
      for (const p of touches) tailer.touch(p);
      await until(() => tailer.idle);
      for (let i = 0; i < 3; i++) await look(tailer);
      expect(rec.linesOf(oldKey as string)).toEqual(range(0, 5, 'old'));
      expect(rec.linesAt(path)).toEqual([...range(0, 3, 'old'), ...range(0, 2, 'new')]);
      expect(rec.forgotten).toEqual([]);
    }

    it('when the old path is looked at first', () => rotateFollowed('old path first'));

    it('when the rotated name is looked at first', () => rotateFollowed('new name first'));
  });

  it('reads from 0 a file rewritten in place (same inode) with a different first line longer than the old offset', async () => {
    const { tailer, rec } = startTailer(MANUAL);
    const path = join(dir, 'reuse.jsonl');
    appendAll(path, ['{"type":"session","id":"first"}', 'a1']);
    await look(tailer);
    const [oldKey] = rec.keysAt(path);
    const inode = statSync(path).ino;

    const second = ['{"type":"session","id":"second-session-with-a-longer-header"}', 'b1', 'b2', 'b3'];
    writeFileSync(path, linesText(second)); // O_TRUNC keeps the inode
    expect(statSync(path).ino).toBe(inode);
    await look(tailer);

    expect(rec.linesAt(path)).toEqual(['{"type":"session","id":"first"}', 'a1', ...second]);
    const keys = rec.keysAt(path);
    expect(keys).toHaveLength(2);
    expect(keys[1]?.split(':').slice(0, 2)).toEqual(oldKey?.split(':').slice(0, 2));
    expect(rec.forgotten).toEqual([oldKey]);
  });

  it('reads from 0 a file deleted and created again at the same path (whatever inode it gets)', async () => {
    const { rec } = startTailer();
    const path = join(dir, 'again.jsonl');
    const first = range(0, 40, 'first');
    appendAll(path, first);
    await expectText(rec, path, linesText(first));
    unlinkSync(path);
    const second = range(0, 60, 'second');
    appendAll(path, second);
    await expectText(rec, path, linesText([...first, ...second]));
    expect(rec.errors).toEqual([]);
  });

  it('reads a file deleted while it is being read to its end, then forgets its key once: no crash, no error loop', async () => {
    const { tailer, rec } = startTailer({ chunkBytes: 16 * 1024 });
    const path = join(dir, 'doomed.jsonl');
    const lines = range(0, 20_000, 'doomed');
    // Delete the file as soon as its first batch is being consumed: the rest is read through the open descriptor.
    rec.onConsume = (batch) => {
      if (batch.path === path) unlinkSync(path);
      rec.onConsume = null;
    };
    writeFileSync(path, linesText(lines));
    await until(() => rec.forgotten.length > 0, 10_000, 'the deleted file to be forgotten');
    expect(rec.linesAt(path)).toEqual(lines);
    expect(rec.forgotten).toEqual(rec.keysAt(path));

    for (let i = 0; i < 3; i++) await look(tailer);
    expect(rec.forgotten).toHaveLength(1);
    expect(rec.errors).toEqual([]);
    expect(tailer.progress().files).toBe(0);
  });

  describe.each([
    ['stored at once', {}],
    ['stored later', { storeLater: true }],
  ] as Array<[string, Mode]>)('the last lines of a file deleted right after they were written (%s)', (_name, mode) => {
    /** A manual tailer that has read `first` from gateway.jsonl and holds its descriptor. */
    async function afterFirstLook(first: readonly string[]) {
      const { tailer, rec } = startTailer({ ...MANUAL, ...mode, maxLinesPerBatch: 7 });
      const path = join(dir, 'gateway.jsonl');
      appendAll(path, first);
      await look(tailer);
      await expectText(rec, path, linesText(first));
      return { tailer, rec, path };
    }

    it('are read before the file is let go', async () => {
      const first = range(0, 300, 'first');
      const last = range(300, 600, 'first');
      const { tailer, rec, path } = await afterFirstLook(first);
      // Written and deleted between two looks: only the descriptor kept from the last look still reaches them.
      appendAll(path, last);
      unlinkSync(path);
      await look(tailer);
      expect(rec.linesAt(path)).toEqual([...first, ...last]);
      // Let go once a follow-up look finds nothing left, and forgotten after a whole round in which it was not
      // found again under another name.
      await until(() => tailer.settled, 5000, 'the follow-up looks');
      for (let i = 0; i < 2; i++) await look(tailer);
      expect(rec.forgotten).toEqual(rec.keysAt(path));
      expect(rec.errors).toEqual([]);
    });

    it('are read before the file created in its place, which is then read from 0', async () => {
      const first = range(0, 100, 'old');
      const tail = range(100, 200, 'old');
      const next = range(0, 50, 'new');
      const { tailer, rec, path } = await afterFirstLook(first);
      appendAll(path, tail);
      unlinkSync(path);
      appendAll(path, next);
      await look(tailer);
      await expectText(rec, path, linesText([...first, ...tail, ...next]));
      expect(rec.keysAt(path)).toHaveLength(2);
      expect(rec.linesOf(rec.keysAt(path)[0] ?? '')).toEqual([...first, ...tail]);
      expect(rec.errors).toEqual([]);
    });
  });

  it.skipIf(process.platform !== 'linux')(
    'lets go of a deleted file once it is read, and of every file when stopped',
    async () => {
      const { tailer, rec } = startTailer(MANUAL);
      const openDeleted = () =>
        readdirSync('/proc/self/fd').filter((fd) => {
          try {
            return readlinkSync(`/proc/self/fd/${fd}`).startsWith(dir);
          } catch {
            return false;
          }
        }).length;
      const paths = Array.from({ length: 40 }, (_, i) => join(dir, `s${i}.jsonl`));
      for (const path of paths) appendAll(path, range(0, 3));
      await look(tailer);
      await until(() => rec.deliveries.length === 120, 5000, 'every file to be read');
      // The most recently looked-at files keep a descriptor, a bounded number of them.
      expect(openDeleted()).toBeGreaterThan(0);
      expect(openDeleted()).toBeLessThanOrEqual(32);
      for (const path of paths) unlinkSync(path);
      await look(tailer);
      await look(tailer);
      expect(openDeleted()).toBe(0);
      appendAll(paths[0] ?? '', range(0, 3));
      await look(tailer);
      expect(openDeleted()).toBe(1);
      await tailer.stop();
      expect(openDeleted()).toBe(0);
    },
  );

  it('survives a file deleted between appends, then reads the file created in its place', async () => {
    const { rec } = startTailer();
    const path = join(dir, 'flaky.jsonl');
    const before = range(0, 300, 'before');
    const after = range(0, 300, 'after');
    for (const [i, line] of before.entries()) {
      appendFileSync(path, `${line}\n`);
      if (i % 10 === 0) await sleep(1);
    }
    unlinkSync(path);
    for (const [i, line] of after.entries()) {
      appendFileSync(path, `${line}\n`);
      if (i % 10 === 0) await sleep(1);
    }
    await until(() => rec.linesAt(path).slice(-1)[0] === after.at(-1), 10_000, 'the new file to be read');
    const delivered = rec.linesAt(path);
    const fromFirst = delivered.filter((line) => line.includes('"before"'));
    expect(fromFirst).toEqual(before.slice(0, fromFirst.length));
    expect(delivered.slice(fromFirst.length)).toEqual(after);
    await until(() => rec.forgotten.length > 0, 5000, 'the deleted file to be forgotten');
    expect(rec.errors).toEqual([]);
  });
});

describe('FileTailer: long lines and odd bytes', () => {
  it.each([
    ['a buffer per step', {}],
    ['one read buffer', { scratch: oneBuffer() }],
  ])('delivers a 5 MB line whole (longer than the read chunk), reading into %s', async (_how, reads) => {
    const { rec } = startTailer({ maxLineBytes: 8 * 1024 * 1024, chunkBytes: 256 * 1024, ...reads });
    const path = join(dir, 'big.jsonl');
    const big = JSON.stringify({ type: 'message', text: 'é'.repeat(2.5 * 1024 * 1024) });
    expect(Buffer.byteLength(big)).toBeGreaterThan(5 * 1024 * 1024);
    appendAll(path, ['{"type":"session"}', big, 'after']);
    await until(() => rec.linesAt(path).length >= 3, 10_000, 'the big line');
    expect(rec.linesAt(path)).toEqual(['{"type":"session"}', big, 'after']);
  });

  it('skips a line longer than maxLineBytes, counts it as oversized, and still delivers the lines after it', async () => {
    const { tailer, rec } = startTailer({ maxLineBytes: 64 * 1024, chunkBytes: 16 * 1024 });
    const path = join(dir, 'huge.jsonl');
    appendAll(path, ['head', 'y'.repeat(300 * 1024), 'after-1', 'after-2']);
    await until(() => rec.linesAt(path).length >= 3, 5000, 'the lines after the long one');
    await look(tailer);
    expect(rec.linesAt(path)).toEqual(['head', 'after-1', 'after-2']);
    expect(rec.oversizedLines).toBe(1);
    expect(rec.errors).toEqual([]);
  });

  it('delivers lines with invalid UTF-8 byte-exact, including a character split across two appends', async () => {
    const { tailer, rec } = startTailer(MANUAL);
    const path = join(dir, 'bytes.jsonl');
    const invalid = Buffer.concat([
      Buffer.from('{"t":"'),
      Buffer.from([0xff, 0xfe, 0xc3, 0x28, 0xed, 0xa0, 0x80]),
      Buffer.from('"}'),
    ]);
    const euro = Buffer.from('€'); // 3 bytes, written in two appends
    writeFileSync(path, Buffer.concat([Buffer.from('head\n'), invalid, Buffer.from('\nx'), euro.subarray(0, 1)]));
    await look(tailer);
    appendFileSync(path, Buffer.concat([euro.subarray(1), Buffer.from('\n')]));
    await look(tailer);
    const lines = rec.deliveries.map((d) => d.line);
    expect(lines).toHaveLength(3);
    expect(lines[1]?.equals(invalid)).toBe(true);
    expect(lines[2]?.equals(Buffer.concat([Buffer.from('x'), euro]))).toBe(true);
    expect(rec.errors).toEqual([]);
  });
});

describe('FileTailer: discovery', () => {
  describe.each(LIVE_MODES)('%s', (_mode, mode) => {
    it('watches a root that does not exist yet and reads files created under it later', async () => {
      const root = join(dir, 'state', 'agents');
      const { tailer, rec } = startTailer({ ...mode, roots: [root] });
      await until(() => tailer.idle);
      // At least one reconcile with the root still missing.
      tailer.reconcile();
      await until(() => tailer.idle);
      mkdirSync(join(root, 'main', 'sessions'), { recursive: true });
      const path = join(root, 'main', 'sessions', 's1.jsonl');
      const lines = range(0, 20);
      appendAll(path, lines);
      await expectText(rec, path, linesText(lines));
      // And a file appearing later in a new agent directory.
      const later = join(root, 'ops', 'sessions', 's2.jsonl');
      mkdirSync(join(root, 'ops', 'sessions'), { recursive: true });
      appendAll(later, lines);
      await expectText(rec, later, linesText(lines));
      expect(rec.errors).toEqual([]);
    });
  });

  it('looks exactly `depth` directory levels below each root', async () => {
    const { tailer, rec } = startTailer({ ...MANUAL, depth: 2 });
    const paths = [join(dir, 'd0.jsonl'), join(dir, 'a', 'd1.jsonl'), join(dir, 'a', 'b', 'd2.jsonl')];
    const tooDeep = join(dir, 'a', 'b', 'c', 'd3.jsonl');
    for (const path of [...paths, tooDeep]) {
      mkdirSync(join(path, '..'), { recursive: true });
      appendAll(path, ['one']);
    }
    await look(tailer);
    for (const path of paths) expect(rec.linesAt(path)).toEqual(['one']);
    expect(rec.linesAt(tooDeep)).toEqual([]);
  });

  it('neither lists nor reads a directory `looksInto` refuses', async () => {
    const { tailer, rec } = startTailer({
      ...MANUAL,
      looksInto: (path, level) => level < 2 || path.endsWith('sessions'),
    });
    const read = join(dir, 'main', 'sessions', 'a.jsonl');
    const refused = join(dir, 'main', 'agent', 'b.jsonl');
    for (const path of [read, refused]) {
      mkdirSync(join(path, '..'), { recursive: true });
      appendAll(path, ['one']);
    }
    await look(tailer);
    expect(rec.linesAt(read)).toEqual(['one']);
    expect(rec.linesAt(refused)).toEqual([]);
    expect(tailer.progress().files).toBe(1);
  });

  it('never reads files whose role is ignore', async () => {
    const { tailer, rec } = startTailer(MANUAL);
    appendAll(join(dir, 'sessions.json'), ['{}']);
    appendAll(join(dir, 'x.jsonl.reset.5'), ['archived']);
    await look(tailer);
    expect(rec.deliveries).toEqual([]);
    expect(tailer.progress().files).toBe(0);
  });
});

describe('FileTailer: full re-checks thin out while the watcher reports every change', () => {
  /**
   * A watcher that reports nothing, so only a full re-check finds a change, and ticks the test makes itself
   * (the interval is an hour, and full re-checks are at most 8 ticks apart). The follow-up look after a read
   * comes at once and is waited for: a file with a follow-up pending will be looked at anyway, so a change
   * found then is not one the watcher missed.
   */
  const SILENT: Mode = {
    watcherFactory: () => ({ add() {}, close() {} }),
    followUpMs: 1,
    reconcileIntervalMs: 3_600_000,
    fullReconcileMaxMs: 8 * 3_600_000,
  };

  async function tickUntilRead(tailer: FileTailer, rec: Recorder, path: string, line: string): Promise<number> {
    appendAll(path, [line]);
    for (let ticks = 1; ticks <= 20; ticks++) {
      tailer.tick();
      await until(() => tailer.settled, 5000, 'the tailer to settle');
      if (rec.linesAt(path).includes(line)) return ticks;
    }
    throw new Error(`${line} was not read in 20 ticks`);
  }

  it('doubles the ticks between full re-checks while they find nothing unreported, and goes back to every tick after one does', async () => {
    const path = join(dir, 'a.jsonl');
    appendAll(path, ['first']);
    const { tailer, rec } = startTailer(SILENT);
    await until(() => rec.linesAt(path).length === 1 && tailer.settled);
    // Quiet: full re-checks at ticks 1, 3, 7 and 15 (1, 2, 4 and 8 ticks apart), each finding nothing.
    for (let i = 0; i < 15; i++) tailer.tick();
    // An append the watcher does not report waits for the next full re-check, 8 ticks later…
    expect(await tickUntilRead(tailer, rec, path, 'second')).toBe(8);
    // …which found it unreported: from then on every tick re-checks, until it has been quiet again.
    expect(await tickUntilRead(tailer, rec, path, 'third')).toBe(1);
    expect(await tickUntilRead(tailer, rec, path, 'fourth')).toBe(1);
    expect(rec.linesAt(path)).toEqual(['first', 'second', 'third', 'fourth']);
  });

  it('counts a new file and a deleted one as unreported too', async () => {
    const { tailer, rec } = startTailer(SILENT);
    await until(() => tailer.settled);
    for (let i = 0; i < 15; i++) tailer.tick();
    const created = join(dir, 'new.jsonl');
    expect(await tickUntilRead(tailer, rec, created, 'hello')).toBe(8);
    for (let i = 0; i < 15; i++) tailer.tick();
    unlinkSync(created);
    let ticks = 0;
    while (rec.forgotten.length === 0 && ticks < 20) {
      ticks++;
      tailer.tick();
      await until(() => tailer.settled, 5000, 'the tailer to settle');
    }
    // Found gone at the next full re-check (8 ticks). It is kept a whole round in case it turns up renamed, and
    // while it is, every tick re-checks: forgotten two ticks later.
    expect(ticks).toBe(10);
    // The deletion was unreported, so the spacing started again from 1 (1, 2, then 4 ticks), not from 8.
    expect(await tickUntilRead(tailer, rec, join(dir, 'b.jsonl'), 'again')).toBe(4);
  });

  it('looks for a root that did not exist at every tick, between full re-checks', async () => {
    const root = join(dir, 'later');
    const { tailer, rec } = startTailer({ ...SILENT, roots: [root] });
    for (let i = 0; i < 15; i++) tailer.tick();
    mkdirSync(root);
    expect(await tickUntilRead(tailer, rec, join(root, 'a.jsonl'), 'first')).toBe(1);
  });

  it('re-checks fully at every tick without a watcher', async () => {
    const { tailer, rec } = startTailer({ ...SILENT, watcherFactory: () => null });
    const path = join(dir, 'a.jsonl');
    for (let i = 0; i < 15; i++) tailer.tick();
    expect(await tickUntilRead(tailer, rec, path, 'first')).toBe(1);
  });
});

describe('FileTailer: restart from stored positions', () => {
  /** Runs a tailer over the current files until it has read `expected` lines, then stops it. */
  async function firstRun(expected: number): Promise<StoredPosition[]> {
    const { tailer, rec } = startTailer();
    await until(() => rec.deliveries.length >= expected, 5000, 'the first run to read everything');
    await tailer.stop();
    return [...rec.positions.values()];
  }

  it('delivers only the lines appended after the positions it was given', async () => {
    const a = join(dir, 'a.jsonl');
    const b = join(dir, 'sub', 'b.jsonl');
    mkdirSync(join(dir, 'sub'));
    appendAll(a, range(0, 10, 'a'));
    appendAll(b, range(0, 7, 'b'));
    const positions = await firstRun(17);
    expect(positions).toHaveLength(2);

    appendAll(a, range(10, 15, 'a'));
    const c = join(dir, 'c.jsonl');
    appendAll(c, range(0, 3, 'c'));
    const { tailer, rec } = startTailer({ initialPositions: positions });
    await expectText(rec, a, linesText(range(10, 15, 'a')));
    await expectText(rec, c, linesText(range(0, 3, 'c')));
    // A reconcile after the start-up's (it lists b again): once it has delivered a line appended
    // now, it has been through b too.
    appendAll(a, range(15, 16, 'a'));
    tailer.reconcile();
    await expectText(rec, a, linesText(range(10, 16, 'a')));
    expect(rec.linesAt(b)).toEqual([]);
    expect(rec.forgotten).toEqual([]);
  });

  it('delivers the unread tail of a file rotated while stopped, and the new file from 0', async () => {
    const path = join(dir, 'x.jsonl');
    appendAll(path, range(0, 10, 'old'));
    const positions = await firstRun(10);
    appendAll(path, range(10, 12, 'old'));
    renameSync(path, `${path}.reset.77`);
    appendAll(path, range(0, 4, 'new'));

    const { rec } = startTailer({ initialPositions: positions });
    await expectText(rec, `${path}.reset.77`, linesText(range(10, 12, 'old')));
    await expectText(rec, path, linesText(range(0, 4, 'new')));
  });

  it('reads from 0 a file shorter than its stored position (truncated and rewritten while stopped)', async () => {
    const path = join(dir, 'x.jsonl');
    appendAll(path, ['header', ...range(0, 20, 'old')]);
    const positions = await firstRun(21);
    writeFileSync(path, linesText(['header', 'r1', 'r2']));

    const { tailer, rec } = startTailer({ ...MANUAL, initialPositions: positions });
    await look(tailer);
    const appended = range(0, 20, 'appended');
    appendAll(path, appended);
    await look(tailer);
    expect(rec.linesAt(path)).toEqual(['header', 'r1', 'r2', ...appended]);
  });

  it('forgets a stored position whose file is gone after the first look (other files present)', async () => {
    const gone = join(dir, 'gone.jsonl');
    const kept = join(dir, 'kept.jsonl');
    appendAll(gone, range(0, 5));
    appendAll(kept, range(0, 5));
    const positions = await firstRun(10);
    const goneKey = positions.find((p) => p.path === gone)?.key;
    unlinkSync(gone);

    const { tailer, rec } = startTailer({ ...MANUAL, initialPositions: positions });
    await until(() => tailer.idle);
    expect(rec.forgotten).toEqual([goneKey]);
    expect(rec.deliveries).toEqual([]);
  });

  it('forgets stored positions whose files are gone when no file is left at all', async () => {
    const gone = join(dir, 'gone.jsonl');
    appendAll(gone, range(0, 5));
    const positions = await firstRun(5);
    unlinkSync(gone);

    const { tailer, rec } = startTailer({ ...MANUAL, initialPositions: positions });
    await look(tailer);
    await look(tailer);
    expect(rec.forgotten).toEqual(positions.map((p) => p.key));
  });
});

describe('FileTailer: a failing consumer', () => {
  it('delivers the same batch again after consume throws, losing and duplicating nothing', async () => {
    const { tailer, rec } = startTailer(MANUAL);
    const path = join(dir, 'db.jsonl');
    const lines = range(0, 50);
    appendAll(path, lines);
    const attempts: Array<{ fromOffset: number; toOffset: number }> = [];
    rec.onConsume = (batch) => attempts.push({ fromOffset: batch.fromOffset, toOffset: batch.toOffset });
    rec.failures = 1;
    await look(tailer);
    expect(rec.errors.map((e) => e.error.message)).toEqual(['SQLITE_BUSY: database is locked']);
    expect(rec.deliveries).toEqual([]);

    await look(tailer);
    expect(rec.linesAt(path)).toEqual(lines);
    expect(attempts[1]).toEqual(attempts[0]);
  });

  it('recovers from a failing consumer while lines keep arriving (live)', async () => {
    const { rec } = startTailer();
    const path = join(dir, 'db.jsonl');
    const lines = range(0, 300);
    for (const [i, line] of lines.entries()) {
      if (i === 100 || i === 200) rec.failures = 2;
      appendFileSync(path, `${line}\n`);
      if (i % 5 === 0) await sleep(1);
    }
    await expectText(rec, path, linesText(lines));
    expect(rec.errors.length).toBeGreaterThan(0);
  });
});

describe('FileTailer: progress', () => {
  it('reports followed files, consumed bytes and nothing pending once caught up', async () => {
    const { tailer, rec } = startTailer(MANUAL);
    const text = linesText(range(0, 10));
    writeFileSync(join(dir, 'p.jsonl'), `${text}partial`);
    await look(tailer);
    expect(rec.deliveries).toHaveLength(10);
    expect(tailer.progress()).toEqual({
      files: 1,
      pendingBytes: 'partial'.length,
      consumedBytes: Buffer.byteLength(text),
    });
  });
});
