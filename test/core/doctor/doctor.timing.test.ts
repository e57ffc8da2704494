/**
 * `breakerbar doctor`'s checks against real directories, a real simulated
 * gateway and a real lock: what is found, the fix hints where something is
 * missing, and that nothing is changed or leaked (tokens, webhook URLs).
 */
import { execFileSync } from 'node:child_process';
import {
  chmodSync,
  chownSync,
  copyFileSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import Database from 'better-sqlite3';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { writeApiUrl } from '../../../main/core/api-files/address.js';
import type { Environment } from '../../../main/core/config/index.js';
import { type DoctorReport, type Finding, runDoctor } from '../../../main/core/doctor/index.js';
import { lockDataDir } from '../../../main/core/runtime/lock.js';
import { ZSTD_DECODER } from '../../../main/core/sources/zstd.js';
import { agentDatabasePath, OpenClawAgentDb } from '../../../main/simulator/openclaw-db.js';
import { type SimulatedGateway, startSimulatedGateway } from '../../../main/simulator/simulated-gateway.js';

let tmp: string;
let stateDir: string;
let dataDir: string;
let logDir: string;
let binDir: string;
let cleanups: Array<() => unknown> = [];

beforeEach(() => {
  tmp = mkdtempSync(join(tmpdir(), 'breakerbar-doctor-'));
  stateDir = join(tmp, 'openclaw');
  dataDir = join(tmp, 'data');
  logDir = join(tmp, 'logs');
  binDir = join(tmp, 'bin');
  mkdirSync(binDir);
});

afterEach(async () => {
  for (const cleanup of cleanups.reverse()) await cleanup();
  cleanups = [];
  rmSync(tmp, { recursive: true, force: true });
});

/** An environment of temp directories only: no real home, no real PATH. */
function environment(extra: NodeJS.ProcessEnv = {}, platform: NodeJS.Platform = 'linux'): Environment {
  return {
    env: { PATH: binDir, BREAKERBAR_HOME: join(tmp, 'bbhome'), ...extra },
    home: join(tmp, 'home'),
    platform,
  };
}

/** Writes a config file: every directory in tmp, a gateway nobody listens on unless given, a restart that exists. */
function config(overrides: Record<string, unknown> = {}): string {
  const path = join(tmp, 'config.json');
  const base: Record<string, unknown> = {
    openclawDir: stateDir,
    dataDir,
    gatewayLogDir: logDir,
    gatewayUrl: 'http://127.0.0.1:9',
    watchdog: { restartCommand: ['/bin/true'] },
    notifications: { desktop: false },
  };
  writeFileSync(path, JSON.stringify({ ...base, ...overrides }));
  return path;
}

async function doctor(configFile: string = config(), env = environment()): Promise<DoctorReport> {
  return runDoctor({ configFile, environment: env, probeTimeoutMs: 400 });
}

function inArea(report: DoctorReport, area: Finding['area']): Finding[] {
  return report.findings.filter((f) => f.area === area);
}

/** The one finding whose title matches; fails listing all titles when there is none or several. */
function find(report: DoctorReport, title: RegExp): Finding {
  const matches = report.findings.filter((f) => title.test(f.title));
  expect(matches, report.findings.map((f) => `${f.level} ${f.title}`).join('\n')).toHaveLength(1);
  return matches[0] as Finding;
}

function none(report: DoctorReport, title: RegExp): void {
  expect(report.findings.filter((f) => title.test(f.title)).map((f) => f.title)).toEqual([]);
}

const header = (id: string) =>
  `${JSON.stringify({ type: 'session', version: 3, id, timestamp: new Date().toISOString(), cwd: '/w' })}\n`;

function jsonlAgent(agent: string, sessions: string[]): string {
  const dir = join(stateDir, 'agents', agent, 'sessions');
  mkdirSync(dir, { recursive: true });
  for (const id of sessions) writeFileSync(join(dir, `${id}.jsonl`), header(id));
  writeFileSync(join(dir, 'sessions.json'), '{}');
  return dir;
}

/** A SQLite agent as OpenClaw writes it; kept open (like a running gateway) unless closed by the caller. */
function sqliteAgent(agent: string, schemaVersion?: number): OpenClawAgentDb {
  const db = new OpenClawAgentDb(agentDatabasePath(stateDir, agent), schemaVersion ? { schemaVersion } : {});
  db.append('s1', agent, [JSON.stringify({ type: 'message', id: 'e1', parentId: null, timestamp: 'x', message: {} })]);
  cleanups.push(() => db.db.open && db.db.close());
  return db;
}

async function gateway(state: SimulatedGateway['state'] = 'up'): Promise<SimulatedGateway> {
  const gw = await startSimulatedGateway({ state });
  cleanups.push(() => gw.close());
  return gw;
}

function todayLogName(prefix = 'openclaw'): string {
  const d = new Date();
  const pad = (n: number) => String(n).padStart(2, '0');
  return `${prefix}-${d.getFullYear()}-${pad(d.getMonth() + 1)}-${pad(d.getDate())}.log`;
}

/** Trimmed from a database openclaw@2026.9.6 wrote: schema 23, one zstd-compressed row (rowid 47). */
const FIXTURE = fileURLToPath(new URL('../../fixtures/openclaw-2026.9.6/openclaw-agent.sqlite', import.meta.url));

/** The real 2026.9.6 database as `agent`'s, changed first by `alter` (a writable connection) if given. */
function realAgent(agent: string, alter?: (db: Database.Database) => void): string {
  const path = agentDatabasePath(stateDir, agent);
  mkdirSync(dirname(path), { recursive: true });
  copyFileSync(FIXTURE, path);
  const db = new Database(path);
  try {
    alter?.(db);
  } finally {
    db.close();
  }
  return path;
}

/** An agent database whose transcript_events lacks created_at: a layout BreakerBar cannot read. */
function layoutWithoutCreatedAt(agent: string, schemaVersion: number, journal: 'WAL' | 'DELETE'): string {
  const path = agentDatabasePath(stateDir, agent);
  mkdirSync(dirname(path), { recursive: true });
  const db = new Database(path);
  db.pragma(`journal_mode = ${journal}`);
  db.exec('CREATE TABLE transcript_events (session_id TEXT NOT NULL, seq INTEGER NOT NULL, event_json TEXT)');
  db.pragma(`user_version = ${schemaVersion}`);
  db.close();
  return path;
}

function filesUnder(dir: string): string[] {
  return existsSync(dir) ? (readdirSync(dir, { recursive: true }) as string[]).sort() : [];
}

describe('the report', () => {
  it('covers every area in report order and counts the findings by level', async () => {
    const report = await doctor();
    const areas = [...new Set(report.findings.map((f) => f.area))];
    expect(areas).toEqual(['config', 'openclaw', 'sources', 'gateway', 'restart', 'notifications', 'breakerbar']);
    const counts = { ok: 0, info: 0, warn: 0, error: 0 };
    for (const f of report.findings) counts[f.level]++;
    expect(report.summary).toEqual(counts);
    expect(report.summary.error).toBeGreaterThan(0);
  });
});

describe('config', () => {
  it('names the file it read', async () => {
    const file = config();
    const report = await doctor(file);
    expect(find(report, /^config file/)).toMatchObject({ level: 'ok', title: `config file ${file}` });
  });

  it('says when it uses the defaults because there is no file', async () => {
    const report = await runDoctor({ environment: environment(), probeTimeoutMs: 400 });
    expect(find(report, /no config file/)).toMatchObject({ level: 'info' });
    expect(find(report, /no config file/).detail).toContain(join(tmp, 'bbhome', 'config.json'));
  });

  it('turns a wrong type into an error finding and still runs every other check on the defaults', async () => {
    const file = config({ watchdog: { threshold: 'three' } });
    const report = await doctor(file);
    const error = find(report, /config cannot be used/);
    expect(error.level).toBe('error');
    expect(error.detail).toContain('watchdog.threshold');
    expect(error.fix).toBeTruthy();
    // Defaults now: the state dir is ~/.openclaw under the test home, the gateway the default port.
    expect(find(report, /state directory .* does not exist/).title).toContain(join(tmp, 'home', '.openclaw'));
    expect(find(report, /^gateway URL/).title).toBe('gateway URL http://127.0.0.1:18789');
    for (const area of ['openclaw', 'sources', 'gateway', 'restart', 'notifications', 'breakerbar'] as const) {
      expect(inArea(report, area).length, area).toBeGreaterThan(0);
    }
  });

  it('reports a config file that is not JSON, and one named but missing', async () => {
    const bad = join(tmp, 'bad.json');
    writeFileSync(bad, '{ nope');
    expect(find(await doctor(bad), /config cannot be used/).detail).toContain('not valid JSON');
    const missing = join(tmp, 'missing.json');
    expect(find(await doctor(missing), /config cannot be used/).detail).toContain('does not exist');
  });
});

describe('OpenClaw state directory and sources', () => {
  it('finds one JSONL agent and one SQLite agent, with the schema version', async () => {
    jsonlAgent('main', ['a', 'b']);
    writeFileSync(join(stateDir, 'agents', 'main', 'sessions', 'old.jsonl.reset.2026-01-01'), header('old'));
    sqliteAgent('work');
    writeFileSync(
      join(stateDir, 'openclaw.json'),
      '{ gateway: { port: 18790 }, agents: { defaults: { model: { primary: "zhipu/glm-5.1" } } } }',
    );
    const report = await doctor();
    expect(find(report, /^state directory/)).toMatchObject({ level: 'ok', title: `state directory ${stateDir}` });
    expect(find(report, /^state directory/).detail).toContain('openclawDir');
    expect(find(report, /openclaw\.json read/).detail).toBe('gateway.port 18790, primary model zhipu/glm-5.1');
    const agents = find(report, /agent\(s\) under/);
    expect(agents).toMatchObject({ level: 'ok', title: `2 agent(s) under ${join(stateDir, 'agents')}` });
    expect(agents.detail).toBe('main (2 JSONL), work (SQLite v19)');
    const jsonl = find(report, /JSONL transcript file/);
    expect(jsonl).toMatchObject({ level: 'ok', title: '2 JSONL transcript file(s) in 1 agent(s)' });
    expect(jsonl.detail).toContain('1 archived');
    expect(find(report, /SQLite agent database/)).toMatchObject({
      level: 'ok',
      title: '1 SQLite agent database(s), schema version 19',
    });
    expect(inArea(report, 'sources').filter((f) => f.level === 'error')).toEqual([]);
  });

  it('reads agent databases of any schema version: the deprecated ingest.sqliteMaxSchemaVersion limits nothing', async () => {
    const open = sqliteAgent('open', 25);
    const closed = sqliteAgent('closed', 20);
    closed.db.close();
    const report = await doctor(config({ ingest: { sqliteMaxSchemaVersion: 19 } }));
    expect(find(report, /SQLite agent database\(s\)/)).toMatchObject({
      level: 'ok',
      title: '2 SQLite agent database(s), schema version 20, 25',
    });
    none(report, /newer than|cannot be read/);
    expect(inArea(report, 'sources').filter((f) => f.level === 'error')).toEqual([]);
    expect(open.db.open).toBe(true);
  });

  it('a layout it cannot read is an error naming the version found, whether the gateway has it open or not', async () => {
    const open = layoutWithoutCreatedAt('open', 31, 'DELETE');
    const closed = layoutWithoutCreatedAt('closed', 32, 'WAL');
    const report = await doctor();
    const refused = report.findings.filter((f) => /cannot be read/.test(f.title));
    expect(refused.map((f) => [f.level, f.title, f.detail])).toEqual([
      [
        'error',
        'agent database of closed cannot be read',
        expect.stringContaining(`${closed} (OpenClaw schema version 32): transcript_events lacks created_at`),
      ],
      [
        'error',
        'agent database of open cannot be read',
        expect.stringContaining(`${open} (OpenClaw schema version 31): transcript_events lacks created_at`),
      ],
    ]);
    expect(refused[0]?.fix).toContain('upgrade BreakerBar');
    expect(report.summary.error).toBeGreaterThan(0);
    // The closed WAL database was checked from a copy: no -wal or -shm appeared.
    expect(filesUnder(dirname(closed))).toEqual(['openclaw-agent.sqlite']);
  });

  it("counts an OpenClaw 2026.9.6 database's zstd-compressed rows and decodes them", async () => {
    realAgent('main');
    const report = await doctor();
    expect(find(report, /SQLite agent database\(s\)/).title).toBe('1 SQLite agent database(s), schema version 23');
    expect(find(report, /zstd-compressed/)).toMatchObject({
      level: 'ok',
      title: 'agent database of main: 1 zstd-compressed row(s), all decode',
      detail: `decoded with ${ZSTD_DECODER}`,
    });
    expect(inArea(report, 'sources').filter((f) => f.level === 'error')).toEqual([]);
  });

  it('checks the compressed rows of a closed WAL database from a copy, creating nothing', async () => {
    const path = realAgent('main', (db) => db.pragma('journal_mode = WAL'));
    const before = filesUnder(dirname(path));
    expect(before).toEqual(['openclaw-agent.sqlite']);
    const report = await doctor();
    expect(find(report, /zstd-compressed/).title).toBe('agent database of main: 1 zstd-compressed row(s), all decode');
    expect(filesUnder(dirname(path))).toEqual(before);
  });

  it('a compressed row that does not decode is an error naming the row', async () => {
    realAgent('main', (db) =>
      db.prepare('UPDATE transcript_events SET event_zstd = ? WHERE rowid = 47').run(Buffer.from('garbage!')),
    );
    const report = await doctor();
    const error = find(report, /zstd-compressed/);
    expect(error).toMatchObject({
      level: 'error',
      title: 'agent database of main: 1 zstd-compressed row(s); 1 of the 1 newest do not decode',
    });
    expect(error.detail).toContain('row 47: event_zstd: not a zstd frame');
    expect(error.fix).toContain('upgrade BreakerBar');
  });

  it('reads a closed WAL database without creating its -wal and -shm files', async () => {
    const db = sqliteAgent('main');
    db.db.close();
    const agentDir = join(stateDir, 'agents', 'main', 'agent');
    const before = filesUnder(agentDir);
    expect(before).toEqual(['openclaw-agent.sqlite']);
    const report = await doctor();
    expect(find(report, /SQLite agent database/).title).toBe('1 SQLite agent database(s), schema version 19');
    expect(filesUnder(agentDir)).toEqual(before);
  });

  it('says what is wrong with a file that is not a database', async () => {
    const path = agentDatabasePath(stateDir, 'main');
    mkdirSync(join(stateDir, 'agents', 'main', 'agent'), { recursive: true });
    writeFileSync(path, 'not sqlite at all, but long enough to have a header of one hundred bytes or so: '.repeat(3));
    const report = await doctor();
    expect(find(report, /agent database of main cannot be read/)).toMatchObject({
      level: 'error',
      detail: `${path} is not a SQLite database`,
    });
  });

  it('a missing state directory is an error with the fix, and the other checks still run', async () => {
    mkdirSync(join(tmp, 'home', '.openclaw-work'), { recursive: true });
    const report = await doctor(config({ openclawDir: null }));
    const missing = find(report, /state directory .* does not exist/);
    expect(missing.level).toBe('error');
    expect(missing.title).toContain(join(tmp, 'home', '.openclaw'));
    expect(missing.detail).toContain("OpenClaw's default");
    expect(missing.detail).toContain(join(tmp, 'home', '.openclaw-work'));
    expect(missing.fix).toMatch(/start the gateway once.*openclawDir/);
    none(report, /agent/);
    expect(inArea(report, 'gateway').length).toBeGreaterThan(0);
  });

  it('follows OPENCLAW_STATE_DIR and says so', async () => {
    jsonlAgent('main', ['a']);
    const report = await doctor(config({ openclawDir: null }), environment({ OPENCLAW_STATE_DIR: stateDir }));
    expect(find(report, /^state directory/)).toMatchObject({ level: 'ok', detail: 'from OPENCLAW_STATE_DIR' });
  });

  it('no agents at all is a warning telling where to look', async () => {
    mkdirSync(stateDir);
    const report = await doctor();
    const warn = find(report, /no agents/);
    expect(warn.level).toBe('warn');
    expect(warn.fix).toMatch(/start the gateway once.*openclawDir/);
  });

  it('warns about an unusable openclaw.json without quoting it', async () => {
    mkdirSync(stateDir);
    writeFileSync(join(stateDir, 'openclaw.json'), '{ gateway: { auth: { token: "sekrit-token-value" } ');
    const report = await doctor();
    expect(find(report, /openclaw\.json cannot be used/).level).toBe('warn');
    expect(JSON.stringify(report)).not.toContain('sekrit-token-value');
  });

  it('warns when a profile is set but the default state directory is used', async () => {
    const report = await doctor(config({ openclawDir: null, profile: 'work' }));
    const warn = find(report, /profile "work" is set/);
    expect(warn.level).toBe('warn');
    expect(warn.fix).toContain('~/.openclaw-work');
  });
});

describe('OpenClaw version', () => {
  /** An npm-style install: the CLI on PATH is a link into the `openclaw` package. */
  function npmInstall(version: string): void {
    const pkg = join(tmp, 'lib', 'node_modules', 'openclaw');
    mkdirSync(pkg, { recursive: true });
    writeFileSync(join(pkg, 'package.json'), JSON.stringify({ name: 'openclaw', version }));
    // Never run: the version comes from package.json.
    writeFileSync(join(pkg, 'openclaw.mjs'), '#!/bin/sh\nexit 3\n', { mode: 0o755 });
    symlinkSync(join(pkg, 'openclaw.mjs'), join(binDir, 'openclaw'));
  }

  function cli(script: string): void {
    writeFileSync(join(binDir, 'openclaw'), `#!/bin/sh\n${script}\n`, { mode: 0o755 });
  }

  it('names the version of the openclaw package the CLI on PATH belongs to', async () => {
    npmInstall('2026.9.6');
    expect(find(await doctor(), /^OpenClaw \d/)).toMatchObject({
      level: 'ok',
      title: 'OpenClaw 2026.9.6',
      detail: `${join(binDir, 'openclaw')}, version from its package.json`,
    });
  });

  it('asks `openclaw --version` when the CLI is not an npm package', async () => {
    cli('echo "OpenClaw 2026.9.7 (eb377ac)"');
    expect(find(await doctor(), /^OpenClaw \d/)).toMatchObject({
      level: 'ok',
      title: 'OpenClaw 2026.9.7',
      detail: `${join(binDir, 'openclaw')}, version from \`openclaw --version\``,
    });
  });

  it('does not wait on a CLI that hangs, even one whose child keeps running', async () => {
    // Its own PATH: the doctor runs it with binDir and Node's own directory only, and Node need not live in
    // /usr/bin (the Node 24 `npm run setup` fetches lives in .cache/node24), so `sleep` may be on neither.
    cli('PATH=/usr/bin:/bin\nsleep 30 &\nexec sleep 30');
    const started = Date.now();
    const report = await doctor();
    expect(Date.now() - started).toBeLessThan(10_000);
    expect(find(report, /OpenClaw version unknown/)).toMatchObject({
      level: 'info',
      detail: `${join(binDir, 'openclaw')}: \`openclaw --version\` did not answer within 3 s`,
    });
  }, 20_000);

  it('without an openclaw CLI the version is unknown, which is no problem', async () => {
    expect(find(await doctor(), /OpenClaw version unknown/)).toMatchObject({
      level: 'info',
      detail: 'no openclaw CLI on PATH or in the usual install places',
    });
  });
});

describe('gateway log directory', () => {
  it('a missing directory is a warning with the fix', async () => {
    const report = await doctor();
    const warn = find(report, /gateway log directory .* does not exist/);
    expect(warn.level).toBe('warn');
    expect(warn.detail).toContain('[model-fetch]');
    expect(warn.detail).toContain('fall back to the transcripts');
    expect(warn.fix).toContain('gatewayLogDir');
  });

  it('an empty directory warns that the breakers fall back to the transcripts', async () => {
    mkdirSync(logDir);
    const warn = find(await doctor(), /no gateway log for today/);
    expect(warn.level).toBe('warn');
    expect(warn.detail).toContain(`no openclaw-YYYY-MM-DD.log files in ${logDir}`);
    expect(warn.detail).toContain("the breakers count each upstream attempt from this log's [model-fetch] lines");
    expect(warn.detail).toContain('without it they fall back to the transcripts');
  });

  it("finds today's log, with the profile's name when there is one", async () => {
    mkdirSync(logDir);
    writeFileSync(join(logDir, todayLogName()), '{}\n');
    expect(find(await doctor(), /today's gateway log/)).toMatchObject({
      level: 'ok',
      title: `today's gateway log ${join(logDir, todayLogName())}`,
    });
    const withProfile = await doctor(config({ profile: 'work' }));
    expect(find(withProfile, /no gateway log for today/).level).toBe('warn');
    writeFileSync(join(logDir, todayLogName('openclaw-work')), '{}\n');
    expect(find(await doctor(config({ profile: 'work' })), /today's gateway log/).level).toBe('ok');
  });

  it('warns when other users can write the log directory, and refuses a named pipe as the day’s log', async () => {
    mkdirSync(logDir);
    chmodSync(logDir, 0o777);
    const open = find(await doctor(), /can be written by every user/);
    expect(open).toMatchObject({
      level: 'warn',
      title: `gateway log directory ${logDir} can be written by every user`,
    });
    expect(open.detail).toContain('a storm, a restart it calls for');
    chmodSync(logDir, 0o755);
    none(await doctor(), /can be written by every user|belongs to another user/);
    if (process.getuid?.() === 0) {
      // Only root can give a directory away; elsewhere this part cannot be set up.
      chownSync(logDir, 4242, 4242);
      expect(find(await doctor(), /belongs to another user/).title).toBe(
        `gateway log directory ${logDir} belongs to another user (uid 4242)`,
      );
      chownSync(logDir, 0, 0);
    }
    execFileSync('mkfifo', [join(logDir, todayLogName())]);
    const pipe = find(await doctor(), /is not a regular file/);
    expect(pipe).toMatchObject({
      level: 'error',
      title: `today's gateway log ${join(logDir, todayLogName())} is not a regular file`,
    });
  });

  it('names the newest log when there is none for today, and other profiles it sees', async () => {
    mkdirSync(logDir);
    writeFileSync(join(logDir, 'openclaw-2020-01-02.log'), '{}\n');
    writeFileSync(join(logDir, 'openclaw-work-2020-01-03.log'), '{}\n');
    const warn = find(await doctor(), /no gateway log for today/);
    expect(warn.level).toBe('warn');
    expect(warn.detail).toContain('newest here: openclaw-2020-01-02.log');
    expect(warn.detail).toContain('profile(s) work');
    expect(warn.fix).toContain('set profile');
  });
});

describe('gateway', () => {
  it('an answering gateway is ok, with its latency and startup state; failing channels are a warning', async () => {
    const gw = await gateway('up');
    gw.failing = ['telegram'];
    const report = await doctor(config({ gatewayUrl: gw.baseUrl }));
    expect(find(report, /^gateway URL/)).toMatchObject({
      title: `gateway URL ${gw.baseUrl}`,
      detail: "gatewayUrl in BreakerBar's config",
    });
    expect(find(report, /gateway answers/).title).toMatch(
      new RegExp(`^gateway answers at ${gw.baseUrl}: live in \\d+ ms, started$`),
    );
    expect(find(report, /not ready/)).toMatchObject({ level: 'warn', title: 'gateway not ready: telegram failing' });
    expect(inArea(report, 'gateway').filter((f) => f.level === 'error')).toEqual([]);
  });

  it('a starting gateway is a warning, not an error', async () => {
    const gw = await gateway('starting');
    const report = await doctor(config({ gatewayUrl: gw.baseUrl }));
    expect(find(report, /is starting/).level).toBe('warn');
    none(report, /not ready/);
  });

  it('a refused connection is an error asking whether the gateway runs', async () => {
    const gw = await gateway('refuse');
    const report = await doctor(config({ gatewayUrl: gw.baseUrl }));
    const error = find(report, /nothing listens/);
    expect(error).toMatchObject({ level: 'error', title: `nothing listens on 127.0.0.1:${gw.port}` });
    expect(error.fix).toContain('openclaw gateway status');
  });

  it('another service at the gateway address is an error naming it, not a dead gateway', async () => {
    const other: Server = createServer((_req, res) => {
      res.writeHead(404, { 'content-type': 'text/html' });
      res.end('<html>not here</html>');
    });
    await new Promise<void>((resolve) => other.listen(0, '127.0.0.1', resolve));
    cleanups.push(() => new Promise((resolve) => other.close(resolve)));
    const url = `http://127.0.0.1:${(other.address() as AddressInfo).port}`;
    const report = await doctor(config({ gatewayUrl: url }));
    const error = find(report, /something other than the OpenClaw gateway/);
    expect(error).toMatchObject({ level: 'error' });
    expect(error.fix).toContain('gatewayUrl');
  });

  it('a hung gateway is an error saying so', async () => {
    const gw = await gateway('hang');
    const report = await doctor(config({ gatewayUrl: gw.baseUrl }));
    expect(find(report, /hung/)).toMatchObject({ level: 'error' });
  });

  it('takes the port from openclaw.json and the token from the environment, never showing the token', async () => {
    mkdirSync(stateDir);
    writeFileSync(join(stateDir, 'openclaw.json'), '{ gateway: { port: 1 } }');
    const token = 'tok-0123456789abcdef-secret';
    const report = await doctor(config({ gatewayUrl: null }), environment({ OPENCLAW_GATEWAY_TOKEN: token }));
    expect(find(report, /^gateway URL/)).toMatchObject({ title: 'gateway URL http://127.0.0.1:1' });
    expect(find(report, /^gateway URL/).detail).toContain('gateway.port in');
    expect(find(report, /operator token found/)).toMatchObject({ level: 'ok' });
    expect(find(report, /operator token found/).detail).toContain('OPENCLAW_GATEWAY_TOKEN');
    expect(JSON.stringify(report)).not.toContain(token);
  });

  it('passes on the warnings about values it could not use', async () => {
    const report = await doctor(config({ gatewayUrl: null }), environment({ OPENCLAW_GATEWAY_PORT: 'abc' }));
    expect(find(report, /OPENCLAW_GATEWAY_PORT/).level).toBe('warn');
    expect(find(report, /no gateway operator token/).level).toBe('info');
  });
});

describe('BreakerBar itself', () => {
  it('without a data directory: says the daemon creates it, and creates nothing', async () => {
    const report = await doctor();
    expect(find(report, /no data directory yet/).level).toBe('info');
    expect(existsSync(dataDir)).toBe(false);
  });

  it('with no daemon running: says so without taking or creating the lock', async () => {
    mkdirSync(dataDir);
    const report = await doctor();
    expect(find(report, /no database yet/).level).toBe('info');
    expect(find(report, /no BreakerBar daemon running/).fix).toContain('breakerbar daemon');
    expect(readdirSync(dataDir)).toEqual([]);
    // A lock left by a daemon that stopped: still not running.
    lockDataDir(dataDir).release();
    const after = readdirSync(dataDir).sort();
    expect(find(await doctor(), /no BreakerBar daemon running/).level).toBe('info');
    expect(readdirSync(dataDir).sort()).toEqual(after);
  });

  it('with a daemon running: its pid, and whether its API answers at the address it wrote', async () => {
    mkdirSync(dataDir);
    writeFileSync(join(dataDir, 'breakerbar.sqlite'), '');
    const lock = lockDataDir(dataDir, 4242);
    cleanups.push(() => lock.release());
    const api: Server = createServer((req, res) => {
      res.writeHead(req.url === '/healthz' ? 200 : 404, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ ok: req.url === '/healthz' }));
    });
    await new Promise<void>((resolve) => api.listen(0, '127.0.0.1', resolve));
    cleanups.push(() => new Promise((resolve) => api.close(resolve)));
    const url = `http://127.0.0.1:${(api.address() as AddressInfo).port}`;
    writeApiUrl(dataDir, url);

    const report = await doctor();
    expect(find(report, /^database/).level).toBe('ok');
    expect(find(report, /daemon running/)).toMatchObject({ level: 'ok', title: 'daemon running (pid 4242)' });
    expect(find(report, /API answers/)).toMatchObject({ level: 'ok', title: `API answers at ${url}` });

    await new Promise((resolve) => api.close(resolve));
    const down = await doctor();
    expect(find(down, /API does not answer/)).toMatchObject({ level: 'error' });
  });

  it('with a daemon running: each of its readers, live or stuck (a stuck one fails the doctor)', async () => {
    mkdirSync(dataDir);
    writeFileSync(join(dataDir, 'breakerbar.sqlite'), '');
    writeFileSync(join(dataDir, 'api-token'), `${'a'.repeat(64)}\n`);
    const lock = lockDataDir(dataDir, 4242);
    cleanups.push(() => lock.release());
    const source = (kind: string, lastError: string | null) => ({
      kind,
      roots: [],
      inputs: 1,
      lines: 10,
      malformed: 0,
      calls: 4,
      stored: 4,
      duplicates: 0,
      pending: 0,
      lastEventAt: Date.now() - 30_000,
      lastError,
    });
    const authorizations: Array<string | undefined> = [];
    const api: Server = createServer((req, res) => {
      if (req.url === '/api/status') authorizations.push(req.headers.authorization);
      res.writeHead(req.url === '/healthz' || req.url === '/api/status' ? 200 : 404, {
        'content-type': 'application/json',
      });
      const body =
        req.url === '/api/status'
          ? { sources: [source('gatewaylog', null), source('sqlite', 'main.sqlite: row 47 cannot be decoded')] }
          : { ok: req.url === '/healthz' };
      res.end(JSON.stringify(body));
    });
    await new Promise<void>((resolve) => api.listen(0, '127.0.0.1', resolve));
    cleanups.push(() => new Promise((resolve) => api.close(resolve)));
    writeApiUrl(dataDir, `http://127.0.0.1:${(api.address() as AddressInfo).port}`);

    const report = await doctor();
    expect(authorizations).toEqual([`Bearer ${'a'.repeat(64)}`]);
    expect(find(report, /gatewaylog reader live/)).toMatchObject({ level: 'ok' });
    expect(find(report, /gatewaylog reader live/).detail).toMatch(/^newest record 30 s ago/);
    expect(find(report, /sqlite reader has a problem/)).toMatchObject({ level: 'error' });
  });

  it('without an api-url file, tries server.host and server.port', async () => {
    mkdirSync(dataDir);
    const lock = lockDataDir(dataDir);
    cleanups.push(() => lock.release());
    const report = await doctor(config({ server: { port: 9 } }));
    const warn = find(report, /API does not answer/);
    expect(warn.level).toBe('warn');
    expect(warn.title).toContain('http://127.0.0.1:9');
  });
});

describe('permissions', () => {
  // Root reads everything: the CLI tests cover this as an unprivileged user.
  it.skipIf(process.getuid?.() === 0)('names an unreadable sessions directory with the permission fix', async () => {
    const dir = jsonlAgent('main', ['a']);
    chmodSync(dir, 0);
    cleanups.push(() => chmodSync(dir, 0o755));
    const error = find(await doctor(), /cannot list .*sessions/);
    expect(error.level).toBe('error');
    expect(error.fix).toContain('read access');
  });
});
