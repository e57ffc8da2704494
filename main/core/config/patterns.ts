/**
 * Dependency and agent patterns in config (`zhipu/*`, `*`, `anthropic/claude-*`):
 * `*` matches any run of characters; everything else matches itself.
 */
export function matchesPattern(pattern: string, value: string): boolean {
  if (pattern === '*' || pattern === value) return true;
  if (!pattern.includes('*')) return false;
  const regex = new RegExp(`^${pattern.split('*').map(escapeRegex).join('.*')}$`);
  return regex.test(value);
}

/**
 * Of several patterns matching `value`, the most specific one: an exact match,
 * else the one with the most literal characters (`zhipu/glm-*` over `zhipu/*`).
 */
export function mostSpecific(patterns: Iterable<string>, value: string): string[] {
  return [...patterns]
    .filter((pattern) => matchesPattern(pattern, value))
    .sort((a, b) => literalLength(a) - literalLength(b));
}

function literalLength(pattern: string): number {
  return pattern.replaceAll('*', '').length + (pattern.includes('*') ? 0 : 1e6);
}

function escapeRegex(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}
