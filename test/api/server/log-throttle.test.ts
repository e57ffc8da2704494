/**
 * Refusals said a few at a time: found in hardening, one client sent 4 MB of "api request rejected" lines in
 * 5 s. Past the first ones of a window they are counted and said once; a real server under a flood of bad
 * requests keeps its log to a handful of lines.
 */
import { randomBytes } from 'node:crypto';
import { afterEach, describe, expect, it } from 'vitest';
import { startApiServer } from '../../../main/api/server/http.js';
import { throttleWarnings } from '../../../main/api/server/log-throttle.js';
import { FakeBackend, recordingLogger } from '../../helpers/fake-backend.js';

const cleanups: Array<() => Promise<void>> = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0)) await cleanup();
});

describe('throttleWarnings', () => {
  it('writes the first ones of a window, counts the rest, and says the count when the window ends', () => {
    const log = recordingLogger();
    let now = 0;
    const warnings = throttleWarnings(log, { perWindow: 3, windowMs: 10_000, clock: () => now });
    for (let i = 0; i < 50; i++) warnings.warn('api request rejected', { status: 401 });
    warnings.warn('api connection closed');
    expect(log.lines.map((l) => l.msg)).toEqual([
      'api request rejected',
      'api request rejected',
      'api request rejected',
    ]);
    now = 10_000;
    warnings.warn('api request rejected', { status: 403 });
    expect(log.lines.slice(3).map((l) => [l.msg, l.fields])).toEqual([
      ['api request rejected (47 more, not logged one by one)', { count: 47, windowSec: 10 }],
      ['api connection closed (1 more, not logged one by one)', { count: 1, windowSec: 10 }],
      ['api request rejected', { status: 403 }],
    ]);
    warnings.flush();
    expect(log.lines).toHaveLength(6);
  });
});

describe('a flood of refused requests', () => {
  it('keeps the log to a handful of lines, and says how many more there were', async () => {
    const log = recordingLogger();
    const server = await startApiServer({
      backend: new FakeBackend(),
      port: 0,
      token: randomBytes(32).toString('hex'),
      log,
      version: '9.9.9',
      sse: { heartbeatMs: 0 },
    });
    cleanups.push(() => server.close());
    // 500 requests with a wrong token, as fast as the client can.
    for (let i = 0; i < 50; i++) {
      await Promise.all(
        Array.from({ length: 10 }, async () => {
          const response = await fetch(`${server.url}/api/watchdog/resume`, {
            method: 'POST',
            headers: { authorization: 'Bearer wrong', 'content-type': 'application/json' },
            body: '{}',
          });
          expect(response.status).toBe(401);
          await response.arrayBuffer();
        }),
      );
    }
    await server.close();
    cleanups.length = 0;
    const rejected = log.lines.filter((l) => l.msg.startsWith('api request rejected'));
    expect(rejected.length).toBeLessThanOrEqual(12);
    const counted = rejected.reduce((sum, l) => sum + (typeof l.fields.count === 'number' ? l.fields.count : 1), 0);
    expect(counted).toBe(500);
  });
});
