/**
 * The tailer's lean directory watcher: what it reports, including directories
 * that appear after it started (a new agent, a new sessions directory).
 */
import { appendFileSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { directoryWatcher } from '../../../main/core/sources/dir-watcher.js';
import type { Watcher } from '../../../main/core/sources/watcher.js';
import { until } from '../../helpers/transcripts.js';

let root: string;
let watcher: Watcher | null;
let seen: string[];

beforeEach(() => {
  root = mkdtempSync(join(tmpdir(), 'bb-dirwatch-'));
  seen = [];
  watcher = null;
});

afterEach(async () => {
  await watcher?.close();
  rmSync(root, { recursive: true, force: true });
});

function start(depth = 2, looksInto?: (dir: string, level: number) => boolean): Watcher {
  const made = directoryWatcher({ depth, looksInto, roleOf: () => 'follow', onPath: (path) => seen.push(path) });
  if (!made) throw new Error('no watcher');
  watcher = made;
  made.add(root);
  return made;
}

describe('directoryWatcher', () => {
  it('reports appends to files in directories that existed at start', async () => {
    const sessions = join(root, 'main', 'sessions');
    mkdirSync(sessions, { recursive: true });
    const file = join(sessions, 'a.jsonl');
    writeFileSync(file, 'first\n');
    start();
    appendFileSync(file, 'second\n');
    await until(() => seen.includes(file), 5000, 'the append to be reported');
  });

  it('watches directories created after start and reports the files already in them', async () => {
    start();
    const sessions = join(root, 'coder', 'sessions');
    mkdirSync(sessions, { recursive: true });
    const early = join(sessions, 'early.jsonl');
    writeFileSync(early, 'x\n');
    // Whether the file came before or after the watch on its directory, it is reported.
    await until(() => seen.includes(early), 5000, 'the file in the new directory');
    // Reported means its directory is watched (the watch comes before the look inside it), so a
    // file created right after is reported too.
    const later = join(sessions, 'later.jsonl');
    writeFileSync(later, 'y\n');
    await until(() => seen.includes(later), 5000, 'a file created later in it');
  });

  it('does not look below its depth, and survives a watched directory being deleted', async () => {
    const deep = join(root, 'a', 'sessions', 'too-deep');
    mkdirSync(deep, { recursive: true });
    start();
    writeFileSync(join(deep, 'x.jsonl'), 'x\n');
    const sessions = join(root, 'a', 'sessions');
    rmSync(join(root, 'a'), { recursive: true, force: true });
    mkdirSync(sessions, { recursive: true });
    const back = join(sessions, 'back.jsonl');
    writeFileSync(back, 'z\n');
    await until(() => seen.includes(back), 5000, 'a file in the re-created directory');
    expect(seen).not.toContain(join(deep, 'x.jsonl'));
  });

  it('neither watches nor reports a directory it is told not to look into, there at start or made later', async () => {
    const onlySessions = (dir: string, level: number) => level < 2 || dir.endsWith('sessions');
    mkdirSync(join(root, 'main', 'agent'), { recursive: true });
    mkdirSync(join(root, 'main', 'sessions'), { recursive: true });
    start(2, onlySessions);
    const skipped = [join(root, 'main', 'agent', 'db.sqlite-wal'), join(root, 'ops', 'agent', 'db.sqlite-wal')];
    mkdirSync(join(root, 'ops', 'agent'), { recursive: true });
    mkdirSync(join(root, 'ops', 'sessions'), { recursive: true });
    for (const path of skipped) writeFileSync(path, 'x');
    // Every watch's events come through one queue, in the order they happened, and these are written after
    // the skipped ones: once they are reported, a report of the skipped ones would have come first.
    const followed = [join(root, 'main', 'sessions', 'a.jsonl'), join(root, 'ops', 'sessions', 'b.jsonl')];
    for (const path of followed) writeFileSync(path, 'y\n');
    await until(() => followed.every((path) => seen.includes(path)), 5000, 'the sessions files');
    for (const path of skipped) expect(seen).not.toContain(path);
  });
});
