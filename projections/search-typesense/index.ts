/**
 * Typesense behind the search port (DESIGN §2, used when TYPESENSE_URL and TYPESENSE_API_KEY are set): the engine,
 * the writer the search slice's reactor and loop keep it in step with, and the pure mapping of items to documents.
 */
export {
  MAX_CANDIDATES,
  typesenseClient,
  typesenseSearchIndex,
  typesenseWriter,
  type TypesenseSettings,
  type TypesenseWriter,
} from './typesense-index.ts';
export { dropCollection, indexItem, reindexCollection, sweepTypesense, type TypesenseSync } from './typesense-sync.ts';
export { aliasOf, plainText, typesenseDocument } from './typesense-documents.ts';
