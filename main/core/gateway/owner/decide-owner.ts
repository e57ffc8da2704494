/**
 * Who owns the gateway, from facts alone (pure). The strongest evidence wins,
 * in this order:
 * 1. the service manager shows OpenClaw parked it with exit 78: its manager
 *    owns it, and it stopped itself on purpose;
 * 2. OPENCLAW_SUPERVISOR_MODE=external in the gateway's environment (the
 *    process's, else the service's declaration): an external supervisor;
 * 3. the listening process runs from inside OpenClaw.app/Contents/: the
 *    app's bundled gateway;
 * 4. the LaunchAgent or unit runs the listening process (or runs, when the
 *    listener could not be seen): launchd or systemd;
 * 5. some other process listens: a foreground gateway nobody supervises;
 * 6. nothing listens: the installed service that would bring it back, else
 *    the owner seen last (an app that quit leaves nothing to see), else, on a
 *    Mac with OpenClaw.app and neither CLI nor LaunchAgent, the app; else
 *    unknown.
 */
import { stoppedItself } from '../strategies/stopped-itself.js';
import type { ServiceState } from '../strategies/types.js';
import type { GatewayOwnership, ListenerProcess, OwnerFacts } from './types.js';

/** Set in the gateway's environment when something other than OpenClaw's own service supervises it. */
export const SUPERVISOR_MODE_VARIABLE = 'OPENCLAW_SUPERVISOR_MODE';

/** An executable or script inside the macOS app bundle: the app runs this gateway itself. */
const APP_BUNDLE = /\/OpenClaw\.app\/Contents\//i;

/** Parents that are service managers, not a supervisor worth naming on their own. */
const INIT_NAMES = /^(?:launchd|systemd|init)$/;

function serviceName(service: ServiceState): string {
  return service.manager === 'launchd' ? `LaunchAgent ${service.name}` : `systemd user unit ${service.name}`;
}

function processWords(listener: ListenerProcess): string {
  const what = listener.args ?? listener.command ?? '?';
  return `pid ${listener.pid} (${what.length > 160 ? `${what.slice(0, 157)}...` : what})`;
}

function isExternal(environment: Record<string, string> | null): boolean {
  return environment?.[SUPERVISOR_MODE_VARIABLE]?.trim().toLowerCase() === 'external';
}

/** Whether the service's process is the listener (directly, or as the wrapper that started it). */
function serviceRuns(service: ServiceState, listener: ListenerProcess): boolean {
  return service.pid !== null && (service.pid === listener.pid || service.pid === listener.parent?.pid);
}

function serviceRunning(service: ServiceState | null): boolean {
  return service !== null && (service.health === 'running' || service.health === 'starting');
}

/** A service worth calling the owner when nothing listens: installed, even if stopped. */
function serviceInstalled(service: ServiceState | null): boolean {
  if (service === null || service.health === 'unknown') return false;
  return service.loaded === true || service.fileExists;
}

/** The external supervisor, as well as BreakerBar can name it. */
function supervisorName(facts: OwnerFacts): string {
  const { listener, service } = facts;
  if (listener && service && serviceRuns(service, listener)) return serviceName(service);
  const parent = listener?.parent;
  if (parent && parent.pid > 1 && parent.name && !INIT_NAMES.test(parent.name)) {
    return `${parent.name} (pid ${parent.pid})`;
  }
  if (service && (serviceRunning(service) || isExternal(facts.serviceEnvironment))) return serviceName(service);
  if (parent?.name) return `${parent.name} (pid ${parent.pid})`;
  return 'an external supervisor BreakerBar cannot name';
}

function owned(
  owner: GatewayOwnership['owner'],
  name: string,
  evidence: string[],
  extra: Partial<Pick<GatewayOwnership, 'supervisor' | 'stoppedItself' | 'pid'>> = {},
): GatewayOwnership {
  return {
    owner,
    name,
    pid: extra.pid ?? null,
    evidence,
    supervisor: extra.supervisor ?? null,
    stoppedItself: extra.stoppedItself ?? false,
  };
}

export function decideOwner(facts: OwnerFacts, previous: GatewayOwnership | null = null): GatewayOwnership {
  const { service, listener } = facts;
  const port = facts.port === null ? 'the gateway port' : `port ${facts.port}`;

  if (service && stoppedItself(service)) {
    return owned(
      service.manager,
      serviceName(service),
      [service.summary, 'exit 78: OpenClaw stopped the gateway itself (its database schema is newer than it)'],
      { stoppedItself: true },
    );
  }

  const processExternal = isExternal(listener?.environment ?? null);
  const declaredExternal = isExternal(facts.serviceEnvironment);
  if (processExternal || declaredExternal) {
    const where = processExternal
      ? `the gateway process's environment (pid ${listener?.pid}) has ${SUPERVISOR_MODE_VARIABLE}=external`
      : `${service ? serviceName(service) : 'the service'} declares ${SUPERVISOR_MODE_VARIABLE}=external in its environment`;
    const supervisor = supervisorName(facts);
    const evidence = [where];
    if (listener) evidence.push(`${processWords(listener)} listens on ${port}`);
    if (listener?.parent) evidence.push(`its parent: ${listener.parent.name ?? '?'} (pid ${listener.parent.pid})`);
    return owned('external-supervisor', supervisor, evidence, { supervisor, pid: listener?.pid ?? null });
  }

  if (listener && APP_BUNDLE.test(`${listener.args ?? ''} ${listener.command ?? ''}`)) {
    return owned(
      'app-bundled',
      "the OpenClaw app's bundled gateway",
      [`${processWords(listener)} listens on ${port} and runs from inside OpenClaw.app/Contents/`],
      { pid: listener.pid },
    );
  }

  if (listener) {
    if (service && serviceRuns(service, listener)) {
      return owned(
        service.manager,
        serviceName(service),
        [service.summary, `${processWords(listener)} listens on ${port}`],
        { pid: listener.pid },
      );
    }
    const parent = listener.parent ? `; its parent: ${listener.parent.name ?? '?'} (pid ${listener.parent.pid})` : '';
    const evidence = [`${processWords(listener)} listens on ${port}${parent}`];
    if (service && service.health !== 'unknown') evidence.push(`${service.summary}: not the process that listens`);
    return owned('foreground', `a process nobody supervises (pid ${listener.pid})`, evidence, { pid: listener.pid });
  }

  // No listener seen. A running service still owns the gateway when the listing was not possible.
  if (service && serviceRunning(service)) {
    const unseen = facts.listenerLooked ? `nothing found listening on ${port}` : 'the port listing was not possible';
    return owned(service.manager, serviceName(service), [service.summary, unseen]);
  }
  const quiet = facts.listenerLooked ? `nothing listens on ${port}` : `who listens on ${port} could not be seen`;
  if (service && serviceInstalled(service)) {
    return owned(service.manager, serviceName(service), [service.summary, quiet]);
  }
  if (previous && previous.owner !== 'unknown' && previous.owner !== 'launchd' && previous.owner !== 'systemd') {
    // An app that quit, a terminal closed, a supervisor between restarts: the last owner seen is the best guess.
    return {
      ...previous,
      pid: null,
      stoppedItself: false,
      evidence: [quiet, `last seen: ${previous.evidence.join('; ')}`],
    };
  }
  // The manager's own failure is its finding elsewhere; here it only says the service could not be asked.
  const noService =
    service === null
      ? 'no service manager to ask'
      : service.health === 'unknown'
        ? `${serviceName(service)}: its manager could not be asked`
        : service.summary;
  if (facts.platform === 'darwin' && facts.app !== null && facts.cli === null) {
    return owned('app-bundled', "the OpenClaw app's bundled gateway", [
      `${facts.app} is installed, with no openclaw CLI and no LaunchAgent (${noService}): only the app can run a gateway here`,
      facts.answering === true ? `the gateway answers; ${quiet}` : quiet,
    ]);
  }
  return owned('unknown', 'unknown', [quiet, noService, facts.cli ? `openclaw CLI: ${facts.cli}` : 'no openclaw CLI']);
}
