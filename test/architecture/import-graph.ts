/**
 * The repository's import graph, read from the source text: every relative
 * `import … from`, `export … from`, side-effect `import '…'` and dynamic
 * `import('…')`, type-only ones included (a type import still ties two
 * modules' designs together, and it turns into a run-time one with a single
 * edit). Package specifiers (`node:fs`, `prom-client`) are not edges.
 */
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, sep } from 'node:path';

export interface Edge {
  /** Repository-relative paths with `/` separators. */
  from: string;
  to: string;
  /** `import type` / `export type`: erased at run time. */
  typeOnly: boolean;
  /** The specifier as written, for messages. */
  specifier: string;
}

const SOURCE = /\.(ts|cts|mts|js|cjs|mjs)$/;

/** Every source file under `dirs` (repository-relative), skipping declarations and build output. */
export function sourceFiles(repo: string, dirs: readonly string[]): string[] {
  const out: string[] = [];
  const walk = (dir: string): void => {
    for (const entry of readdirSync(dir, { withFileTypes: true })) {
      if (entry.name === 'node_modules' || entry.name === 'dist') continue;
      const path = join(dir, entry.name);
      if (entry.isDirectory()) walk(path);
      else if (SOURCE.test(entry.name) && !entry.name.endsWith('.d.ts')) out.push(toPosix(relative(repo, path)));
    }
  };
  for (const dir of dirs) if (existsSync(join(repo, dir))) walk(join(repo, dir));
  return out.sort();
}

function toPosix(path: string): string {
  return path.split(sep).join('/');
}

// `[^'";]` spans line breaks, so a multi-line `import {\n a,\n b\n} from '…'` is one match; anchoring at a
// line start keeps examples inside doc comments (` * import …`) out.
const STATIC = /^[ \t]*(import|export)\s+(type\s+)?[^'";]*?\bfrom\s*['"]([^'"]+)['"]/gm;
const SIDE_EFFECT = /^[ \t]*import\s*['"]([^'"]+)['"]/gm;
const DYNAMIC = /\bimport\(\s*['"]([^'"]+)['"]\s*\)/g;

/** The specifiers one file's text imports, with whether each is type-only. */
export function specifiersOf(text: string): Array<{ specifier: string; typeOnly: boolean }> {
  const found: Array<{ specifier: string; typeOnly: boolean }> = [];
  for (const m of text.matchAll(STATIC)) found.push({ specifier: m[3] as string, typeOnly: m[2] !== undefined });
  for (const m of text.matchAll(SIDE_EFFECT)) found.push({ specifier: m[1] as string, typeOnly: false });
  for (const m of text.matchAll(DYNAMIC)) found.push({ specifier: m[1] as string, typeOnly: false });
  return found;
}

/** NodeNext specifiers name the emitted file (`./x.js`); the source is `./x.ts` (or `.cts`, `.mts`). */
const SOURCE_OF: Array<[RegExp, string[]]> = [
  [/\.js$/, ['.ts', '.js']],
  [/\.cjs$/, ['.cts', '.cjs']],
  [/\.mjs$/, ['.mts', '.mjs']],
];

/** The repository-relative source file a relative specifier names, or null when there is none. */
export function resolveSpecifier(repo: string, fromFile: string, specifier: string): string | null {
  const base = join(repo, dirname(fromFile), specifier);
  const candidates: string[] = [];
  for (const [pattern, extensions] of SOURCE_OF) {
    if (pattern.test(base)) for (const ext of extensions) candidates.push(base.replace(pattern, ext));
  }
  candidates.push(base, `${base}.ts`, join(base, 'index.ts'));
  for (const candidate of candidates) {
    if (existsSync(candidate) && statSync(candidate).isFile()) return toPosix(relative(repo, candidate));
  }
  return null;
}

export interface ImportGraph {
  files: string[];
  edges: Edge[];
  /** Relative specifiers that name no file: a typo the compiler would also reject, reported rather than dropped. */
  unresolved: Array<{ from: string; specifier: string }>;
}

export function importGraph(repo: string, dirs: readonly string[]): ImportGraph {
  const files = sourceFiles(repo, dirs);
  const edges: Edge[] = [];
  const unresolved: ImportGraph['unresolved'] = [];
  for (const from of files) {
    const text = readFileSync(join(repo, from), 'utf8');
    for (const { specifier, typeOnly } of specifiersOf(text)) {
      if (!specifier.startsWith('.')) continue;
      const to = resolveSpecifier(repo, from, specifier);
      if (to === null) unresolved.push({ from, specifier });
      else edges.push({ from, to, typeOnly, specifier });
    }
  }
  return { files, edges, unresolved };
}

/**
 * Every cycle, one per strongly connected component of more than one file (or a file importing itself),
 * as a path `a → b → … → a` through that component (Tarjan's algorithm, then a shortest way back).
 */
export function cycles(edges: readonly Pick<Edge, 'from' | 'to'>[]): string[][] {
  const next = new Map<string, string[]>();
  for (const { from, to } of edges) {
    const list = next.get(from) ?? [];
    if (!list.includes(to)) list.push(to);
    next.set(from, list);
    if (!next.has(to)) next.set(to, []);
  }
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const onStack = new Set<string>();
  const stack: string[] = [];
  const components: string[][] = [];
  let counter = 0;
  // Iterative, so a deep import chain cannot overflow the call stack.
  for (const root of [...next.keys()].sort()) {
    if (index.has(root)) continue;
    const work: Array<{ node: string; child: number }> = [{ node: root, child: 0 }];
    index.set(root, counter);
    low.set(root, counter++);
    stack.push(root);
    onStack.add(root);
    while (work.length > 0) {
      const frame = work[work.length - 1] as { node: string; child: number };
      const children = next.get(frame.node) ?? [];
      if (frame.child < children.length) {
        const child = children[frame.child++] as string;
        if (!index.has(child)) {
          index.set(child, counter);
          low.set(child, counter++);
          stack.push(child);
          onStack.add(child);
          work.push({ node: child, child: 0 });
        } else if (onStack.has(child)) {
          low.set(frame.node, Math.min(low.get(frame.node) as number, index.get(child) as number));
        }
        continue;
      }
      work.pop();
      const parent = work[work.length - 1];
      if (parent) low.set(parent.node, Math.min(low.get(parent.node) as number, low.get(frame.node) as number));
      if (low.get(frame.node) === index.get(frame.node)) {
        const component: string[] = [];
        let member: string;
        do {
          member = stack.pop() as string;
          onStack.delete(member);
          component.push(member);
        } while (member !== frame.node);
        const selfLoop = (next.get(frame.node) ?? []).includes(frame.node);
        if (component.length > 1 || selfLoop) components.push(component.sort());
      }
    }
  }
  return components.map((component) => cyclePath(component, next));
}

/** A shortest cycle through the component's first file, staying inside the component. */
function cyclePath(component: string[], next: Map<string, string[]>): string[] {
  const members = new Set(component);
  const start = component[0] as string;
  const cameFrom = new Map<string, string>();
  const queue = [start];
  while (queue.length > 0) {
    const node = queue.shift() as string;
    for (const child of next.get(node) ?? []) {
      if (!members.has(child)) continue;
      if (child === start) {
        const path = [start];
        for (let at = node; at !== start; at = cameFrom.get(at) as string) path.splice(1, 0, at);
        return [...path, start];
      }
      if (!cameFrom.has(child)) {
        cameFrom.set(child, node);
        queue.push(child);
      }
    }
  }
  return [start, start];
}
