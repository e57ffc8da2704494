/**
 * Who owns the running gateway, as data: the facts a gatherer read from the
 * machine, and the verdict the pure decision drew from them. Owning means
 * "brings it back when it stops": BreakerBar restarts only through an owner
 * that expects it to (see restart-rule.ts).
 */
import type { ServiceState } from '../strategies/types.js';

/**
 * - launchd: OpenClaw's LaunchAgent (macOS);
 * - systemd: OpenClaw's systemd user unit (Linux);
 * - app-bundled: the gateway the OpenClaw app runs inside itself (macOS, since 2026.10.1): no CLI, no
 *   LaunchAgent, it stops when the app quits;
 * - external-supervisor: the gateway runs with OPENCLAW_SUPERVISOR_MODE=external: something else
 *   (a container, supervisord, pm2, the user's own job) restarts it;
 * - foreground: a plain process nobody supervises (`openclaw gateway run` in a terminal);
 * - unknown: nothing answered the questions (no listener seen, no service installed).
 */
export type GatewayOwner = 'launchd' | 'systemd' | 'app-bundled' | 'external-supervisor' | 'foreground' | 'unknown';

/** The process listening on the gateway's port. */
export interface ListenerProcess {
  pid: number;
  /** The short command name (lsof's `c`, ss's `users:(("node",…))`). */
  command: string | null;
  /** Its full command line, executable first, when readable (`ps -o args=`, /proc/<pid>/cmdline). */
  args: string | null;
  /** Its parent process, when readable: under a supervisor, the supervisor. */
  parent: { pid: number; name: string | null } | null;
  /** Its environment (Linux, same user: /proc/<pid>/environ), OPENCLAW_SUPERVISOR_MODE only; null when not readable. */
  environment: Record<string, string> | null;
}

export interface OwnerFacts {
  platform: NodeJS.Platform;
  /** The gateway's TCP port (from gatewayUrl). */
  port: number | null;
  /** OpenClaw's LaunchAgent or user unit as its manager shows it; null when there is no manager to ask. */
  service: ServiceState | null;
  /** The service's declared environment (the plist's EnvironmentVariables, the unit's Environment=), OPENCLAW_SUPERVISOR_MODE only. */
  serviceEnvironment: Record<string, string> | null;
  /** The process listening on the port; null when none was found (or the listing was not possible). */
  listener: ListenerProcess | null;
  /** Whether the port listing could be made at all (lsof/ss present and answering). */
  listenerLooked: boolean;
  /** Where the openclaw CLI is, or null. */
  cli: string | null;
  /** Where OpenClaw.app is installed (macOS), or null. */
  app: string | null;
  /** Whether the gateway answered its last health probe; null when not known. */
  answering: boolean | null;
}

export interface GatewayOwnership {
  owner: GatewayOwner;
  /** The owner in words (English): `LaunchAgent ai.openclaw.gateway`, `supervisord (pid 812)`. */
  name: string;
  /** The gateway process seen listening, when one was. */
  pid: number | null;
  /** Why BreakerBar thinks so, one fact a line (English, as the tools said it). */
  evidence: string[];
  /** The external supervisor, named as well as BreakerBar can; null for any other owner. */
  supervisor: string | null;
  /** OpenClaw parked the gateway on purpose (exit 78: its database schema is newer than the gateway). */
  stoppedItself: boolean;
}

/** Why the owner forbids BreakerBar's restart; `reason` is the English sentence for decisions and logs. */
export interface OwnerBlock {
  rule: 'stopped_itself' | 'external_supervisor' | 'app_bundled';
  owner: GatewayOwner;
  /** The owner's name, or the supervisor's for an external one. */
  who: string;
  reason: string;
}
