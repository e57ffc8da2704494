import { describe, expect, it } from 'vitest';
import { describeRedisTarget, parseRedisUrl } from '../../../main/core/fleet/redis-url.js';
import { backoffDelay } from '../../../main/core/fleet/resp.js';

describe('parseRedisUrl', () => {
  it('reads host, port, credentials and database', () => {
    expect(parseRedisUrl('redis://bb:p%40ss%3Aw0rd@redis.lan:6380/3')).toEqual({
      host: 'redis.lan',
      port: 6380,
      username: 'bb',
      password: 'p@ss:w0rd',
      db: 3,
    });
  });

  it('defaults to port 6379, database 0, no credentials; a password alone is allowed', () => {
    expect(parseRedisUrl('redis://127.0.0.1')).toEqual({
      host: '127.0.0.1',
      port: 6379,
      username: null,
      password: null,
      db: 0,
    });
    expect(parseRedisUrl('redis://:secret@h/').password).toBe('secret');
    expect(parseRedisUrl('redis://[::1]:7000').host).toBe('::1');
  });

  it.each([
    ['not a URL', 'redis server at 127.0.0.1', /not a URL/],
    ['a bare host:port', 'localhost:6379', /must start with redis:\/\//],
    ['TLS', 'rediss://h:6380', /TLS/],
    ['another scheme', 'http://h', /redis:\/\//],
    ['a user without password', 'redis://secret@h', /without a password/],
    ['a non-numeric database', 'redis://h/cache', /database number/],
  ])('refuses %s', (_, url, message) => {
    expect(() => parseRedisUrl(url)).toThrow(message);
  });

  it('never puts the password in an error or a description', () => {
    expect(() => parseRedisUrl('redis://:hunter2@h/x')).toThrow(/^(?!.*hunter2)/);
    const description = describeRedisTarget(parseRedisUrl('redis://bb:hunter2@[::1]:7000/2'));
    expect(description).toBe('redis://bb@[::1]:7000/2');
  });
});

describe('backoffDelay', () => {
  const policy = { initialMs: 100, maxMs: 5_000 };

  it('doubles per attempt, between half and all of the step', () => {
    expect([0, 1, 2, 3].map((n) => backoffDelay(n, policy, () => 0))).toEqual([50, 100, 200, 400]);
    expect([0, 1, 2, 3].map((n) => backoffDelay(n, policy, () => 1))).toEqual([100, 200, 400, 800]);
  });

  it('is capped, even after very many attempts', () => {
    expect(backoffDelay(6, policy, () => 1)).toBe(5_000);
    expect(backoffDelay(10_000, policy, () => 1)).toBe(5_000);
    expect(backoffDelay(10_000, policy, () => 0)).toBe(2_500);
  });

  it('spreads hosts out (jitter) without ever retrying at once', () => {
    const delays = Array.from({ length: 200 }, () => backoffDelay(3, policy));
    expect(Math.min(...delays)).toBeGreaterThanOrEqual(400);
    expect(Math.max(...delays)).toBeLessThanOrEqual(800);
    expect(new Set(delays).size).toBeGreaterThan(20);
  });
});
