/**
 * The settings a config change may not make without a human saying yes: the ones that run a command,
 * open the API to the network, or send data (and the tokens that go with it) somewhere else; and the
 * ones that turn alerts or recovery off, or move what BreakerBar reads and keeps. A page that could save
 * them unchecked could make the daemon run its own command, post every alert, the gateway token or a
 * provider's API key to an address of its choosing — or silence every alert and restart before the
 * next storm. Some count only one way: turning the watchdog off needs a yes, turning it on does not.
 *
 * `dangerousChanges(current, proposed)` compares two config files as written (keys left out take
 * their defaults) and lists each dangerous key whose value differs, with both values in a form safe
 * to show on a screen, in a log or in a notification: URLs keep only their scheme, host and port (the
 * path and query of a webhook or push URL are its credentials), secrets only whether one is set.
 * Pure.
 */
import { SEVERITIES, type Severity, severityRank } from '../notify/notice.js';
import { redactUrl } from '../notify/webhook-format.js';
import { configSchema } from './index.js';
import { defaultsOf } from './schema.js';

/** A setting that runs a command, opens the API or sends data elsewhere, as a change touches it; values safe to show. */
export interface DangerousChange {
  /** The dotted key (`watchdog.restartCommand`, `notifications.webhooks`, `breakers.probes.zhipu/*`). */
  key: string;
  change: 'added' | 'changed' | 'removed';
  /** Before and after, URLs without path or query, secrets only as "set"; null where there is none. */
  from: string | null;
  to: string | null;
}

export type ChangeKind = DangerousChange['change'];

export interface DangerousChanges {
  changes: DangerousChange[];
  /**
   * Every dangerous value the proposed file sets where it differs from the current one, in full and in
   * a canonical order: what a confirmation is bound to (equal exactly when the changes are the same).
   * It holds secrets: hash it, never show or store it.
   */
  fingerprint: string;
}

/** How one dangerous setting is read, compared and shown. */
interface DangerousKey {
  path: string;
  /** The values that matter, each under its own identity; a single value is one entry under ''. */
  entries(value: unknown): Map<string, unknown>;
  show(value: unknown): string;
  /** Whether a change of one entry (undefined: absent) is dangerous; absent: every change is. */
  weakens?(from: unknown, to: unknown): boolean;
  /** Entries are a record's keys (a dependency pattern), named in the change: `path.key`. */
  named?: true;
}

/** The longest a shown value gets (a command line can be long; the dialog has to stay readable). */
const MAX_SHOWN = 200;

const clip = (text: string): string => (text.length > MAX_SHOWN ? `${text.slice(0, MAX_SHOWN - 1)}…` : text);
const showUrl = (value: unknown): string =>
  typeof value === 'string' ? redactUrl(value) : clip(JSON.stringify(value));
/** A command is shown whole (a human must see what would run), each argument quoted as JSON. */
const showArgv = (value: unknown): string =>
  Array.isArray(value) ? clip(value.map((arg) => JSON.stringify(String(arg))).join(' ')) : clip(JSON.stringify(value));
const showPlain = (value: unknown): string => clip(typeof value === 'string' ? value : JSON.stringify(value));

/** A setting with one value: present unless it is null (which means "none" or "chosen automatically"). */
const single = (
  path: string,
  show: (value: unknown) => string,
  weakens?: (from: unknown, to: unknown) => boolean,
): DangerousKey => ({
  path,
  entries: (value) => (value === null || value === undefined ? new Map() : new Map([['', value]])),
  show,
  ...(weakens ? { weakens } : {}),
});

const turnedOff = (_from: unknown, to: unknown) => to === false;

/** A higher least severity lets fewer notices through (a value that is no severity ranks lowest). */
const rankOf = (value: unknown) =>
  (SEVERITIES as readonly unknown[]).includes(value) ? severityRank(value as Severity) : 0;
const raisesSeverity = (from: unknown, to: unknown) => rankOf(to) > rankOf(from);

/** A list of recurring windows (quiet hours, maintenance): each window added silences something new. */
const windows = (path: string): DangerousKey => ({
  path,
  entries: (value) => new Map((Array.isArray(value) ? value : []).map((w) => [canonical(w), w])),
  show: (value) => {
    if (!isRecord(value)) return showPlain(value);
    const days = Array.isArray(value.days) ? `${value.days.join(',')} ` : '';
    const zone = typeof value.timeZone === 'string' ? ` ${value.timeZone}` : '';
    return `${days}${showPlain(value.from ?? '00:00')}–${showPlain(value.to ?? '00:00')}${zone}`;
  },
  weakens: (_from, to) => to !== undefined,
});

const isRecord = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

/**
 * A webhook is a destination: its type, URL, chat and secret. Its other fields (which events, how
 * severe, timeouts, retries) change what it is sent, not where, and so need no confirmation. The same
 * destinations in another order are no change.
 */
function webhookTarget(webhook: unknown): { id: string; value: unknown } {
  if (!isRecord(webhook)) return { id: JSON.stringify(webhook), value: webhook };
  const target = {
    type: webhook.type ?? null,
    url: webhook.url ?? null,
    chatId: webhook.chatId ?? null,
    secret: webhook.secret ?? null,
  };
  return { id: JSON.stringify(target), value: target };
}

/** What a webhook is sent: its events and least severity, under its destination's identity. */
function webhookFilter(webhook: unknown): [string, unknown] {
  const target = webhookTarget(webhook);
  const w = isRecord(webhook) ? webhook : {};
  return [
    target.id,
    {
      target: target.value,
      events: Array.isArray(w.events) ? w.events : ['alerts'],
      minSeverity: w.minSeverity ?? 'warning',
    },
  ];
}

function showWebhookFilter(value: unknown): string {
  if (!isRecord(value)) return showPlain(value);
  const events = Array.isArray(value.events) ? value.events.join(', ') : showPlain(value.events);
  return `${showWebhook(value.target)}: ${events}, from ${showPlain(value.minSeverity)}`;
}

/**
 * Fewer notices reach a webhook: an event it was sent is no longer named (unless everything is), or its
 * least severity rose. A webhook added or removed is its destination's change, above.
 */
function narrowsWebhook(from: unknown, to: unknown): boolean {
  if (!isRecord(from) || !isRecord(to)) return false;
  const before = Array.isArray(from.events) ? from.events : [];
  const after = Array.isArray(to.events) ? to.events : [];
  const dropped = !after.includes('*') && before.some((event) => !after.includes(event));
  return dropped || raisesSeverity(from.minSeverity, to.minSeverity);
}

function showWebhook(value: unknown): string {
  if (!isRecord(value)) return showPlain(value);
  const chat = value.chatId === null ? '' : ` (chat ${showPlain(value.chatId)})`;
  const secret = value.secret === null ? '' : ' + secret';
  return `${showPlain(value.type)} → ${showUrl(value.url)}${chat}${secret}`;
}

/** A half-open probe sends the API key named by `tokenEnv` to its URL. */
function showProbe(value: unknown): string {
  if (!isRecord(value)) return showPlain(value);
  const token = typeof value.tokenEnv === 'string' ? ` with $${value.tokenEnv}` : '';
  return `${showUrl(value.url)}${token}`;
}

/** Each key with the reason it is here. */
const DANGEROUS_KEYS: readonly DangerousKey[] = [
  // Run by the daemon, applied live: whoever sets them runs a program as this user.
  single('watchdog.restartCommand', showArgv),
  single('quota.command', showArgv),
  // Where the API listens: anything but loopback puts the API and /metrics on the network.
  single('server.host', showPlain),
  single('server.allowNonLoopback', showPlain),
  // Where the gateway's operator token is sent when its metrics are scraped.
  single('gatewayUrl', showUrl),
  // Where alerts, heartbeats and breaker transitions go.
  {
    path: 'notifications.webhooks',
    entries: (value) =>
      new Map((Array.isArray(value) ? value : []).map((webhook) => webhookTarget(webhook)).map((t) => [t.id, t.value])),
    show: showWebhook,
  },
  // What each webhook is sent: narrowed, the alerts stop reaching it.
  {
    path: 'notifications.webhooks',
    entries: (value) => new Map((Array.isArray(value) ? value : []).map(webhookFilter)),
    show: showWebhookFilter,
    weakens: narrowsWebhook,
  },
  single('heartbeat.url', showUrl),
  single('fleet.redisUrl', showUrl),
  // Recovery off: no automatic restart, or decisions that never run.
  single('watchdog.enabled', showPlain, turnedOff),
  single('watchdog.dryRun', showPlain, (_from, to) => to === true),
  // Alerts off: desktop notices, their least severity, quiet hours, critical ones during them, maintenance.
  single('notifications.desktop', showPlain, turnedOff),
  single('notifications.desktopMinSeverity', showPlain, raisesSeverity),
  windows('alerts.quietHours'),
  single('alerts.quietHoursAllowCritical', showPlain, turnedOff),
  windows('alerts.maintenance'),
  // Where BreakerBar reads the gateway and keeps its history: moved, it watches something else, or nothing.
  single('openclawDir', showPlain),
  single('profile', showPlain),
  single('dataDir', showPlain),
  // Where a provider's API key is sent while a breaker is half-open; one entry per dependency pattern.
  {
    path: 'breakers.probes',
    entries: (value) =>
      new Map(
        Object.entries(isRecord(value) ? value : {}).map(([pattern, probe]) => [
          pattern,
          isRecord(probe) ? { url: probe.url ?? null, tokenEnv: probe.tokenEnv ?? null } : probe,
        ]),
      ),
    show: showProbe,
    named: true,
  },
];

/** The dangerous keys, for what says which settings need confirming. */
export const DANGEROUS_KEY_PATHS: readonly string[] = [...new Set(DANGEROUS_KEYS.map((key) => key.path))];

const DEFAULTS = defaultsOf(configSchema) as Record<string, unknown>;

/** The value at a dotted path of a config file, or its default when the file leaves it out. */
function valueAt(config: unknown, path: string): unknown {
  let node: unknown = config;
  let fallback: unknown = DEFAULTS;
  for (const part of path.split('.')) {
    node = isRecord(node) ? node[part] : undefined;
    fallback = isRecord(fallback) ? fallback[part] : undefined;
  }
  return node === undefined ? fallback : node;
}

/** Objects with their keys sorted, so that the same values always give the same text. */
function canonical(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonical).join(',')}]`;
  if (isRecord(value)) {
    const keys = Object.keys(value).sort();
    return `{${keys.map((key) => `${JSON.stringify(key)}:${canonical(value[key])}`).join(',')}}`;
  }
  return JSON.stringify(value) ?? 'null';
}

/**
 * The dangerous keys `proposed` changes from `current` (both config files as written; what either
 * leaves out is its default), in the order of the list above, entries of a list or record by identity.
 */
export function dangerousChanges(current: unknown, proposed: unknown): DangerousChanges {
  const changes: DangerousChange[] = [];
  const bound: Array<[string, ChangeKind, string, string]> = [];
  for (const key of DANGEROUS_KEYS) {
    const before = key.entries(valueAt(current, key.path));
    const after = key.entries(valueAt(proposed, key.path));
    const ids = [...new Set([...before.keys(), ...after.keys()])].sort();
    for (const id of ids) {
      const from = before.get(id);
      const to = after.get(id);
      if (from !== undefined && to !== undefined && canonical(from) === canonical(to)) continue;
      if (key.weakens && !key.weakens(from, to)) continue;
      const change: ChangeKind = from === undefined ? 'added' : to === undefined ? 'removed' : 'changed';
      // A record's entries are keys of their own: the dependency pattern is part of what is confirmed.
      const name = key.named ? `${key.path}.${id}` : key.path;
      changes.push({
        key: name,
        change,
        from: from === undefined ? null : key.show(from),
        to: to === undefined ? null : key.show(to),
      });
      bound.push([name, change, canonical(from ?? null), canonical(to ?? null)]);
    }
  }
  return { changes, fingerprint: canonical(bound) };
}
