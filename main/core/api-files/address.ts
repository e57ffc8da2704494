/**
 * Where a running BreakerBar's local API listens, written next to its database
 * (`<dataDir>/api-url`) so the CLI, the tray app and the doctor find an
 * instance started with `--port 0` or a non-default port. The lock says
 * whether an instance runs; this file says where to reach it.
 */
import { chmodSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

export const API_URL_FILE = 'api-url';

export function writeApiUrl(dataDir: string, url: string): void {
  const path = join(dataDir, API_URL_FILE);
  const temporary = `${path}.${process.pid}.tmp`;
  writeFileSync(temporary, `${url}\n`, { mode: 0o600 });
  // The mode above passes through the umask; this one does not.
  chmodSync(temporary, 0o600);
  renameSync(temporary, path);
}

/**
 * The URL written by a running instance, or null when there is none (or it is not an http origin). It may
 * name a network address (`server.allowNonLoopback`): the clients send the token to loopback only
 * (core/api-files/loopback.ts).
 */
export function readApiUrl(dataDir: string): string | null {
  let text: string;
  try {
    text = readFileSync(join(dataDir, API_URL_FILE), 'utf8').trim();
  } catch {
    return null;
  }
  return /^http:\/\/[^\s/]+$/.test(text) ? text : null;
}

/** Removes the file if it still names `url` (a newer instance may have replaced it). */
export function removeApiUrl(dataDir: string, url: string): void {
  if (readApiUrl(dataDir) === url) rmSync(join(dataDir, API_URL_FILE), { force: true });
}
