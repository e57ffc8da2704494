/** BreakerBar's version, from its package.json (found by walking up: works from dist/ and from sources). */
import { existsSync, readFileSync } from 'node:fs';

let cached: string | null = null;

export function version(): string {
  if (cached) return cached;
  for (let dir = new URL('.', import.meta.url); ; dir = new URL('..', dir)) {
    const candidate = new URL('package.json', dir);
    if (existsSync(candidate)) {
      const pkg = JSON.parse(readFileSync(candidate, 'utf8')) as { name?: string; version?: string };
      if (pkg.name === 'breakerbar' && pkg.version) {
        cached = pkg.version;
        return cached;
      }
    }
    if (dir.pathname === '/') return 'unknown';
  }
}
