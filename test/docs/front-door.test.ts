/**
 * The README is the product's front door: short, the two commands first, and every claim in it true.
 * Here: its length, its start-up banner (rendered by the daemon's own code), and every config key the
 * README and docs/ name, which must be one the config loader accepts. The reference in docs/ is
 * reached from one table of contents that lists every page.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { daemonBanner } from '../../main/cli/daemon-banner.js';
import { configSchema } from '../../main/core/config/index.js';
import { describeFields, parseWith } from '../../main/core/config/schema.js';
import { openclawPlan } from '../../main/core/gateway/strategies/openclaw-cli.js';
// @ts-expect-error: a plain ES module script without type declarations
import { renderToc } from '../../scripts/docs-toc.mjs';

const read = (path: string) => readFileSync(new URL(`../../${path}`, import.meta.url), 'utf8');
const readme = read('README.md');
const docPages = readdirSync(new URL('../../docs/', import.meta.url)).filter((name) => name.endsWith('.md'));
const defaults = parseWith(configSchema, {});
const fieldPaths = describeFields(configSchema).map(({ path }) => path);
const topLevel = new Set(Object.keys(configSchema.shape));

describe('the README as a front door', () => {
  it('is short, and opens with the two commands', () => {
    expect(readme.split('\n').length).toBeLessThanOrEqual(150);
    const firstBlock = /```sh\n([\s\S]*?)```/.exec(readme)?.[1] ?? '';
    expect(firstBlock).toContain('npm run setup && npm start');
    expect(firstBlock).toContain('npm run setup && npm test');
  });

  it('shows the start-up banner the daemon prints, on a Mac with the defaults', () => {
    const home = '/Users/me';
    const dataDir = `${home}/Library/Application Support/BreakerBar`;
    const banner = daemonBanner({
      stateDir: `${home}/.openclaw`,
      dbPath: `${dataDir}/breakerbar.sqlite`,
      configFile: null,
      dataDir,
      apiUrl: `http://${defaults.server.host}:${defaults.server.port}`,
      gateway: {
        baseUrl: defaults.gatewayUrl ?? 'http://127.0.0.1:18789',
        mode: 'active',
        restartsVia: openclawPlan('openclaw', null, defaults.watchdog.manualRestart, 0).description,
      },
      dashboard: true,
    });
    // If this fails after a change to the banner, paste the rendered banner into the README.
    expect(readme).toContain(`\`\`\`\n$ npm start\n${banner.trimEnd()}\n\`\`\``);
  });
});

/** `watchdog.dryRun`-like spans in backticks whose first segment is a top-level config key. */
function configKeysNamedIn(text: string): string[] {
  const spans = text.match(/`[a-z][A-Za-z0-9]*(?:\.[A-Za-z0-9*]+)+`/g) ?? [];
  return spans.map((span) => span.slice(1, -1)).filter((key) => topLevel.has(key.split('.')[0]!));
}

/** A key names a field, a group holding fields, or a place inside a list/object-valued field. */
function isConfigKey(key: string): boolean {
  if (key.includes('*')) {
    const pattern = new RegExp(`^${key.replace(/\./g, '\\.').replace(/\*/g, '[A-Za-z]*')}$`);
    return fieldPaths.some((path) => pattern.test(path));
  }
  return fieldPaths.some((path) => path === key || path.startsWith(`${key}.`) || key.startsWith(`${path}.`));
}

describe('config keys in the README and docs/', () => {
  const pages = [
    ['README.md', readme] as const,
    ...docPages.map((page) => [`docs/${page}`, read(`docs/${page}`)] as const),
  ];
  it.each(pages.map(([name, text]) => [name, text]))('%s names only keys the config accepts', (_name, text) => {
    const unknown = configKeysNamedIn(text).filter((key) => !isConfigKey(key));
    expect(unknown).toEqual([]);
  });

  it("the README's config snippets load", () => {
    const snippets = readme.match(/`(\{"[^`]*\})`/g) ?? [];
    expect(snippets.length).toBeGreaterThan(0);
    for (const snippet of snippets)
      expect(() => parseWith(configSchema, JSON.parse(snippet.slice(1, -1)))).not.toThrow();
  });
});

describe('the reference', () => {
  it('docs/README.md is the table of contents of every page (node scripts/docs-toc.mjs)', () => {
    expect(read('docs/README.md')).toBe(renderToc());
    for (const page of docPages.filter((name) => name !== 'README.md'))
      expect(read('docs/README.md')).toContain(`](${page})`);
  });
  it('the README links to the table of contents', () => {
    expect(readme).toContain('](docs/README.md)');
  });
});
