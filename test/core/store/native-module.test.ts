/**
 * Rule: an unusable better-sqlite3 addon (never built, or built for another Node) is recognised through
 * whatever wrapped it, and explained with the command that fixes it for this kind of installation. The
 * messages below are the real ones: `bindings`' after an npm install that skipped the install script, and
 * Node's for an addon of another ABI. test/install/npm-global.test.ts provokes both on a real install.
 */
import { describe, expect, it } from 'vitest';
import {
  describeNativeModuleProblem,
  nativeModuleProblem,
  REINSTALL_COMMAND,
} from '../../../main/core/store/native-module.js';

const ADDON = '/p/lib/node_modules/breakerbar/node_modules/better-sqlite3';
const MISSING = `Could not locate the bindings file. Tried:
 → ${ADDON}/build/better_sqlite3.node
 → ${ADDON}/build/Release/better_sqlite3.node
 → ${ADDON}/lib/binding/node-v137-linux-x64/better_sqlite3.node`;
const OTHER_NODE = `The module '${ADDON}/build/Release/better_sqlite3.node'
was compiled against a different Node.js version using
NODE_MODULE_VERSION 127. This version of Node.js requires
NODE_MODULE_VERSION 137. Please try re-compiling or re-installing
the module (for instance, using \`npm rebuild\` or \`npm install\`).`;

const wrapped = (message: string) =>
  new Error('cannot create the lock /d/breakerbar.lock: …', {
    cause: Object.assign(new Error(message), { code: 'X' }),
  });

describe('nativeModuleProblem', () => {
  it('finds a missing addon and one built for another Node, however deep in the cause chain', () => {
    expect(nativeModuleProblem(new Error(MISSING))).toEqual({ kind: 'missing' });
    expect(nativeModuleProblem(wrapped(MISSING))).toEqual({ kind: 'missing' });
    expect(nativeModuleProblem(wrapped(OTHER_NODE))).toEqual({ kind: 'other-node', builtFor: 127, needed: 137 });
  });

  it('leaves every other error alone, including other addons and a cause cycle', () => {
    expect(nativeModuleProblem(new Error('SQLITE_CANTOPEN: unable to open database file'))).toBeNull();
    expect(nativeModuleProblem(new Error(MISSING.replaceAll('better_sqlite3.node', 'other.node')))).toBeNull();
    expect(nativeModuleProblem('a string')).toBeNull();
    const a = new Error('a');
    const b = new Error('b', { cause: a });
    (a as { cause?: unknown }).cause = b;
    expect(nativeModuleProblem(a)).toBeNull();
  });
});

describe('describeNativeModuleProblem', () => {
  const installed = { version: 'v24.22.3', execPath: '/opt/node24/bin/node', checkout: null };
  const checkout = { ...installed, checkout: '/home/me/breakerbar' };

  it('an installed package: reinstall with the script allowed and this Node first on PATH', () => {
    const missing = describeNativeModuleProblem({ kind: 'missing' }, installed);
    expect(missing).toContain('npm did not run its install script');
    expect(missing).toContain(`PATH="/opt/node24/bin:$PATH" ${REINSTALL_COMMAND}`);
    const other = describeNativeModuleProblem({ kind: 'other-node', builtFor: 127, needed: 137 }, installed);
    expect(other).toContain('NODE_MODULE_VERSION 127');
    expect(other).toContain('v24.22.3 (NODE_MODULE_VERSION 137)');
    expect(other).toContain(`PATH="/opt/node24/bin:$PATH" ${REINSTALL_COMMAND}`);
  });

  it('a checkout: `npm run setup` there, never a global install', () => {
    const text = describeNativeModuleProblem({ kind: 'other-node', builtFor: 150, needed: 137 }, checkout);
    expect(text).toContain('run `npm run setup` in /home/me/breakerbar');
    expect(text).not.toContain('npm install -g');
  });
});
