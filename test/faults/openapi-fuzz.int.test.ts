import { randomBytes } from 'node:crypto';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from '../setup/app.ts';
import { envelopeProblem, leaked, prototypeChanges, report, type Failure } from '../support/fuzz/fuzz-checks.ts';
import { ALWAYS, buildCase, kindsOf, takesBody } from '../support/fuzz/fuzz-inputs.ts';
import { rawRequest, socketCases } from '../support/fuzz/fuzz-socket.ts';
import { buildWorld, freshToken, snapshotOf, type FuzzWorld, type SiteData } from '../support/fuzz/fuzz-world.ts';
import { operationsOf, type Operation } from '../support/fuzz/openapi-ops.ts';
import { seeded } from '../support/fuzz/prng.ts';

/**
 * Calls every operation of the published OpenAPI document with malformed input, as site A's admin, anonymously,
 * and as a low-privilege user of site B aimed at site A. On by default; SVC_FUZZ=0 turns it off;
 * SVC_FUZZ_SEED replays a run, SVC_FUZZ_REQUESTS bounds it, SVC_FUZZ_SKIP leaves input kinds out,
 * SVC_FUZZ_TRACE=1 prints every request, SVC_FUZZ_ONLY keeps the operations whose path contains it.
 */
const ENABLED = (process.env.SVC_FUZZ ?? '1') !== '0';
const SEED = Number(process.env.SVC_FUZZ_SEED ?? 20261123);
const CALLERS = 4;
/** A single answer slower than this is a finding (unbounded work on malformed input), generous for busy machines. */
const SLOW_MS = Number(process.env.SVC_FUZZ_SLOW_MS ?? 15_000);
/** Input kinds left out (comma list), to look past a finding that breaks the site for later requests. */
/** SVC_FUZZ_TRACE=1 prints every request with its status, to find the one that broke a site. */
const TRACE = process.env.SVC_FUZZ_TRACE === '1';
const SKIP = new Set((process.env.SVC_FUZZ_SKIP ?? '').split(',').filter(Boolean));
const BUDGET = Number(process.env.SVC_FUZZ_REQUESTS ?? 8000);
const ONLY = process.env.SVC_FUZZ_ONLY ?? '';

const INHERITED_IDS = new Set([
  'path:constructor',
  'path:__proto__',
  'path:hasOwnProperty',
  'path:valueOf',
  'path:toString',
]);

interface Caller {
  name: string;
  login: string | null;
  /** The data the caller aims at, and the other site's, whose ids path:foreign-ids uses. */
  own: SiteData;
  foreign: SiteData;
  /** Ids and markers this caller must never read. */
  secrets: string[];
}

let t: TestApp;
let world: FuzzWorld;
let ops: Operation[];
const failures: Failure[] = [];
/** Answers per caller and status, printed so a run shows what it reached. */
const statuses = new Map<string, number>();
const secretsOf = (d: SiteData) => [
  d.marker,
  d.item,
  d.page,
  d.release,
  d.role,
  d.policy,
  d.team,
  d.relation,
  ...d.users,
];

beforeAll(async () => {
  if (!ENABLED) return;
  // With a key, the encryption and two-factor routes run instead of answering 503 ENCRYPTION_NOT_CONFIGURED.
  t = await createTestApp({ env: { ENCRYPTION_KEY: randomBytes(32).toString('base64') } });
  world = await buildWorld(t);
  const doc = await t.call({ method: 'GET', url: '/api/v1/openapi.json' });
  ops = operationsOf(doc.json()).filter((op) => op.template.includes(ONLY));
}, 120_000);
afterAll(() => t?.close());

function tally(caller: Caller, status: number): void {
  const key = `${caller.name} ${status}`;
  statuses.set(key, (statuses.get(key) ?? 0) + 1);
}

async function send(caller: Caller, op: Operation, kind: string, rng: ReturnType<typeof seeded>): Promise<void> {
  const c = buildCase(op, kind, caller.own, caller.foreign, rng);
  const as = caller.login ? await freshToken(t, world, caller.login) : undefined;
  const started = Date.now();
  const res = await t.call({
    method: op.method,
    url: c.url,
    site: c.site ?? caller.own.site,
    ...(as ? { as } : {}),
    ...(c.body === undefined ? {} : { payload: c.body }),
    headers: { ...(c.body === undefined ? {} : { 'content-type': 'application/json' }), ...c.headers },
  });
  tally(caller, res.statusCode);
  if (TRACE) console.log(`fuzz ${caller.name} ${kind} ${op.method} ${c.url.slice(0, 200)} → ${res.statusCode}`);
  const fail = (problem: string) =>
    failures.push({
      problem,
      method: op.method,
      template: op.template,
      caller: caller.name,
      kind,
      status: res.statusCode,
      url: c.url,
      snippet: res.body.slice(0, 300),
    });
  const polluted = prototypeChanges();
  if (polluted.length) fail(`prototype polluted: ${polluted.join(', ')}`);
  if (res.statusCode >= 500) fail('5xx');
  // No record is named after an Object.prototype member: a success means such an id was taken (or appended) as real.
  if (INHERITED_IDS.has(kind) && res.statusCode < 300) fail('accepted a prototype-member name as a path id');
  if (Date.now() - started > SLOW_MS) fail(`slower than ${SLOW_MS} ms`);
  // The routes a browser opens (the unsubscribe page) answer documented HTML pages, the spec's one exception.
  const page = op.html && String(res.headers['content-type']).startsWith('text/html');
  if (c.url.startsWith('/api/v1/') && !page) {
    const problem = envelopeProblem({
      ...res,
      contentType: String(res.headers['content-type']),
      disposition: String(res.headers['content-disposition'] ?? ''),
    });
    if (problem) fail(`outside the envelope: ${problem}`);
  }
  const publicDelivery = op.template.startsWith('/api/v1/deliver/');
  const seen = publicDelivery ? [] : leaked(res.body, caller.secrets, `${c.url} ${c.body?.slice(0, 10_000) ?? ''}`);
  if (seen.length) fail(`cross-site read of ${seen.join(', ')}`);
}

/**
 * Each caller takes every fourth input kind of an operation (in a seeded order that all callers share), so the four
 * callers together try every kind of every operation once the budget allows about as many requests as kinds.
 */
async function phase(caller: Caller, index: number): Promise<void> {
  const rng = seeded(SEED + index);
  const perOperation = Math.max(1, Math.floor(BUDGET / (ops.length * CALLERS)));
  for (const [j, op] of ops.entries()) {
    const order = seeded(SEED * 1000 + j).shuffle(kindsOf(op).filter((k) => !SKIP.has(k)));
    const mine = order.filter((_, k) => k % CALLERS === index);
    const rest = order.filter((_, k) => k % CALLERS !== index);
    for (const kind of [...mine, ...rest].slice(0, perOperation)) await send(caller, op, kind, rng);
    if (takesBody(op)) for (const kind of ALWAYS.filter((k) => !SKIP.has(k))) await send(caller, op, kind, rng);
  }
}

/** What only a real socket shows: the HTTP parser's refusals (raw bytes, oversized headers and URLs). */
async function overTheWire(caller: Caller): Promise<void> {
  await t.app.listen({ port: 0, host: '127.0.0.1' });
  const { port } = t.app.server.address() as AddressInfo;
  const rng = seeded(SEED + 99);
  for (const [j, op] of ops.entries()) {
    const path = buildCase(op, 'baseline', caller.own, caller.foreign, rng).url;
    const cases = socketCases(path, op.method, caller.own.site);
    for (const c of [cases[j % cases.length]!, cases[(j + 1) % cases.length]!]) {
      const res = await rawRequest(port, c.head);
      tally(caller, res.status);
      const fail = (problem: string) =>
        failures.push({
          problem,
          method: op.method,
          template: op.template,
          caller: caller.name,
          kind: c.kind,
          status: res.status,
          url: path,
          snippet: res.body.slice(0, 300),
        });
      const polluted = prototypeChanges();
      if (polluted.length) fail(`prototype polluted: ${polluted.join(', ')}`);
      if (res.status >= 500) fail('5xx');
      const page = op.html && res.contentType.startsWith('text/html');
      const problem = page
        ? null
        : envelopeProblem({ statusCode: res.status, body: res.body, contentType: res.contentType });
      if (problem) fail(`outside the envelope: ${problem}`);
    }
  }
}

async function unchanged(label: string, run: () => Promise<void>): Promise<void> {
  const before = await snapshotOf(t, world, world.a.site);
  // Unreadable before the phase: an earlier phase broke site A, which that phase's comparison has reported.
  const broken = [...before].filter(([, body]) => !body.startsWith('200 ')).map(([url]) => url);
  if (broken.length) console.error(`fuzz: site A's ${broken.join(', ')} unreadable before ${label}`);
  await run();
  const after = await snapshotOf(t, world, world.a.site);
  for (const [url, body] of before) {
    if (after.get(url) !== body)
      failures.push({
        problem: `cross-site write: site A's ${url} changed`,
        method: '*',
        template: url,
        caller: label,
        kind: '*',
        status: 0,
        url,
        snippet: `${body.slice(0, 140)} ⇒ ${after.get(url)!.slice(0, 140)}`,
      });
  }
}

describe.skipIf(!ENABLED)('OpenAPI fuzz', () => {
  it('answers every malformed request in the envelope, without 5xx, cross-site reads or writes, or prototype changes', async () => {
    const { a, b } = world;
    const lowB: Caller = { name: 'subscriber-of-B→A', login: 'lowB', own: a, foreign: b, secrets: secretsOf(a) };
    const lowBHome: Caller = { name: 'subscriber-of-B on B', login: 'lowB', own: b, foreign: a, secrets: secretsOf(a) };
    const anon: Caller = { name: 'anonymous', login: null, own: a, foreign: b, secrets: secretsOf(b) };
    const adminA: Caller = { name: 'admin-of-A', login: 'adminA', own: a, foreign: b, secrets: secretsOf(b) };
    await unchanged(lowB.name, () => phase(lowB, 0));
    await unchanged(lowBHome.name, () => phase(lowBHome, 1));
    await unchanged(anon.name, () => phase(anon, 2));
    await phase(adminA, 3);
    await overTheWire(anon);
    console.log(
      `OpenAPI fuzz, seed ${SEED}: ${[...statuses]
        .sort()
        .map(([k, n]) => `${k}×${n}`)
        .join(' ')}`,
    );
    const summary = report(failures);
    if (failures.length) console.error(`OpenAPI fuzz, seed ${SEED}, ${ops.length} operations:\n${summary}`);
    expect(failures, summary).toEqual([]);
  }, 600_000);
});
