/**
 * The dispatcher end to end: real webhook receivers on loopback, a fake
 * desktop, an injected clock. notify() must return at once and one slow
 * channel must never hold up another.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { inMs } from '../../../main/core/config/durations.js';
import { defaultsOf } from '../../../main/core/config/schema.js';
import {
  type WebhookConfig,
  type WebhookSettings,
  type WebhookType,
  webhookConfig,
} from '../../../main/core/notify/config.js';
import type { DesktopChannel } from '../../../main/core/notify/desktop.js';
import type { Notice } from '../../../main/core/notify/notice.js';
import { type DeliveryRecord, Notifier, type NotifierOptions } from '../../../main/core/notify/notifier.js';
import type { sendWebhook } from '../../../main/core/notify/webhook.js';
import { type RecordingLogger, recordingLogger } from '../../helpers/fake-backend.js';
import { type Receiver, type Responder, startReceiver, waitFor } from './receiver.js';

const T0 = Date.UTC(2026, 0, 1, 10, 0, 0);
const receivers: Receiver[] = [];
const notifiers: Notifier[] = [];

afterEach(async () => {
  await Promise.all(notifiers.splice(0).map((n) => n.stop()));
  await Promise.all(receivers.splice(0).map((r) => r.close()));
});

async function receiver(respond?: Responder): Promise<Receiver> {
  const r = await startReceiver(respond);
  receivers.push(r);
  return r;
}

/** A webhook as the notifier takes it from a config file: the schema's defaults, then these. */
function webhook(type: WebhookType, url: string, extra: Partial<WebhookConfig> = {}): WebhookSettings {
  const written: WebhookConfig = { ...defaultsOf(webhookConfig), type, url, events: ['*'], timeoutSec: 5, retries: 0 };
  return inMs(webhookConfig, { ...written, ...extra });
}

interface Harness {
  notifier: Notifier;
  records: DeliveryRecord[];
  emitted: DeliveryRecord[];
  log: RecordingLogger;
  clock: { now: number };
}

function harness(options: Partial<NotifierOptions> = {}): Harness {
  const records: DeliveryRecord[] = [];
  const emitted: DeliveryRecord[] = [];
  const log = recordingLogger();
  const clock = { now: T0 };
  const notifier = new Notifier({
    desktop: null,
    webhooks: [],
    coalesceMs: 0,
    clock: () => clock.now,
    log,
    record: (d) => records.push(d),
    ...options,
  });
  notifier.on('delivered', (d) => emitted.push(d));
  notifiers.push(notifier);
  return { notifier, records, emitted, log, clock };
}

function fakeDesktop(behaviour: 'ok' | 'fail'): DesktopChannel & { sent: Notice[] } {
  const sent: Notice[] = [];
  return {
    sent,
    async send(notice) {
      sent.push(notice);
      if (behaviour === 'fail') {
        throw new Error('desktop notifications unavailable: no D-Bus; install libnotify-bin and run a daemon');
      }
    },
  };
}

const BASE_NOTICE = {
  kind: 'breaker_opened' as const,
  dep: 'zhipu/glm-5.1',
  title: 'Breaker opened for zhipu/glm-5.1',
  body: 'Five 429s in a row; calls are shed for 30 s.',
  ts: T0,
};

/** Answers each service the way it answers a message it accepted. */
const serviceAnswers: Responder = (req) => {
  if (req.path.startsWith('/slack')) return { status: 200, body: 'ok' };
  if (req.path.startsWith('/telegram')) return { status: 200, body: '{"ok":true,"result":{}}' };
  if (req.path.startsWith('/dingtalk')) return { status: 200, body: '{"errcode":0,"errmsg":"ok"}' };
  if (req.path.startsWith('/feishu')) return { status: 200, body: '{"code":0,"msg":"success"}' };
  if (req.path.startsWith('/discord')) return { status: 204 };
  return { status: 200, body: '{}' };
};

describe('Notifier', () => {
  it('delivers one notice to every webhook type in its format, and records each delivery', async () => {
    const r = await receiver(serviceAnswers);
    const webhooks = [
      webhook('generic', `${r.base}/generic/tok`, { secret: 'gen-token' }),
      webhook('slack', `${r.base}/slack/T0/B0/XXX`),
      webhook('discord', `${r.base}/discord/123/abc`),
      webhook('telegram', `${r.base}/telegram/bot1:AA/sendMessage`, { chatId: '-1001' }),
      webhook('feishu', `${r.base}/feishu/open-apis/bot/v2/hook/x`, { secret: 'fs' }),
      webhook('dingtalk', `${r.base}/dingtalk/robot/send?access_token=t`, { secret: 'dt' }),
      webhook('ntfy', `${r.base}/ntfy/breakerbar-topic`, { secret: 'tk_n' }),
    ];
    const h = harness({ webhooks });
    h.notifier.notify({ ...BASE_NOTICE, title: '熔断器已打开' });
    await waitFor(() => h.records.length === 7, 5000, '7 deliveries');
    expect(h.records.every((d) => d.ok && d.error === null)).toBe(true);
    expect(h.records.map((d) => d.channel).sort()).toEqual([
      'webhook:dingtalk#5',
      'webhook:discord#2',
      'webhook:feishu#4',
      'webhook:generic#0',
      'webhook:ntfy#6',
      'webhook:slack#1',
      'webhook:telegram#3',
    ]);
    expect(h.records[0]).toMatchObject({ ts: T0, kind: 'breaker_opened', title: '熔断器已打开' });
    expect(h.emitted).toEqual(h.records);

    const byPrefix = (prefix: string) => {
      const found = r.requests.find((req) => req.path.startsWith(`/${prefix}`));
      if (!found) throw new Error(`no request for ${prefix}`);
      return found;
    };
    const parsed = (prefix: string) => JSON.parse(byPrefix(prefix).body) as Record<string, unknown>;

    expect(parsed('generic')).toEqual({
      source: 'breakerbar',
      kind: 'breaker_opened',
      dep: 'zhipu/glm-5.1',
      title: '熔断器已打开',
      body: BASE_NOTICE.body,
      severity: 'warning',
      ts: new Date(T0).toISOString(),
      count: 1,
      language: 'en',
    });
    expect(byPrefix('generic').headers.authorization).toBe('Bearer gen-token');
    expect(parsed('slack').text).toContain('熔断器已打开');
    expect((parsed('discord').embeds as Array<Record<string, unknown>>)[0]?.description).toBe(BASE_NOTICE.body);
    expect(parsed('telegram')).toMatchObject({ chat_id: '-1001', disable_web_page_preview: true });
    expect(parsed('feishu')).toMatchObject({ msg_type: 'text', timestamp: String(T0 / 1000) });
    expect(typeof parsed('feishu').sign).toBe('string');
    expect(parsed('dingtalk')).toMatchObject({ msgtype: 'text' });
    expect(byPrefix('dingtalk').path).toMatch(/^\/dingtalk\/robot\/send\?access_token=t&timestamp=\d+&sign=[^&]+$/);
    const ntfy = byPrefix('ntfy');
    expect(ntfy.body).toContain(BASE_NOTICE.body);
    expect(ntfy.headers.title).toBe(`=?UTF-8?B?${Buffer.from('熔断器已打开').toString('base64')}?=`);
    expect(ntfy.headers.priority).toBe('4');
    expect(ntfy.headers.authorization).toBe('Bearer tk_n');
  });

  it('a webhook gets only the kinds it subscribed to', async () => {
    const r = await receiver();
    const h = harness({
      webhooks: [
        webhook('generic', `${r.base}/down-only`, { events: ['gateway_down'] }),
        webhook('generic', `${r.base}/all`),
      ],
    });
    h.notifier.notify({ ...BASE_NOTICE });
    h.notifier.notify({ ...BASE_NOTICE, kind: 'gateway_down', dep: null, title: 'Gateway down' });
    await waitFor(() => h.records.length === 3, 5000, '3 deliveries');
    expect(r.requests.filter((req) => req.path === '/down-only').map((req) => JSON.parse(req.body).kind)).toEqual([
      'gateway_down',
    ]);
    expect(r.requests.filter((req) => req.path === '/all')).toHaveLength(2);
  });

  it('a hanging webhook fails on its timeout without delaying other channels or notify()', async () => {
    const hang = await receiver(() => 'hang');
    const fast = await receiver();
    const desktop = fakeDesktop('ok');
    const h = harness({
      desktop,
      webhooks: [
        webhook('generic', `${hang.base}/hook/SECRETPATH`, { timeoutSec: 1 }),
        webhook('generic', `${fast.base}/fast`),
      ],
    });
    // notify() hands off and returns: nothing is delivered by the time it has (no wall-clock bound here,
    // a loaded machine would break one); the fast channels then deliver before the hanging one times out.
    h.notifier.notify({ ...BASE_NOTICE });
    h.notifier.notify({ ...BASE_NOTICE, kind: 'gateway_up', dep: null, title: 'Gateway up' });
    expect(h.records.filter((d) => d.ok)).toHaveLength(0);

    await waitFor(() => h.records.filter((d) => d.ok).length === 4, 900, 'the fast channels');
    expect(h.records.every((d) => d.channel !== 'webhook:generic#0')).toBe(true);
    expect(desktop.sent).toHaveLength(2);

    await waitFor(() => h.records.length === 6, 4000, 'the timeouts');
    const failed = h.records.filter((d) => d.channel === 'webhook:generic#0');
    expect(failed.map((d) => d.ok)).toEqual([false, false]);
    expect(failed[0]?.error).toBe(`${hang.base}/…: timed out after 1 s`);
    // The same failure twice: said once at warn, then at debug (both deliveries are recorded above).
    const warnings = h.log.lines.filter((l) => l.level === 'warn');
    expect(warnings).toHaveLength(1);
    expect(warnings[0]?.fields).toMatchObject({ channel: 'webhook:generic#0', target: `${hang.base}/…` });
    expect(h.log.lines.filter((l) => l.msg === 'notification delivery failed')).toHaveLength(2);
    expect(h.log.text()).not.toContain('SECRETPATH');
  });

  it('coalesces a storm: one notice at once, one summary from tick() after the interval', async () => {
    const r = await receiver();
    const h = harness({ webhooks: [webhook('generic', `${r.base}/g`)], coalesceMs: 60_000 });
    for (let i = 0; i < 50; i++) {
      h.clock.now = T0 + i * 100;
      h.notifier.notify({ ...BASE_NOTICE, ts: h.clock.now, body: `failure ${i}` });
    }
    await waitFor(() => h.records.length === 1, 5000, 'the first notice');
    h.clock.now = T0 + 30_000;
    h.notifier.tick();
    h.clock.now = T0 + 60_000;
    h.notifier.tick();
    await waitFor(() => h.records.length === 2, 5000, 'the summary');
    // Neither an early tick nor a repeated one sends anything more: a delivery starts within tick()
    // itself, so with none in flight before it, none in flight after it means nothing was sent.
    await waitFor(() => h.notifier.inFlightCount() === 0, 5000, 'the summary delivered');
    h.notifier.tick();
    expect(h.notifier.inFlightCount()).toBe(0);
    expect(r.requests).toHaveLength(2);
    const [first, summary] = r.requests.map((req) => JSON.parse(req.body) as Record<string, unknown>);
    expect(first).toMatchObject({ count: 1, body: 'failure 0' });
    expect(summary).toMatchObject({ count: 49 });
    expect(summary?.body).toBe('failure 49 (+49 more in the last 1 min; this is the latest)');
  });

  it('start() runs tick() on an unref’d timer; stop() ends it', async () => {
    const desktop = fakeDesktop('ok');
    const h = harness({ desktop, coalesceMs: 1000, tickMs: 10 });
    h.notifier.start();
    h.notifier.notify({ ...BASE_NOTICE });
    h.notifier.notify({ ...BASE_NOTICE });
    h.clock.now = T0 + 1000;
    await waitFor(() => desktop.sent.length === 2, 2000, 'the summary via the timer');
    expect(desktop.sent[1]?.count).toBe(1);
    await h.notifier.stop();
    h.notifier.notify({ ...BASE_NOTICE, kind: 'gateway_down' });
    await new Promise((resolve) => setTimeout(resolve, 30));
    expect(desktop.sent).toHaveLength(2);
  });

  it('a recorder that throws is logged; delivery and the event still happen', async () => {
    const desktop = fakeDesktop('ok');
    const h = harness({
      desktop,
      record: () => {
        throw new Error('SQLITE_BUSY');
      },
    });
    h.notifier.notify({ ...BASE_NOTICE });
    await waitFor(() => h.emitted.length === 1, 2000, 'the delivered event');
    expect(h.emitted[0]).toMatchObject({ channel: 'desktop', ok: true });
    expect(h.log.lines).toContainEqual(
      expect.objectContaining({ level: 'error', fields: expect.objectContaining({ error: 'SQLITE_BUSY' }) }),
    );
  });

  it('a desktop failure is recorded with ok=false and logged at warn', async () => {
    const h = harness({ desktop: fakeDesktop('fail') });
    h.notifier.notify({ ...BASE_NOTICE, kind: 'gateway_down', dep: null, title: 'Gateway down' });
    await waitFor(() => h.records.length === 1, 2000, 'the record');
    expect(h.records[0]).toEqual({
      ts: T0,
      kind: 'gateway_down',
      channel: 'desktop',
      title: 'Gateway down',
      ok: false,
      error: 'desktop notifications unavailable: no D-Bus; install libnotify-bin and run a daemon',
      dep: null,
    });
    expect(h.log.lines.some((l) => l.level === 'warn' && l.fields.channel === 'desktop')).toBe(true);
  });

  it('fills in count and severity, and keeps given ones', async () => {
    const desktop = fakeDesktop('ok');
    const h = harness({ desktop });
    h.notifier.notify({ ...BASE_NOTICE, kind: 'gateway_down' });
    h.notifier.notify({ ...BASE_NOTICE, kind: 'divergence', severity: 'critical', count: 4 });
    await waitFor(() => desktop.sent.length === 2);
    expect(desktop.sent.map((n) => [n.severity, n.count])).toEqual([
      ['critical', 1],
      ['critical', 4],
    ]);
  });

  it('notify() never throws, even when the clock does', () => {
    const h = harness({
      desktop: fakeDesktop('ok'),
      clock: () => {
        throw new Error('clock broke');
      },
    });
    expect(() => h.notifier.notify({ ...BASE_NOTICE })).not.toThrow();
    expect(() => h.notifier.tick()).not.toThrow();
    expect(h.log.lines.filter((l) => l.level === 'error')).toHaveLength(2);
  });

  it('caps deliveries in flight per channel instead of piling up behind a hung receiver', async () => {
    const send: typeof sendWebhook = (_config, _request, options) =>
      new Promise((resolve) => {
        options?.signal?.addEventListener('abort', () =>
          resolve({ ok: false, attempts: 1, status: null, error: 'aborted' }),
        );
      });
    const h = harness({
      webhooks: [webhook('generic', 'https://hooks.example.com/x')],
      send,
      maxInFlightPerChannel: 2,
      stopTimeoutMs: 20,
    });
    h.notifier.notify({ ...BASE_NOTICE, dep: 'a' });
    h.notifier.notify({ ...BASE_NOTICE, dep: 'b' });
    h.notifier.notify({ ...BASE_NOTICE, dep: 'c' });
    await waitFor(() => h.records.length === 1);
    expect(h.records[0]).toMatchObject({ ok: false, error: '2 deliveries already in flight; notification dropped' });
    expect(h.notifier.inFlightCount()).toBe(2);
  });

  it('stop() waits for deliveries in flight, then gives up and aborts them', async () => {
    let aborted = 0;
    const send: typeof sendWebhook = (_config, _request, options) =>
      new Promise((resolve) => {
        options?.signal?.addEventListener('abort', () => {
          aborted += 1;
          resolve({ ok: false, attempts: 1, status: null, error: 'aborted' });
        });
      });
    const h = harness({ webhooks: [webhook('generic', 'https://hooks.example.com/x')], send, stopTimeoutMs: 100 });
    h.notifier.notify({ ...BASE_NOTICE });
    const started = Date.now();
    await h.notifier.stop();
    const took = Date.now() - started;
    expect(took).toBeGreaterThanOrEqual(90);
    expect(took).toBeLessThan(1000);
    expect(aborted).toBe(1);
    await waitFor(() => h.records.length === 1);
    expect(h.records[0]?.ok).toBe(false);
  });

  it('stop() returns as soon as deliveries finish', async () => {
    const r = await receiver();
    const h = harness({ webhooks: [webhook('generic', `${r.base}/x`)], stopTimeoutMs: 5000 });
    h.notifier.notify({ ...BASE_NOTICE });
    const started = Date.now();
    await h.notifier.stop();
    expect(Date.now() - started).toBeLessThan(1000);
    expect(h.records).toHaveLength(1);
  });

  it('lists channels with redacted targets', () => {
    const h = harness({
      desktop: fakeDesktop('ok'),
      webhooks: [
        webhook('slack', 'https://hooks.slack.com/services/T0/B0/SECRET'),
        webhook('telegram', 'https://api.telegram.org/bot1:TOKEN/sendMessage', { chatId: '1' }),
      ],
    });
    expect(h.notifier.channels()).toEqual([
      { name: 'desktop', kind: 'desktop', target: 'desktop' },
      { name: 'webhook:slack#0', kind: 'slack', target: 'https://hooks.slack.com/…' },
      { name: 'webhook:telegram#1', kind: 'telegram', target: 'https://api.telegram.org/…' },
    ]);
  });
});
