/**
 * Small read-only filesystem helpers shared by the checks: errno codes, sizes,
 * permission hints, and looking programs up on a PATH.
 */

import { accessSync, constants, type Stats, statSync } from 'node:fs';
import { userInfo } from 'node:os';
import { delimiter, join } from 'node:path';
import type { Message } from '../../words/messages/index.js';

export function errnoCode(error: unknown): string | undefined {
  return (error as NodeJS.ErrnoException | null)?.code;
}

export function isPermissionError(error: unknown): boolean {
  const code = errnoCode(error);
  return code === 'EACCES' || code === 'EPERM';
}

/** `stat`, or the error code it failed with. */
export function statOrCode(path: string): { stats: Stats } | { code: string } {
  try {
    return { stats: statSync(path) };
  } catch (error) {
    return { code: errnoCode(error) ?? 'EUNKNOWN' };
  }
}

/** Who BreakerBar runs as, for permission hints. */
export function currentUser(): string {
  try {
    return userInfo().username;
  } catch {
    return typeof process.getuid === 'function' ? `uid ${process.getuid()}` : 'this user';
  }
}

/** The fix for a file or directory BreakerBar may not read. */
/** The same fix as a catalogue message, for a finding worded in the reader's language. */
export function permissionFixMessage(path: string): Message<'doctor.fs.permissionFix'> {
  return { key: 'doctor.fs.permissionFix', params: { user: currentUser(), path } };
}

export function permissionFix(path: string): string {
  return `BreakerBar runs as ${currentUser()}: run it as the user that runs the gateway, or give that user read access to ${path} (see \`ls -ld ${path}\`; e.g. chmod or a shared group)`;
}

export function humanSize(bytes: number): string {
  if (bytes < 1024) return `${bytes} B`;
  if (bytes < 1024 * 1024) return `${(bytes / 1024).toFixed(1)} KB`;
  if (bytes < 1024 * 1024 * 1024) return `${(bytes / 1024 / 1024).toFixed(1)} MB`;
  return `${(bytes / 1024 / 1024 / 1024).toFixed(1)} GB`;
}

export function isExecutableFile(path: string): boolean {
  try {
    if (!statSync(path).isFile()) return false;
    accessSync(path, constants.X_OK);
    return true;
  } catch {
    return false;
  }
}

/** The first executable `name` in the directories of `pathValue` (empty entries skipped), or null. */
export function findOnPath(
  name: string,
  pathValue: string | undefined,
  extraDirs: readonly string[] = [],
): string | null {
  const dirs = [...extraDirs, ...(pathValue ?? '').split(delimiter)].filter((dir) => dir !== '');
  for (const dir of dirs) {
    const candidate = join(dir, name);
    if (isExecutableFile(candidate)) return candidate;
  }
  return null;
}

/** Set-but-blank counts as unset, as everywhere in BreakerBar. */
export function envValue(env: NodeJS.ProcessEnv, name: string): string | undefined {
  const value = env[name];
  return value === undefined || value.trim() === '' ? undefined : value;
}
