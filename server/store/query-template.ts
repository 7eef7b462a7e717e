/**
 * Queries built and compiled by Kysely once, then run again with new values.
 *
 * Kysely builds an operation tree and compiles it to SQL on every call; on
 * update_user's path that was a tenth of the CPU (BENCHMARKS.md). A template is
 * built with a marker in place of each value and compiled once; the markers'
 * places among the compiled parameters are kept, and each call puts its values
 * there. The SQL is still Kysely's: typed, and right for the dialect.
 */
import { type Compilable, type CompiledQuery, createQueryId } from 'kysely';

class Marker {
  constructor(readonly index: number) {}
}

/**
 * `build` receives stand-ins for its arguments and must pass each, unchanged and
 * once, as a value of the query (a comparison, a `set`); anything else about the
 * query must not depend on them.
 */
export function queryTemplate<Args extends unknown[], Row>(
  arity: Args['length'],
  build: (...args: Args) => Compilable<Row>,
): (...args: Args) => CompiledQuery<Row> {
  const markers = Array.from({ length: arity }, (_, index) => new Marker(index));
  const template = build(...(markers as Args)).compile();
  const places = template.parameters.map((parameter) => (parameter instanceof Marker ? parameter.index : -1));
  for (const marker of markers) {
    if (places.filter((place) => place === marker.index).length !== 1) {
      throw new Error(`query template: argument ${marker.index} must appear exactly once among the parameters of ${template.sql}`);
    }
  }
  return (...args) => ({
    ...template,
    queryId: createQueryId(),
    parameters: places.map((place, position) => (place === -1 ? template.parameters[position] : args[place])),
  });
}
