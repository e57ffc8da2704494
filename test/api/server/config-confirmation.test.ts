/**
 * Rule: a browser (a request with an Origin) cannot save a change to a dangerous setting without the
 * one-time code the daemon sends out of the page's reach (its log, the desktop). The code is bound to
 * that change, works once, for two minutes, and is burnt by three wrong tries; the CLI and the app's
 * main process (no Origin) and harmless changes are saved as before.
 */
import { randomBytes } from 'node:crypto';
import { afterEach, describe, expect, it } from 'vitest';
import {
  CONFIRM_CODE_TTL_MS,
  CONFIRM_ISSUE_LIMIT,
  CONFIRM_ISSUE_WINDOW_MS,
  CONFIRM_WRONG_TRIES,
  createConfigConfirmations,
} from '../../../main/api/server/config-confirmation.js';
import type { ConfirmationDelivery } from '../../../main/api/server/handlers.js';
import { type ApiServer, startApiServer } from '../../../main/api/server/http.js';
import type { ConfigView } from '../../../main/api/types.js';
import { dangerousChanges } from '../../../main/core/config/dangerous-changes.js';
import { FakeBackend, type RecordingLogger, recordingLogger } from '../../helpers/fake-backend.js';

const TOKEN = randomBytes(32).toString('hex');
const cleanups: Array<() => Promise<void> | void> = [];

afterEach(async () => {
  while (cleanups.length > 0) await cleanups.pop()!();
});

const COMMAND = { watchdog: { restartCommand: ['sh', '-c', 'echo pwned'] } };
const OTHER_COMMAND = { watchdog: { restartCommand: ['sh', '-c', 'echo other'] } };

/** Codes 000001, 000002, … so a test knows the next one. */
function counting(): () => string {
  let n = 0;
  return () => String(++n).padStart(6, '0');
}

describe('config confirmations (pure)', () => {
  const change = dangerousChanges({}, COMMAND);

  it('allows a change that touches nothing dangerous without a code', () => {
    const confirmations = createConfigConfirmations({ clock: () => 0, generate: counting() });
    expect(confirmations.decide(dangerousChanges({}, { retention: { days: 3 } }), undefined)).toEqual({
      kind: 'allowed',
    });
  });

  it('issues a code, then allows exactly that change with it, once', () => {
    const now = 1_000;
    const confirmations = createConfigConfirmations({ clock: () => now, generate: counting() });
    expect(confirmations.decide(change, undefined)).toEqual({
      kind: 'issue',
      code: '000001',
      expiresAt: now + CONFIRM_CODE_TTL_MS,
    });
    expect(confirmations.decide(dangerousChanges({}, OTHER_COMMAND), '000001')).toEqual({ kind: 'refused' });
    expect(confirmations.decide(change, '000001')).toEqual({ kind: 'allowed' });
    expect(confirmations.decide(change, '000001')).toEqual({ kind: 'refused' });
  });

  it('refuses an expired code', () => {
    let now = 0;
    const confirmations = createConfigConfirmations({ clock: () => now, generate: counting() });
    confirmations.decide(change, undefined);
    now += CONFIRM_CODE_TTL_MS;
    expect(confirmations.decide(change, '000001')).toEqual({ kind: 'refused' });
  });

  it('burns a code after its wrong tries', () => {
    const confirmations = createConfigConfirmations({ clock: () => 0, generate: counting() });
    confirmations.decide(change, undefined);
    for (let i = 0; i < CONFIRM_WRONG_TRIES - 1; i++)
      expect(confirmations.decide(change, '999999').kind).toBe('refused');
    // One try left: the right code still works…
    const spare = createConfigConfirmations({ clock: () => 0, generate: counting() });
    spare.decide(change, undefined);
    for (let i = 0; i < CONFIRM_WRONG_TRIES - 1; i++) spare.decide(change, '999999');
    expect(spare.decide(change, '000001')).toEqual({ kind: 'allowed' });
    // …but not after the last wrong one.
    expect(confirmations.decide(change, 'not a code').kind).toBe('refused');
    expect(confirmations.decide(change, '000001')).toEqual({ kind: 'refused' });
  });

  it('replaces the code of a change asked for again', () => {
    const confirmations = createConfigConfirmations({ clock: () => 0, generate: counting() });
    confirmations.decide(change, undefined);
    confirmations.decide(change, undefined);
    expect(confirmations.decide(change, '000001')).toEqual({ kind: 'refused' });
    expect(confirmations.decide(change, '000002')).toEqual({ kind: 'allowed' });
  });

  it('sends at most a few codes per window', () => {
    let now = 0;
    const confirmations = createConfigConfirmations({ clock: () => now, generate: counting() });
    for (let i = 0; i < CONFIRM_ISSUE_LIMIT; i++) {
      expect(confirmations.decide(change, undefined).kind).toBe('issue');
      now += 1000;
    }
    expect(confirmations.decide(change, undefined)).toEqual({ kind: 'throttled', retryAt: CONFIRM_ISSUE_WINDOW_MS });
    now = CONFIRM_ISSUE_WINDOW_MS + 1;
    expect(confirmations.decide(change, undefined).kind).toBe('issue');
  });
});

/** A backend whose config file is what was saved last. */
class FileBackend extends FakeBackend {
  raw: Record<string, unknown> = {};
  override config(): ConfigView {
    return { ...super.config(), exists: true, raw: this.raw };
  }
  override saveConfig(config: unknown) {
    this.raw = config as Record<string, unknown>;
    return super.saveConfig(config);
  }
}

interface Harness {
  server: ApiServer;
  backend: FileBackend;
  log: RecordingLogger;
  delivered: ConfirmationDelivery[];
  advance(ms: number): void;
}

async function start(): Promise<Harness> {
  let now = Date.UTC(2026, 0, 15, 12, 0, 0);
  const clock = () => now;
  const log = recordingLogger();
  const backend = new FileBackend();
  const delivered: ConfirmationDelivery[] = [];
  const server = await startApiServer({
    backend,
    port: 0,
    token: TOKEN,
    log,
    version: '9.9.9',
    clock,
    confirmations: createConfigConfirmations({ clock, generate: counting() }),
    deliverConfirmation: (delivery) => delivered.push(delivery),
  });
  cleanups.push(() => server.close());
  const advance = (ms: number) => {
    now += ms;
  };
  return { server, backend, log, delivered, advance };
}

/**
 * Saves as a browser page does (its own Origin), as the CLI and the app's main process do (none), or with a
 * browser session's token and no Origin (whoever redeemed a sign-in code, calling from a script).
 */
async function save(
  server: ApiServer,
  body: Record<string, unknown>,
  from: 'browser' | 'cli' | { session: string } = 'browser',
): Promise<{ status: number; json: Record<string, unknown> }> {
  const credential = typeof from === 'object' ? from.session : TOKEN;
  const headers: Record<string, string> = { 'content-type': 'application/json', authorization: `Bearer ${credential}` };
  if (from === 'browser') headers.origin = server.url;
  const response = await fetch(`${server.url}/api/config`, { method: 'POST', headers, body: JSON.stringify(body) });
  return { status: response.status, json: (await response.json()) as Record<string, unknown> };
}

describe('POST /api/config from a browser, with dangerous changes', () => {
  it('refuses without a code (428, the keys named), sends the code out of band, saves with it', async () => {
    const { server, backend, log, delivered } = await start();
    const first = await save(server, { config: COMMAND });
    expect(first.status).toBe(428);
    expect(first.json).toMatchObject({
      param: 'confirmCode',
      confirm: {
        keys: ['watchdog.restartCommand'],
        changes: [{ key: 'watchdog.restartCommand', change: 'added', from: null, to: '"sh" "-c" "echo pwned"' }],
      },
    });
    expect(first.json.error).toEqual(expect.any(String));
    expect(backend.savedConfigs).toEqual([]);
    // The code is nowhere in the answer, but on the desktop channel and in the log.
    expect(delivered).toHaveLength(1);
    const code = delivered[0]!.code;
    expect(code).toBe('000001');
    expect(JSON.stringify(first.json)).not.toContain(code);
    expect(log.text()).toContain(`code ${code}`);

    const confirmed = await save(server, { config: COMMAND, confirmCode: code });
    expect(confirmed.status).toBe(200);
    expect(backend.savedConfigs).toEqual([COMMAND]);
  });

  it('refuses a wrong code, and burns the code after its tries', async () => {
    const { server, backend, delivered } = await start();
    await save(server, { config: COMMAND });
    for (let i = 0; i < CONFIRM_WRONG_TRIES; i++) {
      const wrong = await save(server, { config: COMMAND, confirmCode: '123456' });
      expect(wrong.status).toBe(403);
      expect(wrong.json).toMatchObject({ param: 'confirmCode', confirm: { keys: ['watchdog.restartCommand'] } });
    }
    expect((await save(server, { config: COMMAND, confirmCode: delivered[0]!.code })).status).toBe(403);
    expect(backend.savedConfigs).toEqual([]);
  });

  it('refuses an expired code and a reused one', async () => {
    const { server, backend, delivered, advance } = await start();
    await save(server, { config: COMMAND });
    advance(CONFIRM_CODE_TTL_MS);
    expect((await save(server, { config: COMMAND, confirmCode: delivered[0]!.code })).status).toBe(403);

    await save(server, { config: COMMAND });
    const code = delivered[1]!.code;
    expect((await save(server, { config: COMMAND, confirmCode: code })).status).toBe(200);
    // The same code for the same change again (now a change back to nothing): refused.
    expect((await save(server, { config: {}, confirmCode: code })).status).toBe(403);
    expect(backend.savedConfigs).toEqual([COMMAND]);
  });

  it('refuses a change other than the one the code was sent for', async () => {
    const { server, backend, delivered } = await start();
    await save(server, { config: COMMAND });
    const other = await save(server, { config: OTHER_COMMAND, confirmCode: delivered[0]!.code });
    expect(other.status).toBe(403);
    expect(backend.savedConfigs).toEqual([]);
  });

  it('masks webhook secrets in the answer and the log', async () => {
    const { server, log, delivered } = await start();
    const url = 'https://hooks.slack.com/services/T0/B0/WEBHOOKSECRET';
    const answer = await save(server, { config: { notifications: { webhooks: [{ type: 'slack', url }] } } });
    expect(answer.status).toBe(428);
    expect(answer.json).toMatchObject({
      confirm: { changes: [{ key: 'notifications.webhooks', to: 'slack → https://hooks.slack.com/…' }] },
    });
    expect(JSON.stringify(answer.json)).not.toContain('WEBHOOKSECRET');
    expect(log.text()).not.toContain('WEBHOOKSECRET');
    expect(JSON.stringify(delivered)).not.toContain('WEBHOOKSECRET');
  });

  it('answers an invalid config with 400 before asking for any code', async () => {
    const { server, delivered } = await start();
    const answer = await save(server, { config: { watchdog: { restartCommand: 'not an argv' } } });
    expect(answer.status).toBe(400);
    expect(answer.json.param).toBe('watchdog.restartCommand');
    expect(delivered).toEqual([]);
  });
});

describe('POST /api/config saved directly', () => {
  it('saves a harmless change from a browser without a code', async () => {
    const { server, backend, delivered } = await start();
    const config = { retention: { days: 3 }, server: { port: 18821 } };
    expect((await save(server, { config })).status).toBe(200);
    expect(backend.savedConfigs).toEqual([config]);
    expect(delivered).toEqual([]);
  });

  it('saves a harmless change from a browser that keeps the dangerous values as they are', async () => {
    const { server, backend } = await start();
    expect((await save(server, { config: COMMAND }, 'cli')).status).toBe(200);
    const next = { ...COMMAND, retention: { days: 3 } };
    expect((await save(server, { config: next })).status).toBe(200);
    expect(backend.savedConfigs).toEqual([COMMAND, next]);
  });

  it('a browser session needs the code for a dangerous change, with or without an Origin', async () => {
    const { server, backend, delivered } = await start();
    const post = (path: string, body: unknown, credential: string) =>
      fetch(`${server.url}${path}`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', authorization: `Bearer ${credential}` },
        body: JSON.stringify(body),
      });
    const { code } = (await (await post('/api/session/code', {}, TOKEN)).json()) as { code: string };
    const { token: session } = (await (await post('/api/session', { code }, '')).json()) as { token: string };
    expect(session).not.toBe(TOKEN);
    // A harmless change: saved.
    expect((await save(server, { config: { retention: { days: 3 } } }, { session })).status).toBe(200);
    // A new restart command: not saved (so never run) until the human confirms it.
    const refused = await save(server, { config: COMMAND }, { session });
    expect(refused.status).toBe(428);
    expect(backend.savedConfigs).toEqual([{ retention: { days: 3 } }]);
    const confirmed = await save(server, { config: COMMAND, confirmCode: delivered[0]!.code }, { session });
    expect(confirmed.status).toBe(200);
    // A session cannot pass its access on: no sign-in codes for it.
    expect((await post('/api/session/code', {}, session)).status).toBe(403);
  });

  it('saves a dangerous change without Origin (the CLI, the app’s main process)', async () => {
    const { server, backend, delivered } = await start();
    const config = { ...COMMAND, server: { host: '0.0.0.0', allowNonLoopback: true } };
    expect((await save(server, { config }, 'cli')).status).toBe(200);
    expect(backend.savedConfigs).toEqual([config]);
    expect(delivered).toEqual([]);
  });
});
