/**
 * The app's reader of `/api/events`: the server-sent-events format however the
 * bytes are split, and a stream that comes back by itself after the core went
 * away and returned (against the real server on loopback).
 */
import { afterEach, describe, expect, it } from 'vitest';
import { EventStream, SseParser, toApiEvent } from '../../main/app/event-stream.js';
import type { ApiEvent } from '../../main/core/server/api-types.js';
import { until } from '../helpers/transcripts.js';
import { type FakeCore, startFakeCore } from './fake-core.js';
import { notice } from './fixtures.js';

describe('SseParser', () => {
  it('reads event and data lines, skipping comments, whatever the chunks', () => {
    const text =
      'retry: 3000\n: connected\n\nevent: probe\ndata: {"ok":true}\n\n: heartbeat\n\nevent: notice\ndata: {"a":1}\n\n';
    const whole = new SseParser().push(text);
    expect(whole).toEqual([
      { event: 'probe', data: '{"ok":true}' },
      { event: 'notice', data: '{"a":1}' },
    ]);
    // One character at a time gives the same messages.
    const parser = new SseParser();
    const bytewise = [...text].flatMap((c) => parser.push(c));
    expect(bytewise).toEqual(whole);
  });

  it('joins multi-line data, takes CRLF and CR line ends, and defaults the type to message', () => {
    const parser = new SseParser();
    expect(parser.push('data: one\r\ndata: two\r\n\r')).toEqual([]);
    expect(parser.push('\ndata:x\r\r\n')).toEqual([
      { event: 'message', data: 'one\ntwo' },
      { event: 'message', data: 'x' },
    ]);
  });

  it('reports retry', () => {
    const seen: number[] = [];
    new SseParser((ms) => seen.push(ms)).push('retry: 2500\n\nretry: soon\n\n');
    expect(seen).toEqual([2500]);
  });

  it('turns known types into ApiEvents and drops the rest', () => {
    expect(toApiEvent({ event: 'notice', data: JSON.stringify(notice()) })).toEqual({ type: 'notice', data: notice() });
    expect(toApiEvent({ event: 'mystery', data: '{}' })).toBeNull();
    expect(toApiEvent({ event: 'probe', data: '{not json' })).toBeNull();
  });
});

describe('EventStream', () => {
  let core: FakeCore | null = null;
  let stream: EventStream | null = null;

  afterEach(async () => {
    stream?.close();
    await core?.close();
  });

  it('delivers the core’s events, and reconnects after the core went away and came back', async () => {
    core = await startFakeCore();
    const port = core.server.port;
    const events: ApiEvent[] = [];
    const log: string[] = [];
    stream = new EventStream({
      url: core.url,
      onEvent: (event) => events.push(event),
      onOpen: () => log.push('open'),
      onDrop: (reason) => log.push(`drop: ${reason}`),
      minDelayMs: 50,
      maxDelayMs: 200,
    });
    stream.start();
    await until(() => log.includes('open'));
    await until(() => (core?.backend.subscribers ?? 0) > 0);
    core.backend.emit({ type: 'notice', data: notice() });
    await until(() => events.length === 1);
    expect(events[0]).toEqual({ type: 'notice', data: notice() });

    // The core stops (its stream ends), then a new one listens on the same port.
    const { dataDir, token } = core;
    await core.stop();
    await until(() => log.some((l) => l.startsWith('drop')));
    core = await startFakeCore({ port, dataDir, token });
    await until(() => log.filter((l) => l === 'open').length === 2, 10_000);
    core.backend.emit({
      type: 'probe',
      data: { ts: 1, ok: true, status: 'ok', startup: null, latencyMs: 3, detail: null },
    });
    await until(() => events.length === 2);
    expect(events[1]?.type).toBe('probe');
  });

  it('stops for good when closed', async () => {
    core = await startFakeCore();
    const opened: number[] = [];
    const events: ApiEvent[] = [];
    stream = new EventStream({
      url: core.url,
      onEvent: (event) => events.push(event),
      onOpen: () => opened.push(1),
      minDelayMs: 20,
    });
    stream.start();
    await until(() => opened.length === 1);
    await until(() => (core?.backend.subscribers ?? 0) > 0);
    stream.close();
    // A second stream, opened after the close, is the witness: once it has received the core's
    // events, the closed one would have received them too.
    const witnessed: ApiEvent[] = [];
    const witness = new EventStream({ url: core.url, onEvent: (event) => witnessed.push(event), minDelayMs: 20 });
    witness.start();
    try {
      await until(() => {
        core?.backend.emit({ type: 'calls', data: { count: 1, deps: [] } });
        return witnessed.length > 0;
      });
    } finally {
      witness.close();
    }
    expect(events).toEqual([]);
    expect(opened).toHaveLength(1);
  });
});
