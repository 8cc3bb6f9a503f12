import type { FastifyRequest } from 'fastify';
import { InvalidReadHeader } from '../item-query.errors.ts';

const LOCALE = /^[a-z]{2,3}(-[A-Za-z0-9]{2,8}){0,3}$/;
const bad = (message: string, header: string) => new InvalidReadHeader({ header, message });

/** The optional item read headers: `X-Svc-Locale: <code>` and `X-Svc-Draft: true`. */
export function readHeaders(req: FastifyRequest): { locale: string | null; draft: boolean } {
  const locale = req.headers['x-svc-locale'];
  const draft = req.headers['x-svc-draft'];
  if (locale !== undefined && (typeof locale !== 'string' || !LOCALE.test(locale)))
    throw bad('X-Svc-Locale must be a locale code such as de or pt-BR', 'x-svc-locale');
  if (draft !== undefined && draft !== 'true' && draft !== 'false')
    throw bad('X-Svc-Draft must be true or false', 'x-svc-draft');
  return { locale: (locale as string | undefined) ?? null, draft: draft === 'true' };
}
