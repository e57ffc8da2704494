/**
 * What `npm start` runs: the menu-bar app where Electron's runtime and a
 * display exist, otherwise the headless daemon (which prints the dashboard's
 * URL). On a desktop whose `npm run setup` skipped Electron's download, the
 * runtime is fetched once here, as Electron's own installer would have.
 */
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

export interface LaunchFacts {
  platform: NodeJS.Platform;
  env: NodeJS.ProcessEnv;
  /** Electron's binary, when its runtime is installed. */
  electronBinary: string | null;
}

export type LaunchChoice = { run: 'app'; binary: string } | { run: 'fetch-electron' } | { run: 'daemon'; why: string };

/** A display the tray can live on: always on macOS and Windows; X11 or Wayland on Linux. */
export function hasDisplay(platform: NodeJS.Platform, env: NodeJS.ProcessEnv): boolean {
  if (platform === 'darwin' || platform === 'win32') return true;
  return Boolean(env.DISPLAY || env.WAYLAND_DISPLAY);
}

export function chooseLaunch(facts: LaunchFacts, fetchTried: boolean): LaunchChoice {
  if (facts.env.BREAKERBAR_HEADLESS === '1') return { run: 'daemon', why: 'BREAKERBAR_HEADLESS=1' };
  if (!hasDisplay(facts.platform, facts.env)) {
    return { run: 'daemon', why: 'no display (no DISPLAY or WAYLAND_DISPLAY)' };
  }
  if (facts.electronBinary) return { run: 'app', binary: facts.electronBinary };
  if (!fetchTried && facts.env.ELECTRON_SKIP_BINARY_DOWNLOAD !== '1') return { run: 'fetch-electron' };
  return { run: 'daemon', why: "Electron's runtime is not installed and could not be fetched" };
}

const root = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
const electronDir = join(root, 'node_modules', 'electron');

/** Electron's binary as its npm package records it (path.txt), if it is there. */
export function electronBinary(): string | null {
  try {
    const relative = readFileSync(join(electronDir, 'path.txt'), 'utf8').trim();
    const binary = join(electronDir, 'dist', relative);
    return existsSync(binary) ? binary : null;
  } catch {
    return null;
  }
}

function run(program: string, args: string[], env: NodeJS.ProcessEnv = process.env): void {
  const child = spawn(program, args, { stdio: 'inherit', cwd: root, env });
  // Forwarded, and this process waits for the child's exit: dying here first would orphan the daemon.
  // SIGHUP included: when the terminal closes, a daemon started from it must stop too.
  for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP'] as const) process.on(signal, () => child.kill(signal));
  child.on('exit', (code, signal) => {
    process.exitCode = code ?? (signal ? 1 : 0);
  });
}

function main(): void {
  const facts = (): LaunchFacts => ({ platform: process.platform, env: process.env, electronBinary: electronBinary() });
  let choice = chooseLaunch(facts(), false);
  if (choice.run === 'fetch-electron') {
    process.stderr.write("Fetching Electron's runtime for the menu-bar app (once)…\n");
    spawnSync(process.execPath, [join(electronDir, 'install.js')], { stdio: 'inherit', timeout: 10 * 60_000 });
    choice = chooseLaunch(facts(), true);
  }
  if (choice.run === 'app') {
    // The app from a checkout runs its core under this Node (the checkout's better-sqlite3 is built for it).
    run(choice.binary, [root], { ...process.env, BREAKERBAR_NODE: process.execPath });
    return;
  }
  const why = choice.run === 'daemon' ? choice.why : 'no runtime';
  process.stderr.write(`Running the headless daemon (${why}); the dashboard is served on its API address.\n`);
  run(process.execPath, [join(root, 'dist', 'main', 'cli', 'index.js'), 'daemon', ...process.argv.slice(2)]);
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) main();
