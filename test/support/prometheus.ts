// Reads Prometheus' text exposition format (what GET /metrics answers) into its samples, so tests assert on values
// by name and labels rather than grepping lines. Enough of the format for prom-client's output: # HELP and # TYPE
// lines, samples `name{label="value",...} number`, escaped label values.
import assert from 'node:assert/strict';

export interface Sample {
  name: string;
  labels: Record<string, string>;
  value: number;
}

export interface Scrape {
  samples: Sample[];
  /** Each metric family's type (counter, gauge, histogram, summary), by name. */
  types: Map<string, string>;
  /** The sum of the samples named `name` whose labels include `labels` (0 when none matches). */
  value(name: string, labels?: Record<string, string>): number;
  /** Whether any sample of the family `name` (its _bucket, _sum, _count for a histogram) was exposed. */
  has(name: string): boolean;
}

const SAMPLE = /^([a-zA-Z_:][a-zA-Z0-9_:]*)(?:\{(.*)\})?\s+(\S+)(?:\s+\d+)?$/;
const LABEL = /([a-zA-Z_][a-zA-Z0-9_]*)="((?:[^"\\]|\\.)*)"\s*,?\s*/y;

function parseLabels(text: string): Record<string, string> {
  const labels: Record<string, string> = {};
  LABEL.lastIndex = 0;
  while (LABEL.lastIndex < text.length) {
    const at = LABEL.lastIndex;
    const m = LABEL.exec(text);
    assert.ok(m, `malformed labels at ${at}: ${text}`);
    labels[m[1]!] = m[2]!.replace(/\\(["\\n])/g, (_, c: string) => (c === 'n' ? '\n' : c));
  }
  return labels;
}

/** A sample's value; Prometheus reads NaN and Inf in any case (prom-client writes `Nan` for an empty mean). */
const toNumber = (text: string) => {
  const word = text.toLowerCase();
  return word === '+inf' || word === 'inf'
    ? Infinity
    : word === '-inf'
      ? -Infinity
      : word === 'nan'
        ? NaN
        : Number(text);
};

export function parsePrometheus(text: string): Scrape {
  const samples: Sample[] = [];
  const types = new Map<string, string>();
  for (const line of text.split('\n')) {
    if (!line.trim()) continue;
    if (line.startsWith('#')) {
      const type = /^# TYPE (\S+) (\S+)$/.exec(line);
      if (type) types.set(type[1]!, type[2]!);
      continue;
    }
    const m = SAMPLE.exec(line);
    assert.ok(m, `not a sample line: ${line}`);
    const value = toNumber(m[3]!);
    assert.ok(!Number.isNaN(value) || m[3]!.toLowerCase() === 'nan', `not a number: ${line}`);
    samples.push({ name: m[1]!, labels: m[2] ? parseLabels(m[2]) : {}, value });
  }
  const matches = (sample: Sample, labels: Record<string, string>) =>
    Object.entries(labels).every(([k, v]) => sample.labels[k] === v);
  return {
    samples,
    types,
    value: (name, labels = {}) =>
      samples.filter((s) => s.name === name && matches(s, labels)).reduce((sum, s) => sum + s.value, 0),
    has: (name) => types.has(name) && samples.some((s) => s.name === name || s.name.startsWith(`${name}_`)),
  };
}

/** GET `url` (a /metrics) and parse it; fails the test unless it answers 200 in the text format. */
export async function scrape(url: string, token?: string): Promise<Scrape> {
  const res = await fetch(url, { headers: token ? { authorization: `Bearer ${token}` } : {} });
  const text = await res.text();
  assert.equal(res.status, 200, text);
  assert.match(res.headers.get('content-type') ?? '', /^text\/plain; version=0\.0\.4/);
  return parsePrometheus(text);
}

/** The sums of the same sample over several copies' scrapes, as Prometheus' sum() adds them. */
export const summed = (scrapes: Scrape[], name: string, labels?: Record<string, string>) =>
  scrapes.reduce((sum, s) => sum + s.value(name, labels), 0);
