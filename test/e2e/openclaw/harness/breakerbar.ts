/**
 * BreakerBar's daemon as a user runs it beside a real gateway: `breakerbar
 * daemon` (the built CLI) with the gateway's environment, the `openclaw` CLI on
 * its PATH the way `npm install -g openclaw` puts it there, its desktop
 * notifications going through libnotify to a real notification daemon
 * (`desktop-session.ts`), and a generic JSON webhook received on loopback.
 *
 * What a scenario asserts is read from where a user would read it: the SQLite
 * database (decisions, restarts, incidents and their timelines, notifications,
 * breaker transitions), the local API, the webhook's posts and the desktop.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { chmodSync, existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { delimiter, join } from 'node:path';
import Database from 'better-sqlite3';
import { until } from '../../../helpers/transcripts.js';
import type { DesktopNotification, DesktopSession } from './desktop-session.js';
import type { RealGateway } from './gateway.js';
import { type OpenClawRuntime, ROOT } from './runtime.js';

const CLI = join(ROOT, 'dist', 'main', 'cli', 'index.js');

/** One generic webhook post, as the receiver got it. */
export interface WebhookPost {
  at: number;
  kind: string;
  severity: string;
  dep: string | null;
  title: string;
  body: string;
}

export interface BreakerBarOptions {
  root: string;
  runtime: OpenClawRuntime;
  gateway: RealGateway;
  desktop: DesktopSession;
  /** BreakerBar's config file (JSON); the webhook is added to it. */
  config: Record<string, unknown>;
}

export interface BreakerBar {
  readonly home: string;
  readonly apiUrl: string;
  /** Posts the webhook received, oldest first. */
  readonly webhooks: WebhookPost[];
  /** Desktop notifications shown since this daemon started. */
  desktop(): DesktopNotification[];
  /** A read-only query of BreakerBar's database. */
  query<T>(sql: string, ...params: unknown[]): T[];
  /** A call to the local API with the daemon's token. */
  api<T>(method: 'GET' | 'POST', path: string, body?: unknown): Promise<{ status: number; json: T }>;
  /** `breakerbar <args>` against this daemon's home, as the user types it: its exit code and output. */
  cli(args: readonly string[]): Promise<{ exitCode: number | null; stdout: string; stderr: string }>;
  /** What the daemon logged (its JSON lines on stderr). */
  log(): string;
  stop(): Promise<void>;
}

export async function startBreakerBar(options: BreakerBarOptions): Promise<BreakerBar> {
  const { root, runtime, gateway, desktop } = options;
  const home = join(root, 'breakerbar');
  mkdirSync(home, { recursive: true });
  const bin = openclawOnPath(root, runtime);
  const webhooks: WebhookPost[] = [];
  const receiver = await startReceiver(webhooks);
  const webhookUrl = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hook`;
  const config = {
    ...options.config,
    notifications: {
      ...((options.config.notifications as Record<string, unknown>) ?? {}),
      webhooks: [{ type: 'generic', url: webhookUrl }],
    },
  };
  writeFileSync(join(home, 'config.json'), JSON.stringify(config, null, 2));
  const shownBefore = desktop.notifications().length;
  let log = '';
  const daemon: ChildProcess = spawn(process.execPath, [CLI, 'daemon', '--port', '0'], {
    env: {
      ...gateway.env,
      HOME: process.env.HOME,
      BREAKERBAR_HOME: home,
      PATH: `${bin}${delimiter}${process.env.PATH ?? ''}`,
      DBUS_SESSION_BUS_ADDRESS: desktop.busAddress,
      LANG: 'en_US.UTF-8',
    },
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  daemon.stderr?.setEncoding('utf8').on('data', (chunk: string) => {
    log = (log + chunk).slice(-400_000);
  });
  const apiFile = join(home, 'api-url');
  await until(
    () => existsSync(apiFile) || daemon.exitCode !== null,
    60_000,
    () => `the daemon to listen:\n${log}`,
  );
  if (daemon.exitCode !== null) throw new Error(`the daemon exited (${daemon.exitCode}):\n${log}`);
  const apiUrl = readFileSync(apiFile, 'utf8').trim();
  const token = readFileSync(join(home, 'api-token'), 'utf8').trim();
  const dbPath = join(home, 'breakerbar.sqlite');

  return {
    home,
    apiUrl,
    webhooks,
    desktop: () => desktop.notifications().slice(shownBefore),
    query: <T>(sql: string, ...params: unknown[]) => {
      const db = new Database(dbPath, { readonly: true, fileMustExist: true });
      try {
        return db.prepare(sql).all(...params) as T[];
      } finally {
        db.close();
      }
    },
    api: async <T>(method: 'GET' | 'POST', path: string, body?: unknown) => {
      const res = await fetch(`${apiUrl}${path}`, {
        method,
        headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
        body: body === undefined ? undefined : JSON.stringify(body),
      });
      return { status: res.status, json: (await res.json()) as T };
    },
    cli: (args) =>
      new Promise((resolve) => {
        const child = spawn(process.execPath, [CLI, ...args], {
          env: { ...process.env, BREAKERBAR_HOME: home, LANG: 'en_US.UTF-8', NO_COLOR: '1' },
          stdio: ['ignore', 'pipe', 'pipe'],
        });
        let stdout = '';
        let stderr = '';
        child.stdout?.setEncoding('utf8').on('data', (chunk: string) => (stdout += chunk));
        child.stderr?.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
        child.on('exit', (exitCode) => resolve({ exitCode, stdout, stderr }));
      }),
    log: () => log,
    stop: async () => {
      if (daemon.exitCode === null && daemon.signalCode === null) {
        const exited = new Promise((resolve) => daemon.once('exit', resolve));
        daemon.kill('SIGTERM');
        await exited;
      }
      await new Promise<void>((resolve) => receiver.close(() => resolve()));
      receiver.closeAllConnections();
    },
  };
}

/**
 * A directory holding `openclaw`, as a global npm install leaves it on PATH: the installed OpenClaw's entry
 * run by the Node it needs. BreakerBar finds it there and restarts the gateway through it.
 */
function openclawOnPath(root: string, runtime: OpenClawRuntime): string {
  const bin = join(root, 'bin');
  mkdirSync(bin, { recursive: true });
  const shim = join(bin, 'openclaw');
  writeFileSync(shim, `#!/bin/sh\nexec '${runtime.node}' '${runtime.entry}' "$@"\n`);
  chmodSync(shim, 0o755);
  return bin;
}

function startReceiver(posts: WebhookPost[]): Promise<Server> {
  const server = createServer((req, res) => {
    let body = '';
    req.setEncoding('utf8').on('data', (chunk: string) => (body += chunk));
    req.on('end', () => {
      try {
        const parsed = JSON.parse(body) as Partial<WebhookPost>;
        posts.push({
          at: Date.now(),
          kind: String(parsed.kind),
          severity: String(parsed.severity),
          dep: typeof parsed.dep === 'string' ? parsed.dep : null,
          title: String(parsed.title),
          body: String(parsed.body),
        });
        res.writeHead(200).end('ok');
      } catch {
        res.writeHead(400).end('not json');
      }
    });
  });
  return new Promise((resolve) => server.listen(0, '127.0.0.1', () => resolve(server)));
}
