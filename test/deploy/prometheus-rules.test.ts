/**
 * The Prometheus files shipped for fleets (`deploy/prometheus/`), checked the way Prometheus
 * reads them: Debian's `promtool` (package `prometheus`) checks the scrape config and the rule
 * file and runs the rules' unit tests (`deploy/prometheus/tests/*.yml`: input series → expected
 * alerts, firing and not firing). Beside promtool: every expression uses only metrics BreakerBar
 * exports (`METRIC_NAMES`), so a renamed metric breaks the build here; every alert carries a
 * severity, a summary, a description and a runbook link to a heading the docs really have.
 *
 * No YAML parser is a dependency, so the rule file is read by a small reader for the subset it
 * is written in (it throws on anything else); a round trip proves it reads what Prometheus reads:
 * the rules it parsed, written back as JSON (which is YAML), pass the same unit tests.
 */
import { execFileSync } from 'node:child_process';
import { cpSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { isIP } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { METRIC_NAMES } from '../../main/core/metrics/names.js';
import { toolOrSkip } from '../helpers/tools.js';

const PROMTOOL = toolOrSkip('promtool');

const projectDir = fileURLToPath(new URL('../..', import.meta.url));
const deployDir = join(projectDir, 'deploy', 'prometheus');
const RULES_FILE = 'breakerbar.rules.yml';
const CONFIG_FILE = 'prometheus.yml';
const rulesText = readFileSync(join(deployDir, RULES_FILE), 'utf8');
const configText = readFileSync(join(deployDir, CONFIG_FILE), 'utf8');
const unitTestFiles = readdirSync(join(deployDir, 'tests'))
  .filter((name) => name.endsWith('.yml'))
  .sort()
  .map((name) => `tests/${name}`);
const RUNBOOK_BASE = 'https://github.com/OWNER/breakerbar/blob/main/';

interface PromtoolResult {
  status: number;
  output: string;
}

/** Runs promtool; never throws on a failed check: the status and everything it printed come back. */
function promtool(args: string[], cwd = deployDir): PromtoolResult {
  try {
    const stdout = execFileSync('promtool', args, { cwd, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });
    return { status: 0, output: stdout };
  } catch (error) {
    const e = error as NodeJS.ErrnoException & { status?: number | null; stdout?: string; stderr?: string };
    if (e.code === 'ENOENT')
      throw new Error('promtool is not installed (Debian package prometheus; see test/helpers/tools.ts)');
    return { status: e.status ?? -1, output: `${e.stdout ?? ''}${e.stderr ?? ''}` };
  }
}

function expectSuccess(result: PromtoolResult, what: string): void {
  expect(result.status, `${what} failed; promtool said:\n${result.output}`).toBe(0);
}

// ---------------------------------------------------------------------------------------------
// The rule file, read by a reader for the YAML subset it is written in.

interface Rule {
  group: string;
  kind: 'alert' | 'record';
  name: string;
  expr: string;
  for?: string;
  labels: Record<string, string>;
  annotations: Record<string, string>;
}

const indentOf = (line: string): number => line.length - line.trimStart().length;
const isBlankOrComment = (line: string): boolean => line.trim() === '' || line.trim().startsWith('#');

/** A flow scalar: double-quoted (JSON escapes), single-quoted, or plain. Anything fancier throws. */
function scalar(raw: string, where: string): string {
  const text = raw.trim();
  if (text.startsWith('"')) return JSON.parse(text) as string;
  if (text.startsWith("'")) {
    if (!text.endsWith("'") || text.length < 2) throw new Error(`${where}: unterminated single-quoted scalar`);
    return text.slice(1, -1).replaceAll("''", "'");
  }
  if (/^[{[&*!|>%@`]/.test(text)) throw new Error(`${where}: YAML this reader does not handle: ${text}`);
  return text.replace(/\s+#.*$/, '');
}

/** The block scalar (`|`, `|-`, `>`, `>-`) in `lines` (its more-indented lines, blank ones included). */
function blockScalar(style: string, lines: string[], where: string): string {
  if (!/^[|>]-?$/.test(style)) throw new Error(`${where}: block scalar style ${style} not handled`);
  const content = lines.filter((line) => line.trim() !== '');
  const indent = Math.min(...content.map(indentOf));
  const body = lines.map((line) => line.slice(indent));
  while (body.length > 0 && body.at(-1)!.trim() === '') body.pop();
  const text = style.startsWith('|')
    ? body.join('\n')
    : body.reduce((acc, line, i) => {
        if (i === 0) return line;
        if (line === '') return `${acc}\n`;
        if (acc.endsWith('\n') || line.startsWith(' ') || body[i - 1]!.startsWith(' ')) return `${acc}\n${line}`;
        return `${acc} ${line}`;
      }, '');
  return style.endsWith('-') ? text : `${text}\n`;
}

/** A block mapping whose keys sit at `indent`, over `lines`: scalar values, block scalars or (depth 1) nested mappings. */
function mapping(
  lines: string[],
  indent: number,
  where: string,
  nested: boolean,
): Record<string, string | Record<string, string>> {
  const result: Record<string, string | Record<string, string>> = {};
  let i = 0;
  while (i < lines.length) {
    const line = lines[i]!;
    if (isBlankOrComment(line)) {
      i++;
      continue;
    }
    if (indentOf(line) !== indent) throw new Error(`${where}: unexpected indentation: ${line}`);
    const match = /^([A-Za-z_][\w]*):(?:\s+(.*))?$/.exec(line.trim());
    if (!match) throw new Error(`${where}: not a key: ${line}`);
    const [, key, rest = ''] = match;
    let end = i + 1;
    while (end < lines.length && (lines[end]!.trim() === '' || indentOf(lines[end]!) > indent)) end++;
    const inner = lines.slice(i + 1, end);
    if (key! in result) throw new Error(`${where}: duplicate key ${key}`);
    if (/^[|>]/.test(rest)) result[key!] = blockScalar(rest, inner, `${where}.${key}`);
    else if (rest === '') {
      if (!nested) throw new Error(`${where}.${key}: nested mapping too deep`);
      const first = inner.find((l) => !isBlankOrComment(l));
      result[key!] =
        first === undefined
          ? {}
          : (mapping(inner, indentOf(first), `${where}.${key}`, false) as Record<string, string>);
    } else {
      if (inner.some((l) => !isBlankOrComment(l))) throw new Error(`${where}.${key}: multi-line plain scalar`);
      result[key!] = scalar(rest, `${where}.${key}`);
    }
    i = end;
  }
  return result;
}

/** The groups' rules in file order. Only the shape this file uses is accepted. */
function parseRules(text: string): Rule[] {
  const lines = text.split('\n');
  const rules: Rule[] = [];
  let group: string | null = null;
  for (let i = 0; i < lines.length; i++) {
    const groupMatch = /^ {2}- name: (.+)$/.exec(lines[i]!);
    if (groupMatch) {
      group = scalar(groupMatch[1]!, `line ${i + 1}`);
      continue;
    }
    const ruleMatch = /^( *)- (alert|record): (.+)$/.exec(lines[i]!);
    if (!ruleMatch) continue;
    const dash = ruleMatch[1]!.length;
    const where = `line ${i + 1}`;
    if (group === null) throw new Error(`${where}: rule outside a group`);
    let end = i + 1;
    while (end < lines.length && (isBlankOrComment(lines[end]!) || indentOf(lines[end]!) > dash)) end++;
    const fields = mapping(lines.slice(i + 1, end), dash + 2, where, true);
    const { expr, for: forDuration, labels = {}, annotations = {}, ...rest } = fields;
    if (Object.keys(rest).length > 0) throw new Error(`${where}: keys this reader does not know: ${Object.keys(rest)}`);
    if (typeof expr !== 'string') throw new Error(`${where}: expr missing`);
    if (typeof labels !== 'object' || typeof annotations !== 'object' || typeof forDuration === 'object') {
      throw new Error(`${where}: labels and annotations must be mappings, for a duration`);
    }
    rules.push({
      group,
      kind: ruleMatch[2] as Rule['kind'],
      name: scalar(ruleMatch[3]!, where),
      expr,
      ...(forDuration === undefined ? {} : { for: forDuration }),
      labels,
      annotations,
    });
    i = end - 1;
  }
  return rules;
}

/** The rules as Prometheus's JSON-compatible rule file. */
function rulesAsJson(rules: Rule[]): string {
  const groups = new Map<string, object[]>();
  for (const rule of rules) {
    const body = {
      [rule.kind]: rule.name,
      expr: rule.expr,
      ...(rule.for === undefined ? {} : { for: rule.for }),
      ...(Object.keys(rule.labels).length > 0 ? { labels: rule.labels } : {}),
      ...(Object.keys(rule.annotations).length > 0 ? { annotations: rule.annotations } : {}),
    };
    groups.set(rule.group, [...(groups.get(rule.group) ?? []), body]);
  }
  return JSON.stringify({ groups: [...groups].map(([name, groupRules]) => ({ name, rules: groupRules })) }, null, 2);
}

const rules = parseRules(rulesText);
const alerts = rules.filter((rule) => rule.kind === 'alert');
const records = rules.filter((rule) => rule.kind === 'record');

// ---------------------------------------------------------------------------------------------
// Metric names in PromQL.

/** Words that may stand where a metric name could, without being one. */
const PROMQL_WORDS = new Set(['and', 'or', 'unless', 'bool', 'offset', 'atan2', 'inf', 'nan']);

/**
 * The metric names an expression selects: identifiers that are not functions or aggregations
 * (followed by `(`), keywords, label names (inside `{…}` or a `by`/`without`/`on`/`ignoring`/
 * `group_left`/`group_right` list), strings, numbers or durations.
 */
function metricNamesIn(expr: string): string[] {
  const text = expr
    .replace(/#.*$/gm, ' ')
    .replace(/"(?:[^"\\]|\\.)*"|'(?:[^'\\]|\\.)*'|`[^`]*`/g, ' "" ')
    .replace(/\{[^}]*\}/g, ' ')
    .replace(/\[[^\]]*\]/g, ' ')
    .replace(/\b(?:by|without|on|ignoring|group_left|group_right)\s*\([^)]*\)/g, ' ');
  const names = new Set<string>();
  for (const match of text.matchAll(/(?<![\w:.])([A-Za-z_:][\w:]*)(\s*\()?/g)) {
    const [, name, call] = match;
    if (call !== undefined || PROMQL_WORDS.has(name!.toLowerCase())) continue;
    names.add(name!);
  }
  return [...names].sort();
}

const HISTOGRAMS = [METRIC_NAMES.breakerProbeLatency, METRIC_NAMES.gatewayProbeSeconds];
const EXPORTED = new Set<string>([
  ...Object.values(METRIC_NAMES),
  ...HISTOGRAMS.flatMap((name) => ['_bucket', '_sum', '_count'].map((suffix) => `${name}${suffix}`)),
]);

// ---------------------------------------------------------------------------------------------
// The headings of a document of this repository, as GitHub turns them into anchors.

function headingAnchors(file: string): Set<string> {
  const anchors = new Set<string>();
  const seen = new Map<string, number>();
  let fenced = false;
  for (const line of readFileSync(join(projectDir, file), 'utf8').split('\n')) {
    if (/^\s*(```|~~~)/.test(line)) fenced = !fenced;
    const heading = fenced ? null : /^#{1,6}\s+(.+?)\s*#*\s*$/.exec(line);
    if (!heading) continue;
    const slug = heading[1]!
      .toLowerCase()
      .replace(/[^\p{L}\p{M}\p{N}\p{Pc} -]/gu, '')
      .replace(/ /g, '-');
    const count = seen.get(slug) ?? 0;
    seen.set(slug, count + 1);
    anchors.add(count === 0 ? slug : `${slug}-${count}`);
  }
  return anchors;
}

// ---------------------------------------------------------------------------------------------

describe('deploy/prometheus/breakerbar.rules.yml', () => {
  it.skipIf(PROMTOOL.skip)(PROMTOOL.title('passes promtool check rules, with every rule read by this test'), () => {
    const result = promtool(['check', 'rules', RULES_FILE]);
    expectSuccess(result, 'promtool check rules');
    expect(result.output, result.output).toContain(`SUCCESS: ${rules.length} rules found`);
    expect(alerts.length).toBeGreaterThanOrEqual(8);
    expect(records.length).toBeGreaterThanOrEqual(1);
  });

  it.skipIf(PROMTOOL.skip).each(unitTestFiles)(PROMTOOL.title('passes the promtool unit tests in %s'), (file) => {
    expectSuccess(promtool(['test', 'rules', file]), `promtool test rules ${file}`);
  });

  it.skipIf(PROMTOOL.skip)(
    PROMTOOL.title(
      'is read by this test as Prometheus reads it: the rules written back as JSON pass the same unit tests',
    ),
    () => {
      const dir = mkdtempSync(join(tmpdir(), 'bb-prometheus-rules-'));
      try {
        cpSync(join(deployDir, 'tests'), join(dir, 'tests'), { recursive: true });
        writeFileSync(join(dir, RULES_FILE), rulesAsJson(rules));
        expectSuccess(promtool(['check', 'rules', RULES_FILE], dir), 'promtool check rules (round trip)');
        expectSuccess(promtool(['test', 'rules', ...unitTestFiles], dir), 'promtool test rules (round trip)');
      } finally {
        rmSync(dir, { recursive: true, force: true });
      }
    },
  );

  it('has unit tests that see every alert fire and not fire, and every recording rule evaluated', () => {
    const cases = unitTestFiles.flatMap((file) =>
      readFileSync(join(deployDir, file), 'utf8')
        .split(/^\s*- eval_time:/m)
        .slice(1)
        .map((item) => ({
          alertname: /^\s*alertname:\s*(\S+)\s*$/m.exec(item)?.[1],
          quiet: /^\s*exp_alerts:\s*\[\]\s*$/m.test(item),
          exprs: [...item.matchAll(/^\s*- expr:\s*(.+?)\s*$/gm)].map((m) => m[1]),
        })),
    );
    for (const alert of alerts) {
      const own = cases.filter((c) => c.alertname === alert.name);
      expect(
        own.some((c) => !c.quiet),
        `${alert.name}: no unit test expects it to fire`,
      ).toBe(true);
      expect(
        own.some((c) => c.quiet),
        `${alert.name}: no unit test expects it to stay quiet`,
      ).toBe(true);
    }
    for (const record of records) {
      expect(
        cases.some((c) => c.exprs.some((expr) => expr !== undefined && metricNamesIn(expr).includes(record.name))),
        `${record.name}: no promql_expr_test evaluates it`,
      ).toBe(true);
    }
  });

  it('finds metric names in PromQL, and only metric names', () => {
    expect(
      metricNamesIn('sum by (host, dep) (rate(breakerbar_calls_total{outcome="rate_limited", dep=~"a.+"}[5m]))'),
    ).toEqual(['breakerbar_calls_total']);
    expect(
      metricNamesIn(
        'increase(a_total[1h]) + (min_over_time(a_total[1h]) unless b offset 1h) or on (host) group_left (dep) c > bool 1e3',
      ),
    ).toEqual(['a_total', 'b', 'c']);
    expect(metricNamesIn('absent(up{job="breakerbar"}) and x:y:rate5m > Inf # a comment naming z')).toEqual([
      'up',
      'x:y:rate5m',
    ]);
    expect(metricNamesIn('label_replace(m, "dst", "$1", "src", "(.*)") * 2')).toEqual(['m']);
    expect(metricNamesIn('max_over_time(breaker_state[2m]) >= 2')).toEqual(['breaker_state']);
  });

  it('uses only metrics BreakerBar exports, its own recording rules, and up of its own job', () => {
    const recorded = new Set(records.map((record) => record.name));
    for (const rule of rules) {
      const names = metricNamesIn(rule.expr);
      expect(names.length, `${rule.name}: no metric found in ${rule.expr}`).toBeGreaterThan(0);
      for (const name of names) {
        if (name === 'up') {
          const selectors = [...rule.expr.matchAll(/(?<![\w:])up\b\s*(\{[^}]*\})?/g)].map((m) => m[1] ?? '');
          for (const selector of selectors) {
            expect(selector, `${rule.name}: up must select job="breakerbar"`).toMatch(/\bjob\s*=\s*"breakerbar"/);
          }
          continue;
        }
        expect(
          EXPORTED.has(name) || recorded.has(name),
          `${rule.name} uses ${name}, which is not in METRIC_NAMES (main/core/metrics/names.ts)`,
        ).toBe(true);
      }
    }
  });

  it('gives every alert a for, a severity, a summary, a description and a runbook link into the docs', () => {
    const names = new Set<string>();
    for (const alert of alerts) {
      expect(names.has(alert.name), `${alert.name} is defined twice`).toBe(false);
      names.add(alert.name);
      expect(alert.name).toMatch(/^BreakerBar[A-Z]\w+$/);
      expect(alert.for, `${alert.name}: for`).toMatch(/^\d+[smh]$/);
      expect(['critical', 'warning', 'info'], `${alert.name}: severity`).toContain(alert.labels.severity);
      expect(Object.keys(alert.annotations).sort(), alert.name).toEqual(['description', 'runbook_url', 'summary']);
      const { summary = '', description = '', runbook_url: runbook = '' } = alert.annotations;
      expect(summary.length, `${alert.name}: summary`).toBeGreaterThan(10);
      expect(summary, `${alert.name}: a summary is one line`).not.toContain('\n');
      expect(description.length, `${alert.name}: description`).toBeGreaterThan(summary.length);
      // Per-host alerts name the host; absent() has no host to name.
      if (!alert.expr.startsWith('absent(')) {
        expect(summary, `${alert.name}: summary names the host`).toContain('{{ $labels.host }}');
        expect(description, `${alert.name}: description names the host`).toContain('{{ $labels.host }}');
      }
      if (metricNamesIn(alert.expr).includes(METRIC_NAMES.breakerState)) {
        expect(description, `${alert.name}: description names the dependency`).toContain('{{ $labels.dep }}');
      }
      expect(runbook.startsWith(RUNBOOK_BASE), `${alert.name}: runbook_url ${runbook}`).toBe(true);
      const [file = '', anchor = ''] = runbook.slice(RUNBOOK_BASE.length).split('#');
      expect(headingAnchors(file).has(anchor), `${alert.name}: ${file} has no heading with anchor #${anchor}`).toBe(
        true,
      );
    }
  });
});

describe('deploy/prometheus/prometheus.yml', () => {
  it.skipIf(PROMTOOL.skip)(PROMTOOL.title('passes promtool check config, with the rule file it names'), () => {
    const result = promtool(['check', 'config', CONFIG_FILE]);
    expectSuccess(result, 'promtool check config');
    expect(result.output, result.output).toContain('SUCCESS: 1 rule files found');
    expect(result.output, result.output).toContain(`Checking ${RULES_FILE}`);
  });

  it('scrapes the breakerbar job every 15 s, each target by IP literal with a host label', () => {
    expect(configText).toMatch(/^\s*scrape_interval:\s*15s\b/m);
    expect(configText).toMatch(/^rule_files:\n(?:\s*#.*\n)*\s*- breakerbar\.rules\.yml\s*$/m);
    expect(configText, 'the Alertmanager section is there, commented out').toMatch(
      /^# alerting:\n# {3}alertmanagers:/m,
    );
    const job = /^ {2}- job_name: breakerbar\b[\s\S]*?(?=^ {2}- job_name:|(?![\s\S]))/m.exec(configText)?.[0];
    expect(job, 'a scrape job named breakerbar (the rules select job="breakerbar")').toBeDefined();
    const targets = [...job!.matchAll(/- targets: \[([^\]]*)\]\n\s+labels:\n\s+host: (\S+)/g)];
    const targetLines = job!.match(/- targets:/g) ?? [];
    expect(targets.length, 'every target group has a host label').toBe(targetLines.length);
    expect(targets.length).toBeGreaterThanOrEqual(2);
    const hosts = targets.map((t) => t[2]);
    expect(new Set(hosts).size, 'host labels are distinct').toBe(hosts.length);
    for (const [, list] of targets) {
      for (const target of list!.split(',').map((t) => t.trim().replace(/^'|'$/g, ''))) {
        // BreakerBar answers only a Host header naming the address it listens on: scrape by IP.
        const host = target.replace(/:\d+$/, '').replace(/^\[|\]$/g, '');
        expect(isIP(host), `${target} is not an IP literal`).not.toBe(0);
        expect(target).toMatch(/:18820$/);
      }
    }
  });
});
