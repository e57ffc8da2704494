/**
 * Rule: a config key is declared once, in its part's `config.ts` (default, doc, unit, and the settings derived
 * from it), and said twice for people: its row in docs/configuration.md and its label in the settings view
 * (main/words/messages/views/setting-labels.ts). Adding a key touches those three files and nothing else:
 * test/docs/readme.test.ts fails while the key has no row with its default, test/renderer/settings-groups.test.ts
 * while it has no label in every language. This file holds the rest of the rule: no row or label outlives its
 * key, and no part converts a duration it reads from the config by hand (`inMs` converts by the unit each field
 * declares, so a key's unit is written in one place).
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { describe, expect, it } from 'vitest';
import { durationFields } from '../../../main/core/config/durations.js';
import { configSchema } from '../../../main/core/config/index.js';
import { describeFields } from '../../../main/core/config/schema.js';
import { LANGUAGES } from '../../../main/words/i18n.js';
import { CATALOGUES } from '../../../main/words/messages/index.js';

const REPO = join(import.meta.dirname, '..', '..', '..');
const KEYS = new Set(describeFields(configSchema).map(({ path }) => path));

/** The keys of docs/configuration.md's tables: each row starts with the key in backticks. */
function documentedKeys(): string[] {
  const text = readFileSync(join(REPO, 'docs', 'configuration.md'), 'utf8');
  return [...text.matchAll(/^\|\s*`([^`]+)`\s*\|/gm)].map((match) => match[1] as string);
}

const LABEL = /^views\.settings\.(.+)\.label$/;

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return sourceFiles(path);
    return entry.name.endsWith('.ts') ? [path] : [];
  });
}

/**
 * Where a source multiplies a seconds key of the config by 1000, or hands one to `toMs`: the conversions `inMs`
 * makes. Only keys the schema declares count (an API body's `durationSec` is not the config's).
 */
function handConversions(text: string, secondsKeys: readonly string[]): string[] {
  const keys = secondsKeys.join('|');
  const pattern = new RegExp(`\\b(?:${keys})\\b\\s*\\*\\s*1000|toMs\\([^)]*\\b(?:${keys})\\b`, 'g');
  return [...text.matchAll(pattern)].map((match) => match[0]);
}

describe('every config key is declared once', () => {
  it('no row of docs/configuration.md names a key the schema does not have', () => {
    expect(documentedKeys().filter((key) => !KEYS.has(key))).toEqual([]);
  });

  it('no settings label names a key the schema does not have', () => {
    for (const language of LANGUAGES) {
      const labelled = Object.keys(CATALOGUES[language]).flatMap((key) => LABEL.exec(key)?.slice(1, 2) ?? []);
      expect(
        labelled.filter((path) => !KEYS.has(path)),
        language,
      ).toEqual([]);
    }
  });

  it('no source converts a duration read from the config by hand', () => {
    const secondsKeys = [
      ...new Set(
        durationFields(configSchema).flatMap(({ path, unit }) =>
          unit === 'sec' ? [path.split('.').at(-1) as string] : [],
        ),
      ),
    ];
    const schema = join(REPO, 'main', 'core', 'config', 'schema.ts');
    const found = sourceFiles(join(REPO, 'main'))
      .filter((file) => file !== schema)
      .flatMap((file) =>
        handConversions(readFileSync(file, 'utf8'), secondsKeys).map((hit) => `${relative(REPO, file)}: ${hit}`),
      );
    expect(found).toEqual([]);
  });

  it('the scan finds both forms of a hand conversion, and only of config keys', () => {
    const keys = ['intervalSec', 'timeoutSec'];
    expect(handConversions('setInterval(push, config.intervalSec * 1000);', keys)).toHaveLength(1);
    expect(handConversions("AbortSignal.timeout(toMs(config.timeoutSec, 'sec'))", keys)).toHaveLength(1);
    expect(handConversions('pause(request.durationSec * 1000)', keys)).toEqual([]);
  });
});
