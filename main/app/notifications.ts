/**
 * Native notifications for the core the app started: each `notice` event of
 * its stream (already coalesced and worded by the core) becomes an Electron
 * `Notification`; a click opens the dashboard at that event. A core the app
 * merely attached to (a service daemon) notifies through its own desktop
 * channel, so the app stays quiet then and nothing shows twice.
 */
import { Notification } from 'electron';
import type { ApiEvent } from '../api/types.js';
import type { Notice } from '../core/notify/notice.js';
import { noticeRoute } from './dashboard-route.js';

export interface NotificationOptions {
  /** Subscribes to the core's events; returns the unsubscribe function. */
  subscribe(listener: (event: ApiEvent) => void): () => void;
  /** True while the connected core is the app's own. */
  ownsCore(): boolean;
  /** Opens the dashboard at a route (URL fragment). */
  openDashboard(route: string): void;
  platform: NodeJS.Platform;
}

/** Notifications still on screen: kept referenced, or a collected one loses its click handler. */
const live = new Set<Notification>();
/** Not every platform says when a notification is gone: the oldest are let go beyond this. */
const MAX_LIVE = 50;

export function enableNotifications(options: NotificationOptions): () => void {
  return options.subscribe((event) => {
    if (event.type !== 'notice' || !options.ownsCore()) return;
    showNotice(event.data, options);
  });
}

export function showNotice(notice: Notice, options: Pick<NotificationOptions, 'openDashboard' | 'platform'>): boolean {
  if (!Notification.isSupported()) return false;
  const notification = new Notification({
    title: notice.title,
    body: notice.body,
    // Recovery is good news, not worth a sound.
    silent: notice.severity === 'info',
    // Linux: a critical notice stays until dismissed.
    ...(options.platform === 'linux' ? { urgency: notice.severity === 'critical' ? 'critical' : 'normal' } : {}),
    ...(options.platform === 'win32' ? { timeoutType: notice.severity === 'critical' ? 'never' : 'default' } : {}),
  });
  const forget = () => live.delete(notification);
  notification.on('click', () => {
    forget();
    options.openDashboard(noticeRoute(notice));
  });
  notification.on('close', forget);
  notification.on('failed', forget);
  live.add(notification);
  for (const old of live) {
    if (live.size <= MAX_LIVE) break;
    live.delete(old);
  }
  notification.show();
  return true;
}
