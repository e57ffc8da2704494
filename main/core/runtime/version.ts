/** BreakerBar's version and where it is installed, from its package.json (found by walking up: works from dist/ and from sources). */
import { existsSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

let found: { root: string; version: string } | null | undefined;

function findPackage(): { root: string; version: string } | null {
  if (found !== undefined) return found;
  for (let dir = new URL('.', import.meta.url); ; dir = new URL('..', dir)) {
    const candidate = new URL('package.json', dir);
    if (existsSync(candidate)) {
      const pkg = JSON.parse(readFileSync(candidate, 'utf8')) as { name?: string; version?: string };
      if (pkg.name === 'breakerbar' && pkg.version) {
        found = { root: fileURLToPath(dir), version: pkg.version };
        return found;
      }
    }
    if (dir.pathname === '/') {
      found = null;
      return found;
    }
  }
}

export function version(): string {
  return findPackage()?.version ?? 'unknown';
}

/** The folder holding BreakerBar's package.json: a checkout, or the package an npm install unpacked. */
export function packageRoot(): string | null {
  return findPackage()?.root ?? null;
}
