/** The settings form's logic, on BreakerBar's real config schema. */
import { describe, expect, it } from 'vitest';
import type { ConfigField } from '../../main/api/types.js';
import { configSchema } from '../../main/core/config/index.js';
import { describeFields } from '../../main/core/config/schema.js';
import {
  controlFor,
  currentValue,
  fieldForParam,
  formatValue,
  parseValue,
  sameValue,
  setPath,
  withChanges,
} from '../../renderer/config-form.js';

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

describe('config form', () => {
  it('picks a control from the schema: checkbox, choice, number, text, nullable, JSON; secrets masked', () => {
    expect(controlFor(field('watchdog.dryRun')).kind).toBe('checkbox');
    expect(controlFor(field('breakers.key'))).toEqual({
      kind: 'select',
      options: ['model', 'provider', 'credential'],
      secret: false,
    });
    expect(controlFor(field('watchdog.threshold')).kind).toBe('number');
    expect(controlFor(field('server.host')).kind).toBe('text');
    expect(controlFor(field('dataDir')).kind).toBe('nullable');
    expect(controlFor(field('watchdog.restartCommand')).kind).toBe('json');
    expect(controlFor(field('notifications.webhooks')).kind).toBe('json');
    expect(controlFor(field('breakers.overrides')).kind).toBe('json');
    expect(controlFor(field('gatewayToken')).secret).toBe(true);
  });

  it('reads every key of the schema back as its default from an untouched form', () => {
    for (const f of FIELDS) {
      const spec = controlFor(f);
      const text = spec.kind === 'checkbox' ? f.default === true : formatValue(spec, f.default);
      const parsed = parseValue(spec, f, text);
      expect(parsed, f.path).toEqual({ ok: true, value: f.default });
    }
  });

  it('parses what is typed: numbers, null for an empty optional, JSON; refuses what cannot be sent', () => {
    const threshold = field('watchdog.threshold');
    expect(parseValue(controlFor(threshold), threshold, '5')).toEqual({ ok: true, value: 5 });
    // Out of range is the server's to say (one validation, one wording); not a number is not sendable.
    expect(parseValue(controlFor(threshold), threshold, '0')).toEqual({ ok: true, value: 0 });
    expect(parseValue(controlFor(threshold), threshold, '')).toMatchObject({ ok: false });
    const dataDir = field('dataDir');
    expect(parseValue(controlFor(dataDir), dataDir, '  ')).toEqual({ ok: true, value: null });
    expect(parseValue(controlFor(dataDir), dataDir, '/srv/bb')).toEqual({ ok: true, value: '/srv/bb' });
    const command = field('watchdog.restartCommand');
    expect(parseValue(controlFor(command), command, '["openclaw", "gateway", "restart"]')).toEqual({
      ok: true,
      value: ['openclaw', 'gateway', 'restart'],
    });
    const bad = parseValue(controlFor(command), command, '["openclaw",');
    expect(bad.ok).toBe(false);
    expect(bad.ok ? '' : bad.error).toContain('not valid JSON');
  });

  it('writes the file as it was plus the changed keys, never mutating what it was given', () => {
    const raw = { server: { port: 0 }, watchdog: { dryRun: true }, openclawDir: '/x' };
    const next = withChanges(
      raw,
      new Map<string, unknown>([
        ['watchdog.threshold', 5],
        ['retention.days', 7],
      ]),
    );
    expect(next).toEqual({
      server: { port: 0 },
      watchdog: { dryRun: true, threshold: 5 },
      openclawDir: '/x',
      retention: { days: 7 },
    });
    expect(raw).toEqual({ server: { port: 0 }, watchdog: { dryRun: true }, openclawDir: '/x' });
    expect(setPath({}, 'a.b.c', 1)).toEqual({ a: { b: { c: 1 } } });
    expect(currentValue(field('watchdog.dryRun'), raw)).toBe(true);
    expect(currentValue(field('watchdog.threshold'), raw)).toBe(3);
    expect(sameValue({ a: [1] }, { a: [1] })).toBe(true);
  });

  it('points a refused key at the form field that holds it', () => {
    expect(fieldForParam(FIELDS, 'watchdog.threshold')).toBe('watchdog.threshold');
    expect(fieldForParam(FIELDS, 'breakers.overrides.zhipu/*.cooldownMs')).toBe('breakers.overrides');
    expect(fieldForParam(FIELDS, 'budgets.rates')).toBe('budgets.rates');
    expect(fieldForParam(FIELDS, 'budgets.spend')).toBe('budgets.spend');
    expect(fieldForParam(FIELDS, 'notifications.webhooks[0].url')).toBe('notifications.webhooks');
    expect(fieldForParam(FIELDS, 'config')).toBeNull();
    expect(fieldForParam(FIELDS, undefined)).toBeNull();
  });
});
