/**
 * A real webhook receiver on a random loopback port: records every request and
 * answers as the test says (or never, to play a receiver that hangs).
 */
import { createServer, type IncomingHttpHeaders } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface Received {
  method: string;
  /** Path and query, as sent. */
  path: string;
  headers: IncomingHttpHeaders;
  body: string;
  at: number;
}

export interface Answer {
  status?: number;
  headers?: Record<string, string>;
  body?: string;
}

/** An answer, or 'hang' to never answer. `n` counts requests to this receiver from 1. */
export type Responder = (request: Received, n: number) => Answer | 'hang';

export interface Receiver {
  /** http://127.0.0.1:<port> */
  base: string;
  requests: Received[];
  close(): Promise<void>;
}

export async function startReceiver(respond: Responder = () => ({ status: 200, body: 'ok' })): Promise<Receiver> {
  const requests: Received[] = [];
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const received: Received = {
        method: req.method ?? '',
        path: req.url ?? '',
        headers: req.headers,
        body: Buffer.concat(chunks).toString('utf8'),
        at: Date.now(),
      };
      requests.push(received);
      const answer = respond(received, requests.length);
      if (answer === 'hang') return;
      res.writeHead(answer.status ?? 200, answer.headers ?? {});
      res.end(answer.body ?? '');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    base: `http://127.0.0.1:${port}`,
    requests,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/** Polls until `check` is true (fails the test after `timeoutMs`). */
export async function waitFor(check: () => boolean, timeoutMs = 5000, what = 'condition'): Promise<void> {
  const start = Date.now();
  while (!check()) {
    if (Date.now() - start > timeoutMs) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
}
