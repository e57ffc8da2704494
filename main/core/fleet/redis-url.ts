/**
 * `redis://[user:password@]host[:port][/db]`, the form operators paste from
 * their Redis provider. TLS (`rediss://`) is refused rather than silently
 * sent in clear. The password is kept only for AUTH: `describeRedisTarget`
 * is what logs and status lines show.
 */

export interface RedisTarget {
  host: string;
  port: number;
  /** ACL user (Redis 6+); null: AUTH with the password alone (the `default` user). */
  username: string | null;
  password: string | null;
  db: number;
}

export function parseRedisUrl(url: string): RedisTarget {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    // Not echoing the input: it may carry a password.
    throw new Error('Redis URL is not a URL (expected redis://[user:password@]host[:port][/db])');
  }
  if (parsed.protocol === 'rediss:')
    throw new Error('rediss:// (TLS) is not supported; use redis:// on a trusted network');
  if (parsed.protocol !== 'redis:')
    throw new Error(`Redis URL must start with redis:// (got scheme ${parsed.protocol})`);
  const host = parsed.hostname.replace(/^\[(.*)\]$/, '$1');
  if (!host) throw new Error('Redis URL has no host');
  const port = parsed.port ? Number(parsed.port) : 6379;
  const username = parsed.username ? decodeURIComponent(parsed.username) : null;
  const password = parsed.password ? decodeURIComponent(parsed.password) : null;
  if (username !== null && password === null) {
    // Clients disagree on what `redis://secret@host` means; refuse instead of guessing (and maybe logging a secret).
    throw new Error('Redis URL names a user without a password (write redis://:password@host for a password alone)');
  }
  const path = parsed.pathname.replace(/^\//, '');
  if (path !== '' && !/^\d+$/.test(path)) throw new Error('Redis URL path must be a database number (/0, /1, …)');
  return { host, port, username, password, db: path === '' ? 0 : Number(path) };
}

/** Where we connect, for logs: never the credentials. */
export function describeRedisTarget(target: RedisTarget): string {
  const host = target.host.includes(':') ? `[${target.host}]` : target.host;
  const user = target.username !== null ? `${target.username}@` : '';
  return `redis://${user}${host}:${target.port}/${target.db}`;
}
