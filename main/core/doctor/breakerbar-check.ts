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
import { formatSpan } from '../notify/coalesce.js';
import { lockState } from '../runtime/lock.js';
import { version } from '../runtime/version.js';
import type { SourceStatus } from '../sources/source.js';
import type { StoreHealth } from '../store/database-watch.js';
import { freeBytesOf, ROOM_NEEDED_BYTES } from '../store/room.js';
import { humanSize, permissionFix, statOrCode } from './fs-util.js';
import type { ProbeTimeouts } from './gateway-check.js';
import { checkDataPrivacy } from './privacy-check.js';
import { type Finding, finding } from './types.js';

/** `http://<server.host>:<server.port>` as a client reaches it (wildcard hosts through loopback). */
export function configuredApiUrl(loaded: LoadedConfig): string | null {
  const { host, port } = loaded.config.server;
  return port === 0 ? null : serverUrl(host, port);
}

export async function checkBreakerbar(loaded: LoadedConfig, timeouts: ProbeTimeouts): Promise<Finding[]> {
  const findings: Finding[] = [
    finding('breakerbar', 'info', `BreakerBar ${version()} on Node ${process.version} (${process.platform})`),
  ];
  const { dataDir, dbPath } = loaded;

  const dir = statOrCode(dataDir);
  if ('code' in dir) {
    if (dir.code === 'ENOENT') {
      findings.push(
        finding(
          'breakerbar',
          'info',
          `no data directory yet (${dataDir})`,
          'the daemon creates it, with its database, on its first start',
          'start it: `breakerbar daemon`, or `breakerbar service install` to run it in the background',
        ),
      );
      return findings;
    }
    findings.push(
      finding(
        'breakerbar',
        'error',
        `cannot use the data directory ${dataDir} (${dir.code})`,
        undefined,
        dir.code === 'EACCES' || dir.code === 'EPERM'
          ? permissionFix(dataDir)
          : 'set dataDir to a directory BreakerBar can write',
      ),
    );
    return findings;
  }
  findings.push(...checkDataPrivacy(dataDir, dbPath, loaded.file), ...checkRoom(dataDir));
  if (existsSync(dbPath)) {
    findings.push(finding('breakerbar', 'ok', `database ${dbPath}`, humanSize(statSync(dbPath).size)));
  } else {
    findings.push(
      finding(
        'breakerbar',
        'info',
        `no database yet (${dbPath})`,
        'the daemon creates it on its first start',
        'start it: `breakerbar daemon`, or `breakerbar service install`',
      ),
    );
  }

  const state = lockState(dataDir);
  if (state.held === 'unknown') {
    findings.push(finding('breakerbar', 'warn', 'cannot tell whether a daemon is running', state.reason));
    return findings;
  }
  if (!state.held) {
    findings.push(
      finding(
        'breakerbar',
        'info',
        `no BreakerBar daemon running for ${dataDir}`,
        existsSync(join(dataDir, API_URL_FILE)) ? `${API_URL_FILE} is left from an earlier run` : undefined,
        'start it: `breakerbar daemon`, or `breakerbar service install` to run it in the background',
      ),
    );
    return findings;
  }

  findings.push(
    finding('breakerbar', 'ok', `daemon running${state.pid !== null ? ` (pid ${state.pid})` : ''}`, `for ${dataDir}`),
  );
  const written = readApiUrl(dataDir);
  const url = written ?? configuredApiUrl(loaded);
  if (url === null) {
    findings.push(
      finding(
        'breakerbar',
        'warn',
        'the daemon API address is unknown',
        `server.port is 0 (chosen at start) and the daemon wrote no ${API_URL_FILE}`,
        'set server.port to a fixed port, or upgrade the running daemon',
      ),
    );
    return findings;
  }
  const answer = await httpGet(new URL('/healthz', url), timeouts);
  const source = written ? `from ${join(dataDir, API_URL_FILE)}` : 'from server.host and server.port';
  if (answer.kind === 'answered' && answer.status === 200 && isOk(answer.body)) {
    findings.push(
      finding('breakerbar', 'ok', `API answers at ${url}`, `${source}; /healthz in ${Math.round(answer.latencyMs)} ms`),
    );
    findings.push(...(await liveSources(url, dataDir)));
  } else {
    const what = answer.kind === 'answered' ? `HTTP ${answer.status}` : `${answer.kind}: ${answer.message}`;
    findings.push(
      finding(
        'breakerbar',
        written ? 'error' : 'warn',
        `the daemon's API does not answer at ${url} (${what})`,
        written
          ? `${source}; the daemon runs but its API is unreachable: the tray app and the dashboard cannot reach it`
          : `${source}; a daemon started with --port listens elsewhere`,
        written
          ? "see the daemon's log (`breakerbar service status`), then restart it"
          : 'upgrade the daemon (newer ones write api-url), or check server.port and --port',
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
    return [finding('breakerbar', 'warn', 'cannot ask the daemon how its sources read', (error as Error).message)];
  }
  const folded =
    dependencies && dependencies.folded > 0
      ? [
          finding(
            'breakerbar',
            'warn',
            `${dependencies.folded} dependencies past the ceiling of ${dependencies.max} are counted under <provider>/other`,
            'each has no breaker or metrics of its own (a client inventing model names, or many real models)',
            'if they are real models, raise breakers.maxDependencies and restart the daemon',
          ),
        ]
      : [];
  return [...storeFindings(store, dataDir), ...folded].concat(
    sources.map((source) => {
      if (source.lastError !== null) {
        return finding(
          'breakerbar',
          'error',
          `${source.kind} reader has a problem: ${source.lastError}`,
          `${source.inputs} input(s), ${source.stored} call(s) stored since the daemon started`,
          "see the Sources findings above and the daemon's log; it retries by itself once the cause is gone",
        );
      }
      const newest =
        source.lastEventAt === null
          ? 'nothing read yet'
          : `newest record ${formatSpan(Date.now() - source.lastEventAt)} ago`;
      return finding(
        'breakerbar',
        'ok',
        `${source.kind} reader live: ${source.inputs} input(s), ${source.stored} call(s) stored`,
        `${newest}; ${source.pending} pending`,
      );
    }),
  );
}

/** The running daemon's database: no room to grow, or a file deleted or replaced under it. */
function storeFindings(store: StoreHealth, dataDir: string): Finding[] {
  if (store.ok) return [];
  if (store.problem === 'full') {
    const since = store.since === undefined ? '' : ` for ${formatSpan(Date.now() - store.since)}`;
    return [
      finding(
        'breakerbar',
        'error',
        `the daemon has had no room to store${since}`,
        `${store.detail ?? 'the disk is full'}; ${store.refused ?? 0} write(s) refused; new calls reach no breaker until then`,
        `free space on the disk holding ${dataDir} (\`df -h ${dataDir}\`): storing resumes by itself within seconds`,
      ),
    ];
  }
  return [
    finding(
      'breakerbar',
      'error',
      `the daemon's database was ${store.problem ?? 'replaced'} while it runs`,
      store.detail,
      'restart BreakerBar',
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
    finding(
      'breakerbar',
      'warn',
      `the disk holding ${dataDir} is nearly full (${humanSize(free)} free)`,
      'with no room the daemon keeps running but stores nothing new, so breakers and storm checks see nothing new',
      `free space there (\`df -h ${dataDir}\`), or set dataDir to another disk`,
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
