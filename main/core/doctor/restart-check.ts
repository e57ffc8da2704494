/**
 * Check 5: how the gateway would be restarted for each trigger, whether that
 * can work here, and how the gateway's service looks to launchd or systemd.
 * The answer is the Restarter's own `verify()`; only inspection commands run
 * (`launchctl print`, `systemctl show`).
 */
import { isAbsolute } from 'node:path';
import type { Environment, LoadedConfig } from '../config/index.js';
import type { RestartPlan, RestartTrigger, ServiceState, StrategyVerification } from '../gateway/control.js';
import type { GatewayOwnership, OwnerBlock } from '../gateway/owner/types.js';
import { runCommand } from '../gateway/run-command.js';
import { resolveGatewayEndpoint } from '../openclaw/gateway-endpoint.js';
import { restarterFor } from '../watchdog/restarter.js';
import { type Finding, finding, type Level, saidFinding } from './types.js';

const TRIGGERS: readonly RestartTrigger[] = ['manual', 'health', 'storm'];

/** A plan that cannot work here: the program is missing, or the service is not there to act on. */
function blockedPlan(
  which: { triggers: RestartTrigger[]; every: boolean },
  level: Level,
  plan: RestartPlan,
  verification: StrategyVerification,
): Finding {
  const { description } = plan;
  if (plan.strategy === 'command') {
    const program = plan.argv[0] ?? '';
    return saidFinding(
      'restart',
      level,
      { key: 'doctor.restart.programMissing', params: { ...which, program } },
      { key: 'doctor.restart.wouldRun', params: { argv: plan.argv, program, found: null } },
      { key: 'doctor.restart.programMissingFix', params: { program } },
    );
  }
  const service = verification.service;
  if (service && service.health === 'unloaded' && !service.fileExists && service.problem === null) {
    return saidFinding(
      'restart',
      level,
      { key: 'doctor.restart.notInstalled', params: { ...which, description } },
      verification.problem ?? service.summary,
      { key: 'doctor.restart.installFix' },
    );
  }
  return saidFinding(
    'restart',
    level,
    { key: 'doctor.restart.cannotWork', params: { ...which, description } },
    verification.problem ?? undefined,
    { key: service?.health === 'disabled' ? 'doctor.restart.serviceDisabledFix' : 'doctor.restart.noPlanFix' },
  );
}

/** The gateway's service as its manager sees it: fine, or why the watchdog may be needed. */
function serviceFinding(service: ServiceState, strategy: string | null): Finding {
  const kickstart = `launchctl kickstart -k ${service.target}`;
  switch (service.health) {
    case 'running':
      return finding('restart', 'ok', service.summary);
    case 'starting':
      return finding('restart', 'info', service.summary);
    case 'parked':
    case 'respawn_pending':
      return finding(
        'restart',
        'warn',
        service.summary,
        service.manager === 'launchd'
          ? 'launchd stops honouring KeepAlive after a burst of crashes; a restart by BreakerBar kickstarts it'
          : 'systemd keeps restarting it; a restart by BreakerBar resets the unit first',
        service.manager === 'launchd'
          ? `now: \`${kickstart}\``
          : `now: \`systemctl --user reset-failed ${service.name}\``,
      );
    case 'unloaded':
      // With the CLI, an unloaded service is normal for a gateway run in a terminal or by another supervisor.
      return finding(
        'restart',
        strategy === 'openclaw' ? 'info' : 'warn',
        service.summary,
        service.problem ?? undefined,
      );
    default:
      return finding('restart', 'warn', service.summary, service.problem ?? undefined);
  }
}

/**
 * Who owns the gateway, with the evidence: fine, unknown, or an owner BreakerBar does not restart through
 * (OpenClaw stopped it itself; an external supervisor or the app's gateway without watchdog.restartCommand).
 */
function ownerFinding(owner: GatewayOwnership, block: OwnerBlock | null): Finding {
  const words = {
    owner: owner.owner,
    who: owner.owner === 'external-supervisor' ? owner.supervisor : owner.name,
    pid: owner.pid,
  };
  const evidence = owner.evidence.join('; ');
  if (block) {
    return saidFinding(
      'restart',
      block.rule === 'stopped_itself' ? 'error' : 'warn',
      { key: 'doctor.restart.ownerBlocked', params: { ...words, rule: block.rule } },
      evidence,
      { key: 'doctor.restart.ownerFix', params: { rule: block.rule } },
    );
  }
  return saidFinding(
    'restart',
    owner.owner === 'unknown' ? 'info' : 'ok',
    { key: 'doctor.restart.owner', params: words },
    evidence,
  );
}

export async function checkRestart(
  loaded: LoadedConfig,
  environment: Environment,
  run: typeof runCommand = runCommand,
): Promise<Finding[]> {
  const findings: Finding[] = [];
  const w = loaded.config.watchdog;
  if (!w.enabled) {
    findings.push(saidFinding('restart', 'info', { key: 'doctor.restart.off' }, { key: 'doctor.restart.offDetail' }));
  } else if (w.dryRun) {
    findings.push(
      saidFinding('restart', 'info', { key: 'doctor.restart.dryRun' }, { key: 'doctor.restart.dryRunDetail' }),
    );
  } else {
    findings.push(
      saidFinding(
        'restart',
        'info',
        { key: 'doctor.restart.on' },
        {
          key: 'doctor.restart.onDetail',
          params: {
            probes: w.healthFailuresBeforeRestart,
            checks: w.stormRestart === 'off' ? null : w.threshold,
            max: w.maxRestartsPerHour,
          },
        },
      ),
    );
  }
  const automatic = w.enabled && !w.dryRun;

  const restarter = restarterFor(loaded.config, environment, resolveGatewayEndpoint(loaded, environment).baseUrl, run);
  const verification = await restarter.verify();

  // Triggers with the same plan (or the same problem) share one line.
  const groups = new Map<string, { triggers: RestartTrigger[]; plan: RestartPlan | null; problem: string | null }>();
  // With storm restarts off no storm plan exists to check (the watchdog line above says so).
  const triggersHere = TRIGGERS.filter((t) => t !== 'storm' || w.stormRestart !== 'off');
  for (const trigger of triggersHere) {
    const { plan, problem } = restarter.plan({ trigger });
    const key = plan ? `plan:${JSON.stringify(plan.argv)}` : `problem:${problem}`;
    const group = groups.get(key);
    if (group) group.triggers.push(trigger);
    else groups.set(key, { triggers: [trigger], plan, problem });
  }

  for (const { triggers, plan, problem } of groups.values()) {
    // Only the manual restart runs when the watchdog is off or dry: the others are warnings then.
    const level: Level = automatic || triggers.includes('manual') ? 'error' : 'warn';
    const every = triggers.length === triggersHere.length;
    if (!plan) {
      findings.push(
        saidFinding(
          'restart',
          level,
          { key: 'doctor.restart.noPlan', params: { triggers, every } },
          problem ?? undefined,
          {
            key: 'doctor.restart.noPlanFix',
          },
        ),
      );
      continue;
    }
    const program = plan.argv[0] ?? '';
    if (verification.ownerBlock) {
      // The plan itself is fine; the owner's finding below says why BreakerBar holds it.
      findings.push(
        saidFinding(
          'restart',
          'info',
          { key: 'doctor.restart.plan', params: { triggers, every, description: plan.description } },
          { key: 'doctor.restart.wouldRun', params: { argv: plan.argv, program, found: verification.program } },
        ),
      );
    } else if (!verification.runnable) {
      findings.push(blockedPlan({ triggers, every }, level, plan, verification));
    } else if (!isAbsolute(program) && program.includes('/')) {
      findings.push(
        saidFinding(
          'restart',
          'warn',
          { key: 'doctor.restart.relative', params: { triggers, every, program } },
          { key: 'doctor.restart.relativeDetail', params: { argv: plan.argv } },
          { key: 'doctor.restart.relativeFix' },
        ),
      );
    } else {
      const found = verification.program;
      findings.push(
        saidFinding(
          'restart',
          'ok',
          { key: 'doctor.restart.plan', params: { triggers, every, description: plan.description } },
          { key: 'doctor.restart.wouldRun', params: { argv: plan.argv, program, found: found ?? null } },
        ),
      );
    }
  }
  if (verification.owner) findings.push(ownerFinding(verification.owner, verification.ownerBlock));
  // A service OpenClaw stopped itself is said by the owner's finding: no advice to kickstart it.
  if (verification.service && !verification.owner?.stoppedItself)
    findings.push(serviceFinding(verification.service, verification.strategy));
  return findings;
}
