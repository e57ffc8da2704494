/**
 * Webhook and heartbeat URLs are checked when the config loads, so a URL that `fetch` would refuse
 * fails once, at start, naming its key, instead of failing every delivery.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from '../../main/core/config/index.js';
import { sendUrlProblem } from '../../main/core/config/schema.js';

let tmp: string;

beforeEach(() => {
  tmp = mkdtempSync(join(tmpdir(), 'breakerbar-send-urls-'));
});

afterEach(() => {
  rmSync(tmp, { recursive: true, force: true });
});

function load(content: unknown) {
  const path = join(tmp, 'config.json');
  writeFileSync(path, JSON.stringify(content));
  return loadConfig(path, { env: {}, home: tmp, platform: 'linux' });
}

function errorFor(content: unknown): string {
  try {
    load(content);
  } catch (error) {
    expect(error).toBeInstanceOf(ConfigError);
    return (error as Error).message;
  }
  throw new Error(`expected ${JSON.stringify(content)} to be rejected`);
}

const webhook = (url: string) => ({ notifications: { webhooks: [{ type: 'generic', url }] } });

describe('webhook and heartbeat URLs', () => {
  it('refuses credentials in a webhook URL, naming the key and where a token goes, never the secret', () => {
    const message = errorFor(webhook('https://alice:hunter2secret@hooks.example.com/notify'));
    expect(message).toContain('"notifications.webhooks[0].url"');
    expect(message).toContain('user:password');
    expect(message).toContain('"secret"');
    expect(message).not.toContain('hunter2secret');
    expect(message).not.toContain('alice');
  });

  it('names the webhook by its index', () => {
    const message = errorFor({
      notifications: {
        webhooks: [
          { type: 'ntfy', url: 'https://ntfy.sh/topic' },
          { type: 'generic', url: 'https://token@hooks.example.com/x' },
        ],
      },
    });
    expect(message).toContain('"notifications.webhooks[1].url"');
  });

  it('refuses other schemes and unparseable URLs', () => {
    expect(errorFor(webhook('ftp://files.example.com/x'))).toContain('must start with http:// or https://');
    expect(errorFor(webhook('https://exa mple.com/x'))).toContain('is not a valid URL');
    expect(errorFor(webhook(''))).toContain('"notifications.webhooks[0].url" is not an http:// or https:// URL');
  });

  it('checks the heartbeat URL by the same rules', () => {
    const message = errorFor({ heartbeat: { url: 'https://user:pw@hc-ping.example.com/abc' } });
    expect(message).toContain('"heartbeat.url"');
    expect(message).toContain('must not carry credentials');
    expect(errorFor({ heartbeat: { url: 'javascript:alert(1)' } })).toContain('"heartbeat.url" must start with');
    expect(load({ heartbeat: { url: null } }).config.heartbeat.url).toBeNull();
  });

  it('accepts tokens in the path or query, and the URL as written', () => {
    const telegram = 'https://api.telegram.org/bot123:ABC/sendMessage';
    const kuma = 'http://127.0.0.1:3001/api/push/abc?status=up&msg=OK';
    const loaded = load({
      notifications: { webhooks: [{ type: 'telegram', url: telegram, chatId: '42' }] },
      heartbeat: { url: kuma },
    });
    expect(loaded.config.notifications.webhooks[0]?.url).toBe(telegram);
    expect(loaded.config.heartbeat.url).toBe(kuma);
  });

  it('is a pure rule usable wherever a URL is entered', () => {
    expect(sendUrlProblem('https://example.com/hook')).toBeNull();
    expect(sendUrlProblem('HTTPS://example.com/hook')).toBeNull();
    expect(sendUrlProblem('https://:pw@example.com/')).toContain('credentials');
    expect(sendUrlProblem(42)).toBe('is not an http:// or https:// URL');
  });
});
