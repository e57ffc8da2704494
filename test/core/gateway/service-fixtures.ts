/**
 * The recorded and documented outputs under test/fixtures/service-managers,
 * by case name (see its README.md for where each one comes from).
 */
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import type { FakeAnswer } from './fake-executable.js';

const DIR = fileURLToPath(new URL('../../fixtures/service-managers/', import.meta.url));

interface Case {
  stdout?: string;
  stderr?: string;
  exitCode: number;
}

const CASES = JSON.parse(readFileSync(`${DIR}cases.json`, 'utf8')) as Record<string, Case>;

/** A fixture as the fake executable's answer. */
export function fixture(name: string): Required<Omit<FakeAnswer, 'hangSec'>> {
  const found = CASES[name];
  if (!found) throw new Error(`no service-manager fixture "${name}"`);
  return {
    stdout: found.stdout ? readFileSync(DIR + found.stdout, 'utf8') : '',
    stderr: found.stderr ? readFileSync(DIR + found.stderr, 'utf8') : '',
    exitCode: found.exitCode,
  };
}
