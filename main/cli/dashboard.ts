/**
 * `breakerbar dashboard`: the address of the running instance's dashboard,
 * signed in.
 *
 * `--open` never puts the API token on a command line: the arguments of the
 * opener (`open`, `xdg-open`) are visible to every local user in `ps`. It asks
 * the daemon (with the token) for a one-time sign-in code, valid for a minute
 * and a single use, and opens `/#code=…`; the page trades the code for the
 * token at `POST /api/session`. Printing (without `--open`) shows the token in
 * the URL fragment, which browsers never send to a server: the user asked to
 * see it, possibly to paste it minutes later through an SSH tunnel
 * (`ssh -L 18820:127.0.0.1:18820 mac-mini`), which a one-minute code would not
 * survive.
 */
import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
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
one-time code (valid 60 s, single use) instead: the token never appears on a
command line, where other local users could see it.

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
      openInBrowser(await signInUrl(client), io);
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
