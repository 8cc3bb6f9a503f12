import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { errorCatalogue, kindStatus } from '../../src/kernel/http/errors.ts';
import { createTestApp, type TestApp } from '../setup/app.ts';

/** The spec's table of codes and statuses ("Errors"), as the spec states them. */
const SPEC: Record<string, number> = {
  PERMISSION_DENIED: 403,
  RECORD_NOT_FOUND: 404,
  NOT_FOUND: 404,
  VALIDATION_FAILED: 400,
  CONFLICT: 409,
  RATE_LIMITED: 429,
  RATE_LIMIT_UNAVAILABLE: 503,
  SERVICE_UNAVAILABLE: 503,
  SITE_NOT_FOUND: 404,
  TOKEN_EXPIRED: 401,
  MFA_REQUIRED: 401,
  SKILL_DENIED: 403,
  HITL_REQUIRED: 202,
  ENCRYPTION_NOT_CONFIGURED: 503,
  TFA_KEY_UNAVAILABLE: 409,
  ENCRYPTION_KEY_MISSING: 503,
  ISSUER_ALREADY_EXISTS: 409,
  DESTRUCTIVE_BLOCKED: 409,
  DEPENDENT_RECORDS_EXIST: 409,
  FIELD_REQUIRED: 409,
  INVALID_TARGET: 422,
  EMPTY_RELEASE: 422,
  ALREADY_PUBLISHED: 409,
  RELEASE_IMMUTABLE: 409,
  ITEM_NOT_FOUND: 404,
  REVISION_STAGED: 409,
  GRAPH_DANGLING_EDGE: 400,
  GRAPH_CYCLE: 400,
  GRAPH_NO_ENTRY: 400,
  GRAPH_UNKNOWN_OPERATION: 400,
  CRON_INVALID: 400,
  CRON_REQUIRED: 400,
  WEBHOOK_NOT_CONFIGURED: 401,
  UNAUTHENTICATED: 401,
  PUSH_NOT_CONFIGURED: 404,
  INVALID_SIGNATURE: 401,
  SETUP_TOKEN_NOT_ISSUED: 503,
};
let t: TestApp;
beforeAll(async () => {
  t = await createTestApp();
});
afterAll(() => t.close());

/** The codes the OpenAPI document lists under each failure status. */
async function documentedCodes(): Promise<Map<number, Set<string>>> {
  const res = await t.call({ method: 'GET', url: '/api/v1/openapi.json' });
  const schemas = res.json().components.schemas as Record<
    string,
    { properties: { errors: { items: { properties: { code: { enum?: string[] } } } } } }
  >;
  const byStatus = new Map<number, Set<string>>();
  for (const [name, schema] of Object.entries(schemas)) {
    const status = /^Error(\d{3})$/.exec(name)?.[1];
    if (status) byStatus.set(Number(status), new Set(schema.properties.errors.items.properties.code.enum ?? []));
  }
  return byStatus;
}

describe('error codes (the kernel and every slice declare theirs)', () => {
  it('give every code of the spec the status the spec states', () => {
    const { codes } = errorCatalogue();
    for (const [code, status] of Object.entries(SPEC)) {
      const kind = codes.get(code);
      expect([code, kind && kindStatus(kind)]).toEqual([code, status]);
    }
  });

  it('give each slice code one status wherever it is declared', () => {
    expect([...errorCatalogue().redeclared]).toEqual([]);
  });

  it('list every declared code under its status in the OpenAPI document', async () => {
    const documented = await documentedCodes();
    const { codes } = errorCatalogue();
    for (const [code, kind] of codes) {
      const status = kindStatus(kind);
      if (!documented.has(status)) continue;
      expect([code, documented.get(status)!.has(code)]).toEqual([code, true]);
    }
    expect(documented.get(409)?.has('EDITORIAL_GATE_REQUIRED')).toBe(true);
    expect(documented.get(415)?.has('UPLOAD_TYPE_NOT_ALLOWED')).toBe(true);
  });
});
