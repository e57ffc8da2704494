/**
 * How the settings are laid out for a person, apart from the DOM (tested in
 * Node): the group each config key belongs to (by concern, not by where it
 * sits in the file), its plain-language label from the message catalogue
 * (`views.settings.<path>.label`), and the unit its number is in. A key the
 * catalogue has no label for still shows, under its raw path.
 */
import type { ConfigField } from '../main/api/types.js';
import type { Translator } from '../main/words/messages/index.js';
import { lookup } from './words.js';

export const SETTING_GROUPS = [
  'gateway',
  'watchdog',
  'breakers',
  'notifications',
  'incidents',
  'spend',
  'fleet',
  'sources',
  'storage',
  'interface',
  'advanced',
] as const;
export type SettingGroup = (typeof SETTING_GROUPS)[number];

/**
 * Where keys go, by path prefix (a prefix names a key or a whole section). The longest prefix that matches
 * wins; a key none names is Advanced, as is a deprecated one (its doc says so).
 */
const GROUP_BY_PREFIX: ReadonlyArray<readonly [string, SettingGroup]> = [
  ['gatewayUrl', 'gateway'],
  ['gatewayToken', 'gateway'],
  ['gatewayMetrics', 'gateway'],
  ['health', 'gateway'],
  ['watchdog', 'watchdog'],
  ['breakers', 'breakers'],
  ['notifications', 'notifications'],
  ['alerts', 'notifications'],
  ['heartbeat', 'notifications'],
  ['incidents', 'incidents'],
  ['budgets', 'spend'],
  ['quota', 'spend'],
  ['spend', 'spend'],
  ['fleet', 'fleet'],
  ['openclawDir', 'sources'],
  ['profile', 'sources'],
  ['gatewayLogDir', 'sources'],
  ['ingest', 'sources'],
  ['dataDir', 'storage'],
  ['retention', 'storage'],
  ['ui', 'interface'],
  ['server', 'interface'],
];

export function groupOf(field: Pick<ConfigField, 'path' | 'doc'>): SettingGroup {
  if (/^deprecated\b/i.test(field.doc)) return 'advanced';
  let best: readonly [string, SettingGroup] | null = null;
  for (const entry of GROUP_BY_PREFIX) {
    const [prefix] = entry;
    const matches = field.path === prefix || field.path.startsWith(`${prefix}.`);
    if (matches && prefix.length > (best?.[0].length ?? -1)) best = entry;
  }
  return best?.[1] ?? 'advanced';
}

export type Unit =
  | 'seconds'
  | 'milliseconds'
  | 'days'
  | 'bytes'
  | 'perHour'
  | 'share'
  | 'factor'
  | 'calls'
  | 'checks'
  | 'probes'
  | 'failures'
  | 'trials'
  | 'usd'
  | 'percent';

/** Counts whose key name does not say what is counted. */
const UNIT_OF_PATH: Readonly<Record<string, Unit>> = {
  'breakers.failureRate': 'share',
  'breakers.backoffFactor': 'factor',
  'breakers.minCalls': 'calls',
  'breakers.consecutiveFailures': 'failures',
  'breakers.trialsToClose': 'trials',
  'watchdog.threshold': 'checks',
  'watchdog.healthFailuresBeforeRestart': 'probes',
};

/** Units the key's own name states, by the naming the schema follows (`…Sec`, `…Ms`, `…PerHour`). */
const UNIT_OF_SUFFIX: ReadonlyArray<readonly [RegExp, Unit]> = [
  [/Sec$/, 'seconds'],
  [/Ms$/, 'milliseconds'],
  [/(^d|D)ays$/, 'days'],
  [/Bytes$/, 'bytes'],
  [/PerHour$/, 'perHour'],
  [/Usd$/i, 'usd'],
  [/(Percent|Pct)$/, 'percent'],
];

/** The unit a number-valued key is in, or null (a flag, a name, a list, or a plain count). */
export function unitOf(field: Pick<ConfigField, 'path' | 'default'>): Unit | null {
  if (typeof field.default !== 'number' && field.default !== null) return null;
  const explicit = UNIT_OF_PATH[field.path];
  if (explicit) return explicit;
  const key = field.path.slice(field.path.lastIndexOf('.') + 1);
  for (const [pattern, unit] of UNIT_OF_SUFFIX) if (pattern.test(key)) return unit;
  return null;
}

export const labelKey = (path: string) => `views.settings.${path}.label`;

/** The key's label in the translator's language, or null when the catalogue has none. */
export function labelOf(t: Pick<Translator, 'language'>, path: string): string | null {
  return lookup(t, labelKey(path));
}

export function unitWord(t: Pick<Translator, 'language'>, unit: Unit): string {
  return lookup(t, `views.settings.unit.${unit}`) ?? unit;
}

/** Config keys without a label in the catalogue (they show their raw path). */
export function unlabeled(paths: readonly string[]): string[] {
  return paths.filter((path) => lookup({ language: 'en' }, labelKey(path)) === null);
}

/** The groups in display order with their keys in schema order; empty groups are left out. */
export function groupFields(fields: readonly ConfigField[]): Array<{ group: SettingGroup; fields: ConfigField[] }> {
  const byGroup = new Map<SettingGroup, ConfigField[]>();
  for (const field of fields) {
    const group = groupOf(field);
    byGroup.set(group, [...(byGroup.get(group) ?? []), field]);
  }
  return SETTING_GROUPS.filter((group) => byGroup.has(group)).map((group) => ({
    group,
    fields: byGroup.get(group)!,
  }));
}
