/**
 * The dispatcher: takes notices from the monitor, coalesces storms, and fans
 * each notice out to the desktop and the webhooks that want it. notify() returns
 * at once; every delivery runs on its own, so a hung webhook delays nothing else.
 * Each delivery, success or failure, is recorded once and emitted as 'delivered'.
 *
 * Per channel, in order: the kinds it wants (`events`), the least severity it
 * wants (`minSeverity`; a recovery counts at the severity of the alarm it
 * closes), quiet hours and maintenance (recorded as suppressed, never silently
 * dropped), then the digest (what needs no action waits for the period's end).
 */
import { EventEmitter } from 'node:events';
import { type Translator, translator } from '../../words/messages/index.js';
import type { Logger } from '../runtime/log.js';
import { Coalescer } from './coalesce.js';
import type { WebhookSettings, WebhookType } from './config.js';
import type { DesktopChannel } from './desktop.js';
import { Digest, type DigestSettings, digestNotice, isImmediate } from './digest.js';
import {
  eventsWant,
  type Notice,
  type NoticeInput,
  type NoticeKind,
  routingSeverity,
  type Severity,
  severityOf,
  severityRank,
} from './notice.js';
import { type QuietState, suppressionReason } from './quiet.js';
import { sendWebhook } from './webhook.js';
import { formatWebhook, redactUrl } from './webhook-format.js';

export interface DeliveryRecord {
  ts: number;
  kind: NoticeKind;
  channel: string;
  title: string;
  ok: boolean;
  /** Why it failed, or for a suppressed one `suppressed: <why>`. */
  error: string | null;
  dep: string | null;
  /** Held by quiet hours or maintenance: not sent, recorded so that nothing vanishes. */
  suppressed?: boolean;
}

export interface NotifierOptions {
  desktop: DesktopChannel | null;
  webhooks: WebhookSettings[];
  coalesceMs: number;
  clock: () => number;
  log: Logger;
  /** The monitor stores it in SQLite; a throw here is caught and logged. */
  record(delivery: DeliveryRecord): void;
  /** Injectable for tests. */
  send?: typeof sendWebhook;
  /** The words of summaries and webhook chrome (the daemon's language; English when not given). */
  translator?: Translator;
  /** How often start()'s timer calls tick(). */
  tickMs?: number;
  /** How long stop() waits for deliveries in flight before abandoning them. */
  stopTimeoutMs?: number;
  /**
   * Deliveries one channel may have in flight; past that, new ones fail at once
   * instead of piling up behind a receiver that hangs.
   */
  maxInFlightPerChannel?: number;
  /** Least severe notice the desktop shows (default info). */
  desktopMinSeverity?: Severity;
  /** Quiet hours or maintenance in force at `now`, if any. */
  quiet?: (now: number) => QuietState | null;
  /** Critical notices still go out during quiet hours (default true; never during maintenance). */
  quietHoursAllowCritical?: boolean;
  /** Hold what needs no action and send it as one digest per period and channel. */
  digest?: DigestSettings | null;
}

/** The digest's batch for the 'notice' event (what the tray app shows); no channel has this name. */
const ANNOUNCED = '(announced)';

const UNCOALESCED: ReadonlySet<NoticeKind> = new Set([
  'incident_opened',
  'incident_escalated',
  'incident_resolved',
  'digest',
]);

export interface ChannelInfo {
  name: string;
  kind: 'desktop' | WebhookType;
  /** Redacted: scheme and host only. */
  target: string;
}

interface Channel extends ChannelInfo {
  wants(kind: NoticeKind): boolean;
  minSeverity: Severity;
  deliver(notice: Notice, signal: AbortSignal): Promise<string | null>;
  inFlight: number;
}

export class Notifier extends EventEmitter<{ delivered: [DeliveryRecord]; notice: [Notice] }> {
  private readonly coalescer: Coalescer;
  private readonly list: Channel[];
  private readonly inFlight = new Set<Promise<void>>();
  private readonly controllers = new Set<AbortController>();
  private timer: NodeJS.Timeout | null = null;
  private stopped = false;
  private readonly lastError = new Map<string, string>();
  private readonly digest: Digest | null;
  private readonly translator: Translator;

  constructor(private readonly options: NotifierOptions) {
    super();
    const t = options.translator ?? translator('en');
    this.coalescer = new Coalescer(options.coalesceMs, t);
    this.digest = options.digest?.enabled ? new Digest(options.digest) : null;
    this.translator = t;
    const send = options.send ?? sendWebhook;
    this.list = [];
    const desktop = options.desktop;
    if (desktop !== null) {
      this.list.push({
        name: 'desktop',
        kind: 'desktop',
        target: 'desktop',
        inFlight: 0,
        wants: () => true,
        minSeverity: options.desktopMinSeverity ?? 'info',
        deliver: async (notice) => {
          await desktop.send(notice);
          return null;
        },
      });
    }
    options.webhooks.forEach((config, index) => {
      this.list.push({
        name: `webhook:${config.type}#${index}`,
        kind: config.type,
        target: redactUrl(config.url),
        inFlight: 0,
        wants: (kind) => eventsWant(config.events, kind),
        minSeverity: config.minSeverity ?? 'warning',
        deliver: async (notice, signal) => {
          const request = formatWebhook(config, notice, options.clock(), t);
          const result = await send(config, request, { signal, clock: options.clock });
          return result.ok ? null : (result.error ?? 'failed');
        },
      });
    });
  }

  /** Never throws, never blocks: delivery happens in the background. */
  notify(input: NoticeInput): void {
    try {
      if (this.stopped) {
        this.options.log.debug('notification dropped: notifier stopped', { kind: input.kind });
        return;
      }
      const notice: Notice = {
        ...input,
        count: input.count ?? 1,
        severity: input.severity ?? severityOf(input.kind),
      };
      // An incident is already one notice per episode, and a digest one per period: folding them would hide one.
      const out = UNCOALESCED.has(notice.kind) ? notice : this.coalescer.offer(notice, this.options.clock());
      if (out === null) {
        this.options.log.debug('notification folded into a summary', { kind: notice.kind, dep: notice.dep });
        return;
      }
      this.dispatch(out);
    } catch (err) {
      this.options.log.error('notification failed', { kind: input?.kind, error: errorText(err) });
    }
  }

  /** Sends the coalesced summaries and the digests that are due. */
  tick(): void {
    try {
      if (this.stopped) return;
      const now = this.options.clock();
      for (const summary of this.coalescer.due(now)) this.dispatch(summary);
      if (this.digest === null) return;
      // A digest due during quiet hours or maintenance waits for them to end (it would only be suppressed).
      if (this.suppression({ kind: 'digest', severity: 'info' }, now) !== null) return;
      for (const batch of this.digest.due(now)) {
        const input = digestNotice(batch, now, this.translator);
        const digest: Notice = { ...input, count: 1, severity: input.severity ?? 'info' };
        if (batch.channel === ANNOUNCED) {
          this.emit('notice', digest);
          continue;
        }
        const channel = this.list.find((c) => c.name === batch.channel);
        if (channel) this.send(channel, digest);
      }
    } catch (err) {
      this.options.log.error('notification summaries failed', { error: errorText(err) });
    }
  }

  start(): void {
    this.stopped = false;
    if (this.timer !== null) return;
    this.timer = setInterval(() => this.tick(), this.options.tickMs ?? 2000);
    this.timer.unref();
  }

  /** Stops the timer and waits for deliveries in flight, up to stopTimeoutMs; then abandons them. */
  async stop(): Promise<void> {
    this.stopped = true;
    if (this.timer !== null) {
      clearInterval(this.timer);
      this.timer = null;
    }
    if (this.inFlight.size === 0) return;
    let timeout: NodeJS.Timeout | undefined;
    const gaveUp = new Promise<'timeout'>((resolve) => {
      timeout = setTimeout(() => resolve('timeout'), this.options.stopTimeoutMs ?? 2000);
    });
    const outcome = await Promise.race([Promise.allSettled([...this.inFlight]).then(() => 'done' as const), gaveUp]);
    clearTimeout(timeout);
    if (outcome === 'timeout') {
      this.options.log.warn('notifications still in flight at shutdown: abandoned', { count: this.inFlight.size });
      for (const controller of this.controllers) controller.abort();
    }
  }

  channels(): ChannelInfo[] {
    return this.list.map(({ name, kind, target }) => ({ name, kind, target }));
  }

  /** Notices held for the next digest: one channel's (the 'notice' event's is `announced`), or all. */
  digestHeld(channel?: string): number {
    return this.digest?.held(channel === 'announced' ? ANNOUNCED : channel) ?? 0;
  }

  /** Deliveries running now (all channels). */
  inFlightCount(): number {
    return this.inFlight.size;
  }

  private suppression(notice: Pick<Notice, 'kind' | 'severity' | 'closes'>, now: number): string | null {
    const state = this.options.quiet?.(now) ?? null;
    return suppressionReason(state, notice, this.options.quietHoursAllowCritical ?? true);
  }

  private dispatch(notice: Notice): void {
    const now = this.options.clock();
    const suppressed = this.suppression(notice, now);
    const rank = severityRank(routingSeverity(notice));
    const held = this.digest !== null && !isImmediate(notice);
    this.options.log.debug('notification', { kind: notice.kind, dep: notice.dep, count: notice.count, suppressed });
    // Announced before the channels run: the tray app shows it natively, so it follows the desktop's rules
    // (its least severity, quiet hours and maintenance, the digest).
    if (suppressed === null && rank >= severityRank(this.options.desktopMinSeverity ?? 'info')) {
      if (held) this.digest?.hold(ANNOUNCED, notice, now);
      else this.emit('notice', notice);
    }
    for (const channel of this.list) {
      if (!channel.wants(notice.kind) || rank < severityRank(channel.minSeverity)) continue;
      if (suppressed !== null) {
        this.finish(channel, notice, suppressed, true);
        continue;
      }
      if (held) {
        this.digest?.hold(channel.name, notice, now);
        continue;
      }
      this.send(channel, notice);
    }
  }

  private send(channel: Channel, notice: Notice): void {
    if (channel.inFlight >= (this.options.maxInFlightPerChannel ?? 16)) {
      this.finish(channel, notice, `${channel.inFlight} deliveries already in flight; notification dropped`);
      return;
    }
    const controller = new AbortController();
    channel.inFlight += 1;
    this.controllers.add(controller);
    const run = this.deliver(channel, notice, controller.signal).finally(() => {
      channel.inFlight -= 1;
      this.controllers.delete(controller);
      this.inFlight.delete(run);
    });
    this.inFlight.add(run);
  }

  private async deliver(channel: Channel, notice: Notice, signal: AbortSignal): Promise<void> {
    let error: string | null;
    try {
      error = await channel.deliver(notice, signal);
    } catch (err) {
      error = errorText(err);
    }
    this.finish(channel, notice, error);
  }

  private finish(channel: Channel, notice: Notice, error: string | null, suppressed = false): void {
    const delivery: DeliveryRecord = {
      ts: this.options.clock(),
      kind: notice.kind,
      channel: channel.name,
      title: notice.title,
      ok: error === null,
      error,
      dep: notice.dep,
      ...(suppressed ? { suppressed } : {}),
    };
    if (suppressed) {
      this.options.log.debug('notification suppressed', { channel: channel.name, kind: notice.kind, error });
    } else if (error === null) {
      this.lastError.delete(channel.name);
      this.options.log.debug('notification delivered', { channel: channel.name, kind: notice.kind });
    } else {
      // Webhook errors are already redacted; the target is too. The same failure again (no
      // notification daemon, a dead webhook) is logged once at warn, then at debug: it is stored anyway.
      const repeated = this.lastError.get(channel.name) === error;
      this.lastError.set(channel.name, error);
      (repeated ? this.options.log.debug : this.options.log.warn)('notification delivery failed', {
        channel: channel.name,
        kind: notice.kind,
        target: channel.target,
        error,
      });
    }
    try {
      this.options.record(delivery);
    } catch (err) {
      this.options.log.error('could not record a notification delivery', {
        channel: channel.name,
        error: errorText(err),
      });
    }
    try {
      this.emit('delivered', delivery);
    } catch (err) {
      this.options.log.error('a delivered listener threw', { error: errorText(err) });
    }
  }
}

function errorText(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}
