/**
 * The query strings of the API's reads (`/api/history`, `/api/incidents`) and
 * its path parameters, parsed strictly: an unknown or repeated parameter is an
 * error, and each error names its parameter. Browser-safe.
 */

import { clipForLog, hasControlChars, MAX_DEP_LENGTH, type Parsed, refuse, safeDecode } from './text.js';
import type { HistoryQuery, IncidentQuery } from './types.js';

/** At most this many steps in one history answer. */
export const MAX_HISTORY_STEPS = 10_000;
/** History without `from` covers the hour up to `to`. */
const DEFAULT_HISTORY_SPAN = 3_600_000;
const DEFAULT_STEP_SECONDS = 60;

type HistoryParse = { ok: true; query: HistoryQuery } | { ok: false; param: string; error: string };

const HISTORY_PARAMS = new Set(['dep', 'from', 'to', 'step']);
const EPOCH_MS = /^\d{1,16}$/;
/** The largest time a JavaScript Date can hold. */
const MAX_DATE_MS = 8.64e15;
/** A date, or a date-time with an explicit zone: a zone-less time would depend on the server's locale. */
const ISO_TIME = /^\d{4}-\d{2}-\d{2}(?:T\d{2}:\d{2}(?::\d{2}(?:\.\d{1,9})?)?(?:Z|[+-]\d{2}:\d{2}))?$/i;

/**
 * `dep`, `from`, `to` (ISO 8601 or epoch ms; default the last hour up to now), `step` (seconds, default
 * 60, at least 1, at most 10,000 steps). Each error names its parameter.
 */
export function parseHistoryQuery(rawQuery: string, now: number): HistoryParse {
  const params = new URLSearchParams(rawQuery);
  const seen = new Set<string>();
  for (const key of params.keys()) {
    if (!HISTORY_PARAMS.has(key)) {
      return { ok: false, param: key, error: `unknown parameter ${clipForLog(key, 40)} (dep, from, to, step)` };
    }
    if (seen.has(key)) return { ok: false, param: key, error: `${key} given more than once` };
    seen.add(key);
  }
  const depValue = params.get('dep');
  const dep = depValue === null || depValue === '' ? undefined : depValue;
  if (dep !== undefined && (dep.length > MAX_DEP_LENGTH || hasControlChars(dep))) {
    return { ok: false, param: 'dep', error: 'dep is not a dependency key' };
  }
  const to = parseTime(params.get('to'));
  if (to === 'invalid')
    return { ok: false, param: 'to', error: 'to must be ISO 8601 (with a zone) or epoch milliseconds' };
  const from = parseTime(params.get('from'));
  if (from === 'invalid') {
    return { ok: false, param: 'from', error: 'from must be ISO 8601 (with a zone) or epoch milliseconds' };
  }
  const toMs = to ?? now;
  const fromMs = from ?? toMs - DEFAULT_HISTORY_SPAN;
  if (!(fromMs < toMs)) return { ok: false, param: 'from', error: 'from must be before to' };
  const stepText = params.get('step');
  let stepMs = DEFAULT_STEP_SECONDS * 1000;
  if (stepText !== null) {
    const seconds = /^\d+(?:\.\d+)?$/.test(stepText) ? Number(stepText) : Number.NaN;
    if (!Number.isFinite(seconds) || seconds < 1) {
      return { ok: false, param: 'step', error: 'step must be a number of seconds, at least 1' };
    }
    stepMs = Math.round(seconds * 1000);
  }
  if (Math.ceil((toMs - fromMs) / stepMs) > MAX_HISTORY_STEPS) {
    return {
      ok: false,
      param: 'step',
      error: `step too small: at most ${MAX_HISTORY_STEPS} steps between from and to`,
    };
  }
  return { ok: true, query: { ...(dep === undefined ? {} : { dep }), from: fromMs, to: toMs, stepMs } };
}

type IncidentParse = { ok: true; query: IncidentQuery } | { ok: false; param: string; error: string };

const INCIDENT_PARAMS = new Set(['limit', 'since']);
const DEFAULT_INCIDENT_LIMIT = 50;
const MAX_INCIDENT_LIMIT = 1000;

/** `limit` (1..1000, default 50), `since` (ISO 8601 or epoch ms; default: any time). Each error names its parameter. */
export function parseIncidentQuery(rawQuery: string): IncidentParse {
  const params = new URLSearchParams(rawQuery);
  const seen = new Set<string>();
  for (const key of params.keys()) {
    if (!INCIDENT_PARAMS.has(key)) {
      return { ok: false, param: key, error: `unknown parameter ${clipForLog(key, 40)} (limit, since)` };
    }
    if (seen.has(key)) return { ok: false, param: key, error: `${key} given more than once` };
    seen.add(key);
  }
  const limitText = params.get('limit');
  let limit = DEFAULT_INCIDENT_LIMIT;
  if (limitText !== null && limitText !== '') {
    limit = /^\d{1,5}$/.test(limitText) ? Number(limitText) : Number.NaN;
    if (!(limit >= 1 && limit <= MAX_INCIDENT_LIMIT)) {
      return { ok: false, param: 'limit', error: `limit must be an integer from 1 to ${MAX_INCIDENT_LIMIT}` };
    }
  }
  const since = parseTime(params.get('since'));
  if (since === 'invalid') {
    return { ok: false, param: 'since', error: 'since must be ISO 8601 (with a zone) or epoch milliseconds' };
  }
  return { ok: true, query: { limit, since } };
}

function parseTime(value: string | null): number | null | 'invalid' {
  if (value === null || value === '') return null;
  if (EPOCH_MS.test(value)) {
    const ms = Number(value);
    return ms <= MAX_DATE_MS ? ms : 'invalid';
  }
  if (!ISO_TIME.test(value)) return 'invalid';
  const ms = Date.parse(value);
  return Number.isFinite(ms) ? ms : 'invalid';
}

/** `/api/incidents/<id>`: a positive integer, written plainly. */
export function parseIncidentId(raw: string): Parsed<number> {
  const id = /^[1-9]\d{0,15}$/.test(raw) ? Number(raw) : Number.NaN;
  return Number.isSafeInteger(id) ? { ok: true, value: id } : refuse('id', 'incident id must be a positive integer');
}

/** `/api/breakers/<dep>/control`: the dependency key, `/` encoded as %2F or not. */
export function parseDependencyInPath(raw: string): Parsed<string> {
  const dep = safeDecode(raw);
  if (dep === null || dep.length === 0 || dep.length > MAX_DEP_LENGTH || hasControlChars(dep)) {
    return refuse('dep', 'invalid dependency in path');
  }
  return { ok: true, value: dep };
}
