import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from '../setup/app.ts';

let t: TestApp;
let token: string;
beforeAll(async () => {
  t = await createTestApp();
  token = await t.setup();
});
afterAll(() => t.close());

describe('HTTP envelope', () => {
  it('answers an unknown route with a 404 error envelope', async () => {
    const res = await t.call({ method: 'GET', url: '/api/v1/nope', as: token, site: 'main' });
    expect(res.statusCode).toBe(404);
    expect(res.json()).toEqual({ errors: [{ code: 'NOT_FOUND', message: 'not found', path: [], extensions: {} }] });
  });

  it('answers /, /admin and /studio with indistinguishable 404s', async () => {
    const answers = await Promise.all(
      ['/', '/admin', '/studio', '/definitely-unknown'].map((url) => t.call({ method: 'GET', url })),
    );
    for (const a of answers) {
      expect(a.statusCode).toBe(404);
      expect(a.body).toBe(answers[0]!.body);
      expect(a.headers['content-type']).toBe(answers[0]!.headers['content-type']);
    }
  });

  it('answers a malformed JSON body with 400 VALIDATION_FAILED at the body', async () => {
    const res = await t.call({
      method: 'PATCH',
      url: '/api/v1/site',
      as: token,
      site: 'main',
      headers: { 'content-type': 'application/json' },
      payload: '{"name": ',
    });
    expect(res.statusCode).toBe(400);
    expect(res.json().errors[0]).toMatchObject({ code: 'VALIDATION_FAILED', path: ['body'] });
  });

  it('names every invalid field of a body', async () => {
    const res = await t.call({ method: 'POST', url: '/api/v1/sites', as: token, payload: { id: 'Bad Id!', name: '' } });
    expect(res.statusCode).toBe(400);
    const paths = res.json().errors.map((e: { path: string[] }) => e.path.join('.'));
    expect(paths).toEqual(expect.arrayContaining(['body.id', 'body.name']));
    expect(res.json().errors.every((e: { code: string }) => e.code === 'VALIDATION_FAILED')).toBe(true);
  });

  it('echoes a well-formed X-Request-Id and makes one otherwise', async () => {
    const given = await t.call({ method: 'GET', url: '/health', headers: { 'x-request-id': 'req-12345678' } });
    expect(given.headers['x-request-id']).toBe('req-12345678');
    const made = await t.call({ method: 'GET', url: '/health', headers: { 'x-request-id': 'bad id' } });
    expect(made.headers['x-request-id']).toMatch(/^[0-9a-f-]{36}$/);
  });

  it('serves an OpenAPI 3.1 document generated from the route schemas', async () => {
    const res = await t.call({ method: 'GET', url: '/api/v1/openapi.json' });
    expect(res.statusCode).toBe(200);
    const doc = res.json();
    expect(doc.openapi).toBe('3.1.0');
    expect(doc.paths['/api/v1/sites'].post.requestBody.content['application/json'].schema.properties.id).toBeDefined();
    expect(doc.paths['/api/v1/auth/login']).toBeDefined();
  });

  it('answers /health anonymously with the overall status only', async () => {
    const res = await t.call({ method: 'GET', url: '/health' });
    expect(res.json()).toEqual({ status: 'ok', env: 'development' });
    expect((await t.call({ method: 'GET', url: '/api/v1/health' })).json()).toEqual({ data: { status: 'ok' } });
  });
});
