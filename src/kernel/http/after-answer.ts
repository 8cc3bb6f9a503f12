import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { AfterAnswer } from '../after-answer.ts';

/** Work a handler hands over to run once its answer has gone out. */
export type Later = () => Promise<void>;

/**
 * Lets a plugin's handlers leave work for after their answer: `later(req, name, work)` in the handler, and the work
 * starts from fastify's onResponse (after the last byte is written, or the write failed), through the node's bounded
 * `AfterAnswer`. Started from the handler, it would race the answer's own write and its cost could show in it.
 */
export function installAfterAnswer(app: FastifyInstance, afterAnswer: AfterAnswer) {
  const queued = new WeakMap<FastifyRequest, { name: string; work: Later }>();
  app.addHook('onResponse', async (req) => {
    const entry = queued.get(req);
    if (!entry) return;
    queued.delete(req);
    afterAnswer.run(entry.name, entry.work);
  });
  return (req: FastifyRequest, name: string, work: Later) => void queued.set(req, { name, work });
}
