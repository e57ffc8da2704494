/**
 * Where in the dashboard a notice is shown, as the URL fragment the renderer
 * reads (`#view=<view>&at=<ms>&kind=<kind>&dep=<dep>`, the same fragment
 * parameters it takes in a browser): a click on a native notification opens
 * the window there. Views: overview, errors, logs, settings, doctor
 * (renderer/view.ts).
 */
import type { Notice, NoticeKind } from '../core/notify/notice.js';

export type DashboardView = 'overview' | 'errors' | 'logs' | 'settings' | 'doctor';

const VIEW_OF: Record<NoticeKind, DashboardView> = {
  restart_started: 'logs',
  restart_succeeded: 'logs',
  restart_failed: 'logs',
  restart_deferred: 'logs',
  restart_budget_exhausted: 'logs',
  restart_would_run: 'logs',
  watchdog_blocked: 'doctor',
  breaker_opened: 'errors',
  breaker_throttled: 'errors',
  breaker_closed: 'errors',
  fallback_answering: 'errors',
  openclaw_cooldown_loop: 'errors',
  gateway_down: 'overview',
  gateway_up: 'overview',
  divergence: 'overview',
  token_budget: 'overview',
  spend_budget: 'overview',
  incident_opened: 'overview',
  incident_escalated: 'overview',
  incident_resolved: 'overview',
  digest: 'logs',
  store_full: 'overview',
  store_room: 'overview',
};

/** The fragment (without `#`) that shows this notice's event. */
export function noticeRoute(notice: Notice): string {
  const params = new URLSearchParams({
    view: VIEW_OF[notice.kind] ?? 'overview',
    at: String(notice.ts),
    kind: notice.kind,
  });
  if (notice.dep !== null) params.set('dep', notice.dep);
  return params.toString();
}
