/**
 * A real `redis-server` for tests (Debian's `redis-server` package; .ci/run
 * installs it): started on 127.0.0.1 on a free port with persistence off,
 * never the system's instance. `kill()` ends it abruptly (SIGKILL, as a crash
 * would); `start()` brings it back on the same port — empty, since nothing is
 * saved. Also a "black hole" server that accepts TCP and never answers.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { once } from 'node:events';
import { connect, createServer, type Server, type Socket } from 'node:net';
import { tmpdir } from 'node:os';

export interface RedisServer {
  readonly port: number;
  /** `redis://127.0.0.1:<port>` (add credentials or a db in tests that need them). */
  readonly url: string;
  readonly running: boolean;
  /** Starts it again (same port, same arguments) after `kill` or `stop`. */
  start(): Promise<void>;
  /** SIGKILL, and waits for the process to be gone. */
  kill(): Promise<void>;
  /** SIGTERM, and waits. */
  stop(): Promise<void>;
}

/** A port free right now on 127.0.0.1 (the OS picks it). */
export async function freePort(): Promise<number> {
  const server = createServer();
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const address = server.address();
  const port = typeof address === 'object' && address ? address.port : 0;
  server.close();
  await once(server, 'close');
  return port;
}

/** Starts `redis-server` on a free loopback port. `extraArgs`: e.g. `['--requirepass', 'secret']`. */
export async function startRedisServer(extraArgs: string[] = []): Promise<RedisServer> {
  const port = await freePort();
  let child: ChildProcess | null = null;
  let output = '';

  const launch = async (): Promise<void> => {
    output = '';
    const proc = spawn(
      'redis-server',
      [
        '--port',
        String(port),
        '--bind',
        '127.0.0.1',
        '--save',
        '',
        '--appendonly',
        'no',
        '--daemonize',
        'no',
        '--dir',
        tmpdir(),
        ...extraArgs,
      ],
      { stdio: ['ignore', 'pipe', 'pipe'] },
    );
    child = proc;
    proc.stdout?.on('data', (chunk: Buffer) => {
      output += chunk.toString();
    });
    proc.stderr?.on('data', (chunk: Buffer) => {
      output += chunk.toString();
    });
    const spawnError = new Promise<never>((_, reject) => {
      proc.once('error', (error) =>
        reject(new Error(`cannot run redis-server (apt-get install redis-server): ${error.message}`)),
      );
      proc.once('exit', (code) => reject(new Error(`redis-server exited (${code}) before it was ready:\n${output}`)));
    });
    spawnError.catch(() => {});
    await Promise.race([waitForPong(port, 5_000), spawnError]);
  };

  const end = async (signal: NodeJS.Signals): Promise<void> => {
    const proc = child;
    child = null;
    if (!proc || proc.exitCode !== null || proc.signalCode !== null) return;
    const exited = once(proc, 'exit');
    proc.kill(signal);
    await exited;
  };

  await launch();
  return {
    port,
    url: `redis://127.0.0.1:${port}`,
    get running() {
      return child !== null;
    },
    start: launch,
    kill: () => end('SIGKILL'),
    stop: () => end('SIGTERM'),
  };
}

/** Polls until something on `port` answers PING with +PONG (or -NOAUTH: up, but wants a password). */
async function waitForPong(port: number, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    if (await pingOnce(port)) return;
    if (Date.now() > deadline) throw new Error(`redis-server on port ${port} not ready after ${timeoutMs} ms`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

function pingOnce(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = connect({ host: '127.0.0.1', port });
    let reply = '';
    const done = (ok: boolean) => {
      socket.destroy();
      resolve(ok);
    };
    socket.setTimeout(500, () => done(false));
    socket.on('connect', () => socket.write('PING\r\n'));
    socket.on('data', (chunk) => {
      reply += chunk.toString();
      if (reply.includes('\r\n')) done(reply.startsWith('+PONG') || reply.startsWith('-NOAUTH'));
    });
    socket.on('error', () => done(false));
  });
}

export interface SilentServer {
  readonly port: number;
  readonly url: string;
  /** Connections accepted so far. */
  readonly connections: number;
  /** Connections still open. */
  readonly open: number;
  close(): Promise<void>;
}

/**
 * Accepts TCP and reads everything, answers nothing — a hung Redis, or the
 * wrong service on the port. `answer` may reply to some requests (e.g. PONG
 * the handshake and then hang).
 */
export async function startSilentServer(answer?: (data: string, socket: Socket) => void): Promise<SilentServer> {
  const sockets = new Set<Socket>();
  let connections = 0;
  const server: Server = createServer((socket) => {
    connections += 1;
    sockets.add(socket);
    socket.on('data', (chunk) => answer?.(chunk.toString('latin1'), socket));
    socket.on('error', () => {});
    socket.on('close', () => sockets.delete(socket));
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const address = server.address();
  const port = typeof address === 'object' && address ? address.port : 0;
  return {
    port,
    url: `redis://127.0.0.1:${port}`,
    get connections() {
      return connections;
    },
    get open() {
      return sockets.size;
    },
    close: async () => {
      for (const socket of sockets) socket.destroy();
      server.close();
      await once(server, 'close');
    },
  };
}
