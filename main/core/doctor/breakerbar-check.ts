/**
 * Check 7: BreakerBar itself — its version, data directory and database, and
 * whether a daemon runs for that data directory and answers on its API.
 *
 * Whether a daemon runs is asked of its lock without taking it (`lockState`):
 * nothing is created, nothing is held.
 */
import { existsSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { API_URL_FILE, readApiUrl } from '../api-files/address.js';
import { serverUrl, tokenRefusal } from '../api-files/loopback.js';
import { API_TOKEN_FILE } from '../api-files/token.js';
import type { DependencyCapStatus } from '../breaker/dependency-cap.js';
import type { LoadedConfig } from '../config/index.js';
import { httpGet } from '../gateway/probe.js';
import { roundSpan } from '../notify/coalesce.js';
import { lockState } from '../runtime/lock.js';
import { version } from '../runtime/version.js';
import type { SourceStatus } from '../sources/source.js';
import type { StoreHealth } from '../store/database-watch.js';
import { freeBytesOf, ROOM_NEEDED_BYTES } from '../store/room.js';
import { humanSize, permissionFixMessage, statOrCode } from './fs-util.js';
import type { ProbeTimeouts } from './gateway-check.js';
import { checkDataPrivacy } from './privacy-check.js';
import { type Finding, saidFinding } from './types.js';

/** `http://<server.host>:<server.port>` as a client reaches it (wildcard hosts through loopback). */
const DATA_DIR_FIX = { key: 'doctor.bb.dataDirFix' } as const;

export function configuredApiUrl(loaded: LoadedConfig): string | null {
  const { host, port } = loaded.config.server;
  return port === 0 ? null : serverUrl(host, port);
}

export async function checkBreakerbar(loaded: LoadedConfig, timeouts: ProbeTimeouts): Promise<Finding[]> {
  const findings: Finding[] = [
    saidFinding('breakerbar', 'info', {
      key: 'doctor.bb.version',
      params: { version: version(), node: process.version, platform: process.platform },
    }),
  ];
  const { dataDir, dbPath } = loaded;

  const dir = statOrCode(dataDir);
  if ('code' in dir) {
    if (dir.code === 'ENOENT') {
      findings.push(
        saidFinding(
          'breakerbar',
          'info',
          { key: 'doctor.bb.noDataDir', params: { dir: dataDir } },
          { key: 'doctor.bb.noDataDirDetail' },
          { key: 'doctor.bb.startFix' },
        ),
      );
      return findings;
    }
    findings.push(
      saidFinding(
        'breakerbar',
        'error',
        { key: 'doctor.bb.dataDirUnusable', params: { dir: dataDir, code: dir.code } },
        undefined,
        dir.code === 'EACCES' || dir.code === 'EPERM' ? permissionFixMessage(dataDir) : DATA_DIR_FIX,
      ),
    );
    return findings;
  }
  findings.push(...checkDataPrivacy(dataDir, dbPath, loaded.file), ...checkRoom(dataDir));
  if (existsSync(dbPath)) {
    findings.push(
      saidFinding(
        'breakerbar',
        'ok',
        { key: 'doctor.bb.database', params: { path: dbPath } },
        humanSize(statSync(dbPath).size),
      ),
    );
  } else {
    findings.push(
      saidFinding(
        'breakerbar',
        'info',
        { key: 'doctor.bb.noDatabase', params: { path: dbPath } },
        { key: 'doctor.bb.noDatabaseDetail' },
        { key: 'doctor.bb.noDatabaseFix' },
      ),
    );
  }

  const state = lockState(dataDir);
  if (state.held === 'unknown') {
    findings.push(saidFinding('breakerbar', 'warn', { key: 'doctor.bb.lockUnknown' }, state.reason));
    return findings;
  }
  if (!state.held) {
    findings.push(
      saidFinding(
        'breakerbar',
        'info',
        { key: 'doctor.bb.noDaemon', params: { dir: dataDir } },
        existsSync(join(dataDir, API_URL_FILE))
          ? { key: 'doctor.bb.leftover', params: { file: API_URL_FILE } }
          : undefined,
        { key: 'doctor.bb.startFix' },
      ),
    );
    return findings;
  }

  findings.push(
    saidFinding(
      'breakerbar',
      'ok',
      { key: 'doctor.bb.daemon', params: { pid: state.pid } },
      {
        key: 'doctor.bb.forDir',
        params: { dir: dataDir },
      },
    ),
  );
  const written = readApiUrl(dataDir);
  const url = written ?? configuredApiUrl(loaded);
  if (url === null) {
    findings.push(
      saidFinding(
        'breakerbar',
        'warn',
        { key: 'doctor.bb.apiUnknown' },
        { key: 'doctor.bb.apiUnknownDetail', params: { file: API_URL_FILE } },
        { key: 'doctor.bb.apiUnknownFix' },
      ),
    );
    return findings;
  }
  const answer = await httpGet(new URL('/healthz', url), timeouts);
  const file = written ? join(dataDir, API_URL_FILE) : null;
  if (answer.kind === 'answered' && answer.status === 200 && isOk(answer.body)) {
    findings.push(
      saidFinding(
        'breakerbar',
        'ok',
        { key: 'doctor.bb.api', params: { url } },
        { key: 'doctor.bb.apiDetail', params: { file, latencyMs: Math.round(answer.latencyMs) } },
      ),
    );
    findings.push(...(await liveSources(url, dataDir)));
  } else {
    const what = answer.kind === 'answered' ? `HTTP ${answer.status}` : `${answer.kind}: ${answer.message}`;
    findings.push(
      saidFinding(
        'breakerbar',
        written ? 'error' : 'warn',
        { key: 'doctor.bb.apiDown', params: { url, what } },
        { key: 'doctor.bb.apiDownDetail', params: { file } },
        { key: 'doctor.bb.apiDownFix', params: { written: Boolean(written) } },
      ),
    );
  }
  return findings;
}

/**
 * What each of the running daemon's sources is doing: reading (inputs, calls stored, the newest
 * record's age) or stuck (its last error). A stuck reader is a failure: data is not coming in.
 */
async function liveSources(url: string, dataDir: string): Promise<Finding[]> {
  let sources: SourceStatus[];
  let dependencies: DependencyCapStatus | undefined;
  let store: StoreHealth;
  try {
    // The token goes to this machine only (core/api-files/loopback.ts); the status is read without it elsewhere.
    const headers: Record<string, string> = {};
    if (tokenRefusal(url) === null) {
      headers.authorization = `Bearer ${readFileSync(join(dataDir, API_TOKEN_FILE), 'utf8').trim()}`;
    }
    const response = await fetch(new URL('/api/status', url), {
      headers,
      signal: AbortSignal.timeout(5000),
    });
    if (!response.ok) throw new Error(`HTTP ${response.status}`);
    const status = (await response.json()) as {
      sources: SourceStatus[];
      dependencies?: DependencyCapStatus;
      store?: StoreHealth;
    };
    sources = status.sources;
    dependencies = status.dependencies;
    store = status.store ?? { ok: true };
  } catch (error) {
    return [saidFinding('breakerbar', 'warn', { key: 'doctor.bb.noStatus' }, (error as Error).message)];
  }
  const folded =
    dependencies && dependencies.folded > 0
      ? [
          saidFinding(
            'breakerbar',
            'warn',
            { key: 'doctor.bb.folded', params: { folded: dependencies.folded, max: dependencies.max } },
            { key: 'doctor.bb.foldedDetail' },
            { key: 'doctor.bb.foldedFix' },
          ),
        ]
      : [];
  return [...storeFindings(store, dataDir), ...folded].concat(
    sources.map((source) => {
      if (source.lastError !== null) {
        return saidFinding(
          'breakerbar',
          'error',
          { key: 'doctor.bb.readerProblem', params: { kind: source.kind, error: source.lastError } },
          { key: 'doctor.bb.readerCounts', params: { inputs: source.inputs, stored: source.stored } },
          { key: 'doctor.bb.readerProblemFix' },
        );
      }
      const agoMs = source.lastEventAt === null ? null : roundSpan(Date.now() - source.lastEventAt);
      return saidFinding(
        'breakerbar',
        'ok',
        {
          key: 'doctor.bb.readerLive',
          params: { kind: source.kind, inputs: source.inputs, stored: source.stored },
        },
        { key: 'doctor.bb.readerLiveDetail', params: { agoMs, pending: source.pending } },
      );
    }),
  );
}

/** The running daemon's database: no room to grow, or a file deleted or replaced under it. */
function storeFindings(store: StoreHealth, dataDir: string): Finding[] {
  if (store.ok) return [];
  if (store.problem === 'full') {
    const forMs = store.since === undefined ? null : roundSpan(Date.now() - store.since);
    return [
      saidFinding(
        'breakerbar',
        'error',
        { key: 'doctor.bb.full', params: { forMs } },
        { key: 'doctor.bb.fullDetail', params: { detail: store.detail ?? null, refused: store.refused ?? 0 } },
        { key: 'doctor.bb.fullFix', params: { dir: dataDir } },
      ),
    ];
  }
  return [
    saidFinding(
      'breakerbar',
      'error',
      { key: 'doctor.bb.replaced', params: { problem: store.problem ?? 'replaced' } },
      store.detail,
      { key: 'doctor.bb.restartFix' },
    ),
  ];
}

/** The disk holding the data directory: a warning when it has too little room for the store to grow. */
export function checkRoom(dataDir: string, freeBytes = freeBytesOf): Finding[] {
  let free: number;
  try {
    free = freeBytes(dataDir);
  } catch {
    return [];
  }
  if (free >= ROOM_NEEDED_BYTES) return [];
  return [
    saidFinding(
      'breakerbar',
      'warn',
      { key: 'doctor.bb.diskLow', params: { dir: dataDir, free: humanSize(free) } },
      { key: 'doctor.bb.diskLowDetail' },
      { key: 'doctor.bb.diskLowFix', params: { dir: dataDir } },
    ),
  ];
}

function isOk(body: string): boolean {
  try {
    return (JSON.parse(body) as { ok?: unknown }).ok === true;
  } catch {
    return false;
  }
}
