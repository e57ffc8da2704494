/**
 * Check 5: how the gateway would be restarted for each trigger, and whether
 * that program exists here. Nothing is run.
 */
import { existsSync } from 'node:fs';
import { dirname, isAbsolute, join } from 'node:path';
import type { Environment, LoadedConfig } from '../config/index.js';
import type { RestartPlan, RestartTrigger } from '../gateway/control.js';
import { strategyEnvironment } from '../watchdog/gateway-side.js';
import { Restarter } from '../watchdog/restarter.js';
import { envValue, findOnPath, isExecutableFile } from './fs-util.js';
import { type Finding, finding, type Level } from './types.js';

const TRIGGERS: readonly RestartTrigger[] = ['manual', 'health', 'storm'];

const TRIGGER_WORDS: Record<RestartTrigger, string> = {
  manual: 'manual restart',
  health: 'restart of a dead or hung gateway',
  storm: 'restart after a 429 storm',
};

const NO_PLAN_FIX =
  'set watchdog.restartCommand to the command that restarts your gateway (argv, absolute program path), or install the openclaw CLI';

/**
 * Where the program of a plan is found the way the restarter runs it: an
 * absolute path as is; a bare name on PATH with Node's directory first (what
 * Restarter puts in the command's environment). Null when it is not there.
 */
export function resolveProgram(program: string, env: NodeJS.ProcessEnv): string | null {
  if (isAbsolute(program)) return isExecutableFile(program) ? program : null;
  if (program.includes('/')) return isExecutableFile(program) ? program : null;
  return findOnPath(program, env.PATH ?? env.Path, [dirname(process.execPath)]);
}

/**
 * Where the gateway's service file would be when the plan talks to launchd or
 * systemd directly (the openclaw CLI installs it with `openclaw gateway install`).
 * Null when the plan does not depend on one.
 */
export function serviceFileCandidates(
  plan: RestartPlan,
  environment: Environment,
  profile: string | null,
): string[] | null {
  if (plan.strategy === 'launchd') {
    const label = profile ? `ai.openclaw.${profile}` : 'ai.openclaw.gateway';
    return [join(environment.home, 'Library', 'LaunchAgents', `${label}.plist`)];
  }
  if (plan.strategy === 'systemd') {
    const unit = profile ? `openclaw-gateway-${profile}.service` : 'openclaw-gateway.service';
    const configHome = envValue(environment.env, 'XDG_CONFIG_HOME') ?? join(environment.home, '.config');
    return [
      join(configHome, 'systemd', 'user', unit),
      join('/etc', 'systemd', 'user', unit),
      join('/usr', 'lib', 'systemd', 'user', unit),
      join('/usr', 'local', 'lib', 'systemd', 'user', unit),
    ];
  }
  return null;
}

function triggerList(triggers: RestartTrigger[]): string {
  if (triggers.length === TRIGGERS.length) return 'every restart (manual, health, storm)';
  return triggers.map((t) => TRIGGER_WORDS[t]).join(', ');
}

function serviceMissing(plan: RestartPlan, environment: Environment, profile: string | null): boolean {
  const candidates = serviceFileCandidates(plan, environment, profile);
  return candidates !== null && !candidates.some((path) => existsSync(path));
}

export function checkRestart(loaded: LoadedConfig, environment: Environment): Finding[] {
  const findings: Finding[] = [];
  const w = loaded.config.watchdog;
  if (!w.enabled) {
    findings.push(
      finding(
        'restart',
        'info',
        'watchdog off (watchdog.enabled false)',
        'BreakerBar watches but never restarts the gateway on its own; manual restarts still use the plan below',
      ),
    );
  } else if (w.dryRun) {
    findings.push(
      finding(
        'restart',
        'info',
        'watchdog in dry run (watchdog.dryRun)',
        'restarts are decided and notified, never run',
      ),
    );
  } else {
    findings.push(
      finding(
        'restart',
        'info',
        'watchdog on',
        `restarts after ${w.healthFailuresBeforeRestart} dead probes or ${w.threshold} checks with new 429s, at most ${w.maxRestartsPerHour} per hour`,
      ),
    );
  }
  const automatic = w.enabled && !w.dryRun;

  const restarter = new Restarter(
    {
      restartCommand: w.restartCommand,
      restartTimeoutMs: w.restartTimeoutSec * 1000,
      manualRestart: w.manualRestart,
      healthRestart: w.healthRestart,
      stormRestart: w.stormRestart,
      stormWaitSec: w.stormWaitSec,
    },
    strategyEnvironment(environment, loaded.config.profile),
  );

  // Triggers with the same plan (or the same problem) share one line.
  const groups = new Map<string, { triggers: RestartTrigger[]; plan: RestartPlan | null; problem: string | null }>();
  for (const trigger of TRIGGERS) {
    const { plan, problem } = restarter.plan({ trigger });
    const key = plan ? `plan:${JSON.stringify(plan.argv)}` : `problem:${problem}`;
    const group = groups.get(key);
    if (group) group.triggers.push(trigger);
    else groups.set(key, { triggers: [trigger], plan, problem });
  }

  for (const { triggers, plan, problem } of groups.values()) {
    // Only the manual restart runs when the watchdog is off or dry: the others are warnings then.
    const level: Level = automatic || triggers.includes('manual') ? 'error' : 'warn';
    const which = triggerList(triggers);
    if (!plan) {
      findings.push(
        finding('restart', level, `no way to restart the gateway for ${which}`, problem ?? undefined, NO_PLAN_FIX),
      );
      continue;
    }
    const program = plan.argv[0] ?? '';
    const found = resolveProgram(program, environment.env);
    if (found === null) {
      findings.push(
        finding(
          'restart',
          level,
          `${which}: ${program} not found`,
          `would run: ${plan.argv.join(' ')}`,
          plan.strategy === 'command'
            ? `install ${program}, or fix watchdog.restartCommand (an absolute path is safest: services start with a minimal PATH)`
            : NO_PLAN_FIX,
        ),
      );
    } else if (!isAbsolute(program) && program.includes('/')) {
      findings.push(
        finding(
          'restart',
          'warn',
          `${which}: ${program} is a relative path`,
          `would run: ${plan.argv.join(' ')}; it resolves against the daemon's working directory`,
          'use an absolute path in watchdog.restartCommand',
        ),
      );
    } else if (serviceMissing(plan, environment, loaded.config.profile)) {
      const candidates = serviceFileCandidates(plan, environment, loaded.config.profile) ?? [];
      findings.push(
        finding(
          'restart',
          level,
          `${which}: ${plan.description}, but the gateway service is not installed`,
          `no ${candidates[0] ?? 'service file'}${candidates.length > 1 ? ' (nor in the system-wide unit directories)' : ''}`,
          'install the service with `openclaw gateway install`, or set watchdog.restartCommand to how you run the gateway',
        ),
      );
    } else {
      findings.push(
        finding(
          'restart',
          'ok',
          `${which}: ${plan.description}`,
          `would run: ${plan.argv.join(' ')}${found !== program ? ` (${program} is ${found})` : ''}`,
        ),
      );
    }
  }
  return findings;
}
