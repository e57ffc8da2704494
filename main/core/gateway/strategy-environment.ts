/**
 * What the restart strategies need to know about this machine: platform, user
 * id, OpenClaw profile, environment, home, and how to test for a file or an
 * executable. The watchdog's restarter and the doctor's restart check build it
 * the same way, so the doctor reports the plan the watchdog would carry out.
 */
import { accessSync, constants, existsSync } from 'node:fs';
import type { Environment } from '../config/index.js';
import type { StrategyEnvironment } from './control.js';

export function strategyEnvironment(environment: Environment, profile: string | null): StrategyEnvironment {
  return {
    platform: environment.platform,
    uid: typeof process.getuid === 'function' ? process.getuid() : null,
    profile,
    env: environment.env,
    home: environment.home,
    fileExists: existsSync,
    exists(path) {
      try {
        accessSync(path, constants.X_OK);
        return true;
      } catch {
        return false;
      }
    },
  };
}
