import type { SwaggerTransform } from '@fastify/swagger';
import type { FastifyInstance, FastifySchema, RouteOptions } from 'fastify';
import { STATUS_CODES } from 'node:http';
import type { SwaggerTransformObject } from '@fastify/swagger';
import { jsonSchemaTransform, jsonSchemaTransformObject } from 'fastify-type-provider-zod';
import { errorEnvelope } from '../../kernel/http/envelope.ts';
import { OBSERVABILITY_HEADER } from './metrics.ts';
import type { Caller } from '../../kernel/http/route-config.ts';
import { own } from '../../kernel/safe/keys.ts';
import { SITE_ID_PATTERN } from '../../kernel/tenancy/site.ts';

/** How callers present credentials (spec "Authentication"). */
export const securitySchemes = {
  bearerAuth: {
    type: 'http',
    scheme: 'bearer',
    bearerFormat: 'JWT',
    description: 'A login token (POST /api/v1/auth/login or verify-totp), or a JWT of a trusted external issuer.',
  },
  apiKey: {
    type: 'http',
    scheme: 'bearer',
    bearerFormat: 'svck_…',
    description: 'An API key (`svck_…`, or a read-only publishable `svck_pub_…` key) sent as the bearer token.',
  },
  observabilityToken: {
    type: 'apiKey',
    in: 'header',
    name: 'X-Svc-Observability-Token',
    description: 'SVC_OBSERVABILITY_TOKEN for /health detail, METRICS_TOKEN for /metrics.',
  },
  scimToken: {
    type: 'http',
    scheme: 'bearer',
    description: 'The SCIM_TOKEN of the deployment; valid on /scim/v2/ only.',
  },
} as const;

type Security = Record<string, string[]>[];

const PRINCIPAL: Security = [{ bearerAuth: [] }, { apiKey: [] }];

/** Routes that read an observability token besides (or instead of) a bearer token. */
const OBSERVED = new Map<string, Security>([
  ['/health', [{}, { observabilityToken: [] }]],
  ['/metrics', [{}, { observabilityToken: [] }]],
]);

/** The security requirement of a route, from its `config.caller`: public routes need none. */
export function securityOf(url: string, caller: Caller = 'bearer'): Security {
  const observed = OBSERVED.get(url);
  if (observed) return observed;
  if (caller === 'public') return [];
  if (caller === 'scim') return [{ scimToken: [] }];
  return PRINCIPAL;
}

const words = (s: string) => s.split(/[^A-Za-z0-9]+/).filter(Boolean);
const cap = (s: string) => s.charAt(0).toUpperCase() + s.slice(1);

/**
 * A stable operationId from method and path: `GET /api/v1/items/:collection/:id` is `getItemsByCollectionById`.
 * Routes outside /api/v1 keep their first segment apart (`/health` is `getServiceHealth`).
 */
export function operationIdOf(method: string, url: string): string {
  const api = url.startsWith('/api/v1/');
  const rest = api ? url.slice('/api/v1'.length) : url;
  const parts = rest
    .split('/')
    .filter(Boolean)
    .map((seg) => {
      if (seg === '*') return 'ByPath';
      if (seg.startsWith(':')) return `By${words(seg.slice(1)).map(cap).join('')}`;
      return words(seg).map(cap).join('');
    });
  return `${method.toLowerCase()}${api ? '' : 'Service'}${parts.join('')}`;
}

const ERROR_STATUSES_OF_EVERY_ROUTE = [400, 401, 403, 500, 503];

/** Public areas with limits of their own (login, sign-up, recovery, delivery). */
const RATE_LIMITED_PUBLIC = ['/api/v1/auth/', '/api/v1/deliver/'];

/**
 * The failure statuses a route can answer: every route may meet a malformed request, a bad token, a refusal, an
 * internal error and the overload limiter; site-scoped routes and routes with path parameters also a 404;
 * writes a 409 (unique values, stale state); authenticated routes the API throttle (429).
 */
export function errorStatusesOf(route: Pick<RouteOptions, 'method' | 'url' | 'config' | 'attachValidation'>): number[] {
  const config = (route.config ?? {}) as { caller?: Caller; site?: boolean };
  const caller = config.caller ?? 'bearer';
  const statuses = new Set(ERROR_STATUSES_OF_EVERY_ROUTE);
  const siteScoped = config.site ?? route.url.startsWith('/api/v1/');
  if (siteScoped || route.url.includes(':') || route.url.includes('*')) statuses.add(404);
  const methods = [route.method].flat();
  if (methods.some((m) => m !== 'GET' && m !== 'HEAD')) statuses.add(409);
  // Routes that take their input errors in hand answer them with 422 (issuers, releases).
  if (route.attachValidation) statuses.add(422);
  if (caller !== 'public' || RATE_LIMITED_PUBLIC.some((p) => route.url.startsWith(p))) statuses.add(429);
  return [...statuses].sort();
}

/**
 * Every route declares its failures: the error envelope of each status it can answer, unless the route's own
 * schema already names that status. The error handler builds those answers itself (typed) and sends them as text.
 */
export function installOpenApiRoutes(app: FastifyInstance): void {
  app.addHook('onRoute', (route) => {
    const schema = (route.schema ?? {}) as { hide?: boolean; response?: Record<string | number, unknown> };
    if (schema.hide) return;
    const response = { ...schema.response };
    for (const status of errorStatusesOf(route)) response[status] ??= errorEnvelope(status);
    route.schema = { ...schema, response };
  });
}

/** The site header of site-scoped routes (the site may instead come from the subdomain, so it is optional). */
const siteHeader = {
  type: 'string',
  pattern: SITE_ID_PATTERN.source,
  description: 'The site the request acts on; may instead come from the subdomain of the host.',
};

/**
 * Wraps the zod transform: adds the operationId, a summary where the route gave none, the security requirement
 * from `config.caller`, and the X-Svc-Site header of site-scoped routes.
 */
export const openApiTransform: SwaggerTransform = (input) => {
  const route = input.route;
  const method = [route.method].flat()[0]!;
  const base = jsonSchemaTransform(input) as {
    schema: Record<string, unknown> & { hide?: boolean; headers?: Record<string, unknown> };
    url: string;
  };
  if (base.schema.hide && route.url !== '/metrics') return base;
  const config = (route.config ?? {}) as { caller?: Caller; site?: boolean };
  const schema: Record<string, unknown> = { ...base.schema };
  delete schema.hide;
  schema.operationId ??= operationIdOf(method, route.url);
  schema.summary ??= `${method} ${route.url.replace(/:([A-Za-z0-9_]+)/g, '{$1}')}`;
  schema.response = described(schema.response as Record<string, Record<string, unknown>> | undefined);
  schema.security = securityOf(route.url, config.caller);
  // An untagged route is filed under its first path segment after /api/v1 (`/metrics` under `system`).
  schema.tags ??= [
    route.url === '/metrics' ? 'system' : (route.url.replace(/^\/api\/v1\//, '/').split('/')[1] ?? 'system'),
  ];
  if (config.site ?? route.url.startsWith('/api/v1/')) {
    const headers = (base.schema.headers ?? { type: 'object', properties: {} }) as {
      properties?: Record<string, unknown>;
    };
    schema.headers = { ...headers, properties: { ...headers.properties, 'x-svc-site': siteHeader } };
  }
  if (route.url === '/metrics') {
    schema.summary = 'Prometheus metrics (with METRICS_TOKEN set, only for its holder)';
    schema.response = metricsResponse;
  }
  if (route.url.endsWith('/*')) return restOfPath(schema, base.url);
  return { schema: schema as FastifySchema, url: base.url };
};

const reason = (status: string, fallback: string) =>
  own<string | undefined>(STATUS_CODES as Record<string, string | undefined>, status) ?? fallback;

/**
 * Each response gets a description (the schema's own, else the HTTP reason phrase); a route that declares no
 * success schema is documented with a bare 200, so every operation names its success.
 */
function described(response: Record<string, Record<string, unknown>> | undefined): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  const entries = Object.entries(response ?? {});
  if (!entries.some(([status]) => status.startsWith('2'))) out[200] = { description: 'Success', type: 'null' };
  for (const [status, schema] of entries) {
    if (status === '204') out[status] = { description: 'No Content', type: 'null' };
    else if (schema.content || schema.description) out[status] = schema;
    else if (schema.type === 'null') out[status] = { ...schema, description: reason(status, 'Success') };
    else
      out[status] = {
        description: reason(status, 'Response'),
        content: { 'application/json': { schema } },
      };
  }
  return out;
}

/** Components no operation refers to (the zod registry also lists request-side twins of the response schemas). */
export const openApiTransformObject: SwaggerTransformObject = (doc) => {
  const out = jsonSchemaTransformObject(doc) as ReturnType<SwaggerTransformObject> & {
    components?: { schemas?: Record<string, unknown> };
  };
  bracketForms(out as { paths?: Record<string, Record<string, { parameters?: QueryParameter[] }>> });
  const schemas = out.components?.schemas;
  if (!schemas) return out;
  const text = JSON.stringify({ ...out, components: { ...out.components, schemas: {} } });
  const used = new Set<string>();
  const visit = (json: string) => {
    for (const m of json.matchAll(/#\/components\/schemas\/([^"]+)"/g)) {
      if (used.has(m[1]!)) continue;
      used.add(m[1]!);
      visit(JSON.stringify(schemas[m[1]!] ?? {}));
    }
  };
  visit(text);
  for (const name of Object.keys(schemas)) if (!used.has(name)) delete schemas[name];
  return out;
};

interface QueryParameter {
  in: string;
  schema?: { type?: string; anyOf?: { type?: string }[] };
  style?: string;
  explode?: boolean;
}

/**
 * A query parameter that takes an object (`filter`, `deep`, `aggregate`) is sent in the bracket form,
 * `filter[status][_eq]=published`: OpenAPI's deepObject, which generated clients serialise that way. Its JSON text
 * form stays declared beside it (`anyOf` string or object).
 */
function bracketForms(doc: { paths?: Record<string, Record<string, { parameters?: QueryParameter[] }>> }): void {
  for (const item of Object.values(doc.paths ?? {}))
    for (const op of Object.values(item))
      for (const p of op.parameters ?? []) {
        const types = [p.schema?.type, ...(p.schema?.anyOf ?? []).map((s) => s.type)];
        if (p.in !== 'query' || !types.includes('object')) continue;
        p.style = 'deepObject';
        p.explode = true;
      }
}

/** A wildcard route (`…/*`) is documented with a named parameter, `{path}`, the rest of the path. */
function restOfPath(schema: Record<string, unknown>, url: string): { schema: FastifySchema; url: string } {
  const params = schema.params as { properties?: Record<string, unknown>; required?: string[] } | undefined;
  if (params?.properties) {
    const { '*': rest, ...named } = params.properties;
    schema.params = {
      ...params,
      properties: { ...named, path: { ...(rest as object), description: 'The rest of the path' } },
      required: (params.required ?? []).map((k) => (k === '*' ? 'path' : k)),
    };
  }
  return { schema, url: `${url.slice(0, -1)}:path` };
}

const metricsResponse = {
  200: {
    description: 'Prometheus text exposition',
    content: { 'text/plain': { schema: { type: 'string' } } },
  },
  401: {
    description: `METRICS_TOKEN is set and ${OBSERVABILITY_HEADER} did not carry it`,
    content: { 'application/json': { schema: { $ref: '#/components/schemas/Error401' } } },
  },
};
