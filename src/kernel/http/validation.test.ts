import Fastify from 'fastify';
import { serializerCompiler, type ZodTypeProvider } from 'fastify-type-provider-zod';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { installErrorHandling } from './error-handler.ts';
import { guardedValidatorCompiler } from './validation.ts';

/** A schema as the git integration's base URL had it: a refinement that reads the value as an address. */
const Body = z.object({
  url: z
    .string()
    .max(50)
    .refine((u) => new URL(u).protocol === 'https:', 'https only'),
});

async function app() {
  const a = Fastify();
  a.setValidatorCompiler(guardedValidatorCompiler);
  a.setSerializerCompiler(serializerCompiler);
  installErrorHandling(a);
  a.withTypeProvider<ZodTypeProvider>().post('/x', { schema: { body: Body } }, async (req) => ({ data: req.body }));
  await a.ready();
  return a;
}

describe('the validator of every route', () => {
  it('answers 400 in the envelope when a schema throws on the input, instead of 500', async () => {
    const a = await app();
    const res = await a.inject({ method: 'POST', url: '/x', payload: { url: 'x'.repeat(200_000) } });
    expect(res.statusCode).toBe(400);
    expect(res.json()).toEqual({
      errors: [
        {
          code: 'VALIDATION_FAILED',
          message: 'the body could not be checked',
          path: ['body'],
          extensions: { reason: 'unchecked' },
        },
      ],
    });
    await a.close();
  });

  it('answers as before otherwise', async () => {
    const a = await app();
    expect((await a.inject({ method: 'POST', url: '/x', payload: { url: 'https://a.example/' } })).statusCode).toBe(
      200,
    );
    const bad = await a.inject({ method: 'POST', url: '/x', payload: { url: 'http://a.example/' } });
    expect(bad.statusCode).toBe(400);
    expect(bad.json().errors[0]).toMatchObject({ message: 'https only', path: ['body', 'url'] });
    await a.close();
  });
});
