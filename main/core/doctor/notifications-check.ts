/**
 * Check 6: where alerts would go. Desktop notifications go through
 * node-notifier, whose backend depends on the platform; webhooks are checked
 * for problems only: nothing is sent, and their URLs (which carry tokens) are
 * shown redacted.
 */
import { existsSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import Database from 'better-sqlite3';
import type { Environment, LoadedConfig } from '../config/index.js';
import { type HeartbeatResult, META_HEARTBEAT, parseHeartbeatMeta } from '../notify/heartbeat-result.js';
import { redactUrl, validateWebhook } from '../notify/webhook-format.js';
import { envValue, findOnPath } from './fs-util.js';
import { type Finding, finding } from './types.js';

const DESKTOP_OFF_FIX = 'or set notifications.desktop to false';

/** node-notifier's bundled helper programs, relative to its package directory. */
const BUNDLED = {
  darwin: join('vendor', 'mac.noindex', 'terminal-notifier.app', 'Contents', 'MacOS', 'terminal-notifier'),
  win32: join('vendor', 'snoreToast', 'snoretoast-x64.exe'),
} as const;

function nodeNotifierDir(): string | null {
  try {
    return dirname(createRequire(import.meta.url).resolve('node-notifier/package.json'));
  } catch {
    return null;
  }
}

function bundledHelper(platform: 'darwin' | 'win32'): string | null {
  const dir = nodeNotifierDir();
  return dir === null ? null : join(dir, BUNDLED[platform]);
}

export function checkDesktop(loaded: LoadedConfig, environment: Environment): Finding[] {
  if (!loaded.config.notifications.desktop) {
    return [finding('notifications', 'info', 'desktop notifications off (notifications.desktop false)')];
  }
  const { env, platform } = environment;
  if (platform === 'darwin' || platform === 'win32') {
    const name =
      platform === 'darwin' ? "node-notifier's bundled terminal-notifier" : "node-notifier's bundled SnoreToast";
    const helper = bundledHelper(platform);
    if (helper !== null && existsSync(helper)) {
      return [finding('notifications', 'ok', `desktop notifications through ${name}`, helper)];
    }
    return [
      finding(
        'notifications',
        'warn',
        `desktop notifications: ${name} is missing`,
        helper ?? 'node-notifier is not installed',
        `reinstall BreakerBar (npm install) ${DESKTOP_OFF_FIX}`,
      ),
    ];
  }
  if (platform === 'linux' && envValue(env, 'WSL_DISTRO_NAME')) {
    return [
      finding(
        'notifications',
        'ok',
        'desktop notifications through Windows toasts (WSL)',
        "node-notifier's SnoreToast",
      ),
    ];
  }
  if (platform !== 'linux') {
    return [
      finding(
        'notifications',
        'warn',
        `desktop notifications: node-notifier has no backend for ${platform}`,
        undefined,
        `use a webhook instead (notifications.webhooks), ${DESKTOP_OFF_FIX}`,
      ),
    ];
  }
  const notifySend = findOnPath('notify-send', env.PATH);
  if (notifySend === null) {
    return [
      finding(
        'notifications',
        'warn',
        'desktop notifications: notify-send not found on PATH',
        'node-notifier shows Linux notifications with notify-send (libnotify)',
        'apt-get install libnotify-bin and run a notification daemon, or set notifications.desktop to false',
      ),
    ];
  }
  const runtimeDir = envValue(env, 'XDG_RUNTIME_DIR');
  const bus =
    envValue(env, 'DBUS_SESSION_BUS_ADDRESS') ??
    (runtimeDir && existsSync(join(runtimeDir, 'bus')) ? join(runtimeDir, 'bus') : null);
  if (bus === null) {
    return [
      finding(
        'notifications',
        'warn',
        'desktop notifications: no desktop session bus (DBUS_SESSION_BUS_ADDRESS unset)',
        `notify-send is ${notifySend}, but without a session bus it cannot reach a notification daemon (a server, or a service started outside the desktop session)`,
        `run BreakerBar in your desktop session, ${DESKTOP_OFF_FIX}`,
      ),
    ];
  }
  return [
    finding('notifications', 'ok', 'desktop notifications through notify-send', `${notifySend}; session bus found`),
  ];
}

export function checkWebhooks(loaded: LoadedConfig): Finding[] {
  const { webhooks } = loaded.config.notifications;
  const where = loaded.file ? ` in ${loaded.file}` : '';
  const findings = webhooks.map((webhook, i) => {
    const title = `webhook ${i + 1}: ${webhook.type} → ${redactUrl(webhook.url)}`;
    const detail = `events: ${webhook.events.join(', ')}; minSeverity: ${webhook.minSeverity ?? 'warning'}`;
    const problems = validateWebhook(webhook);
    return problems.length === 0
      ? finding('notifications', 'ok', title, detail)
      : finding(
          'notifications',
          'error',
          title,
          `${problems.join('; ')}; ${detail}`,
          `fix notifications.webhooks[${i}]${where}`,
        );
  });
  if (webhooks.length === 0) {
    findings.push(
      finding(
        'notifications',
        'info',
        'no webhooks',
        loaded.config.notifications.desktop
          ? 'alerts go to the desktop only'
          : 'and desktop notifications are off: alerts show only in the dashboard and /metrics',
        loaded.config.notifications.desktop
          ? undefined
          : 'add one under notifications.webhooks (slack, discord, telegram, feishu, dingtalk, ntfy, generic)',
      ),
    );
  }
  return findings;
}

/** The last heartbeat push the daemon kept in its database, or null (none yet, or no database). */
export function lastHeartbeat(dbPath: string): HeartbeatResult | null {
  if (!existsSync(dbPath)) return null;
  let db: Database.Database | null = null;
  try {
    db = new Database(dbPath, { readonly: true, fileMustExist: true });
    const row = db.prepare('SELECT value FROM meta WHERE key = ?').get(META_HEARTBEAT) as { value: string } | undefined;
    return parseHeartbeatMeta(row?.value);
  } catch {
    return null;
  } finally {
    db?.close();
  }
}

/** The off-box heartbeat: configured, and did the last push get through (and is it recent)? */
export function checkHeartbeat(loaded: LoadedConfig, now: number, last = lastHeartbeat(loaded.dbPath)): Finding[] {
  const { heartbeat } = loaded.config;
  if (heartbeat.url === null) {
    return [
      finding(
        'notifications',
        'info',
        'no heartbeat (heartbeat.url null)',
        'nothing off this machine notices if BreakerBar itself stops',
        'set heartbeat.url to a push monitor (healthchecks.io, Uptime Kuma)',
      ),
    ];
  }
  const title = `heartbeat (${heartbeat.kind}) → ${redactUrl(heartbeat.url)} every ${heartbeat.intervalSec} s`;
  if (last === null) {
    return [finding('notifications', 'warn', title, 'no push recorded yet', 'start the daemon (`breakerbar daemon`)')];
  }
  const age = Math.max(0, Math.round((now - last.ts) / 1000));
  if (!last.ok) {
    return [
      finding(
        'notifications',
        'error',
        title,
        `last push ${age} s ago failed: ${last.error ?? 'unknown error'}`,
        'check heartbeat.url and that this machine can reach it',
      ),
    ];
  }
  // Three intervals without a push: the daemon is not running (or not pushing); the monitor will say so soon.
  if (age > 3 * heartbeat.intervalSec + heartbeat.timeoutSec) {
    return [
      finding(
        'notifications',
        'warn',
        title,
        `last push ${age} s ago was delivered, but none since`,
        'is the daemon running? (`breakerbar status`)',
      ),
    ];
  }
  return [finding('notifications', 'ok', title, `last push ${age} s ago delivered (status ${last.status})`)];
}

export function checkNotifications(loaded: LoadedConfig, environment: Environment, now = Date.now()): Finding[] {
  return [...checkDesktop(loaded, environment), ...checkWebhooks(loaded), ...checkHeartbeat(loaded, now)];
}
