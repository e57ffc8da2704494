/**
 * A throwaway machine for restart-strategy tests: a temp home, a bin directory
 * that is the whole PATH (fake launchctl/systemctl/openclaw go there), the
 * real file checks, and a virtual clock that advances only when the code
 * under test waits, so settling loops run instantly and deterministically.
 */
import { accessSync, constants, existsSync, mkdirSync, mkdtempSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import type { ExecutionContext, StrategyEnvironment } from '../../../main/core/gateway/control.js';
import { runCommand } from '../../../main/core/gateway/run-command.js';

export interface Harness {
  root: string;
  bin: string;
  home: string;
  environment(overrides?: Partial<StrategyEnvironment>): StrategyEnvironment;
  context(environment: StrategyEnvironment, overrides?: Partial<ExecutionContext>): ExecutionContext;
  /** Virtual milliseconds slept so far. */
  slept(): number;
  /** Creates a file (and its directories) under the harness. */
  file(path: string, content?: string): string;
  cleanup(): void;
}

function isExecutable(path: string): boolean {
  try {
    if (!statSync(path).isFile()) return false;
    accessSync(path, constants.X_OK);
    return true;
  } catch {
    return false;
  }
}

export function harness(prefix = 'breakerbar-strategy-'): Harness {
  const root = mkdtempSync(join(tmpdir(), prefix));
  const bin = join(root, 'bin');
  const home = join(root, 'home');
  mkdirSync(bin);
  mkdirSync(home);
  let clock = 0;
  let slept = 0;
  return {
    root,
    bin,
    home,
    environment: (overrides = {}) => ({
      platform: 'darwin',
      uid: 501,
      profile: null,
      env: { PATH: bin },
      home,
      exists: isExecutable,
      fileExists: existsSync,
      ...overrides,
    }),
    context: (environment, overrides = {}) => ({
      environment,
      run: runCommand,
      commandEnv: { PATH: bin },
      timeoutMs: 60_000,
      now: () => clock,
      sleep: async (ms) => {
        clock += ms;
        slept += ms;
      },
      ...overrides,
    }),
    slept: () => slept,
    file: (path, content = '') => {
      mkdirSync(dirname(path), { recursive: true });
      writeFileSync(path, content);
      return path;
    },
    cleanup: () => rmSync(root, { recursive: true, force: true }),
  };
}
