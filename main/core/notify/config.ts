/**
 * The notifications' config, declared once: the `notifications`, `alerts` and `heartbeat` groups of config.json
 * (keys, defaults, docs, units) and the settings derived from them, every duration in milliseconds by its
 * declared unit.
 */

import { type InMs, inMs } from '../config/durations.js';
import {
  bool,
  DAY_SEC,
  group,
  type Infer,
  int,
  list,
  listOf,
  oneOf,
  optionalSecret,
  optionalSecretUrl,
  optionalString,
  optionalTimeOfDay,
  optionalTimeZone,
  seconds,
  secretUrl,
  timeOfDay,
} from '../config/schema.js';
import { NOTICE_KINDS, SEVERITIES } from './notice.js';
import { WEEKDAYS } from './quiet.js';

/** The chat services and formats a webhook can post in (webhook-format.ts shapes each one's request). */
export const WEBHOOK_TYPES = ['generic', 'slack', 'discord', 'telegram', 'feishu', 'dingtalk', 'ntfy'] as const;
export type WebhookType = (typeof WEBHOOK_TYPES)[number];

/** One webhook: where it posts, in which format, which notices, and how hard it tries. */
export const webhookConfig = group({
  type: oneOf('generic', WEBHOOK_TYPES, 'Payload format.'),
  url: secretUrl('Webhook URL (Telegram: https://api.telegram.org/bot<token>/sendMessage; ntfy: the topic URL).'),
  events: listOf(
    ['alerts'],
    [...NOTICE_KINDS, 'alerts'],
    'Event kinds sent to this webhook: kinds, "alerts" (incidents and what needs a human) or "*" (everything).',
    true,
  ),
  minSeverity: oneOf('warning', SEVERITIES, 'Least severe notice sent (recoveries go where their alarm went).'),
  timeoutSec: seconds(10, 1, 600, 'Per-attempt timeout.'),
  retries: int(3, 0, 20, 'Extra attempts after a failure (backoff doubles).'),
  chatId: optionalString('Telegram chat id (required for telegram).'),
  secret: optionalSecret('Feishu/DingTalk signing secret; for generic and ntfy a Bearer token. Never logged.'),
});

export type WebhookConfig = Infer<typeof webhookConfig>;
/** A webhook as deliveries take it: its timeout in milliseconds. */
export type WebhookSettings = InMs<WebhookConfig>;

export const notificationsConfig = group({
  desktop: bool(true, 'Desktop notifications (node-notifier headless; the tray app uses native ones).'),
  coalesceSec: seconds(
    300,
    1,
    DAY_SEC,
    'At most one notification per kind and dependency in this interval; the rest are folded into a count.',
  ),
  webhooks: list(
    webhookConfig.shape,
    'Webhooks: generic JSON, slack, discord, telegram, feishu, dingtalk, ntfy.',
    'webhooks {type, url, events?, minSeverity?, timeoutSec?, retries?, chatId?, secret?}',
    ['type', 'url'],
  ),
  desktopMinSeverity: oneOf('info', SEVERITIES, 'Least severe notice shown on the desktop.'),
  digest: group({
    enabled: bool(
      false,
      'Hold info and warning notices that are not alerts and send one digest per period and channel.',
    ),
    everySec: seconds(
      3600,
      60,
      7 * DAY_SEC,
      'Digest period (aligned to the clock: 3600 sends on the hour) unless at is set.',
    ),
    at: optionalTimeOfDay('Send the digest once a day at this local time (HH:MM) instead of every everySec.'),
  }),
});

export type NotificationsConfig = Infer<typeof notificationsConfig>;
/** The notifier's settings: the coalescing interval, each webhook's timeout and the digest period in milliseconds. */
export type NotificationSettings = InMs<NotificationsConfig>;

export function notificationSettings(config: NotificationsConfig): NotificationSettings {
  return inMs(notificationsConfig, config);
}

/** A window that comes back every week: quiet hours, a maintenance slot. */
const recurringWindow = {
  days: listOf([...WEEKDAYS], WEEKDAYS, 'Days the window starts on (default every day).'),
  from: timeOfDay('00:00', 'Start, HH:MM.'),
  to: timeOfDay('00:00', 'End, HH:MM; earlier than from means the next day (from = to: 24 hours).'),
  timeZone: optionalTimeZone("IANA time zone of from/to; null means the system's."),
};

export const alertsConfig = group({
  quietHours: list(
    recurringWindow,
    'Quiet hours: no notification below critical (see quietHoursAllowCritical).',
    'windows {days?, from, to, timeZone?}',
    ['from', 'to'],
  ),
  quietHoursAllowCritical: bool(true, 'Critical notices still go out during quiet hours (never during maintenance).'),
  maintenance: list(
    recurringWindow,
    'Recurring maintenance windows: no notification at all and no automatic restart.',
    'windows {days?, from, to, timeZone?}',
    ['from', 'to'],
  ),
});

/** The push monitors a heartbeat URL can be written for (heartbeat-format.ts shapes each one's request). */
export const HEARTBEAT_KINDS = ['generic', 'healthchecks', 'uptime-kuma'] as const;
export type HeartbeatKind = (typeof HEARTBEAT_KINDS)[number];

export const heartbeatConfig = group({
  url: optionalSecretUrl(
    'Push monitor URL pinged every intervalSec (healthchecks.io, Uptime Kuma, any HTTP endpoint); null: off.',
  ),
  intervalSec: seconds(60, 1, DAY_SEC, 'Seconds between pushes.'),
  method: oneOf('POST', ['GET', 'POST'] as const, 'GET, or POST with a JSON body {status, headline, ts}.'),
  kind: oneOf(
    'generic',
    HEARTBEAT_KINDS,
    'URL format: generic, healthchecks (/fail when critical), uptime-kuma (status, msg, ping).',
  ),
  timeoutSec: seconds(10, 1, 600, 'Per-push timeout.'),
});

export type HeartbeatConfig = Infer<typeof heartbeatConfig>;
/** The heartbeat's settings once it has somewhere to push: durations in milliseconds, the URL set. */
export type HeartbeatSettings = Omit<InMs<HeartbeatConfig>, 'url'> & { url: string };

/** The heartbeat's settings, or null when it is off (`url` null). */
export function heartbeatSettings(config: HeartbeatConfig): HeartbeatSettings | null {
  const { url } = config;
  return url === null ? null : { ...inMs(heartbeatConfig, config), url };
}
