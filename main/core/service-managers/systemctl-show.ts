/**
 * Reading `systemctl [--user] show <unit> -p A,B,...`: one `Key=Value` line per
 * property, in systemd's own order (not the order asked for), values raw
 * (`MainPID=0` when nothing runs, empty when unknown). A unit systemd has no
 * file for is still shown, exit 0, with `LoadState=not-found`.
 */

/** The properties BreakerBar asks for; the order does not matter to the parser. */
export const SYSTEMD_SHOW_PROPERTIES = [
  'LoadState',
  'LoadError',
  'ActiveState',
  'SubState',
  'Result',
  'MainPID',
  'NRestarts',
  'ExecMainStatus',
  'UnitFileState',
  'FragmentPath',
] as const;

export interface SystemdUnitShow {
  /** loaded, not-found, masked, bad-setting, error. */
  loadState: string | null;
  /** Why it did not load, as systemd words it (empty for a loaded unit). */
  loadError: string | null;
  /** active, activating, deactivating, inactive, failed, reloading. */
  activeState: string | null;
  /** running, auto-restart, start, dead, failed ... */
  subState: string | null;
  /** success, exit-code, signal, start-limit-hit ... */
  result: string | null;
  mainPid: number | null;
  restarts: number | null;
  execMainStatus: number | null;
  /** enabled, disabled, static, masked, linked ... (empty for a unit with no file). */
  unitFileState: string | null;
  fragmentPath: string | null;
}

function text(value: string | undefined): string | null {
  return value === undefined || value.trim() === '' ? null : value.trim();
}

function count(value: string | undefined): number | null {
  return value !== undefined && /^\d+$/.test(value.trim()) ? Number(value.trim()) : null;
}

export function parseSystemctlShow(output: string): SystemdUnitShow {
  const values = new Map<string, string>();
  for (const line of output.split('\n')) {
    const eq = line.indexOf('=');
    // The first occurrence wins: `show` of several units repeats keys, the first block is ours.
    if (eq > 0 && !values.has(line.slice(0, eq))) values.set(line.slice(0, eq), line.slice(eq + 1));
  }
  const loadError = text(values.get('LoadError'));
  const pid = count(values.get('MainPID'));
  return {
    loadState: text(values.get('LoadState')),
    // A loaded unit shows `LoadError= ""` or nothing at all.
    loadError: loadError === null || /^"?\s*"?$/.test(loadError) ? null : loadError,
    activeState: text(values.get('ActiveState')),
    subState: text(values.get('SubState')),
    result: text(values.get('Result')),
    mainPid: pid === 0 ? null : pid,
    restarts: count(values.get('NRestarts')),
    execMainStatus: count(values.get('ExecMainStatus')),
    unitFileState: text(values.get('UnitFileState')),
    fragmentPath: text(values.get('FragmentPath')),
  };
}
