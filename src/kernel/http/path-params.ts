import { z } from 'zod';

/**
 * An id in a request's path: 1 to `max` characters, no blank at either end and no control character. An empty or
 * blank id is a mistake in the address, so every route answers it alike (400 VALIDATION_FAILED at
 * `['params', name]`), before any lookup that would make it a 404 of one route and a 422 of another.
 */
export const pathId = (max: number) => z.string().min(1).max(max).regex(PATH_ID_PATTERN, PATH_ID_MESSAGE);

/** What every path id matches (also for path schemas of their own, such as a collection name). */
// eslint-disable-next-line no-control-regex -- control characters are what the pattern refuses
export const PATH_ID_PATTERN = /^\S(?:[^\u0000-\u001f\u007f]*\S)?$/;
export const PATH_ID_MESSAGE = 'an id: no blank at either end, no control character';
