/**
 * Reading what the process tools print about the gateway's listener and its
 * environment. Pure text parsing; the commands are run by gather.ts.
 */

/** `lsof -nP -iTCP:<port> -sTCP:LISTEN -Fpc` (macOS): `p<pid>` and `c<command>` lines, then `f<fd>` per socket. */
export function parseLsofListen(text: string): { pid: number; command: string | null } | null {
  let pid: number | null = null;
  let command: string | null = null;
  for (const line of text.split('\n')) {
    if (line.startsWith('p')) {
      // The first process is the listener; a second one (a forked child sharing the socket) adds nothing.
      if (pid !== null) break;
      const value = Number(line.slice(1));
      if (Number.isInteger(value) && value > 0) pid = value;
    } else if (line.startsWith('c') && pid !== null && command === null) {
      command = line.slice(1).trim() || null;
    }
  }
  return pid === null ? null : { pid, command };
}

/**
 * `ss -ltnpH` (Linux): one listening TCP socket a line, `State Recv-Q Send-Q Local:Port Peer:Port Process`;
 * the process column (`users:(("node",pid=4242,fd=22))`) only for sockets of processes this user may see.
 */
export function parseSsListen(text: string, port: number): { pid: number; command: string | null } | null {
  for (const line of text.split('\n')) {
    const columns = line.trim().split(/\s+/);
    const local = columns[3] ?? '';
    if (!local.endsWith(`:${port}`)) continue;
    const user = /users:\(\("((?:[^"\\]|\\.)*)",pid=(\d+)/.exec(line);
    if (user) return { pid: Number(user[2]), command: user[1] ?? null };
  }
  return null;
}

/** Whether `ss -ltnpH` lists something on the port at all (its process may be another user's, hence hidden). */
export function ssListensOn(text: string, port: number): boolean {
  return text.split('\n').some((line) => (line.trim().split(/\s+/)[3] ?? '').endsWith(`:${port}`));
}

/** `ps -ww -o ppid=,args= -p <pid>`: the parent's pid and the full command line. */
export function parsePsParentArgs(text: string): { ppid: number; args: string } | null {
  const match = /^\s*(\d+)\s+(.*\S)\s*$/m.exec(text);
  return match ? { ppid: Number(match[1]), args: match[2] ?? '' } : null;
}

/** `ps -o comm= -p <pid>`: macOS prints the executable's path, Linux its name; the name is what a human knows. */
export function parsePsComm(text: string): string | null {
  const line = text.trim().split('\n')[0]?.trim() ?? '';
  if (line === '') return null;
  return line.slice(line.lastIndexOf('/') + 1) || null;
}

/** /proc/<pid>/cmdline: NUL-separated arguments. */
export function parseProcCmdline(text: string): string | null {
  const args = text.split('\0').filter((a) => a !== '');
  return args.length === 0 ? null : args.join(' ');
}

/** /proc/<pid>/stat: `pid (comm) state ppid …`; comm may hold spaces and parentheses, so read after the last `)`. */
export function parseProcStatParent(text: string): number | null {
  const rest = text
    .slice(text.lastIndexOf(')') + 1)
    .trim()
    .split(/\s+/);
  const ppid = Number(rest[1]);
  return Number.isInteger(ppid) && ppid > 0 ? ppid : null;
}

/** /proc/<pid>/environ: NUL-separated `KEY=value`. */
export function parseEnviron(text: string): Record<string, string> {
  const out: Record<string, string> = {};
  for (const entry of text.split('\0')) {
    const eq = entry.indexOf('=');
    if (eq > 0) out[entry.slice(0, eq)] = entry.slice(eq + 1);
  }
  return out;
}

/**
 * `plutil -extract EnvironmentVariables json -o - <plist>` (macOS): the plist's EnvironmentVariables as a JSON
 * object; only string values are an environment.
 */
export function parsePlutilEnvironment(text: string): Record<string, string> | null {
  try {
    const value: unknown = JSON.parse(text);
    if (value === null || typeof value !== 'object' || Array.isArray(value)) return null;
    const out: Record<string, string> = {};
    for (const [key, item] of Object.entries(value)) if (typeof item === 'string') out[key] = item;
    return out;
  } catch {
    return null;
  }
}

/**
 * `systemctl --user show <unit> --property=Environment`: `Environment=A=1 "B=two words"`, entries separated by
 * spaces, an entry with spaces or quotes in double quotes with backslash escapes. Empty for none.
 */
export function parseSystemdEnvironment(text: string): Record<string, string> {
  const line = text.split('\n').find((l) => l.startsWith('Environment='));
  const out: Record<string, string> = {};
  if (!line) return out;
  const value = line.slice('Environment='.length);
  const entries: string[] = [];
  let current = '';
  let quoted = false;
  let started = false;
  for (let i = 0; i < value.length; i++) {
    const ch = value[i] ?? '';
    if (ch === '\\' && quoted && i + 1 < value.length) {
      current += value[++i];
    } else if (ch === '"') {
      quoted = !quoted;
      started = true;
    } else if (/\s/.test(ch) && !quoted) {
      if (started) entries.push(current);
      current = '';
      started = false;
    } else {
      current += ch;
      started = true;
    }
  }
  if (started) entries.push(current);
  for (const entry of entries) {
    const eq = entry.indexOf('=');
    if (eq > 0) out[entry.slice(0, eq)] = entry.slice(eq + 1);
  }
  return out;
}
