/**
 * The notifications' config, declared once: the `heartbeat` group of config.json (keys, defaults, docs, units)
 * and the settings derived from it, every duration in milliseconds by its declared unit.
 */
import { DAY_SEC, group, type Infer, type InMs, inMs, oneOf, optionalSecretUrl, seconds } from '../config/schema.js';

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
