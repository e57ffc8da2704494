/**
 * Rule: the rehearsal's modules import each other one way only. A module that imports one that (directly or
 * through others) imports it back couples them both ways; shared types belong in types.ts instead.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';

const DIR = new URL('../../main/rehearse/', import.meta.url).pathname;

/** Each module of main/rehearse → the modules of main/rehearse it imports (type-only imports included). */
function importGraph(): Map<string, string[]> {
  const graph = new Map<string, string[]>();
  for (const file of readdirSync(DIR).filter((f) => f.endsWith('.ts'))) {
    const text = readFileSync(join(DIR, file), 'utf8');
    const targets = [...text.matchAll(/from '\.\/([\w-]+)\.js'/g)].map((m) => `${m[1]}.ts`);
    graph.set(file, [...new Set(targets)]);
  }
  return graph;
}

/** Every cycle, each as the path that closes it (a → b → a). */
function cycles(graph: Map<string, string[]>): string[] {
  const found: string[] = [];
  const done = new Set<string>();
  const visit = (node: string, path: string[]) => {
    const at = path.indexOf(node);
    if (at >= 0) {
      found.push([...path.slice(at), node].join(' → '));
      return;
    }
    if (done.has(node)) return;
    for (const next of graph.get(node) ?? []) visit(next, [...path, node]);
    done.add(node);
  };
  for (const node of graph.keys()) visit(node, []);
  return found;
}

describe('main/rehearse imports', () => {
  it('has no cycle', () => {
    const graph = importGraph();
    expect(graph.get('report.ts')).toContain('types.ts');
    expect(cycles(graph)).toEqual([]);
  });

  it('the check finds a cycle where there is one', () => {
    const graph = new Map([
      ['runner.ts', ['report.ts']],
      ['report.ts', ['runner.ts']],
    ]);
    expect(cycles(graph)).toEqual(['runner.ts → report.ts → runner.ts']);
  });
});
