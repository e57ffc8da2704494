/**
 * The heartbeat: each push monitor's format (pure), and the pusher against real receivers on
 * loopback: one push in flight at most, a hung receiver costs one timeout, failures are logged once.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { headline, headlineText } from '../../../main/api/headline.js';
import { headlineSaying } from '../../../main/api/root/heartbeat.js';
import type { ApiStatus } from '../../../main/api/types.js';
import { defaultsOf } from '../../../main/core/config/schema.js';
import {
  type HeartbeatConfig,
  type HeartbeatSettings,
  heartbeatConfig,
  heartbeatSettings,
} from '../../../main/core/notify/config.js';
import { Heartbeat, type HeartbeatRecord } from '../../../main/core/notify/heartbeat.js';
import { formatHeartbeat } from '../../../main/core/notify/heartbeat-format.js';
import { META_HEARTBEAT, parseHeartbeatMeta } from '../../../main/core/notify/heartbeat-result.js';
import { translator } from '../../../main/words/messages/index.js';
import { FakeBackend, recordingLogger } from '../../helpers/fake-backend.js';
import { type Receiver, type Responder, startReceiver } from './receiver.js';

const T0 = Date.UTC(2026, 11, 1, 10);
const receivers: Receiver[] = [];
const beats: Heartbeat[] = [];

afterEach(async () => {
  await Promise.all(beats.splice(0).map((b) => b.stop()));
  await Promise.all(receivers.splice(0).map((r) => r.close()));
});

async function receiver(respond?: Responder): Promise<Receiver> {
  const r = await startReceiver(respond);
  receivers.push(r);
  return r;
}

/** The heartbeat's settings as a config file with `heartbeat.url` set (and `extra`) gives them. */
function config(url: string, extra: Partial<HeartbeatConfig> = {}): HeartbeatSettings {
  const settings = heartbeatSettings({ ...defaultsOf(heartbeatConfig), ...extra, url });
  if (settings === null) throw new Error('a heartbeat with a URL is on');
  return settings;
}

describe('formatHeartbeat', () => {
  const push = { status: 'ok' as const, headline: 'All well · 3 dependencies answering', ts: T0 };

  it('generic: POST with a JSON body, or a bare GET', () => {
    const post = formatHeartbeat(config('https://mon.example/p/TOKEN'), push);
    expect(post).toMatchObject({ url: 'https://mon.example/p/TOKEN', method: 'POST' });
    expect(JSON.parse(post.body ?? '')).toEqual({
      status: 'ok',
      headline: push.headline,
      ts: new Date(T0).toISOString(),
    });
    expect(formatHeartbeat(config('https://mon.example/p/TOKEN', { method: 'GET' }), push)).toEqual({
      url: 'https://mon.example/p/TOKEN',
      method: 'GET',
      headers: {},
      body: null,
    });
  });

  it('healthchecks: the ping URL, and /fail when critical', () => {
    const hc = config('https://hc-ping.com/5e1f-uuid/', { kind: 'healthchecks' });
    expect(formatHeartbeat(hc, push).url).toBe('https://hc-ping.com/5e1f-uuid/');
    expect(formatHeartbeat(hc, { ...push, status: 'warning' }).url).toBe('https://hc-ping.com/5e1f-uuid/');
    expect(formatHeartbeat(hc, { ...push, status: 'critical' }).url).toBe('https://hc-ping.com/5e1f-uuid/fail');
  });

  it('uptime-kuma: status, msg and ping in the query', () => {
    const kuma = config('https://kuma.example/api/push/AbC?status=up&msg=OK&ping=', {
      kind: 'uptime-kuma',
      method: 'GET',
    });
    const up = new URL(formatHeartbeat(kuma, { ...push, pingMs: 23.4 }).url);
    expect(up.pathname).toBe('/api/push/AbC');
    expect(Object.fromEntries(up.searchParams)).toEqual({ status: 'up', msg: push.headline, ping: '23' });
    const down = new URL(formatHeartbeat(kuma, { ...push, status: 'critical', headline: 'Gateway down' }).url);
    expect(Object.fromEntries(down.searchParams)).toEqual({ status: 'down', msg: 'Gateway down', ping: '' });
    const long = new URL(formatHeartbeat(kuma, { ...push, headline: 'x'.repeat(400) }).url);
    expect(long.searchParams.get('msg')?.length).toBe(250);
  });
});

function heartbeat(cfg: HeartbeatSettings, status: () => ApiStatus = () => new FakeBackend().status()) {
  const records: HeartbeatRecord[] = [];
  const meta = new Map<string, string>();
  const log = recordingLogger();
  const beat = new Heartbeat({
    config: cfg,
    say: headlineSaying(status, translator('en')),
    clock: () => T0,
    log,
    record: (row) => records.push(row),
    setMeta: (key, value) => meta.set(key, value),
  });
  beats.push(beat);
  return { beat, records, meta, log };
}

describe('Heartbeat', () => {
  it('pushes the headline of the status, and keeps the last push for the doctor', async () => {
    const r = await receiver();
    const status = new FakeBackend().status();
    const h = heartbeat(config(`${r.base}/ping/SECRET`), () => status);
    const result = await h.beat.push();
    expect(result).toMatchObject({ ok: true, httpStatus: 200 });
    const body = JSON.parse(r.requests[0]?.body ?? '{}');
    const line = headline(status, T0);
    expect(body).toEqual({
      status: line.tone,
      headline: headlineText(line, translator('en')),
      ts: new Date(T0).toISOString(),
    });
    expect(parseHeartbeatMeta(h.meta.get(META_HEARTBEAT))).toMatchObject({ ok: true, ts: T0 });
    expect(h.records).toHaveLength(1);
    // The same outcome again is not another history row.
    await h.beat.push();
    expect(h.records).toHaveLength(1);
  });

  it('one push in flight at most: a hung receiver costs one timeout, the pushes meanwhile are skipped', async () => {
    const hung = await receiver(() => 'hang');
    const h = heartbeat(config(`${hung.base}/ping/SECRETTOKEN`, { timeoutSec: 1 }));
    const first = h.beat.push();
    expect(first).not.toBeNull();
    // Due while the first hangs: skipped, not queued.
    expect(h.beat.push()).toBeNull();
    expect(h.beat.push()).toBeNull();
    expect(h.beat.skipped()).toBe(2);
    const result = await first;
    expect(result).toMatchObject({ ok: false, error: `${hung.base}/…: timed out after 1 s` });
    expect(hung.requests).toHaveLength(1);
    // Free again once it has timed out; the same failure is said at warn once, then at debug.
    await h.beat.push();
    expect(hung.requests.length).toBeGreaterThanOrEqual(1);
    const warnings = h.log.lines.filter((l) => l.msg === 'heartbeat failed');
    expect(warnings.map((l) => l.level)).toEqual(['warn', 'debug']);
    expect(h.log.text()).not.toContain('SECRETTOKEN');
    expect(h.records.map((r) => [r.channel, r.ok])).toEqual([['heartbeat', false]]);
  }, 10_000);

  it('an HTTP error is a failure; a success after it is recorded again', async () => {
    let status = 503;
    const r = await receiver(() => ({ status }));
    const h = heartbeat(config(`${r.base}/p`, { kind: 'healthchecks' }));
    expect(await h.beat.push()).toMatchObject({ ok: false, httpStatus: 503, error: `${r.base}/…: HTTP 503` });
    status = 200;
    expect(await h.beat.push()).toMatchObject({ ok: true });
    expect(h.records.map((x) => x.ok)).toEqual([false, true]);
  });

  it('a redirect to another host is a failure, never followed', async () => {
    const elsewhere = await receiver();
    const port = new URL(elsewhere.base).port;
    const r = await receiver(() => ({ status: 307, headers: { location: `http://localhost:${port}/steal` } }));
    const h = heartbeat(config(`${r.base}/ping/SECRET`));
    expect(await h.beat.push()).toMatchObject({
      ok: false,
      httpStatus: 307,
      error: `${r.base}/…: HTTP 307 redirect to another host (localhost:${port}), not followed: set that URL if it is right`,
    });
    expect(elsewhere.requests).toEqual([]);
  });

  it('a refused connection is a failure with a redacted error, and never a throw', async () => {
    const r = await receiver();
    const url = `${r.base}/p/SECRETTOKEN`;
    await r.close();
    receivers.splice(receivers.indexOf(r), 1);
    const h = heartbeat(config(url));
    const result = await h.beat.push();
    expect(result?.ok).toBe(false);
    expect(result?.error).toContain(`${r.base}/…`);
    expect(result?.error).not.toContain('SECRETTOKEN');
  });
});
