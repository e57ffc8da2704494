/** Reading a Redis URL into ioredis options: what connects where, with TLS or not, and never a password shown. */
import { describe, expect, it } from 'vitest';
import { redact, redisTarget, redisUrlProblem } from '../../../main/core/fleet/redis-options.js';

describe('redisTarget', () => {
  it('reads host, port, credentials and database', () => {
    const target = redisTarget('redis://bb:p%40ss%3Aw0rd@redis.lan:6380/3');
    expect(target.options).toEqual({ host: 'redis.lan', port: 6380, db: 3, username: 'bb', password: 'p@ss:w0rd' });
    expect(target.tls).toBe(false);
    expect(target.where).toBe('redis://bb@redis.lan:6380/3');
  });

  it('defaults to port 6379, database 0, no credentials; a password alone is allowed', () => {
    expect(redisTarget('redis://127.0.0.1').options).toEqual({ host: '127.0.0.1', port: 6379, db: 0 });
    expect(redisTarget('redis://:secret@h/').options).toMatchObject({ password: 'secret' });
    expect(redisTarget('redis://:secret@h/').options).not.toHaveProperty('username');
    expect(redisTarget('redis://[::1]:7000').options).toMatchObject({ host: '::1', port: 7000 });
  });

  it('turns rediss:// into TLS options, with extra TLS options added; redis:// never uses TLS', () => {
    const hosted = redisTarget('rediss://default:tok3n@eu1.example.cloud:6380');
    expect(hosted.tls).toBe(true);
    expect(hosted.options).toEqual({
      host: 'eu1.example.cloud',
      port: 6380,
      db: 0,
      username: 'default',
      password: 'tok3n',
      tls: {},
    });
    expect(hosted.where).toBe('rediss://default@eu1.example.cloud:6380/0');
    const ca = '-----BEGIN CERTIFICATE-----\n…';
    expect(redisTarget('rediss://h', { tls: { ca } }).options.tls).toEqual({ ca });
    expect(redisTarget('redis://h', { tls: { ca } }).options).not.toHaveProperty('tls');
  });

  it('reads ?options as ioredis does (family as a number), the URL itself winning over them', () => {
    const { options } = redisTarget('rediss://h:6390/2?family=6&connectionName=bb&db=5&port=1');
    expect(options).toMatchObject({ family: 6, connectionName: 'bb', db: 2, port: 6390 });
  });

  it.each([
    ['not a URL', 'redis server at 127.0.0.1', /not a URL/],
    ['a bare host:port', 'localhost:6379', /must start with redis:\/\/ or rediss:\/\//],
    ['another scheme', 'http://h', /redis:\/\//],
    ['no host', 'redis:///0', /no host/],
    ['a user without password', 'rediss://secret@h', /without a password/],
    ['a non-numeric database', 'redis://h/cache', /database number/],
  ])('refuses %s', (_, url, message) => {
    expect(() => redisTarget(url)).toThrow(message);
    expect(redisUrlProblem(url)).toMatch(message);
  });

  it('never puts the password in an error or a description, and redacts it from other messages', () => {
    expect(() => redisTarget('redis://:hunter2@h/x')).toThrow(/^(?!.*hunter2)/);
    expect(redisUrlProblem('redis://:hunter2@h/x')).not.toContain('hunter2');
    const target = redisTarget('rediss://bb:hunt%3Der2@[::1]:7000/2');
    expect(target.where).toBe('rediss://bb@[::1]:7000/2');
    expect(target.secrets).toEqual(['hunt=er2', 'hunt%3Der2']);
    expect(redact('AUTH hunt=er2 / hunt%3Der2 failed', target.secrets)).toBe('AUTH *** / *** failed');
    expect(redisUrlProblem('rediss://bb:pw@h:6380/1')).toBeNull();
  });
});
