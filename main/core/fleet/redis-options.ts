/**
 * A Redis URL as the fleet link uses it: `redis://` or `rediss://` (TLS, what
 * most hosted Redis services hand out), `[user:password@]host[:port][/db]`,
 * and `?name=value` options read the way ioredis reads them (each becomes the
 * ioredis option of that name; `family` as a number). Checked here, once, for
 * both the configuration (at load) and the link (at connect), so a bad URL
 * fails with the same clear words in both places.
 *
 * The password is only ever handed to ioredis: errors never quote the URL,
 * `where` leaves the credentials out, and `redact` scrubs a message that might
 * echo them.
 *
 * Imports ioredis as types only: the configuration validates URLs without
 * loading a Redis client.
 */
import type { ConnectionOptions } from 'node:tls';
import type { RedisOptions } from 'ioredis';

const FORM = 'redis://[user:password@]host[:port][/db] or rediss://… for TLS';

export interface RedisTarget {
  /** What ioredis is given: host, port, credentials, db, TLS and the URL's `?` options. */
  options: RedisOptions;
  /** Where it connects, for logs and status: scheme, user, host, port, db; never the password. */
  where: string;
  tls: boolean;
  /** Texts that must never reach a log line (the password, decoded and as written in the URL). */
  secrets: string[];
}

/** A URL the fleet link cannot use. The message names the problem, never the URL. */
export class RedisUrlError extends Error {
  override name = 'RedisUrlError';
}

/**
 * Reads a Redis URL. `tls` adds TLS options (a private CA, a client
 * certificate) for a `rediss://` URL; a `redis://` URL never uses TLS.
 */
export function redisTarget(url: string, extra: { tls?: ConnectionOptions } = {}): RedisTarget {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    // Not echoing the input: it may carry a password.
    throw new RedisUrlError(`Redis URL is not a URL (expected ${FORM})`);
  }
  const tls = parsed.protocol === 'rediss:';
  if (!tls && parsed.protocol !== 'redis:') {
    throw new RedisUrlError(`Redis URL must start with redis:// or rediss:// (got scheme ${parsed.protocol})`);
  }
  const host = parsed.hostname.replace(/^\[(.*)\]$/, '$1');
  if (!host) throw new RedisUrlError('Redis URL has no host');
  const port = parsed.port ? Number(parsed.port) : 6379;
  const username = parsed.username ? decodeURIComponent(parsed.username) : null;
  const password = parsed.password ? decodeURIComponent(parsed.password) : null;
  if (username !== null && password === null) {
    // Clients disagree on what `redis://secret@host` means; refuse instead of guessing (and maybe logging a secret).
    throw new RedisUrlError(
      'Redis URL names a user without a password (write redis://:password@host for a password alone)',
    );
  }
  const path = parsed.pathname.replace(/^\//, '');
  if (path !== '' && !/^\d+$/.test(path))
    throw new RedisUrlError('Redis URL path must be a database number (/0, /1, …)');
  const db = path === '' ? 0 : Number(path);

  const options: Record<string, unknown> = {};
  for (const [name, value] of parsed.searchParams) {
    const family = name === 'family' ? Number.parseInt(value, 10) : Number.NaN;
    options[name] = Number.isNaN(family) ? value : family;
  }
  Object.assign(options, { host, port, db });
  if (username !== null) options.username = username;
  if (password !== null) options.password = password;
  if (tls) options.tls = { ...extra.tls };

  const shownHost = host.includes(':') ? `[${host}]` : host;
  const user = username !== null ? `${username}@` : '';
  return {
    options: options as RedisOptions,
    where: `${parsed.protocol}//${user}${shownHost}:${port}/${db}`,
    tls,
    secrets: password === null ? [] : [...new Set([password, parsed.password])],
  };
}

/** Why `url` cannot be used, or null when it can (for the configuration's check). */
export function redisUrlProblem(url: string): string | null {
  try {
    redisTarget(url);
    return null;
  } catch (error) {
    return (error as Error).message;
  }
}

/** `text` with every secret replaced, for messages that come from the network or the client library. */
export function redact(text: string, secrets: readonly string[]): string {
  let out = text;
  for (const secret of secrets) if (secret) out = out.split(secret).join('***');
  return out;
}
