/**
 * A named pipe (FIFO) where a transcript, the day's gateway log or an agent database belongs. A plain open()
 * of a FIFO blocks until a writer comes, and it ran on the daemon's one thread: found in hardening, a FIFO as
 * `sessions/x.jsonl` froze the daemon (API, probes, watchdog). Each reader must skip it, say so once, and go on
 * reading the rest, the event loop never held.
 */
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { type Logger, silentLogger } from '../../../main/core/runtime/log.js';
import { scan } from '../../../main/core/scan/scan.js';
import { AgentDatabase } from '../../../main/core/sources/agent-database.js';
import { GatewayLogSource } from '../../../main/core/sources/gateway-log.js';
import { NotRegularFileError } from '../../../main/core/sources/regular-file.js';
import { JsonlTranscriptSource } from '../../../main/core/sources/transcripts-jsonl.js';
import { Store } from '../../../main/core/store/db.js';
import { agentDatabasePath } from '../../../main/simulator/openclaw-db.js';
import { appendLog, generateGatewayLog, logName } from '../../helpers/gateway-log.js';
import { generateSession, sessionsDir, until, writeSession } from '../../helpers/transcripts.js';

const START = Date.parse('2026-11-29T22:50:00.000Z');

/** Windows has no FIFOs in the file system. */
const describeFifo = process.platform === 'win32' ? describe.skip : describe;

describeFifo('a named pipe where a file belongs', () => {
  let dir: string;
  let store: Store;
  const stops: Array<() => Promise<void>> = [];

  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'bb-fifo-'));
    store = Store.open(join(dir, 'breakerbar', 'breakerbar.sqlite'));
  });

  afterEach(async () => {
    for (const stop of stops.splice(0)) await stop();
    store.close();
    rmSync(dir, { recursive: true, force: true });
  });

  const fifo = (path: string) => execFileSync('mkfifo', [path]);

  /** Warnings said, to count how often a pipe is reported. */
  function recordingLog() {
    const warnings: string[] = [];
    const log: Logger = { ...silentLogger, warn: (_message, fields) => warnings.push(JSON.stringify(fields)) };
    return { warnings, log };
  }

  /** A timer keeps firing while the reader looks at the pipe: the event loop is never held. */
  async function loopKeepsTurning(rounds: number): Promise<void> {
    for (let i = 0; i < rounds; i++) await new Promise((resolve) => setTimeout(resolve, 20));
  }

  it('a transcript: skipped and reported once, the other transcripts read', async () => {
    const stateDir = join(dir, 'openclaw');
    const session = generateSession({ agentId: 'main', sessionId: 's-ok', turns: 6, start: START, seed: 3 });
    writeSession(stateDir, session);
    const { warnings, log } = recordingLog();
    const source = new JsonlTranscriptSource({
      stateDir,
      includeArchives: false,
      sink: store,
      cutoff: 0,
      reconcileIntervalMs: 50,
      maxLineBytes: 1024 * 1024,
      log,
    });
    source.start();
    stops.push(() => source.stop());
    await until(() => source.status().stored === session.calls.length && source.caughtUp, 10_000, 'the transcript');
    // Made while the source runs: the watcher reports it, as it would a new transcript.
    fifo(join(sessionsDir(stateDir, 'main'), 'pipe.jsonl'));
    await until(() => warnings.some((w) => w.includes('pipe.jsonl')), 10_000, 'the pipe to be reported');
    // Several reconcile rounds look at the pipe again.
    await loopKeepsTurning(10);
    expect(warnings.filter((w) => w.includes('pipe.jsonl'))).toEqual([
      expect.stringContaining('a named pipe, not a regular file'),
    ]);
    // Nothing failed to read: no source error (which would open an incident).
    expect(source.status().lastError).toBeNull();
  });

  it("the day's gateway log: skipped and reported once, the day's other file read", async () => {
    const logDir = join(dir, 'openclaw-logs');
    mkdirSync(logDir);
    const lines = generateGatewayLog({ start: START, count: 40, seed: 5 });
    appendLog(join(logDir, logName('2026-11-30')), lines);
    const { warnings, log } = recordingLog();
    const source = new GatewayLogSource({
      logDir,
      profile: null,
      sink: store,
      cutoff: 0,
      reconcileIntervalMs: 50,
      maxLineBytes: 1024 * 1024,
      log,
      transcriptsCover: () => true,
    });
    source.start();
    stops.push(() => source.stop());
    await until(() => source.status().lines >= lines.length && source.caughtUp, 10_000, 'the other log');
    fifo(join(logDir, logName('2026-11-29')));
    await until(() => warnings.some((w) => w.includes(logName('2026-11-29'))), 10_000, 'the pipe to be reported');
    await loopKeepsTurning(10);
    expect(warnings.filter((w) => w.includes(logName('2026-11-29')))).toEqual([
      expect.stringContaining('a named pipe, not a regular file'),
    ]);
    expect(source.status().lastError).toBeNull();
  });

  it('an agent database, and scan over all of them: refused with the reason, never opened for reading', () => {
    const stateDir = join(dir, 'openclaw');
    const path = agentDatabasePath(stateDir, 'main');
    mkdirSync(join(path, '..'), { recursive: true });
    fifo(path);
    expect(() => AgentDatabase.open(path)).toThrow(NotRegularFileError);
    const logs = join(dir, 'logs');
    mkdirSync(logs);
    fifo(join(logs, logName('2026-11-29')));
    fifo(join(sessionsDir(stateDir, 'ops'), 'pipe.jsonl'));
    const result = scan([stateDir], { gatewayLogDirs: [logs] });
    expect(result.calls).toBe(0);
    expect(JSON.stringify(result.errors)).toMatch(/a named pipe, not a regular file/);
  });
});
