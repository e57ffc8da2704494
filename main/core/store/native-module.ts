/**
 * better-sqlite3 is a compiled addon built on install, for one Node. An npm install can leave it unusable in
 * two ways, and both surface as a baffling "cannot open database" at the first SQLite file BreakerBar opens:
 * - missing: npm did not run its install script. npm 12 blocks install scripts a user has not approved
 *   (`allowScripts`), so `npm install -g breakerbar` without `--allow-scripts=better-sqlite3` installs
 *   everything but the addon; `--ignore-scripts` does the same on any npm.
 * - built for another Node: the install script runs `node` from PATH, so npm run by one Node with another
 *   first on PATH builds the addon for the wrong one (NODE_MODULE_VERSION differs).
 * In a checkout, an interrupted `npm run dist` leaves Electron's build behind the same way.
 * This recognises both in an error (or anything it wraps) and says what to run. Pure but for the defaults
 * of `describeNativeModuleProblem`, which name this process's Node.
 */
import { existsSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { errorChain } from '../runtime/error-chain.js';
import { packageRoot } from '../runtime/version.js';

export type NativeModuleProblem = { kind: 'missing' } | { kind: 'other-node'; builtFor: number; needed: number };

/** The problem the error (or an error in its `cause` chain) reports, or null when it is not one of the two. */
export function nativeModuleProblem(error: unknown): NativeModuleProblem | null {
  for (const e of errorChain(error)) {
    const message = typeof e.message === 'string' ? e.message : '';
    if (!message.includes('better_sqlite3.node')) continue;
    // The `bindings` package's words when no candidate path holds the addon.
    if (message.includes('Could not locate the bindings file')) return { kind: 'missing' };
    // Node's words for an addon of another ABI (ERR_DLOPEN_FAILED).
    const versions = [...message.matchAll(/NODE_MODULE_VERSION (\d+)/g)].map((m) => Number(m[1]));
    if (versions.length === 2)
      return { kind: 'other-node', builtFor: versions[0] as number, needed: versions[1] as number };
  }
  return null;
}

export interface NodeFacts {
  /** `process.version`, e.g. v24.22.3. */
  version: string;
  /** `process.execPath`: the Node whose directory must come first on PATH when reinstalling. */
  execPath: string;
  /** The checkout BreakerBar runs from (it has scripts/setup.sh), or null for an installed package. */
  checkout: string | null;
}

function thisNode(): NodeFacts {
  const root = packageRoot();
  const checkout = root !== null && existsSync(join(root, 'scripts', 'setup.sh')) ? root : null;
  return { version: process.version, execPath: process.execPath, checkout };
}

/**
 * The reinstall that fixes both: npm's flag for the blocked script, run with this Node first on PATH. The
 * package is named, not guessed: a user may have installed it by name or from a packed tarball.
 */
export const REINSTALL_COMMAND =
  'npm install -g <breakerbar, or the .tgz you installed> --allow-scripts=better-sqlite3';

/** One paragraph: what is wrong with the addon and the command that fixes it. */
export function describeNativeModuleProblem(problem: NativeModuleProblem, node: NodeFacts = thisNode()): string {
  const what =
    problem.kind === 'missing'
      ? 'better-sqlite3 was installed without its compiled module: npm did not run its install script ' +
        '(npm 12 and later skip install scripts that were not allowed)'
      : `better-sqlite3 was compiled for another Node (NODE_MODULE_VERSION ${problem.builtFor}) ` +
        `than this one, ${node.version} (NODE_MODULE_VERSION ${problem.needed})`;
  const fix =
    node.checkout === null
      ? `install the same package again with its script allowed and this Node first on PATH: PATH="${dirname(node.execPath)}:$PATH" ${REINSTALL_COMMAND}`
      : `run \`npm run setup\` in ${node.checkout}`;
  return `cannot load SQLite: ${what}. To fix it, ${fix}`;
}
