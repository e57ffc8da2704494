/**
 * The settings' layout on BreakerBar's real config schema: every key has a
 * plain-language label in the catalogue (a key added without one fails here,
 * listed by path), keys are grouped by concern, numbers carry their unit.
 */
import { describe, expect, it } from 'vitest';
import type { ConfigField } from '../../main/api/types.js';
import { configSchema } from '../../main/core/config/index.js';
import { describeFields } from '../../main/core/config/schema.js';
import { LANGUAGES } from '../../main/words/i18n.js';
import { CATALOGUES, translator } from '../../main/words/messages/index.js';
import {
  groupFields,
  groupOf,
  labelOf,
  SETTING_GROUPS,
  unitOf,
  unitWord,
  unlabeled,
} from '../../renderer/settings-groups.js';

const FIELDS: ConfigField[] = describeFields(configSchema).map(({ path, field }) => ({
  path,
  default: field.default,
  doc: field.doc,
  expected: field.expected,
}));
const field = (path: string) => {
  const found = FIELDS.find((f) => f.path === path);
  if (!found) throw new Error(`no config key ${path}`);
  return found;
};

describe('settings layout', () => {
  it('has a label for every config key, in every language', () => {
    expect(unlabeled(FIELDS.map((f) => f.path))).toEqual([]);
    for (const language of LANGUAGES) {
      for (const { path } of FIELDS)
        expect(CATALOGUES[language][`views.settings.${path}.label`], path).toBeTypeOf('string');
    }
  });

  it('lists a key without a label, and falls back to its raw path', () => {
    expect(unlabeled(['watchdog.threshold', 'watchdog.somethingNew'])).toEqual(['watchdog.somethingNew']);
    expect(labelOf(translator('en'), 'watchdog.somethingNew')).toBeNull();
    expect(labelOf(translator('en'), 'watchdog.healthFailuresBeforeRestart')).toBe(
      'Restart after this many dead probes',
    );
    expect(labelOf(translator('zh-CN'), 'watchdog.healthFailuresBeforeRestart')).toBe('连续多少次探测失败后重启');
  });

  it('groups keys by concern, not by where they sit in the file', () => {
    expect(groupOf(field('gatewayUrl'))).toBe('gateway');
    expect(groupOf(field('health.intervalSec'))).toBe('gateway');
    expect(groupOf(field('watchdog.maxRestartsPerHour'))).toBe('watchdog');
    expect(groupOf(field('breakers.cooldownMs'))).toBe('breakers');
    expect(groupOf(field('notifications.webhooks'))).toBe('notifications');
    expect(groupOf(field('budgets.rates'))).toBe('spend');
    expect(groupOf(field('budgets.spend'))).toBe('spend');
    expect(groupOf(field('fleet.redisUrl'))).toBe('fleet');
    expect(groupOf(field('retention.days'))).toBe('storage');
    expect(groupOf(field('log.level'))).toBe('advanced');
    // Deprecated keys go out of the way, whatever their section.
    expect(groupOf(field('breakers.stallAfterMs'))).toBe('advanced');
    expect(groupOf({ path: 'somethingNew.key', doc: 'New.' })).toBe('advanced');
    expect(groupOf({ path: 'incidents.graceSec', doc: 'Grace.' })).toBe('incidents');
  });

  it('keeps every key once, groups in display order, keys in schema order', () => {
    const groups = groupFields(FIELDS);
    expect(groups.flatMap((g) => g.fields).sort((a, b) => a.path.localeCompare(b.path))).toEqual(
      [...FIELDS].sort((a, b) => a.path.localeCompare(b.path)),
    );
    const order = groups.map((g) => SETTING_GROUPS.indexOf(g.group));
    expect(order).toEqual([...order].sort((a, b) => a - b));
    expect(groups[0]!.group).toBe('gateway');
    const watchdog = groups.find((g) => g.group === 'watchdog')!.fields.map((f) => f.path);
    expect(watchdog.indexOf('watchdog.enabled')).toBeLessThan(watchdog.indexOf('watchdog.threshold'));
    for (const group of groups)
      for (const language of LANGUAGES)
        expect(CATALOGUES[language][`views.settings.group.${group.group}`], group.group).toBeTypeOf('string');
  });

  it('gives numbers their unit, from the key name or for counts that name none', () => {
    expect(unitOf(field('health.intervalSec'))).toBe('seconds');
    expect(unitOf(field('breakers.cooldownMs'))).toBe('milliseconds');
    expect(unitOf(field('retention.days'))).toBe('days');
    expect(unitOf(field('ingest.backfillDays'))).toBe('days');
    expect(unitOf(field('watchdog.maxRestartsPerHour'))).toBe('perHour');
    expect(unitOf(field('breakers.failureRate'))).toBe('share');
    expect(unitOf(field('watchdog.healthFailuresBeforeRestart'))).toBe('probes');
    expect(unitOf(field('server.port'))).toBeNull();
    expect(unitOf(field('watchdog.dryRun'))).toBeNull();
    expect(unitWord(translator('en'), 'perHour')).toBe('per hour');
    expect(unitWord(translator('zh-CN'), 'seconds')).toBe('秒');
  });
});
