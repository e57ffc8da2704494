#!/usr/bin/env node
/**
 * Lists every fixed wait of 50 ms or more in the tests: `sleep(250)`,
 * `delay(…)`, `wait(…)`, `await setTimeout(…)` (node:timers/promises),
 * `new Promise((resolve) => setTimeout(resolve, 150))`, playwright's
 * `waitForTimeout(…)` — with a literal duration or a `const` of the same file
 * that resolves to one (`sleep(GAP_MS)`, `sleep(2 * TICK)`).
 *
 * A fixed wait makes a test slow when the machine is fast and flaky when it is
 * slow; await the event, poll the condition with a deadline (`until` in
 * test/helpers/transcripts.ts) or inject a clock instead. One that must stay
 * carries `// fixed wait: <why>` on its line or the line above, and is then
 * only counted. Timers that bound a wait (`setTimeout(() => reject(…), 5000)`,
 * a SIGKILL after a grace period) are deadlines, not waits, and are not listed.
 *
 * Usage: node scripts/fixed-sleeps.mjs [dir…]   (default: test). Prints
 * file:line for each unexplained wait and exits 1 if there is any.
 */
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';

const THRESHOLD_MS = 50;
const EXPLAINED = /\/\/\s*fixed wait:\s*\S/;
const SOURCE = /\.(?:[cm]?[jt]s|tsx)$/;

/** Each pattern captures the duration expression of one kind of fixed wait. */
const WAITS = [
  // sleep(250), delay(MS), wait(100), pause(…); not a method (`Atomics.wait`, `page.wait(`).
  /(?<![.\w])(?:sleep|delay|wait|pause)\(\s*([^()]*(?:\([^()]*\)[^()]*)*)\)/g,
  // await setTimeout(250) from node:timers/promises.
  /\bawait\s+setTimeout\(\s*([^,()]+)[,)]/g,
  // setTimeout(resolve, 150): a promise resolved after a fixed time.
  /(?<![.\w])setTimeout\(\s*(?:resolve|res|r|done|next)\s*,\s*([^()]+?)\s*\)/g,
  // setTimeout(() => resolve(…), 200)
  /(?<![.\w])setTimeout\(\s*\(\)\s*=>\s*(?:resolve|res|r|done|next)\([^()]*\)\s*,\s*([^()]+?)\s*\)/g,
  // page.waitForTimeout(500)
  /\.waitForTimeout\(\s*([^()]+?)\s*\)/g,
];

/** `const NAME = <expression>` in the file, for durations given by name. */
function constantsOf(text) {
  const constants = new Map();
  for (const match of text.matchAll(/\bconst\s+([A-Za-z_$][\w$]*)\s*(?::\s*number\s*)?=\s*([^;\n]+)/g)) {
    constants.set(match[1], match[2].trim());
  }
  return constants;
}

/**
 * The value of a duration expression made of numbers, named constants, + - * / and
 * parentheses; undefined when it depends on anything else (a parameter, Math.random()).
 */
export function evaluate(expression, constants, depth = 0) {
  if (depth > 8) return undefined;
  const replaced = expression.replace(/(\d)_(?=\d)/g, '$1').replace(/[A-Za-z_$][\w$.]*/g, (name) => {
    if (!constants.has(name)) return '\u0000';
    const value = evaluate(constants.get(name), constants, depth + 1);
    return value === undefined ? '\u0000' : `(${value})`;
  });
  if (!/^[\d\s.+\-*/()]+$/.test(replaced)) return undefined;
  try {
    const value = Function(`"use strict"; return (${replaced});`)();
    return typeof value === 'number' && Number.isFinite(value) ? value : undefined;
  } catch {
    return undefined;
  }
}

/** Every fixed wait ≥ 50 ms in `text`: line (1-based), its code, the duration, and whether it is explained. */
export function fixedWaits(text) {
  const constants = constantsOf(text);
  const lines = text.split('\n');
  const found = [];
  lines.forEach((line, index) => {
    const code = line.replace(/(^|\s)\/\/.*$/, '$1');
    for (const pattern of WAITS) {
      for (const match of code.matchAll(pattern)) {
        const ms = evaluate(match[1].trim(), constants);
        if (ms === undefined || ms < THRESHOLD_MS) continue;
        const explained = EXPLAINED.test(line) || (index > 0 && EXPLAINED.test(lines[index - 1]));
        found.push({ line: index + 1, code: line.trim(), ms, explained });
      }
    }
  });
  return found;
}

function* sourceFiles(dir) {
  for (const name of readdirSync(dir).sort()) {
    if (name === 'node_modules' || name.startsWith('.')) continue;
    const path = join(dir, name);
    if (statSync(path).isDirectory()) yield* sourceFiles(path);
    else if (SOURCE.test(name)) yield path;
  }
}

function main() {
  const dirs = process.argv.slice(2);
  let unexplained = 0;
  let explained = 0;
  for (const dir of dirs.length > 0 ? dirs : ['test']) {
    for (const file of sourceFiles(dir)) {
      for (const wait of fixedWaits(readFileSync(file, 'utf8'))) {
        if (wait.explained) {
          explained += 1;
          continue;
        }
        unexplained += 1;
        console.log(`${relative(process.cwd(), file)}:${wait.line}: fixed wait of ${wait.ms} ms: ${wait.code}`);
      }
    }
  }
  if (unexplained > 0) {
    console.log(
      `\n${unexplained} fixed wait(s) of ${THRESHOLD_MS} ms or more: await the event, poll the condition with a deadline, ` +
        'or inject a clock — or say why it must stay with `// fixed wait: <why>` on the line or the line above.',
    );
    process.exit(1);
  }
  console.log(`fixed-sleeps: none unexplained (${explained} explained with "// fixed wait:")`);
}

if (import.meta.url === `file://${process.argv[1]}`) main();
