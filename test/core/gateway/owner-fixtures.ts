/**
 * The tool outputs under test/fixtures/gateway-owner (written from OpenClaw's documentation, not captured:
 * see its README.md), read as they are.
 */
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

const DIR = fileURLToPath(new URL('../../fixtures/gateway-owner/', import.meta.url));

export function ownerFixture(name: string): string {
  return readFileSync(DIR + name, 'utf8');
}
