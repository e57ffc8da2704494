/**
 * Opening a file someone else writes, without ever blocking. A named pipe (FIFO) or a device put where a
 * transcript, the gateway's log or an agent database belongs would block a plain `open()` until a writer came
 * along, and with it the daemon's one thread: its API, its probes and its watchdog. `O_NONBLOCK` makes `open`
 * return at once (it changes nothing for a regular file), and the type is checked on the open descriptor, so a
 * file swapped for a pipe between a look and the open is caught too.
 */
import { closeSync, constants, fstatSync, openSync, type Stats } from 'node:fs';

/** Windows has no O_NONBLOCK (and no FIFOs in the file system). */
const NONBLOCK = constants.O_NONBLOCK ?? 0;

export class NotRegularFileError extends Error {
  constructor(
    readonly path: string,
    readonly what: string,
  ) {
    super(`${what}, not a regular file: skipped (only regular files are read)`);
    this.name = 'NotRegularFileError';
  }
}

/** Opens `path` for reading; throws `NotRegularFileError` for anything but a regular file (and fs errors as they come). */
export function openRegularFile(path: string): { fd: number; stats: Stats } {
  const fd = openSync(path, constants.O_RDONLY | NONBLOCK);
  try {
    const stats = fstatSync(fd);
    if (!stats.isFile()) throw new NotRegularFileError(path, kindOf(stats));
    return { fd, stats };
  } catch (error) {
    closeSync(fd);
    throw error;
  }
}

function kindOf(stats: Stats): string {
  if (stats.isFIFO()) return 'a named pipe';
  if (stats.isDirectory()) return 'a directory';
  if (stats.isSocket()) return 'a socket';
  if (stats.isCharacterDevice() || stats.isBlockDevice()) return 'a device';
  return 'something else';
}
