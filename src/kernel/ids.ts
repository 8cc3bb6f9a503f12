import { customAlphabet } from 'nanoid';

/** Random, non-guessable record ids (21 characters, ~126 bits). */
export const newId = customAlphabet('0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz', 21);
