/**
 * The dispatcher: takes notices from the monitor, coalesces storms, and fans
 * each notice out to the desktop and the webhooks that want it. notify() returns
 * at once; every delivery runs on its own, so a hung webhook delays nothing else.
 * Each delivery, success or failure, is recorded once and emitted as 'delivered'.
 */
import { EventEmitter } from 'node:events';
import { type Translator, translator } from '../../shared/messages/index.js';
import type { Logger } from '../log.js';
import { Coalescer } from './coalesce.js';
import type { DesktopChannel } from './desktop.js';
import { type Notice, type NoticeKind, severityOf } from './notice.js';
import { sendWebhook } from './webhook.js';
import { formatWebhook, redactUrl, type WebhookConfig, type WebhookType } from './webhook-format.js';

export interface DeliveryRecord {
  ts: number;
  kind: NoticeKind;
  channel: string;
  title: string;
  ok: boolean;
  error: string | null;
  dep: string | null;
}

export interface NotifierOptions {
  desktop: DesktopChannel | null;
  webhooks: WebhookConfig[];
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
}

export type NoticeInput = Omit<Notice, 'count' | 'severity'> & Partial<Pick<Notice, 'count' | 'severity'>>;

export interface ChannelInfo {
  name: string;
  kind: 'desktop' | WebhookType;
  /** Redacted: scheme and host only. */
  target: string;
}

interface Channel extends ChannelInfo {
  wants(kind: NoticeKind): boolean;
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

  constructor(private readonly options: NotifierOptions) {
    super();
    const t = options.translator ?? translator('en');
    this.coalescer = new Coalescer(options.coalesceMs, t);
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
        deliver: async (notice) => {
          await desktop.send(notice);
          return null;
        },
      });
    }
    options.webhooks.forEach((config, index) => {
      const all = config.events.includes('*');
      this.list.push({
        name: `webhook:${config.type}#${index}`,
        kind: config.type,
        target: redactUrl(config.url),
        inFlight: 0,
        wants: (kind) => all || config.events.includes(kind),
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
      const out = this.coalescer.offer(notice, this.options.clock());
      if (out === null) {
        this.options.log.debug('notification folded into a summary', { kind: notice.kind, dep: notice.dep });
        return;
      }
      this.dispatch(out);
    } catch (err) {
      this.options.log.error('notification failed', { kind: input?.kind, error: errorText(err) });
    }
  }

  /** Sends the coalesced summaries that are due. */
  tick(): void {
    try {
      if (this.stopped) return;
      for (const summary of this.coalescer.due(this.options.clock())) this.dispatch(summary);
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

  /** Deliveries running now (all channels). */
  inFlightCount(): number {
    return this.inFlight.size;
  }

  private dispatch(notice: Notice): void {
    // Announced before the channels run: the tray app shows it natively, the dashboard lists it.
    this.emit('notice', notice);
    this.options.log.debug('notification', { kind: notice.kind, dep: notice.dep, count: notice.count });
    for (const channel of this.list) {
      if (!channel.wants(notice.kind)) continue;
      if (channel.inFlight >= (this.options.maxInFlightPerChannel ?? 16)) {
        this.finish(channel, notice, `${channel.inFlight} deliveries already in flight; notification dropped`);
        continue;
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

  private finish(channel: Channel, notice: Notice, error: string | null): void {
    const delivery: DeliveryRecord = {
      ts: this.options.clock(),
      kind: notice.kind,
      channel: channel.name,
      title: notice.title,
      ok: error === null,
      error,
      dep: notice.dep,
    };
    if (error === null) {
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
