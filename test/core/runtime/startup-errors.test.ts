/** Rule: a start-up failure from the machine reads as its cause and what to do, never as a guess. */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { explainStartupError } from '../../../main/core/runtime/startup-errors.js';
import { hangupAction, runsAsService, SERVICE_ENV } from '../../../main/core/service-managers/run-mode.js';

let tmp: string;
beforeEach(() => {
  tmp = mkdtempSync(join(tmpdir(), 'breakerbar-startup-'));
});
afterEach(() => {
  rmSync(tmp, { recursive: true, force: true });
});

const places = () => ({ dataDir: tmp, dbPath: join(tmp, 'breakerbar.sqlite'), address: '127.0.0.1:18820' });

/** What a Node system call throws: message, code, syscall, maybe a path. */
function systemError(code: string, syscall: string, path?: string): NodeJS.ErrnoException {
  return Object.assign(new Error(`${code}: ${syscall}`), { code, syscall, ...(path ? { path } : {}) });
}

describe('start-up errors', () => {
  it('a port in use, found through the wrapping error, with the hint', async () => {
    const first = createServer();
    await new Promise<void>((resolve) => first.listen(0, '127.0.0.1', resolve));
    const port = (first.address() as { port: number }).port;
    const second = createServer();
    const error = await new Promise<Error>((resolve) => {
      second.once('error', resolve);
      second.listen(port, '127.0.0.1');
    });
    first.close();
    const wrapped = new Error('cannot start the API server', { cause: error });
    expect(explainStartupError(wrapped, places())).toBe(
      'cannot start the API server on 127.0.0.1:18820: the port is already in use (another BreakerBar? set server.port, or --port)',
    );
  });

  it('permission: on a port, and on a file', () => {
    expect(explainStartupError(systemError('EACCES', 'listen'), places())).toContain(
      'ports below 1024 need privileges',
    );
    const file = join(tmp, 'api-token');
    expect(explainStartupError(systemError('EACCES', 'open', file), places())).toBe(
      `permission denied on ${file}: run BreakerBar as the user who owns ${tmp}, or set dataDir`,
    );
  });

  it('a full disk, also over quota, naming the path or else the data directory', () => {
    const full = (() => {
      try {
        writeFileSync('/dev/full', 'x');
      } catch (error) {
        return error;
      }
      return systemError('ENOSPC', 'write');
    })();
    expect(explainStartupError(full, places())).toBe(
      `the disk holding ${tmp} is full (ENOSPC): free some space there, or set dataDir to another disk`,
    );
    expect(explainStartupError(systemError('EDQUOT', 'write', '/x/y'), places())).toContain(
      'the disk holding /x/y is full (EDQUOT)',
    );
  });

  it('database problems name the database', () => {
    const path = join(tmp, 'ro.sqlite');
    new Database(path).exec('CREATE TABLE t (x)');
    const readonly = new Database(path, { readonly: true });
    let error: unknown;
    try {
      readonly.exec('INSERT INTO t VALUES (1)');
    } catch (caught) {
      error = caught;
    } finally {
      readonly.close();
    }
    const { dbPath } = places();
    expect(explainStartupError(new Error('cannot use database', { cause: error }), places())).toMatch(
      new RegExp(`^the database ${dbPath} is read-only \\(SQLITE_READONLY`),
    );
    const full = Object.assign(new Error('database or disk is full'), { code: 'SQLITE_FULL' });
    expect(explainStartupError(full, places())).toContain(`the database ${dbPath} cannot grow`);
    const notDb = Object.assign(new Error('file is not a database'), { code: 'SQLITE_NOTADB' });
    expect(explainStartupError(notDb, places())).toContain('damaged or not a BreakerBar database');
  });

  it('anything else is left to its own message', () => {
    expect(explainStartupError(new Error('refusing to listen on 0.0.0.0'), places())).toBeNull();
    expect(explainStartupError(systemError('EBADF', 'read'), places())).toBeNull();
    expect(explainStartupError('text', places())).toBeNull();
    const loop: { cause?: unknown } = {};
    loop.cause = loop;
    expect(explainStartupError(loop, places())).toBeNull();
  });
});

describe('run mode', () => {
  it('SIGHUP stops a daemon from a terminal and reloads one run as a service', () => {
    expect(hangupAction({})).toBe('stop');
    // The service manager's own variables are inherited by terminals it starts: not a mark.
    expect(hangupAction({ INVOCATION_ID: 'abc', XPC_SERVICE_NAME: 'x' })).toBe('stop');
    expect(hangupAction({ [SERVICE_ENV]: '1' })).toBe('reload');
    expect(runsAsService({ [SERVICE_ENV]: '0' })).toBe(false);
  });
});
