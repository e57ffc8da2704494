/**
 * How each chat service wants a notice: pure functions from (config, notice,
 * time) to an HTTP request. Delivery is webhook.ts. Webhook URLs carry their
 * token in the path or query, so anything shown to a human goes through redactUrl.
 */
import { createHmac } from 'node:crypto';
import { type Translator, translator } from '../../words/messages/index.js';
import { WEBHOOK_TYPES, type WebhookConfig, type WebhookSettings } from './config.js';
import { EVENT_GROUPS, isNoticeKind, NOTICE_KINDS, type Notice, SEVERITIES, type Severity } from './notice.js';

/** What a request is shaped from: the same keys in the config and in the settings deliveries take. */
export type WebhookTarget = Pick<WebhookSettings, 'type' | 'url' | 'chatId' | 'secret'>;

export interface WebhookRequest {
  url: string;
  headers: Record<string, string>;
  body: string;
}

/** Service limits (characters unless noted), with some headroom where the service counts differently. */
export const LIMITS = {
  slackText: 4000,
  discordTitle: 256,
  discordDescription: 4096,
  telegramText: 4096,
  feishuText: 4000,
  dingtalkText: 4000,
  /** ntfy turns a body over 4096 bytes into an attachment. */
  ntfyBodyBytes: 4000,
  ntfyTitle: 250,
} as const;

const JSON_HEADERS = { 'Content-Type': 'application/json; charset=utf-8' };

/** Discord embed colours: red, amber, green. */
const DISCORD_COLOR: Record<Severity, number> = { critical: 0xd93025, warning: 0xf29900, info: 0x1e8e3e };
/** ntfy priorities: 5 = max (long vibration, pop-over), 4 = high, 3 = default. */
const NTFY_PRIORITY: Record<Severity, string> = { critical: '5', warning: '4', info: '3' };
/** ntfy tags that map to emojis in the app. */
const NTFY_TAG: Record<Severity, string> = { critical: 'rotating_light', warning: 'warning', info: 'white_check_mark' };

/**
 * `t`: the language of the chrome around the notice (its severity tag, where it came from); the notice's
 * own title and body are already worded. The generic payload stays machine-readable (kinds and severities
 * as codes) and says which language its texts are in.
 */
export function formatWebhook(
  config: WebhookTarget,
  notice: Notice,
  now: number,
  t: Translator = translator('en'),
): WebhookRequest {
  switch (config.type) {
    case 'generic':
      return {
        url: config.url,
        headers: { ...JSON_HEADERS, ...bearer(config.secret) },
        body: JSON.stringify({
          source: 'breakerbar',
          kind: notice.kind,
          dep: notice.dep,
          title: notice.title,
          body: notice.body,
          severity: notice.severity,
          ts: new Date(notice.ts).toISOString(),
          count: notice.count,
          language: t.language,
        }),
      };
    case 'slack':
      // `text` alone is a complete message; Slack wants &, < and > escaped in it. Escaping
      // after the cut keeps entities whole (and stays far below Slack's 40,000 hard limit).
      return {
        url: config.url,
        headers: JSON_HEADERS,
        body: JSON.stringify({ text: escapeSlack(plainText(notice, LIMITS.slackText, t)) }),
      };
    case 'discord':
      return {
        url: config.url,
        headers: JSON_HEADERS,
        body: JSON.stringify({
          // A body quoting `@everyone` must not ping a whole server.
          allowed_mentions: { parse: [] },
          embeds: [
            {
              title: truncate(`${severityTag(notice, t)} ${notice.title}`, LIMITS.discordTitle),
              description: truncate(notice.body, LIMITS.discordDescription),
              color: DISCORD_COLOR[notice.severity],
              timestamp: new Date(notice.ts).toISOString(),
              footer: { text: footer(notice, t) },
            },
          ],
        }),
      };
    case 'telegram':
      // Plain text (no parse_mode), so nothing in a title or body needs escaping.
      return {
        url: config.url,
        headers: JSON_HEADERS,
        body: JSON.stringify({
          chat_id: config.chatId ?? '',
          text: plainText(notice, LIMITS.telegramText, t),
          disable_web_page_preview: true,
        }),
      };
    case 'feishu': {
      const payload: Record<string, unknown> = {
        msg_type: 'text',
        content: { text: plainText(notice, LIMITS.feishuText, t) },
      };
      if (config.secret) {
        const timestamp = String(Math.floor(now / 1000));
        payload.timestamp = timestamp;
        payload.sign = feishuSign(config.secret, timestamp);
      }
      return { url: config.url, headers: JSON_HEADERS, body: JSON.stringify(payload) };
    }
    case 'dingtalk': {
      let url = config.url;
      if (config.secret) {
        const timestamp = String(Math.floor(now));
        const sign = encodeURIComponent(dingtalkSign(config.secret, timestamp));
        // Appended as text: re-serialising through URLSearchParams could re-encode the access_token.
        url = `${url}${url.includes('?') ? '&' : '?'}timestamp=${timestamp}&sign=${sign}`;
      }
      return {
        url,
        headers: JSON_HEADERS,
        body: JSON.stringify({ msgtype: 'text', text: { content: plainText(notice, LIMITS.dingtalkText, t) } }),
      };
    }
    case 'ntfy': {
      const tags = [NTFY_TAG[notice.severity], 'breakerbar'];
      return {
        url: config.url,
        headers: {
          'Content-Type': 'text/plain; charset=utf-8',
          Title: encodeHeaderValue(truncate(notice.title, LIMITS.ntfyTitle)),
          Priority: NTFY_PRIORITY[notice.severity],
          Tags: tags.join(','),
          ...bearer(config.secret),
        },
        body: truncateBytes(`${notice.body}\n${footer(notice, t)}`, LIMITS.ntfyBodyBytes),
      };
    }
  }
}

/** Feishu/Lark: HMAC-SHA256 keyed by "timestamp\nsecret" over an empty message, base64. */
export function feishuSign(secret: string, timestampSec: string): string {
  return createHmac('sha256', `${timestampSec}\n${secret}`).update('').digest('base64');
}

/** DingTalk: HMAC-SHA256 keyed by the secret over "timestamp\nsecret", base64 (URL-encoding is the caller's). */
export function dingtalkSign(secret: string, timestampMs: string): string {
  return createHmac('sha256', secret).update(`${timestampMs}\n${secret}`).digest('base64');
}

/** Scheme, host and port only: the path and query of a webhook URL are its credentials. */
export function redactUrl(url: string): string {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return '<invalid url>';
  }
  // `host` already leaves out user:password@.
  return `${parsed.protocol}//${parsed.host}/…`;
}

/** Problems that make a webhook unusable, worded for the person editing the config (its keys as written). Empty = fine. */
export function validateWebhook(config: WebhookConfig): string[] {
  const problems: string[] = [];
  if (!(WEBHOOK_TYPES as readonly string[]).includes(config.type)) {
    problems.push(`unknown webhook type "${String(config.type)}" (expected one of ${WEBHOOK_TYPES.join(', ')})`);
  }
  let parsed: URL | null = null;
  try {
    parsed = new URL(config.url);
  } catch {
    problems.push('url is not a valid URL');
  }
  if (parsed !== null) {
    if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:') {
      problems.push(`url must start with http:// or https:// (got ${parsed.protocol}//)`);
    }
    if (parsed.username !== '' || parsed.password !== '') {
      // fetch refuses such URLs outright.
      problems.push('url must not contain user:password@; put a token in secret instead');
    }
  }
  if (config.type === 'telegram' && !config.chatId) {
    problems.push('telegram webhooks need chatId (the chat, group or @channel to post to)');
  }
  for (const event of config.events) {
    if (!(EVENT_GROUPS as readonly string[]).includes(event) && !isNoticeKind(event)) {
      problems.push(`unknown event "${event}" (expected '*', 'alerts' or one of ${NOTICE_KINDS.join(', ')})`);
    }
  }
  if (config.minSeverity !== undefined && !(SEVERITIES as readonly string[]).includes(config.minSeverity)) {
    problems.push(`minSeverity must be one of ${SEVERITIES.join(', ')}`);
  }
  if (!Number.isFinite(config.timeoutSec) || config.timeoutSec <= 0) {
    problems.push('timeoutSec must be a positive number of seconds');
  }
  if (!Number.isInteger(config.retries) || config.retries < 0) {
    problems.push('retries must be a whole number, 0 or more');
  }
  return problems;
}

/**
 * RFC 2047 for header values outside printable ASCII: HTTP headers cannot carry
 * UTF-8 as such (fetch rejects them), and ntfy decodes `=?UTF-8?B?…?=`.
 */
export function encodeHeaderValue(value: string): string {
  // Line breaks would end the header; they have no place in a title anyway.
  const flat = value.replace(/[\r\n\t]+/g, ' ');
  if (/^[\x20-\x7e]*$/.test(flat)) return flat;
  return `=?UTF-8?B?${Buffer.from(flat, 'utf8').toString('base64')}?=`;
}

/** At most `max` UTF-16 units, ending in '…' when cut, never splitting a surrogate pair. */
export function truncate(text: string, max: number): string {
  if (text.length <= max) return text;
  let end = max - 1;
  const last = text.charCodeAt(end - 1);
  if (last >= 0xd800 && last <= 0xdbff) end -= 1;
  return `${text.slice(0, end)}…`;
}

/** At most `maxBytes` of UTF-8, ending in '…' when cut, never splitting a character. */
export function truncateBytes(text: string, maxBytes: number): string {
  const bytes = Buffer.from(text, 'utf8');
  if (bytes.length <= maxBytes) return text;
  let end = maxBytes - 3; // room for '…' (3 bytes)
  // Step back over continuation bytes (10xxxxxx) to the start of a character.
  while (end > 0 && ((bytes[end] ?? 0) & 0xc0) === 0x80) end -= 1;
  return `${bytes.subarray(0, end).toString('utf8')}…`;
}

function bearer(secret: string | null): Record<string, string> {
  return secret ? { Authorization: `Bearer ${secret}` } : {};
}

function escapeSlack(text: string): string {
  return text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
}

/** Where it came from: chat rooms mix many bots, and some (Feishu, DingTalk) filter by keyword. */
function footer(notice: Notice, t: Translator): string {
  return t.t('notices.webhook.origin', { dep: notice.dep });
}

/** "[CRITICAL]", "【严重】". */
function severityTag(notice: Notice, t: Translator): string {
  return t.t('notices.webhook.severity', { severity: notice.severity });
}

/**
 * "[SEVERITY] title", the body, and a footer, within `max`: the body is what gets
 * cut, so the title and origin always survive.
 */
function plainText(notice: Notice, max: number, t: Translator): string {
  const head = `${severityTag(notice, t)} ${notice.title}`;
  const tail = footer(notice, t);
  const room = Math.max(1, max - head.length - tail.length - 2);
  return truncate(`${head}\n${truncate(notice.body, room)}\n${tail}`, max);
}
