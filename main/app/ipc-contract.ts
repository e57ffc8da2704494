/**
 * The IPC contract between the dashboard's preload and the main process, and
 * the checks every message passes, without Electron (so each rule is tested
 * alone). One channel per action, as renderer/bridge.ts (`BreakerBarBridge`)
 * names them; each answer is the API's JSON or its `{error, param?}`, never a
 * thrown error (an Error crossing IPC keeps only its message).
 *
 * Rules from Electron's security checklist
 * (https://www.electronjs.org/docs/latest/tutorial/security#17-validate-the-sender-of-all-ipc-messages):
 * the sender must be our own renderer's top frame, and every argument is
 * checked for type, range and size before anything reaches the core.
 */
import { fileURLToPath } from 'node:url';
import type { OperatorAction } from '../core/breaker/types.js';
import type { ApiError } from '../shared/api/types.js';
import type { CoreApi } from './core-api.js';

export const CHANNELS = {
  status: 'breakerbar:status',
  history: 'breakerbar:history',
  incidents: 'breakerbar:incidents',
  incident: 'breakerbar:incident',
  spend: 'breakerbar:spend',
  restart: 'breakerbar:restart',
  pause: 'breakerbar:pause',
  resume: 'breakerbar:resume',
  control: 'breakerbar:control',
  config: 'breakerbar:config',
  saveConfig: 'breakerbar:save-config',
  doctor: 'breakerbar:doctor',
} as const;
export type Action = keyof typeof CHANNELS;

/** Main → renderer: every event of the core's stream. */
export const EVENT_CHANNEL = 'breakerbar:event';

const MAX_DEP_LENGTH = 256;
const MAX_REASON_LENGTH = 200;
const MAX_PAUSE_SEC = 366 * 86_400;
const MAX_HISTORY_STEPS = 10_000;
const MAX_INCIDENTS = 1000;
/** The API takes 16 KiB bodies; a config that does not fit would be refused there anyway. */
const MAX_CONFIG_BYTES = 16 * 1024 - 32;
const ACTIONS: readonly OperatorAction[] = ['force_open', 'force_closed', 'reset'];
/** Epoch ms up to the year 9999: what the API accepts as a time. */
const MAX_TIME = 253_402_300_799_999;

/** What a frame must be to use the bridge: its URL and whether it is a top-level frame. */
export interface SenderFrame {
  url: string;
  parent?: unknown;
}

/**
 * The sender is our dashboard: a top-level frame showing our own `index.html` (any fragment or query:
 * the views live in the fragment). A null frame (navigated away, destroyed) is never trusted.
 */
export function isTrustedSender(frame: SenderFrame | null | undefined, rendererUrl: string): boolean {
  if (!frame || typeof frame.url !== 'string') return false;
  if (frame.parent !== undefined && frame.parent !== null) return false;
  const path = filePath(frame.url);
  return path !== null && path === filePath(rendererUrl);
}

function filePath(url: string): string | null {
  try {
    const parsed = new URL(url);
    if (parsed.protocol !== 'file:' || (parsed.host !== '' && parsed.host !== 'localhost')) return null;
    parsed.hash = '';
    parsed.search = '';
    return fileURLToPath(parsed);
  } catch {
    return null;
  }
}

export type Call<T = unknown> = (api: CoreApi) => Promise<T>;
export type Checked = { ok: true; call: Call } | { ok: false; error: ApiError };

const refuse = (param: string, error: string): Checked => ({ ok: false, error: { error, param } });

/** Checks the arguments of one action; on success, the call to make on the core's API. */
export function checkArgs(action: Action, args: readonly unknown[]): Checked {
  const expected = ARITY[action];
  if (args.length > expected) return refuse('arguments', `${action} takes ${expected} argument(s), got ${args.length}`);
  switch (action) {
    case 'status':
      return { ok: true, call: (api) => api.status() };
    case 'resume':
      return { ok: true, call: (api) => api.resume() };
    case 'config':
      return { ok: true, call: (api) => api.config() };
    case 'doctor':
      return { ok: true, call: (api) => api.doctor() };
    case 'spend':
      return { ok: true, call: (api) => api.spend() };
    case 'history':
      return checkHistory(args[0]);
    case 'incidents':
      return checkIncidents(args[0]);
    case 'incident': {
      const id = args[0];
      if (typeof id !== 'number' || !Number.isSafeInteger(id) || id < 1) {
        return refuse('id', 'incident id must be a positive integer');
      }
      return { ok: true, call: (api) => api.incident(id) };
    }
    case 'restart':
      return checkRestart(args[0]);
    case 'pause': {
      const duration = args[0] ?? null;
      if (
        duration !== null &&
        (typeof duration !== 'number' || !Number.isInteger(duration) || duration < 1 || duration > MAX_PAUSE_SEC)
      ) {
        return refuse(
          'durationSec',
          `durationSec must be a whole number of seconds from 1 to ${MAX_PAUSE_SEC}, or null (until resumed)`,
        );
      }
      return { ok: true, call: (api) => api.pause(duration) };
    }
    case 'control': {
      const [dep, operatorAction, reason] = args;
      if (!isShortText(dep, MAX_DEP_LENGTH)) return refuse('dep', 'dep must be a dependency key (provider/model)');
      if (typeof operatorAction !== 'string' || !ACTIONS.includes(operatorAction as OperatorAction)) {
        return refuse('action', `action must be one of ${ACTIONS.join(', ')}`);
      }
      if (!isShortText(reason, MAX_REASON_LENGTH)) {
        return refuse('reason', `reason must be a non-empty string of at most ${MAX_REASON_LENGTH} characters`);
      }
      return { ok: true, call: (api) => api.control(dep, operatorAction as OperatorAction, reason) };
    }
    case 'saveConfig': {
      const config = args[0];
      if (!isPlainObject(config)) return refuse('config', 'config must be a JSON object');
      let size: number;
      try {
        size = Buffer.byteLength(JSON.stringify(config));
      } catch {
        return refuse('config', 'config must be plain JSON');
      }
      if (size > MAX_CONFIG_BYTES) return refuse('config', `config is larger than ${MAX_CONFIG_BYTES} bytes`);
      return { ok: true, call: (api) => api.saveConfig(config) };
    }
  }
}

const ARITY: Record<Action, number> = {
  status: 0,
  history: 1,
  incidents: 1,
  incident: 1,
  spend: 0,
  restart: 1,
  pause: 1,
  resume: 0,
  control: 3,
  config: 0,
  saveConfig: 1,
  doctor: 0,
};

function checkHistory(value: unknown): Checked {
  if (!isPlainObject(value)) return refuse('request', 'history takes {from, to, stepSec, dep?}');
  for (const key of Object.keys(value)) {
    if (!['from', 'to', 'stepSec', 'dep'].includes(key)) return refuse(key.slice(0, 40), 'unknown history parameter');
  }
  const { from, to, stepSec, dep } = value;
  if (!isTime(from)) return refuse('from', 'from must be epoch milliseconds');
  if (!isTime(to)) return refuse('to', 'to must be epoch milliseconds');
  if (!(from < to)) return refuse('from', 'from must be before to');
  if (typeof stepSec !== 'number' || !Number.isFinite(stepSec) || stepSec < 1) {
    return refuse('step', 'stepSec must be a number of seconds, at least 1');
  }
  if (Math.ceil((to - from) / (stepSec * 1000)) > MAX_HISTORY_STEPS) {
    return refuse('step', `step too small: at most ${MAX_HISTORY_STEPS} steps between from and to`);
  }
  if (dep !== undefined && !isShortText(dep, MAX_DEP_LENGTH)) return refuse('dep', 'dep is not a dependency key');
  const query = { from, to, stepMs: Math.round(stepSec * 1000), ...(dep === undefined ? {} : { dep }) };
  return { ok: true, call: (api) => api.history(query) };
}

function checkIncidents(value: unknown): Checked {
  const request = value ?? {};
  if (!isPlainObject(request)) return refuse('request', 'incidents takes {limit?, since?}');
  for (const key of Object.keys(request)) {
    if (key !== 'limit' && key !== 'since') return refuse(key.slice(0, 40), 'unknown incidents parameter');
  }
  const { limit, since } = request;
  if (
    limit !== undefined &&
    (typeof limit !== 'number' || !Number.isInteger(limit) || limit < 1 || limit > MAX_INCIDENTS)
  ) {
    return refuse('limit', `limit must be an integer from 1 to ${MAX_INCIDENTS}`);
  }
  if (since !== undefined && !isTime(since)) return refuse('since', 'since must be epoch milliseconds');
  const query = { ...(limit === undefined ? {} : { limit }), ...(since === undefined ? {} : { since }) };
  return { ok: true, call: (api) => api.incidents(query) };
}

function checkRestart(value: unknown): Checked {
  if (!isPlainObject(value)) return refuse('request', 'restart takes {force, reason}');
  for (const key of Object.keys(value)) {
    if (key !== 'force' && key !== 'reason') return refuse(key.slice(0, 40), 'unknown restart parameter');
  }
  const force = value.force ?? false;
  if (typeof force !== 'boolean') return refuse('force', 'force must be true or false');
  const reason = value.reason;
  if (reason !== undefined && !isShortText(reason, MAX_REASON_LENGTH)) {
    return refuse('reason', `reason must be a non-empty string of at most ${MAX_REASON_LENGTH} characters`);
  }
  return { ok: true, call: (api) => api.restart(reason === undefined ? { force } : { force, reason }) };
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return false;
  const proto = Object.getPrototypeOf(value);
  return proto === Object.prototype || proto === null;
}

function isTime(value: unknown): value is number {
  return typeof value === 'number' && Number.isInteger(value) && value >= 0 && value <= MAX_TIME;
}

/** C0 controls and DEL: a line break in a reason would forge log lines and notifications. */
// biome-ignore lint/suspicious/noControlCharactersInRegex: refusing control characters is the point.
const CONTROL = /[\u0000-\u001f\u007f]/;

function isShortText(value: unknown, max: number): value is string {
  return typeof value === 'string' && value.trim() !== '' && [...value].length <= max && !CONTROL.test(value);
}
