/**
 * The app's reader of `/api/events`: the server-sent-events format however the
 * bytes are split (read by eventsource-parser), Last-Event-ID on reconnection, and a stream that comes back by itself after the core went
 * away and returned (against the real server on loopback).
 */
import { once } from 'node:events';
import { createServer, type IncomingHttpHeaders } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import type { ApiEvent } from '../../main/api/types.js';
import { EventStream, toApiEvent } from '../../main/app/event-stream.js';
import { until } from '../helpers/transcripts.js';
import { type FakeCore, startFakeCore } from './fake-core.js';
import { notice } from './fixtures.js';

/** A bare SSE server on loopback: each request gets the next scripted body, written one character at a time. */
async function scriptedServer(bodies: string[]) {
  const requests: IncomingHttpHeaders[] = [];
  const server = createServer(async (req, res) => {
    requests.push(req.headers);
    res.writeHead(200, { 'content-type': 'text/event-stream' });
    const body = bodies[requests.length - 1] ?? '';
    for (const char of body) {
      res.write(char);
      // Each character in its own chunk: the reader must reassemble lines across reads.
      await new Promise((resolve) => setImmediate(resolve));
    }
    res.end();
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const { port } = server.address() as AddressInfo;
  return { url: `http://127.0.0.1:${port}`, requests, close: () => new Promise((r) => server.close(r)) };
}

describe('EventStream reading the format', () => {
  const closers: Array<() => unknown> = [];
  afterEach(async () => {
    for (const close of closers.splice(0)) await close();
  });

  it('reads events however the bytes are split; comments, unknown types and bad JSON are skipped', async () => {
    const text =
      'retry: 300\n: connected\n\nevent: probe\ndata: {"ok":true}\n\n: heartbeat\n\n' +
      'event: mystery\ndata: {}\n\nevent: probe\ndata: {not json\n\n' +
      'event: notice\r\ndata: {"a":\r\ndata: 1}\r\n\r\n';
    const server = await scriptedServer([text]);
    closers.push(server.close);
    const events: ApiEvent[] = [];
    const drops: Array<[string, number]> = [];
    const stream = new EventStream({
      url: server.url,
      onEvent: (event) => events.push(event),
      onDrop: (reason, retryInMs) => drops.push([reason, retryInMs]),
      minDelayMs: 50,
      maxDelayMs: 5_000,
    });
    closers.push(() => stream.close());
    stream.start();
    await until(() => drops.length > 0, 5_000, 'the end of the first stream');
    stream.close();
    // Multi-line data is joined with a newline, which JSON takes as whitespace; CRLF line ends work too.
    expect(events).toEqual([
      { type: 'probe', data: { ok: true } },
      { type: 'notice', data: { a: 1 } },
    ]);
    // The server's retry: 300 replaces the 50 ms default.
    expect(drops).toEqual([['stream ended', 300]]);
  });

  it('sends Last-Event-ID when it reconnects after numbered events', async () => {
    const server = await scriptedServer([`id: 41\nevent: notice\ndata: ${JSON.stringify(notice())}\n\n`, '']);
    closers.push(server.close);
    const events: ApiEvent[] = [];
    const stream = new EventStream({ url: server.url, onEvent: (event) => events.push(event), minDelayMs: 20 });
    closers.push(() => stream.close());
    stream.start();
    await until(() => server.requests.length >= 2, 5_000, 'the reconnection');
    stream.close();
    expect(events).toEqual([{ type: 'notice', data: notice() }]);
    expect(server.requests[0]?.['last-event-id']).toBeUndefined();
    expect(server.requests[1]?.['last-event-id']).toBe('41');
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
    // A second stream, opened after the close, proves the event below really went out to live subscribers.
    const control: ApiEvent[] = [];
    let witnessOpen = false;
    const witness = new EventStream({
      url: core.url,
      onEvent: (event) => control.push(event),
      onOpen: () => {
        witnessOpen = true;
      },
      minDelayMs: 20,
    });
    witness.start();
    try {
      await until(() => witnessOpen);
      core.backend.emit({ type: 'calls', data: { count: 1, deps: [] } });
      await until(() => control.length === 1);
    } finally {
      witness.close();
    }
    expect(events).toEqual([]);
    expect(opened).toHaveLength(1);
  });
});
