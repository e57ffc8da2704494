/**
 * Who owns the gateway, worded for `status`, `doctor` and the dashboard (see main/core/gateway/owner/): the
 * owner's kind with the name the tools gave it (a LaunchAgent label, a unit, a supervisor) or its pid.
 */

/** main/core/gateway/owner/types.ts's GatewayOwner, repeated so the catalogue imports nothing at run time. */
export type OwnerKind = 'launchd' | 'systemd' | 'app-bundled' | 'external-supervisor' | 'foreground' | 'unknown';

export interface OwnerWords {
  owner: OwnerKind;
  /** The service or supervisor as named (`LaunchAgent ai.openclaw.gateway`, `supervisord (pid 812)`). */
  who: string | null;
  pid: number | null;
}

export function enOwner(p: OwnerWords): string {
  switch (p.owner) {
    case 'launchd':
    case 'systemd':
      return p.who ? `${p.owner} (${p.who})` : p.owner;
    case 'app-bundled':
      return "the OpenClaw app's bundled gateway";
    case 'external-supervisor':
      return `an external supervisor: ${p.who ?? 'not named'}`;
    case 'foreground':
      return p.pid === null ? 'a process nobody supervises' : `a process nobody supervises (pid ${p.pid})`;
    case 'unknown':
      return 'unknown';
  }
}

export function zhOwner(p: OwnerWords): string {
  switch (p.owner) {
    case 'launchd':
    case 'systemd':
      return p.who ? `${p.owner}（${p.who}）` : p.owner;
    case 'app-bundled':
      return 'OpenClaw 应用自带的网关';
    case 'external-supervisor':
      return `外部守护进程：${p.who ?? '未能识别'}`;
    case 'foreground':
      return p.pid === null ? '无人守护的进程' : `无人守护的进程（pid ${p.pid}）`;
    case 'unknown':
      return '未知';
  }
}
