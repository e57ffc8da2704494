/**
 * Rule: comments and docs stand alone. A maintainer has this repository and nothing else, so no comment,
 * doc or message may send them to a text that is not in it (a planning note, a ticket, a shared folder).
 * Captured records under test/fixtures/ are data, not prose, and are left out.
 */
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';

const REPO = new URL('../../', import.meta.url);

/** Phrases that point outside the repository. */
const OUTSIDE = [
  /field guide/i,
  /shared notes/i,
  /\bDESIGN\.md\b/,
  /\bshared\/(docs|seeds)\b/,
  /\bthe (issue|brief|ticket)\b/i,
  /\bissue #?\d+\b/i,
];

const THIS_FILE = 'test/docs/standalone.test.ts';

function trackedText(): string[] {
  const files = execFileSync('git', ['ls-files'], { cwd: REPO, encoding: 'utf8' }).split('\n');
  return files.filter(
    (file) =>
      /\.(ts|mjs|js|md|yml|yaml|json|sh)$|^\.ci\//.test(file) &&
      !file.startsWith('test/fixtures/') &&
      file !== 'package-lock.json' &&
      file !== THIS_FILE,
  );
}

describe('comments and docs stand alone', () => {
  it('point at nothing outside the repository', () => {
    const files = trackedText();
    expect(files.length, 'the sources and docs are found').toBeGreaterThan(300);
    const found: string[] = [];
    for (const file of files) {
      const lines = readFileSync(new URL(file, REPO), 'utf8').split('\n');
      lines.forEach((line, index) => {
        if (OUTSIDE.some((pattern) => pattern.test(line))) found.push(`${file}:${index + 1}: ${line.trim()}`);
      });
    }
    expect(found).toEqual([]);
  });
});
