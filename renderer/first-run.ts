/**
 * When the dashboard opens on the Doctor instead of an empty overview: only while OpenClaw was never found,
 * that is nothing read at all yet (or, with no status to tell, an `error` finding about OpenClaw, the sources or
 * the gateway). Once anything was read, the Overview opens even while the gateway is down or a source fails:
 * an outage is exactly when it is needed (its banner and the Doctor's tab say what is wrong).
 */

import { nothingRead } from '../main/api/nothing-read.js';
import type { ApiStatus, DoctorReport, Finding } from '../main/api/types.js';

/** The areas without which the dashboard has nothing to show. */
const FIRST_RUN_AREAS: ReadonlySet<Finding['area']> = new Set(['openclaw', 'sources', 'gateway']);

export function blockingFindings(report: DoctorReport): Finding[] {
  return report.findings.filter((f) => f.level === 'error' && FIRST_RUN_AREAS.has(f.area));
}

export function opensOnDoctor(report: DoctorReport | null, status: ApiStatus | null): boolean {
  if (status !== null) return nothingRead(status);
  return report !== null && blockingFindings(report).length > 0;
}
