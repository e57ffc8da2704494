/**
 * A client of the core's `/api/events` stream (server-sent events) over
 * `fetch`, for the app's main process where there is no EventSource: parses
 * `event:` / `data:` / `retry:` lines, and reconnects with a growing delay
 * when the stream ends or the core is gone. Each (re)connection is announced,
 * so the caller can fetch a fresh status for whatever it missed meanwhile.
 * Format: https://html.spec.whatwg.org/multipage/server-sent-events.html
 */
import type { ApiEvent } from '../shared/api/types.js';

export interface SseMessage {
  event: string;
  data: string;
}

/**
 * Incremental parser: feed it chunks as they arrive, get the complete messages.
 * Comments (`: heartbeat`) are skipped; `retry:` is reported to `onRetry`.
 */
export class SseParser {
  private buffer = '';
  private event = '';
  private data: string[] = [];

  constructor(private readonly onRetry: (ms: number) => void = () => {}) {}

  push(chunk: string): SseMessage[] {
    this.buffer += chunk;
    const messages: SseMessage[] = [];
    for (;;) {
      const match = /\r\n|\r|\n/.exec(this.buffer);
      // A lone \r at the end may be the first half of \r\n: wait for the next chunk.
      if (!match || (match[0] === '\r' && match.index === this.buffer.length - 1)) break;
      const line = this.buffer.slice(0, match.index);
      this.buffer = this.buffer.slice(match.index + match[0].length);
      const message = this.line(line);
      if (message) messages.push(message);
    }
    return messages;
  }

  private line(line: string): SseMessage | null {
    if (line === '') {
      if (this.data.length === 0) {
        this.event = '';
        return null;
      }
      const message = { event: this.event || 'message', data: this.data.join('\n') };
      this.event = '';
      this.data = [];
      return message;
    }
    if (line.startsWith(':')) return null;
    const colon = line.indexOf(':');
    const field = colon === -1 ? line : line.slice(0, colon);
    let value = colon === -1 ? '' : line.slice(colon + 1);
    if (value.startsWith(' ')) value = value.slice(1);
    if (field === 'event') this.event = value;
    else if (field === 'data') this.data.push(value);
    else if (field === 'retry' && /^\d+$/.test(value)) this.onRetry(Number(value));
    return null;
  }
}

/** Every ApiEvent type: a Record, so a type added to shared/api/types.ts without being listed here fails to compile. */
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

  private async connect(): Promise<void> {
    if (this.closed) return;
    const controller = new AbortController();
    this.controller = controller;
    const fetchImpl = this.options.fetch ?? fetch;
    let reason = 'stream ended';
    try {
      const response = await fetchImpl(`${this.options.url}/api/events`, {
        headers: { accept: 'text/event-stream' },
        signal: controller.signal,
      });
      if (!response.ok || !response.body) {
        await response.body?.cancel();
        throw new Error(`HTTP ${response.status}`);
      }
      const parser = new SseParser((ms) => {
        this.delayMs = Math.min(Math.max(ms, this.minDelayMs), this.maxDelayMs);
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
        for (const message of parser.push(decoder.decode(value, { stream: true }))) {
          const event = toApiEvent(message);
          if (!event) continue;
          try {
            this.options.onEvent(event);
          } catch {
            // A listener's bug must not cost everyone else the stream (and a reconnect storm).
          }
        }
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
