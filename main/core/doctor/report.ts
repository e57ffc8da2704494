/**
 * `breakerbar doctor`: what BreakerBar found and will use, each finding with a
 * fix where something is missing. Read-only: no database or directory is
 * created, no lock taken, nothing sent to a webhook; the gateway and the
 * daemon's API are only asked for their health.
 */
import type { Environment } from '../config/index.js';
import { checkBreakerbar } from './breakerbar-check.js';
import { checkConfig } from './config-check.js';
import { checkGateway, type ProbeTimeouts } from './gateway-check.js';
import { checkGatewayLog } from './gateway-log-check.js';
import { checkNotifications } from './notifications-check.js';
import { checkOpenClaw } from './openclaw-check.js';
import { checkRestart } from './restart-check.js';
import { checkSources } from './sources-check.js';
import { AREAS, type DoctorReport, type Finding, saidFinding, summarize } from './types.js';

export type { Area, DoctorReport, Finding, Level } from './types.js';
export { AREAS, LEVELS } from './types.js';

/** Short on purpose: a doctor that hangs on a hung gateway helps nobody. */
export const DOCTOR_CONNECT_TIMEOUT_MS = 2000;
export const DOCTOR_READ_TIMEOUT_MS = 3000;

export interface DoctorOptions {
  /** `--config`; undefined reads $BREAKERBAR_CONFIG, else config.json in BreakerBar's home. */
  configFile?: string;
  environment: Environment;
  /** Both probe timeouts (gateway and BreakerBar's API); default 2 s to connect, 3 s to answer. */
  probeTimeoutMs?: number;
  /** Wall clock, for "today's" gateway log (default Date.now). */
  clock?: () => number;
}

/** A check that throws is itself a finding, so one surprise never hides the rest of the report. */
async function guarded(area: Finding['area'], run: () => Finding[] | Promise<Finding[]>): Promise<Finding[]> {
  try {
    return await run();
  } catch (error) {
    return [
      saidFinding(
        area,
        'error',
        { key: 'doctor.checkFailed' },
        error instanceof Error ? error.message : String(error),
        {
          key: 'doctor.checkFailedFix',
        },
      ),
    ];
  }
}

export async function runDoctor(options: DoctorOptions): Promise<DoctorReport> {
  const { environment } = options;
  const timeouts: ProbeTimeouts = {
    connectTimeoutMs: options.probeTimeoutMs ?? DOCTOR_CONNECT_TIMEOUT_MS,
    readTimeoutMs: options.probeTimeoutMs ?? DOCTOR_READ_TIMEOUT_MS,
  };
  const now = (options.clock ?? Date.now)();

  const config = checkConfig(options.configFile, environment);
  const { loaded } = config;
  let openclawConfig: Record<string, unknown> | null = null;
  let stateDirUsable = false;
  const openclaw = await guarded('openclaw', () => {
    const result = checkOpenClaw(loaded, environment);
    openclawConfig = result.openclawConfig;
    stateDirUsable = result.stateDirUsable;
    return result.findings;
  });
  const sources = await guarded('sources', () => [
    ...(stateDirUsable ? checkSources(loaded) : []),
    ...checkGatewayLog(loaded, environment, openclawConfig, now),
  ]);
  // The two network checks wait on their timeouts in parallel.
  const [gateway, breakerbar] = await Promise.all([
    guarded('gateway', () => checkGateway(loaded, environment, timeouts)),
    guarded('breakerbar', () => checkBreakerbar(loaded, timeouts)),
  ]);
  const restart = await guarded('restart', () => checkRestart(loaded, environment));
  const notifications = await guarded('notifications', () => checkNotifications(loaded, environment, now));

  const all = [...config.findings, ...openclaw, ...sources, ...gateway, ...restart, ...notifications, ...breakerbar];
  // Grouped by area in report order; within an area, in the order found.
  const findings = AREAS.flatMap((area) => all.filter((f) => f.area === area));
  return { findings, summary: summarize(findings) };
}
