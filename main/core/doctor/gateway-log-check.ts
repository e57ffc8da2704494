/**
 * Check 3: the gateway's JSON log directory (`gatewayLogDir`, default
 * /tmp/openclaw) and today's `openclaw[-<profile>]-YYYY-MM-DD.log` in it.
 */
import { accessSync, constants, readdirSync, type Stats, statSync } from 'node:fs';
import { dirname, isAbsolute, join, resolve } from 'node:path';
import { type Environment, expandHome, type LoadedConfig } from '../config/index.js';
import { gatewayLogPattern } from '../sources/gateway-log.js';
import { errnoCode, humanSize, permissionFixMessage, statOrCode } from './fs-util.js';
import { type Finding, saidFinding } from './types.js';

const pad = (n: number) => String(n).padStart(2, '0');

/**
 * What a missing or unreadable gateway log costs, said with every such finding: the breakers count upstream
 * attempts from its `[model-fetch]` lines, and without them they judge the transcripts' records alone.
 */
const WITHOUT_GATEWAY_LOG = { key: 'doctor.log.without' } as const;

/** Today's date as the log names it: local and UTC (they differ around midnight; either counts). */
export function todaysLogDates(now: number): string[] {
  const d = new Date(now);
  const local = `${d.getFullYear()}-${pad(d.getMonth() + 1)}-${pad(d.getDate())}`;
  const utc = d.toISOString().slice(0, 10);
  return local === utc ? [local] : [local, utc];
}

export function logPrefix(profile: string | null): string {
  return profile === null ? 'openclaw' : `openclaw-${profile}`;
}

/** Profiles whose daily logs are in the directory (`openclaw-<profile>-YYYY-MM-DD.log`). */
function profilesIn(names: readonly string[]): string[] {
  const found = new Set<string>();
  for (const name of names) {
    const match = /^openclaw-(.+)-\d{4}-\d{2}-\d{2}\.log(?:\.[1-5])?$/.exec(name);
    if (match?.[1]) found.add(match[1]);
  }
  return [...found].sort();
}

/**
 * Whoever can write in the log directory can write lines BreakerBar believes: a storm that never happened (and
 * the restart it calls for), or none where one is. OpenClaw's default, /tmp/openclaw, is made by whoever logs
 * first, so on a shared machine another user may own it. POSIX only (Windows has no such modes).
 */
function trustFindings(dir: string, stats: Stats): Finding[] {
  if (typeof process.getuid !== 'function') return [];
  const uid = process.getuid();
  const why = { key: 'doctor.log.trustWhy' } as const;
  const fix = { key: 'doctor.log.trustFix', params: { dir } } as const;
  const out: Finding[] = [];
  if (stats.uid !== uid && stats.uid !== 0) {
    out.push(
      saidFinding('sources', 'warn', { key: 'doctor.log.otherOwner', params: { dir, uid: stats.uid } }, why, fix),
    );
  }
  if ((stats.mode & 0o002) !== 0) {
    out.push(saidFinding('sources', 'warn', { key: 'doctor.log.worldWritable', params: { dir } }, why, fix));
  }
  return out;
}

export function checkGatewayLog(
  loaded: LoadedConfig,
  environment: Environment,
  openclawConfig: Record<string, unknown> | null,
  now: number,
): Finding[] {
  const findings: Finding[] = [];
  const dir = loaded.gatewayLogDir;
  const profile = loaded.config.profile;
  const prefix = logPrefix(profile);

  const loggingFile = (openclawConfig?.logging as Record<string, unknown> | undefined)?.file;
  if (typeof loggingFile === 'string' && loggingFile.trim() !== '') {
    const expanded = expandHome(loggingFile.trim(), environment.home);
    const fileDir = dirname(isAbsolute(expanded) ? expanded : resolve(expanded));
    if (fileDir !== dir) {
      findings.push(
        saidFinding(
          'sources',
          'warn',
          { key: 'doctor.log.loggingFile', params: { file: loggingFile, dir } },
          undefined,
          { key: 'doctor.log.loggingFileFix', params: { dir: fileDir, prefix } },
        ),
      );
    }
  }

  const stat = statOrCode(dir);
  if ('code' in stat) {
    if (stat.code === 'ENOENT') {
      findings.push(
        saidFinding(
          'sources',
          'warn',
          { key: 'doctor.log.dirMissing', params: { dir } },
          { key: 'doctor.log.dirMissingDetail' },
          { key: 'doctor.log.dirMissingFix' },
        ),
      );
    } else if (stat.code === 'EACCES' || stat.code === 'EPERM') {
      findings.push(
        saidFinding(
          'sources',
          'error',
          { key: 'doctor.log.dirDenied', params: { dir } },
          WITHOUT_GATEWAY_LOG,
          permissionFixMessage(dir),
        ),
      );
    } else {
      findings.push(
        saidFinding(
          'sources',
          'error',
          { key: 'doctor.log.dirUnusable', params: { dir, code: stat.code } },
          WITHOUT_GATEWAY_LOG,
        ),
      );
    }
    return findings;
  }
  if (!stat.stats.isDirectory()) {
    findings.push(
      saidFinding('sources', 'error', { key: 'doctor.log.notDirectory', params: { dir } }, WITHOUT_GATEWAY_LOG, {
        key: 'doctor.log.notDirectoryFix',
      }),
    );
    return findings;
  }

  findings.push(...trustFindings(dir, stat.stats));

  let names: string[];
  try {
    names = readdirSync(dir);
  } catch (error) {
    const code = errnoCode(error);
    findings.push(
      saidFinding(
        'sources',
        'error',
        { key: 'doctor.log.cannotList', params: { dir, code: `${code}` } },
        WITHOUT_GATEWAY_LOG,
        permissionFixMessage(dir),
      ),
    );
    return findings;
  }

  const pattern = gatewayLogPattern(profile);
  const today = todaysLogDates(now).map((date) => `${prefix}-${date}.log`);
  const todays = today.find((name) => names.includes(name));
  if (todays) {
    const path = join(dir, todays);
    if (!statSync(path).isFile()) {
      findings.push(
        saidFinding(
          'sources',
          'error',
          { key: 'doctor.log.notFile', params: { path } },
          { key: 'doctor.log.notFileDetail' },
          { key: 'doctor.log.notFileFix' },
        ),
      );
      return findings;
    }
    try {
      accessSync(path, constants.R_OK);
      findings.push(
        saidFinding('sources', 'ok', { key: 'doctor.log.today', params: { path } }, humanSize(statSync(path).size)),
      );
    } catch {
      findings.push(
        saidFinding(
          'sources',
          'error',
          { key: 'doctor.log.todayDenied', params: { path } },
          WITHOUT_GATEWAY_LOG,
          permissionFixMessage(path),
        ),
      );
    }
    return findings;
  }

  const ours = names.filter((name) => pattern.test(name)).sort();
  const newest = ours[ours.length - 1];
  const others = profile === null ? profilesIn(names) : [];
  findings.push(
    saidFinding(
      'sources',
      'warn',
      { key: 'doctor.log.noneToday', params: { date: today[0] ?? '', dir } },
      { key: 'doctor.log.noneTodayDetail', params: { newest: newest ?? null, prefix, dir, others } },
      { key: 'doctor.log.noneTodayFix', params: { profile: others[0] ?? null } },
    ),
  );
  return findings;
}
