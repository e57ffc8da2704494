/**
 * The JSON bodies of the API's POSTs, checked field by field, each error
 * naming its field. Browser-safe: the server parses with these, and the app
 * checks what its dashboard sends with the same rules.
 */
import type { OperatorAction } from '../core/breaker/types.js';
import { clipForLog, hasControlChars, MAX_REASON_LENGTH } from './text.js';
import type { ControlRequest, MaintenanceRequest, WatchdogAction, WatchdogRequest } from './types.js';

/** A JSON object (not null, not an array): what every body is. */
function isJsonObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

const ACTIONS: readonly OperatorAction[] = ['force_open', 'force_closed', 'reset'];
/** A pause longer than a year is a typo; "until resumed" is `null`. */
const MAX_PAUSE_SEC = 366 * 86_400;

type ControlBody = { ok: true; request: ControlRequest } | { ok: false; param: string; error: string };

export function parseControlBody(value: unknown, dep: string): ControlBody {
  if (!isJsonObject(value)) {
    return { ok: false, param: 'body', error: 'body must be a JSON object {action, reason}' };
  }
  const record = value;
  for (const key of Object.keys(record)) {
    if (key !== 'action' && key !== 'reason' && key !== 'dep') {
      return { ok: false, param: key, error: `unknown field ${clipForLog(key, 40)}` };
    }
  }
  if ('dep' in record && record.dep !== dep) {
    return { ok: false, param: 'dep', error: 'dep in the body differs from the path' };
  }
  const action = record.action;
  if (typeof action !== 'string' || !(ACTIONS as readonly string[]).includes(action)) {
    return { ok: false, param: 'action', error: `action must be one of ${ACTIONS.join(', ')}` };
  }
  const reason = record.reason;
  if (typeof reason !== 'string' || reason.trim() === '') {
    return { ok: false, param: 'reason', error: 'reason is required' };
  }
  if ([...reason].length > MAX_REASON_LENGTH) {
    return { ok: false, param: 'reason', error: `reason is longer than ${MAX_REASON_LENGTH} characters` };
  }
  // The reason reaches logs and notifications: line breaks and escapes there would forge entries.
  if (hasControlChars(reason)) {
    return { ok: false, param: 'reason', error: 'reason must not contain control characters' };
  }
  return { ok: true, request: { dep, action: action as OperatorAction, reason: reason.trim() } };
}

/** Body of `POST /api/config`: `{config: {...}}`, the whole file's new content (the schema checks it later). */
export function parseConfigBody(
  value: unknown,
): { ok: true; request: { config: unknown; confirmCode?: string } } | { ok: false; param: string; error: string } {
  if (!isJsonObject(value)) {
    return { ok: false, param: 'config', error: 'body must be {"config": {...}}' };
  }
  const record = value;
  for (const key of Object.keys(record)) {
    if (key !== 'config' && key !== 'confirmCode') {
      return { ok: false, param: key.slice(0, 40), error: 'unknown field (config, confirmCode)' };
    }
  }
  const config = record.config;
  if (config === undefined) return { ok: false, param: 'config', error: 'body must be {"config": {...}}' };
  const code = record.confirmCode;
  if (code === undefined) return { ok: true, request: { config } };
  // The code's own check (six digits) is the confirmation's: here only that it is a short string.
  if (typeof code !== 'string' || code.length > 32) {
    return { ok: false, param: 'confirmCode', error: 'confirmCode must be the code sent to confirm the change' };
  }
  return { ok: true, request: { config, confirmCode: code } };
}

/** A body that carries nothing: `{}`. */
export function parseEmptyBody(
  value: unknown,
): { ok: true; request: undefined } | { ok: false; param: string; error: string } {
  if (!isJsonObject(value)) {
    return { ok: false, param: 'body', error: 'body must be a JSON object' };
  }
  const extra = Object.keys(value)[0];
  if (extra !== undefined) return { ok: false, param: extra.slice(0, 40), error: 'unknown field (none expected)' };
  return { ok: true, request: undefined };
}

/**
 * `{code}`. Never refused here: whatever is not a code becomes the empty code, which the server refuses with
 * the same 401 as a wrong or spent one, so a caller without a valid code learns nothing from the answer.
 */
export function parseSignInBody(value: unknown): { ok: true; request: { code: string } } {
  const code = isJsonObject(value) ? value.code : undefined;
  return { ok: true, request: { code: typeof code === 'string' && code.length <= 64 ? code : '' } };
}

type Parsed = { ok: true; request: WatchdogRequest } | { ok: false; param: string; error: string };

const FIELDS: Record<WatchdogAction, readonly string[]> = {
  restart: ['reason', 'force'],
  pause: ['durationSec', 'reason'],
  resume: [],
};

export function parseWatchdogBody(action: WatchdogAction, value: unknown): Parsed {
  if (!isJsonObject(value)) {
    return { ok: false, param: 'body', error: 'body must be a JSON object' };
  }
  const record = value;
  for (const key of Object.keys(record)) {
    if (!FIELDS[action].includes(key)) {
      const known = FIELDS[action].length > 0 ? ` (${FIELDS[action].join(', ')})` : ' (none)';
      return { ok: false, param: key.slice(0, 40), error: `unknown field for ${action}${known}` };
    }
  }
  const reason = parseReason(
    record.reason,
    action === 'restart' ? 'restart requested by the user' : 'paused by the user',
  );
  if (!reason.ok) return reason;
  switch (action) {
    case 'restart': {
      const force = record.force ?? false;
      if (typeof force !== 'boolean') return { ok: false, param: 'force', error: 'force must be true or false' };
      return { ok: true, request: { action, reason: reason.value, force } };
    }
    case 'pause': {
      const duration = record.durationSec ?? null;
      if (
        duration !== null &&
        (typeof duration !== 'number' || !Number.isInteger(duration) || duration < 1 || duration > MAX_PAUSE_SEC)
      ) {
        return {
          ok: false,
          param: 'durationSec',
          error: `durationSec must be a whole number of seconds from 1 to ${MAX_PAUSE_SEC}, or null (until resumed)`,
        };
      }
      return { ok: true, request: { action, durationSec: duration, reason: reason.value } };
    }
    case 'resume':
      return { ok: true, request: { action } };
  }
}

/** Body of `POST /api/maintenance`: `{durationSec: N | null, reason?: TEXT}`. */
export function parseMaintenanceBody(
  value: unknown,
): { ok: true; request: MaintenanceRequest } | { ok: false; param: string; error: string } {
  if (!isJsonObject(value)) {
    return { ok: false, param: 'body', error: 'body must be a JSON object' };
  }
  const record = value;
  for (const key of Object.keys(record)) {
    if (key !== 'durationSec' && key !== 'reason') {
      return { ok: false, param: key.slice(0, 40), error: 'unknown field for maintenance (durationSec, reason)' };
    }
  }
  const reason = parseReason(record.reason, 'maintenance');
  if (!reason.ok) return reason;
  const duration = record.durationSec ?? null;
  if (
    duration !== null &&
    (typeof duration !== 'number' || !Number.isInteger(duration) || duration < 1 || duration > MAX_PAUSE_SEC)
  ) {
    return {
      ok: false,
      param: 'durationSec',
      error: `durationSec must be a whole number of seconds from 1 to ${MAX_PAUSE_SEC}, or null (until stopped)`,
    };
  }
  return { ok: true, request: { durationSec: duration, reason: reason.value } };
}

function parseReason(
  value: unknown,
  fallback: string,
): { ok: true; value: string } | { ok: false; param: string; error: string } {
  if (value === undefined) return { ok: true, value: fallback };
  if (typeof value !== 'string' || value.trim() === '') {
    return { ok: false, param: 'reason', error: 'reason must be a non-empty string' };
  }
  if ([...value].length > MAX_REASON_LENGTH) {
    return { ok: false, param: 'reason', error: `reason is longer than ${MAX_REASON_LENGTH} characters` };
  }
  // The reason reaches logs and notifications: line breaks there would forge entries.
  // biome-ignore lint/suspicious/noControlCharactersInRegex: matching control characters is the point.
  if (/[\u0000-\u001f\u007f-\u009f\u2028\u2029]/.test(value)) {
    return { ok: false, param: 'reason', error: 'reason must not contain control characters' };
  }
  return { ok: true, value: value.trim() };
}
