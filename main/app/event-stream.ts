/**
 * A client of the core's `/api/events` stream (server-sent events) over
 * `fetch`, for the app's main process where there is no EventSource. The
 * format itself (lines, `event:` / `data:` / `id:` / `retry:`, comments) is
 * read by eventsource-parser; this module adds what EventSource would:
 * reconnecting with a growing delay when the stream ends or the core is gone,
 * honouring the server's `retry:`, and sending `Last-Event-ID` after a
 * reconnection when the server numbered its events. Each (re)connection is
 * announced, so the caller can fetch a fresh status for whatever it missed.
 * Format: https://html.spec.whatwg.org/multipage/server-sent-events.html
 */
import { createParser } from 'eventsource-parser';
import type { ApiEvent } from '../api/types.js';

export interface SseMessage {
  event: string;
  data: string;
}

/** Every ApiEvent type: a Record, so a type added to main/api/types.ts without being listed here fails to compile. */
const EVENT_TYPES = new Set(
  Object.keys({
    transition: true,
    calls: true,
    budget: true,
    signal: true,
    probe: true,
    restart: true,
    decision: true,
    notification: true,
    notice: true,
  } satisfies Record<ApiEvent['type'], true>),
);

/** A message as an ApiEvent, or null for unknown types and data that is not JSON. */
export function toApiEvent(message: SseMessage): ApiEvent | null {
  if (!EVENT_TYPES.has(message.event as ApiEvent['type'])) return null;
  try {
    return { type: message.event, data: JSON.parse(message.data) } as ApiEvent;
  } catch {
    return null;
  }
}

export interface EventStreamOptions {
  /** The core's base URL. */
  url: string;
  onEvent(event: ApiEvent): void;
  /** The stream is open (first time and after each reconnection). */
  onOpen?(): void;
  /** The stream broke; it will be tried again after `retryInMs`. */
  onDrop?(reason: string, retryInMs: number): void;
  fetch?: typeof fetch;
  /** First reconnection delay (default 1 s; the server's `retry:` overrides it); doubles up to `maxDelayMs`. */
  minDelayMs?: number;
  maxDelayMs?: number;
}

export class EventStream {
  private controller: AbortController | null = null;
  private timer: NodeJS.Timeout | null = null;
  private closed = false;
  private delayMs: number;
  /** The last `id:` the server sent (none so far: the core does not number its events yet). */
  private lastEventId = '';
  private readonly minDelayMs: number;
  private readonly maxDelayMs: number;

  constructor(private readonly options: EventStreamOptions) {
    this.minDelayMs = options.minDelayMs ?? 1000;
    this.maxDelayMs = options.maxDelayMs ?? 30_000;
    this.delayMs = this.minDelayMs;
  }

  start(): void {
    this.closed = false;
    void this.connect();
  }

  close(): void {
    this.closed = true;
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    this.controller?.abort();
    this.controller = null;
  }

  private deliver(message: SseMessage): void {
    const event = toApiEvent(message);
    if (!event) return;
    try {
      this.options.onEvent(event);
    } catch {
      // A listener's bug must not cost everyone else the stream (and a reconnect storm).
    }
  }

  private async connect(): Promise<void> {
    if (this.closed) return;
    const controller = new AbortController();
    this.controller = controller;
    const fetchImpl = this.options.fetch ?? fetch;
    let reason = 'stream ended';
    try {
      const headers: Record<string, string> = { accept: 'text/event-stream' };
      if (this.lastEventId) headers['last-event-id'] = this.lastEventId;
      const response = await fetchImpl(`${this.options.url}/api/events`, {
        headers,
        signal: controller.signal,
      });
      if (!response.ok || !response.body) {
        await response.body?.cancel();
        throw new Error(`HTTP ${response.status}`);
      }
      const parser = createParser({
        onEvent: (message) => {
          if (message.id !== undefined) this.lastEventId = message.id;
          this.deliver({ event: message.event ?? 'message', data: message.data });
        },
        onRetry: (ms) => {
          this.delayMs = Math.min(Math.max(ms, this.minDelayMs), this.maxDelayMs);
        },
      });
      const decoder = new TextDecoder();
      const reader = response.body.getReader();
      let opened = false;
      for (;;) {
        const { done, value } = await reader.read();
        if (done) break;
        if (!opened) {
          opened = true;
          // The server writes `retry:` and a comment at once; the stream counts as healthy now.
          this.delayMs = this.minDelayMs;
          this.options.onOpen?.();
        }
        parser.feed(decoder.decode(value, { stream: true }));
      }
    } catch (error) {
      if (this.closed) return;
      const cause = (error as { cause?: { code?: string } }).cause?.code;
      reason = cause ?? (error as Error).message;
    }
    if (this.closed) return;
    const delay = this.delayMs;
    this.delayMs = Math.min(this.delayMs * 2, this.maxDelayMs);
    this.options.onDrop?.(reason, delay);
    this.timer = setTimeout(() => {
      this.timer = null;
      void this.connect();
    }, delay);
    this.timer.unref?.();
  }
}
