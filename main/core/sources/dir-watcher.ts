/**
 * The tailer's file watcher: one `fs.watch` per directory, down to the
 * configured depth, reporting the path of every entry that changes. It is only
 * there to make the tailer fast; completeness comes from the tailer's follow-ups
 * and reconcile tick, so an event missed, merged or unnamed costs latency,
 * never a line.
 *
 * Kept this lean because a busy gateway appends thousands of lines a second and
 * every append is an event: a general-purpose watcher that stats, throttles and
 * normalises each one (chokidar, measured) cost the daemon more CPU under load
 * than parsing the lines did. Here an event in a followed directory is a path
 * join and a set insertion; only events at the levels above the files (a new
 * agent, a new sessions directory) look at the file system.
 */
import { type Dirent, type FSWatcher, readdirSync, statSync, watch } from 'node:fs';
import { join } from 'node:path';
import type { DirectoryFilter, Watcher, WatcherFactory } from './watcher.js';

export const directoryWatcher: WatcherFactory = ({ depth, looksInto, onPath }) =>
  new DirectoryWatcher(depth, onPath, looksInto ?? (() => true));

class DirectoryWatcher implements Watcher {
  private readonly watched = new Map<string, FSWatcher>();
  private closed = false;

  constructor(
    private readonly depth: number,
    private readonly onPath: (path: string) => void,
    private readonly looksInto: DirectoryFilter,
  ) {}

  add(root: string): void {
    this.watchDirectory(root, 0, false);
  }

  close(): void {
    this.closed = true;
    for (const watcher of this.watched.values()) watcher.close();
    this.watched.clear();
  }

  /** Watches `dir` and the directories below it; `announce` reports the files already there (a new directory). */
  private watchDirectory(dir: string, level: number, announce: boolean): void {
    if (this.closed || this.watched.has(dir)) return;
    let watcher: FSWatcher;
    try {
      watcher = watch(dir, { persistent: true }, (event, name) => this.changed(dir, level, event, name));
    } catch {
      return; // gone already, or not readable: the reconcile tick keeps looking
    }
    // A directory deleted under the watcher, too many watches (EMFILE): only speed is lost.
    watcher.on('error', () => this.unwatch(dir));
    this.watched.set(dir, watcher);
    let entries: Dirent[];
    try {
      entries = readdirSync(dir, { withFileTypes: true });
    } catch {
      return;
    }
    for (const entry of entries) {
      const path = join(dir, entry.name);
      if (entry.isDirectory()) {
        if (level < this.depth && this.looksInto(path, level + 1)) this.watchDirectory(path, level + 1, announce);
      } else if (announce) {
        this.onPath(path);
      }
    }
  }

  private changed(dir: string, level: number, event: string, name: string | null): void {
    // Some platforms do not always name the entry: the reconcile tick covers it.
    if (name === null || this.closed) return;
    const path = join(dir, name);
    if (level < this.depth && event === 'rename') {
      // Above the files, an entry appeared, went, or was replaced (a directory deleted and made again may
      // even get its old inode back): whatever was watched there is watched afresh.
      this.unwatch(path);
      if (isDirectory(path)) {
        if (this.looksInto(path, level + 1)) this.watchDirectory(path, level + 1, true);
        return;
      }
    }
    this.onPath(path);
  }

  /** Stops watching `dir` and everything below it. */
  private unwatch(dir: string): void {
    for (const [path, watcher] of this.watched) {
      if (path === dir || path.startsWith(`${dir}/`) || path.startsWith(`${dir}\\`)) {
        watcher.close();
        this.watched.delete(path);
      }
    }
  }
}

export function isDirectory(path: string): boolean {
  try {
    return statSync(path).isDirectory();
  } catch {
    return false;
  }
}
