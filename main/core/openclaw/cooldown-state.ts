/**
 * OpenClaw's own cooldowns, as pure data. After a provider error OpenClaw puts
 * the auth profile that failed out of rotation for a while and stores why in
 * its auth state (`usageStats`, one record per profile id):
 *
 * - `cooldownUntil` / `cooldownReason` / `cooldownModel`: a transient failure
 *   (rate limit, overload, timeout, auth…). 30 s, 1 min, then 5 min for most
 *   reasons; rate limits back off exponentially from 30 s (to 24 h in
 *   2026.9). When the reason is `rate_limit`, `timeout` or `model_not_found`
 *   and `cooldownModel` is set, only that model is cooling down.
 * - `disabledUntil` / `disabledReason`: billing and permanent-auth failures,
 *   10 min at first and doubling; the whole profile, every model.
 * - `blockedUntil` / `blockedModel` / `blockedScope` (2026.9): a subscription
 *   limit with the provider's own reset time, for one model when
 *   `blockedScope` is `model`.
 * - `errorCount`, `failureCounts` (per reason), `lastFailureAt`, `lastUsed`
 *   (the last success).
 *
 * This module turns that JSON into windows keyed the way BreakerBar keys
 * dependencies (`provider/model` for a model-scoped window, `provider` for a
 * profile-wide one) and answers "until when will OpenClaw not use this
 * dependency?" for a given time. No I/O and no clock: the reader
 * (`cooldowns.ts`) supplies the JSON and `now`.
 *
 * The rules copy OpenClaw's, so that BreakerBar never reports a cooldown
 * OpenClaw itself ignores: only finite positive timestamps count, a window is
 * in force while `now < until`, providers whose cooldowns OpenClaw leaves to
 * the provider (`openrouter`, `kilocode`) have none, and provider ids compare
 * lower-cased.
 */
import { credentialOf } from '../sources/transcript-record.js';

/** Which of OpenClaw's three windows: a cooldown, a disable (billing, revoked key), a provider-reported block. */
export type CooldownKind = 'cooldown' | 'disabled' | 'blocked';

/** One window of one profile, as stored (whether or not it is still in force). */
export interface UsageWindow {
  kind: CooldownKind;
  /** Epoch ms; OpenClaw always stores a deadline (a disable without one is ignored by OpenClaw too). */
  until: number;
  /** `rate_limit`, `billing`, `auth`…; null when OpenClaw recorded none. */
  reason: string | null;
  /** The one model the window applies to; null: every model of the profile. */
  model: string | null;
}

/** One profile's record from `usageStats`. */
export interface ProfileUsage {
  /** OpenClaw's profile id (`provider:default`, `provider:manual`, `inline-api-key:provider`…). */
  profile: string;
  /** Lower-cased provider id; null when neither the profile store nor the id names it. */
  provider: string | null;
  errorCount: number | null;
  /** Failures per reason since the counters were last reset. */
  failureCounts: Record<string, number>;
  lastFailureAt: number | null;
  /** The last successful use. */
  lastUsed: number | null;
  windows: UsageWindow[];
}

/** A window in force, mapped to BreakerBar's dependency key. */
export interface OpenClawCooldown {
  /** `provider/model` for a model-scoped window, `provider` for one that covers the whole profile. */
  dep: string;
  provider: string;
  model: string | null;
  profile: string;
  kind: CooldownKind;
  /** Epoch ms when OpenClaw will use the profile again (for `dep`). */
  until: number;
  reason: string | null;
  errorCount: number | null;
  /** Failures of this window's reason in OpenClaw's counters (null when it keeps none). */
  failures: number | null;
  lastFailureAt: number | null;
}

/** What holds a dependency: the profile whose window ends first once every profile of the provider is out. */
export interface DependencyCooldown {
  until: number;
  reason: string | null;
  profile: string;
  kind: CooldownKind;
}

/** The auth state of every database read, merged: what the questions below are asked of. */
export interface CooldownSnapshot {
  usage: ProfileUsage[];
  /** Every profile OpenClaw knows per provider (from its profile stores and its usage records). */
  profilesByProvider: ReadonlyMap<string, readonly string[]>;
}

export const EMPTY_SNAPSHOT: CooldownSnapshot = { usage: [], profilesByProvider: new Map() };

/** Reasons whose cooldown OpenClaw scopes to the failing model (`isModelScopedCooldownReason`). */
const MODEL_SCOPED_REASONS = new Set(['rate_limit', 'timeout', 'model_not_found']);
/** Providers whose cooldowns OpenClaw ignores: the provider manages them (`isAuthCooldownBypassedForProvider`). */
const BYPASSED_PROVIDERS = new Set(['openrouter', 'kilocode']);
/** The largest timestamp a JavaScript Date holds; OpenClaw drops anything past it. */
const MAX_TIMESTAMP_MS = 8.64e15;
/** Longer strings are cut: a reason or model id is a short word, never a paragraph. */
const MAX_TEXT = 200;
/** The prefix of the usage id OpenClaw gives an API key written inline in `openclaw.json`. */
const INLINE_KEY_PREFIX = 'inline-api-key:';
/** Profile id prefixes that are locators, not provider ids (`personal:<owner>:<uuid>`). */
const NOT_A_PROVIDER = new Set(['personal', 'sha256']);

/** Auth state that cannot be read at all (not JSON, not an object). */
export class AuthStateError extends Error {
  override name = 'AuthStateError';
}

export interface ParsedAuthState {
  /** Records with at least one usable field, provider not yet resolved. */
  usage: ProfileUsage[];
  /** Records skipped because they were not objects: counted, never fatal. */
  skipped: number;
}

/**
 * Parses OpenClaw's auth state JSON (`auth_profile_state.state_json` or the
 * `authProfiles.state` cell): `{version, order?, lastGood?, usageStats?}`.
 * Throws AuthStateError when the text is not a JSON object; a record that is
 * not an object is skipped and counted; a field of the wrong type is ignored,
 * as OpenClaw ignores it.
 */
export function parseAuthState(text: string): ParsedAuthState {
  let raw: unknown;
  try {
    raw = JSON.parse(text);
  } catch (error) {
    throw new AuthStateError(`not JSON (${(error as Error).message})`);
  }
  if (!isRecord(raw)) throw new AuthStateError(`expected a JSON object, found ${describe(raw)}`);
  const stats = raw.usageStats;
  if (stats === undefined || stats === null) return { usage: [], skipped: 0 };
  if (!isRecord(stats)) throw new AuthStateError(`usageStats is ${describe(stats)}, not an object`);
  const usage: ProfileUsage[] = [];
  let skipped = 0;
  for (const [id, value] of Object.entries(stats)) {
    const profile = id.trim();
    const record = profile === '' ? undefined : parseUsageRecord(profile, value);
    if (record === undefined) skipped += 1;
    else usage.push(record);
  }
  return { usage, skipped };
}

function parseUsageRecord(profile: string, raw: unknown): ProfileUsage | undefined {
  if (!isRecord(raw)) return undefined;
  const windows: UsageWindow[] = [];
  const cooldownReason = text(raw.cooldownReason);
  const cooldownModel = text(raw.cooldownModel);
  const cooldownUntil = timestamp(raw.cooldownUntil);
  if (cooldownUntil !== null) {
    windows.push({
      kind: 'cooldown',
      until: cooldownUntil,
      reason: cooldownReason,
      // Scoped only for the reasons OpenClaw scopes: an auth cooldown blocks every model, whatever cooldownModel says.
      model: cooldownReason !== null && MODEL_SCOPED_REASONS.has(cooldownReason) ? cooldownModel : null,
    });
  }
  const disabledUntil = timestamp(raw.disabledUntil);
  if (disabledUntil !== null) {
    windows.push({ kind: 'disabled', until: disabledUntil, reason: text(raw.disabledReason), model: null });
  }
  const blockedUntil = timestamp(raw.blockedUntil);
  if (blockedUntil !== null) {
    const blockedModel = raw.blockedScope === 'model' ? text(raw.blockedModel) : null;
    windows.push({ kind: 'blocked', until: blockedUntil, reason: text(raw.blockedReason), model: blockedModel });
  }
  const failureCounts: Record<string, number> = {};
  if (isRecord(raw.failureCounts)) {
    for (const [reason, count] of Object.entries(raw.failureCounts)) {
      if (typeof count === 'number' && Number.isFinite(count) && count > 0) {
        failureCounts[reason.slice(0, MAX_TEXT)] = Math.trunc(count);
      }
    }
  }
  return {
    profile: profile.slice(0, MAX_TEXT),
    provider: null,
    errorCount: finite(raw.errorCount),
    failureCounts,
    lastFailureAt: timestamp(raw.lastFailureAt),
    lastUsed: timestamp(raw.lastUsed),
    windows,
  };
}

/**
 * The provider a profile belongs to: the profile store's word for it, else
 * what the id says (`inline-api-key:<provider>`, `<provider>:<name>`); null
 * when neither does (a `personal:` locator with no store entry).
 */
export function providerOf(profile: string, stored: ReadonlyMap<string, string>): string | null {
  const fromStore = stored.get(profile);
  if (fromStore) return normalizeProvider(fromStore);
  if (profile.startsWith(INLINE_KEY_PREFIX)) return normalizeProvider(profile.slice(INLINE_KEY_PREFIX.length)) || null;
  const colon = profile.indexOf(':');
  if (colon <= 0) return null;
  const prefix = normalizeProvider(profile.slice(0, colon));
  return NOT_A_PROVIDER.has(prefix) ? null : prefix;
}

/** OpenClaw's `normalizeProviderId`: trimmed, lower-cased. */
export function normalizeProvider(provider: string): string {
  return provider.trim().toLowerCase();
}

/**
 * One snapshot from every database's usage records and profile stores.
 * `stored` maps profile id to provider (from every profile store read). A
 * profile recorded in several databases keeps every window (the longest
 * holds) and its largest counters.
 */
export function buildSnapshot(usage: readonly ProfileUsage[], stored: ReadonlyMap<string, string>): CooldownSnapshot {
  const merged = new Map<string, ProfileUsage>();
  for (const record of usage) {
    const provider = providerOf(record.profile, stored);
    const known = merged.get(record.profile);
    if (!known) {
      merged.set(record.profile, { ...record, provider, windows: [...record.windows] });
      continue;
    }
    known.windows.push(...record.windows);
    known.errorCount = maxOrNull(known.errorCount, record.errorCount);
    known.lastFailureAt = maxOrNull(known.lastFailureAt, record.lastFailureAt);
    known.lastUsed = maxOrNull(known.lastUsed, record.lastUsed);
    for (const [reason, count] of Object.entries(record.failureCounts)) {
      known.failureCounts[reason] = Math.max(known.failureCounts[reason] ?? 0, count);
    }
  }
  const profiles = new Map<string, Set<string>>();
  const add = (provider: string | null, profile: string) => {
    if (!provider) return;
    const set = profiles.get(provider) ?? new Set<string>();
    set.add(profile);
    profiles.set(provider, set);
  };
  for (const [profile, provider] of stored) add(normalizeProvider(provider), profile);
  for (const record of merged.values()) add(record.provider, record.profile);
  const profilesByProvider = new Map<string, string[]>();
  for (const [provider, set] of profiles) profilesByProvider.set(provider, [...set].sort());
  return { usage: [...merged.values()], profilesByProvider };
}

/** Every window in force at `now`, one entry per window, soonest to end first. */
export function activeCooldowns(snapshot: CooldownSnapshot, now: number): OpenClawCooldown[] {
  const out: OpenClawCooldown[] = [];
  for (const record of snapshot.usage) {
    const provider = record.provider;
    if (provider === null || BYPASSED_PROVIDERS.has(provider)) continue;
    for (const window of record.windows) {
      if (!(now < window.until)) continue;
      out.push({
        dep: window.model === null ? provider : `${provider}/${window.model}`,
        provider,
        model: window.model,
        profile: record.profile,
        kind: window.kind,
        until: window.until,
        reason: window.reason,
        errorCount: record.errorCount,
        failures: window.reason === null ? null : (record.failureCounts[window.reason] ?? null),
        lastFailureAt: record.lastFailureAt,
      });
    }
  }
  return out.sort((a, b) => a.until - b.until || a.dep.localeCompare(b.dep) || a.profile.localeCompare(b.profile));
}

/**
 * What a dependency key asks about. `dep` is any key BreakerBar uses:
 * `provider/model`, `provider` (every model of it), or
 * `provider/model/<credential>` (one profile, by the fingerprint breakers
 * keyed by credential carry).
 */
interface DependencyQuery {
  provider: string;
  /** null: the provider as a whole. */
  model: string | null;
  /** The profiles that count: every known profile of the provider, or the one a credential key names. */
  profiles: readonly string[];
}

function queryOf(snapshot: CooldownSnapshot, dep: string): DependencyQuery | null {
  const slash = dep.indexOf('/');
  const provider = normalizeProvider(slash < 0 ? dep : dep.slice(0, slash));
  if (provider === '' || BYPASSED_PROVIDERS.has(provider)) return null;
  const profiles = snapshot.profilesByProvider.get(provider) ?? [];
  if (slash < 0) return { provider, model: null, profiles };
  let model = dep.slice(slash + 1);
  // A credential-keyed breaker ends in the fingerprint of one of the provider's profiles.
  const last = model.lastIndexOf('/');
  if (last > 0) {
    const fingerprint = model.slice(last + 1);
    const profile = profiles.find((id) => credentialOf(id) === fingerprint);
    if (profile !== undefined) return { provider, model: model.slice(0, last), profiles: [profile] };
  }
  model = model.trim();
  return { provider, model: model === '' ? null : model, profiles };
}

/**
 * Until when OpenClaw will not call `dep`, and why: every profile of its
 * provider (or the one a credential key names) has a window in force that
 * applies to the dependency (a profile-wide one, or one scoped to this
 * model), and the answer is the soonest of their ends, since OpenClaw moves
 * to whichever profile frees up first. Null when some profile is usable
 * (OpenClaw rotates to it) or nothing is known about the provider.
 *
 * For a bare provider every window of its profiles applies: a breaker keyed
 * by provider stands for all of its models.
 */
export function dependencyCooldown(snapshot: CooldownSnapshot, dep: string, now: number): DependencyCooldown | null {
  const query = queryOf(snapshot, dep);
  if (query === null || query.profiles.length === 0) return null;
  const byProfile = new Map(snapshot.usage.map((record) => [record.profile, record]));
  let binding: DependencyCooldown | null = null;
  for (const profile of query.profiles) {
    const record = byProfile.get(profile);
    // A profile with no window in force for this dependency: OpenClaw can use it.
    let latest: UsageWindow | null = null;
    for (const window of record?.windows ?? []) {
      if (!(now < window.until)) continue;
      if (query.model !== null && window.model !== null && window.model !== query.model) continue;
      if (latest === null || window.until > latest.until) latest = window;
    }
    if (latest === null) return null;
    if (binding === null || latest.until < binding.until) {
      binding = { until: latest.until, reason: latest.reason, profile, kind: latest.kind };
    }
  }
  return binding;
}

/** `dependencyCooldown(…)?.until ?? null`: the deadline alone, for the watchdog. */
export function cooldownUntil(snapshot: CooldownSnapshot, dep: string, now: number): number | null {
  return dependencyCooldown(snapshot, dep, now)?.until ?? null;
}

/**
 * A profile id fit for a message that leaves the machine (a webhook): the
 * local part of an e-mail address (OAuth profiles are `provider:<email>`) is
 * reduced to its first character.
 */
export function profileLabel(profile: string): string {
  return profile.replace(/([^:@\s])[^:@\s]*@/g, '$1…@');
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function describe(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'an array';
  return `a ${typeof value}`;
}

function text(value: unknown): string | null {
  if (typeof value !== 'string') return null;
  const trimmed = value.trim();
  return trimmed === '' ? null : trimmed.slice(0, MAX_TEXT);
}

function finite(value: unknown): number | null {
  return typeof value === 'number' && Number.isFinite(value) ? value : null;
}

/** OpenClaw's rule: a finite number of milliseconds above 0 and within a Date's range; anything else is absent. */
function timestamp(value: unknown): number | null {
  return typeof value === 'number' && Number.isFinite(value) && value > 0 && value <= MAX_TIMESTAMP_MS ? value : null;
}

function maxOrNull(a: number | null, b: number | null): number | null {
  if (a === null) return b;
  if (b === null) return a;
  return Math.max(a, b);
}
