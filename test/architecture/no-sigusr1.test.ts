/**
 * OpenClaw 2026.10+ opens its debugger on SIGUSR1 (SIGUSR2 restarts it in process): BreakerBar must never send
 * SIGUSR1. Only reading the older gateways' log line that names it is allowed.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
/** Where SIGUSR1 may appear: the gateway log's restart line of OpenClaw 2026.7, read, never sent. */
const READ_ONLY = new Set(['main/core/sources/gateway-log-record.ts']);

function sources(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return sources(path);
    return /\.(?:ts|cts|mts|js)$/.test(entry.name) ? [path] : [];
  });
}

describe('signals', () => {
  it('no code sends SIGUSR1 to the gateway', () => {
    const offenders = ['main', 'preload', 'renderer']
      .flatMap((dir) => sources(join(ROOT, dir)))
      .map((path) => relative(ROOT, path))
      .filter((path) => !READ_ONLY.has(path) && readFileSync(join(ROOT, path), 'utf8').includes('SIGUSR1'));
    expect(offenders).toEqual([]);
  });
});
