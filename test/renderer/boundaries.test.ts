/**
 * Rules the dashboard's source keeps, checked on the text: it reaches the core
 * only through the API types (type-only imports), builds no markup from strings,
 * evaluates no code, and its page carries a strict CSP with no inline script
 * or style.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { describe, expect, it } from 'vitest';
import { REPO } from './daemon-fixture.js';

const RENDERER = join(REPO, 'renderer');

function files(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) =>
    entry.isDirectory() ? files(join(dir, entry.name)) : entry.name.endsWith('.ts') ? [join(dir, entry.name)] : [],
  );
}

const sources = files(RENDERER).filter((file) => !file.endsWith('.d.ts'));

describe('renderer boundaries', () => {
  it('imports the core only as types, and nothing but its own modules at run time', () => {
    expect(sources.length).toBeGreaterThan(10);
    for (const file of sources) {
      const text = readFileSync(file, 'utf8');
      for (const match of text.matchAll(/^import\s+(type\s+)?[^'"]*from\s+'([^']+)';/gm)) {
        const [statement, , specifier] = match as unknown as [string, string | undefined, string];
        const where = `${relative(REPO, file)}: ${statement}`;
        expect(specifier.startsWith('.'), where).toBe(true);
        expect(specifier.endsWith('.js'), where).toBe(true);
        // Beyond its own modules, only the two tiers that are built into its assets: the words and the contract.
        if (specifier.includes('/main/')) expect(specifier, where).toMatch(/\/main\/(words\/|api\/[a-z-]+\.js$)/);
      }
      expect(/\bfrom\s+'node:|\brequire\(/.test(text), relative(REPO, file)).toBe(false);
    }
  });

  it('shares with the core only the words and the API contract, which import nothing but each other at run time', () => {
    const contract = readdirSync(join(REPO, 'main', 'api'))
      .filter((name) => name.endsWith('.ts'))
      .map((name) => join(REPO, 'main', 'api', name));
    const shared = [...files(join(REPO, 'main', 'words')), ...contract];
    expect(shared.length).toBeGreaterThan(2);
    for (const file of shared) {
      const text = readFileSync(file, 'utf8');
      for (const match of text.matchAll(/^import\s+(type\s+)?[^'"]*from\s+'([^']+)';/gm)) {
        const [statement, typeOnly, specifier] = match as unknown as [string, string | undefined, string];
        const where = `${relative(REPO, file)}: ${statement}`;
        expect(specifier.startsWith('.'), where).toBe(true);
        if (specifier.startsWith('../core/') || specifier.startsWith('../../core/'))
          expect(typeOnly, where).toBe('type ');
      }
      expect(/\bfrom\s+'node:|\brequire\(|\bprocess\.|\bdocument\.|\bwindow\./.test(text), relative(REPO, file)).toBe(
        false,
      );
    }
  });

  it('never turns strings into markup or code', () => {
    for (const file of sources) {
      const text = readFileSync(file, 'utf8').replace(/^\s*(\/\/|\*).*$/gm, '');
      expect(text, relative(REPO, file)).not.toMatch(
        /\.(innerHTML|outerHTML)\s*=|insertAdjacentHTML|document\.write|\beval\(|new Function\(/,
      );
      expect(text, relative(REPO, file)).not.toMatch(/setAttribute\(\s*'style'|\.style\.cssText/);
    }
  });

  it('has a page with a strict CSP and only an external module script', () => {
    const html = readFileSync(join(RENDERER, 'index.html'), 'utf8');
    const csp = /<meta\s+http-equiv="Content-Security-Policy"\s+content="([^"]+)"/.exec(html)?.[1] ?? '';
    for (const directive of [
      "default-src 'self'",
      "script-src 'self'",
      "style-src 'self'",
      "connect-src 'self'",
      "object-src 'none'",
    ]) {
      expect(csp).toContain(directive);
    }
    expect(csp).not.toMatch(/unsafe-|\*/);
    const scripts = [...html.matchAll(/<script\b[^>]*>([\s\S]*?)<\/script>/g)];
    expect(scripts).toHaveLength(1);
    expect(scripts[0]?.[0]).toMatch(/^<script type="module" src="assets\/app\.js">/);
    expect(scripts[0]?.[1]?.trim()).toBe('');
    expect(html).not.toMatch(/\sstyle=|\son[a-z]+=/i);
  });
});
