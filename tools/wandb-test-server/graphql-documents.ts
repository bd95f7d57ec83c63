/**
 * Parsed and validated GraphQL documents of the test server, cached by query text (clients send the
 * same few queries over and over), with the name of the first named operation (the Python client
 * sends no operationName field).
 */
import { type DocumentNode, type GraphQLError, type GraphQLSchema, Kind, parse, validate } from "graphql";

/** A query compiled once: the document when valid, else its errors. */
export interface CompiledDocument {
  document: DocumentNode | null;
  errors: readonly GraphQLError[];
  /** Name of the only/first named operation. */
  firstOperationName: string | null;
}

const DOC_CACHE_MAX = 200;

/** Compiles queries against one schema, keeping the last `DOC_CACHE_MAX` distinct ones. */
export class DocumentCache {
  private readonly cache = new Map<string, CompiledDocument>();

  constructor(private readonly schema: GraphQLSchema) {}

  compile(query: string): CompiledDocument {
    const hit = this.cache.get(query);
    if (hit) return hit;
    let entry: CompiledDocument;
    try {
      const document = parse(query);
      const errors = validate(this.schema, document);
      const op = document.definitions.find((d) => d.kind === Kind.OPERATION_DEFINITION && d.name);
      const firstOperationName = op && op.kind === Kind.OPERATION_DEFINITION ? (op.name?.value ?? null) : null;
      entry = { document: errors.length ? null : document, errors, firstOperationName };
    } catch (e) {
      entry = { document: null, errors: [e as GraphQLError], firstOperationName: null };
    }
    if (this.cache.size >= DOC_CACHE_MAX) this.cache.delete(this.cache.keys().next().value as string);
    this.cache.set(query, entry);
    return entry;
  }
}
