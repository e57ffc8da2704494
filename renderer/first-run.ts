/**
 * When the dashboard opens on the Doctor instead of an empty overview: OpenClaw
 * not found, a source unreadable, the gateway unreachable (an `error` finding
 * in those areas), or nothing read at all yet.
 */
import type { DoctorReport, Finding } from '../main/core/doctor/index.js';
import type { ApiStatus } from '../main/shared/api/types.js';

/** The areas without which the dashboard has nothing to show. */
const FIRST_RUN_AREAS: ReadonlySet<Finding['area']> = new Set(['openclaw', 'sources', 'gateway']);

export function blockingFindings(report: DoctorReport): Finding[] {
  return report.findings.filter((f) => f.level === 'error' && FIRST_RUN_AREAS.has(f.area));
}

/** No source found anything to read and no breaker exists: a first run, or BreakerBar looks in the wrong place. */
export function nothingRead(status: ApiStatus): boolean {
  return status.breakers.length === 0 && status.sources.every((source) => source.calls === 0);
}

export function opensOnDoctor(report: DoctorReport | null, status: ApiStatus | null): boolean {
  return (report !== null && blockingFindings(report).length > 0) || (status !== null && nothingRead(status));
}
