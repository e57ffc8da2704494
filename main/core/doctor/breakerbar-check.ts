/**
 * Check 7: BreakerBar itself — its version, data directory and database, and
 * whether a daemon runs for that data directory and answers on its API.
 *
 * Whether a daemon runs is asked of its lock without taking it: the lock is an
 * exclusive SQLite lock on `<dataDir>/breakerbar.lock`, so a read-only read of
 * that file fails with SQLITE_BUSY exactly while a daemon holds it. (lock.ts's
 * isLocked takes the lock briefly and creates the lock file, which the doctor
 * must not do.) Nothing is created when the file is missing: no daemon has run.
 */
import { existsSync, statSync } from 'node:fs';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import type { LoadedConfig } from '../config/index.js';
import { httpGet } from '../gateway/probe.js';
import { lockOwner } from '../lock.js';
import { API_URL_FILE, readApiUrl } from '../server/api-address.js';
import { version } from '../version.js';
import { humanSize, permissionFix, statOrCode } from './fs-util.js';
import type { ProbeTimeouts } from './gateway-check.js';
import { type Finding, finding } from './types.js';

export type DaemonState =
  | { running: true; pid: number | null }
  | { running: false }
  | { running: 'unknown'; reason: string };

/** Whether a BreakerBar daemon holds the lock of `dataDir`, without taking it or creating anything. */
export function daemonState(dataDir: string): DaemonState {
  const path = join(dataDir, 'breakerbar.lock');
  if (!existsSync(path)) return { running: false };
  let db: Database.Database;
  try {
    db = new Database(path, { readonly: true, fileMustExist: true });
  } catch (error) {
    return { running: 'unknown', reason: `cannot open ${path}: ${(error as Error).message}` };
  }
  try {
    db.pragma('busy_timeout = 0');
    db.prepare('SELECT pid FROM owner LIMIT 1').all();
    return { running: false };
  } catch (error) {
    const code = (error as { code?: string }).code ?? '';
    if (code.startsWith('SQLITE_BUSY') || code.startsWith('SQLITE_LOCKED')) {
      return { running: true, pid: lockOwner(dataDir) };
    }
    // A lock file without its table: a daemon died before finishing it; nobody holds it.
    if (/no such table/i.test((error as Error).message)) return { running: false };
    return { running: 'unknown', reason: `cannot read ${path}: ${(error as Error).message}` };
  } finally {
    db.close();
  }
}

/** `http://<server.host>:<server.port>` as a client reaches it (wildcard hosts through loopback). */
export function configuredApiUrl(loaded: LoadedConfig): string | null {
  const { host, port } = loaded.config.server;
  if (port === 0) return null;
  const reach = host === '0.0.0.0' ? '127.0.0.1' : host === '::' ? '::1' : host;
  return `http://${reach.includes(':') ? `[${reach}]` : reach}:${port}`;
}

export async function checkBreakerbar(loaded: LoadedConfig, timeouts: ProbeTimeouts): Promise<Finding[]> {
  const findings: Finding[] = [
    finding('breakerbar', 'info', `BreakerBar ${version()} on Node ${process.version} (${process.platform})`),
  ];
  const { dataDir, dbPath } = loaded;

  const dir = statOrCode(dataDir);
  if ('code' in dir) {
    if (dir.code === 'ENOENT') {
      findings.push(
        finding(
          'breakerbar',
          'info',
          `no data directory yet (${dataDir})`,
          'the daemon creates it, with its database, on its first start',
          'start it: `breakerbar daemon`, or `breakerbar service install` to run it in the background',
        ),
      );
      return findings;
    }
    findings.push(
      finding(
        'breakerbar',
        'error',
        `cannot use the data directory ${dataDir} (${dir.code})`,
        undefined,
        dir.code === 'EACCES' || dir.code === 'EPERM'
          ? permissionFix(dataDir)
          : 'set dataDir to a directory BreakerBar can write',
      ),
    );
    return findings;
  }
  if (existsSync(dbPath)) {
    findings.push(finding('breakerbar', 'ok', `database ${dbPath}`, humanSize(statSync(dbPath).size)));
  } else {
    findings.push(
      finding(
        'breakerbar',
        'info',
        `no database yet (${dbPath})`,
        'the daemon creates it on its first start',
        'start it: `breakerbar daemon`, or `breakerbar service install`',
      ),
    );
  }

  const state = daemonState(dataDir);
  if (state.running === 'unknown') {
    findings.push(finding('breakerbar', 'warn', 'cannot tell whether a daemon is running', state.reason));
    return findings;
  }
  if (!state.running) {
    findings.push(
      finding(
        'breakerbar',
        'info',
        `no BreakerBar daemon running for ${dataDir}`,
        existsSync(join(dataDir, API_URL_FILE)) ? `${API_URL_FILE} is left from an earlier run` : undefined,
        'start it: `breakerbar daemon`, or `breakerbar service install` to run it in the background',
      ),
    );
    return findings;
  }

  findings.push(
    finding('breakerbar', 'ok', `daemon running${state.pid !== null ? ` (pid ${state.pid})` : ''}`, `for ${dataDir}`),
  );
  const written = readApiUrl(dataDir);
  const url = written ?? configuredApiUrl(loaded);
  if (url === null) {
    findings.push(
      finding(
        'breakerbar',
        'warn',
        'the daemon API address is unknown',
        `server.port is 0 (chosen at start) and the daemon wrote no ${API_URL_FILE}`,
        'set server.port to a fixed port, or upgrade the running daemon',
      ),
    );
    return findings;
  }
  const answer = await httpGet(new URL('/healthz', url), timeouts);
  const source = written ? `from ${join(dataDir, API_URL_FILE)}` : 'from server.host and server.port';
  if (answer.kind === 'answered' && answer.status === 200 && isOk(answer.body)) {
    findings.push(
      finding('breakerbar', 'ok', `API answers at ${url}`, `${source}; /healthz in ${Math.round(answer.latencyMs)} ms`),
    );
  } else {
    const what = answer.kind === 'answered' ? `HTTP ${answer.status}` : `${answer.kind}: ${answer.message}`;
    findings.push(
      finding(
        'breakerbar',
        written ? 'error' : 'warn',
        `the daemon's API does not answer at ${url} (${what})`,
        written
          ? `${source}; the daemon runs but its API is unreachable: the tray app and the dashboard cannot reach it`
          : `${source}; a daemon started with --port listens elsewhere`,
        written
          ? "see the daemon's log (`breakerbar service status`), then restart it"
          : 'upgrade the daemon (newer ones write api-url), or check server.port and --port',
      ),
    );
  }
  return findings;
}

function isOk(body: string): boolean {
  try {
    return (JSON.parse(body) as { ok?: unknown }).ok === true;
  } catch {
    return false;
  }
}
