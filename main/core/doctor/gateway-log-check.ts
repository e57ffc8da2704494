/**
 * Check 3: the gateway's JSON log directory (`gatewayLogDir`, default
 * /tmp/openclaw) and today's `openclaw[-<profile>]-YYYY-MM-DD.log` in it.
 */
import { accessSync, constants, readdirSync, type Stats, statSync } from 'node:fs';
import { dirname, isAbsolute, join, resolve } from 'node:path';
import { type Environment, expandHome, type LoadedConfig } from '../config/index.js';
import { gatewayLogPattern } from '../sources/gateway-log.js';
import { errnoCode, humanSize, permissionFix, statOrCode } from './fs-util.js';
import { type Finding, finding } from './types.js';

const pad = (n: number) => String(n).padStart(2, '0');

/**
 * What a missing or unreadable gateway log costs, said with every such finding: the breakers count upstream
 * attempts from its `[model-fetch]` lines, and without them they judge the transcripts' records alone.
 */
export const WITHOUT_GATEWAY_LOG =
  "the breakers count each upstream attempt from this log's [model-fetch] lines; without it they fall back to " +
  "the transcripts, which keep only each run's last failure (a run's retries go uncounted), and fallback " +
  'decisions, stalled sessions and run timeouts go unseen';

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
  const why =
    'whoever can write there can write gateway log lines BreakerBar acts on (a storm, a restart it calls for); ' +
    'OpenClaw itself logs to such a directory only when it is safe, and otherwise falls back to one of your own';
  const fix = `remove ${dir} and let the gateway create it again, or point OpenClaw's logging.file at a directory of your own (and gatewayLogDir with it)`;
  const out: Finding[] = [];
  if (stats.uid !== uid && stats.uid !== 0) {
    out.push(
      finding('sources', 'warn', `gateway log directory ${dir} belongs to another user (uid ${stats.uid})`, why, fix),
    );
  }
  if ((stats.mode & 0o002) !== 0) {
    out.push(finding('sources', 'warn', `gateway log directory ${dir} can be written by every user`, why, fix));
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
        finding(
          'sources',
          'warn',
          `openclaw.json sets logging.file to ${loggingFile}, but BreakerBar reads gateway logs in ${dir}`,
          undefined,
          `set gatewayLogDir to ${fileDir} in BreakerBar's config (it follows ${prefix}-YYYY-MM-DD.log files there)`,
        ),
      );
    }
  }

  const stat = statOrCode(dir);
  if ('code' in stat) {
    if (stat.code === 'ENOENT') {
      findings.push(
        finding(
          'sources',
          'warn',
          `gateway log directory ${dir} does not exist`,
          `${WITHOUT_GATEWAY_LOG}; /tmp is emptied at boot until the gateway logs again`,
          'start the gateway (it creates the directory with its first log line), or set gatewayLogDir to where its log is written',
        ),
      );
    } else if (stat.code === 'EACCES' || stat.code === 'EPERM') {
      findings.push(
        finding(
          'sources',
          'error',
          `cannot reach the gateway log directory ${dir} (permission denied)`,
          WITHOUT_GATEWAY_LOG,
          permissionFix(dir),
        ),
      );
    } else {
      findings.push(
        finding('sources', 'error', `cannot use the gateway log directory ${dir} (${stat.code})`, WITHOUT_GATEWAY_LOG),
      );
    }
    return findings;
  }
  if (!stat.stats.isDirectory()) {
    findings.push(
      finding(
        'sources',
        'error',
        `gateway log directory ${dir} is not a directory`,
        WITHOUT_GATEWAY_LOG,
        'set gatewayLogDir to the directory of the gateway log',
      ),
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
      finding(
        'sources',
        'error',
        `cannot list the gateway log directory ${dir}${code === 'EACCES' || code === 'EPERM' ? ' (permission denied)' : ` (${code})`}`,
        WITHOUT_GATEWAY_LOG,
        permissionFix(dir),
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
        finding(
          'sources',
          'error',
          `today's gateway log ${path} is not a regular file`,
          `it is skipped, never opened (a named pipe there would hold whoever reads it); ${WITHOUT_GATEWAY_LOG}`,
          `remove it; the gateway creates its log again with its next line`,
        ),
      );
      return findings;
    }
    try {
      accessSync(path, constants.R_OK);
      findings.push(finding('sources', 'ok', `today's gateway log ${path}`, humanSize(statSync(path).size)));
    } catch {
      findings.push(
        finding(
          'sources',
          'error',
          `today's gateway log ${path} cannot be read (permission denied)`,
          WITHOUT_GATEWAY_LOG,
          permissionFix(path),
        ),
      );
    }
    return findings;
  }

  const ours = names.filter((name) => pattern.test(name)).sort();
  const newest = ours[ours.length - 1];
  const others = profile === null ? profilesIn(names) : [];
  const details = [
    newest ? `newest here: ${newest}` : `no ${prefix}-YYYY-MM-DD.log files in ${dir}`,
    others.length > 0 ? `logs of profile(s) ${others.join(', ')} are here` : '',
    WITHOUT_GATEWAY_LOG,
  ].filter((s) => s !== '');
  findings.push(
    finding(
      'sources',
      'warn',
      `no gateway log for today (${today[0]}) in ${dir}`,
      details.join('; '),
      others.length > 0
        ? `if the gateway runs with --profile, set profile in BreakerBar's config (e.g. "${others[0]}")`
        : 'is the gateway running? (`openclaw gateway status`); if it logs elsewhere (logging.file), set gatewayLogDir',
    ),
  );
  return findings;
}
