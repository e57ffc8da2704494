/**
 * `breakerbar dashboard`: the address of the running instance's dashboard,
 * signed in. The API token goes in the URL fragment, which browsers never send
 * to a server; the page moves it to its session storage and out of the
 * address bar. Over SSH: `ssh -L 18820:127.0.0.1:18820 mac-mini`, then open
 * the printed URL locally.
 */
import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { API_TOKEN_FILE } from '../core/api-files/token.js';
import { loadConfig } from '../core/config/index.js';
import { ApiClientError, connect } from './api-client.js';
import { type Command, stringOption } from './command.js';

/** The platform's "open this URL" program. */
function opener(platform: NodeJS.Platform): [string, string[]] {
  if (platform === 'darwin') return ['open', []];
  if (platform === 'win32') return ['cmd', ['/c', 'start', '']];
  return ['xdg-open', []];
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

Options:
  --open           Open it in the default browser
  --config FILE    Config file naming the data directory
  -h, --help       Show this help
`,
  options: { open: { type: 'boolean' }, config: { type: 'string' } },
  positionals: false,
  async run(args, io) {
    const loaded = loadConfig(stringOption(args, 'config'));
    const client = connect(loaded);
    let token: string;
    try {
      token = readFileSync(join(loaded.dataDir, API_TOKEN_FILE), 'utf8').trim();
    } catch {
      throw new ApiClientError(
        `cannot read the API token in ${loaded.dataDir}: run this as the user who runs BreakerBar`,
      );
    }
    const url = `${client.url}/#token=${token}`;
    io.out(`${url}\n`);
    if (args.values.open) {
      const [program, prefix] = opener(process.platform);
      const child = spawn(program, [...prefix, url], { stdio: 'ignore', detached: true });
      child.on('error', (error) =>
        io.err(`breakerbar dashboard: cannot open a browser (${error.message}); open the URL above\n`),
      );
      child.unref();
    }
    return 0;
  },
};
