/**
 * What the tailer asks of a file watcher, and how it classifies paths. Kept
 * apart from both the tailer and the watcher it uses by default
 * (dir-watcher.ts), so each imports this and neither imports the other.
 */

/**
 * How a file name is treated: `follow` reads new files from the start;
 * `continue` reads a file only if it is one we were already following under
 * another name (a transcript renamed to an archive keeps its unread tail);
 * `ignore` never looks at it.
 */
export type FileRole = 'follow' | 'continue' | 'ignore';

export interface Watcher {
  /** Starts watching a root that did not exist when the watcher was made. */
  add(root: string): void;
  close(): Promise<void> | void;
}

export type WatcherFactory = (options: {
  depth: number;
  roleOf(path: string): FileRole;
  /** Whether a directory `level` levels below a root (its children are level 1) is looked into (default: all). */
  looksInto?: DirectoryFilter;
  onPath(path: string): void;
}) => Watcher | null;

/**
 * Which directories below a root hold what is followed. The others are neither listed nor watched: a
 * directory another writer churns (OpenClaw's agent databases beside its transcripts) would otherwise wake the
 * daemon at each of its writes for nothing.
 */
export type DirectoryFilter = (dir: string, level: number) => boolean;
