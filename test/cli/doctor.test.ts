/**
 * `breakerbar doctor` as a user runs it: the built command in its own process,
 * against temp directories and a simulated gateway. Exit codes, `--json`, and
 * the human report with its fix hints.
 */
import { spawn, spawnSync } from 'node:child_process';
import { chmodSync, existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import Database from 'better-sqlite3';
import { afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { doctorLanguage, MARKS, renderReport, summaryLine } from '../../main/cli/doctor.js';
import type { DoctorReport } from '../../main/core/doctor/index.js';
import { saidFinding } from '../../main/core/doctor/types.js';
import { type SimulatedGateway, startSimulatedGateway } from '../../main/simulator/simulated-gateway.js';
import { translator } from '../../main/words/messages/index.js';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const DIST = join(ROOT, 'dist', 'main', 'cli');

interface Run {
  code: number | null;
  out: string;
  err: string;
}

function spawnNode(argv: string[], options: { uid?: number; gid?: number } = {}): Promise<Run> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, argv, { env: env(), cwd: tmp, ...options });
    let out = '';
    let err = '';
    child.stdout.on('data', (chunk: Buffer) => {
      out += chunk.toString('utf8');
    });
    child.stderr.on('data', (chunk: Buffer) => {
      err += chunk.toString('utf8');
    });
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, out, err }));
  });
}

/** The built CLI: `breakerbar doctor …`. */
const doctor = (args: string[], options: { uid?: number; gid?: number } = {}) =>
  spawnNode([join(DIST, 'index.js'), 'doctor', ...args], options);

let tmp: string;
let stateDir: string;
let gw: SimulatedGateway | null = null;

/** Only temp directories: no real home, no OpenClaw variables from the machine running the tests. */
function env(): NodeJS.ProcessEnv {
  return { PATH: '/usr/bin:/bin', HOME: join(tmp, 'home'), BREAKERBAR_HOME: join(tmp, 'bbhome') };
}

function writeConfig(overrides: Record<string, unknown> = {}): string {
  const path = join(tmp, 'config.json');
  writeFileSync(
    path,
    JSON.stringify({
      openclawDir: stateDir,
      dataDir: join(tmp, 'data'),
      gatewayLogDir: join(tmp, 'logs'),
      gatewayUrl: gw?.baseUrl ?? 'http://127.0.0.1:9',
      watchdog: { restartCommand: ['/bin/true'] },
      notifications: { desktop: false },
      ...overrides,
    }),
  );
  return path;
}

function sessionsDir(): string {
  const dir = join(stateDir, 'agents', 'main', 'sessions');
  mkdirSync(dir, { recursive: true });
  writeFileSync(join(dir, 's1.jsonl'), `${JSON.stringify({ type: 'session', version: 3, id: 's1' })}\n`);
  return dir;
}

beforeAll(() => {
  if (!existsSync(join(DIST, 'index.js'))) throw new Error('build first: npm run build --silent');
});

beforeEach(() => {
  tmp = mkdtempSync(join(tmpdir(), 'breakerbar-doctor-cli-'));
  // Readable by the unprivileged user of the permission test.
  chmodSync(tmp, 0o755);
  stateDir = join(tmp, 'openclaw');
});

afterEach(async () => {
  await gw?.close();
  gw = null;
  rmSync(tmp, { recursive: true, force: true });
});

describe('breakerbar doctor', () => {
  it('exits 0 when nothing is an error, and --json prints the report', async () => {
    sessionsDir();
    gw = await startSimulatedGateway();
    const config = writeConfig();
    const human = await doctor(['--config', config]);
    expect(human.code, human.out + human.err).toBe(0);
    expect(human.out).toContain(`  ${MARKS.ok} config file ${config}`);
    expect(human.out).toContain(`  ${MARKS.ok} gateway answers at ${gw.baseUrl}`);
    expect(human.out).toMatch(/^Configuration$/m);
    expect(human.out).toMatch(/^Gateway$/m);
    expect(human.out).not.toContain(MARKS.error);

    const json = await doctor(['--config', config, '--json']);
    expect(json.code).toBe(0);
    const report = JSON.parse(json.out) as DoctorReport;
    expect(report.summary.error).toBe(0);
    expect(report.summary.ok).toBeGreaterThan(3);
    expect(report.findings.find((f) => f.area === 'sources' && f.level === 'ok')?.title).toContain('1 agent(s)');
    // The human report ends with the same counts.
    expect(human.out.trimEnd().split('\n').pop()).toBe(summaryLine(report.summary));
  });

  it('exits 1 on errors and prints what to do about each', async () => {
    const config = writeConfig();
    const result = await doctor(['--config', config]);
    expect(result.code).toBe(1);
    expect(result.out).toContain(`  ${MARKS.error} OpenClaw state directory ${stateDir} does not exist`);
    expect(result.out).toContain('      fix: start the gateway once');
    expect(result.out).toContain(`  ${MARKS.error} nothing listens on 127.0.0.1:9`);
    expect(result.out).toContain('      fix: is the gateway running? `openclaw gateway status`');
    expect(result.out).toContain(`  ${MARKS.warn} gateway log directory`);
    expect(result.out.trimEnd().split('\n').pop()).toBe('2 problems, 1 warning.');

    const json = await doctor(['--config', config, '--json']);
    expect(json.code).toBe(1);
    expect((JSON.parse(json.out) as DoctorReport).summary).toMatchObject({ error: 2, warn: 1 });
  });

  it('exits 1 for an agent database whose layout it cannot read, naming the schema version', async () => {
    sessionsDir();
    gw = await startSimulatedGateway();
    const dir = join(stateDir, 'agents', 'main', 'agent');
    mkdirSync(dir, { recursive: true });
    const db = new Database(join(dir, 'openclaw-agent.sqlite'));
    db.exec('CREATE TABLE transcript_events (session_id TEXT NOT NULL, seq INTEGER NOT NULL, event_json TEXT)');
    db.pragma('user_version = 31');
    db.close();
    const result = await doctor(['--config', writeConfig()]);
    expect(result.code, result.out + result.err).toBe(1);
    expect(result.out).toContain(`  ${MARKS.error} agent database of main cannot be read`);
    expect(result.out).toContain('(OpenClaw schema version 31): transcript_events lacks created_at');
    expect(result.out).toContain('      fix: upgrade BreakerBar');
  });

  it('a config it cannot use is an error, and the rest of the report still follows', async () => {
    const config = writeConfig({ health: { intervalSec: 'often' } });
    const result = await doctor(['--config', config]);
    expect(result.code).toBe(1);
    expect(result.out).toContain(`${MARKS.error} the config cannot be used`);
    expect(result.out).toContain('health.intervalSec');
    expect(result.out).toMatch(/^Restart$/m);
    expect(result.out).toMatch(/^BreakerBar$/m);
  });

  it('usage errors exit 2; --help exits 0', async () => {
    const unknown = await doctor(['--jsn']);
    expect(unknown.code).toBe(2);
    expect(unknown.err).toContain('--jsn');
    expect((await doctor(['extra'])).code).toBe(2);
    const help = await doctor(['--help']);
    expect(help.code).toBe(0);
    expect(help.out).toContain('Usage: breakerbar doctor');
  });

  // As root the check runs as nobody, who must be able to read the built CLI (not so in a 0700 checkout).
  const asRoot = process.getuid?.() === 0;
  const nobodyCanRun =
    !asRoot ||
    spawnSync(process.execPath, ['-e', `require('fs').accessSync(${JSON.stringify(join(DIST, 'index.js'))})`], {
      uid: 65534,
      gid: 65534,
    }).status === 0;
  it.skipIf(!nobodyCanRun)('names a directory it may not read, with the permission fix', async () => {
    const dir = sessionsDir();
    gw = await startSimulatedGateway();
    const config = writeConfig();
    // Root reads everything: then the doctor runs as nobody against a root-only directory.
    chmodSync(dir, asRoot ? 0o700 : 0);
    try {
      const result = await doctor(['--config', config], asRoot ? { uid: 65534, gid: 65534 } : {});
      expect(result.code, result.err).toBe(1);
      expect(result.out).toContain(`${MARKS.error} cannot list ${dir} (permission denied)`);
      expect(result.out).toMatch(/fix: BreakerBar runs as \S+: run it as the user that runs the gateway/);
    } finally {
      chmodSync(dir, 0o755);
    }
  });
});

describe('rendering', () => {
  const report: DoctorReport = {
    findings: [
      { area: 'config', level: 'ok', title: 'config file /x.json' },
      { area: 'gateway', level: 'error', title: 'nothing listens', detail: 'refused', fix: 'start it' },
      { area: 'gateway', level: 'warn', title: 'slow' },
      { area: 'restart', level: 'info', title: 'watchdog on' },
    ],
    summary: { ok: 1, info: 1, warn: 1, error: 1 },
  };

  it('groups by area with one mark per finding, detail and fix indented below', () => {
    expect(renderReport(report)).toBe(
      [
        'Configuration',
        '  ✓ config file /x.json',
        '',
        'Gateway',
        '  ✗ nothing listens',
        '      refused',
        '      fix: start it',
        '  ! slow',
        '',
        'Restart',
        '  · watchdog on',
        '',
        '1 problem, 1 warning.',
        '',
      ].join('\n'),
    );
  });

  it('summarises in words', () => {
    expect(summaryLine({ ok: 3, info: 0, warn: 1, error: 2 })).toBe('2 problems, 1 warning.');
    expect(summaryLine({ ok: 3, info: 0, warn: 2, error: 0 })).toBe('2 warnings.');
    expect(summaryLine({ ok: 3, info: 4, warn: 0, error: 0 })).toBe('No problems found (3 ok).');
  });

  it('colours the marks only when asked', () => {
    expect(renderReport(report, true)).toContain('\x1b[31m✗\x1b[0m nothing listens');
    expect(renderReport(report)).not.toContain('\x1b[');
  });
});

describe('rendering in Chinese', () => {
  const zh = translator('zh-CN');
  const report: DoctorReport = {
    findings: [
      { area: 'config', level: 'ok', title: 'config file /x.json' },
      saidFinding(
        'gateway',
        'error',
        { key: 'doctor.gateway.refused', params: { where: '127.0.0.1:18789' } },
        'connect ECONNREFUSED 127.0.0.1:18789',
        { key: 'doctor.gateway.refusedFix' },
      ),
      saidFinding(
        'restart',
        'info',
        { key: 'doctor.restart.on' },
        {
          key: 'doctor.restart.onDetail',
          params: { probes: 2, checks: 3, max: 4 },
        },
      ),
    ],
    summary: { ok: 1, info: 1, warn: 0, error: 1 },
  };

  it('keeps English in the finding itself (stored, --json) and words it in Chinese for a Chinese reader', () => {
    expect(report.findings[1]).toMatchObject({
      title: 'nothing listens on 127.0.0.1:18789',
      detail: 'connect ECONNREFUSED 127.0.0.1:18789',
    });
    expect(renderReport(report, false, zh)).toBe(
      [
        '配置',
        '  ✓ config file /x.json',
        '',
        '网关',
        '  ✗ 127.0.0.1:18789 上没有程序在监听',
        '      connect ECONNREFUSED 127.0.0.1:18789',
        '      修复：网关在运行吗？运行 `openclaw gateway status`；如果它监听在其他端口，请设置 gatewayUrl 或 OPENCLAW_GATEWAY_PORT',
        '',
        '重启',
        '  · 看门狗已开启',
        '      连续 2 次探测失败或 3 次检查发现新的 429 后重启，每小时最多 4 次',
        '',
        '1 个问题。',
        '',
      ].join('\n'),
    );
    expect(renderReport(report)).toContain('  ✗ nothing listens on 127.0.0.1:18789');
  });

  it('summarises in Chinese', () => {
    expect(summaryLine({ ok: 3, info: 0, warn: 1, error: 2 }, zh)).toBe('2 个问题，1 个警告。');
    expect(summaryLine({ ok: 3, info: 4, warn: 0, error: 0 }, zh)).toBe('未发现问题（3 项正常）。');
  });

  it('takes its language from the locale when the config says auto, even when the config does not load', () => {
    expect(doctorLanguage('/nonexistent/breakerbar-config.json', { LANG: 'zh_CN.UTF-8' })).toBe('zh-CN');
    expect(doctorLanguage('/nonexistent/breakerbar-config.json', { LANG: 'en_US.UTF-8' })).toBe('en');
  });
});
