/**
 * The fleet dashboard (`deploy/grafana/breakerbar-fleet.json`) against the code
 * that feeds it: every PromQL expression may name only metrics `METRIC_NAMES`
 * exports (or Prometheus's own `up`), each with labels its declaration in
 * metrics/series.ts declares (plus the scrape's `job`, `instance` and `host`), and must
 * parse for real (`promtool check rules`, Debian's prometheus package). A
 * renamed metric or label breaks the build here, not on somebody's wall screen.
 * The last block breaks copies of the dashboard (and of the names) on purpose,
 * to show that each check can fail.
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { STATE_GAUGE } from '../../main/core/breaker/types.js';
import { OUTCOMES } from '../../main/core/calls/classify.js';
import { METRIC_NAMES } from '../../main/core/metrics/names.js';
import { toolOrSkip } from '../helpers/tools.js';

const PROMTOOL = toolOrSkip('promtool');

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const DASHBOARD_PATH = join(ROOT, 'deploy', 'grafana', 'breakerbar-fleet.json');
const METRICS_SOURCE = join(ROOT, 'main', 'core', 'metrics', 'series.ts');

// biome-ignore lint/suspicious/noExplicitAny: a dashboard is free-form JSON; the checks below read it defensively.
type Json = any;

const loadDashboard = (): Json => JSON.parse(readFileSync(DASHBOARD_PATH, 'utf8'));

/** Labels every scraped series carries: Prometheus's `job`/`instance`, and the fleet's `host` target label. */
const TARGET_LABELS = ['job', 'instance', 'host'];
/** `up` is Prometheus's own per-target series. */
const UP_LABELS = new Set(TARGET_LABELS);
const HISTOGRAM_SUFFIXES = ['_bucket', '_sum', '_count'];

interface MetricDecl {
  type: 'Counter' | 'Gauge' | 'Histogram';
  labels: string[];
}

/** The object literal starting at `start` (a `{`), braces matched outside strings. */
function objectLiteral(source: string, start: number): string {
  let depth = 0;
  let quote: string | null = null;
  for (let i = start; i < source.length; i++) {
    const c = source[i]!;
    if (quote) {
      if (c === '\\') i++;
      else if (c === quote) quote = null;
    } else if (c === '"' || c === "'" || c === '`') quote = c;
    else if (c === '{') depth++;
    else if (c === '}' && --depth === 0) return source.slice(start, i + 1);
  }
  throw new Error(`unbalanced object literal at ${start}`);
}

const labelList = (literal: string): string[] => {
  const match = /labelNames:\s*\[([^\]]*)\]/.exec(literal);
  return match ? [...match[1]!.matchAll(/'([^']+)'/g)].map((m) => m[1]!) : [];
};

/**
 * Each metric's type and label names, read from metrics/series.ts: `new Counter|Gauge|Histogram({ name:
 * METRIC_NAMES.key, …, labelNames: [...] })`, and helpers of the form `const f = (name: string, …) =>
 * new Gauge({ name, … })` called as `f(METRIC_NAMES.key, …)`.
 */
function declarationsFrom(source: string): Map<string, MetricDecl> {
  const found = new Map<string, MetricDecl>();
  const add = (key: string, decl: MetricDecl) => {
    if (found.has(key)) throw new Error(`METRIC_NAMES.${key} is declared twice in metrics/series.ts`);
    found.set(key, decl);
  };
  for (const m of source.matchAll(/new (Counter|Gauge|Histogram)\(\s*\{/g)) {
    const literal = objectLiteral(source, m.index + m[0].length - 1);
    const name = /\bname:\s*METRIC_NAMES\.(\w+)/.exec(literal);
    if (name) add(name[1]!, { type: m[1] as MetricDecl['type'], labels: labelList(literal) });
  }
  for (const m of source.matchAll(/const (\w+) = \(name: string[^;]*?=>\s*new (Counter|Gauge|Histogram)\(\s*\{/g)) {
    const literal = objectLiteral(source, m.index + m[0].length - 1);
    const labels = labelList(literal);
    for (const call of source.matchAll(new RegExp(`\\b${m[1]}\\(\\s*METRIC_NAMES\\.(\\w+)`, 'g'))) {
      add(call[1]!, { type: m[2] as MetricDecl['type'], labels });
    }
  }
  return found;
}

/** Exported name → the labels a series of that name may carry. */
function labelTable(names: Record<string, string>, decls: Map<string, MetricDecl>): Map<string, Set<string>> {
  const table = new Map<string, Set<string>>([['up', UP_LABELS]]);
  for (const [key, name] of Object.entries(names)) {
    const decl = decls.get(key);
    if (!decl) continue;
    const labels = [...decl.labels, ...TARGET_LABELS];
    table.set(name, new Set(labels));
    if (decl.type === 'Histogram') {
      table.set(`${name}_bucket`, new Set([...labels, 'le']));
      table.set(`${name}_sum`, new Set(labels));
      table.set(`${name}_count`, new Set(labels));
    }
  }
  return table;
}

// ---- PromQL, as far as the checks need it ----

const AGGREGATIONS = new Set([
  'sum',
  'min',
  'max',
  'avg',
  'group',
  'stddev',
  'stdvar',
  'count',
  'count_values',
  'bottomk',
  'topk',
  'quantile',
  'limitk',
  'limit_ratio',
]);
const FUNCTIONS = new Set(
  (
    'abs absent absent_over_time avg_over_time ceil changes clamp clamp_max clamp_min count_over_time ' +
    'day_of_month day_of_week day_of_year days_in_month delta deriv exp floor histogram_quantile holt_winters ' +
    'hour idelta increase irate label_join label_replace last_over_time ln log10 log2 max_over_time ' +
    'min_over_time minute month predict_linear present_over_time quantile_over_time rate resets round ' +
    'scalar sgn sort sort_desc sqrt stddev_over_time stdvar_over_time sum_over_time time timestamp vector year'
  ).split(' '),
);
const GROUPING = new Set(['by', 'without', 'on', 'ignoring', 'group_left', 'group_right']);
const KEYWORDS = new Set(['and', 'or', 'unless', 'bool', 'offset', 'atan2', 'inf', 'nan']);

type Token = { kind: 'ident' | 'string' | 'number' | 'range' | 'var' | 'punct'; text: string };

function tokenize(expr: string): Token[] {
  const tokens: Token[] = [];
  let i = 0;
  const take = (kind: Token['kind'], pattern: RegExp) => {
    pattern.lastIndex = i;
    const m = pattern.exec(expr);
    if (!m || m.index !== i) throw new Error(`cannot read ${kind} at ${i} in ${expr}`);
    tokens.push({ kind, text: m[0] });
    i += m[0].length;
  };
  while (i < expr.length) {
    const c = expr[i]!;
    if (/\s/.test(c)) i++;
    else if (c === '#') i = expr.includes('\n', i) ? expr.indexOf('\n', i) : expr.length;
    else if (c === '"' || c === "'") take('string', c === '"' ? /"(?:[^"\\]|\\.)*"/y : /'(?:[^'\\]|\\.)*'/y);
    else if (c === '`') take('string', /`[^`]*`/y);
    else if (c === '[') take('range', /\[[^\]]*\]/y);
    else if (c === '$') take('var', /\$(?:\{[^}]*\}|\w+)/y);
    else if (/[a-zA-Z_:]/.test(c)) take('ident', /[a-zA-Z_:][\w:]*/y);
    else if (/[0-9.]/.test(c)) take('number', /0x[0-9a-fA-F]+|[0-9]*\.?[0-9]+(?:[eE][+-]?[0-9]+)?\w*/y);
    else take('punct', /=~|!~|!=|==|<=|>=|[(){},=<>+\-*/%^@]/y);
  }
  return tokens;
}

/** The index of the `)` matching the `(` at `open`. */
function closing(tokens: Token[], open: number): number {
  let depth = 0;
  for (let i = open; i < tokens.length; i++) {
    if (tokens[i]!.text === '(') depth++;
    else if (tokens[i]!.text === ')' && --depth === 0) return i;
  }
  throw new Error('unbalanced parentheses');
}

interface Analysis {
  /** Metric names, with their token index. */
  metrics: Array<{ name: string; at: number }>;
  /** Label names in each metric's selector. */
  selectors: Array<{ metric: string | null; labels: Array<{ name: string; op: string; value: string }> }>;
  /** Labels of `by`/`without` (checked against the metrics inside the aggregation) and `on`/`ignoring`/`group_*` (the whole expression). */
  groupings: Array<{ keyword: string; labels: string[]; scope: [number, number] }>;
  problems: string[];
}

function analyze(expr: string): Analysis {
  const tokens = tokenize(expr);
  const out: Analysis = { metrics: [], selectors: [], groupings: [], problems: [] };
  const labelsIn = (open: number): { labels: string[]; end: number } => {
    const end = closing(tokens, open);
    const labels = tokens
      .slice(open + 1, end)
      .filter((t) => t.kind === 'ident')
      .map((t) => t.text);
    return { labels, end };
  };
  for (let i = 0; i < tokens.length; i++) {
    const t = tokens[i]!;
    const next = tokens[i + 1];
    if (t.text === '{') {
      const prev = tokens[i - 1];
      const metric = prev?.kind === 'ident' && out.metrics.at(-1)?.at === i - 1 ? prev.text : null;
      if (metric === null) out.problems.push(`a selector without a metric name in ${expr}`);
      const labels: Analysis['selectors'][number]['labels'] = [];
      for (i++; i < tokens.length && tokens[i]!.text !== '}'; i++) {
        const [name, op, value] = [tokens[i]!, tokens[i + 1], tokens[i + 2]];
        if (name.kind === 'ident' && op?.kind === 'punct' && value?.kind === 'string') {
          labels.push({ name: name.text, op: op.text, value: value.text.slice(1, -1) });
          i += 2;
        }
      }
      out.selectors.push({ metric, labels });
    } else if (t.kind === 'ident' && GROUPING.has(t.text)) {
      if (next?.text !== '(') continue; // group_left without labels
      const { labels, end } = labelsIn(i + 1);
      let scope: [number, number] = [0, tokens.length];
      if (t.text === 'by' || t.text === 'without') {
        // `agg by (l) (body)` or `agg (body) by (l)`.
        const bodyOpen = tokens[end + 1]?.text === '(' ? end + 1 : null;
        if (bodyOpen !== null && AGGREGATIONS.has(tokens[i - 1]?.text ?? ''))
          scope = [bodyOpen, closing(tokens, bodyOpen)];
        else if (tokens[i - 1]?.text === ')') {
          let depth = 0;
          let open = i - 1;
          for (; open >= 0; open--) {
            if (tokens[open]!.text === ')') depth++;
            else if (tokens[open]!.text === '(' && --depth === 0) break;
          }
          scope = [open, i - 1];
        }
      }
      out.groupings.push({ keyword: t.text, labels, scope });
      i = end;
    } else if (t.kind === 'ident' && AGGREGATIONS.has(t.text) && (next?.text === 'by' || next?.text === 'without')) {
      // `sum by (…) (…)`: the grouping is read next.
    } else if (t.kind === 'ident' && next?.text === '(') {
      if (!AGGREGATIONS.has(t.text) && !FUNCTIONS.has(t.text)) out.problems.push(`unknown function ${t.text}`);
    } else if (t.kind === 'ident' && !KEYWORDS.has(t.text.toLowerCase())) {
      out.metrics.push({ name: t.text, at: i });
    }
  }
  return out;
}

// ---- where the dashboard keeps PromQL ----

interface Query {
  where: string;
  expr: string;
  /** For `label_values(expr, label)`: the label asked for. */
  label?: string;
  /** A variable query the checks cannot read. */
  unsupported?: boolean;
}

/** Every PromQL expression in the dashboard: any `expr` (targets, annotations) and every query variable. */
function queriesOf(dashboard: Json): Query[] {
  const queries: Query[] = [];
  const walk = (node: Json, where: string) => {
    if (Array.isArray(node)) {
      for (const [i, child] of node.entries()) walk(child, `${where}[${i}]`);
    } else if (node && typeof node === 'object') {
      if (typeof node.expr === 'string') queries.push({ where, expr: node.expr });
      for (const [key, child] of Object.entries(node)) if (key !== 'templating') walk(child, `${where}.${key}`);
    }
  };
  walk(dashboard, 'dashboard');
  for (const variable of dashboard.templating?.list ?? []) {
    if (variable.type !== 'query') continue;
    const where = `variable ${variable.name}`;
    const text: string = typeof variable.query === 'string' ? variable.query : variable.query?.query;
    const m = /^\s*label_values\(\s*(.+)\s*,\s*([a-zA-Z_]\w*)\s*\)\s*$/s.exec(text ?? '');
    if (m) queries.push({ where, expr: m[1]!, label: m[2]! });
    else queries.push({ where, expr: String(text), unsupported: true });
  }
  return queries;
}

// ---- the checks: each returns the problems it finds ----

function structureProblems(dashboard: Json): string[] {
  const problems: string[] = [];
  if (typeof dashboard.title !== 'string' || dashboard.title === '') problems.push('no title');
  if (typeof dashboard.uid !== 'string' || !/^[\w-]{1,40}$/.test(dashboard.uid)) problems.push('no valid uid');
  if (typeof dashboard.schemaVersion !== 'number' || dashboard.schemaVersion < 36)
    problems.push('schemaVersion below 36');
  const variables: Json[] = dashboard.templating?.list ?? [];
  const dsVariable = variables.find((v) => v.type === 'datasource' && v.query === 'prometheus');
  const dsInput = (dashboard.__inputs ?? []).find((i: Json) => i.type === 'datasource' && i.pluginId === 'prometheus');
  const dsRefs = new Set([dsVariable && `\${${dsVariable.name}}`, dsInput && `\${${dsInput.name}}`].filter(Boolean));
  if (dsRefs.size === 0) problems.push('neither a Prometheus datasource variable nor a DS_PROMETHEUS input');
  const panels: Json[] = dashboard.panels ?? [];
  if (panels.length === 0) problems.push('no panels');
  const ids = new Set<number>();
  const boxes: Array<{ id: number; x: number; y: number; w: number; h: number }> = [];
  for (const panel of panels) {
    const name = `panel ${panel.id} (${panel.title})`;
    if (!Number.isInteger(panel.id)) problems.push(`${name}: no integer id`);
    else if (ids.has(panel.id)) problems.push(`${name}: duplicate id`);
    ids.add(panel.id);
    if (typeof panel.title !== 'string' || panel.title === '') problems.push(`${name}: no title`);
    if (typeof panel.type !== 'string') problems.push(`${name}: no type`);
    const g = panel.gridPos;
    if (!g || ![g.x, g.y, g.w, g.h].every(Number.isInteger) || g.w < 1 || g.h < 1 || g.x < 0 || g.x + g.w > 24) {
      problems.push(`${name}: gridPos missing or outside the 24 columns`);
    } else {
      for (const b of boxes) {
        if (g.x < b.x + b.w && b.x < g.x + g.w && g.y < b.y + b.h && b.y < g.y + g.h)
          problems.push(`${name}: overlaps panel ${b.id}`);
      }
      boxes.push({ id: panel.id, ...g });
    }
    if (panel.datasource?.type !== 'prometheus' || !dsRefs.has(panel.datasource?.uid))
      problems.push(`${name}: datasource is not the dashboard's Prometheus`);
    const targets: Json[] = panel.targets ?? [];
    if (targets.length === 0) problems.push(`${name}: no target`);
    const refIds = new Set<string>();
    for (const target of targets) {
      if (typeof target.expr !== 'string' || target.expr.trim() === '') problems.push(`${name}: a target without expr`);
      if (typeof target.refId !== 'string' || refIds.has(target.refId))
        problems.push(`${name}: missing or duplicate refId`);
      refIds.add(target.refId);
      if (target.datasource && !dsRefs.has(target.datasource.uid))
        problems.push(`${name}: target ${target.refId} names another datasource`);
    }
  }
  return problems;
}

function variableProblems(dashboard: Json): string[] {
  const problems: string[] = [];
  const variables: Json[] = dashboard.templating?.list ?? [];
  const expected = {
    host: 'label_values(breaker_state, host)',
    dep: 'label_values(breaker_state{host=~"$host"}, dep)',
  };
  for (const [name, query] of Object.entries(expected)) {
    const v = variables.find((x) => x.name === name);
    if (!v) {
      problems.push(`no variable ${name}`);
      continue;
    }
    const text = typeof v.query === 'string' ? v.query : v.query?.query;
    if (v.type !== 'query' || text !== query) problems.push(`variable ${name}: not the query ${query}`);
    if (v.multi !== true || v.includeAll !== true) problems.push(`variable ${name}: not multi-valued with All`);
    if (v.datasource?.type !== 'prometheus') problems.push(`variable ${name}: no Prometheus datasource`);
  }
  // Multi-valued variables become regexes: they must be matched with =~, never =.
  for (const { where, expr } of queriesOf(dashboard)) {
    for (const name of Object.keys(expected)) {
      if (new RegExp(`[^=!]=\\s*"\\$\\{?${name}\\b`).test(expr))
        problems.push(`${where}: $${name} used with = (use =~)`);
    }
  }
  return problems;
}

/** Metric names the expressions use that the code does not export. */
function metricProblems(dashboard: Json, names: Record<string, string>, histograms: Set<string>): string[] {
  const known = new Set([...Object.values(names), 'up']);
  const problems: string[] = [];
  for (const { where, expr, unsupported } of queriesOf(dashboard)) {
    if (unsupported) {
      problems.push(`${where}: not a label_values(<selector>, <label>) query: ${expr}`);
      continue;
    }
    let analysis: Analysis;
    try {
      analysis = analyze(expr);
    } catch (error) {
      problems.push(`${where}: ${(error as Error).message}`);
      continue;
    }
    problems.push(...analysis.problems.map((p) => `${where}: ${p}`));
    if (analysis.metrics.length === 0) problems.push(`${where}: no metric in ${expr}`);
    for (const { name } of analysis.metrics) {
      const suffix = HISTOGRAM_SUFFIXES.find((s) => name.endsWith(s));
      const base = suffix ? name.slice(0, -suffix.length) : name;
      if (known.has(name)) continue;
      if (suffix && known.has(base) && histograms.has(base)) continue;
      problems.push(`${where}: ${name} is not a metric BreakerBar exports (METRIC_NAMES) nor up`);
    }
  }
  return problems;
}

/** Labels used with a metric that does not carry them, and outcome values the classifier never produces. */
function labelProblems(dashboard: Json, table: Map<string, Set<string>>): string[] {
  const problems: string[] = [];
  const allows = (metric: string, label: string) => table.get(metric)?.has(label) ?? false;
  for (const { where, expr, label, unsupported } of queriesOf(dashboard)) {
    if (unsupported) continue; // metricProblems reports it
    let analysis: Analysis;
    try {
      analysis = analyze(expr);
    } catch {
      continue; // metricProblems reports it
    }
    for (const selector of analysis.selectors) {
      if (selector.metric === null || !table.has(selector.metric)) continue;
      for (const matcher of selector.labels) {
        if (!allows(selector.metric, matcher.name))
          problems.push(`${where}: ${selector.metric} has no label ${matcher.name}`);
        if (
          matcher.name === 'outcome' &&
          matcher.op === '=' &&
          !(OUTCOMES as readonly string[]).includes(matcher.value)
        ) {
          problems.push(`${where}: outcome "${matcher.value}" is not one the classifier produces`);
        }
      }
    }
    for (const grouping of analysis.groupings) {
      const inside = analysis.metrics.filter((m) => m.at > grouping.scope[0] && m.at < grouping.scope[1]);
      for (const metric of inside) {
        if (!table.has(metric.name)) continue;
        for (const l of grouping.labels) {
          if (!allows(metric.name, l))
            problems.push(`${where}: ${grouping.keyword} (${l}) but ${metric.name} has no ${l}`);
        }
      }
    }
    if (label !== undefined) {
      for (const metric of analysis.metrics) {
        if (table.has(metric.name) && !allows(metric.name, label))
          problems.push(`${where}: label_values asks for ${label}, which ${metric.name} does not carry`);
      }
    }
  }
  return problems;
}

/** The breaker-state panel must show breaker_state with a coloured mapping for exactly the states the code exports. */
function stateMappingProblems(dashboard: Json): string[] {
  const panel = (dashboard.panels ?? []).find((p: Json) =>
    (p.targets ?? []).some((t: Json) => /\bbreaker_state\{/.test(t.expr ?? '')),
  );
  if (!panel) return ['no panel shows breaker_state'];
  const options = panel.fieldConfig?.defaults?.mappings?.find((m: Json) => m.type === 'value')?.options ?? {};
  const problems: string[] = [];
  const shown = Object.fromEntries(Object.entries(options).map(([value, o]) => [(o as Json).text, Number(value)]));
  if (JSON.stringify(Object.entries(shown).sort()) !== JSON.stringify(Object.entries(STATE_GAUGE).sort())) {
    problems.push(
      `${panel.title}: mappings ${JSON.stringify(shown)} differ from STATE_GAUGE ${JSON.stringify(STATE_GAUGE)}`,
    );
  }
  for (const [value, o] of Object.entries(options)) {
    if (typeof (o as Json).color !== 'string' || (o as Json).color === '')
      problems.push(`${panel.title}: ${value} has no colour`);
  }
  return problems;
}

/** Grafana's variables replaced by values Prometheus accepts, so the expression can be parsed as is. */
function substituteVariables(expr: string): string {
  return expr
    .replace(/\$\{?__range(?:_s|_ms)?\}?/g, '1h')
    .replace(/\$\{?__(?:rate_interval|interval)(?:_ms)?\}?/g, '1m')
    .replace(/\$\{[^}]*\}|\$\w+/g, '.*');
}

/** PromQL syntax for real: one recording rule per expression through `promtool check rules`. */
function promtoolProblems(dashboard: Json): string[] {
  const queries = queriesOf(dashboard).filter((q) => !q.unsupported);
  const rules = queries.map((q, i) => ({ record: `grafana:expr_${i}`, expr: substituteVariables(q.expr) }));
  const dir = mkdtempSync(join(tmpdir(), 'breakerbar-grafana-'));
  try {
    const file = join(dir, 'dashboard-rules.yml');
    // JSON is YAML: promtool reads it as a rule file.
    writeFileSync(file, JSON.stringify({ groups: [{ name: 'breakerbar-fleet-dashboard', rules }] }));
    const run = spawnSync('promtool', ['check', 'rules', file], { encoding: 'utf8' });
    if (run.error) return [`cannot run promtool: ${run.error}`];
    if (run.status === 0) return [];
    const output = `${run.stdout}${run.stderr}`;
    // Name the dashboard places of the failing rules.
    const failing = [...output.matchAll(/rule (\d+)/g)].map((m) => queries[Number(m[1]) - 1]?.where);
    return [`promtool check rules failed (${failing.join(', ')}):\n${output}`];
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

// ---- the tests ----

const decls = declarationsFrom(readFileSync(METRICS_SOURCE, 'utf8'));
const histogramsOf = (names: Record<string, string>) =>
  new Set(
    Object.entries(names)
      .filter(([key]) => decls.get(key)?.type === 'Histogram')
      .map(([, name]) => name),
  );
const TABLE = labelTable(METRIC_NAMES, decls);
const HISTOGRAMS = histogramsOf(METRIC_NAMES);

const copy = (): Json => structuredClone(loadDashboard());
const panelTitled = (dashboard: Json, title: string): Json => {
  const panel = dashboard.panels.find((p: Json) => p.title === title);
  if (!panel) throw new Error(`no panel ${title}`);
  return panel;
};

describe('the Grafana fleet dashboard', () => {
  it('reads a type and labels for every METRIC_NAMES entry from metrics/series.ts', () => {
    expect([...decls.keys()].sort()).toEqual(Object.keys(METRIC_NAMES).sort());
    expect(decls.get('calls')).toEqual({ type: 'Counter', labels: ['dep', 'outcome'] });
    expect(decls.get('gatewayProbeSeconds')).toEqual({ type: 'Histogram', labels: [] });
    expect(decls.get('gatewayUp')).toEqual({ type: 'Gauge', labels: [] });
    expect(decls.get('watchdogRestarts')?.labels).toEqual(['reason', 'result']);
  });

  it('is an importable dashboard: title, uid, panels with unique ids and a gridPos, each on the Prometheus datasource with a target', () => {
    const dashboard = loadDashboard();
    expect(structureProblems(dashboard)).toEqual([]);
    expect(dashboard.uid).toBe('breakerbar-fleet');
    expect(dashboard.id).toBeNull();
  });

  it('has the host and dep variables, multi-valued with All, matched with =~', () => {
    expect(variableProblems(loadDashboard())).toEqual([]);
  });

  it('shows breaker_state with the states the code exports, each coloured', () => {
    expect(stateMappingProblems(loadDashboard())).toEqual([]);
  });

  it('names only metrics BreakerBar exports, or up', () => {
    const dashboard = loadDashboard();
    expect(metricProblems(dashboard, METRIC_NAMES, HISTOGRAMS)).toEqual([]);
    const used = new Set(queriesOf(dashboard).flatMap((q) => analyze(q.expr).metrics.map((m) => m.name)));
    // The panels the fleet overview promises are there.
    for (const name of [
      'up',
      METRIC_NAMES.breakerState,
      METRIC_NAMES.calls,
      METRIC_NAMES.watchdogRestarts,
      METRIC_NAMES.gatewayUp,
      METRIC_NAMES.watchdogBudgetRemaining,
      METRIC_NAMES.watchdogPaused,
      METRIC_NAMES.watchdogDivergence,
      `${METRIC_NAMES.gatewayProbeSeconds}_bucket`,
      METRIC_NAMES.ingestLag,
      METRIC_NAMES.notifications,
    ]) {
      expect(used, name).toContain(name);
    }
  });

  it('uses each label only with metrics that carry it', () => {
    expect(labelProblems(loadDashboard(), TABLE)).toEqual([]);
  });

  it.skipIf(PROMTOOL.skip)(PROMTOOL.title('parses every expression with promtool'), () => {
    expect(promtoolProblems(loadDashboard())).toEqual([]);
  });

  describe('the checks fail on a broken dashboard', () => {
    it('a metric renamed in the dashboard', () => {
      const dashboard = copy();
      const target = panelTitled(dashboard, '429 rate per dependency').targets[0];
      target.expr = target.expr.replace('breakerbar_calls_total', 'breakerbar_call_total');
      expect(metricProblems(dashboard, METRIC_NAMES, HISTOGRAMS).join('\n')).toMatch(/breakerbar_call_total is not/);
    });

    it('a metric renamed in the code', () => {
      const renamed = { ...METRIC_NAMES, watchdogRestarts: 'breakerbar_gateway_restarts_total' };
      expect(metricProblems(loadDashboard(), renamed, histogramsOf(renamed)).join('\n')).toMatch(
        /breakerbar_watchdog_restarts_total is not/,
      );
    });

    it('a histogram suffix on a metric that is no histogram, a variable over an unknown metric or not label_values', () => {
      const dashboard = copy();
      panelTitled(dashboard, 'Ingest lag').targets[0].expr = 'breakerbar_ingest_lag_seconds_bucket';
      dashboard.templating.list.find((v: Json) => v.name === 'host').query.query = 'label_values(breaker_states, host)';
      dashboard.templating.list.find((v: Json) => v.name === 'dep').query.query = 'query_result(breaker_state)';
      const problems = metricProblems(dashboard, METRIC_NAMES, HISTOGRAMS).join('\n');
      expect(problems).toMatch(/breakerbar_ingest_lag_seconds_bucket is not/);
      expect(problems).toMatch(/variable host: breaker_states is not/);
      expect(problems).toMatch(/variable dep: not a label_values/);
    });

    it('a label the metric does not carry, in a selector, a by clause, label_values, or an outcome that does not exist', () => {
      const dashboard = copy();
      const restarts = panelTitled(dashboard, 'Gateway restarts').targets[0];
      restarts.expr = restarts.expr.replace('by (host, reason, result)', 'by (host, dep, result)');
      const lag = panelTitled(dashboard, 'Ingest lag').targets[0];
      lag.expr = lag.expr.replace('host=~"$host"', 'host=~"$host", dep=~"$dep"');
      const rate = panelTitled(dashboard, '429 rate per dependency').targets[0];
      rate.expr = rate.expr.replace('"rate_limited"', '"rate_limit"');
      dashboard.templating.list.find((v: Json) => v.name === 'dep').query.query =
        'label_values(breakerbar_gateway_up{host=~"$host"}, dep)';
      const problems = labelProblems(dashboard, TABLE).join('\n');
      expect(problems).toMatch(/by \(dep\) but breakerbar_watchdog_restarts_total has no dep/);
      expect(problems).toMatch(/breakerbar_ingest_lag_seconds has no label dep/);
      expect(problems).toMatch(/outcome "rate_limit" is not/);
      expect(problems).toMatch(/label_values asks for dep, which breakerbar_gateway_up does not carry/);
      // `le` belongs to the buckets only.
      const latency = panelTitled(dashboard, 'Gateway probe latency').targets[0];
      latency.expr = latency.expr.replace('_bucket', '_count');
      expect(labelProblems(dashboard, TABLE).join('\n')).toMatch(/breakerbar_gateway_probe_seconds_count has no le/);
    });

    it.skipIf(PROMTOOL.skip)(PROMTOOL.title('a PromQL syntax error'), () => {
      const dashboard = copy();
      const target = panelTitled(dashboard, 'Calls by outcome').targets[0];
      target.expr = target.expr.replace('sum by (outcome) (', 'sum by (outcome (');
      expect(promtoolProblems(dashboard).join('\n')).toMatch(/Calls by outcome|panels\[\d+\]\.targets\[0\]/);
      expect(promtoolProblems(dashboard).join('\n')).toMatch(/parse error/);
    });

    it('duplicate ids, overlapping or missing grid positions, panels without datasource or target, missing variables', () => {
      const dashboard = copy();
      dashboard.panels[1].id = dashboard.panels[0].id;
      dashboard.panels[2].gridPos = { ...dashboard.panels[3].gridPos };
      delete dashboard.panels[4].gridPos;
      delete dashboard.panels[5].datasource;
      dashboard.panels[6].targets = [];
      delete dashboard.uid;
      const problems = structureProblems(dashboard).join('\n');
      expect(problems).toMatch(/duplicate id/);
      expect(problems).toMatch(/overlaps panel/);
      expect(problems).toMatch(/gridPos missing/);
      expect(problems).toMatch(/datasource is not/);
      expect(problems).toMatch(/no target/);
      expect(problems).toMatch(/no valid uid/);
      dashboard.templating.list = dashboard.templating.list.filter((v: Json) => v.name !== 'dep');
      const host = dashboard.templating.list.find((v: Json) => v.name === 'host');
      host.multi = false;
      panelTitled(dashboard, 'Gateway up').targets[0].expr = 'breakerbar_gateway_up{host="$host"}';
      const variables = variableProblems(dashboard).join('\n');
      expect(variables).toMatch(/no variable dep/);
      expect(variables).toMatch(/variable host: not multi-valued/);
      expect(variables).toMatch(/\$host used with = /);
    });

    it('a state mapping that disagrees with the code, or has no colour', () => {
      const dashboard = copy();
      const options = panelTitled(dashboard, 'Breaker state per dependency per host').fieldConfig.defaults.mappings[0]
        .options;
      options['3'].text = 'quota';
      delete options['2'].color;
      const problems = stateMappingProblems(dashboard).join('\n');
      expect(problems).toMatch(/differ from STATE_GAUGE/);
      expect(problems).toMatch(/2 has no colour/);
    });
  });
});
