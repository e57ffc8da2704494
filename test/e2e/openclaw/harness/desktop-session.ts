/**
 * A real Linux desktop's notification path for BreakerBar's daemon: a D-Bus
 * session bus of its own (`dbus-daemon --session`) and a notification daemon
 * on it (`dunst`, on a virtual X display from `xvfb-run`, printing every
 * notification it receives with `-print`). The daemon under test gets the bus's
 * address; node-notifier then runs libnotify's `notify-send`, exactly as on a
 * desktop, and what dunst printed is what the user would have seen.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { until } from '../../../helpers/transcripts.js';

export interface DesktopNotification {
  /** When dunst printed it (epoch ms, this process's clock). */
  at: number;
  summary: string;
  body: string;
}

export interface DesktopSession {
  /** `DBUS_SESSION_BUS_ADDRESS` for the processes that notify. */
  readonly busAddress: string;
  /** Every notification shown so far, oldest first. */
  notifications(): DesktopNotification[];
  stop(): Promise<void>;
}

export async function startDesktopSession(): Promise<DesktopSession> {
  // Every output not read is 'ignore': a pipe nobody drains fills up, and the daemon writing to it blocks (dunst
  // warns on stderr for each notification; after a few hundred, notify-send would hang).
  const bus = spawn('dbus-daemon', ['--session', '--nofork', '--print-address=1'], {
    stdio: ['ignore', 'pipe', 'ignore'],
    detached: true,
  });
  const busAddress = await firstLine(bus, 'dbus-daemon');
  let printed = '';
  const shown: DesktopNotification[] = [];
  const daemon = spawn('xvfb-run', ['-a', 'dunst', '-print'], {
    env: { ...process.env, DBUS_SESSION_BUS_ADDRESS: busAddress },
    stdio: ['ignore', 'pipe', 'ignore'],
    // Its own process group: xvfb-run's Xvfb and dunst are stopped together.
    detached: true,
  });
  daemon.stdout?.setEncoding('utf8').on('data', (chunk: string) => {
    printed += chunk;
    // dunst prints one `{ … }` block per notification; a block is taken once its closing brace is in.
    for (;;) {
      const end = printed.indexOf('\n}\n');
      if (end < 0) break;
      const block = printed.slice(0, end + 3);
      printed = printed.slice(end + 3);
      shown.push({ at: Date.now(), summary: field(block, 'summary'), body: field(block, 'body') });
    }
  });
  await untilOwned(busAddress, daemon);
  return {
    busAddress,
    notifications: () => [...shown],
    stop: async () => {
      await Promise.all([stopGroup(daemon), stopGroup(bus)]);
    },
  };
}

/** A quoted field of dunst's printout (`\tsummary: 'text'`), multi-line bodies included. */
function field(block: string, name: string): string {
  const match = new RegExp(`\\n\\t${name}: '([\\s\\S]*?)'\\n\\t[a-z_]+:`).exec(block);
  return match?.[1] ?? '';
}

function firstLine(child: ChildProcess, what: string): Promise<string> {
  return new Promise((resolve, reject) => {
    let text = '';
    const onData = (chunk: Buffer) => {
      text += chunk.toString('utf8');
      const newline = text.indexOf('\n');
      if (newline >= 0) {
        child.stdout?.off('data', onData);
        resolve(text.slice(0, newline).trim());
      }
    };
    child.stdout?.on('data', onData);
    child.once('error', reject);
    child.once('exit', (code) => reject(new Error(`${what} exited (${code}) before it printed its address`)));
  });
}

/**
 * Resolves once a notification daemon owns `org.freedesktop.Notifications` on the bus: before that a
 * notification would be lost (or D-Bus would start one of its own). Asked with `dbus-send`.
 */
async function untilOwned(busAddress: string, daemon: ChildProcess): Promise<void> {
  await until(
    async () => {
      if (daemon.exitCode !== null) throw new Error(`dunst exited (${daemon.exitCode}) while starting`);
      return hasOwner(busAddress, 'org.freedesktop.Notifications');
    },
    30_000,
    'a notification daemon on the session bus',
    50,
  );
}

function hasOwner(busAddress: string, name: string): Promise<boolean> {
  return new Promise((resolve) => {
    const ask = spawn(
      'dbus-send',
      [
        '--session',
        '--print-reply',
        '--dest=org.freedesktop.DBus',
        '/org/freedesktop/DBus',
        'org.freedesktop.DBus.NameHasOwner',
        `string:${name}`,
      ],
      { env: { ...process.env, DBUS_SESSION_BUS_ADDRESS: busAddress }, stdio: ['ignore', 'pipe', 'ignore'] },
    );
    let out = '';
    ask.stdout?.on('data', (chunk: Buffer) => (out += chunk.toString('utf8')));
    ask.on('exit', () => resolve(/boolean true/.test(out)));
  });
}

async function stopGroup(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null || child.pid === undefined) return;
  const exited = new Promise((resolve) => child.once('exit', resolve));
  try {
    process.kill(-child.pid, 'SIGTERM');
  } catch {
    // Already gone.
  }
  await exited;
}
