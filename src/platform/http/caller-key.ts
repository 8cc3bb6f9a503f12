import { z } from 'zod';
import { MAX_PARAM_LENGTH, paramProblem, problemMessage } from './input-guard.ts';

/**
 * Why an id or key a caller chooses (a version key, a bookmark or folder name, a flow node id, a slug, a site id,
 * …) could never be read back, or null. It is the read side's own rule, so nothing is made that every later read
 * refuses: the edge refuses a path parameter that names an object prototype member or carries NUL or a lone
 * surrogate (`paramProblem`), the router one longer than MAX_PARAM_LENGTH, a route an empty one; and `.` and `..`
 * are dot segments, which URL clients resolve away (also written `%2e`) before the request is sent.
 */
export function callerKeyProblem(key: string): string | null {
  if (key.length === 0) return 'an id or key is not empty';
  if (key.length > MAX_PARAM_LENGTH) return `an id or key is at most ${MAX_PARAM_LENGTH} characters`;
  if (key === '.' || key === '..') return 'an id or key is not . or .. (URL clients resolve them away)';
  const p = paramProblem(key);
  return p ? problemMessage(p) : null;
}

/**
 * The one refinement of every id or key a caller chooses: appended last to a surface's own schema (after its
 * `trim`, pattern and length), so what a create accepts is what a read can name.
 */
export function checkCallerKey(key: string, ctx: z.RefinementCtx): void {
  const problem = callerKeyProblem(key);
  if (problem) ctx.addIssue({ code: 'custom', message: problem, input: key });
}

/** An id or key a caller chooses, with no rule of its own beyond the shared one. */
export const CallerKey = z.string().min(1).max(MAX_PARAM_LENGTH).superRefine(checkCallerKey);
