/**
 * Rule: the README is the product's front door and the reference lives in docs/,
 * so what they say about configuration and commands must match the code. A key
 * added to the schema, a changed default or a new subcommand without
 * documentation fails here.
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { COMMAND_NAMES } from '../../main/cli/commands.js';
import { configSchema } from '../../main/core/config/index.js';
import { describeFields } from '../../main/core/config/schema.js';

const readme = readFileSync(new URL('../../README.md', import.meta.url), 'utf8');
const configuration = readFileSync(new URL('../../docs/configuration.md', import.meta.url), 'utf8');
const cli = readFileSync(new URL('../../docs/cli.md', import.meta.url), 'utf8');

describe('README', () => {
  it('opens with the two set-up commands: run it, test it', () => {
    const firstScreen = readme.slice(0, 1500);
    expect(firstScreen).toContain('npm run setup && npm start');
    expect(firstScreen).toContain('npm run setup && npm test');
  });

  it.each(describeFields(configSchema).map(({ path, field }) => [path, field.default]))(
    'documents config key %s with its default',
    (path, def) => {
      const literal = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
      const row = new RegExp(`\\|\\s*\`${literal(path)}\`\\s*\\|\\s*\`${literal(JSON.stringify(def))}\`\\s*\\|`);
      expect(configuration).toMatch(row);
    },
  );

  it.each(COMMAND_NAMES.map((name) => [name]))('documents `breakerbar %s`', (name) => {
    expect(cli).toContain(`### \`breakerbar ${name}\``);
  });

  it('runs the same test command as CI', () => {
    const ci = readFileSync(new URL('../../.ci/run', import.meta.url), 'utf8');
    expect(ci).toContain('npm run setup');
    expect(ci).toMatch(/npm test\s*$/m);
    expect(ci).toContain('ELECTRON_SKIP_BINARY_DOWNLOAD=1');
  });

  it('names, on its apt-get line, exactly the system packages CI installs', () => {
    const listed = readFileSync(new URL('../../scripts/system-packages.txt', import.meta.url), 'utf8')
      .split('\n')
      .map((line) => line.replace(/#.*/, '').trim())
      .filter((line) => line !== '');
    const aptLines = readme.match(/apt-get install[^`\n]*/g) ?? [];
    expect(aptLines, 'the README has one `apt-get install` line').toHaveLength(1);
    const named = (aptLines[0] as string)
      .replace('apt-get install', '')
      .split(/\s+/)
      .filter((word) => word !== '' && !word.startsWith('-'));
    expect([...named].sort()).toEqual([...listed].sort());
    expect(new Set(listed).size, 'each package listed once').toBe(listed.length);
    const ci = readFileSync(new URL('../../.ci/run', import.meta.url), 'utf8');
    expect(ci).toContain('scripts/system-packages.txt');
  });
});
