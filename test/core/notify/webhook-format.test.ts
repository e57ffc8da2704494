import { describe, expect, it } from 'vitest';
import { defaultsOf } from '../../../main/core/config/schema.js';
import { type WebhookConfig, type WebhookType, webhookConfig } from '../../../main/core/notify/config.js';
import type { Notice } from '../../../main/core/notify/notice.js';
import {
  encodeHeaderValue,
  formatWebhook,
  LIMITS,
  redactUrl,
  truncate,
  truncateBytes,
  validateWebhook,
} from '../../../main/core/notify/webhook-format.js';
import { translator } from '../../../main/words/messages/index.js';

/** 2026-01-01T10:00:00.123Z */
const NOW = 1767261600123;
/** Signatures below were computed outside this codebase (Python hmac/hashlib) for this secret and NOW. */
const SECRET = 'SECabc123';
const FEISHU_SIGN = 'xqPkJxTj7tt8S64dZf86z5RAxWwqmJWwfMCnzU0QZII=';
const DINGTALK_SIGN_ENCODED = 'OfJD50S6rLX6GsdOYxvknvH0wKVrUzz23%2F3qL%2FSF%2F4k%3D';

const NOTICE: Notice = {
  kind: 'breaker_opened',
  dep: 'zhipu/glm-5.1',
  title: 'Breaker opened for zhipu/glm-5.1',
  body: '5 consecutive failures <429> & more.',
  severity: 'warning',
  ts: Date.UTC(2026, 0, 1, 9, 59, 0),
  count: 3,
};

/** A webhook as written in a config file: the schema's defaults, then these. */
function config(type: WebhookType, extra: Partial<WebhookConfig> = {}): WebhookConfig {
  return {
    ...defaultsOf(webhookConfig),
    type,
    url: 'https://hooks.example.com/services/T000/B000/XXXXSECRETXXXX',
    events: ['*'],
    timeoutSec: 5,
    retries: 2,
    ...extra,
  };
}

const json = (body: string): Record<string, unknown> => JSON.parse(body) as Record<string, unknown>;

describe('formatWebhook', () => {
  it('generic: the notice as JSON, ISO time, Bearer token only with a secret', () => {
    const plain = formatWebhook(config('generic'), NOTICE, NOW);
    expect(plain.url).toBe(config('generic').url);
    expect(plain.headers['Content-Type']).toMatch(/^application\/json/);
    expect(plain.headers.Authorization).toBeUndefined();
    expect(json(plain.body)).toEqual({
      source: 'breakerbar',
      kind: 'breaker_opened',
      dep: 'zhipu/glm-5.1',
      title: NOTICE.title,
      body: NOTICE.body,
      severity: 'warning',
      ts: '2026-01-01T09:59:00.000Z',
      count: 3,
      language: 'en',
    });
    const withToken = formatWebhook(config('generic', { secret: 'tok-1' }), NOTICE, NOW);
    expect(withToken.headers.Authorization).toBe('Bearer tok-1');
  });

  it('slack: one text field with title, body and origin; &, < and > escaped', () => {
    const request = formatWebhook(config('slack'), NOTICE, NOW);
    const payload = json(request.body);
    expect(Object.keys(payload)).toEqual(['text']);
    expect(payload.text).toBe(
      '[WARNING] Breaker opened for zhipu/glm-5.1\n5 consecutive failures &lt;429&gt; &amp; more.\nBreakerBar · zhipu/glm-5.1',
    );
  });

  it('discord: an embed with title, description, colour by severity and timestamp; no mentions', () => {
    const payload = json(formatWebhook(config('discord'), NOTICE, NOW).body);
    expect(payload.allowed_mentions).toEqual({ parse: [] });
    const embeds = payload.embeds as Array<Record<string, unknown>>;
    expect(embeds).toHaveLength(1);
    expect(embeds[0]).toMatchObject({
      title: '[WARNING] Breaker opened for zhipu/glm-5.1',
      description: NOTICE.body,
      color: 0xf29900,
      timestamp: '2026-01-01T09:59:00.000Z',
    });
    const critical = json(formatWebhook(config('discord'), { ...NOTICE, severity: 'critical' }, NOW).body);
    const info = json(formatWebhook(config('discord'), { ...NOTICE, severity: 'info' }, NOW).body);
    const colors = [critical, info].map((p) => (p.embeds as Array<{ color: number }>)[0]?.color);
    expect(new Set([...colors, 0xf29900]).size).toBe(3);
  });

  it('discord: title and description are cut to 256 and 4096', () => {
    const long = { ...NOTICE, title: 'T'.repeat(1000), body: 'B'.repeat(10_000) };
    const embed = (json(formatWebhook(config('discord'), long, NOW).body).embeds as Array<Record<string, string>>)[0]!;
    expect(embed.title).toHaveLength(256);
    expect(embed.title?.endsWith('…')).toBe(true);
    expect(embed.description).toHaveLength(4096);
    expect(embed.description?.endsWith('…')).toBe(true);
  });

  it('telegram: chat_id, plain text (no parse_mode), no link previews', () => {
    const payload = json(formatWebhook(config('telegram', { chatId: '-100123' }), NOTICE, NOW).body);
    expect(payload).toEqual({
      chat_id: '-100123',
      text: '[WARNING] Breaker opened for zhipu/glm-5.1\n5 consecutive failures <429> & more.\nBreakerBar · zhipu/glm-5.1',
      disable_web_page_preview: true,
    });
  });

  it('telegram: a long body is cut so the text fits 4096, keeping title and origin', () => {
    const long = { ...NOTICE, body: '界'.repeat(10_000) };
    const text = json(formatWebhook(config('telegram', { chatId: '1' }), long, NOW).body).text as string;
    expect(text.length).toBeLessThanOrEqual(LIMITS.telegramText);
    expect(text.length).toBeGreaterThan(4000);
    expect(text.startsWith('[WARNING] Breaker opened')).toBe(true);
    expect(text.endsWith('…\nBreakerBar · zhipu/glm-5.1')).toBe(true);
  });

  it('feishu: msg_type text; unsigned without a secret', () => {
    const payload = json(formatWebhook(config('feishu'), NOTICE, NOW).body);
    expect(payload).toEqual({ msg_type: 'text', content: { text: expect.stringContaining(NOTICE.title) } });
  });

  it('feishu: with a secret, timestamp in seconds and the documented signature', () => {
    const payload = json(formatWebhook(config('feishu', { secret: SECRET }), NOTICE, NOW).body);
    expect(payload.timestamp).toBe('1767261600');
    expect(payload.sign).toBe(FEISHU_SIGN);
    expect(payload.msg_type).toBe('text');
  });

  it('dingtalk: msgtype text; with a secret, timestamp (ms) and URL-encoded signature added to the query', () => {
    const url = 'https://oapi.dingtalk.com/robot/send?access_token=abc123';
    const plain = formatWebhook(config('dingtalk', { url }), NOTICE, NOW);
    expect(plain.url).toBe(url);
    expect(json(plain.body)).toEqual({ msgtype: 'text', text: { content: expect.stringContaining(NOTICE.body) } });
    const signed = formatWebhook(config('dingtalk', { url, secret: SECRET }), NOTICE, NOW);
    expect(signed.url).toBe(`${url}&timestamp=1767261600123&sign=${DINGTALK_SIGN_ENCODED}`);
    expect(signed.body).toBe(plain.body);
  });

  it('ntfy: plain-text body, Title / Priority / Tags headers, Bearer token', () => {
    const request = formatWebhook(config('ntfy', { url: 'https://ntfy.sh/topic', secret: 'tk_x' }), NOTICE, NOW);
    expect(request.body).toBe(`${NOTICE.body}\nBreakerBar · zhipu/glm-5.1`);
    expect(request.headers.Title).toBe(NOTICE.title);
    expect(request.headers.Priority).toBe('4');
    expect(request.headers.Tags).toBe('warning,breakerbar');
    expect(request.headers.Authorization).toBe('Bearer tk_x');
    const priority = (severity: Notice['severity']) =>
      formatWebhook(config('ntfy'), { ...NOTICE, severity }, NOW).headers.Priority;
    expect([priority('critical'), priority('info')]).toEqual(['5', '3']);
    expect(formatWebhook(config('ntfy'), NOTICE, NOW).headers.Authorization).toBeUndefined();
  });

  it('ntfy: a Chinese title is RFC 2047 encoded (a valid header that decodes back)', () => {
    const title = '网关已重启：429 风暴';
    const request = formatWebhook(config('ntfy'), { ...NOTICE, title }, NOW);
    const header = request.headers.Title!;
    expect(header).toMatch(/^=\?UTF-8\?B\?[A-Za-z0-9+/=]+\?=$/);
    expect(Buffer.from(header.slice(10, -2), 'base64').toString('utf8')).toBe(title);
    // What fetch would refuse: anything outside visible ASCII.
    for (const value of Object.values(request.headers)) expect(value).toMatch(/^[\x20-\x7e]*$/);
    expect(() => new Headers(request.headers)).not.toThrow();
  });

  it('ntfy: a long body stays under 4096 bytes and is cut on a character boundary', () => {
    const request = formatWebhook(config('ntfy'), { ...NOTICE, body: '熔断器'.repeat(3000) }, NOW);
    const bytes = Buffer.byteLength(request.body, 'utf8');
    expect(bytes).toBeLessThanOrEqual(LIMITS.ntfyBodyBytes);
    expect(bytes).toBeGreaterThan(LIMITS.ntfyBodyBytes - 10);
    expect(request.body).not.toContain('\ufffd');
    expect(request.body.endsWith('…')).toBe(true);
  });
});

describe('formatWebhook in Chinese', () => {
  const zh = translator('zh-CN');
  const CN: Notice = {
    ...NOTICE,
    kind: 'gateway_down',
    dep: null,
    title: 'OpenClaw 网关已宕机',
    body: '网关已宕机：connection refused。',
    severity: 'critical',
  };

  it('generic: the texts as worded, codes unchanged, and the language named', () => {
    expect(json(formatWebhook(config('generic'), CN, NOW, zh).body)).toMatchObject({
      kind: 'gateway_down',
      severity: 'critical',
      title: 'OpenClaw 网关已宕机',
      body: '网关已宕机：connection refused。',
      language: 'zh-CN',
    });
  });

  it('feishu: severity tag and origin in Chinese around the notice', () => {
    const body = json(formatWebhook(config('feishu'), CN, NOW, zh).body) as { content: { text: string } };
    expect(body.content.text).toBe('【严重】 OpenClaw 网关已宕机\n网关已宕机：connection refused。\nBreakerBar · 网关');
  });

  it('dingtalk: the same text, a dependency named as the origin', () => {
    const notice: Notice = { ...CN, dep: 'zhipu/glm-5.1', severity: 'warning' };
    const body = json(formatWebhook(config('dingtalk'), notice, NOW, zh).body) as { text: { content: string } };
    expect(body.text.content).toBe(
      '【警告】 OpenClaw 网关已宕机\n网关已宕机：connection refused。\nBreakerBar · zhipu/glm-5.1',
    );
  });

  it('discord and ntfy: the tag and the footer in Chinese', () => {
    const discord = json(formatWebhook(config('discord'), CN, NOW, zh).body) as {
      embeds: Array<{ title: string; footer: { text: string } }>;
    };
    expect(discord.embeds[0]?.title).toBe('【严重】 OpenClaw 网关已宕机');
    expect(discord.embeds[0]?.footer.text).toBe('BreakerBar · 网关');
    expect(formatWebhook(config('ntfy'), CN, NOW, zh).body).toBe('网关已宕机：connection refused。\nBreakerBar · 网关');
  });
});

describe('encodeHeaderValue / truncate', () => {
  it('leaves ASCII alone, flattens line breaks', () => {
    expect(encodeHeaderValue('Gateway down')).toBe('Gateway down');
    expect(encodeHeaderValue('a\r\nInjected: yes')).toBe('a Injected: yes');
  });

  it('never splits a surrogate pair', () => {
    const text = `${'a'.repeat(8)}😀😀`;
    expect(truncate(text, 10)).toBe(`${'a'.repeat(8)}…`);
    expect(truncate(text, 11)).toBe(`${'a'.repeat(8)}😀…`);
    expect(truncate('short', 10)).toBe('short');
    // 'é' is 2 bytes and '…' 3.
    expect(truncateBytes('ééé', 5)).toBe('é…');
    expect(truncateBytes('ééé', 4)).toBe('…');
    expect(truncateBytes('aééé', 6)).toBe('aé…');
    expect(truncateBytes('aéé', 5)).toBe('aéé');
  });
});

describe('redactUrl', () => {
  it('keeps scheme, host and port; drops path, query and credentials', () => {
    expect(redactUrl('https://hooks.slack.com/services/T0/B0/secret')).toBe('https://hooks.slack.com/…');
    expect(redactUrl('https://oapi.dingtalk.com/robot/send?access_token=abc')).toBe('https://oapi.dingtalk.com/…');
    expect(redactUrl('http://user:pw@127.0.0.1:8080/x?y=z#frag')).toBe('http://127.0.0.1:8080/…');
    expect(redactUrl('not a url /with/secret')).toBe('<invalid url>');
  });
});

describe('validateWebhook', () => {
  it('accepts a sound config', () => {
    expect(validateWebhook(config('slack'))).toEqual([]);
    expect(validateWebhook(config('telegram', { chatId: '@ops', events: ['gateway_down', 'restart_failed'] }))).toEqual(
      [],
    );
  });

  it('reports a bad URL without echoing it', () => {
    const problems = validateWebhook(config('generic', { url: 'hooks.example.com/secret-path' }));
    expect(problems).toEqual(['url is not a valid URL']);
    expect(validateWebhook(config('generic', { url: 'ftp://example.com/x' }))[0]).toMatch(/http:\/\/ or https:\/\//);
    expect(validateWebhook(config('generic', { url: 'https://u:p@example.com/x' }))[0]).toMatch(/user:password/);
  });

  it('telegram needs a chat id', () => {
    expect(validateWebhook(config('telegram'))).toEqual([expect.stringMatching(/chatId/)]);
  });

  it('names unknown events', () => {
    const problems = validateWebhook(config('slack', { events: ['gateway_down', 'gateway_exploded' as never, '*'] }));
    expect(problems).toHaveLength(1);
    expect(problems[0]).toContain('"gateway_exploded"');
  });

  it('checks type, timeout and retries', () => {
    const bad = { ...config('slack'), type: 'teams' as WebhookType, timeoutSec: 0, retries: -1 };
    expect(validateWebhook(bad)).toHaveLength(3);
  });
});
