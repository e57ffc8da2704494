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
  onPath(path: string): void;
}) => Watcher | null;
