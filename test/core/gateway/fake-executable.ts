/**
 * A stand-in for launchctl, systemctl or openclaw: a small sh script written
 * into a test's bin directory, run for real (no shell in between, like the
 * restarter runs it). Each call is logged with its exact argv; the answer is
 * looked up by the arguments joined with spaces, and a list of answers is
 * played in order (the last one repeats), so a job can be "not loaded" on the
 * first read and "running" after the bootstrap. An argv with no answer exits
 * 64 and says so, so an unplanned command fails the test instead of passing
 * silently.
 */
import { chmodSync, existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

export interface FakeAnswer {
  stdout?: string;
  stderr?: string;
  exitCode?: number;
  /** Seconds to hang before answering: a wedged launchctl, for timeouts. */
  hangSec?: number;
}

export interface FakeProgram {
  path: string;
  /** Every call's argv (without the program), in order. */
  calls(): string[][];
  /** Calls as `name arg arg`, for readable expectations. */
  lines(): string[];
}

const SEP = '\x1f';

function shQuote(text: string): string {
  return `'${text.replace(/'/g, `'\\''`)}'`;
}

export function fakeExecutable(
  binDir: string,
  name: string,
  answers: Record<string, FakeAnswer | FakeAnswer[]>,
): FakeProgram {
  const dir = join(binDir, `.${name}-fake`);
  mkdirSync(dir, { recursive: true });
  const keys = Object.keys(answers);
  if (keys.some((key) => key.includes('\n'))) throw new Error('fake argv keys are one line each');
  writeFileSync(join(dir, 'keys'), keys.map((key) => `${key}\n`).join(''));
  keys.forEach((key, index) => {
    const id = index + 1;
    const list = ([] as FakeAnswer[]).concat(answers[key] ?? []);
    writeFileSync(join(dir, `max.${id}`), String(list.length));
    list.forEach((answer, n) => {
      const base = join(dir, `r.${id}.${n + 1}`);
      writeFileSync(`${base}.out`, answer.stdout ?? '');
      writeFileSync(`${base}.err`, answer.stderr ?? '');
      writeFileSync(`${base}.code`, String(answer.exitCode ?? 0));
      writeFileSync(`${base}.hang`, String(answer.hangSec ?? 0));
    });
  });
  const d = shQuote(dir);
  // The fake's own tools come from the system, whatever PATH the code under test gives it.
  const script = `#!/bin/sh
PATH=/usr/bin:/bin
for a in "$@"; do printf '%s\\037' "$a" >> ${d}/calls; done
printf '\\n' >> ${d}/calls
id=$(grep -n -x -F -e "$*" ${d}/keys | head -n 1 | cut -d: -f1)
if [ -z "$id" ]; then echo "fake ${name}: unexpected call: $*" >&2; exit 64; fi
n=$(( $(cat ${d}/count.$id 2>/dev/null || echo 0) + 1 ))
echo "$n" > ${d}/count.$id
max=$(cat ${d}/max.$id)
[ "$n" -gt "$max" ] && n=$max
sleep "$(cat ${d}/r.$id.$n.hang)"
cat ${d}/r.$id.$n.out
cat ${d}/r.$id.$n.err >&2
exit "$(cat ${d}/r.$id.$n.code)"
`;
  const path = join(binDir, name);
  writeFileSync(path, script);
  chmodSync(path, 0o755);
  const calls = (): string[][] => {
    const log = join(dir, 'calls');
    if (!existsSync(log)) return [];
    return readFileSync(log, 'utf8')
      .split('\n')
      .filter((line, i, all) => i < all.length - 1 || line !== '')
      .map((line) => (line === '' ? [] : line.split(SEP).slice(0, -1)));
  };
  return { path, calls, lines: () => calls().map((argv) => [name, ...argv].join(' ')) };
}
