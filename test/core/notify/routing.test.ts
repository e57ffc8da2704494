/**
 * What reaches which channel: `events` (kinds and the `alerts` group), `minSeverity`, quiet hours and
 * maintenance (recorded as suppressed, never dropped), and the digest. Real receivers on loopback,
 * an injected clock.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { inMs } from '../../../main/core/config/durations.js';
import { defaultsOf } from '../../../main/core/config/schema.js';
import { type WebhookConfig, type WebhookSettings, webhookConfig } from '../../../main/core/notify/config.js';
import type { DesktopChannel } from '../../../main/core/notify/desktop.js';
import { ALERT_KINDS, eventsWant, type Notice, routingSeverity } from '../../../main/core/notify/notice.js';
import { type DeliveryRecord, Notifier, type NotifierOptions } from '../../../main/core/notify/notifier.js';
import type { QuietState } from '../../../main/core/notify/quiet.js';
import { validateWebhook } from '../../../main/core/notify/webhook-format.js';
import { translator } from '../../../main/words/messages/index.js';
import { recordingLogger } from '../../helpers/fake-backend.js';
import { type Receiver, startReceiver, waitFor } from './receiver.js';

const T0 = Date.UTC(2026, 11, 1, 10, 0, 0);
const HOUR = 3_600_000;
const receivers: Receiver[] = [];
const notifiers: Notifier[] = [];

afterEach(async () => {
  await Promise.all(notifiers.splice(0).map((n) => n.stop()));
  await Promise.all(receivers.splice(0).map((r) => r.close()));
});

async function receiver(): Promise<Receiver> {
  const r = await startReceiver();
  receivers.push(r);
  return r;
}

/** A webhook as the notifier takes it from a config file: the schema's defaults, then these. */
function webhook(url: string, extra: Partial<WebhookConfig> = {}): WebhookSettings {
  return inMs(webhookConfig, { ...defaultsOf(webhookConfig), url, timeoutSec: 5, retries: 0, ...extra });
}

function fakeDesktop(): DesktopChannel & { sent: Notice[] } {
  const sent: Notice[] = [];
  return {
    sent,
    async send(notice) {
      sent.push(notice);
    },
  };
}

function harness(options: Partial<NotifierOptions>) {
  const records: DeliveryRecord[] = [];
  const announced: Notice[] = [];
  const clock = { now: T0 };
  const notifier = new Notifier({
    desktop: null,
    webhooks: [],
    coalesceMs: 0,
    clock: () => clock.now,
    log: recordingLogger(),
    record: (d) => records.push(d),
    ...options,
  });
  notifier.on('notice', (n) => announced.push(n));
  notifiers.push(notifier);
  return { notifier, records, announced, clock };
}

const kinds = (r: Receiver) => r.requests.map((q) => (JSON.parse(q.body) as Notice).kind);
const notice = (kind: Notice['kind'], extra: Partial<Notice> = {}) => ({
  kind,
  dep: 'zhipu/glm-5.1',
  title: `${kind} title`,
  body: `${kind} body`,
  ts: T0,
  ...extra,
});

describe('routing rules', () => {
  it('the alerts group is what needs a human; * is everything; single kinds still work', () => {
    for (const kind of ALERT_KINDS) expect(eventsWant(['alerts'], kind)).toBe(true);
    expect(eventsWant(['alerts'], 'breaker_opened')).toBe(false);
    expect(eventsWant(['alerts'], 'gateway_down')).toBe(false);
    expect(eventsWant(['*'], 'breaker_opened')).toBe(true);
    expect(eventsWant(['breaker_opened'], 'breaker_opened')).toBe(true);
    expect(eventsWant(['alerts', 'gateway_down'], 'gateway_down')).toBe(true);
  });

  it('a recovery is routed at the severity of the alarm it closes', () => {
    expect(routingSeverity({ kind: 'gateway_up', severity: 'info' })).toBe('critical');
    expect(routingSeverity({ kind: 'breaker_closed', severity: 'info' })).toBe('warning');
    expect(routingSeverity({ kind: 'incident_resolved', severity: 'info', closes: 'critical' })).toBe('critical');
    expect(routingSeverity({ kind: 'token_budget', severity: 'warning' })).toBe('warning');
  });

  it('validates events and minSeverity', () => {
    // As written in the config file (the schema would refuse both mistakes; the check words them for a person).
    const base = { ...defaultsOf(webhookConfig), url: 'https://example.com/h' };
    expect(validateWebhook({ ...base, events: ['alerts', 'gateway_down'] })).toEqual([]);
    expect(validateWebhook({ ...base, events: ['alert' as never] })[0]).toContain('unknown event "alert"');
    expect(validateWebhook({ ...base, minSeverity: 'loud' as never })[0]).toContain('minSeverity');
  });
});

describe('Notifier routing', () => {
  it('a default webhook gets one alert and one recovery for a 429 storm; the desktop gets everything', async () => {
    const phone = await receiver();
    const desktop = fakeDesktop();
    const h = harness({ desktop, webhooks: [webhook(`${phone.base}/phone`, { minSeverity: 'warning' })] });
    // What a storm produces around its incident.
    h.notifier.notify(notice('breaker_opened'));
    h.notifier.notify(notice('incident_opened', { severity: 'warning' }));
    h.notifier.notify(notice('restart_started'));
    h.notifier.notify(notice('restart_succeeded'));
    h.notifier.notify(notice('breaker_closed'));
    h.notifier.notify(notice('incident_resolved', { closes: 'warning' }));
    await waitFor(() => desktop.sent.length === 6 && phone.requests.length === 2, 5000, 'deliveries');
    expect(kinds(phone)).toEqual(['incident_opened', 'incident_resolved']);
  });

  it('minSeverity keeps what is below it off a channel, but never the all-clear of an alarm it got', async () => {
    const phone = await receiver();
    const h = harness({ webhooks: [webhook(`${phone.base}/p`, { events: ['*'], minSeverity: 'critical' })] });
    h.notifier.notify(notice('breaker_opened'));
    h.notifier.notify(notice('gateway_down', { dep: null }));
    h.notifier.notify(notice('gateway_up', { dep: null }));
    await waitFor(() => phone.requests.length === 2, 5000, 'deliveries');
    expect(kinds(phone)).toEqual(['gateway_down', 'gateway_up']);
    // Routing is not suppression: nothing is recorded for a channel that did not want it.
    expect(h.records.filter((r) => r.kind === 'breaker_opened')).toEqual([]);
  });

  it('desktopMinSeverity filters the desktop', async () => {
    const desktop = fakeDesktop();
    const h = harness({ desktop, desktopMinSeverity: 'warning' });
    h.notifier.notify(notice('token_budget'));
    h.notifier.notify(notice('breaker_closed')); // closes a warning: shown
    h.notifier.notify(notice('fallback_answering'));
    h.notifier.notify({ ...notice('divergence'), severity: 'info' });
    await waitFor(() => h.records.length === 3, 5000, 'deliveries');
    expect(desktop.sent.map((n) => n.kind)).toEqual(['token_budget', 'breaker_closed', 'fallback_answering']);
    // The tray app shows the 'notice' events natively: the same filter.
    expect(h.announced.map((n) => n.kind)).toEqual(['token_budget', 'breaker_closed', 'fallback_answering']);
  });
});

describe('quiet hours and maintenance', () => {
  it('quiet hours record what they hold as suppressed and let critical through', async () => {
    const hook = await receiver();
    const desktop = fakeDesktop();
    const quiet: QuietState = { kind: 'quiet_hours', until: T0 + HOUR, reason: 'quiet hours 22:00–07:00' };
    const h = harness({ desktop, webhooks: [webhook(`${hook.base}/h`, { events: ['*'] })], quiet: () => quiet });
    h.notifier.notify(notice('breaker_opened'));
    h.notifier.notify(notice('restart_failed', { dep: null }));
    await waitFor(() => h.records.length === 4, 5000, 'records');
    const held = h.records.filter((r) => r.kind === 'breaker_opened');
    expect(held.map((r) => [r.channel, r.ok, r.suppressed, r.error])).toEqual([
      ['desktop', false, true, 'suppressed: quiet hours 22:00–07:00'],
      ['webhook:generic#0', false, true, 'suppressed: quiet hours 22:00–07:00'],
    ]);
    expect(desktop.sent.map((n) => n.kind)).toEqual(['restart_failed']);
    expect(kinds(hook)).toEqual(['restart_failed']);
    // The tray app is not told about what is held either.
    expect(h.announced.map((n) => n.kind)).toEqual(['restart_failed']);
  });

  it('quiet hours hold critical too when quietHoursAllowCritical is false', async () => {
    const desktop = fakeDesktop();
    const quiet: QuietState = { kind: 'quiet_hours', until: null, reason: 'quiet hours' };
    const h = harness({ desktop, quiet: () => quiet, quietHoursAllowCritical: false });
    h.notifier.notify(notice('gateway_down', { dep: null }));
    await waitFor(() => h.records.length === 1, 5000, 'record');
    expect(h.records[0]).toMatchObject({ suppressed: true, kind: 'gateway_down' });
    expect(desktop.sent).toEqual([]);
  });

  it('maintenance holds everything, and it ends when the window does', async () => {
    const hook = await receiver();
    let state: QuietState | null = { kind: 'maintenance', until: T0 + HOUR, reason: 'upgrading' };
    const h = harness({ webhooks: [webhook(`${hook.base}/h`)], quiet: () => state });
    h.notifier.notify(notice('restart_failed', { dep: null }));
    await waitFor(() => h.records.length === 1, 5000, 'record');
    expect(h.records[0]).toMatchObject({ ok: false, suppressed: true, error: 'suppressed: maintenance (upgrading)' });
    state = null;
    h.notifier.notify(notice('restart_budget_exhausted', { dep: null }));
    await waitFor(() => hook.requests.length === 1, 5000, 'delivery');
    expect(kinds(hook)).toEqual(['restart_budget_exhausted']);
  });
});

describe('digest', () => {
  it('holds what needs no action per channel and sends one digest when the period ends; alerts go at once', async () => {
    const hook = await receiver();
    const h = harness({
      webhooks: [webhook(`${hook.base}/h`, { events: ['*'], minSeverity: 'info' })],
      digest: { enabled: true, everyMs: 3_600_000, at: null },
      translator: translator('en'),
    });
    h.notifier.notify(notice('breaker_opened', { title: 'Breaker opened for zhipu/glm-5.1' }));
    h.notifier.notify(notice('breaker_opened', { dep: 'openai/gpt-5', title: 'Breaker opened for openai/gpt-5' }));
    h.notifier.notify(notice('token_budget', { title: 'Token budget' }));
    h.notifier.notify(notice('gateway_down', { dep: null }));
    h.notifier.notify(notice('incident_opened'));
    await waitFor(() => hook.requests.length === 2, 5000, 'the immediate ones');
    expect(kinds(hook)).toEqual(['gateway_down', 'incident_opened']);
    expect(h.notifier.digestHeld('webhook:generic#0')).toBe(3);
    // The tray app's notices follow the same digest.
    expect(h.announced.map((n) => n.kind)).toEqual(['gateway_down', 'incident_opened']);
    expect(h.notifier.digestHeld('announced')).toBe(3);
    // Not before the hour ends (T0 is 10:00 sharp; the period runs to 11:00).
    h.clock.now = T0 + HOUR - 1;
    h.notifier.tick();
    expect(h.notifier.digestHeld('webhook:generic#0')).toBe(3);
    h.clock.now = T0 + HOUR;
    h.notifier.tick();
    await waitFor(() => hook.requests.length === 3, 5000, 'the digest');
    const digest = JSON.parse(hook.requests[2]?.body ?? '{}') as Notice;
    expect(digest.kind).toBe('digest');
    expect(digest.severity).toBe('warning');
    const t = translator('en');
    expect(digest.title).toBe(t.t('alerts.digestTitle', { count: 3, spanMs: HOUR }));
    expect(digest.body.split('\n')).toEqual([
      t.t('alerts.digestHeadline', { title: 'Token budget' }),
      t.t('alerts.digestLine', { count: 2, title: 'Breaker opened for openai/gpt-5' }),
      t.t('alerts.digestLine', { count: 1, title: 'Token budget' }),
    ]);
    expect(h.notifier.digestHeld()).toBe(0);
    expect(h.announced.map((n) => n.kind)).toEqual(['gateway_down', 'incident_opened', 'digest']);
  });

  it('a digest due during maintenance waits for its end', async () => {
    const hook = await receiver();
    let state: QuietState | null = null;
    const h = harness({
      webhooks: [webhook(`${hook.base}/h`, { events: ['*'], minSeverity: 'info' })],
      digest: { enabled: true, everyMs: 600_000, at: null },
      quiet: () => state,
    });
    h.notifier.notify(notice('breaker_opened'));
    state = { kind: 'maintenance', until: null, reason: 'upgrading' };
    h.clock.now = T0 + HOUR;
    h.notifier.tick();
    expect(h.notifier.digestHeld('webhook:generic#0')).toBe(1);
    state = null;
    h.notifier.tick();
    await waitFor(() => hook.requests.length === 1, 5000, 'the digest');
    expect(kinds(hook)).toEqual(['digest']);
  });
});
