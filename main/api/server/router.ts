/**
 * The route table (main/api/routes.ts) as the server matches it: a path
 * names a route and its raw parameters; a path known under other methods is a
 * 405 whose `Allow` lists them; anything else is not an API path.
 */
import { methodsOf, ROUTE_NAMES, ROUTES, type RouteName, type RouteSpec } from '../routes.js';

export type Match =
  | { kind: 'route'; name: RouteName; spec: RouteSpec<never, unknown, unknown>; params: Record<string, string> }
  | { kind: 'method'; allow: string[] }
  | { kind: 'none' };

interface Compiled {
  name: RouteName;
  spec: RouteSpec<never, unknown, unknown>;
  pattern: RegExp;
  names: string[];
}

/** `:name` is one segment; `:name+` is everything between its neighbours (a dependency key holds `/`). */
function compile(path: string): { pattern: RegExp; names: string[] } {
  const names: string[] = [];
  const source = path
    .split(/(:\w+\+?)/)
    .map((part) => {
      if (!part.startsWith(':')) return part.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
      const plus = part.endsWith('+');
      names.push(plus ? part.slice(1, -1) : part.slice(1));
      return plus ? '(.+)' : '([^/]+)';
    })
    .join('');
  return { pattern: new RegExp(`^${source}$`), names };
}

const COMPILED: Compiled[] = ROUTE_NAMES.map((name) => {
  const spec = ROUTES[name] as unknown as RouteSpec<never, unknown, unknown>;
  return { name, spec, ...compile(spec.path) };
});

export function matchRoute(method: string, rawPath: string): Match {
  const allow: string[] = [];
  for (const route of COMPILED) {
    const found = route.pattern.exec(rawPath);
    if (!found) continue;
    const methods = methodsOf(route.spec);
    if (methods.includes(method)) {
      const params = Object.fromEntries(route.names.map((name, i) => [name, found[i + 1]!]));
      return { kind: 'route', name: route.name, spec: route.spec, params };
    }
    for (const m of methods) if (!allow.includes(m)) allow.push(m);
  }
  return allow.length > 0 ? { kind: 'method', allow } : { kind: 'none' };
}
