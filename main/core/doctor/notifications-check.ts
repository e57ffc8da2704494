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
import { type Finding, saidFinding } from './types.js';

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
    return [saidFinding('notifications', 'info', { key: 'doctor.notify.desktopOff' })];
  }
  const { env, platform } = environment;
  if (platform === 'darwin' || platform === 'win32') {
    const name = platform === 'darwin' ? 'terminal-notifier' : 'SnoreToast';
    const helper = bundledHelper(platform);
    if (helper !== null && existsSync(helper)) {
      return [saidFinding('notifications', 'ok', { key: 'doctor.notify.through', params: { helper: name } }, helper)];
    }
    return [
      saidFinding(
        'notifications',
        'warn',
        { key: 'doctor.notify.helperMissing', params: { helper: name } },
        helper ?? { key: 'doctor.notify.noNodeNotifier' },
        { key: 'doctor.notify.reinstallFix' },
      ),
    ];
  }
  if (platform === 'linux' && envValue(env, 'WSL_DISTRO_NAME')) {
    return [saidFinding('notifications', 'ok', { key: 'doctor.notify.wsl' }, { key: 'doctor.notify.wslDetail' })];
  }
  if (platform !== 'linux') {
    return [
      saidFinding('notifications', 'warn', { key: 'doctor.notify.noBackend', params: { platform } }, undefined, {
        key: 'doctor.notify.noBackendFix',
      }),
    ];
  }
  const notifySend = findOnPath('notify-send', env.PATH);
  if (notifySend === null) {
    return [
      saidFinding(
        'notifications',
        'warn',
        { key: 'doctor.notify.noNotifySend' },
        { key: 'doctor.notify.noNotifySendDetail' },
        { key: 'doctor.notify.noNotifySendFix' },
      ),
    ];
  }
  const runtimeDir = envValue(env, 'XDG_RUNTIME_DIR');
  const bus =
    envValue(env, 'DBUS_SESSION_BUS_ADDRESS') ??
    (runtimeDir && existsSync(join(runtimeDir, 'bus')) ? join(runtimeDir, 'bus') : null);
  if (bus === null) {
    return [
      saidFinding(
        'notifications',
        'warn',
        { key: 'doctor.notify.noBus' },
        { key: 'doctor.notify.noBusDetail', params: { path: notifySend } },
        { key: 'doctor.notify.noBusFix' },
      ),
    ];
  }
  return [
    saidFinding(
      'notifications',
      'ok',
      { key: 'doctor.notify.notifySend' },
      { key: 'doctor.notify.notifySendDetail', params: { path: notifySend } },
    ),
  ];
}

export function checkWebhooks(loaded: LoadedConfig): Finding[] {
  const { webhooks } = loaded.config.notifications;
  const findings = webhooks.map((webhook, i) => {
    const title = {
      key: 'doctor.notify.webhook',
      params: { n: i + 1, type: webhook.type, url: redactUrl(webhook.url) },
    } as const;
    // The problems are validateWebhook's own lines (English, shared with the daemon's refusal to start).
    const problems = validateWebhook(webhook);
    const detail = {
      key: 'doctor.notify.webhookDetail',
      params: { problems, events: webhook.events, minSeverity: webhook.minSeverity ?? 'warning' },
    } as const;
    return problems.length === 0
      ? saidFinding('notifications', 'ok', title, detail)
      : saidFinding('notifications', 'error', title, detail, {
          key: 'doctor.notify.webhookFix',
          params: { i, file: loaded.file },
        });
  });
  if (webhooks.length === 0) {
    findings.push(
      saidFinding(
        'notifications',
        'info',
        { key: 'doctor.notify.noWebhooks' },
        { key: loaded.config.notifications.desktop ? 'doctor.notify.desktopOnly' : 'doctor.notify.dashboardOnly' },
        loaded.config.notifications.desktop ? undefined : { key: 'doctor.notify.addWebhookFix' },
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
      saidFinding(
        'notifications',
        'info',
        { key: 'doctor.notify.noHeartbeat' },
        { key: 'doctor.notify.noHeartbeatDetail' },
        { key: 'doctor.notify.noHeartbeatFix' },
      ),
    ];
  }
  const title = {
    key: 'doctor.notify.heartbeat',
    params: { kind: heartbeat.kind, url: redactUrl(heartbeat.url), intervalSec: heartbeat.intervalSec },
  } as const;
  if (last === null) {
    return [
      saidFinding('notifications', 'warn', title, { key: 'doctor.notify.noPush' }, { key: 'doctor.notify.noPushFix' }),
    ];
  }
  const age = Math.max(0, Math.round((now - last.ts) / 1000));
  if (!last.ok) {
    return [
      saidFinding(
        'notifications',
        'error',
        title,
        { key: 'doctor.notify.pushFailed', params: { age, error: last.error } },
        { key: 'doctor.notify.pushFailedFix' },
      ),
    ];
  }
  // Three intervals without a push: the daemon is not running (or not pushing); the monitor will say so soon.
  if (age > 3 * heartbeat.intervalSec + heartbeat.timeoutSec) {
    return [
      saidFinding(
        'notifications',
        'warn',
        title,
        { key: 'doctor.notify.pushStale', params: { age } },
        { key: 'doctor.notify.pushStaleFix' },
      ),
    ];
  }
  return [
    saidFinding('notifications', 'ok', title, {
      key: 'doctor.notify.pushOk',
      params: { age, status: last.status },
    }),
  ];
}

export function checkNotifications(loaded: LoadedConfig, environment: Environment, now = Date.now()): Finding[] {
  return [...checkDesktop(loaded, environment), ...checkWebhooks(loaded), ...checkHeartbeat(loaded, now)];
}
