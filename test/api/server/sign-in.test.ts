/**
 * Rule: a browser is signed in without the API token, or a code that leads to it, on any command line. The
 * CLI trades the token for a one-time code and hands the browser a page only the owner can read; the page
 * trades the code (once, within a minute) for a session token, never the API token.
 */
import { randomBytes } from 'node:crypto';
import { chmodSync, mkdirSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';
import { type ApiServer, startApiServer } from '../../../main/api/server/http.js';
import { createSessions, SESSION_TTL_MS } from '../../../main/api/server/sessions.js';
import { createSignInCodes, SIGN_IN_CODE_TTL_MS } from '../../../main/api/server/sign-in.js';
import type { Io } from '../../../main/cli/command.js';
import { SIGN_IN_PAGE } from '../../../main/cli/dashboard.js';
import { main } from '../../../main/cli/main.js';
import { writeApiUrl } from '../../../main/core/api-files/address.js';
import { API_TOKEN_FILE } from '../../../main/core/api-files/token.js';
import { lockDataDir } from '../../../main/core/runtime/lock.js';
import { FakeBackend, type RecordingLogger, recordingLogger } from '../../helpers/fake-backend.js';

const TOKEN = randomBytes(32).toString('hex');
const cleanups: Array<() => Promise<void> | void> = [];

afterEach(async () => {
  while (cleanups.length > 0) await cleanups.pop()!();
});

describe('sign-in codes', () => {
  it('redeems a code once, within its lifetime', () => {
    let now = 1_000_000;
    const codes = createSignInCodes({ clock: () => now });
    const first = codes.issue();
    expect(first.expiresAt).toBe(now + SIGN_IN_CODE_TTL_MS);
    expect(first.code).toMatch(/^[A-Za-z0-9_-]{32}$/);
    expect(codes.redeem(first.code)).toBe(true);
    expect(codes.redeem(first.code)).toBe(false);
    const second = codes.issue();
    now += SIGN_IN_CODE_TTL_MS;
    expect(codes.redeem(second.code)).toBe(false);
    expect(codes.outstanding).toBe(0);
  });

  it('refuses what it never issued, whatever its shape', () => {
    const codes = createSignInCodes();
    codes.issue();
    for (const guess of ['', 'x', 'A'.repeat(32), 42, null, undefined, { code: 'x' }]) {
      expect(codes.redeem(guess)).toBe(false);
    }
  });

  it('issues distinct random codes and keeps only a bounded number unredeemed', () => {
    const codes = createSignInCodes({ clock: () => 0 });
    const issued = Array.from({ length: 40 }, () => codes.issue().code);
    expect(new Set(issued).size).toBe(40);
    expect(codes.outstanding).toBe(16);
    expect(codes.redeem(issued[0])).toBe(false);
    expect(codes.redeem(issued[39])).toBe(true);
  });
});

interface Harness {
  server: ApiServer;
  log: RecordingLogger;
  advance(ms: number): void;
}

async function start(): Promise<Harness> {
  let now = Date.UTC(2026, 0, 15, 12, 0, 0);
  const log = recordingLogger();
  const server = await startApiServer({
    backend: new FakeBackend(),
    port: 0,
    token: TOKEN,
    log,
    version: '9.9.9',
    clock: () => now,
  });
  cleanups.push(() => server.close());
  return {
    server,
    log,
    advance: (ms) => {
      now += ms;
    },
  };
}

const post = (server: ApiServer, path: string, body: unknown, headers: Record<string, string> = {}) =>
  fetch(`${server.url}${path}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...headers },
    body: JSON.stringify(body),
  });

const issue = async (server: ApiServer): Promise<string> => {
  const response = await post(server, '/api/session/code', {}, { authorization: `Bearer ${TOKEN}` });
  expect(response.status).toBe(200);
  return ((await response.json()) as { code: string }).code;
};

describe('POST /api/session/code and POST /api/session', () => {
  it('issues a code only to a holder of the token', async () => {
    const { server } = await start();
    expect((await post(server, '/api/session/code', {})).status).toBe(401);
    expect((await post(server, '/api/session/code', {}, { authorization: `Bearer ${'0'.repeat(64)}` })).status).toBe(
      401,
    );
  });

  it('trades a code for a session token once (never the API token); a used code gets 401 and nothing else', async () => {
    const { server, log } = await start();
    const code = await issue(server);
    const first = await post(server, '/api/session', { code });
    expect(first.status).toBe(200);
    expect(first.headers.get('cache-control')).toBe('no-store');
    const { token: session } = (await first.json()) as { token: string };
    expect(session).toMatch(/^bbs\./);
    expect(session).not.toContain(TOKEN);
    // The session reads and acts like the token, but is told apart from it (see config-confirmation.test.ts).
    const paused = await post(
      server,
      '/api/watchdog/pause',
      { durationSec: 300 },
      { authorization: `Bearer ${session}` },
    );
    expect(paused.status).toBe(200);
    const again = await post(server, '/api/session', { code });
    expect(again.status).toBe(401);
    const body = await again.text();
    expect(body).not.toContain(TOKEN);
    expect(JSON.parse(body)).toEqual({ error: 'sign-in code unknown, used or expired' });
    // Neither the code nor the token reaches the log.
    const logged = JSON.stringify(log.lines);
    expect(logged).not.toContain(code);
    expect(logged).not.toContain(TOKEN);
    expect(logged).not.toContain(session);
  });

  it('refuses a session that is forged, expired or signed by another token', async () => {
    const { server, advance } = await start();
    const { token: session } = (await (await post(server, '/api/session', { code: await issue(server) })).json()) as {
      token: string;
    };
    const pause = (credential: string) =>
      post(server, '/api/watchdog/pause', { durationSec: 300 }, { authorization: `Bearer ${credential}` });
    const tampered = `${session.slice(0, -2)}${session.endsWith('AA') ? 'BB' : 'AA'}`;
    expect((await pause(tampered)).status).toBe(401);
    const foreign = createSessions(randomBytes(32).toString('hex'), { clock: () => Date.UTC(2026, 0, 15, 12) });
    expect((await pause(foreign.issue())).status).toBe(401);
    advance(SESSION_TTL_MS);
    expect((await pause(session)).status).toBe(401);
  });

  it('refuses an expired code', async () => {
    const { server, advance } = await start();
    const code = await issue(server);
    advance(SIGN_IN_CODE_TTL_MS);
    expect((await post(server, '/api/session', { code })).status).toBe(401);
  });

  it('keeps the gate: JSON only, own origin only, POST only', async () => {
    const { server } = await start();
    const code = await issue(server);
    const form = await fetch(`${server.url}/api/session`, {
      method: 'POST',
      headers: { 'content-type': 'text/plain' },
      body: JSON.stringify({ code }),
    });
    expect(form.status).toBe(415);
    expect((await post(server, '/api/session', { code }, { origin: 'https://evil.example' })).status).toBe(403);
    expect((await fetch(`${server.url}/api/session`)).status).toBe(405);
    expect((await post(server, '/api/session', 'not an object')).status).toBe(401);
    // The refused attempts above did not spend the code.
    expect((await post(server, '/api/session', { code })).status).toBe(200);
  });
});

describe('breakerbar dashboard --open', () => {
  it('opens a page only its owner can read, never the token or the code, and its code signs the page in', async () => {
    const { server } = await start();
    const dir = mkdtempSync(join(tmpdir(), 'breakerbar-dashboard-open-'));
    cleanups.push(() => rmSync(dir, { recursive: true, force: true }));
    const dataDir = join(dir, 'data');
    mkdirSync(dataDir);
    writeFileSync(join(dataDir, API_TOKEN_FILE), `${TOKEN}\n`, { mode: 0o600 });
    writeApiUrl(dataDir, server.url);
    // Held as the running daemon holds it: the CLI sends the token to nothing else.
    const lock = lockDataDir(dataDir);
    cleanups.push(() => lock.release());
    const config = join(dir, 'config.json');
    writeFileSync(config, JSON.stringify({ dataDir, openclawDir: join(dir, 'openclaw') }));
    // A stand-in for the platform's opener: records the arguments it was given, as `ps` would show them.
    const bin = join(dir, 'bin');
    mkdirSync(bin);
    const argsFile = join(dir, 'opener-args');
    for (const name of ['xdg-open', 'open']) {
      writeFileSync(
        join(bin, name),
        `#!/bin/sh\nprintf '%s\\n' "$@" > '${argsFile}.tmp' && mv '${argsFile}.tmp' '${argsFile}'\n`,
      );
      chmodSync(join(bin, name), 0o755);
    }
    const path = process.env.PATH;
    process.env.PATH = `${bin}:${path}`;
    cleanups.push(() => {
      process.env.PATH = path;
    });

    const out: string[] = [];
    const err: string[] = [];
    const io: Io = { out: (text) => out.push(text), err: (text) => err.push(text), isTTY: false };
    expect(await main(['dashboard', '--open', '--config', config], io)).toBe(0);
    expect(out.join('')).not.toContain(TOKEN);

    const deadline = Date.now() + 10_000;
    let opened: string | null = null;
    while (opened === null) {
      try {
        opened = readFileSync(argsFile, 'utf8').trim();
      } catch {
        if (Date.now() > deadline) throw new Error(`the opener was not run; stderr: ${err.join('')}`);
        await new Promise((resolve) => setTimeout(resolve, 20));
      }
    }
    // What `ps` shows: the page's path, nothing that signs anyone in.
    const page = join(dataDir, SIGN_IN_PAGE);
    expect(opened).toBe(pathToFileURL(page).href);
    expect(statSync(page).mode & 0o777).toBe(0o600);
    const html = readFileSync(page, 'utf8');
    expect(html).not.toContain(TOKEN);
    const match = /content="0;url=(http:\/\/127\.0\.0\.1:\d+)\/#code=([A-Za-z0-9_-]{32})"/.exec(html);
    expect(match?.[1]).toBe(server.url);
    expect(opened).not.toContain(match![2]);
    const exchanged = await post(server, '/api/session', { code: match![2] });
    const { token: session } = (await exchanged.json()) as { token: string };
    expect(session).toMatch(/^bbs\./);
  });
});
