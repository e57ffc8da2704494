/**
 * The Prometheus text parser: what OpenClaw's plugin prints, the corners of the
 * 0.0.4 format (escapes, special values, timestamps), and bad lines reported
 * and skipped without losing the rest.
 */
import { describe, expect, it } from 'vitest';
import { parsePrometheusText, seriesKey } from '../../../main/core/sources/prometheus-text.js';

describe('parsePrometheusText', () => {
  it("reads OpenClaw's exposition, skipping HELP and TYPE", () => {
    const text = [
      '# HELP openclaw_model_call_total Provider model calls completed by outcome.',
      '# TYPE openclaw_model_call_total counter',
      'openclaw_model_call_total{api="openai-completions",error_category="none",model="glm-5.1",outcome="completed",provider="zhipu",transport="http"} 42',
      'openclaw_model_call_total{api="openai-completions",error_category="rate_limit",model="glm-5.1",outcome="error",provider="zhipu",transport="http"} 7',
      'openclaw_model_call_duration_seconds_bucket{le="+Inf",model="glm-5.1"} 49',
      '',
    ].join('\n');
    const { samples, errors } = parsePrometheusText(text);
    expect(errors).toEqual([]);
    expect(samples).toHaveLength(3);
    expect(samples[0]).toEqual({
      name: 'openclaw_model_call_total',
      labels: {
        api: 'openai-completions',
        error_category: 'none',
        model: 'glm-5.1',
        outcome: 'completed',
        provider: 'zhipu',
        transport: 'http',
      },
      value: 42,
    });
    expect(samples[1]?.value).toBe(7);
    expect(samples[2]?.labels.le).toBe('+Inf');
  });

  it('decodes the escapes in label values', () => {
    const { samples, errors } = parsePrometheusText(
      String.raw`m{a="say \"hi\"",b="back\\slash",c="two\nlines",d="odd\q"} 1`,
    );
    expect(errors).toEqual([]);
    expect(samples[0]?.labels).toEqual({ a: 'say "hi"', b: 'back\\slash', c: 'two\nlines', d: 'odd\\q' });
  });

  it('keeps commas, braces and equals signs inside quoted values', () => {
    const { samples } = parsePrometheusText('m{a="x,y}=z"} 3');
    expect(samples[0]?.labels).toEqual({ a: 'x,y}=z' });
  });

  it.each([
    ['+Inf', Number.POSITIVE_INFINITY],
    ['-Inf', Number.NEGATIVE_INFINITY],
    ['inf', Number.POSITIVE_INFINITY],
    ['1.5e3', 1500],
    ['-2.5E-2', -0.025],
    ['.5', 0.5],
    ['7.', 7],
    ['0', 0],
  ])('value %s', (text, value) => {
    const { samples, errors } = parsePrometheusText(`m ${text}`);
    expect(errors).toEqual([]);
    expect(samples[0]?.value).toBe(value);
  });

  it('reads NaN', () => {
    expect(parsePrometheusText('m NaN').samples[0]?.value).toBeNaN();
  });

  it('accepts an optional timestamp, blanks, tabs, CRLF, an empty label set and a trailing comma', () => {
    const { samples, errors } = parsePrometheusText(
      'a 1 1751356800000\r\n  b{} 2\r\nc{x="1",} 3\n\td\t4\t-5\ne { x = "1" , y="2" } 5\n',
    );
    expect(errors).toEqual([]);
    expect(samples.map((s) => [s.name, s.value])).toEqual([
      ['a', 1],
      ['b', 2],
      ['c', 3],
      ['d', 4],
      ['e', 5],
    ]);
    expect(samples[2]?.labels).toEqual({ x: '1' });
    expect(samples[4]?.labels).toEqual({ x: '1', y: '2' });
  });

  it('skips comments that are not HELP or TYPE', () => {
    expect(parsePrometheusText('# just a comment\n#no space\nm 1').samples).toHaveLength(1);
  });

  it('reports a bad line with its number and keeps the others', () => {
    const text = [
      'good_one 1',
      'm{a="unterminated} 1',
      'm{a="1" 1',
      'm{1a="x"} 1',
      'm{a="1",a="2"} 1',
      'm{a=1} 1',
      'm',
      'm abc',
      'm 1 12.5',
      'm 1 2 3',
      '{a="x"} 1',
      'good_two 2',
    ].join('\n');
    const { samples, errors } = parsePrometheusText(text);
    expect(samples.map((s) => s.name)).toEqual(['good_one', 'good_two']);
    expect(errors).toHaveLength(10);
    expect(errors[0]).toMatch(/^line 2: /);
    expect(errors.at(-1)).toMatch(/^line 11: /);
  });

  it('never throws, whatever it is given', () => {
    for (const text of [
      '',
      '\n\n',
      '<!doctype html><p>',
      '{"ok":true}',
      '\u0000\u0001',
      'm{',
      'm{a',
      'm{a=',
      'm{a="\\',
    ]) {
      expect(() => parsePrometheusText(text)).not.toThrow();
    }
    expect(parsePrometheusText('<!doctype html>').errors).toHaveLength(1);
  });
});

describe('seriesKey', () => {
  it('is the same whatever order the labels came in', () => {
    expect(seriesKey('m', { b: '2', a: '1' })).toBe(seriesKey('m', { a: '1', b: '2' }));
    expect(seriesKey('m', { b: '2', a: '1' })).toBe('m{a="1",b="2"}');
  });

  it('tells different label values and names apart, escapes included', () => {
    expect(seriesKey('m', { a: 'x",b="y' })).not.toBe(seriesKey('m', { a: 'x', b: 'y' }));
    expect(seriesKey('m', {})).toBe('m');
  });

  it('round-trips through the parser', () => {
    const labels = { provider: 'zhipu', model: 'glm-5.1', odd: 'a"b\\c\nd' };
    const parsed = parsePrometheusText(`${seriesKey('m', labels)} 1`).samples[0];
    expect(parsed?.labels).toEqual(labels);
  });
});
