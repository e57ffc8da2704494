/**
 * `breakerbar dashboard`: the address of the running instance's dashboard,
 * signed in.
 *
 * `--open` never puts the API token, nor anything that leads to it, on a
 * command line: the arguments of the opener (`open`, `xdg-open`) are visible
 * to every local user in `ps`, and a one-time code seen there can be redeemed
 * by whoever is quickest. It asks the daemon (with the token) for a one-time
 * sign-in code, valid for a minute and a single use, writes it into a page in
 * the data directory that only the owner can read (0600), and opens that
 * page's path; the page forwards the browser to `/#code=…`, which the
 * dashboard trades at `POST /api/session` for a session token — never the
 * API token: a session's dangerous config changes always need the human's
 * confirmation. Printing (without `--open`) shows the token in
 * the URL fragment, which browsers never send to a server: the user asked to
 * see it, possibly to paste it minutes later through an SSH tunnel
 * (`ssh -L 18820:127.0.0.1:18820 mac-mini`), which a one-minute code would not
 * survive.
 */
import { spawn } from 'node:child_process';
import { readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { API_TOKEN_FILE } from '../core/api-files/token.js';
import { loadConfig } from '../core/config/index.js';
import { type ApiClient, ApiClientError, connect } from './api-client.js';
import { type Command, type Io, stringOption } from './command.js';

/** The platform's "open this URL" program. */
function opener(platform: NodeJS.Platform): [string, string[]] {
  if (platform === 'darwin') return ['open', []];
  if (platform === 'win32') return ['cmd', ['/c', 'start', '']];
  return ['xdg-open', []];
}

/** The dashboard's URL with a fresh one-time code in its fragment (the token stays in this process). */
export async function signInUrl(client: ApiClient): Promise<string> {
  const { code } = await client.call('signInCode');
  if (typeof code !== 'string' || !/^[A-Za-z0-9_-]+$/.test(code)) {
    throw new ApiClientError('BreakerBar answered without a sign-in code; is it an older version? Restart it.');
  }
  return `${client.url}/#code=${code}`;
}

/** The page `--open` hands the browser, in the data directory. */
export const SIGN_IN_PAGE = 'dashboard-sign-in.html';

const escapeHtml = (text: string) => text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);

/**
 * Writes the page that forwards a browser to `url` (which holds the one-time code): created afresh, readable by
 * the owner only, so its path is all another user sees. Returns its path.
 */
export function writeSignInPage(dataDir: string, url: string): string {
  const path = join(dataDir, SIGN_IN_PAGE);
  const href = escapeHtml(url);
  // Removed first and created exclusively: the mode applies, and nothing that stood there is written through.
  rmSync(path, { force: true });
  writeFileSync(
    path,
    `<!doctype html>\n<meta charset="utf-8">\n<meta name="referrer" content="no-referrer">\n<meta http-equiv="refresh" content="0;url=${href}">\n<title>BreakerBar</title>\n<p><a href="${href}">Open the BreakerBar dashboard</a></p>\n`,
    { mode: 0o600, flag: 'wx' },
  );
  return path;
}

function openInBrowser(url: string, io: Io): void {
  const [program, prefix] = opener(process.platform);
  const child = spawn(program, [...prefix, url], { stdio: 'ignore', detached: true });
  child.on('error', (error) =>
    io.err(`breakerbar dashboard: cannot open a browser (${error.message}); run without --open to print the URL\n`),
  );
  child.unref();
}

export const dashboardCommand: Command = {
  name: 'dashboard',
  summary: "Print (or open) the running instance's dashboard URL, signed in",
  help: `Usage: breakerbar dashboard [--open] [--config FILE]

Prints the dashboard's URL with the local API token in its fragment
(#token=…), so the page can restart, pause and edit settings. The fragment is
never sent over the network; treat the URL like the token itself.
Through an SSH tunnel to a headless host: ssh -L 18820:127.0.0.1:18820 HOST,
then open the URL on your machine.

With --open, the default browser opens the dashboard signed in with a
one-time code (valid 60 s, single use) instead, passed through a page in the
data directory that only you can read: neither the token nor the code appears
on a command line, where other local users could see it. The browser gets a
session of its own, not the token; its changes to settings that run commands,
silence alerts or move data need confirming with a code BreakerBar shows on
the desktop and in its log.

Options:
  --open           Open it in the default browser (with a one-time code)
  --config FILE    Config file naming the data directory
  -h, --help       Show this help
`,
  options: { open: { type: 'boolean' }, config: { type: 'string' } },
  positionals: false,
  async run(args, io) {
    const loaded = loadConfig(stringOption(args, 'config'));
    const client = connect(loaded);
    if (args.values.open) {
      const page = writeSignInPage(loaded.dataDir, await signInUrl(client));
      openInBrowser(pathToFileURL(page).href, io);
      io.out(`${client.url}/  (opened in the browser, signed in with a one-time code)\n`);
      return 0;
    }
    let token: string;
    try {
      token = readFileSync(join(loaded.dataDir, API_TOKEN_FILE), 'utf8').trim();
    } catch {
      throw new ApiClientError(
        `cannot read the API token in ${loaded.dataDir}: run this as the user who runs BreakerBar`,
      );
    }
    io.out(`${client.url}/#token=${token}\n`);
    return 0;
  },
};
