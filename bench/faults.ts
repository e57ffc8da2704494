/**
 * `npm run bench -- faults`: the faults found in hardening, replayed against the real Monitor as the daemon
 * runs it (built code: the ingest writer's thread, the local API's server), each in a data directory of its
 * own with the simulated gateway on loopback. For each it prints what was lost (must be 0) and how long the
 * local API's `/healthz` went unanswered while the fault lasted (must be 0 s): `/healthz` is asked every
 * 100 ms, and an answer that fails or takes over a second counts its interval as unavailable.
 *
 * - odd records: a transcript whose records carry a fraction or a number past 2^53 where SQLite keeps whole
 *   numbers (they once failed their whole batch, and the file was retried forever);
 * - named pipes: a FIFO as a transcript and as the day's gateway log (a blocking open() once froze the daemon);
 * - slow bodies: 128 connections announcing a 16,000-byte body and sending one byte (they once held every
 *   client out);
 * - a stale address: the daemon gone, another program on its port, the CLI asked to act (it once sent the
 *   API token there);
 * - a full disk: the data directory on a small file system filled up while calls keep coming (a write once
 *   ended the daemon). This needs a file system of its own: a 32 MiB tmpfs, which only root can mount; where
 *   it cannot be mounted the case says so and is not counted.
 */
import { execFileSync } from 'node:child_process';
import { closeSync, mkdirSync, mkdtempSync, openSync, rmSync, writeFileSync, writeSync } from 'node:fs';
import { createServer } from 'node:http';
import { type AddressInfo, connect as connectSocket, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Monitor } from '../main/api/root/monitor.js';
import { ApiClientError, connect } from '../main/cli/api-client.js';
import { configSchema, type LoadedConfig, resolveDirectories } from '../main/core/config/index.js';
import { parseWith } from '../main/core/config/schema.js';
import { silentLogger } from '../main/core/runtime/log.js';
import type { SourceStatus } from '../main/core/sources/source.js';
import { Store } from '../main/core/store/db.js';
import { assistantMessage, sessionHeader } from '../main/simulator/records.js';
import { type SimulatedGateway, startSimulatedGateway } from '../main/simulator/simulated-gateway.js';
import { appendLines, until } from '../test/helpers/transcripts.js';
import { machine, recordSection, summarize } from './report.js';

interface FaultResult {
  fault: string;
  /** What was lost (calls not stored, or tokens sent where they must not go); null: the case cannot lose any. */
  lost: number | null;
  lostWhat: string;
  /** ms `/healthz` went unanswered while the fault lasted; null: no daemon runs in this case. */
  unavailableMs: number | null;
  detail: string;
  /** Why the case did not run here (then it is not counted). */
  skipped?: string;
}

/** Asks `/healthz` every 100 ms; sums the intervals whose answer failed or took over a second. */
class HealthWatch {
  private unavailable = 0;
  private polls = 0;
  private running = true;
  private readonly done: Promise<void>;

  constructor(url: string) {
    this.done = this.loop(url);
  }

  private async loop(url: string): Promise<void> {
    while (this.running) {
      const started = performance.now();
      let ok = false;
      try {
        const response = await fetch(`${url}/healthz`, { signal: AbortSignal.timeout(1000) });
        ok = response.ok;
        await response.arrayBuffer();
      } catch {
        ok = false;
      }
      this.polls += 1;
      const took = performance.now() - started;
      if (!ok || took > 1000) this.unavailable += Math.max(took, 100);
      await new Promise((resolve) => setTimeout(resolve, Math.max(0, 100 - took)));
    }
  }

  async stop(): Promise<{ unavailableMs: number; polls: number }> {
    this.running = false;
    await this.done;
    return { unavailableMs: Math.round(this.unavailable), polls: this.polls };
  }
}

/** A monitor on `dataDir` following `root/openclaw`, with the simulated gateway; stopped by `stop`. */
async function startMonitor(root: string, dataDir: string, gateway: SimulatedGateway) {
  const config = {
    openclawDir: join(root, 'openclaw'),
    dataDir,
    gatewayLogDir: join(root, 'logs'),
    gatewayUrl: gateway.baseUrl,
    gatewayMetrics: { enabled: false },
    ingest: { reconcileIntervalMs: 200 },
    notifications: { desktop: false },
    quota: { enabled: false },
    server: { port: 0 },
  };
  mkdirSync(join(root, 'logs'), { recursive: true });
  mkdirSync(join(root, 'openclaw', 'agents', 'main', 'sessions'), { recursive: true });
  const loaded = resolveDirectories(parseWith(configSchema, config), null, {
    env: {},
    home: root,
    platform: process.platform,
  });
  const monitor = new Monitor(loaded, { log: silentLogger, storeWatchMs: 1000 });
  await monitor.start();
  return { monitor, loaded, url: monitor.apiUrl as string };
}

/** Calls stored, read through a connection of its own (as `breakerbar history` would). */
function storedCalls(dbPath: string): number {
  const store = Store.open(dbPath, { readonly: true });
  try {
    return store.db.prepare('SELECT COUNT(*) FROM calls').pluck().get() as number;
  } finally {
    store.close();
  }
}

let entry = 0;
/** `n` calls as OpenClaw writes them; `odd` changes a record's JSON before it is written. */
function calls(
  n: number,
  odd?: (record: { timestamp?: unknown; message: Record<string, unknown> }, i: number) => void,
): string[] {
  const lines: string[] = [];
  for (let i = 0; i < n; i++) {
    entry += 1;
    const line = assistantMessage({
      id: `f${entry}`,
      parentId: null,
      ts: Date.now() - 1000 + i,
      provider: 'zhipu',
      model: 'glm-5.1',
      outcome: 'ok',
      text: 'ok',
      totalTokens: 120,
    });
    if (!odd) {
      lines.push(line);
      continue;
    }
    const record = JSON.parse(line) as { timestamp?: unknown; message: Record<string, unknown> };
    odd(record, i);
    lines.push(JSON.stringify(record));
  }
  return lines;
}

function transcript(root: string, name: string): string {
  return join(root, 'openclaw', 'agents', 'main', 'sessions', `${name}.jsonl`);
}

async function withCase(
  name: string,
  body: (root: string, gateway: SimulatedGateway) => Promise<FaultResult>,
): Promise<FaultResult> {
  const root = mkdtempSync(join(tmpdir(), `bb-faults-${name}-`));
  const gateway = await startSimulatedGateway();
  try {
    return await body(root, gateway);
  } finally {
    await gateway.close();
    rmSync(root, { recursive: true, force: true, maxRetries: 5 });
  }
}

/** 47 records, every fourth odd in a number SQLite keeps whole: every one stored. */
function oddRecords(): Promise<FaultResult> {
  return withCase('odd', async (root, gateway) => {
    const { monitor, loaded, url } = await startMonitor(root, join(root, 'data'), gateway);
    const watch = new HealthWatch(url);
    const path = transcript(root, 'odd-0000-4000-8000-000000000001');
    let oddWritten = 0;
    const odd = [
      (r: { message: Record<string, unknown> }) => ((r.message.usage as Record<string, unknown>).input = 1.5),
      (r: { message: Record<string, unknown> }) => ((r.message.usage as Record<string, unknown>).output = 2 ** 60),
      // The message's own time counts where the entry has none.
      (r: { timestamp?: unknown; message: Record<string, unknown> }) => {
        delete r.timestamp;
        r.message.timestamp = (r.message.timestamp as number) + 0.25;
      },
      (r: { message: Record<string, unknown> }) =>
        Object.assign(r.message, {
          stopReason: 'error',
          errorMessage: '429 Too Many Requests',
          errorRetryAfterMs: 1500.5,
        }),
    ];
    appendLines(path, [
      sessionHeader('odd-session', Date.now()),
      // Every fourth record odd, the four kinds in turn.
      ...calls(47, (record, i) => {
        if (i % 4 !== 3) return;
        odd[oddWritten % odd.length]?.(record);
        oddWritten += 1;
      }),
    ]);
    const written = 47;
    await until(() => storedCalls(loaded.dbPath) === written, 15_000, 'the 47 calls stored').catch(() => undefined);
    const stored = storedCalls(loaded.dbPath);
    const status = (await (await fetch(`${url}/api/status`)).json()) as { sources: SourceStatus[] };
    const repaired = status.sources.find((source) => source.kind === 'jsonl')?.repaired ?? 0;
    const health = await watch.stop();
    await monitor.stop();
    return {
      fault: 'odd records (fractions, numbers past 2^53)',
      lost: written - stored,
      lostWhat: 'calls',
      unavailableMs: health.unavailableMs,
      detail: `${stored} of ${written} calls stored; of the ${oddWritten} odd ones, ${repaired} counted as repaired`,
    };
  });
}

/** A FIFO as a transcript and as the day's gateway log, beside a transcript that must be read. */
function namedPipes(): Promise<FaultResult> {
  return withCase('fifo', async (root, gateway) => {
    const { monitor, loaded, url } = await startMonitor(root, join(root, 'data'), gateway);
    const watch = new HealthWatch(url);
    const day = new Date();
    const pad = (n: number) => String(n).padStart(2, '0');
    const log = join(
      root,
      'logs',
      `openclaw-${day.getFullYear()}-${pad(day.getMonth() + 1)}-${pad(day.getDate())}.log`,
    );
    execFileSync('mkfifo', [transcript(root, 'pipe-0000-4000-8000-000000000001')]);
    execFileSync('mkfifo', [log]);
    appendLines(transcript(root, 'real-0000-4000-8000-000000000001'), [
      sessionHeader('real-session', Date.now()),
      ...calls(20),
    ]);
    await until(() => storedCalls(loaded.dbPath) === 20, 15_000, 'the 20 calls stored').catch(() => undefined);
    // The readers look at the pipes again at every reconcile: keep watching through a few of them.
    await new Promise((resolve) => setTimeout(resolve, 3000));
    const stored = storedCalls(loaded.dbPath);
    const health = await watch.stop();
    await monitor.stop();
    return {
      fault: 'named pipes as a transcript and the gateway log',
      lost: 20 - stored,
      lostWhat: 'calls',
      unavailableMs: health.unavailableMs,
      detail: `${stored} of 20 calls of the real transcript stored; both pipes skipped`,
    };
  });
}

/** 128 connections announcing 16,000 bytes and sending one, held for 5 s. */
function slowBodies(): Promise<FaultResult> {
  return withCase('slow', async (root, gateway) => {
    const { monitor, url } = await startMonitor(root, join(root, 'data'), gateway);
    const { port } = new URL(url);
    let closed = 0;
    const sockets: Socket[] = Array.from({ length: 128 }, () => {
      const socket = connectSocket(Number(port), '127.0.0.1');
      socket.on('error', () => undefined);
      socket.on('close', () => closed++);
      socket.resume();
      socket.write(
        'POST /api/session HTTP/1.1\r\nHost: 127.0.0.1\r\ncontent-type: application/json\r\ncontent-length: 16000\r\n\r\n{',
      );
      return socket;
    });
    const watch = new HealthWatch(url);
    await new Promise((resolve) => setTimeout(resolve, 5000));
    const health = await watch.stop();
    for (const socket of sockets) socket.destroy();
    await monitor.stop();
    return {
      fault: '128 slow request bodies',
      lost: null,
      lostWhat: '',
      unavailableMs: health.unavailableMs,
      detail: `/healthz asked ${health.polls} times in 5 s; ${closed} of the 128 slow connections closed by the server`,
    };
  });
}

/** The daemon gone, its address file left, another program on the port: the CLI asked to resume. */
function staleAddress(): Promise<FaultResult> {
  return withCase('stale', async (root, gateway) => {
    const { monitor, loaded } = await startMonitor(root, join(root, 'data'), gateway);
    await monitor.stop();
    const tokens: string[] = [];
    const squatter = createServer((req, res) => {
      if (req.headers.authorization) tokens.push(req.headers.authorization);
      res.end('{}');
    });
    await new Promise<void>((resolve) => squatter.listen(0, '127.0.0.1', resolve));
    const address = `http://127.0.0.1:${(squatter.address() as AddressInfo).port}`;
    writeFileSync(join(loaded.dataDir, 'api-url'), `${address}\n`);
    let refused = '';
    try {
      await connect(loaded as LoadedConfig).call('resume');
    } catch (error) {
      refused = error instanceof ApiClientError ? error.message : `unexpected: ${(error as Error).message}`;
    } finally {
      await new Promise<void>((resolve) => squatter.close(() => resolve()));
    }
    return {
      fault: 'a stale address, another program on the port',
      lost: tokens.length,
      lostWhat: 'tokens sent',
      unavailableMs: null,
      detail: refused.startsWith('no BreakerBar is running')
        ? 'the CLI refused to send the token, saying no BreakerBar holds the data directory'
        : `the CLI ${refused ? `failed otherwise: ${refused}` : 'sent its request'}`,
    };
  });
}

/** The data directory on a 32 MiB tmpfs, filled while 500 calls arrive, then freed. */
function fullDisk(): Promise<FaultResult> {
  const fault = 'a full disk while running';
  return withCase('full', async (root, gateway) => {
    const dataDir = join(root, 'data');
    mkdirSync(dataDir);
    try {
      execFileSync('mount', ['-t', 'tmpfs', '-o', 'size=32m,mode=0700', 'tmpfs', dataDir], { stdio: 'pipe' });
    } catch (error) {
      const why = (error as { stderr?: Buffer }).stderr?.toString().trim() || (error as Error).message;
      return {
        fault,
        lost: null,
        lostWhat: '',
        unavailableMs: null,
        detail: '',
        skipped: `a small file system of its own could not be mounted (${why.split('\n')[0]}); it needs root`,
      };
    }
    try {
      const { monitor, loaded, url } = await startMonitor(root, dataDir, gateway);
      const watch = new HealthWatch(url);
      const path = transcript(root, 'full-0000-4000-8000-000000000001');
      appendLines(path, [sessionHeader('full-session', Date.now()), ...calls(50)]);
      await until(() => storedCalls(loaded.dbPath) === 50, 15_000, 'the first 50 calls stored');
      const filler = join(dataDir, 'filler');
      const fd = openSync(filler, 'w');
      const block = Buffer.alloc(1 << 20);
      try {
        for (;;) writeSync(fd, block);
      } catch {
        // ENOSPC: the disk is full.
      }
      try {
        for (;;) writeSync(fd, block.subarray(0, 4096));
      } catch {
        // Not one page left.
      }
      closeSync(fd);
      appendLines(path, calls(500));
      const status = async () =>
        (await (await fetch(`${url}/api/status`)).json()) as { store?: { ok: boolean; problem?: string } };
      await until(async () => (await status()).store?.problem === 'full', 20_000, 'the store said full').catch(
        () => undefined,
      );
      const saidFull = (await status()).store?.problem === 'full';
      const storedWhileFull = storedCalls(loaded.dbPath);
      rmSync(filler);
      await until(() => storedCalls(loaded.dbPath) === 550, 30_000, 'the 500 calls stored').catch(() => undefined);
      const stored = storedCalls(loaded.dbPath);
      await until(async () => (await status()).store?.ok === true, 20_000, 'the store ok again').catch(() => undefined);
      const recovered = (await status()).store?.ok === true;
      const health = await watch.stop();
      await monitor.stop();
      return {
        fault,
        lost: 550 - stored,
        lostWhat: 'calls',
        unavailableMs: health.unavailableMs,
        detail:
          `${saidFull ? 'said full' : 'never said full'} with ${storedWhileFull} of 550 stored; ` +
          `${stored} of 550 once freed, ${recovered ? 'store ok again' : 'store still not ok'}`,
      };
    } finally {
      execFileSync('umount', ['-l', dataDir]);
    }
  });
}

export async function faultsBench(): Promise<void> {
  const results: FaultResult[] = [];
  for (const run of [oddRecords, namedPipes, slowBodies, staleAddress, fullDisk]) {
    const result = await run();
    results.push(result);
    const lost = result.skipped ? 'skipped' : result.lost === null ? '–' : `${result.lost} ${result.lostWhat}`;
    const down = result.unavailableMs === null ? '–' : `${(result.unavailableMs / 1000).toFixed(1)} s`;
    process.stdout.write(
      `${result.fault}: lost ${lost}, /healthz unavailable ${down}; ${result.skipped ?? result.detail}\n`,
    );
  }
  const counted = results.filter((r) => !r.skipped);
  const lost = counted.reduce((sum, r) => sum + (r.lost ?? 0), 0);
  const down = counted.reduce((sum, r) => sum + (r.unavailableMs ?? 0), 0);
  summarize('faults', 'lost (calls or tokens), all cases', String(lost), '0');
  summarize('faults', '/healthz unavailable, all cases', `${(down / 1000).toFixed(1)} s`, '0 s');
  const rows = results.map((r) => {
    if (r.skipped) return `| ${r.fault} | skipped | – | ${r.skipped} |`;
    const lostCell = r.lost === null ? '–' : `${r.lost} ${r.lostWhat}`;
    const downCell = r.unavailableMs === null ? '–' : `${(r.unavailableMs / 1000).toFixed(1)} s`;
    return `| ${r.fault} | ${lostCell} | ${downCell} | ${r.detail} |`;
  });
  recordSection(
    'faults',
    [
      '## Faults replayed (`npm run bench -- faults`)',
      '',
      `${machine()}. The real Monitor (built: its ingest writer's thread, its HTTP server), one data directory per case, the simulated gateway on loopback. Lost must be 0; \`/healthz\` (asked every 100 ms, an answer failing or over 1 s counting its interval) must never be unavailable.`,
      '',
      '| fault | lost | /healthz unavailable | what happened |',
      '|---|---|---|---|',
      ...rows,
    ].join('\n'),
  );
}
