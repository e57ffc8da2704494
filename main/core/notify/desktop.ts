/**
 * Desktop notifications through node-notifier (notify-send on Linux,
 * terminal-notifier on macOS, SnoreToast on Windows). Every failure becomes a
 * rejected promise with a hint the user can act on; nothing throws synchronously.
 */
import notifier from 'node-notifier';
import { formatters } from '../../words/i18n.js';
import type { Notice } from './notice.js';
import { truncate } from './webhook-format.js';

export interface DesktopChannel {
  send(notice: Notice): Promise<void>;
}

/** The part of node-notifier we use, so tests can hand in a fake. */
export interface NotifierLike {
  notify(
    notification: { title: string; message: string; wait: boolean },
    callback: (err: Error | null, response?: string) => void,
  ): unknown;
}

export interface NodeNotifierChannelOptions {
  /** A notifier that never calls back (a hung helper process) fails after this long. */
  timeoutMs?: number;
  notifier?: NotifierLike;
  /** Which install hint to give; defaults to process.platform. */
  platform?: NodeJS.Platform;
}

/** Desktop bubbles show a few lines; the rest is in the dashboard. */
const MAX_TITLE = 100;
const MAX_MESSAGE = 300;

export function createNodeNotifierChannel(options: NodeNotifierChannelOptions = {}): DesktopChannel {
  const show = createDesktopText(options);
  return { send: (notice) => show(notice.title, notice.body) };
}

/**
 * Shows a title and a message on the desktop (a notice, or a confirmation code that is no notice), one at a
 * time: each helper process (notify-send) is started once the one before it has finished, so notices sent in
 * the same instant (a restart and the gateway found down) appear in the order they were sent, not in the order
 * two processes happen to reach the notification daemon. A hung one holds the next for its timeout at most.
 */
export function createDesktopText(
  options: NodeNotifierChannelOptions = {},
): (title: string, message: string) => Promise<void> {
  const showNow = showOne(options);
  let tail: Promise<unknown> = Promise.resolve();
  return (title, message) => {
    const shown = tail.then(() => showNow(title, message));
    tail = shown.catch(() => undefined);
    return shown;
  };
}

function showOne(options: NodeNotifierChannelOptions): (title: string, message: string) => Promise<void> {
  const timeoutMs = options.timeoutMs ?? 10_000;
  const impl: NotifierLike = options.notifier ?? (notifier as unknown as NotifierLike);
  const platform = options.platform ?? process.platform;
  return (title, message) =>
    new Promise<void>((resolve, reject) => {
      let settled = false;
      const finish = (err: Error | null) => {
        if (settled) return;
        settled = true;
        clearTimeout(timer);
        if (err === null) resolve();
        else reject(err);
      };
      const timer = setTimeout(
        () => finish(new Error(`desktop notification timed out after ${formatSeconds(timeoutMs)}`)),
        timeoutMs,
      );
      // A pending desktop notification must not keep the process alive.
      timer.unref();
      try {
        impl.notify(
          {
            title: truncate(title, MAX_TITLE),
            message: truncate(message, MAX_MESSAGE),
            // Do not wait for a click: the callback then reports delivery, not user action.
            wait: false,
          },
          (err) => finish(err ? unavailable(err, platform) : null),
        );
      } catch (err) {
        finish(unavailable(err, platform));
      }
    });
}

function unavailable(err: unknown, platform: NodeJS.Platform): Error {
  const reason =
    (err instanceof Error ? err.message : String(err))
      .replace(/\s+/g, ' ')
      .trim()
      .replace(/[.;]+$/, '') || 'unknown error';
  const hint =
    platform === 'linux'
      ? 'install libnotify-bin and run a notification daemon, or set notifications.desktop to false'
      : 'set notifications.desktop to false to turn them off';
  return new Error(`desktop notifications unavailable: ${reason}; ${hint}`);
}

const EN = formatters('en');
const formatSeconds = (ms: number) => EN.duration(ms, 'precise');
