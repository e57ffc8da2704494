/**
 * Lines of the OpenClaw gateway's JSON log (tslog objects, as its file
 * transport writes them) for the rehearsal: the model fallback decisions the
 * gateway logs for every candidate it tries (the `gatewaylog` format), the
 * diagnostics' stalled-session reports, and the line an in-process restart
 * begins with.
 */
import { join } from 'node:path';

export type Level = 'DEBUG' | 'INFO' | 'WARN' | 'ERROR';
const LEVEL_IDS: Record<Level, number> = { DEBUG: 2, INFO: 3, WARN: 4, ERROR: 5 };

export interface TslogOptions {
  /** null: a plain logger without bindings (its name in `_meta.name`, the text in `"0"`). */
  subsystem: string | null;
  ts: number;
  text: string;
  fields?: Record<string, unknown>;
  level?: Level;
  /** Offset of the `time` field from UTC, minutes (default +60, Europe/Berlin in winter). */
  offsetMinutes?: number;
  /** Leaves out `time` and `_meta.date`. */
  withoutTime?: boolean;
}

/** `2026-11-30T00:00:01.000+01:00` for the given instant and offset. */
export function isoWithOffset(ts: number, offsetMinutes: number): string {
  const local = new Date(ts + offsetMinutes * 60_000).toISOString().slice(0, -1);
  const sign = offsetMinutes < 0 ? '-' : '+';
  const abs = Math.abs(offsetMinutes);
  const hh = String(Math.floor(abs / 60)).padStart(2, '0');
  const mm = String(abs % 60).padStart(2, '0');
  return `${local}${sign}${hh}:${mm}`;
}

/** The gateway writes its local time: this machine's offset at that instant. */
const localOffset = (ts: number) => -new Date(ts).getTimezoneOffset();

/** One tslog line exactly as the gateway's file transport writes it. */
export function tslogLine(options: TslogOptions): string {
  const level = options.level ?? 'INFO';
  const bindings = options.subsystem === null ? null : JSON.stringify({ subsystem: options.subsystem });
  const args: unknown[] = bindings === null ? [] : [bindings];
  if (options.fields) args.push(options.fields);
  args.push(options.text);
  const record: Record<string, unknown> = Object.fromEntries(args.map((arg, i) => [String(i), arg]));
  record._meta = {
    runtime: 'node',
    runtimeVersion: 'v24.3.0',
    hostname: 'unknown',
    name: bindings ?? 'openclaw',
    parentNames: ['openclaw'],
    ...(options.withoutTime ? {} : { date: new Date(options.ts).toISOString() }),
    logLevelId: LEVEL_IDS[level],
    logLevelName: level,
    path: {
      fullFilePath: 'file:///usr/lib/node_modules/openclaw/dist/subsystem-B3kQ1x9a.js:412:14',
      fileName: 'subsystem-B3kQ1x9a.js',
      fileNameWithLine: 'subsystem-B3kQ1x9a.js:412',
      fileColumn: '14',
      fileLine: '412',
      filePath: '/usr/lib/node_modules/openclaw/dist/subsystem-B3kQ1x9a.js',
      filePathWithLine: '/usr/lib/node_modules/openclaw/dist/subsystem-B3kQ1x9a.js:412',
      method: 'logToFile',
    },
  };
  if (!options.withoutTime) record.time = isoWithOffset(options.ts, options.offsetMinutes ?? 60);
  return JSON.stringify(record);
}

const split = (dep: string) => {
  const slash = dep.indexOf('/');
  return { provider: dep.slice(0, slash), model: dep.slice(slash + 1) };
};

export interface FallbackDecisionLine {
  ts: number;
  decision: 'candidate_failed' | 'candidate_succeeded';
  requested: string;
  candidate: string;
  /** OpenClaw's failure reason (rate_limit, timeout, …); null for a success. */
  reason: string | null;
  httpCode?: number;
  attempt: number;
  total: number;
  final: 'next_fallback' | 'succeeded' | 'chain_exhausted';
  next?: string;
  sessionKey: string;
  sessionId: string;
}

/** `model-fallback/decision`: `model fallback decision`, structured form. */
export function fallbackDecisionLine(o: FallbackDecisionLine): string {
  const requested = split(o.requested);
  const candidate = split(o.candidate);
  const fields = {
    event: 'model_fallback_decision',
    decision: o.decision,
    requestedProvider: requested.provider,
    requestedModel: requested.model,
    candidateProvider: candidate.provider,
    candidateModel: candidate.model,
    attempt: o.attempt,
    total: o.total,
    reason: o.reason ?? undefined,
    status: o.httpCode,
    httpCode: o.httpCode,
    fallbackStepFinalOutcome: o.final,
    ...(o.next === undefined ? {} : { nextCandidate: o.next }),
    sessionKey: o.sessionKey,
    sessionId: o.sessionId,
  };
  return tslogLine({
    subsystem: 'model-fallback/decision',
    ts: o.ts,
    text: 'model fallback decision',
    fields,
    level: o.decision === 'candidate_failed' ? 'WARN' : 'INFO',
    offsetMinutes: localOffset(o.ts),
  });
}

export interface StalledSessionLine {
  ts: number;
  sessionId: string;
  sessionKey: string;
  /** Time since the session's last progress. */
  ageMs: number;
}

/**
 * `diagnostic`: `stalled session`, as OpenClaw's diagnostic heartbeat words it for an agent run that stopped
 * making progress (a plain message with `key=value` pairs, logged at WARN).
 */
export function stalledSessionLine(o: StalledSessionLine): string {
  const age = `${Math.round(o.ageMs / 1000)}s`;
  const text =
    `stalled session: sessionId=${o.sessionId} sessionKey=${o.sessionKey} state=processing age=${age} queueDepth=1 ` +
    `reason=active_work_without_progress classification=stalled_agent_run activeWorkKind=model_call ` +
    `lastProgress=model_call_started lastProgressAge=${age} recovery=none`;
  return tslogLine({ subsystem: 'diagnostic', ts: o.ts, text, level: 'WARN', offsetMinutes: localOffset(o.ts) });
}

/** `gateway`: the first line of an in-process restart (the gateway received SIGUSR2). */
export function gatewayRestartLine(ts: number): string {
  return tslogLine({
    subsystem: 'gateway',
    ts,
    text: 'received SIGUSR2; restarting',
    level: 'INFO',
    offsetMinutes: localOffset(ts),
  });
}

/** `<dir>/openclaw-YYYY-MM-DD.log` for the local day of `ts`, as the gateway names its log. */
export function gatewayLogPath(dir: string, ts: number): string {
  const d = new Date(ts);
  const day = `${d.getFullYear()}-${String(d.getMonth() + 1).padStart(2, '0')}-${String(d.getDate()).padStart(2, '0')}`;
  return join(dir, `openclaw-${day}.log`);
}
