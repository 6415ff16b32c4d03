// The files that scale `imgtask worker` on the lanes' metrics (docs/scaling.md#scaling-workers-on-queued-work):
// Kubernetes can't run here, so they are checked as YAML, against the metrics /metrics exports.
import assert from 'node:assert/strict';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { test } from 'node:test';
import { parse } from 'yaml';

const DEPLOY = join(import.meta.dirname, '../../deploy/kubernetes');
const read = async (file: string) => parse(await readFile(join(DEPLOY, file), 'utf8'));
const METRICS_SOURCE = join(import.meta.dirname, '../../src/app/metrics.ts');

/**
 * A label value as Kubernetes takes it in a selector: 63 characters at most, alphanumeric at both ends, `-`, `_`, `.`
 * between.
 */
const K8S_LABEL_VALUE = /^(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?$/;

test('the KEDA ScaledObject scales the worker Deployment on the max() of the lane figures, never their sum', async () => {
  const scaled = await read('keda-worker-scaledobject.yaml');
  assert.equal(scaled.apiVersion, 'keda.sh/v1alpha1');
  assert.equal(scaled.kind, 'ScaledObject');
  assert.equal(scaled.spec.scaleTargetRef.name, 'imgtask-worker');
  assert.ok(scaled.spec.minReplicaCount >= 0 && scaled.spec.minReplicaCount <= scaled.spec.maxReplicaCount);
  const [trigger] = scaled.spec.triggers;
  assert.equal(trigger.type, 'prometheus');
  assert.match(trigger.metadata.serverAddress, /^https?:\/\//);
  const query: string = trigger.metadata.query;
  assert.match(query, /max\(imgtask_lane_queued_items\{lane="image\.remove_background"\}\)/);
  assert.match(query, /max\(imgtask_lane_running_items\{lane="image\.remove_background"\}\)/);
  assert.doesNotMatch(query, /sum\(/, 'every process reports the fleet figure: a sum counts it once per process');
  for (const key of ['threshold', 'activationThreshold']) {
    assert.equal(typeof trigger.metadata[key], 'string', `${key} is a string, as KEDA's metadata takes it`);
    assert.ok(Number.isFinite(Number(trigger.metadata[key])), `${key} is a number`);
  }
});

test('the HPA scales the worker Deployment on the external metric imgtask_lane_queued_items, served by the prometheus-adapter rule with max()', async () => {
  const hpa = await read('hpa-worker-external.yaml');
  assert.equal(hpa.apiVersion, 'autoscaling/v2');
  assert.equal(hpa.kind, 'HorizontalPodAutoscaler');
  assert.deepEqual(hpa.spec.scaleTargetRef, { apiVersion: 'apps/v1', kind: 'Deployment', name: 'imgtask-worker' });
  const [metric] = hpa.spec.metrics;
  assert.equal(metric.type, 'External');
  assert.equal(metric.external.metric.name, 'imgtask_lane_queued_items');
  const lane: string = metric.external.metric.selector.matchLabels.lane;
  assert.match(lane, K8S_LABEL_VALUE, 'a lane name Kubernetes takes as a label value');
  assert.equal(metric.external.target.type, 'AverageValue');
  assert.ok(Number(metric.external.target.averageValue) > 0);

  const adapter = await read('prometheus-adapter-values.yaml');
  const [rule] = adapter.rules.external;
  const pattern = new RegExp(/__name__=~"([^"]+)"/.exec(rule.seriesQuery)![1]);
  assert.ok(pattern.test(metric.external.metric.name), 'the adapter serves the metric the HPA names');
  assert.match(rule.metricsQuery, /^max\(<<\.Series>>\{<<\.LabelMatchers>>\}\) by \(lane\)$/);
});

test('the metrics the scaling files name are the ones /metrics exports, and the adapter serves all four', async () => {
  const source = await readFile(METRICS_SOURCE, 'utf8');
  const files = await Promise.all(
    ['keda-worker-scaledobject.yaml', 'hpa-worker-external.yaml'].map((file) => readFile(join(DEPLOY, file), 'utf8')),
  );
  const named = new Set(files.join('\n').match(/imgtask_lane_[a-z_]+/g));
  assert.deepEqual([...named].sort(), ['imgtask_lane_queued_items', 'imgtask_lane_running_items']);
  const gauges = [
    'imgtask_lane_queued_items',
    'imgtask_lane_running_items',
    'imgtask_lane_oldest_queued_seconds',
    'imgtask_lane_capacity',
  ];
  for (const name of gauges) assert.ok(source.includes(`'${name}'`), `${name} is exported by src/app/metrics.ts`);
  const [rule] = (await read('prometheus-adapter-values.yaml')).rules.external;
  const pattern = new RegExp(/__name__=~"([^"]+)"/.exec(rule.seriesQuery)![1]);
  for (const name of gauges) assert.ok(pattern.test(name), `the adapter serves ${name}`);
  assert.ok(!pattern.test('imgtask_lane_queued'), 'not the per-process gauges');
});
