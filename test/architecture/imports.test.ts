/**
 * Dependencies run one way. Every relative import in main/, renderer/,
 * preload/ and bench/ (type-only ones included) is checked against the layer
 * table below, and the import graph must have no cycle. A failure names the
 * offending edge, or the cycle's path, file by file.
 */
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { cycles, type Edge, importGraph, specifiersOf } from './import-graph.js';

const REPO = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
const DIRS = ['main', 'renderer', 'preload', 'bench'];

type LayerName =
  | 'words'
  | 'concern'
  | 'compose'
  | 'contract'
  | 'server'
  | 'root'
  | 'simulator'
  | 'host'
  | 'renderer'
  | 'preload'
  | 'bench';

interface Layer {
  name: LayerName;
  /** Path prefixes (a directory ends in `/`); the first layer whose prefix matches a file holds it. */
  paths: string[];
  /** Layers this one may import at run time. */
  imports: LayerName[];
  /** Further layers this one may import types from (erased at run time). */
  typesFrom?: LayerName[];
}

const CORE: LayerName[] = ['words', 'concern', 'compose'];
const API: LayerName[] = [...CORE, 'contract', 'server', 'root'];

/**
 * Lowest first, three tiers: `main/words` (languages, outcomes, message catalogues) imports only itself;
 * `main/core` (the concerns, and `compose.ts` that wires them) imports the words and itself; `main/api` (the
 * contract at its top level, the local API's server, and the composition root that serves the core through it)
 * sits above the core and is the door to it. No layer imports one above it, not even a type. The dashboard
 * runs in a browser: at run time it has the words and the contract, and types from nowhere else; the preload
 * bridge only types.
 */
const LAYERS: Layer[] = [
  { name: 'words', paths: ['main/words/'], imports: ['words'] },
  { name: 'compose', paths: ['main/core/compose.ts'], imports: ['words', 'concern'] },
  { name: 'concern', paths: ['main/core/'], imports: ['words', 'concern'] },
  { name: 'server', paths: ['main/api/server/'], imports: [...CORE, 'contract', 'server'] },
  { name: 'root', paths: ['main/api/root/'], imports: API },
  { name: 'contract', paths: ['main/api/'], imports: ['words', 'contract'], typesFrom: ['concern'] },
  // What OpenClaw writes and serves, simulated for the rehearsal, the tests and the benchmarks: it reads only the core.
  { name: 'simulator', paths: ['main/simulator/'], imports: [...CORE, 'simulator'] },
  {
    name: 'host',
    paths: ['main/cli/', 'main/app/', 'main/rehearse/', 'main/start.ts'],
    imports: [...API, 'simulator', 'host'],
  },
  { name: 'renderer', paths: ['renderer/'], imports: ['renderer', 'words', 'contract'] },
  { name: 'preload', paths: ['preload/'], imports: ['preload'], typesFrom: ['renderer', 'words', 'contract'] },
  // The real-gateway harness is built with the benchmarks, which share it with the tests (and its polling helper).
  {
    name: 'bench',
    paths: ['bench/', 'test/e2e/openclaw/harness/', 'test/helpers/transcripts.ts'],
    imports: [...API, 'simulator', 'host', 'bench'],
  },
];

/** Build output, not source: the dashboard's copy of uPlot is put there by `npm run build`. */
const GENERATED = ['renderer/vendor/'];

function layerOf(file: string): Layer {
  const layer = LAYERS.find((l) => l.paths.some((p) => (p.endsWith('/') ? file.startsWith(p) : file === p)));
  if (!layer) throw new Error(`${file} is in no layer: add its directory to LAYERS`);
  return layer;
}

/** Each edge the table forbids, worded for the failure message. */
function layerViolations(edges: readonly Edge[]): string[] {
  const out: string[] = [];
  for (const edge of edges) {
    const from = layerOf(edge.from);
    const to = layerOf(edge.to);
    const allowed = from.imports.includes(to.name) || (edge.typeOnly && (from.typesFrom ?? []).includes(to.name));
    if (!allowed) {
      const kind = edge.typeOnly ? 'type import' : 'import';
      out.push(
        `${edge.from} (${from.name}) → ${edge.to} (${to.name}): a ${from.name} module may not ${kind} ${to.name}`,
      );
    }
  }
  return out;
}

describe('import graph: the reader', () => {
  it('finds static, re-exported, type-only, side-effect and dynamic imports, not examples in comments', () => {
    const text = [
      "import { a } from './a.js';",
      "import type { B } from '../b.js';",
      'import {',
      '  c,',
      '  type D,',
      "} from './c.js';",
      "export { e } from './e.js';",
      "export type { F } from './f.js';",
      "import './side.js';",
      "const g = await import('./g.js');",
      " * import { h } from './in-a-comment.js';",
    ].join('\n');
    expect(specifiersOf(text)).toEqual([
      { specifier: './a.js', typeOnly: false },
      { specifier: '../b.js', typeOnly: true },
      { specifier: './c.js', typeOnly: false },
      { specifier: './e.js', typeOnly: false },
      { specifier: './f.js', typeOnly: true },
      { specifier: './side.js', typeOnly: false },
      { specifier: './g.js', typeOnly: false },
    ]);
  });

  it('reports each cycle as a path that returns to its start, and none in a DAG', () => {
    const e = (from: string, to: string) => ({ from, to });
    expect(cycles([e('a', 'b'), e('b', 'c'), e('a', 'c')])).toEqual([]);
    expect(cycles([e('a', 'b'), e('b', 'c'), e('c', 'a'), e('c', 'd')])).toEqual([['a', 'b', 'c', 'a']]);
    expect(cycles([e('x', 'x')])).toEqual([['x', 'x']]);
    // Two separate cycles are two reports.
    expect(cycles([e('a', 'b'), e('b', 'a'), e('c', 'd'), e('d', 'c')])).toHaveLength(2);
  });

  it('tells a forbidden edge from an allowed one', () => {
    const edge = (from: string, to: string, typeOnly = false): Edge => ({ from, to, typeOnly, specifier: to });
    expect(layerViolations([edge('main/core/breaker/service.ts', 'main/core/metrics/names.ts')])).toEqual([]);
    expect(layerViolations([edge('renderer/app.ts', 'main/api/types.ts', true)])).toEqual([]);
    expect(layerViolations([edge('main/api/types.ts', 'main/core/breaker/types.ts', true)])).toEqual([]);
    expect(layerViolations([edge('main/api/root/monitor.ts', 'main/api/server/http.ts')])).toEqual([]);
    // Up a tier, at run time or only a type:
    expect(layerViolations([edge('main/core/doctor/x.ts', 'main/api/server/http.ts')])).toHaveLength(1);
    expect(layerViolations([edge('main/core/doctor/x.ts', 'main/api/types.ts', true)])).toHaveLength(1);
    expect(layerViolations([edge('main/core/doctor/x.ts', 'main/api/root/monitor.ts')])).toHaveLength(1);
    expect(layerViolations([edge('main/core/doctor/x.ts', 'main/cli/index.ts')])).toHaveLength(1);
    expect(layerViolations([edge('main/words/x.ts', 'main/core/classify.ts', true)])).toHaveLength(1);
    expect(layerViolations([edge('main/core/compose.ts', 'main/api/types.ts', true)])).toHaveLength(1);
    expect(layerViolations([edge('main/api/types.ts', 'main/api/server/http.ts', true)])).toHaveLength(1);
    // The dashboard reaches the core only through the API's contract, not even for a type:
    expect(layerViolations([edge('renderer/app.ts', 'main/core/breaker/types.ts', true)])).toHaveLength(1);
    expect(layerViolations([edge('renderer/app.ts', 'main/api/server/http.ts', true)])).toHaveLength(1);
    expect(layerViolations([edge('main/api/root/monitor.ts', 'renderer/app.ts', true)])).toHaveLength(1);
  });
});

describe('import graph: this repository', () => {
  const graph = importGraph(REPO, DIRS);

  it('reads the whole tree and resolves every relative import', () => {
    expect(graph.files.length).toBeGreaterThan(200);
    expect(graph.edges.length).toBeGreaterThan(600);
    const missing = graph.unresolved.filter(({ from, specifier }) => {
      const target = join(from, '..', specifier).split('\\').join('/');
      return !GENERATED.some((prefix) => target.startsWith(prefix));
    });
    expect(missing).toEqual([]);
  });

  it('puts every file in a layer', () => {
    for (const file of graph.files) expect(() => layerOf(file), file).not.toThrow();
  });

  it('imports only downwards (or sideways within a layer)', () => {
    expect(layerViolations(graph.edges)).toEqual([]);
  });

  it('has no cycle', () => {
    expect(cycles(graph.edges).map((path) => path.join(' → '))).toEqual([]);
  });
});
